//! The agon component, embedded and run with wasmtime.
//!
//! The component is compiled when agon is built (`build.rs`), for the
//! target's baseline CPU and for Pulley, wasmtime's portable interpreter.
//! A run only deserializes it: no compiler ships in the binary, nothing is
//! compiled or cached at run time. On Linux the native code is used where it
//! lies in the binary's file, not copied (`mapped_code`).

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use wasmtime::component::{Component, Linker, ResourceAny};
use wasmtime::{Config, Engine, Store};

use crate::mapped_code::{self, PageAligned};

// The WIT: the workspace's, or the copy a packed crate carries (build/component.rs).
#[cfg(not(agon_bundled))]
wasmtime::component::bindgen!({
    path: "../wit",
    world: "debate-engine",
    // Serialize: tests compare `poll-json` with what `poll` gives, value for value.
    additional_derives: [PartialEq, serde::Serialize],
});
#[cfg(agon_bundled)]
wasmtime::component::bindgen!({
    path: "bundled/wit",
    world: "debate-engine",
    additional_derives: [PartialEq, serde::Serialize],
});

pub use exports::agon::debate::types as wit;

/// The component this binary carries, built by `build.rs`, deflated: a run
/// never needs it (it runs the compiled forms below); `agon component` does.
const COMPONENT_DEFLATED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/agon.wasm.deflate"));

/// The component this binary carries, inflated.
pub fn component() -> Vec<u8> {
    miniz_oxide::inflate::decompress_to_vec(COMPONENT_DEFLATED)
        .expect("build.rs deflated the component this binary carries")
}

/// [`component`] compiled by `build.rs` for this target's baseline CPU; page
/// aligned, so that it can be mapped from the executable file where it lies.
static NATIVE: &PageAligned<[u8]> = &PageAligned(*include_bytes!(concat!(env!("OUT_DIR"), "/agon.native.cwasm")));

/// [`component`] compiled by `build.rs` for Pulley, the fallback; deflated,
/// since a run on a CPU that takes the native code never needs it.
const PORTABLE_DEFLATED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/agon.pulley.cwasm.deflate"));

/// Which of the two compiled forms to run, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// Machine code for this CPU, used where it lies in agon's own file
    /// (Linux): what every run uses when it can.
    Native,
    /// The same machine code, copied into fresh memory: where the file cannot be mapped.
    NativeCopied,
    /// Pulley bytecode, interpreted: slower, but runs wherever wasmtime does.
    Portable,
}

/// A loaded engine: one store, one instance of the component.
pub struct Runtime {
    store: Store<()>,
    bindings: DebateEngine,
}

/// A debate inside the component.
pub struct Council<'r> {
    runtime: &'r mut Runtime,
    session: ResourceAny,
}

/// An error the engine reported, as one line.
#[derive(Debug, Clone)]
pub struct EngineError(pub wit::Error);

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for EngineError {}

impl Runtime {
    /// Load the embedded component: its native code, or, if this CPU or this
    /// wasmtime refuses that, its portable code (with a warning). A process
    /// loads it once: later runtimes (`agon mcp`'s tool calls, `agon batch`'s
    /// workers) share it and only instantiate it.
    pub fn load() -> Result<Runtime> {
        static LOADED: std::sync::Mutex<Option<(Engine, Component)>> = std::sync::Mutex::new(None);
        let mut loaded = LOADED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (engine, component) = match &*loaded {
            Some(pair) => pair.clone(),
            None => {
                let native = compiled(Code::Native).or_else(|_| compiled(Code::NativeCopied));
                let pair = native.or_else(|native| {
                    let pair = compiled(Code::Portable).map_err(|portable| {
                        anyhow!(
                            "the agon component cannot be loaded: its native code was refused ({native:#}), \
                             and its portable code too ({portable:#}); build agon on this machine \
                             (cargo install --path host-cli)"
                        )
                    })?;
                    eprintln!(
                        "agon: this machine refused the component's native code ({native:#}); \
                         running it in wasmtime's portable interpreter, which is slower"
                    );
                    Ok::<_, anyhow::Error>(pair)
                })?;
                loaded.insert(pair).clone()
            }
        };
        drop(loaded);
        Runtime::instantiate(&engine, &component)
    }

    /// Load one compiled form of the component, with no fallback (tests run both).
    pub fn load_code(code: Code) -> Result<Runtime> {
        let (engine, component) = compiled(code)?;
        Runtime::instantiate(&engine, &component)
    }

    fn instantiate(engine: &Engine, component: &Component) -> Result<Runtime> {
        let linker = Linker::new(engine);
        let mut store = Store::new(engine, ());
        let bindings = DebateEngine::instantiate(&mut store, component, &linker)
            .map_err(anyhow::Error::from)
            .context("instantiating the agon component")?;
        Ok(Runtime { store, bindings })
    }

