//! The commands the README and the book show, run as written: every command
//! block marked `<!-- run by: host-cli/tests/docs_commands.rs -->` runs here,
//! so a documented command that fails breaks the build.
//!
//! To add one, mark its block so (scripts/check-docs.py checks the mark). A
//! block runs with bash (`set -e -o pipefail`): a `sh`/`bash`/`shell`
//! block whole, a `console` block (or any block of `$ ` lines) as its `$ `
//! lines with their `\` continuations, the output shown under them left
//! alone. Each page gets a world of its own, in a folder removed afterwards,
//! and its blocks run there in the order the page shows them (so `agon show
//! last` reads the run a block above made):
//!
//! - `agon` on `PATH` (this build's), `HOME`, sessions, caches and
//!   configuration inside the folder, no agon.toml;
//! - the project's test server standing in for every provider: OpenAI,
//!   Anthropic, Gemini, Groq and Ollama point at it, their keys set to a
//!   dummy (a block's own `export KEY=...` changes nothing it needs), local
//!   servers' usual addresses answer nothing;
//! - the working folder a git repository: `docs/rfc-12.md`,
//!   `src/payments/retry.rs` and `src/lib.rs` committed on `main`, an
//!   uncommitted change to `retry.rs` (so `git diff` shows one), a remote
//!   `origin` that holds a pull request at `refs/pull/123/head`, an empty
//!   `docs/adr/`, and the repository's `examples/`.
//!
//! The stand-in answers every model with its generic prose. A page whose
//! commands need replies of a shape (challenge's JSON verdicts) scripts them
//! in `host-cli/tests/docs_commands/PAGE.json` (a testkit `Config`: each
//! model's replies, in the order the page's commands ask it).
//!
//! A block must end with status 0 within two minutes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agon_testkit::sandbox::Sandbox;
use agon_testkit::{Config, TestServer};

const MARK: &str = "host-cli/tests/docs_commands.rs";

/// One command block to run.
#[derive(Debug)]
struct Block {
    /// `README.md:42`
    place: String,
    script: String,
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The README and every chapter of the book.
fn pages() -> Vec<PathBuf> {
    let root = repository();
    let mut pages = vec![root.join("README.md")];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root.join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    pages.extend(chapters);
    pages
}

/// The blocks of `text` (a page) whose mark names this runner.
fn blocks(page: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(fence) = fence_of(lines[i]) else {
            i += 1;
            continue;
        };
        let lang = lines[i].trim_start_matches(fence).trim().to_lowercase();
        let start = i;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && lines[i].trim() != fence {
            body.push(lines[i]);
            i += 1;
        }
        i += 1;
        let mark = lines[..start].iter().rev().find(|l| !l.trim().is_empty()).map_or("", |l| l.trim());
        let runners = mark
            .strip_prefix("<!--")
            .and_then(|m| m.strip_suffix("-->"))
            .and_then(|m| m.trim().strip_prefix("run by:"));
        if !runners.is_some_and(|r| r.split(',').any(|r| r.trim() == MARK)) {
            continue;
        }
        let dollar = body.iter().any(|l| l.starts_with("$ "));
        let script = if dollar || lang == "console" { dollar_commands(&body) } else { body.join("\n") };
        out.push(Block { place: format!("{page}:{}", start + 1), script });
    }
    out
}

fn fence_of(line: &str) -> Option<&'static str> {
    ["````", "```", "~~~"].into_iter().find(|f| line.starts_with(f))
}

/// A console block's commands: each `$ ` line and the lines its `\` continues.
fn dollar_commands(body: &[&str]) -> String {
    let mut out = Vec::new();
    let mut continued = false;
    for line in body {
        if let Some(command) = line.strip_prefix("$ ") {
            out.push(command.to_string());
        } else if continued {
            out.push(line.to_string());
        } else {
            continue;
        }
        continued = line.trim_end().ends_with('\\');
    }
    out.join("\n")
}

/// The git repository, the pull request and the examples every page finds.
const WORLD: &str = r#"
git init -q -b main work
git init -q --bare origin.git
cd work
git config user.email docs@example.invalid
git config user.name "agon docs"
mkdir -p docs/adr src/payments
printf '# RFC 12: retrying failed payments\n\nRetry a declined charge three times, backing off an hour each time.\n' >docs/rfc-12.md
printf 'pub mod payments {\n    pub mod retry;\n}\n' >src/lib.rs
printf '/// Attempts at a declined charge.\npub fn attempts() -> u32 {\n    3\n}\n' >src/payments/retry.rs
git add -A && git commit -q -m "payments: retry declined charges"
git checkout -q -b pull-123
printf '/// Attempts at a declined charge.\npub fn attempts() -> u32 {\n    5\n}\n' >src/payments/retry.rs
git commit -q -am "payments: five attempts"
git push -q ../origin.git main pull-123:refs/pull/123/head
git checkout -q main && git branch -q -D pull-123
git remote add origin ../origin.git
printf '// TODO: jitter the backoff\n' >>src/payments/retry.rs
ln -s "$AGON_DOCS_EXAMPLES" examples
"#;

/// What the stand-in answers for `page`: its script (`docs_commands/STEM.json`), or generic prose.
fn stand_in(page: &str) -> Config {
    let stem = Path::new(page).file_stem().unwrap().to_string_lossy().to_string();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/docs_commands").join(format!("{stem}.json"));
    match std::fs::read_to_string(&file) {
        Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display())),
        Err(_) => Config::default(),
    }
}

