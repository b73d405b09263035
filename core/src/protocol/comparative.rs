//! `comparative` (seed 001's comparative debate): one advocate per option,
//! with alternating lenses (long-term strategic fit, near-term execution) so
//! the cases differ in kind; with two or more rounds, a rebuttal round; then
//! the judge's criterion-by-criterion weighted scorecard, parsed into
//! `scorecard` — with totals computed here, not trusted from the model.

pub(crate) mod reply;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::debate::{Debate, Seat};
use crate::plan::{Bounds, Conclusion, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::{self, Prompt};
use crate::protocol::definition::{
    BASE, Declared, Definition, OptionInfo, OptionKind, PLAIN, ProtocolOptions, Rounds, Seats, Shown, checked, typed,
};
use crate::{DebateSpec, Error, Phase, estimate_tokens};

/// What it records, each result with its kind (the one place they are said).
/// The judge's weighted scores of each option.
const SCORECARD: Declared = Declared::new("scorecard", crate::ResultKind::Scorecard);

/// What readers of its transcripts need of it (see [`Shown`]): apart from
/// [`DEF`], so the registry finds it without the protocol's code.
pub(crate) const SHOWN: Shown = Shown { results: &[SCORECARD], judge_closes_with_data: true, ..PLAIN };

pub(crate) const DEF: Definition = Definition {
    name: "comparative",
    summary: "One advocate per option with different lenses, optional rebuttal, the judge's weighted scorecard.",
    shown: SHOWN,
    rounds: Rounds { default: 2, max: 2, unit: "1: the cases; 2 adds a rebuttal round" },
    seats: Seats { min: 2, max: None, why: "one advocate per option" },
    options: &[
        OptionInfo {
            name: "options",
            kind: OptionKind::Texts,
            default: "",
            help: Cow::Borrowed("The options to compare, two or more; one seat argues for each, in panel order."),
        },
        OptionInfo {
            name: "compete",
            kind: OptionKind::Choice(&["compete", "single"]),
            default: "compete",
            help: Cow::Borrowed("single: no advocates; the judge scores the options alone (one call, no debate)."),
        },
    ],
    parts: |options| options.get("options").and_then(serde_json::Value::as_array).map_or(0, Vec::len),
    example: |seats| serde_json::json!({"options": (1..=seats).map(|i| format!("Option {i}")).collect::<Vec<_>>()}),
    check: checked::<Options>,
    // One advocate per option, and a rebuttal each with 2 rounds.
    bounds: |spec| {
        let (n, r) = (spec.panel.len() as u32, spec.rounds());
        let single = typed::<Options>(spec).compete == Mode::Single;
        Bounds::new(spec, if single { 0 } else { n * (1 + (r >= 2) as u32) }, 0, 2)
    },
    build: |spec| {
        let o: Options = typed(spec);
        let stage = if o.compete == Mode::Single { Stage::Conclude(Conclusion::NotAsked) } else { Stage::default() };
        Box::new(Comparative { options: o.options, single: o.compete == Mode::Single, stage })
    },
    prompt_tokens: |spec| typed::<Options>(spec).options.iter().map(|o| estimate_tokens(o) as u64 + 8).sum(),
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    options: Vec<String>,
    #[serde(default)]
    compete: Mode,
}

/// Advocates argue each option (the default), or the judge alone scores them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    #[default]
    Compete,
    Single,
}

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        if self.options.len() < 2 {
            return Err(Error::spec("protocol.options", "give at least two options to compare"));
        }
        if let Some(i) = self.options.iter().position(|o| o.trim().is_empty()) {
            return Err(Error::spec(format!("protocol.options[{i}]"), "must not be empty"));
        }
        if self.compete == Mode::Single && spec.judge.is_none() {
            return Err(Error::spec(
                "judge",
                "comparative's single mode has the judge score the options: give a judge",
            ));
        }
        if spec.panel.len() != self.options.len() {
            return Err(Error::spec(
                "panel",
                format!(
                    "comparative needs one seat per option: {} options, {} seats",
                    self.options.len(),
                    spec.panel.len()
                ),
            ));
        }
        Ok(())
    }
}

#[derive(Clone)]
pub(crate) struct Comparative {
    /// The options, one per seat, in panel order.
    options: Vec<String>,
    /// No advocates: the judge scores the options alone.
    single: bool,
    stage: Stage,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Opening,
    Rebuttal,
    Conclude(Conclusion),
}