    pub fn validate_spec(&mut self, spec_json: &str) -> Result<Result<String, EngineError>> {
        let engine = self.bindings.agon_debate_engine();
        Ok(engine.call_validate_spec(&mut self.store, spec_json)?.map_err(EngineError))
    }

    /// Build a spec from a request (what the user chose); the spec, normalized.
    pub fn build_spec(&mut self, request_json: &str) -> Result<Result<String, EngineError>> {
        let engine = self.bindings.agon_debate_engine();
        Ok(engine.call_build_spec(&mut self.store, request_json)?.map_err(EngineError))
    }

    /// The worst case of a spec: calls, tokens and cost at most.
    pub fn estimate(&mut self, spec_json: &str) -> Result<Result<wit::CostEstimate, EngineError>> {
        let engine = self.bindings.agon_debate_engine();
        Ok(engine.call_estimate(&mut self.store, spec_json)?.map_err(EngineError))
    }

    pub fn protocols(&mut self) -> Result<Vec<wit::ProtocolInfo>> {
        Ok(self.bindings.agon_debate_engine().call_protocols(&mut self.store)?)
    }

    pub fn parse_role(&mut self, text: &str) -> Result<Result<wit::CouncilRole, EngineError>> {
        Ok(self.bindings.agon_debate_engine().call_parse_role(&mut self.store, text)?.map_err(EngineError))
    }

    pub fn builtin_roles(&mut self) -> Result<Vec<String>> {
        Ok(self.bindings.agon_debate_engine().call_builtin_roles(&mut self.store)?)
    }

    /// The built-in protocols that are documents: (name, document JSON).
    pub fn protocol_documents(&mut self) -> Result<Vec<(String, String)>> {
        Ok(self.bindings.agon_debate_engine().call_protocol_documents(&mut self.store)?)
    }

    /// Check a protocol document; the document normalized (JSON).
    pub fn check_document(&mut self, json: &str) -> Result<Result<String, EngineError>> {
        Ok(self.bindings.agon_debate_engine().call_check_document(&mut self.store, json)?.map_err(EngineError))
    }

    /// A protocol document described by the engine, as `protocols` describes a built-in.
    pub fn document_info(&mut self, json: &str) -> Result<Result<wit::ProtocolInfo, EngineError>> {
        Ok(self.bindings.agon_debate_engine().call_document_info(&mut self.store, json)?.map_err(EngineError))
    }

    /// A batch's results line for a finished debate, as the engine writes it;
    /// None when the transcript has no outcome.
    pub fn batch_result_line(&mut self, id: &str, question: &str, transcript_json: &str) -> Result<Option<String>> {
        let engine = self.bindings.agon_debate_engine();
        Ok(engine.call_batch_result_line(&mut self.store, id, question, transcript_json)?)
    }

    /// A batch's results line for a debate that could not run.
    pub fn batch_error_line(&mut self, id: &str, question: &str, error: &str) -> Result<String> {
        Ok(self.bindings.agon_debate_engine().call_batch_error_line(&mut self.store, id, question, error)?)
    }

    /// What a batch results file holds, and what to mend before appending to it.
    pub fn repair_batch_results(&mut self, contents: &[u8], keep_errors: bool) -> Result<wit::BatchResultsRepair> {
        let engine = self.bindings.agon_debate_engine();
        Ok(engine.call_repair_batch_results(&mut self.store, contents, keep_errors)?)
    }

    pub fn create(&mut self, spec_json: &str) -> Result<Result<Council<'_>, EngineError>> {
        let made = self.bindings.agon_debate_engine().session().call_create(&mut self.store, spec_json)?;
        Ok(made.map(|session| Council { runtime: self, session }).map_err(EngineError))
    }

    pub fn from_journal(&mut self, journal: &str) -> Result<Result<Council<'_>, EngineError>> {
        let made = self.bindings.agon_debate_engine().session().call_from_journal(&mut self.store, journal)?;
        Ok(made.map(|session| Council { runtime: self, session }).map_err(EngineError))
    }
}

