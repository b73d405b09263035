//! The usage contract every host follows: after creating a session and after
//! every `handle`, drain `poll` until it returns `Idle` or `Done`. Nothing
//! appears without an input; every request is released exactly once; the end
//! stays the end.

use agon_core::{FailureKind, Input, Output, Session, example_spec, protocols};

#[test]
fn every_protocol_keeps_the_host_loop_contract() {
    for info in protocols() {
        let seats = (info.min_seats.max(3)).min(info.max_seats.unwrap_or(u32::MAX)) as usize;
        let spec = example_spec(&info.name, seats, info.default_rounds.min(2)).unwrap();
        let mut session = Session::new(spec).unwrap();
        let mut released: Vec<u64> = Vec::new();
        let mut answered = 0;
        loop {
            // 1. Drain until Idle or Done.
            let mut batch = Vec::new();
            let last = loop {
                match session.poll() {
                    Output::Request(r) => batch.push(r),
                    Output::Event(_) => {}
                    other => break other,
                }
            };
            for r in &batch {
                assert!(!released.contains(&r.id), "{}: request {} released twice", info.name, r.id);
                released.push(r.id);
            }
            // 2. Without an input, nothing more appears: polling again changes nothing.
            for _ in 0..3 {
                assert_eq!(session.poll(), last, "{}: output without an input", info.name);
            }
            match last {
                Output::Done(_) => break,
                Output::Idle => assert!(
                    !batch.is_empty() || session.outstanding().count() > 0,
                    "{}: idle with nothing to wait for",
                    info.name
                ),
                _ => unreachable!(),
            }
            // 3. Feed every reply of the batch (one failure now and then), then loop.
            for r in batch {
                answered += 1;
                let input = if answered % 7 == 0 {
                    Input::Failed { id: r.id, kind: FailureKind::Timeout, message: "slow".into(), usage: None }
                } else {
                    Input::Reply {
                        id: r.id,
                        text: "I disagree: it fails under load.".into(),
                        usage: None,
                        stop: None,
                        model: None,
                    }
                };
                session.handle(input).unwrap();
            }
        }
        assert_eq!(session.outstanding().count(), 0, "{}: requests left outstanding at the end", info.name);
        assert!(session.outcome().is_some(), "{}", info.name);
    }
}
