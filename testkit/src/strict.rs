//! What each real API refuses, with the status and error body it refuses
//! with, and how a reasoning model spends its token budget.
//!
//! The rules are keyed on real model-name families (`gpt-5.1`, `o3-2025-04-16`,
//! `claude-opus-4-7`, `gemini-2.5-pro`…); a name no family claims (`m1`,
//! `judge`, `claude-a`) is served leniently, as before the rules existed, so
//! tests that never meant to emulate a real model keep passing. Ollama's rules
//! are keyed on the model's script instead (its capabilities are whatever was
//! pulled, not a name). Every rule names its source; STRICT.md lists them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::{ModelScript, Wire};

/// Thinking tokens a reasoning model spends before its answer, when its
/// script does not say (`reasoning_tokens`).
pub const DEFAULT_REASONING_TOKENS: u32 = 200;

/// Ollama's context window when a request sets no `options.num_ctx`: 4096
/// since v0.6.7 (it was 2048 before; since v0.15.5 it is 4096 on machines with
/// under 24 GiB of VRAM and larger above). Sources: ollama/ollama PR #11189,
/// zed-industries/zed PR #31682, open-webui/docs PR #1393.
pub const OLLAMA_DEFAULT_NUM_CTX: u64 = 4096;

/// The answer a real API gives instead of a completion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    pub status: u16,
    pub body: Value,
}

/// How a reply spends its tokens, as the request and the model decide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Tokens spent thinking before any text.
    pub thinking: u64,
    /// The most tokens the reply may spend, thinking included (None: no limit
    /// is enforced, as for names no family claims).
    pub budget: Option<u64>,
    /// The thinking comes back (Anthropic's thinking block, Gemini's thought
    /// parts, Ollama's `message.thinking`); otherwise it is only counted.
    pub show_thinking: bool,
    /// Usage reports the thinking tokens in their own field.
    pub report_thinking: bool,
    /// The context window the server applies to the prompt (Ollama's `num_ctx`).
    pub context: Option<u64>,
}

/// The request headers a rule reads.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Headers<'a> {
    pub anthropic_version: Option<&'a str>,
    pub anthropic_beta: Option<&'a str>,
}

/// Refuse the request as the real API would, or say how to answer it.
pub(crate) fn check(
    wire: Wire,
    model: &str,
    body: &Value,
    headers: Headers,
    script: &ModelScript,
) -> Result<Plan, Refusal> {
    let reasoning = u64::from(script.reasoning_tokens.unwrap_or(DEFAULT_REASONING_TOKENS));
    match wire {
        Wire::OpenAi => openai(model, body, reasoning),
        Wire::Anthropic => anthropic(model, body, headers, reasoning),
        Wire::Gemini => gemini(model, body, reasoning),
        Wire::Ollama => ollama(model, body, script, reasoning),
    }
}

/// `'a', 'b', and 'c'`, as OpenAI lists supported values.
fn quoted_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} and {b}"),
        [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
    }
}

/// A present, non-null field.
fn field<'a>(body: &'a Value, name: &str) -> Option<&'a Value> {
    body.get(name).filter(|v| !v.is_null())
}

/// The first (in name order) of `object`'s keys that is not in `known`.
fn unknown_key<'a>(object: &'a Map<String, Value>, known: &[&str]) -> Option<&'a str> {
    object.keys().map(String::as_str).find(|k| !known.contains(k))
}

// ---------------------------------------------------------------------------
// OpenAI chat completions
// ---------------------------------------------------------------------------

/// A chat-completions family: the reasoning efforts it takes (none: not a
/// reasoning model) and the effort it uses when the request names none.
#[derive(Debug, PartialEq, Eq)]
struct OpenAiFamily {
    efforts: &'static [&'static str],
    default_effort: &'static str,
}

/// gpt-4o, gpt-4.1, gpt-3.5…: no reasoning.
const OPENAI_CHAT: OpenAiFamily = OpenAiFamily { efforts: &[], default_effort: "" };
/// o1, o3, o3-mini, o4-mini: low, medium, high (enricoros/big-AGI#940 on the
/// official API); `minimal` and `none` came later.
const OPENAI_O_SERIES: OpenAiFamily = OpenAiFamily { efforts: &["low", "medium", "high"], default_effort: "medium" };
/// gpt-5, gpt-5-mini, gpt-5-nano: `minimal` kept for gpt-5 when gpt-5.1 dropped
/// it (router-for-me/CLIProxyAPI PR #249); medium by default.
const OPENAI_GPT5: OpenAiFamily =
    OpenAiFamily { efforts: &["minimal", "low", "medium", "high"], default_effort: "medium" };
/// gpt-5.1: "Supported values are: 'none', 'low', 'medium', and 'high'" (quoted
/// in livekit/agents PR #3966, cline/cline#7519); `none` by default (BerriAI/litellm PR #17011).
const OPENAI_GPT5_1: OpenAiFamily =
    OpenAiFamily { efforts: &["none", "low", "medium", "high"], default_effort: "none" };
/// gpt-5.2 to gpt-5.4 add `xhigh` (RayBytes/ChatMock README, meerkat-core's
/// live-verified list) and still default to `none` (BerriAI/litellm-docs PR #1064).
const OPENAI_GPT5_2: OpenAiFamily =
    OpenAiFamily { efforts: &["none", "low", "medium", "high", "xhigh"], default_effort: "none" };
/// gpt-5.5 and later default to `medium` (BerriAI/litellm-docs PR #1064: an
/// unset effort refuses a temperature there).
const OPENAI_GPT5_5: OpenAiFamily =
    OpenAiFamily { efforts: &["none", "low", "medium", "high", "xhigh"], default_effort: "medium" };

/// `2025-04-16` (a snapshot date) or `0613` (an old one).
fn is_snapshot(rest: &str) -> bool {
    let digits = rest.bytes().filter(u8::is_ascii_digit).count();
    (rest.len() == 10 && digits == 8 && rest.as_bytes()[4] == b'-' && rest.as_bytes()[7] == b'-')
        || (rest.len() == 4 && digits == 4)
}

/// `name` is `base` itself or a dated snapshot of it (or one of `suffixes`).
fn is_variant(name: &str, base: &str, suffixes: &[&str]) -> bool {
    match name.strip_prefix(base) {
        Some("") => true,
        Some(rest) => rest.strip_prefix('-').is_some_and(|r| is_snapshot(r) || suffixes.contains(&r)),
        None => false,
    }
}

