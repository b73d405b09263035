//! What the core makes of the turns at the end: a fixed set of aggregators.

use serde::{Deserialize, Serialize};

use super::phases::Prompt;
use super::visibility::Sees;
use crate::Phase;
use crate::ledger::aggregate::LedgerAggregate;
use crate::review::ReviewAggregate;

/// The aggregators a document may ask for: the judge's synthesis, a Borda
/// count over ranking readings, a code review's findings and verdict, and a
/// claim ledger.
/// Vote counts, scorecards and verdict tallies are still Rust.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Aggregate {
    /// A Borda count over a phase's rankings, before the judge's synthesis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borda: Option<Borda>,
    /// A code review: findings merged across seats and a verdict decided by a policy, before the judge's synthesis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewAggregate>,
    /// A claim ledger: claims, attacks and concessions read from every counted turn, changes of position checked for a cited reason, and the judge's ruling on each open claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ledger: Option<LedgerAggregate>,
    /// The judge's synthesis at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<Synthesis>,
}

/// The judge reads what it sees and writes the council's answer (when the spec has a judge).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Synthesis {
    /// What of the debate the judge sees.
    pub sees: Sees,
    /// What the judge is asked.
    pub prompt: Prompt,
    /// `## Heading` sections of the synthesis stored as named transcript results.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Section>,
}

/// A Borda count over the rankings a phase's replies gave (`output.ranking`):
/// in a ranking of k labels the first earns k−1 points, the last 0. Replies
/// no ranking could be read from are left out with a warning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Borda {
    /// The phase whose replies are read; it reads rankings.
    pub phase: Phase,
    /// The transcript field the standings land in: letters, digits and `_`.
    pub result: String,
    /// The transcript field each seat's reading lands in (none if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readings: Option<String>,
    /// The degraded outcome's reason when no reply could be read (no standings are recorded then).
    pub none: String,
}

/// One section of the synthesis kept as a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Section {
    /// The `## Heading` to read (its start, case-insensitive).
    pub heading: String,
    /// The transcript field it lands in: letters, digits and `_`.
    pub result: String,
}

/// The text under a `## <title>` heading (case-insensitive), up to the next heading.
pub(crate) fn section(text: &str, title: &str) -> Option<String> {
    let mut out = None::<String>;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            if out.is_some() {
                break;
            }
            if t.trim_start_matches('#').trim().to_ascii_lowercase().starts_with(title) {
                out = Some(String::new());
            }
            continue;
        }
        if let Some(o) = &mut out {
            o.push_str(line);
            o.push('\n');
        }
    }
    out.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::section;

    #[test]
    fn reads_a_section_up_to_the_next_heading() {
        let text = "## What survived\nA\n## Revised position\nShip in May.\nWith a pilot.\n## Notes\nx";
        assert_eq!(section(text, "revised position").unwrap(), "Ship in May.\nWith a pilot.");
        assert_eq!(section(text, "missing"), None);
    }
}
