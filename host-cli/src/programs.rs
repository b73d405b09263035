//! Programs agon starts: the coding agents' CLIs that discovery finds, and
//! the `cmd/` seats that run them. Three rules, each because a program runs
//! with the user's rights:
//!
//! - A program is found only in PATH's absolute entries. An empty entry, `.`
//!   or a relative `bin` means "the folder agon happens to run in": a cloned
//!   repository's `./codex` would be run (asked its version) and seated.
//! - Asking its version is bounded: the program runs in a process group of
//!   its own, its output is read on a thread, and after the time bound (or
//!   once its first line came) the whole group is killed, so a `--version`
//!   that leaves a child holding its output cannot hold agon.
//! - A seat starts with only the environment it needs: the system's basics
//!   (PATH's absolute entries, HOME, the locale, temporary and XDG folders,
//!   proxies and certificates) and the variables its own CLI reads, never
//!   every provider key of the user.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The first executable file named `name` in PATH's absolute entries.
pub fn on_path(name: &str) -> Option<PathBuf> {
    on_path_in(&std::env::var_os("PATH")?, name)
}

/// [`on_path`] in a given PATH.
pub fn on_path_in(path: &OsStr, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('/') {
        return None;
    }
    absolute_entries(path).into_iter().map(|dir| dir.join(name)).find(|p| is_executable(p))
}

/// PATH's absolute entries, in order: the ones a program may come from.
fn absolute_entries(path: &OsStr) -> Vec<PathBuf> {
    std::env::split_paths(path).filter(|dir| dir.is_absolute()).collect()
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// The program a `cmd/` seat names, as it will be run: a bare name is looked
/// up in PATH's absolute entries (as [`on_path`] finds it, never in the
/// working folder); a path is taken as written.
pub fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') { Some(PathBuf::from(program)) } else { on_path(program) }
}

/// `PROGRAM --version`'s first non-empty line (at most 80 characters), if it
/// prints one within `timeout`. Its text is shown made safe by the caller.
pub fn version(path: &Path, timeout: Duration) -> Option<String> {
    let mut command = Command::new(path);
    command.arg("--version").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    command.env_clear().envs(environment(&[]));
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().ok()?;
    let mut stdout = child.stdout.take()?;
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    // Blocked on a pipe some grandchild holds, this thread outlives the call;
    // killing the group below ends it.
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        let mut total = 0;
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
            total += n;
            if total >= 4096 {
                break;
            }
        }
    });
    let deadline = Instant::now() + timeout;
    let mut out = Vec::new();
    let line = loop {
        if let Some(line) = first_line(&out) {
            break Some(line);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(chunk) => out.extend_from_slice(&chunk),
            // The output ended (or the time did): what there is.
            Err(_) => break first_line(&out).or_else(|| last_line(&out)),
        }
    };
    kill_group(&mut child);
    let _ = child.wait();
    line
}

/// The first non-empty line, once it has ended.
fn first_line(out: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(out);
    let end = text.rfind('\n')?;
    text[..end].lines().map(str::trim).find(|l| !l.is_empty()).map(|l| l.chars().take(80).collect())
}

/// A last line without its newline, when the output ended without one.
fn last_line(out: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(out);
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(|l| l.chars().take(80).collect())
}

/// The child and every process of its group (its pid, from `process_group(0)`).
pub fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        // Failing here means the group is gone already; `kill` covers the rest.
        let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    }
    let _ = child.kill();
}

/// Variables every program gets: what a CLI needs to start, find its own
/// configuration and login, and reach the network as the user does.
const BASICS: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
];

/// The environment a program starts with: the basics (home, locale, temporary folder, proxies, certificates) and the variables
/// `wanted` names (`NAME`, or `PREFIX_*` for every variable that starts so),
/// as they are set here; PATH with its absolute entries only.
pub fn environment(wanted: &[String]) -> Vec<(OsString, OsString)> {
    environment_of(std::env::vars_os(), wanted)
}

fn environment_of(vars: impl Iterator<Item = (OsString, OsString)>, wanted: &[String]) -> Vec<(OsString, OsString)> {
    let named = |name: &str, pattern: &str| match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    };
    let mut env = Vec::new();
    for (name, value) in vars {
        let Some(text) = name.to_str() else { continue };
        if text == "PATH" {
            if let Ok(path) = std::env::join_paths(absolute_entries(&value)) {
                env.push((name, path));
            }
        } else if BASICS.iter().copied().chain(wanted.iter().map(String::as_str)).any(|p| named(text, p)) {
            env.push((name, value));
        }
    }
    env
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn only_absolute_path_entries_are_searched() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        script(&bin, "codex", "echo real");
        // Relative, empty and `.` entries name the working folder, whatever it is.
        let path = std::env::join_paths(["", ".", "bin", bin.to_str().unwrap()]).unwrap();
        assert_eq!(on_path_in(&path, "codex"), Some(bin.join("codex")));
        let relative_only = std::env::join_paths(["", ".", "bin"]).unwrap();
        assert_eq!(on_path_in(&relative_only, "codex"), None);
        assert_eq!(on_path_in(&path, "../bin/codex"), None, "a name, not a path");
    }

    #[test]
    fn a_version_that_leaves_a_child_holding_its_output_is_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        // Prints its version, then leaves a child that keeps stdout open for a minute.
        let lingering = script(dir.path(), "lingering", "echo 'tool 1.2.3'\nsleep 60 &\nexit 0");
        let started = Instant::now();
        assert_eq!(version(&lingering, Duration::from_secs(20)).as_deref(), Some("tool 1.2.3"));
        // Silent and holding on: nothing, once the bound passes (here 1 s, not 60).
        let silent = script(dir.path(), "silent", "sleep 60 &\nsleep 60");
        assert_eq!(version(&silent, Duration::from_secs(1)), None);
        assert!(started.elapsed() < Duration::from_secs(30), "held for {:?}", started.elapsed());
        let unended = script(dir.path(), "unended", "printf 'v9'");
        assert_eq!(version(&unended, Duration::from_secs(10)).as_deref(), Some("v9"));
        assert_eq!(version(Path::new("/nonexistent/agon-program"), Duration::from_secs(1)), None);
    }

    #[test]
    fn a_program_gets_the_basics_and_what_it_names_not_every_key() {
        let vars = [
            ("PATH", "/usr/bin::.:bin:/opt/bin"),
            ("HOME", "/home/u"),
            ("LC_ALL", "C"),
            ("OPENAI_API_KEY", "sk-openai"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("AWS_SECRET_ACCESS_KEY", "aws"),
            ("GITHUB_TOKEN", "ghp"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = environment_of(vars.clone().into_iter(), &["ANTHROPIC_*".to_string()]);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(names, ["PATH", "HOME", "LC_ALL", "ANTHROPIC_API_KEY"]);
        assert_eq!(env[0].1, OsString::from("/usr/bin:/opt/bin"), "PATH's absolute entries only");
        let bare = environment_of(vars.into_iter(), &[]);
        assert!(bare.iter().all(|(k, _)| !k.to_str().unwrap().contains("KEY")), "{bare:?}");
    }
}
