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
    let path = std::env::var_os("PATH").unwrap_or_default();
    bare(server, cache, args, |c| c.env("PATH", path)).output().unwrap()
}

/// [`machine`] with the test server as OpenAI's address, then `more`.
fn bare(
    server: &TestServer,
    cache: &PathBuf,
    args: &[&str],
    more: impl FnOnce(&mut Command) -> &mut Command,
) -> Command {
    let mut command = machine(cache);
    command.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(args);
    more(&mut command);
    command
}

/// `agon` on a machine of the test's making: only the OpenAI key is set, the
/// local servers' addresses answer nothing, and PATH is `CACHE/bin`, so
/// discovery finds exactly what the test put there.
fn machine(cache: &PathBuf) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agon"));
    command
        .current_dir(cache)
        .env("AGON_CACHE_DIR", cache)
        .env("AGON_DATA_DIR", cache.join("sessions"))
        .env("OPENAI_API_KEY", "sk-test-doctor")
        .env("XDG_CONFIG_HOME", cache.join("config"))
        .env("PATH", cache.join("bin"))
        .env_remove("AGON_CONFIG");
    for var in ["ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "TOGETHER_API_KEY"] {
        command.env_remove(var);
    }
    for var in ["DEEPSEEK_API_KEY", "MOONSHOT_API_KEY", "XAI_API_KEY"] {
        command.env_remove(var);
    }
    for var in ["LMSTUDIO_BASE_URL", "VLLM_BASE_URL", "LLAMACPP_BASE_URL"] {
        command.env(var, "http://127.0.0.1:9/v1");
    }
    command.env("OLLAMA_HOST", "http://127.0.0.1:9");
    command
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

/// Seed 004's preflight: with nothing configured, doctor lists what this
/// machine offers — a key that is set, a coding agent's CLI on PATH (and its
/// version) — and `agon run` with no panel seats it, saying so first.
#[test]
#[cfg(unix)]
fn with_nothing_configured_doctor_finds_what_the_machine_offers_and_run_seats_it() {
    use std::os::unix::fs::PermissionsExt;
    let server = TestServer::start(Config::default(), 0).unwrap();
    let cache = dir("empty");
    std::fs::create_dir_all(cache.join("bin")).unwrap();
    let here = |args: &[&str]| bare(&server, &cache, args, |c| c).output().unwrap();
    let out = here(&["doctor"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("key      openai: OPENAI_API_KEY is set"), "{stdout}");
    // A key seats its lab's council, by the catalog's rule, with a judge off the panel.
    assert!(
        stdout.contains("would seat 3 current models of openai, the only lab whose key is set")
            && stdout.contains(" · judge openai/"),
        "{stdout}"
    );
    let out = here(&["doctor", "--json"]);
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines, [serde_json::json!({"kind": "key", "provider": "openai", "variable": "OPENAI_API_KEY"})]);

    // A coding agent's CLI on PATH: shell builtins only, as PATH holds nothing else.
    let codex = cache.join("bin/codex");
    std::fs::write(
        &codex,
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'codex-cli 9.9 (test)'; exit 0; fi\n\
         while read -r line; do :; done\necho 'The fake agent answers: yes.'\n",
    )
    .unwrap();
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Without the key, the program is what there is.
    let here = |args: &[&str]| bare(&server, &cache, args, |c| c.env_remove("OPENAI_API_KEY")).output().unwrap();
    let out = here(&["doctor"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("program  cmd/codex:") && stdout.contains("(codex-cli 9.9 (test))"), "{stdout}");
    assert!(stdout.contains("would seat the coding agents' CLIs found on PATH: cmd/codex"), "{stdout}");
    let out = here(&["run", "Q?", "--rounds", "1", "--quiet", "--format", "json", "--no-save"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("no panel given; seating the coding agents' CLIs found on PATH: cmd/codex · judge cmd/codex, the first seat's"),
        "{stderr}"
    );
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(t["turns"][0]["text"], "The fake agent answers: yes.");
    let _ = std::fs::remove_dir_all(cache);
}

/// Nothing found and nothing given: one line with the next step, never the
/// engine's "the panel is empty".
#[test]
fn with_nothing_found_run_and_doctor_say_what_to_do() {
    let cache = dir("nothing");
    let out = machine(&cache).env_remove("OPENAI_API_KEY").args(["run", "Q?"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no panel given and none found") && stderr.contains("--panel"), "{stderr}");
    let out = machine(&cache).env_remove("OPENAI_API_KEY").args(["doctor"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing: set a provider's key"));
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

/// A wrong key gets 401 (Gemini: 400 API_KEY_INVALID): doctor says the key
/// was refused and keeps nothing, so once the key is fixed `agon run` seats
/// the model at once instead of leaving it out for a day.
#[test]
fn a_refused_key_is_shown_but_never_kept_as_a_dead_model() {
    let mut config = Config::default();
    // The probe's call is refused; every call after it (the key fixed) answers.
    let refused_once = ModelScript { fault: Some(Fault::Unauthorized), fault_calls: Some(1), ..Default::default() };
    config.models.insert("a".into(), refused_once.clone());
    config.models.insert("gemini-x".into(), refused_once);
    let server = TestServer::start(config, 0).unwrap();
    let cache = dir("key");
    let gemini_url = format!("{}/v1beta", server.url());
    let args = ["doctor", "openai/a", "gemini/gemini-x", "openai/b"];
    let out = bare(&server, &cache, &args, |c| c.env("GEMINI_API_KEY", "wrong").env("GEMINI_BASE_URL", &gemini_url))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "a refused key still fails doctor: {stdout}");
    assert!(stdout.contains("key   openai/a: HTTP 401") && stdout.contains("(check OPENAI_API_KEY)"), "{stdout}");
    assert!(stdout.contains("key   gemini/gemini-x: HTTP 400") && stdout.contains("API key not valid"), "{stdout}");
    assert!(stdout.contains("2 refused the key: not kept"), "{stdout}");
    let kept = std::fs::read_to_string(cache.join("doctor.json")).unwrap();
    assert!(kept.contains("openai/b") && !kept.contains("openai/a") && !kept.contains("gemini-x"), "{kept}");

    let out = bare(&server, &cache, &["doctor", "openai/a", "--json"], |c| c).output().unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((line["healthy"].as_bool(), line["key_refused"].as_bool()), (Some(true), Some(false)), "{line}");

    let out =
        agon(&server, &cache, &["run", "Q?", "--panel", "openai/a,openai/b", "--no-judge", "-q", "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("leaving out") && !stderr.contains("found it dead"), "{stderr}");
    let transcript: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(transcript["participants"].as_array().unwrap().len(), 2, "both seats sat");
    let _ = std::fs::remove_dir_all(cache);
}
