//! `agon-bench [--quick]`: measures what BENCHMARKS.md reports and prints it
//! as Markdown tables. Not a test: nothing here asserts on time.
//!
//! 1. engine overhead in wasmtime (compile, cached start, a 5×5 debate) and
//!    the CLI's launch-to-first-request;
//! 2. scheduling: wall time of `agon run` per protocol over its critical path
//!    (dependent call layers × a fixed per-call latency from the test server);
//! 3. prompt growth over rounds, with and without a context budget, and how
//!    much of it a provider's prefix cache could serve (`--caching-only`
//!    prints that table alone);
//! 4. sizes;
//!
//! and agon beside a peer council tool on the same endpoint (`--peers PYTHON`),
//! and `agon batch` at width (`--batch-only` prints that table alone; `--overhead-only`
//! prints section 1 alone).
//! `--launch-only [BINARY...]` times launch to the first request, warm and cold,
//! for each binary given (default: the built `agon`), alternating them run by
//! run so that a machine's drift falls on all of them alike: an A/B of builds.
//! `--instructions native|component N` is the child that callgrind counts.

mod caching;
mod hosts;
mod peers;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agon_bench::{script, spec};
use agon_cli::engine::{Code, Runtime, component, wit};
use agon_core::Session;
use agon_core::script::{ScriptEntry, play};
use agon_testkit::cases::{CASES, Case};
use agon_testkit::{Config, TestServer};
use clap::{CommandFactory, Parser};

/// What to measure; with no flag, every section.
#[derive(Parser)]
#[command(name = "agon-bench", about = "Measures what BENCHMARKS.md reports, and prints it as Markdown tables.")]
struct Args {
    /// Fewer runs and smaller batches: checks that the benchmarks run, not what they measure.
    #[arg(long)]
    quick: bool,
    /// Only `agon batch` at width.
    #[arg(long, conflicts_with_all = ["overhead_only", "launch_only", "peers"])]
    batch_only: bool,
    /// Only the prompt-caching table (no build or server needed: the engine alone).
    #[arg(long, conflicts_with_all = ["overhead_only", "launch_only", "peers", "batch_only"])]
    caching_only: bool,
    /// Only section 1, the engine's overhead in every host.
    #[arg(long, conflicts_with_all = ["launch_only", "peers"])]
    overhead_only: bool,
    /// Only launch to the first request, warm and cold, for each binary given
    /// (default: the built `agon`), alternated run by run: an A/B of builds.
    #[arg(long, value_name = "BINARY", num_args = 0.., conflicts_with = "peers")]
    launch_only: Option<Vec<PathBuf>>,
    /// Also run agon beside the peer council tools, installed in this Python.
    #[arg(long, value_name = "PYTHON")]
    peers: Option<PathBuf>,
    /// The child process callgrind counts: play the debate N times in HOST
    /// (native or component), and exit.
    #[arg(long, num_args = 2, value_names = ["HOST", "N"], hide = true)]
    instructions: Option<Vec<String>>,
}

fn main() {
    let args = Args::parse();
    if let Some([host, n]) = args.instructions.as_deref() {
        let n = n.parse().unwrap_or_else(|_| usage_error(format!("--instructions {host} {n}: N is a count")));
        hosts::run_debates(host, n);
        return;
    }
    let quick = args.quick;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_path_buf();
    if args.caching_only {
        println!("{}", caching::prompt_caching());
        return;
    }
    if args.batch_only {
        // Just the batch at width, at full size unless --quick.
        println!("{}", batch_at_width(quick, &agon_binary(&root)));
        return;
    }
    if let Some(given) = args.launch_only {
        // Each launch runs in a scratch directory: a relative path must be
        // made absolute here, where it means what the user meant.
        let mut binaries: Vec<PathBuf> = given
            .iter()
            .map(|a| {
                std::fs::canonicalize(a).unwrap_or_else(|e| usage_error(format!("--launch-only {}: {e}", a.display())))
            })
            .collect();
        if binaries.is_empty() {
            binaries.push(agon_binary(&root));
        }
        println!("{}", launch_ab(if quick { 3 } else { 30 }, &binaries));
        return;
    }
    if args.overhead_only {
        println!("{}", engine_overhead(quick, &agon_binary(&root), &root));
        return;
    }
    let agon = agon_binary(&root);
    println!("{}", engine_overhead(quick, &agon, &root));
    println!("{}", scheduling(quick, &agon));
    println!("{}", prompt_growth());
    println!("{}", caching::prompt_caching());
    println!("{}", sizes(&root, &agon));
    println!("{}", beside_peers(quick, &agon, &root, args.peers.as_deref()));
    println!("{}", batch_at_width(quick, &agon));
}

