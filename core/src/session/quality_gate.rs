//! The quality gate: a weak adversarial turn is asked again once, or noted.

use super::Session;
use crate::debate::Answer;
use crate::quality;
use crate::transcript::Warning;
use crate::{EventKind, QualityGate};

impl Session {
    /// Check the batch just completed against the quality gate. Returns true
    /// when it released regenerated turns (the protocol then waits for them).
    pub(super) fn quality_gate(&mut self) -> bool {
        let gate = self.debate.spec.limits.quality_gate;
        let pending: Vec<usize> = self.retry.keys().copied().collect();
        let mut regenerate = Vec::new();
        for index in pending {
            let call = self.retry.remove(&index).expect("present");
            let record = &self.debate.records[index];
            let Some(Answer::Text { text, .. }) = &record.answer else { continue };
            let Some(reason) = quality::pulls_punches(text) else { continue };
            let speaker = Some(self.seat_id(record.slot.seat).to_string());
            let (round, phase) = (record.slot.round, record.slot.phase);
            let message = match gate {
                QualityGate::Regenerate => format!("adversarial turn asked again: {reason}"),
                _ => format!("adversarial turn kept although it {reason}"),
            };
            self.warnings.push(Warning { speaker: speaker.clone(), round, phase, message: message.clone() });
            self.emit(EventKind::Warning { speaker, round, phase, message });
            if gate == QualityGate::Regenerate {
                self.debate.records[index].superseded = true;
                regenerate.push((call, reason));
            }
        }
        for (mut call, reason) in regenerate {
            if self.affordable(std::slice::from_ref(&call)).is_err() {
                let (round, phase) = (call.slot.round, call.slot.phase);
                let speaker = Some(self.seat_id(call.slot.seat).to_string());
                let message = "not asked again: a second answer could pass the cost limit".to_string();
                self.warnings.push(Warning { speaker: speaker.clone(), round, phase, message: message.clone() });
                self.emit(EventKind::Warning { speaker, round, phase, message });
                // Keep the first answer after all.
                if let Some(r) = self.debate.records.iter_mut().rev().find(|r| r.slot == call.slot && r.superseded) {
                    r.superseded = false;
                }
                continue;
            }
            call.quality_gate = false; // once only
            call.prompt.after.push_str(&format!(
                "\n\nYour previous answer to this was rejected because it {reason}. \
                 Answer again as the adversary: state plainly what is wrong and why, with no softening."
            ));
            self.release(call);
        }
        self.debate.records.iter().any(|r| r.answer.is_none())
    }
}
