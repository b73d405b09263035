//! The debate runner every front door shares (`agon run`, `resume`, `batch`,
//! `mcp`): from a [`DebateRequest`] to a checked spec and its worst case
//! ([`prepare`]), then a council driven to its end and kept ([`drive()`]),
//! or a kept session reopened ([`reopen()`]). The front doors only convert
//! what they were given and show what came out.
//!
//! [`DebateRequest`]: crate::request::DebateRequest

pub mod cost;
pub mod document;
pub mod drive;
pub mod reopen;
pub mod spec;

use anyhow::Result;

pub use drive::{Keep, drive, lock_session, new_session};
pub use reopen::{Reopened, reopen};

use crate::compete_history::Key;
use crate::config::Config;
use crate::engine::{Runtime, wit};
use crate::provider::Environment;
use crate::request::DebateRequest;
use crate::{bad, host};

/// A request made into a spec the engine accepted, whose models answer and
/// whose worst case is within its cost cap: ready to create a council from.
pub struct Prepared {
    /// The spec (JSON), as the engine built it.
    pub spec: String,
    /// The same, parsed, for the host's own checks.
    pub parsed: serde_json::Value,
    /// The compete history the run counts in.
    pub history: Option<Key>,
    /// The worst case: calls, tokens, cost.
    pub bound: wit::CostEstimate,
}

/// Whether a run counts in the compete history (a batch's debates stand alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    Counted,
    Alone,
}

/// The spec `request` makes; its models' endpoints checked, its worst case
/// bounded and held to `max_cost`. `check` sees the built spec before any
/// endpoint is probed: each front door's own refusals (a person's seat where
/// nobody is at a terminal, programs MCP may not start).
pub fn prepare(
    request: &DebateRequest,
    runtime: &mut Runtime,
    config: &Config,
    env: &Environment,
    history: History,
    check: &dyn Fn(&serde_json::Value) -> Result<()>,
) -> Result<Prepared> {
    let history = match history {
        History::Counted => spec::history_key(request, runtime)?,
        History::Alone => None,
    };
    let spec = spec::spec_json(request, runtime, config, history.as_ref())?;
    let parsed: serde_json::Value = serde_json::from_str(&spec)?;
    check(&parsed)?;
    host::preflight(&spec::models_of(&parsed), env).map_err(bad)?;
    let bound = runtime.estimate(&spec)?.map_err(|e| bad(e.to_string()))?;
    cost::check_max_cost(request.settings.max_cost, &bound)?;
    Ok(Prepared { spec, parsed, history, bound })
}
