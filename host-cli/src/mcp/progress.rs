//! From the engine's events to MCP progress notifications: one per finished
//! call (a turn answered or failed, the judge's synthesis), and a note at each
//! round and consensus check. MCP wants the progress value to rise with every
//! notification: a finished call moves it to the next whole number, a note
//! halfway to it, so notes never catch up with calls.

use serde_json::Value;

/// A debate's progress so far, out of its worst-case number of calls.
#[derive(Debug, Default)]
pub struct Progress {
    value: f64,
}

impl Progress {
    /// The progress value and message this event is worth, if any.
    pub fn step(&mut self, event: &Value) -> Option<(f64, String)> {
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
        self.value = if finished {
            self.value.floor() + 1.0
        } else {
            self.value + (self.value.floor() + 1.0 - self.value) / 2.0
        };
        // Speaker names and reasons can quote model text: no control characters.
        Some((self.value, one_line(&message)))
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
        assert_eq!(values, [0.5, 1.0, 2.0, 2.5, 2.75, 3.0]);
        assert_eq!(steps[1].1, "round 1 (deliberation): a answered");
        assert_eq!(steps[2].1, "round 1 (deliberation): b failed (timeout)");
        assert_eq!(steps[3].1, "round 1: consensus reached: all agree");
        assert_eq!(steps[5].1, "judge wrote the synthesis");
    }

    #[test]
    fn model_text_in_a_note_cannot_drive_a_terminal() {
        let mut p = Progress::default();
        let e = json!({"type": "consensus-checked", "round": 1, "reached": false, "reason": "x\u{1b}[2Jy\nz"});
        let (_, message) = p.step(&e).unwrap();
        assert!(!message.chars().any(char::is_control), "{message:?}");
    }
}
