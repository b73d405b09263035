//! `agon doctor` against the project's test server, and `agon run` leaving
//! out the seat it found dead.

use std::path::PathBuf;
use std::process::{Command, Output};

use agon_testkit::{Config, Fault, ModelScript, TestServer};

fn dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agon-doctor-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn agon(server: &TestServer, cache: &PathBuf, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agon"))
        .args(args)
        .current_dir(cache)
        .env("AGON_CACHE_DIR", cache)
        .env("AGON_DATA_DIR", cache.join("sessions"))
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test-doctor")
        .env("XDG_CONFIG_HOME", cache.join("config"))
        .env_remove("AGON_CONFIG")
        .output()
        .unwrap()
}

#[test]
fn doctor_reports_each_model_and_run_leaves_out_the_dead_one() {
    let mut config = Config::default();
    config.models.insert("dead".into(), ModelScript { fault: Some(Fault::ServerError), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let cache = dir("dead");
    std::fs::write(cache.join("agon.toml"), "[panels.trio]\nmodels = [\"openai/a\", \"openai/dead\", \"openai/b\"]\n")
        .unwrap();

    let out = agon(&server, &cache, &["doctor"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a dead model makes doctor fail: {stdout}");
    assert!(stdout.contains("ok    openai/a"), "{stdout}");
    assert!(stdout.contains("dead  openai/dead: HTTP 500"), "{stdout}");
    assert!(stdout.contains("2 of 3 answered"), "{stdout}");
    assert!(cache.join("doctor.json").exists());

    let before = server.stats().requests.len();
    let out = agon(&server, &cache, &["run", "Q?", "--panel", "trio", "--rounds", "1", "--quiet", "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("leaving out the seat openai/dead"), "{stderr}");
    let transcript: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let models: Vec<&str> =
        transcript["participants"].as_array().unwrap().iter().map(|p| p["model"].as_str().unwrap()).collect();
    assert_eq!(models, ["openai/a", "openai/b"]);
    let asked_dead = server.stats().requests[before..].iter().filter(|r| r.model == "dead").count();
    assert_eq!(asked_dead, 0, "the dead seat was not called");
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn nothing_configured_says_how_to_name_models() {
    let server = TestServer::start(Config::default(), 0).unwrap();
    let cache = dir("empty");
    let out = agon(&server, &cache, &["doctor"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains("agon doctor openai/"));
    let out = agon(&server, &cache, &["doctor", "openai/x"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let _ = std::fs::remove_dir_all(cache);
}

/// A command model is called like every other: a tiny prompt, a timeout, and
/// for what failed, why and what to do.
#[cfg(unix)]
#[test]
fn doctor_calls_command_models_and_says_what_failed() {
    use std::os::unix::fs::PermissionsExt;
    let server = TestServer::start(Config::default(), 0).unwrap();
    let cache = dir("commands");
    let script = |name: &str, body: &str| {
        let path = cache.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    // It must have read the prompt from stdin to answer.
    let answers = script("answers.sh", "grep -q 'Reply with the word OK' && echo OK");
    let hangs = script("hangs.sh", "cat >/dev/null; sleep 30; echo late");
    let fails = script("fails.sh", "cat >/dev/null; echo 'not logged in' >&2; exit 3");
    let config = cache.join("commands.toml");
    std::fs::write(
        &config,
        format!(
            "[commands.answers]\nprogram = \"{answers}\"\n[commands.hangs]\nprogram = \"{hangs}\"\ntimeout = 600\n\
             [commands.fails]\nprogram = \"{fails}\"\n"
        ),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let out = agon(&server, &cache, &["--config", config.to_str().unwrap(), "doctor", "--timeout", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "the hang outlived the probe's timeout");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ok    cmd/answers: answered in"), "{stdout}");
    assert!(stdout.contains("dead  cmd/hangs: cmd/hangs: no answer within 1 s"), "{stdout}");
    assert!(stdout.contains("agon doctor --timeout"), "{stdout}");
    assert!(stdout.contains("dead  cmd/fails: cmd/fails: exit code 3: not logged in"), "{stdout}");
    assert!(stdout.contains("by hand"), "{stdout}");
    assert!(stdout.contains("1 of 3 answered"), "{stdout}");
    let _ = std::fs::remove_dir_all(cache);
}
