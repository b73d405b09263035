//! A finding as a seat declares it, and the reader of a findings reply.
//!
//! A seat declares each finding on a line of its own, read only from that
//! line's declared form (never from prose that mentions one):
//!
//! ```text
//! FINDING: src/lib.rs:42 | high | correctness | Off-by-one in the loop bound | The loop reads one past the end.
//! NO FINDINGS
//! ```
//!
//! or as JSON, `{"findings": [{"file", "line", "severity", "category", "title", "rationale"}]}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How bad a finding is, least to worst: the order a policy compares by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Worth knowing; nothing to fix.
    Info,
    /// A small fix, any time.
    Low,
    /// To fix, not by itself a reason to hold the change.
    Medium,
    /// A bug, hole or loss to fix before merging.
    High,
    /// Breaks production, leaks secrets or loses data.
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 5] =
        [Severity::Info, Severity::Low, Severity::Medium, Severity::High, Severity::Critical];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// The word, case-insensitive; `None` for any other.
    pub fn parse(word: &str) -> Option<Severity> {
        let w = word.trim().to_ascii_lowercase();
        Severity::ALL.into_iter().find(|s| s.as_str() == w)
    }
}

/// One finding: where in the new version, how bad, what and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The file's path as the diff names it in the new version.
    pub file: String,
    /// The line in the new version, from 1.
    pub line: u32,
    pub severity: Severity,
    pub category: String,
    pub title: String,
    pub rationale: String,
}

/// What a findings reply declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Findings {
    /// Findings declared (possibly none: `NO FINDINGS`).
    Declared(Vec<Finding>),
    /// Nothing declared in either form: the reply cannot count as clean.
    Unread,
}

/// The marker a finding line starts with.
pub const FINDING_MARKER: &str = "FINDING:";
/// The line that declares a clean review.
pub const NO_FINDINGS: &str = "NO FINDINGS";

/// Read a findings reply: declared lines first; JSON if it has none.
/// A line that starts like a finding but is malformed is left out
/// (never half-read), and does not by itself make the reply unread.
pub fn read_findings(text: &str) -> Findings {
    let mut found = Vec::new();
    let mut declared = false;
    for line in text.lines() {
        let line = strip_decoration(line);
        if line.eq_ignore_ascii_case(NO_FINDINGS) || line.eq_ignore_ascii_case("NO FINDINGS.") {
            declared = true;
        } else if let Some(rest) = strip_prefix_ci(line, FINDING_MARKER) {
            declared = true;
            if let Some(f) = finding_line(rest) {
                found.push(f);
            }
        }
    }
    if declared {
        return Findings::Declared(found);
    }
    match crate::extract_json(text).as_ref().and_then(|v| v.get("findings")).and_then(Value::as_array) {
        Some(items) => Findings::Declared(items.iter().filter_map(finding_json).collect()),
        None => Findings::Unread,
    }
}

/// `src/lib.rs:42 | high | correctness | title | rationale` (the rationale may hold `|`).
fn finding_line(rest: &str) -> Option<Finding> {
    let mut parts = rest.splitn(5, '|').map(str::trim);
    let (file, line) = location(parts.next()?)?;
    let severity = Severity::parse(parts.next()?)?;
    let category = parts.next()?.to_string();
    let title = parts.next()?.to_string();
    let rationale = parts.next().unwrap_or("").to_string();
    if category.is_empty() || title.is_empty() {
        return None;
    }
    Some(Finding { file, line, severity, category, title, rationale })
}

fn finding_json(v: &Value) -> Option<Finding> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(|s| s.trim().to_string());
    let line = u32::try_from(v.get("line")?.as_u64()?).ok().filter(|l| *l > 0)?;
    let file = text("file").filter(|f| !f.is_empty())?;
    Some(Finding {
        file,
        line,
        severity: Severity::parse(&text("severity")?)?,
        category: text("category").filter(|c| !c.is_empty())?,
        title: text("title").filter(|t| !t.is_empty())?,
        rationale: text("rationale").unwrap_or_default(),
    })
}

/// `path:line`, the path non-empty and without spaces, the line from 1.
pub(crate) fn location(s: &str) -> Option<(String, u32)> {
    let s = s.trim().trim_matches('`');
    let (file, line) = s.rsplit_once(':')?;
    let line: u32 = line.trim().parse().ok().filter(|l| *l > 0)?;
    let file = file.trim().trim_start_matches("b/").trim_start_matches("./");
    if file.is_empty() || file.contains(char::is_whitespace) {
        return None;
    }
    Some((file.to_string(), line))
}

/// A declared line as a model may decorate it: list bullets, bold, quotes.
pub(crate) fn strip_decoration(line: &str) -> &str {
    line.trim().trim_start_matches(['-', '*', '>', ' ']).trim_start_matches("**").trim().trim_end_matches("**").trim()
}

pub(crate) fn strip_prefix_ci<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let head = line.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| line[prefix.len()..].trim_start_matches("**").trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_declared_lines_and_leaves_malformed_ones_out() {
        let text = "I looked closely.\n\
            FINDING: src/lib.rs:42 | high | correctness | Off by one | Reads past the end | really\n\
            - **FINDING:** `b/app.py:7` | LOW | style | Long line\n\
            FINDING: src/lib.rs:0 | high | x | line zero is not a line\n\
            FINDING: src/lib.rs:3 | urgent | x | not a severity\n\
            A FINDING: quoted in prose is not declared: x.rs:1 | high | a | b";
        let Findings::Declared(f) = read_findings(text) else { panic!("declared") };
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].file.as_str(), f[0].line, f[0].severity), ("src/lib.rs", 42, Severity::High));
        assert_eq!(f[0].rationale, "Reads past the end | really");
        assert_eq!((f[1].file.as_str(), f[1].line, f[1].severity), ("app.py", 7, Severity::Low));
        assert_eq!(f[1].title, "Long line");
    }

    #[test]
    fn no_findings_is_a_clean_reply_and_silence_is_unread() {
        assert_eq!(read_findings("Looks fine.\nNO FINDINGS"), Findings::Declared(vec![]));
        assert_eq!(read_findings("Looks fine to me, ship it."), Findings::Unread);
    }

    #[test]
    fn reads_json_when_no_line_is_declared() {
        let text = r#"```json
{"findings": [{"file": "a.rs", "line": 3, "severity": "critical", "category": "security", "title": "SQL injection", "rationale": "unescaped"},
              {"file": "a.rs", "line": "3", "severity": "high", "category": "x", "title": "line as text is refused"}]}
```"#;
        let Findings::Declared(f) = read_findings(text) else { panic!("declared") };
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].severity, f[0].title.as_str()), (Severity::Critical, "SQL injection"));
    }

    #[test]
    fn severities_order_least_to_worst() {
        assert!(Severity::Info < Severity::Low && Severity::High < Severity::Critical);
        assert_eq!(Severity::parse(" Medium "), Some(Severity::Medium));
    }
}