/// An argument clap accepted but that cannot be used: said as clap says its own.
fn usage_error(message: String) -> ! {
    Args::command().error(clap::error::ErrorKind::ValueValidation, message).exit()
}

fn agon_binary(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let release = target.join("release/agon");
    if release.exists() { release } else { target.join("debug/agon") }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn median<T: Ord + Copy>(mut v: Vec<T>) -> T {
    v.sort();
    v[v.len() / 2]
}

// ------------------------------------------------------------------ 1. overhead

fn engine_overhead(quick: bool, agon: &Path, root: &Path) -> String {
    let runs = if quick { 3 } else { 30 };
    // Both compiled forms are built into agon (build.rs): a load deserializes.
    let load = |code: Code| {
        median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    drop(Runtime::load_code(code).expect("loads"));
                    t.elapsed()
                })
                .collect(),
        )
    };
    let (native_load, copied_load, portable_load) =
        (load(Code::Native), load(Code::NativeCopied), load(Code::Portable));
    let s = spec("rotating-challenger", 5, None);
    let entries = script(5, 600);
    let spec_json = s.to_json();
    let mut runtime = Runtime::load_code(Code::Native).expect("loads");
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
    let warm = launch_to_first_request(agon, runs, PageCache::Warm);
    let cold = launch_to_first_request(agon, runs, PageCache::Cold);
    // Instruction counts: stable under load, but valgrind takes a while, so
    // the quick mode only checks that the counted child still runs.
    let (native_ir, component_ir) = if quick {
        hosts::run_debates("native", 1);
        hosts::run_debates("component", 1);
        ("skipped (quick)".to_string(), "skipped (quick)".to_string())
    } else {
        (hosts::instructions("native"), hosts::instructions("component"))
    };
    let [(js_name, js), (py_name, py)] = hosts::sdk_rows(root, if quick { 2 } else { 30 });
    format!(
        "## 1. Engine overhead\n\n\
| measure | median | target |\n|---|---|---|\n\
| whole 5-seat, 5-round rotating-challenger debate, native core (scripted replies) | {} | — |\n\
| the same debate through the component in wasmtime | {} | < 5 ms |\n\
| the same debate, native core, counted by callgrind | {native_ir} | — |\n\
| the same debate through the component in wasmtime, counted by callgrind | {component_ir} | — |\n\
| the same debate in the {js_name} | {js} | — |\n\
| the same debate in the {py_name} | {py} | — |\n\
| loading the component, compiled when agon was built, used where it lies in agon's file (every run, the first included) | {} | — |\n\
| the same, copied into fresh memory (where the file cannot be mapped) | {} | — |\n\
| loading its portable (Pulley) form, the fallback | {} | — |\n\
| `agon run` launch to the first request the server sees, empty HOME, binary in the page cache (warm) | {} | ≤ 5 ms |\n\
| the same, with the binary's pages dropped from the page cache before each launch (cold) | {} | ≤ 10 ms |\n",
        ms(native),
        ms(component),
        ms(native_load),
        ms(copied_load),
        ms(portable_load),
        ms(warm),
        ms(cold)
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
        let input = wit::Input::Reply(wit::Reply {
            id: r.id,
            text: script[i].text.clone().unwrap_or_default(),
            usage: None,
            stop: None,
            model: None,
        });
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

#[derive(Clone, Copy, PartialEq)]
enum PageCache {
    Warm,
    /// The binary's pages dropped before each launch (`posix_fadvise`
    /// DONTNEED: no root needed); the shared libraries stay cached.
    Cold,
}

/// Launch to the first request the test server sees, each run with an empty
/// HOME: no config, no cache, no sessions from earlier runs.
fn launch_to_first_request(agon: &Path, runs: usize, cache: PageCache) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let home = agon_testkit::sandbox::scratch("bench-launch");
                if cache == PageCache::Cold {
                    drop_from_page_cache(agon);
                }
                let run = peers::measure(0, |url| {
                    let mut c = Command::new(agon);
                    c.args(["run", "Q?", "--panel", "openai/a", "--rounds", "1", "--quiet", "--no-judge"])
                        .env("OPENAI_BASE_URL", format!("{url}/v1"))
                        .env("HOME", home.path())
                        .env_remove("XDG_CONFIG_HOME")
                        .env_remove("XDG_CACHE_HOME")
                        .env_remove("XDG_DATA_HOME")
                        .env_remove("AGON_CACHE_DIR")
                        .env_remove("AGON_DATA_DIR")
                        .env_remove("AGON_CONFIG")
                        .current_dir(home.path());
                    c
                });
                run.first_request
            })
            .collect(),
    )
}

