//! Sizes are bounded: a reply larger than `--max-reply` (default 4 MiB, or
//! `max_reply` in agon.toml) fails its call as a provider error that says so,
//! streamed or whole, and none of it is kept; a long journal replays a line
//! at a time.

use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, ModelScript, TestServer};
use serde_json::Value;

const RUN: [&str; 11] = [
    "run",
    "Tram?",
    "--panel",
    "openai/a,openai/b,openai/huge",
    "--no-judge",
    "--rounds",
    "1",
    "-q",
    "--retries",
    "0",
    "--format",
];

fn server(huge: usize) -> TestServer {
    let mut config = Config::default();
    let reply = format!("{} end", "x".repeat(huge));
    config.models.insert("huge".into(), ModelScript { replies: vec![reply; 4], ..Default::default() });
    TestServer::start(config, 0).unwrap()
}

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(args).output().unwrap()
}

/// The run's failure for the `huge` seat, checked to say why; and the journal stayed small.
fn assert_refused_huge(env: &Sandbox, out: &Output, limit: &str) {
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failure = &t["outcome"]["failures"][0];
    assert_eq!(failure["kind"], "provider-error", "{failure}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("larger than the limit of {limit}")) && message.contains("--max-reply"),
        "{message}"
    );
    let data = env.root.join("data");
    for session in std::fs::read_dir(data).unwrap().flatten() {
        let size = std::fs::metadata(session.path().join("journal.ndjson")).unwrap().len();
        assert!(size < 64 << 10, "nothing of the reply was kept: {size} bytes");
    }
}

#[test]
fn a_reply_past_the_default_limit_fails_its_call_streamed_or_whole() {
    let env = Sandbox::new("limits", "default");
    let server = server(5 << 20);
    let out = agon(&env, &server, &[&RUN[..], &["json"]].concat());
    assert_refused_huge(&env, &out, "4 MiB");
    let out = agon(&env, &server, &[&RUN[..], &["json", "--no-stream"]].concat());
    assert_refused_huge(&env, &out, "4 MiB");
}

/// A reply and a prompt many times a connection's HTTP buffers (32 KiB each
/// way) pass whole, streamed or not: the buffers bound nothing a debate sends
/// or reads.
#[test]
fn replies_and_prompts_larger_than_the_http_buffers_pass_whole() {
    let env = Sandbox::new("limits", "buffers");
    let server = server(1 << 20);
    let context = format!("{} end of context", "c".repeat(100 << 10));
    for stream in [&[][..], &["--no-stream"][..]] {
        let out = agon(&env, &server, &[&RUN[..], &["json", "--context", &context], stream].concat());
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let t: Value = serde_json::from_slice(&out.stdout).unwrap();
        let huge = t["turns"].as_array().unwrap().iter().find(|turn| turn["speaker"] == "huge").expect("huge's turn");
        let text = huge["text"].as_str().unwrap();
        assert!(text.len() > 1 << 20 && text.ends_with(" end"), "the whole reply: {} bytes", text.len());
    }
    let seen = server.stats().requests;
    assert!(!seen.is_empty());
    for request in &seen {
        assert!(
            request.messages.to_string().contains(" end of context"),
            "the whole context reached {}",
            request.model
        );
    }
}

#[test]
fn the_limit_is_a_flag_and_a_setting() {
    let env = Sandbox::new("limits", "flag");
    let server = server(3000);
    let out = agon(&env, &server, &[&RUN[..], &["json", "--max-reply", "2K"]].concat());
    assert_refused_huge(&env, &out, "2 KiB");
    let out = agon(&env, &server, &[&RUN[..], &["json", "--max-reply", "0"]].concat());
    assert_eq!(out.status.code(), Some(2), "zero is no limit anyone means");

    let own = env.root.join("config").join("agon");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(own.join("agon.toml"), "[defaults]\nmax_reply = \"2K\"\n").unwrap();
    let out = agon(&env, &server, &[&RUN[..], &["json"]].concat());
    assert_refused_huge(&env, &out, "2 KiB");
    let out = agon(&env, &server, &[&RUN[..], &["json", "--max-reply", "8K"]].concat());
    assert_eq!(out.status.code(), Some(0), "the flag wins: {}", String::from_utf8_lossy(&out.stderr));
}

/// Replay reads a journal as it goes: given a pipe whose writer has sent a
/// bad second line but not closed it, replay names that line and ends at
/// once. Reading the journal whole first, it would wait for the end of the
/// pipe, which only comes after it (or, for a broken replay, after a minute).
#[test]
fn replay_reads_the_journal_a_line_at_a_time() {
    use std::io::Write;
    let env = Sandbox::new("limits", "replay-stream");
    let server = server(10);
    let out = agon(&env, &server, &["run", "Q?", "--panel", "openai/a,openai/b", "--no-judge", "-q"]);
    assert_eq!(out.status.code(), Some(0));
    let data = env.root.join("data");
    let session = std::fs::read_dir(&data).unwrap().flatten().next().unwrap().path();
    let journal = std::fs::read_to_string(session.join("journal.ndjson")).unwrap();
    let header = journal.lines().next().unwrap();

    let fifo = env.root.join("journal.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    let mut child = cmd
        .args(["replay", fifo.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The writer opens the pipe once replay does, and holds it open until told.
    let (done, release) = std::sync::mpsc::channel::<()>();
    let lines = format!("{header}\n{{\"type\":\"reply\",\"id\":999,\"text\":\"to nothing\"}}\n");
    let path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        pipe.write_all(lines.as_bytes()).unwrap();
        let _ = release.recv();
    });

    // Wait for replay with the pipe still open; a minute is only a safety valve.
    let mut status = None;
    for _ in 0..6000 {
        status = child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let ended_on_its_own = status.is_some();
    drop(done);
    // A writer whose reader never came is blocked opening the pipe: a reader
    // unblocks it. Opened without blocking, since the writer may also have
    // just ended, and a blocking open would then wait for ever.
    let unblock = {
        use std::os::unix::fs::OpenOptionsExt;
        const O_NONBLOCK: i32 = 0o4000; // Linux
        std::fs::OpenOptions::new().read(true).custom_flags(O_NONBLOCK).open(&fifo)
    };
    let _ = writer.join();
    drop(unblock);
    let status = status.unwrap_or_else(|| {
        let _ = child.kill();
        child.wait().unwrap()
    });
    assert!(ended_on_its_own, "replay waited for the whole journal before reading its second line");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 2") && stderr.contains("999"), "{stderr}");
}
