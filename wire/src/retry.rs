//! Trying a failed call again, as the provider asks: the one rule every host
//! follows. No clock here either: the host says how long it may still wait
//! and supplies the jitter; this says whether to wait, and how long.
//!
//! The provider's word wins — `retry-after-ms`, `retry-after`, a `RetryInfo`
//! delay ([`crate::status_failure`] reads them) — up to a ceiling the person
//! can raise ([`DEFAULT_MAX_WAIT_MS`]), never past a limit the host names
//! (the call's timeout, a run's deadline). When it would have to, it does not
//! wait and says why. Without a word from the provider the waits double from
//! the base, with jitter, as the providers' own SDKs do.

use crate::failure::Retry;

/// How long agon waits at most before another attempt, unless raised: a
/// minute, what the providers' per-minute quotas ask at worst and what
/// OpenAI's and Anthropic's SDKs honour.
pub const DEFAULT_MAX_WAIT_MS: u64 = 60_000;

/// How a host tries a failed call again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryRule {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The wait before the second attempt when the provider named none; doubled for each one after.
    pub base_ms: u64,
    /// The longest wait taken, asked for or not.
    pub max_wait_ms: u64,
}

impl Default for RetryRule {
    fn default() -> Self {
        RetryRule { attempts: 3, base_ms: 500, max_wait_ms: DEFAULT_MAX_WAIT_MS }
    }
}

/// A bound on waiting that the host knows of: its length and, for the
/// message, what it is (`the call's timeout of 120 s (--timeout)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit<'a> {
    pub ms: u64,
    pub what: &'a str,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Wait this many milliseconds, then try again.
    Wait(u64),
    /// Do not try again; `Some` says why when the failure itself does not
    /// (a wait that would be too long), to add to its message.
    Stop(Option<String>),
}

impl RetryRule {
    /// After attempt `made` (1 for the first) failed with `retry`: wait and
    /// try again, or stop. `jitter_permille` (0..1000, the host's chance)
    /// spreads the backoff over ½× to 1½×; it never alters a wait the
    /// provider asked for. `limits` are the host's bounds on any one wait;
    /// `raise` says where the person raises the ceiling (` (--max-retry-wait)`).
    pub fn next(&self, made: u32, retry: Retry, jitter_permille: u64, limits: &[Limit<'_>], raise: &str) -> Next {
        let Retry::Yes { after_ms } = retry else { return Next::Stop(None) };
        if made >= self.attempts {
            return Next::Stop(None);
        }
        let wait = match after_ms {
            Some(asked) => {
                if asked > self.max_wait_ms {
                    return Next::Stop(Some(format!(
                        "not tried again: the provider asks to wait {}, longer than agon waits ({}{raise})",
                        seconds(asked),
                        seconds(self.max_wait_ms)
                    )));
                }
                asked
            }
            None => {
                let doubling = 1u64 << made.saturating_sub(1).min(16);
                let spread = 500 + jitter_permille.min(999);
                (self.base_ms.saturating_mul(doubling).saturating_mul(spread) / 1000).min(self.max_wait_ms)
            }
        };
        if let Some(limit) = limits.iter().find(|l| wait > l.ms) {
            return Next::Stop(Some(format!("not tried again: waiting {} would pass {}", seconds(wait), limit.what)));
        }
        Next::Wait(wait)
    }
}

/// Milliseconds as a person reads a wait: `48 s`, `1.5 s`.
fn seconds(ms: u64) -> String {
    match ms % 1000 {
        0 => format!("{} s", ms / 1000),
        rest => format!("{}.{} s", ms / 1000, format!("{rest:03}").trim_end_matches('0')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const YES: Retry = Retry::Yes { after_ms: None };

    fn asked(ms: u64) -> Retry {
        Retry::Yes { after_ms: Some(ms) }
    }

    #[test]
    fn the_providers_wait_is_taken_whole_up_to_the_ceiling() {
        let rule = RetryRule::default();
        assert_eq!(rule.next(1, asked(48_000), 0, &[], ""), Next::Wait(48_000), "Gemini's 48 s, not 30");
        assert_eq!(rule.next(1, asked(48_000), 999, &[], ""), Next::Wait(48_000), "no jitter on an asked wait");
        assert_eq!(rule.next(1, asked(60_000), 0, &[], ""), Next::Wait(60_000));
        let Next::Stop(Some(why)) = rule.next(1, asked(90_000), 0, &[], " (--max-retry-wait)") else { panic!() };
        assert_eq!(
            why,
            "not tried again: the provider asks to wait 90 s, longer than agon waits (60 s (--max-retry-wait))"
        );
        let raised = RetryRule { max_wait_ms: 120_000, ..rule };
        assert_eq!(raised.next(1, asked(90_000), 0, &[], ""), Next::Wait(90_000), "a raised ceiling");
    }

    #[test]
    fn no_wait_passes_a_limit_the_host_names() {
        let rule = RetryRule { max_wait_ms: 600_000, ..RetryRule::default() };
        let timeout = Limit { ms: 30_000, what: "the call's timeout of 30 s" };
        let Next::Stop(Some(why)) = rule.next(1, asked(48_000), 0, &[timeout], "") else { panic!() };
        assert_eq!(why, "not tried again: waiting 48 s would pass the call's timeout of 30 s");
        assert_eq!(rule.next(1, asked(1_500), 0, &[timeout], ""), Next::Wait(1_500));
    }

    #[test]
    fn backoff_doubles_with_jitter_within_the_ceiling_and_the_attempts() {
        let rule = RetryRule { attempts: 30, base_ms: 500, max_wait_ms: 30_000 };
        // Jitter 500 ‰ is the middle: the base itself.
        assert_eq!([1, 2, 3].map(|n| rule.next(n, YES, 500, &[], "")), [500, 1_000, 2_000].map(Next::Wait));
        assert_eq!(rule.next(1, YES, 0, &[], ""), Next::Wait(250));
        assert_eq!(rule.next(1, YES, 999, &[], ""), Next::Wait(749));
        assert_eq!(rule.next(20, YES, 500, &[], ""), Next::Wait(30_000), "never above the ceiling");
        let three = RetryRule::default();
        assert_eq!(three.next(3, YES, 500, &[], ""), Next::Stop(None), "three attempts in all");
        assert_eq!(three.next(1, Retry::No, 500, &[], ""), Next::Stop(None));
    }

    #[test]
    fn waits_read_as_seconds() {
        assert_eq!([48_000, 1_500, 250, 60_001].map(seconds), ["48 s", "1.5 s", "0.25 s", "60.001 s"]);
    }
}
