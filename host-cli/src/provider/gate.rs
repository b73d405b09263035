//! Limits on calls shared by many debates (`agon batch`): how many requests
//! may be in flight at once, and how many per minute each provider may start.

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
pub struct CallGate {
    max_in_flight: Option<usize>,
    /// Provider name → the least time between two request starts.
    spacing: BTreeMap<String, Duration>,
    state: Mutex<GateState>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    in_flight: usize,
    /// Provider name → when its next request may start.
    next_start: BTreeMap<String, Instant>,
}

/// Held while a request is in flight; dropping it lets the next one go.
pub struct Permit<'g> {
    gate: &'g CallGate,
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.gate.state.lock().unwrap().in_flight -= 1;
        self.gate.freed.notify_all();
    }
}

impl CallGate {
    /// `rates`: provider name → requests per minute.
    pub fn new(max_in_flight: Option<usize>, rates: &BTreeMap<String, u32>) -> CallGate {
        let spacing = rates
            .iter()
            .filter(|(_, per_minute)| **per_minute > 0)
            .map(|(p, per_minute)| (p.clone(), Duration::from_secs(60) / *per_minute))
            .collect();
        CallGate { max_in_flight: max_in_flight.map(|m| m.max(1)), spacing, ..CallGate::default() }
    }

    /// Wait until a request to `provider` may start, then hold a place in flight.
    pub fn acquire(&self, provider: &str) -> Permit<'_> {
        let mut state = self.state.lock().unwrap();
        while self.max_in_flight.is_some_and(|max| state.in_flight >= max) {
            state = self.freed.wait(state).unwrap();
        }
        state.in_flight += 1;
        if let Some(spacing) = self.spacing.get(provider) {
            // Reserve the next slot for this provider, then wait for it without holding the lock.
            let now = Instant::now();
            let start = state.next_start.get(provider).copied().unwrap_or(now).max(now);
            state.next_start.insert(provider.to_string(), start + *spacing);
            drop(state);
            std::thread::sleep(start - now);
        }
        Permit { gate: self }
    }
}

/// How many calls each provider may have in flight at once, where agon.toml
/// sets it (`[providers.ollama] concurrency = 1`): one GPU serves one or a
/// few requests at a time, and calls waiting in its queue would time out.
#[derive(Debug, Default)]
pub struct ProviderSlots {
    limits: BTreeMap<String, usize>,
    busy: Mutex<BTreeMap<String, usize>>,
    freed: Condvar,
}

/// A call's place among its provider's; dropping it frees the place.
pub struct Slot<'s> {
    slots: &'s ProviderSlots,
    provider: String,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut busy = self.slots.busy.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = busy.get_mut(&self.provider) {
            *n -= 1;
        }
        self.slots.freed.notify_all();
    }
}

impl ProviderSlots {
    pub fn new(limits: BTreeMap<String, usize>) -> ProviderSlots {
        ProviderSlots { limits: limits.into_iter().map(|(p, n)| (p, n.max(1))).collect(), ..ProviderSlots::default() }
    }

    /// Wait for a place when `provider` has a limit; none is needed otherwise.
    pub fn acquire(&self, provider: &str) -> Option<Slot<'_>> {
        let limit = *self.limits.get(provider)?;
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        while busy.get(provider).copied().unwrap_or(0) >= limit {
            busy = self.freed.wait(busy).unwrap_or_else(|e| e.into_inner());
        }
        *busy.entry(provider.to_string()).or_insert(0) += 1;
        Some(Slot { slots: self, provider: provider.to_string() })
    }
}

/// `PROVIDER=N/min` (or `N/s`), for `--rate`.
pub fn parse_rate(text: &str) -> Result<(String, u32), String> {
    let bad = || format!("--rate {text}: write PROVIDER=N/min, e.g. groq=30/min");
    let (provider, rate) = text.split_once('=').ok_or_else(bad)?;
    let (n, unit) = rate.split_once('/').ok_or_else(bad)?;
    let n: u32 = n.trim().parse().map_err(|_| bad())?;
    let per_minute = match unit.trim() {
        "min" | "m" | "minute" => n,
        "s" | "sec" | "second" => n.saturating_mul(60),
        _ => return Err(bad()),
    };
    if provider.trim().is_empty() || per_minute == 0 {
        return Err(bad());
    }
    Ok((provider.trim().to_string(), per_minute))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn never_more_in_flight_than_allowed() {
        let gate = Arc::new(CallGate::new(Some(2), &BTreeMap::new()));
        let (now, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (gate, now, peak) = (gate.clone(), now.clone(), peak.clone());
                std::thread::spawn(move || {
                    let _permit = gate.acquire("openai");
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    now.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(peak.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_provider_with_a_limit_never_has_more_in_flight() {
        let slots = Arc::new(ProviderSlots::new(BTreeMap::from([("ollama".to_string(), 1)])));
        assert!(slots.acquire("openai").is_none(), "no limit, no wait");
        let (now, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (slots, now, peak) = (slots.clone(), now.clone(), peak.clone());
                std::thread::spawn(move || {
                    let _slot = slots.acquire("ollama");
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(10));
                    now.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(peak.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("groq=30/min").unwrap(), ("groq".to_string(), 30));
        assert_eq!(parse_rate("openai = 2/s").unwrap(), ("openai".to_string(), 120));
        assert!(parse_rate("groq=30").unwrap_err().contains("PROVIDER=N/min"));
        assert!(parse_rate("groq=0/min").is_err());
        let gate = CallGate::new(None, &BTreeMap::from([("groq".to_string(), 600)]));
        assert_eq!(gate.spacing["groq"], Duration::from_millis(100));
    }
}
