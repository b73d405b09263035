//! Every way a connection can fail, as a [`CallError`] that names the URL (as
//! shown) and what to set, and says whether another attempt may help. What a
//! provider's answer means (a status, an error body) is agon-wire's.

use std::time::Duration;

use super::limits::too_large;
use super::{CallError, CallOptions, Endpoint, Retry};
use crate::engine::wit;

/// Map a transport error to a failure that names the URL and what to set.
/// A connection that failed before any reply came (refused, reset, closed)
/// is a `transport` failure, tried again: the request cannot have been answered.
pub(super) fn transport_error(e: ureq::Error, url: &str, endpoint: &Endpoint, timeout: Duration) -> CallError {
    use std::io::ErrorKind as K;
    let unreachable = |why: &str| {
        CallError::transport(format!(
            "cannot reach {url}{why}: is the endpoint running? Set {} to one that is",
            endpoint.url_var
        ))
        .retryable(None)
    };
    match e {
        ureq::Error::Timeout(_) => timed_out(url, timeout),
        ureq::Error::Io(io) if io.kind() == K::TimedOut => timed_out(url, timeout),
        ureq::Error::ConnectionFailed | ureq::Error::HostNotFound => unreachable(""),
        ureq::Error::Io(io) if io.kind() == K::ConnectionRefused => unreachable(" (connection refused)"),
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe | K::UnexpectedEof | K::NotConnected
            ) =>
        {
            CallError::transport(format!("the connection to {url} was closed before any reply: {io}")).retryable(None)
        }
        other => CallError::provider(format!("request to {url} failed: {other}")),
    }
}

pub(super) fn timed_out(url: &str, timeout: Duration) -> CallError {
    CallError {
        kind: wit::FailureKind::Timeout,
        message: format!("no complete answer from {url} within {} s", timeout.as_secs()),
        retry: Retry::No,
        usage: None,
    }
}

/// A body that broke off while being read (the connection dropped, or ureq gave up).
pub(super) fn read_error(e: std::io::Error, url: &str, endpoint: &Endpoint, options: CallOptions) -> CallError {
    if e.kind() == std::io::ErrorKind::FileTooLarge {
        return too_large(url, options);
    }
    match e.into_inner().map(|inner| inner.downcast::<ureq::Error>()) {
        Some(Ok(ureq_error)) => match transport_error(*ureq_error, url, endpoint, options.timeout) {
            // Once the reply has begun, the connection did not fail "before any reply".
            e if e.kind == wit::FailureKind::Transport => {
                CallError::transport(format!("the reply from {url} broke off: {}", e.message)).retryable(None)
            }
            e => e,
        },
        Some(Err(other)) => CallError::transport(format!("the reply from {url} broke off: {other}")).retryable(None),
        None => CallError::transport(format!("the reply from {url} broke off")).retryable(None),
    }
}
