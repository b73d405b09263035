//! Call timings: when each model call attempt started and ended. The engine
//! has no clock, so the host measures; the timings go to `timings.ndjson` in
//! the session folder, beside the journal and never in it, so that replay
//! stays byte-exact. The engine draws them as SVG (`timeline-svg`); `agon
//! show --timeline` draws them as text bars.

use std::fmt::Write as _;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::sanitize;

/// One attempt at a model call, in the shape `timeline-svg` reads. Times are
/// milliseconds since the Unix epoch: a resumed run's calls sort after the first run's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub id: u64,
    pub seat: String,
    pub model: String,
    pub round: u32,
    pub attempt: u32,
    pub fallback: bool,
    pub start_ms: u64,
    pub end_ms: u64,
    pub ok: bool,
}

pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The session's timings file, appended a line per attempt. Timings are an
/// aid, not a record: a line that cannot be written is dropped, never the run.
pub struct TimingsFile {
    file: Option<File>,
}

impl TimingsFile {
    pub fn open(path: &Path) -> TimingsFile {
        TimingsFile { file: std::fs::OpenOptions::new().create(true).append(true).open(path).ok() }
    }

    pub fn record(&mut self, timing: &Timing) {
        if let (Some(file), Ok(line)) = (&mut self.file, serde_json::to_string(timing)) {
            let _ = writeln!(file, "{line}");
        }
    }
}

/// The timings in an NDJSON text; a torn line (a crash mid-write) is skipped.
pub fn parse(text: &str) -> Vec<Timing> {
    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// The timeline as text: a line per attempt, grouped by seat, its bar placed
/// on a shared time axis `width` characters wide. Seat and model names pass
/// through [`sanitize::terminal`]; the bars are plain characters, no escape
/// sequences, and each line says in words whether the attempt answered.
pub fn text_bars(timings: &[Timing], width: usize) -> String {
    let mut calls: Vec<&Timing> = timings.iter().collect();
    if calls.is_empty() {
        return "no call timings in this session\n".to_string();
    }
    calls.sort_by_key(|c| (c.start_ms, c.end_ms, c.id, c.attempt));
    let start = calls[0].start_ms;
    let end = calls.iter().map(|c| c.end_ms.max(c.start_ms)).max().unwrap_or(start).max(start + 1);
    let span = (end - start) as f64;
    let col = |ms: u64| ((ms.saturating_sub(start)) as f64 / span * width as f64).round() as usize;
    let mut seats: Vec<&str> = Vec::new();
    for c in &calls {
        if !seats.contains(&c.seat.as_str()) {
            seats.push(&c.seat);
        }
    }
    let mut out = format!("{} call attempts over {:.1} s\n", calls.len(), span / 1000.0);
    for seat in seats {
        let _ = writeln!(out, "{}", sanitize::terminal(&clip(seat, 40)));
        for c in calls.iter().filter(|c| c.seat == seat) {
            let (from, to) = (col(c.start_ms).min(width), col(c.end_ms.max(c.start_ms)).min(width));
            let fill = if c.ok { '█' } else { '░' };
            let bar: String = (0..width)
                .map(|i| if i >= from && (i < to || (i == from && to == from)) { fill } else { '·' })
                .collect();
            let what = match (c.ok, c.fallback) {
                (false, _) => "failed",
                (true, true) => "answered (fallback)",
                (true, false) => "answered",
            };
            let range = format!(
                "{:.1}–{:.1} s",
                (c.start_ms - start) as f64 / 1000.0,
                (c.end_ms.max(c.start_ms) - start) as f64 / 1000.0
            );
            let _ = writeln!(
                out,
                "  {bar} {range:<14} round {} attempt {} {} {what}",
                c.round,
                c.attempt,
                sanitize::terminal(&clip(&c.model, 60)),
            );
        }
    }
    out
}

fn clip(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max { line } else { line.chars().take(max - 1).chain(['…']).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(seat: &str, start: u64, end: u64, ok: bool) -> Timing {
        Timing {
            id: 1,
            seat: seat.into(),
            model: "openai/m".into(),
            round: 1,
            attempt: 1,
            fallback: false,
            start_ms: start,
            end_ms: end,
            ok,
        }
    }

    #[test]
    fn bars_sit_on_one_time_axis_grouped_by_seat() {
        let text = text_bars(&[timing("a", 1000, 2000, false), timing("b", 1000, 3000, true)], 10);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "2 call attempts over 2.0 s");
        assert_eq!(lines[1], "a");
        assert!(lines[2].starts_with("  ░░░░░····· ") && lines[2].ends_with("failed"), "{text}");
        assert!(lines[4].starts_with("  ██████████ ") && lines[4].ends_with("answered"), "{text}");
    }

    #[test]
    fn names_cannot_reach_the_terminal_as_commands() {
        let text = text_bars(&[timing("\u{1b}]52;c;eA==\u{7}", 0, 5, true)], 10);
        assert!(!text.contains('\u{1b}') && text.contains("^[]52;c;eA==^G"), "{text}");
    }

    #[test]
    fn a_torn_line_is_skipped() {
        let line = serde_json::to_string(&timing("a", 0, 5, true)).unwrap();
        assert_eq!(parse(&format!("{line}\n{{\"id\":")), vec![timing("a", 0, 5, true)]);
    }
}