/// Warm and cold launch of each binary, the binaries alternated run by run.
fn launch_ab(runs: usize, binaries: &[PathBuf]) -> String {
    let mut times = vec![(Vec::new(), Vec::new()); binaries.len()];
    for _ in 0..runs {
        for (agon, (warm, cold)) in binaries.iter().zip(&mut times) {
            warm.push(launch_to_first_request(agon, 1, PageCache::Warm));
            cold.push(launch_to_first_request(agon, 1, PageCache::Cold));
        }
    }
    let mut out = format!("| binary | bytes | warm, median of {runs} | cold, median of {runs} |\n|---|---|---|---|\n");
    for (agon, (warm, cold)) in binaries.iter().zip(times) {
        let bytes = std::fs::metadata(agon).map_or(0, |m| m.len());
        out += &format!("| {} | {bytes} | {} | {} |\n", agon.display(), ms(median(warm)), ms(median(cold)));
    }
    out
}

fn drop_from_page_cache(file: &Path) {
    let f = std::fs::File::open(file).expect("the agon binary");
    rustix::fs::fadvise(&f, 0, None, rustix::fs::Advice::DontNeed).expect("posix_fadvise");
}

// ------------------------------------------------------------------ 2. scheduling

fn scheduling(quick: bool, agon: &Path) -> String {
    let (latency, runs) = if quick { (20, 1) } else { (200, 3) };
    let scratch = agon_testkit::sandbox::scratch("bench-scheduling");
    let dir = scratch.path();
    std::fs::write(dir.join("items.txt"), "answer the auditor\nfix the build\n").unwrap();
    let mut out = format!(
        "## 2. Scheduling\n\n{latency} ms per call from the test server; critical path = dependent call layers × {latency} ms \
(a request's layer is one more than that of the reply whose arrival released it). Wall is the whole `agon run` process, \
the median of {runs}; \"fixed\" is the same run with no latency at all: start-up, HTTP, engine, output and exit. \
Target ≤ 1.05.\n\n\
| protocol | calls | layers | critical path | wall | over the path | fixed (0 ms per call) | wall / critical path |\n\
|---|---|---|---|---|---|---|---|\n"
    );
    // Warm the component cache so every run starts the same way.
    let _ = Command::new(agon).arg("protocols").env("AGON_CACHE_DIR", dir.join("cache")).output();
    for case in CASES {
        let measured: Vec<_> = (0..runs).map(|_| run_case(agon, case, latency, dir)).collect();
        let (_, layers, calls) = measured[0];
        let wall = median(measured.iter().map(|m| m.0).collect());
        let fixed = median((0..runs).map(|_| run_case(agon, case, 0, dir).0).collect());
        let critical = Duration::from_millis(latency * layers as u64);
        out.push_str(&format!(
            "| {} | {calls} | {layers} | {} | {} | {} | {} | {:.3} |\n",
            case.protocol,
            ms(critical),
            ms(wall),
            ms(wall.saturating_sub(critical)),
            ms(fixed),
            wall.as_secs_f64() / critical.as_secs_f64()
        ));
    }
    out
}

