//! `agon run`: one debate, from flags to the result document.

use agon_cli::cli::{DriveArgs, RunArgs};
use agon_cli::config::Config;
use agon_cli::engine::Runtime;
use agon_cli::host::JournalFile;
use agon_cli::options::Options;
use agon_cli::output::check_writable;
use agon_cli::provider::Environment;
use agon_cli::request::DebateRequest;
use agon_cli::runner::cost::worst_case_line;
use agon_cli::runner::{self, History};
use agon_cli::sessions;
use agon_cli::{bad, safe_eprintln};
use anyhow::{Context, Result};

use super::drive::{Ends, call_options, drive_to_end, environment};

/// Flags first, then agon.toml, then the built-in defaults.
pub fn configure_run(
    request: &mut DebateRequest,
    drive: &mut DriveArgs,
    config: &Config,
    asked: &Options,
) -> Result<()> {
    let settings = config.apply_to_request(request, asked).map_err(bad)?;
    drive.calls.timeout = settings.timeout.unwrap_or(drive.calls.timeout);
    // No panel anywhere: seat what this machine offers; no judge: one off the panel.
    let env = Environment::new(config);
    let discover = || agon_cli::discovery::discover(&env, std::time::Duration::from_secs(2));
    if let Some(line) = agon_cli::discovery::fill(request, discover).map_err(bad)? {
        safe_eprintln!("{line}");
    }
    // Seats `agon doctor` found dead in the last day stay out (role-council's seats are its roles).
    if request.protocol_name() != "role-council"
        && let Some(dir) = agon_cli::engine::cache_dir()
    {
        let keep = request.compared.len().max(2);
        let health = agon_cli::doctor::HealthCache::load(&dir);
        let env = Environment::new(config);
        let endpoint = |m: &str| agon_cli::doctor::endpoint_of(m, &env);
        for warning in health.prune(&mut request.panel, keep, agon_cli::doctor::now(), &endpoint) {
            safe_eprintln!("{warning}");
        }
    }
    Ok(())
}

/// Every file the run will write, checked before anything is spent.
pub fn check_outputs(drive: &DriveArgs, journal: Option<&std::path::Path>) -> Result<()> {
    let events = drive.events.as_deref().filter(|e| *e != "-").map(std::path::Path::new);
    for (path, flag) in [(drive.output.as_deref(), "--output"), (events, "--events"), (journal, "--journal")] {
        if let Some(path) = path {
            check_writable(path, flag).map_err(bad)?;
        }
    }
    Ok(())
}

/// `agon run`: the flags made a request, agon.toml fills it, the runner drives it.
pub fn run(args: RunArgs, config: &Config, asked: &Options) -> Result<u8> {
    let RunArgs { question, spec, drive, journal, no_save } = args;
    let request = spec.into_request(question, &mut |w| safe_eprintln!("{w}"));
    run_request(request, drive, journal, no_save, config, asked)
}

/// Run a request as `agon run` does (`agon continue` too): agon.toml fills
/// what `asked` leaves open, the runner drives it.
pub fn run_request(
    mut request: DebateRequest,
    mut drive: DriveArgs,
    journal: Option<std::path::PathBuf>,
    no_save: bool,
    config: &Config,
    asked: &Options,
) -> Result<u8> {
    configure_run(&mut request, &mut drive, config, asked)?;
    check_outputs(&drive, journal.as_deref())?;
    let mut runtime = Runtime::load()?;
    let env = environment(config, &drive);
    let prepared = runner::prepare(&request, &mut runtime, config, &env, History::Counted, &|_| Ok(()))?;
    let history = prepared.history;
    if !drive.quiet {
        safe_eprintln!("{}", worst_case_line(&prepared.bound));
    }

    let mut council = runtime.create(&prepared.spec)?.map_err(|e| bad(e.to_string()))?;
    let header = council.journal()?;
    let (session, _lock) = runner::new_session(no_save)?;
    if let (Some(s), Some(key)) = (&session, &history) {
        // `agon resume` counts the result in the same history.
        s.write(sessions::COMPETE_KEY, &serde_json::to_string(key)?)
            .with_context(|| format!("writing {} in session {}", sessions::COMPETE_KEY, s.id))?;
    }
    let mut journals = Vec::new();
    if let Some(s) = &session {
        journals.push(JournalFile::create(&s.journal(), &header)?);
    }
    if let Some(path) = &journal {
        journals.push(JournalFile::create_copy(path, &header)?);
    }
    let options = call_options(&drive, config);
    let ends = Ends { session: session.as_ref(), journal_copy: journal.as_deref(), history: history.as_ref() };
    drive_to_end(&mut council, &env, &drive, options, journals, ends)
}