/// The family a chat-completions model name belongs to, if any.
fn openai_family(model: &str) -> Option<&'static OpenAiFamily> {
    // Models that are not plain chat models (or not served by chat
    // completions at all) are left alone rather than modelled wrongly.
    const OTHER: &[&str] =
        &["-chat", "-codex", "-pro", "-search", "-audio", "-realtime", "-transcribe", "-tts", "-image"];
    if OTHER.iter().any(|o| model.contains(o)) || model.contains("instruct") {
        return None;
    }
    const CHAT: &[&str] =
        &["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4-turbo", "gpt-4", "gpt-3.5-turbo"];
    if CHAT.iter().any(|b| is_variant(model, b, &[])) {
        return Some(&OPENAI_CHAT);
    }
    // `o4-mini-high` and the like name an effort in ChatGPT; the API model is the same.
    if ["o1", "o3", "o3-mini", "o4-mini"].iter().any(|b| is_variant(model, b, &["low", "medium", "high"])) {
        return Some(&OPENAI_O_SERIES);
    }
    if ["gpt-5", "gpt-5-mini", "gpt-5-nano"].iter().any(|b| is_variant(model, b, &[])) {
        return Some(&OPENAI_GPT5);
    }
    // gpt-5.N, gpt-5.N-mini, gpt-5.N-nano, each perhaps dated.
    let rest = model.strip_prefix("gpt-5.")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let minor: u32 = rest[..digits].parse().ok()?;
    let base = &model[..model.len() - rest.len() + digits];
    if minor == 0 || !["", "-mini", "-nano"].iter().any(|s| is_variant(model, &format!("{base}{s}"), &[])) {
        return None;
    }
    Some(match minor {
        1 => &OPENAI_GPT5_1,
        2..=4 => &OPENAI_GPT5_2,
        _ => &OPENAI_GPT5_5,
    })
}

/// Every top-level field of CreateChatCompletionRequest (openai/openai-openapi,
/// with those it inherits from CreateModelResponseProperties).
const OPENAI_FIELDS: &[&str] = &[
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "messages",
    "metadata",
    "modalities",
    "model",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
];

/// OpenAI's error body: `{"error": {message, type, param, code}}`.
fn openai_error(message: &str, param: Option<&str>, code: Option<&str>) -> Refusal {
    Refusal {
        status: 400,
        body: json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}}),
    }
}

fn openai(model: &str, body: &Value, reasoning: u64) -> Result<Plan, Refusal> {
    let Some(family) = openai_family(model) else { return Ok(Plan::default()) };
    // Sources for the bodies: issue threads quoting them verbatim —
    // davidmigloz/langchain_dart#712 (unrecognized argument),
    // BerriAI/litellm#5803 (stream_options), langchain-ai/langgraph#5943 (both
    // limits), griptape-ai/ComfyUI-Griptape#312 (max_tokens), gabrii/Cursor-Azure-GPT-5#33
    // (temperature), cline/cline#7519 (reasoning_effort value).
    if let Some(name) = body.as_object().and_then(|o| unknown_key(o, OPENAI_FIELDS)) {
        return Err(openai_error(&format!("Unrecognized request argument supplied: {name}"), None, None));
    }
    if field(body, "stream_options").is_some() && body["stream"] != true {
        return Err(openai_error(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            Some("stream_options"),
            None,
        ));
    }
    let (max_tokens, max_completion) = (field(body, "max_tokens"), field(body, "max_completion_tokens"));
    if max_tokens.is_some() && max_completion.is_some() {
        return Err(openai_error(
            "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.",
            Some("max_tokens"),
            Some("invalid_parameter_combination"),
        ));
    }
    let reasoning_model = !family.efforts.is_empty();
    if reasoning_model && max_tokens.is_some() {
        return Err(openai_error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            Some("max_tokens"),
            Some("unsupported_parameter"),
        ));
    }
    let effort = match field(body, "reasoning_effort") {
        // gpt-4o and gpt-4o-mini answer exactly this, with no param and no code.
        Some(_) if !reasoning_model => {
            return Err(openai_error("Unrecognized request argument supplied: reasoning_effort", None, None));
        }
        Some(value) => {
            let effort = value.as_str().unwrap_or_default();
            if !family.efforts.contains(&effort) {
                return Err(openai_error(
                    &format!(
                        "Unsupported value: 'reasoning_effort' does not support {value} with this model. Supported values are: {}.",
                        quoted_list(family.efforts)
                    )
                    .replace('"', "'"),
                    Some("reasoning_effort"),
                    Some("unsupported_value"),
                ));
            }
            effort
        }
        None => family.default_effort,
    };
    // A reasoning model that reasons takes only the default temperature;
    // gpt-5.1 and later with effort `none` take any (BerriAI/litellm PR #17011).
    let thinks = reasoning_model && effort != "none";
    if let Some(t) = field(body, "temperature").filter(|t| thinks && t.as_f64() != Some(1.0)) {
        return Err(openai_error(
            &format!(
                "Unsupported value: 'temperature' does not support {t} with this model. Only the default (1) value is supported."
            ),
            Some("temperature"),
            Some("unsupported_value"),
        ));
    }
    Ok(Plan {
        thinking: if thinks { reasoning } else { 0 },
        budget: max_completion.or(max_tokens).and_then(Value::as_u64),
        show_thinking: false,
        report_thinking: true,
        context: None,
    })
}

// ---------------------------------------------------------------------------
// Anthropic messages
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Haiku,
    Sonnet,
    Opus,
}

/// A Claude model: its tier and version, from either naming scheme
/// (`claude-3-5-haiku-20241022`, `claude-sonnet-4-5-20250929`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Claude {
    tier: Tier,
    version: (u32, u32),
}

impl Claude {
    fn parse(model: &str) -> Option<Claude> {
        let mut tier = None;
        let mut version = Vec::new();
        for token in model.strip_prefix("claude-")?.split('-') {
            match token {
                "haiku" => tier = Some(Tier::Haiku),
                "sonnet" => tier = Some(Tier::Sonnet),
                "opus" => tier = Some(Tier::Opus),
                "latest" => {}
                // A snapshot date (20250929) says nothing about the family.
                t if t.len() == 8 && t.bytes().all(|b| b.is_ascii_digit()) => {}
                t if t.len() <= 2 && t.bytes().all(|b| b.is_ascii_digit()) => version.push(t.parse().ok()?),
                // Anything else (`claude-a`, a proxy's `-thinking`) is not a name we know.
                _ => return None,
            }
        }
        let major = *version.first()?;
        Some(Claude { tier: tier?, version: (major, version.get(1).copied().unwrap_or(0)) })
    }

    /// Extended thinking exists from Claude 3.7 Sonnet on; the Claude 3 and 3.5
    /// models answer "'MODEL' does not support thinking." (anthropics/claude-code#11388, #2245).
    fn thinks(self) -> bool {
        self.version >= (3, 7)
    }

    /// Opus 4.7 and later Opus, and Sonnet 5, removed the sampling parameters
    /// and fixed thinking budgets (Anthropic's migration guide for Opus 4.7;
    /// GittieLabs/agentflow changelog for claude-sonnet-5).
    fn sampling_removed(self) -> bool {
        match self.tier {
            Tier::Opus => self.version >= (4, 7),
            Tier::Sonnet => self.version >= (5, 0),
            Tier::Haiku => false,
        }
    }

    /// Adaptive thinking exists from Claude 4.6 on (Anthropic's adaptive-thinking guide).
    fn adaptive(self) -> bool {
        self.version >= (4, 6)
    }

    /// Opus and Sonnet 4.6 and later refuse a last assistant message
    /// ("prefill removal", Anthropic's what's-new for Claude 4.6).
    fn refuses_prefill(self) -> bool {
        self.tier != Tier::Haiku && self.version >= (4, 6)
    }
}

