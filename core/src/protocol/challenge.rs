//! `challenge` (seed 004's multi-model /debate): the first seat defends, the
//! others challenge.
//!
//! 1. opening — the defender's position, reasoning, confidence, weaknesses, assumptions (v1);
//! 2. critique — every challenger at once, each a JSON verdict;
//! 3. consensus rules — all agree with high confidence: fast exit; all partial
//!    or agreeing with minor objections: one response, then exit; otherwise
//!    confrontation. With skepticism on, a first-round "agree" that is not
//!    confident and argued is treated as partial;
//! 4. response — the defender accepts, partially accepts or rejects each
//!    critique and states the updated position (v2, v3, …);
//! 5. rebuttal — challengers who disagreed and were rejected answer ACCEPT,
//!    MAINTAIN or ESCALATE;
//! 6. repeat 4–5 for open objections up to the round limit (default 5);
//! 7. without consensus, every party names its assumptions and the judge
//!    writes the tradeoff document.
//!
//! The transcript keeps every position version in `positions` and every
//! verdict in `verdicts`. A failed challenger is skipped; with none left the
//! debate ends with no quorum.

pub(crate) mod reply;
mod turn_text;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::debate::{Answer, Debate};
use crate::plan::{Bounds, Conclusion, EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::{self, HistoryEntry, Prompt};
use crate::protocol::definition::{
    BASE, Declared, Definition, OptionInfo, OptionKind, ProtocolOptions, Rounds, Seats, Shown, checked, typed,
};
use crate::{MAX_ROUNDS, Phase, stance};
use reply::{Decision, Level, Rebuttal, Strength, Verdict, VerdictKind};

/// What it records, each result with its kind (the one place they are said).
/// Each version of the defender's position.
const POSITIONS: Declared = Declared::new("positions", crate::ResultKind::Table);
/// Each challenger's verdict on the position, per round.
const VERDICTS: Declared = Declared::new("verdicts", crate::ResultKind::Table);
/// The defender's accept or reject of each challenge.
const RESPONSES: Declared = Declared::new("responses", crate::ResultKind::Table);
/// The rejected challengers' rebuttals.
const REBUTTALS: Declared = Declared::new("rebuttals", crate::ResultKind::Table);
/// The final position and what the defender learned.
const CLOSING: Declared = Declared::new("closing", crate::ResultKind::Document);

/// What readers of its transcripts need of it (see [`Shown`]): apart from
/// [`DEF`], so the registry finds it without the protocol's code.
pub(crate) const SHOWN: Shown = Shown {
    sides: &["defender", "challenger"],
    results: &[POSITIONS, VERDICTS, RESPONSES, REBUTTALS, CLOSING],
    render_turn: turn_text::turn,
    judge_closes_with_data: false,
};

pub(crate) const DEF: Definition = Definition {
    name: "challenge",
    summary: "The first seat defends, the others challenge in JSON verdicts; accept/reject, rebuttals, up to N rounds.",
    shown: SHOWN,
    rounds: Rounds { default: 5, max: MAX_ROUNDS, unit: "the defender responds, rejected challengers rebut" },
    seats: Seats { min: 2, max: None, why: "a defender and at least one challenger" },
    options: &[OptionInfo {
        name: "skeptical_of_early_agreement",
        kind: OptionKind::Flag,
        default: "true",
        help: Cow::Borrowed("Treat a first-round agree without high confidence and evidence as partial."),
    }],
    check: checked::<Options>,
    // The defender's opening, the others' critiques, then per round the defender's
    // response and the challengers' rebuttals, then everyone's assumptions.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        let others = n.saturating_sub(1);
        // Each seat: its opening or critique, one turn a round, its assumptions.
        Bounds::new(spec, 1 + others + r * (1 + others) + n, 0, r).per_seat(r + 2, 0)
    },
    build: |spec| {
        let o: Options = typed(spec);
        Box::new(Challenge { skeptical_of_early_agreement: o.skeptical_of_early_agreement, ..Challenge::default() })
    },
    needs_different_models: true,
    // The challengers' first answers are verdicts on the defender's position.
    refuses_blind: Some(
        "has nothing to hide: the defender opens alone, and each challenger's first answer is its verdict on the \
         defender's position, which it must read (leave out blind)",
    ),
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    #[serde(default = "yes")]
    skeptical_of_early_agreement: bool,
}

fn yes() -> bool {
    true
}

impl ProtocolOptions for Options {}

