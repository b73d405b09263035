//! The sessions folder: every run keeps its journal (the source of truth,
//! appended and flushed input by input) and, once it ends, its rendered
//! transcripts. `agon sessions`, `show`, `export` and `resume` read it.
//!
//! Folder: `$AGON_DATA_DIR`, else `$XDG_DATA_HOME/agon/sessions`, else
//! `~/.local/share/agon/sessions`. One sub-folder per session, named by its
//! id: `YYYYMMDD-HHMMSS-xxxx`, so names sort by time. In code a folder is a
//! [`SessionDir`]; "session" alone is the engine's running debate.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

pub const JOURNAL: &str = "journal.ndjson";
pub const TRANSCRIPT_JSON: &str = "transcript.json";
pub const TRANSCRIPT_MD: &str = "transcript.md";
/// When each call attempt ran (the host's clock; never in the journal).
pub const TIMINGS: &str = "timings.ndjson";
/// The timings drawn; the engine's other pictures are named by [`crate::engine::Council::pictures`].
pub const TIMELINE_SVG: &str = agon_core::picture::TIMELINE_FILE;
/// The compete history a run counts in (protocol and label), when its protocol keeps one.
pub const COMPETE_KEY: &str = "compete-key.json";
/// Held (an OS lock) while a run or a resume writes the session; see [`crate::lock`].
pub const LOCK: &str = "lock";

/// The folder holding every session.
pub fn root() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("AGON_DATA_DIR")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("agon").join("sessions")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/agon/sessions")))
}

/// One kept session's folder: what a run wrote to disk, not the debate
/// itself (that is the engine's `Session`, which the CLI drives as a
/// [`crate::engine::Council`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDir {
    pub id: String,
    pub dir: PathBuf,
}

