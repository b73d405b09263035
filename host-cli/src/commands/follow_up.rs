//! `agon continue SESSION "QUESTION"`: a follow-up on a finished session.

use agon_cli::cli::{ContinueArgs, RunArgs};
use agon_cli::config::Config;
use agon_cli::options::{Combine, Options};
use agon_cli::{bad, follow_up, safe_eprintln, sessions};
use anyhow::Result;

use super::run::run_request;

/// A new debate on `question` whose speakers read the parent's question,
/// outcome, synthesis and last words; the parent's panel, judge, protocol,
/// rounds, context and files unless a flag chose others.
pub fn continue_session(args: ContinueArgs, config: &Config, asked: &Options) -> Result<u8> {
    let ContinueArgs { session, run: RunArgs { question, spec, drive, journal, no_save } } = args;
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let parent = follow_up::open(&root, &session).map_err(bad)?;
    let mut request = spec.into_request(question, &mut |w| safe_eprintln!("{w}"));
    let (inherited, taken) = parent.inherit(&mut request, asked);
    if !drive.quiet {
        let from = if taken.is_empty() { String::new() } else { format!(" (its {})", taken.join(", ")) };
        safe_eprintln!("agon: following up session {}{from}", parent.id);
    }
    // What the parent gave is a layer under the flags: agon.toml's defaults do not replace it.
    run_request(request, drive, journal, no_save, config, &asked.clone().combine(inherited))
}
