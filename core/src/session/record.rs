//! The session's record for readers: the transcript and its Markdown.

use super::{Session, seat_info};
use crate::debate::{Answer, Seat};
use crate::transcript::SummaryNote;
use crate::{Purpose, Synthesis, TRANSCRIPT_VERSION, Transcript, Turn};

impl Session {
    /// The debate as it stands: complete once the outcome is set.
    pub fn transcript(&self) -> Transcript {
        let spec = &self.debate.spec;
        let mut turns = Vec::new();
        let mut synthesis = None;
        let mut summaries = Vec::new();
        for record in &self.debate.records {
            let Some(Answer::Text { text, usage, cut, model }) = &record.answer else { continue };
            if record.superseded {
                continue;
            }
            match (record.slot.seat, record.slot.purpose) {
                // The judge's consensus confirmations live in the consensus records.
                (_, Purpose::Confirmation) => {}
                (seat, Purpose::Summary) => summaries.push(SummaryNote {
                    covers_round: record.covers_round,
                    speaker: self.seat_id(seat).to_string(),
                    text: text.clone(),
                }),
                (Seat::Panel(i), _) => turns.push(Turn {
                    round: record.slot.round,
                    phase: record.slot.phase,
                    speaker: spec.panel[i].id.clone(),
                    model: spec.panel[i].model.clone(),
                    challenger: record.slot.challenger,
                    text: text.clone(),
                    usage: *usage,
                    cut: *cut,
                    answered_by: model.clone(),
                }),
                (Seat::Judge, _) => {
                    let judge = spec.judge.as_ref().expect("judge calls need a judge");
                    synthesis = Some(Synthesis {
                        speaker: judge.id.clone(),
                        model: judge.model.clone(),
                        text: text.clone(),
                        usage: *usage,
                        cut: *cut,
                        answered_by: model.clone(),
                    });
                }
            }
        }
        Transcript {
            version: TRANSCRIPT_VERSION,
            protocol: spec.protocol.name().to_string(),
            question: spec.question.clone(),
            context: spec.context.clone(),
            files: spec.files.iter().map(crate::ContextFile::record).collect(),
            parent: spec.parent.as_ref().map(|p| p.record(crate::parent::limit(spec.limits.context_budget))),
            seed: spec.seed,
            blind: spec.blind,
            participants: spec.panel.iter().map(seat_info).collect(),
            judge: spec.judge.as_ref().map(seat_info),
            turns,
            consensus: self.consensus.clone(),
            choices: self.choices.clone(),
            summaries,
            warnings: self.warnings.clone(),
            results: self.results.clone(),
            synthesis,
            outcome: self.outcome.clone(),
            usage: self.usage(),
        }
    }

    /// The transcript as Markdown.
    pub fn markdown(&self) -> String {
        crate::render::markdown(&self.transcript())
    }

    /// The named results alone, as Markdown ([`crate::results_markdown`]).
    pub fn results_markdown(&self) -> String {
        crate::render::results_markdown(&self.transcript())
    }

    /// The session as an Architecture Decision Record ([`crate::adr_markdown`]).
    pub fn adr_markdown(&self) -> String {
        crate::render::adr::adr_markdown(&self.transcript())
    }
}