const DEFENDER: usize = 0;
const VERDICT_SHAPE: &str = "json: {\"verdict\": \"agree|partial|disagree\", \"critique\", \"evidence\", \"alternative\", \
\"confidence\": \"high|medium|low\", \"objection_strength\": \"strong|moderate|minor\", \"assumptions_challenged\": [..]}";
const RESPONSE_SHAPE: &str = "json: {\"responses\": [{\"challenger\", \"decision\": \"accept|partially accept|reject\", \
\"reason\"}], \"updated_position\"}";

#[derive(Clone, Default)]
pub(crate) struct Challenge {
    /// Treat first-round agreement as partial unless it is engaged and confident.
    skeptical_of_early_agreement: bool,
    stage: Stage,
    /// Challengers whose objection the defender must answer next, with the text to answer.
    open: Vec<(usize, String)>,
    /// Every objection in round 1 was minor (the seed's "address briefly, then exit").
    exit_after_response: bool,
    /// At least one round-1 verdict could be read; without one, no consensus carries authority.
    any_readable_verdict: bool,
    /// Defender responses that could not be read (each counted every open critique as rejected).
    unreadable_responses: u32,
    /// Defender responses asked for so far.
    responses_asked: u32,
    positions: Vec<Value>,
    verdicts: Vec<Value>,
    responses: Vec<Value>,
    rebuttals: Vec<Value>,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Opening,
    Critique,
    Response {
        round: u32,
    },
    Rebuttal {
        round: u32,
        asked: Vec<usize>,
    },
    Assumptions {
        round: u32,
    },
    Conclude {
        conclusion: Conclusion,
        ending: Ending,
    },
}

impl Protocol for Challenge {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        loop {
            return match self.stage.clone() {
                // Stage 1 — the defender's opening position (v1), then the critiques of it.
                Stage::Opening if debate.records.is_empty() => {
                    notes.push(Note::RoundStarted { round: 1, phase: Phase::Opening, challenger: None });
                    Step::Run(vec![PlannedCall::turn(
                        DEFENDER,
                        1,
                        Phase::Opening,
                        false,
                        opening_prompt(debate),
                        &debate.spec,
                    )])
                }
                Stage::Opening => self.ask_critiques(debate, notes),
                // Stage 2 — read the verdicts and apply the consensus rules.
                Stage::Critique => self.read_verdicts_and_respond(debate, notes),
                // Stage 3 — the defender's answers and updated position.
                Stage::Response { round } => self.read_response(debate, round, notes),
                // Stage 4 — ACCEPT / MAINTAIN / ESCALATE, then iterate or stop.
                Stage::Rebuttal { round, asked } => self.read_rebuttals(debate, round, asked, notes),
                Stage::Assumptions { round } => {
                    let ending = Ending::completed(
                        format!("no consensus after {round} rounds: the disagreement is a tradeoff"),
                        round,
                    );
                    let ending = self.close(debate, ending, notes);
                    self.stage = Stage::Conclude { conclusion: Conclusion::NotAsked, ending };
                    continue;
                }
                // Stage 6 — the judge's tradeoff document.
                Stage::Conclude { mut conclusion, ending } => {
                    let round = ending.rounds_run;
                    let step = conclusion.step(debate, ending.clone(), round, || tradeoff_prompt(debate));
                    self.stage = Stage::Conclude { conclusion, ending };
                    step
                }
            };
        }
    }
}

/// The stages' steps, one function each.
impl Challenge {
    /// The defender's opening read; every challenger critiques it at once.
    fn ask_critiques(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let Some(v1) = debate.text(DEFENDER, 1, Phase::Opening) else {
            return Step::Finish(defender_failed(0));
        };
        self.push_position(1, v1.to_string(), notes);
        self.stage = Stage::Critique;
        let seats = challengers(debate);
        if seats.is_empty() {
            return Step::Finish(no_challengers(0));
        }
        let calls = seats
            .into_iter()
            .map(|s| {
                PlannedCall::turn(s, 1, Phase::Critique, false, critique_prompt(debate, v1), &debate.spec)
                    .challenger_seat()
                    .expecting(VERDICT_SHAPE)
            })
            .collect();
        Step::Run(calls)
    }

