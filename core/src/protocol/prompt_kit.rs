//! Pieces every protocol's prompts share: the question, personas, history.

use crate::Participant;
use crate::debate::{Debate, Slot};

/// The question, with the context when there is one.
pub(crate) fn question(debate: &Debate) -> String {
    let spec = &debate.spec;
    match &spec.context {
        Some(context) => format!(
            "QUESTION:\n{}\n\nCONTEXT:\n{}\n",
            spec.question.trim(),
            context.trim()
        ),
        None => format!("QUESTION:\n{}\n", spec.question.trim()),
    }
}

/// A seat's persona, as a paragraph to append to its system prompt.
pub(crate) fn persona(seat: &Participant) -> String {
    match &seat.persona {
        Some(p) if !p.trim().is_empty() => format!("\n\nYOUR PERSPECTIVE:\n{}", p.trim()),
        _ => String::new(),
    }
}

/// Earlier turns grouped under a heading per round, each labelled by `label`.
pub(crate) fn history<'a>(
    turns: impl Iterator<Item = (Slot, &'a str)>,
    round_heading: impl Fn(&Slot) -> String,
    label: impl Fn(&Slot) -> String,
) -> String {
    let mut out = String::new();
    let mut current: Option<String> = None;
    for (slot, text) in turns {
        let heading = round_heading(&slot);
        if current.as_ref() != Some(&heading) {
            out.push_str(&format!("=== {heading} ===\n\n"));
            current = Some(heading);
        }
        out.push_str(&format!("[{}]\n{}\n\n", label(&slot), text.trim()));
    }
    out
}
