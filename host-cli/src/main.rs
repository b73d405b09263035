//! `agon`: run LLM councils from the terminal.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use agon_cli::cli::{BatchArgs, Cli, Command, DriveArgs, ExportFormat, Format, ReplayArgs, RunArgs, SpecArgs, SpecCmd};
use agon_cli::config::{Config, given_in};
use agon_cli::engine::{COMPONENT, Runtime, wit};
use agon_cli::host::{self, Ending, JournalFile, Sinks};
use agon_cli::journal::{self, Retry};
use agon_cli::lock::{Lock, LockError};
use agon_cli::output::{self, check_writable, document_text};
use agon_cli::prices::PriceTable;
use agon_cli::provider::{CallOptions, DEFAULT_MAX_REPLY, Environment};
use agon_cli::sessions::{self, Session};
use agon_cli::view::{View, outcome_line};
use agon_cli::{BadInput, bad, safe_eprintln, safe_println, sanitize, spec_args};
use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches};

/// Exit codes, documented in the README.
mod exit {
    pub const OK: u8 = 0;
    pub const FAILURE: u8 = 1;
    pub const BAD_INPUT: u8 = 2;
    pub const DEGRADED: u8 = 3;
    pub const JUDGE_FAILED: u8 = 4;
    pub const NO_QUORUM: u8 = 5;
    pub const COST_LIMIT: u8 = 6;
    pub const INTERRUPTED: u8 = 130;
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let given = given_in(matches.subcommand().map_or(&matches, |(_, m)| m));
    let config = || load_config(cli.config.as_deref());
    let result = match cli.command {
        Command::Run(mut args) => {
            config().and_then(|c| configure_run(&mut args, &c, &given).map(|_| c)).and_then(|c| run(args, &c))
        }
        Command::Spec(mut args) => config()
            .and_then(|c| c.apply_to_spec(&mut args.spec, &given).map_err(bad).map(|_| c))
            .and_then(|c| spec(args, &c)),
        Command::Batch(mut args) => config()
            .and_then(|c| c.apply_to_spec(&mut args.spec, &given).map_err(bad).map(|_| c))
            .and_then(|c| batch(args, &c)),
        Command::Replay(args) => replay(args),
        Command::Resume { id, retry_failed, drive } => config().and_then(|c| resume(&id, retry_failed, drive, &c)),
        Command::Sessions { json } => list_sessions(json),
        Command::Show { id, format } => show(&id, format),
        Command::Export { id, format, output } => export(&id, format, output.as_deref()),
        Command::Doctor { models, timeout } => config().and_then(|c| doctor(&c, &models, timeout)),
        Command::Trust { file, list, revoke } => {
            agon_cli::trust::command(file.as_deref(), list, revoke).map(|_| exit::OK)
        }
        Command::Protocols => protocols(),
        Command::Component { output } => std::fs::write(&output, COMPONENT)
            .with_context(|| format!("writing {}", output.display()))
            .map(|_| exit::OK),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let code = if e.downcast_ref::<BadInput>().is_some() { exit::BAD_INPUT } else { exit::FAILURE };
            safe_eprintln!("agon: {e:#}");
            ExitCode::from(code)
        }
    }
}

/// agon.toml, and the one line that says what of it is not used (an untrusted folder's file).
fn load_config(explicit: Option<&std::path::Path>) -> Result<Config> {
    let config = Config::load(explicit).map_err(bad)?;
    if let Some(notice) = config.trust_notice() {
        safe_eprintln!("{notice}");
    }
    Ok(config)
}

