//! Pictures of golden cases, compared byte for byte with the blessed files in
//! `tests/pictures/<case>/`: every host draws from the same transcript, so
//! the bytes must not drift unnoticed. They sit outside `tests/golden/`,
//! whose folders every host replays. Rewrite after an intended change with
//! `AGON_BLESS=1 cargo test -p agon-core --test pictures`, and look at them.

// This test reads AGON_BLESS and CI; the engine itself reads nothing from its environment.
#![allow(clippy::disallowed_methods)]

mod common;

use std::path::Path;

use agon_core::Transcript;
use agon_core::picture::{pictures, timeline, timings_from_ndjson};

const CASES: [&str; 8] = [
    "consensus-check-early-stop",
    // Answer mode: the cells show each seat's answer.
    "rotating-challenger-answer",
    "rotating-challenger-judge-overrules",
    "rotating-challenger-partial-agreement",
    "priority-vote-four-items",
    "ranked-three-seats",
    "comparative-postgres-vs-dynamo",
    // The claim ledger: each seat's claims by where they stand; Bo hatched for his unexplained change.
    "claim-ledger-three-seats",
];

fn check(dir: &Path, produced: Vec<(String, String)>) {
    if common::blessing("the pictures") {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut expected: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    expected.sort();
    let mut names: Vec<String> = produced.iter().map(|p| p.0.clone()).collect();
    names.sort();
    if !common::blessing("the pictures") {
        assert_eq!(names, expected, "{}: the pictures drawn", dir.display());
    }
    for (name, svg) in produced {
        let path = dir.join(&name);
        if common::blessing("the pictures") {
            std::fs::write(&path, &svg).unwrap();
        } else {
            let want = std::fs::read_to_string(&path).unwrap();
            assert!(want == svg, "{} differs; AGON_BLESS=1 cargo test -p agon-core --test pictures", path.display());
        }
    }
}

#[test]
fn golden_cases_draw_the_blessed_pictures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for case in CASES {
        let json = std::fs::read_to_string(root.join("tests/golden").join(case).join("transcript.json")).unwrap();
        let t: Transcript = serde_json::from_str(&json).unwrap();
        let drawn = pictures(&t);
        assert!(!drawn.is_empty(), "{case} has a picture");
        check(&root.join("tests/pictures").join(case), drawn);
    }
}

#[test]
fn a_recorded_timeline_draws_the_blessed_picture() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/pictures/timeline");
    let timings = timings_from_ndjson(&std::fs::read_to_string(dir.join("timings.ndjson")).unwrap());
    check(&dir, vec![("timeline.svg".into(), timeline(&timings, "").unwrap())]);
}
