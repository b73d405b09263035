//! Every protocol, end to end through the CLI against the test server, with
//! replies scripted so each protocol's structured parts really parse.

use std::process::Command;

use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

struct Case {
    protocol: &'static str,
    panel: &'static str,
    extra: &'static [&'static str],
    scripts: &'static [(&'static str, &'static [&'static str])],
    outcome: &'static str,
    /// A protocol-specific field the transcript must carry.
    field: Option<&'static str>,
}

const VERDICT_AGREE: &str = r#"{"verdict": "agree", "critique": "none", "evidence": "it handles rollback", "alternative": "", "confidence": "high", "objection_strength": "minor", "assumptions_challenged": []}"#;
const REVIEW: &str = "## Competitive Review\n```json\n{\"concerns\": [{\"concern\": 1, \"score\": 4}, {\"concern\": 2, \"score\": 2}], \"pulled_punches\": false, \"key_narratives\": [\"rollback\"], \"agreement_zones\": [], \"contested_zones\": [\"rollback\"]}\n```";
const SCORECARD: &str = "```json\n{\"criteria\": [{\"name\": \"cost\", \"weight\": 60, \"scores\": {\"A\": 4, \"B\": 2}}], \"recommendation\": \"A\"}\n```";
const URGENCY: &str =
    r#"[{"item": 1, "priority": "P0", "why": "due today"}, {"item": 2, "priority": "P3", "why": "later"}]"#;
const IMPACT: &str =
    r#"[{"item": 1, "priority": "P1", "why": "matters"}, {"item": 2, "priority": "P0", "why": "unblocks all"}]"#;

const CASES: &[Case] = &[
    Case {
        protocol: "round-robin",
        panel: "openai/a,openai/b",
        extra: &[],
        scripts: &[],
        outcome: "completed",
        field: None,
    },
    Case {
        protocol: "rotating-challenger",
        panel: "openai/a,openai/b,openai/c",
        extra: &[],
        scripts: &[],
        outcome: "completed",
        field: Some("consensus"),
    },
    Case {
        protocol: "devils-advocate",
        panel: "openai/a,openai/b",
        extra: &[],
        scripts: &[],
        outcome: "completed",
        field: Some("choices"),
    },
    Case {
        protocol: "consensus-check",
        panel: "openai/a,openai/b",
        extra: &["--rounds", "3"],
        scripts: &[("a", &["Stress-tested: ship it in May."]), ("b", &["CONSENSUS: ship it in May."])],
        outcome: "consensus",
        field: Some("consensus"),
    },
    Case {
        protocol: "structured",
        panel: "openai/a,openai/b",
        extra: &[],
        scripts: &[],
        outcome: "completed",
        field: None,
    },
    Case {
        protocol: "role-council",
        panel: "openai/r",
        extra: &["--rounds", "1"],
        scripts: &[],
        outcome: "completed",
        field: None,
    },
    Case {
        protocol: "adversarial",
        panel: "openai/adv,openai/chal",
        extra: &["--compete"],
        scripts: &[("judge", &[REVIEW])],
        outcome: "completed",
        field: Some("compete_result"),
    },
    Case {
        protocol: "steelman",
        panel: "openai/s,openai/d",
        extra: &[],
        scripts: &[("judge", &["## Revised position\nDo it slowly."])],
        outcome: "completed",
        field: Some("revised_position"),
    },
    Case {
        protocol: "comparative",
        panel: "openai/a,openai/b",
        extra: &["--option", "Postgres", "--option", "SQLite"],
        scripts: &[("judge", &[SCORECARD])],
        outcome: "completed",
        field: Some("scorecard"),
    },
    Case {
        protocol: "priority-vote",
        panel: "openai/u,openai/i",
        extra: &["--items", "ITEMS"],
        scripts: &[("u", &[URGENCY]), ("i", &[IMPACT])],
        outcome: "completed",
        field: Some("ranking"),
    },
    Case {
        protocol: "challenge",
        panel: "openai/d,openai/x,openai/y",
        extra: &[],
        scripts: &[("x", &[VERDICT_AGREE]), ("y", &[VERDICT_AGREE])],
        outcome: "consensus",
        field: Some("verdicts"),
    },
    Case {
        protocol: "ranked",
        panel: "openai/a,openai/b,openai/c",
        extra: &[],
        scripts: &[],
        outcome: "completed",
        field: Some("aggregate"),
    },
];

#[test]
fn every_protocol_runs_end_to_end_through_the_cli() {
    let dir = std::env::temp_dir().join(format!("agon-every-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let items = dir.join("items.txt");
    std::fs::write(&items, "- answer the auditor\n- fix the build\n").unwrap();
    let listed = Command::new(env!("CARGO_BIN_EXE_agon")).arg("protocols").output().unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert_eq!(listed.lines().count(), CASES.len(), "a case per protocol");
    for case in CASES {
        assert!(listed.lines().any(|l| l.starts_with(&format!("{} ", case.protocol))), "{} is listed", case.protocol);
        let mut config = Config::default();
        for (model, replies) in case.scripts {
            config.models.insert(
                model.to_string(),
                ModelScript { replies: replies.iter().map(|r| r.to_string()).collect(), ..Default::default() },
            );
        }
        let server = TestServer::start(config, 0).unwrap();
        let mut args = vec![
            "run",
            "Should we ship?",
            "--protocol",
            case.protocol,
            "--panel",
            case.panel,
            "--judge",
            "openai/judge",
            "--format",
            "json",
        ];
        let items_path = items.to_str().unwrap();
        args.extend(case.extra.iter().map(|a| if *a == "ITEMS" { items_path } else { a }));
        let out = Command::new(env!("CARGO_BIN_EXE_agon"))
            .args(&args)
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("AGON_CACHE_DIR", std::env::temp_dir().join("agon-e2e-cache"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let t: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", case.protocol));
        assert_eq!(t["protocol"], case.protocol);
        assert_eq!(t["outcome"]["kind"], case.outcome, "{}: {}\n{stderr}", case.protocol, t["outcome"]);
        assert_eq!(out.status.code(), Some(0), "{}: {stderr}", case.protocol);
        if let Some(field) = case.field {
            assert!(!t[field].is_null(), "{}: no {field} in {t}", case.protocol);
        }
        assert!(!server.stats().requests.is_empty());
    }
}
