//! The call timeline: one bar per model call attempt, from its start to its
//! end, a row per seat. The core has no clock, so the host measures and
//! passes the timings in; drawing them here means every host that has the
//! same timings shows the same bytes.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::svg;

/// One attempt at a model call, as a host measured it. Times are
/// milliseconds on one clock of the host's choosing (the CLI's: since the
/// Unix epoch); only their differences are drawn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallTiming {
    /// The engine's request id.
    pub id: u64,
    pub seat: String,
    /// The model tried: one link of the seat's fallback chain.
    pub model: String,
    #[serde(default)]
    pub round: u32,
    /// 1 for the first try of this model, 2 for its first retry, …
    #[serde(default = "one")]
    pub attempt: u32,
    /// Not the seat's first model: a fallback.
    #[serde(default)]
    pub fallback: bool,
    pub start_ms: u64,
    pub end_ms: u64,
    /// It answered.
    pub ok: bool,
}

fn one() -> u32 {
    1
}

const LABEL_W: u32 = 120;
const PLOT_W: f64 = 460.0;
const WIDTH: u32 = 600;
const ROW_H: u32 = 26;
const TOP: u32 = 34;

const OK: &str = "#1f5fa8";
const FALLBACK: &str = "#7b1fa2";
const FAILED: &str = "#c62828";

/// Timings from NDJSON, one [`CallTiming`] a line; a line that cannot be
/// read (torn by a crash mid-write) is skipped.
pub fn timings_from_ndjson(text: &str) -> Vec<CallTiming> {
    text.lines().filter_map(|l| crate::json_read::from_str(l).ok()).collect()
}

/// The timeline of `timings`, or `None` when there are none. `question`, the
/// debate's, is shown above it (empty: none shown).
pub fn timeline(timings: &[CallTiming], question: &str) -> Option<String> {
    if timings.is_empty() {
        return None;
    }
    let mut calls: Vec<&CallTiming> = timings.iter().collect();
    crate::order::sort_by_key(&mut calls, |c| (c.start_ms, c.end_ms.max(c.start_ms), c.id, c.attempt));
    let mut seats: Vec<&str> = Vec::new();
    for c in &calls {
        if !seats.contains(&c.seat.as_str()) {
            seats.push(&c.seat);
        }
    }
    let start = calls.iter().map(|c| c.start_ms).min().unwrap_or(0);
    let end = calls.iter().map(|c| c.end_ms.max(c.start_ms)).max().unwrap_or(start).max(start + 1);
    let span = (end - start) as f64;
    let x_of = |ms: u64| f64::from(LABEL_W) + (ms.saturating_sub(start)) as f64 / span * PLOT_W;
    let grid_bottom = TOP + seats.len() as u32 * ROW_H;
    let height = grid_bottom + 30 + 26;

    let mut out = String::new();
    let title =
        format!("Call timeline: {} call attempts by {} seats over {}", calls.len(), seats.len(), secs(end - start));
    let heading = svg::Heading { title: &title, question };
    svg::open_headed(&mut out, "agon-timeline", WIDTH, height, &heading, &describe(&calls, &seats, end - start));
    svg::hatch(&mut out, "agon-timeline-hatch", "#ffffff");

    let step = tick_step(end - start);
    let mut t = 0;
    while t <= end - start {
        let x = svg::Fixed(x_of(start + t), 1);
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{grid_bottom}\" stroke=\"#dddddd\"/>\
<text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444444\" font-size=\"11\">{}</text>",
            TOP - 4,
            grid_bottom + 14,
            secs(t)
        );
        t += step;
    }
    for (row, seat) in seats.iter().enumerate() {
        let y = TOP + row as u32 * ROW_H;
        let _ = writeln!(out, "<text x=\"8\" y=\"{}\">{}</text>", y + 17, svg::text(seat, 15));
        for c in calls.iter().filter(|c| c.seat == *seat) {
            let x = x_of(c.start_ms);
            let w = (x_of(c.end_ms.max(c.start_ms)) - x).max(1.5);
            let (fill, kind) = match (c.ok, c.fallback) {
                (false, _) => (FAILED, "failed"),
                (true, true) => (FALLBACK, "fallback"),
                (true, false) => (OK, "ok"),
            };
            let (x, w) = (svg::Fixed(x, 1), svg::Fixed(w, 1));
            let _ = write!(
                out,
                "<g class=\"call {kind}\"><title>{} · {} · round {} · attempt {} · {} · {}</title>\
<rect x=\"{x}\" y=\"{}\" width=\"{w}\" height=\"{}\" fill=\"{fill}\" stroke=\"#ffffff\"/>",
                svg::text(&c.seat, 24),
                svg::text(&c.model, 40),
                c.round,
                c.attempt,
                secs(c.end_ms.saturating_sub(c.start_ms)),
                if c.ok { "answered" } else { "failed" },
                y + 4,
                ROW_H - 8
            );
            if !c.ok {
                let _ = write!(
                    out,
                    "<rect x=\"{x}\" y=\"{}\" width=\"{w}\" height=\"{}\" fill=\"url(#agon-timeline-hatch)\"/>",
                    y + 4,
                    ROW_H - 8
                );
            }
            out.push_str("</g>\n");
        }
    }
    let y = grid_bottom + 24;
    let x = svg::legend_entry(&mut out, 8, y, OK, "#ffffff", "", "answered");
    let x = svg::legend_entry(&mut out, x, y, FALLBACK, "#ffffff", "", "answered by a fallback model");
    let _ = writeln!(
        out,
        "<rect x=\"{x}\" y=\"{y}\" width=\"18\" height=\"18\" fill=\"{FAILED}\"/>\
<rect x=\"{x}\" y=\"{y}\" width=\"18\" height=\"18\" fill=\"url(#agon-timeline-hatch)\"/>\
<text x=\"{}\" y=\"{}\">failed (retried or given up)</text>",
        x + 23,
        y + 13
    );
    svg::close_headed(&mut out);
    Some(out)
}