    /// The verdicts read: a fast exit when every challenger agrees with high
    /// confidence; otherwise the defender answers the open critiques.
    fn read_verdicts_and_respond(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let verdicts = self.read_verdicts(debate, notes);
        if challengers(debate).is_empty() {
            return Step::Finish(no_challengers(1));
        }
        if verdicts.is_empty() {
            return Step::Finish(Ending {
                kind: EndKind::Degraded,
                reason: format!(
                    "no challenger verdict could be parsed; nothing to confront{}",
                    failed_challengers(debate)
                ),
                rounds_run: 1,
            });
        }
        let all_agree = verdicts.iter().all(|(_, v)| v.verdict == VerdictKind::Agree && v.confidence == Level::High);
        let all_minor = verdicts.iter().all(|(_, v)| {
            v.verdict != VerdictKind::Disagree
                && (v.verdict == VerdictKind::Agree || v.objection_strength == Strength::Minor)
        });
        if all_agree {
            let ending = Ending {
                kind: EndKind::Consensus,
                reason: "fast exit: every challenger agreed with high confidence".into(),
                rounds_run: 1,
            };
            return Step::Finish(self.close(debate, ending, notes));
        }
        self.exit_after_response = all_minor;
        self.open = verdicts
            .iter()
            .filter(|(_, v)| v.verdict != VerdictKind::Agree)
            .map(|(s, v)| {
                (
                    *s,
                    format!(
                        "Verdict: {}. {} Evidence: {} Alternative: {}",
                        v.verdict.as_str(),
                        v.critique,
                        v.evidence,
                        v.alternative
                    ),
                )
            })
            .collect();
        self.stage = Stage::Response { round: 1 };
        Step::Run(vec![self.response_call(debate, 1)])
    }

    /// The defender's response read: each critique it did not accept goes
    /// back to its challenger for a rebuttal, or the debate ends.
    fn read_response(&mut self, debate: &Debate, round: u32, notes: &mut Vec<Note>) -> Step {
        let Some(text) = debate.text(DEFENDER, round, Phase::Response) else {
            return Step::Finish(defender_failed(round));
        };
        self.responses_asked += 1;
        // The defender answers challengers by their anonymous labels.
        let labels: Vec<String> = self.open.iter().map(|(s, _)| challenger_label(*s)).collect();
        // Every critique not fully accepted gets its challenger's rebuttal.
        let not_accepted: Vec<usize> = match reply::defender_response(text, &labels) {
            Ok(r) => {
                for (s, _) in &self.open {
                    if let Some((decision, reason)) = r.decisions.get(&challenger_label(*s)) {
                        let id = &debate.seat(*s).id;
                        self.responses
                            .push(json!({"round": round, "challenger": id, "decision": decision, "reason": reason}));
                    }
                }
                if let Some(position) = &r.updated_position {
                    self.push_position(round + 1, position.clone(), notes);
                }
                self.open
                    .iter()
                    .filter(|(s, _)| r.decisions.get(&challenger_label(*s)).is_none_or(|(d, _)| *d != Decision::Accept))
                    .map(|(s, _)| *s)
                    .collect()
            }
            Err(why) => {
                self.unreadable_responses += 1;
                notes.push(warning(
                    debate,
                    DEFENDER,
                    round,
                    Phase::Response,
                    format!(
                        "the defender's response could not be parsed ({why}); every open critique counts as rejected"
                    ),
                ));
                self.open.iter().map(|(s, _)| *s).collect()
            }
        };
        notes.push(RESPONSES.note(json!(self.responses)));
        let asked: Vec<usize> = not_accepted.into_iter().filter(|s| !debate.is_benched(*s)).collect();
        // Seed 004: all partial with minor objections → address briefly, then
        // exit; the loop does not go on over minor points.
        let brief_exit = self.exit_after_response && round == 1;
        if asked.is_empty() || brief_exit {
            let reason = match (brief_exit, asked.len()) {
                (true, 0) => "every objection was minor and the defender accepted each: a fast exit".to_string(),
                (true, kept) => format!(
                    "every objection was minor: the defender answered each once, briefly, and the debate ends \
(a fast exit; {kept} minor objection(s) not accepted, in the responses)"
                ),
                (false, _) => format!("the defender accepted every open objection in round {round}"),
            };
            let ending = Ending { kind: EndKind::Consensus, reason, rounds_run: round };
            return Step::Finish(self.close(debate, ending, notes));
        }
        self.stage = Stage::Rebuttal { round, asked: asked.clone() };
        let position = self.current_position().to_string();
        let calls = asked
            .iter()
            .map(|&s| {
                let critique = self.open.iter().find(|(o, _)| *o == s).map(|(_, c)| c.clone()).unwrap_or_default();
                PlannedCall::turn(
                    s,
                    round,
                    Phase::Rebuttal,
                    false,
                    rebuttal_prompt(debate, &critique, text, &position),
                    &debate.spec,
                )
                .challenger_seat()
                .expecting("text: starts with ACCEPT, MAINTAIN or ESCALATE")
            })
            .collect();
        Step::Run(calls)
    }

