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
    use crate::protocol::{adversarial, challenge, comparative, priority_vote};
    let _ = priority_vote::reply::priorities(&text, 4);
    let _ = challenge::reply::verdict(&text);
    let _ = challenge::reply::defender_response(&text, &["x".to_string(), "y".to_string()]);
    let _ = challenge::reply::rebuttal(&text);
    let ranking = crate::protocol::document::ranking::Ranking { marker: "FINAL RANKING".into() };
    let _ = ranking.read(&text, &labels);
    let _ = comparative::reply::scorecard(&text, &["A".to_string(), "B".to_string()]);
    let _ = adversarial::reply::review(&text);
    rendering(&text);
    for declared in [false, true] {
        let reading = crate::stance::read(&text, declared);
        if let Some(e) = reading.evidence
            && let (Some(start), Some(end)) = (e.start, e.end)
        {
            assert!(text.get(start as usize..end as usize).is_some(), "evidence off a character boundary");
        }
    }
}

/// Any text as every output writes it (issue 33): Markdown keeps nothing
/// hidden and loads no image, SVG text is XML character data.
fn rendering(text: &str) {
    let markdown = crate::render::inert::text(text);
    assert!(!markdown.chars().any(crate::hidden::is_hidden), "a hidden character in Markdown");
    let svg = crate::picture::svg::escape(text);
    let xml_char = |c: char| matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    assert!(svg.chars().all(xml_char), "not XML character data: {svg:?}");
    assert!(!svg.contains('<') && !svg.contains('>'), "markup in SVG text");
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
    let mut spec = crate::example_spec(&info.name, seats, rounds).expect("every protocol's example is valid");
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
            Input::Failed { id, kind: FailureKind::ProviderError, message: "x".into(), usage: None }
        } else {
            Input::Reply {
                id,
                text: REPLIES[arg as usize % REPLIES.len()].repeat(1 + (op as usize % 3) * 12),
                usage: None,
                // Now and then a reply cut at its limit (an empty one fails).
                stop: (op % 5 == 4).then_some(crate::StopReason::TokenLimit),
                model: None,
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

/// Bytes read as a series of small choices; once they run out, every choice is 0.
struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn pick(&mut self, n: usize) -> usize {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b as usize % n
            }
            None => 0,
        }
    }

    fn flag(&mut self) -> bool {
        self.pick(2) == 1
    }

    fn one<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.pick(items.len())].clone()
    }
}

/// Template pieces that every part may use; `{stance}`, `{adversary}` and
/// field slots are added where the document allows them.
const TEMPLATE_PIECES: [&str; 9] = [
    "{label}",
    "Round {round} of {rounds}. ",
    "{persona}",
    "{context}",
    "{role}",
    "{seats} seats. ",
    "Answer as JSON: {{\"claim\": \"...\", \"done\": true}}. ",
    "Answer. ",
    "\n",
];

/// Mistakes a document may hold, one at a time: each must be an error naming its path.
const BROKEN_PIECES: [&str; 5] = ["{histroy}", "{", "}", "{opening.nope}", "{history}{history}"];

/// Replies for document runs: JSON with the fields documents declare (and
/// without), stance lines, softeners, prose.
const DOCUMENT_REPLIES: [&str; 9] = [
    "{\"claim\": \"build it\", \"done\": true, \"score\": 3, \"tags\": [\"a\"]}\nVOTE: SAME — build it in two phases.",
    r#"{"claim": "build it", "done": true, "score": 3, "tags": ["a"]}"#,
    r#"{"claim": "do not", "done": false, "score": 1, "tags": []}"#,
    r#"{"claim": 7, "done": "yes"}"#,
    "Build it in two phases.\nVOTE: SAME — build it in two phases.",
    "I disagree: the costs are wrong.\nVOTE: DIFFERENT — do not build it.",
    "This is probably fine, just a minor nitpick.",
    "## Verdict\nBuild it.\n## Scores\nRed 3",
    "",
];

