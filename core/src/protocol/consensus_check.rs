//! `consensus-check` (seed 002), done as documented: round-robin turns, and
//! after each round a convergence check that really ends the debate early —
//! every speaker stood down ("stress-tested") or declared consensus, and no
//! one raised a disagreement. The original never stopped before maxRounds.

use super::sequential::{RoundPolicy, Sequential};
use super::{EndKind, Ending, Note, Prompt, round_robin};
use crate::debate::Debate;
use crate::{ConsensusCheck, Phase, consensus};

pub(crate) fn create() -> Sequential<Policy> {
    Sequential::new(Policy)
}

#[derive(Clone)]
pub(crate) struct Policy;

/// How to stand down. Output: prose; the phrase only when the speaker has no new objection.
const STAND_DOWN: &str = "\n\nIf you have stress-tested the positions on the table and have no new objection, \
say that the position is stress-tested and state the position you accept in one sentence. \
If you do have an objection, state it plainly as a disagreement.";

impl RoundPolicy for Policy {
    fn turn_prompt(&self, debate: &Debate, seat: usize, round: u32, _adversary: bool) -> Prompt {
        round_robin::named_turn_prompt(debate, seat, round, STAND_DOWN)
    }

    fn judge_prompt(&self, debate: &Debate) -> Prompt {
        round_robin::judge_prompt(debate)
    }

    fn after_round(&self, debate: &Debate, round: u32, notes: &mut Vec<Note>) -> Option<Ending> {
        let replies: Vec<(&str, &str)> = (0..debate.spec.panel.len())
            .filter_map(|s| debate.text(s, round, Phase::Deliberation).map(|t| (debate.seat(s).id.as_str(), t)))
            .collect();
        let mut agreeing = Vec::new();
        let mut dissent = Vec::new();
        for (id, text) in &replies {
            match consensus::stance(text) {
                consensus::Stance::Disagrees => dissent.push(id.to_string()),
                s if s.is_agreement() || consensus::stands_down(text) => agreeing.push(id.to_string()),
                _ => {}
            }
        }
        let needed = replies.len() as u32;
        let reached = !replies.is_empty() && agreeing.len() == replies.len() && dissent.is_empty();
        let reason = if reached {
            format!("all {} speakers stood down or declared consensus, and no new disagreement", replies.len())
        } else if !dissent.is_empty() {
            format!("{} agreeing of {}; new disagreement from {}", agreeing.len(), replies.len(), dissent.join(", "))
        } else {
            format!("{} of {} stood down or declared consensus; all are needed", agreeing.len(), replies.len())
        };
        notes.push(Note::Consensus(ConsensusCheck {
            round,
            reached,
            reason: reason.clone(),
            counted: replies.iter().map(|(id, _)| id.to_string()).collect(),
            agreeing,
            excluded: None,
            needed,
        }));
        reached.then(|| Ending {
            kind: EndKind::Consensus,
            reason: format!("consensus in round {round} of {}: {reason}", debate.spec.rounds()),
            rounds_run: round,
        })
    }
}