    /// The rebuttals read: objections still open go back to the defender for
    /// another round, or (rounds spent) every party names its assumptions.
    fn read_rebuttals(&mut self, debate: &Debate, round: u32, asked: Vec<usize>, notes: &mut Vec<Note>) -> Step {
        let mut still_open = Vec::new();
        for s in asked {
            let Some(text) = debate.text(s, round, Phase::Rebuttal) else { continue };
            let mut choice = reply::rebuttal(text);
            // "ACCEPT — but I still think the cost is wrong" keeps the objection open.
            if choice == Some(Rebuttal::Accept) {
                // Only its own words: a copied option list says "still disagree" for it.
                let said = stance::read(&reply::own_words(text), false);
                if said.verdict.dissents() {
                    choice = Some(Rebuttal::Maintain);
                    let quote = said.evidence.map(|e| e.quote).unwrap_or_default();
                    notes.push(warning(
                        debate,
                        s,
                        round,
                        Phase::Rebuttal,
                        format!("ACCEPT, but the rebuttal still objects (\"{quote}\"): treated as MAINTAIN"),
                    ));
                }
            }
            self.rebuttals.push(json!({"round": round, "challenger": debate.seat(s).id, "choice": choice}));
            match choice {
                Some(Rebuttal::Accept) => {}
                // MAINTAIN and ESCALATE (the clarified critique) both go back to the defender.
                Some(_) => still_open.push((s, text.to_string())),
                None => {
                    notes.push(warning(
                        debate,
                        s,
                        round,
                        Phase::Rebuttal,
                        "no ACCEPT, MAINTAIN or ESCALATE in the rebuttal; the objection stays open".into(),
                    ));
                    still_open.push((s, text.to_string()));
                }
            }
        }
        notes.push(REBUTTALS.note(json!(self.rebuttals)));
        notes.push(Note::RoundEnded { round, phase: Phase::Rebuttal });
        if still_open.is_empty() {
            let ending = Ending {
                kind: EndKind::Consensus,
                reason: format!("every objection was resolved by round {round}"),
                rounds_run: round,
            };
            return Step::Finish(self.close(debate, ending, notes));
        }
        self.open = still_open;
        if round < debate.spec.rounds() {
            notes.push(Note::RoundStarted { round: round + 1, phase: Phase::Response, challenger: None });
            self.stage = Stage::Response { round: round + 1 };
            return Step::Run(vec![self.response_call(debate, round + 1)]);
        }
        // Stage 5 — no consensus: every party names its assumptions.
        self.stage = Stage::Assumptions { round };
        let mut seats = vec![DEFENDER];
        seats.extend(self.open.iter().map(|(s, _)| *s));
        let position = self.current_position().to_string();
        let calls = seats
            .into_iter()
            .map(|s| {
                PlannedCall::turn(
                    s,
                    round,
                    Phase::Assumptions,
                    false,
                    assumptions_prompt(debate, s, &position),
                    &debate.spec,
                )
            })
            .collect();
        Step::Run(calls)
    }
}

/// How the defender's prompt shows a challenger: by number, never by model.
fn challenger_label(seat: usize) -> String {
    format!("Challenger {seat}")
}

/// Every challenger seat, answering or not.
fn challengers_all(debate: &Debate) -> impl Iterator<Item = usize> {
    (0..debate.spec.panel.len()).filter(|&s| s != DEFENDER)
}

fn challengers(debate: &Debate) -> Vec<usize> {
    debate.active_seats().into_iter().filter(|&s| s != DEFENDER).collect()
}

/// `"; and x, y failed"` when challengers failed, else nothing. The host
/// names failed calls only in a run the protocol did not already call
/// degraded, so a degraded ending names them itself.
fn failed_challengers(debate: &Debate) -> String {
    let failed: Vec<String> = debate
        .records
        .iter()
        .filter(|r| r.slot.panel_index().is_some_and(|s| s != DEFENDER))
        .filter_map(|r| match &r.answer {
            Some(Answer::Failed { kind, .. }) => Some(format!(
                "{} ({} in {} round {})",
                debate.seat(r.slot.panel_index()?).id,
                kind.as_str(),
                r.slot.phase.as_str(),
                r.slot.round
            )),
            _ => None,
        })
        .collect();
    if failed.is_empty() { String::new() } else { format!("; and {} failed", failed.join(", ")) }
}

fn defender_failed(rounds_run: u32) -> Ending {
    Ending { kind: EndKind::NoQuorum, reason: "the defender failed; there is no position to debate".into(), rounds_run }
}

fn no_challengers(rounds_run: u32) -> Ending {
    Ending {
        kind: EndKind::NoQuorum,
        reason: "every challenger failed; a debate needs the defender and at least one challenger".into(),
        rounds_run,
    }
}

