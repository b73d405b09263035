//! A folder of its own for one test that runs the `agon` binary: sessions,
//! configuration and working directory inside it, so a test never reads the
//! user's agon.toml nor writes into their sessions. Removed when dropped.

use std::path::PathBuf;
use std::process::Command;

pub struct Sandbox {
    pub root: PathBuf,
}

impl Sandbox {
    /// `$TMPDIR/agon-{suite}-{pid}-{name}`, empty.
    pub fn new(suite: &str, name: &str) -> Sandbox {
        let root = std::env::temp_dir().join(format!("agon-{suite}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("a temp folder");
        Sandbox { root }
    }

    /// `program` run in the sandbox: sessions in `data/`, configuration looked
    /// for in the sandbox only, the compiled-component cache shared between tests.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root)
            .env("AGON_DATA_DIR", self.root.join("data"))
            .env("AGON_CACHE_DIR", std::env::temp_dir().join("agon-e2e-cache"))
            .env("XDG_CONFIG_HOME", self.root.join("config"))
            .env_remove("AGON_CONFIG");
        cmd
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
