//! Cached prompt tokens, from the wire to the bill: real replies that
//! report cache reads and writes (`tests/wire/recorded/`, each with its
//! source and licence in `tests/wire/SOURCES.md`) are read by the wire
//! layer, fed to a session priced from the shipped catalog, and must reach
//! the transcript's turns, events and usage table, and cost what the
//! provider's cache rates say — not the full input price.
//!
//! The expected costs are worked out by hand below from the recorded counts
//! and the catalog's rates (USD per million tokens = micro-dollars per token).

use std::path::Path;

use agon_core::{Catalog, DebateSpec, EventKind, Input, Output, Session, Usage, Usd};
use agon_wire::{Api, Reader};
use serde_json::{Value, json};

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wire/recorded").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The usage the wire layer reads from a recorded reply.
fn recorded_usage(name: &str, api: Api) -> Usage {
    let f = fixture(name);
    let mut reader = Reader::new(api, f["stream"].as_bool().unwrap(), "http://provider", 4 << 20, 512);
    reader.feed(f["response"]["body"].as_str().unwrap().as_bytes()).unwrap();
    reader.finish().unwrap().usage.expect("the recording reports usage")
}

/// A one-turn debate on `model`, priced as the shipped catalog prices it.
fn priced_spec(model: &str) -> DebateSpec {
    let catalog = Catalog::from_json(include_str!("../../catalog/models.json")).unwrap();
    let price = catalog.lookup(model).and_then(|(_, e)| e.spec_price()).expect("the catalog prices it");
    let spec = json!({
        "question": "What is Python?",
        "panel": [{"id": "a", "model": model}],
        "protocol": {"name": "round-robin"},
        "rounds": 1,
        "prices": {model: price},
    });
    DebateSpec::from_json(&spec.to_string()).unwrap()
}

/// Run the debate with the one reply billed as `usage`: its transcript and events.
fn run(model: &str, usage: Usage) -> (agon_core::Transcript, Vec<agon_core::Event>) {
    let mut session = Session::new(priced_spec(model)).unwrap();
    loop {
        match session.poll() {
            Output::Request(r) => session
                .handle(Input::Reply {
                    id: r.id,
                    text: "An answer.".into(),
                    usage: Some(usage),
                    stop: None,
                    model: None,
                })
                .unwrap(),
            Output::Done(_) => break,
            Output::Event(_) | Output::Idle => {}
        }
    }
    (session.transcript(), session.events().to_vec())
}

/// Checks one provider's recorded usage end to end; returns the seat's cost.
fn check(model: &str, usage: Usage, cached: u64, written: u64) -> Usd {
    let (t, events) = run(model, usage);
    assert_eq!(t.turns[0].usage, Some(usage), "{model}: the turn keeps the usage as billed");
    let completed = events.iter().find_map(|e| match &e.kind {
        EventKind::TurnCompleted { usage, .. } => Some(*usage),
        _ => None,
    });
    assert_eq!(completed, Some(Some(usage)), "{model}: the event carries it");
    let seat = &t.usage.seats[0];
    assert_eq!((seat.cached_tokens, seat.cache_write_tokens), (cached, written), "{model}");
    assert_eq!((t.usage.total.cached_tokens, t.usage.total.cache_write_tokens), (cached, written), "{model}");
    let markdown = agon_core::markdown(&t);
    assert!(
        markdown.contains("| cache reads | cache writes |"),
        "{model}: the usage table shows the cache\n{markdown}"
    );
    seat.cost_micro_usd.expect("priced")
}

#[test]
fn openai_cached_tokens_are_billed_at_the_cache_read_rate() {
    // prompt_tokens 4020, of them prompt_tokens_details.cached_tokens 4012; 4 completion tokens.
    let u = recorded_usage("openai/prompt-cache-read.json", Api::OpenAi);
    assert_eq!((u.prompt_tokens, u.cached_tokens, u.completion_tokens), (4020, Some(4012), 4));
    // gpt-5: $1.25 in, $0.125 cached, $10 out: 8·1.25 + 4012·0.125 + 4·10 = 10 + 501.5 + 40.
    assert_eq!(check("openai/gpt-5", u, 4012, 0), Usd(552), "not 4020·1.25 + 40 = 5065");
}

#[test]
fn anthropic_cache_reads_and_writes_are_billed_apart() {
    // input_tokens 3 + cache_read_input_tokens 1111 + cache_creation_input_tokens 418; 33 out.
    let u = recorded_usage("anthropic/sonnet45-cache-read-and-write.json", Api::Anthropic);
    assert_eq!((u.prompt_tokens, u.cached_tokens, u.cache_write_tokens), (1532, Some(1111), Some(418)));
    // claude-sonnet-4-5: $3 in, $0.30 read, $3.75 write, $15 out:
    // 3·3 + 1111·0.3 + 418·3.75 + 33·15 = 9 + 333.3 + 1567.5 + 495 = 2404.8.
    assert_eq!(check("anthropic/claude-sonnet-4-5", u, 1111, 418), Usd(2405));
}

#[test]
fn gemini_cached_content_is_billed_at_the_cache_read_rate() {
    // promptTokenCount 3520, of them cachedContentTokenCount 3512; 44 out (2 answer + 42 thinking).
    let u = recorded_usage("gemini/flash25-cached-content.json", Api::Gemini);
    assert_eq!((u.prompt_tokens, u.cached_tokens, u.completion_tokens), (3520, Some(3512), 44));
    // gemini-2.5-flash: $0.30 in, $0.03 cached, $2.50 out: 8·0.3 + 3512·0.03 + 44·2.5 = 2.4 + 105.36 + 110.
    assert_eq!(check("gemini/gemini-2.5-flash", u, 3512, 0), Usd(218));
}

#[test]
fn a_read_and_write_of_the_same_tokens_never_bills_more_than_the_prompt() {
    // OpenRouter reported cached_tokens 2161 AND cache_write_tokens 2161 of a 2,168-token prompt
    // (tests/wire/held-out/openai/openrouter-gemini-length-cached.json): the parts are clamped,
    // so no token is billed twice.
    let u = Usage { cached_tokens: Some(2161), cache_write_tokens: Some(2161), ..Usage::new(2168, 100) };
    let (t, _) = run("openai/gpt-4o", u);
    let seat = &t.usage.seats[0];
    assert_eq!((seat.prompt_tokens, seat.cached_tokens, seat.cache_write_tokens), (2168, 2161, 7));
    // gpt-4o: $2.50 in (and for a write: no write rate), $1.25 cached, $10 out:
    // 2161·1.25 + 7·2.5 + 100·10 = 2701.25 + 17.5 + 1000.
    assert_eq!(seat.cost_micro_usd, Some(Usd(3719)));
}
