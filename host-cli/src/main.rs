//! `agon`: run LLM councils from the terminal.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use agon_cli::cli::{BatchArgs, Cli, Command, DriveArgs, ExportFormat, Format, ReplayArgs, RunArgs, SpecArgs, SpecCmd};
use agon_cli::config::{Config, given_in};
use agon_cli::engine::{COMPONENT, Runtime, wit};
use agon_cli::host::{self, Ending, JournalFile, Sinks};
use agon_cli::prices::PriceTable;
use agon_cli::provider::{CallOptions, Environment};
use agon_cli::sessions::{self, Session};
use agon_cli::spec_args;
use agon_cli::view::{View, outcome_line};
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

/// An error that is the user's input, not ours: one line, exit code 2.
#[derive(Debug)]
struct BadInput(String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

fn bad(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(BadInput(message.into()))
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let given = given_in(matches.subcommand().map_or(&matches, |(_, m)| m));
    let config = || Config::load(cli.config.as_deref()).map_err(bad);
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
        Command::Resume { id, drive } => config().and_then(|c| resume(&id, drive, &c)),
        Command::Sessions { json } => list_sessions(json),
        Command::Show { id, format } => show(&id, format),
        Command::Export { id, format, output } => export(&id, format, output.as_deref()),
        Command::Doctor { models, timeout } => config().and_then(|c| doctor(&c, &models, timeout)),
        Command::Protocols => protocols(),
        Command::Component { output } => std::fs::write(&output, COMPONENT)
            .with_context(|| format!("writing {}", output.display()))
            .map(|_| exit::OK),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            let code = if e.downcast_ref::<BadInput>().is_some() { exit::BAD_INPUT } else { exit::FAILURE };
            eprintln!("agon: {e:#}");
            ExitCode::from(code)
        }
    }
}

fn spec_json(args: &SpecArgs, question: &str, runtime: &mut Runtime, config: &Config) -> Result<String> {
    let known: Vec<String> = runtime.protocols()?.into_iter().map(|p| p.name).collect();
    let name = args.protocol.split(':').next().unwrap_or_default();
    if !known.iter().any(|k| k == name) {
        return Err(bad(format!("unknown protocol '{name}' (see `agon protocols`: {})", known.join(", "))));
    }
    let mut inputs = spec_args::Inputs::default();
    if name == "role-council" {
        inputs.roles = load_roles(args.roles.as_deref(), runtime)?;
    }
    if let Some(path) = &args.items {
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read --items {}: {e}", path.display())))?;
        inputs.items = spec_args::read_items(&text);
    }
    let mut spec = spec_args::build(args, question, &inputs, &mut |w| eprintln!("{w}")).map_err(bad)?;
    // Prices travel in the spec, so the engine can bound, limit and report the cost (and a replay agrees).
    let prices = PriceTable::new(&config.prices).for_spec(&models_of(&spec));
    if !prices.is_empty() {
        spec["prices"] = serde_json::Value::Object(prices);
    }
    runtime.validate_spec(&spec.to_string())?.map_err(|e| bad(e.to_string()))
}

/// The role files of a folder (`*.md`, by file name), or the built-in roles; parsed by the engine.
fn load_roles(dir: Option<&std::path::Path>, runtime: &mut Runtime) -> Result<Vec<wit::CouncilRole>> {
    let files: Vec<(String, String)> = match dir {
        None => runtime.builtin_roles()?.into_iter().map(|t| ("built-in".to_string(), t)).collect(),
        Some(dir) => {
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
                .map(|p| std::fs::read_to_string(&p).map(|t| (p.display().to_string(), t)))
                .collect::<std::io::Result<_>>()?
        }
    };
    files.into_iter().map(|(name, text)| runtime.parse_role(&text)?.map_err(|e| bad(format!("{name}: {e}")))).collect()
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
    println!("{}", serde_json::to_string_pretty(&pretty)?);
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
        for warning in health.prune(&mut args.spec.panel, keep, agon_cli::doctor::now()) {
            eprintln!("{warning}");
        }
    }
    Ok(())
}

