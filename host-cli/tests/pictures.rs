//! Pictures in the session folder: a run writes the engine's SVGs beside
//! `transcript.md`, and its call timings to `timings.ndjson` (never to the
//! journal); `agon show --timeline` draws those timings as text bars; the
//! HTML export shows the pictures inline.

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

#[test]
fn a_run_keeps_its_pictures_and_timings_and_shows_the_timeline() {
    let sandbox = Sandbox::new("pictures-e2e", "consensus");
    let case = agon_testkit::cases::CASES.iter().find(|c| c.protocol == "consensus-check").unwrap();
    let server = TestServer::start(case.config(Config { latency_ms: 30, ..Default::default() }), 0).unwrap();
    let agon = |args: &[&str]| {
        let mut cmd = sandbox.command(env!("CARGO_BIN_EXE_agon"));
        cmd.args(args).env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("OPENAI_API_KEY", "sk-test");
        cmd.output().unwrap()
    };
    let mut args = case.run_args("");
    args.push("--quiet");
    let out = agon(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let root = sandbox.root.join("data");
    let dir = std::fs::read_dir(&root).unwrap().next().unwrap().unwrap().path();
    let stance = std::fs::read_to_string(dir.join("stance-map.svg")).expect("a stance map beside transcript.md");
    assert!(stance.starts_with("<svg ") && stance.contains("role=\"img\"") && stance.contains("class=\"consensus\""));

    let timings = std::fs::read_to_string(dir.join("timings.ndjson")).expect("the call timings");
    let lines: Vec<serde_json::Value> = timings.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let journal = std::fs::read_to_string(dir.join("journal.ndjson")).unwrap();
    assert_eq!(lines.len(), journal.lines().count() - 1, "one attempt a call, each one answered");
    for t in &lines {
        assert!(t["end_ms"].as_u64() >= t["start_ms"].as_u64() && t["ok"] == true, "{t}");
    }
    assert!(!journal.contains("start_ms"), "time stays out of the journal");
    let timeline = std::fs::read_to_string(dir.join("timeline.svg")).expect("the timeline");
    assert!(timeline.contains(&format!("{} call attempts", lines.len())), "{timeline}");

    let shown = text(&agon(&["show", "last", "--timeline"]).stdout);
    assert!(shown.starts_with(&format!("{} call attempts over ", lines.len())), "{shown}");
    assert!(shown.contains("\na\n") && shown.contains("\njudge\n") && shown.contains('█'), "{shown}");
    assert!(shown.contains("round 1 attempt 1 openai/a answered"), "{shown}");

    let page = text(&agon(&["export", "last", "--format", "html"]).stdout);
    let pictures = &page[page.find("<h2 id=\"pictures\">Pictures</h2>").expect("a pictures section")..];
    assert!(pictures.contains("<figure data-name=\"stance-map.svg\"><svg "), "{pictures}");
    assert!(pictures.contains("<figure data-name=\"timeline.svg\"><svg "), "{pictures}");

    // Each picture stands alone: its title and the debate's question in view.
    let question = case.run_args("")[1];
    assert_eq!(question, "Should we ship?");
    for svg in [&stance, &timeline] {
        assert!(svg.contains("<text class=\"title\""), "{svg}");
        assert!(
            svg.contains(&format!("<text class=\"question\" x=\"8\" y=\"38\" fill=\"#333333\">{question}</text>")),
            "{svg}"
        );
    }
    // `export --format svg`: the main picture (here the stance map), to stdout or a file.
    let out = agon(&["export", "last", "--format", "svg"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), stance);
    let file = sandbox.root.join("map.svg");
    let out = agon(&["export", "last", "--format", "svg", "--output", file.to_str().unwrap()]);
    assert!(out.status.success() && out.stdout.is_empty(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), stance);
}

#[test]
fn export_svg_without_a_stance_map_gives_the_timeline_and_without_any_picture_says_so() {
    let sandbox = Sandbox::new("pictures-svg", "round-robin");
    let case = agon_testkit::cases::CASES.iter().find(|c| c.protocol == "round-robin").unwrap();
    let server = TestServer::start(case.config(Config::default()), 0).unwrap();
    let agon = |args: &[&str]| {
        let mut cmd = sandbox.command(env!("CARGO_BIN_EXE_agon"));
        cmd.args(args).env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("OPENAI_API_KEY", "sk-test");
        cmd.output().unwrap()
    };
    let mut args = case.run_args("");
    args.push("--quiet");
    assert!(agon(&args).status.success());
    let dir = std::fs::read_dir(sandbox.root.join("data")).unwrap().next().unwrap().unwrap().path();
    let out = agon(&["export", "last", "--format", "svg"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), std::fs::read_to_string(dir.join("timeline.svg")).unwrap());

    // No timings kept (as after `agon batch`), no chart, no consensus check: no picture, said plainly.
    std::fs::remove_file(dir.join("timings.ndjson")).unwrap();
    let out = agon(&["export", "last", "--format", "svg"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("this session has no picture"), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
}
