//! The reader, the merge and the verdict: worked examples and invariants.

use proptest::prelude::*;

use super::*;

fn finding(file: &str, line: u32, severity: Severity, category: &str, title: &str) -> Finding {
    Finding {
        file: file.into(),
        line,
        severity,
        category: category.into(),
        title: title.into(),
        rationale: String::new(),
    }
}

fn seats() -> Vec<SeatName<'static>> {
    vec![
        SeatName { id: "a", label: "Speaker 1" },
        SeatName { id: "b", label: "Speaker 2" },
        SeatName { id: "c", label: "Speaker 3" },
    ]
}

fn react(seat: &str, round: u32, line: &str) -> (String, u32, Reaction) {
    let r = read_reactions(line).pop().expect("a reaction line");
    (seat.into(), round, r)
}

/// Two seats raise the same bug two lines apart under different words; a
/// third confirms it; a style nit nobody confirms stays low and alone.
#[test]
fn merges_by_location_and_meaning_and_fails_by_policy() {
    let raised = vec![
        ("a".to_string(), finding("src/lib.rs", 40, Severity::High, "correctness", "Off-by-one in loop bound")),
        ("a".to_string(), finding("src/lib.rs", 90, Severity::Low, "style", "Long line")),
        ("b".to_string(), finding("src/lib.rs", 42, Severity::Critical, "bug", "loop bound off-by-one")),
        // Same place, another meaning: a finding of its own.
        ("b".to_string(), finding("src/lib.rs", 41, Severity::Medium, "performance", "Allocates per iteration")),
    ];
    let reactions = vec![react("c", 1, "CONFIRM: src/lib.rs:41 | yes")];
    let m = merge(&seats(), &raised, &reactions);
    assert_eq!(m.findings.len(), 3);
    let bug = &m.findings[0];
    assert_eq!((bug.id.as_str(), bug.line, bug.severity), ("F1", 40, Severity::Critical));
    assert_eq!(bug.raised_by, ["a", "b"]);
    // The nearest finding to line 41 is F3 (line 41), not F1 (line 40).
    assert!(bug.confirmed_by.is_empty());
    assert_eq!(m.findings[2].confirmed_by, ["c"]);
    let review = Review::decide(m, Policy::default(), vec![]);
    assert_eq!(review.verdict, Verdict::Fail);
    assert_eq!(review.blocking, ["F1"]);
}

#[test]
fn two_issues_of_one_kind_on_nearby_lines_stay_two() {
    let raised = vec![
        ("a".to_string(), finding("p.rs", 11, Severity::High, "correctness", "Panics on a bad port")),
        ("a".to_string(), finding("p.rs", 13, Severity::Medium, "correctness", "Truncating cast")),
        ("b".to_string(), finding("p.rs", 11, Severity::High, "correctness", "Crash")),
    ];
    let m = merge(&seats(), &raised, &[]);
    let held: Vec<(u32, Vec<String>)> = m.findings.iter().map(|f| (f.line, f.raised_by.clone())).collect();
    assert_eq!(held, [(11, vec!["a".to_string(), "b".to_string()]), (13, vec!["a".to_string()])]);
}

#[test]
fn a_change_of_position_counts_only_when_it_cites_another_seat() {
    let raised = vec![
        ("a".to_string(), finding("x.rs", 10, Severity::High, "security", "Token logged")),
        ("b".to_string(), finding("x.rs", 10, Severity::High, "security", "Token written to the log")),
    ];
    let reactions = vec![
        react("c", 1, "DISPUTE: x.rs:10 | it is redacted on line 3"),
        // a withdraws without citing anyone: flagged, and a still upholds it.
        react("a", 1, "DISPUTE: x.rs:10 | on reflection, fine"),
        // b withdraws citing c: it takes effect.
        react("b", 1, "DISPUTE: x.rs:10 | citing Speaker 3 | the redaction on line 3"),
        // b cites itself to flip back: flagged.
        react("b", 2, "CONFIRM: x.rs:10 | citing Speaker 2 | I was right"),
    ];
    let m = merge(&seats(), &raised, &reactions);
    let f = &m.findings[0];
    assert_eq!(f.raised_by, ["a", "b"]);
    assert_eq!(f.disputed_by, ["c", "b"]);
    assert_eq!(f.upheld(), 1);
    let flags: Vec<(&str, bool, Option<&str>)> =
        m.changes.iter().map(|c| (c.seat.as_str(), c.flagged, c.citing.as_deref())).collect();
    assert_eq!(flags, [("a", true, None), ("b", false, Some("c")), ("b", true, None)]);
    assert_eq!(Review::decide(m, Policy::default(), vec![]).verdict, Verdict::Pass);
}

