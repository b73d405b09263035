//! Reply size limits (`--max-reply`): a reply past the limit fails its call,
//! streamed or whole, and none of it is kept.

use std::io::Read;

use super::failure::read_error;
use super::{CallError, CallOptions, Endpoint};

/// A reply larger than `--max-reply`: a failure, never a silent cut.
pub(super) fn too_large(url: &str, options: CallOptions) -> CallError {
    CallError::provider(format!(
        "the reply from {url} is larger than the limit of {} (--max-reply, or max_reply in agon.toml); none of it was kept",
        size_name(options.max_reply)
    ))
}

/// Bytes as people say them: `4 MiB`, `512 KiB`, `900 bytes`.
pub fn size_name(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Add streamed text to a reply, failing once it passes the limit.
pub(super) fn grow(text: &mut String, piece: &str, url: &str, options: CallOptions) -> Result<(), CallError> {
    if text.len() + piece.len() > options.max_reply {
        return Err(too_large(url, options));
    }
    text.push_str(piece);
    Ok(())
}

/// A whole (not streamed) body: at most twice the reply limit plus room for
/// the JSON around it; more is a too-large failure, not a read into memory.
pub(super) fn read_body(
    reader: impl Read,
    url: &str,
    endpoint: &Endpoint,
    options: CallOptions,
) -> Result<String, CallError> {
    let limit = options.max_reply.saturating_mul(2).saturating_add(64 << 10);
    let mut text = String::new();
    reader.take(limit as u64 + 1).read_to_string(&mut text).map_err(|e| read_error(e, url, endpoint, options))?;
    if text.len() > limit {
        return Err(too_large(url, options));
    }
    Ok(text)
}

/// The longest line a stream may send (SSE or NDJSON): a whole reply and its JSON.
pub(super) fn max_line(options: CallOptions) -> usize {
    options.max_reply.saturating_mul(2).saturating_add(64 << 10)
}
