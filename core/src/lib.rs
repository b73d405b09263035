//! # agon-core: the debate engine of agon
//!
//! **No I/O, no clock, no randomness except the seed in the spec.** This crate
//! is a deterministic state machine: it decides who speaks when, with what
//! prompt, and when a debate ends. A host performs the model calls it asks
//! for and feeds back what came of them. The same spec and the same inputs
//! give the same events, transcript and outcome, byte for byte, in every host.
//!
//! ## The host loop
//!
//! 1. Create a [`Session`] from a [`DebateSpec`] (or its JSON).
//! 2. Drain [`Session::poll`] until it returns [`Output::Idle`] or [`Output::Done`]:
//!    - [`Output::Request`]: start that model call. Every request released
//!      before `Idle` is independent of the others: run them concurrently.
//!    - [`Output::Event`]: show or record it.
//! 3. When a call finishes, feed [`Input::Reply`] or [`Input::Failed`] to
//!    [`Session::handle`] (append [`journal::entry`] of it to the journal), then go to 2.
//! 4. On [`Output::Done`], read the [`Outcome`], the [`Session::transcript`]
//!    or its [`Session::markdown`].
//!
//! **The contract** (as str0m states its own): after creating a session and
//! after every [`Session::handle`], drain [`Session::poll`] until `Idle` or
//! `Done`. Until the next input, polling again returns the same `Idle` or
//! `Done`: nothing appears without an input, and no request is released twice.
//!
//! Misuse (an unknown or repeated request id, a bad spec) is an [`Error`] and
//! leaves the session unchanged. A debate that cannot finish normally is not
//! an error: it ends with an [`Outcome`] that says so.

#![forbid(unsafe_code)]

pub mod answer;
pub mod batch;
mod budget;
mod builder;
mod catalog;
mod citation;
pub(crate) mod consensus;
mod cost;
mod debate;
#[cfg(feature = "testing")]
pub mod differential;
mod diversity;
mod error;
pub mod eval;
mod event;
mod files;
#[cfg(feature = "testing")]
pub mod fuzzing;
pub mod hidden;
mod input;
pub mod journal;
mod json_read;
mod label;
pub mod ledger;
mod order;
mod outcome;
mod parent;
mod parse;
pub mod picture;
mod plan;
mod prompt_kit;
mod protocol;
mod quality;
mod quote;
mod reasoning;
mod render;
mod request;
mod result_kind;
pub mod review;
mod rng;
mod roles;
#[cfg(feature = "testing")]
pub mod script;
mod session;
mod sha256;
mod spec;
pub mod stance;
mod tokens;
mod transcript;
// Reading format 1 (above the protocols: it asks them each result's kind).
mod transcript_format1;
mod validation;
mod vote;
#[cfg(feature = "testing")]
pub mod workload;
mod worst_case;

pub use builder::{Follows, SpecRequest, build_spec, seat_ids};
pub use catalog::{Catalog, CatalogEntry, CatalogPrice, LOCAL_PROVIDERS, catalog_vendor};
pub use consensus::{Conflict, ConsensusCheck, ConsensusMode, Holdout, JudgeReview, SeatStance};
pub use cost::{CostSummary, SeatUsage, UnpricedSeat, UsageReport, UsageTotal, Usd};
pub use error::Error;
pub use event::{EVENT_VERSION, Event, EventKind, SeatInfo};
pub use files::{
    ContextFile, FileRecord, MAX_FILE_BYTES, MAX_FILE_TOKENS, MAX_FILES_BYTES, MAX_FILES_TOKENS, MAX_PATH_CHARS,
};
pub use input::{FailureKind, Input, StopReason, Usage};
pub use outcome::{FailureNote, Outcome, OutcomeKind};
pub use parent::{MAX_PARENT_BYTES, MAX_PARENT_TOKENS, Parent, ParentRecord, Position};
pub use parse::extract_json;
pub use protocol::adversarial::{CompeteHistory, CompeteMode, Trigger};
pub use protocol::definition::{OptionInfo, OptionKind, ProtocolInfo};
pub use protocol::document::{BUILTIN_DOCUMENTS, DOCUMENT_VERSION, check_document, document_info};
pub use protocol::registry::{example_spec, protocols};
pub use reasoning::{
    DEFAULT_ALLOWANCE, Effort, MAX_BUDGET, ModelTraits, Reasoning, ReasoningRequest, Thinking, ThinkingParam,
    ThinkingPlan, effort_for_budget, plan_for as thinking_plan, thinking_of,
};
pub use render::adr::adr_markdown;
pub use render::data_blocks::{Fenced, fenced, without_data_blocks};
pub use render::kinds::shape::{ResultShape, compete_record, results_shaped};
pub use render::{
    consensus_markdown, inert_markdown, markdown, notes_markdown, results_markdown, synthesis_shown, turn_text,
};
pub use request::{Message, ModelRequest, Phase, Purpose, RequestId, Role};
pub use result_kind::{NamedResult, ResultKind};
pub use roles::{BUILTIN_ROLE_FILES, CouncilRole, builtin_roles, parse_role};
pub use session::{Output, Session};
pub use spec::{
    DebateSpec, Diversity, Limits, MAX_DOMAIN_CHARS, MAX_ROUNDS, MIN_CONTEXT_BUDGET, Participant, Price, ProtocolSpec,
    QualityGate, SeatRef,
};
pub use tokens::{ENTRY_TOKENS, TEMPLATE_TOKENS, estimate_tokens};
pub use transcript::{
    Choice, SummaryNote, Synthesis, TRANSCRIPT_FIELDS, TRANSCRIPT_VERSION, Transcript, Turn, Warning,
};
pub use worst_case::{CostEstimate, worst_case};