#[test]
fn an_unread_seat_makes_a_pass_undecided_but_not_a_fail() {
    let raised = vec![("a".to_string(), finding("x.rs", 1, Severity::Low, "style", "Nit"))];
    let m = merge(&seats(), &raised, &[]);
    assert_eq!(Review::decide(m.clone(), Policy::default(), vec!["b".into()]).verdict, Verdict::Undecided);
    let one = Policy { fail_at: Severity::Low, confirmed_by: 1 };
    assert_eq!(Review::decide(m, one, vec!["b".into()]).verdict, Verdict::Fail);
}

#[test]
fn a_reaction_naming_no_finding_is_kept_as_unmatched() {
    let raised = vec![("a".to_string(), finding("x.rs", 1, Severity::Low, "style", "Nit"))];
    let m = merge(&seats(), &raised, &[react("b", 1, "CONFIRM: x.rs:9 | elsewhere")]);
    assert_eq!(m.unmatched.len(), 1);
    assert_eq!(m.unmatched[0].location, "x.rs:9");
}

#[test]
fn the_review_round_trips_through_its_transcript_form() {
    let raised = vec![("a".to_string(), finding("x.rs", 1, Severity::High, "bug", "Crash"))];
    let review = Review::decide(merge(&seats(), &raised, &[]), Policy::default(), vec![]);
    let value = serde_json::to_value(&review).unwrap();
    assert_eq!(value["verdict"], "pass");
    assert_eq!(value["policy"]["fail_at"], "high");
    assert_eq!(Review::from_value(&value).unwrap(), review);
}

fn arb_severity() -> impl Strategy<Value = Severity> {
    prop::sample::select(Severity::ALL.to_vec())
}

fn arb_raised() -> impl Strategy<Value = Vec<(String, Finding)>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["a", "b", "c"]),
            prop::sample::select(vec!["x.rs", "y.rs"]),
            1u32..30,
            arb_severity(),
            prop::sample::select(vec!["bug", "style", "security"]),
            prop::sample::select(vec!["Crash on empty input", "Long line", "Secret logged", "input empty crash"]),
        )
            .prop_map(|(s, f, l, sev, c, t)| (s.to_string(), finding(f, l, sev, c, t))),
        0..12,
    )
}

fn arb_reactions() -> impl Strategy<Value = Vec<(String, u32, Reaction)>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["a", "b", "c"]),
            1u32..3,
            any::<bool>(),
            prop::sample::select(vec!["x.rs", "y.rs"]),
            1u32..30,
            prop::option::of(prop::sample::select(vec!["Speaker 1", "Speaker 2", "Speaker 3", "nobody"])),
        )
            .prop_map(|(s, round, confirm, f, l, citing)| {
                let stand = if confirm { Stand::Confirm } else { Stand::Dispute };
                let r = Reaction {
                    stand,
                    file: f.into(),
                    line: l,
                    citing: citing.map(str::to_string),
                    reason: String::new(),
                };
                (s.to_string(), round, r)
            }),
        0..12,
    )
}

