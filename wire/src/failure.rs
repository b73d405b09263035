//! A call that came to nothing, as the engine understands it, with what the
//! provider said about trying again.

use agon_core::{FailureKind, Usage};
use serde_json::Value;

/// Why a call failed, whether trying again may help, and what the provider
/// billed for it all the same.
#[derive(Debug, Clone, PartialEq)]
pub struct WireError {
    pub kind: FailureKind,
    pub message: String,
    pub retry: Retry,
    pub usage: Option<Usage>,
}

/// Whether a failed call is worth another attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    No,
    /// Yes; after this many milliseconds when the provider said (a
    /// `Retry-After` in seconds, or a delay in its error body).
    Yes {
        after_ms: Option<u64>,
    },
}

impl WireError {
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> WireError {
        WireError { kind, message: message.into(), retry: Retry::No, usage: None }
    }

    pub(crate) fn provider(message: impl Into<String>) -> WireError {
        WireError::new(FailureKind::ProviderError, message)
    }

    pub(crate) fn retryable(mut self, after_ms: Option<u64>) -> WireError {
        self.retry = Retry::Yes { after_ms };
        self
    }

    pub(crate) fn refused(url: &str, why: &str) -> WireError {
        WireError::new(FailureKind::Refused, format!("{url} refused to answer ({why})"))
    }

    pub(crate) fn incomplete(url: &str) -> WireError {
        WireError::provider(format!("the stream from {url} ended before the reply was complete")).retryable(None)
    }

    pub(crate) fn malformed(url: &str, what: &str, e: impl std::fmt::Display, raw: &str) -> WireError {
        WireError::provider(format!("malformed {what} from {url}: {e}: {}", one_line(raw, 120)))
    }

    pub(crate) fn too_large(url: &str, max: usize, hint: &str) -> WireError {
        WireError::provider(format!(
            "the reply from {url} is larger than the limit of {}{hint}; none of it was kept",
            size_name(max)
        ))
    }

    /// An error the provider reported inside a reply (a stream's `error`
    /// event, a whole body's `error` object).
    pub(crate) fn reported(url: &str, error: &Value, mid_stream: bool) -> WireError {
        let what = if mid_stream { "reported an error mid-stream" } else { "answered with an error" };
        let e = WireError::provider(format!("{url} {what}: {}", error_text(error)));
        // Overloaded or rate-limited: another try later may pass.
        match error_type(error).as_deref() {
            Some("overloaded_error" | "api_error" | "UNAVAILABLE" | "INTERNAL") => e.retryable(None),
            Some("rate_limit_error" | "RESOURCE_EXHAUSTED") => {
                WireError { kind: FailureKind::RateLimited, ..e }.retryable(retry_delay(error))
            }
            _ => e,
        }
    }
}

/// A non-2xx answer as a failure: 429 is rate-limited; 408, 409, 429, 5xx
/// and Anthropic's 529 may pass later, after the `Retry-After` header when it
/// is a number of seconds, else the delay the body names. `hint` is the
/// host's word on what to check (`(check OPENAI_API_KEY)`).
pub fn status_failure(status: u16, body: &str, retry_after: Option<&str>, url: &str, hint: &str) -> WireError {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let detail = match parsed.as_ref().and_then(|v| v.get("error")) {
        Some(error) => one_line(&error_text(error), 300),
        None => one_line(body, 300),
    };
    let kind = if status == 429 { FailureKind::RateLimited } else { FailureKind::ProviderError };
    let error = WireError::new(kind, format!("HTTP {status} from {url}{hint}: {detail}"));
    match status {
        408 | 409 | 429 | 500..=599 => {
            let header = retry_after.and_then(|v| millis(v.trim()));
            let after = header.or_else(|| parsed.as_ref().and_then(retry_delay));
            error.retryable(after)
        }
        _ => error,
    }
}

