//! The engine's WIT types and agon-core's, which the wire layer speaks:
//! conversion only.

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
