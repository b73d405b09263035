//! The same 5×5 debate in the other hosts: instruction counts under callgrind
//! (stable on a loaded machine, unlike wall time), and the JS and Python SDKs.

use std::path::{Path, PathBuf};
use std::process::Command;

use agon_bench::{script, spec};
use agon_cli::engine::{Code, Runtime};
use agon_core::Session;
use agon_core::script::play;

/// `agon-bench --instructions native|component N`: set up, then play
/// the debate N times and exit; callgrind counts the whole process, so the
/// cost of one debate is the difference between two values of N.
pub fn run_debates(host: &str, n: usize) {
    let s = spec("rotating-challenger", 5, None);
    let entries = script(5, 600);
    match host {
        "native" => {
            for _ in 0..n {
                play(Session::new(s.clone()).unwrap(), &entries).unwrap();
            }
        }
        "component" => {
            let mut runtime = Runtime::load_code(Code::Native).expect("the component loads");
            let spec_json = s.to_json();
            for _ in 0..n {
                crate::drive_component(&mut runtime, &spec_json, &entries);
            }
        }
        other => panic!("unknown host {other}: native or component"),
    }
}

/// Instructions for one debate in `host`, or why there is no figure.
pub fn instructions(host: &str) -> String {
    let (few, many) = (1, 11);
    let count = |n: usize| -> Option<u64> {
        let out = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(std::env::current_exe().ok()?)
            .args(["--instructions", host, &n.to_string()])
            .output()
            .ok()?;
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err.lines().find(|l| l.contains("Collected :"))?;
        line.rsplit(':').next()?.trim().parse().ok()
    };
    match (count(few), count(many)) {
        (Some(a), Some(b)) if b > a => {
            format!("{:.2} M instructions", (b - a) as f64 / (many - few) as f64 / 1e6)
        }
        _ => "no figure (valgrind missing or failed)".into(),
    }
}

/// Median milliseconds of the debate in the JS SDK (Node) and the Python SDK.
pub fn sdk_rows(root: &Path, runs: usize) -> [(&'static str, String); 2] {
    let dir = std::env::temp_dir().join(format!("agon-bench-sdk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec_file = dir.join("spec.json");
    let script_file = dir.join("script.json");
    std::fs::write(&spec_file, spec("rotating-challenger", 5, None).to_json()).unwrap();
    std::fs::write(&script_file, serde_json::to_string(&script(5, 600)).unwrap()).unwrap();
    let run = |program: PathBuf, file: &str, needs: PathBuf| -> String {
        if !needs.exists() {
            return "not built (scripts/setup-sdk.sh)".into();
        }
        let out = Command::new(program)
            .arg(root.join("bench/sdk").join(file))
            .args([&spec_file, &script_file])
            .arg(runs.to_string())
            .current_dir(root)
            .output();
        let parsed = out.ok().and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok());
        match parsed.and_then(|v| v["median_ms"].as_f64()) {
            Some(ms) => format!("{ms:.2} ms"),
            None => "failed (run it by hand to see why)".into(),
        }
    };
    let rows = [
        ("JS SDK in Node (jco)", run("node".into(), "debate.mjs", root.join("bindings/js/gen"))),
        (
            "Python SDK (wasmtime-py)",
            run(root.join(".venv-sdk/bin/python"), "debate.py", root.join(".venv-sdk/bin/python")),
        ),
    ];
    let _ = std::fs::remove_dir_all(&dir);
    rows
}
