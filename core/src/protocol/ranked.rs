//! `ranked` (karpathy's llm-council, the origin of seed 003):
//!
//! 1. blind answers, every seat at once;
//! 2. each seat ranks the others' answers, anonymized as "Response A, B, …"
//!    (its own left out), ending with a `FINAL RANKING:` list;
//! 3. a Borda count over the parsed rankings gives the `aggregate`;
//! 4. the chairman (the judge) synthesizes.
//!
//! Better than the original: Borda points instead of average rank, each
//! ranking parsed once, the label-to-seat mapping shuffled by the seed and
//! recorded, and a failed model is reported, never silently dropped.

pub(crate) mod reply;

use std::collections::BTreeMap;

use serde_json::json;

use super::borda;
use super::registry::{BASE, Definition, Seats};
use super::{Bounds, Conclusion, EndKind, Ending, HistoryEntry, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::Phase;
use crate::debate::Debate;
use crate::rng::Rng;

pub(crate) const DEF: Definition = Definition {
    name: "ranked",
    summary: "Blind answers, anonymized peer rankings, a Borda aggregate, then the chairman's synthesis.",
    seats: Seats { min: 2, max: None, why: "each seat ranks the others" },
    // Blind answers, then every seat ranks the others.
    bounds: |spec| Bounds::new(spec, 2 * spec.panel.len() as u32, 0, 1),
    build: |_| Box::new(Ranked::default()),
    render_result,
    ..BASE
};

#[derive(Clone, Default)]
pub(crate) struct Ranked {
    stage: Stage,
    /// Seat → its answer's label ("Response C").
    labels: BTreeMap<usize, String>,
}

#[derive(Clone, Default)]
enum Stage {
    #[default]
    Blind,
    Rank,
    Conclude(Conclusion),
}

impl Protocol for Ranked {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        match &mut self.stage {
            // Stage 1 — blind answers.
            Stage::Blind => {
                notes.push(Note::RoundStarted { round: 1, phase: Phase::Blind, challenger: None });
                self.stage = Stage::Rank;
                let calls = (0..debate.spec.panel.len())
                    .map(|s| PlannedCall::turn(s, 1, Phase::Blind, false, answer_prompt(debate, s), &debate.spec))
                    .collect();
                Step::Run(calls)
            }
            // Stage 2 — anonymized peer ranking, own answer excluded.
            Stage::Rank => {
                notes.push(Note::RoundEnded { round: 1, phase: Phase::Blind });
                let answered: Vec<usize> = debate.active_seats();
                if answered.len() < 2 || !debate.has_quorum() {
                    return Step::Finish(Ending::no_quorum(debate, 1));
                }
                let mut order = answered.clone();
                let mut rng = Rng::new(debate.spec.seed, "ranked-labels");
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.below(i + 1));
                }
                // Inserted, not collected: collecting into a map sorts first, and
                // each sort is another monomorphized merge sort in the component.
                for (k, &s) in order.iter().enumerate() {
                    self.labels.insert(s, format!("Response {}", prompt_kit::letter(k)));
                }
                let mapping: Vec<String> =
                    order.iter().map(|s| format!("{} = {}", self.labels[s], debate.seat(*s).id)).collect();
                notes.push(Note::Choice { what: "response labels".into(), value: mapping.join(", ") });
                notes.push(Note::RoundStarted { round: 1, phase: Phase::Ranking, challenger: None });
                let calls = answered
                    .iter()
                    .map(|&s| {
                        PlannedCall::turn(
                            s,
                            1,
                            Phase::Ranking,
                            false,
                            ranking_prompt(debate, s, &self.labels),
                            &debate.spec,
                        )
                        .expecting("text: evaluation, then 'FINAL RANKING:' and a numbered list of Response labels")
                    })
                    .collect();
                self.stage = Stage::Conclude(Conclusion::NotAsked);
                Step::Run(calls)
            }
            // Stage 3 — aggregate, then the chairman.
            Stage::Conclude(conclusion) => {
                let mut ending = Ending::completed("answers ranked by the panel and synthesized by the chairman", 1);
                if matches!(conclusion, Conclusion::NotAsked) {
                    notes.push(Note::RoundEnded { round: 1, phase: Phase::Ranking });
                    match aggregate(debate, &self.labels, notes) {
                        Some(aggregate) => notes.push(Note::Result { name: "aggregate".into(), value: aggregate }),
                        // An all-zero aggregate would look like a result: there is none.
                        None => {
                            ending = Ending {
                                kind: EndKind::Degraded,
                                reason: "no ranking could be read from any reply: the answers are unranked".into(),
                                rounds_run: 1,
                            }
                        }
                    }
                }
                let labels = &self.labels;
                conclusion.step(debate, ending, 1, || chairman_prompt(debate, labels))
            }
        }
    }
}

