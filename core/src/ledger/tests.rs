use proptest::prelude::*;

use super::*;

const SEATS: [SeatName; 3] =
    [SeatName { id: "ada", label: "Ada" }, SeatName { id: "bo", label: "Bo" }, SeatName { id: "cy", label: "Cy" }];

fn turn(seat: usize, round: u32, text: &str) -> Turn<'_> {
    Turn { seat, round, text, answer: None }
}

fn standing(l: &Ledger, id: &str) -> Standing {
    l.claims.iter().find(|c| c.id == id).unwrap().standing.clone()
}

#[test]
fn claims_are_named_by_seat_so_two_seats_c1_do_not_collide() {
    let l = build(&SEATS, &[turn(0, 1, "CLAIM C1: x"), turn(1, 1, "CLAIM C1: y\nCLAIM B2: z")], None);
    let ids: Vec<(&str, &str)> = l.claims.iter().map(|c| (c.id.as_str(), c.seat.as_str())).collect();
    assert_eq!(ids, [("A1", "ada"), ("B1", "bo"), ("B2", "bo")]);
}

#[test]
fn a_seat_cannot_raise_a_claim_under_another_seats_letter() {
    let l = build(&SEATS, &[turn(1, 1, "CLAIM A1: forged")], None);
    assert!(l.claims.is_empty());
    assert_eq!(l.refused[0].why, "a claim under another seat's letter");
}

#[test]
fn attacked_conceded_withdrawn_and_unanswered() {
    let turns = [
        turn(0, 1, "CLAIM A1: lock is short\nCLAIM A2: one node is enough\nCLAIM A3: cost is fine"),
        turn(1, 1, "CLAIM B1: needs a window"),
        turn(1, 2, "ATTACK A1: no\nATTACK A2: measured on one node\nCONCEDE A3: yes"),
        turn(2, 2, "ATTACK A1: also no"),
        turn(0, 3, "CONCEDE A2: fair"),
        turn(2, 3, "CONCEDE A1: convinced"),
    ];
    let l = build(&SEATS, &turns, None);
    // A1: Bo's attack still stands though Cy conceded.
    assert_eq!(standing(&l, "A1"), Standing::Attacked { ruling: Ruling::Unruled });
    assert_eq!(l.claims[0].attacks.len(), 2);
    // A2: its raiser withdrew it.
    assert!(matches!(standing(&l, "A2"), Standing::Conceded { by } if by[0].seat == "ada"));
    // A3: conceded by the one seat that answered it.
    assert!(matches!(standing(&l, "A3"), Standing::Conceded { by } if by[0].seat == "bo" && by[0].round == 2));
    assert_eq!(standing(&l, "B1"), Standing::Unanswered { ruling: Ruling::Unruled });
}

#[test]
fn a_seat_does_not_attack_its_own_claim_or_one_not_raised() {
    let l = build(&SEATS, &[turn(0, 1, "CLAIM A1: x\nATTACK A1: self\nATTACK B7: nothing")], None);
    assert_eq!(standing(&l, "A1"), Standing::Unanswered { ruling: Ruling::Unruled });
    let why: Vec<&str> = l.refused.iter().map(|r| r.why.as_str()).collect();
    assert_eq!(why, ["a seat's attack on its own claim", "no such claim"]);
}

#[test]
fn the_judge_rules_per_open_claim_and_a_skipped_one_stays_unruled() {
    let turns = [turn(0, 1, "CLAIM A1: x\nCLAIM A2: y\nCLAIM A3: z"), turn(1, 2, "ATTACK A1: no\nCONCEDE A3: ok")];
    let judge = "Weighing it.\nRULING A1: rejected — the attack holds\nRULING A3: upheld: moot\nRULING A1: upheld";
    let l = build(&SEATS, &turns, Some(judge));
    assert_eq!(standing(&l, "A1"), Standing::Attacked { ruling: Ruling::Rejected { why: "the attack holds".into() } });
    assert_eq!(standing(&l, "A2"), Standing::Unanswered { ruling: Ruling::Unruled });
    // A3 was conceded: a ruling on it has nowhere to go.
    assert!(matches!(standing(&l, "A3"), Standing::Conceded { .. }));
}

#[test]
fn a_seat_does_not_rule() {
    let l = build(&SEATS, &[turn(0, 1, "CLAIM A1: x"), turn(1, 1, "RULING A1: rejected — mine")], None);
    assert_eq!(standing(&l, "A1"), Standing::Unanswered { ruling: Ruling::Unruled });
}

#[test]
fn a_change_of_position_needs_a_claim_or_a_seat() {
    let turns = [
        turn(0, 1, "CLAIM A1: x\nPOSITION: ship in May"),
        turn(1, 1, "POSITION: wait"),
        turn(2, 1, "POSITION: wait"),
        turn(1, 2, "POSITION: Ship in May."),
        turn(2, 2, "BECAUSE Ada: her numbers\nPOSITION: ship in may"),
    ];
    let l = build(&SEATS, &turns, None);
    let flips: Vec<(&str, &Because)> = l.flips.iter().map(|f| (f.seat.as_str(), &f.because)).collect();
    assert_eq!(flips, [("bo", &Because::Unexplained), ("cy", &Because::Seat { seat: "ada".into() })]);
    assert_eq!(l.agreement, Some(Agreement { position: "ship in may".into(), kind: AgreementKind::Negotiated }));
}

