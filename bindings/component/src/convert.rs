//! Core types to WIT types and back. Nothing else.

use crate::exports::agon::debate::types as wit;
use agon_core as core;

pub fn error(e: core::Error) -> wit::Error {
    let message = e.to_string();
    let kind = match e {
        core::Error::InvalidSpec { field, reason } => wit::ErrorKind::InvalidSpec(wit::InvalidSpec { field, reason }),
        core::Error::UnknownRequest { id } => wit::ErrorKind::UnknownRequest(id),
        core::Error::AlreadyAnswered { id } => wit::ErrorKind::AlreadyAnswered(id),
        core::Error::InvalidJournal { line, reason } => {
            wit::ErrorKind::InvalidJournal(wit::InvalidJournal { line: line as u32, reason })
        }
        core::Error::InvalidRole { line, reason } => {
            wit::ErrorKind::InvalidRole(wit::InvalidRole { line: line as u32, reason })
        }
    };
    wit::Error { message, kind }
}

pub fn input(i: wit::Input) -> core::Input {
    match i {
        wit::Input::Reply(r) => core::Input::Reply {
            id: r.id,
            text: r.text,
            usage: r.usage.map(usage_in),
            stop: r.stop.map(stop_in),
            model: r.model,
        },
        wit::Input::Failed(f) => core::Input::Failed {
            id: f.id,
            kind: failure_kind_in(f.kind),
            message: f.message,
            usage: f.usage.map(usage_in),
        },
    }
}

/// A request handed back by a host (the wire layer's input).
pub fn request_in(r: wit::ModelRequest) -> core::ModelRequest {
    core::ModelRequest {
        id: r.id,
        seat: r.seat,
        model: r.model,
        // Its place in the debate does not change its wire form.
        purpose: core::Purpose::Turn,
        round: r.round,
        phase: core::Phase::Deliberation,
        messages: r
            .messages
            .into_iter()
            .map(|m| core::Message {
                role: match m.role {
                    wit::Role::System => core::Role::System,
                    wit::Role::User => core::Role::User,
                    wit::Role::Assistant => core::Role::Assistant,
                },
                content: m.content,
            })
            .collect(),
        max_tokens: r.max_tokens,
        temperature: r.temperature,
        expect: r.expect,
        reasoning: r.reasoning.map(|q| core::ReasoningRequest {
            effort: q.effort.map(|e| match e {
                wit::Effort::Low => core::Effort::Low,
                wit::Effort::Medium => core::Effort::Medium,
                wit::Effort::High => core::Effort::High,
            }),
            budget: q.budget,
            allowance: q.allowance,
        }),
        traits: r
            .traits
            .into_iter()
            .map(|(m, t)| {
                let traits = core::ModelTraits {
                    reasoning: t.reasoning,
                    temperature: t.temperature,
                    context: t.context,
                    max_output: t.max_output,
                };
                (m, traits)
            })
            .collect(),
        cache_marks: r.cache_marks,
    }
}

pub fn usage_out(u: core::Usage) -> wit::Usage {
    wit::Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        reasoning_tokens: u.reasoning_tokens,
        cached_tokens: u.cached_tokens,
        cache_write_tokens: u.cache_write_tokens,
    }
}

pub fn stop_out(s: core::StopReason) -> wit::StopReason {
    match s {
        core::StopReason::Complete => wit::StopReason::Complete,
        core::StopReason::TokenLimit => wit::StopReason::TokenLimit,
        core::StopReason::Other => wit::StopReason::Other,
    }
}

pub fn stop_in(s: wit::StopReason) -> core::StopReason {
    match s {
        wit::StopReason::Complete => core::StopReason::Complete,
        wit::StopReason::TokenLimit => core::StopReason::TokenLimit,
        wit::StopReason::Other => core::StopReason::Other,
    }
}

pub fn usage_in(u: wit::Usage) -> core::Usage {
    core::Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        reasoning_tokens: u.reasoning_tokens,
        cached_tokens: u.cached_tokens,
        cache_write_tokens: u.cache_write_tokens,
    }
}

