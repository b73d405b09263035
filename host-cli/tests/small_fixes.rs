//! The smaller defects of issue 12, each a clear error or a fix: values that
//! make no sense, names that are not names, files that are not text, outputs
//! that cannot be written (found before anything is spent), a full disk, the
//! outcome said once, and doctor's verdicts kept per endpoint.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, Fault, ModelScript, TestServer};

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(args).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn refused(out: &Output, naming: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", stderr(out));
    assert!(stderr(out).contains(naming), "should name {naming}: {}", stderr(out));
}

const PANEL: [&str; 4] = ["--panel", "openai/a,openai/b", "--no-judge", "-q"];

#[test]
fn values_that_make_no_sense_are_refused_by_name() {
    let env = Sandbox::new("small", "values");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let run = |extra: &[&str]| agon(&env, &server, &[&["run", "Q?"][..], &PANEL, extra].concat());
    refused(&run(&["--timeout", "0"]), "--timeout");
    std::fs::write(env.root.join("q.jsonl"), "Q?\n").unwrap();
    let batch = |extra: &[&str]| {
        agon(&env, &server, &[&["batch", "q.jsonl", "-o", "r.jsonl"][..], &PANEL[..3], extra].concat())
    };
    refused(&batch(&["--concurrency", "0"]), "--concurrency");
    refused(&batch(&["--max-in-flight", "0"]), "--max-in-flight");
    refused(&batch(&["--rate", "unknown=10/min"]), "no provider 'unknown'");
    assert!(server.stats().requests.is_empty());

    for (file, naming) in [
        ("[providers.unknown]\nbase_url = \"http://127.0.0.1:9/v1\"\n", "providers.unknown"),
        ("[prices.\"openai/a\"]\ninput = 1e308\noutput = 1\n", "prices.\"openai/a\""),
        ("[defaults]\ntimeout = 0\n", "defaults.timeout"),
    ] {
        std::fs::write(env.root.join("named.toml"), file).unwrap();
        refused(&agon(&env, &server, &[&["--config", "named.toml", "run", "Q?"][..], &PANEL].concat()), naming);
    }
}

#[test]
fn names_and_files_are_checked() {
    let env = Sandbox::new("small", "names");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &["run", "Q?", "--panel", "openai/<svg/onload=alert(1)>,openai/b", "--no-judge"]);
    refused(&out, "panel[0].id");

    let roles = env.root.join("roles");
    std::fs::create_dir_all(&roles).unwrap();
    std::fs::write(roles.join("broken.md"), b"---\nrole_id: x\n\xff\xfe---\n").unwrap();
    let out =
        agon(&env, &server, &["run", "Q?", "--protocol", "role-council", "--roles", "roles", "--panel", "openai/a"]);
    refused(&out, "broken.md");
    assert!(server.stats().requests.is_empty());
}

#[test]
fn batch_lines_stand_alone() {
    let env = Sandbox::new("small", "batch-lines");
    let server = TestServer::start(Config::default(), 0).unwrap();
    std::fs::write(env.root.join("q.jsonl"), b"First?\n{\"id\": \"line-1\", \"question\": \"Second?\"}\nBad \xff?\n")
        .unwrap();
    let out = agon(&env, &server, &["batch", "q.jsonl", "-o", "r.jsonl", "--panel", "openai/a,openai/b", "--no-judge"]);
    assert_eq!(out.status.code(), Some(2), "a line was skipped: {}", stderr(&out));
    assert!(stderr(&out).contains("line 3 is not UTF-8 text"), "{}", stderr(&out));
    let results = std::fs::read_to_string(env.root.join("r.jsonl")).unwrap();
    let ids: Vec<String> = results
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "both questions ran: {ids:?}");
    assert!(ids.contains(&"line-1".to_string()) && ids.contains(&"line-1-2".to_string()), "{ids:?}");
}

#[test]
fn an_output_that_cannot_be_written_is_found_before_anything_is_spent() {
    let env = Sandbox::new("small", "outputs");
    let server = TestServer::start(Config::default(), 0).unwrap();
    for flag in ["-o", "--events", "--journal"] {
        let out = agon(&env, &server, &[&["run", "Q?"][..], &PANEL, &[flag, "missing/out.json"]].concat());
        refused(&out, "missing");
    }
    std::fs::write(env.root.join("q.jsonl"), "Q?\n").unwrap();
    refused(
        &agon(&env, &server, &[&["batch", "q.jsonl", "-o", "missing/r.jsonl"][..], &PANEL[..3]].concat()),
        "missing",
    );
    assert!(server.stats().requests.is_empty(), "no call was made");
}