/// One `agon run` of `case` at `latency_ms` per call: (wall, layers, calls).
fn run_case(agon: &Path, case: &Case, latency_ms: u64, dir: &Path) -> (Duration, usize, usize) {
    let config = case.config(Config { latency_ms, chunk_delay_ms: Some(0), ..Default::default() });
    let server = TestServer::start(config, 0).unwrap();
    let events = dir.join(format!("{}.ndjson", case.protocol));
    let items = dir.join("items.txt");
    let mut args = case.run_args(items.to_str().unwrap());
    args.extend(["--quiet", "--format", "json", "--events", events.to_str().unwrap()]);
    let t = Instant::now();
    let status = Command::new(agon)
        .args(&args)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("AGON_CACHE_DIR", dir.join("cache"))
        .env("AGON_DATA_DIR", dir.join("data"))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    let wall = t.elapsed();
    assert!(status.success(), "{} failed", case.protocol);
    (wall, layers(&std::fs::read_to_string(&events).unwrap()), server.stats().requests.len())
}

/// Dependent layers from the event stream: a request released right after
/// a reply sits one layer deeper than that reply's request; the answer is the
/// deepest layer.
fn layers(events: &str) -> usize {
    let mut depth = std::collections::BTreeMap::new();
    let (mut released_by, mut deepest) = (0, 0);
    for line in events.lines() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = e["id"].as_u64().unwrap_or_default();
        match e["type"].as_str().unwrap_or_default() {
            "turn-started" | "judge-started" => {
                depth.insert(id, released_by + 1);
                deepest = deepest.max(released_by + 1);
            }
            "turn-completed" | "turn-failed" => released_by = depth.get(&id).copied().unwrap_or_default(),
            _ => {}
        }
    }
    deepest
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

// ------------------------------------------------------------------ peers

fn beside_peers(quick: bool, agon: &Path, root: &Path, peer_python: Option<&Path>) -> String {
    // 300 ms per call: how the quoted peer figures were taken.
    let (latency, runs) = if quick { (20, 1) } else { (300, 3) };
    let scratch = agon_testkit::sandbox::scratch("bench-peers");
    let dir = scratch.path();
    let cache = dir.join("cache");
    let _ = Command::new(agon).arg("protocols").env("AGON_CACHE_DIR", &cache).output();
    let row = |name: &str, runs: Vec<peers::Run>| {
        let layers = runs[0].layers;
        let critical = Duration::from_millis(latency * layers as u64);
        let ratios: Vec<f64> = runs.iter().map(|r| r.wall.as_secs_f64() / critical.as_secs_f64()).collect();
        let (lo, hi) = ratios.iter().fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        let rss_kb = median(runs.iter().map(|r| r.peak_rss_kb.unwrap_or(0)).collect());
        format!(
            "| {name} | {} | {layers} | {} | {lo:.3}–{hi:.3} | {} | {} | {:.0} MB |\n",
            runs[0].calls,
            ms(median(runs.iter().map(|r| r.wall).collect())),
            ms(median(runs.iter().map(|r| r.first_request).collect())),
            ms(median(runs.iter().map(|r| r.between_layers.unwrap_or_default()).collect())),
            rss_kb as f64 / 1024.0,
        )
    };
    let mut out = format!(
        "## Beside the peers\n\nThe same test server, {latency} ms per call, {runs} runs each (medians; the ratio's range). \
Layers are counted from outside, by when calls arrive (calls within half a latency of each other were released \
together); \"lost between layers\" is the mean time from a layer's replies to the next layer's first request. Each runs four models and a judge: agon and frontier-council as blind answers, one round of deliberation and a synthesis; llm-council-core as answers, anonymous peer reviews and a chairman.\n\n\
| tool | calls | layers | wall | wall / critical path | launch to first request | lost between layers | peak memory |\n\
|---|---|---|---|---|---|---|---|\n"
    );
    out.push_str(&row(
        "agon (rotating-challenger)",
        (0..runs).map(|_| peers::measure(latency, peers::agon(agon, &cache))).collect(),
    ));
    match peer_python {
        Some(python) => {
            out.push_str(&row(
                "frontier-council 0.2.1",
                (0..runs).map(|_| peers::measure(latency, peers::frontier_council(python, dir))).collect(),
            ));
            let driver = root.join("bench/peers/llm_council_core.py");
            out.push_str(&row(
                "llm-council-core 0.53.0",
                (0..runs).map(|_| peers::measure(latency, peers::llm_council_core(python, &driver, dir))).collect(),
            ));
        }
        None => {
            out.push_str("| frontier-council 0.2.1 | not run (`scripts/bench.sh --peers`) | | | | | | |\n");
            out.push_str("| llm-council-core 0.53.0 | not run (`scripts/bench.sh --peers`) | | | | | | |\n");
        }
    }
    out
}

