//! Summaries: when history no longer fits the context budget, a summary of
//! the earlier rounds is asked for once, and later prompts use it.

use super::Session;
use crate::budget;
use crate::debate::{Seat, Slot};
use crate::plan::PlannedCall;
use crate::prompt_kit::{self, HistoryEntry, Prompt};
use crate::{Phase, Purpose};

impl Session {
    /// The last round a summary should cover, when a planned prompt would
    /// otherwise lose history to the budget and older rounds are unsummarized.
    pub(super) fn summary_needed(&self, calls: &[PlannedCall]) -> Option<u32> {
        let budget = self.debate.spec.limits.context_budget?;
        let summary = self.debate.latest_summary();
        let covers = calls
            .iter()
            .filter(|c| budget::render(&c.prompt, Some(budget), summary).omitted > 0)
            .filter_map(|c| {
                let newest = c.prompt.history.iter().map(|e| e.round).max()?;
                // Everything before the newest round: complete rounds only.
                c.prompt.history.iter().map(|e| e.round).filter(|&r| r < newest).max()
            })
            .max()?;
        let already = summary.map_or(0, |(k, _)| k);
        (covers > already && !self.debate.summary_attempted(covers)).then_some(covers)
    }

    pub(super) fn release_summary(&mut self, covers: u32) {
        let spec = &self.debate.spec;
        let seat = if spec.judge.is_some() {
            Seat::Judge
        } else {
            Seat::Panel(self.debate.active_seats().first().copied().unwrap_or(0))
        };
        let history: Vec<HistoryEntry> =
            prompt_kit::entries(&self.debate, |s| s.round <= covers, |s| prompt_kit::label(&self.debate, s));
        let budget = spec.limits.context_budget.unwrap_or(u32::MAX);
        let words = (budget / 4).clamp(100, 600);
        let prompt = Prompt {
            system: "You keep the record of a council debate. Summarize faithfully and neutrally; \
                     invent nothing and take no side."
                .to_string(),
            before: prompt_kit::question(&self.debate),
            history,
            history_title: "THE DEBATE SO FAR".into(),
            after: format!(
                "Summarize rounds 1 to {covers} for the participants who will continue the debate, in at most \
                 {words} words: each speaker's position and strongest arguments, what they agree on, and \
                 what is still disputed. Plain prose, no preamble."
            ),
        };
        let call = PlannedCall {
            slot: Slot { seat, purpose: Purpose::Summary, round: covers, phase: Phase::Summary, challenger: false },
            prompt,
            max_tokens: spec.limits.max_tokens.min(words * 2),
            expect: None,
            quality_gate: false,
        };
        if let Err(ending) = self.affordable(std::slice::from_ref(&call)) {
            return self.finish(ending);
        }
        self.release(call);
        let index = self.debate.records.len() - 1;
        self.debate.records[index].covers_round = covers;
    }
}
