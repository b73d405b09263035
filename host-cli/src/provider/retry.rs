//! Trying a failed call again: on 408, 429, 5xx and dropped connections, as
//! the provider asks (agon-wire's [`RetryRule`], the rule every host
//! follows): its wait taken whole up to `--max-retry-wait`, never one longer
//! than the call's timeout, never when it says not to; never once any text
//! was streamed (the reader would see it twice).
//!
//! Jitter comes from the host's clock: the host may be random, the engine may
//! not, and nothing random reaches the journal.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agon_wire::{Limit, Next, RetryRule};

use super::{CallError, Retry};

/// Where the person raises the longest wait.
pub const RAISE_WAIT: &str = "; raise it with --max-retry-wait or max_retry_wait in agon.toml";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetryPolicy {
    pub rule: RetryRule,
}

impl RetryPolicy {
    /// What to do after attempt `made` failed with `retry`, no wait passing `timeout`.
    pub fn next(&self, made: u32, retry: Retry, timeout: Duration) -> Next {
        let retry = match retry {
            Retry::No => agon_wire::Retry::No,
            Retry::Yes { after } => agon_wire::Retry::Yes { after_ms: after.map(|d| d.as_millis() as u64) },
        };
        let what = format!("the call's timeout of {} s (--timeout)", timeout.as_secs());
        let limit = Limit { ms: timeout.as_millis() as u64, what: &what };
        self.rule.next(made, retry, jitter(), &[limit], RAISE_WAIT)
    }
}

/// Run `attempt` until it succeeds, fails for good, or the attempts run out.
/// `attempt` gets the attempt number and reports whether it streamed any text.
pub fn with_retries<T>(
    policy: RetryPolicy,
    timeout: Duration,
    sleep: &mut dyn FnMut(Duration),
    attempt: &mut dyn FnMut(u32) -> (Result<T, CallError>, bool),
) -> Result<T, CallError> {
    let mut n = 1;
    loop {
        let (result, streamed) = attempt(n);
        let e = match result {
            Ok(value) => return Ok(value),
            Err(e) => e,
        };
        let why = match policy.next(n, if streamed { Retry::No } else { e.retry }, timeout) {
            Next::Wait(ms) => {
                n += 1;
                sleep(Duration::from_millis(ms));
                continue;
            }
            Next::Stop(why) => why,
        };
        let mut message = e.message.clone();
        if let Some(why) = why {
            message = format!("{message}; {why}");
        }
        if n > 1 {
            message = format!("{message} (after {n} attempts)");
        }
        return Err(CallError { message, ..e });
    }
}

/// A number in 0..1000 from the clock's nanoseconds.
fn jitter() -> u64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    u64::from(nanos % 1000)
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

    const TIMEOUT: Duration = Duration::from_secs(120);

    #[test]
    fn retries_what_may_pass_and_stops_at_the_limit() {
        let policy = RetryPolicy::default();
        let mut waits = Vec::new();
        let mut calls = 0;
        let result: Result<(), CallError> = with_retries(policy, TIMEOUT, &mut |d| waits.push(d), &mut |_| {
            calls += 1;
            (Err(err(Retry::Yes { after: Some(Duration::from_secs(1)) })), false)
        });
        assert_eq!(calls, 3);
        assert_eq!(waits, [Duration::from_secs(1), Duration::from_secs(1)]);
        assert!(result.unwrap_err().message.ends_with("(after 3 attempts)"));

        let mut calls = 0;
        let result = with_retries(policy, TIMEOUT, &mut |_| {}, &mut |n| {
            calls += 1;
            if n < 2 { (Err(err(Retry::Yes { after: None })), false) } else { (Ok("fine"), false) }
        });
        assert_eq!((result.unwrap(), calls), ("fine", 2));
    }

    #[test]
    fn a_wait_too_long_is_not_taken_and_the_failure_says_why() {
        let mut calls = 0;
        let result = with_retries::<()>(RetryPolicy::default(), TIMEOUT, &mut |_| panic!("no wait"), &mut |_| {
            calls += 1;
            (Err(err(Retry::Yes { after: Some(Duration::from_secs(90)) })), false)
        });
        assert_eq!(calls, 1);
        let message = result.unwrap_err().message;
        assert!(
            message.contains("asks to wait 90 s, longer than agon waits (60 s; raise it with --max-retry-wait"),
            "{message}"
        );
        let result =
            with_retries::<()>(RetryPolicy::default(), Duration::from_secs(10), &mut |_| panic!(), &mut |_| {
                (Err(err(Retry::Yes { after: Some(Duration::from_secs(48)) })), false)
            });
        assert!(
            result.unwrap_err().message.ends_with("waiting 48 s would pass the call's timeout of 10 s (--timeout)")
        );
    }

    #[test]
    fn never_after_text_was_streamed_nor_for_final_errors() {
        let mut calls = 0;
        let _ = with_retries::<()>(RetryPolicy::default(), TIMEOUT, &mut |_| {}, &mut |_| {
            calls += 1;
            (Err(err(Retry::Yes { after: None })), true)
        });
        assert_eq!(calls, 1, "text already shown must not be shown twice");
        let mut calls = 0;
        let result = with_retries::<()>(RetryPolicy::default(), TIMEOUT, &mut |_| {}, &mut |_| {
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