pub fn failure_kind_in(k: wit::FailureKind) -> core::FailureKind {
    match k {
        wit::FailureKind::Timeout => core::FailureKind::Timeout,
        wit::FailureKind::RateLimited => core::FailureKind::RateLimited,
        wit::FailureKind::ProviderError => core::FailureKind::ProviderError,
        wit::FailureKind::Refused => core::FailureKind::Refused,
        wit::FailureKind::Cancelled => core::FailureKind::Cancelled,
        wit::FailureKind::Transport => core::FailureKind::Transport,
        wit::FailureKind::TokenLimit => core::FailureKind::TokenLimit,
    }
}

pub fn failure_kind(k: core::FailureKind) -> wit::FailureKind {
    match k {
        core::FailureKind::Timeout => wit::FailureKind::Timeout,
        core::FailureKind::RateLimited => wit::FailureKind::RateLimited,
        core::FailureKind::ProviderError => wit::FailureKind::ProviderError,
        core::FailureKind::Refused => wit::FailureKind::Refused,
        core::FailureKind::Cancelled => wit::FailureKind::Cancelled,
        core::FailureKind::Transport => wit::FailureKind::Transport,
        core::FailureKind::TokenLimit => wit::FailureKind::TokenLimit,
    }
}

fn phase(p: core::Phase) -> wit::Phase {
    match p {
        core::Phase::Blind => wit::Phase::Blind,
        core::Phase::Opening => wit::Phase::Opening,
        core::Phase::Deliberation => wit::Phase::Deliberation,
        core::Phase::CrossExam => wit::Phase::CrossExam,
        core::Phase::Rebuttal => wit::Phase::Rebuttal,
        core::Phase::Critique => wit::Phase::Critique,
        core::Phase::Response => wit::Phase::Response,
        core::Phase::Vote => wit::Phase::Vote,
        core::Phase::Ranking => wit::Phase::Ranking,
        core::Phase::Assumptions => wit::Phase::Assumptions,
        core::Phase::Single => wit::Phase::Single,
        core::Phase::Synthesis => wit::Phase::Synthesis,
        core::Phase::Summary => wit::Phase::Summary,
        core::Phase::Confirmation => wit::Phase::Confirmation,
    }
}

pub fn role(r: core::CouncilRole) -> wit::CouncilRole {
    wit::CouncilRole {
        role_id: r.role_id,
        role_name: r.role_name,
        model: r.model,
        participates_in_stage1: r.participates_in_stage1,
        participates_in_stage2: r.participates_in_stage2,
        participates_in_stage3: r.participates_in_stage3,
        stage1_instructions: r.stage1_instructions,
        stage2_instructions: r.stage2_instructions,
        stage3_instructions: r.stage3_instructions,
    }
}

pub fn output(o: core::Output) -> wit::Output {
    match o {
        core::Output::Request(r) => wit::Output::Request(request(r)),
        core::Output::Event(e) => wit::Output::Event(event(e)),
        core::Output::Idle => wit::Output::Idle,
        core::Output::Done(outcome) => wit::Output::Done(self::outcome(outcome)),
    }
}

fn request(r: core::ModelRequest) -> wit::ModelRequest {
    wit::ModelRequest {
        id: r.id,
        seat: r.seat,
        model: r.model,
        purpose: match r.purpose {
            core::Purpose::Turn => wit::Purpose::Turn,
            core::Purpose::Judge => wit::Purpose::Judge,
            core::Purpose::Summary => wit::Purpose::Summary,
            core::Purpose::Confirmation => wit::Purpose::Confirmation,
        },
        round: r.round,
        phase: phase(r.phase),
        messages: r
            .messages
            .into_iter()
            .map(|m| wit::Message {
                role: match m.role {
                    core::Role::System => wit::Role::System,
                    core::Role::User => wit::Role::User,
                    core::Role::Assistant => wit::Role::Assistant,
                },
                content: m.content,
            })
            .collect(),
        max_tokens: r.max_tokens,
        temperature: r.temperature,
        expect: r.expect,
        reasoning: r.reasoning.map(|q| wit::ReasoningRequest {
            effort: q.effort.map(|e| match e {
                core::Effort::Low => wit::Effort::Low,
                core::Effort::Medium => wit::Effort::Medium,
                core::Effort::High => wit::Effort::High,
            }),
            budget: q.budget,
            allowance: q.allowance,
        }),
        traits: r
            .traits
            .into_iter()
            .map(|(model, t)| {
                let traits = wit::ModelTraits {
                    reasoning: t.reasoning,
                    temperature: t.temperature,
                    context: t.context,
                    max_output: t.max_output,
                };
                (model, traits)
            })
            .collect(),
        cache_marks: r.cache_marks,
    }
}

