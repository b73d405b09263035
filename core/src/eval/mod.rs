//! Evaluation: does the council beat one model? Every arm answers the same
//! items; the same reader takes every arm's answer; an answer that cannot be
//! read is wrong, never right.
//!
//! No I/O here: a host runs each arm's debates (one a line of a batch
//! results file, as `agon batch` writes them), then asks [`report`] for the
//! Markdown, the JSONL of items and the picture. Rescoring is running
//! [`report`] again on the same files: no call.

pub mod dataset;
mod pictures;
mod report;
mod score;
pub mod stats;

pub use dataset::{Item, ItemKind};
pub use pictures::Picture;

/// The protocol document of the `single` and `vote` arms: every seat answers
/// once, blind. One seat is one model's answer; several, the plurality.
pub const VOTE_DOCUMENT: &str = include_str!("vote.json");

/// One arm: its name, its batch results file's text, and whose answer counts.
#[derive(Debug, Clone, Copy)]
pub struct Arm<'a> {
    pub name: &'a str,
    pub results: &'a str,
    pub scoring: Scoring,
}

/// Whose answer an arm is scored on. An evaluation that wants both lists the
/// same results twice, once with each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// The plurality of the seats' last answers (the transcript's vote).
    #[default]
    Vote,
    /// The `ANSWER:` line of the judge's synthesis.
    Judge,
}

/// What an evaluation writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub markdown: String,
    /// One JSON line per item per arm.
    pub items: String,
    /// Accuracy by arm, against cost, and (when an arm debated) by round.
    pub pictures: Vec<Picture>,
}

/// Score every arm on the dataset `dataset` (its JSONL text; `name` heads the report).
pub fn report(name: &str, dataset: &str, arms: &[Arm]) -> Report {
    let (items, skipped) = dataset::read(dataset);
    let scored: Vec<report::ArmScore> = arms
        .iter()
        .map(|arm| {
            let lines = report::lines_by_id(arm.results);
            report::ArmScore {
                name: arm.name,
                items: items.iter().map(|i| score::score(i, lines.get(&i.id), arm.scoring)).collect(),
            }
        })
        .collect();
    Report {
        markdown: report::markdown(name, &items, &skipped, &scored),
        items: report::items_jsonl(&items, &scored),
        pictures: pictures::all(&scored),
    }
}
