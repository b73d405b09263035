//! What a review report states, read back from its SARIF or JSON, to be
//! checked against the review a journal re-derives.

use agon_core::review::Review;
use serde_json::Value;

/// The parts of a review a report states: the verdict and each finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stated {
    pub verdict: String,
    pub findings: Vec<StatedFinding>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatedFinding {
    pub id: String,
    pub file: String,
    pub line: u64,
    pub severity: String,
    pub raised_by: Vec<String>,
    pub confirmed_by: Vec<String>,
    pub disputed_by: Vec<String>,
    pub blocking: bool,
}

impl Stated {
    pub fn of(r: &Review) -> Stated {
        Stated {
            verdict: r.verdict.as_str().into(),
            findings: r
                .findings
                .iter()
                .map(|f| StatedFinding {
                    id: f.id.clone(),
                    file: f.file.clone(),
                    line: f.line.into(),
                    severity: f.severity.as_str().into(),
                    raised_by: f.raised_by.clone(),
                    confirmed_by: f.confirmed_by.clone(),
                    disputed_by: f.disputed_by.clone(),
                    blocking: r.blocking.contains(&f.id),
                })
                .collect(),
        }
    }

    /// What differs, in words; empty when they match.
    pub fn differences(&self, other: &Stated) -> Vec<String> {
        let mut out = Vec::new();
        if self.verdict != other.verdict {
            out.push(format!("verdict: the journal gives {}, the report says {}", self.verdict, other.verdict));
        }
        for f in &self.findings {
            match other.findings.iter().find(|o| o.id == f.id) {
                None => out.push(format!("{}: in the journal, not in the report", f.id)),
                Some(o) if o != f => out.push(format!("{}: the journal gives {f:?}, the report says {o:?}", f.id)),
                Some(_) => {}
            }
        }
        for o in &other.findings {
            if !self.findings.iter().any(|f| f.id == o.id) {
                out.push(format!("{}: in the report, not in the journal", o.id));
            }
        }
        out
    }
}

/// Read a report: `agon review`'s JSON (`review`) or SARIF (`runs[0]`).
pub fn stated(report: &Value) -> Result<Stated, String> {
    if let Some(review) = report.get("review") {
        return Review::from_value(review).map(|r| Stated::of(&r)).map_err(|e| format!("review: {e}"));
    }
    let run = report.pointer("/runs/0").ok_or("neither agon review's JSON nor SARIF")?;
    let text =
        |v: &Value, at: &str| v.pointer(at).and_then(Value::as_str).map(str::to_string).ok_or(format!("no {at}"));
    let list = |v: &Value, at: &str| -> Result<Vec<String>, String> {
        let items = v.pointer(at).and_then(Value::as_array).ok_or(format!("no {at}"))?;
        Ok(items.iter().filter_map(Value::as_str).map(str::to_string).collect())
    };
    let mut findings = Vec::new();
    for r in run.get("results").and_then(Value::as_array).ok_or("runs[0].results: not a list")? {
        findings.push(StatedFinding {
            id: text(r, "/properties/id")?,
            file: text(r, "/locations/0/physicalLocation/artifactLocation/uri")?,
            line: r
                .pointer("/locations/0/physicalLocation/region/startLine")
                .and_then(Value::as_u64)
                .ok_or("no startLine")?,
            severity: text(r, "/properties/severity")?,
            raised_by: list(r, "/properties/raisedBy")?,
            confirmed_by: list(r, "/properties/confirmedBy")?,
            disputed_by: list(r, "/properties/disputedBy")?,
            blocking: r.pointer("/properties/blocking").and_then(Value::as_bool).ok_or("no blocking")?,
        });
    }
    Ok(Stated { verdict: text(run, "/properties/verdict")?, findings })
}
