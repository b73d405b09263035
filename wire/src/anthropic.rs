//! Anthropic's Messages API: `POST {base}/v1/messages`, streamed as SSE.
//!
//! The system prompt is a top-level field; the conversation must alternate
//! user and assistant and start with the user, so adjacent messages of one
//! role are joined. Extended thinking comes in `thinking` blocks
//! (`thinking_delta`, `signature_delta` when streamed): never answer text.
//! Anthropic caches a prompt prefix only where a block asks it to
//! (`cache_control`): the engine's cache marks become those blocks.

use agon_core::{ModelRequest, Role, StopReason, ThinkingParam};
use serde_json::{Value, json};

use crate::failure::WireError;
use crate::progress::{Progress, Stop, count};
use crate::request::{Call, HttpRequest, Shape, http, system_text};

/// The API version every request names.
pub(crate) const VERSION: &str = "2023-06-01";

/// Anthropic's smallest thinking budget.
const MIN_THINKING: u32 = 1_024;

pub(crate) fn request(call: &Call<'_>, request: &ModelRequest, shape: &Shape) -> HttpRequest {
    let mut messages: Vec<(&str, String)> = Vec::new();
    for m in request.messages.iter().filter(|m| m.role != Role::System) {
        let role = if m.role == Role::Assistant { "assistant" } else { "user" };
        match messages.last_mut() {
            Some((last, text)) if *last == role => {
                text.push_str("\n\n");
                text.push_str(&m.content);
            }
            _ => messages.push((role, m.content.clone())),
        }
    }
    if messages.first().is_none_or(|(role, _)| *role != "user") {
        messages.insert(0, ("user", "Go on.".to_string()));
    }
    // The marks are offsets into the request's last message, which ends the
    // last message sent (joined after others of its role, perhaps).
    let marked = request.messages.last().filter(|m| m.role != Role::System).map_or(0, |m| m.content.len());
    let last = messages.len() - 1;
    let shift = messages[last].1.len().saturating_sub(marked);
    let marks: Vec<usize> = request.cache_marks.iter().map(|&m| m as usize + shift).collect();
    // Thinking only when the seat asked for it (it is off by default here):
    // a budget below `max_tokens` (Claude up to 4.5), or adaptive thinking
    // at an effort (4.6 and later; Opus 4.7+ and Sonnet 5+ take nothing else).
    // `max_tokens` holds the thinking and the reply either way.
    let param = shape.param();
    let most = shape.traits.and_then(|t| t.max_output).unwrap_or(u32::MAX);
    let max_tokens = match param {
        ThinkingParam::Budget(budget) => shape.reply.saturating_add(budget.max(MIN_THINKING)).min(most),
        ThinkingParam::Adaptive(_) => shape.reply.saturating_add(shape.thinking()).min(most),
        _ => shape.reply.min(most),
    };
    let mut body = json!({
        "model": call.model,
        "max_tokens": max_tokens,
        "messages": messages
            .iter()
            .enumerate()
            .map(|(i, (role, text))| {
                let content = if i == last && !marks.is_empty() { content(text, &marks) } else { json!(text) };
                json!({"role": role, "content": content})
            })
            .collect::<Vec<_>>(),
        "stream": call.stream,
    });
    if let Some(system) = system_text(request) {
        body["system"] = json!(system);
    }
    match param {
        // Thinking takes no temperature but the default.
        ThinkingParam::Budget(budget) => {
            body["thinking"] =
                json!({"type": "enabled", "budget_tokens": budget.max(MIN_THINKING).min(max_tokens - 1)});
        }
        ThinkingParam::Adaptive(effort) => {
            body["thinking"] = json!({"type": "adaptive"});
            body["output_config"] = json!({"effort": effort.as_str()});
        }
        // Newer models refuse a temperature: sent only to one known to take it.
        _ if shape.temperature(false) => body["temperature"] = json!(request.temperature.min(1.0)),
        _ => {}
    }
    let mut http = http(&["v1", "messages"], &[], body, shape);
    http.output_limit = max_tokens;
    http.headers.push(("anthropic-version".to_string(), VERSION.to_string()));
    http
}

/// Anthropic caches a prompt only up to the blocks marked `cache_control`,
/// and refuses more than four marks in a request.
const MAX_CACHE_BREAKPOINTS: usize = 4;

