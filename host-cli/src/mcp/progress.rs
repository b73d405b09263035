//! From the engine's events to MCP progress notifications: one per finished
//! call (a turn answered or failed, the judge's synthesis), a note at each
//! round and consensus check, and a heartbeat while calls run with nothing
//! else to say. MCP wants the progress value to rise with every notification:
//! a finished call moves it to the next whole number, and the n-th note or
//! heartbeat since then to n/(n+1) of the way there, so notes never catch up
//! with calls and keep rising however long one call takes.

use serde_json::Value;

/// A debate's progress so far, out of its worst-case number of calls.
#[derive(Debug, Default)]
pub struct Progress {
    /// Calls finished.
    calls: u32,
    /// Notes and heartbeats since the last finished call.
    notes: u32,
    /// Calls started and not yet finished.
    in_flight: u32,
}

impl Progress {
    /// The progress value and message this event is worth, if any.
    pub fn step(&mut self, event: &Value) -> Option<(f64, String)> {
        match event["type"].as_str() {
            Some("turn-started") => self.in_flight += 1,
            Some("turn-completed" | "turn-failed") => self.in_flight = self.in_flight.saturating_sub(1),
            _ => {}
        }
        let text = |key: &str| event[key].as_str().unwrap_or_default().to_string();
        let at = || {
            let phase = text("phase").replace('-', " ");
            format!("round {} ({phase})", event["round"].as_u64().unwrap_or_default())
        };
        let (finished, message) = match event["type"].as_str()? {
            "turn-completed" if event["phase"] == "synthesis" => {
                (true, format!("{} wrote the synthesis", text("speaker")))
            }
            "turn-completed" => (true, format!("{}: {} answered", at(), text("speaker"))),
            "turn-failed" => (true, format!("{}: {} failed ({})", at(), text("speaker"), text("kind"))),
            "round-started" => (false, format!("{} started", at())),
            "judge-started" => (false, format!("the judge ({}) is writing: {}", text("speaker"), text("heading"))),
            "consensus-checked" => {
                let reached = if event["reached"] == true { "consensus reached" } else { "no consensus yet" };
                (false, format!("round {}: {reached}: {}", event["round"].as_u64().unwrap_or_default(), text("reason")))
            }
            _ => return None,
        };
        // Speaker names and reasons can quote model text: no control characters.
        Some((if finished { self.finished() } else { self.note() }, one_line(&message)))
    }

    /// A heartbeat after `quiet_s` seconds without a notification: the value
    /// still rises, so a client that resets its timeout on progress waits on.
    pub fn heartbeat(&mut self, quiet_s: u64) -> (f64, String) {
        let waiting = match self.in_flight {
            0 => "between calls".to_string(),
            1 => "waiting on 1 model call".to_string(),
            n => format!("waiting on {n} model calls"),
        };
        (self.note(), format!("still running, {waiting} ({quiet_s} s without news)"))
    }

    fn finished(&mut self) -> f64 {
        self.calls += 1;
        self.notes = 0;
        f64::from(self.calls)
    }

    fn note(&mut self) -> f64 {
        self.notes += 1;
        f64::from(self.calls) + f64::from(self.notes) / f64::from(self.notes + 1)
    }
}

/// Shown as one line, control characters made visible.
pub fn one_line(text: &str) -> String {
    agon_cli::sanitize::terminal(text).replace(['\n', '\t'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_count_whole_notes_in_between_and_every_value_rises() {
        let mut p = Progress::default();
        let events = [
            json!({"type": "round-started", "round": 1, "phase": "deliberation"}),
            json!({"type": "turn-started", "round": 1, "phase": "deliberation", "speaker": "a"}),
            json!({"type": "turn-completed", "round": 1, "phase": "deliberation", "speaker": "a"}),
            json!({"type": "turn-failed", "round": 1, "phase": "deliberation", "speaker": "b", "kind": "timeout"}),
            json!({"type": "consensus-checked", "round": 1, "reached": true, "reason": "all agree"}),
            json!({"type": "round-started", "round": 2, "phase": "deliberation"}),
            json!({"type": "turn-completed", "round": 0, "phase": "synthesis", "speaker": "judge"}),
        ];
        let steps: Vec<(f64, String)> = events.iter().filter_map(|e| p.step(e)).collect();
        let values: Vec<f64> = steps.iter().map(|s| s.0).collect();
        assert_eq!(values, [0.5, 1.0, 2.0, 2.5, 2.0 + 2.0 / 3.0, 3.0]);
        assert_eq!(steps[1].1, "round 1 (deliberation): a answered");
        assert_eq!(steps[2].1, "round 1 (deliberation): b failed (timeout)");
        assert_eq!(steps[3].1, "round 1: consensus reached: all agree");
        assert_eq!(steps[5].1, "judge wrote the synthesis");
    }

    #[test]
    fn heartbeats_keep_rising_through_a_very_long_call_and_say_what_runs() {
        let mut p = Progress::default();
        p.step(&json!({"type": "turn-started", "round": 1, "phase": "deliberation", "speaker": "a"}));
        let (first, message) = p.heartbeat(10);
        assert_eq!(message, "still running, waiting on 1 model call (10 s without news)");
        // A day of heartbeats every 10 s: each above the last, none reaching the next call's whole number.
        let mut last = first;
        for _ in 0..8640 {
            let (value, _) = p.heartbeat(10);
            assert!(value > last && value < 1.0, "{value} after {last}");
            last = value;
        }
        let (after, _) =
            p.step(&json!({"type": "turn-completed", "round": 1, "phase": "deliberation", "speaker": "a"})).unwrap();
        assert_eq!(after, 1.0);
        assert_eq!(p.heartbeat(10).1, "still running, between calls (10 s without news)");
    }

    #[test]
    fn model_text_in_a_note_cannot_drive_a_terminal() {
        let mut p = Progress::default();
        let e = json!({"type": "consensus-checked", "round": 1, "reached": false, "reason": "x\u{1b}[2Jy\nz"});
        let (_, message) = p.step(&e).unwrap();
        assert!(!message.chars().any(char::is_control), "{message:?}");
    }
}
