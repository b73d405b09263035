//! A reply in each wire's own shape, whole or streamed, with usage: the
//! thinking first when the model thinks, then the text, cut where the token
//! budget runs out.
//!
//! Tokens are counted as words: each piece of `split_inclusive(' ')` is one
//! token, so one streamed chunk is one token and usage is easy to predict.

use serde_json::{Value, json};

use crate::Wire;
use crate::strict::Plan;

/// What a thinking model thinks, cycled to the length it spends.
const THOUGHT: [&str; 8] = ["Weighing ", "the ", "question ", "and ", "each ", "speaker's ", "point ", "first. "];

/// Anthropic signs each thinking block; any opaque string stands in.
const SIGNATURE: &str = "dGVzdC1zaWduYXR1cmU=";

/// A reply's tokens, spent in order: thinking, then text.
pub(crate) struct Reply {
    /// The thought, one token per word (spent even when not shown).
    pub thinking: Vec<String>,
    /// The text given, one token per word.
    pub words: Vec<String>,
    /// The budget ran out before the text did.
    pub cut: bool,
    pub prompt: u64,
    pub show_thinking: bool,
    pub report_thinking: bool,
}

impl Reply {
    /// `text` as the model would answer under `plan`.
    pub fn new(text: &str, plan: &Plan, prompt: u64) -> Reply {
        let words: Vec<String> = text.split_inclusive(' ').map(str::to_string).collect();
        let budget = plan.budget.unwrap_or(u64::MAX);
        let thought = plan.thinking.min(budget);
        let room = usize::try_from(budget - thought).unwrap_or(usize::MAX);
        let given = words.len().min(room);
        Reply {
            thinking: THOUGHT.iter().cycle().take(thought as usize).map(|w| w.to_string()).collect(),
            cut: given < words.len() || thought < plan.thinking,
            words: words.into_iter().take(given).collect(),
            prompt,
            show_thinking: plan.show_thinking,
            report_thinking: plan.report_thinking,
        }
    }

    fn thought_tokens(&self) -> u64 {
        self.thinking.len() as u64
    }

    fn text_tokens(&self) -> u64 {
        self.words.len() as u64
    }

    /// Everything generated: thinking counts as output on every wire.
    fn completion(&self) -> u64 {
        self.thought_tokens() + self.text_tokens()
    }

    fn text(&self) -> String {
        self.words.concat()
    }

    fn thought(&self) -> String {
        self.thinking.concat()
    }

    /// The thinking comes back to the client (and there is some).
    fn shows_thinking(&self) -> bool {
        self.show_thinking && !self.thinking.is_empty()
    }

    /// OpenAI's usage; reasoning tokens are inside completion_tokens and also
    /// named apart (openai/openai-openapi CompletionUsage).
    fn openai_usage(&self) -> Value {
        let (p, c) = (self.prompt, self.completion());
        let mut usage = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
        if self.report_thinking {
            usage["completion_tokens_details"] = json!({"reasoning_tokens": self.thought_tokens()});
        }
        usage
    }

    /// Gemini's usageMetadata: thoughts apart from the candidates, the total
    /// counting both; counts of zero are left out, as proto3 JSON does.
    fn gemini_usage(&self, candidates: u64) -> Value {
        let mut usage = json!({"promptTokenCount": self.prompt});
        if candidates > 0 {
            usage["candidatesTokenCount"] = json!(candidates);
        }
        if self.thought_tokens() > 0 {
            usage["thoughtsTokenCount"] = json!(self.thought_tokens());
        }
        usage["totalTokenCount"] = json!(self.prompt + candidates + self.thought_tokens());
        usage
    }
}

