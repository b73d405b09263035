//! `priority-vote` (seed 001's priority voting): two lenses — urgency and
//! impact — assign P0–P3 to every item, independently and at once. A Borda
//! count (P0=4, P1=3, P2=2, P3=1, summed over the lenses) orders the items;
//! items on which the lenses differ by two or more levels are flagged with
//! both justifications. No judge: the ranking is the result.
//!
//! Ties are broken deterministically: first the item with the higher single
//! best score (someone's P0 beats two P1s), then the lower item number.

pub(crate) mod reply;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::registry::{BASE, Definition, OptionInfo, OptionKind, ProtocolOptions, Seats, checked, typed};
use super::{Bounds, EndKind, Ending, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::debate::Debate;
use crate::{DebateSpec, Error, Phase, estimate_tokens};
use reply::PriorityVote as Vote;

pub(crate) const DEF: Definition = Definition {
    name: "priority-vote",
    summary: "Urgency and impact lenses assign P0–P3 to every item; a Borda count orders them, gaps are flagged.",
    seats: Seats { min: 2, max: Some(2), why: "the urgency lens is seat 1, the impact lens seat 2" },
    sides: &["urgency", "impact"],
    options: &[OptionInfo {
        name: "items",
        kind: OptionKind::Texts,
        default: "",
        help: "The action items to prioritize, one or more.",
    }],
    example: |_| serde_json::json!({"items": ["fix CI", "hire a second SRE", "ship 1.0"]}),
    check: checked::<Options>,
    // Two lenses vote once; the count is the result: the judge is never asked.
    bounds: |spec| Bounds { judge: 0, ..Bounds::new(spec, 2, 0, 1) },
    build: |spec| Box::new(PriorityVote { items: typed::<Options>(spec).items, asked: false }),
    prompt_tokens: |spec| typed::<Options>(spec).items.iter().map(|i| estimate_tokens(i) as u64 + 8).sum(),
    render_result,
    ..BASE
};

/// The ranking as seed 001 shows it: a table in Borda order, then the flagged
/// gaps, each with both lenses' justifications.
fn render_result(_: &crate::Transcript, key: &str, value: &serde_json::Value, out: &mut String) -> bool {
    use crate::render::results::{cell, table, text};
    use std::fmt::Write;
    let (true, Some(rows)) = (key == "ranking", value.as_array()) else { return false };
    let priority = |row: &serde_json::Value, lens: &str| {
        row["priorities"][lens].as_str().map_or_else(|| "—".to_string(), str::to_string)
    };
    let table_rows: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(rank, row)| {
            let flag = if row["disagreement"].is_object() { " ⚑" } else { "" };
            vec![
                (rank + 1).to_string(),
                format!("{}{flag}", text(row, "text")),
                priority(row, "urgency"),
                priority(row, "impact"),
                text(row, "score"),
            ]
        })
        .collect();
    out.push_str("### Priority ranking (Borda count)\n\n");
    table(out, &["#", "item", "urgency", "impact", "score"], &table_rows);
    let flagged: Vec<&serde_json::Value> = rows.iter().filter(|r| r["disagreement"].is_object()).collect();
    if flagged.is_empty() {
        out.push_str("No item split the lenses by two levels or more.\n\n");
        return true;
    }
    out.push_str("### Flagged: the lenses differ by two levels or more (⚑)\n\n");
    for row in flagged {
        let _ = writeln!(out, "- **{}**", cell(&text(row, "text")));
        for lens in ["urgency", "impact"] {
            let why = text(&row["disagreement"], lens);
            let _ = writeln!(out, "  - {lens} {}: {}", priority(row, lens), cell(&why));
        }
    }
    out.push('\n');
    true
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    items: Vec<String>,
}

impl ProtocolOptions for Options {
    fn check(&self, _spec: &DebateSpec) -> Result<(), Error> {
        if self.items.is_empty() {
            return Err(Error::spec("protocol.items", "give at least one item to prioritize"));
        }
        if let Some(i) = self.items.iter().position(|o| o.trim().is_empty()) {
            return Err(Error::spec(format!("protocol.items[{i}]"), "must not be empty"));
        }
        Ok(())
    }
}

const LENSES: [(&str, &str); 2] = [
    ("urgency", "URGENCY: who is waiting on this, how soon a response is due, which deadlines are close."),
    ("impact", "IMPACT: strategic value, effect on the team's health, leverage — how much else it unlocks."),
];

const SHAPE: &str =
    "json: [{\"item\": <number>, \"priority\": \"P0|P1|P2|P3\", \"why\": \"...\"}] — one entry per item";

#[derive(Clone)]
pub(crate) struct PriorityVote {
    items: Vec<String>,
    asked: bool,
}

