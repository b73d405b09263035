//! The protocols: each a [`Protocol`](crate::plan::Protocol) in its own
//! module, listed once in the [`registry`], which builds and bounds the one a
//! spec names. What a protocol plans — calls, notes, its ending — is
//! [`crate::plan`], below every protocol.

pub(crate) mod adversarial;
pub(crate) mod borda;
pub(crate) mod challenge;
pub(crate) mod comparative;
pub(crate) mod definition;
pub(crate) mod document;
pub(crate) mod priority_vote;
pub(crate) mod registry;
mod role_council;
pub(crate) mod rotating_challenger;
pub(crate) mod sequential;
pub(crate) mod unchanged;
