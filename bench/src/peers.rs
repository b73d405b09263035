//! agon beside another council tool on the same endpoint: process wall over
//! the critical path, launch to first request, peak memory.
//!
//! frontier-council's endpoint is a module constant, patched before its CLI
//! starts; llm-council-core's comes from its config file, written here.
//! `scripts/bench.sh --peers` installs both into a throwaway venv outside the
//! repository and passes its Python; none of their code is in this repository.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use agon_testkit::{Config, Seen, TestServer};

/// What one process did against the test server.
pub struct Run {
    pub calls: usize,
    pub layers: usize,
    pub wall: Duration,
    pub first_request: Duration,
    /// Mean time from one layer's replies to the next layer's first request.
    pub between_layers: Option<Duration>,
    pub peak_rss_kb: Option<u64>,
}

/// Run `command` (its endpoint given by `endpoint(url)`) against a fresh test
/// server with `latency_ms` per call, under `/usr/bin/time` for its peak memory.
pub fn measure(latency_ms: u64, command: impl Fn(&str) -> Command) -> Run {
    let server = TestServer::start(Config { latency_ms, chunk_delay_ms: Some(0), ..Default::default() }, 0).unwrap();
    let rss_file = std::env::temp_dir().join(format!("agon-bench-rss-{}", std::process::id()));
    let inner = command(&server.url());
    let mut timed = Command::new("/usr/bin/time");
    timed.args(["-f", "%M", "-o"]).arg(&rss_file).arg(inner.get_program()).args(inner.get_args());
    for (k, v) in inner.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    if let Some(dir) = inner.get_current_dir() {
        timed.current_dir(dir);
    }
    let started = now_us();
    let t = Instant::now();
    let status = timed.stdout(Stdio::null()).stderr(Stdio::null()).status().expect("the command starts");
    let wall = t.elapsed();
    assert!(status.success(), "{:?} failed: {status}", inner.get_program());
    let requests = server.stats().requests;
    let first = requests.iter().map(|r| r.arrived_us).min().unwrap_or(started);
    let peak_rss_kb = std::fs::read_to_string(&rss_file).ok().and_then(|s| s.trim().lines().last()?.parse().ok());
    let _ = std::fs::remove_file(&rss_file);
    Run {
        calls: requests.len(),
        layers: arrival_layers(&requests, latency_ms),
        between_layers: between_layers(&requests, latency_ms),
        wall,
        first_request: Duration::from_micros(first.saturating_sub(started)),
        peak_rss_kb,
    }
}

/// Dependent layers seen from outside: calls that arrive within half a
/// latency of the previous one were released together.
pub fn arrival_layers(requests: &[Seen], latency_ms: u64) -> usize {
    layer_starts(requests, latency_ms).len()
}

/// The first arrival of each layer, in order.
fn layer_starts(requests: &[Seen], latency_ms: u64) -> Vec<u64> {
    let mut arrivals: Vec<u64> = requests.iter().map(|r| r.arrived_us).collect();
    arrivals.sort_unstable();
    let gap = latency_ms * 1000 / 2;
    let mut starts: Vec<u64> = arrivals.first().copied().into_iter().collect();
    starts.extend(arrivals.windows(2).filter(|w| w[1] - w[0] > gap).map(|w| w[1]));
    starts
}

/// How long, on average, a client takes from a layer's replies (one latency
/// after the layer started) to its next request.
fn between_layers(requests: &[Seen], latency_ms: u64) -> Option<Duration> {
    let starts = layer_starts(requests, latency_ms);
    let gaps: Vec<u64> = starts.windows(2).map(|w| (w[1] - w[0]).saturating_sub(latency_ms * 1000)).collect();
    (!gaps.is_empty()).then(|| Duration::from_micros(gaps.iter().sum::<u64>() / gaps.len() as u64))
}

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

/// frontier-council 0.2.1, its four council models and judge, one round, with
/// its OpenRouter URL pointed at `url`.
pub fn frontier_council(python: &Path, home: &Path) -> impl Fn(&str) -> Command {
    let python = python.to_path_buf();
    let home = home.to_path_buf();
    move |url| {
        let mut c = Command::new(&python);
        c.args([
            "-c",
            "import sys, frontier_council.council as c; c.OPENROUTER_URL = sys.argv[1]; \
             sys.argv = ['frontier-council'] + sys.argv[2:]; from frontier_council.cli import main; main()",
            &format!("{url}/v1/chat/completions"),
            "Should the city replace its bus fleet with electric buses by 2030?",
            "--rounds",
            "1",
            "--quiet",
            "--no-save",
        ])
        .env("OPENROUTER_API_KEY", "bench")
        .env("HOME", &home)
        .current_dir(&home);
        c
    }
}

/// llm-council-core 0.53.0's full council (four answers, four peer reviews, a
/// chairman) through `bench/peers/llm_council_core.py`, its OpenRouter
/// gateway pointed at `url` by its YAML config.
pub fn llm_council_core(python: &Path, driver: &Path, dir: &Path) -> impl Fn(&str) -> Command {
    let (python, driver, dir) = (python.to_path_buf(), driver.to_path_buf(), dir.to_path_buf());
    move |url| {
        let config = dir.join("llm_council.yaml");
        std::fs::write(
            &config,
            format!(
                "council:\n  models: [openai/gpt, google/gemini, x-ai/grok, moonshotai/kimi]\n  chairman: anthropic/claude\n\
gateways:\n  default: openrouter\n  providers:\n    openrouter:\n      base_url: {url}/v1/chat/completions\n"
            ),
        )
        .expect("the config is written");
        let mut c = Command::new(&python);
        c.arg(&driver)
            .arg("Should the city replace its bus fleet with electric buses by 2030?")
            .env("LLM_COUNCIL_CONFIG", &config)
            .env("OPENROUTER_API_KEY", "bench")
            .env("HOME", &dir)
            // It keeps a decision log under the working directory.
            .current_dir(&dir);
        c
    }
}

/// agon with the same shape: four seats (blind round, then one round of
/// rotating-challenger deliberation) and a judge.
pub fn agon(agon: &Path, cache: &Path) -> impl Fn(&str) -> Command {
    let agon = agon.to_path_buf();
    let cache = cache.to_path_buf();
    move |url| {
        let mut c = Command::new(&agon);
        c.args([
            "run",
            "Should the city replace its bus fleet with electric buses by 2030?",
            "--protocol",
            "rotating-challenger",
            "--panel",
            "openai/gpt,openai/gemini,openai/grok,openai/kimi",
            "--judge",
            "openai/judge",
            "--rounds",
            "1",
            "--quiet",
            "--format",
            "json",
        ])
        .env("OPENAI_BASE_URL", format!("{url}/v1"))
        .env("AGON_CACHE_DIR", &cache)
        .env("AGON_DATA_DIR", cache.with_file_name("data"));
        c
    }
}
