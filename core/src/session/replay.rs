//! Reading a journal a line at a time, so a host never has to hold a long
//! journal whole (or pass it across the component boundary in one string).

use super::{Output, Session};
use crate::{Error, Input};

impl Session {
    /// Feed one journal line that follows the header, as [`Session::from_journal`]
    /// does for each: the input is handled and earlier outputs are not queued
    /// again, so afterwards the queue holds only the requests still unanswered.
    /// `number` is the 1-based line number errors name; a blank line is skipped.
    ///
    /// `Session::from_journal(header)` followed by `replay_line` for every
    /// later line gives the same session as `from_journal` of the whole text.
    pub fn replay_line(&mut self, number: usize, line: &str) -> Result<(), Error> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let input: Input =
            crate::json_read::from_str(line).map_err(|reason| Error::InvalidJournal { line: number, reason })?;
        self.handle(input).map_err(|e| Error::InvalidJournal { line: number, reason: e.to_string() })?;
        let outstanding: Vec<u64> = self.outstanding().collect();
        self.queue.retain(|o| matches!(o, Output::Request(r) if outstanding.contains(&r.id)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::journal;

    #[test]
    fn line_by_line_equals_the_whole_journal() {
        let spec = serde_json::json!({
            "question": "Tabs or spaces?",
            "panel": [{"id": "a", "model": "m/a"}, {"id": "b", "model": "m/b"}, {"id": "c", "model": "m/c"}],
            "judge": {"id": "j", "model": "m/j"},
            "protocol": {"name": "rotating-challenger"},
            "rounds": 1,
        });
        let mut whole = crate::Session::from_spec_json(&spec.to_string()).unwrap();
        // Answer everything but the last request, so the rebuilt session has one outstanding.
        let mut answered = 0;
        loop {
            match whole.poll() {
                crate::Output::Request(r) if answered < 4 => {
                    answered += 1;
                    whole.handle(crate::Input::reply(r.id, format!("reply {}", r.id))).unwrap();
                }
                crate::Output::Idle | crate::Output::Done(_) => break,
                _ => {}
            }
        }
        let text = whole.journal();
        let mut lines = text.split_inclusive('\n');
        let header = lines.next().unwrap();
        let mut streamed = crate::Session::from_journal(header).unwrap();
        for (i, line) in lines.enumerate() {
            streamed.replay_line(i + 2, line).unwrap();
        }
        let mut rebuilt = crate::Session::from_journal(&text).unwrap();
        assert_eq!(streamed.journal(), rebuilt.journal());
        assert_eq!(streamed.outstanding().collect::<Vec<_>>(), rebuilt.outstanding().collect::<Vec<_>>());
        assert_eq!(streamed.poll(), rebuilt.poll(), "the same request is waiting");
        assert_eq!(journal::parse(&text).unwrap().1.len(), 4);

        let e = streamed.replay_line(7, "{\"type\":\"reply\",\"id\":999,\"text\":\"x\"}\n").unwrap_err();
        assert!(matches!(&e, crate::Error::InvalidJournal { line: 7, .. }), "{e}");
        assert!(streamed.replay_line(8, "  \n").is_ok(), "blank lines are skipped");
    }
}