/// Borda over every parsed ranking ([`borda`]): sorted by points, then by
/// average position, then by label. None when no ranking could be read at all.
fn aggregate(debate: &Debate, labels: &BTreeMap<usize, String>, notes: &mut Vec<Note>) -> Option<serde_json::Value> {
    let mut orders: Vec<Vec<usize>> = Vec::new();
    let mut rankings = Vec::new();
    for (&ranker, _) in labels.iter() {
        let Some(text) = debate.text(ranker, 1, Phase::Ranking) else { continue };
        let offered: Vec<String> = labels.iter().filter(|(s, _)| **s != ranker).map(|(_, l)| l.clone()).collect();
        let order = reply::final_ranking(text, &offered);
        if order.is_empty() {
            notes.push(Note::Warning {
                speaker: Some(debate.seat(ranker).id.clone()),
                round: 1,
                phase: Phase::Ranking,
                message: "no ranking could be read from this reply; it is left out of the aggregate".into(),
            });
            continue;
        }
        orders.push(
            order.iter().map(|label| *labels.iter().find(|(_, l)| *l == label).expect("offered label").0).collect(),
        );
        rankings.push(json!({"ranker": debate.seat(ranker).id, "order": order}));
    }
    if rankings.is_empty() {
        return None;
    }
    notes.push(Note::Result { name: "rankings".into(), value: json!(rankings) });
    // Labels are unique: the last tie-break tells any two seats apart.
    let rows = borda::standings(borda::count(labels.keys().copied(), &orders), |a, b| labels[a].cmp(&labels[b]));
    Some(json!(
        rows.iter()
            .map(|(s, tally)| json!({
                "seat": debate.seat(*s).id,
                "label": labels[s],
                "points": tally.points,
                "rankings": tally.rankings,
                "average_position": tally.average_place().map_or(serde_json::Value::Null, |a| json!(a)),
            }))
            .collect::<Vec<_>>()
    ))
}

/// The peer review as a table in aggregate order, then who ranked what.
fn render_result(t: &crate::Transcript, key: &str, value: &serde_json::Value, out: &mut String) -> bool {
    use crate::render::results::{cell, name, table, text};
    use std::fmt::Write;
    let Some(rows) = value.as_array() else { return false };
    match key {
        "aggregate" => {
            out.push_str("### Peer ranking (Borda count over anonymized answers)\n\n");
            let rows: Vec<Vec<String>> = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let average =
                        if r["average_position"].is_null() { "—".into() } else { text(r, "average_position") };
                    vec![
                        (i + 1).to_string(),
                        name(t, &text(r, "seat")),
                        text(r, "label"),
                        text(r, "points"),
                        average,
                        text(r, "rankings"),
                    ]
                })
                .collect();
            table(out, &["#", "seat", "answer", "points", "average position", "ranked by"], &rows);
        }
        "rankings" => {
            out.push_str("**Each seat's ranking of the others:**\n\n");
            for r in rows {
                let order: Vec<&str> = r["order"].as_array().into_iter().flatten().filter_map(|l| l.as_str()).collect();
                let _ = writeln!(out, "- {}: {}", cell(&name(t, &text(r, "ranker"))), cell(&order.join(" > ")));
            }
            out.push('\n');
        }
        _ => return false,
    }
    true
}

fn answers(debate: &Debate, labels: &BTreeMap<usize, String>, except: Option<usize>) -> Vec<HistoryEntry> {
    let mut by_label: Vec<(&String, usize)> =
        labels.iter().filter(|(s, _)| Some(**s) != except).map(|(s, l)| (l, *s)).collect();
    by_label.sort_unstable();
    by_label
        .into_iter()
        .filter_map(|(label, s)| {
            debate.text(s, 1, Phase::Blind).map(|t| HistoryEntry {
                round: 1,
                heading: "Answers".into(),
                label: label.clone(),
                text: t.trim().into(),
            })
        })
        .collect()
}

/// A blind answer. Output: prose.
fn answer_prompt(debate: &Debate, seat: usize) -> Prompt {
    Prompt {
        system: format!(
            "Answer the question as well as you can. Be accurate, complete and clear.{}",
            prompt_kit::persona(debate.seat(seat))
        ),
        before: prompt_kit::question(debate),
        ..Prompt::default()
    }
}

/// A peer ranking. Output: a short evaluation of each response, then
/// `FINAL RANKING:` and a numbered list, best first, e.g. `1. Response C`.
fn ranking_prompt(debate: &Debate, seat: usize, labels: &BTreeMap<usize, String>) -> Prompt {
    Prompt {
        system: "You are evaluating anonymous answers to a question. For each response, say in a sentence or two what \
it does well and what it gets wrong. Then end your reply with the line FINAL RANKING: followed by a numbered list \
of every response, best first, one per line, for example:\nFINAL RANKING:\n1. Response C\n2. Response A\n\
Write nothing after the list."
            .into(),
        before: prompt_kit::question(debate),
        history: answers(debate, labels, Some(seat)),
        history_title: "THE RESPONSES".into(),
        after: "Your evaluation and final ranking.".into(),
    }
}

/// The chairman. Output: the council's final answer, in prose or Markdown.
fn chairman_prompt(debate: &Debate, labels: &BTreeMap<usize, String>) -> Prompt {
    let mut history = answers(debate, labels, None);
    for (&s, _) in labels.iter() {
        if let Some(t) = debate.text(s, 1, Phase::Ranking) {
            history.push(HistoryEntry {
                round: 1,
                heading: "Peer rankings".into(),
                label: format!("Ranking by {}", labels[&s]),
                text: t.trim().into(),
            });
        }
    }
    Prompt {
        system: "You are the chairman of a council of models. Each answered the question independently, then ranked \
the others' answers anonymously. Write the council's final answer: take what the best answers got right, correct \
what they got wrong, and say where the council disagreed."
            .into(),
        before: prompt_kit::question(debate),
        history,
        history_title: "ANSWERS AND RANKINGS".into(),
        after: "The council's final answer.".into(),
    }
}
