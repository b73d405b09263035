//! Prompt caching: how much of each protocol's prompts a provider's prefix
//! cache could serve, measured with testkit's emulator (the longest prefix a
//! prompt shares with an earlier prompt to the same model, at least 1,024
//! tokens, in 128-token steps, tokens as characters / 4), beside the best
//! that protocol's shape allows, and what that does to the bill at list
//! prices. Every call is answered with ~1,500 characters (a structured reply
//! where the protocol parses one), and the emulator's counts are fed back as
//! the reply's usage, so the costs are the engine's own. Beside it, the
//! same requests as agon-wire words them for Anthropic, billed by testkit's
//! emulation of Anthropic's cache (reads only where a breakpoint's prefix
//! was written before, at a block boundary within 20 blocks).

use agon_core::{DebateSpec, Input, ModelRequest, Output, Phase, Session, Usage, Usd};
use agon_testkit::anthropic_cache::{AnthropicCache, Billed};
use agon_testkit::prefix_cache::{PrefixCache, Served, prompt_text};

/// The model every seat runs on in the shared-model case, and its list price
/// (the shipped catalog's: $2.50 in, $1.25 a cached read, $10 out per million).
const MODEL: &str = "openai/gpt-4o";

/// One protocol's debate on `seats` seats for `rounds` rounds, every seat
/// and the judge on `model(seat index)` (the judge is index `usize::MAX`).
fn protocol_spec(name: &str, seats: usize, rounds: u32, model: impl Fn(usize) -> String) -> DebateSpec {
    let info = agon_core::protocols().into_iter().find(|p| p.name == name).expect("a built-in protocol");
    let seats = seats.clamp(info.min_seats as usize, info.max_seats.map_or(usize::MAX, |m| m as usize));
    let mut spec = agon_core::example_spec(name, seats, rounds).expect("every example builds");
    for (i, seat) in spec.panel.iter_mut().enumerate() {
        seat.model = model(i);
    }
    if let Some(judge) = spec.judge.as_mut() {
        judge.model = model(usize::MAX);
    }
    let price = agon_core::Price { cache_read: Some(1.25), ..agon_core::Price::new(2.5, 10.0) };
    spec.prices = spec.panel.iter().chain(&spec.judge).map(|p| (p.model.clone(), price)).collect();
    // One model on every seat is the case measured, not a mistake to refuse.
    let mut v: serde_json::Value = serde_json::from_str(&spec.to_json()).unwrap();
    v["limits"]["diversity"] = "off".into();
    DebateSpec::from_json(&v.to_string()).expect("still valid")
}

/// What one run came to.
struct Measured {
    calls: usize,
    served: Served,
    /// What a cache that forgot nothing and had no minimum could serve: every
    /// line of a prompt already sent to that model (the protocol's shape,
    /// whatever the layout).
    best: u64,
    /// The same requests sent to Anthropic, with agon's `cache_control` marks.
    anthropic: Billed,
    cost_cached: Usd,
    cost_uncached: Usd,
}

