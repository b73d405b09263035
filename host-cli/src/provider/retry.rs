//! Trying a failed call again: on 408, 429, 5xx and dropped connections, as
//! the provider asks (agon-wire's [`RetryRule`], the rule every host
//! follows, applied by its exchange): its wait taken whole up to
//! `--max-retry-wait`, never one longer than the call's timeout, never when
//! it says not to; never once any text was streamed (the reader would see it
//! twice). Here: the rule as this run's settings make it.

use agon_wire::RetryRule;

/// Where the person raises the longest wait.
pub const RAISE_WAIT: &str = "; raise it with --max-retry-wait or max_retry_wait in agon.toml";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetryPolicy {
    pub rule: RetryRule,
}