/// A protocol document from bytes, and a run of it fed replies from bytes:
/// loading never panics, and no run asks for more calls, prompt tokens or
/// completion tokens than the bound computed from the document before it.
/// The first byte chooses: the rest as the document's JSON text, or a
/// document generated from the rest (phases, speakers, visibility, outputs,
/// stops, adversary, synthesis) to run.
pub fn document(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    if first % 8 == 0 {
        // Any text as a document: an error naming its path, or a document.
        if let Ok(normalized) = crate::check_document(&String::from_utf8_lossy(rest)) {
            let doc: serde_json::Value = serde_json::from_str(&normalized).expect("a normalized document is JSON");
            let again = crate::check_document(&normalized).expect("a normalized document loads again");
            assert_eq!(serde_json::from_str::<serde_json::Value>(&again).unwrap(), doc, "normalizing is stable");
        }
        return;
    }
    let mut c = Choices(rest);
    let doc = generated(&mut c);
    // Within the document's seats, but now and then one too many.
    let min = doc["seats"]["min"].as_u64().unwrap_or(2) as usize;
    let max = doc["seats"]["max"].as_u64().map_or(min + 3, |m| m as usize);
    let seats = if c.pick(16) == 0 { max + 1 } else { min + c.pick(max.saturating_sub(min) + 1) };
    let named = c.pick(4) != 0;
    let panel: Vec<serde_json::Value> = (0..seats)
        .map(|i| match i {
            // The seat a `{"role": "CFO"}` part gives the floor to.
            0 if named => serde_json::json!({"id": "s0", "name": "CFO", "model": "openai/m0"}),
            _ => serde_json::json!({"id": format!("s{i}"), "model": format!("openai/m{i}")}),
        })
        .collect();
    let mut protocol = serde_json::json!({"name": "fuzzed", "document": doc});
    let judge = c.pick(4) != 0;
    if doc["stop"].get("consensus").is_some() {
        let modes: &[&str] =
            if judge { &["read", "declared", "judge", "answer"] } else { &["read", "declared", "answer"] };
        protocol["consensus"] = serde_json::json!(c.one(modes));
    }
    if doc.get("adversary").is_some() && c.flag() {
        protocol["adversary"] = serde_json::json!(1 + c.pick(seats));
    }
    let mut spec = serde_json::json!({
        "question": "Should the city build the tram?",
        "panel": panel,
        "protocol": protocol,
        "rounds": 1 + c.pick(doc["rounds"]["max"].as_u64().unwrap_or(1) as usize),
        "seed": first,
        "limits": {"max_tokens": 16 + 16 * c.pick(4) as u32, "judge_max_tokens": 64},
    });
    if judge {
        spec["judge"] = serde_json::json!({"id": "judge", "model": "openai/judge"});
    }
    if c.flag() {
        spec["context"] = serde_json::json!("The budget is fixed.");
    }
    if c.flag() {
        spec["limits"]["context_budget"] = serde_json::json!(crate::MIN_CONTEXT_BUDGET + 200 * c.pick(4) as u32);
    }
    let Ok(spec) = DebateSpec::from_json(&spec.to_string()) else { return };
    let bound = crate::worst_case(&spec);
    let mut session = Session::new(spec).expect("a validated spec starts a session");
    // An agreeable panel mostly answers alike, so consensus and `when` stops get met.
    let agreeable = c.pick(3) == 0;
    let (mut calls, mut prompt, mut completion) = (0u32, 0u64, 0u64);
    loop {
        let mut released = Vec::new();
        let done = loop {
            match session.poll() {
                Output::Request(r) => released.push(r),
                Output::Event(_) => {}
                Output::Idle => break false,
                Output::Done(_) => break true,
            }
        };
        if done {
            break;
        }
        assert!(!released.is_empty(), "the session waits with nothing asked");
        for r in released {
            calls += 1;
            prompt += r.messages.iter().map(|m| crate::estimate_tokens(&m.content) as u64).sum::<u64>();
            completion += r.max_tokens as u64;
            assert!(calls <= bound.calls, "{calls} calls, bound {}", bound.calls);
            let input = if c.pick(8) == 7 {
                Input::Failed { id: r.id, kind: FailureKind::ProviderError, message: "x".into(), usage: None }
            } else {
                let reply = if agreeable && c.pick(4) != 0 { DOCUMENT_REPLIES[0] } else { c.one(&DOCUMENT_REPLIES) };
                let mut text = reply.repeat(1 + c.pick(3));
                // A provider stops at max_tokens; the bound counts no more.
                let most = r.max_tokens as usize * 4;
                if text.len() > most {
                    let cut = (0..=most).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                    text.truncate(cut);
                }
                Input::Reply { id: r.id, text, usage: None, stop: None, model: None }
            };
            session.handle(input).expect("an answer to a released request is taken");
        }
    }
    assert!(prompt <= bound.prompt_tokens, "{prompt} prompt tokens, bound {}", bound.prompt_tokens);
    assert!(completion <= bound.completion_tokens, "{completion} completion tokens, bound {}", bound.completion_tokens);
    assert!(session.outcome().is_some(), "a finished run has an outcome");
    let _ = session.transcript().to_json();
    let _ = session.markdown();
}

