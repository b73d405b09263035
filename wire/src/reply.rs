//! What came back: a reply, streamed or whole, read into text, usage as
//! billed and why the model stopped.

use agon_core::{FailureKind, StopReason, Usage};
use serde_json::Value;

use crate::failure::WireError;
use crate::lines::Lines;
use crate::progress::Progress;
use crate::request::{Api, HttpRequest};
use crate::sse::{SseDecoder, SseEvent};

/// A finished reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The answer, thinking excluded.
    pub text: String,
    /// Tokens as the provider bills them, when it reported any.
    pub usage: Option<Usage>,
    /// Why the model stopped, when the provider said.
    pub stop: Option<StopReason>,
}

/// Reads one reply. Feed it the body as it arrives, then finish it.
#[derive(Debug)]
pub struct Reader {
    api: Api,
    stream: bool,
    url: String,
    max_reply: usize,
    output_limit: u32,
    /// Where the person sets `max_reply`, for the too-large message.
    limit_hint: String,
    sse: SseDecoder,
    lines: Lines,
    body: Vec<u8>,
    progress: Progress,
}

impl HttpRequest {
    /// The reader for this request's reply. `url` is the URL as the host
    /// shows it (messages name it); `max_reply` is the most text accepted,
    /// in bytes: a larger reply fails instead of filling memory.
    pub fn reader(&self, url: &str, max_reply: usize) -> Reader {
        Reader::new(self.api, self.stream, url, max_reply, self.output_limit)
    }
}

impl Reader {
    /// A reader for a reply of `api`, streamed or whole, to a request sent
    /// with `output_limit` (what a reply cut empty is said to have spent).
    pub fn new(api: Api, stream: bool, url: &str, max_reply: usize, output_limit: u32) -> Reader {
        // An event or a line holds at most a piece of the reply plus its
        // JSON: twice the reply and some room.
        let max_event = max_reply.saturating_mul(2).saturating_add(64 << 10);
        Reader {
            api,
            stream,
            url: url.to_string(),
            max_reply,
            output_limit,
            limit_hint: String::new(),
            sse: SseDecoder::new(max_event),
            lines: Lines::new(max_event),
            body: Vec::new(),
            progress: Progress::default(),
        }
    }
}

impl Reader {
    /// Say where the reply limit is set (` (--max-reply)`), in the message of a reply past it.
    pub fn with_limit_hint(mut self, hint: &str) -> Reader {
        self.limit_hint = hint.to_string();
        self
    }

