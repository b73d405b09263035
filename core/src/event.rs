//! Events: what happened, in order, for live views and machine consumers.
//!
//! Each event is numbered from 0 and serializes to one canonical JSON object
//! (`{"v":2,"seq":…,"type":…}`), so every host emits the same bytes.

use serde::{Deserialize, Serialize};

use crate::{ConsensusCheck, FailureKind, Outcome, Phase, RequestId, Usage};

/// The version of the event envelope.
/// 2: `type` is kebab-case (it was snake_case in 1).
pub const EVENT_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub v: u32,
    pub seq: u64,
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    /// The canonical one-line JSON form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events always serialize")
    }
}

/// A seat as events and transcripts show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    pub id: String,
    pub name: String,
    pub model: String,
}

/// What happened. In JSON, `type` names the variant in kebab-case, as the WIT
/// and every other enum value agon writes do (`"turn-completed"`).
///
/// Exhaustive on purpose: the WIT binding matches every variant, so a new one
/// fails to compile until the boundary carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum EventKind {
    DebateStarted {
        protocol: String,
        question: String,
        participants: Vec<SeatInfo>,
        judge: Option<SeatInfo>,
        rounds: u32,
        seed: u64,
    },
    RoundStarted {
        round: u32,
        phase: Phase,
        /// The seat holding the adversarial role this round, if the protocol has one.
        challenger: Option<String>,
    },
    TurnStarted {
        id: RequestId,
        round: u32,
        phase: Phase,
        speaker: String,
        model: String,
        challenger: bool,
    },
    TurnCompleted {
        id: RequestId,
        round: u32,
        phase: Phase,
        speaker: String,
        challenger: bool,
        text: String,
        /// The tokens the provider billed for the reply, cache reads and
        /// writes included, when it reported them: a live view can show
        /// spending and cache hits as they happen.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    TurnFailed {
        id: RequestId,
        round: u32,
        phase: Phase,
        speaker: String,
        kind: FailureKind,
        message: String,
    },
    ConsensusChecked(ConsensusCheck),
    RoundEnded {
        round: u32,
        phase: Phase,
    },
    JudgeStarted {
        id: RequestId,
        speaker: String,
        model: String,
        /// The heading to show over the synthesis: not the plain one when a
        /// call has failed, so a degraded run never looks like a full one.
        heading: String,
    },
    /// A protocol-specific result (a ranking, a scorecard, a compete result…).
    ResultRecorded {
        name: String,
        value: serde_json::Value,
    },
    /// A choice the seed made.
    ChoiceMade {
        what: String,
        value: String,
    },
    /// Something a reader should know about a turn.
    Warning {
        speaker: Option<String>,
        round: u32,
        phase: Phase,
        message: String,
    },
    DebateEnded {
        outcome: Outcome,
    },
}
