//! The most a document can ask for with a spec, from the two alone: every
//! phase that may run in each round, each part at its largest speaker set.
//! Early stops, failures and benched seats only ever ask for less.

use super::Document;
use super::phases::Adversarial;
use super::speakers::Speakers;
use super::templates::Slot;
use crate::plan::Bounds;
use crate::tokens::{ENTRY_TOKENS, TEMPLATE_TOKENS};
use crate::{ConsensusMode, DebateSpec, estimate_tokens};

pub(crate) fn bounds(doc: &Document, spec: &DebateSpec) -> Bounds {
    let n = spec.panel.len() as u32;
    let rounds = spec.rounds();
    let (mut turns, mut gated, mut per_seat, mut gated_per_seat) = (0, 0, 0, 0);
    // Every part heard from every seat: the turns are passes of the panel.
    let mut passes = true;
    for round in 1..=rounds {
        let phases = doc.phases.iter().filter(|p| p.runs_in(round, rounds));
        for part in phases.flat_map(|p| &p.turns).filter(|t| t.when.holds(round, rounds)) {
            passes &= part.speakers == Speakers::Each;
            let speakers = match part.speakers {
                // Those who answered the phase before are at most every seat.
                Speakers::Each | Speakers::Answered => n,
                Speakers::Others => n.saturating_sub(1),
                Speakers::Adversary | Speakers::Seat(_) | Speakers::Role(_) => 1,
            };
            turns += speakers;
            // Whoever speaks in a part speaks once in it.
            per_seat += (speakers > 0) as u32;
            if part.adversarial == Adversarial::Gated {
                gated += speakers;
                gated_per_seat += (speakers > 0) as u32;
            }
        }
    }
    let confirmations = if spec.consensus_mode() == Some(ConsensusMode::Judge) { rounds } else { 0 };
    let synthesis = (spec.judge.is_some() && doc.aggregate.synthesis.is_some()) as u32;
    Bounds {
        turns,
        gated,
        judge: synthesis + confirmations,
        rounds,
        per_seat: per_seat.min(turns),
        gated_per_seat: gated_per_seat.min(gated),
        passes,
    }
}

/// Tokens a document's prompts may add beyond what the cost bound already
/// counts for every prompt (fixed text up to [`TEMPLATE_TOKENS`], the
/// question, the context, one persona): its largest prompt, every slot at
/// its largest, less that. A `{phase.field}` slot shows each seat's reply
/// once more; `{history}` is counted by the bound's per-reply ceiling.
pub(crate) fn prompt_tokens(doc: &Document, spec: &DebateSpec) -> u64 {
    let tokens = |s: &str| estimate_tokens(s) as u64;
    let question = tokens(&spec.question);
    // `{context}` shows the files after the context, as `{question}` does.
    let context = spec.context.as_deref().map_or(0, |c| 2 * tokens(c))
        + crate::files::prompt_tokens(&spec.files)
        + tokens(&spec.parent_frame());
    let people = || spec.panel.iter().chain(&spec.judge);
    // The persona's text and its heading, and the domain's paragraph.
    let domain = |p: &crate::Participant| tokens(&crate::prompt_kit::domain(p));
    let persona = people().map(|p| p.persona.as_deref().map_or(0, |t| tokens(t) + 8) + domain(p)).max().unwrap_or(0);
    let name = people().map(|p| tokens(&p.name).max(4)).max().unwrap_or(0);
    let role = doc.phases.iter().flat_map(|p| &p.turns).map(|t| tokens(&t.role)).max().unwrap_or(0);
    let field = spec.panel.len() as u64 * (2 * spec.limits.max_tokens as u64 + ENTRY_TOKENS);
    let slot = |s: &Slot| match s {
        Slot::Question => question + context + 16,
        Slot::Context => context,
        Slot::Persona => persona,
        Slot::Label | Slot::Adversary => name,
        Slot::Role => role,
        Slot::Round | Slot::Rounds | Slot::Seats => 4,
        Slot::Stance => 64,
        // Every open claim quoted, with its id, raiser and attackers.
        Slot::Claims => {
            let per_claim = (crate::ledger::TEXT_CHARS as u64).div_ceil(4) + 16 + name * spec.panel.len() as u64;
            spec.panel.len() as u64 * crate::ledger::MAX_CLAIMS_PER_SEAT as u64 * per_claim + 32
        }
        Slot::History => 0,
        Slot::Field { .. } => field,
    };
    let prompts = doc
        .phases
        .iter()
        .flat_map(|p| &p.turns)
        .map(|t| &t.prompt)
        .chain(doc.aggregate.synthesis.as_ref().map(|s| &s.prompt));
    let largest = prompts
        .map(|p| {
            // `first` replaces `user`: the larger of the two counts.
            let user = |t: &super::templates::Template| {
                t.literal_chars().div_ceil(4) as u64 + t.slots().map(slot).sum::<u64>()
            };
            user(&p.system) + user(&p.user).max(p.first.as_ref().map_or(0, user))
        })
        .max()
        .unwrap_or(0);
    largest.saturating_sub(TEMPLATE_TOKENS + question + context + persona)
}
