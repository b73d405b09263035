//! # agon-stream: streamed model replies, decoded without I/O
//!
//! No I/O, no clock, no allocation beyond what the bytes given need: each
//! host reads its own network (a blocking socket in the CLI, `fetch` in the
//! browser) and hands the bytes here, so both decode a stream the same way,
//! end included.
//!
//! The host loop:
//!
//! 1. make one [`SseDecoder`] per response;
//! 2. for every chunk of bytes read, call [`SseDecoder::feed`] and handle the
//!    events it returns, in order;
//! 3. when the response ends, call [`SseDecoder::finish`] once and handle
//!    what it returns: a last event the server sent without its blank line;
//! 4. for an OpenAI-compatible stream, read each event's data with
//!    [`openai::parse_chunk`]; [`SseEvent::Done`] ends the reply.
//!
//! How the bytes are cut into chunks never changes the events (a property
//! test holds the decoder to it).

#![forbid(unsafe_code)]

pub mod openai;
mod sse;

pub use sse::{EventTooLarge, SseDecoder, SseEvent};
