//! The component itself: it imports nothing, and inside wasmtime it gives
//! exactly what the native core gives for every golden case.

use std::path::{Path, PathBuf};

use agon_cli::engine::{Code, Runtime, component, wit};
use agon_cli::provider::convert;
use agon_core::script::ScriptEntry;

#[test]
fn the_component_imports_nothing() {
    let mut imports = Vec::new();
    let mut top_level_components = 0;
    let mut depth = 0;
    for payload in wasmparser::Parser::new(0).parse_all(&component()) {
        match payload.unwrap() {
            wasmparser::Payload::Version { encoding, .. } => {
                if depth == 0 && encoding == wasmparser::Encoding::Component {
                    top_level_components += 1;
                }
                depth += 1;
            }
            wasmparser::Payload::ComponentImportSection(section) if depth == 1 => {
                for import in section {
                    imports.push(import.unwrap().name.name.to_string());
                }
            }
            wasmparser::Payload::End(_) => depth -= 1,
            _ => {}
        }
    }
    assert_eq!(top_level_components, 1, "expected a component, not a core module");
    assert!(imports.is_empty(), "the component imports {imports:?}");
    // And it exports the engine interface at the version the WIT declares.
    let wit = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit/debate.wit")).unwrap();
    assert!(wit.contains("package agon:debate@0.1.0;"));
    assert!(component().windows(b"agon:debate/engine@0.1.0".len()).any(|w| w == b"agon:debate/engine@0.1.0"));
}

fn golden_cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("spec.json").exists()).collect();
    cases.sort();
    cases
}

fn phase_name(p: wit::Phase) -> &'static str {
    match p {
        wit::Phase::Blind => "blind",
        wit::Phase::Opening => "opening",
        wit::Phase::Deliberation => "deliberation",
        wit::Phase::CrossExam => "cross-exam",
        wit::Phase::Rebuttal => "rebuttal",
        wit::Phase::Critique => "critique",
        wit::Phase::Response => "response",
        wit::Phase::Vote => "vote",
        wit::Phase::Ranking => "ranking",
        wit::Phase::Assumptions => "assumptions",
        wit::Phase::Single => "single",
        wit::Phase::Synthesis => "synthesis",
        wit::Phase::Summary => "summary",
        wit::Phase::Confirmation => "confirmation",
    }
}

/// The golden replay rule (see agon_core::script), driven through the
/// component in both its compiled forms: the native code every run uses (in
/// place, mapped from the binary's file, and copied where that cannot be), and
/// the portable fallback.
#[test]
fn the_component_replays_every_golden_case_byte_for_byte() {
    replay_every_golden_case(Code::Native);
}

#[test]
fn the_copied_native_code_replays_every_golden_case_byte_for_byte() {
    replay_every_golden_case(Code::NativeCopied);
}

#[test]
fn the_portable_fallback_replays_every_golden_case_byte_for_byte() {
    replay_every_golden_case(Code::Portable);
}

/// `poll-json` is for hosts where each value across the boundary is costly
/// (the Python SDK drains with it): every output must be the one `poll` gives,
/// in the WIT's shape, which serde over this host's own WIT types also writes.
#[test]
fn poll_json_gives_every_output_poll_gives_for_every_golden_case() {
    let mut runtime = Runtime::load_code(Code::Native).unwrap();
    for case in golden_cases() {
        let journal = std::fs::read_to_string(case.join("journal.ndjson")).unwrap();
        let mut by_poll = Vec::new();
        {
            let mut council = runtime.from_journal(&journal).unwrap().unwrap();
            loop {
                let output = council.poll().unwrap();
                let done = matches!(output, wit::Output::Done(_));
                by_poll.push(serde_json::to_value(&output).unwrap());
                if done {
                    break;
                }
            }
        }
        let mut by_json = Vec::new();
        let mut council = runtime.from_journal(&journal).unwrap().unwrap();
        while by_json.last().is_none_or(|last: &serde_json::Value| last.get("Done").is_none()) {
            let drained: Vec<serde_json::Value> = serde_json::from_str(&council.poll_json().unwrap()).unwrap();
            assert!(!drained.is_empty(), "{}: poll-json gave nothing", case.display());
            by_json.extend(drained);
        }
        assert_eq!(by_json, by_poll, "{}", case.display());
    }
}

