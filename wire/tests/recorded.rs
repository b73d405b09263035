//! Real provider replies, recorded from the live APIs and published in
//! public test suites (`tests/wire/recorded/`, each file with its source and
//! licence), read through the one wire layer every host uses. What each
//! should come to (`expect`) was read off the recording by hand, never
//! computed by this crate.
//!
//! `tests/wire/held-out/` is a batch kept apart and never tuned on: its
//! score is printed, and may not fall below its first reading.

use std::path::{Path, PathBuf};

use agon_core::{FailureKind, StopReason};
use agon_wire::{Api, Reader, Retry, WireError, parse_show, status_failure};
use serde_json::Value;

/// How many held-out fixtures read right the first time they were run, before anything was changed for them.
const HELD_OUT_FIRST_READ: usize = 11;

fn fixtures(folder: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wire").join(folder);
    let mut files = Vec::new();
    for wire in std::fs::read_dir(&root).unwrap() {
        for f in std::fs::read_dir(wire.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no fixtures under {}", root.display());
    files
}

fn api(wire: &str) -> Api {
    match wire {
        "openai" => Api::OpenAi,
        "anthropic" => Api::Anthropic,
        "gemini" => Api::Gemini,
        "ollama" => Api::Ollama,
        other => panic!("unknown wire {other}"),
    }
}

/// Read one fixture's reply, its body cut into chunks of `size` bytes.
fn read(f: &Value, size: usize) -> Result<agon_wire::Completion, WireError> {
    let response = &f["response"];
    let body = response["body"].as_str().unwrap();
    let status = response["status"].as_u64().unwrap() as u16;
    if !(200..300).contains(&status) {
        let headers: Vec<(&str, &str)> = response["headers"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
            .collect();
        return Err(status_failure(status, body, &headers, "http://provider", ""));
    }
    let stream = f["stream"].as_bool().unwrap();
    let mut reader = Reader::new(api(f["wire"].as_str().unwrap()), stream, "http://provider", 4 << 20, 512);
    let mut shown = String::new();
    for chunk in body.as_bytes().chunks(size.max(1)) {
        for piece in reader.feed(chunk)? {
            shown.push_str(&piece);
        }
    }
    let done = reader.finish()?;
    if stream {
        assert_eq!(shown, done.text, "the pieces shown are the text kept");
    }
    Ok(done)
}

/// Whether a result is what the fixture says, and if not, why.
fn check(f: &Value) -> Result<(), String> {
    let expect = &f["expect"];
    if f["endpoint"] == "show" {
        let got = parse_show(f["response"]["body"].as_str().unwrap());
        let want = expect["context_length"].as_u64().map(|n| n as u32);
        return if got.context == want { Ok(()) } else { Err(format!("context {:?}, expected {want:?}", got.context)) };
    }
    let mut results = [1usize, 7, 1 << 20].iter().map(|&size| read(f, size));
    let first = results.next().unwrap();
    for other in results {
        if other != first {
            return Err("the result depends on how the body was cut into chunks".into());
        }
    }
    let empty_cut = expect["stop"] == "token-limit" && expect["text"].as_str().is_some_and(|t| t.trim().is_empty());
    match (first, expect["failure"].is_object(), empty_cut) {
        (Err(e), true, _) => {
            let want = expect["failure"]["kind"].as_str().unwrap();
            let kind_ok = match want {
                "overloaded" => e.kind == FailureKind::ProviderError && matches!(e.retry, Retry::Yes { .. }),
                "rate-limited" => e.kind == FailureKind::RateLimited && matches!(e.retry, Retry::Yes { .. }),
                "refused" => e.kind == FailureKind::Refused,
                "provider-error" => e.kind == FailureKind::ProviderError,
                other => return Err(format!("unknown expected kind {other}")),
            };
            let after = expect["failure"]["retry_after_s"].as_f64().map(|s| (s * 1000.0) as u64);
            let after_ok = after.is_none() || e.retry == Retry::Yes { after_ms: after };
            if kind_ok && after_ok {
                Ok(())
            } else {
                Err(format!("failed as {:?} {:?}: {}", e.kind, e.retry, e.message))
            }
        }
        (Err(e), false, true) if e.kind == FailureKind::TokenLimit => {
            usage_matches(e.usage, expect, f["wire"].as_str().unwrap())
        }
        (Err(e), _, _) => Err(format!("failed ({:?}): {}", e.kind, e.message)),
        (Ok(done), false, false) => {
            if expect["text"].as_str() != Some(done.text.as_str()) {
                return Err(format!("text {:?}", done.text));
            }
            let stop = match expect["stop"].as_str() {
                Some("complete") => Some(StopReason::Complete),
                Some("token-limit") => Some(StopReason::TokenLimit),
                _ => None,
            };
            if stop.is_some() && done.stop != stop {
                return Err(format!("stop {:?}, expected {stop:?}", done.stop));
            }
            usage_matches(done.usage, expect, f["wire"].as_str().unwrap())
        }
        (Ok(done), _, _) => Err(format!("answered {:?} (stop {:?}) where it should have failed", done.text, done.stop)),
    }
}

fn usage_matches(got: Option<agon_core::Usage>, expect: &Value, wire: &str) -> Result<(), String> {
    let want = &expect["usage"];
    if !want.is_object() {
        return Ok(());
    }
    let Some(u) = got else { return Err("no usage read".into()) };
    // The fixtures record Anthropic's `input_tokens`, which leaves out the
    // cache; agon's prompt tokens are every input token, as OpenAI and Gemini count them.
    let prompt = match wire {
        "anthropic" => u.prompt_tokens - u.cached_tokens.unwrap_or(0) - u.cache_write_tokens.unwrap_or(0),
        _ => u.prompt_tokens,
    };
    let fields = [
        ("prompt_tokens", Some(prompt)),
        ("completion_tokens", Some(u.completion_tokens)),
        ("reasoning_tokens", u.reasoning_tokens),
        ("cached_tokens", u.cached_tokens),
        ("cache_write_tokens", u.cache_write_tokens),
    ];
    for (name, value) in fields {
        if let Some(w) = want[name].as_u64()
            && value != Some(w as u32)
        {
            return Err(format!("{name} {value:?}, expected {w}"));
        }
    }
    Ok(())
}

fn run(folder: &str) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in fixtures(folder) {
        let f: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let name = path.strip_prefix(path.parent().unwrap().parent().unwrap()).unwrap().display().to_string();
        match check(&f) {
            Ok(()) => passed += 1,
            Err(why) => failures.push(format!("{name}: {why}")),
        }
    }
    (passed, failures)
}

#[test]
fn every_recorded_reply_reads_as_recorded() {
    let (passed, failures) = run("recorded");
    assert!(failures.is_empty(), "{passed} read right; these did not:\n{}", failures.join("\n"));
}

#[test]
fn the_held_out_replies_read_no_worse_than_at_first() {
    let (passed, failures) = run("held-out");
    let total = passed + failures.len();
    println!("held-out: {passed} of {total} read right");
    for f in &failures {
        println!("  {f}");
    }
    assert!(passed >= HELD_OUT_FIRST_READ, "{passed} of {total}, below the first reading of {HELD_OUT_FIRST_READ}");
}

/// The recorded error bodies keep the provider's own type and code beside
/// the message, whole (read off each recording by hand); OpenRouter's
/// numeric `code` is no machine word and is not kept as one.
#[test]
fn recorded_errors_keep_the_providers_codes() {
    let cases = [
        ("anthropic/529-overloaded.json", Some("overloaded_error")),
        ("anthropic/opus46-400-effort-xhigh.json", Some("invalid_request_error")),
        ("gemini/403-permission-denied.json", Some("PERMISSION_DENIED")),
        ("openai/o1-mini-400-system-role.json", Some("invalid_request_error, unsupported_value")),
        ("openai/openrouter-429-upstream.json", None),
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wire/recorded");
    for (file, code) in cases {
        let f: Value = serde_json::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap();
        let e = read(&f, 1 << 20).unwrap_err();
        assert_eq!(e.code.as_deref(), code, "{file}: {}", e.message);
        if let Some(code) = code {
            assert!(e.message.ends_with(&format!("({code})")), "{file}: {}", e.message);
        }
    }
}
