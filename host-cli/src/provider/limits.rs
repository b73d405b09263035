//! Reply size limits (`--max-reply`): a reply past the limit fails its call,
//! streamed or whole, and none of it is kept.

use super::{CallError, CallOptions};

/// A reply larger than `--max-reply`: a failure, never a silent cut.
pub(super) fn too_large(url: &str, options: CallOptions) -> CallError {
    CallError::provider(format!(
        "the reply from {url} is larger than the limit of {} (--max-reply, or max_reply in agon.toml); none of it was kept",
        size_name(options.max_reply)
    ))
}

pub use agon_wire::size_name;
