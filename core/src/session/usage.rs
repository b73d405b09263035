//! Usage: tokens and cost per seat, reported or estimated.

use super::Session;
use crate::cost;
use crate::debate::{Answer, Seat};

impl Session {
    /// Tokens and cost per seat so far: reported usage, or estimates where a provider gave none.
    pub fn usage(&self) -> cost::UsageReport {
        let spec = &self.debate.spec;
        let mut report = cost::UsageReport::default();
        for r in &self.debate.records {
            let tokens = match &r.answer {
                None => continue,
                Some(Answer::Text { usage: Some(u), .. }) => cost::CallTokens::reported(u),
                // No usage: no cache hit is assumed either, so the estimate
                // errs high, as estimates of spending should.
                Some(Answer::Text { text, usage: None, .. }) => cost::CallTokens {
                    prompt: r.prompt_tokens as u64,
                    completion: crate::estimate_tokens(text) as u64,
                    estimated: true,
                    ..cost::CallTokens::default()
                },
                // A failed call the provider still billed (a reasoning model
                // that thought past its budget) counts as billed.
                Some(Answer::Failed { usage: Some(u), .. }) => cost::CallTokens::reported(u),
                // Any other failed call is counted, with no tokens: nothing came back to count.
                Some(Answer::Failed { usage: None, .. }) => cost::CallTokens::default(),
            };
            let model = match r.slot.seat {
                Seat::Panel(i) => &spec.panel[i].model,
                Seat::Judge => &spec.judge.as_ref().expect("a judge record has a judge").model,
            };
            // A chain's reply costs what the model that answered charges.
            let answered = match &r.answer {
                Some(Answer::Text { model: Some(m), .. }) => Some(m.as_str()),
                _ => None,
            };
            report.add(spec, self.seat_id(r.slot.seat), model, answered, tokens);
        }
        report.finish()
    }
}
