//! Ollama's native `POST {host}/api/chat`, streamed as NDJSON, and
//! `POST {host}/api/show`, which says how long a model's context is and
//! whether it can think.
//!
//! Ollama cuts a prompt longer than its context window silently, so every
//! request says how large a window it needs (`num_ctx`), within what the
//! model has. Thinking text arrives in `message.thinking`, never the answer.

#[cfg(feature = "ollama")]
use agon_core::{ModelRequest, StopReason, Usage, estimate_tokens};
use serde_json::{Value, json};

#[cfg(feature = "ollama")]
use crate::failure::WireError;
use crate::progress::count;
#[cfg(feature = "ollama")]
use crate::progress::{Progress, Stop};
use crate::request::ServerModel;
#[cfg(feature = "ollama")]
use crate::request::{Call, HttpRequest, Shape, chat_messages, http};

/// The request that asks a server about `model`: path segments and body.
pub fn show_request(model: &str) -> (Vec<String>, String) {
    (vec!["api".into(), "show".into()], json!({"model": model}).to_string())
}

/// Read `/api/show`'s answer.
pub fn parse_show(body: &str) -> ServerModel {
    let Ok(v) = serde_json::from_str::<Value>(body) else { return ServerModel::default() };
    let info = &v["model_info"];
    let context = info["general.architecture"]
        .as_str()
        .and_then(|arch| count(info, &format!("{arch}.context_length")))
        .or_else(|| {
            info.as_object()?
                .iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, n)| n.as_u64())
                .map(|n| n as u32)
        });
    let thinking = v["capabilities"].as_array().map(|caps| caps.iter().any(|c| c == "thinking"));
    ServerModel { context, thinking }
}

/// The smallest window asked for: Ollama's own default for small machines.
#[cfg(feature = "ollama")]
const MIN_CONTEXT: u32 = 4_096;

#[cfg(feature = "ollama")]
pub(crate) fn request(call: &Call<'_>, request: &ModelRequest, shape: &Shape) -> HttpRequest {
    let server = call.server.unwrap_or_default();
    // Think when the seat asked and the model can; say no plainly to a model
    // that can think when the seat did not ask; say nothing to one that cannot.
    let think = match (server.thinking, shape.asked) {
        (Some(false), _) => None,
        (Some(true), asked) => Some(asked),
        (None, true) => Some(true),
        (None, false) => None,
    };
    let thinking = if think == Some(true) { shape.thinking() } else { 0 };
    let predict = shape.reply.saturating_add(thinking);
    // The window: the prompt (estimated, with room for the chat template),
    // the reply and its thinking, rounded up to 1,024, within the model's.
    let prompt: u32 = request.messages.iter().map(|m| estimate_tokens(&m.content).saturating_add(8)).sum();
    let needed = prompt.saturating_add(predict).saturating_add(prompt / 8);
    let wanted = needed.div_ceil(1_024).saturating_mul(1_024).max(MIN_CONTEXT);
    let most = server.context.or(shape.traits.and_then(|t| t.context));
    let num_ctx = most.map_or(wanted, |most| wanted.min(most));
    let mut options = json!({"num_predict": predict, "num_ctx": num_ctx});
    if shape.temperature(true) {
        options["temperature"] = json!(request.temperature);
    }
    let mut body = json!({
        "model": call.model,
        "messages": chat_messages(request),
        "stream": call.stream,
        "options": options,
    });
    if let Some(think) = think {
        body["think"] = json!(think);
    }
    let mut http = http(&["api", "chat"], &[], body, shape);
    http.output_limit = predict;
    if let Some(most) = most.filter(|&most| needed > most) {
        http.note = Some(format!(
            "the prompt (about {prompt} tokens) and the reply ({predict}) need more than {}'s context of {most} \
tokens: Ollama will cut the start of the prompt; set a context budget (--context-budget) to summarise earlier rounds",
            call.reference
        ));
    }
    http
}

/// One streamed line, or the whole reply (the same object).
#[cfg(feature = "ollama")]
pub(crate) fn absorb(p: &mut Progress, chunk: &Value, url: &str) -> Result<(), WireError> {
    if let Some(error) = chunk.get("error") {
        return Err(WireError::reported(url, error, false));
    }
    // `message.thinking` is thinking: never answer text.
    if let Some(piece) = chunk["message"]["content"].as_str() {
        p.push(piece);
    }
    if chunk["done"].as_bool() == Some(true) {
        if let (Some(prompt), Some(output)) = (count(chunk, "prompt_eval_count"), count(chunk, "eval_count")) {
            p.usage = Some(Usage::new(prompt, output));
        }
        let reason = match chunk["done_reason"].as_str() {
            Some("length") => StopReason::TokenLimit,
            Some("stop") | None => StopReason::Complete,
            Some(_) => StopReason::Other,
        };
        p.stop(Stop::Reason(reason), url)?;
    }
    Ok(())
}