fn spec_json(args: &SpecArgs, question: &str, runtime: &mut Runtime, config: &Config) -> Result<String> {
    let mut inputs = spec_args::Inputs::default();
    if let Some(dir) = &args.roles {
        inputs.roles = read_roles(dir, runtime)?;
    }
    if let Some(path) = &args.items {
        let text = read_text(path, "--items")?;
        inputs.items = spec_args::read_items(&text);
    }
    let protocols = runtime.protocols()?;
    let request = spec_args::build(args, question, &inputs, &protocols, &mut |w| safe_eprintln!("{w}")).map_err(bad)?;
    // The engine decides the seats; model references are this host's to check.
    let built = runtime.build_spec(&request.to_string())?.map_err(|e| bad(e.to_string()))?;
    let mut spec: serde_json::Value = serde_json::from_str(&built)?;
    for model in models_of(&spec) {
        agon_cli::provider::ModelRef::parse_chain(&model).map_err(bad)?;
    }
    // Prices travel in the spec, so the engine can bound, limit and report the cost (and a replay agrees).
    let prices = PriceTable::new(&config.prices).for_spec(&models_of(&spec));
    if !prices.is_empty() {
        spec["prices"] = serde_json::Value::Object(prices);
    }
    runtime.validate_spec(&spec.to_string())?.map_err(|e| bad(e.to_string()))
}

/// The role files of a folder (`*.md`, by file name), as text; each is parsed
/// here first, so an error names its file.
fn read_roles(dir: &std::path::Path, runtime: &mut Runtime) -> Result<Vec<String>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| bad(format!("cannot read --roles {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(bad(format!("--roles {}: no .md role files there", dir.display())));
    }
    paths
        .into_iter()
        .map(|p| {
            let text = read_text(&p, "the role file")?;
            runtime.parse_role(&text)?.map_err(|e| bad(format!("{}: {e}", p.display())))?;
            Ok(text)
        })
        .collect()
}

/// A text file the user named; errors name it (and `what` it was for).
fn read_text(path: &std::path::Path, what: &str) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read {what} {}: {e}", path.display())))?;
    String::from_utf8(bytes).map_err(|e| bad(format!("{what} {}: not UTF-8 text ({})", path.display(), e.utf8_error())))
}