fn label(i: usize) -> String {
    prompt_kit::letter(i)
}

fn lens(i: usize) -> &'static str {
    if i.is_multiple_of(2) {
        "LONG-TERM STRATEGIC FIT: argue from where this leaves us in three to five years — architecture, \
flexibility, compounding advantages, the cost of changing course later."
    } else {
        "NEAR-TERM EXECUTION: argue from what it takes to succeed in the next six to twelve months — team \
skills, delivery risk, time to value, operational load."
    }
}

impl Protocol for Comparative {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let rounds = debate.spec.rounds();
        loop {
            match &mut self.stage {
                // Stage 1 — one advocate per option, all at once.
                Stage::Opening => {
                    notes.push(Note::RoundStarted { round: 1, phase: Phase::Opening, challenger: None });
                    self.stage = if rounds >= 2 { Stage::Rebuttal } else { Stage::Conclude(Conclusion::NotAsked) };
                    let calls = (0..self.options.len())
                        .map(|i| {
                            PlannedCall::turn(
                                i,
                                1,
                                Phase::Opening,
                                false,
                                advocate_prompt(debate, &self.options, i),
                                &debate.spec,
                            )
                        })
                        .collect();
                    return Step::Run(calls);
                }
                // Stage 2 — rebuttals, when asked for.
                Stage::Rebuttal => {
                    notes.push(Note::RoundEnded { round: 1, phase: Phase::Opening });
                    self.stage = Stage::Conclude(Conclusion::NotAsked);
                    let seats = debate.active_seats();
                    if seats.len() < 2 {
                        continue;
                    }
                    notes.push(Note::RoundStarted { round: 2, phase: Phase::Rebuttal, challenger: None });
                    let calls = seats
                        .into_iter()
                        .map(|i| {
                            PlannedCall::turn(
                                i,
                                2,
                                Phase::Rebuttal,
                                false,
                                rebuttal_prompt(debate, &self.options, i),
                                &debate.spec,
                            )
                        })
                        .collect();
                    return Step::Run(calls);
                }
                // Stage 3 — the judge's scorecard.
                Stage::Conclude(conclusion) => {
                    if matches!(conclusion, Conclusion::NotAsked) && !self.single {
                        let last = if rounds >= 2 { Phase::Rebuttal } else { Phase::Opening };
                        notes.push(Note::RoundEnded { round: rounds.min(2), phase: last });
                        if debate.active_seats().is_empty() {
                            return Step::Finish(Ending::no_quorum(debate, rounds.min(2)));
                        }
                    }
                    if let Some(text) = conclusion.verdict(debate)
                        && !record_scorecard(debate, &self.options, text, notes)
                    {
                        conclusion.degrade("the judge's scorecard could not be read: no option was scored");
                    }
                    let (single, options) = (self.single, &self.options);
                    let ending = if single {
                        Ending::completed("single mode: the judge scored the options alone, without advocates", 0)
                    } else {
                        Ending::completed("every option was argued and scored", rounds.min(2))
                    };
                    let round = if single { 1 } else { rounds.min(2) };
                    return conclusion.step(debate, ending, round, || judge_prompt(debate, options, single));
                }
            }
        }
    }
}

/// Record the judge's scorecard; false when none could be read from its reply.
fn record_scorecard(debate: &Debate, options: &[String], text: &str, notes: &mut Vec<Note>) -> bool {
    let labels: Vec<String> = (0..options.len()).map(label).collect();
    let judge = debate.judge().map(|j| j.id.clone());
    match reply::scorecard(text, &labels) {
        Ok(card) => {
            let best =
                card.totals.iter().max_by_key(|(l, t)| (**t, std::cmp::Reverse((*l).clone()))).map(|(l, _)| l.clone());
            if let Some(best) = &best
                && !card.recommendation.trim().starts_with(best.as_str())
            {
                notes.push(Note::Warning {
                    speaker: judge,
                    round: debate.spec.rounds().min(2),
                    phase: Phase::Synthesis,
                    message: format!(
                        "the judge recommends '{}' but option {best} has the highest weighted total",
                        card.recommendation
                    ),
                });
            }
            let mut by_label = serde_json::Map::new();
            for (l, o) in labels.iter().zip(options) {
                by_label.insert(l.clone(), json!(o)); // not collect(): that sorts, and each sort costs the component
            }
            let mut value = serde_json::to_value(&card).expect("serializes");
            value["options"] = serde_json::Value::Object(by_label);
            value["highest_total"] = json!(best);
            notes.push(SCORECARD.note(value));
            true
        }
        Err(why) => {
            notes.push(Note::Warning {
                speaker: judge,
                round: debate.spec.rounds().min(2),
                phase: Phase::Synthesis,
                message: format!("the scorecard could not be parsed ({why}); none recorded"),
            });
            false
        }
    }
}

