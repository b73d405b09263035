//! The review golden case, worked out by hand from its script: which
//! findings merge, who upholds what, and the verdict the default policy gives.

use agon_core::review::{Review, Severity, Verdict};

#[test]
fn the_review_golden_case_decides_as_worked_out_by_hand() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden/review-three-seats/transcript.json");
    let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let r = Review::from_value(&t["results"]["review"]["data"]).unwrap();
    // Ada's "Panics on a bad port" and Bo's "unwrap panics on bad port input" (line 11) are one finding;
    // Ada's truncating cast two lines below is another; Bo's logged token a third.
    let rows: Vec<(&str, u32, Severity, usize)> =
        r.findings.iter().map(|f| (f.id.as_str(), f.line, f.severity, f.upheld())).collect();
    // F1: raised by Ada and Bo, disputed by Cy: upheld by 2. F2: Ada raised, Bo disputed: 1.
    // F3: Bo raised, Ada and Cy confirmed: 3.
    assert_eq!(
        rows,
        [("F1", 11, Severity::High, 2), ("F2", 13, Severity::Medium, 1), ("F3", 12, Severity::Critical, 3)]
    );
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(r.blocking, ["F1", "F3"]);
    assert!(r.changes.is_empty() && r.unread.is_empty());
}
