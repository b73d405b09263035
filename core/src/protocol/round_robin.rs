//! `round-robin`: every seat speaks once per round, in panel order, and sees
//! the question plus every earlier turn; after the last round the judge
//! synthesizes (seeds 002 and 003).

use super::registry::{BASE, Definition, Rounds};
use super::sequential::{RoundPolicy, Sequential};
use super::{Bounds, Prompt, prompt_kit};
use crate::MAX_ROUNDS;
use crate::debate::Debate;

pub(crate) type RoundRobin = Sequential<Policy>;

impl RoundRobin {
    pub fn create() -> Self {
        Sequential::new(Policy)
    }
}

#[derive(Clone)]
pub(crate) struct Policy;

impl RoundPolicy for Policy {
    fn turn_prompt(&self, debate: &Debate, seat: usize, round: u32, _adversary: bool) -> Prompt {
        named_turn_prompt(debate, seat, round, "")
    }

    fn judge_prompt(&self, debate: &Debate) -> Prompt {
        judge_prompt(debate)
    }
}

/// A debater's turn, every speaker shown as "Speaker N". Output: free prose, two or three
/// short paragraphs. `extra` is appended to the system prompt.
pub(crate) fn named_turn_prompt(debate: &Debate, seat: usize, round: u32, extra: &str) -> Prompt {
    let me = debate.seat(seat);
    let rounds = debate.spec.rounds();
    let system = format!(
        "You are {name}, one of {n} panelists in a council debate. This is round {round} of {rounds}.\n\n\
How to take your turn:\n\
- Answer the question from your own perspective.\n\
- Engage with what the others said: name them as shown, say what you accept and what you reject, and why.\n\
- Add points that are still missing; do not restate earlier points, refer to them briefly.\n\
- Keep it to two or three short paragraphs of plain prose.{persona}{extra}",
        name = prompt_kit::seat_label(debate, seat),
        n = debate.spec.panel.len(),
        persona = prompt_kit::persona(me),
    );
    let history = prompt_kit::entries(debate, |_| true, |slot| prompt_kit::label(debate, slot));
    let after = if history.is_empty() {
        format!("You speak first. It is your turn, {}.", prompt_kit::seat_label(debate, seat))
    } else {
        format!("It is your turn, {} (round {round} of {rounds}).", prompt_kit::seat_label(debate, seat))
    };
    Prompt { system, before: prompt_kit::question(debate), history, history_title: "THE DEBATE SO FAR", after }
}

/// The judge's synthesis. Output: Markdown under four fixed headings.
pub(crate) fn judge_prompt(debate: &Debate) -> Prompt {
    let system = "You are the judge of a council debate. You did not take part in it. \
Read the whole transcript and write the council's answer.\n\n\
Answer in Markdown with exactly these headings:\n\
## Answer\n(the answer the debate supports, in a few sentences)\n\
## Common ground\n(the points the whole panel shares)\n\
## Disagreement\n(the points still contested, and who holds which side)\n\
## Open questions\n(what would have to be known to settle them)"
        .to_string();
    Prompt {
        system,
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, |slot| prompt_kit::label(debate, slot)),
        history_title: "COMPLETE DEBATE TRANSCRIPT",
        after: "Write the synthesis now.".to_string(),
    }
}

pub(crate) const DEF: Definition = Definition {
    name: "round-robin",
    summary: "Every seat speaks once per round in panel order, seeing all earlier turns; the judge synthesizes.",
    rounds: Rounds { default: 2, max: MAX_ROUNDS, unit: "every seat speaks once, in panel order" },
    // One turn per seat per round, in sequence.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        Bounds::new(spec, n * r, 0, r)
    },
    build: |_| Box::new(RoundRobin::create()),
    ..BASE
};
