//! `agon-bench [--quick]`: measures what BENCHMARKS.md reports and prints it
//! as Markdown tables. Not a test: nothing here asserts on time.
//!
//! 1. engine overhead in wasmtime (compile, cached start, a 5×5 debate) and
//!    the CLI's launch-to-first-request;
//! 2. scheduling: wall time of `agon run` per protocol over its critical path
//!    (dependent call layers × a fixed per-call latency from the test server);
//! 3. prompt growth over rounds, with and without a context budget;
//! 4. sizes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agon_bench::{script, spec};
use agon_cli::engine::{COMPONENT, Runtime, wit};
use agon_core::Session;
use agon_core::script::{ScriptEntry, play};
use agon_testkit::cases::CASES;
use agon_testkit::{Config, TestServer};

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_path_buf();
    let agon = agon_binary(&root);
    println!("{}", engine_overhead(quick, &agon));
    println!("{}", scheduling(quick, &agon, &root));
    println!("{}", prompt_growth());
    println!("{}", sizes(&root, &agon));
}

fn agon_binary(root: &Path) -> PathBuf {
    let release = root.join("target/release/agon");
    if release.exists() { release } else { root.join("target/debug/agon") }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

// ------------------------------------------------------------------ 1. overhead

fn engine_overhead(quick: bool, agon: &Path) -> String {
    let runs = if quick { 3 } else { 30 };
    let cache = std::env::temp_dir().join(format!("agon-bench-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let t = Instant::now();
    drop(Runtime::load_with_cache(Some(&cache)).expect("compiles"));
    let compile = t.elapsed();
    let cached = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                drop(Runtime::load_with_cache(Some(&cache)).expect("loads"));
                t.elapsed()
            })
            .collect(),
    );
    let s = spec("rotating-challenger", 5, None);
    let entries = script(5, 600);
    let spec_json = s.to_json();
    let mut runtime = Runtime::load_with_cache(Some(&cache)).expect("loads");
    let component = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                drive_component(&mut runtime, &spec_json, &entries);
                t.elapsed()
            })
            .collect(),
    );
    let native = median(
        (0..runs * 10)
            .map(|_| {
                let t = Instant::now();
                play(Session::new(s.clone()).unwrap(), &entries).unwrap();
                t.elapsed()
            })
            .collect(),
    );
    let first_request = launch_to_first_request(agon, &cache, runs);
    let _ = std::fs::remove_dir_all(&cache);
    format!(
        "## 1. Engine overhead\n\n\
| measure | median | target |\n|---|---|---|\n\
| whole 5-seat, 5-round rotating-challenger debate, native core (scripted replies) | {} | — |\n\
| the same debate through the component in wasmtime | {} | < 5 ms |\n\
| compiling the component (Cranelift, first run) | {} | — |\n\
| loading the cached, precompiled component | {} | — |\n\
| `agon run` launch to the first request the server sees (cached component) | {} | < 50 ms |\n",
        ms(native),
        ms(component),
        ms(compile),
        ms(cached),
        ms(first_request)
    )
}

/// The golden replay rule, through the component.
fn drive_component(runtime: &mut Runtime, spec: &str, script: &[ScriptEntry]) {
    let mut council = runtime.create(spec).unwrap().unwrap();
    let mut used = vec![false; script.len()];
    let mut outstanding: Vec<wit::ModelRequest> = Vec::new();
    loop {
        loop {
            match council.poll().unwrap() {
                wit::Output::Request(r) => outstanding.push(r),
                wit::Output::Event(_) => {}
                wit::Output::Idle => break,
                wit::Output::Done(_) => return,
            }
        }
        let (i, k) = script
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .find_map(|(i, e)| {
                outstanding
                    .iter()
                    .position(|r| r.seat == e.seat && phase(r.phase) == e.phase.as_str() && r.round == e.round)
                    .map(|k| (i, k))
            })
            .expect("the script covers the debate");
        used[i] = true;
        let r = outstanding.remove(k);
        let input =
            wit::Input::Reply(wit::Reply { id: r.id, text: script[i].text.clone().unwrap_or_default(), usage: None });
        council.handle(&input).unwrap().unwrap();
    }
}

fn phase(p: wit::Phase) -> &'static str {
    match p {
        wit::Phase::Blind => "blind",
        wit::Phase::Deliberation => "deliberation",
        wit::Phase::Summary => "summary",
        wit::Phase::Synthesis => "synthesis",
        _ => "other",
    }
}

fn launch_to_first_request(agon: &Path, cache: &Path, runs: usize) -> Duration {
    let config = Config { hold_until_in_flight: None, ..Default::default() };
    median(
        (0..runs)
            .map(|_| {
                let server = TestServer::start(config.clone(), 0).unwrap();
                let t = Instant::now();
                let mut child = Command::new(agon)
                    .args(["run", "Q?", "--panel", "openai/a", "--rounds", "1", "--quiet", "--no-judge"])
                    .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
                    .env("AGON_CACHE_DIR", cache)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap();
                while server.stats().requests.is_empty() {
                    std::thread::sleep(Duration::from_micros(200));
                }
                let elapsed = t.elapsed();
                let _ = child.wait();
                elapsed
            })
            .collect(),
    )
}