// ------------------------------------------------------------------ batch at width

/// `agon batch` over many debates at once: wall over the ideal (waves × layers ×
/// latency), CPU per debate and peak memory, from `/usr/bin/time`.
fn batch_at_width(quick: bool, agon: &Path) -> String {
    let (debates, concurrency, latency) = if quick { (40, 20, 20) } else { (1000, 200, 300) };
    let scratch = agon_testkit::sandbox::scratch("bench-batch");
    let dir = scratch.path();
    let questions: String =
        (0..debates).map(|i| format!("{{\"id\": \"q{i}\", \"question\": \"Question {i}?\"}}\n")).collect();
    std::fs::write(dir.join("questions.jsonl"), questions).unwrap();
    let cache = dir.join("cache");
    let _ = Command::new(agon).arg("protocols").env("AGON_CACHE_DIR", &cache).output();
    let panel = ["--protocol", "rotating-challenger", "--panel", "openai/a,openai/b,openai/c", "--judge", "openai/j"];
    let run = |n: usize, concurrency: usize, latency_ms: u64| {
        let server =
            TestServer::start(Config { latency_ms, chunk_delay_ms: Some(0), ..Default::default() }, 0).unwrap();
        let _ = std::fs::remove_file(dir.join("results.jsonl"));
        let (questions, measures) = (dir.join(format!("q{n}.jsonl")), dir.join("time.txt"));
        let text = std::fs::read_to_string(dir.join("questions.jsonl")).unwrap();
        std::fs::write(&questions, text.lines().take(n).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        let t = Instant::now();
        let status = Command::new("/usr/bin/time")
            .args(["-f", "%M %U %S", "-o"])
            .arg(&measures)
            .arg(agon)
            .arg("batch")
            .arg(&questions)
            .args(["--output"])
            .arg(dir.join("results.jsonl"))
            .args(panel)
            .args(["--rounds", "1", "--concurrency", &concurrency.to_string()])
            // Not the limit under test: four calls per debate at once is more than any layer asks.
            .args(["--max-in-flight", &(4 * concurrency).to_string()])
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("OPENAI_API_KEY", "bench")
            .env("AGON_CACHE_DIR", &cache)
            .env("AGON_DATA_DIR", dir.join("data"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("agon batch starts");
        let wall = t.elapsed();
        assert!(status.success(), "agon batch failed: {status}");
        let text = std::fs::read_to_string(&measures).unwrap();
        let fields: Vec<f64> =
            text.trim().lines().last().unwrap().split_whitespace().map(|f| f.parse().unwrap()).collect();
        let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
        let mut ids: Vec<&str> =
            results.lines().map(|l| l.split("\"id\":\"").nth(1).unwrap().split('"').next().unwrap()).collect();
        let lines = ids.len();
        ids.sort_unstable();
        ids.dedup();
        let stats = server.stats();
        (wall, fields[0] as u64, fields[1] + fields[2], lines, ids.len(), stats.requests, stats.max_in_flight)
    };
    // One debate alone at this latency: its layers, counted from outside.
    let (_, _, _, _, _, requests, _) = run(1, 1, latency);
    let layers = peers::arrival_layers(&requests, latency);
    let (wall, rss_kb, cpu_s, lines, unique, requests, in_flight) = run(debates, concurrency, latency);
    let waves = debates.div_ceil(concurrency);
    let ideal = Duration::from_millis(waves as u64 * layers as u64 * latency);
    format!(
        "## Batch at width\n\n`agon batch` with {debates} debates (rotating-challenger, three seats and a judge, one round), \
`--concurrency {concurrency}`, the test server at {latency} ms per call. Ideal = waves × layers × latency = {waves} × {layers} × \
{latency} ms. CPU and peak memory from `/usr/bin/time` (user + system). Targets: ≤ 1.10 of ideal, ≤ 10 ms CPU per debate, \
≤ 200 MB peak.\n\n\
| debates | concurrency | calls | most in flight | ideal | wall | wall / ideal | CPU per debate | peak memory | result lines (unique ids) |\n\
|---|---|---|---|---|---|---|---|---|---|\n\
| {debates} | {concurrency} | {} | {in_flight} | {} | {} | {:.3} | {:.2} ms | {:.0} MB | {lines} ({unique}) |\n",
        requests.len(),
        ms(ideal),
        ms(wall),
        wall.as_secs_f64() / ideal.as_secs_f64(),
        cpu_s * 1000.0 / debates as f64,
        rss_kb as f64 / 1024.0,
    )
}

// ------------------------------------------------------------------ 4. sizes

fn sizes(root: &Path, agon: &Path) -> String {
    let kb = |n: u64| format!("{:.0} KB", n as f64 / 1024.0);
    let file = |p: PathBuf| std::fs::metadata(&p).map(|m| kb(m.len())).unwrap_or_else(|_| "not built".into());
    let web = std::fs::read_dir(root.join("target/web-demo"))
        .ok()
        .and_then(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "wasm")));
    let gzipped = |p: &Path| -> Option<u64> {
        let out = Command::new("gzip").arg("-9").arg("-c").arg(p).output().ok()?;
        out.status.success().then_some(out.stdout.len() as u64)
    };
    let (web_raw, web_gz) = match &web {
        Some(p) => (file(p.clone()), gzipped(p).map(kb).unwrap_or_else(|| "gzip missing".into())),
        None => ("not built (scripts/build-web.sh)".into(), "not built".into()),
    };
    // The report component, as scripts/setup-sdk.sh and check-sizes.sh build it.
    let report = root.join("target/agon-report.wasm");
    let (report_raw, report_gz) = match std::fs::metadata(&report) {
        Ok(m) => (kb(m.len()), gzipped(&report).map(kb).unwrap_or_else(|| "gzip missing".into())),
        Err(_) => ("not built (scripts/setup-sdk.sh)".into(), "not built".into()),
    };
    let js_pack = if root.join("bindings/js/gen").exists() { npm_pack(&root.join("bindings/js")) } else { None };
    let (js_tarball, js_unpacked) = match js_pack {
        Some((packed, unpacked)) => (kb(packed), kb(unpacked)),
        None => ("not built (scripts/setup-sdk.sh)".into(), "not built".into()),
    };
    format!(
        "## 4. Sizes\n\n| artifact | size | target |\n|---|---|---|\n\
| `agon.wasm` (the engine's component) | {} | < 350 KB (issue 18); budget in `bench/size/budgets` |\n\
| `agon.wasm`, gzip -9 | {} | < 350 KB as shipped (issue 18); budget |\n\
| `agon-report.wasm` (the report's component, loaded only to render or score) | {report_raw} | budget |\n\
| `agon-report.wasm`, gzip -9 | {report_gz} | budget |\n\
| web demo wasm (after `wasm-opt -Oz`) | {web_raw} | < 450 KB (issue 18); budget |\n\
| web demo wasm, gzip -9 | {web_gz} | < 450 KB as shipped (issue 18); budget |\n\
| JS package (`npm pack` tarball) | {js_tarball} | — |\n\
| JS package, unpacked | {js_unpacked} | — |\n\
| `agon` CLI binary ({}) | {} | ≤ 10 MB, 10^6 bytes (issue 18), on the release build |\n",
        kb(component().len() as u64),
        {
            let tmp = std::env::temp_dir().join(format!("agon-bench-{}.wasm", std::process::id()));
            std::fs::write(&tmp, component()).unwrap();
            let gz = gzipped(&tmp).map(kb).unwrap_or_else(|| "gzip missing".into());
            let _ = std::fs::remove_file(&tmp);
            gz
        },
        agon.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
        file(agon.to_path_buf())
    )
}

/// The JS package as npm would publish it: (tarball bytes, unpacked bytes).
fn npm_pack(dir: &Path) -> Option<(u64, u64)> {
    let out = Command::new("npm").args(["pack", "--dry-run", "--json", "--silent"]).current_dir(dir).output().ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((v[0]["size"].as_u64()?, v[0]["unpackedSize"].as_u64()?))
}
