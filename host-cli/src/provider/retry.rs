//! Trying a failed call again: on 408, 429, 5xx and dropped connections, with
//! exponential backoff and jitter, honouring the server's Retry-After; never
//! once any text was streamed (the reader would see it twice).
//!
//! Jitter comes from the host's clock: the host may be random, the engine may
//! not, and nothing random reaches the journal.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{CallError, Retry};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The wait before the second attempt; doubled for each one after.
    pub base: Duration,
    /// No wait is longer, whatever the server asks for.
    pub cap: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy { attempts: 3, base: Duration::from_millis(500), cap: Duration::from_secs(30) }
    }
}

impl RetryPolicy {
    /// The wait before attempt `next` (2 for the first retry): the server's
    /// Retry-After when it gave one, else base·2^(next-2) scaled by `jitter`
    /// in [0.5, 1.5); never above the cap.
    pub fn delay(&self, next: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
        let wait = match retry_after {
            Some(after) => after,
            None => {
                let doubling = 2u32.saturating_pow(next.saturating_sub(2)).min(1 << 16);
                self.base.saturating_mul(doubling).mul_f64(jitter.clamp(0.5, 1.5))
            }
        };
        wait.min(self.cap)
    }
}

/// Run `attempt` until it succeeds, fails for good, or the attempts run out.
/// `attempt` gets the attempt number and reports whether it streamed any text.
pub fn with_retries<T>(
    policy: RetryPolicy,
    sleep: &mut dyn FnMut(Duration),
    attempt: &mut dyn FnMut(u32) -> (Result<T, CallError>, bool),
) -> Result<T, CallError> {
    let mut n = 1;
    loop {
        let (result, streamed) = attempt(n);
        match result {
            Ok(value) => return Ok(value),
            Err(e) => match e.retry {
                Retry::Yes { after } if !streamed && n < policy.attempts => {
                    n += 1;
                    sleep(policy.delay(n, after, jitter()));
                }
                _ if n > 1 => {
                    return Err(CallError { message: format!("{} (after {n} attempts)", e.message), ..e });
                }
                _ => return Err(e),
            },
        }
    }
}

fn jitter() -> f64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    0.5 + (nanos % 1000) as f64 / 1000.0
}

/// `Retry-After` as seconds or as an HTTP date (RFC 9110), relative to now.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::wit;

    fn err(retry: Retry) -> CallError {
        CallError { kind: wit::FailureKind::RateLimited, message: "HTTP 429".into(), retry, usage: None }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let p = RetryPolicy { attempts: 10, base: Duration::from_millis(500), cap: Duration::from_secs(30) };
        assert_eq!(p.delay(2, None, 1.0), Duration::from_millis(500));
        assert_eq!(p.delay(3, None, 1.0), Duration::from_millis(1000));
        assert_eq!(p.delay(4, None, 1.0), Duration::from_millis(2000));
        assert_eq!(p.delay(4, None, 0.5), Duration::from_millis(1000));
        assert_eq!(p.delay(20, None, 1.0), Duration::from_secs(30));
        assert_eq!(p.delay(2, Some(Duration::from_secs(7)), 1.0), Duration::from_secs(7), "the server's word wins");
        assert_eq!(p.delay(2, Some(Duration::from_secs(3600)), 1.0), Duration::from_secs(30), "within reason");
    }

    #[test]
    fn retries_what_may_pass_and_stops_at_the_limit() {
        let policy = RetryPolicy::default();
        let mut waits = Vec::new();
        let mut calls = 0;
        let result: Result<(), CallError> = with_retries(policy, &mut |d| waits.push(d), &mut |_| {
            calls += 1;
            (Err(err(Retry::Yes { after: Some(Duration::from_secs(1)) })), false)
        });
        assert_eq!(calls, 3);
        assert_eq!(waits, [Duration::from_secs(1), Duration::from_secs(1)]);
        assert!(result.unwrap_err().message.ends_with("(after 3 attempts)"));

        let mut calls = 0;
        let result = with_retries(policy, &mut |_| {}, &mut |n| {
            calls += 1;
            if n < 2 { (Err(err(Retry::Yes { after: None })), false) } else { (Ok("fine"), false) }
        });
        assert_eq!((result.unwrap(), calls), ("fine", 2));
    }

    #[test]
    fn never_after_text_was_streamed_nor_for_final_errors() {
        let mut calls = 0;
        let _ = with_retries::<()>(RetryPolicy::default(), &mut |_| {}, &mut |_| {
            calls += 1;
            (Err(err(Retry::Yes { after: None })), true)
        });
        assert_eq!(calls, 1, "text already shown must not be shown twice");
        let mut calls = 0;
        let result = with_retries::<()>(RetryPolicy::default(), &mut |_| {}, &mut |_| {
            calls += 1;
            (Err(err(Retry::No)), false)
        });
        assert_eq!(calls, 1);
        assert_eq!(result.unwrap_err().message, "HTTP 429", "a single attempt says nothing about attempts");
    }

    #[test]
    fn reads_retry_after_in_both_forms() {
        assert_eq!(parse_retry_after(" 12 "), Some(Duration::from_secs(12)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO), "a past date: now");
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
        let wait = parse_retry_after(&later).unwrap();
        assert!(wait > Duration::from_secs(100) && wait <= Duration::from_secs(120), "{wait:?}");
        assert_eq!(parse_retry_after("soon"), None);
    }
}
