//! A journal file read a line at a time, so a long debate never sits in
//! memory whole nor crosses into the engine as one string; its end repaired
//! without losing a byte; and the cut `resume` makes to ask failed calls again.
//!
//! **Asking failed calls again.** A failure is journaled with its kind. A
//! `transport` failure (the connection was refused, reset or dropped before
//! the reply was complete) says nothing about the model: once the endpoint is
//! back, asking again is what anyone would want. Later turns were planned
//! around the failure, though (the seat was left out, the prompts lack its
//! answer), so `resume` cuts the journal back to just before the first
//! failure it retries: every input before it stays, and so does every later
//! reply to a request that was already out at that point; the rest is asked
//! again. The whole previous journal is kept beside it (`journal.ndjson.1`,
//! `.2`, …) and the new one replaces it by an atomic rename.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::bad;
use crate::engine::{Council, Runtime};

/// How a journal file ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// With a newline, as every line is written.
    Clean,
    /// Its last line is whole (it parses) but lacks the newline.
    MissingNewline,
    /// Its last line was cut by a crash mid-write (it does not parse): the
    /// file's first `keep` bytes are the journal.
    Torn { keep: u64 },
}

/// Which failures a resume asks again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// `transport` failures only: the model never answered.
    Transport,
    /// Every failure, whatever its kind (`resume --retry-failed`).
    AllFailures,
}

impl Retry {
    fn covers(self, kind: &str) -> bool {
        self == Retry::AllFailures || kind == "transport"
    }
}

/// A journal read into an engine.
pub struct Opened<'r> {
    pub council: Council<'r>,
    pub tail: Tail,
    /// The cut made to ask failures again: its line, the failures asked
    /// again, and the answered calls that will be asked again with them.
    pub cut: Option<Cut>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub line: usize,
    pub failures: usize,
    pub replies_dropped: usize,
}

/// What the host needs to know of an input line without the engine.
#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    tag: String,
    id: u64,
    #[serde(default)]
    kind: Option<String>,
}

impl Entry {
    fn parse(line: &str) -> Option<Entry> {
        serde_json::from_str(line).ok()
    }

    fn retried_by(&self, retry: Option<Retry>) -> bool {
        self.tag == "failed" && retry.is_some_and(|r| r.covers(self.kind.as_deref().unwrap_or_default()))
    }
}

/// Read `path` into a new engine: the header, then every whole line. With
/// `retry`, the journal is cut before the first failure `retry` covers (see
/// the module's doc); the caller writes the cut journal with [`replace`].
/// Bad content is a `BadInput` naming the file and the line.
pub fn open<'r>(runtime: &'r mut Runtime, path: &Path, retry: Option<Retry>) -> Result<Opened<'r>> {
    let cut_line = match retry {
        Some(_) => first_retried(path, retry)?,
        None => None,
    };
    let mut lines = Lines::open(path)?;
    let Some((_, header)) = lines.next_line()? else {
        // Empty, or bytes with no whole line in them: not the same thing to say.
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        return Err(bad(match size {
            0 => format!(
                "{}: the journal is empty: the run stopped before it wrote even its spec, so nothing was answered; run the debate again",
                path.display()
            ),
            n => format!(
                "{}: not a journal: its {n} bytes hold no whole line, so not even a header (another file, or a crash before the header was written)",
                path.display()
            ),
        }));
    };
    let mut council = runtime.from_journal(header)?.map_err(|e| bad(format!("{}: {e}", path.display())))?;
    if let Some(note) = council.replay_note()? {
        // The versions come from the file: shown through the sanitizer.
        eprintln!("warning: {}: {}", path.display(), crate::sanitize::terminal(&note));
    }
    let mut waiting: Option<Vec<u64>> = None;
    let (mut failures, mut replies_dropped) = (0, 0);
    while let Some((number, line)) = lines.next_line()? {
        if cut_line.is_some_and(|c| number >= c) && !line.trim().is_empty() {
            let waiting = match &waiting {
                Some(w) => w,
                None => waiting.insert(council.outstanding()?),
            };
            match Entry::parse(line) {
                Some(e) if e.retried_by(retry) => {
                    failures += 1;
                    continue;
                }
                // Planned around what is now asked again: asked again too.
                Some(e) if !waiting.contains(&e.id) => {
                    replies_dropped += usize::from(e.tag == "reply");
                    continue;
                }
                _ => {} // a request already out at the cut; or a line the engine names as wrong
            }
        }
        council.replay_line(number, line)?.map_err(|e| bad(format!("{}: {e}", path.display())))?;
    }
    let cut = cut_line.map(|line| Cut { line, failures, replies_dropped });
    Ok(Opened { council, tail: lines.tail(), cut })
}