fn replay_every_golden_case(code: Code) {
    let mut runtime = Runtime::load_code(code).unwrap();
    let cases = golden_cases();
    assert!(cases.len() >= 20, "every protocol has a golden case");
    for case in cases {
        let spec = std::fs::read_to_string(case.join("spec.json")).unwrap();
        let script: Vec<ScriptEntry> =
            serde_json::from_str(&std::fs::read_to_string(case.join("script.json")).unwrap()).unwrap();
        let mut council = runtime.create(&spec).unwrap().unwrap();
        let mut used = vec![false; script.len()];
        let mut outstanding: Vec<wit::ModelRequest> = Vec::new();
        let mut events = String::new();
        let mut journal = council.journal().unwrap();
        'drive: loop {
            loop {
                match council.poll().unwrap() {
                    wit::Output::Request(r) => outstanding.push(r),
                    wit::Output::Event(e) => {
                        events.push_str(&e.json);
                        events.push('\n');
                    }
                    wit::Output::Idle => break,
                    wit::Output::Done(_) => break 'drive,
                }
            }
            let (i, k) = script
                .iter()
                .enumerate()
                .filter(|(i, _)| !used[*i])
                .find_map(|(i, entry)| {
                    outstanding
                        .iter()
                        .position(|r| {
                            r.seat == entry.seat
                                && phase_name(r.phase) == entry.phase.as_str()
                                && r.round == entry.round
                        })
                        .map(|k| (i, k))
                })
                .expect("script covers the case");
            used[i] = true;
            let request = outstanding.remove(k);
            let entry = &script[i];
            let input = match &entry.fail {
                Some(f) => wit::Input::Failed(wit::Failure {
                    id: request.id,
                    kind: convert::failure_kind(f.kind),
                    message: f.message.clone(),
                    usage: entry.usage.map(convert::usage),
                }),
                None => wit::Input::Reply(wit::Reply {
                    id: request.id,
                    text: entry.text.clone().unwrap_or_default(),
                    usage: entry.usage.map(convert::usage),
                    stop: entry.stop.map(convert::stop),
                    model: entry.model.clone(),
                }),
            };
            journal.push_str(&council.handle(&input).unwrap().unwrap());
        }
        let read = |name: &str| std::fs::read_to_string(case.join(name)).unwrap();
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        assert_eq!(events, read("events.ndjson"), "{name}: events");
        assert_eq!(journal, read("journal.ndjson"), "{name}: journal");
        assert_eq!(council.journal().unwrap(), read("journal.ndjson"), "{name}: journal()");
        assert_eq!(council.transcript_json().unwrap(), read("transcript.json"), "{name}: transcript.json");
        assert_eq!(council.transcript_markdown().unwrap(), read("transcript.md"), "{name}: transcript.md");
    }
}

#[test]
fn engine_errors_cross_the_boundary_typed() {
    let mut runtime = Runtime::load().unwrap();
    let err = runtime
        .validate_spec(r#"{"question": "q", "panel": [], "protocol": {"name": "round-robin"}}"#)
        .unwrap()
        .unwrap_err();
    assert!(matches!(&err.0.kind, wit::ErrorKind::InvalidSpec(e) if e.field == "panel"), "{err}");
    // The message is the core's own sentence, carried across the boundary.
    assert!(err.0.message.starts_with("invalid spec: panel: "), "{err}");
    let spec = std::fs::read_to_string(golden_cases()[0].join("spec.json")).unwrap();
    let mut council = runtime.create(&spec).unwrap().unwrap();
    let bogus = wit::Input::Reply(wit::Reply { id: 999, text: "x".into(), usage: None, stop: None, model: None });
    let err = council.handle(&bogus).unwrap().unwrap_err();
    assert!(matches!(err.0.kind, wit::ErrorKind::UnknownRequest(999)));
    assert_eq!(err.to_string(), "no request with id 999 was released");
}

#[test]
fn role_files_parse_in_the_component_with_line_numbers() {
    let mut runtime = Runtime::load().unwrap();
    let builtin = runtime.builtin_roles().unwrap();
    assert_eq!(builtin.len(), 5);
    let judge = runtime.parse_role(&builtin[4]).unwrap().unwrap();
    assert!(judge.participates_in_stage3 && !judge.participates_in_stage1);
    let err =
        runtime.parse_role("---\nrole_id: x\nmodel: m\nparticipates_in_stage1: perhaps\n---\n").unwrap().unwrap_err();
    assert!(matches!(&err.0.kind, wit::ErrorKind::InvalidRole(e) if e.line == 4), "{err}");
}

/// A first run on a fresh machine compiles nothing and writes nothing: the
/// component was compiled when agon was built.
#[test]
fn a_first_run_with_an_empty_home_writes_no_cache() {
    let home = std::env::temp_dir().join(format!("agon-empty-home-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agon"))
        .arg("protocols")
        .env("HOME", &home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("AGON_CACHE_DIR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("rotating-challenger"));
    assert!(out.stderr.is_empty(), "no fallback warning: {}", String::from_utf8_lossy(&out.stderr));
    let written: Vec<_> = walk(&home);
    assert!(written.is_empty(), "a run wrote {written:?}");
    std::fs::remove_dir_all(&home).unwrap();
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flat_map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() { walk(&path).into_iter().chain([path]).collect() } else { vec![path] }
        })
        .collect()
}
