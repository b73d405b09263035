//! Every file agon reads, read within a limit.
//!
//! A path on the command line or in a config can name anything: `/dev/zero`
//! never ends, a FIFO blocks forever, a 10 GB file fills memory. So a file is
//! read only when it is a regular file (after symlinks), and only up to a
//! limit that says, in the error, what the file was for and what the limit is.
//! The limit is checked while reading too, since a file can grow meanwhile
//! and `/proc` files report a size of zero.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// agon.toml and trusted.json: settings, never data.
pub const CONFIG_LIMIT: u64 = 1 << 20;
/// A protocol document, a role file, a priority-vote items file.
pub const DOCUMENT_LIMIT: u64 = 4 << 20;
/// `agon batch`'s questions.
pub const BATCH_LIMIT: u64 = 256 << 20;
/// `--context @FILE` and the like.
pub const CONTEXT_LIMIT: u64 = 16 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub struct ReadError {
    pub path: PathBuf,
    pub what: &'static str,
    pub kind: ReadErrorKind,
}

#[derive(Debug)]
pub enum ReadErrorKind {
    NotFound,
    /// A FIFO, a device, a socket or a folder.
    NotRegular(&'static str),
    TooLarge {
        limit: u64,
    },
    NotUtf8,
    Io(std::io::Error),
}

impl ReadError {
    pub fn not_found(&self) -> bool {
        matches!(self.kind, ReadErrorKind::NotFound)
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, path) = (self.what, self.path.display());
        match &self.kind {
            ReadErrorKind::NotFound => write!(f, "cannot read the {what} {path}: no such file"),
            ReadErrorKind::NotRegular(kind) => {
                write!(f, "cannot read the {what} {path}: it is {kind}, not a regular file")
            }
            ReadErrorKind::TooLarge { limit } => {
                write!(f, "the {what} {path} is larger than {}, the most agon reads for one", human(*limit))
            }
            ReadErrorKind::NotUtf8 => write!(f, "the {what} {path} is not UTF-8 text"),
            ReadErrorKind::Io(e) => write!(f, "cannot read the {what} {path}: {e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<ReadError> for String {
    fn from(e: ReadError) -> String {
        e.to_string()
    }
}

/// `4 MiB`, `256 MiB`, `1 KiB`.
pub fn human(bytes: u64) -> String {
    match bytes {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// The file opened for reading, when it is a regular file no larger than `limit`.
pub fn open(path: &Path, limit: u64, what: &'static str) -> Result<File, ReadError> {
    let error = |kind| ReadError { path: path.to_path_buf(), what, kind };
    // Checked before opening: opening a FIFO for reading blocks until a writer comes.
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => error(ReadErrorKind::NotFound),
        _ => error(ReadErrorKind::Io(e)),
    })?;
    if !meta.is_file() {
        return Err(error(ReadErrorKind::NotRegular(kind_of(&meta))));
    }
    if meta.len() > limit {
        return Err(error(ReadErrorKind::TooLarge { limit }));
    }
    File::open(path).map_err(|e| error(ReadErrorKind::Io(e)))
}

/// The whole file's bytes, within `limit`.
pub fn read_bytes(path: &Path, limit: u64, what: &'static str) -> Result<Vec<u8>, ReadError> {
    let file = open(path, limit, what)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| ReadError {
        path: path.to_path_buf(),
        what,
        kind: ReadErrorKind::Io(e),
    })?;
    if bytes.len() as u64 > limit {
        return Err(ReadError { path: path.to_path_buf(), what, kind: ReadErrorKind::TooLarge { limit } });
    }
    Ok(bytes)
}

/// The whole file as UTF-8 text, within `limit`.
pub fn read_text(path: &Path, limit: u64, what: &'static str) -> Result<String, ReadError> {
    let bytes = read_bytes(path, limit, what)?;
    String::from_utf8(bytes).map_err(|_| ReadError { path: path.to_path_buf(), what, kind: ReadErrorKind::NotUtf8 })
}

/// Whether `path` may be written as an output: absent, or a regular file
/// that is not `input` (which writing would destroy before it is read).
pub fn check_output(path: &Path, input: Option<&Path>, flag: &str) -> Result<(), String> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("{flag} {}: {e}", path.display())),
    };
    if !meta.is_file() {
        return Err(format!("{flag} {}: it is {}, not a regular file", path.display(), kind_of(&meta)));
    }
    if let Some(input) = input
        && same_file(path, input)
    {
        return Err(format!("{flag} {}: that is the input file; write the results to another file", path.display()));
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_folders_and_fifos_are_refused_without_blocking() {
        let scratch = agon_testkit::sandbox::scratch("bounded");
        let fifo = scratch.path().join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        for (path, kind) in
            [(Path::new("/dev/zero"), "a device"), (scratch.path(), "a folder"), (fifo.as_path(), "a FIFO")]
        {
            let e = read_text(path, 10, "protocol document").unwrap_err();
            assert!(e.to_string().contains(&format!("it is {kind}, not a regular file")), "{e}");
        }
    }

    #[test]
    fn a_file_over_its_limit_is_named_with_the_limit() {
        let scratch = agon_testkit::sandbox::scratch("bounded");
        let file = scratch.path().join("big.yaml");
        std::fs::write(&file, vec![b'a'; 2049]).unwrap();
        let e = read_text(&file, 2048, "protocol document").unwrap_err();
        assert!(e.to_string().contains("is larger than 2 KiB"), "{e}");
        assert_eq!(read_text(&file, 2049, "protocol document").unwrap().len(), 2049);
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert!(read_text(&file, 2048, "x").unwrap_err().to_string().contains("not UTF-8"));
        assert!(read_text(&scratch.path().join("none"), 1, "x").unwrap_err().not_found());
    }

    #[test]
    fn an_output_may_not_be_its_input_nor_a_device() {
        let scratch = agon_testkit::sandbox::scratch("bounded");
        let input = scratch.path().join("q.jsonl");
        std::fs::write(&input, "{}\n").unwrap();
        let link = scratch.path().join("link.jsonl");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        assert!(check_output(&input, Some(&input), "-o").unwrap_err().contains("that is the input file"));
        assert!(check_output(&link, Some(&input), "-o").unwrap_err().contains("that is the input file"));
        assert!(check_output(Path::new("/dev/full"), Some(&input), "-o").unwrap_err().contains("a device"));
        assert!(check_output(&scratch.path().join("out.jsonl"), Some(&input), "-o").is_ok());
    }
}
