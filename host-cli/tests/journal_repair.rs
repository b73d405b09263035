//! `resume` never shortens a journal before the new content is safe: a last
//! line missing only its newline is completed, a torn one is set aside before
//! it is cut, and a journal the engine cannot read is left as it is.

use std::path::{Path, PathBuf};
use std::process::Output;

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};

const RUN: [&str; 9] = ["run", "Tram?", "--panel", "openai/a,openai/b", "--judge", "openai/j", "--rounds", "1", "-q"];

fn agon(env: &Sandbox, server: &TestServer, args: &[&str]) -> Output {
    let mut cmd = env.command(env!("CARGO_BIN_EXE_agon"));
    cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).args(args).output().unwrap()
}

/// A finished run's session, made to look interrupted: its journal is
/// rewritten by `cut` and its transcripts are gone.
fn session(env: &Sandbox, server: &TestServer, cut: impl Fn(&str) -> String) -> PathBuf {
    let out = agon(env, server, &RUN);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let data = env.root.join("data");
    let dir = std::fs::read_dir(&data).unwrap().flatten().find(|e| e.path().is_dir()).unwrap().path();
    let journal = dir.join("journal.ndjson");
    std::fs::write(&journal, cut(&std::fs::read_to_string(&journal).unwrap())).unwrap();
    for t in ["transcript.json", "transcript.md"] {
        std::fs::remove_file(dir.join(t)).unwrap();
    }
    journal
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_spec_line_without_its_newline_is_completed_never_emptied() {
    let env = Sandbox::new("journal-repair", "header-only");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let journal = session(&env, &server, |j| lines(j)[0].trim_end().to_string());
    let header = read(&journal);

    let out = agon(&env, &server, &["resume", "last", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let after = read(&journal);
    assert!(after.starts_with(&format!("{header}\n")), "the journal kept its spec line: {after:?}");
    assert_eq!(lines(&after).len(), 4, "and every call was made again");
}

#[test]
fn a_torn_last_line_is_set_aside_before_it_is_cut() {
    let env = Sandbox::new("journal-repair", "torn");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let journal = session(&env, &server, |j| {
        let l = lines(j);
        format!("{}{}{}", l[0], l[1], &l[2][..l[2].len() / 2])
    });
    let torn = lines(&read(&journal))[2].to_string();

    let out = agon(&env, &server, &["resume", "last", "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(read(&journal.with_file_name("journal.ndjson.torn")), format!("{torn}\n"), "set aside, not lost");
    assert_eq!(lines(&read(&journal)).len(), 4);
}

#[test]
fn a_journal_the_engine_cannot_read_is_left_as_it_is() {
    let env = Sandbox::new("journal-repair", "unreadable");
    let server = TestServer::start(Config::default(), 0).unwrap();
    let journal = session(&env, &server, |j| lines(j)[0][..20].to_string());
    let before = std::fs::read(&journal).unwrap();
    let out = agon(&env, &server, &["resume", "last", "-q"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("journal.ndjson"));
    assert_eq!(std::fs::read(&journal).unwrap(), before, "not a byte changed");
}