#[test]
fn a_full_disk_names_the_file_and_how_to_continue() {
    let env = Sandbox::new("small", "full-disk");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let out = agon(&env, &server, &[&["run", "Q?"][..], &PANEL, &["--journal", "/dev/full"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("/dev/full") && stderr(&out).contains("No space left"), "{}", stderr(&out));

    // Mid-run: the journal's file may grow to 1 KiB (the spec line fits, the replies do not).
    let line = format!(
        "trap '' XFSZ; ulimit -f 1; exec {} run Q? --panel openai/a,openai/b --no-judge -q",
        env!("CARGO_BIN_EXE_agon")
    );
    let mut cmd = env.command("sh");
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(["-c", &line]);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("writing the journal") && said.contains("journal.ndjson"), "names the file: {said}");
    let hint = said.find("agon resume ").map(|i| &said[i..]).unwrap_or_default();
    assert!(!hint.is_empty(), "says how to continue: {said}");
    let resumed = agon(&env, &server, &["resume", "last", "-q"]);
    assert_eq!(resumed.status.code(), Some(0), "and that works: {}", stderr(&resumed));
}

#[test]
fn a_piped_run_says_its_outcome_once() {
    let env = Sandbox::new("small", "outcome-once");
    let mut config = Config::default();
    config.models.insert("c".into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let out =
        agon(&env, &server, &["run", "Q?", "--panel", "openai/a,openai/b,openai/c", "--no-judge", "--retries", "0"]);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stderr(&out).matches("Outcome: Degraded").count(), 1, "{}", stderr(&out));
}

#[test]
fn doctor_verdicts_hold_for_one_endpoint_and_commands_are_called() {
    let env = Sandbox::new("small", "doctor");
    let cache = env.root.join("cache");
    let mut config = Config::default();
    config.models.insert("b".into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    let broken = TestServer::start(config, 0).unwrap();
    let healthy = TestServer::start(Config::default(), 0).unwrap();
    let with_cache = |server: &TestServer, args: &[&str]| {
        let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
        cmd.env("AGON_CACHE_DIR", &cache).env("OPENAI_BASE_URL", format!("{}/v1", server.url()));
        cmd.args(args).output().unwrap()
    };
    let out = with_cache(&broken, &["doctor", "openai/a", "openai/b", "--timeout", "5"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let args = ["run", "Q?", "--panel", "openai/a,openai/b,openai/c", "--no-judge", "-q"];
    let out = with_cache(&broken, &args);
    assert!(stderr(&out).contains("leaving out the seat openai/b"), "dead where it was found: {}", stderr(&out));
    let out = with_cache(&healthy, &args);
    assert!(!stderr(&out).contains("leaving out"), "another endpoint is another seat: {}", stderr(&out));
    assert!(healthy.stats().requests.iter().any(|r| r.model == "b"), "the seat was asked");

    // A command model is called too (issue 14): `cat` answers with the prompt it was given.
    std::fs::write(env.root.join("own.toml"), "[commands.mine]\nprogram = \"cat\"\n").unwrap();
    let out = with_cache(&healthy, &["--config", "own.toml", "doctor", "cmd/mine"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("ok    cmd/mine: answered in"), "{said}");
}

#[test]
fn a_closed_stdout_ends_agon_quietly_as_sigpipe_would() {
    // The read end is closed before agon starts: its first line fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agon"))
        .arg("protocols")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "no panic report");
}

/// A flag given twice takes its last value, so a wrapper's defaults can be
/// overridden: `scripts/demo.sh "Q" --rounds 2` after the script's `--rounds 1`.
#[test]
fn a_flag_given_again_replaces_the_earlier_one() {
    let env = Sandbox::new("small-fixes", "override");
    let out = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(["spec", "Q?", "--panel", "openai/a,openai/b", "--rounds", "1", "--max-tokens", "120"])
        .args(["--rounds", "2", "--max-tokens", "40"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let spec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(spec["rounds"], 2, "{spec}");
    assert_eq!(spec["limits"]["max_tokens"], 40, "{spec}");
    // A flag that collects values still collects them all.
    let out = env
        .command(env!("CARGO_BIN_EXE_agon"))
        .args(["spec", "Q?", "--protocol", "comparative", "--panel", "openai/a,openai/b"])
        .args(["--option", "trains", "--option", "buses"])
        .output()
        .unwrap();
    let spec: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(spec["protocol"]["options"], serde_json::json!(["trains", "buses"]), "{spec}");
}
