//! What the tools take and give, as typed structs: their JSON Schemas
//! (2020-12) are generated from these, and their doc comments are the
//! descriptions the calling model reads.
//!
//! Optional fields are left out rather than `null`: some clients reject the
//! `["string", "null"]` unions schemars writes for `Option` by default.

use std::collections::BTreeMap;
use std::sync::Arc;

use agon_cli::options::{Options, PanelChoice, ProtocolChoice};
use agon_cli::request::Judge;
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Declares `debate`'s and `continue`'s arguments from one list of the
/// fields they share, each once with its type, bounds and default, and the
/// description each tool gives it (a follow-up's defaults are the earlier
/// debate's). Not serde's `flatten`: it would let unknown fields through and
/// lose the field's name from a bad value's error.
macro_rules! debate_and_continue {
    ($( $(#[$attr:meta])* $field:ident: $ty:ty, $debate:literal, $follow_up:literal; )*) => {
        // Run a debate. The field docs are the descriptions the calling model reads,
        // in its context for the whole session: a phrase each.
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct DebateArgs {
            $( #[doc = $debate] $(#[$attr])* pub $field: $ty, )*
            /// Every seat's field of expertise.
            #[serde(default)]
            pub domain: Option<String>,
            /// Per seat id, over `domain`.
            #[serde(default)]
            pub seat_domains: BTreeMap<String, String>,
            /// Round 1 answered blind.
            #[serde(default)]
            pub blind: bool,
            /// A protocol document of your own (JSON; `agon protocols --show NAME` prints one).
            #[serde(default)]
            pub document: Option<Value>,
        }

        /// A follow-up on a finished debate.
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct ContinueArgs {
            /// The finished session: id, prefix or `last`.
            pub session: String,
            $( #[doc = $follow_up] $(#[$attr])* pub $field: $ty, )*
        }

        impl ContinueArgs {
            /// The `debate` these arguments ask for, before the parent fills in the rest.
            pub fn debate(&self) -> DebateArgs {
                DebateArgs {
                    $( $field: self.$field.clone(), )*
                    domain: None,
                    seat_domains: BTreeMap::new(),
                    blind: false,
                    document: None,
                }
            }
        }
    };
}

debate_and_continue! {
    question: String, "The question, as a person would ask it.", "The follow-up question.";
    #[serde(default)]
    context: Option<String>, "Background every speaker reads: code, a diff, a design, facts.",
        "Default: the earlier debate's.";
    #[serde(default)]
    files: Vec<String>,
        "Text files every speaker reads: paths or globs in the server's root (`--root`). Dotfiles and\npaths outside the roots are refused.",
        "Default: the earlier debate's, those still the same.";
    #[serde(default)]
    protocol: Option<String>, "See `protocols`. Default: agon.toml's, else round-robin.",
        "Default: the earlier debate's.";
    #[serde(default)]
    panel: Vec<String>,
        "`provider/model` per seat, only when the user named models (`mcp/client`: your own model).\nDefault: agon.toml's panel, else what this machine offers.",
        "Default: the earlier debate's.";
    #[serde(default)]
    judge: Option<String>, "The judge's model. Default: agon.toml's, else agon's choice.",
        "Default: the earlier debate's.";
    #[serde(default)]
    no_judge: bool, "No judge's synthesis.", "No judge's synthesis.";
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    rounds: Option<u32>, "Default: the protocol's.", "Default: the earlier debate's.";
    #[serde(default)]
    #[schemars(range(min = 1))]
    max_tokens: Option<u32>, "Tokens per reply at most. Default: agon.toml's, else 512.", "As `debate`'s.";
    #[serde(default)]
    #[schemars(range(min = 0.0))]
    max_cost: Option<f64>, "US dollars: refuse a worst case above it, stop when spending passes it.",
        "As `debate`'s.";
    #[serde(default)]
    seed: Option<u64>, "Seed of the protocol's random choices.", "As `debate`'s.";
    #[serde(default)]
    options: BTreeMap<String, Value>, "The protocol's own options, as `protocols` names them.",
        "For another `protocol`.";
    #[serde(default)]
    wait: Option<bool>, "false: return at once (outcome `running`) and follow with `status`. Default true.",
        "As `debate`'s.";
}

impl DebateArgs {
    /// The settings this call asks for, as a layer over agon.toml; an argument left out is `None`.
    pub fn options(&self) -> Result<Options, String> {
        let protocol = match (&self.document, &self.protocol) {
            (Some(document), asked) => {
                let name = document["name"].as_str().unwrap_or_default();
                match asked {
                    Some(p) if p.split(':').next().unwrap_or_default().trim() != name => {
                        return Err(format!("protocol: '{p}', but the document is named '{name}'"));
                    }
                    // `NAME:SEAT` names the document's adversary.
                    Some(p) => Some(p.clone()),
                    None => Some(name.to_string()),
                }
            }
            (None, asked) => asked.clone(),
        };
        Ok(Options {
            protocol: protocol.map(ProtocolChoice::Named),
            panel: (!self.panel.is_empty()).then(|| PanelChoice::of(self.panel.clone())),
            judge: match (&self.judge, self.no_judge) {
                (Some(_), true) => return Err("judge and no_judge: give one or the other".into()),
                (Some(j), false) => Some(Judge::Model(j.clone())),
                (None, true) => Some(Judge::Without),
                (None, false) => None,
            },
            rounds: self.rounds,
            max_tokens: self.max_tokens,
            max_cost: self.max_cost,
            blind: self.blind.then_some(true),
            files: (!self.files.is_empty()).then(|| self.files.clone()),
            ..Options::default()
        })
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// The session the start returned.
    pub session: String,
    /// Stop the debate.
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
    /// Id, prefix or `last`.
    pub session: String,
    /// Default markdown (`md` too, as the CLI takes it).
    #[serde(default)]
    pub format: ShowFormat,
}

#[derive(Debug, Default, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ShowFormat {
    #[default]
    #[serde(alias = "md")]
    Markdown,
    Json,
}

/// Finish an interrupted session.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResumeArgs {
    /// Id, prefix or `last`.
    pub session: String,
    /// Ask again every failed call too, not only those that never reached their model.
    #[serde(default)]
    pub retry_failed: bool,
}

/// How a debate ended, and what it concluded.
#[derive(Debug, Serialize)]
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
    /// The protocol's own results (rankings, scorecards, verdicts, reviews), by
    /// name, each with its kind (how it is shown) and its data.
    pub results: BTreeMap<String, agon_core::NamedResult>,
    /// What the engine warned about on the way (an unreadable verdict, a judge on the panel, …).
    pub warnings: Vec<String>,
    pub usage: Usage,
    /// What was cut to keep the result under the server's cap (`--max-result-tokens`), and
    /// where it is whole; empty when nothing was.
    pub shortened: Vec<String>,
}

#[derive(Debug, Serialize)]
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

#[derive(Debug, Serialize)]
pub struct Position {
    pub seat: String,
    pub model: String,
    pub round: u32,
    pub text: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Usage {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// In US dollars, when every model has a price in agon.toml.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// The worst case of a debate.
#[derive(Debug, Serialize)]
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

/// A JSON Schema for what `T` accepts: 2020-12, MCP's default dialect, so
/// without `$schema`; integers without schemars' `format` (`uint32`), which
/// says nothing a client checks that `minimum` does not.
pub fn input<T: JsonSchema>() -> Arc<JsonObject> {
    let mut value = serde_json::to_value(SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>())
        .expect("a schema");
    without_null(&mut value);
    // The tool's own description says what it is; its name is the tool's.
    if let Value::Object(o) = &mut value {
        for key in ["$schema", "title", "description"] {
            o.remove(key);
        }
    }
    without_formats(&mut value);
    match value {
        Value::Object(object) => Arc::new(object),
        other => unreachable!("a derived schema is an object: {other:?}"),
    }
}

/// `estimate`'s arguments: `debate`'s, checked as `debate` checks them
/// (unknown fields named), and said once rather than twice in the list.
pub fn debate_arguments() -> Arc<JsonObject> {
    let schema = serde_json::json!({
        "type": "object",
        "description": "The arguments of `debate`.",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    });
    match schema {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!(),
    }
}

fn without_formats(value: &mut Value) {
    match value {
        Value::Object(o) => {
            if o.get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("uint") || f.starts_with("int") || f == "double")
            {
                o.remove("format");
            }
            o.values_mut().for_each(without_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(without_formats),
        _ => {}
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
        assert_eq!(s["properties"]["rounds"]["minimum"], 1);
        assert!(s.get("$schema").is_none() && !s.to_string().contains("uint"), "{s}");
    }

    #[test]
    fn show_takes_md_as_the_cli_does() {
        let format =
            |f: &str| parse::<ShowArgs>(serde_json::json!({"session": "last", "format": f}).as_object().cloned());
        assert!(matches!(format("md").unwrap().format, ShowFormat::Markdown));
        assert!(matches!(format("markdown").unwrap().format, ShowFormat::Markdown));
        assert!(format("html").is_err());
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
