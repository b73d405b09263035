//! A debate as asked for, whichever door it came in by: `agon run`'s flags,
//! agon.toml's defaults, an MCP client's arguments, a batch's template. Each
//! front door converts what it was given into a [`DebateRequest`]; the
//! configuration fills what it left open ([`Config::apply_to_request`]); the
//! runner turns it into the engine's spec. No front door's types appear here.
//!
//! [`Config::apply_to_request`]: crate::config::Config::apply_to_request

use std::path::PathBuf;

use agon_core::{CompeteMode, ConsensusMode};
use serde_json::{Map, Value};

use crate::options::{Options, PanelChoice, PerSeat, ProtocolChoice};

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

pub use crate::options::Judge;

/// One debate, as asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct DebateRequest {
    pub question: String,
    /// Background every speaker receives with the question.
    pub context: Option<String>,
    /// Where `files` may be read from: the door decides.
    pub file_scope: crate::context_files::FileScope,
    /// The settings the layers set, merged (flags or arguments over agon.toml):
    /// reply limits, files, cost cap, reasoning, …; `None` is the built-in default.
    pub settings: Options,
    /// Whether `settings.files` are agon.toml's `[defaults] files` (errors name them so).
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
    /// `[SEAT=]AREA`: a field of expertise, for every seat or one.
    pub domain: Vec<PerSeat<String>>,
    /// comparative: the options compared.
    pub compared: Vec<String>,
    /// priority-vote: a file with one item per line.
    pub items: Option<PathBuf>,
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
    /// The finished debate this one follows up (`{session, transcript}`),
    /// from which the engine makes the spec's parent section.
    pub follows: Option<Value>,
}

impl Default for DebateRequest {
    fn default() -> DebateRequest {
        DebateRequest {
            question: String::new(),
            context: None,
            file_scope: crate::context_files::FileScope::WorkingFolder,
            settings: Options::default(),
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
            domain: Vec::new(),
            compared: Vec::new(),
            items: None,
            role_models: Vec::new(),
            compete: CompeteMode::default(),
            triggers: Vec::new(),
            label: None,
            confirm_by: None,
            options: Map::new(),
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

impl DebateRequest {
    /// Write these settings into the request: the protocol, panel, judge
    /// and rounds where set (what is left `None` keeps the request's), the
    /// rest as they are. A panel still named here is written as its name:
    /// resolve it first.
    pub fn take_settings(&mut self, settings: Options) {
        match &settings.protocol {
            Some(ProtocolChoice::Named(name)) => self.protocol = name.clone(),
            Some(ProtocolChoice::File(path)) => self.protocol_file = Some(path.clone()),
            None => {}
        }
        match &settings.panel {
            Some(PanelChoice::Models(models)) => self.panel = models.clone(),
            Some(PanelChoice::Named(name)) => self.panel = vec![name.clone()],
            None => {}
        }
        if let Some(judge) = &settings.judge {
            self.judge = judge.clone();
        }
        if settings.rounds.is_some() {
            self.rounds = settings.rounds;
        }
        self.settings = settings;
    }
}
