//! Criterion: the native core's overhead — one whole 5-seat, 5-round
//! rotating-challenger debate with scripted replies, and one engine step.

use agon_bench::{script, spec};
use agon_core::script::play;
use agon_core::{Input, Output, Session};
use criterion::{Criterion, criterion_group, criterion_main};

fn whole_debate(c: &mut Criterion) {
    let s = spec("rotating-challenger", 5, None);
    let entries = script(5, 600);
    c.bench_function("native: 5-seat 5-round rotating-challenger debate", |b| {
        b.iter(|| play(Session::new(s.clone()).unwrap(), &entries).unwrap())
    });
}

fn one_step(c: &mut Criterion) {
    let s = spec("round-robin", 50, None);
    c.bench_function("native: one step (handle a reply, drain the outputs)", |b| {
        b.iter_batched(
            || {
                let mut session = Session::new(s.clone()).unwrap();
                let mut id = 0;
                while let Some(out) = Some(session.poll()) {
                    match out {
                        Output::Request(r) => id = r.id,
                        Output::Idle | Output::Done(_) => break,
                        Output::Event(_) => {}
                    }
                }
                (session, id)
            },
            |(mut session, id)| {
                session
                    .handle(Input::Reply {
                        id,
                        text: "I disagree with the plan.".into(),
                        usage: None,
                        stop: None,
                        model: None,
                    })
                    .unwrap();
                while !matches!(session.poll(), Output::Idle | Output::Done(_)) {}
                session
            },
            criterion::BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, whole_debate, one_step);
criterion_main!(benches);
