//! What the tools take and give, as typed structs: their JSON Schemas
//! (2020-12) are generated from these, and their doc comments are the
//! descriptions the calling model reads.
//!
//! Optional fields are left out rather than `null`: some clients reject the
//! `["string", "null"]` unions schemars writes for `Option` by default.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Run a debate.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DebateArgs {
    /// The question the council debates, as a person would ask it.
    pub question: String,
    /// Background every speaker reads with the question: code, a diff, a design, the facts so far.
    #[serde(default)]
    pub context: Option<String>,
    /// Files every speaker reads with the question, quoted under their paths: paths or globs
    /// (`src/**/*.rs`) relative to the server's first root (`agon mcp --root DIR`, default its
    /// working folder); an absolute path must lie in a root. Text only; `..` and files outside
    /// the roots are refused. Each file's path, size and SHA-256 go in the transcript.
    #[serde(default)]
    pub files: Vec<String>,
    /// The protocol (see the `protocols` tool), e.g. rotating-challenger, ranked, adversarial.
    /// Default: agon.toml's, else round-robin.
    #[serde(default)]
    pub protocol: Option<String>,
    /// One model reference per seat, `provider/model` (e.g. `openai/gpt-4o`, `ollama/llama3.2`),
    /// or a panel name from agon.toml. Default: agon.toml's panel, else what this machine offers
    /// (local servers' models; programs only with --allow-programs), as `agon run` seats it.
    /// `mcp/client` seats your own model: agon asks it through MCP sampling.
    #[serde(default)]
    pub panel: Vec<String>,
    /// The judge's model. Default: the panel's judge in agon.toml, else the first panel model.
    #[serde(default)]
    pub judge: Option<String>,
    /// End without a judge's synthesis.
    #[serde(default)]
    pub no_judge: bool,
    /// Debate rounds. Default: the protocol's own.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub rounds: Option<u32>,
    /// Ceiling on each turn's reply, in tokens. Default: agon.toml's, else 512.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// Refuse the debate when its worst-case cost is above this many US dollars, and stop it
    /// should its spending pass it.
    #[serde(default)]
    #[schemars(range(min = 0.0))]
    pub max_cost: Option<f64>,
    /// The seed for every random choice the protocol makes (same seed, same choices).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The protocol's own options, by the names the `protocols` tool lists
    /// (e.g. `{"compete": "compete"}` for adversarial, `{"options": ["Postgres", "DynamoDB"]}`
    /// for comparative, `{"items": [...]}` for priority-vote).
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// A protocol of your own: a protocol document (JSON; the format is agon's
    /// docs/src/protocol-format.md, and `agon protocols --show NAME` prints one to
    /// start from). The debate then runs it; `protocol`, if given, must be its name.
    #[serde(default)]
    pub document: Option<Value>,
    /// false: return as soon as the debate has begun (outcome `running`, with its session), and
    /// follow it with `status`; for clients that time out a long call. Default true.
    #[serde(default)]
    pub wait: Option<bool>,
}

/// A follow-up on a finished debate.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContinueArgs {
    /// The finished session to follow up (its id, a unique prefix of it, or `last`).
    pub session: String,
    /// The follow-up question, as a person would ask it.
    pub question: String,
    /// Background for the follow-up. Default: the earlier debate's.
    #[serde(default)]
    pub context: Option<String>,
    /// Files for the follow-up, as `debate` takes them (inside the server's roots). Default: the
    /// earlier debate's files that read the same inside the roots today.
    #[serde(default)]
    pub files: Vec<String>,
    /// A protocol other than the earlier debate's (see the `protocols` tool).
    #[serde(default)]
    pub protocol: Option<String>,
    /// A panel other than the earlier debate's: one `provider/model` per seat, or a panel name from agon.toml.
    #[serde(default)]
    pub panel: Vec<String>,
    /// A judge other than the earlier debate's.
    #[serde(default)]
    pub judge: Option<String>,
    /// End without a judge's synthesis.
    #[serde(default)]
    pub no_judge: bool,
    /// Debate rounds. Default: the earlier debate's, else the protocol's own.
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub rounds: Option<u32>,
    /// Refuse the follow-up when its worst-case cost is above this many US dollars, and stop it
    /// should its spending pass it.
    #[serde(default)]
    #[schemars(range(min = 0.0))]
    pub max_cost: Option<f64>,
    /// Ceiling on each turn's reply, in tokens. Default: agon.toml's, else 512.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u32>,
    /// The seed for every random choice the protocol makes.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The protocol's own options, when `protocol` chooses another one.
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// false: return as soon as the follow-up has begun, and follow it with `status`, as
    /// `debate` does. Default true.
    #[serde(default)]
    pub wait: Option<bool>,
}

impl ContinueArgs {
    /// The `debate` these arguments ask for, before the parent fills in the rest.
    pub fn debate(&self) -> DebateArgs {
        DebateArgs {
            question: self.question.clone(),
            context: self.context.clone(),
            files: self.files.clone(),
            protocol: self.protocol.clone(),
            panel: self.panel.clone(),
            judge: self.judge.clone(),
            no_judge: self.no_judge,
            rounds: self.rounds,
            max_tokens: self.max_tokens,
            max_cost: self.max_cost,
            seed: self.seed,
            options: self.options.clone(),
            document: None,
            wait: self.wait,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// The session a `debate` with `wait: false` returned.
    pub session: String,
    /// Stop the debate; every answered turn is kept for `resume`.
    #[serde(default)]
    pub cancel: bool,
}

/// No arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// One kept session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowArgs {
    /// The session id (or a unique prefix of it, or `last`).
    pub session: String,
    /// markdown (default) or json.
    #[serde(default)]
    pub format: ShowFormat,
}

#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ShowFormat {
    #[default]
    Markdown,
    Json,
}