/// A whole (non-streamed) reply.
pub(crate) fn whole(wire: Wire, model: &str, reply: &Reply) -> Value {
    match wire {
        Wire::OpenAi => {
            let finish = if reply.cut { "length" } else { "stop" };
            json!({"id": "test", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text()}, "finish_reason": finish}],
                "usage": reply.openai_usage()})
        }
        Wire::Ollama => {
            let mut message = json!({"role": "assistant", "content": reply.text()});
            if reply.shows_thinking() {
                message["thinking"] = json!(reply.thought());
            }
            json!({"model": model, "message": message, "done": true, "done_reason": if reply.cut { "length" } else { "stop" },
                "prompt_eval_count": reply.prompt, "eval_count": reply.completion()})
        }
        Wire::Anthropic => {
            let mut content = Vec::new();
            if reply.shows_thinking() {
                content.push(json!({"type": "thinking", "thinking": reply.thought(), "signature": SIGNATURE}));
            }
            // Cut while thinking, the message holds the thinking block alone.
            if !reply.words.is_empty() || content.is_empty() {
                content.push(json!({"type": "text", "text": reply.text()}));
            }
            json!({"id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": content,
                "stop_reason": if reply.cut { "max_tokens" } else { "end_turn" }, "stop_sequence": null,
                "usage": {"input_tokens": reply.prompt, "output_tokens": reply.completion()}})
        }
        Wire::Gemini => {
            let mut parts = Vec::new();
            if reply.shows_thinking() {
                parts.push(json!({"text": reply.thought(), "thought": true}));
            }
            if !reply.words.is_empty() || (parts.is_empty() && !reply.cut) {
                parts.push(json!({"text": reply.text()}));
            }
            let mut candidate = json!({"finishReason": if reply.cut { "MAX_TOKENS" } else { "STOP" }, "index": 0});
            // Out of tokens before any part, the candidate carries no content at all.
            if !parts.is_empty() {
                candidate["content"] = json!({"role": "model", "parts": parts});
            }
            json!({"candidates": [candidate], "usageMetadata": reply.gemini_usage(reply.text_tokens())})
        }
    }
}

