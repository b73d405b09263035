//! Golden cases: `tests/golden/<case>/` holds a spec and a script of replies;
//! the expected events, requests (every prompt, exactly), journal and
//! transcripts sit beside them. Every host replays the same folders.
//!
//! Regenerate after an intended change with `AGON_BLESS=1 cargo test -p agon-core --test golden`
//! and read the diff: the files are the reviewable record of behaviour.

// This test reads AGON_BLESS and CI; the engine itself reads nothing from its environment.
#![allow(clippy::disallowed_methods)]

mod common;

use std::path::{Path, PathBuf};

use agon_core::script::{ScriptEntry, play};
use agon_core::{Session, Transcript};

/// Every file a golden case folder holds: the inputs, then what the engine must produce.
const FILES: [&str; 7] = [
    "spec.json",
    "script.json",
    "events.ndjson",
    "requests.json",
    "journal.ndjson",
    "transcript.json",
    "transcript.md",
];

/// Every folder under `tests/golden`, each required to be a whole case: a
/// folder missing a file is an error, never a case silently left out.
fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    for case in &cases {
        for file in FILES {
            let needed = file == "spec.json" || file == "script.json" || !common::blessing("the golden files");
            assert!(!needed || case.join(file).exists(), "{} has no {file}", case.display());
        }
    }
    cases
}

/// What a case produces, file name → contents.
fn produce(case: &Path) -> Vec<(&'static str, String)> {
    let spec = std::fs::read_to_string(case.join("spec.json")).unwrap();
    let script: Vec<ScriptEntry> =
        serde_json::from_str(&std::fs::read_to_string(case.join("script.json")).unwrap()).unwrap();
    let played =
        play(Session::from_spec_json(&spec).unwrap(), &script).unwrap_or_else(|e| panic!("{}: {e}", case.display()));
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
    let bless = common::blessing("the golden files");
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

/// Every golden transcript as format 1 wrote it (kept in `tests/format1`),
/// read through the migration, is the case's format-2 transcript: the same
/// value, and the same JSON written back.
#[test]
fn every_format_1_golden_transcript_migrates_to_its_format_2_rerun() {
    let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/format1");
    let cases = cases();
    let mut read = 0;
    for entry in std::fs::read_dir(&old).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_stem().unwrap();
        let case = cases.iter().find(|c| c.file_name() == Some(name));
        let case = case.unwrap_or_else(|| panic!("{}: no golden case of that name", path.display()));
        let format_1 = std::fs::read_to_string(&path).unwrap();
        assert!(format_1.contains("\"version\": 1,"), "{}: not format 1", path.display());
        let migrated: Transcript =
            serde_json::from_str(&format_1).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let expected = std::fs::read_to_string(case.join("transcript.json")).unwrap();
        assert_eq!(migrated.to_json(), expected, "{}", path.display());
        read += 1;
    }
    assert!(read >= 47, "every golden case written in format 1 is kept; {read} read");
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

/// A follow-up's first prompt quotes its parent's synthesis and last words,
/// under the engine's own headings, and its transcript names the parent.
#[test]
fn a_follow_up_quotes_its_parent_and_names_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/continue-round-robin");
    let requests: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("requests.json")).unwrap()).unwrap();
    let first = &requests[0];
    let user = first["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    let text = user["content"].as_str().unwrap();
    for quoted in [
        "EARLIER DEBATE (session 20261127-101500-3fa9;",
        "Its question:\n> Should we migrate our monolith to microservices this year?",
        "The judge's synthesis:\n> ## Answer\n> Do not migrate this year; invest in CI and modular boundaries.",
        "[CFO]\n> A CI investment pays back within a quarter",
    ] {
        assert!(text.contains(quoted), "{quoted:?} not in the first prompt:\n{text}");
    }
    // The parent comes before the question is asked of this turn, in the stable head.
    assert!(text.find("QUESTION:\nWhich module").unwrap() < text.find("EARLIER DEBATE").unwrap());
    let t = transcript("continue-round-robin");
    assert_eq!(t["parent"]["session"], "20261127-101500-3fa9");
    assert!(t["parent"].get("synthesis").is_none(), "the spec holds the parent's text, not the transcript");
    let md = std::fs::read_to_string(dir.join("transcript.md")).unwrap();
    assert!(md.contains("**Follows:** session `20261127-101500-3fa9`"), "{md}");
}