/// The line of the first failure `retry` covers, if any.
fn first_retried(path: &Path, retry: Option<Retry>) -> Result<Option<usize>> {
    let mut lines = Lines::open(path)?;
    while let Some((number, line)) = lines.next_line()? {
        if number > 1 && Entry::parse(line).is_some_and(|e| e.retried_by(retry)) {
            return Ok(Some(number));
        }
    }
    Ok(None)
}

/// The whole lines of a journal file, one at a time (1-based numbers, the
/// newline kept). A last line without its newline counts when it parses as
/// JSON; when it does not, a crash tore it and it is left out.
pub struct Lines {
    path: PathBuf,
    reader: BufReader<File>,
    buf: Vec<u8>,
    number: usize,
    offset: u64,
    tail: Tail,
}

impl Lines {
    pub fn open(path: &Path) -> Result<Lines> {
        let file = File::open(path).with_context(|| format!("reading {}", path.display()))?;
        Ok(Lines {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, file),
            buf: Vec::new(),
            number: 0,
            offset: 0,
            tail: Tail::Clean,
        })
    }

    pub fn next_line(&mut self) -> Result<Option<(usize, &str)>> {
        if self.tail != Tail::Clean {
            return Ok(None);
        }
        self.buf.clear();
        let path = &self.path;
        let n = self.reader.read_until(b'\n', &mut self.buf).with_context(|| format!("reading {}", path.display()))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        if !self.buf.ends_with(b"\n") {
            if serde_json::from_slice::<serde::de::IgnoredAny>(&self.buf).is_err() {
                self.tail = Tail::Torn { keep: self.offset };
                return Ok(None);
            }
            self.tail = Tail::MissingNewline;
        }
        self.offset += n as u64;
        let number = self.number;
        let line = std::str::from_utf8(&self.buf)
            .map_err(|e| bad(format!("{}: line {number} is not UTF-8 text ({e})", path.display())))?;
        Ok(Some((number, line)))
    }

    /// How the file ends; known once `next_line` has returned `None`.
    pub fn tail(&self) -> Tail {
        self.tail
    }
}

/// Make the file end cleanly before appending to it, losing nothing: a
/// missing newline is added; a torn last line is first copied, with a
/// newline, to `FILE.torn` (synced), and only then cut from the file.
pub fn repair(path: &Path, tail: Tail) -> Result<()> {
    let context = || format!("repairing the end of {}", path.display());
    match tail {
        Tail::Clean => Ok(()),
        Tail::MissingNewline => {
            let mut file = OpenOptions::new().append(true).open(path).with_context(context)?;
            file.write_all(b"\n").and_then(|_| file.sync_data()).with_context(context)
        }
        Tail::Torn { keep } => {
            let mut file = OpenOptions::new().read(true).write(true).open(path).with_context(context)?;
            let mut torn = Vec::new();
            file.seek(SeekFrom::Start(keep)).and_then(|_| file.read_to_end(&mut torn)).with_context(context)?;
            torn.push(b'\n');
            let aside = sibling(path, ".torn");
            let mut kept = OpenOptions::new().create(true).append(true).open(&aside).with_context(context)?;
            kept.write_all(&torn).and_then(|_| kept.sync_all()).with_context(context)?;
            file.set_len(keep).and_then(|_| file.sync_all()).with_context(context)
        }
    }
}