/// What stands in for a verdict that could not be read: not agreeing, its text the critique.
fn unreadable_verdict(text: &str) -> Verdict {
    Verdict {
        verdict: VerdictKind::Partial,
        critique: text.trim().to_string(),
        evidence: String::new(),
        alternative: String::new(),
        confidence: Level::Low,
        objection_strength: Strength::Moderate,
        assumptions_challenged: Vec::new(),
    }
}

fn warning(debate: &Debate, seat: usize, round: u32, phase: Phase, message: String) -> Note {
    Note::Warning { speaker: Some(debate.seat(seat).id.clone()), round, phase, message }
}

impl Challenge {
    fn push_position(&mut self, version: u32, text: String, notes: &mut Vec<Note>) {
        if self.positions.last().and_then(|p| p["text"].as_str()) == Some(text.as_str()) {
            return; // unchanged
        }
        self.positions.push(json!({"version": version, "text": text}));
        notes.push(POSITIONS.note(json!(self.positions)));
    }

    /// Seed 004's closing document, recorded as `closing`: the final position,
    /// what the defender took from each challenger, the evolution v1 → vN, the
    /// rounds, and without consensus who still objects and every party's
    /// assumptions. A run in which no verdict could be read ends degraded.
    fn close(&mut self, debate: &Debate, mut ending: Ending, notes: &mut Vec<Note>) -> Ending {
        let consensus = ending.kind == EndKind::Consensus;
        let learned: Vec<Value> = challengers_all(debate)
            .map(|s| {
                let id = &debate.seat(s).id;
                let taken: Vec<Value> = self
                    .responses
                    .iter()
                    .filter(|r| r["challenger"] == *id && r["decision"] != "reject")
                    .map(|r| json!({"round": r["round"], "decision": r["decision"], "reason": r["reason"]}))
                    .collect();
                let mut learned = json!({"challenger": id, "accepted": taken});
                if debate.is_benched(s) {
                    // It failed: "nothing accepted" would read as objections rejected.
                    learned["failed"] = json!(true);
                }
                learned
            })
            .collect();
        let mut closing = json!({
            "outcome": if consensus { "consensus" } else { "tradeoff" },
            "final_position": self.current_position(),
            "evolution": self.positions.iter().map(|p| p["version"].clone()).collect::<Vec<_>>(),
            "rounds": ending.rounds_run,
            "learned": learned,
        });
        if !consensus {
            let round = ending.rounds_run;
            closing["still_objecting"] = json!(self.open.iter().map(|(s, _)| &debate.seat(*s).id).collect::<Vec<_>>());
            closing["assumptions"] = json!(
                std::iter::once(DEFENDER)
                    .chain(self.open.iter().map(|(s, _)| *s))
                    .filter_map(|s| debate
                        .text(s, round, Phase::Assumptions)
                        .map(|t| json!({"party": debate.seat(s).id, "text": t.trim()})))
                    .collect::<Vec<_>>()
            );
        }
        let unread = if !self.any_readable_verdict {
            Some("no challenger's verdict could be read, so no agreement carries authority".to_string())
        } else if self.unreadable_responses > 0 {
            // Its decisions are unknown: the critiques were counted as rejected, not answered.
            Some(format!(
                "{} of the defender's {} response(s) could not be read; their critiques counted as rejected",
                self.unreadable_responses, self.responses_asked
            ))
        } else {
            None
        };
        if let Some(mut why) = unread {
            why.push_str(&failed_challengers(debate));
            // Not a consensus nor a tradeoff: the closing document says so too.
            closing["outcome"] = json!("degraded");
            closing["degraded"] = json!(why);
            ending.kind = EndKind::Degraded;
            ending.reason = format!("{why} ({})", ending.reason);
        }
        notes.push(CLOSING.note(closing));
        ending
    }

    fn current_position(&self) -> &str {
        self.positions.last().and_then(|p| p["text"].as_str()).unwrap_or("")
    }

