//! One model request as MCP sampling carries it (`sampling/createMessage`),
//! and the client's answer as a completion: the same whether the request
//! went out as a request to the client ([`super::sampling`]) or came back
//! as an "input required" answer ([`super::input_required`]).
#![allow(deprecated)] // rmcp marks sampling deprecated for the newest protocol only

use agon_cli::engine::wit;
use agon_cli::provider::{CallError, Completion};
use rmcp::model::{
    ContextInclusion, CreateMessageRequestParams, CreateMessageResult, SamplingContent, SamplingMessage,
    SamplingMessageContentBlock,
};

/// The request as sampling takes it: system messages as the system prompt,
/// the rest as the conversation, no other server's context mixed in.
pub(super) fn params_of(request: &wit::ModelRequest) -> CreateMessageRequestParams {
    let mut system = Vec::new();
    let mut messages = Vec::new();
    for m in &request.messages {
        match m.role {
            wit::Role::System => system.push(m.content.as_str()),
            wit::Role::User => messages.push(SamplingMessage::user_text(m.content.clone())),
            wit::Role::Assistant => messages.push(SamplingMessage::assistant_text(m.content.clone())),
        }
    }
    let mut params = CreateMessageRequestParams::new(messages, request.max_tokens);
    if !system.is_empty() {
        params.system_prompt = Some(system.join("\n\n"));
    }
    params.include_context = Some(ContextInclusion::None);
    params.temperature = Some(request.temperature.clamp(0.0, 1.0) as f32);
    params
}

/// The client's answer: its text only (a sampled image or tool call is not
/// an argument), the client's model named in no prompt.
pub(super) fn completion(result: CreateMessageResult, max_reply: usize) -> Result<Completion, CallError> {
    let blocks: Vec<&SamplingMessageContentBlock> = match &result.message.content {
        SamplingContent::Single(block) => vec![block],
        SamplingContent::Multiple(blocks) => blocks.iter().collect(),
    };
    let text: String = blocks
        .iter()
        .filter_map(|b| match b {
            SamplingMessageContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    if text.trim().is_empty() {
        return Err(CallError::provider(format!("mcp/client: the client's model ({}) answered no text", result.model)));
    }
    if text.len() > max_reply {
        return Err(CallError::provider(format!(
            "mcp/client: the client's reply is {} bytes, more than the {max_reply} a reply may hold",
            text.len()
        )));
    }
    let stop = match result.stop_reason.as_deref() {
        Some(CreateMessageResult::STOP_REASON_END_MAX_TOKEN) => Some(wit::StopReason::TokenLimit),
        Some(CreateMessageResult::STOP_REASON_END_TURN | CreateMessageResult::STOP_REASON_END_SEQUENCE) => {
            Some(wit::StopReason::Complete)
        }
        Some(_) => Some(wit::StopReason::Other),
        None => None,
    };
    Ok(Completion { text, usage: None, stop, model: None })
}