pub fn outcome(o: core::Outcome) -> wit::Outcome {
    wit::Outcome {
        headline: o.headline().to_string(),
        synthesis_heading: o.kind.synthesis_heading().to_string(),
        kind: match o.kind {
            core::OutcomeKind::Completed => wit::OutcomeKind::Completed,
            core::OutcomeKind::Consensus => wit::OutcomeKind::Consensus,
            core::OutcomeKind::Degraded => wit::OutcomeKind::Degraded,
            core::OutcomeKind::JudgeFailed => wit::OutcomeKind::JudgeFailed,
            core::OutcomeKind::NoQuorum => wit::OutcomeKind::NoQuorum,
            core::OutcomeKind::CostLimit => wit::OutcomeKind::CostLimit,
        },
        reason: o.reason,
        rounds_run: o.rounds_run,
        failures: o
            .failures
            .into_iter()
            .map(|f| wit::FailureNote {
                speaker: f.speaker,
                round: f.round,
                phase: phase(f.phase),
                kind: failure_kind(f.kind),
                message: f.message,
            })
            .collect(),
    }
}

fn seat(s: core::SeatInfo) -> wit::SeatInfo {
    wit::SeatInfo { id: s.id, name: s.name, model: s.model }
}

fn event(e: core::Event) -> wit::DebateEvent {
    let json = e.to_json();
    use core::EventKind as K;
    let kind = match e.kind {
        K::DebateStarted { protocol, question, participants, judge, rounds, seed } => {
            wit::EventKind::DebateStarted(wit::DebateStarted {
                protocol,
                question,
                participants: participants.into_iter().map(seat).collect(),
                judge: judge.map(seat),
                rounds,
                seed,
            })
        }
        K::RoundStarted { round, phase: p, challenger } => {
            wit::EventKind::RoundStarted(wit::RoundStarted { round, phase: phase(p), challenger })
        }
        K::TurnStarted { id, round, phase: p, speaker, model, challenger } => {
            wit::EventKind::TurnStarted(wit::TurnStarted { id, round, phase: phase(p), speaker, model, challenger })
        }
        K::TurnCompleted { id, round, phase: p, speaker, challenger, text, usage } => {
            wit::EventKind::TurnCompleted(wit::TurnCompleted {
                id,
                round,
                phase: phase(p),
                speaker,
                challenger,
                text,
                usage: usage.map(usage_out),
            })
        }
        K::TurnFailed { id, round, phase: p, speaker, kind, message } => wit::EventKind::TurnFailed(wit::TurnFailed {
            id,
            round,
            phase: phase(p),
            speaker,
            kind: failure_kind(kind),
            message,
        }),
        K::ConsensusChecked(c) => wit::EventKind::ConsensusChecked(consensus_check(c)),
        K::RoundEnded { round, phase: p } => wit::EventKind::RoundEnded(wit::RoundEnded { round, phase: phase(p) }),
        K::JudgeStarted { id, speaker, model, heading } => {
            wit::EventKind::JudgeStarted(wit::JudgeStarted { id, speaker, model, heading })
        }
        K::ResultRecorded { name, value } => {
            wit::EventKind::ResultRecorded(wit::NamedResult { name, json: value.to_string() })
        }
        K::ChoiceMade { what, value } => wit::EventKind::ChoiceMade(wit::Choice { what, value }),
        K::Warning { speaker, round, phase: p, message } => {
            wit::EventKind::Warning(wit::WarningNote { speaker, round, phase: phase(p), message })
        }
        K::DebateEnded { outcome: o } => wit::EventKind::DebateEnded(outcome(o)),
    };
    wit::DebateEvent { seq: e.seq, kind, json }
}