    /// Parse round 1's verdicts, apply the skepticism check, record them.
    fn read_verdicts(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Vec<(usize, Verdict)> {
        let skeptical = self.skeptical_of_early_agreement;
        let mut out = Vec::new();
        for s in 1..debate.spec.panel.len() {
            let Some(text) = debate.text(s, 1, Phase::Critique) else { continue };
            let mut note = |message: String| notes.push(warning(debate, s, 1, Phase::Critique, message));
            // An unreadable verdict is a non-agreeing one, never a silent pass to a fast exit.
            let (mut v, readable) = match reply::verdict(text) {
                Ok(v) => {
                    self.any_readable_verdict = true;
                    (v, true)
                }
                Err(why) => {
                    note(format!("the verdict could not be parsed ({why}); it counts as not agreeing"));
                    (unreadable_verdict(text), false)
                }
            };
            let given = v.verdict;
            // A JSON "agree" whose own words dissent is not agreement.
            if v.verdict == VerdictKind::Agree {
                let said = stance::read(&format!("{}\n{}", v.critique, v.alternative), false);
                if said.verdict.dissents() {
                    v.verdict = VerdictKind::Partial;
                    let quote = said.evidence.map(|e| e.quote).unwrap_or_default();
                    note(format!(
                        "the verdict says agree, but its critique says otherwise (\"{quote}\"): treated as partial"
                    ));
                }
            }
            let engaged = v.confidence == Level::High && !v.evidence.trim().is_empty();
            if skeptical && v.verdict == VerdictKind::Agree && !engaged {
                v.verdict = VerdictKind::Partial;
                note("first-round agreement without high confidence and evidence: treated as partial".into());
            }
            let mut record = serde_json::to_value(&v).expect("serializes");
            record["verdict"] = if readable { json!(given) } else { json!(null) };
            record["treated_as"] = json!(v.verdict);
            record["round"] = json!(1);
            record["challenger"] = json!(debate.seat(s).id);
            self.verdicts.push(record);
            out.push((s, v));
        }
        notes.push(VERDICTS.note(json!(self.verdicts)));
        out
    }

    fn response_call(&self, debate: &Debate, round: u32) -> PlannedCall {
        let critiques: Vec<HistoryEntry> = self
            .open
            .iter()
            .map(|(s, text)| HistoryEntry {
                round,
                heading: format!("Objections to answer (round {round})"),
                label: challenger_label(*s),
                text: text.trim().to_string(),
                cut: false,
            })
            .collect();
        let prompt = Prompt {
            system: "You are the defender of the position below. Answer each objection: ACCEPT it (and change your \
position), PARTIALLY ACCEPT it (say what you accept and what not), or REJECT it (say specifically why it is wrong). \
Then state your updated position, or the same one if nothing changed.\n\n\
Answer with JSON and nothing else:\n\
{\"responses\": [{\"challenger\": \"<Challenger N, as shown>\", \"decision\": \"accept|partially accept|reject\", \"reason\": \"...\"}], \
\"updated_position\": \"...\"}"
                .into(),
            before: format!(
                "{}\nYOUR CURRENT POSITION:\n{}\n",
                prompt_kit::question(debate),
                prompt_kit::quoted(self.current_position())
            ),
            history: critiques,
            history_title: "THE OBJECTIONS".into(),
            after: if self.exit_after_response && round == 1 {
                // The seed's "address briefly": these objections get one answer, not a loop.
                "Every objection is minor: answer each in a sentence. Your responses, as JSON.".into()
            } else {
                "Your responses, as JSON.".into()
            },
        };
        PlannedCall::turn(DEFENDER, round, Phase::Response, false, prompt, &debate.spec).expecting(RESPONSE_SHAPE)
    }
}

/// The defender's opening. Output: Markdown with the five parts of seed 004.
fn opening_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: format!(
            "You will defend a position against several challengers. Analyse the topic and take a clear stance.\n\n\
Write, in Markdown:\n**My position:** one clear statement\n**Reasoning:** numbered steps\n\
**Confidence:** HIGH, MEDIUM or LOW\n**Potential weaknesses I see:** a list\n**My assumptions:** a list{}",
            prompt_kit::persona(debate.seat(DEFENDER))
        ),
        before: prompt_kit::question(debate),
        after: "Your opening position.".into(),
        ..Prompt::default()
    }
}

/// A challenger's critique. Output: one JSON verdict (`VERDICT_SHAPE`).
fn critique_prompt(debate: &Debate, position: &str) -> Prompt {
    Prompt {
        system: "You are challenging another model's position. Your job is to find its flaws, not to wave it through.\n\n\
1. What is wrong with the position? Be concrete.\n2. Which edge cases, failure modes or risks does it miss?\n\
3. Which assumptions are unstated or questionable?\n4. What would you recommend instead?\n5. How strong is your objection?\n\n\
Answer with JSON and nothing else:\n\
{\"verdict\": \"agree|partial|disagree\", \"critique\": \"...\", \"evidence\": \"a concrete example or scenario\", \
\"alternative\": \"...\", \"confidence\": \"high|medium|low\", \"objection_strength\": \"strong|moderate|minor\", \
\"assumptions_challenged\": [\"...\"]}\n\n\
Finding no flaw too easily does not help. If after honest analysis the position holds, use \"evidence\" to explain why it is solid."
            .into(),
        before: format!("{}\nTHE POSITION TO CHALLENGE:\n{}\n", prompt_kit::question(debate), prompt_kit::quoted(position)),
        after: "Your verdict, as JSON.".into(),
        ..Prompt::default()
    }
}