fn run(args: RunArgs, config: &Config) -> Result<u8> {
    let mut runtime = Runtime::load()?;
    let spec = spec_json(&args.spec, &args.question, &mut runtime, config)?;
    let env = environment(config, &args.drive);
    let models = models_of(&serde_json::from_str(&spec)?);
    host::preflight(&models, &env).map_err(bad)?;
    let bound = runtime.estimate(&spec)?.map_err(|e| bad(e.to_string()))?;
    if !args.drive.quiet {
        eprintln!("{}", worst_case_line(&bound));
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
        eprintln!(
            "agon: --max-cost cannot count {} (no price): add [prices.\"MODEL\"] to agon.toml",
            bound.unpriced.join(", ")
        );
    }

    let mut council = runtime.create(&spec)?.map_err(|e| bad(e.to_string()))?;
    let header = council.journal()?;
    let session = if args.no_save {
        None
    } else {
        let root = sessions::root()
            .ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME), or pass --no-save"))?;
        Some(Session::create(&root).with_context(|| format!("creating a session in {}", root.display()))?)
    };
    let mut journals = Vec::new();
    if let Some(s) = &session {
        journals.push(JournalFile::create(&s.journal(), &header)?);
    }
    if let Some(path) = &args.journal {
        journals.push(JournalFile::create(path, &header)?);
    }
    drive_to_end(&mut council, &env, &args.drive, journals, session.as_ref(), args.journal.as_deref())
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

/// Continue an interrupted session from its journal.
fn resume(id: &str, drive: DriveArgs, config: &Config) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = Session::find(&root, id).map_err(bad)?;
    let journal = session.repaired_journal().with_context(|| format!("reading {}", session.journal().display()))?;
    let mut runtime = Runtime::load()?;
    let mut council =
        runtime.from_journal(&journal)?.map_err(|e| bad(format!("{}: {e}", session.journal().display())))?;
    if council.outcome()?.is_some() {
        eprintln!("agon: session {} already finished; nothing to call. Its transcript:", session.id);
        let code = write_result(&mut council, &drive, false)?;
        write_transcripts(&mut council, &session)?;
        return Ok(code);
    }
    let models = models_of(&serde_json::from_str(&council.spec_json()?)?);
    let env = environment(config, &drive);
    host::preflight(&models, &env).map_err(bad)?;
    let waiting = council.outstanding()?.len();
    eprintln!("agon: resuming session {}: {waiting} call(s) were never answered", session.id);
    let journals = vec![JournalFile::append_to(&session.journal())?];
    drive_to_end(&mut council, &env, &drive, journals, Some(&session), None)
}

