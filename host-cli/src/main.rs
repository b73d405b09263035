//! `agon`: run LLM councils from the terminal.

mod commands;
mod mcp;

use std::process::ExitCode;

use agon_cli::cli::{Cli, Command};
use agon_cli::config::Config;
use agon_cli::engine::component;
use agon_cli::{BadInput, bad, safe_eprintln};
use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches};
use commands::exit;

fn main() -> ExitCode {
    agon_cli::closed_pipe::install();
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // What the flags set, apart from clap's defaults: the top layer over agon.toml.
    let sub = matches.subcommand().map_or(&matches, |(_, m)| m);
    let config = || load_config(cli.config.as_deref());
    let result = match cli.command {
        Command::Run(args) => {
            let asked = args.spec.options(sub);
            config().and_then(|c| commands::run::run(args, &c, &asked))
        }
        Command::Spec(args) => config().and_then(|c| {
            let asked = args.spec.options(sub);
            let mut request = args.spec.into_request(args.question, &mut |w| safe_eprintln!("{w}"));
            c.apply_to_request(&mut request, &asked).map_err(bad)?;
            commands::spec::spec(request, &c)
        }),
        Command::Continue(args) => {
            let asked = args.run.spec.options(sub);
            config().and_then(|c| commands::follow_up::continue_session(args, &c, &asked))
        }
        Command::Batch(args) => {
            let asked = args.spec.options(sub);
            config().and_then(|c| commands::batch::batch(args, &c, &asked))
        }
        Command::Eval(args) => {
            let asked = args.spec.options(sub);
            config().and_then(|c| commands::eval::eval(args, &c, &asked))
        }
        Command::CompeteEval { id, kept } => commands::compete_eval::compete_eval(&id, kept.as_deref()),
        Command::Review(args) => {
            let asked = args.spec.options(sub);
            Ok(commands::review::review(args, cli.config.as_deref(), &asked))
        }
        Command::Replay(args) => commands::replay::replay(args),
        Command::Resume { id, retry_failed, drive } => {
            config().and_then(|c| commands::resume::resume(&id, retry_failed, drive, &c))
        }
        Command::Sessions { json } => commands::sessions::list_sessions(json),
        Command::Show { id, format, timeline } => commands::sessions::show(&id, format, timeline),
        Command::Export { id, format, output } => commands::sessions::export(&id, format, output.as_deref()),
        Command::Doctor { models, timeout, discover, json } => config()
            .and_then(|c| commands::doctor::doctor(&c, &models, commands::doctor::Asked { timeout, discover, json })),
        Command::Trust { file, list, revoke } => {
            agon_cli::trust::command(file.as_deref(), list, revoke).map(|_| exit::OK)
        }
        Command::Protocols { show, format } => {
            config().and_then(|c| commands::protocols::protocols(&c, show.as_deref(), format))
        }
        Command::Config { show: _ } => {
            config().map(|c| agon_cli::safe_println!("{}", agon_cli::config::show(&c).trim_end())).map(|_| exit::OK)
        }
        Command::Models { filter, json, update: true } if filter.is_none() && !json => commands::models::update(),
        Command::Models { update: true, .. } => {
            Err(agon_cli::bad("--update fetches the catalog and shows nothing: give it alone"))
        }
        Command::Models { filter, json, update: false } => {
            config().and_then(|c| commands::models::models(&c, filter.as_deref(), json))
        }
        Command::Mcp(args) => config().and_then(|c| mcp::serve(args, c)),
        Command::Completions { shell } => commands::manual::completions(shell),
        Command::Man { command } => commands::manual::man(command.as_deref()),
        Command::Component { output } => std::fs::write(&output, component())
            .with_context(|| format!("writing {}", output.display()))
            .map(|_| exit::OK),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if agon_cli::closed_pipe::caused_by(&e) => agon_cli::closed_pipe::end(),
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
