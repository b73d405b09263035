//! `agon export --format adr` (issue 37): every golden case renders as an
//! Architecture Decision Record without raw JSON, and one case per protocol
//! family is kept in tests/adr/ (`AGON_BLESS=1` rewrites them, for review).

use std::path::{Path, PathBuf};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden");
const KEPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/adr");

/// One case per protocol family: prose rounds, consensus, a defender and
/// challengers, a scorecard, rankings, a priority vote, a competitive review,
/// a steelman, and a run without a synthesis.
const FAMILIES: &[&str] = &[
    "round-robin-three-seats",
    "rotating-challenger-partial-agreement",
    "challenge-tradeoff",
    "comparative-postgres-vs-dynamo",
    "ranked-three-seats",
    "priority-vote-four-items",
    "adversarial-compete",
    "steelman-remote-first",
    "round-robin-judge-failed",
];

fn cases() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(GOLDEN)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("transcript.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// The ADR as the engine renders it for `agon export --format adr`.
fn adr(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("transcript.json")).unwrap();
    let transcript: agon_core::Transcript = serde_json::from_str(&text).unwrap();
    agon_core::adr_markdown(&transcript)
}

#[allow(clippy::disallowed_methods)]
fn blessing() -> bool {
    match std::env::var("AGON_BLESS") {
        Err(_) => false,
        Ok(v) if v != "1" => panic!("AGON_BLESS={v}: only AGON_BLESS=1 rewrites tests/adr"),
        Ok(_) if std::env::var("CI").is_ok_and(|ci| !matches!(ci.as_str(), "" | "0" | "false")) => {
            panic!("AGON_BLESS=1 under CI: tests/adr is rewritten by hand, then reviewed")
        }
        Ok(_) => true,
    }
}

#[test]
fn every_golden_case_renders_as_an_adr_without_raw_json() {
    let cases = cases();
    assert!(cases.len() > 30, "{}", cases.len());
    for dir in cases {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let adr = adr(&dir);
        for heading in ["## Context", "## Decision", "## Options considered", "## Consequences", "## Dissent"] {
            assert!(adr.contains(&format!("\n{heading}\n")), "{name}: no {heading}:\n{adr}");
        }
        assert!(adr.contains("- **Status:** "), "{name}");
        for (n, line) in adr.lines().enumerate() {
            let t = line.trim_start_matches(['>', ' ']);
            assert!(
                !(t.starts_with('{') || t.starts_with("[{") || t.starts_with("```json") || t.contains("{\"")),
                "{name}: raw JSON at line {}: {line}\n{adr}",
                n + 1
            );
        }
    }
}

#[test]
fn one_adr_per_protocol_family_is_kept() {
    let bless = blessing();
    for name in FAMILIES {
        let got = adr(&Path::new(GOLDEN).join(name));
        let path = Path::new(KEPT).join(format!("{name}.md"));
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (AGON_BLESS=1 writes it)", path.display()));
        assert_eq!(got, want, "{name}: the ADR changed; if that is meant, AGON_BLESS=1 rewrites it");
    }
}