/// A streamed reply: one chunk per token, ending the way the wire ends.
pub(crate) fn stream(wire: Wire, model: &str, reply: &Reply) -> Vec<String> {
    let sse = |event: Option<&str>, data: Value| match event {
        Some(e) => format!("event: {e}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    };
    let mut chunks = Vec::new();
    match wire {
        Wire::OpenAi => {
            // Chat completions streams no reasoning, only the text after it.
            for w in &reply.words {
                chunks.push(sse(None, json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": null}]})));
            }
            let finish = if reply.cut { "length" } else { "stop" };
            chunks.push(sse(None, json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": reply.openai_usage()})));
            chunks.push("data: [DONE]\n\n".to_string());
        }
        Wire::Ollama => {
            let line = |message: Value| format!("{}\n", json!({"model": model, "message": message, "done": false}));
            if reply.shows_thinking() {
                for w in &reply.thinking {
                    chunks.push(line(json!({"role": "assistant", "content": "", "thinking": w})));
                }
            }
            for w in &reply.words {
                chunks.push(line(json!({"role": "assistant", "content": w})));
            }
            chunks.push(format!(
                "{}\n",
                json!({"model": model, "message": {"role": "assistant", "content": ""}, "done": true,
                "done_reason": if reply.cut { "length" } else { "stop" },
                "prompt_eval_count": reply.prompt, "eval_count": reply.completion()})
            ));
        }
        Wire::Anthropic => {
            chunks.push(sse(Some("message_start"), json!({"type": "message_start", "message": {"id": "msg_test", "type": "message",
                "role": "assistant", "model": model, "content": [], "usage": {"input_tokens": reply.prompt, "output_tokens": 1}}})));
            let mut index = 0;
            if reply.shows_thinking() {
                // A thinking block: its text in thinking_delta events, then its signature.
                chunks.push(sse(
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}}),
                ));
                chunks.push(sse(Some("ping"), json!({"type": "ping"})));
                for w in &reply.thinking {
                    chunks.push(sse(
                        Some("content_block_delta"),
                        json!({"type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": w}}),
                    ));
                }
                chunks.push(sse(
                    Some("content_block_delta"),
                    json!({"type": "content_block_delta", "index": index, "delta": {"type": "signature_delta", "signature": SIGNATURE}}),
                ));
                chunks.push(sse(Some("content_block_stop"), json!({"type": "content_block_stop", "index": index})));
                index += 1;
            }
            if !reply.words.is_empty() || index == 0 {
                chunks.push(sse(
                    Some("content_block_start"),
                    json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
                ));
                if index == 0 {
                    chunks.push(sse(Some("ping"), json!({"type": "ping"})));
                }
                for w in &reply.words {
                    chunks.push(sse(
                        Some("content_block_delta"),
                        json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": w}}),
                    ));
                }
                chunks.push(sse(Some("content_block_stop"), json!({"type": "content_block_stop", "index": index})));
            }
            let stop = if reply.cut { "max_tokens" } else { "end_turn" };
            chunks.push(sse(
                Some("message_delta"),
                json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                "usage": {"output_tokens": reply.completion()}}),
            ));
            chunks.push(sse(Some("message_stop"), json!({"type": "message_stop"})));
        }
        Wire::Gemini => {
            let candidate = |parts: Value| json!({"content": {"role": "model", "parts": parts}, "index": 0});
            if reply.shows_thinking() {
                for w in &reply.thinking {
                    chunks.push(sse(
                        None,
                        json!({"candidates": [candidate(json!([{"text": w, "thought": true}]))],
                        "usageMetadata": {"promptTokenCount": reply.prompt}}),
                    ));
                }
            }
            let mut texts: Vec<Value> = reply
                .words
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    json!({"candidates": [candidate(json!([{"text": w}]))], "usageMetadata": reply.gemini_usage(i as u64 + 1)})
                })
                .collect();
            // The last chunk says why it stopped; with no text at all, it is a
            // candidate with no content.
            let finish = json!(if reply.cut { "MAX_TOKENS" } else { "STOP" });
            match texts.last_mut() {
                Some(last) => last["candidates"][0]["finishReason"] = finish,
                None => texts.push(
                    json!({"candidates": [{"finishReason": finish, "index": 0}], "usageMetadata": reply.gemini_usage(0)}),
                ),
            }
            chunks.extend(texts.into_iter().map(|t| sse(None, t)));
        }
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(thinking: u64, budget: Option<u64>) -> Plan {
        Plan { thinking, budget, ..Plan::default() }
    }

    #[test]
    fn thinking_is_spent_before_the_text_and_the_budget_cuts_both() {
        let text = "a b c d";
        let r = Reply::new(text, &Plan::default(), 3);
        assert_eq!((r.thinking.len(), r.text(), r.cut), (0, text.to_string(), false));
        let r = Reply::new(text, &plan(5, Some(7)), 3);
        assert_eq!((r.thinking.len(), r.text(), r.cut, r.completion()), (5, "a b ".to_string(), true, 7));
        let r = Reply::new(text, &plan(5, Some(4)), 3);
        assert_eq!((r.thinking.len(), r.words.len(), r.cut), (4, 0, true));
        let r = Reply::new(text, &plan(5, Some(9)), 3);
        assert_eq!((r.completion(), r.cut), (9, false));
    }

    #[test]
    fn every_wire_says_it_was_cut_in_its_own_words() {
        let r = Reply::new("a b c", &plan(0, Some(1)), 0);
        assert_eq!(whole(Wire::OpenAi, "m", &r)["choices"][0]["finish_reason"], "length");
        assert_eq!(whole(Wire::Ollama, "m", &r)["done_reason"], "length");
        assert_eq!(whole(Wire::Anthropic, "m", &r)["stop_reason"], "max_tokens");
        assert_eq!(whole(Wire::Gemini, "m", &r)["candidates"][0]["finishReason"], "MAX_TOKENS");
    }
}
