//! # agon-wire: the providers' wire formats, without I/O
//!
//! No I/O, no clock: a host performs the HTTP exchange, this crate says what
//! to send and what came back. It is the one place the CLI, the browser page
//! and (through the WebAssembly component) the JS and Python SDKs know how
//! OpenAI's chat completions (and compatible servers), Anthropic's Messages,
//! Gemini and Ollama are spoken, so a fix is made once for every host.
//!
//! A host drives one call — its retries, its fallback chain, the choice of
//! API for each model, the reading of each reply — as an [`Exchange`]: it
//! hands in the time, the status and the bytes, and is told what to send,
//! how long to wait and what the answer was (the loop is in [`Exchange`]'s
//! module). The pieces it is made of are public too, one step each:
//!
//! 1. [`request`] turns the engine's `ModelRequest` into an [`HttpRequest`]
//!    for one model of its fallback chain: path segments under the
//!    provider's base URL, query, headers (add [`auth_header`] for the key)
//!    and the JSON body. Parameters follow the model's traits (which the
//!    request carries from the catalog): a reasoning model gets its output
//!    limit as `max_completion_tokens`, no temperature where it refuses one,
//!    its effort or thinking budget.
//! 2. POST it. A non-2xx status becomes a failure with [`status_failure`],
//!    given the response's headers: retry hints read from them
//!    (`retry-after-ms`, `retry-after`, `x-should-retry`) and from the body
//!    (Gemini's `RetryInfo`, a quota spent for the day), and the provider's
//!    own type and code for the error kept. Whether and when to try again
//!    is [`RetryRule::next`]'s to say.
//! 3. Make a [`Reader`] with [`HttpRequest::reader`]; call [`Reader::feed`]
//!    with every chunk of the body as it arrives and show the text pieces it
//!    returns (thinking is never among them); then [`Reader::finish`] once:
//!    the [`Completion`] (text, usage as billed, why the model stopped) or a
//!    [`WireError`]. A reply cut at its limit comes back marked
//!    (`stop: token-limit`); an empty one is a failure of kind
//!    `token-limit`, never an empty answer.
//!
//! How the bytes are cut into chunks never changes the result.

#![forbid(unsafe_code)]

#[cfg(feature = "anthropic")]
mod anthropic;
mod compose;
mod exchange;
mod failure;
#[cfg(feature = "gemini")]
mod gemini;
mod http_date;
mod lines;
mod ollama;
mod openai;
mod progress;
mod reply;
mod request;
mod retry;
mod sse;
mod target;

pub use compose::request;
pub use exchange::{Action, Answer, Asking, Attempt, Exchange, Receiving, Settings, WaitLimit};
pub use failure::{Retry, WireError, retry_delay, size_name, status_failure};
pub use ollama::{parse_show, show_request};
pub use reply::{Completion, Reader};
pub use request::{Api, Call, HttpRequest, ServerModel, auth_header};
pub use retry::{DEFAULT_MAX_WAIT_MS, Limit, Next, RetryRule};
pub use sse::{EventTooLarge, SseDecoder, SseEvent};
pub use target::{HttpTarget, Target, Wire};
