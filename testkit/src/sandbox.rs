//! A folder of its own for one test that runs the `agon` binary: sessions,
//! configuration, caches and working directory inside it, so a test never
//! reads the user's agon.toml nor writes into their sessions. Removed when
//! dropped, whether the test passed or panicked.

use std::path::PathBuf;
use std::process::Command;

use tempfile::TempDir;

/// An empty folder under `$TMPDIR`, named `agon-{name}-…`, removed on drop.
pub fn scratch(name: &str) -> TempDir {
    tempfile::Builder::new().prefix(&format!("agon-{name}-")).tempdir().expect("a temp folder")
}

pub struct Sandbox {
    /// Held for its drop, which removes the folder.
    _dir: TempDir,
    pub root: PathBuf,
}

impl Sandbox {
    /// An empty folder of its own under `$TMPDIR`.
    pub fn new(suite: &str, name: &str) -> Sandbox {
        let dir = scratch(&format!("{suite}-{name}"));
        let root = dir.path().to_path_buf();
        Sandbox { _dir: dir, root }
    }

    /// `program` run in the sandbox: sessions in `data/`, cache in `cache/`,
    /// configuration looked for in the sandbox only.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root)
            .env("AGON_DATA_DIR", self.root.join("data"))
            .env("AGON_CACHE_DIR", self.root.join("cache"))
            .env("XDG_CONFIG_HOME", self.root.join("config"))
            .env_remove("AGON_CONFIG");
        cmd
    }
}