fn options_block(options: &[String]) -> String {
    options.iter().enumerate().map(|(i, o)| format!("Option {}: {o}\n", label(i))).collect()
}

fn name(seat: Seat) -> String {
    match seat {
        Seat::Panel(i) => format!("ADVOCATE FOR OPTION {}", label(i)),
        Seat::Judge => "JUDGE".into(),
    }
}

/// An advocate. Output: prose arguing for its option through its lens.
/// What every advocate is told first, the same for each: with the
/// question and the options it is a prefix all advocates share; each one's
/// option and lens come last.
const COMPARISON: &str = "This is a comparison of options: each option has one advocate, who argues for it \
through a lens of its own and then rebuts the others; a judge weighs the cases. Your option and part are given at the end.";

fn advocate_prompt(debate: &Debate, options: &[String], i: usize) -> Prompt {
    Prompt {
        system: COMPARISON.into(),
        before: format!("{}\nTHE OPTIONS:\n{}", prompt_kit::question(debate), options_block(options)),
        after: prompt_kit::turn_block(&[
            &format!(
                "You are the advocate for option {}. Argue FOR it as strongly as the facts allow, and say honestly \
where it is weaker.",
                label(i)
            ),
            &format!("YOUR LENS — {}", lens(i)),
            &prompt_kit::persona(debate.seat(i)),
            &format!("Make the case for option {}.", label(i)),
        ]),
        ..Prompt::default()
    }
}

/// A rebuttal. Output: prose answering the other advocates.
fn rebuttal_prompt(debate: &Debate, options: &[String], i: usize) -> Prompt {
    Prompt {
        system: COMPARISON.into(),
        before: format!("{}\nTHE OPTIONS:\n{}", prompt_kit::question(debate), options_block(options)),
        history: prompt_kit::entries(debate, |_| true, |slot| name(slot.seat)),
        history_title: "THE CASES SO FAR".into(),
        after: prompt_kit::turn_block(&[
            &format!(
                "You are the advocate for option {}. Rebut the other advocates: answer their strongest points \
against your option and show where their cases are weakest. Concede what is true.",
                label(i)
            ),
            &format!("Your rebuttal for option {}.", label(i)),
        ]),
    }
}

/// The judge. Output: Markdown reasoning, then a closing JSON block
/// `{"criteria": [{"name", "weight": 1-100, "scores": {"A": 1-5, …}}], "recommendation": "A"}`.
fn judge_prompt(debate: &Debate, options: &[String], single: bool) -> Prompt {
    let task = if single {
        "You compare the options below on your own: no advocates argued them. Weigh each one fairly."
    } else {
        "You judge a comparison of options argued by one advocate each."
    };
    let labels: Vec<String> = (0..options.len()).map(label).collect();
    // Placeholders, not values: an example score or recommendation anchors answers.
    let scores: Vec<String> = labels.iter().map(|l| format!("\"{l}\": <1-5>")).collect();
    Prompt {
        system: format!(
            "{task} Choose the criteria that matter for \
this decision, weight them, score every option on every criterion from 1 to 5, and recommend one option.\n\n\
Write your reasoning criterion by criterion in Markdown, then the weighted scorecard as a table, then end with a \
fenced JSON block in this shape (one entry per criterion; weights from 1 to 100):\n```json\n{{\"criteria\": \
[{{\"name\": \"<criterion>\", \"weight\": <1-100>, \"scores\": {{{}}}}}], \"recommendation\": \"<{}>\"}}\n```",
            scores.join(", "),
            labels.join("|")
        ),
        before: format!("{}\nTHE OPTIONS:\n{}", prompt_kit::question(debate), options_block(options)),
        history: prompt_kit::entries(debate, |_| true, |slot| name(slot.seat)),
        history_title: "THE CASES".into(),
        after: "Write the scorecard and your recommendation now.".into(),
    }
}
