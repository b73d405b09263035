//! `agon batch`: many debates from a questions file.

use agon_cli::cli::{BatchArgs, PoolArgs};
use agon_cli::config::Config;
use agon_cli::engine::Runtime;
use agon_cli::host;
use agon_cli::lock::{Lock, LockError};
use agon_cli::options::Options;
use agon_cli::output::check_writable;
use agon_cli::runner::cost::worst_case_line;
use agon_cli::runner::spec::human_seats;
use agon_cli::runner::{self, History};
use agon_cli::{bad, safe_eprintln};
use anyhow::Result;

use super::exit;

/// A lock on a batch's results file, held beside it as `RESULTS.lock`.
pub fn lock_results(results: &std::path::Path) -> Result<Lock> {
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

/// How a run of many debates goes: where its results and journals are kept,
/// and how hard it may press the providers.
pub struct Settings<'a> {
    pub output: &'a std::path::Path,
    pub journals: std::path::PathBuf,
    pub keep_errors: bool,
    pub pool: &'a PoolArgs,
}

impl<'a> Settings<'a> {
    pub fn of(args: &'a BatchArgs) -> Settings<'a> {
        Settings {
            output: &args.output,
            journals: args.journals.clone().unwrap_or_else(|| agon_cli::batch::default_journals(&args.output)),
            keep_errors: args.keep_errors,
            pool: &args.pool,
        }
    }
}

/// `agon batch`: the flags make one request, agon.toml fills it, and each
/// question of the file is a debate of it.
pub fn batch(args: BatchArgs, config: &Config, asked: &Options) -> Result<u8> {
    let mut request = args.spec.clone().into_request(String::new(), &mut |w| safe_eprintln!("{w}"));
    config.apply_to_request(&mut request, asked).map_err(bad)?;
    agon_cli::bounded::check_output(&args.output, Some(&args.questions), "--output").map_err(bad)?;
    // Locked before anything is read: a second batch on the same results is refused first.
    check_writable(&args.output, "--output").map_err(bad)?;
    let _lock = lock_results(&args.output)?;
    let bytes = agon_cli::bounded::read_bytes(&args.questions, agon_cli::bounded::BATCH_LIMIT, "questions file")
        .map_err(bad)?;
    let (items, problems) = agon_cli::batch::read_items(&bytes);
    for p in &problems {
        safe_eprintln!("agon: {}: {p}", args.questions.display());
    }
    if items.is_empty() {
        return Err(bad(format!("{}: no questions", args.questions.display())));
    }
    on_ctrl_c(&args.output);
    let tally = run_items(request, items, &Settings::of(&args), config)?;
    safe_eprintln!(
        "agon: batch done: {} complete, {} degraded or stopped, {} failed, {} line(s) skipped; results in {}",
        tally.full,
        tally.partial,
        tally.errors,
        problems.len(),
        args.output.display()
    );
    if let Ok(spent) = agon_cli::runner::cost::spent_in_results(&args.output) {
        safe_eprintln!("{} (every debate in {})", agon_cli::runner::cost::spent(&spent), args.output.display());
    }
    Ok(match (tally.errors, tally.partial, problems.len()) {
        (0, 0, 0) => exit::OK,
        (0, 0, _) => exit::BAD_INPUT,
        (0, _, _) => exit::DEGRADED,
        _ => exit::FAILURE,
    })
}

/// Ctrl-C: every finished debate is already in `results` (a file, or the
/// folder of an evaluation's); a rerun continues. Set once per process.
pub fn on_ctrl_c(results: &std::path::Path) {
    let output = results.to_path_buf();
    let skipped = format!("without this notice (finished debates are in {} all the same)", output.display());
    let handler = move || {
        eprintln!(
            "\nagon: interrupted; finished debates are in {}: run the same command to continue",
            output.display()
        );
        std::process::exit(i32::from(exit::INTERRUPTED));
    };
    host::on_ctrl_c(handler, &skipped, &mut |w| safe_eprintln!("{w}"));
}

/// Debate every item not already in the results file, with `request` as
/// each one's spec (its question, context and answer set per item). The
/// caller holds the results file's lock ([`lock_results`]).
pub fn run_items(
    mut request: agon_cli::request::DebateRequest,
    items: Vec<agon_cli::batch::Item>,
    settings: &Settings,
    config: &Config,
) -> Result<agon_cli::batch::Tally> {
    let done = agon_cli::batch::finished_ids(settings.output, settings.keep_errors)?;
    let todo: Vec<_> = items.iter().filter(|i| !done.contains(&i.id)).cloned().collect();
    let first = todo.first().or(items.first()).expect("the caller gives at least one item");
    request.question = first.question.clone();
    if let Some(answer) = &first.answer {
        request.answer = Some(serde_json::from_value(answer.clone()).map_err(|e| bad(format!("answer: {e}")))?);
    }
    let mut rates = std::collections::BTreeMap::new();
    for r in &settings.pool.rates {
        let (provider, per_minute) = agon_cli::provider::gate::parse_rate(r).map_err(bad)?;
        if !agon_cli::provider::PRESETS.iter().any(|p| p.name == provider) && provider != "cmd" {
            return Err(bad(format!(
                "--rate {r}: no provider '{provider}' (known: {})",
                agon_cli::provider::provider_names()
            )));
        }
        rates.insert(provider, per_minute);
    }
    let mut env = settings.pool.calls.environment(config);
    env.gate =
        Some(std::sync::Arc::new(agon_cli::provider::gate::CallGate::new(Some(settings.pool.max_in_flight), &rates)));
    let mut runtime = Runtime::load()?;
    // Each debate of a batch stands alone: no compete history is read or kept.
    let nobody_at_a_terminal = |spec: &serde_json::Value| match human_seats(spec).into_iter().next() {
        Some((seat, model)) => Err(bad(format!(
            "batch cannot seat a person: seat '{seat}' is {model}, and nobody answers at a terminal in a batch; use `agon run`, or give the seat a model"
        ))),
        None => Ok(()),
    };
    let prepared = runner::prepare(&request, &mut runtime, config, &env, History::Alone, &nobody_at_a_terminal)?;
    let (template, bound) = (prepared.parsed, prepared.bound);
    safe_eprintln!(
        "agon: {} to run, {} already in {}; each debate at worst: {}",
        todo.len(),
        items.len() - todo.len(),
        settings.output.display(),
        worst_case_line(&bound).trim_start_matches("agon: worst case ")
    );
    let run = agon_cli::batch::Batch {
        template,
        env,
        options: settings.pool.calls.call_options(config, settings.pool.calls.timeout, false),
        concurrency: settings.pool.concurrency,
        output: settings.output,
        journals: settings.journals.clone(),
    };
    run.run(todo)
}
