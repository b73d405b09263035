//! `role-council` (seed 003): seats are roles from role files — each with its
//! own instructions, carried as the seat's persona — speaking in turn for
//! "Round X of Y", every turn seeing the whole debate so far; the judge role
//! synthesizes over the transcript grouped by round. The original documented
//! three rounds and ran one; here the spec's rounds run (default 3).

use super::sequential::{RoundPolicy, Sequential};
use crate::MAX_ROUNDS;
use crate::debate::{Debate, Seat};
use crate::plan::Bounds;
use crate::prompt_kit::{self, Prompt};
use crate::protocol::definition::{BASE, Definition, PLAIN, Rounds, Shown};

pub(crate) fn create() -> Sequential<Policy> {
    Sequential::new(Policy)
}

#[derive(Clone)]
pub(crate) struct Policy;

fn label(debate: &Debate, seat: Seat) -> String {
    match seat {
        Seat::Panel(i) => format!("{} ({})", debate.seat(i).display_name(), debate.seat(i).id),
        Seat::Judge => "Judge".into(),
    }
}

impl RoundPolicy for Policy {
    /// A role's turn. Output: two or three focused paragraphs from the role's perspective.
    fn turn_prompt(&self, debate: &Debate, seat: usize, round: u32, _adversary: bool) -> Prompt {
        let me = debate.seat(seat);
        let rounds = debate.spec.rounds();
        let instructions = me.persona.clone().unwrap_or_default();
        // The same for every role and round; the role's own instructions come last.
        let system = format!(
            "You take part in a council debate of {rounds} rounds between roles with different perspectives; \
your role and its instructions are given at the end.\n\
- Build on the earlier arguments, yours and the others'.\n\
- Answer the counter-arguments made against your role's view.\n\
- Bring in points your role sees that nobody has raised yet.\n\
- Do not repeat yourself: refer to earlier points in a phrase instead of restating them.\n\
- Two or three focused paragraphs."
        );
        // Blind, round 1 shows no role another's turn.
        let blind = prompt_kit::blind(debate, round);
        let history =
            prompt_kit::entries(debate, |slot| !blind || slot.is_panel(seat), |slot| label(debate, slot.seat));
        let name = me.display_name();
        Prompt {
            system,
            before: prompt_kit::question(debate),
            history,
            history_title: "THE DEBATE SO FAR".into(),
            after: prompt_kit::turn_block(&[
                &format!("You are {name}."),
                &instructions,
                &prompt_kit::domain(me),
                if blind { prompt_kit::BLIND_NOTE } else { "" },
                &format!("Round {round} of {rounds}: your turn, {name}."),
            ]),
        }
    }

    /// The judge role's synthesis over the transcript grouped by round. Output: a clear, actionable answer in Markdown.
    fn judge_prompt(&self, debate: &Debate) -> Prompt {
        let instructions = debate.judge().and_then(|j| j.persona.clone()).unwrap_or_default();
        Prompt {
            system: format!(
                "You are the judge of a council of roles. You did not take part in the debate.\n\n{}\n\n\
Write a clear, actionable answer to the question: where the roles agree, where they disagree and why, \
and what you recommend.",
                instructions.trim()
            ),
            before: prompt_kit::question(debate),
            history: prompt_kit::entries(debate, |_| true, |slot| label(debate, slot.seat)),
            history_title: "COMPLETE DEBATE TRANSCRIPT".into(),
            after: "Synthesize this debate into a clear, actionable answer to the question.".into(),
        }
    }
}

/// What readers of its transcripts need of it (see [`Shown`]): nothing of
/// its own.
pub(crate) const SHOWN: Shown = PLAIN;

pub(crate) const DEF: Definition = Definition {
    name: "role-council",
    summary: "Seats defined by role files (markdown + YAML frontmatter); sequential rounds; the judge role synthesizes.",
    shown: SHOWN,
    rounds: Rounds { default: 3, max: MAX_ROUNDS, unit: "every role speaks once, in panel order" },
    seats_are_roles: true,
    answers: true,
    // One turn per role per round, in sequence.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        Bounds::new(spec, n * r, 0, r).per_seat(r, 0).in_passes()
    },
    build: |_| Box::new(create()),
    ..BASE
};