/// Every model a spec names: the panel's, then the judge's.
fn models_of(spec: &serde_json::Value) -> Vec<String> {
    spec["panel"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(spec["judge"].as_object().map(|_| &spec["judge"]))
        .filter_map(|p| p["model"].as_str().map(str::to_string))
        .collect()
}

fn spec(args: SpecCmd, config: &Config) -> Result<u8> {
    let mut runtime = Runtime::load()?;
    let json = spec_json(&args.spec, &args.question, &mut runtime, config)?;
    let pretty: serde_json::Value = serde_json::from_str(&json)?;
    println!("{}", output::json_text(&serde_json::to_string_pretty(&pretty)?));
    Ok(exit::OK)
}

fn protocols() -> Result<u8> {
    let mut runtime = Runtime::load()?;
    for p in runtime.protocols()? {
        println!("{:<22}{}", p.name, p.summary);
        let seats = match p.max_seats {
            Some(max) if max == p.min_seats => format!("{max} seats"),
            Some(max) => format!("{} to {max} seats", p.min_seats),
            None => format!("{} or more seats", p.min_seats),
        };
        let sides = if p.sides.is_empty() { String::new() } else { format!(" ({})", p.sides.join(", ")) };
        let rounds = if p.max_rounds == 1 {
            format!("one pass ({})", p.round_unit)
        } else {
            format!("rounds: {} by default, at most {} (a round: {})", p.default_rounds, p.max_rounds, p.round_unit)
        };
        println!("{:<22}{seats}{sides} · {rounds}", "");
        for o in &p.options {
            let default = if o.default.is_empty() { "required".to_string() } else { format!("default {}", o.default) };
            println!("{:<22}protocol.{} ({default}): {}", "", o.name, o.help);
        }
    }
    Ok(exit::OK)
}

/// Flags first, then agon.toml, then the built-in defaults.
fn configure_run(args: &mut RunArgs, config: &Config, given: &dyn Fn(&str) -> bool) -> Result<()> {
    config.apply_to_spec(&mut args.spec, given).map_err(bad)?;
    if !given("timeout")
        && let Some(t) = config.defaults.timeout
    {
        args.drive.timeout = t;
    }
    // Seats `agon doctor` found dead in the last day stay out (role-council's seats are its roles).
    let protocol = args.spec.protocol.split(':').next().unwrap_or_default();
    if protocol != "role-council"
        && let Some(dir) = agon_cli::engine::cache_dir()
    {
        let keep = args.spec.options.len().max(2);
        let health = agon_cli::doctor::HealthCache::load(&dir);
        let env = Environment::new(config);
        let endpoint = |m: &str| agon_cli::doctor::endpoint_of(m, &env);
        for warning in health.prune(&mut args.spec.panel, keep, agon_cli::doctor::now(), &endpoint) {
            safe_eprintln!("{warning}");
        }
    }
    Ok(())
}

/// Every file the run will write, checked before anything is spent.
fn check_outputs(drive: &DriveArgs, journal: Option<&std::path::Path>) -> Result<()> {
    let events = drive.events.as_deref().filter(|e| *e != "-").map(std::path::Path::new);
    for (path, flag) in [(drive.output.as_deref(), "--output"), (events, "--events"), (journal, "--journal")] {
        if let Some(path) = path {
            check_writable(path, flag).map_err(bad)?;
        }
    }
    Ok(())
}

/// One process per session: the lock is held until the returned guard drops.
fn lock_session(session: &Session) -> Result<Lock> {
    Lock::acquire(&session.dir.join(sessions::LOCK)).map_err(|e| match e {
        LockError::Held { pid } => bad(format!(
            "session {} is in use by another agon process{}: wait for it to end (or stop it), then try again",
            session.id,
            pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
        )),
        LockError::Io(e) => anyhow::Error::new(e).context(format!("locking session {}", session.id)),
    })
}

fn run(args: RunArgs, config: &Config) -> Result<u8> {
    check_outputs(&args.drive, args.journal.as_deref())?;
    let mut runtime = Runtime::load()?;
    let spec = spec_json(&args.spec, &args.question, &mut runtime, config)?;
    let env = environment(config, &args.drive);
    let models = models_of(&serde_json::from_str(&spec)?);
    host::preflight(&models, &env).map_err(bad)?;
    let bound = runtime.estimate(&spec)?.map_err(|e| bad(e.to_string()))?;
    if !args.drive.quiet {
        safe_eprintln!("{}", worst_case_line(&bound));
    }
    if let (Some(max), Some(micro)) = (args.spec.max_cost, bound.cost_micro_usd)
        && micro > micro_usd(max)
    {
        return Err(bad(format!(
            "the worst case, {}, is above --max-cost ${max}: lower --rounds, --max-tokens or --judge-max-tokens, set --context-budget, or raise --max-cost",
            usd(micro)
        )));
    }
    if args.spec.max_cost.is_some() && !bound.unpriced.is_empty() {
        safe_eprintln!(
            "agon: --max-cost cannot count {} (no price): add [prices.\"MODEL\"] to agon.toml",
            bound.unpriced.join(", ")
        );
    }

    let mut council = runtime.create(&spec)?.map_err(|e| bad(e.to_string()))?;
    let header = council.journal()?;
    let (session, _lock) = if args.no_save {
        (None, None)
    } else {
        let root = sessions::root()
            .ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME), or pass --no-save"))?;
        let session = Session::create(&root).with_context(|| format!("creating a session in {}", root.display()))?;
        let lock = lock_session(&session)?;
        (Some(session), Some(lock))
    };
    let mut journals = Vec::new();
    if let Some(s) = &session {
        journals.push(JournalFile::create(&s.journal(), &header)?);
    }
    if let Some(path) = &args.journal {
        journals.push(JournalFile::create(path, &header)?);
    }
    let options = call_options(&args.drive, config);
    drive_to_end(&mut council, &env, &args.drive, options, journals, session.as_ref(), args.journal.as_deref())
}

/// How calls are made: the flags, then agon.toml, then the defaults.
fn call_options(drive: &DriveArgs, config: &Config) -> CallOptions {
    let from_file = config.defaults.max_reply.as_ref().and_then(|s| s.bytes().ok());
    CallOptions {
        timeout: Duration::from_secs(drive.timeout),
        stream: !drive.no_stream,
        max_reply: drive.max_reply.or(from_file).unwrap_or(DEFAULT_MAX_REPLY),
    }
}

