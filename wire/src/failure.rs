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
    /// The provider's own type and machine code for the error, as it named
    /// them (`invalid_request_error, model_not_found`; `INVALID_ARGUMENT,
    /// API_KEY_INVALID`); the message carries them too.
    pub code: Option<String>,
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
        WireError { kind, message: message.into(), retry: Retry::No, usage: None, code: None }
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
        let mut e = WireError::provider(format!("{url} {what}: {}", error_text(error)));
        e.code = codes(error);
        if let Some(why) = spent_quota(error) {
            e.message = format!("{}; {why}", e.message);
            return WireError { kind: FailureKind::RateLimited, ..e };
        }
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

/// A non-2xx answer as a failure. 429 is rate-limited; 408, 409, 429, 5xx
/// and Anthropic's 529 may pass later, unless the provider says otherwise:
/// `x-should-retry: false` (Anthropic, OpenAI) is never tried again, nor is a
/// quota spent for the day (Gemini's `PerDay` quota ids) or for good
/// (OpenAI's `insufficient_quota`); `x-should-retry: true` is. The wait the
/// provider asks for is `retry-after-ms`, else `retry-after` in seconds, else
/// the delay its body names (Gemini's `RetryInfo`); an HTTP date needs a
/// clock, which this crate has not: the host reads it. `headers` are the
/// response's, any case; `hint` is the host's word on what to check
/// (`(check OPENAI_API_KEY)`).
pub fn status_failure(status: u16, body: &str, headers: &[(&str, &str)], url: &str, hint: &str) -> WireError {
    let header = |name: &str| headers.iter().find(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let detail = match error {
        Some(error) => error_text(error),
        None => one_line(body, 300),
    };
    let kind = if status == 429 { FailureKind::RateLimited } else { FailureKind::ProviderError };
    let mut failure = WireError::new(kind, format!("HTTP {status} from {url}{hint}: {detail}"));
    failure.code = error.and_then(codes);
    let may_pass = matches!(status, 408 | 409 | 429 | 500..=599);
    let stop = match (header("x-should-retry"), error.and_then(spent_quota)) {
        (_, Some(why)) => Some(why),
        (Some(v), None) if v.eq_ignore_ascii_case("false") => Some(
            "not tried again: the provider says another attempt would fail the same way (x-should-retry: false)".into(),
        ),
        (Some(v), None) if v.eq_ignore_ascii_case("true") => None,
        _ if may_pass => None,
        _ => return failure,
    };
    if let Some(why) = stop {
        failure.message = format!("{}; {why}", failure.message);
        return failure;
    }
    let after = header("retry-after-ms")
        .and_then(|v| millis(v).map(|ms| ms.div_ceil(1000)))
        .or_else(|| header("retry-after").and_then(millis))
        .or_else(|| parsed.as_ref().and_then(retry_delay));
    failure.retryable(after)
}

/// Why a quota error will not pass by waiting a moment: Gemini names a quota
/// per day among its `QuotaFailure` violations; OpenAI's
/// `insufficient_quota` is a spent balance.
fn spent_quota(error: &Value) -> Option<String> {
    if error.get("code").and_then(Value::as_str) == Some("insufficient_quota")
        || error.get("type").and_then(Value::as_str) == Some("insufficient_quota")
    {
        return Some(
            "not tried again: the account's quota is spent (insufficient_quota): see the provider's billing page"
                .into(),
        );
    }
    let daily = details(error)
        .flat_map(|d| d.get("violations").and_then(Value::as_array).into_iter().flatten())
        .filter_map(|v| v.get("quotaId").and_then(Value::as_str))
        .find(|id| id.contains("PerDay"))?;
    Some(format!(
        "not tried again: a daily quota is spent ({daily}); it resets at midnight Pacific time, or raise it in the provider's console"
    ))
}

/// The objects of an error's `details` (Google's `google.rpc` messages).
fn details(error: &Value) -> impl Iterator<Item = &Value> {
    error.get("details").and_then(Value::as_array).into_iter().flatten()
}

/// The delay a provider's error body asks for, in milliseconds: Gemini's
/// `google.rpc.RetryInfo` (`"retryDelay": "15s"`, a protobuf duration, maybe
/// fractional), wherever it sits in the body.
pub fn retry_delay(body: &Value) -> Option<u64> {
    details(body.get("error").unwrap_or(body))
        .find_map(|d| millis(d.get("retryDelay")?.as_str()?.trim().strip_suffix('s')?))
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

/// The most of a provider's own message kept: enough for any real one; its
/// type and code follow it whole, never cut.
const MESSAGE_CHARS: usize = 1_000;

/// An error value as a person reads it: its message, then its type and
/// machine code in brackets (`(invalid_request_error, model_not_found)`), or
/// the JSON.
fn error_text(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str).map(|m| one_line(m, MESSAGE_CHARS));
    match (message, codes(error)) {
        (Some(m), Some(c)) => format!("{m} ({c})"),
        (Some(m), None) => m,
        (None, _) => match error.as_str() {
            Some(s) => one_line(s, MESSAGE_CHARS),
            None => one_line(&error.to_string(), MESSAGE_CHARS),
        },
    }
}

/// The error's type and machine code as its API names them, joined: the
/// `type` (OpenAI, Anthropic), Google's `status`, a `code` that is a word
/// (OpenAI's `model_not_found`, `invalid_api_key`) and the `reason` of
/// Google's `ErrorInfo` details (`API_KEY_INVALID`).
fn codes(error: &Value) -> Option<String> {
    fn word(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
    }
    let mut names: Vec<&str> = Vec::new();
    for name in [word(error.get("type")), word(error.get("status")), word(error.get("code"))]
        .into_iter()
        .flatten()
        .chain(details(error).filter_map(|d| word(d.get("reason"))))
    {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
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

    fn retry_after(v: &str) -> [(&str, &str); 1] {
        [("Retry-After", v)]
    }

    #[test]
    fn statuses_that_may_pass_are_retried_after_what_the_provider_asked() {
        let e = status_failure(429, "{}", &retry_after("2"), "http://x", "");
        assert_eq!((e.kind, e.retry), (FailureKind::RateLimited, Retry::Yes { after_ms: Some(2_000) }));
        let gemini = r#"{"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "48s"}]}}"#;
        assert_eq!(status_failure(429, gemini, &[], "u", "").retry, Retry::Yes { after_ms: Some(48_000) });
        assert_eq!(status_failure(429, gemini, &retry_after("3"), "u", "").retry, Retry::Yes { after_ms: Some(3_000) });
        assert_eq!(status_failure(529, "{}", &[], "u", "").retry, Retry::Yes { after_ms: None });
        assert_eq!(status_failure(400, "{}", &retry_after("2"), "u", "").retry, Retry::No);
        let e = status_failure(401, "{}", &[], "http://x", " (check OPENAI_API_KEY)");
        assert!(e.message.starts_with("HTTP 401 from http://x (check OPENAI_API_KEY): "), "{}", e.message);
        // OpenAI's and Anthropic's milliseconds come before the seconds.
        let both = [("retry-after", "2"), ("retry-after-ms", "1500.5")];
        assert_eq!(status_failure(429, "{}", &both, "u", "").retry, Retry::Yes { after_ms: Some(1_501) });
    }

    #[test]
    fn the_provider_saying_not_to_retry_is_heeded_both_ways() {
        let body = r#"{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}"#;
        let e = status_failure(429, body, &[("x-should-retry", "false"), ("retry-after", "5")], "u", "");
        assert_eq!((e.kind, e.retry), (FailureKind::RateLimited, Retry::No));
        assert!(e.message.ends_with("(x-should-retry: false)"), "{}", e.message);
        let e = status_failure(400, "{}", &[("X-Should-Retry", "true")], "u", "");
        assert_eq!(e.retry, Retry::Yes { after_ms: None }, "the provider's word over the status");
    }

    #[test]
    fn a_quota_spent_for_the_day_or_for_good_is_not_retried() {
        let daily = r#"{"error": {"code": 429, "message": "You exceeded your current quota.", "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                {"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                 "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "33s"}]}}"#;
        let e = status_failure(429, daily, &[], "u", "");
        assert_eq!((e.kind, e.retry), (FailureKind::RateLimited, Retry::No));
        assert!(
            e.message.contains("a daily quota is spent (GenerateRequestsPerDayPerProjectPerModel-FreeTier)"),
            "{}",
            e.message
        );
        let minute = daily.replace("PerDay", "PerMinute");
        assert_eq!(status_failure(429, &minute, &[], "u", "").retry, Retry::Yes { after_ms: Some(33_000) });
        let openai = r#"{"error": {"message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#;
        let e = status_failure(429, openai, &[("retry-after", "1")], "u", "");
        assert_eq!(e.retry, Retry::No);
        assert!(e.message.contains("(insufficient_quota)") && e.message.contains("quota is spent"), "{}", e.message);
    }

    #[test]
    fn the_type_and_code_are_kept_whole_beside_a_long_message() {
        let long = "x".repeat(2_000);
        let body = format!(
            r#"{{"error": {{"message": "The model `gpt-9` does not exist. {long}", "type": "invalid_request_error", "param": null, "code": "model_not_found"}}}}"#
        );
        let e = status_failure(404, &body, &[], "u", "");
        assert!(
            e.message.ends_with("… (invalid_request_error, model_not_found)"),
            "{}",
            &e.message[e.message.len() - 80..]
        );
        assert_eq!(e.code.as_deref(), Some("invalid_request_error, model_not_found"));
        let google = r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}"#;
        assert_eq!(
            status_failure(400, google, &[], "u", "").message,
            "HTTP 400 from u: API key not valid. Please pass a valid API key. (INVALID_ARGUMENT, API_KEY_INVALID)"
        );
    }

    #[test]
    fn the_detail_is_the_providers_message() {
        let body = r#"{"error": {"message": "Unsupported parameter: 'max_tokens'", "type": "invalid_request_error"}}"#;
        let e = status_failure(400, body, &[], "u", "");
        assert_eq!(e.message, "HTTP 400 from u: Unsupported parameter: 'max_tokens' (invalid_request_error)");
        assert_eq!(
            status_failure(400, r#"{"error": "no such model"}"#, &[], "u", "").message,
            "HTTP 400 from u: no such model"
        );
        assert_eq!(
            status_failure(502, "<html>bad\n gateway</html>", &[], "u", "").message,
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
