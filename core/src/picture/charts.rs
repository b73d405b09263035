//! Charts of a protocol's named results, chosen by their kind: a ranking's
//! scores (Borda standings, or items scored with their flagged gaps), a
//! scorecard's weighted scores, findings' claims per seat (a claim ledger).
//! Each is a horizontal bar chart; a result whose shape cannot be read (a
//! transcript from another version, a kind's other shape) gets no chart
//! rather than a wrong one.

use std::fmt::Write;

use serde_json::Value;

use super::svg;
use crate::{NamedResult, ResultShape, Transcript};

/// One bar: its label, its parts (value, colour index) and a note after it.
struct Bar {
    label: String,
    parts: Vec<(f64, usize)>,
    note: String,
    flagged: bool,
}

impl Bar {
    fn total(&self) -> f64 {
        self.parts.iter().map(|p| p.0).sum()
    }
}

/// Part colours: distinct in hue and lightness, so neighbours differ in grey too.
const PARTS: [&str; 6] = ["#1f5fa8", "#7fb3e6", "#c2571a", "#f2b37f", "#2e7d32", "#a5d6a7"];
const BAR: &str = "#1f5fa8";

const LABEL_W: u32 = 210;
const PLOT_W: u32 = 200;
const WIDTH: u32 = 660;
const ROW_H: u32 = 28;
/// Under the heading: the bars start at the top of the drawing.
const TOP: u32 = 4;

/// Every chart `t`'s results allow, as (result key, SVG), in key order.
pub fn charts(t: &Transcript) -> Vec<(String, String)> {
    t.results.iter().filter_map(|(key, value)| chart(t, value).map(|svg| (key.clone(), svg))).collect()
}

fn chart(t: &Transcript, result: &NamedResult) -> Option<String> {
    let (question, value) = (t.question.as_str(), &result.data);
    match ResultShape::of(result.kind, value)? {
        // A Borda count's standings (ranked's, any document's).
        ResultShape::Standings => aggregate(value, question),
        // Items scored with each lens's priority (priority-vote's).
        ResultShape::Priorities => borda(value, question),
        ResultShape::Scorecard => scorecard(value, question),
        // A claim ledger's claims; other findings (a review) have no chart.
        ResultShape::Ledger => ledger(t, value),
        _ => None,
    }
}

fn num(v: &Value) -> Option<f64> {
    // serde_json's number reader, not `str::parse`: core's float parser is 6 KB of the component.
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse::<serde_json::Number>().ok()).and_then(|n| n.as_f64()))
}

