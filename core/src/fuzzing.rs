//! Harnesses shared by the cargo-fuzz targets (`fuzz/`) and the regression
//! test that replays every saved crash (`core/tests/fuzz_regressions.rs`).
//! Each takes arbitrary bytes and must never panic.

use crate::{DebateSpec, FailureKind, Input, Output, Session, parse};

/// Any bytes as a spec: rejected with an error, or a session that starts.
pub fn spec(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(spec) = DebateSpec::from_json(text) {
        let mut session = Session::new(spec).expect("a validated spec starts a session");
        while !matches!(session.poll(), Output::Idle | Output::Done(_)) {}
    }
    let _ = crate::parse_role(text);
    let _ = Session::from_journal(text);
}

/// Any text through every structured-reply parser.
pub fn replies(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let labels: Vec<String> = ["Response A", "Response B", "Response C"].iter().map(|s| s.to_string()).collect();
    let _ = parse::extract_json(&text);
    use crate::protocol::{adversarial, challenge, comparative, priority_vote, ranked};
    let _ = priority_vote::reply::priorities(&text, 4);
    let _ = challenge::reply::verdict(&text);
    let _ = challenge::reply::defender_response(&text, &["x".to_string(), "y".to_string()]);
    let _ = challenge::reply::rebuttal(&text);
    let _ = ranked::reply::final_ranking(&text, &labels);
    let _ = comparative::reply::scorecard(&text, &["A".to_string(), "B".to_string()]);
    let _ = adversarial::reply::review(&text);
    for declared in [false, true] {
        let reading = crate::stance::read(&text, declared);
        if let Some(e) = reading.evidence
            && let (Some(start), Some(end)) = (e.start, e.end)
        {
            assert!(text.get(start as usize..end as usize).is_some(), "evidence off a character boundary");
        }
    }
}

/// Replies that steer protocols down their structured paths.
const REPLIES: [&str; 10] = [
    "I agree with Speaker 1.\nVOTE: SAME — yes.",
    "I disagree: it fails under load.",
    r#"{"verdict": "disagree", "critique": "c", "evidence": "e", "alternative": "a", "confidence": "high", "objection_strength": "strong", "assumptions_challenged": ["x"]}"#,
    r#"{"verdict": "agree", "critique": "", "evidence": "solid", "alternative": "", "confidence": "high", "objection_strength": "minor", "assumptions_challenged": []}"#,
    r#"{"responses": [{"challenger": "b", "decision": "reject", "reason": "no"}], "updated_position": "v2"}"#,
    "MAINTAIN: still wrong.",
    r#"[{"item": 1, "priority": "P0", "why": "w"}, {"item": 2, "priority": "P3", "why": "w"}]"#,
    "FINAL RANKING:\n1. Response B\n2. Response A",
    "```json\n{\"criteria\": [{\"name\": \"c\", \"weight\": 10, \"scores\": {\"A\": 1, \"B\": 5}}], \"recommendation\": \"B\", \"concerns\": [{\"concern\": 1, \"score\": 5}]}\n```",
    "VOTE: SAME — ship it. Building on that, fine.",
];

/// A session of a protocol the first byte picks, fed by the rest: replies,
/// failures, unknown and repeated ids. Invariants are checked as it goes.
pub fn session(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    // Every registered protocol, each with its own valid options and seat count.
    let protocols = crate::protocols();
    let info = &protocols[first as usize % protocols.len()];
    let seats = (info.min_seats.max(3) as usize).min(info.max_seats.map_or(usize::MAX, |m| m as usize));
    let rounds = (1 + (first as u32 / 12) % 3).min(info.max_rounds);
    let mut spec = crate::example_spec(info.name, seats, rounds).expect("every protocol's example is valid");
    spec.seed = first as u64;
    if first & 0x80 != 0 {
        spec.limits.context_budget = Some(1000);
    }
    let spec = DebateSpec::from_json(&spec.to_json()).expect("the fuzz spec is valid");
    let budget = spec.limits.context_budget;
    let mut session = Session::new(spec).expect("starts");
    let mut outstanding: Vec<u64> = Vec::new();
    for chunk in rest.chunks(2) {
        loop {
            match session.poll() {
                Output::Request(r) => {
                    if let Some(b) = budget {
                        let used: u32 = r.messages.iter().map(|m| crate::estimate_tokens(&m.content)).sum();
                        assert!(used <= b, "request {} uses {used} of a {b}-token budget", r.id);
                    }
                    outstanding.push(r.id);
                }
                Output::Event(_) => {}
                Output::Idle | Output::Done(_) => break,
            }
        }
        let (op, arg) = (chunk[0], *chunk.get(1).unwrap_or(&0));
        let id = match (op % 4, outstanding.is_empty()) {
            (0, _) | (_, true) => arg as u64, // maybe unknown, maybe already answered
            _ => outstanding.remove(arg as usize % outstanding.len()),
        };
        let input = if op % 7 == 6 {
            Input::Failed { id, kind: FailureKind::ProviderError, message: "x".into() }
        } else {
            Input::Reply {
                id,
                text: REPLIES[arg as usize % REPLIES.len()].repeat(1 + (op as usize % 3) * 12),
                usage: None,
            }
        };
        let before = session.journal();
        if session.handle(input).is_err() {
            assert_eq!(before, session.journal(), "a rejected input changed the journal");
        }
    }
    let _ = session.transcript().to_json();
    let _ = session.markdown();
}
