//! A review's outputs for CI: Markdown for a PR comment (verdict first, a
//! findings table linking to lines), SARIF 2.1.0 for code scanning, GitHub
//! Actions annotations, and JSON. Model text in them is made inert for
//! each medium; each names the session and the engine version.

use std::collections::BTreeMap;

use agon_core::review::{Merged, Review, Severity, Verdict};
use serde_json::{Value, json};

/// What a report says beside the review itself.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// The kept session's id, when the run was kept.
    pub session: Option<String>,
    /// The engine's version (`agon_core::journal::ENGINE_VERSION`).
    pub engine: String,
    /// A URL prefix a file's path and `#L<line>` are appended to for links
    /// (`https://github.com/OWNER/REPO/blob/SHA/`); plain text without it.
    pub links: Option<String>,
    /// The lines each file shows in the new version (from the diff).
    pub new_lines: BTreeMap<String, Vec<u32>>,
    /// When the diff was split: how many parts, said in every report.
    pub parts: usize,
}

impl Meta {
    fn in_diff(&self, f: &Merged) -> bool {
        self.new_lines.get(&f.file).is_some_and(|l| l.contains(&f.line))
    }

    fn session_words(&self) -> String {
        match &self.session {
            Some(id) => format!("session {id}"),
            None => "a session not kept (--no-save)".into(),
        }
    }
}

/// The verdict in one line.
pub fn headline(r: &Review) -> String {
    let found = match r.findings.len() {
        1 => "1 finding".to_string(),
        n => format!("{n} findings"),
    };
    match r.verdict {
        Verdict::Pass => format!("PASS: no finding blocks ({found}; policy: {})", r.policy.describe()),
        Verdict::Fail => format!("FAIL: {} blocking ({found}; policy: {})", r.blocking.join(", "), r.policy.describe()),
        Verdict::Undecided => format!(
            "UNDECIDED: the findings of {} could not be read, so the change cannot pass ({found})",
            r.unread.join(", ")
        ),
    }
}

/// One line of text from model output, for a table cell or an annotation:
/// no line breaks, no control characters.
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>().trim().to_string()
}

/// Model text inside a Markdown table cell: inert, one line, pipes escaped.
fn cell(text: &str) -> String {
    one_line(&agon_core::inert_markdown(&one_line(text))).replace('|', "\\|")
}

/// Markdown for a pull request comment.
pub fn markdown(r: &Review, meta: &Meta) -> String {
    let mut out = format!("## agon review: {}\n\n", headline(r));
    if meta.parts > 1 {
        out.push_str(&format!(
            "The diff was over the size budget, so it was reviewed in {} parts, split by file; the verdict covers them all.\n\n",
            meta.parts
        ));
    }
    if r.findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        out.push_str("| | id | severity | where | finding | raised by | confirmed by | disputed by |\n");
        out.push_str("|---|---|---|---|---|---|---|---|\n");
        for f in &r.findings {
            let mark = if r.blocking.contains(&f.id) { "❌" } else { "" };
            let place = format!("{}:{}", f.file, f.line);
            let place = match &meta.links {
                Some(base) => format!("[`{}`]({base}{}#L{})", cell(&place), url_path(&f.file), f.line),
                None => format!("`{}`", cell(&place)),
            };
            let outside = if meta.new_lines.is_empty() || meta.in_diff(f) { "" } else { " (outside the diff)" };
            out.push_str(&format!(
                "| {mark} | {} | {} | {place}{outside} | **{}** ({}): {} | {} | {} | {} |\n",
                f.id,
                f.severity.as_str(),
                cell(&f.title),
                cell(&f.category),
                cell(&f.rationale),
                f.raised_by.join(", "),
                f.confirmed_by.join(", "),
                f.disputed_by.join(", "),
            ));
        }
    }
    let flagged: Vec<String> = r
        .changes
        .iter()
        .filter(|c| c.flagged)
        .map(|c| format!("{} on {} (round {})", c.seat, c.finding, c.round))
        .collect();
    if !flagged.is_empty() {
        out.push_str(&format!(
            "\nChanges of position that cited no other seat, flagged and not counted: {}.\n",
            flagged.join("; ")
        ));
    }
    out.push_str(&format!(
        "\n<sub>Decided by code from declared findings; {}, agon engine {}. Check it offline: `agon replay --verify JOURNAL`.</sub>\n",
        meta.session_words(),
        meta.engine
    ));
    out
}

