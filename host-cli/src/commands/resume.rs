//! `agon resume`: finish an interrupted session from its journal.

use agon_cli::bad;
use agon_cli::cli::DriveArgs;
use agon_cli::config::Config;
use agon_cli::engine::Runtime;
use agon_cli::runner::drive::write_transcripts;
use agon_cli::runner::{Reopened, lock_session, reopen};
use agon_cli::sessions::{self, SessionDir};
use anyhow::Result;

use super::drive::{Ends, call_options, drive_to_end, environment, note_outcome, write_result};
use super::run::check_outputs;

/// Continue an interrupted session from its journal; with failures on the
/// way to a model (or `--retry-failed`, any failure), cut back to ask them again.
pub fn resume(id: &str, retry_failed: bool, drive: DriveArgs, config: &Config) -> Result<u8> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME)"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let _lock = lock_session(&session)?;
    check_outputs(&drive, None)?;
    let mut runtime = Runtime::load()?;
    let env = environment(config, &drive);
    match reopen(&mut runtime, &session, retry_failed, &env)? {
        Reopened::Finished(mut council, outcome) => {
            let code = write_result(&mut council, &drive, false)?;
            note_outcome(&outcome);
            write_transcripts(&mut council, &session)?;
            Ok(code)
        }
        Reopened::Ready { mut council, journals, history } => {
            let options = call_options(&drive, config);
            let ends = Ends { session: Some(&session), journal_copy: None, history: history.as_ref() };
            drive_to_end(&mut council, &env, &drive, options, journals, ends)
        }
    }
}
