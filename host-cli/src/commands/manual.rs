//! `agon completions SHELL` and `agon man [COMMAND]`: generated from the same
//! clap command that parses the arguments, so they never disagree with it.

use std::io::Write;

use agon_cli::bad;
use agon_cli::cli::Cli;
use agon_cli::closed_pipe::Quiet;
use anyhow::{Context, Result};
use clap::CommandFactory;

use super::exit;

pub fn completions(shell: clap_complete::Shell) -> Result<u8> {
    let mut out = Quiet(std::io::stdout().lock());
    clap_complete::generate(shell, &mut Cli::command(), "agon", &mut out);
    out.flush()?;
    Ok(exit::OK)
}

/// agon(1), or agon-COMMAND(1) for one command.
pub fn man(command: Option<&str>) -> Result<u8> {
    let mut agon = Cli::command().disable_help_subcommand(true);
    // Built, every subcommand knows its page's name (agon-run).
    agon.build();
    let page = match command {
        None => agon,
        Some(name) => agon.find_subcommand(name).cloned().ok_or_else(|| {
            let names: Vec<&str> = agon.get_subcommands().map(|c| c.get_name()).collect();
            bad(format!("no command '{name}' (one of: {})", names.join(", ")))
        })?,
    };
    let mut out = Quiet(std::io::stdout().lock());
    let source = format!("agon {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(page)
        .source(source)
        .manual("agon manual")
        .render(&mut out)
        .context("writing the manual page")?;
    out.flush()?;
    Ok(exit::OK)
}