/// "worst case: 16 calls, ≤ 24,000 prompt + 8,192 completion tokens, ≤ $0.14".
fn worst_case_line(e: &wit::CostEstimate) -> String {
    let cost = match e.cost_micro_usd {
        Some(micro) => format!(", ≤ {}", usd(micro)),
        None => format!("; cost unknown: no price for {}", e.unpriced.join(", ")),
    };
    format!(
        "agon: worst case {} calls, ≤ {} prompt + {} completion tokens{cost}",
        e.calls,
        thousands(e.prompt_tokens),
        thousands(e.completion_tokens)
    )
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Micro-dollars as `$0.0123` (at least two decimals, cents and below when they matter).
fn usd(micro: u64) -> String {
    let mut frac = format!("{:06}", micro % 1_000_000);
    while frac.len() > 2 && frac.ends_with('0') {
        frac.pop();
    }
    format!("${}.{frac}", micro / 1_000_000)
}

fn micro_usd(dollars: f64) -> u64 {
    (dollars * 1e6).round().max(0.0) as u64
}

/// The providers this run can call: the environment, agon.toml, the flags.
fn environment(config: &Config, drive: &DriveArgs) -> Environment {
    let mut env = Environment::new(config);
    env.retry.attempts = drive.retries + 1;
    env
}

/// Continue an interrupted session from its journal; with failures on the
/// way to a model (or `--retry-failed`, any failure), cut back to ask them again.
fn resume(id: &str, retry_failed: bool, drive: DriveArgs, config: &Config) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = Session::find(&root, id).map_err(bad)?;
    let _lock = lock_session(&session)?;
    check_outputs(&drive, None)?;
    let path = session.journal();
    let mut runtime = Runtime::load()?;
    let retry = if retry_failed { Retry::AllFailures } else { Retry::Transport };
    let journal::Opened { mut council, tail, cut } = journal::open(&mut runtime, &path, Some(retry))?;
    if cut.is_none()
        && let Some(outcome) = council.outcome()?
    {
        journal::repair(&path, tail)?;
        eprintln!("agon: session {} already finished; nothing to call. Its transcript:", session.id);
        if !outcome.failures.is_empty() && !retry_failed {
            eprintln!(
                "agon: {} call(s) failed; `agon resume {} --retry-failed` asks them again (and what followed them)",
                outcome.failures.len(),
                session.id
            );
        }
        let code = write_result(&mut council, &drive, false)?;
        note_outcome(&outcome);
        write_transcripts(&mut council, &session)?;
        return Ok(code);
    }
    // Before the journal changes: the endpoints must be back.
    let models = models_of(&serde_json::from_str(&council.spec_json()?)?);
    let env = environment(config, &drive);
    host::preflight(&models, &env).map_err(bad)?;
    match cut {
        Some(cut) => {
            let kept = journal::replace(&path, &council.journal()?)?;
            // They told the old journal's story (still readable: `agon replay` the kept one).
            for stale in [sessions::TRANSCRIPT_JSON, sessions::TRANSCRIPT_MD] {
                match std::fs::remove_file(session.dir.join(stale)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(
                            anyhow::Error::new(e).context(format!("removing {stale} of session {}", session.id))
                        );
                    }
                    _ => {}
                }
            }
            let what = if retry_failed { "failed" } else { "failed on the way to their model (transport)" };
            eprintln!(
                "agon: session {}: asking again {} call(s) that {what}, from journal line {} on; {} answered call(s) planned after them are asked again too; the previous journal is kept as {}",
                session.id,
                cut.failures,
                cut.line,
                cut.replies_dropped,
                kept.display()
            );
        }
        None => journal::repair(&path, tail)?,
    }
    let waiting = council.outstanding()?.len();
    eprintln!("agon: resuming session {}: {waiting} call(s) were never answered", session.id);
    let journals = vec![JournalFile::append_to(&path)?];
    let options = call_options(&drive, config);
    drive_to_end(&mut council, &env, &drive, options, journals, Some(&session), None)
}

