//! `mcp/client` seats: the calling client's own model answers through MCP
//! sampling (`sampling/createMessage`), so a council of one local model and
//! the agent's model needs no key. One [`Sampling`] serves one tool call's
//! debate; its requests go to that call's client.
//!
//! On handshake-era connections (up to 2025-11-25) sampling is a request
//! from server to client. MCP 2026-07-28 forbids those (SEP-2322): the tool
//! call answers "input required" with the requests instead, and the client
//! calls again with their answers ([`super::input_required`]).
#![allow(deprecated)] // rmcp marks sampling deprecated for the newest protocol only

use std::sync::Arc;

use agon_cli::engine::wit;
use agon_cli::provider::client_model::ClientModel;

use super::input_required::Desk;
use super::sampling_message::{completion, params_of};
use agon_cli::provider::{CallError, CallOptions, Completion};
use rmcp::model::ProtocolVersion;
use rmcp::service::{RequestContext, RoleServer, ServiceError};
use rmcp::{Peer, model::ErrorCode};

/// Who answers `mcp/client` seats for one tool call, or why nobody can.
#[derive(Clone)]
pub enum Caller {
    /// A handshake-era connection: `sampling/createMessage` requests.
    Asks(Arc<dyn ClientModel>),
    /// MCP 2026-07-28: the requests go out in the tool call's input-required
    /// results ([`super::input_required`]).
    Legs(Arc<Desk>),
    Cannot(String),
}

impl Caller {
    /// The desk of a 2026-07-28 connection's sampling requests, if that is how the client is asked.
    pub fn legs(&self) -> Option<Arc<Desk>> {
        match self {
            Caller::Legs(desk) => Some(desk.clone()),
            _ => None,
        }
    }

    /// Where no call is there to carry a 2026-07-28 connection's requests
    /// (`why`), the client cannot be asked.
    pub fn without_legs(self, why: &str) -> Caller {
        match self {
            Caller::Legs(_) => Caller::Cannot(why.to_string()),
            caller => caller,
        }
    }

    /// The model that answers for the client, or why there is none.
    pub fn model(&self) -> Result<Arc<dyn ClientModel>, &str> {
        match self {
            Caller::Asks(model) => Ok(model.clone()),
            Caller::Legs(desk) => Ok(desk.clone()),
            Caller::Cannot(why) => Err(why),
        }
    }
}

/// The caller of this tool call, as a model: when its capabilities allow sampling.
pub fn caller(context: &RequestContext<RoleServer>) -> Caller {
    if context.client_capabilities().and_then(|c| c.sampling).is_none() {
        return Caller::Cannot("this client does not offer sampling (sampling/createMessage)".into());
    }
    if context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28) {
        return Caller::Legs(Arc::default());
    }
    Caller::Asks(Arc::new(Sampling { peer: context.peer.clone(), runtime: tokio::runtime::Handle::current() }))
}

/// The client's sampling, asked from the debate's own thread.
pub struct Sampling {
    peer: Peer<RoleServer>,
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for Sampling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sampling")
    }
}

impl ClientModel for Sampling {
    fn complete(&self, request: &wit::ModelRequest, options: CallOptions) -> Result<Completion, CallError> {
        let params = params_of(request);
        let peer = self.peer.clone();
        // The debate runs on a blocking thread, never on the runtime's own.
        let answered = self
            .runtime
            .block_on(async move { tokio::time::timeout(options.timeout, peer.create_message(params)).await });
        match answered {
            Err(_) => Err(CallError {
                kind: wit::FailureKind::Timeout,
                message: format!("mcp/client: the client's sampling did not answer in {} s", options.timeout.as_secs()),
                retry: agon_cli::provider::Retry::No,
                usage: None,
            }),
            Ok(Err(e)) => Err(failure(e)),
            Ok(Ok(result)) => completion(result, options.max_reply),
        }
    }
}

/// The code the MCP specification gives a sampling request its user rejected.
const USER_REJECTED: ErrorCode = ErrorCode(-1);

/// A request the client's user declined is refused; anything else failed.
fn failure(e: ServiceError) -> CallError {
    let kind = match &e {
        ServiceError::McpError(data) if data.code == USER_REJECTED => wit::FailureKind::Refused,
        _ => wit::FailureKind::ProviderError,
    };
    CallError {
        kind,
        message: format!("mcp/client: sampling failed: {e}"),
        retry: agon_cli::provider::Retry::No,
        usage: None,
    }
}
