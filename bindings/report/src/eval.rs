//! Evaluation values between agon-core's types and the WIT's.

use crate::exports::agon::debate::types::{EvalArm, EvalDataset, EvalItem, EvalPicture, EvalReport, EvalScoring};

pub fn arms(arms: &[EvalArm]) -> Vec<agon_core::eval::Arm<'_>> {
    use agon_core::eval::{Arm, Scoring};
    arms.iter()
        .map(|a| Arm {
            name: &a.name,
            results: &a.results,
            scoring: match a.scoring {
                EvalScoring::Vote => Scoring::Vote,
                EvalScoring::Judge => Scoring::Judge,
            },
        })
        .collect()
}

pub fn report(r: agon_core::eval::Report) -> EvalReport {
    let pictures = r.pictures.into_iter().map(|p| EvalPicture { file: p.file.into(), svg: p.svg }).collect();
    EvalReport { markdown: r.markdown, json: r.json, items: r.items, pictures }
}

pub fn dataset(items: &[agon_core::eval::Item], skipped: Vec<String>) -> EvalDataset {
    EvalDataset {
        items: items
            .iter()
            .map(|i| EvalItem {
                id: i.id.clone(),
                question: i.prompt(),
                context: i.context.clone(),
                answer_json: serde_json::to_string(&i.answer_spec()).expect("serializes"),
            })
            .collect(),
        skipped,
        canonical: items.iter().map(|i| i.to_line() + "\n").collect(),
    }
}