/// Drive the council to its end (or an interruption), then write the result,
/// the session's transcripts and the exit code.
fn drive_to_end(
    council: &mut agon_cli::engine::Council<'_>,
    env: &Environment,
    drive: &DriveArgs,
    options: CallOptions,
    journals: Vec<JournalFile>,
    session: Option<&Session>,
    journal_copy: Option<&std::path::Path>,
) -> Result<u8> {
    let events_to_stdout = drive.events.as_deref() == Some("-");
    let stdout_is_terminal = std::io::stdout().is_terminal() && !events_to_stdout;
    // The live view goes to a terminal stdout, else to stderr; the result document to stdout or --output.
    let view_out: Option<Box<dyn Write>> = match (drive.quiet, stdout_is_terminal) {
        (true, _) => None,
        (false, true) => Some(Box::new(std::io::stdout())),
        (false, false) => Some(Box::new(std::io::stderr())),
    };
    // On a terminal: the live view (NO_COLOR: without colour); elsewhere plain lines.
    let colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut view = if stdout_is_terminal && !drive.quiet { View::live(colour) } else { View::new(view_out) };
    let events: Option<Box<dyn Write>> = match drive.events.as_deref() {
        None => None,
        Some("-") => Some(Box::new(std::io::stdout())),
        Some(path) => Some(Box::new(std::fs::File::create(path).with_context(|| format!("creating {path}"))?)),
    };
    let mut sinks = Sinks { events, journals };
    let ending =
        host::drive(council, env, options, &mut sinks, &mut view, host::channel_with_interrupt()).map_err(|e| {
            match session {
                // A full disk, say: what was answered before it is kept.
                Some(s) => anyhow::anyhow!(
                    "{e:#}; every turn answered before that is kept: once that is fixed, continue with: agon resume {}",
                    s.id
                ),
                None => e,
            }
        })?;
    // Take the status lines down before anything else is printed (they would be redrawn over it).
    drop(view);
    match ending {
        Ending::Done(outcome) => {
            let code = write_result(council, drive, stdout_is_terminal)?;
            // The view showed the outcome, unless it was quiet.
            if drive.quiet {
                note_outcome(&outcome);
            }
            if let Some(s) = session {
                write_transcripts(council, s)?;
                if !drive.quiet {
                    eprintln!("agon: kept as session {} (agon show {} · agon export {})", s.id, s.id, s.id);
                }
            }
            Ok(code)
        }
        Ending::Interrupted => {
            let hint = match (session, journal_copy) {
                (Some(s), _) => format!("every answered turn is kept; resume with: agon resume {}", s.id),
                (None, Some(p)) => {
                    format!("every answered turn is in {}; see it with `agon replay {}`", p.display(), p.display())
                }
                (None, None) => "--no-save was given, so the answered turns are gone".to_string(),
            };
            safe_eprintln!("\nagon: interrupted; {hint}");
            Ok(exit::INTERRUPTED)
        }
    }
}

/// The transcript in the asked-for form. YAML is the JSON transcript, re-encoded.
fn document(council: &mut agon_cli::engine::Council<'_>, format: Format) -> Result<String> {
    match format {
        Format::Markdown => council.transcript_markdown(),
        Format::Json => council.transcript_json(),
        Format::Yaml => yaml(&council.transcript_json()?),
    }
}

fn kind(format: Format) -> output::Kind {
    match format {
        Format::Markdown => output::Kind::Markdown,
        Format::Json => output::Kind::Json,
        Format::Yaml => output::Kind::Yaml,
    }
}

fn yaml(json: &str) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    Ok(serde_yaml_ng::to_string(&value)?)
}

