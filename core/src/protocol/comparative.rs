//! `comparative` (seed 001's comparative debate): one advocate per option,
//! with alternating lenses (long-term strategic fit, near-term execution) so
//! the cases differ in kind; with two or more rounds, a rebuttal round; then
//! the judge's criterion-by-criterion weighted scorecard, parsed into
//! `scorecard` — with totals computed here, not trusted from the model.

use serde_json::json;

use super::{Conclusion, Ending, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::debate::{Debate, Seat};
use crate::{Phase, ProtocolSpec, parse};

#[derive(Clone, Default)]
pub(crate) struct Comparative {
    stage: Stage,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Opening,
    Rebuttal,
    Conclude(Conclusion),
}

fn options(debate: &Debate) -> &[String] {
    match &debate.spec.protocol {
        ProtocolSpec::Comparative { options } => options,
        _ => unreachable!("comparative protocol with another spec"),
    }
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
                    let calls = (0..options(debate).len())
                        .map(|i| {
                            PlannedCall::turn(i, 1, Phase::Opening, false, advocate_prompt(debate, i), &debate.spec)
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
                            PlannedCall::turn(i, 2, Phase::Rebuttal, false, rebuttal_prompt(debate, i), &debate.spec)
                        })
                        .collect();
                    return Step::Run(calls);
                }
                // Stage 3 — the judge's scorecard.
                Stage::Conclude(conclusion) => {
                    if matches!(conclusion, Conclusion::NotAsked) {
                        let last = if rounds >= 2 { Phase::Rebuttal } else { Phase::Opening };
                        notes.push(Note::RoundEnded { round: rounds.min(2), phase: last });
                        if debate.active_seats().is_empty() {
                            return Step::Finish(Ending::no_quorum(debate, rounds.min(2)));
                        }
                    }
                    if let Some(text) = conclusion.verdict(debate) {
                        record_scorecard(debate, text, notes);
                    }
                    let ending = Ending::completed("every option was argued and scored", rounds.min(2));
                    return conclusion.step(debate, ending, rounds.min(2), || judge_prompt(debate));
                }
            }
        }
    }
}

fn record_scorecard(debate: &Debate, text: &str, notes: &mut Vec<Note>) {
    let labels: Vec<String> = (0..options(debate).len()).map(label).collect();
    let judge = debate.judge().map(|j| j.id.clone());
    match parse::scorecard(text, &labels) {
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
            for (l, o) in labels.iter().zip(options(debate)) {
                by_label.insert(l.clone(), json!(o)); // not collect(): that sorts, and each sort costs the component
            }
            let mut value = serde_json::to_value(&card).expect("serializes");
            value["options"] = serde_json::Value::Object(by_label);
            value["highest_total"] = json!(best);
            notes.push(Note::Result { name: "scorecard", value });
        }
        Err(why) => notes.push(Note::Warning {
            speaker: judge,
            round: debate.spec.rounds().min(2),
            phase: Phase::Synthesis,
            message: format!("the scorecard could not be parsed ({why}); none recorded"),
        }),
    }
}

fn options_block(debate: &Debate) -> String {
    options(debate).iter().enumerate().map(|(i, o)| format!("Option {}: {o}\n", label(i))).collect()
}

fn name(seat: Seat) -> String {
    match seat {
        Seat::Panel(i) => format!("ADVOCATE FOR OPTION {}", label(i)),
        Seat::Judge => "JUDGE".into(),
    }
}

/// An advocate. Output: prose arguing for its option through its lens.
fn advocate_prompt(debate: &Debate, i: usize) -> Prompt {
    Prompt {
        system: format!(
            "You are the advocate for option {} in a comparison of options. Argue FOR it as strongly as the facts \
allow, and say honestly where it is weaker.\n\nYOUR LENS — {}{}",
            label(i),
            lens(i),
            prompt_kit::persona(debate.seat(i))
        ),
        before: format!("{}\nTHE OPTIONS:\n{}", prompt_kit::question(debate), options_block(debate)),
        after: format!("Make the case for option {}.", label(i)),
        ..Prompt::default()
    }
}

/// A rebuttal. Output: prose answering the other advocates.
fn rebuttal_prompt(debate: &Debate, i: usize) -> Prompt {
    Prompt {
        system: format!(
            "You are the advocate for option {}. Rebut the other advocates: answer their strongest points against \
your option and show where their cases are weakest. Concede what is true.",
            label(i)
        ),
        before: format!("{}\nTHE OPTIONS:\n{}", prompt_kit::question(debate), options_block(debate)),
        history: prompt_kit::entries(debate, |_| true, |slot| name(slot.seat)),
        history_title: "THE CASES SO FAR",
        after: format!("Your rebuttal for option {}.", label(i)),
    }
}

/// The judge. Output: Markdown reasoning, then a closing JSON block
/// `{"criteria": [{"name", "weight": 1-100, "scores": {"A": 1-5, …}}], "recommendation": "A"}`.
fn judge_prompt(debate: &Debate) -> Prompt {
    let labels: Vec<String> = (0..options(debate).len()).map(label).collect();
    let scores: Vec<String> = labels.iter().map(|l| format!("\"{l}\": 3")).collect();
    Prompt {
        system: format!(
            "You judge a comparison of options argued by one advocate each. Choose the criteria that matter for \
this decision, weight them, score every option on every criterion from 1 to 5, and recommend one option.\n\n\
Write your reasoning criterion by criterion in Markdown, then the weighted scorecard as a table, then end with a \
fenced JSON block exactly like:\n```json\n{{\"criteria\": [{{\"name\": \"cost\", \"weight\": 40, \"scores\": {{{}}}}}], \
\"recommendation\": \"{}\"}}\n```",
            scores.join(", "),
            labels[0]
        ),
        before: format!("{}\nTHE OPTIONS:\n{}", prompt_kit::question(debate), options_block(debate)),
        history: prompt_kit::entries(debate, |_| true, |slot| name(slot.seat)),
        history_title: "THE CASES",
        after: "Write the scorecard and your recommendation now.".into(),
    }
}