// ------------------------------------------------------------------ 2. scheduling

fn scheduling(quick: bool, agon: &Path, root: &Path) -> String {
    let latency = if quick { 20 } else { 200 };
    let dir = std::env::temp_dir().join(format!("agon-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let items = dir.join("items.txt");
    std::fs::write(&items, "answer the auditor\nfix the build\n").unwrap();
    let cache = dir.join("cache");
    let mut out = format!(
        "## 2. Scheduling\n\n{latency} ms per call from the test server; critical path = dependent call layers × {latency} ms. Target ≤ 1.05.\n\n\
| protocol | calls | layers | critical path | wall | wall / critical path |\n|---|---|---|---|---|---|\n"
    );
    // Warm the component cache so every run starts the same way.
    let _ = Command::new(agon).arg("protocols").env("AGON_CACHE_DIR", &cache).output();
    for case in CASES {
        let config = case.config(Config { latency_ms: latency, chunk_delay_ms: Some(0), ..Default::default() });
        let server = TestServer::start(config, 0).unwrap();
        let events = dir.join(format!("{}.ndjson", case.protocol));
        let mut args = case.run_args(items.to_str().unwrap());
        args.extend(["--quiet", "--format", "json", "--events", events.to_str().unwrap()]);
        let t = Instant::now();
        let status = Command::new(agon)
            .args(&args)
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("AGON_CACHE_DIR", &cache)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        let wall = t.elapsed();
        assert!(status.success(), "{} failed", case.protocol);
        let layers = layers(&std::fs::read_to_string(&events).unwrap());
        let critical = Duration::from_millis(latency * layers as u64);
        out.push_str(&format!(
            "| {} | {} | {layers} | {} | {} | {:.3} |\n",
            case.protocol,
            server.stats().requests.len(),
            ms(critical),
            ms(wall),
            wall.as_secs_f64() / critical.as_secs_f64()
        ));
    }
    let _ = root;
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// Dependent layers: a run of starts after a completion begins a new layer.
fn layers(events: &str) -> usize {
    let mut layers = 0;
    let mut in_starts = false;
    for line in events.lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        match e["type"].as_str().unwrap_or_default() {
            "turn_started" | "judge_started" if !in_starts => {
                layers += 1;
                in_starts = true;
            }
            "turn_completed" | "turn_failed" => in_starts = false,
            _ => {}
        }
    }
    layers
}

// ------------------------------------------------------------------ 3. prompt growth

fn prompt_growth() -> String {
    let budget = 2000;
    let mut out = format!(
        "## 3. Prompt growth\n\nA 5-seat rotating-challenger debate, 600-character replies; prompt sizes in estimated tokens \
(characters / 4). With `--context-budget {budget}` the largest prompt must stay under {budget}.\n\n\
| rounds | total prompt tokens | largest prompt | total with budget | largest with budget | summaries |\n|---|---|---|---|---|---|\n"
    );
    for rounds in 1..=8 {
        let measure = |budget: Option<u32>| {
            let played =
                play(Session::new(spec("rotating-challenger", rounds, budget)).unwrap(), &script(rounds, 600)).unwrap();
            let sizes: Vec<u32> = played
                .requests
                .iter()
                .map(|r| r.messages.iter().map(|m| agon_core::estimate_tokens(&m.content)).sum())
                .collect();
            let summaries = played.session.transcript().summaries.len();
            (sizes.iter().sum::<u32>(), sizes.iter().copied().max().unwrap_or(0), summaries)
        };
        let (total, largest, _) = measure(None);
        let (btotal, blargest, summaries) = measure(Some(budget));
        out.push_str(&format!("| {rounds} | {total} | {largest} | {btotal} | {blargest} | {summaries} |\n"));
    }
    out
}

// ------------------------------------------------------------------ 4. sizes

fn sizes(root: &Path, agon: &Path) -> String {
    let kb = |n: u64| format!("{:.0} KB", n as f64 / 1024.0);
    let file = |p: PathBuf| std::fs::metadata(&p).map(|m| kb(m.len())).unwrap_or_else(|_| "not built".into());
    let web = std::fs::read_dir(root.join("target/web-demo"))
        .ok()
        .and_then(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "wasm")));
    let web_raw = web.clone().map(file).unwrap_or_else(|| "not built (scripts/build-web.sh)".into());
    let js =
        dir_size(&root.join("bindings/js/gen")).map(kb).unwrap_or_else(|| "not built (scripts/setup-sdk.sh)".into());
    format!(
        "## 4. Sizes\n\n| artifact | size | target |\n|---|---|---|\n\
| `agon.wasm` (the component) | {} | < 400 KB |\n| web demo wasm (raw) | {web_raw} | — |\n\
| JS package's generated code (`bindings/js/gen`) | {js} | — |\n| `agon` CLI binary ({}) | {} | — |\n",
        kb(COMPONENT.len() as u64),
        agon.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
        file(agon.to_path_buf())
    )
}

fn dir_size(dir: &Path) -> Option<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        total += if path.is_dir() { dir_size(&path)? } else { std::fs::metadata(&path).ok()?.len() };
    }
    Some(total)
}
