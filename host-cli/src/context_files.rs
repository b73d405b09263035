//! Files given as context (`--file`, agon.toml's `[defaults] files`, MCP's
//! `files`), read into the spec's `files`: the engine frames, checks, caps
//! and hashes them; this only finds and reads them.
//!
//! Where they may come from depends on the door: `agon run` reads what its
//! user names, relative to the working folder, and `-` for standard input;
//! `agon mcp` reads only inside the folders it was started with, since its
//! caller is a program (a model) whose paths nobody typed.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use agon_core::{ContextFile, MAX_FILE_BYTES, MAX_FILES_BYTES, MAX_FILES_TOKENS};

use crate::bounded::{self, ReadErrorKind};

/// Where a request's files may be read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileScope {
    /// The person at the terminal: paths and globs relative to the working
    /// folder, absolute paths as given, `-` for standard input.
    WorkingFolder,
    /// An MCP server's roots (canonical, the first one first): relative
    /// paths and globs resolve in the first; an absolute path must lie in
    /// one; `..`, a symlink leading out, and standard input are refused.
    Roots(Vec<PathBuf>),
}

/// What a refused file is called: the flag or field it came from.
const WHAT: &str = "context file";

/// The most files one glob may match. A glob is counted while it is
/// matched, and files are read within the engine's caps for all files
/// together while they are read, so no glob makes agon hold more than the
/// caps allow, whatever it matches (1.5 GB of matches once took 8.6 GB).
pub const MAX_GLOB_MATCHES: usize = 1000;

/// Read every file `patterns` name, in order, each once (a file two
/// patterns match is read for the first). `stdin` gives standard input's
/// bytes up to the limit it is passed, and is asked at most once.
pub fn read(
    patterns: &[String],
    scope: &FileScope,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Vec<ContextFile>, String> {
    read_named(patterns, scope, flag(scope), stdin)
}

/// [`read`], its errors naming where the patterns were given (`named`:
/// `--file`, agon.toml's `[defaults] files`, MCP's `files`).
pub fn read_named(
    patterns: &[String],
    scope: &FileScope,
    named: &str,
    stdin: &mut dyn FnMut(u64) -> std::io::Result<Vec<u8>>,
) -> Result<Vec<ContextFile>, String> {
    let mut files: Vec<ContextFile> = Vec::new();
    let mut stdin_read = false;
    // Bytes and estimated tokens of the files read so far.
    let (mut held, mut tokens) = (0u64, 0u64);
    for pattern in patterns {
        if pattern == "-" {
            if let FileScope::Roots(_) = scope {
                return Err("files: '-' is standard input, which an MCP server does not read: name a file".into());
            }
            if std::mem::replace(&mut stdin_read, true) {
                return Err(format!("{named} -: standard input is given twice"));
            }
            // One byte over the cap is enough to refuse it.
            let bytes = stdin(MAX_FILE_BYTES + 1).map_err(|e| format!("{named} -: cannot read standard input: {e}"))?;
            files.push(ContextFile { path: "-".into(), text: text_of("standard input", bytes)? });
            continue;
        }
        for (shown, path) in resolve(pattern, scope, named)? {
            if files.iter().any(|f| f.path == shown) {
                continue;
            }
            // Within what is left of the cap for all files: never read past it.
            let left = MAX_FILES_BYTES.saturating_sub(held);
            let bytes = bounded::read_bytes(&path, MAX_FILE_BYTES.min(left), WHAT).map_err(|e| match e.kind {
                ReadErrorKind::TooLarge { limit } if limit < MAX_FILE_BYTES => over_all(&shown, held, &path),
                ReadErrorKind::TooLarge { .. } => format!(
                    "the context file {shown} is over the cap of {MAX_FILE_BYTES} bytes for one file ({})",
                    bounded::human(MAX_FILE_BYTES)
                ),
                _ => e.to_string(),
            })?;
            let text = text_of(&shown, bytes)?;
            held += text.len() as u64;
            tokens += u64::from(agon_core::estimate_tokens(&text));
            files.push(ContextFile { text, path: shown });
            if tokens > u64::from(MAX_FILES_TOKENS) {
                let last = &files[files.len() - 1].path;
                return Err(format!(
                    "with the context file {last} the files hold about {tokens} tokens (characters / 4), over the \
                     cap of {MAX_FILES_TOKENS} tokens for all files together: name fewer files"
                ));
            }
        }
    }
    Ok(files)
}

/// The cap for all files together, passed with `shown`.
fn over_all(shown: &str, held: u64, path: &Path) -> String {
    let size = std::fs::metadata(path).map_or(String::new(), |m| format!(" ({} bytes)", m.len()));
    format!(
        "with the context file {shown}{size} the files would hold more than {MAX_FILES_BYTES} bytes ({}), the cap \
         for all files together ({held} bytes read before it): name fewer files",
        bounded::human(MAX_FILES_BYTES)
    )
}

/// Up to `limit` bytes of `reader` (standard input, for `--file -`).
pub fn read_up_to(reader: impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The bytes as text, or an error naming the file: a file that is not UTF-8,
/// or holds a NUL, is binary.
fn text_of(shown: &str, bytes: Vec<u8>) -> Result<String, String> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!("the context file {shown} is over the cap of {MAX_FILE_BYTES} bytes for one file"));
    }
    let binary = || format!("the context file {shown} is binary, not text: only text files can be context");
    let text = String::from_utf8(bytes).map_err(|_| binary())?;
    if text.contains('\0') {
        return Err(binary());
    }
    Ok(text)
}