fn measure(spec: DebateSpec) -> Measured {
    let run = |cache_counts: bool| {
        let mut session = Session::new(spec.clone()).unwrap();
        let mut cache = PrefixCache::new();
        let mut anthropic = AnthropicCache::new();
        let mut lines_seen: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
        let (mut calls, mut best) = (0, 0u64);
        loop {
            let mut batch = Vec::new();
            loop {
                match session.poll() {
                    Output::Request(r) => batch.push(r),
                    Output::Event(_) => {}
                    Output::Idle => break,
                    Output::Done(_) => {
                        let t = session.transcript();
                        let cost = t.usage.total.cost_micro_usd.unwrap_or_default();
                        return (calls, cache.total(), best, anthropic.total(), cost);
                    }
                }
            }
            for r in &batch {
                let text = prompt(r);
                let seen = lines_seen.entry(r.model.clone()).or_default();
                best += text
                    .split_inclusive('\n')
                    .filter(|l| seen.contains(*l))
                    .map(|l| l.chars().count() as u64)
                    .sum::<u64>()
                    / 4;
                seen.extend(text.split_inclusive('\n').map(str::to_string));
                let served = cache.serve(&r.model, &text);
                let call = agon_wire::Call {
                    api: agon_wire::Api::Anthropic,
                    reference: &r.model,
                    model: &r.model,
                    stream: false,
                    server: None,
                };
                let body: serde_json::Value = serde_json::from_str(&agon_wire::request(&call, r).body).unwrap();
                anthropic.serve(&body);
                let answer = reply(r);
                let usage = Usage {
                    cached_tokens: Some(if cache_counts { served.cached_tokens as u32 } else { 0 }),
                    ..Usage::new(served.prompt_tokens as u32, agon_core::estimate_tokens(&answer))
                };
                calls += 1;
                session
                    .handle(Input::Reply { id: r.id, text: answer, usage: Some(usage), stop: None, model: None })
                    .unwrap();
            }
        }
    };
    let (calls, served, best, anthropic, cost_cached) = run(true);
    let (_, _, _, _, cost_uncached) = run(false);
    Measured { calls, served, best, anthropic, cost_cached, cost_uncached }
}

fn prompt(r: &ModelRequest) -> String {
    let roles: Vec<String> = r.messages.iter().map(|m| format!("{:?}", m.role).to_lowercase()).collect();
    prompt_text(roles.iter().zip(&r.messages).map(|(role, m)| (role.as_str(), m.content.as_str())))
}

/// About 1,500 characters of argument, different for every call.
fn prose(r: &ModelRequest) -> String {
    let mut text = format!("{} in {} {}: I disagree with the others on the depot. ", r.seat, r.phase.as_str(), r.round);
    let mut k = 0;
    while text.len() < 1_500 {
        text.push_str(&format!("Point {k}: the grid upgrade for {} costs more than the line saves. ", r.seat));
        k += 1;
    }
    text
}

/// A reply each protocol can read: the structure it asks for, else prose.
/// Objections stand and nobody agrees, so every debate runs its whole shape.
fn reply(r: &ModelRequest) -> String {
    let long = prose(r);
    let json_text = serde_json::to_string(&long).unwrap();
    let expect = r.expect.as_deref().unwrap_or_default();
    let numbered = |word: &str, n: usize| -> Vec<String> {
        (1..=n).map(|i| format!("{i}. {word} {i}: {}", &long[..long.len().min(280)])).collect()
    };
    if expect.contains("\"verdict\"") {
        format!(
            "{{\"verdict\": \"disagree\", \"critique\": {json_text}, \"evidence\": \"the 2019 depot overrun\", \
\"alternative\": \"buses first\", \"confidence\": \"high\", \"objection_strength\": \"strong\", \"assumptions_challenged\": [\"ridership\"]}}"
        )
    } else if expect.contains("\"responses\"") {
        let responses: Vec<String> = (1..=8)
            .map(|i| format!("{{\"challenger\": \"Challenger {i}\", \"decision\": \"reject\", \"reason\": \"the data says otherwise\"}}"))
            .collect();
        format!("{{\"responses\": [{}], \"updated_position\": {json_text}}}", responses.join(", "))
    } else if expect.starts_with("text: starts with ACCEPT") {
        format!("MAINTAIN {long}")
    } else if expect.contains("5 numbered concerns") {
        numbered("Concern", 5).join("\n")
    } else if expect.contains("priority") {
        let items = r.messages.last().map_or(0, |m| {
            m.content.lines().skip_while(|l| *l != "ITEMS:").skip(1).take_while(|l| !l.is_empty()).count()
        });
        let votes: Vec<String> = (1..=items)
            .map(|i| format!("{{\"item\": {i}, \"priority\": \"P{}\", \"why\": \"it blocks the release\"}}", i % 4))
            .collect();
        format!("[{}]", votes.join(", "))
    } else if expect.contains("FINAL RANKING") {
        let user = r.messages.last().map(|m| m.content.as_str()).unwrap_or_default();
        let mut labels: Vec<&str> =
            user.lines().filter_map(|l| l.strip_prefix("[Response ").and_then(|l| l.strip_suffix(']'))).collect();
        labels.dedup();
        let list: Vec<String> = labels.iter().enumerate().map(|(i, l)| format!("{}. Response {l}", i + 1)).collect();
        format!("{long}\nFINAL RANKING:\n{}", list.join("\n"))
    } else if r.phase == Phase::Synthesis && expect.contains("criteria") {
        format!(
            "{long}\n```json\n{{\"criteria\": [{{\"name\": \"cost\", \"weight\": 60, \"scores\": {{\"A\": 4, \"B\": 2, \"C\": 3}}}}], \
\"recommendation\": \"A\"}}\n```"
        )
    } else if r.phase == Phase::Synthesis && expect.contains("concerns") {
        format!(
            "{long}\n```json\n{{\"concerns\": [{{\"concern\": 1, \"score\": 4}}], \"pulled_punches\": false, \"key_narratives\": [], \
\"agreement_zones\": [], \"contested_zones\": [], \"recommendation\": \"fix it\", \"verdict\": \"reject\"}}\n```"
        )
    } else {
        long
    }
}

