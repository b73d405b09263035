//! Every way a call can fail, as a [`CallError`] that names the URL (as
//! shown) and what to set, and says whether another attempt may help.

use std::io::Read;
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
    }
}

/// Map a non-success HTTP status to a failure; 408, 429 and 5xx may be tried again.
pub(super) fn status_error(
    status: u16,
    body: &mut dyn Read,
    url: &str,
    endpoint: &Endpoint,
    retry_after: Option<Duration>,
) -> CallError {
    let mut text = String::new();
    let _ = body.take(2048).read_to_string(&mut text);
    let detail = one_line(&text, 300);
    let kind = match status {
        429 => wit::FailureKind::RateLimited,
        _ => wit::FailureKind::ProviderError,
    };
    let hint = match (status, &endpoint.key_var) {
        (401 | 403, Some(var)) => format!(" (check {var})"),
        (404, _) => format!(" (is {} right, and does it serve this model?)", endpoint.url_var),
        _ => String::new(),
    };
    let error = CallError { kind, message: format!("HTTP {status} from {url}{hint}: {detail}"), retry: Retry::No };
    match status {
        408 | 429 | 500..=599 => error.retryable(retry_after),
        _ => error,
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

pub(super) fn malformed(url: &str, what: &str, e: impl std::fmt::Display, raw: &str) -> CallError {
    CallError::provider(format!("malformed {what} from {url}: {e}: {}", one_line(raw, 120)))
}

pub(super) fn incomplete(url: &str) -> CallError {
    CallError::provider(format!("the stream from {url} ended before the reply was complete")).retryable(None)
}

pub(super) fn refused(url: &str, why: &str) -> CallError {
    CallError { kind: wit::FailureKind::Refused, message: format!("{url} refused to answer ({why})"), retry: Retry::No }
}

pub(super) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Environment;

    #[test]
    fn statuses_that_may_pass_are_retried() {
        let env = Environment::from_env();
        let e = env.endpoint("openai").unwrap();
        let err = |status| status_error(status, &mut "{}".as_bytes(), "http://x", e, Some(Duration::from_secs(2)));
        assert_eq!(err(429).retry, Retry::Yes { after: Some(Duration::from_secs(2)) });
        assert_eq!(err(429).kind, wit::FailureKind::RateLimited);
        assert!(matches!(err(503).retry, Retry::Yes { .. }));
        assert!(matches!(err(408).retry, Retry::Yes { .. }));
        assert_eq!(err(400).retry, Retry::No);
        assert_eq!(err(401).retry, Retry::No);
        assert!(err(401).message.contains("check OPENAI_API_KEY"));
    }
}