/// The files one pattern names: (the path shown, the path read), sorted.
fn resolve(pattern: &str, scope: &FileScope, named: &str) -> Result<Vec<(String, PathBuf)>, String> {
    if pattern.trim().is_empty() {
        return Err(format!("{named}: give a path, a glob or -"));
    }
    let given = Path::new(pattern);
    let base = match scope {
        FileScope::WorkingFolder => None,
        FileScope::Roots(roots) => {
            if given.components().any(|c| c == Component::ParentDir) {
                return Err(format!("files: '{pattern}' leaves its folder with '..': name files inside the roots"));
            }
            Some(roots.first().ok_or_else(|| format!("files: no file is read: {NO_ROOT}"))?)
        }
    };
    let full = match base {
        Some(root) if given.is_relative() => root.join(given),
        _ => given.to_path_buf(),
    };
    let found: Vec<PathBuf> = if is_glob(pattern) {
        let text = match base {
            Some(root) if given.is_relative() => {
                format!("{}/{pattern}", glob::Pattern::escape(&root.to_string_lossy()))
            }
            _ => pattern.to_string(),
        };
        // `*` never matches a leading dot, as in a shell: no `.git/` by accident.
        let options = glob::MatchOptions { require_literal_leading_dot: true, ..Default::default() };
        // Counted while matched: a glob over a huge tree stops at the cap.
        let mut found: Vec<PathBuf> = glob::glob_with(&text, options)
            .map_err(|e| format!("{named} '{pattern}': not a glob: {e}"))?
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .take(MAX_GLOB_MATCHES + 1)
            .collect();
        if found.len() > MAX_GLOB_MATCHES {
            return Err(format!(
                "{named} '{pattern}' matches more than {MAX_GLOB_MATCHES} files, the most one glob may give: \
                 name fewer (a narrower glob, or the files themselves)"
            ));
        }
        found.sort();
        if found.is_empty() {
            return Err(format!("{named} '{pattern}' matches no file"));
        }
        found
    } else {
        vec![full]
    };
    found
        .into_iter()
        .map(|path| match scope {
            FileScope::WorkingFolder => Ok((path.to_string_lossy().trim_start_matches("./").to_string(), path)),
            // The path checked is the path read: no link swapped in between leads out.
            FileScope::Roots(roots) => within(&path, pattern, roots),
        })
        .collect()
}

/// How errors name where a pattern came from.
fn flag(scope: &FileScope) -> &'static str {
    match scope {
        FileScope::WorkingFolder => "--file",
        FileScope::Roots(_) => "files",
    }
}

/// Whether a pattern is a glob rather than a path.
fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '['])
}