impl Protocol for PriorityVote {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        // Stage 1 — both lenses vote at once.
        if !self.asked {
            self.asked = true;
            notes.push(Note::RoundStarted { round: 1, phase: Phase::Vote, challenger: None });
            let calls = (0..2)
                .map(|seat| {
                    PlannedCall::turn(seat, 1, Phase::Vote, false, prompt(debate, &self.items, seat), &debate.spec)
                        .expecting(SHAPE)
                })
                .collect();
            return Step::Run(calls);
        }
        // Stage 2 — parse once, count, flag.
        notes.push(Note::RoundEnded { round: 1, phase: Phase::Vote });
        let n = self.items.len();
        let mut votes: [Option<Vec<Vote>>; 2] = [None, None];
        for (seat, slot) in votes.iter_mut().enumerate() {
            let Some(text) = debate.text(seat, 1, Phase::Vote) else { continue };
            match reply::priorities(text, n) {
                Ok(v) => *slot = Some(v),
                Err(why) => notes.push(Note::Warning {
                    speaker: Some(debate.seat(seat).id.clone()),
                    round: 1,
                    phase: Phase::Vote,
                    message: format!("the {} lens's votes could not be parsed: {why}", LENSES[seat].0),
                }),
            }
        }
        let counted: Vec<usize> = (0..2).filter(|&s| votes[s].is_some()).collect();
        if counted.is_empty() {
            return Step::Finish(Ending {
                kind: EndKind::NoQuorum,
                reason: "neither lens produced usable priorities".into(),
                rounds_run: 1,
            });
        }
        notes.push(Note::Result { name: "ranking", value: ranking(&self.items, &votes) });
        Step::Finish(if counted.len() == 2 {
            Ending::completed(format!("{n} items ranked by a Borda count over both lenses"), 1)
        } else {
            let only = LENSES[counted[0]].0;
            Ending {
                kind: EndKind::Degraded,
                reason: format!("ranking from the {only} lens only: the other lens gave no usable priorities"),
                rounds_run: 1,
            }
        })
    }
}

/// The Borda ranking: `[{"item", "text", "score", "priorities", "disagreement"}]`, best first.
fn ranking(items: &[String], votes: &[Option<Vec<Vote>>; 2]) -> serde_json::Value {
    let level = |lens: usize, item: usize| votes[lens].as_ref().map(|v| &v[item - 1]);
    let mut rows: Vec<(u32, u32, usize)> = (1..=items.len())
        .map(|item| {
            let points: Vec<u32> = (0..2).filter_map(|l| level(l, item)).map(|v| 4 - v.level as u32).collect();
            (points.iter().sum(), points.iter().copied().max().unwrap_or(0), item)
        })
        .collect();
    // Unstable is exact here: the item number breaks every tie (and a stable
    // sort would add one more monomorphized merge sort to the component).
    rows.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let list: Vec<serde_json::Value> = rows
        .iter()
        .map(|&(score, _, item)| {
            let p = |l: usize| level(l, item).map(|v| format!("P{}", v.level));
            let disagreement = match (level(0, item), level(1, item)) {
                (Some(u), Some(i)) if u.level.abs_diff(i.level) >= 2 => json!({"urgency": u.why, "impact": i.why}),
                _ => serde_json::Value::Null,
            };
            json!({
                "item": item,
                "text": items[item - 1],
                "score": score,
                "priorities": {"urgency": p(0), "impact": p(1)},
                "disagreement": disagreement,
            })
        })
        .collect();
    serde_json::Value::Array(list)
}

/// One lens's vote. Output: a JSON list, one entry per item, as `SHAPE` shows.
fn prompt(debate: &Debate, items: &[String], seat: usize) -> Prompt {
    let (lens, focus) = LENSES[seat];
    let list: String = items.iter().enumerate().map(|(i, t)| format!("{}. {t}\n", i + 1)).collect();
    Prompt {
        system: format!(
            "You assign priorities to action items through one lens only.\n\nYOUR LENS — {focus}\n\n\
Give every item exactly one priority: P0 (now), P1 (this week), P2 (this month) or P3 (later). \
Answer with a JSON list and nothing else, one entry per item, numbered as given:\n\
[{{\"item\": <item number>, \"priority\": \"<P0|P1|P2|P3>\", \"why\": \"<one sentence through the {lens} lens>\"}}]{}",
            prompt_kit::persona(debate.seat(seat))
        ),
        before: format!("{}\nITEMS:\n{list}", prompt_kit::question(debate)),
        after: format!("Your priorities through the {lens} lens, as JSON."),
        ..Prompt::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(item: usize, level: u8) -> Vote {
        Vote { item, level, why: format!("why {item}") }
    }

    #[test]
    fn borda_orders_flags_and_breaks_ties_by_the_best_single_score() {
        let items: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        // item 1: P1+P1 = 6; item 2: P0+P2 = 6 (best single 4); item 3: P3+P3 = 2.
        let votes = [Some(vec![vote(1, 1), vote(2, 0), vote(3, 3)]), Some(vec![vote(1, 1), vote(2, 2), vote(3, 3)])];
        let r = ranking(&items, &votes);
        let order: Vec<u64> = r.as_array().unwrap().iter().map(|x| x["item"].as_u64().unwrap()).collect();
        assert_eq!(order, [2, 1, 3]);
        assert_eq!(r[0]["score"], 6);
        assert_eq!(r[0]["disagreement"]["urgency"], "why 2");
        assert!(r[1]["disagreement"].is_null());
        assert_eq!(r[2]["priorities"], json!({"urgency": "P3", "impact": "P3"}));
    }
}
