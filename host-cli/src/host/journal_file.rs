//! The journals a run writes as it goes: the session's own and any
//! `--journal` copy, one line per input.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// An append-only journal file, flushed after every line so a crash loses
/// nothing that was answered.
pub struct JournalFile {
    file: File,
    path: PathBuf,
}

impl JournalFile {
    pub fn create(path: &Path, header: &str) -> Result<JournalFile> {
        let file = File::create(path).with_context(|| format!("creating the journal {}", path.display()))?;
        let mut journal = JournalFile { file, path: path.to_path_buf() };
        // Written, not waited for: the header records nothing answered, and
        // the first answered line's `sync_data` puts it on disk with that
        // line. Waiting here was a disk flush (1–2 ms) before the first request.
        journal
            .file
            .write_all(header.as_bytes())
            .with_context(|| format!("writing the journal {}", journal.path.display()))?;
        Ok(journal)
    }

    /// Continue a journal a previous run wrote (its torn tail already cut).
    pub fn append_to(path: &Path) -> Result<JournalFile> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("opening the journal {}", path.display()))?;
        Ok(JournalFile { file, path: path.to_path_buf() })
    }

    /// Append one line and wait until it is on disk. A failure (a full disk)
    /// names the file: every line before this one is kept.
    pub fn append(&mut self, line: &str) -> Result<()> {
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .with_context(|| format!("writing the journal {}", self.path.display()))
    }
}
