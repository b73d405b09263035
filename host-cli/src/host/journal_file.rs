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
    /// A new journal agon keeps (a session's, a batch item's), holding
    /// `header`. It is written under a scratch name and renamed into place,
    /// so `path` never exists without its header: a kill between creating
    /// the file and writing it left an empty journal that `resume` could not
    /// read (seen once in CI, killed before any answer).
    pub fn create(path: &Path, header: &str) -> Result<JournalFile> {
        let tmp = crate::journal::sibling(path, &format!(".new{}", std::process::id()));
        let mut file = File::create(&tmp).with_context(|| format!("creating the journal {}", tmp.display()))?;
        // Written, not waited for: the header records nothing answered, and
        // the first answered line's `sync_data` puts it on disk with that
        // line. Waiting here was a disk flush (1–2 ms) before the first request.
        file.write_all(header.as_bytes()).with_context(|| format!("writing the journal {}", tmp.display()))?;
        // The open handle follows the file through the rename.
        std::fs::rename(&tmp, path).with_context(|| format!("creating the journal {}", path.display()))?;
        Ok(JournalFile { file, path: path.to_path_buf() })
    }

    /// A copy where the person asked for one (`--journal PATH`): opened in
    /// place, never renamed over, since it may be a pipe or a device
    /// (`/dev/stdout`, `/dev/full`) and its folder may not be writable.
    pub fn create_copy(path: &Path, header: &str) -> Result<JournalFile> {
        let mut file = File::create(path).with_context(|| format!("creating the journal {}", path.display()))?;
        file.write_all(header.as_bytes()).with_context(|| format!("writing the journal {}", path.display()))?;
        Ok(JournalFile { file, path: path.to_path_buf() })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_journal_appears_with_its_header_and_keeps_what_is_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.ndjson");
        let mut journal = JournalFile::create(&path, "{\"journal\":1}\n").unwrap();
        journal.append("{\"type\":\"reply\",\"id\":1}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"journal\":1}\n{\"type\":\"reply\",\"id\":1}\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["journal.ndjson"], "no scratch file is left beside it");
    }
}