/// A rebuttal. Output: starts with ACCEPT, MAINTAIN or ESCALATE, then the reasoning.
fn rebuttal_prompt(debate: &Debate, critique: &str, response: &str, position: &str) -> Prompt {
    Prompt {
        system: "The defender has answered your critique without fully accepting it. Your options:\n\
ACCEPT — the answer addresses your concern;\nMAINTAIN — your objection stands; say why;\n\
ESCALATE — the defender missed the point; restate your objection more clearly.\n\n\
Start your reply with ACCEPT, MAINTAIN or ESCALATE in capitals, then your reasoning."
            .into(),
        // What every challenger of the round reads alike comes first (the
        // question, the position now, the defender's one reply to all the
        // critiques), its own critique last: a prefix cache serves the
        // shared part to every rebuttal after the first.
        before: format!(
            "{}\nTHE DEFENDER'S POSITION NOW:\n{}\n\nTHE DEFENDER'S RESPONSE TO THE CRITIQUES:\n{}\n\nYOUR CRITIQUE:\n{}\n",
            prompt_kit::question(debate),
            prompt_kit::quoted(position),
            prompt_kit::quoted(response),
            prompt_kit::quoted(critique)
        ),
        after: "Your choice and reasoning.".into(),
        ..Prompt::default()
    }
}

/// Assumption extraction. Output: prose answering the three questions.
fn assumptions_prompt(debate: &Debate, seat: usize, position: &str) -> Prompt {
    let question = if seat == DEFENDER {
        "1. Why do the challengers still disagree with you? What is the core issue?\n\
2. What would have to be true for their objections to be right?\n3. Which assumption are you making that they are not?"
    } else {
        "1. Why do you still disagree? What is the core issue?\n\
2. What would have to be true for the defender's position to be correct?\n3. Which assumption are you making that the defender is not?"
    };
    Prompt {
        system: format!("The debate reached its last round without consensus. Answer plainly:\n{question}"),
        before: format!(
            "{}\nTHE DEFENDER'S FINAL POSITION:\n{}\n",
            prompt_kit::question(debate),
            prompt_kit::quoted(position)
        ),
        history: prompt_kit::entries(
            debate,
            |s| s.phase == Phase::Rebuttal || s.phase == Phase::Critique,
            |slot| prompt_kit::label(debate, slot),
        ),
        history_title: "THE OBJECTIONS THAT REMAIN".into(),
        after: "Your answers.".into(),
    }
}

