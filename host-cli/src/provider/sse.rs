//! Server-sent events over a blocking reader: the response's bytes go to the
//! shared sans-IO decoder (agon-stream), so this host and the browser's
//! decode every stream alike, its end included.
//!
//! A reader rather than an async stream: this host deliberately stays off an
//! async runtime.

use std::collections::VecDeque;
use std::io::{self, Read};

use agon_stream::SseDecoder;
pub use agon_stream::SseEvent;
use serde_json::Value;

use super::CallError;

/// The events of one response, read as they are needed.
pub struct SseEvents<R> {
    reader: R,
    decoder: SseDecoder,
    ready: VecDeque<SseEvent>,
    ended: bool,
}

impl<R: Read> SseEvents<R> {
    /// Events of at most `max_event` bytes; a longer one is a `FileTooLarge` error.
    pub fn new(reader: R, max_event: usize) -> Self {
        SseEvents { reader, decoder: SseDecoder::new(max_event), ready: VecDeque::new(), ended: false }
    }

    /// The response has ended: an event read now is one the server sent
    /// without its blank line, and may have been cut short.
    pub fn ended(&self) -> bool {
        self.ended
    }
}

impl<R: Read> Iterator for SseEvents<R> {
    type Item = io::Result<SseEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut buf = [0u8; 8192];
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(Ok(event));
            }
            if self.ended {
                return None;
            }
            match self.reader.read(&mut buf) {
                Ok(0) => {
                    self.ended = true;
                    self.ready.extend(self.decoder.finish());
                }
                Ok(n) => match self.decoder.feed(&buf[..n]) {
                    Ok(events) => self.ready.extend(events),
                    Err(e) => return Some(Err(io::Error::new(io::ErrorKind::FileTooLarge, e))),
                },
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// One event's data as JSON. Data the stream's end cut short makes the
/// stream incomplete (worth another try), not malformed.
pub(super) fn event_json(data: &str, url: &str, ended: bool) -> Result<Value, CallError> {
    serde_json::from_str(data).map_err(|e| match ended {
        true => super::incomplete(url),
        false => super::malformed(url, "stream event", e, data),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<SseEvent> {
        SseEvents::new(text.as_bytes(), 1 << 20).map(Result::unwrap).collect()
    }

    #[test]
    fn reads_every_event_and_the_unterminated_last_one() {
        let message = |data: &str| SseEvent::Message { event: None, data: data.into() };
        assert_eq!(events(": ping\ndata: {\"a\":1}\r\n\r\ndata: b"), [message("{\"a\":1}"), message("b")]);
    }

    #[test]
    fn an_event_past_the_limit_is_an_error_not_a_buffer() {
        let long = format!("data: {}\n\n", "x".repeat(100));
        let mut events = SseEvents::new(long.as_bytes(), 50);
        assert_eq!(events.next().unwrap().unwrap_err().kind(), io::ErrorKind::FileTooLarge);
    }

    #[test]
    fn json_cut_by_the_end_is_incomplete_not_malformed() {
        assert!(event_json("{\"a\":", "u", true).unwrap_err().message.contains("ended before"));
        assert!(event_json("{\"a\":", "u", false).unwrap_err().message.contains("malformed"));
    }
}