/// The path shown for a file inside one of `roots` (relative to its root),
/// and its canonical path, which is the one read; or an error naming it:
/// after every symlink is followed, it must lie inside a root.
fn within(path: &Path, pattern: &str, roots: &[PathBuf]) -> Result<(String, PathBuf), String> {
    let real = std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("files: '{pattern}': no such file"),
        _ => format!("files: '{pattern}': {e}"),
    })?;
    let Some(root) = roots.iter().find(|root| real.starts_with(root)) else {
        let how = if path.is_absolute() && !roots.iter().any(|r| path.starts_with(r)) {
            "is outside the server's roots"
        } else {
            "leads outside the server's roots (a symlink)"
        };
        return Err(format!("files: '{pattern}' {how}; the server reads files only inside {}", shown_roots(roots)));
    };
    let inside = real.strip_prefix(root).unwrap_or(&real);
    if let Some(name) = kept_back(inside) {
        return Err(format!(
            "files: '{pattern}' is under '{name}', which the server never reads (dotfiles, key folders and \
             private keys); start it with a --root that names that folder to share it"
        ));
    }
    // Shown as the caller named it, relative to its root: no machine's folders in a prompt.
    let named = if path.starts_with(root) { path.strip_prefix(root) } else { real.strip_prefix(root) };
    let shown = named.unwrap_or(&real).to_string_lossy().into_owned();
    Ok((shown, real))
}