/// A page's world: the sandbox, with `agon` and the test server set up for bash.
struct World {
    sandbox: Sandbox,
    url: String,
}

impl World {
    fn new(server: &TestServer, n: usize) -> Result<World, String> {
        let world = World { sandbox: Sandbox::new("docs", &format!("page-{n}")), url: server.url() };
        let bin = world.sandbox.root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(world.sandbox.root.join("home")).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_agon"), bin.join("agon")).unwrap();
        let out = wait(world.bash(&format!("set -e\n{WORLD}")).spawn().unwrap(), Duration::from_secs(60))?;
        if !out.status.success() {
            return Err(format!("setting up the world failed:\n{}", tail(&out.stderr)));
        }
        Ok(world)
    }

    /// bash running `script` in the world, with every provider at the test server.
    fn bash(&self, script: &str) -> Command {
        let root = &self.sandbox.root;
        let url = &self.url;
        let path = format!("{}:{}", root.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        let mut cmd = self.sandbox.command("bash");
        cmd.args(["-c", script])
            .env("PATH", path)
            .env("HOME", root.join("home"))
            .env("AGON_DOCS_EXAMPLES", repository().join("examples"))
            .env("NO_COLOR", "1")
            .env("OPENAI_BASE_URL", format!("{url}/v1"))
            .env("ANTHROPIC_BASE_URL", url)
            .env("GEMINI_BASE_URL", format!("{url}/v1beta"))
            .env("GROQ_BASE_URL", format!("{url}/v1"))
            .env("OLLAMA_HOST", url)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY"] {
            cmd.env(var, "sk-docs-stand-in");
        }
        for var in ["OPENROUTER_API_KEY", "TOGETHER_API_KEY", "DEEPSEEK_API_KEY", "MOONSHOT_API_KEY", "XAI_API_KEY"] {
            cmd.env_remove(var);
        }
        for var in ["LMSTUDIO_BASE_URL", "VLLM_BASE_URL", "LLAMACPP_BASE_URL"] {
            cmd.env(var, "http://127.0.0.1:9/v1");
        }
        cmd
    }

    /// One block, in the world's working folder; what failed, if it did.
    fn run(&self, block: &Block) -> Result<(), String> {
        let script = format!("set -e -o pipefail\ncd work\nset -x\n{}\n", block.script);
        let out: Output =
            wait(self.bash(&script).spawn().map_err(|e| format!("starting bash: {e}"))?, Duration::from_secs(120))
                .map_err(|e| format!("{}: {e}", block.place))?;
        if out.status.success() {
            return Ok(());
        }
        Err(format!(
            "{} failed ({}):\n{}\n--- stdout\n{}\n--- stderr (the commands as bash ran them)\n{}",
            block.place,
            out.status,
            block.script,
            tail(&out.stdout),
            tail(&out.stderr)
        ))
    }
}

/// The child's output, or an error once `limit` has passed (the child killed).
fn wait(mut child: std::process::Child, limit: Duration) -> Result<std::process::Output, String> {
    let started = Instant::now();
    // Read while waiting: a pipe left full would stall the child.
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let (out, err) = (read(Box::new(stdout)), read(Box::new(stderr)));
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Ok(std::process::Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() });
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

#[test]
fn every_command_the_docs_mark_as_run_here_runs() {
    let mut all = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(repository()).unwrap().display().to_string();
        all.extend(blocks(&name, &text));
    }
    // The Quick start and the CLI chapter at least: a parser that finds nothing proves nothing.
    for page in ["docs/src/quickstart.md", "docs/src/cli.md"] {
        assert!(all.iter().any(|b| b.place.starts_with(&format!("{page}:"))), "no block of {page} found: {all:?}");
    }
    let mut failures = Vec::new();
    let mut pages: Vec<&str> = all.iter().map(|b| b.place.split(':').next().unwrap()).collect();
    pages.dedup();
    for (n, page) in pages.iter().enumerate() {
        let server = TestServer::start(stand_in(page), 0).unwrap();
        let world = match World::new(&server, n) {
            Ok(world) => world,
            Err(e) => {
                failures.push(format!("{page}: {e}"));
                continue;
            }
        };
        let here = all.iter().filter(|b| b.place.split(':').next() == Some(page));
        failures.extend(here.filter_map(|block| world.run(block).err()));
    }
    assert!(
        failures.is_empty(),
        "{} of {} documented blocks failed:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

#[test]
fn blocks_are_found_by_their_mark_and_console_blocks_keep_only_their_commands() {
    let page = "\
<!-- run by: host-cli/tests/docs_commands.rs -->
```sh
agon sessions
```

<!-- illustration: needs something -->
```sh
agon nope
```

<!-- run by: scripts/other.sh, host-cli/tests/docs_commands.rs -->
```
$ agon eval data.jsonl \\
    --arm single
agon: output shown, not run
$ agon show last | tail
## Usage
```

<!-- run by: scripts/other.sh -->
```sh
agon other
```
";
    let found = blocks("page.md", page);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!((found[0].place.as_str(), found[0].script.as_str()), ("page.md:2", "agon sessions"));
    assert_eq!(found[1].script, "agon eval data.jsonl \\\n    --arm single\nagon show last | tail");
}
