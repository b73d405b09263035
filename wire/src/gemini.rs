//! Google's Gemini API: `POST {base}/models/{model}:generateContent`, or
//! `:streamGenerateContent?alt=sse` for a stream of the same objects.
//!
//! Parts marked `"thought": true` are thinking, never answer text; thinking
//! is billed as output (`thoughtsTokenCount`) beside `candidatesTokenCount`,
//! and `totalTokenCount` less the prompt is what a reply's output costs.

use agon_core::{Effort, ModelRequest, Role, StopReason, ThinkingParam, Usage};
use serde_json::{Value, json};

use crate::failure::WireError;
use crate::progress::{Progress, Stop, count};
use crate::request::{Call, HttpRequest, Shape, http, system_text};

pub(crate) fn request(call: &Call<'_>, request: &ModelRequest, shape: &Shape) -> HttpRequest {
    let contents: Vec<Value> = request
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| {
            let role = if m.role == Role::Assistant { "model" } else { "user" };
            json!({"role": role, "parts": [{"text": m.content}]})
        })
        .collect();
    let mut config = json!({"maxOutputTokens": shape.output_limit()});
    if shape.temperature(true) {
        config["temperature"] = json!(request.temperature);
    }
    // Gemini 2.5 takes a budget (0 stops Flash thinking), Gemini 3 a level
    // (Google's thinking guide); thoughts are not sent back.
    let thinking = match shape.param() {
        ThinkingParam::Budget(budget) => Some(json!({"thinkingBudget": budget, "includeThoughts": false})),
        ThinkingParam::Off => Some(json!({"thinkingBudget": 0, "includeThoughts": false})),
        ThinkingParam::Level(effort) | ThinkingParam::Effort(effort) | ThinkingParam::Adaptive(effort) => {
            // Gemini 3 Pro takes `low` and `high`, every Gemini 3 model takes both.
            let level = if effort == Effort::Low { "low" } else { "high" };
            Some(json!({"thinkingLevel": level, "includeThoughts": false}))
        }
        ThinkingParam::Nothing => None,
    };
    if let Some(thinking) = thinking {
        config["thinkingConfig"] = thinking;
    }
    let mut body = json!({"contents": contents, "generationConfig": config});
    if let Some(system) = system_text(request) {
        body["systemInstruction"] = json!({"parts": [{"text": system}]});
    }
    // The model is one path segment, encoded by the host: `../x` or `x#y` cannot leave it.
    let (method, query): (&str, &[(&str, &str)]) =
        if call.stream { ("streamGenerateContent", &[("alt", "sse")]) } else { ("generateContent", &[]) };
    http(&["models", &format!("{}:{method}", call.model)], query, body, shape)
}

/// One response object: a streamed event's, or the whole reply.
pub(crate) fn absorb(p: &mut Progress, chunk: &Value, url: &str) -> Result<(), WireError> {
    if let Some(error) = chunk.get("error") {
        return Err(WireError::reported(url, error, false));
    }
    if let Some(reason) = chunk["promptFeedback"]["blockReason"].as_str() {
        return Err(WireError::refused(url, &format!("prompt blocked: {reason}")));
    }
    let candidate = &chunk["candidates"][0];
    for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
        if part["thought"].as_bool() == Some(true) {
            continue;
        }
        if let Some(piece) = part["text"].as_str() {
            p.push(piece);
        }
    }
    if let Some(u) = usage(&chunk["usageMetadata"]) {
        // Each chunk carries running totals: the last one counts.
        p.usage = Some(u);
    }
    match candidate["finishReason"].as_str() {
        Some(reason) => p.stop(stop(reason), url),
        None => Ok(()),
    }
}

fn stop(reason: &str) -> Stop {
    match reason {
        "STOP" => Stop::Reason(StopReason::Complete),
        "MAX_TOKENS" => Stop::Reason(StopReason::TokenLimit),
        "SAFETY" | "PROHIBITED_CONTENT" | "BLOCKLIST" | "SPII" | "RECITATION" | "IMAGE_SAFETY" => {
            Stop::Refused(reason.to_string())
        }
        _ => Stop::Reason(StopReason::Other),
    }
}

/// `usageMetadata`: the output is everything billed beyond the prompt
/// (answer and thoughts), `totalTokenCount` less the prompt where given.
fn usage(u: &Value) -> Option<Usage> {
    let prompt = count(u, "promptTokenCount")?;
    let thoughts = count(u, "thoughtsTokenCount");
    let output = match count(u, "totalTokenCount") {
        Some(total) => total.saturating_sub(prompt),
        None => count(u, "candidatesTokenCount").unwrap_or(0).saturating_add(thoughts.unwrap_or(0)),
    };
    Some(Usage {
        prompt_tokens: prompt,
        completion_tokens: output,
        reasoning_tokens: thoughts,
        cached_tokens: count(u, "cachedContentTokenCount"),
        cache_write_tokens: None,
    })
}
