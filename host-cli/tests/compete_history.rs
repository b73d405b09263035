//! adversarial's compete history, kept by the CLI per protocol and label:
//! runs with no disagreement, one after another, raise `compete_flag`.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

/// The judge's competitive review with one concern it scores a stretch: zero disagreements.
const CALM_REVIEW: &str = "## Competitive Review\n```json\n{\"concerns\": [{\"concern\": 1, \"score\": 1}], \"pulled_punches\": false, \"key_narratives\": [\"fine as it is\"], \"agreement_zones\": [\"scope\"], \"contested_zones\": []}\n```";
/// One with a genuine disagreement.
const SHARP_REVIEW: &str = "## Competitive Review\n```json\n{\"concerns\": [{\"concern\": 1, \"score\": 4}], \"pulled_punches\": false, \"key_narratives\": [\"rollback\"], \"agreement_zones\": [], \"contested_zones\": [\"rollback\"]}\n```";

fn run(env: &Sandbox, server: &TestServer, extra: &[&str]) -> (Value, String) {
    let mut args = vec![
        "run",
        "Review this RFC: a read-through cache.",
        "--protocol",
        "adversarial",
        "--panel",
        "openai/adv,openai/chal",
        "--judge",
        "openai/judge",
        "--compete",
        "--quality-gate",
        "off",
        "--format",
        "json",
    ];
    args.extend(extra);
    let out: Output = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(&args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test-history")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

fn server(reviews: Vec<&str>) -> TestServer {
    let mut config = Config::default();
    let replies = reviews.into_iter().map(str::to_string).collect();
    config.models.insert("judge".into(), ModelScript { replies, ..Default::default() });
    TestServer::start(config, 0).unwrap()
}

#[test]
fn six_runs_without_disagreement_raise_the_flag_and_the_view_shows_it() {
    let env = Sandbox::new("compete-history", "six");
    let server = server(vec![CALM_REVIEW; 6]);
    for n in 1..=6 {
        let (t, stderr) = run(&env, &server, &[]);
        assert_eq!(
            t["results"]["compete_result"]["data"]["disagreements"], 0,
            "run {n}: {}",
            t["results"]["compete_result"]["data"]
        );
        if n < 5 {
            assert!(t["results"].get("compete_flag").is_none(), "run {n} has only {} earlier runs", n - 1);
        }
        if n == 6 {
            assert!(t["results"]["compete_flag"]["data"].as_str().unwrap().contains("zero disagreement"), "{t}");
            // The piped view shows the protocol's results under the synthesis, the flag among them.
            assert!(stderr.contains("Compete flag"), "{stderr}");
            assert!(stderr.contains("Competitive review"), "{stderr}");
            let results = stderr.find("Compete flag").unwrap();
            assert!(results < stderr.find("Outcome:").unwrap(), "results come before the outcome line");
        }
    }
    let history: Value =
        serde_json::from_str(&std::fs::read_to_string(env.root.join("data/compete-history.json")).unwrap()).unwrap();
    assert_eq!(history["runs"]["adversarial"]["adversarial"].as_array().unwrap().len(), 6, "{history}");
    // The spec a seventh run would use carries the history, newest last.
    let out = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(["spec", "Q?", "--protocol", "adversarial", "--panel", "openai/adv,openai/chal"])
        .output()
        .unwrap();
    let spec: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(spec["protocol"]["history"].as_array().map(Vec::len), Some(6), "{spec}");
}

#[test]
fn each_label_keeps_its_own_history_and_a_disagreement_breaks_the_run() {
    let env = Sandbox::new("compete-history", "labels");
    let mut reviews = vec![CALM_REVIEW; 4];
    reviews.push(SHARP_REVIEW);
    reviews.extend([CALM_REVIEW; 6]);
    let server = server(reviews);
    for _ in 0..4 {
        run(&env, &server, &["--label", "rfc"]);
    }
    let (t, _) = run(&env, &server, &["--label", "rfc"]);
    assert_eq!(t["results"]["compete_result"]["data"]["disagreements"], 1);
    assert_eq!(t["results"]["compete_result"]["data"]["skill"], "rfc", "the label names the skill reviewed");
    assert!(t["results"].get("compete_flag").is_none(), "a disagreement is not zero");
    // Another label starts from nothing: four calm runs are not five.
    for _ in 0..4 {
        let (t, _) = run(&env, &server, &["--label", "mbr"]);
        assert!(t["results"].get("compete_flag").is_none(), "{t}");
    }
    // Back under "rfc": four calm runs after the disagreement, then the fifth.
    let (t, _) = run(&env, &server, &["--label", "rfc"]);
    assert!(t["results"].get("compete_flag").is_none(), "only one calm run since the disagreement");
}

/// agon.toml's `[[triggers]]` reach the spec, phrases whole; `--trigger`
/// replaces them; a panel's `judge` is the run's judge; bad values name their field.
#[test]
fn triggers_and_a_panels_judge_come_from_agon_toml() {
    let env = Sandbox::new("compete-history", "toml");
    let config = env.root.join("agon.toml");
    std::fs::write(
        &config,
        "[[triggers]]\nname = \"arch\"\nany_of = [\"data model\", \"infrastructure\"]\n\
         [panels.review]\nmodels = [\"openai/adv\", \"openai/chal\"]\njudge = \"anthropic/referee\"\n",
    )
    .unwrap();
    let spec = |extra: &[&str]| {
        let out = env
            .command(env!("CARGO_BIN_EXE_agon"))
            .args([
                "--config",
                config.to_str().unwrap(),
                "spec",
                "Q?",
                "--protocol",
                "adversarial",
                "--panel",
                "review",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let s = spec(&[]);
    assert_eq!(
        s["protocol"]["triggers"],
        serde_json::json!([{"name": "arch", "any_of": ["data model", "infrastructure"]}])
    );
    assert_eq!(s["judge"]["model"], "anthropic/referee");
    let s = spec(&["--trigger", "exec=board meeting"]);
    assert_eq!(s["protocol"]["triggers"], serde_json::json!([{"name": "exec", "any_of": ["board meeting"]}]));

    std::fs::write(&config, "[panels.review]\nmodels = [\"openai/adv\"]\njudge = \"referee\"\n").unwrap();
    let out = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(["--config", config.to_str().unwrap(), "spec", "Q?", "--panel", "review"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("panels.review.judge"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn compete_eval_measures_what_was_kept_and_records_it_with_the_run() {
    let env = Sandbox::new("compete-history", "eval");
    let server = server(vec![SHARP_REVIEW]);
    let (t, _) = run(&env, &server, &["--label", "review-rfc"]);
    let synthesis = t["synthesis"]["text"].as_str().unwrap().to_string();
    let agon = |args: &[&str], stdin: Option<&str>| {
        let mut child = env
            .command(env!("CARGO_BIN_EXE_agon"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(stdin.unwrap_or_default().as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    // Kept as written: accepted, a low distance, the run's own disagreement and side.
    let out = agon(&["compete-eval", "last"], None);
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(line.starts_with("[compete-eval: skill=") && line.contains("edit_distance=low, acceptance=true"), "{line}");
    assert!(line.contains("disagreements=1, sided_with=challenger:"), "{line}");
    // Rewritten from standard input: high, not accepted; recorded on the same run.
    let rewritten = "We reject the proposal outright.";
    assert_ne!(synthesis.trim(), rewritten);
    let out = agon(&["compete-eval", "last", "--final", "-"], Some(rewritten));
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(line.contains("edit_distance=high, acceptance=false"), "{line}");
    let history: Value =
        serde_json::from_str(&std::fs::read_to_string(env.root.join("data/compete-history.json")).unwrap()).unwrap();
    let runs = history["runs"]["adversarial"]["review-rfc"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "the measure joins the run, not a second one: {history}");
    assert_eq!(runs[0]["eval"]["edit_distance"], "high");
    assert_eq!(runs[0]["eval"]["acceptance"], false);

    // A session that is not a competitive review is refused by name.
    let plain = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(["run", "Q?", "--panel", "openai/a,openai/b", "--no-judge", "--rounds", "1", "--format", "json"])
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test-history")
        .output()
        .unwrap();
    assert!(plain.status.success());
    let out = agon(&["compete-eval", "last"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no compete result"));
}