/// Replace the journal at `path` with `contents`, keeping the old one as
/// `path.N` (the first free N). The old file is linked (or copied) aside
/// first, then the new one renamed over it, so at every moment one whole
/// journal is at `path`. Returns where the old one is kept.
pub fn replace(path: &Path, contents: &str) -> Result<PathBuf> {
    let backup = (1..).map(|n| sibling(path, &format!(".{n}"))).find(|p| !p.exists()).expect("a free name");
    if std::fs::hard_link(path, &backup).is_err() {
        std::fs::copy(path, &backup).with_context(|| format!("keeping {} as {}", path.display(), backup.display()))?;
    }
    let tmp = sibling(path, &format!(".tmp{}", std::process::id()));
    let mut file = File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(contents.as_bytes())
        .and_then(|_| file.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(backup)
}

/// `path` with `suffix` added to its file name (`results.jsonl.torn`).
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `journal.ndjson` holding `contents`, in a scratch folder removed on drop.
    fn temp(name: &str, contents: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = agon_testkit::sandbox::scratch(&format!("journal-{name}"));
        let path = dir.path().join("journal.ndjson");
        std::fs::write(&path, contents).unwrap();
        (dir, path)
    }

    fn collect(path: &Path) -> (Vec<(usize, String)>, Tail) {
        let mut lines = Lines::open(path).unwrap();
        let mut seen = Vec::new();
        while let Some((n, l)) = lines.next_line().unwrap() {
            seen.push((n, l.to_string()));
        }
        (seen, lines.tail())
    }

    #[test]
    fn a_whole_last_line_without_newline_is_kept_and_completed() {
        let (_scratch, path) = temp("newline", b"{\"journal\":1}");
        let (seen, tail) = collect(&path);
        assert_eq!((seen.len(), tail), (1, Tail::MissingNewline), "the header alone is not torn");
        repair(&path, tail).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"journal\":1}\n", "never shortened");
    }

    #[test]
    fn a_torn_last_line_is_set_aside_before_it_is_cut() {
        let (_scratch, path) = temp("torn", b"{\"journal\":1}\n{\"type\":\"reply\",\"id\":1}\n{\"type\":\"rep");
        let (seen, tail) = collect(&path);
        assert_eq!(seen.len(), 2);
        assert_eq!(tail, Tail::Torn { keep: 38 });
        repair(&path, tail).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"journal\":1}\n{\"type\":\"reply\",\"id\":1}\n");
        assert_eq!(std::fs::read_to_string(sibling(&path, ".torn")).unwrap(), "{\"type\":\"rep\n");
    }

    /// Issue 33: a file of random bytes was reported as an empty journal.
    #[test]
    fn random_bytes_are_not_an_empty_journal() {
        let mut runtime = Runtime::load().unwrap();
        let (_scratch, path) = temp("random", &[0x9f, 0x13, 0xee, 0x00, 0x42, 0xc3]);
        let e = open(&mut runtime, &path, None).err().unwrap().to_string();
        assert!(e.contains("not a journal: its 6 bytes hold no whole line"), "{e}");
        let (_scratch, path) = temp("empty", b"");
        let e = open(&mut runtime, &path, None).err().unwrap().to_string();
        assert!(e.contains("the journal is empty: the run stopped before it wrote even its spec"), "{e}");
    }

    #[test]
    fn replacing_keeps_the_old_journal() {
        let (_scratch, path) = temp("replace", b"old\n");
        assert_eq!(replace(&path, "new\n").unwrap(), sibling(&path, ".1"));
        assert_eq!(replace(&path, "newer\n").unwrap(), sibling(&path, ".2"));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "newer\n");
        assert_eq!(std::fs::read_to_string(sibling(&path, ".1")).unwrap(), "old\n");
        assert_eq!(std::fs::read_to_string(sibling(&path, ".2")).unwrap(), "new\n");
    }
}