/// A path as a URL's: each segment percent-encoded where it must be.
fn url_path(path: &str) -> String {
    path.split('/')
        .map(|s| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>())
        .collect::<Vec<_>>()
        .join("/")
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

/// SARIF 2.1.0: one run of the tool `agon review`, a rule per category.
pub fn sarif(r: &Review, meta: &Meta) -> Value {
    let mut rules: Vec<String> = r.findings.iter().map(|f| rule_id(&f.category)).collect();
    rules.sort();
    rules.dedup();
    let results: Vec<Value> = r
        .findings
        .iter()
        .map(|f| {
            json!({
                "ruleId": rule_id(&f.category),
                "level": level(f.severity),
                "message": {"text": format!("{}: {}", one_line(&f.title), one_line(&f.rationale))},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": f.file},
                    "region": {"startLine": f.line}
                }}],
                "properties": {
                    "id": f.id,
                    "severity": f.severity.as_str(),
                    "blocking": r.blocking.contains(&f.id),
                    "raisedBy": f.raised_by,
                    "confirmedBy": f.confirmed_by,
                    "disputedBy": f.disputed_by,
                }
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "agon review",
                "version": meta.engine,
                "informationUri": "https://github.com/agon-council/agon",
                "rules": rules.iter().map(|id| json!({"id": id, "shortDescription": {"text": format!("A {} finding of the review council", id.trim_start_matches("agon.review."))}})).collect::<Vec<_>>(),
            }},
            "automationDetails": {"id": format!("agon-review/{}", meta.session.as_deref().unwrap_or("unsaved"))},
            "results": results,
            "properties": {
                "verdict": r.verdict.as_str(),
                "policy": r.policy.describe(),
                "session": meta.session,
                "engine": meta.engine,
                "parts": meta.parts.max(1),
            }
        }]
    })
}

fn rule_id(category: &str) -> String {
    let c: String =
        one_line(category).to_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("agon.review.{}", if c.is_empty() { "finding".into() } else { c })
}

/// GitHub Actions workflow commands, one per finding, then the verdict.
pub fn annotations(r: &Review, meta: &Meta) -> String {
    let mut out = String::new();
    for f in &r.findings {
        let kind = match (r.blocking.contains(&f.id), level(f.severity)) {
            (true, _) | (false, "error") => "error",
            (false, "warning") => "warning",
            _ => "notice",
        };
        out.push_str(&format!(
            "::{kind} file={},line={},title={}::{}\n",
            property(&f.file),
            f.line,
            property(&format!("{} {} ({})", f.id, one_line(&f.title), f.severity.as_str())),
            data(&format!("{} Raised by {}.", one_line(&f.rationale), f.raised_by.join(", ")))
        ));
    }
    let kind = if r.verdict == Verdict::Pass { "notice" } else { "error" };
    out.push_str(&format!(
        "::{kind} title=agon review::{}\n",
        data(&format!("{} ({}, agon engine {})", headline(r), meta.session_words(), meta.engine))
    ));
    out
}

/// A workflow command's message: `%`, CR and LF escaped, so model text cannot start a command of its own.
fn data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// A workflow command's property: also `:` and `,`.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The JSON report: the review as the transcript holds it, and what it is about.
pub fn json(r: &Review, meta: &Meta) -> Value {
    json!({
        "verdict": r.verdict.as_str(),
        "headline": headline(r),
        "session": meta.session,
        "engine": meta.engine,
        "parts": meta.parts.max(1),
        "review": r,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agon_core::review::{Findings, Policy, SeatName, merge, read_findings};

    fn review(text: &str) -> Review {
        let Findings::Declared(found) = read_findings(text) else { panic!() };
        let raised: Vec<(String, _)> = found.into_iter().map(|f| ("a".to_string(), f)).collect();
        let seats = [SeatName { id: "a", label: "A" }];
        Review::decide(merge(&seats, &raised, &[]), Policy { fail_at: Severity::High, confirmed_by: 1 }, vec![])
    }

    #[test]
    fn annotations_cannot_start_a_command_of_their_own() {
        let r = review("FINDING: a,b:c.rs:3 | high | bug | x | line\n");
        let r2 = review("FINDING: x.rs:3 | high | bug | evil | 100% sure%0A::set-env name=X::y\n");
        let out = annotations(&r, &Meta::default());
        assert!(out.starts_with("::error file=a%2Cb%3Ac.rs,line=3,title=F1 x (high)::line"), "{out}");
        let out = annotations(&r2, &Meta::default());
        assert_eq!(out.lines().count(), 2, "{out}");
        assert!(out.contains("100%25 sure%250A::set-env"), "{out}");
    }

    #[test]
    fn markdown_puts_the_verdict_first_and_links_lines() {
        let r = review("FINDING: src/a#b.rs:3 | high | bug | Pipe | in the | rationale <script>\n");
        let meta = Meta {
            links: Some("https://github.com/o/r/blob/abc/".into()),
            session: Some("s1".into()),
            engine: "9".into(),
            ..Meta::default()
        };
        let md = markdown(&r, &meta);
        assert!(md.starts_with("## agon review: FAIL: F1 blocking"), "{md}");
        assert!(md.contains("(https://github.com/o/r/blob/abc/src/a%23b.rs#L3)"), "{md}");
        assert!(md.contains("in the \\| rationale"), "{md}");
        assert!(md.contains("\\<script>") && !md.contains(" <script>"), "raw HTML is escaped: {md}");
        assert!(md.contains("session s1, agon engine 9"), "{md}");
    }
}
