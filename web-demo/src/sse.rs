//! An incremental decoder for server-sent events, fed whatever byte chunks the
//! network delivers. Only `data:` fields matter to chat completions.

/// Splits a byte stream into the data of each event.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of a line not yet ended; kept as bytes so a character split
    /// across two chunks is decoded whole.
    partial: Vec<u8>,
    /// The `data:` lines of the event being read.
    data: Vec<String>,
}

impl SseDecoder {
    /// Feed a chunk; returns the data of every event it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in chunk {
            if byte != b'\n' {
                self.partial.push(byte);
                continue;
            }
            let mut line = String::from_utf8_lossy(&self.partial).into_owned();
            self.partial.clear();
            if line.ends_with('\r') {
                line.pop();
            }
            self.line(line, &mut events);
        }
        events
    }

    /// The stream ended: an event not followed by a blank line still counts.
    pub fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        if !self.partial.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned();
            self.line(line, &mut events);
        }
        self.line(String::new(), &mut events);
        events
    }

    fn line(&mut self, line: String, events: &mut Vec<String>) {
        if line.is_empty() {
            if !self.data.is_empty() {
                events.push(self.data.join("\n"));
                self.data.clear();
            }
        } else if let Some(value) = line.strip_prefix("data:") {
            self.data.push(value.strip_prefix(' ').unwrap_or(value).to_string());
        }
        // Comments (`:`), `event:`, `id:` and `retry:` carry nothing we use.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_decode_the_same() {
        let stream = "data: {\"a\":\"é\"}\r\n\r\n: keep-alive\n\ndata: x\ndata: y\n\ndata: [DONE]";
        let bytes = stream.as_bytes();
        for cut in 0..bytes.len() {
            let mut decoder = SseDecoder::default();
            let mut events = decoder.feed(&bytes[..cut]);
            events.extend(decoder.feed(&bytes[cut..]));
            events.extend(decoder.finish());
            assert_eq!(events, ["{\"a\":\"é\"}", "x\ny", "[DONE]"], "cut at {cut}");
        }
    }
}
