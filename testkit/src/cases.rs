//! Every protocol's end-to-end case: flags and scripted replies that make
//! its structured parts really parse. Shared by the CLI's tests and the
//! scheduling benchmark. `ITEMS` in `extra` stands for a priority-vote items file.

/// One protocol's end-to-end run against the test server.
pub struct Case {
    pub protocol: &'static str,
    pub panel: &'static str,
    pub extra: &'static [&'static str],
    pub scripts: &'static [(&'static str, &'static [&'static str])],
    pub outcome: &'static str,
    /// A protocol-specific field the transcript must carry.
    pub field: Option<&'static str>,
}

const VERDICT_AGREE: &str = r#"{"verdict": "agree", "critique": "none", "evidence": "it handles rollback", "alternative": "", "confidence": "high", "objection_strength": "minor", "assumptions_challenged": []}"#;
const REVIEW: &str = "## Competitive Review\n```json\n{\"concerns\": [{\"concern\": 1, \"score\": 4}, {\"concern\": 2, \"score\": 2}], \"pulled_punches\": false, \"key_narratives\": [\"rollback\"], \"agreement_zones\": [], \"contested_zones\": [\"rollback\"]}\n```";
const SCORECARD: &str = "```json\n{\"criteria\": [{\"name\": \"cost\", \"weight\": 60, \"scores\": {\"A\": 4, \"B\": 2}}], \"recommendation\": \"A\"}\n```";
const RANKING: &str = "A reads best.\nFINAL RANKING:\n1. Response A\n2. Response B\n3. Response C";
const URGENCY: &str =
    r#"[{"item": 1, "priority": "P0", "why": "due today"}, {"item": 2, "priority": "P3", "why": "later"}]"#;
const IMPACT: &str =
    r#"[{"item": 1, "priority": "P1", "why": "matters"}, {"item": 2, "priority": "P0", "why": "unblocks all"}]"#;

pub const CASES: &[Case] = &[
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
        scripts: &[
            ("a", &["Tests pass; ship it.\nVOTE: SAME — ship it in May."]),
            ("b", &["VOTE: SAME — ship it in May."]),
        ],
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
        extra: &["--items", "ITEMS", "--compete"],
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
        // Each seat's blind answer, then its ranking: the labels a seat was not
        // offered (its own) are skipped, so one list serves all three.
        scripts: &[("a", &["Answer a.", RANKING]), ("b", &["Answer b.", RANKING]), ("c", &["Answer c.", RANKING])],
        outcome: "completed",
        field: Some("aggregate"),
    },
    Case {
        protocol: "claim-ledger",
        panel: "openai/a,openai/b",
        extra: &[],
        // Each concedes the other's claim in round 2: no claim is open, so it stops; then a's judge.
        scripts: &[
            ("a", &["CLAIM A1: it rolls back.\nPOSITION: ship", "CONCEDE B1: fair.\nPOSITION: ship", "Ship it."]),
            ("b", &["CLAIM B1: it is tested.\nPOSITION: ship", "CONCEDE A1: fair.\nPOSITION: ship"]),
        ],
        outcome: "completed",
        field: Some("ledger"),
    },
];

impl Case {
    /// `base` with this case's scripted replies added.
    pub fn config(&self, mut base: crate::Config) -> crate::Config {
        for (model, replies) in self.scripts {
            base.models.insert(
                model.to_string(),
                crate::ModelScript { replies: replies.iter().map(|r| r.to_string()).collect(), ..Default::default() },
            );
        }
        base
    }

    /// The `agon run` arguments for this case; `items` stands in for `ITEMS`.
    pub fn run_args<'a>(&'a self, items: &'a str) -> Vec<&'a str> {
        let mut args = vec![
            "run",
            "Should we ship?",
            "--protocol",
            self.protocol,
            "--panel",
            self.panel,
            "--judge",
            "openai/judge",
        ];
        args.extend(self.extra.iter().map(|a| if *a == "ITEMS" { items } else { a }));
        args
    }
}
