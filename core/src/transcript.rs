//! The transcript: the stable JSON record of a debate.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{ConsensusCheck, NamedResult, Outcome, Phase, SeatInfo, Usage};

/// The version of the transcript format: 2 keeps a protocol's results under
/// `results`, each with its kind. Format 1 (results beside the transcript's
/// own fields, without kinds) is read by migrating it: [`Transcript`]'s
/// deserializer does, in `transcript_format1.rs`, above the protocols whose
/// declarations give each result its kind.
pub const TRANSCRIPT_VERSION: u32 = 2;

/// The transcript's own top-level names. Format 1 kept a protocol's results
/// beside them, so a result may still not take one: a format-1 reader would
/// see the name twice (and the migration tells results from fields by it).
pub const TRANSCRIPT_FIELDS: &[&str] = &[
    "version",
    "protocol",
    "question",
    "context",
    "files",
    "parent",
    "seed",
    "participants",
    "judge",
    "turns",
    "consensus",
    "choices",
    "summaries",
    "warnings",
    "synthesis",
    "outcome",
    "usage",
    "results",
];

/// A debate's record. Read from JSON in format 2 or format 1 (migrated on
/// the way in: see [`TRANSCRIPT_VERSION`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Transcript {
    pub version: u32,
    pub protocol: String,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The files given as context: path, size and SHA-256 (the spec holds their text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<crate::FileRecord>,
    /// The session this debate follows up (the spec holds what it quoted of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<crate::ParentRecord>,
    pub seed: u64,
    /// Round 1's answers were written without seeing each other's (the spec's `blind`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blind: bool,
    pub participants: Vec<SeatInfo>,
    pub judge: Option<SeatInfo>,
    /// Every answered turn, in the order the protocol planned them.
    pub turns: Vec<Turn>,
    /// Every convergence check the protocol ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub consensus: Vec<ConsensusCheck>,
    /// Every choice the seed made (a devil's advocate picked, a tie broken).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
    /// Rolling summaries asked for to keep prompts within the context budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<SummaryNote>,
    /// Unparseable replies, adversarial turns that pulled their punches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Protocol-specific results under their own names (`ranking`,
    /// `scorecard`, …), each with its kind.
    #[serde(default)]
    pub results: BTreeMap<String, NamedResult>,
    pub synthesis: Option<Synthesis>,
    /// `null` while the debate is still running (a partial journal).
    pub outcome: Option<Outcome>,
    /// Tokens and cost per seat and in total; estimated where a provider reported no usage.
    #[serde(default)]
    pub usage: crate::UsageReport,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    pub round: u32,
    pub phase: Phase,
    pub speaker: String,
    pub model: String,
    pub challenger: bool,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The model ran into its token limit: this text is where it was cut.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cut: bool,
    /// The fallback chain's model that answered, when not its first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Synthesis {
    pub speaker: String,
    pub model: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The judge ran into its token limit: the synthesis is cut.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cut: bool,
    /// The fallback chain's model that answered, when not its first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub what: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryNote {
    pub covers_round: u32,
    pub speaker: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub speaker: Option<String>,
    pub round: u32,
    pub phase: Phase,
    pub message: String,
}

impl Serialize for Transcript {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Transcript::serialize(self, s)
    }
}

impl Transcript {
    /// Pretty JSON with a trailing newline: the form written to files.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("transcripts always serialize");
        s.push('\n');
        s
    }

    /// Read a transcript from its JSON (format 2, or format 1 migrated): what
    /// a host hands the report to render. The error names the field.
    pub fn from_json(json: &str) -> Result<Transcript, String> {
        crate::json_read::from_str(json).map_err(|e| format!("not a transcript: {e}"))
    }
}