    /// Take in the next bytes of the body; returns the text pieces they
    /// completed, in order (none for a whole reply until [`Reader::finish`]).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<String>, WireError> {
        if !self.stream {
            self.body.extend_from_slice(bytes);
            if self.body.len() > self.max_reply.saturating_mul(2).saturating_add(64 << 10) {
                return Err(WireError::too_large(&self.url, self.max_reply, &self.limit_hint));
            }
            return Ok(Vec::new());
        }
        match self.api {
            Api::Ollama => {
                let lines = self.lines.feed(bytes).map_err(|max| self.event_too_large(max))?;
                for line in lines {
                    self.line(&line, false)?;
                }
            }
            _ => {
                let events = self.sse.feed(bytes).map_err(|e| self.event_too_large(e.limit))?;
                for event in events {
                    self.event(event, false)?;
                }
            }
        }
        self.check_size()?;
        Ok(std::mem::take(&mut self.progress.pieces))
    }

    /// The body has ended: the completion, or why there is none.
    pub fn finish(mut self) -> Result<Completion, WireError> {
        if self.stream {
            {
                match self.api {
                    Api::Ollama => {
                        if let Some(line) = self.lines.finish() {
                            self.line(&line, true)?;
                        }
                    }
                    _ => {
                        for event in self.sse.finish() {
                            self.event(event, true)?;
                        }
                    }
                }
            }
        } else {
            let text = String::from_utf8_lossy(&self.body).into_owned();
            let whole: Value =
                serde_json::from_str(&text).map_err(|e| WireError::malformed(&self.url, "JSON", e, &text))?;
            match self.api {
                Api::OpenAi | Api::OpenAiCompatible => crate::openai::whole(&mut self.progress, &whole, &self.url)?,
                #[cfg(feature = "anthropic")]
                Api::Anthropic => crate::anthropic::whole(&mut self.progress, &whole, &self.url)?,
                #[cfg(feature = "gemini")]
                Api::Gemini => crate::gemini::absorb(&mut self.progress, &whole, &self.url)?,
                #[cfg(feature = "ollama")]
                Api::Ollama => crate::ollama::absorb(&mut self.progress, &whole, &self.url)?,
                #[allow(unreachable_patterns)]
                other => unreachable!("agon-wire was built without the {other:?} API"),
            }
            // A whole body that parsed is the whole reply.
            self.progress.finished = true;
        }
        self.check_size()?;
        // Complete once its end marker came, or its stop reason did (OpenAI
        // sends the usage after the finish reason; some servers no `[DONE]`).
        if !self.progress.finished && self.progress.stop.is_none() {
            return Err(WireError::incomplete(&self.url));
        }
        let Progress { text, usage, stop, .. } = self.progress;
        if stop == Some(StopReason::TokenLimit) && text.trim().is_empty() {
            let spent =
                usage.and_then(|u| u.reasoning_tokens).map(|r| format!(", {r} of them thinking")).unwrap_or_default();
            return Err(WireError {
                kind: FailureKind::TokenLimit,
                message: format!(
                    "{} spent all {} output tokens it was allowed{spent} before writing any answer: raise max_tokens or lower the reasoning effort",
                    self.url, self.output_limit
                ),
                retry: crate::Retry::No,
                usage,
                code: None,
            });
        }
        Ok(Completion { text, usage, stop })
    }

    fn event(&mut self, event: SseEvent, ended: bool) -> Result<(), WireError> {
        let data = match event {
            SseEvent::Done => {
                self.progress.finished = true;
                return Ok(());
            }
            SseEvent::Message { data, .. } => data,
        };
        let value = self.json(&data, "stream event", ended)?;
        match self.api {
            Api::OpenAi | Api::OpenAiCompatible => crate::openai::chunk(&mut self.progress, &value, &self.url),
            #[cfg(feature = "anthropic")]
            Api::Anthropic => crate::anthropic::event(&mut self.progress, &value, &self.url),
            #[cfg(feature = "gemini")]
            Api::Gemini => crate::gemini::absorb(&mut self.progress, &value, &self.url),
            other => unreachable!("{other:?} sends no server-sent events (or agon-wire was built without it)"),
        }
    }

    fn line(&mut self, line: &str, ended: bool) -> Result<(), WireError> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let value = self.json(line, "NDJSON", ended)?;
        #[cfg(feature = "ollama")]
        return crate::ollama::absorb(&mut self.progress, &value, &self.url);
        #[cfg(not(feature = "ollama"))]
        unreachable!("agon-wire was built without the Ollama API: {value}")
    }

    /// One event's JSON; at the very end of the body, a piece that does not
    /// parse is a stream cut short, not a malformed one.
    fn json(&self, data: &str, what: &str, ended: bool) -> Result<Value, WireError> {
        serde_json::from_str(data).map_err(|e| {
            if ended { WireError::incomplete(&self.url) } else { WireError::malformed(&self.url, what, e, data) }
        })
    }

    fn check_size(&self) -> Result<(), WireError> {
        if self.progress.text.len() > self.max_reply {
            return Err(WireError::too_large(&self.url, self.max_reply, &self.limit_hint));
        }
        Ok(())
    }

    /// An event or line past its bound holds more than a whole reply may.
    fn event_too_large(&self, _bound: usize) -> WireError {
        WireError::too_large(&self.url, self.max_reply, &self.limit_hint)
    }
}
