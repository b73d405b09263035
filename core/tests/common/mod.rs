//! Helpers shared by the core's integration tests.
#![allow(dead_code)]

use agon_core::{DebateSpec, Event, EventKind, Input, ModelRequest, Output, Session};

pub fn spec(protocol: serde_json::Value, seats: &[&str], rounds: u32, judge: bool) -> DebateSpec {
    let panel: Vec<_> = seats
        .iter()
        .map(|id| serde_json::json!({"id": id, "name": format!("Name-{id}"), "model": format!("openai/{id}-model")}))
        .collect();
    let mut v = serde_json::json!({
        "question": "Should the city build the tram?",
        "panel": panel,
        "protocol": protocol,
        "rounds": rounds,
        "seed": 7,
        "limits": {"max_tokens": 64, "judge_max_tokens": 128, "temperature": 0.2},
    });
    if judge {
        v["judge"] = serde_json::json!({"id": "judge", "model": "openai/judge-model"});
    }
    DebateSpec::from_json(&v.to_string()).unwrap()
}

/// Protocol `which` of the registry, with its own example options, a seat
/// count it takes, rounds within its maximum, and — for protocols that stop
/// on agreement — the judge's confirmation when `judge_mode`.
pub fn registry_spec(which: usize, seats: usize, rounds: u32, judge: bool, judge_mode: bool) -> agon_core::DebateSpec {
    let info = &agon_core::protocols()[which % agon_core::protocols().len()];
    let seats = seats.clamp(info.min_seats as usize, info.max_seats.map_or(usize::MAX, |m| m as usize));
    let mut s = agon_core::example_spec(&info.name, seats, rounds.min(info.max_rounds)).unwrap();
    if info.reads_agreement && judge && judge_mode {
        s.protocol.options.insert("consensus".into(), serde_json::json!("judge"));
    }
    if !judge {
        s.judge = None;
    }
    agon_core::DebateSpec::from_json(&s.to_json()).unwrap()
}

/// Everything a driven session produced.
pub struct Run {
    pub session: Session,
    pub requests: Vec<ModelRequest>,
    pub events: Vec<Event>,
    /// Requests released together, batch by batch.
    pub batches: Vec<Vec<ModelRequest>>,
}

/// Drive a session to the end, answering each batch with `answer`, in the order
/// `order` gives (a permutation of the batch's indices).
pub fn drive_ordered(
    mut session: Session,
    mut answer: impl FnMut(&ModelRequest) -> Input,
    mut order: impl FnMut(usize) -> Vec<usize>,
) -> Run {
    let (mut requests, mut events, mut batches) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let mut batch = Vec::new();
        loop {
            match session.poll() {
                Output::Request(r) => batch.push(r),
                Output::Event(e) => events.push(e),
                Output::Idle => break,
                Output::Done(_) => {
                    assert!(batch.is_empty(), "requests released after the end");
                    return Run { session, requests, events, batches };
                }
            }
        }
        assert!(!batch.is_empty(), "idle with nothing outstanding");
        for i in order(batch.len()) {
            session.handle(answer(&batch[i])).unwrap();
        }
        requests.extend(batch.iter().cloned());
        batches.push(batch);
    }
}

pub fn drive(session: Session, answer: impl FnMut(&ModelRequest) -> Input) -> Run {
    drive_ordered(session, answer, |n| (0..n).collect())
}

pub fn reply(r: &ModelRequest, text: impl Into<String>) -> Input {
    Input::Reply { id: r.id, text: text.into(), usage: None, stop: None, model: None }
}

/// The challenger announced for each deliberation round, in order.
pub fn challengers(events: &[Event]) -> Vec<Option<String>> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RoundStarted { round, challenger, .. } if *round > 0 => Some(challenger.clone()),
            _ => None,
        })
        .collect()
}

/// Whether this run rewrites expected files: only on `AGON_BLESS=1`, and
/// never under CI (`CI` set to anything but empty, `0` or `false`), where a
/// rewrite would pass whatever changed. Any other value is a mistake.
/// (Tests may read their environment; the engine never does.)
#[allow(clippy::disallowed_methods)]
pub fn blessing(what: &str) -> bool {
    match std::env::var("AGON_BLESS") {
        Err(_) => false,
        Ok(v) if v != "1" => panic!("AGON_BLESS={v}: only AGON_BLESS=1 rewrites {what}"),
        Ok(_) if std::env::var("CI").is_ok_and(|ci| !matches!(ci.as_str(), "" | "0" | "false")) => {
            panic!("AGON_BLESS=1 under CI: {what} are rewritten by hand, then reviewed")
        }
        Ok(_) => true,
    }
}

/// A corpus row's batch as the corpus READMEs name them: `tune` (tuned on),
/// `held-out` or `held-out-N` (each read once, then reported). Anything else
/// is a typo that would leave a row out of every batch's numbers.
pub fn is_corpus_batch(name: &str) -> bool {
    matches!(name, "tune" | "held-out")
        || name.strip_prefix("held-out-").is_some_and(|n| !n.starts_with('0') && n.parse::<u32>().is_ok())
}