/// Breakpoints stay on every this many-th boundary of the history, so that
/// a prefix written by one call is read by a later one with the same
/// breakpoint however far back it lies: Anthropic looks for an earlier write
/// only at block boundaries up to 20 blocks before a breakpoint.
const STABLE_EVERY: usize = 16;

/// A message's text as Anthropic gets it: a plain string, or, when the
/// engine marked where cacheable prefixes end (`marks`, byte offsets into
/// `text`: the end of the question and of each turn of the history), one
/// text block per mark. Anthropic reads a cached prefix only where the
/// request has a block boundary, at or up to 20 blocks before a breakpoint,
/// so a block per turn lets each call read what the call before it wrote.
/// The breakpoints (at most four): the last mark (the whole history, read by
/// the next call), the marks at every [`STABLE_EVERY`]-th boundary nearest
/// below it (the same in every later call: read however long the history
/// grows), and the first (the question and what goes with it). Marks not on
/// a character boundary or that would leave an empty block are skipped.
fn content(text: &str, marks: &[usize]) -> Value {
    let mut cuts: Vec<usize> =
        marks.iter().copied().filter(|&m| m > 0 && m <= text.len() && text.is_char_boundary(m)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let Some(last) = cuts.len().checked_sub(1) else { return json!(text) };
    let mut breakpoints = vec![last];
    breakpoints.extend((1..last).rev().filter(|i| i % STABLE_EVERY == 0).take(MAX_CACHE_BREAKPOINTS - 2));
    if last > 0 {
        breakpoints.push(0);
    }
    let mut blocks = Vec::new();
    let mut start = 0;
    for (i, &cut) in cuts.iter().enumerate() {
        let mut block = json!({"type": "text", "text": &text[start..cut]});
        if breakpoints.contains(&i) {
            block["cache_control"] = json!({"type": "ephemeral"});
        }
        blocks.push(block);
        start = cut;
    }
    if start < text.len() {
        blocks.push(json!({"type": "text", "text": &text[start..]}));
    }
    Value::Array(blocks)
}

/// One streamed event.
pub(crate) fn event(p: &mut Progress, event: &Value, url: &str) -> Result<(), WireError> {
    match event["type"].as_str().unwrap_or_default() {
        "message_start" => merge_usage(p, &event["message"]["usage"]),
        "content_block_start" => {
            if event["content_block"]["type"] == "text"
                && let Some(text) = event["content_block"]["text"].as_str()
            {
                p.push(text);
            }
        }
        "content_block_delta" => {
            // `thinking_delta` and `signature_delta` are thinking: never answer text.
            if event["delta"]["type"] == "text_delta"
                && let Some(piece) = event["delta"]["text"].as_str()
            {
                p.push(piece);
            }
        }
        "message_delta" => {
            merge_usage(p, &event["usage"]);
            if let Some(reason) = event["delta"]["stop_reason"].as_str() {
                p.stop(stop(reason), url)?;
            }
        }
        "message_stop" => p.finished = true,
        "error" => return Err(WireError::reported(url, &event["error"], true)),
        _ => {} // ping, content_block_stop
    }
    Ok(())
}

/// A whole reply.
pub(crate) fn whole(p: &mut Progress, reply: &Value, url: &str) -> Result<(), WireError> {
    if reply["type"] == "error" {
        return Err(WireError::reported(url, &reply["error"], false));
    }
    let Some(blocks) = reply["content"].as_array() else {
        return Err(WireError::provider(format!("{url} sent no content blocks")));
    };
    for block in blocks.iter().filter(|b| b["type"] == "text") {
        p.push(block["text"].as_str().unwrap_or_default());
    }
    merge_usage(p, &reply["usage"]);
    match reply["stop_reason"].as_str() {
        Some(reason) => p.stop(stop(reason), url),
        None => Ok(()),
    }
}

fn stop(reason: &str) -> Stop {
    match reason {
        "end_turn" | "stop_sequence" => Stop::Reason(StopReason::Complete),
        "max_tokens" | "model_context_window_exceeded" => Stop::Reason(StopReason::TokenLimit),
        "refusal" => Stop::Refused("refusal".into()),
        _ => Stop::Reason(StopReason::Other),
    }
}

/// Usage as the events give it: `message_start` the input, `message_delta`
/// the running output (and, lately, the input again). `input_tokens` leaves
/// out the tokens read from or written to the cache; the prompt is all three.
fn merge_usage(p: &mut Progress, u: &Value) {
    if !u.is_object() {
        return;
    }
    let mut merged = p.usage.unwrap_or_default();
    let cache_read = count(u, "cache_read_input_tokens");
    let cache_write = count(u, "cache_creation_input_tokens");
    if let Some(input) = count(u, "input_tokens") {
        let read = cache_read.or(merged.cached_tokens).unwrap_or(0);
        let write = cache_write.or(merged.cache_write_tokens).unwrap_or(0);
        merged.prompt_tokens = input.saturating_add(read).saturating_add(write);
    }
    merged.cached_tokens = cache_read.or(merged.cached_tokens);
    merged.cache_write_tokens = cache_write.or(merged.cache_write_tokens);
    if let Some(output) = count(u, "output_tokens") {
        merged.completion_tokens = output;
    }
    p.usage = Some(merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_marks_become_cache_control_blocks_within_the_limit() {
        let spec = json!({
            "question": "Q?", "panel": [{"id": "a", "model": "anthropic/claude-sonnet-4-5"}],
            "protocol": {"name": "round-robin"}, "rounds": 2,
        });
        let mut session = agon_core::Session::from_spec_json(&spec.to_string()).unwrap();
        let mut requests = Vec::new();
        while requests.len() < 2 {
            match session.poll() {
                agon_core::Output::Request(r) => {
                    session.handle(agon_core::Input::reply(r.id, "An answer.")).unwrap();
                    requests.push(r);
                }
                agon_core::Output::Done(_) => break,
                _ => {}
            }
        }
        let call = Call {
            api: crate::Api::Anthropic,
            reference: "anthropic/claude-sonnet-4-5",
            model: "claude-sonnet-4-5",
            stream: false,
            server: None,
        };
        // Round 2's prompt: the question, the history, the turn's own part.
        let r = &requests[1];
        let body: Value = serde_json::from_str(&crate::request(&call, r).body).unwrap();
        let blocks = body["messages"][0]["content"].as_array().expect("text blocks");
        let user = &r.messages.last().unwrap().content;
        let text: String = blocks.iter().map(|b| b["text"].as_str().unwrap()).collect();
        assert_eq!(&text, user, "the blocks are the message, cut");
        let marked: Vec<&str> = blocks
            .iter()
            .filter(|b| b["cache_control"]["type"] == "ephemeral")
            .map(|b| b["text"].as_str().unwrap())
            .collect();
        assert_eq!(marked.len(), 2, "{blocks:?}");
        assert!(marked[0].starts_with("QUESTION:") && marked[1].contains("An answer."), "{marked:?}");
        assert!(blocks.last().unwrap()["cache_control"].is_null(), "the turn's own part is not cached");
        assert!(blocks.last().unwrap()["text"].as_str().unwrap().contains("It is your turn"));

        // A block per mark, never more than Anthropic's four breakpoints, never
        // an empty block, never a cut inside a character.
        let blocks = content("aé bcdefgh", &[1, 2, 3, 4, 5, 6, 7, 0, 99]);
        let blocks = blocks.as_array().unwrap();
        assert_eq!(blocks.len(), 7, "{blocks:?}");
        let marked = blocks.iter().filter(|b| b["cache_control"].is_object()).count();
        assert!(marked <= MAX_CACHE_BREAKPOINTS);
        assert!(blocks.iter().all(|b| !b["text"].as_str().unwrap().is_empty()));
        // The breakpoints of a long history: the last, the two stable ones below it, the first.
        let text = "x".repeat(100);
        let blocks = content(&text, &(1..=40).collect::<Vec<_>>());
        let at: Vec<usize> = blocks
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, b)| b["cache_control"].is_object())
            .map(|(i, _)| i)
            .collect();
        assert_eq!(at, [0, 16, 32, 39]);
        assert_eq!(content("plain", &[]), json!("plain"));
    }

    #[test]
    fn cache_tokens_count_in_the_prompt() {
        let mut p = Progress::default();
        merge_usage(
            &mut p,
            &json!({"input_tokens": 3, "cache_read_input_tokens": 1111, "cache_creation_input_tokens": 418, "output_tokens": 1}),
        );
        merge_usage(&mut p, &json!({"output_tokens": 57}));
        let u = p.usage.unwrap();
        assert_eq!(
            (u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.cache_write_tokens),
            (1532, 57, Some(1111), Some(418))
        );
    }
}