/// "1.5 s", "12 s", "2 min 5 s": short enough for an axis.
pub(crate) fn secs(ms: u64) -> String {
    if ms < 10_000 {
        format!("{}.{} s", ms / 1000, ms % 1000 / 100)
    } else if ms < 120_000 {
        format!("{} s", ms / 1000)
    } else {
        format!("{} min {} s", ms / 60_000, ms % 60_000 / 1000)
    }
}

/// A round tick step giving at most 6 ticks.
fn tick_step(span: u64) -> u64 {
    const STEPS: [u64; 14] =
        [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000];
    STEPS.into_iter().find(|s| span / s <= 6).unwrap_or(span / 6 + 1)
}

/// The most calls in flight at once.
fn most_at_once(calls: &[&CallTiming]) -> usize {
    let mut edges: Vec<(u64, i32)> =
        calls.iter().flat_map(|c| [(c.start_ms, 1), (c.end_ms.max(c.start_ms), -1)]).collect();
    // At equal times an end comes before a start: back-to-back calls did not overlap.
    crate::order::sort(&mut edges);
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    most as usize
}

fn describe(calls: &[&CallTiming], seats: &[&str], span: u64) -> String {
    let failed = calls.iter().filter(|c| !c.ok).count();
    let fallback = calls.iter().filter(|c| c.ok && c.fallback).count();
    let mut s = format!(
        "{} call attempts by {} seats over {}; at most {} ran at once; {} failed; {} answered by a fallback model.",
        calls.len(),
        seats.len(),
        secs(span),
        most_at_once(calls),
        failed,
        fallback
    );
    for seat in seats {
        let mine: Vec<&&CallTiming> = calls.iter().filter(|c| c.seat == *seat).collect();
        let busy: u64 = mine.iter().map(|c| c.end_ms.saturating_sub(c.start_ms)).sum();
        let _ = write!(s, " {}: {} attempts, {} in calls.", svg::clip(seat, 24), mine.len(), secs(busy));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: u64, seat: &str, start: u64, end: u64, ok: bool) -> CallTiming {
        CallTiming {
            id,
            seat: seat.into(),
            model: format!("openai/{seat}"),
            round: 1,
            attempt: 1,
            fallback: false,
            start_ms: start,
            end_ms: end,
            ok,
        }
    }

    #[test]
    fn a_bar_per_attempt_a_row_per_seat() {
        let mut retry = call(1, "a", 1_000, 3_000, true);
        retry.attempt = 2;
        let mut fb = call(3, "b", 2_000, 4_000, true);
        fb.fallback = true;
        let timings = vec![
            call(1, "a", 0, 800, false),
            retry,
            call(2, "b", 0, 1_900, false),
            fb,
            call(4, "judge", 4_000, 6_000, true),
        ];
        let svg = timeline(&timings, "").unwrap();
        assert_eq!(svg.matches("<g class=\"call ").count(), 5);
        assert_eq!(svg.matches("class=\"call failed\"").count(), 2);
        assert_eq!(svg.matches("class=\"call fallback\"").count(), 1);
        assert!(
            svg.contains("<text x=\"8\" y=\"51\">a</text>") && svg.contains("<text x=\"8\" y=\"103\">judge</text>")
        );
        // 6 s across 460 px: the judge's call starts at 4 s.
        assert!(svg.contains("<rect x=\"426.7\" y=\"90\" width=\"153.3\""), "{svg}");
        assert!(svg.contains(
            "5 call attempts by 3 seats over 6.0 s; at most 2 ran at once; 2 failed; 1 answered by a fallback model."
        ));
        assert!(svg.contains("a · openai/a · round 1 · attempt 2 · 2.0 s · answered"));
    }

    #[test]
    fn none_without_timings_and_torn_lines_are_skipped() {
        assert_eq!(timeline(&[], "q"), None);
        let line = serde_json::to_string(&call(1, "a", 0, 5, true)).unwrap();
        let parsed = timings_from_ndjson(&format!("{line}\n{{\"id\": 2, \"se"));
        assert_eq!(parsed, vec![call(1, "a", 0, 5, true)]);
    }

    #[test]
    fn same_timings_same_bytes_in_any_order() {
        let a = vec![call(1, "a", 0, 10, true), call(2, "b", 0, 20, true)];
        let b = vec![a[1].clone(), a[0].clone()];
        assert_eq!(timeline(&a, "q"), timeline(&b, "q"));
    }

    #[test]
    fn the_debate_s_question_heads_it() {
        let question = format!("Which {} is faster?", "database ".repeat(40));
        let svg = timeline(&[call(1, "a", 0, 10, true)], &question).unwrap();
        let lines: Vec<&str> = svg.lines().filter(|l| l.starts_with("<text class=\"question\"")).collect();
        assert_eq!(lines.len(), 3, "a long question takes three lines, then is shortened: {svg}");
        assert!(
            lines[0].ends_with(">Which database database database database database database database database</text>")
        );
        assert!(lines[2].ends_with("database…</text>"), "{}", lines[2]);
        assert!(svg.contains(">Call timeline: 1 call attempts by 1 seats over 0.0 s</text>"));
    }

    #[test]
    fn hostile_seat_and_model_names_stay_text() {
        let mut c = call(1, "<script>alert(1)</script>", 0, 10, true);
        c.model = format!("</svg>\"\u{1b}[31m{}", "m".repeat(1 << 20));
        let svg = timeline(&[c], "</svg><script>").unwrap();
        assert!(!svg.contains("<script") && !svg.contains('\u{1b}') && svg.matches("</svg>").count() == 1);
        assert!(svg.len() < 10_000);
    }

    #[test]
    fn ticks_are_round_and_few() {
        assert_eq!(tick_step(6_000), 1_000);
        assert_eq!(tick_step(600), 100);
        assert_eq!(tick_step(95_000), 15_000);
        assert_eq!(secs(1_234), "1.2 s");
        assert_eq!(secs(125_000), "2 min 5 s");
    }
}
