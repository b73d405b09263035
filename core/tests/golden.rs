//! Golden cases: `tests/golden/<case>/` holds a spec and a script of replies;
//! the expected events, requests (every prompt, exactly), journal and
//! transcripts sit beside them. Every host replays the same folders.
//!
//! Regenerate after an intended change with `AGON_BLESS=1 cargo test -p agon-core --test golden`
//! and read the diff: the files are the reviewable record of behaviour.

use std::path::{Path, PathBuf};

use agon_core::script::{ScriptEntry, play};
use agon_core::{Session, Transcript};

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("spec.json").exists()).collect();
    cases.sort();
    assert!(cases.len() >= 6, "golden cases missing under {}", root.display());
    cases
}

/// What a case produces, file name → contents.
fn produce(case: &Path) -> Vec<(&'static str, String)> {
    let spec = std::fs::read_to_string(case.join("spec.json")).unwrap();
    let script: Vec<ScriptEntry> =
        serde_json::from_str(&std::fs::read_to_string(case.join("script.json")).unwrap()).unwrap();
    let played = play(Session::from_spec_json(&spec).unwrap(), &script).unwrap();
    let events: String = played.events.iter().map(|e| e.to_json() + "\n").collect();
    let requests = serde_json::to_string_pretty(&played.requests).unwrap() + "\n";
    vec![
        ("events.ndjson", events),
        ("requests.json", requests),
        ("journal.ndjson", played.session.journal()),
        ("transcript.json", played.session.transcript().to_json()),
        ("transcript.md", played.session.markdown()),
    ]
}

#[test]
fn every_golden_case_reproduces_its_expected_files() {
    let bless = std::env::var_os("AGON_BLESS").is_some();
    let mut stale = Vec::new();
    for case in cases() {
        for (name, produced) in produce(&case) {
            let path = case.join(name);
            if bless {
                std::fs::write(&path, &produced).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            if expected != produced {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "output differs from the golden files (AGON_BLESS=1 to regenerate, then review):\n{}",
        stale.join("\n")
    );
}

#[test]
fn every_golden_journal_replays_to_the_same_transcript() {
    for case in cases() {
        let journal = std::fs::read_to_string(case.join("journal.ndjson")).unwrap();
        let expected = std::fs::read_to_string(case.join("transcript.json")).unwrap();
        let session = Session::from_journal(&journal).unwrap();
        assert_eq!(session.transcript().to_json(), expected, "{}", case.display());
    }
}

#[test]
fn golden_outcomes_are_the_ones_each_case_was_written_for() {
    // Written by hand from each script, independently of the engine's output.
    let expect = [
        ("round-robin-judge-failed", "judge-failed", 1),
        ("round-robin-three-seats", "completed", 2),
        ("rotating-challenger-consensus", "consensus", 1),
        ("rotating-challenger-degraded", "degraded", 2),
        ("rotating-challenger-no-false-consensus", "completed", 2),
        ("rotating-challenger-no-quorum", "no-quorum", 0),
    ];
    for (case, kind, rounds) in expect {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden").join(case);
        let t: Transcript =
            serde_json::from_str(&std::fs::read_to_string(dir.join("transcript.json")).unwrap()).unwrap();
        let outcome = t.outcome.unwrap();
        assert_eq!((outcome.kind.as_str(), outcome.rounds_run), (kind, rounds), "{case}");
    }
}
