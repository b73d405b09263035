//! `steelman` (seed 001's devil's-advocate variant): the steelman develops
//! the position to its strongest form while the devil's advocate attacks it
//! with exactly five challenges, each naming the assumption it attacks; both
//! run at once. The judge says what survived and writes the revised position.

use serde_json::json;

use super::registry::{BASE, Definition, Seats};
use super::{Bounds, Conclusion, Ending, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::Phase;
use crate::debate::{Debate, Seat};

pub(crate) const DEF: Definition = Definition {
    name: "steelman",
    summary: "The strongest form of a position and five ranked challenges to it; the judge keeps what survived.",
    seats: Seats { min: 2, max: Some(2), why: "the steelman is seat 1, the devil's advocate seat 2" },
    sides: &["steelman", "devil's advocate"],
    // Steelman and devil's advocate, once; the devil is gated.
    bounds: |spec| Bounds::new(spec, 2, 1, 1),
    build: |_| Box::new(Steelman::default()),
    ..BASE
};

const STEELMAN: usize = 0;
const DEVIL: usize = 1;

#[derive(Clone, Default)]
pub(crate) struct Steelman {
    stage: Stage,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Opening,
    Conclude(Conclusion),
}

impl Protocol for Steelman {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        match &mut self.stage {
            // Stage 1 — steelman and devil's advocate, in parallel.
            Stage::Opening => {
                notes.push(Note::RoundStarted { round: 1, phase: Phase::Opening, challenger: Some(DEVIL) });
                self.stage = Stage::Conclude(Conclusion::NotAsked);
                Step::Run(vec![
                    PlannedCall::turn(STEELMAN, 1, Phase::Opening, false, steelman_prompt(debate), &debate.spec),
                    PlannedCall::turn(DEVIL, 1, Phase::Opening, false, devil_prompt(debate), &debate.spec)
                        .adversarial()
                        .expecting("markdown: exactly 5 numbered challenges, each naming its assumption"),
                ])
            }
            // Stage 2 — the judge keeps what survived.
            Stage::Conclude(conclusion) => {
                if matches!(conclusion, Conclusion::NotAsked) {
                    notes.push(Note::RoundEnded { round: 1, phase: Phase::Opening });
                    if debate.active_seats().is_empty() {
                        return Step::Finish(Ending::no_quorum(debate, 1));
                    }
                }
                if let Some(text) = conclusion.verdict(debate) {
                    match section(text, "revised position") {
                        Some(revised) => notes.push(Note::Result { name: "revised_position", value: json!(revised) }),
                        None => notes.push(Note::Warning {
                            speaker: debate.judge().map(|j| j.id.clone()),
                            round: 1,
                            phase: Phase::Synthesis,
                            message: "the judge wrote no '## Revised position' section".into(),
                        }),
                    }
                }
                let ending = Ending::completed("steelman, devil's advocate and judge ran", 1);
                conclusion.step(debate, ending, 1, || judge_prompt(debate))
            }
        }
    }
}

/// The text under a `## <title>` heading (case-insensitive), up to the next heading.
pub(crate) fn section(text: &str, title: &str) -> Option<String> {
    let mut out = None::<String>;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            if out.is_some() {
                break;
            }
            if t.trim_start_matches('#').trim().to_ascii_lowercase().starts_with(title) {
                out = Some(String::new());
            }
            continue;
        }
        if let Some(o) = &mut out {
            o.push_str(line);
            o.push('\n');
        }
    }
    out.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn label(seat: Seat) -> String {
    match seat {
        Seat::Panel(STEELMAN) => "STEELMAN".into(),
        Seat::Panel(_) => "DEVIL'S ADVOCATE".into(),
        Seat::Judge => "JUDGE".into(),
    }
}

/// The steelman. Output: the position in its strongest form, in prose.
fn steelman_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: "Develop the position below into its strongest form: fill the gaps in its reasoning, bring the \
best supporting evidence, and answer in advance the objections a sharp critic would raise. Do not change what \
the position is; make it as good as it can be."
            .into(),
        before: prompt_kit::question(debate),
        after: "Write the steelman.".into(),
        ..Prompt::default()
    }
}

/// The devil's advocate. Output: exactly five numbered challenges, most severe
/// first, each with Assumption / Counterargument / Risk.
fn devil_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: "You are the devil's advocate, and you are known for finding the flaw everyone else missed.\n\n\
Attack the position below with exactly five challenges, numbered 1 to 5, most severe first. For each, write:\n\
- Assumption: the assumption it attacks, named explicitly;\n\
- Counterargument: the strongest argument against it;\n\
- Risk: the concrete thing that goes wrong if the assumption is false.\n\n\
No softeners (\"minor nitpick\", \"probably fine but\"): state each challenge as a problem."
            .into(),
        before: prompt_kit::question(debate),
        after: "Write your five challenges.".into(),
        ..Prompt::default()
    }
}

/// The judge. Output: Markdown under three fixed headings, the last parsed as `revised_position`.
fn judge_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: "You judge a stress test of a position: a steelman made it as strong as possible, a devil's \
advocate attacked it with five challenges.\n\n\
Answer in Markdown with exactly these headings:\n\
## What survived\n(the parts of the argument the challenges did not break)\n\
## What needs strengthening\n(each challenge that landed, and what would answer it)\n\
## Revised position\n(the position rewritten to survive the challenges)"
            .into(),
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, |slot| label(slot.seat)),
        history_title: "THE STRESS TEST",
        after: "Write your judgement now.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::section;

    #[test]
    fn reads_a_section_up_to_the_next_heading() {
        let text = "## What survived\nA\n## Revised position\nShip in May.\nWith a pilot.\n## Notes\nx";
        assert_eq!(section(text, "revised position").unwrap(), "Ship in May.\nWith a pilot.");
        assert_eq!(section(text, "missing"), None);
    }
}
