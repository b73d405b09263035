//! Fitting every request into the context budget, in one place.
//!
//! Rule, in order: the full history if it fits; else the newest summary plus
//! the turns after it; else drop the oldest turns (saying how many); as a last
//! resort, shorten the summary and then the text before the history. Sizes
//! are estimated with [`estimate_tokens`](crate::tokens::estimate_tokens).

use crate::Message;
use crate::prompt_kit::{self, HistoryEntry, Prompt};
use crate::tokens::estimate_tokens;

/// A prompt rendered into messages, and how much of its history it kept.
pub(crate) struct Rendered {
    pub messages: Vec<Message>,
    /// Earlier turns left out to fit the budget.
    pub omitted: usize,
    /// Where the user message's stable head and each turn of its history end
    /// (byte offsets): the prefixes a provider could serve again from its
    /// cache. None when the prompt had to be shortened to fit.
    pub cache_marks: Vec<u32>,
}

pub(crate) fn render(prompt: &Prompt, budget: Option<u32>, summary: Option<(u32, &str)>) -> Rendered {
    let (full, marks) = compose_marked(prompt, None, &prompt.history, 0, &prompt.before);
    let Some(budget) = budget else { return Rendered { messages: full, omitted: 0, cache_marks: marks } };
    if fits(&full, budget) {
        return Rendered { messages: full, omitted: 0, cache_marks: marks };
    }
    // Summary of rounds ≤ k, then only the turns after k.
    let (summary, entries): (Option<(u32, &str)>, Vec<HistoryEntry>) = match summary {
        Some((k, text)) if prompt.history.iter().any(|e| e.round <= k) => {
            (Some((k, text)), prompt.history.iter().filter(|e| e.round > k).cloned().collect())
        }
        _ => (None, prompt.history.clone()),
    };
    // Size every entry once (heading counted each time: an upper bound), then
    // find the fewest oldest entries to drop; confirm by rendering.
    let fixed: usize = chars(&compose(prompt, summary, &[], 1, &prompt.before));
    let sizes: Vec<usize> = entries
        .iter()
        // Quoting adds "> " to every line of the text.
        .map(|e| {
            e.heading.chars().count()
                + e.label.chars().count()
                + e.text.chars().count()
                + 2 * e.text.lines().count()
                + 16
        })
        .collect();
    let mut tail: usize = sizes.iter().sum();
    let limit = budget as usize * 4;
    let mut skip = 0;
    while skip < entries.len() && fixed + tail > limit {
        tail -= sizes[skip];
        skip += 1;
    }
    while skip <= entries.len() {
        let (m, marks) = compose_marked(prompt, summary, &entries[skip..], skip, &prompt.before);
        if fits(&m, budget) {
            return Rendered { messages: m, omitted: skip, cache_marks: marks };
        }
        skip += 1;
    }
    // Nothing of the history fits: shorten what remains until it does. A
    // persona may take at most half the budget, so the question and this
    // turn's instruction always keep room.
    let persona_room = budget as usize * 4 / 2;
    let shortened;
    let prompt = if prompt.system.chars().count() > persona_room {
        shortened = Prompt { system: cut(&prompt.system, persona_room), ..prompt.clone() };
        &shortened
    } else {
        prompt
    };
    let omitted = prompt.history.len();
    let fixed = compose(prompt, None, &[], 0, "");
    let room = (budget as usize * 4).saturating_sub(chars(&fixed));
    let summary_text = summary.map(|(k, t)| (k, cut(t, room / 2)));
    let before =
        cut(&prompt.before, room.saturating_sub(summary_text.as_ref().map_or(0, |(_, t)| t.chars().count() + 64)));
    let mut m = compose(prompt, summary_text.as_ref().map(|(k, t)| (*k, t.as_str())), &[], omitted, &before);
    // Guarantee: shave the user message's head until the whole prompt fits,
    // then (for a budget too small for anything) the persona's tail.
    while !fits(&m, budget) {
        let user = &mut m.last_mut().expect("a user message").content;
        let keep = user.chars().count().saturating_sub(64);
        *user = cut_front(user, keep);
        if keep == 0 {
            let system = &mut m[0].content;
            let keep = system.chars().count().saturating_sub(64);
            *system = system.chars().take(keep).collect();
            if keep == 0 {
                break;
            }
        }
    }
    Rendered { messages: m, omitted, cache_marks: Vec::new() }
}

