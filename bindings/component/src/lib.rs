//! The `agon:debate` component: agon-core behind the WIT interface.
//!
//! Conversion only. Every decision is made in agon-core; this crate turns its
//! Rust types into WIT types and back. Built for wasm32-unknown-unknown and
//! wrapped with wit-component, it imports nothing. Rendering and evaluation
//! reports are the report component's (`bindings/report`), so that a host
//! which only runs debates loads the engine alone.

mod convert;
mod wire;

use std::cell::RefCell;

use exports::agon::debate::engine::{Guest, GuestSession, Session};
use exports::agon::debate::types::{
    BatchResultsRepair, BatchRetry, CostEstimate, CostSummary, CouncilRole, Error, Input, Outcome, Output,
    ProtocolInfo, RequestId, UnpricedSeat,
};

wit_bindgen::generate!({
    path: "../../wit",
    world: "debate-engine",
    // `poll-json` writes outputs in the WIT's own shape.
    additional_derives: [serde::Serialize],
});

struct Engine;

/// One debate; the WIT resource owns the core session.
struct SessionResource {
    inner: RefCell<agon_core::Session>,
}

impl SessionResource {
    fn wrap(session: agon_core::Session) -> Session {
        Session::new(SessionResource { inner: RefCell::new(session) })
    }
}

impl Guest for Engine {
    type Session = SessionResource;

    fn build_spec(request_json: String) -> Result<String, Error> {
        agon_core::SpecRequest::from_json(&request_json)
            .and_then(agon_core::build_spec)
            .map(|spec| spec.to_json())
            .map_err(convert::error)
    }

    fn validate_spec(spec_json: String) -> Result<String, Error> {
        let spec = agon_core::DebateSpec::from_json(&spec_json).map_err(convert::error)?;
        Ok(spec.to_json())
    }

    fn estimate(spec_json: String) -> Result<CostEstimate, Error> {
        let spec = agon_core::DebateSpec::from_json(&spec_json).map_err(convert::error)?;
        let e = agon_core::worst_case(&spec);
        Ok(CostEstimate {
            calls: e.calls,
            prompt_tokens: e.prompt_tokens,
            completion_tokens: e.completion_tokens,
            cost_micro_usd: e.cost_micro_usd.map(|c| c.0),
            unpriced: e.unpriced,
        })
    }

    fn protocols() -> Vec<ProtocolInfo> {
        agon_core::protocols().into_iter().map(convert::protocol_info).collect()
    }

    fn version() -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }

    fn parse_role(text: String) -> Result<CouncilRole, Error> {
        agon_core::parse_role(&text).map(convert::role).map_err(convert::error)
    }

    fn builtin_roles() -> Vec<String> {
        agon_core::BUILTIN_ROLE_FILES.iter().map(|f| f.to_string()).collect()
    }

    fn protocol_documents() -> Vec<(String, String)> {
        agon_core::BUILTIN_DOCUMENTS.iter().map(|(name, text)| (name.to_string(), text.to_string())).collect()
    }

    fn check_document(document_json: String) -> Result<String, Error> {
        agon_core::check_document(&document_json).map_err(convert::error)
    }

    fn document_info(document_json: String) -> Result<ProtocolInfo, Error> {
        agon_core::document_info(&document_json).map(convert::protocol_info).map_err(convert::error)
    }

    fn batch_result_line(id: String, question: String, transcript_json: String) -> Option<String> {
        agon_core::batch::result_line(&id, &question, &transcript_json)
    }

    fn batch_error_line(id: String, question: String, error: String) -> String {
        agon_core::batch::error_line(&id, &question, &error)
    }

    fn repair_batch_results(contents: Vec<u8>, keep_errors: bool) -> BatchResultsRepair {
        let r = agon_core::batch::repair(&contents, keep_errors);
        BatchResultsRepair {
            finished: r.finished,
            torn_at: r.torn_at.map(|at| at as u64),
            newline_missing: r.newline_missing,
            retry: r.retry.map(|r| BatchRetry { error_lines: r.error_lines, kept_lines: r.kept_lines }),
        }
    }
}

impl GuestSession for SessionResource {
    fn create(spec_json: String) -> Result<Session, Error> {
        agon_core::Session::from_spec_json(&spec_json).map(SessionResource::wrap).map_err(convert::error)
    }

    fn from_journal(journal: String) -> Result<Session, Error> {
        agon_core::Session::from_journal(&journal).map(SessionResource::wrap).map_err(convert::error)
    }

    fn poll(&self) -> Output {
        convert::output(self.inner.borrow_mut().poll())
    }

    fn poll_json(&self) -> String {
        let mut session = self.inner.borrow_mut();
        let mut outputs = Vec::new();
        loop {
            let output = convert::output(session.poll());
            let last = matches!(output, Output::Idle | Output::Done(_));
            outputs.push(output);
            if last {
                break;
            }
        }
        serde_json::to_string(&outputs).expect("outputs are plain data")
    }

    fn handle(&self, input: Input) -> Result<String, Error> {
        let input = convert::input(input);
        let line = agon_core::journal::entry(&input);
        self.inner.borrow_mut().handle(input).map_err(convert::error)?;
        Ok(line)
    }

    fn replay_line(&self, number: u32, line: String) -> Result<(), Error> {
        self.inner.borrow_mut().replay_line(number as usize, &line).map_err(convert::error)
    }

    fn journal(&self) -> String {
        self.inner.borrow().journal()
    }

    fn outstanding(&self) -> Vec<RequestId> {
        self.inner.borrow().outstanding().collect()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.inner.borrow().outcome().cloned().map(convert::outcome)
    }

    fn transcript_json(&self) -> String {
        self.inner.borrow().transcript().to_json()
    }

    fn cost_summary(&self) -> CostSummary {
        let c = self.inner.borrow().usage().cost_summary();
        CostSummary {
            cost_micro_usd: c.cost_micro_usd.map(|c| c.0),
            unpriced: c.unpriced.into_iter().map(|u| UnpricedSeat { seat: u.seat, model: u.model }).collect(),
            estimated_calls: c.estimated_calls,
        }
    }

    fn spec_json(&self) -> String {
        self.inner.borrow().spec().to_json()
    }

    fn replay_note(&self) -> Option<String> {
        self.inner.borrow().replay_note().map(str::to_string)
    }
}

// Exported only where it is a component: a native cdylib cannot carry
// export names like `agon:debate/engine@0.1.0#…` (`cargo build --workspace`).
#[cfg(target_arch = "wasm32")]
export!(Engine);