impl SessionDir {
    /// A new, empty session folder under `root`.
    pub fn create(root: &Path) -> std::io::Result<SessionDir> {
        fs::create_dir_all(root)?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let stamp = utc_stamp(now.as_secs());
        // The sub-second part and the process id keep two runs in one second apart.
        let mut salt = (now.subsec_nanos() as u64) ^ ((std::process::id() as u64) << 20);
        loop {
            let id = format!("{stamp}-{:04x}", salt & 0xffff);
            let dir = root.join(&id);
            match fs::create_dir(&dir) {
                Ok(()) => return Ok(SessionDir { id, dir }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    salt = salt.wrapping_mul(6364136223846793005) + 1
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The session whose id is `query`, starts with it, or the newest for `last`.
    pub fn find(root: &Path, query: &str) -> Result<SessionDir, String> {
        let all = list(root);
        if all.is_empty() {
            return Err(format!("no sessions in {} yet", root.display()));
        }
        if query == "last" {
            return Ok(all[0].clone());
        }
        let matching: Vec<&SessionDir> = all.iter().filter(|s| s.id.starts_with(query)).collect();
        match matching.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(format!("no session '{query}' in {} (see `agon sessions`)", root.display())),
            many => Err(format!(
                "'{query}' matches {} sessions ({}…); give more of the id",
                many.len(),
                many.iter().take(3).map(|s| s.id.as_str()).collect::<Vec<_>>().join(", ")
            )),
        }
    }

    pub fn journal(&self) -> PathBuf {
        self.dir.join(JOURNAL)
    }

    /// Write a derived file atomically: a reader never sees half of it.
    pub fn write(&self, name: &str, contents: &str) -> std::io::Result<()> {
        let tmp = self.dir.join(format!(".{name}.tmp{}", std::process::id()));
        let mut file = fs::File::create(&tmp)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        fs::rename(tmp, self.dir.join(name))
    }

    /// What `agon sessions` shows of this session. A file that cannot be
    /// read is named with the reason, never guessed around.
    pub fn summary(&self) -> Summary {
        let mut corrupt = Vec::new();
        let journal = self.journal();
        let header = first_line(&journal)
            .and_then(|line| serde_json::from_str::<Value>(&line).map_err(|e| format!("line 1: {e}")))
            .and_then(|header| match header["spec"].is_object() {
                true => Ok(header),
                false => Err("line 1 holds no spec".to_string()),
            })
            .unwrap_or_else(|why| broken(&mut corrupt, &journal, &why));
        let spec = &header["spec"];
        let path = self.dir.join(TRANSCRIPT_JSON);
        // No transcript is an unfinished run; an unreadable one is a broken file.
        let transcript = match fs::read(&path).map(|bytes| serde_json::from_slice::<Value>(&bytes)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Ok(Ok(t)) => Some(t),
            Err(e) => Some(broken(&mut corrupt, &path, &e)),
            Ok(Err(e)) => Some(broken(&mut corrupt, &path, &e)),
        };
        let outcome = match &transcript {
            Some(t) => t["outcome"]["kind"].as_str().unwrap_or("corrupt").to_string(),
            None => "interrupted".to_string(),
        };
        let cost = transcript.as_ref().and_then(|t| t["usage"]["total"]["cost_micro_usd"].as_u64());
        Summary {
            id: self.id.clone(),
            created: id_time(&self.id),
            protocol: spec["protocol"]["name"].as_str().unwrap_or("?").to_string(),
            question: spec["question"].as_str().unwrap_or("?").to_string(),
            parent: spec["parent"]["session"].as_str().map(str::to_string),
            outcome,
            cost_micro_usd: cost,
            corrupt: (!corrupt.is_empty()).then(|| corrupt.join("; ")),
        }
    }
}

/// Note that `path` is broken, and why; what it held is unknown.
fn broken(corrupt: &mut Vec<String>, path: &Path, why: &dyn std::fmt::Display) -> Value {
    corrupt.push(format!("{}: {why}", path.display()));
    Value::Null
}

/// The first line of a file, without its line end.
fn first_line(path: &Path) -> Result<String, String> {
    use std::io::BufRead;
    let file = fs::File::open(path).map_err(|e| e.to_string())?;
    let mut line = String::new();
    std::io::BufReader::new(file).read_line(&mut line).map_err(|e| e.to_string())?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

/// Every session under `root`, newest first.
pub fn list(root: &Path) -> Vec<SessionDir> {
    let mut all: Vec<SessionDir> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().join(JOURNAL).is_file())
        .filter_map(|e| e.file_name().to_str().map(|id| SessionDir { id: id.to_string(), dir: e.path() }))
        .collect();
    // Newest first: by the second in the id, then — for two runs in the same
    // second, whose ids differ only by their random tail — by when the folder was made.
    let made = |s: &SessionDir| fs::metadata(&s.dir).and_then(|m| m.created().or_else(|_| m.modified())).ok();
    all.sort_by_cached_key(|s| std::cmp::Reverse((s.id.get(..15).unwrap_or(&s.id).to_string(), made(s))));
    all
}

/// One line of `agon sessions`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Summary {
    pub id: String,
    /// `YYYY-MM-DD HH:MM` UTC, from the id.
    pub created: String,
    pub protocol: String,
    pub question: String,
    /// The session this one follows up (`agon continue`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The outcome kind, or `interrupted` when the run never ended.
    pub outcome: String,
    pub cost_micro_usd: Option<u64>,
    /// A file of the session that cannot be read: its path and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrupt: Option<String>,
}

impl Summary {
    pub fn line(&self) -> String {
        let question: String = if let Some(problem) = &self.corrupt {
            format!("corrupt: {problem}") // whole: the path is the point
        } else if self.question.chars().count() > 48 {
            format!("{}…", self.question.chars().take(47).collect::<String>())
        } else {
            self.question.clone()
        };
        // A follow-up points at its parent, so a thread reads down the list.
        let question = match &self.parent {
            Some(parent) if self.corrupt.is_none() => format!("↳ {parent}: {question}"),
            _ => question,
        };
        // Micro-dollars to four decimals, in integers: no float rounding.
        let cost =
            self.cost_micro_usd.map_or("-".to_string(), |c| format!("${}.{:04}", c / 1_000_000, c % 1_000_000 / 100));
        format!(
            "{:<21} {:<16} {:<19} {:<12} {:>9}  {question}",
            self.id, self.created, self.protocol, self.outcome, cost
        )
    }
}

/// `YYYYMMDD-HHMMSS` for a Unix time, in UTC (civil-from-days, Howard Hinnant's method).
pub(crate) fn utc_stamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}-{:02}{:02}{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `YYYY-MM-DD HH:MM` from an id's stamp.
fn id_time(id: &str) -> String {
    let d = id.as_bytes();
    if d.len() < 15 || !id[..8].bytes().all(|b| b.is_ascii_digit()) {
        return "?".into();
    }
    format!("{}-{}-{} {}:{}", &id[0..4], &id[4..6], &id[6..8], &id[9..11], &id[11..13])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder that does not exist yet, inside a scratch folder removed on drop.
    fn temp(name: &str) -> (tempfile::TempDir, PathBuf) {
        let scratch = agon_testkit::sandbox::scratch(&format!("sessions-{name}"));
        let root = scratch.path().join("sessions");
        (scratch, root)
    }

    #[test]
    fn stamps_are_utc_calendar_times() {
        assert_eq!(utc_stamp(0), "19700101-000000");
        // 2026-11-22 12:03:01 UTC: 20_779 days after the epoch (as `date -u -d 2026-11-22 +%s` says).
        assert_eq!(utc_stamp(20_779 * 86_400 + 12 * 3600 + 3 * 60 + 1), "20261122-120301");
        assert_eq!(utc_stamp(951_782_400), "20000229-000000", "a leap day");
        assert_eq!(id_time("20261122-120301-3fa9"), "2026-11-22 12:03");
    }

    #[test]
    fn finds_by_prefix_and_newest_first() {
        let (_scratch, root) = temp("find");
        for id in ["20261121-090000-aaaa", "20261122-100000-bbbb", "20261122-110000-cccc"] {
            fs::create_dir_all(root.join(id)).unwrap();
            fs::write(root.join(id).join(JOURNAL), "{}\n").unwrap();
        }
        fs::create_dir_all(root.join("not-a-session")).unwrap();
        let ids: Vec<String> = list(&root).into_iter().map(|s| s.id).collect();
        assert_eq!(ids, ["20261122-110000-cccc", "20261122-100000-bbbb", "20261121-090000-aaaa"]);
        assert_eq!(SessionDir::find(&root, "last").unwrap().id, "20261122-110000-cccc");
        assert_eq!(SessionDir::find(&root, "20261121").unwrap().id, "20261121-090000-aaaa");
        assert!(SessionDir::find(&root, "20261122").unwrap_err().contains("matches 2 sessions"));
        assert!(SessionDir::find(&root, "1999").unwrap_err().contains("no session '1999'"));
        let _ = fs::remove_dir_all(root);
    }

    #[test]
    fn in_one_second_the_later_session_is_last() {
        let (_scratch, root) = temp("same-second");
        // The random tails sort the wrong way round on purpose.
        for id in ["20261122-100000-ffff", "20261122-100000-0000"] {
            fs::create_dir_all(root.join(id)).unwrap();
            fs::write(root.join(id).join(JOURNAL), "{}\n").unwrap();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(SessionDir::find(&root, "last").unwrap().id, "20261122-100000-0000");
        let _ = fs::remove_dir_all(root);
    }

    #[test]
    fn corrupt_files_are_named_and_the_healthy_sessions_still_listed() {
        let (_scratch, root) = temp("corrupt");
        let header = r#"{"journal":1,"spec":{"protocol":{"name":"round-robin"},"question":"Tabs?"}}"#;
        let transcript = r#"{"outcome":{"kind":"completed"},"usage":{"total":{"cost_micro_usd":500000}}}"#;
        let session = |id: &str, journal: &str, transcript: Option<&str>| {
            fs::create_dir_all(root.join(id)).unwrap();
            fs::write(root.join(id).join(JOURNAL), journal).unwrap();
            if let Some(t) = transcript {
                fs::write(root.join(id).join(TRANSCRIPT_JSON), t).unwrap();
            }
        };
        session("20261122-100000-aaaa", &format!("{header}\n"), Some(transcript));
        session("20261122-110000-bbbb", "{\"journal\":1,\"spec\":\n", None);
        session("20261122-120000-cccc", &format!("{header}\n"), Some("{\"outcome\": {\"kind\""));
        session("20261122-130000-dddd", &format!("{header}\n"), None);
        let summaries: Vec<Summary> = list(&root).iter().map(SessionDir::summary).collect();
        let by_id = |id: &str| summaries.iter().find(|s| s.id == id).unwrap();

        let healthy = by_id("20261122-100000-aaaa");
        assert_eq!(healthy.parent, None);
        assert_eq!((healthy.protocol.as_str(), healthy.question.as_str()), ("round-robin", "Tabs?"));
        assert_eq!(
            (healthy.outcome.as_str(), healthy.cost_micro_usd, &healthy.corrupt),
            ("completed", Some(500_000), &None)
        );
        let interrupted = by_id("20261122-130000-dddd");
        assert_eq!((interrupted.outcome.as_str(), &interrupted.corrupt), ("interrupted", &None));

        let journal = by_id("20261122-110000-bbbb");
        let problem = journal.corrupt.as_deref().expect("the journal is named");
        let path = root.join("20261122-110000-bbbb").join(JOURNAL);
        assert!(problem.starts_with(&format!("{}: ", path.display())), "{problem}");
        assert!(problem.contains("EOF while parsing"), "serde says why: {problem}");
        assert!(journal.line().contains(&format!("corrupt: {problem}")), "{}", journal.line());

        let transcript = by_id("20261122-120000-cccc");
        let problem = transcript.corrupt.as_deref().expect("the transcript is named");
        assert!(problem.contains(TRANSCRIPT_JSON) && problem.contains("EOF while parsing"), "{problem}");
        assert_eq!((transcript.outcome.as_str(), transcript.question.as_str()), ("corrupt", "Tabs?"));
        assert!(transcript.line().contains(&format!("corrupt: {problem}")), "{}", transcript.line());
        let _ = fs::remove_dir_all(root);
    }

    #[test]
    fn a_follow_up_names_its_parent() {
        let (_scratch, root) = temp("parent");
        let id = "20261122-100000-aaaa";
        fs::create_dir_all(root.join(id)).unwrap();
        let header = r#"{"journal":1,"spec":{"protocol":{"name":"round-robin"},"question":"Which first?","parent":{"session":"20261121-090000-ffff","question":"Split?"}}}"#;
        fs::write(root.join(id).join(JOURNAL), format!("{header}\n")).unwrap();
        let summary = SessionDir { id: id.into(), dir: root.join(id) }.summary();
        assert_eq!(summary.parent.as_deref(), Some("20261121-090000-ffff"));
        assert!(summary.line().ends_with("↳ 20261121-090000-ffff: Which first?"), "{}", summary.line());
        assert!(serde_json::to_string(&summary).unwrap().contains(r#""parent":"20261121-090000-ffff""#));
    }

    #[test]
    fn two_sessions_in_one_second_get_two_folders() {
        let (_scratch, root) = temp("create");
        let a = SessionDir::create(&root).unwrap();
        let b = SessionDir::create(&root).unwrap();
        assert_ne!(a.id, b.id);
        assert!(a.dir.is_dir() && b.dir.is_dir());
        let _ = fs::remove_dir_all(root);
    }
}
