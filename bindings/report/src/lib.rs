//! The `agon:debate` report component: what a debate becomes for people to
//! read (Markdown, the decision record, an HTML page, pictures) and
//! evaluation reports, apart from the engine component so that a host which
//! only runs debates does not load them.
//!
//! Conversion only, as in the engine's component: agon-core renders and
//! scores, agon-html writes the page. Built for wasm32-unknown-unknown and
//! wrapped with wit-component, it imports nothing.

mod eval;

use exports::agon::debate::report::Guest;
use exports::agon::debate::types::{EvalArm, EvalDataset, EvalReport};

wit_bindgen::generate!({
    path: "../../wit",
    world: "debate-report",
});

struct Report;

fn transcript(json: &str) -> Result<agon_core::Transcript, String> {
    agon_core::Transcript::from_json(json)
}

impl Guest for Report {
    fn transcript_markdown(transcript_json: String) -> Result<String, String> {
        transcript(&transcript_json).map(|t| agon_core::markdown(&t))
    }

    fn results_markdown(transcript_json: String) -> Result<String, String> {
        transcript(&transcript_json).map(|t| agon_core::results_markdown(&t))
    }

    fn adr_markdown(transcript_json: String) -> Result<String, String> {
        transcript(&transcript_json).map(|t| agon_core::adr_markdown(&t))
    }

    fn html_page(transcript_json: String, timings_ndjson: String) -> Result<String, String> {
        let t = transcript(&transcript_json)?;
        let mut pictures = agon_core::picture::pictures(&t);
        let timings = agon_core::picture::timings_from_ndjson(&timings_ndjson);
        if let Some(svg) = agon_core::picture::timeline(&timings, &t.question) {
            pictures.push((agon_core::picture::TIMELINE_FILE.to_string(), svg));
        }
        Ok(agon_html::session_page(&t, &agon_core::results_markdown(&t), &pictures))
    }

    fn pictures(transcript_json: String) -> Result<Vec<(String, String)>, String> {
        transcript(&transcript_json).map(|t| agon_core::picture::pictures(&t))
    }

    fn inert_markdown(markdown: String) -> String {
        agon_core::inert_markdown(&markdown)
    }

    fn timeline_svg(timings_ndjson: String, question: String) -> Option<String> {
        agon_core::picture::timeline(&agon_core::picture::timings_from_ndjson(&timings_ndjson), &question)
    }

    fn score_eval(name: String, dataset: String, arms: Vec<EvalArm>) -> EvalReport {
        eval::report(agon_core::eval::report(&name, &dataset, &eval::arms(&arms)))
    }

    fn score_eval_with(
        name: String,
        dataset: String,
        arms: Vec<EvalArm>,
        options: String,
    ) -> Result<EvalReport, String> {
        let options = agon_core::eval::Options::from_json(&options)?;
        Ok(eval::report(agon_core::eval::report_with(&name, &dataset, &eval::arms(&arms), &options)))
    }

    fn eval_vote_document() -> String {
        agon_core::eval::VOTE_DOCUMENT.to_string()
    }

    fn read_eval_dataset(dataset: String) -> EvalDataset {
        let (items, skipped) = agon_core::eval::dataset::read(&dataset);
        eval::dataset(&items, skipped)
    }

    fn read_eval_dataset_as(dataset: String, format: String) -> Result<EvalDataset, String> {
        let format = agon_core::eval::Format::from_json(&format)?;
        let (items, skipped) = agon_core::eval::dataset::read_as(&dataset, &format)?;
        Ok(eval::dataset(&items, skipped))
    }

    fn eval_settings_line(spec: String) -> Result<String, String> {
        agon_core::eval::settings_line(&spec)
    }
}

// Exported only where it is a component: a native cdylib cannot carry
// export names like `agon:debate/report@0.1.0#…` (`cargo build --workspace`).
#[cfg(target_arch = "wasm32")]
export!(Report);
