//! Findings merged across seats by location and meaning, each carrying who
//! raised, confirmed and disputed it; reactions applied in order, and every
//! change of position recorded, flagged when it cites no other seat.

use serde::{Deserialize, Serialize};

use super::finding::{Finding, Severity};
use super::reaction::{Reaction, Stand};
pub use crate::citation::SeatName;

/// Two findings this many lines apart or fewer can be the same one.
pub const LINE_WINDOW: u32 = 3;

/// One finding as the panel holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    /// `F1`, `F2`, … in the order first raised.
    pub id: String,
    pub file: String,
    /// The line the first seat to raise it gave.
    pub line: u32,
    /// The worst severity any raising seat gave.
    pub severity: Severity,
    pub category: String,
    pub title: String,
    pub rationale: String,
    /// Seats that raised it, in the order they did.
    pub raised_by: Vec<String>,
    /// Seats that did not raise it and uphold it at the end.
    pub confirmed_by: Vec<String>,
    /// Seats that dispute it at the end (a raiser that withdrew it among them).
    pub disputed_by: Vec<String>,
}

impl Merged {
    /// How many seats uphold it at the end.
    pub fn upheld(&self) -> usize {
        self.raised_by.iter().filter(|s| !self.disputed_by.contains(s)).count() + self.confirmed_by.len()
    }
}

/// A seat turning from upholding a finding to disputing it, or back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionChange {
    pub seat: String,
    pub finding: String,
    pub round: u32,
    pub to: String,
    /// The seat whose argument it cites, when the citation names another seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citing: Option<String>,
    /// No other seat cited: the change is flagged and does not take effect.
    pub flagged: bool,
}

/// A reaction that named no finding's location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmatched {
    pub seat: String,
    pub round: u32,
    pub location: String,
}

/// What merging gave.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Merge {
    pub findings: Vec<Merged>,
    pub changes: Vec<PositionChange>,
    pub unmatched: Vec<Unmatched>,
}

/// Merge the findings raised (seat id, finding, in speaking order), then
/// apply the reactions (seat id, round, reaction, in speaking order).
pub fn merge(seats: &[SeatName], raised: &[(String, Finding)], reactions: &[(String, u32, Reaction)]) -> Merge {
    let mut out = Merge::default();
    for (seat, f) in raised {
        match out.findings.iter_mut().find(|m| same(m, f)) {
            Some(m) => {
                if !m.raised_by.contains(seat) {
                    m.raised_by.push(seat.clone());
                }
                m.severity = m.severity.max(f.severity);
            }
            None => out.findings.push(Merged {
                id: format!("F{}", out.findings.len() + 1),
                file: f.file.clone(),
                line: f.line,
                severity: f.severity,
                category: f.category.clone(),
                title: f.title.clone(),
                rationale: f.rationale.clone(),
                raised_by: vec![seat.clone()],
                confirmed_by: Vec::new(),
                disputed_by: Vec::new(),
            }),
        }
    }
    for (seat, round, r) in reactions {
        let Some(i) = target(&out.findings, r) else {
            out.unmatched.push(Unmatched {
                seat: seat.clone(),
                round: *round,
                location: format!("{}:{}", r.file, r.line),
            });
            continue;
        };
        let m = &mut out.findings[i];
        let raised = m.raised_by.contains(seat);
        let upholds = if m.disputed_by.contains(seat) {
            Some(false)
        } else if raised || m.confirmed_by.contains(seat) {
            Some(true)
        } else {
            None
        };
        let wants = r.stand == Stand::Confirm;
        if upholds.is_some_and(|u| u != wants) {
            // A change of position: it takes effect only citing another seat.
            let citing = r.citing.as_deref().and_then(|label| crate::citation::cited_seat(seats, seat, label));
            let citing = citing.map(str::to_string);
            let flagged = citing.is_none();
            out.changes.push(PositionChange {
                seat: seat.clone(),
                finding: m.id.clone(),
                round: *round,
                to: if wants { "upholds" } else { "disputes" }.into(),
                citing,
                flagged,
            });
            if flagged {
                continue;
            }
        }
        m.confirmed_by.retain(|s| s != seat);
        m.disputed_by.retain(|s| s != seat);
        match (wants, raised) {
            (true, false) => m.confirmed_by.push(seat.clone()),
            (true, true) => {}
            (false, _) => m.disputed_by.push(seat.clone()),
        }
    }
    out
}

/// Same file, lines within the window, and the same meaning: titles that
/// share most of their words, or the same category on the very same line
/// (two issues of one kind a line apart are two findings).
fn same(m: &Merged, f: &Finding) -> bool {
    m.file == f.file
        && m.line.abs_diff(f.line) <= LINE_WINDOW
        && (overlap(&m.title, &f.title) || (m.line == f.line && m.category.eq_ignore_ascii_case(&f.category)))
}

fn words(s: &str) -> Vec<String> {
    let mut w: Vec<String> =
        s.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 2).map(str::to_lowercase).collect();
    w.sort();
    w.dedup();
    w
}

/// At least half the words of the shorter title are in the other.
fn overlap(a: &str, b: &str) -> bool {
    let (a, b) = (words(a), words(b));
    let shorter = a.len().min(b.len());
    shorter > 0 && a.iter().filter(|w| b.contains(w)).count() * 2 >= shorter
}

/// The finding a reaction names: same file, the nearest line within the window, the first on a tie.
fn target(findings: &[Merged], r: &Reaction) -> Option<usize> {
    findings
        .iter()
        .enumerate()
        .filter(|(_, m)| m.file == r.file && m.line.abs_diff(r.line) <= LINE_WINDOW)
        .min_by_key(|(i, m)| (m.line.abs_diff(r.line), *i))
        .map(|(i, _)| i)
}
