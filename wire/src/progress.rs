//! A reply as read so far, which each API's reader fills, and how a
//! provider said its model stopped.

use agon_core::{StopReason, Usage};
use serde_json::Value;

use crate::failure::WireError;

/// What a reply has said so far; each API's reader fills it.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    pub text: String,
    pub usage: Option<Usage>,
    pub stop: Option<StopReason>,
    /// The reply is complete (its last event came).
    pub finished: bool,
    /// Text pieces to hand the host from the event being read.
    pub pieces: Vec<String>,
}

impl Progress {
    pub fn push(&mut self, piece: &str) {
        if !piece.is_empty() {
            self.text.push_str(piece);
            self.pieces.push(piece.to_string());
        }
    }

    /// Record a stop; a refusal is no answer but a failure.
    pub fn stop(&mut self, stop: Stop, url: &str) -> Result<(), WireError> {
        match stop {
            Stop::Reason(reason) => {
                self.stop = Some(reason);
                Ok(())
            }
            Stop::Refused(why) => Err(WireError::refused(url, &why)),
        }
    }
}

/// How a provider said the model stopped.
pub(crate) enum Stop {
    Reason(StopReason),
    Refused(String),
}

/// A count from JSON, never wrapped past `u32::MAX`.
pub(crate) fn count(value: &Value, key: &str) -> Option<u32> {
    value.get(key)?.as_u64().map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}