/// The "Prompt caching" section: every protocol, 5 seats (within each
/// protocol's limits) and 8 rounds (within its maximum).
pub fn prompt_caching() -> String {
    let (seats, rounds) = (5, 8);
    let mut out = format!(
        "## Prompt caching\n\nEvery protocol, {seats} seats (fewer or more where the protocol needs) and {rounds} rounds \
(or the protocol's most), every call answered with about 1,500 characters (a structured reply where the protocol \
reads one; objections stand, nobody agrees, so each runs its whole shape), against testkit's prefix-cache emulator: \
a prompt is served from the cache up to the longest prefix it shares with an earlier prompt to the same model, \
at least 1,024 tokens, in steps of 128 (tokens as characters / 4). *Best* is what that protocol's shape allows: \
every line of a prompt already sent to that model, with no minimum and no steps. Cost at `{MODEL}`'s list price \
($2.50 per million prompt tokens, $1.25 cached, $10 output), every seat and the judge on it, from the engine's \
own usage report with the emulator's counts fed back as each reply's usage. *Anthropic-style* is the share \
of the same requests, as agon-wire words them for Anthropic (a text block per turn, `cache_control` on at most \
four), that testkit's emulation of Anthropic's cache reads: only a prefix an earlier request wrote at a \
breakpoint, read at a block boundary at most 20 blocks before one, 1,024 tokens at least. Produced by \
`cargo run -p agon-bench -- --caching-only`.\n\n\
| protocol | calls | prompt tokens | served, one model | best, one model | Anthropic-style, one model | served, a model per seat | best, a model per seat | Anthropic-style, a model per seat | cost without caching | cost with caching |\n\
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let pct = |n: u64, d: u64| if d == 0 { "—".to_string() } else { format!("{:.0} %", 100.0 * n as f64 / d as f64) };
    for info in agon_core::protocols() {
        let shared = measure(protocol_spec(&info.name, seats, rounds, |_| MODEL.to_string()));
        let own = measure(protocol_spec(&info.name, seats, rounds, |i| {
            if i == usize::MAX { "openai/judge".into() } else { format!("openai/seat-{i}") }
        }));
        let tokens = shared.served.prompt_tokens;
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            info.name,
            shared.calls,
            tokens,
            pct(shared.served.cached_tokens, tokens),
            pct(shared.best, tokens),
            pct(shared.anthropic.cache_read, shared.anthropic.prompt_tokens),
            pct(own.served.cached_tokens, own.served.prompt_tokens),
            pct(own.best, own.served.prompt_tokens),
            pct(own.anthropic.cache_read, own.anthropic.prompt_tokens),
            shared.cost_uncached.display(),
            shared.cost_cached.display(),
        ));
    }
    out
}