/// Drive the council to its end (or an interruption), then write the result,
/// the session's transcripts and the exit code.
fn drive_to_end(
    council: &mut agon_cli::engine::Council<'_>,
    env: &Environment,
    drive: &DriveArgs,
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
    let options = CallOptions { timeout: Duration::from_secs(drive.timeout), stream: !drive.no_stream };
    let ending = host::drive(council, env, options, &mut sinks, &mut view, host::channel_with_interrupt())?;
    // Take the status lines down before anything else is printed (they would be redrawn over it).
    drop(view);
    match ending {
        Ending::Done(_) => {
            let code = write_result(council, drive, stdout_is_terminal)?;
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
            eprintln!("\nagon: interrupted; {hint}");
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

fn yaml(json: &str) -> Result<String> {
    let value: serde_json::Value = serde_json::from_str(json)?;
    Ok(serde_yaml_ng::to_string(&value)?)
}

/// The result document, to --output or stdout, and the exit code of the outcome.
fn write_result(council: &mut agon_cli::engine::Council<'_>, drive: &DriveArgs, shown_live: bool) -> Result<u8> {
    let document = document(council, drive.format)?;
    let events_to_stdout = drive.events.as_deref() == Some("-");
    match (&drive.output, events_to_stdout, shown_live, drive.format) {
        (Some(path), _, _, _) => {
            std::fs::write(path, &document).with_context(|| format!("writing {}", path.display()))?
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

fn write_transcripts(council: &mut agon_cli::engine::Council<'_>, session: &Session) -> Result<()> {
    session.write(sessions::TRANSCRIPT_JSON, &council.transcript_json()?)?;
    session.write(sessions::TRANSCRIPT_MD, &council.transcript_markdown()?)?;
    Ok(())
}

fn list_sessions(json: bool) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let all = sessions::list(&root);
    let mut out = std::io::stdout().lock();
    if json {
        for s in &all {
            writeln!(out, "{}", serde_json::to_string(&s.summary())?)?;
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
            writeln!(out, "{}", s.summary().line())?;
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
    let journal = std::fs::read_to_string(session.journal())
        .with_context(|| format!("reading {}", session.journal().display()))?;
    let mut runtime = Runtime::load()?;
    let mut council =
        runtime.from_journal(&journal)?.map_err(|e| bad(format!("{}: {e}", session.journal().display())))?;
    document(&mut council, format)
}

fn show(id: &str, format: Format) -> Result<u8> {
    let document = session_document(id, format)?;
    std::io::stdout().lock().write_all(document.as_bytes())?;
    Ok(exit::OK)
}

fn export(id: &str, format: ExportFormat, output: Option<&std::path::Path>) -> Result<u8> {
    let document = match format {
        ExportFormat::Md => session_document(id, Format::Markdown)?,
        ExportFormat::Json => session_document(id, Format::Json)?,
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

fn batch(args: BatchArgs, config: &Config) -> Result<u8> {
    let text = std::fs::read_to_string(&args.questions)
        .map_err(|e| bad(format!("cannot read {}: {e}", args.questions.display())))?;
    let (items, problems) = agon_cli::batch::read_items(&text);
    for p in &problems {
        eprintln!("agon: {}: {p}", args.questions.display());
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
        rates.insert(provider, per_minute);
    }
    let mut env = Environment::new(config);
    env.retry.attempts = args.retries + 1;
    env.gate = Some(std::sync::Arc::new(agon_cli::provider::gate::CallGate::new(Some(args.max_in_flight), &rates)));
    host::preflight(&models_of(&template), &env).map_err(bad)?;
    let bound = runtime.estimate(&template.to_string())?.map_err(|e| bad(e.to_string()))?;
    eprintln!(
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
        options: CallOptions { timeout: Duration::from_secs(args.timeout), stream: false },
        concurrency: args.concurrency,
        output: &args.output,
    };
    let tally = run.run(todo)?;
    eprintln!(
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
        println!(
            "agon doctor · {source} · nothing to check: name models in agon.toml's [panels], or give them: agon doctor openai/gpt-4o-mini"
        );
        return Ok(exit::BAD_INPUT);
    }
    println!("agon doctor · {source}");
    let env = Environment::new(config);
    let mut probe = |m: &str| agon_cli::doctor::live_probe(m, &env, Duration::from_secs(timeout));
    let mut checks = Vec::new();
    for model in models {
        // One at a time, so each line shows as soon as its probe ends.
        let check = agon_cli::doctor::check_all(&[model], &mut probe, agon_cli::doctor::now()).remove(0);
        println!("  {}  {}: {}", if check.healthy { "ok  " } else { "dead" }, check.model, check.detail);
        checks.push(check);
    }
    let dead = checks.iter().filter(|c| !c.healthy).count();
    if let Some(dir) = agon_cli::engine::cache_dir() {
        let mut cache = agon_cli::doctor::HealthCache::load(&dir);
        cache.record(&checks);
        match cache.save(&dir) {
            Ok(()) => println!(
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

fn replay(args: ReplayArgs) -> Result<u8> {
    let text = std::fs::read_to_string(&args.journal)
        .map_err(|e| bad(format!("cannot read the journal {}: {e}", args.journal.display())))?;
    let mut runtime = Runtime::load()?;
    let mut council = runtime.from_journal(&text)?.map_err(|e| bad(format!("{}: {e}", args.journal.display())))?;
    let document = document(&mut council, args.format)?;
    match &args.output {
        Some(path) => std::fs::write(path, &document).with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().lock().write_all(document.as_bytes())?,
    }
    match council.outcome()? {
        Some(outcome) => Ok(exit_code(&outcome)),
        None => {
            let waiting = council.outstanding()?.len();
            eprintln!("agon: this debate did not finish; {waiting} request(s) were never answered");
            Ok(exit::INTERRUPTED)
        }
    }
}

fn exit_code(outcome: &wit::Outcome) -> u8 {
    if !matches!(outcome.kind, wit::OutcomeKind::Completed | wit::OutcomeKind::Consensus) {
        eprintln!("{}", outcome_line(outcome));
    }
    match outcome.kind {
        wit::OutcomeKind::Completed | wit::OutcomeKind::Consensus => exit::OK,
        wit::OutcomeKind::Degraded => exit::DEGRADED,
        wit::OutcomeKind::JudgeFailed => exit::JUDGE_FAILED,
        wit::OutcomeKind::NoQuorum => exit::NO_QUORUM,
        wit::OutcomeKind::CostLimit => exit::COST_LIMIT,
    }
}
