//! The exchange driven as a host drives it, against scripted replies and a
//! clock that moves only when the exchange asks to wait.

use agon_core::{FailureKind, Message, ModelRequest, Phase, Purpose, StopReason};
use agon_wire::{
    Action, Completion, Exchange, HttpTarget, Retry, RetryRule, Settings, Target, WaitLimit, Wire, WireError,
};
use proptest::prelude::*;

/// One scripted reply: a status, its headers, the body in chunks; or a
/// connection that failed before any reply.
#[derive(Debug, Clone)]
enum Reply {
    Http { status: u16, headers: Vec<(&'static str, String)>, chunks: Vec<Vec<u8>> },
    Unreachable,
}

fn reply(status: u16, body: &str) -> Reply {
    Reply::Http { status, headers: Vec::new(), chunks: vec![body.as_bytes().to_vec()] }
}

fn after(status: u16, retry_after: &str) -> Reply {
    Reply::Http { status, headers: vec![("Retry-After", retry_after.to_string())], chunks: vec![b"{}".to_vec()] }
}

/// OpenAI's stream for `words`, each its own event.
fn stream(words: &[&str]) -> String {
    let mut body = String::new();
    for w in words {
        body += &format!("data: {{\"choices\":[{{\"delta\":{{\"content\":{w:?}}},\"finish_reason\":null}}]}}\n\n");
    }
    body += "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    body += "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n";
    body
}

fn target(reference: &str) -> Target {
    Target::Http(HttpTarget {
        reference: reference.into(),
        model: reference.rsplit('/').next().unwrap().into(),
        wire: Wire::OpenAi,
        api: None,
        base_url: "http://127.0.0.1:9/v1".into(),
        server: None,
        key_var: Some("KEY".into()),
        url_var: Some("BASE_URL".into()),
    })
}

fn request(chain: &[&str]) -> ModelRequest {
    ModelRequest {
        id: 1,
        seat: "s".into(),
        model: chain.join("|"),
        purpose: Purpose::Turn,
        round: 1,
        phase: Phase::Opening,
        messages: vec![Message::user("Q")],
        max_tokens: 100,
        temperature: 0.5,
        expect: None,
        reasoning: None,
        traits: Default::default(),
        cache_marks: Vec::new(),
    }
}

fn settings(attempts: u32) -> Settings {
    Settings {
        retry: RetryRule { attempts, base_ms: 500, max_wait_ms: 60_000 },
        stream: true,
        max_reply: 1 << 20,
        limits: vec![WaitLimit { ms: 120_000, what: "the call's timeout".into() }],
        raise_wait: " (raise it)".into(),
        raise_reply: String::new(),
    }
}

/// What a run of the exchange did.
#[derive(Debug, PartialEq)]
struct Run {
    /// The model of each request sent, in order.
    sent: Vec<String>,
    /// Each wait, in milliseconds from when it was asked.
    waits: Vec<u64>,
    /// The `Retry-After` in seconds of the reply before each wait, if any.
    asked: Vec<Option<u64>>,
    pieces: Vec<String>,
    notes: Vec<String>,
    outcome: Result<(Completion, Option<String>), WireError>,
}

fn drive(chain: &[&str], settings: Settings, replies: Vec<Reply>) -> Run {
    let targets = chain.iter().map(|r| target(r)).collect();
    let mut exchange = Exchange::new(request(chain), targets, settings);
    let mut replies = replies.into_iter();
    let mut now = 1_000_000u64;
    let mut last_asked = None;
    let mut run =
        Run { sent: vec![], waits: vec![], asked: vec![], pieces: vec![], notes: vec![], outcome: Err(none()) };
    loop {
        exchange = match exchange.next(now) {
            Action::Note { text, exchange } => {
                run.notes.push(text);
                exchange
            }
            Action::Wait { until_ms, exchange } => {
                assert!(until_ms > now, "a wait is for later");
                run.waits.push(until_ms - now);
                run.asked.push(last_asked);
                now = until_ms;
                exchange
            }
            Action::Send(attempt) => {
                run.sent.push(attempt.target().reference.clone());
                assert_eq!(attempt.request().path, ["chat", "completions"]);
                match replies.next().expect("a reply for each request") {
                    Reply::Unreachable => {
                        last_asked = None;
                        attempt.transport_failed(WireError { retry: Retry::Yes { after_ms: None }, ..none() })
                    }
                    Reply::Http { status, headers, chunks } => {
                        last_asked = headers.first().and_then(|(_, v)| v.parse().ok());
                        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                        let mut body = attempt.status(status, &headers, "http://h/v1/chat/completions");
                        for chunk in chunks {
                            if !body.wants_more() {
                                break;
                            }
                            run.pieces.extend(body.body(&chunk));
                        }
                        body.body_end()
                    }
                }
            }
            Action::Ask(_) => panic!("every target here is HTTP"),
            Action::Done(answer) => {
                run.outcome = Ok((answer.completion, answer.model));
                return run;
            }
            Action::Failed(e) => {
                run.outcome = Err(e);
                return run;
            }
        };
        now += 10;
    }
}

fn none() -> WireError {
    WireError {
        kind: FailureKind::Transport,
        message: "cannot reach it".into(),
        retry: Retry::No,
        usage: None,
        code: None,
    }
}

#[test]
fn a_streamed_reply_is_handed_out_in_pieces_then_whole() {
    let run = drive(&["openai/a"], settings(3), vec![reply(200, &stream(&["Hel", "lo"]))]);
    assert_eq!(run.sent, ["openai/a"]);
    assert_eq!(run.pieces, ["Hel", "lo"]);
    let (done, model) = run.outcome.unwrap();
    assert_eq!((done.text.as_str(), done.stop, model), ("Hello", Some(StopReason::Complete), None));
    assert_eq!(done.usage.map(|u| (u.prompt_tokens, u.completion_tokens)), Some((7, 3)));
}

#[test]
fn a_retry_after_is_waited_exactly_up_to_the_longest_wait() {
    let run = drive(&["openai/a"], settings(3), vec![after(429, "7"), reply(200, &stream(&["ok"]))]);
    assert_eq!((run.sent.len(), run.waits.clone()), (2, vec![7_000]));
    assert_eq!(run.notes, ["openai/a: waiting 7 s before trying again", "openai/a: attempt 2"]);
    assert_eq!(run.outcome.unwrap().0.text, "ok");

    let run = drive(&["openai/a"], settings(3), vec![after(429, "61")]);
    assert_eq!((run.sent.len(), run.waits.len()), (1, 0), "61 s is past the minute agon waits");
    let e = run.outcome.unwrap_err();
    assert_eq!(e.kind, FailureKind::RateLimited);
    assert!(e.message.ends_with("asks to wait 61 s, longer than agon waits (60 s (raise it))"), "{}", e.message);
}

#[test]
fn a_retry_after_date_is_read_against_the_clock() {
    // The exchange starts at 1 000 000 ms past the epoch: 1000 s, 00:16:40.
    let run = drive(
        &["openai/a"],
        settings(2),
        vec![after(503, "Thu, 01 Jan 1970 00:17:10 GMT"), reply(200, &stream(&["ok"]))],
    );
    assert_eq!(run.waits, [30_000], "from when the request was sent to the moment named");
}

#[test]
fn the_chain_is_walked_in_order_and_names_who_answered() {
    let replies = vec![
        reply(400, r#"{"error":{"message":"bad model"}}"#),
        reply(500, "{}"),
        Reply::Unreachable,
        reply(200, &stream(&["fine"])),
    ];
    let run = drive(&["x/a", "x/b", "x/c"], settings(2), replies);
    assert_eq!(run.sent, ["x/a", "x/b", "x/b", "x/c"]);
    let (done, model) = run.outcome.unwrap();
    assert_eq!((done.text.as_str(), model.as_deref()), ("fine", Some("x/c")));
    assert_eq!(run.notes[0], "x/a failed (HTTP 400 from http://h/v1/chat/completions: bad model); trying x/b");
    assert_eq!(run.notes.last().unwrap(), "answered by x/c after x/a failed; x/b failed");
}

#[test]
fn when_every_model_fails_the_last_failure_says_so() {
    let run = drive(&["x/a", "x/b"], settings(1), vec![reply(401, "{}"), reply(404, "{}")]);
    let e = run.outcome.unwrap_err();
    assert_eq!(
        e.message,
        "every model of 'x/a|x/b' failed; the last: HTTP 404 from http://h/v1/chat/completions (is BASE_URL right, and does it serve this model?): {}"
    );
    let run = drive(&["x/a"], settings(1), vec![reply(401, "{}")]);
    assert!(run.outcome.unwrap_err().message.starts_with("HTTP 401 from http://h/v1/chat/completions (check KEY): "));
}

#[test]
fn nothing_is_tried_again_once_text_was_shown() {
    let cut = stream(&["Hel", "lo"]);
    let cut = &cut[..cut.find("lo").unwrap() + 8];
    let run = drive(&["x/a"], settings(3), vec![reply(200, cut), reply(200, &stream(&["again"]))]);
    assert_eq!((run.sent.len(), run.pieces.clone()), (1, vec!["Hel".to_string()]));
    assert!(run.outcome.unwrap_err().message.contains("ended before the reply was complete"));
}

#[test]
fn an_error_body_is_read_only_as_far_as_needed() {
    let huge = Reply::Http { status: 500, headers: vec![], chunks: vec![vec![b'x'; 10 << 10]; 100] };
    let run = drive(&["x/a"], settings(1), vec![huge]);
    let e = run.outcome.unwrap_err();
    assert!(e.message.starts_with("HTTP 500") && e.message.len() < 2_000, "{}", e.message.len());
}

#[test]
fn a_model_the_host_answers_is_asked_in_its_turn() {
    let targets = vec![Target::Host { reference: "cmd/a".into() }, target("x/b")];
    let mut exchange = Exchange::new(request(&["cmd/a", "x/b"]), targets, settings(1));
    let mut asked = Vec::new();
    let done = loop {
        exchange = match exchange.next(0) {
            Action::Note { exchange, .. } => exchange,
            Action::Ask(asking) => {
                asked.push(asking.reference().to_string());
                asking.answered(Err(none()), false)
            }
            Action::Send(attempt) => {
                let mut body = attempt.status(200, &[], "u");
                let _ = body.body(stream(&["ok"]).as_bytes());
                body.body_end()
            }
            Action::Done(answer) => break answer,
            other => panic!("{other:?}"),
        };
    };
    assert_eq!(
        (asked, done.model.as_deref(), done.completion.text.as_str()),
        (vec!["cmd/a".to_string()], Some("x/b"), "ok")
    );
}

proptest! {
    #[test]
    fn how_the_bytes_are_cut_never_changes_the_result(
        words in prop::collection::vec("[a-zé🦀 ]{1,6}", 1..8),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let body = stream(&words).into_bytes();
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(body.len() + 1)).collect();
        at.extend([0, body.len()]);
        at.sort_unstable();
        let chunks: Vec<Vec<u8>> = at.windows(2).map(|w| body[w[0]..w[1]].to_vec()).collect();
        let cut = drive(&["x/a"], settings(1), vec![Reply::Http { status: 200, headers: vec![], chunks }]);
        let whole = drive(&["x/a"], settings(1), vec![reply(200, std::str::from_utf8(&body).unwrap())]);
        prop_assert_eq!(&cut.outcome, &whole.outcome);
        prop_assert_eq!(cut.pieces.concat(), words.concat());
        prop_assert_eq!(cut.outcome.unwrap().0.text, words.concat());
    }

    #[test]
    fn the_attempts_are_bounded_and_each_wait_is_what_was_asked(
        attempts in 1u32..5,
        chain in 1usize..4,
        asked in prop::collection::vec(prop::option::of(0u64..90), 1..20),
    ) {
        let names: Vec<String> = (0..chain).map(|i| format!("x/m{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let replies: Vec<Reply> = asked.iter().cycle().take(40).map(|a| match a {
            Some(s) => after(429, &s.to_string()),
            None => reply(503, "{}"),
        }).collect();
        let run = drive(&names, settings(attempts), replies);
        prop_assert!(run.outcome.is_err());
        prop_assert!(run.sent.len() as u32 <= attempts * chain as u32);
        // Each model in order, never one before the last was done with.
        let mut order = run.sent.clone();
        order.dedup();
        prop_assert_eq!(order.len(), chain);
        for (wait, asked) in run.waits.iter().zip(&run.asked) {
            match asked {
                Some(s) => prop_assert_eq!(*wait, s * 1000),
                None => prop_assert!(*wait <= 60_000),
            }
        }
        // A wait asked for past the longest is never taken.
        prop_assert!(run.asked.iter().flatten().all(|s| *s <= 60));
    }
}
