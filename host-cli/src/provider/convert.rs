//! The engine's WIT types and agon-core's, which the wire layer speaks:
//! conversion only.

use super::{CallError, Completion, Retry};
use crate::engine::wit;

/// A request as agon-wire takes it.
pub(super) fn request(r: &wit::ModelRequest) -> agon_core::ModelRequest {
    use agon_core::{Effort, Message, ModelTraits, ReasoningRequest, Role};
    agon_core::ModelRequest {
        id: r.id,
        seat: r.seat.clone(),
        model: r.model.clone(),
        // What the call is for does not change its wire form.
        purpose: agon_core::Purpose::Turn,
        round: r.round,
        phase: agon_core::Phase::Deliberation,
        messages: r
            .messages
            .iter()
            .map(|m| Message {
                role: match m.role {
                    wit::Role::System => Role::System,
                    wit::Role::User => Role::User,
                    wit::Role::Assistant => Role::Assistant,
                },
                content: m.content.clone(),
            })
            .collect(),
        max_tokens: r.max_tokens,
        temperature: r.temperature,
        expect: r.expect.clone(),
        reasoning: r.reasoning.map(|q| ReasoningRequest {
            effort: q.effort.map(|e| match e {
                wit::Effort::Low => Effort::Low,
                wit::Effort::Medium => Effort::Medium,
                wit::Effort::High => Effort::High,
            }),
            budget: q.budget,
            allowance: q.allowance,
        }),
        traits: r
            .traits
            .iter()
            .map(|(model, t)| {
                let traits = ModelTraits {
                    reasoning: t.reasoning,
                    temperature: t.temperature,
                    context: t.context,
                    max_output: t.max_output,
                };
                (model.clone(), traits)
            })
            .collect(),
        cache_marks: r.cache_marks.clone(),
    }
}

pub fn usage(u: agon_core::Usage) -> wit::Usage {
    wit::Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        reasoning_tokens: u.reasoning_tokens,
        cached_tokens: u.cached_tokens,
        cache_write_tokens: u.cache_write_tokens,
    }
}

pub fn stop(s: agon_core::StopReason) -> wit::StopReason {
    match s {
        agon_core::StopReason::Complete => wit::StopReason::Complete,
        agon_core::StopReason::TokenLimit => wit::StopReason::TokenLimit,
        agon_core::StopReason::Other => wit::StopReason::Other,
    }
}

pub fn failure_kind(k: agon_core::FailureKind) -> wit::FailureKind {
    use agon_core::FailureKind as K;
    match k {
        K::Timeout => wit::FailureKind::Timeout,
        K::RateLimited => wit::FailureKind::RateLimited,
        K::ProviderError => wit::FailureKind::ProviderError,
        K::Refused => wit::FailureKind::Refused,
        K::Cancelled => wit::FailureKind::Cancelled,
        K::Transport => wit::FailureKind::Transport,
        K::TokenLimit => wit::FailureKind::TokenLimit,
    }
}

/// The other way: what the engine's WIT says, as agon-wire takes it.
pub fn failure_kind_in(k: wit::FailureKind) -> agon_core::FailureKind {
    use agon_core::FailureKind as K;
    match k {
        wit::FailureKind::Timeout => K::Timeout,
        wit::FailureKind::RateLimited => K::RateLimited,
        wit::FailureKind::ProviderError => K::ProviderError,
        wit::FailureKind::Refused => K::Refused,
        wit::FailureKind::Cancelled => K::Cancelled,
        wit::FailureKind::Transport => K::Transport,
        wit::FailureKind::TokenLimit => K::TokenLimit,
    }
}

/// A failure this host met (the connection, a program) as the exchange takes it.
pub(super) fn wire_error(e: CallError) -> agon_wire::WireError {
    agon_wire::WireError {
        kind: failure_kind_in(e.kind),
        message: e.message,
        retry: match e.retry {
            Retry::No => agon_wire::Retry::No,
            Retry::Yes { after } => agon_wire::Retry::Yes { after_ms: after.map(|d| d.as_millis() as u64) },
        },
        usage: e.usage.map(usage_in),
        code: None,
    }
}

/// The exchange's failure as the engine takes it.
pub(super) fn call_error(e: agon_wire::WireError) -> CallError {
    CallError {
        kind: failure_kind(e.kind),
        message: e.message,
        retry: match e.retry {
            agon_wire::Retry::No => Retry::No,
            agon_wire::Retry::Yes { after_ms } => Retry::Yes { after: after_ms.map(std::time::Duration::from_millis) },
        },
        usage: e.usage.map(usage),
    }
}

/// A program's or the MCP client's answer as the exchange takes it.
pub(super) fn completion_in(c: Completion) -> agon_wire::Completion {
    let usage = c.usage.map(usage_in);
    let stop = c.stop.map(|s| match s {
        wit::StopReason::Complete => agon_core::StopReason::Complete,
        wit::StopReason::TokenLimit => agon_core::StopReason::TokenLimit,
        wit::StopReason::Other => agon_core::StopReason::Other,
    });
    agon_wire::Completion { text: c.text, usage, stop }
}

fn usage_in(u: wit::Usage) -> agon_core::Usage {
    agon_core::Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        reasoning_tokens: u.reasoning_tokens,
        cached_tokens: u.cached_tokens,
        cache_write_tokens: u.cache_write_tokens,
    }
}