fn word(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn borda(value: &Value, question: &str) -> Option<String> {
    let mut bars = Vec::new();
    for row in value.as_array()? {
        let score = num(&row["score"])?;
        let flagged = row["disagreement"].is_object();
        let priorities: Vec<String> = row["priorities"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(lens, p)| format!("{lens} {}", word(p)))
            .collect();
        bars.push(Bar {
            label: format!("#{} {}", word(&row["item"]), word(&row["text"])),
            parts: vec![(score, 0)],
            note: if flagged { format!("gap: {}", priorities.join(", ")) } else { String::new() },
            flagged,
        });
    }
    let flagged = bars.iter().filter(|b| b.flagged).count();
    let title = format!("Priority vote: Borda scores of {} items, {} flagged", bars.len(), flagged);
    let footnote = "hatched: the lenses disagree by two levels or more";
    Some(draw("agon-chart-ranking", &svg::Heading { title: &title, question }, &bars, &[], footnote))
}

fn aggregate(value: &Value, question: &str) -> Option<String> {
    let mut bars = Vec::new();
    for row in value.as_array()? {
        bars.push(Bar {
            label: format!("{} ({})", word(&row["label"]), word(&row["seat"])),
            parts: vec![(num(&row["points"])?, 0)],
            note: format!("avg position {}", word(&row["average_position"])),
            flagged: false,
        });
    }
    let title = format!("Ranked: aggregate points of {} responses", bars.len());
    Some(draw("agon-chart-aggregate", &svg::Heading { title: &title, question }, &bars, &[], ""))
}

fn scorecard(value: &Value, question: &str) -> Option<String> {
    let criteria = value["criteria"].as_array()?;
    let options = value["options"].as_object()?;
    let recommended = value["recommendation"].as_str().unwrap_or_default();
    let mut bars = Vec::new();
    for (key, name) in options {
        let mut parts = Vec::new();
        for (i, c) in criteria.iter().enumerate() {
            parts.push((num(&c["weight"])? * num(&c["scores"][key])?, i % PARTS.len()));
        }
        bars.push(Bar {
            label: format!("{key}: {}", word(name)),
            parts,
            note: if key == recommended { "recommended".into() } else { String::new() },
            flagged: false,
        });
    }
    let legend: Vec<String> =
        criteria.iter().map(|c| format!("{} (weight {})", word(&c["name"]), word(&c["weight"]))).collect();
    let title = format!("Comparative: weighted scorecard of {} options over {} criteria", bars.len(), criteria.len());
    let heading = svg::Heading { title: &title, question };
    Some(draw("agon-chart-scorecard", &heading, &bars, &legend, "each part: weight × score"))
}

/// The claim ledger: one bar per seat, its claims by where they stand at
/// the end; hatched when the seat changed position citing nothing.
fn ledger(t: &Transcript, value: &Value) -> Option<String> {
    const STANDS: [&str; 3] = ["unanswered", "attacked", "conceded"];
    let claims = value["claims"].as_array()?;
    let flips = value["flips"].as_array().map_or(&[][..], Vec::as_slice);
    let mut bars = Vec::new();
    for seat in &t.participants {
        let mine: Vec<&Value> = claims.iter().filter(|c| c["seat"] == seat.id.as_str()).collect();
        let parts = STANDS
            .iter()
            .enumerate()
            .map(|(i, s)| (mine.iter().filter(|c| c["standing"]["status"] == *s).count() as f64, i))
            .collect();
        let unexplained =
            flips.iter().filter(|f| f["seat"] == seat.id.as_str() && f["because"]["cites"] == "unexplained").count();
        bars.push(Bar {
            label: if seat.name.is_empty() { seat.id.clone() } else { seat.name.clone() },
            parts,
            note: match unexplained {
                0 => String::new(),
                n => format!("{n} unexplained change{}", if n == 1 { "" } else { "s" }),
            },
            flagged: unexplained > 0,
        });
    }
    let title = format!("Claim ledger: {} claims by the seat that raised them", claims.len());
    let legend: Vec<String> = STANDS.iter().map(|s| s.to_string()).collect();
    let heading = svg::Heading { title: &title, question: &t.question };
    Some(draw(
        "agon-chart-ledger",
        &heading,
        &bars,
        &legend,
        "hatched: the seat changed position citing no claim and no seat",
    ))
}

fn fmt(v: f64) -> String {
    svg::Fixed(v, if v.fract() == 0.0 { 0 } else { 2 }).to_string()
}

fn draw(id: &str, heading: &svg::Heading, bars: &[Bar], legend: &[String], footnote: &str) -> String {
    let max = bars.iter().map(Bar::total).fold(0.0_f64, f64::max);
    let legend_rows = legend.len() as u32 + u32::from(!footnote.is_empty());
    let height = TOP + bars.len() as u32 * ROW_H + 10 + legend_rows * 22;
    let desc: Vec<String> = bars
        .iter()
        .map(|b| {
            let note = if b.note.is_empty() { String::new() } else { format!(" ({})", svg::clip(&b.note, 80)) };
            format!("{}: {}{note}", svg::clip(&b.label, 60), fmt(b.total()))
        })
        .collect();
    let mut out = String::new();
    svg::open_headed(&mut out, id, WIDTH, height, heading, &format!("{}.", desc.join("; ")));
    let hatch = format!("{id}-hatch");
    svg::hatch(&mut out, &hatch, "#ffffff");
    for (row, bar) in bars.iter().enumerate() {
        let y = TOP + row as u32 * ROW_H;
        let _ = writeln!(out, "<text x=\"8\" y=\"{}\">{}</text>", y + 18, svg::text(&bar.label, 28));
        let mut x = f64::from(LABEL_W);
        for (value, colour) in &bar.parts {
            let w = if max > 0.0 { value / max * f64::from(PLOT_W) } else { 0.0 };
            let fill = if bar.parts.len() == 1 { BAR } else { PARTS[*colour] };
            let (at, width) = (svg::Fixed(x, 1), svg::Fixed(w, 1));
            let _ = writeln!(
                out,
                "<rect class=\"bar\" x=\"{at}\" y=\"{}\" width=\"{width}\" height=\"{}\" fill=\"{fill}\"/>",
                y + 4,
                ROW_H - 8
            );
            if bar.flagged {
                let _ = writeln!(
                    out,
                    "<rect class=\"flagged\" x=\"{at}\" y=\"{}\" width=\"{width}\" height=\"{}\" fill=\"url(#{hatch})\"/>",
                    y + 4,
                    ROW_H - 8
                );
            }
            x += w;
        }
        let flag = if bar.flagged { "⚑ " } else { "" };
        let note = if bar.note.is_empty() { String::new() } else { format!(" · {flag}{}", svg::text(&bar.note, 26)) };
        let _ =
            writeln!(out, "<text x=\"{}\" y=\"{}\">{}{note}</text>", svg::Fixed(x + 6.0, 1), y + 18, fmt(bar.total()));
    }
    let mut y = TOP + bars.len() as u32 * ROW_H + 10;
    for (i, words) in legend.iter().enumerate() {
        svg::legend_entry(&mut out, 8, y, PARTS[i % PARTS.len()], "#ffffff", "", &svg::text(words, 60));
        y += 22;
    }
    if !footnote.is_empty() {
        let _ = writeln!(out, "<text x=\"8\" y=\"{}\" fill=\"#444444\">{}</text>", y + 13, svg::escape(footnote));
    }
    svg::close_headed(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ResultKind;
    use serde_json::json;

    fn with(kind: ResultKind, key: &str, value: Value) -> Transcript {
        let mut t = super::super::stance_map::tests::transcript(&["a", "b"], vec![]);
        t.results.insert(key.into(), NamedResult { kind, data: value });
        t
    }

    #[test]
    fn borda_scores_with_their_gaps_flagged() {
        let t = with(
            ResultKind::Ranking,
            "ranking",
            json!([
                {"item": 2, "text": "Fix <the> pipeline", "score": 6, "priorities": {"impact": "P0", "urgency": "P0"}, "disagreement": null},
                {"item": 1, "text": "Reply", "score": 3, "priorities": {"impact": "P2", "urgency": "P0"}, "disagreement": {"impact": "x", "urgency": "y"}}
            ]),
        );
        let charts = charts(&t);
        assert_eq!(charts.len(), 1);
        let (key, svg) = &charts[0];
        assert_eq!(key, "ranking");
        assert_eq!(svg.matches("class=\"bar\"").count(), 2);
        assert_eq!(svg.matches("class=\"flagged\"").count(), 1);
        assert!(svg.contains("width=\"200.0\""), "the top score fills the plot");
        assert!(svg.contains("width=\"100.0\""), "half the score, half the bar");
        assert!(svg.contains("#2 Fix &lt;the&gt; pipeline") && svg.contains("⚑ gap: impact P2, urgency P0"));
        assert!(svg.contains("1 flagged"), "{svg}");
        // Its title and the debate's question are drawn above the bars, once.
        assert_eq!(svg.matches(">Priority vote: Borda scores of 2 items, 1 flagged</text>").count(), 1, "the heading");
        assert!(svg.contains("<text class=\"question\" x=\"8\" y=\"38\" fill=\"#333333\">q</text>"), "{svg}");
    }

    #[test]
    fn ranked_aggregate_and_comparative_scorecard() {
        let t = with(
            ResultKind::Ranking,
            "aggregate",
            json!([{"label": "Response B", "seat": "ana", "points": 2, "rankings": 1, "average_position": "1.00"},
                   {"label": "Response A", "seat": "ben", "points": 0, "rankings": 1, "average_position": "2.00"}]),
        );
        let svg = &charts(&t)[0].1;
        assert!(svg.contains("Response B (ana): 2 (avg position 1.00); Response A (ben): 0"), "{svg}");
        let t = with(
            ResultKind::Scorecard,
            "scorecard",
            json!({"criteria": [{"name": "integrity", "weight": 50, "scores": {"A": 5, "B": 3}},
                                 {"name": "speed", "weight": 30, "scores": {"A": 3, "B": 5}}],
                   "options": {"A": "Postgres", "B": "Dynamo"}, "recommendation": "A", "totals": {"A": 340, "B": 300}}),
        );
        let svg = &charts(&t)[0].1;
        assert_eq!(svg.matches("class=\"bar\"").count(), 4, "a part per option and criterion");
        assert!(svg.contains("A: Postgres: 340 (recommended); B: Dynamo: 300."), "{svg}");
        assert!(svg.contains("integrity (weight 50)"));
    }

    #[test]
    fn an_unreadable_shape_or_another_result_gets_no_chart() {
        assert!(charts(&with(ResultKind::Ranking, "ranking", json!({"not": "a list"}))).is_empty());
        assert!(charts(&with(ResultKind::Ranking, "aggregate", json!([{"label": "x", "points": "lots"}]))).is_empty());
        // Chosen by kind, not name: a scorable list kept as a table is not charted.
        let scored = json!([{"item": 1, "text": "x", "score": 3, "priorities": {}, "disagreement": null}]);
        assert_eq!(charts(&with(ResultKind::Ranking, "anything", scored.clone())).len(), 1);
        assert!(charts(&with(ResultKind::Table, "ranking", scored)).is_empty());
    }

    #[test]
    fn hostile_labels_stay_text() {
        let evil = format!("</svg><script>x()</script>\"\u{1b}[2J{}", "y".repeat(1 << 20));
        let t = with(
            ResultKind::Ranking,
            "aggregate",
            json!([{"label": evil, "seat": evil, "points": 1, "rankings": 1, "average_position": evil}]),
        );
        let svg = &charts(&t)[0].1;
        assert!(!svg.contains("<script") && !svg.contains('\u{1b}') && svg.matches("</svg>").count() == 1);
        assert!(svg.len() < 10_000, "{}", svg.len());
    }
}
