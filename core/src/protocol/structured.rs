//! `structured` (seed 002's structured mode): a fixed choreography —
//! opening statements, cross-examination, rebuttals, then the judge's
//! synthesis. Each phase runs every seat at once: openings are independent,
//! and in each later phase every seat reacts to the same material.

use super::registry::{BASE, Definition, Rounds};
use super::{Bounds, Conclusion, EndKind, Ending, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::Phase;
use crate::debate::Debate;

pub(crate) const DEF: Definition = Definition {
    name: "structured",
    summary: "Opening statements, cross-examination, rebuttals, then the judge's synthesis.",
    rounds: Rounds { default: 1, max: 1, unit: "one pass: opening, cross-examination, rebuttal" },
    // Opening, cross-examination, rebuttal: every seat in each.
    bounds: |spec| Bounds::new(spec, 3 * spec.panel.len() as u32, 0, 3),
    build: |_| Box::new(Structured::default()),
    ..BASE
};

#[derive(Clone, Default)]
pub(crate) struct Structured {
    stage: Stage,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Opening,
    CrossExam,
    Rebuttal,
    Conclude(Conclusion),
}

impl Protocol for Structured {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let (phase, next) = match &mut self.stage {
            Stage::Opening => (Phase::Opening, Stage::CrossExam),
            Stage::CrossExam => (Phase::CrossExam, Stage::Rebuttal),
            Stage::Rebuttal => (Phase::Rebuttal, Stage::Conclude(Conclusion::NotAsked)),
            Stage::Conclude(conclusion) => {
                notes.push(Note::RoundEnded { round: 1, phase: Phase::Rebuttal });
                if !debate.has_quorum() {
                    return Step::Finish(Ending::no_quorum(debate, 1));
                }
                let ending = Ending {
                    kind: EndKind::Completed,
                    reason: "opening, cross-examination and rebuttal ran".into(),
                    rounds_run: 1,
                };
                return conclusion.step(debate, ending, 1, || judge_prompt(debate));
            }
        };
        if phase != Phase::Opening {
            let previous = if phase == Phase::CrossExam { Phase::Opening } else { Phase::CrossExam };
            notes.push(Note::RoundEnded { round: 1, phase: previous });
        }
        if !debate.has_quorum() {
            return Step::Finish(Ending::no_quorum(debate, 0));
        }
        notes.push(Note::RoundStarted { round: 1, phase, challenger: None });
        self.stage = next;
        let calls = debate
            .active_seats()
            .into_iter()
            .map(|seat| PlannedCall::turn(seat, 1, phase, false, prompt(debate, seat, phase), &debate.spec))
            .collect();
        Step::Run(calls)
    }
}

/// One seat's statement in a phase. Output: prose; in cross-examination, one
/// line per question, each starting `To <name as shown>:`.
fn prompt(debate: &Debate, seat: usize, phase: Phase) -> Prompt {
    let me = debate.seat(seat);
    let task = match phase {
        Phase::Opening => {
            "OPENING STATEMENT: state your position on the question and your three strongest \
reasons. You have not seen the others' statements. Two or three short paragraphs."
        }
        Phase::CrossExam => {
            "CROSS-EXAMINATION: for each other panelist, ask the one question that most tests \
their opening statement: its weakest claim, its missing evidence, its hidden assumption. Write one line per \
question, starting with 'To <their name as shown>:'. Ask questions only; do not argue your own case yet."
        }
        _ => {
            "REBUTTAL: answer every question addressed to you in the cross-examination, directly and \
specifically. Then restate your position, saying what, if anything, you now concede. Two or three short paragraphs."
        }
    };
    let system = format!(
        "You are {name}, one of {n} panelists in a structured debate.\n\n{task}{persona}",
        name = prompt_kit::seat_label(debate, seat),
        n = debate.spec.panel.len(),
        persona = prompt_kit::persona(me),
    );
    Prompt {
        system,
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| phase != Phase::Opening, |slot| prompt_kit::label(debate, slot)),
        history_title: "THE DEBATE SO FAR".into(),
        after: format!(
            "Your {}, {}.",
            phase.heading(1).to_ascii_lowercase().replace(" (round 1)", ""),
            prompt_kit::seat_label(debate, seat)
        ),
    }
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
        history_title: "COMPLETE DEBATE TRANSCRIPT".into(),
        after: "Write the synthesis now.".to_string(),
    }
}
