//! `rotating-challenger` (seed 000, done in full): blind answers, then rounds
//! in which one seat — rotating every round — must argue against the
//! emerging agreement, with an early stop when everyone else converges.
//!
//! Improvements over the original, each deliberate:
//! - speakers see each other as "Speaker 1..N" (names return in the transcript);
//! - the round's challenger speaks last, so it challenges this round's
//!   agreement, and first-speaker rights rotate with it;
//! - consensus reading is negation- and quotation-aware, and the prompts never
//!   show an agreement phrase the detector would count;
//! - the judge is not a debater and is asked for unresolved tensions and the
//!   challenger points that survived.

use super::{Conclusion, EndKind, Ending, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::debate::{Debate, Seat, Slot};
use crate::{Phase, consensus};

#[derive(Clone)]
pub(crate) struct RotatingChallenger {
    /// The seat that challenges in round 1.
    start: usize,
    stage: Stage,
}

#[derive(Clone)]
enum Stage {
    Blind,
    AwaitBlind,
    /// A round is about to start.
    RoundStart {
        round: u32,
    },
    /// `done` speakers of `order` have been called; the challenger is fixed for the round.
    Round {
        round: u32,
        challenger: Option<usize>,
        order: Vec<usize>,
        done: usize,
    },
    Conclude {
        conclusion: Conclusion,
        ending: Ending,
    },
}

/// Round `round`'s challenger (1-based rounds): seat `(start + round − 1) mod n`.
pub(crate) fn challenger_for_round(start: usize, round: u32, n: usize) -> usize {
    (start + round as usize - 1) % n
}

impl RotatingChallenger {
    pub fn new(start: usize) -> Self {
        RotatingChallenger { start, stage: Stage::Blind }
    }

    /// The round's challenger: the rotation's seat, or — if that seat has
    /// failed — the next seat still answering.
    fn challenger(&self, debate: &Debate, round: u32) -> Option<usize> {
        let n = debate.spec.panel.len();
        let planned = challenger_for_round(self.start, round, n);
        (0..n).map(|k| (planned + k) % n).find(|&s| !debate.is_benched(s))
    }

    /// Speaking order: the seat after the challenger opens, the challenger closes.
    fn order(&self, debate: &Debate, round: u32) -> Vec<usize> {
        let n = debate.spec.panel.len();
        let Some(c) = self.challenger(debate, round) else {
            return Vec::new();
        };
        (1..=n).map(|k| (c + k) % n).collect()
    }
}

impl Protocol for RotatingChallenger {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let rounds = debate.spec.rounds();
        loop {
            match &mut self.stage {
                // Stage 1 — blind answers: every seat at once, none sees another.
                Stage::Blind => {
                    notes.push(Note::RoundStarted { round: 0, phase: Phase::Blind, challenger: None });
                    self.stage = Stage::AwaitBlind;
                    let calls = (0..debate.spec.panel.len())
                        .map(|seat| {
                            PlannedCall::turn(seat, 0, Phase::Blind, false, blind_prompt(debate, seat), &debate.spec)
                        })
                        .collect();
                    return Step::Run(calls);
                }
                Stage::AwaitBlind => {
                    notes.push(Note::RoundEnded { round: 0, phase: Phase::Blind });
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, 0));
                    }
                    self.stage = Stage::RoundStart { round: 1 };
                }
                Stage::RoundStart { round } => {
                    let r = *round;
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r - 1));
                    }
                    let challenger = self.challenger(debate, r);
                    notes.push(Note::RoundStarted { round: r, phase: Phase::Deliberation, challenger });
                    let order = self.order(debate, r);
                    self.stage = Stage::Round { round: r, challenger, order, done: 0 };
                }
                // Stage 2 — deliberation: one speaker at a time, the challenger last.
                Stage::Round { round, challenger, order, done } => {
                    let (r, challenger) = (*round, *challenger);
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r - 1));
                    }
                    if let Some(k) = (*done..order.len()).find(|&k| !debate.is_benched(order[k])) {
                        let seat = order[k];
                        *done = k + 1;
                        let is_challenger = Some(seat) == challenger;
                        let prompt = deliberation_prompt(debate, seat, r, is_challenger);
                        let call = PlannedCall::turn(seat, r, Phase::Deliberation, false, prompt, &debate.spec);
                        return Step::Run(vec![if is_challenger { call.adversarial() } else { call }]);
                    }
                    // Stage 3 — consensus check, without the challenger.
                    let check = check_round(debate, r, challenger);
                    let reached = check.reached;
                    let reason = check.reason.clone();
                    notes.push(Note::Consensus(check));
                    notes.push(Note::RoundEnded { round: r, phase: Phase::Deliberation });
                    if !debate.has_quorum() {
                        return Step::Finish(Ending::no_quorum(debate, r));
                    }
                    if reached {
                        let ending = Ending {
                            kind: EndKind::Consensus,
                            reason: format!("consensus in round {r} of {rounds}: {reason}"),
                            rounds_run: r,
                        };
                        self.stage = Stage::Conclude { conclusion: Conclusion::NotAsked, ending };
                    } else if r < rounds {
                        self.stage = Stage::RoundStart { round: r + 1 };
                    } else {
                        let ending = Ending {
                            kind: EndKind::Completed,
                            reason: format!("{} without consensus", super::sequential::rounds_ran(rounds)),
                            rounds_run: rounds,
                        };
                        self.stage = Stage::Conclude { conclusion: Conclusion::NotAsked, ending };
                    }
                }
                // Stage 4 — the judge synthesizes.
                Stage::Conclude { conclusion, ending } => {
                    let ending = ending.clone();
                    let round = ending.rounds_run;
                    return conclusion.step(debate, ending, round, || judge_prompt(debate));
                }
            }
        }
    }
}

