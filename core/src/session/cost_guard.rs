//! The spending guard: no batch is released whose worst case would pass `max_cost`.

use super::Session;
use crate::Purpose;
use crate::budget;
use crate::cost;
use crate::debate::Seat;
use crate::plan::{EndKind, Ending, PlannedCall};

impl Session {
    /// Whether `calls` fit under the spending limit at their worst: what was
    /// spent so far (cache reads at their own rate, as billed), plus each
    /// call's rendered prompt with no cache hit and full `max_tokens` (and
    /// the thinking a reasoning model may add) at its model's price. If not,
    /// the ending that says so.
    pub(super) fn affordable(&self, calls: &[PlannedCall]) -> Result<(), Ending> {
        let spec = &self.debate.spec;
        let Some(limit) = spec.max_cost.map(cost::Usd::from_dollars) else { return Ok(()) };
        let spent = self.usage().spent();
        let mut worst = cost::Usd(0);
        for call in calls {
            let seat = match call.slot.seat {
                Seat::Panel(i) => &spec.panel[i],
                Seat::Judge => spec.judge.as_ref().expect("validated plan"),
            };
            let Some(price) = cost::price_of(spec, &seat.model) else { continue };
            let thinking = crate::reasoning::request_for(&seat.model, seat.reasoning, &spec.models, call.max_tokens)
                .map_or(0, |r| r.allowance);
            let rendered = budget::render(&call.prompt, spec.limits.context_budget, self.debate.latest_summary());
            let prompt: u64 = rendered.messages.iter().map(|m| crate::estimate_tokens(&m.content) as u64).sum();
            worst.0 += cost::bound(price, prompt, call.max_tokens as u64 + thinking as u64).0;
        }
        if spent.0 + worst.0 <= limit.0 {
            return Ok(());
        }
        let what = match calls.first().map(|c| c.slot) {
            Some(s) if s.purpose == Purpose::Judge => "the judge's synthesis".to_string(),
            Some(s) if s.purpose == Purpose::Summary => "a summary of the earlier rounds".to_string(),
            Some(s) if s.purpose == Purpose::Confirmation => "the judge's consensus confirmation".to_string(),
            Some(s) => format!("{} call(s) of {} round {}", calls.len(), s.phase.as_str(), s.round),
            None => "nothing".to_string(),
        };
        let rounds_run = self.debate.records.iter().filter(|r| r.answer.is_some()).map(|r| r.slot.round).max();
        Err(Ending {
            kind: EndKind::CostLimit,
            reason: format!(
                "stopped at the cost limit of {}: {} spent, and {what} could cost up to {} more; every answer so far is kept",
                limit.display(),
                spent.display(),
                worst.display()
            ),
            rounds_run: rounds_run.unwrap_or(0),
        })
    }
}
