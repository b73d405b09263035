//! Where results go: checked before anything is spent, written as safe text.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::path::Path;

use crate::sanitize;

/// Fail now, naming the flag, if `path` could not be written at the end of a
/// run: its folder is missing or read-only, or it is a folder itself. Checked
/// before the first call, so a typo in `-o` costs nothing.
pub fn check_writable(path: &Path, flag: &str) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("{flag} {shown}: that is a folder; name a file"));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!("{flag} {shown}: the folder {} does not exist", dir.display()));
    }
    if path.exists() {
        return OpenOptions::new()
            .append(true)
            .open(path)
            .map(drop)
            .map_err(|e| format!("{flag} {shown}: cannot write it ({e})"));
    }
    let probe = dir.join(format!(".agon-probe-{}", std::process::id()));
    File::create(&probe).map_err(|e| format!("{flag} {shown}: cannot write in {} ({e})", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// The kinds of document agon writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text a person reads: through the terminal sanitizer.
    Markdown,
    /// JSON and NDJSON: exact (see [`json_text`]).
    Json,
    /// Exact: its encoder escapes every control character itself.
    Yaml,
}

/// A result document as written to stdout or a file.
pub fn document_text(document: &str, kind: Kind) -> Cow<'_, str> {
    match kind {
        Kind::Markdown => sanitize::terminal(document),
        Kind::Json => json_text(document),
        Kind::Yaml => Cow::Borrowed(document),
    }
}

/// JSON with DEL and the C1 controls (U+0080 to U+009F) escaped as `\u00XX`:
/// JSON encoders escape only the C0 controls, and a terminal may obey a raw
/// C1. Those can only occur inside strings, where the escape means the same
/// character: the data stays exact.
pub fn json_text(json: &str) -> Cow<'_, str> {
    let hazard = |c: char| ('\u{7f}'..='\u{9f}').contains(&c);
    if !json.contains(hazard) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if hazard(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_named_before_the_run() {
        let e = check_writable(Path::new("/nonexistent-agon-dir/out.json"), "--output").unwrap_err();
        assert!(e.contains("--output") && e.contains("/nonexistent-agon-dir") && e.contains("does not exist"), "{e}");
        assert!(check_writable(&std::env::temp_dir(), "-o").unwrap_err().contains("folder"));
        assert!(check_writable(&std::env::temp_dir().join("agon-out-check.md"), "-o").is_ok());
    }

    #[test]
    fn json_and_yaml_stay_exact_with_every_control_escaped() {
        let text = "a\u{1b}]52;c;x\u{7}b\u{9b}c\rd";
        let json = serde_json::json!({ "text": text });
        let yaml = serde_yaml_ng::to_string(&json).unwrap();
        assert!(!yaml.chars().any(|c| c.is_control() && c != '\n'), "{yaml:?}");
        let shown = document_text(&json.to_string(), Kind::Json).into_owned();
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(back["text"], text, "the data is exact");
        assert_eq!(document_text("x\u{1b}[2J", Kind::Markdown), "x^[[2J");
    }
}
