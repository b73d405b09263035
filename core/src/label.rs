//! How prompts name a panel seat that has no name of its own: "Speaker N",
//! never its id, which the spec builder derives from the model (a brand
//! invites bias). Below the spec, so a parent debate's seats are named by
//! the same rule as this debate's.

/// "Speaker N": the anonymous label for panel seat N−1.
pub(crate) fn speaker(seat: usize) -> String {
    format!("Speaker {}", seat + 1)
}