#[test]
fn conceding_another_seats_claim_explains_a_change_and_citing_oneself_does_not() {
    let turns = [
        turn(0, 1, "CLAIM A1: x\nPOSITION: yes"),
        turn(1, 1, "CLAIM B1: y\nPOSITION: no"),
        turn(1, 2, "CONCEDE A1: right\nPOSITION: yes"),
        turn(0, 2, "BECAUSE A1: my own\nPOSITION: no"),
    ];
    let l = build(&SEATS, &turns, None);
    assert_eq!(l.flips[0].because, Because::Claim { id: "A1".into() });
    assert_eq!(l.flips[1].because, Because::Unexplained);
    assert_eq!(l.agreement, None);
}

#[test]
fn agreement_from_the_start_is_independent() {
    let l = build(&SEATS, &[turn(0, 1, "POSITION: B"), turn(1, 1, "POSITION: b"), turn(0, 2, "POSITION: B")], None);
    assert_eq!(l.agreement.unwrap().kind, AgreementKind::Independent);
}

#[test]
fn a_megabyte_of_claim_lines_is_bounded() {
    let text: String = (1..60_000).map(|n| format!("CLAIM C{}: {}\n", n % 9999 + 1, "w ".repeat(8))).collect();
    assert!(text.len() > 1_000_000);
    let attacks: String = (1..60_000).map(|_| "ATTACK A2: no\n").collect();
    let l = build(&SEATS, &[turn(0, 1, &text), turn(1, 1, &attacks)], None);
    assert_eq!(l.claims.len(), MAX_CLAIMS_PER_SEAT);
    assert_eq!(l.claims[0].attacks.len(), MAX_ACTS_PER_TURN);
    assert_eq!(l.refused.len(), 2 * MAX_REFUSED_PER_TURN);
}

fn line() -> impl Strategy<Value = String> {
    let id = ("[A-DC]", 1u32..4).prop_map(|(l, n)| format!("{l}{n}"));
    prop_oneof![
        id.clone().prop_map(|i| format!("CLAIM {i}: c")),
        id.clone().prop_map(|i| format!("ATTACK {i}: a")),
        id.clone().prop_map(|i| format!("CONCEDE {i}: k")),
        id.clone().prop_map(|i| format!("BECAUSE {i}: b")),
        "(yes|no|maybe)".prop_map(|p| format!("POSITION: {p}")),
        id.prop_map(|i| format!("RULING {i}: upheld — r")),
    ]
}

proptest! {
    /// Whatever seats declare, in whatever order: each claim carries its
    /// raiser's letter, no seat attacks its own, an unanswered claim has no
    /// attack, an attacked one has one, a conceded one carries no ruling, and
    /// no seat holds more claims than the bound.
    #[test]
    fn the_ledger_keeps_its_books(turns in prop::collection::vec((0usize..3, prop::collection::vec(line(), 0..6)), 0..12)) {
        let texts: Vec<(usize, u32, String)> =
            turns.iter().enumerate().map(|(k, (s, lines))| (*s, k as u32 / 3 + 1, lines.join("\n"))).collect();
        let turns: Vec<Turn> = texts.iter().map(|(s, r, t)| turn(*s, *r, t)).collect();
        let l = build(&SEATS, &turns, Some("RULING A1: upheld — j\nRULING B2: rejected — j"));
        for c in &l.claims {
            let raiser = SEATS.iter().position(|s| s.id == c.seat).unwrap();
            prop_assert!(c.id.starts_with(&letter(raiser)));
            prop_assert!(c.attacks.iter().all(|a| a.seat != c.seat));
            match &c.standing {
                Standing::Unanswered { .. } => prop_assert!(c.attacks.is_empty()),
                Standing::Attacked { .. } => prop_assert!(!c.attacks.is_empty()),
                Standing::Conceded { by } => prop_assert!(!by.is_empty()),
            }
            let json = serde_json::to_value(c).unwrap();
            prop_assert_eq!(json["standing"].get("ruling").is_some(), c.standing.is_open());
        }
        for s in SEATS {
            prop_assert!(l.claims.iter().filter(|c| c.seat == s.id).count() <= MAX_CLAIMS_PER_SEAT);
        }
        prop_assert_eq!(build(&SEATS, &turns, None).claims.len(), l.claims.len());
    }
}

#[test]
fn a_document_needs_a_ledger_for_its_claims_slot_and_its_settled_stop() {
    use crate::protocol::document::{BUILTIN_DOCUMENTS, load};
    let doc = |name: &str| -> serde_json::Value {
        serde_json::from_str(BUILTIN_DOCUMENTS.iter().find(|(n, _)| *n == name).unwrap().1).unwrap()
    };
    let mut without = doc("claim-ledger");
    without["aggregate"].as_object_mut().unwrap().remove("ledger");
    let e = load(&without, "protocol").unwrap_err().to_string();
    assert!(e.contains("{claims}: the document has no ledger aggregate"), "{e}");
    let mut settled = doc("round-robin");
    settled["stop"] = serde_json::json!("settled");
    let e = load(&settled, "protocol").unwrap_err().to_string();
    assert!(e.contains("protocol.stop: settled needs a ledger aggregate"), "{e}");
}