proptest! {
    /// Every raised finding is held by exactly one merged finding in its
    /// file, near its line, at least as severe, with its seat among the raisers.
    #[test]
    fn every_raised_finding_is_kept(raised in arb_raised(), reactions in arb_reactions()) {
        let m = merge(&seats(), &raised, &reactions);
        for (seat, f) in &raised {
            let holders: Vec<&Merged> = m.findings.iter()
                .filter(|g| g.file == f.file && g.line.abs_diff(f.line) <= LINE_WINDOW && g.raised_by.contains(seat) && g.severity >= f.severity)
                .collect();
            prop_assert!(!holders.is_empty());
        }
        let raisers: usize = m.findings.iter().map(|g| g.raised_by.len()).sum();
        prop_assert!(raisers <= raised.len());
    }

    /// No seat both confirms and disputes, nor confirms what it raised; no
    /// more seats uphold a finding than sit on the panel.
    #[test]
    fn positions_are_consistent(raised in arb_raised(), reactions in arb_reactions()) {
        let m = merge(&seats(), &raised, &reactions);
        for g in &m.findings {
            for s in &g.confirmed_by {
                prop_assert!(!g.disputed_by.contains(s) && !g.raised_by.contains(s));
            }
            prop_assert!(g.upheld() <= 3);
        }
        for c in &m.changes {
            prop_assert_eq!(c.flagged, c.citing.is_none());
            prop_assert!(c.citing.as_deref() != Some(c.seat.as_str()));
        }
    }

    /// A stricter policy never fails what a looser one passes.
    #[test]
    fn stricter_policies_fail_less(raised in arb_raised(), reactions in arb_reactions(), sev in arb_severity(), n in 1u32..4) {
        let m = merge(&seats(), &raised, &reactions);
        let loose = Review::decide(m.clone(), Policy { fail_at: sev, confirmed_by: n }, vec![]);
        let strict = Review::decide(m, Policy { fail_at: sev.max(Severity::High), confirmed_by: n + 1 }, vec![]);
        prop_assert!(strict.blocking.iter().all(|id| loose.blocking.contains(id)));
        if loose.verdict == Verdict::Pass { prop_assert_eq!(strict.verdict, Verdict::Pass); }
    }

    /// The verdict is fail exactly when some finding is severe enough and
    /// upheld by enough seats, counted here from the sets directly.
    #[test]
    fn the_verdict_follows_the_policy(raised in arb_raised(), reactions in arb_reactions(), sev in arb_severity(), n in 1u32..4) {
        let m = merge(&seats(), &raised, &reactions);
        let fails = m.findings.iter().any(|g| {
            let upheld = ["a", "b", "c"].iter().filter(|s| {
                (g.raised_by.iter().any(|r| r == *s) || g.confirmed_by.iter().any(|r| r == *s))
                    && !g.disputed_by.iter().any(|r| r == *s)
            }).count();
            g.severity >= sev && upheld >= n as usize
        });
        let review = Review::decide(m, Policy { fail_at: sev, confirmed_by: n }, vec![]);
        prop_assert_eq!(review.verdict == Verdict::Fail, fails);
    }
}

#[test]
fn the_shipped_review_document_loads_and_names_its_result() {
    let normal = crate::check_document(REVIEW_DOCUMENT).expect("the review document is valid");
    let v: serde_json::Value = serde_json::from_str(&normal).unwrap();
    assert_eq!(v["aggregate"]["review"]["result"], REVIEW_RESULT);
    assert_eq!(v["aggregate"]["review"]["policy"], serde_json::json!({"fail_at": "high", "confirmed_by": 2}));
}

#[test]
fn a_review_aggregate_names_phases_the_document_has() {
    let mut doc: serde_json::Value = serde_json::from_str(REVIEW_DOCUMENT).unwrap();
    doc["aggregate"]["review"]["reactions"] = "vote".into();
    let e = crate::check_document(&doc.to_string()).unwrap_err().to_string();
    assert!(e.contains("protocol.aggregate.review.reactions") && e.contains("no phase 'vote'"), "{e}");
    doc["aggregate"]["review"]["reactions"] = "critique".into();
    doc["aggregate"]["review"]["policy"]["confirmed_by"] = 0.into();
    let e = crate::check_document(&doc.to_string()).unwrap_err().to_string();
    assert!(e.contains("confirmed_by"), "{e}");
}