/// A document from choices: valid but for at most one planted mistake
/// (which must be an error, never a panic).
fn generated(c: &mut Choices) -> serde_json::Value {
    use serde_json::json;
    const KINDS: [&str; 8] =
        ["blind", "opening", "deliberation", "critique", "rebuttal", "cross-exam", "vote", "response"];
    let mut kinds: Vec<&str> = Vec::new();
    for _ in 0..1 + c.pick(3) {
        let k = c.one(&KINDS);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    // One mistake in 16 documents, at a place the choices pick.
    let broken = (c.pick(16) == 0).then(|| c.pick(8));
    let adversary = match c.pick(4) {
        0 => None,
        1 => Some(json!("seeded")),
        2 => Some(json!({"seat": 1 + c.pick(2)})),
        _ => Some(json!({"rotate": {"start": 1 + c.pick(2), "step": 1 + c.pick(2)}})),
    };
    let json_out = c.flag();
    let stop = match c.pick(4) {
        1 => json!({"consensus": {"phase": c.one(&kinds), "rule": c.one(&["all", "all-but-one"]),
                                  "exclude_adversary": adversary.is_some() && c.flag()}}),
        2 if json_out => json!({"when": {"phase": kinds[0], "field": c.one(&["done", "claim"]),
                             "equals": c.one(&[json!(true), json!(false), json!("build it")]),
                             "among": c.one(&["all", "any"])}}),
        _ => json!("rounds"),
    };
    let consensus = stop.get("consensus").is_some();
    let mut phases: Vec<serde_json::Value> = Vec::new();
    for (i, kind) in kinds.iter().enumerate() {
        let speakers: Vec<serde_json::Value> = match c.pick(6) {
            0 => vec![json!("each")],
            1 if adversary.is_some() => vec![json!("others"), json!("adversary")],
            2 => vec![json!({"seat": 1}), json!({"seat": 2})],
            3 if adversary.is_some() => vec![json!("adversary")],
            4 => vec![json!({"seat": 1 + c.pick(2)})],
            5 => vec![json!({"role": "CFO"})],
            _ => vec![json!("each")],
        };
        let sees = match c.pick(4) {
            0 => json!({"turns": "none"}),
            1 => json!({"turns": "all", "title": "SO FAR", "labels": c.one(&["named", "anonymized"])}),
            2 => json!({"turns": "own", "title": "YOURS"}),
            _ => json!({"turns": {"phases": [kinds[0]]}, "title": "FIRST", "labels": "roles"}),
        };
        let mut turns = Vec::new();
        for (k, s) in speakers.into_iter().enumerate() {
            let mut user = String::from("{question}");
            for _ in 0..c.pick(4) {
                user.push_str(c.one(&TEMPLATE_PIECES));
            }
            if consensus && c.flag() {
                user.push_str("{stance}");
            }
            if adversary.is_some() && c.flag() {
                user.push_str("{adversary}");
            }
            if json_out && i > 0 && c.flag() {
                user.push_str(&format!("{{{}.{}}}", kinds[0], c.one(&["claim", "done", "score", "tags"])));
            }
            if sees["turns"] != "none" || c.flag() {
                user.push_str("{history}");
            }
            if broken == Some(i * 2 + k) {
                user.push_str(c.one(&BROKEN_PIECES));
            }
            let mut part = json!({
                "speakers": s,
                "role": format!("PART {k}"),
                "sees": sees,
                "prompt": {"system": format!("You are {{label}}.{}", if c.flag() { "{persona}" } else { "" }),
                           "user": user},
                "adversarial": c.one(&["no", "marked", "gated"]),
            });
            if c.flag() {
                part["prompt"]["first"] = json!("{question}Begin.");
            }
            if json_out && (i == 0 || c.flag()) {
                part["output"] = json!({"json": {"claim": "text", "done": "flag", "score": "number", "tags": "list"}});
            } else if c.flag() {
                part["output"] = json!({"expect": "prose"});
            }
            turns.push(part);
        }
        phases.push(json!({"phase": kind, "once": i > 0 && c.pick(4) == 0, "order": c.one(&["parallel", "sequential"]), "turns": turns}));
    }
    let all_once = phases.iter().all(|p| p["once"] == true);
    let max = if all_once { 1 } else { 1 + c.pick(4) };
    let min = 2 + c.pick(2);
    let mut doc = json!({
        "version": 1, "name": "fuzzed",
        "rounds": {"default": 1 + c.pick(max), "max": max},
        "seats": {"min": min},
        "quorum": c.one(&["spec", "any"]),
        "phases": phases, "stop": stop,
    });
    if c.flag() {
        doc["seats"]["max"] = json!(min + c.pick(3));
    }
    if let Some(pick) = adversary {
        doc["adversary"] = json!({"title": "adversary", "pick": pick});
    }
    if c.flag() {
        doc["aggregate"] = json!({"synthesis": {
            "sees": {"turns": "all", "title": "ALL"},
            "prompt": {"system": "Judge.", "user": "{question}{history}Verdict."},
            "sections": [{"heading": "Verdict", "result": "verdict"}]}});
    }
    doc
}
