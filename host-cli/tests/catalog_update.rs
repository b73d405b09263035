//! `agon models --update` against a local server serving a catalog in
//! models.dev's shape (tests/catalog/api.json, see its SOURCES.md): fetched,
//! checked, trimmed by the shipped snapshot's rule and kept in the data
//! folder; `agon models` then says which catalog is in use and its date. A
//! document that does not check out is refused and changes nothing.

use std::process::Output;

use agon_testkit::file_server::FileServer;
use agon_testkit::sandbox::Sandbox;
use serde_json::{Value, json};

const FIXTURE: &str = include_str!("../../tests/catalog/api.json");

fn agon(sandbox: &Sandbox, url: &str, args: &[&str]) -> Output {
    sandbox.command(env!("CARGO_BIN_EXE_agon")).env("AGON_MODELS_URL", url).args(args).output().unwrap()
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The fixture with one model added and one repriced, as a newer catalog would have them.
fn newer() -> Vec<u8> {
    let mut api: Value = serde_json::from_str(FIXTURE).unwrap();
    let models = api["openai"]["models"].as_object_mut().unwrap();
    let mut added = models["gpt-4o"].clone();
    added["id"] = json!("gpt-4o-2099");
    added["name"] = json!("GPT-4o 2099");
    models.insert("gpt-4o-2099".into(), added);
    api["anthropic"]["models"]["claude-sonnet-4-5"]["cost"]["input"] = json!(2.5);
    serde_json::to_vec(&api).unwrap()
}

#[test]
fn a_fetched_catalog_is_kept_and_used_by_later_runs() {
    let sandbox = Sandbox::new("catalog_update", "kept");
    let server = FileServer::start(vec![("/api.json".into(), 200, newer())]).unwrap();
    let url = format!("{}/api.json", server.url());

    // Before: the shipped snapshot, and how to fetch the newest.
    let (before, _) = text(&agon(&sandbox, &url, &["models", "openai/gpt-4o"]));
    assert!(before.contains("the shipped snapshot of 2026-08-18"), "{before}");
    assert!(before.contains("agon models --update"), "{before}");

    let out = agon(&sandbox, &url, &["models", "--update"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(server.served(), 1);
    assert!(stdout.contains(&format!("from {url}, kept in ")), "{stdout}");
    assert!(stdout.contains("new: openai/gpt-4o-2099"), "{stdout}");
    assert!(stdout.contains("new prices: anthropic/claude-sonnet-4-5"), "{stdout}");
    let kept = sandbox.root.join("data/catalog.json");
    assert!(kept.is_file(), "kept in the data folder");

    // After: every run reads it, and `agon models` says so.
    let (after, stderr) = text(&agon(&sandbox, &url, &["models", "gpt-4o"]));
    assert!(after.contains("the catalog fetched "), "{after}{stderr}");
    assert!(after.contains("the shipped snapshot of 2026-08-18 is the fallback"), "{after}");
    assert!(after.contains("openai/gpt-4o-2099"), "{after}");
    let (lines, _) = text(&agon(&sandbox, &url, &["models", "anthropic/claude-sonnet-4-5", "--json"]));
    let row: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!(row["price"]["input"], json!(2.5), "{row}");

    // A broken kept file: the snapshot, and a note saying so.
    std::fs::write(&kept, "{").unwrap();
    let (fallback, note) = text(&agon(&sandbox, &url, &["models", "openai/gpt-4o"]));
    assert!(fallback.contains("the shipped snapshot of 2026-08-18"), "{fallback}");
    assert!(note.contains("cannot be read") && note.contains("agon models --update"), "{note}");
}

#[test]
fn a_document_that_does_not_check_out_changes_nothing() {
    let sandbox = Sandbox::new("catalog_update", "refused");
    let mut cut: Value = serde_json::from_str(FIXTURE).unwrap();
    cut["anthropic"]["models"] = json!({});
    let mut priced: Value = serde_json::from_str(FIXTURE).unwrap();
    priced["openai"]["models"]["gpt-4o"]["cost"]["output"] = json!(150_000.0);
    let server = FileServer::start(vec![
        ("/html".into(), 200, b"<html>models</html>".to_vec()),
        ("/cut".into(), 200, serde_json::to_vec(&cut).unwrap()),
        ("/priced".into(), 200, serde_json::to_vec(&priced).unwrap()),
        ("/gone".into(), 503, b"{}".to_vec()),
    ])
    .unwrap();
    for (path, says) in [
        ("/html", "sent no JSON catalog"),
        ("/cut", "has no anthropic/ model"),
        ("/priced", "openai.models.gpt-4o.cost.output"),
        ("/gone", "HTTP 503 from"),
    ] {
        let url = format!("{}{path}", server.url());
        let out = agon(&sandbox, &url, &["models", "--update"]);
        let (stdout, stderr) = text(&out);
        assert!(!out.status.success(), "{path}: {stdout}");
        assert!(stderr.contains(says) && stderr.contains("the catalog in use is unchanged"), "{path}: {stderr}");
        assert!(!sandbox.root.join("data/catalog.json").exists(), "{path}: nothing kept");
    }
    let out = agon(&sandbox, "http://127.0.0.1:1/api.json", &["models", "--update", "--json"]);
    assert!(text(&out).1.contains("--update fetches the catalog and shows nothing"), "{}", text(&out).1);
}
