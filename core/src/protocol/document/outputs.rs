//! What a turn is expected to answer with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ranking::Ranking;

/// The reply a part asks for: prose (optionally with a stated shape), or a
/// JSON object whose declared fields later templates, stops and the
/// transcript can use. JSON is read with the core's tolerant parser.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Output {
    /// The shape as the request's `expect` states it to the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    /// Declared fields of a JSON reply, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub json: BTreeMap<String, Kind>,
    /// A ranking of the drawn labels other than the speaker's own, read from
    /// the list after this marker (not beside `json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranking: Option<Ranking>,
}

/// What a declared JSON field holds; a reply whose field holds anything else is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Kind {
    /// A JSON string.
    Text,
    /// A JSON number.
    Number,
    /// `true` or `false`.
    Flag,
    /// A JSON array.
    List,
}

impl Kind {
    /// The field's value in a parsed reply, if it has this kind.
    pub fn read(self, v: &Value) -> Option<Value> {
        let ok = match self {
            Kind::Text => v.is_string(),
            Kind::Number => v.is_number(),
            Kind::Flag => v.is_boolean(),
            Kind::List => v.is_array(),
        };
        ok.then(|| v.clone())
    }

    fn example(self) -> &'static str {
        match self {
            Kind::Text => "\"...\"",
            Kind::Number => "0",
            Kind::Flag => "true|false",
            Kind::List => "[\"...\"]",
        }
    }
}

impl Output {
    /// What the request's `expect` says: the declared text, or the JSON shape.
    pub fn expect(&self) -> Option<String> {
        if let (None, Some(r)) = (&self.expect, &self.ranking) {
            return Some(format!("text: then '{}:' and a numbered list of the labels shown, best first", r.marker));
        }
        if self.expect.is_some() || self.json.is_empty() {
            return self.expect.clone();
        }
        let fields: Vec<String> = self.json.iter().map(|(k, kind)| format!("\"{k}\": {}", kind.example())).collect();
        Some(format!("json: {{{}}}", fields.join(", ")))
    }

    /// The declared fields read from a reply, or why they could not be.
    pub fn parse(&self, text: &str) -> Result<BTreeMap<String, Value>, String> {
        let Some(Value::Object(object)) = crate::parse::extract_json(text) else {
            return Err("no JSON object could be read from the reply".into());
        };
        let mut fields = BTreeMap::new();
        for (name, kind) in &self.json {
            match object.get(name).and_then(|v| kind.read(v)) {
                Some(v) => fields.insert(name.clone(), v),
                None => return Err(format!("the reply's JSON has no {} field '{name}'", kind.as_str())),
            };
        }
        Ok(fields)
    }
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Number => "number",
            Kind::Flag => "flag",
            Kind::List => "list",
        }
    }
}
