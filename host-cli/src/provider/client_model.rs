//! The MCP client's own model as a seat (`mcp/client`): `agon mcp` asks the
//! calling client to answer through MCP sampling, so a council of one local
//! model and the agent's own model needs no key. Only a host that has a
//! client to ask — the MCP server, for one tool call — gives the
//! [`Environment`](super::Environment) a [`ClientModel`]; anywhere else the
//! seat is refused before anything is spent.

use super::{CallError, CallOptions, Completion};
use crate::engine::wit;

/// The provider part of the reference.
pub const PROVIDER: &str = "mcp";

/// The one model it has: whoever called.
pub const MODEL: &str = "client";

/// What is said where no client can answer.
pub const NOT_HERE: &str = "mcp/client is the calling MCP client's own model: only `agon mcp` seats it, \
     through MCP sampling; give the seat a provider/model here";

/// Whether a seat's model (a reference or a chain) is the calling client.
pub fn is_client(model: &str) -> bool {
    model.split('|').any(|m| m.trim() == "mcp/client")
}

/// Someone who answers a model request for the client: the MCP server's
/// sampling, for the one tool call that runs the debate.
pub trait ClientModel: Send + Sync + std::fmt::Debug {
    fn complete(&self, request: &wit::ModelRequest, options: CallOptions) -> Result<Completion, CallError>;
}
