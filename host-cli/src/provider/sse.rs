//! Server-sent events over a blocking reader (the subset LLM APIs use).
//!
//! Written here rather than taken from a crate: the maintained SSE crates are
//! async-only, and this host deliberately stays off an async runtime.

use std::io::{self, BufRead, Read};

/// One dispatched event: its `data` lines joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

pub struct SseReader<R> {
    reader: R,
    line: String,
    /// The longest line accepted: a server cannot make us buffer without end.
    max_line: usize,
}

impl<R: BufRead> SseReader<R> {
    pub fn new(reader: R, max_line: usize) -> Self {
        SseReader { reader, line: String::new(), max_line }
    }
}

/// `read_line`, failing with `FileTooLarge` on a line longer than `max` bytes.
pub fn read_line_limited(reader: &mut impl BufRead, line: &mut String, max: usize) -> io::Result<usize> {
    let n = reader.take(max as u64 + 1).read_line(line)?;
    if n > max && !line.ends_with('\n') {
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, format!("a line longer than {max} bytes")));
    }
    Ok(n)
}

impl<R: BufRead> Iterator for SseReader<R> {
    type Item = io::Result<SseEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut event = None;
        let mut data: Option<String> = None;
        loop {
            self.line.clear();
            match read_line_limited(&mut self.reader, &mut self.line, self.max_line) {
                Err(e) => return Some(Err(e)),
                // End of stream: a pending event without its blank line is dropped, as the spec says.
                Ok(0) => return None,
                Ok(_) => {}
            }
            let line = self.line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if let Some(data) = data.take() {
                    return Some(Ok(SseEvent { event: event.take(), data }));
                }
                continue;
            }
            if line.starts_with(':') {
                continue; // comment / keep-alive
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line, ""),
            };
            match field {
                "data" => {
                    let d = data.get_or_insert_with(String::new);
                    if !d.is_empty() {
                        d.push('\n');
                    }
                    d.push_str(value);
                }
                "event" => event = Some(value.to_string()),
                _ => {} // id, retry: not needed for one-shot completions
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<SseEvent> {
        SseReader::new(text.as_bytes(), 1 << 20).map(Result::unwrap).collect()
    }

    #[test]
    fn splits_on_blank_lines_and_joins_data_lines() {
        let got = events(": ping\ndata: {\"a\":1}\n\nevent: done\ndata: x\ndata: y\r\n\r\n");
        assert_eq!(
            got,
            vec![
                SseEvent { event: None, data: "{\"a\":1}".into() },
                SseEvent { event: Some("done".into()), data: "x\ny".into() },
            ]
        );
    }

    #[test]
    fn a_line_past_the_limit_is_an_error_not_a_buffer() {
        let long = format!("data: {}\n\n", "x".repeat(100));
        let mut events = SseReader::new(long.as_bytes(), 50);
        assert_eq!(events.next().unwrap().unwrap_err().kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn drops_an_unterminated_last_event() {
        assert_eq!(events("data: a\n\ndata: b"), vec![SseEvent { event: None, data: "a".into() }]);
    }
}
