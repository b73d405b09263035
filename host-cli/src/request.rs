//! A debate as asked for, whichever door it came in by: `agon run`'s flags,
//! agon.toml's defaults, an MCP client's arguments, a batch's template. Each
//! front door converts what it was given into a [`DebateRequest`]; the
//! configuration fills what it left open ([`Config::apply_to_request`]); the
//! runner turns it into the engine's spec. No front door's types appear here.
//!
//! [`Config::apply_to_request`]: crate::config::Config::apply_to_request

use std::path::PathBuf;

use agon_core::{CompeteMode, ConsensusMode, Diversity, QualityGate};
use serde_json::{Map, Value};

/// Each turn's reply ceiling when neither a flag nor agon.toml sets one; the
/// judge's is twice it, and a folder's agon.toml is held under both.
pub const DEFAULT_MAX_TOKENS: u32 = 512;
/// Each call's timeout in seconds when neither a flag nor agon.toml sets one;
/// a folder's agon.toml is held under it.
pub const DEFAULT_TIMEOUT_S: u64 = 120;
/// The protocol when none is named.
pub const DEFAULT_PROTOCOL: &str = "round-robin";
/// The sampling temperature when none is given.
pub const DEFAULT_TEMPERATURE: f64 = 0.7;

/// Who judges the debate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Judge {
    /// The configuration's judge, else the engine's default (the first panel model).
    #[default]
    Default,
    /// This model.
    Model(String),
    /// Nobody: the debate ends without a synthesis.
    Without,
}

/// One debate, as asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct DebateRequest {
    pub question: String,
    /// Background every speaker receives with the question.
    pub context: Option<String>,
    /// Files every speaker reads with the question: paths, globs, `-` for
    /// standard input, read within `file_scope`.
    pub files: Vec<String>,
    /// Where `files` may be read from: the door decides.
    pub file_scope: crate::context_files::FileScope,
    /// Whether `files` are agon.toml's `[defaults] files` (errors name them so).
    pub files_from_config: bool,
    /// A protocol name (the catalog's or agon.toml's `[protocols]`); `NAME:SEAT` names an adversary.
    pub protocol: String,
    /// A protocol document of one's own, from a file.
    pub protocol_file: Option<PathBuf>,
    /// A protocol document given inline (an MCP client's `document`), not yet checked.
    pub document: Option<Value>,
    /// Model references, one per seat, or one name from agon.toml's `[panels]`.
    pub panel: Vec<String>,
    pub judge: Judge,
    /// `None`: the protocol's own default.
    pub rounds: Option<u32>,
    /// The seat that challenges first (rotating-challenger).
    pub challenger: Option<String>,
    /// How agreement is read; `None`: agon.toml's, else the engine's default.
    pub consensus: Option<ConsensusMode>,
    /// The question's checkable answer: ANSWER lines and the vote.
    pub answer: Option<agon_core::answer::AnswerSpec>,
    pub seed: u64,
    pub max_tokens: u32,
    /// `None`: twice `max_tokens`.
    pub judge_max_tokens: Option<u32>,
    pub temperature: f64,
    /// `[SEAT=]LEVEL`, for every seat or one.
    pub effort: Vec<String>,
    /// `[SEAT=]TOKENS`, for every seat or one.
    pub thinking: Vec<String>,
    /// `[SEAT=]AREA`: a field of expertise, for every seat or one.
    pub domain: Vec<String>,
    /// Blind first answers: round 1's turns written without the others'.
    pub blind: bool,
    pub context_budget: Option<u32>,
    pub quality_gate: QualityGate,
    /// US dollars the worst case may reach.
    pub max_cost: Option<f64>,
    /// comparative: the options compared.
    pub compared: Vec<String>,
    /// priority-vote: a file with one item per line.
    pub items: Option<PathBuf>,
    /// role-council: a folder of role files.
    pub roles: Option<PathBuf>,
    /// role-council: `ROLE=MODEL`.
    pub role_models: Vec<String>,
    /// adversarial, priority-vote, comparative: `Auto` unless asked otherwise.
    pub compete: CompeteMode,
    /// adversarial: `NAME=word,a phrase,…`.
    pub triggers: Vec<String>,
    /// adversarial: the compete history this run counts in.
    pub label: Option<String>,
    /// priority-vote: the model (`human/you`: the person at the terminal) seated third to confirm flagged items.
    pub confirm_by: Option<String>,
    /// Protocol options by the names the catalog gives them; a setting above for the same option wins.
    pub options: Map<String, Value>,
    /// What a panel of one model gets where the protocol needs several; `None`: agon.toml's, else a warning.
    pub diversity: Option<Diversity>,
    /// The finished debate this one follows up (`{session, transcript}`),
    /// from which the engine makes the spec's parent section.
    pub follows: Option<Value>,
}

impl Default for DebateRequest {
    fn default() -> DebateRequest {
        DebateRequest {
            question: String::new(),
            context: None,
            files: Vec::new(),
            file_scope: crate::context_files::FileScope::WorkingFolder,
            files_from_config: false,
            protocol: DEFAULT_PROTOCOL.into(),
            protocol_file: None,
            document: None,
            panel: Vec::new(),
            judge: Judge::Default,
            rounds: None,
            challenger: None,
            consensus: None,
            answer: None,
            seed: 0,
            max_tokens: DEFAULT_MAX_TOKENS,
            judge_max_tokens: None,
            temperature: DEFAULT_TEMPERATURE,
            effort: Vec::new(),
            thinking: Vec::new(),
            domain: Vec::new(),
            blind: false,
            context_budget: None,
            quality_gate: QualityGate::default(),
            max_cost: None,
            compared: Vec::new(),
            items: None,
            roles: None,
            role_models: Vec::new(),
            compete: CompeteMode::default(),
            triggers: Vec::new(),
            label: None,
            confirm_by: None,
            options: Map::new(),
            diversity: None,
            follows: None,
        }
    }
}

impl DebateRequest {
    /// A request for this question, everything else at its default.
    pub fn new(question: impl Into<String>) -> DebateRequest {
        DebateRequest { question: question.into(), ..DebateRequest::default() }
    }

    /// The protocol's name, without a `:SEAT` suffix.
    pub fn protocol_name(&self) -> &str {
        self.protocol.split(':').next().unwrap_or_default().trim()
    }
}