/// The result document, to --output or stdout, and the exit code of the outcome.
fn write_result(council: &mut agon_cli::engine::Council<'_>, drive: &DriveArgs, shown_live: bool) -> Result<u8> {
    let document = document(council, drive.format)?;
    let document = document_text(&document, kind(drive.format));
    let events_to_stdout = drive.events.as_deref() == Some("-");
    match (&drive.output, events_to_stdout, shown_live, drive.format) {
        (Some(path), _, _, _) => {
            std::fs::write(path, document.as_bytes()).with_context(|| format!("writing {}", path.display()))?
        }
        (None, true, _, _) => {}
        // The live view already showed the debate as Markdown on this terminal.
        (None, false, true, Format::Markdown) => {}
        (None, false, _, _) => {
            let mut out = std::io::stdout().lock();
            out.write_all(document.as_bytes())?;
            out.flush()?;
        }
    }
    let outcome = council.outcome()?.context("the debate ended without an outcome")?;
    Ok(exit_code(&outcome))
}

/// The session's rendered transcripts: as every text agon writes, no control character raw.
fn write_transcripts(council: &mut agon_cli::engine::Council<'_>, session: &Session) -> Result<()> {
    let context = || {
        format!(
            "writing the transcripts of session {} (its journal is whole: `agon resume {}` writes them again)",
            session.id, session.id
        )
    };
    session.write(sessions::TRANSCRIPT_JSON, &output::json_text(&council.transcript_json()?)).with_context(context)?;
    let markdown = council.transcript_markdown()?;
    session.write(sessions::TRANSCRIPT_MD, &sanitize::terminal(&markdown)).with_context(context)?;
    Ok(())
}

fn list_sessions(json: bool) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let all = sessions::list(&root);
    let mut out = std::io::stdout().lock();
    if json {
        for s in &all {
            writeln!(out, "{}", output::json_text(&serde_json::to_string(&s.summary())?))?;
        }
    } else if all.is_empty() {
        writeln!(out, "no sessions in {} yet", root.display())?;
    } else {
        writeln!(
            out,
            "{:<21} {:<16} {:<19} {:<12} {:>9}  question",
            "id", "created (UTC)", "protocol", "outcome", "cost"
        )?;
        for s in &all {
            writeln!(out, "{}", sanitize::terminal(&s.summary().line()))?;
        }
    }
    Ok(exit::OK)
}

/// A session's transcript in `format`: the stored render, or rendered from
/// the journal when the run never ended.
fn session_document(id: &str, format: Format) -> Result<String> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = Session::find(&root, id).map_err(bad)?;
    let stored = |name: &str| std::fs::read_to_string(session.dir.join(name)).ok();
    let found = match format {
        Format::Markdown => stored(sessions::TRANSCRIPT_MD),
        Format::Json => stored(sessions::TRANSCRIPT_JSON),
        Format::Yaml => stored(sessions::TRANSCRIPT_JSON).map(|json| yaml(&json)).transpose()?,
    };
    if let Some(text) = found {
        return Ok(text);
    }
    let mut runtime = Runtime::load()?;
    let mut opened = journal::open(&mut runtime, &session.journal(), None)?;
    document(&mut opened.council, format)
}

fn show(id: &str, format: Format) -> Result<u8> {
    let document = session_document(id, format)?;
    std::io::stdout().lock().write_all(document_text(&document, kind(format)).as_bytes())?;
    Ok(exit::OK)
}

fn export(id: &str, format: ExportFormat, output: Option<&std::path::Path>) -> Result<u8> {
    if let Some(path) = output {
        check_writable(path, "--output").map_err(bad)?;
    }
    let document = match format {
        ExportFormat::Md => sanitize::terminal(&session_document(id, Format::Markdown)?).into_owned(),
        ExportFormat::Json => output::json_text(&session_document(id, Format::Json)?).into_owned(),
        ExportFormat::Html => {
            let json: serde_json::Value = serde_json::from_str(&session_document(id, Format::Json)?)?;
            agon_cli::export::html(&json)
        }
    };
    match output {
        Some(path) => std::fs::write(path, &document).with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().lock().write_all(document.as_bytes())?,
    }
    Ok(exit::OK)
}