/// Finish an interrupted session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeArgs {
    /// The session id (or a unique prefix of it, or `last`).
    pub session: String,
    /// Ask again every failed call, whatever its failure; by default only calls that never
    /// reached their model (and calls never answered) are asked.
    #[serde(default)]
    pub retry_failed: bool,
}

/// How a debate ended, and what it concluded.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DebateResult {
    /// The session that keeps this debate (`show`, `resume`).
    pub session: String,
    /// The whole transcript, as an MCP resource (`resources/read`).
    pub transcript: String,
    pub outcome: Outcome,
    /// The judge's synthesis, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<String>,
    /// Each seat's last word.
    pub positions: Vec<Position>,
    /// The protocol's own results (rankings, scorecards, verdicts, reviews), by name.
    pub results: BTreeMap<String, Value>,
    /// What the engine warned about on the way (an unreadable verdict, a judge on the panel, …).
    pub warnings: Vec<String>,
    pub usage: Usage,
    /// What was cut to keep the result under the server's cap (`--max-result-tokens`), and
    /// where it is whole; empty when nothing was.
    pub shortened: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Outcome {
    /// completed, consensus, degraded, judge-failed, no-quorum, cost-limit, or interrupted.
    pub kind: String,
    /// False when the result does not carry full authority: read `reason` first.
    pub complete: bool,
    pub headline: String,
    pub reason: String,
    /// What to do next, when the debate did not finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Position {
    pub seat: String,
    pub model: String,
    pub round: u32,
    pub text: String,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct Usage {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// In US dollars, when every model has a price in agon.toml.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// The worst case of a debate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Estimate {
    pub calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// In US dollars, when every model has a price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Models without a price in agon.toml.
    pub unpriced: Vec<String>,
}

/// The protocols, as `agon protocols` lists them.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Protocols {
    pub protocols: Vec<ProtocolInfo>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProtocolInfo {
    pub name: String,
    pub summary: String,
    pub min_seats: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_seats: Option<u32>,
    pub default_rounds: u32,
    pub max_rounds: u32,
    pub options: Vec<OptionInfo>,
    /// A protocol of the user's own (agon.toml's `[protocols]`): its document's file. Absent for the built-ins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OptionInfo {
    pub name: String,
    /// seat, choice, flag, text, texts or data.
    pub kind: String,
    /// For a choice: the words it takes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// The default in words; empty when required.
    pub default: String,
    pub help: String,
}

/// The kept sessions, newest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sessions {
    pub sessions: Vec<Value>,
}

/// A JSON Schema 2020-12 for what `T` accepts (inputs) or writes (outputs).
pub fn input<T: JsonSchema>() -> Arc<JsonObject> {
    schema::<T>(SchemaSettings::draft2020_12())
}

pub fn output<T: JsonSchema>() -> Arc<JsonObject> {
    schema::<T>(SchemaSettings::draft2020_12().for_serialize())
}

fn schema<T: JsonSchema>(settings: SchemaSettings) -> Arc<JsonObject> {
    let mut value = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).expect("a schema");
    without_null(&mut value);
    match value {
        Value::Object(object) => Arc::new(object),
        other => unreachable!("a derived schema is an object: {other:?}"),
    }
}

/// An `Option` field is one that may be left out: drop the `null` schemars
/// adds to its type (`["string", "null"]`, or `anyOf: [{…}, {"type": "null"}]`),
/// and its `"default": null`.
fn without_null(value: &mut Value) {
    match value {
        Value::Object(o) => {
            if o.get("default").is_some_and(Value::is_null) {
                o.remove("default");
            }
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    o.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(any)) = o.get_mut("anyOf") {
                any.retain(|s| s.get("type").is_none_or(|t| t != "null"));
                if let [Value::Object(only)] = any.as_slice() {
                    let only = only.clone();
                    o.remove("anyOf");
                    for (k, v) in only {
                        o.entry(k).or_insert(v);
                    }
                }
            }
            o.values_mut().for_each(without_null);
        }
        Value::Array(items) => items.iter_mut().for_each(without_null),
        _ => {}
    }
}

/// Arguments into `T`; a bad one is named by its path (`rounds`, `options.compete`).
pub fn parse<T: serde::de::DeserializeOwned>(arguments: Option<JsonObject>) -> Result<T, String> {
    let value = Value::Object(arguments.unwrap_or_default());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path == "." { inner } else { format!("{path}: {inner}") }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_are_not_nullable_and_only_the_question_is_required() {
        let s = Value::Object((*input::<DebateArgs>()).clone());
        assert_eq!(s["required"], serde_json::json!(["question"]));
        assert_eq!(s["properties"]["judge"]["type"], "string");
        assert!(!s.to_string().contains("null"), "{s}");
        let out = Value::Object((*output::<DebateResult>()).clone());
        assert!(!out.to_string().contains("\"null\""), "{out}");
        assert_eq!(s["properties"]["rounds"]["minimum"], 1);
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    }

    #[test]
    fn bad_arguments_name_their_field() {
        let args = |v: Value| parse::<DebateArgs>(v.as_object().cloned());
        assert_eq!(
            args(serde_json::json!({"question": "q", "rounds": "two"})).unwrap_err().split(':').next(),
            Some("rounds")
        );
        assert!(args(serde_json::json!({})).unwrap_err().contains("missing field `question`"));
        assert!(args(serde_json::json!({"question": "q", "rouns": 2})).unwrap_err().contains("unknown field `rouns`"));
        assert!(args(serde_json::json!({"question": "q", "rounds": 2})).is_ok());
    }
}
