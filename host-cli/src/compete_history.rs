//! The compete history: how many disagreements each competitive run found,
//! per protocol and label, kept beside the sessions (`compete-history.json`
//! in `$AGON_DATA_DIR`, else `~/.local/share/agon/`). A run passes the recent
//! counts to its protocol as the option `history` (newest last); the protocol
//! decides what they mean (adversarial raises `compete_flag` after five runs
//! at zero). A run that ends with a compete record adds its count.
//!
//! The host only keeps the numbers: which protocols take a history comes from
//! the engine's catalog, and what a result holds from the transcript.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lock::{Lock, LockError};

/// The file, beside the sessions.
pub const FILE: &str = "compete-history.json";

/// How many recent runs a protocol is told about.
pub const RECENT: usize = 20;

/// Where the history lives: the folder `trusted.json` is in.
pub fn path() -> Option<PathBuf> {
    crate::trust::store_path().map(|p| p.with_file_name(FILE))
}

/// Which history a run counts in: its protocol and its label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    pub protocol: String,
    pub label: String,
}

/// One competitive run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub disagreements: u32,
    /// The session it came from (none for `--no-save`), so a result is counted once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Seconds since the Unix epoch.
    pub at: u64,
    /// How much of the review the user kept (`agon compete-eval`), once measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<crate::compete_eval::Evaluation>,
}

/// The whole file: protocol → label → runs, oldest first.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct History {
    #[serde(default)]
    pub runs: BTreeMap<String, BTreeMap<String, Vec<Entry>>>,
}

impl History {
    /// A missing file is an empty history; a broken one is an error naming it.
    pub fn load(path: &Path) -> Result<History, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(History::default()),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// The recent runs' counts under `key`, newest last, as the option `history`.
    pub fn option(&self, key: &Key) -> Vec<Value> {
        let runs = self.runs.get(&key.protocol).and_then(|l| l.get(&key.label)).map_or(&[][..], Vec::as_slice);
        runs[runs.len().saturating_sub(RECENT)..]
            .iter()
            .map(|e| serde_json::json!({"disagreements": e.disagreements}))
            .collect()
    }

    /// Add a run. A session counts once: resumed and judged again, its newer count replaces the older.
    pub fn record(&mut self, key: &Key, entry: Entry) {
        let runs = self.runs.entry(key.protocol.clone()).or_default().entry(key.label.clone()).or_default();
        if let Some(known) = runs.iter_mut().find(|e| entry.session.is_some() && e.session == entry.session) {
            *known = entry;
            return;
        }
        runs.push(entry);
        // Only the recent runs matter; the file stays small.
        let excess = runs.len().saturating_sub(RECENT * 5);
        runs.drain(..excess);
    }

    /// Set a session's compete-eval, adding its run if the history never counted it.
    pub fn evaluate(&mut self, key: &Key, session: &str, eval: crate::compete_eval::Evaluation, at: u64) {
        let runs = self.runs.entry(key.protocol.clone()).or_default().entry(key.label.clone()).or_default();
        match runs.iter_mut().find(|e| e.session.as_deref() == Some(session)) {
            Some(known) => known.eval = Some(eval),
            None => {
                let disagreements = u32::try_from(eval.disagreements).unwrap_or(u32::MAX);
                runs.push(Entry { disagreements, session: Some(session.to_string()), at, eval: Some(eval) });
            }
        }
    }

    fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)?;
        std::fs::rename(tmp, path)
    }
}

/// The disagreements a finished transcript records, if it has a compete result.
pub fn disagreements(transcript: &Value) -> Option<u32> {
    agon_core::compete_record(transcript)?["disagreements"].as_u64().and_then(|n| u32::try_from(n).ok())
}

/// Add a run to the history at `path`, under its lock (two runs ending at
/// once both count); the error says what went wrong, naming the file.
pub fn append(path: &Path, key: &Key, entry: Entry) -> Result<(), String> {
    let lock_path = path.with_extension("lock");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let _lock = acquire(&lock_path)?;
    let mut history = History::load(path)?;
    history.record(key, entry);
    history.save(path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Record a session's compete-eval in the history at `path`, under its lock.
pub fn evaluate(path: &Path, key: &Key, session: &str, eval: crate::compete_eval::Evaluation) -> Result<(), String> {
    let lock_path = path.with_extension("lock");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let _lock = acquire(&lock_path)?;
    let mut history = History::load(path)?;
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    history.evaluate(key, session, eval, at);
    history.save(path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The lock, waiting a little for another run that holds it.
fn acquire(path: &Path) -> Result<Lock, String> {
    for _ in 0..100 {
        match Lock::acquire(path) {
            Ok(lock) => return Ok(lock),
            Err(LockError::Held { .. }) => std::thread::sleep(std::time::Duration::from_millis(50)),
            Err(LockError::Io(e)) => return Err(format!("cannot lock {}: {e}", path.display())),
        }
    }
    Err(format!("{} stayed locked by another agon for 5 s", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(label: &str) -> Key {
        Key { protocol: "adversarial".into(), label: label.into() }
    }

    fn entry(n: u32, session: Option<&str>) -> Entry {
        Entry { disagreements: n, session: session.map(str::to_string), at: 0, eval: None }
    }

    #[test]
    fn kept_per_protocol_and_label_newest_last_and_each_session_once() {
        let dir = agon_testkit::sandbox::scratch("history");
        let path = dir.path().join(FILE);
        append(&path, &key("rfc"), entry(2, Some("s1"))).unwrap();
        append(&path, &key("rfc"), entry(1, Some("s2"))).unwrap();
        append(&path, &key("rfc"), entry(0, Some("s2"))).unwrap();
        append(&path, &key("mbr"), entry(5, None)).unwrap();
        let history = History::load(&path).unwrap();
        assert_eq!(
            history.option(&key("rfc")),
            [serde_json::json!({"disagreements": 2}), serde_json::json!({"disagreements": 0})]
        );
        assert_eq!(history.option(&key("mbr")).len(), 1);
        assert!(history.option(&key("other")).is_empty());
        std::fs::write(&path, "{broken").unwrap();
        let err = append(&path, &key("rfc"), entry(1, None)).unwrap_err();
        assert!(err.contains(FILE), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{broken", "a broken file is not overwritten");
    }

    #[test]
    fn only_the_recent_runs_are_passed_on() {
        let mut history = History::default();
        for n in 0..(RECENT as u32 + 3) {
            history.record(&key("x"), entry(n, None));
        }
        let option = history.option(&key("x"));
        assert_eq!(option.len(), RECENT);
        assert_eq!(option.last().unwrap()["disagreements"], RECENT as u32 + 2);
    }

    #[test]
    fn the_count_comes_from_the_compete_result() {
        let record = serde_json::json!({"kind": "table", "data":
            {"skill": "rfc", "disagreements": 3, "sided_with": {"challenger": 2, "advocate": 1}}});
        let t = serde_json::json!({"results": {"compete_result": record}});
        assert_eq!(disagreements(&t), Some(3));
        // Known by its kind and shape, not its name.
        assert_eq!(disagreements(&serde_json::json!({"results": {"tally": record}})), Some(3));
        assert_eq!(disagreements(&serde_json::json!({"gate": {}})), None);
    }
}