#[test]
fn golden_outcomes_are_the_ones_each_case_was_written_for() {
    // Written by hand from each script, independently of the engine's output.
    let expect = [
        ("round-robin-judge-failed", "judge-failed", 1),
        ("round-robin-three-seats", "completed", 2),
        ("round-robin-fallback", "completed", 1),
        ("rotating-challenger-consensus", "consensus", 1),
        ("rotating-challenger-degraded", "degraded", 2),
        ("rotating-challenger-no-false-consensus", "completed", 2),
        ("rotating-challenger-no-quorum", "no-quorum", 0),
        ("devils-advocate-seeded", "completed", 2),
        ("devils-advocate-quality-gate", "completed", 1),
        ("consensus-check-early-stop", "consensus", 2),
        ("consensus-check-read", "consensus", 2),
        ("rotating-challenger-partial-agreement", "completed", 3),
        ("rotating-challenger-declared-stop", "consensus", 1),
        ("rotating-challenger-judge-overrules", "consensus", 2),
        ("structured-two-seats", "completed", 1),
        ("role-council-builtin", "completed", 2),
        ("adversarial-compete", "completed", 1),
        ("adversarial-one-side-fails", "degraded", 1),
        ("adversarial-gate-single", "completed", 0),
        ("steelman-remote-first", "completed", 1),
        ("comparative-postgres-vs-dynamo", "completed", 2),
        // Steelman's dialectic: steelman, challenges, defence, counter-assessment, then the judge.
        ("steelman-dialectic", "completed", 4),
        ("priority-vote-four-items", "completed", 1),
        // The person confirms item 1 at P1; their line for item 3 is not "3: P0"–"3: P3", so item 3 stays to confirm.
        ("priority-vote-confirmed", "completed", 1),
        ("priority-vote-single-dedup", "completed", 1),
        ("challenge-tradeoff", "completed", 2),
        ("challenge-fast-exit", "consensus", 1),
        ("challenge-partial-escalate", "consensus", 2),
        // Seed 004: every objection minor → the defender answers once, briefly, and it ends.
        ("challenge-minor-brief-exit", "consensus", 1),
        // The defender's first response is prose, not the asked JSON: its decisions are
        // unknown, so the consensus reached in round 2 is not a full result.
        ("challenge-unreadable-response", "degraded", 2),
        // The seed's own Markdown from the defender (`[x] REJECT`, `[x] PARTIALLY ACCEPT`) and a
        // `**Verdict:**` display from a challenger are read as their JSON would be.
        ("challenge-markdown-defender", "consensus", 2),
        // A challenger timed out and the defender's first response is prose: both are named.
        ("challenge-failed-and-unreadable", "degraded", 2),
        ("ranked-three-seats", "completed", 1),
        ("round-robin-context-budget", "completed", 3),
        ("round-robin-priced", "completed", 2),
        ("round-robin-cost-limit", "cost-limit", 2),
        // A reasoning seat's reply cut at its limit is kept and marked; one
        // that thought its whole budget away answered nothing: a failed call.
        ("round-robin-reasoning-cut", "degraded", 2),
        // Answer mode: round 1's answers differ (one 205, the challenger's 275 not counted),
        // round 2's all read 215 however written, and the vote stands beside the synthesis.
        ("rotating-challenger-answer", "consensus", 2),
        // Answer mode, every seat: a different letter in round 1, no ANSWER line in round 2,
        // the same letter however written in round 3 (a quoted old answer not counted).
        ("consensus-check-answer", "consensus", 3),
        // A spec with a checkable answer on a protocol that never stops early: every
        // turn closes with ANSWER, and the vote (B, Ben's "B or D" no answer) beside the synthesis.
        ("round-robin-vote", "completed", 2),
        // The guide's protocol document: both reds find no fatal flaw in round 2, which stops it.
        ("red-blue-document", "completed", 2),
        // The same document as the browser page's form seats it (no names, its own limits).
        ("red-blue-page", "completed", 2),
        // A code review: two seats raise the same panic under other words, a third
        // confirms a secret in the log citing the seat that raised it; two findings block.
        ("review-three-seats", "completed", 1),
        // A follow-up on round-robin-three-seats: one round, the parent quoted in every head.
        ("continue-round-robin", "completed", 1),
        // Blind: round 1's three answers asked at once, none seeing another; two seats
        // with a domain of their own, one with a persona beside it.
        ("round-robin-blind-domain", "completed", 2),
        // The claim ledger: claims attacked, conceded, withdrawn and left open; a claim
        // under another seat's letter refused; Bo's change to the day cites nothing.
        ("claim-ledger-three-seats", "completed", 3),
        // Answer mode: each seat concedes the other's claim in round 2, so none is open and it stops.
        ("claim-ledger-settled", "completed", 2),
    ];
    // Every case declares the outcome it was written for: a new case must be added here.
    let mut declared: Vec<&str> = expect.iter().map(|(case, _, _)| *case).collect();
    declared.sort_unstable();
    let found: Vec<String> = cases().iter().map(|c| c.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(declared, found, "every golden case, and only those, declares its expected outcome");
    for (case, kind, rounds) in expect {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden").join(case);
        let t: Transcript =
            serde_json::from_str(&std::fs::read_to_string(dir.join("transcript.json")).unwrap()).unwrap();
        let outcome = t.outcome.unwrap();
        assert_eq!((outcome.kind.as_str(), outcome.rounds_run), (kind, rounds), "{case}");
    }
}

fn transcript(case: &str) -> serde_json::Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden").join(case);
    serde_json::from_str(&std::fs::read_to_string(dir.join("transcript.json")).unwrap()).unwrap()
}

