//! The one error type of agon-core: misuse of the API or bad input.
//!
//! A debate that cannot finish normally is *not* an error: it ends with an
//! [`Outcome`](crate::Outcome) that says so. Errors here mean the caller asked
//! for something the engine cannot do, and they never change the session.

use std::fmt;

/// Everything that can go wrong when calling into the engine.
///
/// Exhaustive on purpose: the WIT binding matches every variant, so a new one
/// fails to compile until the boundary carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The spec is malformed or inconsistent; `field` is a path such as `panel[1].id`.
    InvalidSpec { field: String, reason: String },
    /// An input named a request id the session never released.
    UnknownRequest { id: u64 },
    /// An input named a request that has already been answered or failed.
    AlreadyAnswered { id: u64 },
    /// A journal could not be read; `line` is 1-based.
    InvalidJournal { line: usize, reason: String },
    /// A role file could not be read; `line` is 1-based.
    InvalidRole { line: usize, reason: String },
}

impl Error {
    pub(crate) fn spec(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidSpec { field: field.into(), reason: reason.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidSpec { field, reason } if field.is_empty() => {
                write!(f, "invalid spec: {reason}")
            }
            Error::InvalidSpec { field, reason } => write!(f, "invalid spec: {field}: {reason}"),
            Error::UnknownRequest { id } => write!(f, "no request with id {id} was released"),
            Error::AlreadyAnswered { id } => write!(f, "request {id} was already answered"),
            Error::InvalidJournal { line, reason } => {
                write!(f, "invalid journal at line {line}: {reason}")
            }
            Error::InvalidRole { line, reason } => write!(f, "invalid role file at line {line}: {reason}"),
        }
    }
}

impl std::error::Error for Error {}