impl Council<'_> {
    pub fn poll(&mut self) -> Result<wit::Output> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_poll(&mut rt.store, self.session)?)
    }

    /// Every output up to the next idle or done, as one JSON array (`poll-json`):
    /// for hosts where each value across the boundary is costly. This host uses
    /// [`Council::poll`]; its tests check that the two agree.
    pub fn poll_json(&mut self) -> Result<String> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_poll_json(&mut rt.store, self.session)?)
    }

    /// Feed an input; returns the journal line to append.
    pub fn handle(&mut self, input: &wit::Input) -> Result<Result<String, EngineError>> {
        let rt = &mut *self.runtime;
        Ok(rt
            .bindings
            .agon_debate_engine()
            .session()
            .call_handle(&mut rt.store, self.session, input)?
            .map_err(EngineError))
    }

    /// Feed one journal line after the header, as `from_journal` does for each.
    pub fn replay_line(&mut self, number: usize, line: &str) -> Result<Result<(), EngineError>> {
        let rt = &mut *self.runtime;
        let number = u32::try_from(number).unwrap_or(u32::MAX);
        Ok(rt
            .bindings
            .agon_debate_engine()
            .session()
            .call_replay_line(&mut rt.store, self.session, number, line)?
            .map_err(EngineError))
    }

    pub fn journal(&mut self) -> Result<String> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_journal(&mut rt.store, self.session)?)
    }

    pub fn outstanding(&mut self) -> Result<Vec<u64>> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_outstanding(&mut rt.store, self.session)?)
    }

    pub fn outcome(&mut self) -> Result<Option<wit::Outcome>> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_outcome(&mut rt.store, self.session)?)
    }

    pub fn transcript_json(&mut self) -> Result<String> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_transcript_json(&mut rt.store, self.session)?)
    }

    /// The transcript, read back from the engine's JSON, for agon-core to
    /// render natively: the same code as the report component, which the
    /// SDKs load, without a second component compiled into `agon`.
    pub fn transcript(&mut self) -> Result<agon_core::Transcript> {
        agon_core::Transcript::from_json(&self.transcript_json()?).map_err(anyhow::Error::msg)
    }

    pub fn transcript_markdown(&mut self) -> Result<String> {
        Ok(agon_core::markdown(&self.transcript()?))
    }

    /// The protocol's named results alone, as Markdown (empty when it has none).
    pub fn results_markdown(&mut self) -> Result<String> {
        Ok(agon_core::results_markdown(&self.transcript()?))
    }

    /// The debate as an Architecture Decision Record (Markdown).
    pub fn adr_markdown(&mut self) -> Result<String> {
        Ok(agon_core::adr_markdown(&self.transcript()?))
    }

    /// The call timeline as SVG from timings NDJSON, under this debate's
    /// question; None without timings.
    pub fn timeline_svg(&mut self, timings_ndjson: &str) -> Result<Option<String>> {
        let timings = agon_core::picture::timings_from_ndjson(timings_ndjson);
        Ok(agon_core::picture::timeline(&timings, &self.transcript()?.question))
    }

    /// The debate's pictures as (file name, SVG).
    pub fn pictures(&mut self) -> Result<Vec<(String, String)>> {
        Ok(agon_core::picture::pictures(&self.transcript()?))
    }

    /// What the debate cost so far: the total when every seat was priced.
    pub fn cost_summary(&mut self) -> Result<wit::CostSummary> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_cost_summary(&mut rt.store, self.session)?)
    }

    /// A batch's results line for this debate, once it has ended.
    pub fn batch_result_line(&mut self, id: &str, question: &str) -> Result<Option<String>> {
        let transcript = self.transcript_json()?;
        self.runtime.batch_result_line(id, question, &transcript)
    }

    pub fn spec_json(&mut self) -> Result<String> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_spec_json(&mut rt.store, self.session)?)
    }

    /// Set when another engine version wrote the journal this was rebuilt from.
    pub fn replay_note(&mut self) -> Result<Option<String>> {
        let rt = &mut *self.runtime;
        Ok(rt.bindings.agon_debate_engine().session().call_replay_note(&mut rt.store, self.session)?)
    }
}

impl Drop for Council<'_> {
    fn drop(&mut self) {
        let _ = self.session.resource_drop(&mut self.runtime.store);
    }
}

/// Where `agon doctor` keeps what it found (the component needs no cache):
/// `$XDG_CACHE_HOME/agon` or `~/.cache/agon`; `AGON_CACHE_DIR` overrides both.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("AGON_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("agon"))
}

/// An engine for `code` and the component in that form, deserialized.
fn compiled(code: Code) -> Result<(Engine, Component)> {
    let mut config = Config::new();
    crate::engine_config::shared(&mut config);
    let bytes = match code {
        Code::Native => return mapped_code::load(config, NATIVE),
        Code::NativeCopied => std::borrow::Cow::Borrowed(&NATIVE.0),
        Code::Portable => {
            config.target(env!("AGON_PULLEY_TARGET"))?;
            let inflated = miniz_oxide::inflate::decompress_to_vec(PORTABLE_DEFLATED)
                .map_err(|e| anyhow::anyhow!("the portable engine in this binary is damaged: {e}"))?;
            std::borrow::Cow::Owned(inflated)
        }
    };
    let engine = Engine::new(&config)?;
    // SAFETY: the bytes are what build.rs compiled from the component with this
    // very wasmtime; wasmtime checks their header, its version, its settings
    // and the CPU features the code needs, and refuses what does not match.
    let component = unsafe { Component::deserialize(&engine, &bytes) }.map_err(anyhow::Error::from)?;
    Ok((engine, component))
}
