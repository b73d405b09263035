//! Server-sent events (the subset model APIs use), decoded from whatever
//! byte chunks the network delivers.
//!
//! Lines end with LF, CRLF or a lone CR (a CRLF split across two chunks is
//! still one line end); bytes are kept until their line ends, so a character
//! split across chunks decodes whole. Comments (`:`), `id:` and `retry:`
//! carry nothing a one-shot completion needs and are skipped.

/// What the decoder hands back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    /// One event: its `event:` name, if it had one, and its `data:` lines
    /// joined with `\n`.
    Message { event: Option<String>, data: String },
    /// `data: [DONE]`: OpenAI's end-of-stream marker (no JSON follows it).
    Done,
}

/// An event (its data so far and the line being read) longer than the
/// decoder's limit: the server would make the host buffer without end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventTooLarge {
    pub limit: usize,
}

impl std::fmt::Display for EventTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "an event longer than {} bytes", self.limit)
    }
}

impl std::error::Error for EventTooLarge {}

/// Splits a byte stream into events. One per response; see the crate doc
/// for the order of calls.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    /// Bytes of the line not yet ended.
    line: Vec<u8>,
    /// The last byte fed was a CR: an LF right after it ends no second line.
    after_cr: bool,
    /// No line has ended yet: a byte-order mark before it is dropped.
    first_line: bool,
    /// The `event:` name of the event being read.
    event: Option<String>,
    /// Its `data:` lines so far; `None` until one comes (an event without
    /// data is never dispatched, as the SSE standard says).
    data: Option<String>,
    max_event: usize,
}

const BOM: &[u8] = "\u{feff}".as_bytes();

impl SseDecoder {
    /// A decoder that refuses events longer than `max_event` bytes.
    pub fn new(max_event: usize) -> SseDecoder {
        SseDecoder { line: Vec::new(), after_cr: false, first_line: true, event: None, data: None, max_event }
    }

    /// Take in the next chunk of the stream; returns every event it completed.
    /// After an error the stream is beyond use: drop the decoder.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Result<Vec<SseEvent>, EventTooLarge> {
        let mut events = Vec::new();
        while let Some(&first) = bytes.first() {
            if std::mem::take(&mut self.after_cr) && first == b'\n' {
                bytes = &bytes[1..];
                continue;
            }
            match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
                Some(end) => {
                    self.take(&bytes[..end])?;
                    self.after_cr = bytes[end] == b'\r';
                    self.end_line(&mut events);
                    bytes = &bytes[end + 1..];
                }
                None => {
                    self.take(bytes)?;
                    break;
                }
            }
        }
        Ok(events)
    }

    /// The stream ended. A last line without its line end still counts, and
    /// so does a last event without its blank line: servers often close the
    /// connection right after their final `data:` line. Should that event be
    /// cut short instead (its JSON unfinished), the caller finds out when it
    /// reads the data, and must treat the stream as incomplete.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        self.after_cr = false;
        events
    }

    fn take(&mut self, bytes: &[u8]) -> Result<(), EventTooLarge> {
        let pending = self.data.as_ref().map_or(0, String::len) + self.line.len();
        if pending + bytes.len() > self.max_event {
            return Err(EventTooLarge { limit: self.max_event });
        }
        self.line.extend_from_slice(bytes);
        Ok(())
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let mut bytes = std::mem::take(&mut self.line);
        if std::mem::take(&mut self.first_line) && bytes.starts_with(BOM) {
            bytes.drain(..BOM.len());
        }
        let line = String::from_utf8_lossy(&bytes);
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line.starts_with(':') {
            return; // a comment: servers send them to keep the connection alive
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        let Some(data) = self.data.take() else { return };
        if data.trim() == "[DONE]" {
            events.push(SseEvent::Done);
        } else {
            events.push(SseEvent::Message { event, data });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(data: &str) -> SseEvent {
        SseEvent::Message { event: None, data: data.into() }
    }

    /// Every event of `chunks`, fed one after the other, then finished.
    fn decode(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new(1 << 20);
        let mut events: Vec<SseEvent> = chunks.iter().flat_map(|c| decoder.feed(c).unwrap()).collect();
        events.extend(decoder.finish());
        events
    }

    #[test]
    fn lf_crlf_and_lone_cr_end_lines_alike() {
        for end in ["\n", "\r\n", "\r"] {
            let stream = format!("data: a{end}data: b{end}{end}data: c{end}{end}");
            assert_eq!(decode(&[stream.as_bytes()]), [message("a\nb"), message("c")], "{end:?}");
        }
    }

    #[test]
    fn a_crlf_split_across_chunks_is_one_line_end() {
        // Read as two line ends, the LF would be a blank line and dispatch "a" alone.
        assert_eq!(decode(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]), [message("a\nb")]);
    }

    #[test]
    fn a_character_split_across_chunks_decodes_whole() {
        let bytes = "data: é\n\n".as_bytes();
        let cut = bytes.iter().position(|&b| b >= 0x80).unwrap() + 1;
        assert_eq!(decode(&[&bytes[..cut], &bytes[cut..]]), [message("é")]);
    }

    #[test]
    fn comments_names_and_empty_data_lines() {
        let stream = b": keep-alive\nevent: delta\nid: 7\nretry: 10\ndata\ndata:x\n\nevent: lonely\n\ndata: y\n\n";
        assert_eq!(
            decode(&[stream]),
            [
                SseEvent::Message { event: Some("delta".into()), data: "\nx".into() },
                // `lonely` had no data: never dispatched, and its name does not stick to the next event.
                message("y"),
            ]
        );
    }

    #[test]
    fn done_is_its_own_event() {
        assert_eq!(decode(&[b"data: {}\n\ndata: [DONE]\n\n"]), [message("{}"), SseEvent::Done]);
    }

    #[test]
    fn finish_flushes_an_unterminated_last_event() {
        assert_eq!(decode(&[b"data: a\n\ndata: b"]), [message("a"), message("b")]);
        assert_eq!(decode(&[b"data: a\n\ndata: [DONE]\n"]), [message("a"), SseEvent::Done]);
        let mut decoder = SseDecoder::new(64);
        assert_eq!(decoder.feed(b"data: a\n\n").unwrap(), [message("a")]);
        assert!(decoder.finish().is_empty(), "nothing pending, nothing made up");
        assert!(decoder.finish().is_empty(), "finishing twice adds nothing");
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped() {
        assert_eq!(decode(&[&BOM[..2], &BOM[2..], b"data: a\n\n"]), [message("a")]);
    }

    #[test]
    fn an_event_past_the_limit_is_an_error_not_a_buffer() {
        let mut decoder = SseDecoder::new(16);
        assert_eq!(decoder.feed(b"data: short\n\n").unwrap(), [message("short")]);
        assert_eq!(decoder.feed(b"data: 0123456789abcdef\n"), Err(EventTooLarge { limit: 16 }));
        // Many short data lines add up: the limit is on the event, not the line.
        let mut decoder = SseDecoder::new(16);
        assert_eq!(decoder.feed(b"data: 0123\ndata: 4567\ndata: 89ab\n"), Err(EventTooLarge { limit: 16 }));
    }
}
