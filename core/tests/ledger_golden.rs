//! The claim-ledger golden cases, worked out by hand from their scripts: where
//! each claim stands, who attacked and conceded it, the judge's rulings, the
//! changes of position and how the agreement was reached.

use agon_core::ledger::{AgreementKind, Because, Ledger, Ruling, Standing};

fn ledger(case: &str) -> (Ledger, serde_json::Value) {
    let path = format!("{}/../tests/golden/{case}/transcript.json", env!("CARGO_MANIFEST_DIR"));
    let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    (serde_json::from_value(t["results"]["ledger"]["data"].clone()).unwrap(), t)
}

#[test]
fn the_three_seat_ledger_stands_as_worked_out_by_hand() {
    let (l, t) = ledger("claim-ledger-three-seats");
    let rows: Vec<(&str, &str, Vec<&str>, &str)> = l
        .claims
        .iter()
        .map(|c| {
            (c.id.as_str(), c.seat.as_str(), c.attacks.iter().map(|a| a.seat.as_str()).collect(), c.standing.as_str())
        })
        .collect();
    // Bo's `CLAIM C2` is his second claim, B2; Cy's `CLAIM A3` is under Ada's letter and refused;
    // Bo's quoted `CLAIM C9` is not his own line.
    assert_eq!(
        rows,
        [
            // Ada withdrew it in round 3 after Bo's attack.
            ("A1", "ada", vec!["bo"], "conceded"),
            // Cy conceded it, but Bo's attack stands.
            ("A2", "ada", vec!["bo"], "attacked"),
            ("B1", "bo", vec!["ada"], "attacked"),
            ("B2", "bo", vec![], "conceded"),
            ("C1", "cy", vec![], "unanswered"),
        ]
    );
    assert!(matches!(&l.claims[0].standing, Standing::Conceded { by } if by[0].seat == "ada" && by[0].round == 3));
    assert!(matches!(&l.claims[3].standing, Standing::Conceded { by } if by[0].seat == "ada" && by[0].round == 2));
    // The judge ruled on A2 and B1 and skipped C1.
    let rulings: Vec<(&str, &Ruling)> = l
        .claims
        .iter()
        .filter_map(|c| match &c.standing {
            Standing::Unanswered { ruling } | Standing::Attacked { ruling } => Some((c.id.as_str(), ruling)),
            Standing::Conceded { .. } => None,
        })
        .collect();
    assert!(matches!(rulings[0], ("A2", Ruling::Upheld { .. })));
    assert!(matches!(rulings[1], ("B1", Ruling::Rejected { .. })));
    assert_eq!(rulings[2], ("C1", &Ruling::Unruled));
    // Bo and Cy both move to the day in round 2; only Cy says why (conceding A2).
    let flips: Vec<(&str, u32, &Because)> = l.flips.iter().map(|f| (f.seat.as_str(), f.round, &f.because)).collect();
    assert_eq!(flips, [("bo", 2, &Because::Unexplained), ("cy", 2, &Because::Claim { id: "A2".into() })]);
    assert_eq!(l.agreement.as_ref().map(|a| a.kind), Some(AgreementKind::Negotiated));
    assert_eq!(l.refused.len(), 1);
    assert!(t["outcome"]["reason"].as_str().unwrap().contains("negotiated, not independent"));
}

#[test]
fn the_settled_ledger_stops_when_no_claim_is_open() {
    let (l, t) = ledger("claim-ledger-settled");
    assert!(l.claims.iter().all(|c| !c.standing.is_open()));
    // Ada's 1 → 2 cites Bo's claim, which she conceded: persuaded, not negotiated.
    assert_eq!(l.flips.len(), 1);
    assert_eq!(l.flips[0].because, Because::Claim { id: "B1".into() });
    assert_eq!(l.agreement.map(|a| (a.position, a.kind)), Some(("2".into(), AgreementKind::Persuaded)));
    assert_eq!(t["outcome"]["reason"], "stopped in round 2: no claim is open");
}