/// A lock on a batch's results file, held beside it as `RESULTS.lock`.
fn lock_results(results: &std::path::Path) -> Result<Lock> {
    let mut name = results.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    Lock::acquire(&results.with_file_name(name)).map_err(|e| match e {
        LockError::Held { pid } => bad(format!(
            "{} is being written by another agon batch{}: wait for it to end (or stop it), then run this again",
            results.display(),
            pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
        )),
        LockError::Io(e) => anyhow::Error::new(e).context(format!("locking {}", results.display())),
    })
}

fn batch(args: BatchArgs, config: &Config) -> Result<u8> {
    check_writable(&args.output, "--output").map_err(bad)?;
    let _lock = lock_results(&args.output)?;
    let bytes =
        std::fs::read(&args.questions).map_err(|e| bad(format!("cannot read {}: {e}", args.questions.display())))?;
    let (items, problems) = agon_cli::batch::read_items(&bytes);
    for p in &problems {
        safe_eprintln!("agon: {}: {p}", args.questions.display());
    }
    let done = agon_cli::batch::finished_ids(&args.output)?;
    let todo: Vec<_> = items.iter().filter(|i| !done.contains(&i.id)).cloned().collect();
    let Some(first) = todo.first().or(items.first()).map(|i| i.question.clone()) else {
        return Err(bad(format!("{}: no questions", args.questions.display())));
    };
    let mut runtime = Runtime::load()?;
    let template: serde_json::Value = serde_json::from_str(&spec_json(&args.spec, &first, &mut runtime, config)?)?;
    let mut rates = std::collections::BTreeMap::new();
    for r in &args.rates {
        let (provider, per_minute) = agon_cli::provider::gate::parse_rate(r).map_err(bad)?;
        if !agon_cli::provider::PRESETS.iter().any(|p| p.name == provider) && provider != "cmd" {
            return Err(bad(format!(
                "--rate {r}: no provider '{provider}' (known: {})",
                agon_cli::provider::provider_names()
            )));
        }
        rates.insert(provider, per_minute);
    }
    let mut env = Environment::new(config);
    env.retry.attempts = args.retries + 1;
    env.gate = Some(std::sync::Arc::new(agon_cli::provider::gate::CallGate::new(Some(args.max_in_flight), &rates)));
    host::preflight(&models_of(&template), &env).map_err(bad)?;
    let bound = runtime.estimate(&template.to_string())?.map_err(|e| bad(e.to_string()))?;
    safe_eprintln!(
        "agon: {} to run, {} already in {}; each debate at worst: {}",
        todo.len(),
        items.len() - todo.len(),
        args.output.display(),
        worst_case_line(&bound).trim_start_matches("agon: worst case ")
    );
    // Ctrl-C: every finished debate is already in the results; a rerun continues.
    let output = args.output.clone();
    let _ = ctrlc::set_handler(move || {
        eprintln!(
            "\nagon: interrupted; finished debates are in {}: run the same command to continue",
            output.display()
        );
        std::process::exit(i32::from(exit::INTERRUPTED));
    });
    let run = agon_cli::batch::Batch {
        template,
        env,
        options: CallOptions {
            timeout: Duration::from_secs(args.timeout),
            stream: false,
            max_reply: args
                .max_reply
                .or(config.defaults.max_reply.as_ref().and_then(|s| s.bytes().ok()))
                .unwrap_or(DEFAULT_MAX_REPLY),
        },
        concurrency: args.concurrency,
        output: &args.output,
    };
    let tally = run.run(todo)?;
    safe_eprintln!(
        "agon: batch done: {} complete, {} degraded or stopped, {} failed, {} line(s) skipped; results in {}",
        tally.full,
        tally.partial,
        tally.errors,
        problems.len(),
        args.output.display()
    );
    Ok(match (tally.errors, tally.partial, problems.len()) {
        (0, 0, 0) => exit::OK,
        (0, 0, _) => exit::BAD_INPUT,
        (0, _, _) => exit::DEGRADED,
        _ => exit::FAILURE,
    })
}