fn compose(
    prompt: &Prompt,
    summary: Option<(u32, &str)>,
    entries: &[HistoryEntry],
    skipped: usize,
    before: &str,
) -> Vec<Message> {
    compose_marked(prompt, summary, entries, skipped, before).0
}

/// The messages, and where in the user message the text before the history
/// and each entry of the history end: every prompt of the debate that shares
/// them repeats the user message up to there.
fn compose_marked(
    prompt: &Prompt,
    summary: Option<(u32, &str)>,
    entries: &[HistoryEntry],
    skipped: usize,
    before: &str,
) -> (Vec<Message>, Vec<u32>) {
    let mut marks = Vec::new();
    let mut user = String::new();
    user.push_str(before);
    marks.push(user.len() as u32);
    if summary.is_some() || !entries.is_empty() || skipped > 0 {
        if !user.is_empty() && !user.ends_with('\n') {
            user.push('\n');
        }
        user.push('\n');
        user.push_str(&prompt.history_title);
        user.push_str(":\n\n");
        if let Some((k, text)) = summary {
            user.push_str(&format!("=== Summary of rounds 1 to {k} ===\n\n{}\n\n", prompt_kit::quoted(text)));
        } else if skipped > 0 {
            user.push_str(&format!("[{skipped} earlier turns omitted to fit the context budget]\n\n"));
        }
        // The history's heading (and summary) belongs to the first entry's block.
        let start = user.len();
        let (history, ends) = prompt_kit::render_marked(entries);
        user.push_str(&history);
        if ends.is_empty() {
            marks.push(user.len() as u32);
        }
        marks.extend(ends.iter().map(|end| (start + end) as u32));
    } else if !user.is_empty() && !prompt.after.is_empty() {
        user.push('\n');
    }
    user.push_str(&prompt.after);
    marks.retain(|&m| m > 0);
    marks.dedup();
    (vec![Message::system(prompt.system.clone()), Message::user(user)], marks)
}

fn chars(messages: &[Message]) -> usize {
    messages.iter().map(|m| m.content.chars().count()).sum()
}

/// Whether messages fit: the estimate of their concatenated text.
pub(crate) fn fits(messages: &[Message], budget: u32) -> bool {
    messages.iter().map(|m| estimate_tokens(&m.content)).sum::<u32>() <= budget
}

fn cut(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars.saturating_sub(16)).collect();
    format!("{kept} […shortened]")
}

fn cut_front(text: &str, keep_chars: usize) -> String {
    let n = text.chars().count();
    text.chars().skip(n.saturating_sub(keep_chars)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(persona_chars: usize) -> Prompt {
        Prompt {
            system: "You are a careful analyst. ".repeat(persona_chars / 27 + 1),
            before: "Question: should we ship on Friday?".into(),
            history: Vec::new(),
            history_title: "Earlier turns".into(),
            after: "Answer in three sentences.".into(),
        }
    }

    #[test]
    fn a_persona_longer_than_the_budget_is_shortened_and_the_instruction_kept() {
        let rendered = render(&prompt(40_000), Some(500), None);
        assert!(fits(&rendered.messages, 500), "{} chars", chars(&rendered.messages));
        let user = &rendered.messages[1].content;
        assert!(user.contains("Question: should we ship on Friday?"), "{user}");
        assert!(user.ends_with("Answer in three sentences."), "{user}");
        assert!(rendered.messages[0].content.ends_with("[…shortened]"));
    }

    #[test]
    fn a_persona_that_fits_is_left_whole() {
        let p = prompt(400);
        let rendered = render(&p, Some(500), None);
        assert_eq!(rendered.messages[0].content, p.system);
    }

    #[test]
    fn even_a_tiny_budget_is_met() {
        for budget in [1, 5, 20, 64] {
            let rendered = render(&prompt(10_000), Some(budget), None);
            assert!(fits(&rendered.messages, budget), "budget {budget}");
        }
    }
}