/// A case's results, name → data (each checked to carry a kind).
fn results(case: &str) -> serde_json::Value {
    let t = transcript(case);
    let results = t["results"].as_object().unwrap_or_else(|| panic!("{case}: no results"));
    let mut data = serde_json::Map::new();
    for (name, r) in results {
        assert!(r["kind"].is_string(), "{case}: result {name} has no kind");
        data.insert(name.clone(), r["data"].clone());
    }
    serde_json::Value::Object(data)
}

#[test]
fn golden_results_match_what_was_worked_out_by_hand() {
    // Borda P0=4..P3=1: item 2 = 3+4, item 1 = 4+2, item 3 = 1+3, item 4 = 2+2; 3 before 4 (best single score 3 > 2).
    let r = results("priority-vote-four-items");
    let order: Vec<u64> = r["ranking"].as_array().unwrap().iter().map(|x| x["item"].as_u64().unwrap()).collect();
    assert_eq!(order, [2, 1, 3, 4]);
    let flagged: Vec<u64> = r["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| !x["disagreement"].is_null())
        .map(|x| x["item"].as_u64().unwrap())
        .collect();
    assert_eq!(flagged, [1, 3], "P0 vs P2 and P3 vs P1 differ by two levels");

    // Four items, one a duplicate of the first (case, spacing, a full stop): three
    // distinct, under 15, so one agent votes; P0 > P1 > P2 by Borda points 4, 3, 2.
    let d = results("priority-vote-single-dedup");
    assert_eq!(
        d["duplicates"],
        serde_json::json!([{"item": 3, "same_as": 1, "text": "rotate the leaked  staging key."}])
    );
    assert_eq!(d["gate"]["compete"], false);
    let texts: Vec<&str> = d["ranking"].as_array().unwrap().iter().map(|x| x["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        ["Rotate the leaked staging key", "Write the on-call handbook", "Upgrade the Postgres minor version"]
    );
    assert_eq!(d["ranking"][0]["score"], 4);

    // Weighted totals: A = 50·5 + 30·3 + 20·5 = 440, B = 50·3 + 30·5 + 20·2 = 340.
    let c = results("comparative-postgres-vs-dynamo");
    assert_eq!(
        (c["scorecard"]["totals"]["A"].as_u64(), c["scorecard"]["totals"]["B"].as_u64()),
        (Some(440), Some(340))
    );

    // Rankings (labels from the recorded choice): ana's answer is first twice.
    let k = results("ranked-three-seats");
    let seats: Vec<&str> = k["aggregate"].as_array().unwrap().iter().map(|x| x["seat"].as_str().unwrap()).collect();
    assert_eq!(seats, ["ana", "cho", "ben"]);

    // Every concern scored 1 (a stretch: no real dispute), after four earlier
    // zero-disagreement runs: flagged. The artifact is the question's first line.
    let a = results("adversarial-compete");
    assert_eq!(a["compete_result"]["disagreements"], 0);
    assert_eq!(a["compete_result"]["sided_with"], serde_json::json!({"advocate": 0, "challenger": 0}));
    assert_eq!(a["compete_result"]["skill"], "adversarial");
    assert_eq!(
        a["compete_result"]["artifact"],
        transcript("adversarial-compete")["question"].as_str().unwrap().lines().next().unwrap()
    );
    assert!(a["compete_flag"].as_str().unwrap().starts_with("five consecutive"));

    // Three versions of the position, two MAINTAINs, y's casual agreement treated as partial.
    let ch = results("challenge-tradeoff");
    assert_eq!(ch["positions"].as_array().unwrap().len(), 3);
    assert_eq!(ch["rebuttals"].as_array().unwrap().iter().filter(|r| r["choice"] == "MAINTAIN").count(), 2);
    assert_eq!(ch["verdicts"][1]["treated_as"], "partial");

    // The closing document: no consensus after 2 rounds, x still objecting,
    // y's accepted point learned, v1 → v2 → v3, both parties' assumptions.
    let closing = &ch["closing"];
    assert_eq!((closing["outcome"].as_str(), closing["rounds"].as_u64()), (Some("tradeoff"), Some(2)));
    assert_eq!(closing["still_objecting"], serde_json::json!(["x"]));
    assert_eq!(closing["evolution"], serde_json::json!([1, 2, 3]));
    assert_eq!(closing["learned"][1]["accepted"][0]["reason"], "Thanks.");
    assert_eq!(closing["assumptions"].as_array().unwrap().len(), 2);

    // A partial acceptance gets its rebuttal (x accepts it), an unreadable
    // verdict counts as not agreeing, and y's ESCALATE goes back to the
    // defender, who accepts it in round 2: consensus, with both learned.
    let pe = results("challenge-partial-escalate");
    let choices: Vec<(&str, &str)> = pe["rebuttals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["challenger"].as_str().unwrap(), r["choice"].as_str().unwrap()))
        .collect();
    assert_eq!(choices, [("x", "ACCEPT"), ("y", "ESCALATE")]);
    assert!(pe["verdicts"][1]["verdict"].is_null());
    assert_eq!(pe["verdicts"][1]["treated_as"], "partial");
    assert_eq!(pe["closing"]["outcome"], "consensus");
    assert_eq!(pe["closing"]["evolution"], serde_json::json!([1, 2, 3]));
    assert_eq!(pe["closing"]["learned"][1]["accepted"][0]["round"], 2);

    let s = results("steelman-remote-first");
    assert!(s["revised_position"].as_str().unwrap().starts_with("Go remote-first"));

    // The seed picks the devil's advocate, who then speaks last in every round.
    let d = transcript("devils-advocate-seeded");
    let picked = d["choices"][0]["value"].as_str().unwrap();
    for round in [1, 2] {
        let last = d["turns"].as_array().unwrap().iter().rfind(|t| t["round"] == round).unwrap();
        assert_eq!((last["speaker"].as_str().unwrap(), last["challenger"].as_bool().unwrap()), (picked, true));
    }

    // The softened adversarial turn was asked again; only the second one is in the transcript.
    let g = transcript("devils-advocate-quality-gate");
    let ana: Vec<&str> = g["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["speaker"] == "ana")
        .map(|t| t["text"].as_str().unwrap())
        .collect();
    assert_eq!(ana.len(), 1);
    assert!(ana[0].starts_with("Ben's case fails"));
    assert!(g["warnings"][0]["message"].as_str().unwrap().contains("asked again"));
}

/// The priced cases' money, worked out by hand from the usage in their
/// scripts and the prices in their specs (USD per million tokens).
#[test]
fn golden_costs_are_the_hand_computed_ones() {
    // cto (gpt-4o, $2.50 in / $10 out): 120·2.5 + 28·10 = 580, 300·2.5 + 26·10 = 1010 micro-dollars.
    // cfo (claude-sonnet, $3 / $15): 140·3 + 24·15 = 780, 320·3 + 22·15 = 1290. pm (local): 0.
    // judge (gpt-4o): 600·2.5 + 90·10 = 2400.
    let t = transcript("round-robin-priced");
    let cost = |seat: &str| {
        t["usage"]["seats"].as_array().unwrap().iter().find(|s| s["seat"] == seat).unwrap()["cost_micro_usd"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(cost("cto"), 580 + 1010);
    assert_eq!(cost("cfo"), 780 + 1290);
    assert_eq!(cost("pm"), 0);
    assert_eq!(cost("judge"), 2400);
    assert_eq!(t["usage"]["total"]["cost_micro_usd"].as_u64(), Some(6060));
    assert_eq!(t["usage"]["total"]["prompt_tokens"], 120 + 140 + 160 + 300 + 320 + 340 + 600);

    // With a $0.006 limit: cto, cfo, pm and cto again answer ($0.00237); the next
    // call, cfo's second turn, could cost more than the $0.00363 left.
    let t = transcript("round-robin-cost-limit");
    assert_eq!(t["usage"]["total"]["cost_micro_usd"].as_u64(), Some(580 + 780 + 1010));
    assert_eq!(t["turns"].as_array().unwrap().len(), 4);
    assert!(t["synthesis"].is_null(), "no judge call was affordable");
    let reason = t["outcome"]["reason"].as_str().unwrap();
    assert!(reason.contains("$0.006") && reason.contains("$0.00237 spent"), "{reason}");

    // A fallback chain's reply costs what the model that answered charges:
    // ops (gpt-4o|gpt-4o-mini) answered by gpt-4o-mini: 100·0.15 + 20·0.6 = 27;
    // dev (gpt-4o-mini): 140·0.15 + 10·0.6 = 27; the judge's chain answered by
    // its first, gpt-4o: 200·2.5 + 20·10 = 700.
    let t = transcript("round-robin-fallback");
    let seats = t["usage"]["seats"].as_array().unwrap();
    let cost = |seat: &str| seats.iter().find(|s| s["seat"] == seat).unwrap()["cost_micro_usd"].as_u64().unwrap();
    assert_eq!((cost("ops"), cost("dev"), cost("judge")), (27, 27, 700));
    assert_eq!(t["turns"][0]["answered_by"], "openai/gpt-4o-mini");
    assert!(t["turns"][1].get("answered_by").is_none() && t["synthesis"].get("answered_by").is_none());
    let md = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/round-robin-fallback/transcript.md"),
    )
    .unwrap();
    assert!(md.contains("### Ops · answered by `openai/gpt-4o-mini` (fallback)"), "{md}");
}

#[test]
fn golden_consensus_records_say_why() {
    // Written from the scripts: which seat said what, and what each reply is.
    let t = transcript("rotating-challenger-partial-agreement");
    let verdicts = |check: &serde_json::Value| -> Vec<(String, String, String)> {
        check["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["seat"].as_str().unwrap().into(),
                    s["verdict"].as_str().unwrap().into(),
                    s["source"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let v = |seat: &str, verdict: &str, source: &str| (seat.to_string(), verdict.to_string(), source.to_string());
    let checks = t["consensus"].as_array().unwrap();
    assert_eq!(checks.len(), 3);
    // Ben's VOTE: SAME is vetoed by "but I still oppose"; Cho's agreement is conditional;
    // Dev's lines are someone else's words.
    assert_eq!(
        verdicts(&checks[0]),
        [v("ben", "agrees-in-part", "read"), v("cho", "conditional", "read"), v("dev", "silent", "read")]
    );
    assert_eq!(checks[0]["seats"][0]["declared"], "agrees");
    assert_eq!(checks[0]["seats"][0]["evidence"]["quote"], "but I still oppose the plan as written");
    assert_eq!(
        verdicts(&checks[2]),
        [v("ana", "disagrees", "read"), v("ben", "conditional", "read"), v("dev", "disagrees", "read")]
    );
    assert!(checks.iter().all(|c| c["reached"] == false && c["mode"] == "declared"));

    // Judge mode: round 1 the declared lines say converged and the judge names Dev as a holdout.
    let t = transcript("rotating-challenger-judge-overrules");
    let checks = t["consensus"].as_array().unwrap();
    assert_eq!(checks[0]["reached"], false);
    assert_eq!(checks[0]["judge"]["confirmed"], false);
    assert_eq!(checks[0]["judge"]["holdouts"][0]["seat"], "dev");
    assert_eq!(verdicts(&checks[0])[2], v("dev", "disagrees", "judge"));
    assert_eq!(checks[1]["reached"], true);
    assert_eq!(checks[1]["judge"]["confirmed"], true);
    assert_eq!(
        checks[1]["judge"]["position"],
        "Launch in phases, busiest corridors first, with every phase funded up front."
    );
    assert!(verdicts(&checks[1]).iter().all(|(_, verdict, source)| verdict == "agrees" && source == "declared"));
    // The confirmation is a call of its own, counted in the judge's usage: two confirmations and the synthesis.
    let judge = t["usage"]["seats"].as_array().unwrap().iter().find(|s| s["seat"] == "judge").unwrap().clone();
    assert_eq!(judge["calls"], 3);
}

#[test]
fn every_registered_protocol_has_golden_cases() {
    let names: Vec<String> = cases()
        .iter()
        .map(|c| {
            let spec: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(c.join("spec.json")).unwrap()).unwrap();
            spec["protocol"]["name"].as_str().unwrap().to_string()
        })
        .collect();
    for p in agon_core::protocols() {
        assert!(names.contains(&p.name), "{} has no golden case under tests/golden", p.name);
    }
}

/// The book's captured results (docs/src/protocols.md) are real output:
/// each ````markdown block in it appears, verbatim, in a golden case's
/// transcript.md.
#[test]
fn the_books_captured_results_are_golden_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("docs/src/protocols.md")).unwrap();
    let transcripts: Vec<String> =
        cases().iter().map(|c| std::fs::read_to_string(c.join("transcript.md")).unwrap()).collect();
    let blocks: Vec<&str> =
        readme.split("````markdown\n").skip(1).map(|rest| rest.split("\n````").next().unwrap()).collect();
    assert!(blocks.len() >= 2, "the book shows challenge's closing document and the competitive review");
    for block in blocks {
        assert!(transcripts.iter().any(|t| t.contains(block)), "not in any golden transcript.md:\n{block}");
    }
}

/// Renderers choose by kind and shape, never by name: every golden case's
/// results renamed (same kinds, same data, same order) render line for line
/// the same, apart from the headings a generic result takes from its name.
#[test]
fn results_render_the_same_under_other_names() {
    let mut checked = 0;
    for case in cases() {
        let text = std::fs::read_to_string(case.join("transcript.json")).unwrap();
        let t: Transcript = serde_json::from_str(&text).unwrap();
        if t.results.is_empty() {
            continue;
        }
        let mut renamed = t.clone();
        // A prefix keeps the names' order, so only the names differ.
        renamed.results = t.results.iter().map(|(name, r)| (format!("other_{name}"), r.clone())).collect();
        let (shown, renamed) = (agon_core::results_markdown(&t), agon_core::results_markdown(&renamed));
        let (shown, renamed): (Vec<&str>, Vec<&str>) = (shown.lines().collect(), renamed.lines().collect());
        assert_eq!(shown.len(), renamed.len(), "{}", case.display());
        for (a, b) in shown.iter().zip(&renamed) {
            let (a_heading, b_heading) = (a.starts_with("### "), b.starts_with("### "));
            assert_eq!(a_heading, b_heading, "{}: {a} / {b}", case.display());
            if a_heading && a != b {
                // Only a generic result's title may differ, and only by the name.
                assert_eq!(b.to_lowercase(), format!("### other {}", a[4..].to_lowercase()), "{}", case.display());
            } else {
                assert_eq!(a, b, "{}", case.display());
            }
        }
        checked += 1;
    }
    assert!(checked >= 20, "{checked} golden cases with results");
}