fn consensus_check(c: core::ConsensusCheck) -> wit::ConsensusCheck {
    wit::ConsensusCheck {
        round: c.round,
        reached: c.reached,
        reason: c.reason,
        mode: match c.mode {
            core::ConsensusMode::Read => wit::ConsensusMode::Read,
            core::ConsensusMode::Declared => wit::ConsensusMode::Declared,
            core::ConsensusMode::Judge => wit::ConsensusMode::Judge,
            core::ConsensusMode::Answer => wit::ConsensusMode::Answer,
        },
        rule: c.rule,
        seats: c
            .seats
            .into_iter()
            .map(|s| wit::SeatStance {
                seat: s.seat,
                verdict: verdict(s.verdict),
                source: match s.source {
                    core::stance::Source::Declared => wit::StanceSource::Declared,
                    core::stance::Source::Read => wit::StanceSource::Read,
                    core::stance::Source::Judge => wit::StanceSource::Judge,
                    core::stance::Source::Answer => wit::StanceSource::Answer,
                },
                declared: s.declared.map(verdict),
                position: s.position,
                evidence: s.evidence.map(|e| wit::Evidence { quote: e.quote, start: e.start, end: e.end }),
                answer: s.answer,
            })
            .collect(),
        agreeing: c.agreeing,
        excluded: c.excluded,
        judge: c.judge.map(|j| wit::JudgeReview {
            confirmed: j.confirmed,
            position: j.position,
            holdouts: j.holdouts.into_iter().map(|h| wit::Holdout { seat: h.seat, why: h.why }).collect(),
            readable: j.readable,
        }),
        conflicts: c.conflicts.into_iter().map(|c| wit::PositionConflict { seats: c.seats, why: c.why }).collect(),
    }
}

fn verdict(v: core::stance::Verdict) -> wit::Verdict {
    match v {
        core::stance::Verdict::Agrees => wit::Verdict::Agrees,
        core::stance::Verdict::AgreesInPart => wit::Verdict::AgreesInPart,
        core::stance::Verdict::Conditional => wit::Verdict::Conditional,
        core::stance::Verdict::Disagrees => wit::Verdict::Disagrees,
        core::stance::Verdict::Silent => wit::Verdict::Silent,
        core::stance::Verdict::Unclear => wit::Verdict::Unclear,
    }
}

pub fn protocol_info(p: core::ProtocolInfo) -> wit::ProtocolInfo {
    wit::ProtocolInfo {
        name: p.name,
        summary: p.summary,
        default_rounds: p.default_rounds,
        max_rounds: p.max_rounds,
        round_unit: p.round_unit,
        min_seats: p.min_seats,
        max_seats: p.max_seats,
        sides: p.sides,
        options: p
            .options
            .into_iter()
            .map(|o| wit::OptionInfo {
                name: o.name.to_string(),
                kind: match o.kind {
                    core::OptionKind::Seat => wit::OptionKind::Seat,
                    core::OptionKind::Choice(words) => {
                        wit::OptionKind::Choice(words.iter().map(|w| w.to_string()).collect())
                    }
                    core::OptionKind::Flag => wit::OptionKind::Flag,
                    core::OptionKind::Text => wit::OptionKind::Text,
                    core::OptionKind::Texts => wit::OptionKind::Texts,
                    core::OptionKind::Data => wit::OptionKind::Data,
                },
                default: o.default.to_string(),
                help: o.help.into_owned(),
            })
            .collect(),
        reads_agreement: p.reads_agreement,
        seats_are_roles: p.seats_are_roles,
    }
}