/// Every top-level field of the Messages API (anthropic-sdk-python
/// MessageCreateParams, generated from Anthropic's OpenAPI description).
const ANTHROPIC_FIELDS: &[&str] = &[
    "cache_control",
    "container",
    "inference_geo",
    "max_tokens",
    "messages",
    "metadata",
    "model",
    "output_config",
    "service_tier",
    "stop_sequences",
    "stream",
    "system",
    "temperature",
    "thinking",
    "tool_choice",
    "tools",
    "top_k",
    "top_p",
];

/// Anthropic's error body: `{"type": "error", "error": {type, message}}`.
fn anthropic_error(message: &str) -> Refusal {
    Refusal {
        status: 400,
        body: json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
    }
}

fn anthropic(model: &str, body: &Value, headers: Headers, reasoning: u64) -> Result<Plan, Refusal> {
    // Every request, whatever the model (PipedreamHQ/pipedream#9697).
    if headers.anthropic_version.is_none() {
        return Err(anthropic_error("anthropic-version: header is required"));
    }
    let Some(claude) = Claude::parse(model) else { return Ok(Plan::default()) };
    // A beta header can add fields; only plain requests are checked for extras.
    if headers.anthropic_beta.is_none()
        && let Some(name) = body.as_object().and_then(|o| unknown_key(o, ANTHROPIC_FIELDS))
    {
        // amrit110/oli#7, Aider-AI/aider#3367.
        return Err(anthropic_error(&format!("{name}: Extra inputs are not permitted")));
    }
    let Some(max_tokens) = field(body, "max_tokens").map(|m| m.as_u64().unwrap_or(0)) else {
        return Err(anthropic_error("max_tokens: Field required")); // tickernelz/opencode-mem#50
    };
    let messages = body["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    if field(body, "messages").is_none() {
        return Err(anthropic_error("messages: Field required"));
    }
    if messages.is_empty() {
        return Err(anthropic_error("messages: at least one message is required")); // langchain-ai/langchain PR #31696
    }
    // Consecutive turns of one role are combined, not refused, and the first
    // message may be an assistant's (Messages API reference, `messages`); only
    // a "system" role is refused (help.apiyi.com, Opus 4.7 guide).
    if messages.iter().any(|m| m["role"] == "system") {
        return Err(anthropic_error(
            "Unexpected role \"system\". The Messages API accepts a top-level `system` parameter, not \"system\" as an input message role.",
        ));
    }
    // Prompt caching takes at most four breakpoints a request (Anthropic's
    // prompt-caching guide; the body as tghamm/Anthropic.SDK#50 quotes it).
    let breakpoints = [&body["system"], &body["messages"]]
        .into_iter()
        .flat_map(|v| v.as_array().into_iter().flatten())
        .flat_map(|m| std::iter::once(m).chain(m["content"].as_array().into_iter().flatten()))
        .filter(|b| b["cache_control"].is_object())
        .count();
    if breakpoints > 4 {
        return Err(anthropic_error(&format!(
            "A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
        )));
    }
    let temperature = field(body, "temperature");
    if claude.sampling_removed() {
        // "`temperature` is deprecated for this model." (conselara.dev, Comfy-Org/ComfyUI#13923);
        // top_p and top_k went with it (Anthropic's Opus 4.7 migration guide).
        for name in ["temperature", "top_p", "top_k"] {
            if field(body, name).is_some() {
                return Err(anthropic_error(&format!("`{name}` is deprecated for this model.")));
            }
        }
    }
    if temperature.and_then(Value::as_f64).is_some_and(|t| !(0.0..=1.0).contains(&t)) {
        // anthropics/anthropic-sdk-python#893 (range 0.0–1.0 since 2026-08).
        return Err(anthropic_error("temperature: range: 0..1"));
    }
    let thinking = &body["thinking"];
    let thinks = match thinking["type"].as_str() {
        Some("enabled") => {
            let budget = thinking["budget_tokens"].as_u64().unwrap_or(0);
            // The schema first, then the model, then how the numbers relate
            // (tingly-dev/tingly-box PR #569, anthropics/claude-code#11388,
            // freecodexyz/free-code#32; the last rule is the extended-thinking
            // guide's "budget_tokens must be less than max_tokens", worded as
            // public test suites quote the API).
            if budget < 1024 {
                return Err(anthropic_error(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                ));
            }
            if !claude.thinks() {
                return Err(anthropic_error(&format!("'{model}' does not support thinking.")));
            }
            if claude.sampling_removed() {
                return Err(anthropic_error(
                    "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.",
                ));
            }
            if max_tokens <= budget {
                return Err(anthropic_error("`max_tokens` must be greater than `thinking.budget_tokens`."));
            }
            Some(budget)
        }
        Some("adaptive") if !claude.thinks() => {
            return Err(anthropic_error(&format!("'{model}' does not support thinking.")));
        }
        // Adaptive thinking came with Claude 4.6; older models take only a
        // budget (Anthropic's adaptive-thinking guide: "Older models (Claude
        // Sonnet 4.5, Claude Opus 4.5, etc.) do not support adaptive thinking
        // and require thinking.type: \"enabled\" with budget_tokens"; wording inferred).
        Some("adaptive") if !claude.adaptive() => {
            return Err(anthropic_error(
                "\"thinking.type.adaptive\" is not supported for this model. Use \"thinking.type.enabled\" with \"budget_tokens\".",
            ));
        }
        Some("adaptive") => Some(u64::MAX),
        // Opus 4.7 and later refuse thinking switched off as well as on with a
        // budget (the adaptive-thinking guide, NousResearch/hermes-agent#11137).
        Some("disabled") if claude.sampling_removed() => {
            return Err(anthropic_error(
                "\"thinking.type.disabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.",
            ));
        }
        _ => None,
    };
    // `output_config.effort`: low, medium, high and max, and xhigh on Opus 4.7
    // and later (NousResearch/hermes-agent#11137); effort exists from Claude 4.5 on.
    if let Some(effort) = body["output_config"].get("effort") {
        let known: &[&str] = if claude.sampling_removed() {
            &["low", "medium", "high", "xhigh", "max"]
        } else {
            &["low", "medium", "high", "max"]
        };
        if claude.version < (4, 5) {
            return Err(anthropic_error("output_config.effort: not supported for this model (inferred wording)"));
        }
        if !effort.as_str().is_some_and(|e| known.contains(&e)) {
            return Err(anthropic_error(&format!(
                "output_config.effort: Input should be {}",
                known.iter().map(|e| format!("'{e}'")).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    if thinks.is_some() && temperature.is_some_and(|t| t.as_f64() != Some(1.0)) {
        // MartialBE/one-hub#529.
        return Err(anthropic_error(
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking",
        ));
    }
    if claude.refuses_prefill() && messages.last().is_some_and(|m| m["role"] == "assistant") {
        // Skyvern-AI/skyvern PR #4795, anomalyco/opencode#13768.
        return Err(anthropic_error(
            "This model does not support assistant message prefill. The conversation must end with a user message.",
        ));
    }
    Ok(Plan {
        // Thinking stays within its budget; what it spends counts against max_tokens.
        thinking: thinks.map_or(0, |budget| reasoning.min(budget)),
        budget: Some(max_tokens),
        show_thinking: thinks.is_some(),
        report_thinking: false,
        context: None,
    })
}

// ---------------------------------------------------------------------------
// Gemini generateContent
// ---------------------------------------------------------------------------

/// A Gemini family and what its thinking takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GeminiFamily {
    /// Thinks always: budget 128..=32768 or -1 (ai.google.dev thinking guide).
    Pro25,
    /// Budget 0..=24576 or -1; 0 turns thinking off.
    Flash25,
    /// Budget 512..=24576, 0 or -1.
    FlashLite25,
    /// Gemini 3: `thinkingLevel`; a budget still accepted.
    Three,
    /// Gemini 2.0 and 1.5: no thinking.
    NoThinking,
}

impl GeminiFamily {
    fn parse(model: &str) -> Option<GeminiFamily> {
        let model = model.strip_prefix("models/").unwrap_or(model);
        // Image, speech, live and embedding models are other APIs in effect.
        if ["-image", "-tts", "-live", "embedding", "-audio"].iter().any(|o| model.contains(o)) {
            return None;
        }
        let family = |base: &str| model.strip_prefix(base).is_some_and(|r| r.is_empty() || r.starts_with('-'));
        Some(if family("gemini-2.5-pro") {
            GeminiFamily::Pro25
        } else if family("gemini-2.5-flash-lite") {
            GeminiFamily::FlashLite25
        } else if family("gemini-2.5-flash") {
            GeminiFamily::Flash25
        } else if model.strip_prefix("gemini-3").is_some_and(|r| r.starts_with(['-', '.'])) {
            GeminiFamily::Three
        } else if model.starts_with("gemini-2.0-") || model.starts_with("gemini-1.5-") {
            GeminiFamily::NoThinking
        } else {
            return None;
        })
    }

    /// The budgets a thinking budget may take besides -1 (dynamic).
    fn budget_range(self) -> Option<(u64, u64, bool)> {
        match self {
            GeminiFamily::Pro25 => Some((128, 32768, false)),
            GeminiFamily::Flash25 => Some((0, 24576, true)),
            GeminiFamily::FlashLite25 => Some((512, 24576, true)),
            GeminiFamily::Three | GeminiFamily::NoThinking => None,
        }
    }
}

/// `thinkingBudget` → `thinking_budget`: the API takes either spelling, and
/// names fields in snake case in its errors.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// GenerateContentRequest's fields (ai.google.dev API reference, models.generateContent).
const GEMINI_FIELDS: &[&str] = &[
    "model",
    "contents",
    "tools",
    "toolConfig",
    "safetySettings",
    "systemInstruction",
    "generationConfig",
    "cachedContent",
];
/// GenerationConfig's fields (generativelanguage v1beta GenerationConfig).
const GEMINI_GENERATION_FIELDS: &[&str] = &[
    "stopSequences",
    "responseMimeType",
    "responseSchema",
    "responseJsonSchema",
    "responseModalities",
    "candidateCount",
    "maxOutputTokens",
    "temperature",
    "topP",
    "topK",
    "seed",
    "presencePenalty",
    "frequencyPenalty",
    "responseLogprobs",
    "logprobs",
    "enableEnhancedCivicAnswers",
    "speechConfig",
    "thinkingConfig",
    "imageConfig",
    "mediaResolution",
];
const GEMINI_THINKING_FIELDS: &[&str] = &["includeThoughts", "thinkingBudget", "thinkingLevel"];

/// The object's field named `name` in either spelling.
fn either<'a>(object: &'a Value, name: &str) -> &'a Value {
    match object.get(name) {
        Some(v) => v,
        None => object.get(snake(name)).unwrap_or(&Value::Null),
    }
}

/// Google's error body: `{"error": {code, message, status}}`.
fn google_error(status: u16, state: &str, message: &str) -> Refusal {
    Refusal { status, body: json!({"error": {"code": status, "message": message, "status": state}}) }
}

/// Every unknown field at `at` (a snake-case path, "" at the top), as Google
/// words each: `Invalid JSON payload received. Unknown name "x" at 'p': Cannot find field.`
fn gemini_unknown(object: &Value, known: &[&str], at: &str, out: &mut Vec<(String, String)>) {
    for key in object.as_object().into_iter().flat_map(Map::keys) {
        if known.iter().any(|k| k == key || snake(k) == *key) {
            continue;
        }
        let place = if at.is_empty() { String::new() } else { format!(" at '{at}'") };
        out.push((
            at.to_string(),
            format!("Invalid JSON payload received. Unknown name \"{key}\"{place}: Cannot find field."),
        ));
    }
}

fn gemini(model: &str, body: &Value, reasoning: u64) -> Result<Plan, Refusal> {
    let Some(family) = GeminiFamily::parse(model) else { return Ok(Plan::default()) };
    let config = either(body, "generationConfig");
    let thinking = either(config, "thinkingConfig");
    // All unknown names at once, as Google reports them (promptfoo/promptfoo#1876,
    // MinLL/SkyrimNet-GamePlugin#77), with a BadRequest detail for each.
    let mut unknown = Vec::new();
    gemini_unknown(body, GEMINI_FIELDS, "", &mut unknown);
    gemini_unknown(config, GEMINI_GENERATION_FIELDS, "generation_config", &mut unknown);
    gemini_unknown(thinking, GEMINI_THINKING_FIELDS, "generation_config.thinking_config", &mut unknown);
    if !unknown.is_empty() {
        let message = unknown.iter().map(|(_, m)| m.as_str()).collect::<Vec<_>>().join("\n");
        let violations: Vec<Value> = unknown
            .iter()
            .map(
                |(at, m)| {
                    if at.is_empty() { json!({"description": m}) } else { json!({"field": at, "description": m}) }
                },
            )
            .collect();
        let mut refusal = google_error(400, "INVALID_ARGUMENT", &message);
        refusal.body["error"]["details"] =
            json!([{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": violations}]);
        return Err(refusal);
    }
    // langbot-app/LangBot#1486.
    if body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c.get("role").is_some_and(|r| r != "user" && r != "model"))
    {
        return Err(google_error(400, "INVALID_ARGUMENT", "Please use a valid role: user, model."));
    }
    let budget = either(thinking, "thinkingBudget");
    let level = either(thinking, "thinkingLevel");
    if !budget.is_null() && !level.is_null() {
        // sterlp/eclipse-peon-ai#115.
        return Err(google_error(
            400,
            "INVALID_ARGUMENT",
            "You can only set only one of thinking budget and thinking level.",
        ));
    }
    if !level.is_null() {
        match family {
            GeminiFamily::Three => {
                let known = ["minimal", "low", "medium", "high"];
                let value = level.as_str().unwrap_or_default().to_ascii_lowercase();
                if !known.contains(&value.as_str()) {
                    return Err(google_error(
                        400,
                        "INVALID_ARGUMENT",
                        &format!(
                            "Invalid value at 'generation_config.thinking_config.thinking_level' (type.googleapis.com/google.ai.generativelanguage.v1beta.ThinkingConfig.ThinkingLevel), {level}"
                        ),
                    ));
                }
            }
            // As quoted from the API for gemini-2.5-flash in a public project's notes
            // (code search); QwenLM/qwen-code PR #9094 reports the same refusal.
            _ => return Err(google_error(400, "INVALID_ARGUMENT", "Thinking level is not supported for this model.")),
        }
    }
    let asked = budget.as_i64();
    if let (Some(n), Some((low, high, zero))) = (asked, family.budget_range())
        && n != -1
    {
        if n == 0 && !zero {
            // vercel/ai#8027 and many quoting "Budget 0 is invalid…".
            return Err(google_error(
                400,
                "INVALID_ARGUMENT",
                "Budget 0 is invalid. This model only works in thinking mode.",
            ));
        }
        // Ranges: ai.google.dev thinking guide; wording as a public test suite
        // quotes the API (code search).
        if n != 0 && !(low as i64..=high as i64).contains(&n) {
            return Err(google_error(
                400,
                "INVALID_ARGUMENT",
                &format!("The thinking budget {n} is invalid. Please choose a value between {low} and {high}."),
            ));
        }
    }
    // Thinking models think by default (dynamic) and spend it against maxOutputTokens.
    let thinks = family != GeminiFamily::NoThinking && asked != Some(0);
    let cap = asked.filter(|n| *n > 0).map_or(u64::MAX, |n| n as u64);
    Ok(Plan {
        thinking: if thinks { reasoning.min(cap) } else { 0 },
        budget: either(config, "maxOutputTokens").as_u64(),
        show_thinking: thinks && either(thinking, "includeThoughts") == true,
        report_thinking: true,
        context: None,
    })
}

// ---------------------------------------------------------------------------
// Ollama chat
// ---------------------------------------------------------------------------

fn ollama(model: &str, body: &Value, script: &ModelScript, reasoning: u64) -> Result<Plan, Refusal> {
    let thinking_model = script.thinking == Some(true);
    // `think: true` or a level ("low"…) asks for thinking; `false` turns it off.
    let asked = match &body["think"] {
        Value::Bool(b) => Some(*b),
        Value::String(s) => Some(!s.is_empty()),
        _ => None,
    };
    if asked == Some(true) && !thinking_model {
        // Ollama names the model with its tag: `"qwen3-coder:30b" does not
        // support thinking` (Neurons-AI/crawbot#24, itayinbarr/little-coder#86).
        let name = if model.contains(':') { model.to_string() } else { format!("{model}:latest") };
        return Err(Refusal { status: 400, body: json!({"error": format!("\"{name}\" does not support thinking")}) });
    }
    let thinks = thinking_model && asked != Some(false);
    let options = &body["options"];
    Ok(Plan {
        thinking: if thinks { reasoning } else { 0 },
        // Unknown options are ignored with a warning in the log, not refused
        // (TheBlewish/Automated-AI-Web-Researcher-Ollama#11).
        budget: options["num_predict"].as_u64(),
        show_thinking: thinks,
        report_thinking: false,
        context: Some(options["num_ctx"].as_u64().unwrap_or(OLLAMA_DEFAULT_NUM_CTX)),
    })
}

// ---------------------------------------------------------------------------
// Injected faults, in each wire's own words
// ---------------------------------------------------------------------------

/// The provider is overloaded: Anthropic's 529 (anthropics/claude-code#3558),
/// Gemini's 503 UNAVAILABLE, Ollama's full queue (its scheduler's ErrMaxQueue);
/// OpenAI's 503 body is not confirmed.
pub(crate) fn overloaded(wire: Wire) -> Refusal {
    match wire {
        Wire::Anthropic => Refusal {
            status: 529,
            body: json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        },
        Wire::Gemini => google_error(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
        Wire::Ollama => Refusal {
            status: 503,
            body: json!({"error": "server busy, please try again.  maximum pending requests exceeded"}),
        },
        Wire::OpenAi => Refusal {
            status: 503,
            body: json!({"error": {"message": "The engine is currently overloaded, please try again later", "type": "server_error", "param": null, "code": null}}),
        },
    }
}

/// A refused key, as each API answers it: OpenAI's 401 `invalid_api_key`,
/// Anthropic's 401 `authentication_error`, Gemini's 400 INVALID_ARGUMENT with
/// the reason API_KEY_INVALID (their error pages and SDK issues show these
/// bodies), and a 401 from a proxy in front of Ollama.
pub(crate) fn unauthorized(wire: Wire) -> Refusal {
    match wire {
        Wire::OpenAi => Refusal {
            status: 401,
            body: json!({"error": {"message": "Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}),
        },
        Wire::Anthropic => Refusal {
            status: 401,
            body: json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        },
        Wire::Gemini => {
            let mut refusal = google_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
            refusal.body["error"]["details"] = json!([
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}
            ]);
            refusal
        }
        Wire::Ollama => Refusal { status: 401, body: json!({"error": "unauthorized"}) },
    }
}

/// A 429 whose only word on when to come back is in the body: Gemini's
/// RESOURCE_EXHAUSTED with a RetryInfo detail (google-gemini/gemini-cli#10925
/// for the shape, the Gemini rate-limit docs for the message). The other wires
/// put the delay in their message.
pub(crate) fn rate_limited(wire: Wire, delay_s: u32) -> Refusal {
    match wire {
        Wire::Gemini => {
            let mut refusal = google_error(
                429,
                "RESOURCE_EXHAUSTED",
                &format!(
                    "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. Please retry in {delay_s}s."
                ),
            );
            refusal.body["error"]["details"] = json!([
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": format!("{delay_s}s")},
            ]);
            refusal
        }
        Wire::OpenAi => Refusal {
            status: 429,
            body: json!({"error": {"message": format!("Rate limit reached for requests. Please try again in {delay_s}s."), "type": "requests", "param": null, "code": "rate_limit_exceeded"}}),
        },
        Wire::Anthropic => Refusal {
            status: 429,
            body: json!({"type": "error", "error": {"type": "rate_limit_error", "message": format!("Rate limit exceeded. Please try again in {delay_s}s.")}}),
        },
        Wire::Ollama => Refusal { status: 429, body: json!({"error": format!("rate limited, retry in {delay_s}s")}) },
    }
}

/// A 429 for a quota spent until tomorrow, in each wire's words (Gemini's
/// daily quota id, as its quota guide names them; OpenAI's
/// `insufficient_quota`).
pub(crate) fn quota_spent(wire: Wire) -> Refusal {
    match wire {
        Wire::Gemini => {
            let mut refusal = rate_limited(wire, 20);
            refusal.body["error"]["details"][0]["violations"][0] = json!({
                "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
            });
            refusal
        }
        _ => Refusal {
            status: 429,
            body: json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(wire: Wire, model: &str, body: Value) -> Result<Plan, Refusal> {
        let headers = Headers { anthropic_version: Some("2023-06-01"), anthropic_beta: None };
        check(wire, model, &body, headers, &ModelScript::default())
    }

    fn message(refusal: &Refusal) -> String {
        let e = &refusal.body["error"];
        e["message"].as_str().or(e.as_str()).unwrap_or_default().to_string()
    }

    fn refused(wire: Wire, model: &str, body: Value) -> Refusal {
        plan(wire, model, body).expect_err("refused")
    }

    const MSG: &str = r#"[{"role": "user", "content": "Q?"}]"#;

    fn messages() -> Value {
        serde_json::from_str(MSG).unwrap()
    }

    #[test]
    fn openai_families_are_recognised_by_name() {
        for m in ["o1", "o3", "o3-2025-04-16", "o3-mini", "o4-mini", "o4-mini-high"] {
            assert_eq!(openai_family(m), Some(&OPENAI_O_SERIES), "{m}");
        }
        for m in ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-2025-08-07"] {
            assert_eq!(openai_family(m), Some(&OPENAI_GPT5), "{m}");
        }
        assert_eq!(openai_family("gpt-5.1"), Some(&OPENAI_GPT5_1));
        assert_eq!(openai_family("gpt-5.1-2025-11-13"), Some(&OPENAI_GPT5_1));
        assert_eq!(openai_family("gpt-5.2"), Some(&OPENAI_GPT5_2));
        assert_eq!(openai_family("gpt-5.4-mini"), Some(&OPENAI_GPT5_2));
        assert_eq!(openai_family("gpt-5.5"), Some(&OPENAI_GPT5_5));
        for m in ["gpt-4o", "gpt-4o-mini", "gpt-4o-2024-08-06", "gpt-4.1", "gpt-4.1-nano", "gpt-3.5-turbo-0125"] {
            assert_eq!(openai_family(m), Some(&OPENAI_CHAT), "{m}");
        }
        for m in ["m1", "a", "judge", "smollm2", "gpt-5-chat-latest", "gpt-5.1-codex", "o1x", "gpt-4o-extra", "gpt-5.x"]
        {
            assert_eq!(openai_family(m), None, "{m}");
        }
    }

    #[test]
    fn openai_reasoning_models_refuse_max_tokens() {
        let r = refused(Wire::OpenAi, "gpt-5", json!({"model": "gpt-5", "messages": messages(), "max_tokens": 100}));
        assert_eq!(r.status, 400);
        assert_eq!(
            r.body,
            json!({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}})
        );
        refused(Wire::OpenAi, "o3-2025-04-16", json!({"messages": messages(), "max_tokens": 100}));
    }

    #[test]
    fn openai_reasoning_models_take_only_the_default_temperature() {
        let r = refused(Wire::OpenAi, "o4-mini", json!({"messages": messages(), "temperature": 0.7}));
        assert_eq!(
            r.body,
            json!({"error": {"message": "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default (1) value is supported.",
                "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}})
        );
        assert_eq!(
            message(&refused(Wire::OpenAi, "gpt-5-mini", json!({"temperature": 0}))).split(" with").next(),
            Some("Unsupported value: 'temperature' does not support 0")
        );
        assert!(plan(Wire::OpenAi, "gpt-5", json!({"messages": messages(), "temperature": 1})).is_ok());
        assert!(plan(Wire::OpenAi, "gpt-5", json!({"messages": messages(), "temperature": 1.0})).is_ok());
        // gpt-5.1 reasons only when asked: effort `none` (its default) takes any temperature.
        assert!(plan(Wire::OpenAi, "gpt-5.1", json!({"messages": messages(), "temperature": 0.2})).is_ok());
        refused(
            Wire::OpenAi,
            "gpt-5.1",
            json!({"messages": messages(), "temperature": 0.2, "reasoning_effort": "high"}),
        );
        // gpt-5.5 reasons by default.
        refused(Wire::OpenAi, "gpt-5.5", json!({"messages": messages(), "temperature": 0.2}));
    }

    #[test]
    fn openai_reasoning_effort_must_be_one_the_model_takes() {
        let r = refused(Wire::OpenAi, "gpt-5.1", json!({"messages": messages(), "reasoning_effort": "minimal"}));
        assert_eq!(
            r.body,
            json!({"error": {"message": "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported values are: 'none', 'low', 'medium', and 'high'.",
                "type": "invalid_request_error", "param": "reasoning_effort", "code": "unsupported_value"}})
        );
        assert!(plan(Wire::OpenAi, "gpt-5", json!({"messages": messages(), "reasoning_effort": "minimal"})).is_ok());
        assert!(plan(Wire::OpenAi, "gpt-5.2", json!({"messages": messages(), "reasoning_effort": "xhigh"})).is_ok());
        let r = refused(Wire::OpenAi, "o3", json!({"messages": messages(), "reasoning_effort": "none"}));
        assert!(message(&r).ends_with("Supported values are: 'low', 'medium', and 'high'."), "{}", message(&r));
    }

    #[test]
    fn openai_chat_models_do_not_know_reasoning_effort() {
        let r = refused(Wire::OpenAi, "gpt-4o", json!({"messages": messages(), "reasoning_effort": "low"}));
        assert_eq!(
            r.body,
            json!({"error": {"message": "Unrecognized request argument supplied: reasoning_effort", "type": "invalid_request_error", "param": null, "code": null}})
        );
        // …but take max_tokens and any temperature.
        assert!(
            plan(Wire::OpenAi, "gpt-4o-mini", json!({"messages": messages(), "max_tokens": 5, "temperature": 1.7}))
                .is_ok()
        );
    }

    #[test]
    fn openai_refuses_unknown_fields_both_limits_and_stray_stream_options() {
        let r = refused(Wire::OpenAi, "gpt-4.1", json!({"messages": messages(), "max_output_tokens": 5}));
        assert_eq!(message(&r), "Unrecognized request argument supplied: max_output_tokens");
        assert_eq!(r.body["error"]["param"], Value::Null);
        let r = refused(
            Wire::OpenAi,
            "gpt-4o",
            json!({"messages": messages(), "max_tokens": 5, "max_completion_tokens": 5}),
        );
        assert_eq!(
            r.body,
            json!({"error": {"message": "Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.",
                "type": "invalid_request_error", "param": "max_tokens", "code": "invalid_parameter_combination"}})
        );
        let r =
            refused(Wire::OpenAi, "gpt-4o", json!({"messages": messages(), "stream_options": {"include_usage": true}}));
        assert_eq!(
            r.body,
            json!({"error": {"message": "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                "type": "invalid_request_error", "param": "stream_options", "code": null}})
        );
        assert!(
            plan(
                Wire::OpenAi,
                "gpt-4o",
                json!({"messages": messages(), "stream": true, "stream_options": {"include_usage": true}})
            )
            .is_ok()
        );
    }

    #[test]
    fn openai_accepted_shapes_plan_their_reasoning() {
        let p = plan(
            Wire::OpenAi,
            "gpt-5",
            json!({"model": "gpt-5", "messages": messages(), "max_completion_tokens": 300}),
        )
        .unwrap();
        assert_eq!((p.thinking, p.budget, p.report_thinking), (200, Some(300), true));
        let p = plan(Wire::OpenAi, "gpt-4o", json!({"messages": messages(), "max_tokens": 7})).unwrap();
        assert_eq!((p.thinking, p.budget), (0, Some(7)));
        // Unknown names: today's leniency, whatever they are sent.
        let p = plan(Wire::OpenAi, "m1", json!({"whatever": 1, "max_tokens": 3, "max_completion_tokens": 4})).unwrap();
        assert_eq!(p, Plan::default());
    }

    #[test]
    fn claude_names_parse_in_both_schemes() {
        let c = |m: &str| Claude::parse(m).map(|c| (c.tier, c.version));
        assert_eq!(c("claude-3-5-haiku-20241022"), Some((Tier::Haiku, (3, 5))));
        assert_eq!(c("claude-3-opus-20240229"), Some((Tier::Opus, (3, 0))));
        assert_eq!(c("claude-sonnet-4-5-20250929"), Some((Tier::Sonnet, (4, 5))));
        assert_eq!(c("claude-opus-4-7"), Some((Tier::Opus, (4, 7))));
        assert_eq!(c("claude-opus-5"), Some((Tier::Opus, (5, 0))));
        assert_eq!(c("claude-sonnet-4-20250514"), Some((Tier::Sonnet, (4, 0))));
        for m in ["claude-a", "claude-b", "claude", "judge", "claude-opus-4-5-thinking"] {
            assert_eq!(c(m), None, "{m}");
        }
    }

    fn claude(model: &str, extra: Value) -> Value {
        let mut body = json!({"model": model, "max_tokens": 2000, "messages": messages()});
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            body[k] = v;
        }
        body
    }

    #[test]
    fn anthropic_needs_its_version_header_whatever_the_model() {
        let r = check(
            Wire::Anthropic,
            "claude-a",
            &claude("claude-a", json!({})),
            Headers::default(),
            &ModelScript::default(),
        )
        .unwrap_err();
        assert_eq!(
            r.body,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "anthropic-version: header is required"}})
        );
    }

    #[test]
    fn opus_4_7_and_later_refuse_any_temperature() {
        for model in ["claude-opus-4-7", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5"] {
            let r = refused(Wire::Anthropic, model, claude(model, json!({"temperature": 1.0})));
            assert_eq!(
                r.body,
                json!({"type": "error", "error": {"type": "invalid_request_error", "message": "`temperature` is deprecated for this model."}}),
                "{model}"
            );
        }
        assert_eq!(
            message(&refused(Wire::Anthropic, "claude-opus-4-7", claude("claude-opus-4-7", json!({"top_p": 0.9})))),
            "`top_p` is deprecated for this model."
        );
        assert!(plan(Wire::Anthropic, "claude-opus-4-7", claude("claude-opus-4-7", json!({}))).is_ok());
        assert!(
            plan(Wire::Anthropic, "claude-opus-4-6", claude("claude-opus-4-6", json!({"temperature": 0.7}))).is_ok()
        );
        assert!(
            plan(Wire::Anthropic, "claude-sonnet-4-5", claude("claude-sonnet-4-5", json!({"temperature": 0.7})))
                .is_ok()
        );
        assert!(
            plan(Wire::Anthropic, "claude-haiku-4-5", claude("claude-haiku-4-5", json!({"temperature": 0.2}))).is_ok()
        );
    }

    #[test]
    fn anthropic_refuses_what_its_schema_refuses() {
        let m = "claude-sonnet-4-5";
        let no_max = json!({"model": m, "messages": messages()});
        assert_eq!(message(&refused(Wire::Anthropic, m, no_max)), "max_tokens: Field required");
        assert_eq!(
            message(&refused(Wire::Anthropic, m, claude(m, json!({"messages": []})))),
            "messages: at least one message is required"
        );
        assert_eq!(
            message(&refused(Wire::Anthropic, m, claude(m, json!({"temperature": 1.5})))),
            "temperature: range: 0..1"
        );
        assert_eq!(
            message(&refused(Wire::Anthropic, m, claude(m, json!({"reasoning_effort": "high"})))),
            "reasoning_effort: Extra inputs are not permitted"
        );
        let system = json!({"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "Q"}]});
        assert!(message(&refused(Wire::Anthropic, m, claude(m, system))).starts_with("Unexpected role \"system\"."));
        // Consecutive turns of one role are combined, not refused.
        let twice = json!({"messages": [{"role": "user", "content": "A"}, {"role": "user", "content": "B"}]});
        assert!(plan(Wire::Anthropic, m, claude(m, twice)).is_ok());
        // A beta header may add fields.
        let beta =
            Headers { anthropic_version: Some("2023-06-01"), anthropic_beta: Some("context-management-2025-06-27") };
        let body = claude(m, json!({"context_management": {}}));
        assert!(check(Wire::Anthropic, m, &body, beta, &ModelScript::default()).is_ok());
    }

    #[test]
    fn anthropic_thinking_rules() {
        let m = "claude-sonnet-4-5";
        let think = |budget: u64, max: u64, extra: Value| {
            let mut body = claude(m, extra);
            body["max_tokens"] = json!(max);
            body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
            body
        };
        assert_eq!(
            message(&refused(Wire::Anthropic, m, think(1000, 4000, json!({})))),
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        );
        assert_eq!(
            message(&refused(Wire::Anthropic, m, think(2048, 2048, json!({})))),
            "`max_tokens` must be greater than `thinking.budget_tokens`."
        );
        assert!(
            message(&refused(Wire::Anthropic, m, think(1024, 4000, json!({"temperature": 0.7}))))
                .starts_with("`temperature` may only be set to 1 when thinking is enabled.")
        );
        let p = plan(Wire::Anthropic, m, think(1024, 4000, json!({"temperature": 1}))).unwrap();
        assert_eq!((p.thinking, p.budget, p.show_thinking), (200, Some(4000), true));
        let old = "claude-3-5-haiku-20241022";
        let mut body = think(1024, 4000, json!({}));
        body["model"] = json!(old);
        assert_eq!(
            message(&refused(Wire::Anthropic, old, body)),
            "'claude-3-5-haiku-20241022' does not support thinking."
        );
        let mut body = think(1024, 4000, json!({}));
        body["model"] = json!("claude-opus-4-7");
        assert!(
            message(&refused(Wire::Anthropic, "claude-opus-4-7", body))
                .starts_with("\"thinking.type.enabled\" is not supported")
        );
        let adaptive = claude("claude-opus-4-7", json!({"thinking": {"type": "adaptive"}}));
        assert!(plan(Wire::Anthropic, "claude-opus-4-7", adaptive).unwrap().show_thinking);
    }

    #[test]
    fn claude_4_6_and_later_refuse_prefill() {
        let prefill =
            json!({"messages": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "The answer is"}]});
        assert_eq!(
            message(&refused(Wire::Anthropic, "claude-sonnet-4-6", claude("claude-sonnet-4-6", prefill.clone()))),
            "This model does not support assistant message prefill. The conversation must end with a user message."
        );
        assert!(plan(Wire::Anthropic, "claude-sonnet-4-5", claude("claude-sonnet-4-5", prefill)).is_ok());
    }

    fn gemini_body(config: Value) -> Value {
        json!({"contents": [{"role": "user", "parts": [{"text": "Q?"}]}], "generationConfig": config})
    }

    #[test]
    fn gemini_families_are_recognised_by_name() {
        let f = GeminiFamily::parse;
        assert_eq!(f("gemini-2.5-pro"), Some(GeminiFamily::Pro25));
        assert_eq!(f("gemini-2.5-pro-preview-05-06"), Some(GeminiFamily::Pro25));
        assert_eq!(f("gemini-2.5-flash-lite"), Some(GeminiFamily::FlashLite25));
        assert_eq!(f("gemini-2.5-flash"), Some(GeminiFamily::Flash25));
        assert_eq!(f("gemini-3-pro-preview"), Some(GeminiFamily::Three));
        assert_eq!(f("gemini-3.1-pro-preview"), Some(GeminiFamily::Three));
        assert_eq!(f("gemini-2.0-flash"), Some(GeminiFamily::NoThinking));
        for m in ["gem-a", "judge", "gemini-path", "..%2F..%2Fadmin", "gemini-2.5-flash-image", "gemini-30"] {
            assert_eq!(f(m), None, "{m}");
        }
    }

    #[test]
    fn gemini_thinking_budgets_per_family() {
        let budget = |n: i64| gemini_body(json!({"thinkingConfig": {"thinkingBudget": n}}));
        let r = refused(Wire::Gemini, "gemini-2.5-pro", budget(0));
        assert_eq!(
            r.body,
            json!({"error": {"code": 400, "message": "Budget 0 is invalid. This model only works in thinking mode.", "status": "INVALID_ARGUMENT"}})
        );
        assert_eq!(
            message(&refused(Wire::Gemini, "gemini-2.5-pro", budget(64))),
            "The thinking budget 64 is invalid. Please choose a value between 128 and 32768."
        );
        assert!(plan(Wire::Gemini, "gemini-2.5-pro", budget(-1)).is_ok());
        assert!(plan(Wire::Gemini, "gemini-2.5-pro", budget(128)).is_ok());
        assert_eq!(plan(Wire::Gemini, "gemini-2.5-flash", budget(0)).unwrap().thinking, 0);
        refused(Wire::Gemini, "gemini-2.5-flash", budget(24577));
        refused(Wire::Gemini, "gemini-2.5-flash-lite", budget(256));
        assert!(plan(Wire::Gemini, "gemini-2.5-flash-lite", budget(0)).is_ok());
        assert_eq!(plan(Wire::Gemini, "gemini-2.5-flash", budget(50)).unwrap().thinking, 50);
    }

    #[test]
    fn gemini_thinking_levels_are_for_gemini_3_only() {
        let level = |l: &str| gemini_body(json!({"thinkingConfig": {"thinkingLevel": l}}));
        assert_eq!(
            message(&refused(Wire::Gemini, "gemini-2.5-flash", level("low"))),
            "Thinking level is not supported for this model."
        );
        assert!(plan(Wire::Gemini, "gemini-3-pro-preview", level("low")).is_ok());
        assert!(plan(Wire::Gemini, "gemini-3-pro-preview", level("HIGH")).is_ok());
        refused(Wire::Gemini, "gemini-3-pro-preview", level("extreme"));
        let both = gemini_body(json!({"thinkingConfig": {"thinkingLevel": "low", "thinkingBudget": 1024}}));
        assert_eq!(
            message(&refused(Wire::Gemini, "gemini-3-pro-preview", both)),
            "You can only set only one of thinking budget and thinking level."
        );
    }

    #[test]
    fn gemini_refuses_unknown_names_and_roles() {
        let mut body = gemini_body(json!({"maxOutputTokens": 10, "max_tokens": 10}));
        body["messages"] = json!([]);
        let r = refused(Wire::Gemini, "gemini-2.5-flash", body);
        assert_eq!(r.body["error"]["status"], "INVALID_ARGUMENT");
        assert_eq!(
            message(&r),
            "Invalid JSON payload received. Unknown name \"messages\": Cannot find field.\nInvalid JSON payload received. Unknown name \"max_tokens\" at 'generation_config': Cannot find field."
        );
        assert_eq!(r.body["error"]["details"][0]["fieldViolations"][1]["field"], "generation_config");
        // Either spelling of a known field is fine.
        let snake =
            json!({"contents": [], "generation_config": {"max_output_tokens": 5}, "system_instruction": {"parts": []}});
        assert!(plan(Wire::Gemini, "gemini-2.5-flash", snake).is_ok());
        let body = json!({"contents": [{"role": "assistant", "parts": [{"text": "A"}]}]});
        assert_eq!(message(&refused(Wire::Gemini, "gemini-2.5-flash", body)), "Please use a valid role: user, model.");
    }

    #[test]
    fn gemini_thinks_by_default_and_shows_thoughts_when_asked() {
        let p = plan(Wire::Gemini, "gemini-2.5-pro", gemini_body(json!({"maxOutputTokens": 100}))).unwrap();
        assert_eq!((p.thinking, p.budget, p.show_thinking), (200, Some(100), false));
        let shown = gemini_body(json!({"thinkingConfig": {"includeThoughts": true}}));
        assert!(plan(Wire::Gemini, "gemini-2.5-flash", shown).unwrap().show_thinking);
        assert_eq!(plan(Wire::Gemini, "gemini-2.0-flash", gemini_body(json!({}))).unwrap().thinking, 0);
        assert_eq!(plan(Wire::Gemini, "gem-a", json!({"anything": 1})).unwrap(), Plan::default());
    }

    #[test]
    fn ollama_think_needs_a_thinking_model() {
        let body = json!({"model": "llama3", "messages": messages(), "think": true});
        let r = refused(Wire::Ollama, "llama3", body.clone());
        assert_eq!(r.body, json!({"error": "\"llama3:latest\" does not support thinking"}));
        let r = refused(Wire::Ollama, "qwen2.5:7b", json!({"think": "low"}));
        assert_eq!(r.body, json!({"error": "\"qwen2.5:7b\" does not support thinking"}));
        assert!(plan(Wire::Ollama, "llama3", json!({"think": false})).is_ok());
        let thinking = ModelScript { thinking: Some(true), reasoning_tokens: Some(30), ..Default::default() };
        let p = check(Wire::Ollama, "qwen3", &body, Headers::default(), &thinking).unwrap();
        assert_eq!((p.thinking, p.show_thinking, p.context), (30, true, Some(OLLAMA_DEFAULT_NUM_CTX)));
        let off = check(Wire::Ollama, "qwen3", &json!({"think": false}), Headers::default(), &thinking).unwrap();
        assert_eq!(off.thinking, 0);
        let sized = plan(Wire::Ollama, "llama3", json!({"options": {"num_ctx": 512, "num_predict": 9}})).unwrap();
        assert_eq!((sized.context, sized.budget), (Some(512), Some(9)));
    }

    #[test]
    fn fault_bodies_are_each_wires_own() {
        let o = overloaded(Wire::Anthropic);
        assert_eq!(
            (o.status, &o.body),
            (529, &json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
        );
        let r = rate_limited(Wire::Gemini, 15);
        assert_eq!((r.status, &r.body["error"]["status"]), (429, &json!("RESOURCE_EXHAUSTED")));
        assert_eq!(
            r.body["error"]["details"][1],
            json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "15s"})
        );
        assert!(message(&r).starts_with("You exceeded your current quota"));
    }

    #[test]
    fn lists_read_as_openai_writes_them() {
        assert_eq!(quoted_list(&["low", "medium", "high"]), "'low', 'medium', and 'high'");
        assert_eq!(quoted_list(&["a", "b"]), "'a' and 'b'");
    }
}