/// The delay a provider's error body asks for, in milliseconds: Gemini's
/// `google.rpc.RetryInfo` (`"retryDelay": "15s"`, a protobuf duration, maybe
/// fractional), wherever it sits in the body.
pub fn retry_delay(body: &Value) -> Option<u64> {
    let details = body.get("error").unwrap_or(body).get("details")?.as_array()?;
    details.iter().find_map(|d| millis(d.get("retryDelay")?.as_str()?.trim().strip_suffix('s')?))
}

/// Seconds, whole or decimal (`15`, `1.5`), as milliseconds; anything else
/// (an HTTP date, a negative) is `None`. By hand: a float parser would be the
/// component's largest single function for this one use.
fn millis(seconds: &str) -> Option<u64> {
    let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
    if whole.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ms = whole.parse::<u64>().ok()?.checked_mul(1000)?;
    for (digit, scale) in fraction.bytes().zip([100, 10, 1]) {
        ms += u64::from(digit - b'0') * scale;
    }
    Some(ms)
}

/// An error value as a person reads it: its message (and type), or the JSON.
fn error_text(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str);
    match (message, error_type(error)) {
        (Some(m), Some(t)) => format!("{m} ({t})"),
        (Some(m), None) => m.to_string(),
        (None, _) => match error.as_str() {
            Some(s) => s.to_string(),
            None => error.to_string(),
        },
    }
}

/// The error's type as each API names it: `type`, Google's `status`, or a `code` string.
fn error_type(error: &Value) -> Option<String> {
    ["type", "status", "code"].iter().find_map(|k| error.get(k).and_then(Value::as_str)).map(str::to_string)
}

/// Bytes as people say them: `4 MiB`, `512 KiB`, `900 bytes`.
pub fn size_name(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Text on one line, at most `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_that_may_pass_are_retried_after_what_the_provider_asked() {
        let e = status_failure(429, "{}", Some("2"), "http://x", "");
        assert_eq!((e.kind, e.retry), (FailureKind::RateLimited, Retry::Yes { after_ms: Some(2_000) }));
        let gemini = r#"{"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "15s"}]}}"#;
        assert_eq!(status_failure(429, gemini, None, "u", "").retry, Retry::Yes { after_ms: Some(15_000) });
        assert_eq!(status_failure(429, gemini, Some("3"), "u", "").retry, Retry::Yes { after_ms: Some(3_000) });
        assert_eq!(status_failure(529, "{}", None, "u", "").retry, Retry::Yes { after_ms: None });
        assert_eq!(status_failure(400, "{}", Some("2"), "u", "").retry, Retry::No);
        let e = status_failure(401, "{}", None, "http://x", " (check OPENAI_API_KEY)");
        assert!(e.message.starts_with("HTTP 401 from http://x (check OPENAI_API_KEY): "), "{}", e.message);
    }

    #[test]
    fn the_detail_is_the_providers_message() {
        let body = r#"{"error": {"message": "Unsupported parameter: 'max_tokens'", "type": "invalid_request_error"}}"#;
        let e = status_failure(400, body, None, "u", "");
        assert_eq!(e.message, "HTTP 400 from u: Unsupported parameter: 'max_tokens' (invalid_request_error)");
        assert_eq!(
            status_failure(400, r#"{"error": "no such model"}"#, None, "u", "").message,
            "HTTP 400 from u: no such model"
        );
        assert_eq!(
            status_failure(502, "<html>bad\n gateway</html>", None, "u", "").message,
            "HTTP 502 from u: <html>bad gateway</html>"
        );
    }

    #[test]
    fn a_fractional_retry_delay_is_read() {
        let v: Value = serde_json::from_str(r#"{"error": {"details": [{"retryDelay": "1.5s"}]}}"#).unwrap();
        assert_eq!(retry_delay(&v), Some(1_500));
        assert_eq!(retry_delay(&serde_json::json!({"error": {"details": [{"retryDelay": "soon"}]}})), None);
        assert_eq!(
            ["0", "15", "0.25", "2.0005", "-1", ".5", "1e3", "Wed, 21 Oct 2015 07:28:00 GMT"].map(millis),
            [Some(0), Some(15_000), Some(250), Some(2_000), None, None, None, None]
        );
    }
}