/// Read this round's replies from every seat but the challenger.
fn check_round(debate: &Debate, round: u32, challenger: Option<usize>) -> consensus::ConsensusCheck {
    let replies: Vec<(&str, &str)> = debate
        .turns()
        .filter(|(slot, _)| slot.round == round && slot.phase == Phase::Deliberation && !slot.challenger)
        .filter_map(|(slot, text)| match slot.seat {
            Seat::Panel(i) => Some((debate.seat(i).id.as_str(), text)),
            Seat::Judge => None,
        })
        .collect();
    let excluded = challenger.map(|c| debate.seat(c).id.as_str());
    consensus::check(round, &replies, excluded)
}

fn anonymous_label(slot: &Slot) -> String {
    match slot.seat {
        Seat::Panel(i) if slot.challenger => format!("{} (challenger)", prompt_kit::speaker(i)),
        Seat::Panel(i) => prompt_kit::speaker(i),
        Seat::Judge => "Judge".to_string(),
    }
}

/// A blind first answer. Output: position, reasoning, confidence, in prose.
fn blind_prompt(debate: &Debate, seat: usize) -> Prompt {
    let system = format!(
        "You are one of {n} experts answering the same question independently. \
You cannot see the other answers, and they cannot see yours.\n\n\
Give your own best answer: state your position first, then the reasoning behind it, \
then your confidence (high, medium or low) and what would change your mind. \
Two or three short paragraphs.{persona}",
        n = debate.spec.panel.len(),
        persona = prompt_kit::persona(debate.seat(seat)),
    );
    Prompt { system, before: prompt_kit::question(debate), ..Prompt::default() }
}

/// A deliberation turn. Output: prose; a closing `CONSENSUS:` line only when
/// the speaker believes the panel has converged (never for the challenger).
fn deliberation_prompt(debate: &Debate, seat: usize, round: u32, challenger: bool) -> Prompt {
    let rounds = debate.spec.rounds();
    let mut system = format!(
        "You are {me} in a council of {n} experts. This is deliberation round {round} of {rounds}. \
The other experts are shown only as numbered speakers.\n\n\
How to take your turn:\n\
- Respond to specific points by speaker number: what you accept, what you reject, and why.\n\
- Change your position when an argument warrants it, and say so; hold it when it does not.\n\
- Add what the discussion is missing. Two or three short paragraphs.\n\
- Only if you are convinced the whole panel now holds one position, finish with a last line \
that starts with CONSENSUS: and states that position in one sentence. Otherwise leave that line out.{persona}",
        me = prompt_kit::speaker(seat),
        n = debate.spec.panel.len(),
        persona = prompt_kit::persona(debate.seat(seat)),
    );
    if challenger {
        system.push_str(CHALLENGER_ROLE);
    }
    Prompt {
        system,
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, anonymous_label),
        history_title: "THE DISCUSSION SO FAR",
        after: format!(
            "Your turn, {} (round {round} of {rounds}){}.",
            prompt_kit::speaker(seat),
            if challenger { ", as this round's challenger" } else { "" },
        ),
    }
}

/// The strengthened challenger role (seed 000, step 1), in our own words.
const CHALLENGER_ROLE: &str = "\n\n\
YOUR ROLE THIS ROUND: CHALLENGER. The council relies on you to keep it from agreeing too soon.\n\
1. Disagree, explicitly and by speaker number, with at least one major point another speaker made.\n\
2. Find the weakest assumption under the emerging agreement and attack it.\n\
3. Name one concrete fact or scenario that, if true, would make that agreement wrong.\n\
4. No softeners: do not write \"building on\", \"adding nuance\", \"largely agree\" or anything like them.\n\
5. Fast convergence is a warning sign: look for the complexity the others skipped.\n\
You may still end up supporting the direction, but only after making the strongest counter-argument you can. \
If you find no real disagreement, explain why the agreement may be groupthink. \
Do not write a CONSENSUS line this round.";

/// The judge's synthesis. Output: Markdown under four fixed headings.
fn judge_prompt(debate: &Debate) -> Prompt {
    let system = "You are the judge of a council debate. You did not take part in it. \
The speakers are anonymous; in every deliberation round one of them held the challenger role, \
marked \"(challenger)\", and was required to argue against the emerging agreement.\n\n\
Answer in Markdown with exactly these headings:\n\
## Synthesis\n(the answer the debate supports, in a few sentences)\n\
## Unresolved tensions\n(where the speakers still disagree, and why)\n\
## Challenger points that survived\n(objections from challengers that no one answered convincingly)\n\
## Confidence\n(high, medium or low, and what would change it)"
        .to_string();
    Prompt {
        system,
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, anonymous_label),
        history_title: "COMPLETE DEBATE TRANSCRIPT",
        after: "Write the synthesis now.".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::challenger_for_round;

    #[test]
    fn rotation_starts_at_the_named_seat_and_wraps() {
        let seen: Vec<usize> = (1..=6).map(|r| challenger_for_round(2, r, 5)).collect();
        assert_eq!(seen, vec![2, 3, 4, 0, 1, 2]);
    }
}
