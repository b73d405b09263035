//! OpenAI-compatible chat completions: what one streamed chunk says.
//!
//! A chunk is the data of one server-sent event:
//! `{"choices":[{"delta":{"content":"Hel"},"finish_reason":null}]}`, and,
//! when the request asked for `stream_options.include_usage`, a last one with
//! `"choices":[]` and `"usage":{"prompt_tokens":12,"completion_tokens":5}`.

use serde_json::Value;

/// Tokens one call used, as the server counted them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// What one streamed chunk says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The next piece of the reply, when this chunk carries one.
    pub text: Option<String>,
    /// Why the model stopped (`stop`, `length`, `content_filter`, …), on the
    /// chunk where it did: the reply is complete.
    pub finish_reason: Option<String>,
    /// The whole call's usage, when this chunk carries it.
    pub usage: Option<Usage>,
}

impl Chunk {
    /// The server's content filter stopped the reply: a refusal, not an answer.
    pub fn refused(&self) -> bool {
        self.finish_reason.as_deref() == Some("content_filter")
    }
}

/// A chunk that says no more of the reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkError {
    /// The data is not JSON: serde's message.
    Malformed(String),
    /// The server reported an error inside the stream: its `error` value, as JSON.
    Reported(String),
}

/// Read the data of one event (not `[DONE]`: the decoder turns that into
/// [`crate::SseEvent::Done`]).
pub fn parse_chunk(data: &str) -> Result<Chunk, ChunkError> {
    let value: Value = serde_json::from_str(data).map_err(|e| ChunkError::Malformed(e.to_string()))?;
    if let Some(error) = value.get("error") {
        return Err(ChunkError::Reported(error.to_string()));
    }
    let choice = &value["choices"][0];
    Ok(Chunk {
        text: choice["delta"]["content"].as_str().map(str::to_string),
        finish_reason: choice["finish_reason"].as_str().map(str::to_string),
        usage: usage(&value["usage"]),
    })
}

/// A `usage` object (a chunk's, or a whole reply's), if it has both counts.
/// A count past `u32::MAX` is taken as `u32::MAX`, never wrapped.
pub fn usage(value: &Value) -> Option<Usage> {
    let count = |name: &str| value.get(name)?.as_u64().map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    Some(Usage { prompt_tokens: count("prompt_tokens")?, completion_tokens: count("completion_tokens")? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_carries_text_then_the_end_then_usage() {
        let piece = parse_chunk(r#"{"choices":[{"delta":{"content":"Hi"},"finish_reason":null}]}"#).unwrap();
        assert_eq!(piece, Chunk { text: Some("Hi".into()), ..Chunk::default() });
        let end = parse_chunk(r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#).unwrap();
        assert_eq!((end.text, end.finish_reason.as_deref()), (None, Some("stop")));
        let last = parse_chunk(r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#).unwrap();
        assert_eq!(last.usage, Some(Usage { prompt_tokens: 3, completion_tokens: 4 }));
        assert_eq!(last.finish_reason, None);
    }

    #[test]
    fn a_content_filter_is_a_refusal() {
        let chunk = parse_chunk(r#"{"choices":[{"delta":{},"finish_reason":"content_filter"}]}"#).unwrap();
        assert!(chunk.refused());
        assert!(!parse_chunk(r#"{"choices":[{"finish_reason":"length"}]}"#).unwrap().refused());
    }

    #[test]
    fn errors_say_what_the_data_was() {
        assert!(matches!(parse_chunk("{not json"), Err(ChunkError::Malformed(_))));
        assert_eq!(
            parse_chunk(r#"{"error":{"message":"overloaded"}}"#),
            Err(ChunkError::Reported(r#"{"message":"overloaded"}"#.into()))
        );
    }

    #[test]
    fn usage_needs_both_counts_and_never_wraps() {
        assert_eq!(usage(&serde_json::json!({"prompt_tokens": 1})), None);
        let huge = serde_json::json!({"prompt_tokens": 1u64 << 40, "completion_tokens": 2});
        assert_eq!(usage(&huge), Some(Usage { prompt_tokens: u32::MAX, completion_tokens: 2 }));
    }
}
