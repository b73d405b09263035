//! Google's Gemini API: `POST {base}/models/{model}:generateContent`, or
//! `:streamGenerateContent?alt=sse` for a stream of the same objects.
//!
//! The key travels in the `x-goog-api-key` header, never in the URL, so it
//! cannot end up in a log or an error message that quotes the URL.

use serde_json::{Value, json};

use super::sse::{SseEvent, SseEvents, event_json};
use super::{CallError, CallOptions, Completion, Endpoint, ModelRef};
use crate::engine::wit;

fn body(request: &wit::ModelRequest) -> Value {
    let system: Vec<&str> =
        request.messages.iter().filter(|m| m.role == wit::Role::System).map(|m| m.content.as_str()).collect();
    let contents: Vec<Value> = request
        .messages
        .iter()
        .filter(|m| m.role != wit::Role::System)
        .map(|m| {
            let role = if m.role == wit::Role::Assistant { "model" } else { "user" };
            json!({"role": role, "parts": [{"text": m.content}]})
        })
        .collect();
    let mut body = json!({
        "contents": contents,
        "generationConfig": {"maxOutputTokens": request.max_tokens, "temperature": request.temperature},
    });
    if !system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": system.join("\n\n")}]});
    }
    body
}

pub(super) fn complete(
    endpoint: &Endpoint,
    model: &ModelRef,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
) -> Result<Completion, CallError> {
    // The model is one path segment, encoded: `../x` or `x#y` cannot leave it.
    let (method, query): (&str, &[(&str, &str)]) =
        if options.stream { ("streamGenerateContent", &[("alt", "sse")]) } else { ("generateContent", &[]) };
    let target = endpoint.target(&["models", &format!("{}:{method}", model.model)], query)?;
    let url = target.shown.as_str();
    let headers: Vec<(&str, String)> = endpoint.api_key.iter().map(|key| ("x-goog-api-key", key.clone())).collect();
    let response = super::post(endpoint, &target, &headers, &body(request), options)?;
    let mut body = response.into_body();
    let reader = body.as_reader();
    let mut reply = Reply { max_reply: options.max_reply, ..Reply::default() };
    if options.stream {
        let mut events = SseEvents::new(reader, super::max_line(options));
        while let Some(event) = events.next() {
            let SseEvent::Message { data, .. } = event.map_err(|e| super::read_error(e, url, endpoint, options))?
            else {
                continue; // `[DONE]` is OpenAI's; here a finish reason ends the reply
            };
            let chunk = event_json(&data, url, events.ended())?;
            reply.absorb(&chunk, url, on_text).map_err(|e| e.unwrap_or_else(|| super::too_large(url, options)))?;
        }
    } else {
        let text = super::read_body(reader, url, endpoint, options)?;
        let whole: Value = serde_json::from_str(&text).map_err(|e| super::malformed(url, "JSON", e, &text))?;
        reply.absorb(&whole, url, on_text).map_err(|e| e.unwrap_or_else(|| super::too_large(url, options)))?;
    }
    if !reply.finished {
        return Err(super::incomplete(url));
    }
    Ok(Completion { text: reply.text, usage: reply.usage })
}

/// A reply built from one response object or a stream of them.
#[derive(Default)]
struct Reply {
    text: String,
    usage: Option<wit::Usage>,
    finished: bool,
    /// The most text accepted (0: no limit).
    max_reply: usize,
}

impl Reply {
    /// Take in one response object; `Err(None)` when the text passed `max_reply`.
    fn absorb(&mut self, chunk: &Value, url: &str, on_text: &mut dyn FnMut(&str)) -> Result<(), Option<CallError>> {
        if let Some(error) = chunk.get("error") {
            return Err(Some(CallError::provider(format!("{url} answered with an error: {error}"))));
        }
        if let Some(reason) = chunk["promptFeedback"]["blockReason"].as_str() {
            return Err(Some(super::refused(url, &format!("prompt blocked: {reason}"))));
        }
        let candidate = &chunk["candidates"][0];
        for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
            if let Some(piece) = part["text"].as_str() {
                if self.max_reply > 0 && self.text.len() + piece.len() > self.max_reply {
                    return Err(None);
                }
                self.text.push_str(piece);
                on_text(piece);
            }
        }
        if let (Some(p), Some(c)) = (
            chunk["usageMetadata"]["promptTokenCount"].as_u64(),
            chunk["usageMetadata"]["candidatesTokenCount"].as_u64(),
        ) {
            // Later chunks carry running totals: the last one counts.
            self.usage = Some(wit::Usage { prompt_tokens: p as u32, completion_tokens: c as u32 });
        }
        match candidate["finishReason"].as_str() {
            Some("SAFETY" | "PROHIBITED_CONTENT" | "BLOCKLIST" | "SPII") => {
                Err(Some(super::refused(url, candidate["finishReason"].as_str().unwrap_or_default())))
            }
            Some(_) => {
                self.finished = true;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_instruction_and_model_role() {
        let request = wit::ModelRequest {
            id: 0,
            seat: "a".into(),
            model: "gemini/g".into(),
            purpose: wit::Purpose::Turn,
            round: 1,
            phase: wit::Phase::Opening,
            messages: vec![
                wit::Message { role: wit::Role::System, content: "Be brief.".into() },
                wit::Message { role: wit::Role::User, content: "Q".into() },
                wit::Message { role: wit::Role::Assistant, content: "A".into() },
            ],
            max_tokens: 64,
            temperature: 0.2,
            expect: None,
        };
        let b = body(&request);
        assert_eq!(b["systemInstruction"]["parts"][0]["text"], "Be brief.");
        assert_eq!(b["contents"][0], json!({"role": "user", "parts": [{"text": "Q"}]}));
        assert_eq!(b["contents"][1]["role"], "model");
        assert_eq!(b["generationConfig"]["maxOutputTokens"], 64);
    }

    #[test]
    fn chunks_accumulate_and_the_last_usage_counts() {
        let mut r = Reply::default();
        let mut shown = String::new();
        let chunk = |t: &str, n: u64, fin: Option<&str>| {
            let mut c = json!({"candidates": [{"content": {"parts": [{"text": t}]}}],
                "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": n}});
            if let Some(f) = fin {
                c["candidates"][0]["finishReason"] = json!(f);
            }
            c
        };
        r.absorb(&chunk("Hel", 1, None), "u", &mut |p| shown.push_str(p)).unwrap();
        assert!(!r.finished);
        r.absorb(&chunk("lo", 4, Some("STOP")), "u", &mut |p| shown.push_str(p)).unwrap();
        assert_eq!((r.text.as_str(), shown.as_str(), r.finished), ("Hello", "Hello", true));
        assert_eq!(r.usage, Some(wit::Usage { prompt_tokens: 9, completion_tokens: 4 }));
        let blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
        assert_eq!(
            Reply::default().absorb(&blocked, "u", &mut |_| {}).unwrap_err().unwrap().kind,
            wit::FailureKind::Refused
        );
        let mut small = Reply { max_reply: 4, ..Reply::default() };
        assert!(small.absorb(&chunk("Hello", 1, None), "u", &mut |_| {}).unwrap_err().is_none(), "too large");
    }
}
