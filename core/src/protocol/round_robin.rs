//! `round-robin`: every seat speaks once per round, in panel order, and sees
//! the question plus every earlier turn; after the last round the judge
//! synthesizes (seeds 002 and 003).

use super::{Conclusion, EndKind, Ending, Note, PlannedCall, Protocol, Step, prompt_kit};
use crate::debate::{Debate, Seat, Slot};
use crate::{Message, Phase};

pub(crate) struct RoundRobin {
    stage: Stage,
}

enum Stage {
    /// Waiting to start the turn of the seat at `position` in the panel, in `round`.
    Turn {
        round: u32,
        position: usize,
    },
    Conclude(Conclusion),
}

impl RoundRobin {
    pub fn new() -> Self {
        RoundRobin {
            stage: Stage::Turn {
                round: 1,
                position: 0,
            },
        }
    }
}

impl Protocol for RoundRobin {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let rounds = debate.spec.rounds;
        loop {
            match &mut self.stage {
                Stage::Turn { round, position } => {
                    let (r, p) = (*round, *position);
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r.saturating_sub(1)));
                    }
                    if p == 0 {
                        notes.push(Note::RoundStarted {
                            round: r,
                            phase: Phase::Deliberation,
                            challenger: None,
                        });
                    }
                    // Stage 1 — turns: the next seat still answering speaks.
                    let next = (p..debate.spec.panel.len()).find(|&i| !debate.is_benched(i));
                    match next {
                        Some(seat) => {
                            self.stage = Stage::Turn {
                                round: r,
                                position: seat + 1,
                            };
                            let messages = turn_prompt(debate, seat, r);
                            return Step::Run(vec![PlannedCall::turn(
                                seat,
                                r,
                                Phase::Deliberation,
                                false,
                                messages,
                                &debate.spec,
                            )]);
                        }
                        None => {
                            notes.push(Note::RoundEnded {
                                round: r,
                                phase: Phase::Deliberation,
                            });
                            self.stage = if r < rounds {
                                Stage::Turn {
                                    round: r + 1,
                                    position: 0,
                                }
                            } else {
                                Stage::Conclude(Conclusion::NotAsked)
                            };
                        }
                    }
                }
                // Stage 2 — synthesis: the judge reads the whole debate.
                Stage::Conclude(conclusion) => {
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, rounds));
                    }
                    let ending = Ending {
                        kind: EndKind::Completed,
                        reason: format!("all {rounds} rounds ran"),
                        rounds_run: rounds,
                    };
                    return conclusion.step(debate, ending, rounds, || judge_prompt(debate));
                }
            }
        }
    }
}

fn name_of(debate: &Debate, slot: &Slot) -> String {
    match slot.seat {
        Seat::Panel(i) => debate.seat(i).display_name().to_string(),
        Seat::Judge => "Judge".to_string(),
    }
}

/// A debater's turn. Output: free prose, two or three short paragraphs.
fn turn_prompt(debate: &Debate, seat: usize, round: u32) -> Vec<Message> {
    let me = debate.seat(seat);
    let rounds = debate.spec.rounds;
    let system = format!(
        "You are {name}, one of {n} panelists in a council debate. \
This is round {round} of {rounds}.\n\n\
How to take your turn:\n\
- Answer the question from your own perspective.\n\
- Engage with what the others said: name them, say what you accept and what you reject, and why.\n\
- Add points that are still missing; do not restate earlier points, refer to them briefly.\n\
- Keep it to two or three short paragraphs of plain prose.{persona}",
        name = me.display_name(),
        n = debate.spec.panel.len(),
        persona = prompt_kit::persona(me),
    );
    let history = prompt_kit::history(
        debate.turns(),
        |slot| format!("Round {}", slot.round),
        |slot| name_of(debate, slot),
    );
    let user = if history.is_empty() {
        format!(
            "{}\nYou speak first. It is your turn, {}.",
            prompt_kit::question(debate),
            me.display_name()
        )
    } else {
        format!(
            "{}\nTHE DEBATE SO FAR:\n\n{}It is your turn, {} (round {round} of {rounds}).",
            prompt_kit::question(debate),
            history,
            me.display_name()
        )
    };
    vec![Message::system(system), Message::user(user)]
}

/// The judge's synthesis. Output: Markdown under four fixed headings.
fn judge_prompt(debate: &Debate) -> Vec<Message> {
    let system = "You are the judge of a council debate. You did not take part in it. \
Read the whole transcript and write the council's answer.\n\n\
Answer in Markdown with exactly these headings:\n\
## Answer\n(the answer the debate supports, in a few sentences)\n\
## Agreement\n(the points the panel agreed on)\n\
## Disagreement\n(the points still contested, and who holds which side)\n\
## Open questions\n(what would have to be known to settle them)"
        .to_string();
    let history = prompt_kit::history(
        debate.turns(),
        |slot| format!("Round {}", slot.round),
        |slot| name_of(debate, slot),
    );
    let user = format!(
        "{}\nCOMPLETE DEBATE TRANSCRIPT:\n\n{}Write the synthesis now.",
        prompt_kit::question(debate),
        history
    );
    vec![Message::system(system), Message::user(user)]
}
