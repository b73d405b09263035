//! The `borda` aggregator: each reply of a phase read as a ranking of the
//! drawn labels, counted by [`borda`](crate::protocol::borda), the standings
//! and the readings kept as named results, and a table for the transcript.

use serde_json::{Value, json};

use super::aggregators::Borda;
use super::labels::Drawn;
use super::ranking::Ranking;
use crate::debate::Debate;
use crate::plan::Note;
use crate::protocol::borda;

/// Count the rankings of `round`'s replies; false when none could be read
/// (then no standings are recorded: all zeros would look like a result).
pub(crate) fn count(
    b: &Borda,
    reader: &Ranking,
    drawn: &Drawn,
    debate: &Debate,
    round: u32,
    notes: &mut Vec<Note>,
) -> bool {
    let (mut orders, mut readings) = (Vec::new(), Vec::new());
    for ranker in 0..debate.spec.panel.len() {
        let Some(text) = debate.text(ranker, round, b.phase) else { continue };
        let order = reader.read(text, &drawn.offered_to(ranker));
        if order.is_empty() {
            notes.push(Note::Warning {
                speaker: Some(debate.seat(ranker).id.clone()),
                round,
                phase: b.phase,
                message: "no ranking could be read from this reply; it is left out of the aggregate".into(),
            });
            continue;
        }
        // Every label read was offered, so it stands for a drawn seat.
        orders.push(order.iter().filter_map(|l| drawn.seat_of(l)).collect::<Vec<usize>>());
        readings.push(json!({"ranker": debate.seat(ranker).id, "order": order}));
    }
    if readings.is_empty() {
        return false;
    }
    if let Some(name) = &b.readings {
        notes.push(Note::Result { name: name.clone().into(), kind: READINGS_KIND, value: json!(readings) });
    }
    let mut seats: Vec<usize> = drawn.0.iter().map(|(s, _)| *s).collect();
    crate::order::sort(&mut seats);
    // Label order is total over drawn seats: the last tie-break tells any two apart.
    let rows = borda::standings(borda::count(seats, &orders), |a, b| drawn.position(*a).cmp(&drawn.position(*b)));
    let rows: Vec<Value> = rows
        .iter()
        .map(|(s, tally)| {
            json!({
                "seat": debate.seat(*s).id,
                "label": drawn.label(*s).unwrap_or_default(),
                "points": tally.points,
                "rankings": tally.rankings,
                "average_position": tally.average_place().map_or(Value::Null, |a| json!(a)),
            })
        })
        .collect();
    notes.push(Note::Result { name: b.result.clone().into(), kind: STANDINGS_KIND, value: Value::Array(rows) });
    true
}

/// A Borda count's standings: seats in order with their points.
pub(crate) const STANDINGS_KIND: crate::ResultKind = crate::ResultKind::Ranking;
/// Who ranked what, one row per seat.
pub(crate) const READINGS_KIND: crate::ResultKind = crate::ResultKind::Table;

/// What part of a Borda aggregate a result is, told by its shape: a
/// transcript does not carry the document of a protocol of one's own, so its
/// results are known by what [`count`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Rows of `seat`, `label`, `points`, `rankings` and `average_position`
    /// (two decimals as text, or null for a seat nobody ranked).
    Standings,
    /// Rows of `ranker` and `order`.
    Readings,
}

impl Part {
    pub(crate) fn of(value: &Value) -> Option<Part> {
        let rows = value.as_array().filter(|rows| !rows.is_empty())?;
        let all = |test: &dyn Fn(&Value) -> bool| rows.iter().all(test);
        if all(&|r| {
            r["seat"].is_string()
                && r["label"].is_string()
                && r["points"].is_u64()
                && r["rankings"].is_u64()
                && r.get("average_position").is_some_and(|a| a.is_null() || a.is_string())
        }) {
            Some(Part::Standings)
        } else if all(&|r| {
            r["ranker"].is_string() && r["order"].as_array().is_some_and(|o| o.iter().all(Value::is_string))
        }) {
            Some(Part::Readings)
        } else {
            None
        }
    }
}

/// The standings as a table in their order.
pub(crate) fn standings(t: &crate::Transcript, rows: &[Value], out: &mut String) {
    use crate::render::results::{name, table, text};
    out.push_str("### Peer ranking (Borda count over anonymized answers)\n\n");
    let rows: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let average = if r["average_position"].is_null() { "—".into() } else { text(r, "average_position") };
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

/// The readings as who ranked what.
pub(crate) fn readings(t: &crate::Transcript, rows: &[Value], out: &mut String) {
    use crate::render::results::{cell, name, text};
    use std::fmt::Write;
    out.push_str("**Each seat's ranking of the others:**\n\n");
    for r in rows {
        let order: Vec<&str> = r["order"].as_array().into_iter().flatten().filter_map(|l| l.as_str()).collect();
        let _ = writeln!(out, "- {}: {}", cell(&name(t, &text(r, "ranker"))), cell(&order.join(" > ")));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_of_an_aggregate_are_told_by_their_shape() {
        let standing =
            json!({"seat": "a", "label": "Response A", "points": 3, "rankings": 2, "average_position": "1.50"});
        assert_eq!(Part::of(&json!([standing])), Some(Part::Standings));
        let unranked =
            json!({"seat": "a", "label": "Response A", "points": 0, "rankings": 0, "average_position": null});
        assert_eq!(Part::of(&json!([standing, unranked])), Some(Part::Standings));
        assert_eq!(Part::of(&json!([{"ranker": "a", "order": ["Response B", "Response C"]}])), Some(Part::Readings));
        // Anything short of the whole shape is someone else's result.
        assert_eq!(Part::of(&json!([])), None);
        assert_eq!(
            Part::of(&json!([{"seat": "a", "label": "A", "points": "3", "rankings": 2, "average_position": "1.00"}])),
            None
        );
        assert_eq!(Part::of(&json!([standing, {"seat": "b"}])), None);
        assert_eq!(Part::of(&json!([{"ranker": "a", "order": [1, 2]}])), None);
        assert_eq!(Part::of(&json!({"ranker": "a", "order": []})), None);
    }
}
