//! The change under review: a unified diff, where it came from, its files,
//! the lines each file has in the new version, and its split by file when
//! it is over the size budget (said, never silently truncated).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The diff bytes one review session reads by default.
pub const DEFAULT_BUDGET: usize = 60_000;

/// One file's part of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// The path in the new version (`b/…` without its prefix); the old one for a deletion.
    pub path: String,
    pub text: String,
    /// Lines of the new version the diff shows (added or context), from 1.
    pub new_lines: Vec<u32>,
}

/// Split a unified diff into its files, in order. Text before the first
/// `diff --git` or `---` header (a commit message) is left out.
pub fn files(diff: &str) -> Vec<FileDiff> {
    let mut out: Vec<FileDiff> = Vec::new();
    // Lines of the hunk still to come: (old, new), from its header's counts.
    let (mut old_left, mut new_left, mut new_line) = (0u32, 0u32, 0u32);
    for line in diff.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        // A header ends a hunk whose counts were wrong (a hand-edited diff).
        if bare.starts_with("diff --git ") {
            (old_left, new_left) = (0, 0);
        }
        let in_hunk = old_left > 0 || new_left > 0;
        let headed = out.last().is_some_and(|f| f.text.starts_with("diff --git ") && !f.text.contains("\n+++ "));
        if !in_hunk && (bare.starts_with("diff --git ") || (bare.starts_with("--- ") && !headed)) {
            out.push(FileDiff { path: String::new(), text: String::new(), new_lines: Vec::new() });
        }
        let Some(file) = out.last_mut() else { continue };
        file.text.push_str(line);
        if in_hunk {
            match bare.chars().next() {
                Some('+') => {
                    file.new_lines.push(new_line);
                    (new_line, new_left) = (new_line + 1, new_left.saturating_sub(1));
                }
                Some('-') => old_left = old_left.saturating_sub(1),
                Some('\\') => {}
                _ => {
                    file.new_lines.push(new_line);
                    (new_line, new_left, old_left) =
                        (new_line + 1, new_left.saturating_sub(1), old_left.saturating_sub(1));
                }
            }
        } else if let Some(rest) = bare.strip_prefix("+++ ") {
            let rest = rest.split('\t').next().unwrap_or(rest);
            if rest != "/dev/null" {
                file.path = rest.strip_prefix("b/").unwrap_or(rest).to_string();
            }
        } else if let Some(rest) = bare.strip_prefix("--- ") {
            let rest = rest.split('\t').next().unwrap_or(rest);
            if file.path.is_empty() && rest != "/dev/null" {
                file.path = rest.strip_prefix("a/").unwrap_or(rest).to_string();
            }
        } else if let Some((old, start, new)) = hunk(bare) {
            (old_left, new_line, new_left) = (old, start, new);
        }
    }
    out.retain(|f| !f.path.is_empty());
    out
}

/// `@@ -a,b +c,d @@`: (b, c, d), a count 1 when it is left out.
fn hunk(line: &str) -> Option<(u32, u32, u32)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let new = rest.split(' ').next()?;
    let count = |r: &str| -> Option<(u32, u32)> {
        let mut it = r.split(',');
        let start = it.next()?.parse().ok()?;
        let n = it.next().map_or(Some(1), |n| n.parse().ok())?;
        Some((start, n))
    };
    let ((_, b), (c, d)) = (count(old)?, count(new)?);
    Some((b, c, d))
}

/// The lines each file shows in the new version, by path.
pub fn new_lines(diff: &str) -> BTreeMap<String, Vec<u32>> {
    files(diff).into_iter().map(|f| (f.path, f.new_lines)).collect()
}

/// Split the files into parts each within `budget` bytes, in order; a file
/// bigger than the budget alone is an error naming it (it is not cut).
pub fn split(files: &[FileDiff], budget: usize) -> Result<Vec<Vec<FileDiff>>, String> {
    let mut parts: Vec<Vec<FileDiff>> = Vec::new();
    let mut size = 0;
    for f in files {
        if f.text.len() > budget {
            return Err(format!(
                "the diff of {} alone is {} bytes, over the review's budget of {budget} (--max-diff-bytes): review it on its own with a larger budget, or split the change",
                f.path,
                f.text.len()
            ));
        }
        if parts.is_empty() || size + f.text.len() > budget {
            parts.push(Vec::new());
            size = 0;
        }
        size += f.text.len();
        parts.last_mut().expect("pushed").push(f.clone());
    }
    Ok(parts)
}

/// The diff git gives for `range` (the working tree against HEAD when
/// none), with `context` lines around each change, run in `dir`.
pub fn from_git(dir: &Path, range: Option<&str>, context: u32) -> Result<String, String> {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir).args(["diff", "--no-color", "--no-ext-diff", &format!("-U{context}")]);
    match range {
        Some(r) if r.starts_with('-') => return Err(format!("{r}: not a revision range")),
        Some(r) => cmd.arg(r),
        None => cmd.arg("HEAD"),
    };
    cmd.arg("--");
    let out = cmd.output().map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(format!("git diff {}: {}", range.unwrap_or("HEAD"), why.trim()));
    }
    String::from_utf8(out.stdout).map_err(|_| "git diff gave text that is not UTF-8".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "commit message line\n\
diff --git a/src/a.rs b/src/a.rs\n\
index 1..2 100644\n\
--- a/src/a.rs\n\
+++ b/src/a.rs\n\
@@ -10,3 +10,4 @@ fn f() {\n\
 keep\n\
-old\n\
+new1\n\
+new2\n\
 keep2\n\
diff --git a/gone.txt b/gone.txt\n\
deleted file mode 100644\n\
--- a/gone.txt\n\
+++ /dev/null\n\
@@ -1 +0,0 @@\n\
-bye\n";

    #[test]
    fn reads_files_and_their_new_lines() {
        let f = files(DIFF);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].path, "src/a.rs");
        // keep=10, new1=11, new2=12, keep2=13; the removed line has no new number.
        assert_eq!(f[0].new_lines, [10, 11, 12, 13]);
        assert_eq!(f[1].path, "gone.txt");
        assert!(f[1].new_lines.is_empty());
        assert!(!f[0].text.contains("commit message"));
    }

    #[test]
    fn a_hunk_with_wrong_counts_ends_at_the_next_file() {
        let wrong = DIFF.replace("@@ -10,3 +10,4 @@", "@@ -10,9 +10,9 @@");
        let f = files(&wrong);
        assert_eq!(f.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["src/a.rs", "gone.txt"]);
    }

    #[test]
    fn splits_by_file_within_the_budget_and_refuses_to_cut_a_file() {
        let f = files(DIFF);
        let one = split(&f, 10_000).unwrap();
        assert_eq!(one.len(), 1);
        let two = split(&f, f[0].text.len()).unwrap();
        assert_eq!(two.iter().map(Vec::len).collect::<Vec<_>>(), [1, 1]);
        let e = split(&f, 20).unwrap_err();
        assert!(e.contains("src/a.rs") && e.contains("--max-diff-bytes"), "{e}");
    }
}