fn shown_roots(roots: &[PathBuf]) -> String {
    roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// An MCP server's roots, checked and made canonical: each must be a folder.
/// Without `--root`, the working folder is the root, unless it is `/` or the
/// home folder: a client that starts servers there (Claude Desktop starts
/// them in `/`) did not choose it, and every key and dotfile of the machine
/// is under it. Then there is no root, and no file is read until the server
/// is started with `--root`.
pub fn roots(given: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let here = std::env::current_dir().map_err(|e| format!("the working folder: {e}"))?;
    roots_from(given, &here, home.as_deref())
}

fn roots_from(given: &[PathBuf], here: &Path, home: Option<&Path>) -> Result<Vec<PathBuf>, String> {
    let canonical = |dir: &Path, flag: &str| {
        let real = std::fs::canonicalize(dir).map_err(|e| format!("{flag} {}: {e}", dir.display()))?;
        if !real.is_dir() {
            return Err(format!("{flag} {}: not a folder", dir.display()));
        }
        Ok(real)
    };
    if given.is_empty() {
        let here = canonical(here, "the working folder")?;
        let home = home.and_then(|h| std::fs::canonicalize(h).ok());
        if here.parent().is_none() || Some(&here) == home.as_ref() {
            return Ok(Vec::new());
        }
        return Ok(vec![here]);
    }
    given.iter().map(|dir| canonical(dir, "--root")).collect()
}

/// What the server says at start-up about where it reads files.
pub fn roots_line(roots: &[PathBuf]) -> String {
    match roots {
        [] => format!("agon mcp: no file is read: {NO_ROOT}"),
        roots => format!(
            "agon mcp: files are read only inside {} (not dotfiles or key files, unless a root names them)",
            shown_roots(roots)
        ),
    }
}

/// Why a server without roots reads no file, and what to do.
const NO_ROOT: &str = "the server was started in / or the home folder without --root; start it with \
--root DIR (the project's folder) to let calls name files";

/// Files a root never gives unless it names them itself: anything under a
/// dotted name (`.env`, `.ssh`, `.aws`, `.gnupg`, `.git`, `.npmrc`, …) and
/// private keys by their usual names. A model asks for these files by path,
/// and whatever is read is quoted to every provider on the panel.
fn kept_back(inside: &Path) -> Option<String> {
    const KEYS: [&str; 5] = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk"];
    inside.components().find_map(|c| {
        let name = c.as_os_str().to_string_lossy();
        (name.starts_with('.') || KEYS.contains(&name.as_ref())).then(|| name.into_owned())
    })
}
#[cfg(test)]
mod tests {
    use super::*;

    fn no_stdin(_: u64) -> std::io::Result<Vec<u8>> {
        panic!("standard input is not asked for")
    }

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("src/deep/b.rs"), "fn b() {}\n").unwrap();
        std::fs::write(root.join("src/.hidden.rs"), "secret\n").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "not yours\n").unwrap();
        (dir, std::fs::canonicalize(root).unwrap())
    }

    #[test]
    fn globs_resolve_in_the_first_root_sorted_without_dot_files() {
        let (_dir, root) = tree();
        let scope = FileScope::Roots(vec![root.clone()]);
        let files = read(&["src/**/*.rs".into(), "src/a.rs".into()], &scope, &mut no_stdin).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["src/a.rs", "src/deep/b.rs"], "a file two patterns name is read once");
        let absolute = root.join("src/a.rs").display().to_string();
        assert_eq!(read(&[absolute], &scope, &mut no_stdin).unwrap()[0].path, "src/a.rs");
        let e = read(&["src/*.py".into()], &scope, &mut no_stdin).unwrap_err();
        assert!(e.contains("'src/*.py' matches no file"), "{e}");
    }

    #[test]
    fn roots_refuse_parent_folders_absolute_paths_elsewhere_symlinks_out_and_stdin() {
        let (dir, root) = tree();
        let scope = FileScope::Roots(vec![root.clone()]);
        let refused = |pattern: &str| read(&[pattern.to_string()], &scope, &mut no_stdin).unwrap_err();
        let e = refused("../outside.txt");
        assert!(e.contains("'../outside.txt' leaves its folder with '..'"), "{e}");
        let e = refused("src/../../outside.txt");
        assert!(e.contains("'..'"), "{e}");
        let outside = dir.path().join("outside.txt").display().to_string();
        let e = refused(&outside);
        assert!(e.contains(&format!("'{outside}' is outside the server's roots")), "{e}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("outside.txt"), root.join("link.txt")).unwrap();
            let e = refused("link.txt");
            assert!(e.contains("'link.txt' leads outside the server's roots (a symlink)"), "{e}");
            let e = refused("*.txt");
            assert!(e.contains("'*.txt' leads outside"), "{e}");
        }
        let e = refused("-");
        assert!(e.contains("standard input"), "{e}");
        let e = refused("src/missing.rs");
        assert!(e.contains("'src/missing.rs': no such file"), "{e}");
    }

    #[test]
    fn binary_and_over_cap_files_are_refused_by_name() {
        let (_dir, root) = tree();
        std::fs::write(root.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        std::fs::write(root.join("nul.txt"), b"text\0more").unwrap();
        std::fs::write(root.join("big.log"), vec![b'x'; MAX_FILE_BYTES as usize + 1]).unwrap();
        let scope = FileScope::Roots(vec![root]);
        for (name, words) in [
            ("logo.png", "the context file logo.png is binary"),
            ("nul.txt", "the context file nul.txt is binary"),
            ("big.log", "the context file big.log is over the cap of 524288 bytes for one file (512 KiB)"),
        ] {
            let e = read(&[name.to_string()], &scope, &mut no_stdin).unwrap_err();
            assert!(e.contains(words), "{name}: {e}");
        }
    }

    #[test]
    fn standard_input_is_read_once() {
        let mut given = |_| Ok(b"diff --git a/x b/x\n".to_vec());
        let files = read(&["-".into()], &FileScope::WorkingFolder, &mut given).unwrap();
        assert_eq!(files, [ContextFile { path: "-".into(), text: "diff --git a/x b/x\n".into() }]);
        let e = read(&["-".into(), "-".into()], &FileScope::WorkingFolder, &mut given).unwrap_err();
        assert!(e.contains("given twice"), "{e}");
        let mut binary = |_| Ok(vec![0xff, 0xfe, 0]);
        let e = read(&["-".into()], &FileScope::WorkingFolder, &mut binary).unwrap_err();
        assert!(e.contains("standard input is binary"), "{e}");
        let mut endless = |limit: u64| Ok(vec![b'a'; limit as usize]);
        let e = read(&["-".into()], &FileScope::WorkingFolder, &mut endless).unwrap_err();
        assert!(e.contains("standard input is over the cap of 524288 bytes"), "{e}");
    }

    #[test]
    fn without_root_the_filesystem_root_and_home_give_no_file() {
        let (dir, root) = tree();
        let home = dir.path();
        assert_eq!(roots_from(&[], Path::new("/"), Some(home)).unwrap(), Vec::<PathBuf>::new());
        assert_eq!(roots_from(&[], home, Some(home)).unwrap(), Vec::<PathBuf>::new());
        assert_eq!(roots_from(&[], &root, Some(home)).unwrap(), std::slice::from_ref(&root));
        // Named, either is a root: the person chose it.
        assert_eq!(roots_from(&[PathBuf::from("/")], home, Some(home)).unwrap(), [PathBuf::from("/")]);
        let scope = FileScope::Roots(Vec::new());
        let e = read(&["etc/passwd".into()], &scope, &mut no_stdin).unwrap_err();
        assert!(e.contains("no file is read") && e.contains("--root DIR"), "{e}");
        let e = read(&["/etc/passwd".into()], &scope, &mut no_stdin).unwrap_err();
        assert!(e.contains("--root DIR"), "{e}");
        assert!(roots_line(&[]).contains("--root"));
        assert!(roots_line(std::slice::from_ref(&root)).contains(&root.display().to_string()));
    }

    #[test]
    fn dotfiles_and_keys_are_read_only_when_a_root_names_them() {
        let (_dir, root) = tree();
        std::fs::write(root.join(".env"), "OPENAI_API_KEY=sk-secret\n").unwrap();
        std::fs::create_dir_all(root.join(".ssh")).unwrap();
        std::fs::write(root.join(".ssh/config"), "Host x\n").unwrap();
        std::fs::write(root.join("id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join(".env"), root.join("notes.txt")).unwrap();
        let scope = FileScope::Roots(vec![root.clone()]);
        let mut refused = vec![(".env", ".env"), (".ssh/config", ".ssh"), ("id_ed25519", "id_ed25519")];
        if cfg!(unix) {
            refused.extend([("notes.txt", ".env"), ("notes.*", ".env")]);
        }
        for (pattern, name) in refused {
            let e = read(&[pattern.to_string()], &scope, &mut no_stdin).unwrap_err();
            assert!(e.contains(&format!("is under '{name}', which the server never reads")), "{pattern}: {e}");
        }
        // A root that names the folder itself shares it.
        let ssh = FileScope::Roots(vec![root.join(".ssh")]);
        assert_eq!(read(&["config".into()], &ssh, &mut no_stdin).unwrap()[0].text, "Host x\n");
    }

    /// A glob is counted while it is matched, and files are read within the
    /// caps for all files while they are read: a glob over gigabytes ends in
    /// the cap's message, having read no more than the cap.
    #[test]
    fn globs_stop_at_their_caps_while_matching_and_reading() {
        let (_dir, root) = tree();
        let many = root.join("many");
        std::fs::create_dir_all(&many).unwrap();
        for i in 0..=MAX_GLOB_MATCHES {
            std::fs::write(many.join(format!("f{i:04}.txt")), "x").unwrap();
        }
        let scope = FileScope::Roots(vec![root.clone()]);
        let e = read(&["many/*.txt".into()], &scope, &mut no_stdin).unwrap_err();
        assert!(e.contains(&format!("'many/*.txt' matches more than {MAX_GLOB_MATCHES} files")), "{e}");
        // Five files of 500 KB of three-byte characters: the fifth would pass
        // 2 MiB and is never read.
        let big = root.join("big");
        std::fs::create_dir_all(&big).unwrap();
        for i in 0..5 {
            std::fs::write(big.join(format!("w{i}.txt")), "語".repeat(166_666)).unwrap();
            std::fs::write(big.join(format!("a{i}.log")), vec![b'y'; 500_000]).unwrap();
        }
        let e = read(&["big/*.txt".into()], &scope, &mut no_stdin).unwrap_err();
        assert!(
            e.contains("with the context file big/w4.txt (499998 bytes) the files would hold more than 2097152"),
            "{e}"
        );
        assert!(e.contains("(1999992 bytes read before it)"), "{e}");
        // ASCII meets the token cap first: 250,000 tokens is 1,000,000 characters.
        let e = read(&["big/*.log".into()], &scope, &mut no_stdin).unwrap_err();
        assert!(e.contains("big/a2.log the files hold about 375000 tokens") && e.contains("cap of 250000"), "{e}");
    }
}
