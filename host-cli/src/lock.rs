//! One process at a time per session folder, and per batch results file.
//!
//! Two processes appending to one journal would both call the models and
//! interleave their lines. So `run` and `resume` hold an OS file lock
//! (`flock`, through std's `File::try_lock`) on a `lock` file inside the
//! session folder, and `batch` on `RESULTS.lock` beside its results, for as
//! long as they write. A second process fails at once, naming the holder's
//! pid, which the holder writes into the file. The OS drops the lock when its
//! process dies however it dies, so a lock is never stale; the file itself is
//! removed by its holder on the way out, and a process that locked a file
//! removed under it notices (the path names another file now) and tries again.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// A held lock; dropping it releases it.
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

/// Why a lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process holds it; its pid, when it has written it yet.
    Held {
        pid: Option<u32>,
    },
    Io(std::io::Error),
}

impl Lock {
    /// Take the lock at `path` (the file is created if missing), or fail at once.
    pub fn acquire(path: &Path) -> Result<Lock, LockError> {
        loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(LockError::Io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => return Err(LockError::Held { pid: holder(&mut file) }),
                Err(TryLockError::Error(e)) => return Err(LockError::Io(e)),
            }
            if !names_this_file(path, &file) {
                continue; // its last holder removed it between our open and our lock
            }
            file.set_len(0).map_err(LockError::Io)?;
            // Not flushed to disk: the lock is the `flock`, which no crash
            // outlives; the pid only names the holder to a process that
            // reads it while the lock is held, and reads see unflushed writes.
            write!(file, "{}", std::process::id()).map_err(LockError::Io)?;
            return Ok(Lock { file, path: path.to_path_buf() });
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held, so nobody can lock this file after we let it go.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

fn holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(unix)]
fn names_this_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn names_this_file(path: &Path, _file: &File) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_is_refused_with_the_holders_pid_until_the_first_lets_go() {
        let dir = agon_testkit::sandbox::scratch("lock");
        let path = dir.path().join("lock");
        let first = Lock::acquire(&path).unwrap();
        match Lock::acquire(&path) {
            Err(LockError::Held { pid }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("taken twice: {other:?}"),
        }
        drop(first);
        assert!(!path.exists(), "the holder removes the file");
        let again = Lock::acquire(&path).unwrap();
        drop(again);
    }
}