fn doctor(config: &Config, extra: &[String], timeout: u64) -> Result<u8> {
    let models = agon_cli::doctor::targets(config, extra);
    let source = config.path.as_ref().map_or("no agon.toml found".to_string(), |p| format!("config {}", p.display()));
    if models.is_empty() {
        safe_println!(
            "agon doctor · {source} · nothing to check: name models in agon.toml's [panels], or give them: agon doctor openai/gpt-4o-mini"
        );
        return Ok(exit::BAD_INPUT);
    }
    safe_println!("agon doctor · {source}");
    let env = Environment::new(config);
    let mut probe = |m: &str| agon_cli::doctor::live_probe(m, &env, Duration::from_secs(timeout));
    let endpoint = |m: &str| agon_cli::doctor::endpoint_of(m, &env);
    let mut checks = Vec::new();
    for model in models {
        // One at a time, so each line shows as soon as its probe ends.
        let check = agon_cli::doctor::check_all(&[model], &mut probe, &endpoint, agon_cli::doctor::now()).remove(0);
        safe_println!("  {}  {}: {}", if check.healthy { "ok  " } else { "dead" }, check.model, check.detail);
        checks.push(check);
    }
    let dead = checks.iter().filter(|c| !c.healthy).count();
    if let Some(dir) = agon_cli::engine::cache_dir() {
        let mut cache = agon_cli::doctor::HealthCache::load(&dir);
        cache.record(&checks);
        match cache.save(&dir) {
            Ok(()) => safe_println!(
                "{} of {} answered; kept for a day in {}: `agon run` leaves out dead seats until then",
                checks.len() - dead,
                checks.len(),
                agon_cli::doctor::HealthCache::path(&dir).display()
            ),
            Err(e) => eprintln!("agon: could not keep the results: {e}"),
        }
    }
    Ok(if dead == 0 { exit::OK } else { exit::FAILURE })
}

/// A journal rendered without calling any model; read a line at a time.
fn replay(args: ReplayArgs) -> Result<u8> {
    if let Some(path) = &args.output {
        check_writable(path, "--output").map_err(bad)?;
    }
    if !args.journal.exists() {
        return Err(bad(format!("cannot read the journal {}: no such file", args.journal.display())));
    }
    let mut runtime = Runtime::load()?;
    let journal::Opened { mut council, tail, .. } = journal::open(&mut runtime, &args.journal, None)?;
    if let journal::Tail::Torn { .. } = tail {
        eprintln!("agon: the journal's last line is torn (a crash while it was written); it is left out");
    }
    let document = document(&mut council, args.format)?;
    let document = document_text(&document, kind(args.format));
    match &args.output {
        Some(path) => {
            std::fs::write(path, document.as_bytes()).with_context(|| format!("writing {}", path.display()))?
        }
        None => std::io::stdout().lock().write_all(document.as_bytes())?,
    }
    match council.outcome()? {
        Some(outcome) => {
            note_outcome(&outcome);
            Ok(exit_code(&outcome))
        }
        None => {
            let waiting = council.outstanding()?.len();
            eprintln!("agon: this debate did not finish; {waiting} request(s) were never answered");
            Ok(exit::INTERRUPTED)
        }
    }
}

/// The outcome line on stderr when it is not a full answer and nothing showed it yet.
fn note_outcome(outcome: &wit::Outcome) {
    if !matches!(outcome.kind, wit::OutcomeKind::Completed | wit::OutcomeKind::Consensus) {
        safe_eprintln!("{}", outcome_line(outcome));
    }
}

fn exit_code(outcome: &wit::Outcome) -> u8 {
    match outcome.kind {
        wit::OutcomeKind::Completed | wit::OutcomeKind::Consensus => exit::OK,
        wit::OutcomeKind::Degraded => exit::DEGRADED,
        wit::OutcomeKind::JudgeFailed => exit::JUDGE_FAILED,
        wit::OutcomeKind::NoQuorum => exit::NO_QUORUM,
        wit::OutcomeKind::CostLimit => exit::COST_LIMIT,
    }
}
