//! `agon trust`: whether a working folder's `agon.toml` may act for you.
//!
//! An `agon.toml` can run programs (`[commands]`), send a key from any
//! variable to any URL (`[providers]`) and set the prices the cost limit
//! counts with (`[prices]`). Anyone can leave one in a folder: a cloned
//! repository, an unpacked download. So, as mise and direnv do, such a file
//! is not used for those until you say so: `agon trust` records its absolute
//! path and the SHA-256 of its contents in `trusted.json` in agon's data
//! folder, and any edit revokes that (the hash no longer matches). The file
//! in your own config folder (`~/.config/agon/agon.toml`) and a file named by
//! `--config` or `AGON_CONFIG` are yours and always trusted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bad;
use crate::config::Config;
use crate::provider::BaseUrl;

/// Where the trusted files are recorded: beside the sessions.
pub fn store_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("AGON_DATA_DIR")
        .map(|d| d.join("trusted.json"))
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("agon").join("trusted.json")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/agon/trusted.json")))
}

/// `sha256:` and the hex digest of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// What the store says of one file as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Trusted,
    /// Trusted once, edited since.
    Changed,
    Unknown,
}

/// The trusted files: absolute path → digest of the contents trusted.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct TrustStore {
    trusted: BTreeMap<PathBuf, String>,
    #[serde(skip)]
    path: Option<PathBuf>,
}

impl TrustStore {
    /// The store at [`store_path`]; none yet is an empty one. A broken one is
    /// an error naming it: silently forgetting trust would be confusing, and
    /// silently keeping a half-read one unsafe.
    pub fn load() -> Result<TrustStore, String> {
        let path = store_path().ok_or("no data folder for trusted.json: set AGON_DATA_DIR (or HOME)")?;
        TrustStore::load_from(&path)
    }

    pub fn load_from(path: &Path) -> Result<TrustStore, String> {
        let mut store = match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str::<TrustStore>(&text)
                .map_err(|e| format!("{}: {e} (remove it to start over)", path.display()))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => TrustStore::default(),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        store.path = Some(path.to_path_buf());
        Ok(store)
    }

    /// Where this store lives.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// `file` (absolute) with these `contents`.
    pub fn verdict(&self, file: &Path, contents: &[u8]) -> Verdict {
        match self.trusted.get(file) {
            Some(d) if *d == digest(contents) => Verdict::Trusted,
            Some(_) => Verdict::Changed,
            None => Verdict::Unknown,
        }
    }

    pub fn trust(&mut self, file: &Path, contents: &[u8]) {
        self.trusted.insert(file.to_path_buf(), digest(contents));
    }

    /// Whether `file` was trusted.
    pub fn revoke(&mut self, file: &Path) -> bool {
        self.trusted.remove(file).is_some()
    }

    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.trusted.keys().map(PathBuf::as_path)
    }

    /// Written atomically: a crash never leaves half a store.
    pub fn save(&self) -> std::io::Result<()> {
        let path = self.path.as_deref().ok_or_else(|| std::io::Error::other("the store has no path"))?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)?;
        std::fs::rename(tmp, path)
    }
}

/// `agon trust [FILE]`, `agon trust --list`, `agon trust --revoke [FILE]`.
pub fn command(file: Option<&Path>, list: bool, revoke: bool) -> anyhow::Result<()> {
    let mut store = TrustStore::load().map_err(bad)?;
    if list {
        if store.files().next().is_none() {
            let at = store.path().map(|p| p.display().to_string()).unwrap_or_default();
            crate::safe_println!("no trusted files yet (`agon trust` in a folder records its agon.toml in {at})");
        }
        for f in store.files() {
            let state = match std::fs::read(f) {
                Ok(bytes) if store.verdict(f, &bytes) == Verdict::Trusted => "trusted",
                Ok(_) => "changed (edited since; not used until trusted again)",
                Err(_) => "missing",
            };
            crate::safe_println!("{}  {state}", f.display());
        }
        return Ok(());
    }
    let path = file.unwrap_or(Path::new("agon.toml"));
    let absolute = absolute(path);
    if revoke {
        if !store.revoke(&absolute) {
            return Err(bad(format!("{} is not trusted (see `agon trust --list`)", absolute.display())));
        }
        store.save().with_context(|| format!("writing {}", store.path().unwrap_or(Path::new("")).display()))?;
        crate::safe_println!("agon: no longer trusting {}", absolute.display());
        return Ok(());
    }
    let bytes = crate::bounded::read_bytes(path, crate::bounded::CONFIG_LIMIT, "configuration").map_err(bad)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| bad(format!("{}: not UTF-8 text", path.display())))?;
    // Only a file agon can read is worth trusting; and you see what you allow.
    let config = Config::parse(text, path).map_err(bad)?;
    store.trust(&absolute, &bytes);
    store.save().with_context(|| format!("writing {}", store.path().unwrap_or(Path::new("")).display()))?;
    crate::safe_println!(
        "agon: trusted {} ({}): its commands, providers and prices are used until it changes",
        absolute.display(),
        &digest(&bytes)[..19]
    );
    for (name, c) in &config.commands {
        let args: Vec<String> = c.args.iter().map(|a| format!("{a:?}")).collect();
        crate::safe_println!("  cmd/{name} runs {:?} {}", c.program, args.join(" "));
    }
    for (name, p) in &config.providers {
        let url = match &p.base_url {
            Some(raw) => BaseUrl::parse(raw, "base_url", None).map_or("(an unusable URL)".into(), |b| b.shown()),
            None => "its usual URL".into(),
        };
        let key = p.key_env.as_ref().map(|k| format!(" with the key in ${k}")).unwrap_or_default();
        crate::safe_println!("  {name}/… calls go to {url}{key}");
    }
    Ok(())
}

/// `path` made absolute without requiring it to exist (for `--revoke` of a
/// removed file), and without following a symlink: a file is trusted where it
/// lives, since its relative paths resolve from there, whatever it links to.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_for_these_contents_only() {
        let scratch = agon_testkit::sandbox::scratch("trust");
        let dir = scratch.path().join("agon");
        let mut store = TrustStore::load_from(&dir.join("trusted.json")).unwrap();
        let file = Path::new("/work/repo/agon.toml");
        assert_eq!(store.verdict(file, b"[commands.x]\nprogram = \"sh\"\n"), Verdict::Unknown);
        store.trust(file, b"[commands.x]\nprogram = \"sh\"\n");
        store.save().unwrap();
        let store = TrustStore::load_from(&dir.join("trusted.json")).unwrap();
        assert_eq!(store.verdict(file, b"[commands.x]\nprogram = \"sh\"\n"), Verdict::Trusted);
        assert_eq!(store.verdict(file, b"[commands.x]\nprogram = \"bash\"\n"), Verdict::Changed, "an edit revokes");
        assert_eq!(store.verdict(Path::new("/elsewhere/agon.toml"), b""), Verdict::Unknown);
        std::fs::write(dir.join("trusted.json"), "{broken").unwrap();
        assert!(TrustStore::load_from(&dir.join("trusted.json")).unwrap_err().contains("trusted.json"));
    }
}