/// The judge's tradeoff document. Output: Markdown with an assumptions table.
fn tradeoff_prompt(debate: &Debate) -> Prompt {
    Prompt {
        system: "A debate ended without consensus. Write the tradeoff document: the disagreement is a signal, not a failure.\n\n\
Markdown, with:\n## Debate outcome: tradeoff identified\n\
A table | Party | Core assumption | If true → | with one row per party;\n\
**The real question is:** the assumption the reader must check against their own situation;\n\
## Options\nthe positions as options, each with when to choose it."
            .into(),
        before: prompt_kit::question(debate),
        history: prompt_kit::entries(debate, |_| true, |slot| prompt_kit::label(debate, slot)),
        history_title: "THE DEBATE".into(),
        after: "Write the tradeoff document.".into(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::script::{ScriptEntry, play};
    use crate::{OutcomeKind, Session, Transcript};

    /// A defender and challengers `x` (and `y`), each its own model, played from `script`.
    fn run(seats: &[&str], script: Value) -> Transcript {
        let panel: Vec<Value> = std::iter::once("defender")
            .chain(seats.iter().copied())
            .map(|id| json!({"id": id, "model": format!("openai/{id}-model")}))
            .collect();
        let spec = json!({"question": "Move CI to GitHub Actions?", "panel": panel, "rounds": 2,
            "judge": {"id": "judge", "model": "openai/judge-model"}, "protocol": {"name": "challenge"}});
        let script: Vec<ScriptEntry> = serde_json::from_value(script).unwrap();
        play(Session::from_spec_json(&spec.to_string()).unwrap(), &script).unwrap().session.transcript()
    }

    fn turn(seat: &str, phase: &str, round: u32, text: &str) -> Value {
        json!({"seat": seat, "phase": phase, "round": round, "text": text})
    }

    const OPENING: &str = "**My position:** move this quarter.";
    const PARTIAL: &str = r#"{"verdict": "partial", "critique": "The signing key sits on the Jenkins host.", "evidence": "the release job", "alternative": "a KMS first", "confidence": "high", "objection_strength": "moderate"}"#;

    /// The seed's own Markdown answer is an answer: its decisions count, its
    /// updated position is the new version, and nothing ends degraded.
    #[test]
    fn a_defender_answering_in_the_seeds_markdown_is_read() {
        let response = "## CLAUDE'S RESPONSE TO Challenger 1\n\n**Their critique:** the key.\n\n**My response:**\n\n\
[ ] ACCEPT - valid\n[x] PARTIALLY ACCEPT - Valid point, but limited scope:\n    the key moves first, in a week.\n\
[ ] REJECT\n\n**Updated position (if changed):**\nMove this quarter, the key to a KMS first.";
        let t = run(
            &["x"],
            json!([
                turn("defender", "opening", 1, OPENING),
                turn("x", "critique", 1, PARTIAL),
                turn("defender", "response", 1, response),
                turn(
                    "x",
                    "rebuttal",
                    1,
                    "YOUR OPTIONS:\n1. ACCEPT - addressed\n2. MAINTAIN - still disagree\n\
3. ESCALATE - missed it\n\nMy choice: ACCEPT. A week is fine."
                ),
            ]),
        );
        let outcome = t.outcome.unwrap();
        assert_eq!(outcome.kind, OutcomeKind::Consensus, "{}", outcome.reason);
        let learned = &t.results["closing"].data["learned"][0]["accepted"][0];
        assert_eq!(learned["decision"], "partially-accept");
        assert_eq!(learned["reason"], "Valid point, but limited scope: the key moves first, in a week.");
        assert_eq!(t.results["closing"].data["final_position"], "Move this quarter, the key to a KMS first.");
        assert_eq!(t.results["rebuttals"].data[0]["choice"], "ACCEPT");
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    /// "Unchanged" keeps the position: no new version is invented.
    #[test]
    fn an_unchanged_position_adds_no_version() {
        let t = run(
            &["x"],
            json!([
                turn("defender", "opening", 1, OPENING),
                turn("x", "critique", 1, PARTIAL),
                turn(
                    "defender",
                    "response",
                    1,
                    "[x] REJECT - the key moves with the runners.\n\n**Updated position:** unchanged"
                ),
                turn("x", "rebuttal", 1, "ACCEPT"),
            ]),
        );
        assert_eq!(t.results["positions"].data, json!([{"version": 1, "text": OPENING}]));
        assert_eq!(t.results["responses"].data[0]["decision"], "reject");
    }

    /// A failed challenger is named in the degraded reason even when the
    /// defender's response could not be read either.
    #[test]
    fn a_failed_challenger_is_named_beside_an_unreadable_defender() {
        let t = run(
            &["x", "y"],
            json!([
                turn("defender", "opening", 1, OPENING),
                turn("x", "critique", 1, PARTIAL),
                {"seat": "y", "phase": "critique", "round": 1, "fail": {"kind": "timeout", "message": "no reply in 120 s"}},
                turn("defender", "response", 1, "I have weighed it and I stand by my position."),
                turn("x", "rebuttal", 1, "ACCEPT"),
            ]),
        );
        let outcome = t.outcome.unwrap();
        assert_eq!(outcome.kind, OutcomeKind::Degraded);
        assert!(outcome.reason.contains("could not be read"), "{}", outcome.reason);
        assert!(outcome.reason.contains("; and y (timeout in critique round 1) failed"), "{}", outcome.reason);
        assert!(t.results["closing"].data["degraded"].as_str().unwrap().contains("and y (timeout"));
        assert_eq!(t.results["closing"].data["learned"][1]["failed"], true);
    }

    /// The same when no verdict could be read.
    #[test]
    fn a_failed_challenger_is_named_when_no_verdict_could_be_read() {
        let t = run(
            &["x", "y"],
            json!([
                turn("defender", "opening", 1, OPENING),
                turn("x", "critique", 1, "Looks mostly fine."),
                {"seat": "y", "phase": "critique", "round": 1, "fail": {"kind": "timeout", "message": "no reply in 120 s"}},
                turn("defender", "response", 1, r#"{"responses": [{"challenger": "Challenger 1", "decision": "accept", "reason": "ok"}], "updated_position": "v2"}"#),
            ]),
        );
        let outcome = t.outcome.unwrap();
        assert_eq!(outcome.kind, OutcomeKind::Degraded);
        assert!(
            outcome
                .reason
                .starts_with("no challenger's verdict could be read, so no agreement carries authority; and y (timeout in critique round 1) failed"),
            "{}",
            outcome.reason
        );
    }
}
