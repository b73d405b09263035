//! Evaluation: does the council beat one model? Every arm answers the same
//! items; the same reader takes every arm's answer; an answer that cannot be
//! read is wrong, never right.
//!
//! No I/O here: a host runs each arm's debates (one a line of a batch
//! results file, as `agon batch` writes them), then asks [`report`] for the
//! Markdown, the JSONL of items and the picture. Rescoring is running
//! [`report`] again on the same files: no call.

mod arm_score;
pub mod dataset;
mod pictures;
mod report;
mod rounds;
mod score;
pub mod stats;

pub use dataset::{Format, Item, ItemKind};
pub use pictures::Picture;

/// The protocol document of the `single` and `vote` arms: every seat answers
/// once, blind. One seat is one model's answer; several, the plurality.
pub const VOTE_DOCUMENT: &str = include_str!("vote.json");

/// The protocol document of the `self-correct` arm: every seat answers, then
/// revises its own answers round after round, never seeing another seat's —
/// isolated self-correction, the baseline a debate's rounds are compared with.
pub const SELF_CORRECT_DOCUMENT: &str = include_str!("self-correct.json");

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
    /// The same figures as JSON (`report.json`), with each arm's settings.
    pub json: String,
    /// One JSON line per item per arm (per sample, with repeats).
    pub items: String,
    /// Accuracy by arm, against cost, and (when an arm debated) by round.
    pub pictures: Vec<Picture>,
}

/// What a report adds to its defaults.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// Fields of the dataset to break accuracy down by (`subject`, `kind`, a column of your own).
    pub by: Vec<String>,
    /// Dataset lines the host's own reading skipped (`line N: why; skipped`),
    /// listed as the engine's reading of the raw file lists its own: a host
    /// that hands over the dataset as it read it passes no bad line itself.
    pub skipped: Vec<String>,
}

impl Options {
    /// Options from their JSON (`{"by": ["subject"]}`), the error naming the field.
    pub fn from_json(json: &str) -> Result<Options, String> {
        crate::json_read::from_str(json).map_err(|e| format!("evaluation options: {e}"))
    }
}

impl Format {
    /// A dataset format from its JSON (`{"csv": true, "fields": {…}, "kind": "number"}`).
    pub fn from_json(json: &str) -> Result<Format, String> {
        crate::json_read::from_str(json).map_err(|e| format!("dataset format: {e}"))
    }
}

/// The field of an arm's results file's first line that holds the settings its debates run with.
pub const SETTINGS_FIELD: &str = "eval_settings";

/// The results id of sample `k` (from 1) of item `id`: `id`, then `id~2`, `id~3`, ….
pub fn sample_id(id: &str, k: u32) -> String {
    if k <= 1 { id.to_string() } else { format!("{id}~{k}") }
}

/// The settings line an arm's results file opens with, for `spec_json` (the
/// spec every item's debate shares, as the engine built it): the spec without
/// the item's question, context and answer, nor prices (they change what an
/// answer costs, not what it is), the engine's version, and a key over both.
/// Results recorded under another key were asked under other settings.
pub fn settings_line(spec_json: &str) -> Result<String, String> {
    let mut spec = crate::json_read::parse(spec_json).map_err(|e| format!("the spec is not JSON: {e}"))?;
    let Some(object) = spec.as_object_mut() else { return Err("the spec is not a JSON object".to_string()) };
    for field in ["question", "context", "answer", "prices", "max_cost"] {
        object.remove(field);
    }
    let spec = crate::order::canonical(spec);
    let engine = crate::journal::ENGINE_VERSION;
    let key = crate::sha256::hex(format!("{spec}\n{engine}").as_bytes());
    let line = crate::json_read::object([(
        SETTINGS_FIELD.to_string(),
        serde_json::Value::Object(crate::json_read::object([
            ("engine".to_string(), serde_json::Value::from(engine)),
            ("key".to_string(), serde_json::Value::from(key)),
            ("spec".to_string(), spec),
        ])),
    )]);
    Ok(serde_json::Value::Object(line).to_string())
}

/// Score every arm on the dataset `dataset` (agon's JSONL text; `name` heads the report).
pub fn report(name: &str, dataset: &str, arms: &[Arm]) -> Report {
    report_with(name, dataset, arms, &Options::default())
}

/// [`report`], with breakdowns by the fields `options` names.
pub fn report_with(name: &str, dataset: &str, arms: &[Arm], options: &Options) -> Report {
    let (items, mut skipped) = dataset::read(dataset);
    skipped.extend(options.skipped.iter().cloned());
    let scored: Vec<arm_score::ArmScore> = arms
        .iter()
        .map(|arm| {
            let results = report::Results::read(arm.results);
            let (mut samples, mut of) = (Vec::new(), Vec::new());
            for (i, item) in items.iter().enumerate() {
                let lines = results.samples(&item.id);
                if lines.is_empty() {
                    samples.push(score::Scored::never_ran());
                    of.push(i);
                }
                for line in lines {
                    samples.push(score::score(item, Some(line), arm.scoring));
                    of.push(i);
                }
            }
            arm_score::ArmScore {
                name: arm.name,
                items: samples,
                item: of,
                settings: results.settings,
                scoring: arm.scoring,
            }
        })
        .collect();
    let canonical: String = items.iter().map(|i| i.to_line() + "\n").collect();
    let data =
        report::Dataset { name, items: &items, skipped: &skipped, digest: crate::sha256::hex(canonical.as_bytes()) };
    Report {
        markdown: report::markdown(&data, &scored, &options.by),
        json: report::json(&data, &scored, &options.by),
        items: report::items_jsonl(&items, &scored),
        pictures: pictures::all(&scored),
    }
}
