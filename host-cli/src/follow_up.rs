//! A follow-up on a kept session (`agon continue`, MCP's `continue`): the
//! parent read from the session store, and what the new debate inherits from
//! it. The engine makes the spec's parent section from the transcript
//! (`follows` in the spec request); this only finds the files.

use std::path::Path;

use serde_json::{Value, json};

use crate::request::{DebateRequest, Judge};
use crate::sessions::{self, SessionDir};

/// A finished session, as a follow-up needs it.
#[derive(Debug, Clone)]
pub struct ParentSession {
    pub id: String,
    /// Its transcript (JSON).
    pub transcript: Value,
    /// The spec it ran with, from its journal's first line.
    pub spec: Value,
}

/// The finished session `query` names (an id, a prefix of one, or `last`).
/// One that never finished is refused, saying how to finish it.
pub fn open(root: &Path, query: &str) -> Result<ParentSession, String> {
    let session = SessionDir::find(root, query)?;
    let id = session.id.clone();
    let unfinished = || {
        format!(
            "session {id} has not finished, so there is nothing to follow up yet: finish it with `agon resume {id}`, \
             then ask again"
        )
    };
    let header = first_line(&session.journal()).map_err(|e| format!("session {id}: reading its journal: {e}"))?;
    let spec = serde_json::from_str::<Value>(&header)
        .ok()
        .map(|h| h["spec"].clone())
        .filter(Value::is_object)
        .ok_or_else(|| format!("session {id}: its journal's first line holds no spec"))?;
    let path = session.dir.join(sessions::TRANSCRIPT_JSON);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(unfinished()),
        Err(e) => return Err(format!("session {id}: reading {}: {e}", path.display())),
    };
    let transcript: Value =
        serde_json::from_str(&text).map_err(|e| format!("session {id}: {} is not JSON: {e}", path.display()))?;
    if transcript["outcome"].is_null() {
        return Err(unfinished());
    }
    Ok(ParentSession { id, transcript, spec })
}

fn first_line(path: &Path) -> std::io::Result<String> {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(std::fs::File::open(path)?).read_line(&mut line)?;
    Ok(line)
}

impl ParentSession {
    /// What the spec request carries for the engine to build the parent section from.
    pub fn follows(&self) -> Value {
        json!({"session": self.id, "transcript": self.transcript})
    }

    /// Fill in what the asker left to the parent: its panel, judge, protocol
    /// (with its options) and rounds, each unless `chose` says it was chosen.
    /// Returns the settings taken, so agon.toml's defaults leave them be.
    pub fn inherit(&self, request: &mut DebateRequest, chose: &dyn Fn(&str) -> bool) -> Vec<&'static str> {
        let spec = &self.spec;
        let mut taken = Vec::new();
        if !chose("panel") {
            let models: Vec<String> = spec["panel"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["model"].as_str().map(str::to_string))
                .collect();
            if !models.is_empty() {
                request.panel = models;
                taken.push("panel");
            }
        }
        if !chose("judge") && !chose("no_judge") {
            request.judge = match spec["judge"]["model"].as_str() {
                Some(model) => Judge::Model(model.to_string()),
                None => Judge::Without,
            };
            taken.push("judge");
        }
        let protocol = &spec["protocol"];
        if !chose("protocol")
            && !chose("protocol_file")
            && let Some(name) = protocol["name"].as_str()
        {
            request.protocol = name.to_string();
            for (option, value) in protocol.as_object().into_iter().flatten() {
                match option.as_str() {
                    "name" => {}
                    "document" => request.document = Some(value.clone()),
                    // The compete history is today's, not the parent's.
                    "history" => {}
                    _ => {
                        request.options.insert(option.clone(), value.clone());
                    }
                }
            }
            taken.push("protocol");
            if !chose("rounds")
                && let Some(rounds) = spec["rounds"].as_u64()
            {
                request.rounds = Some(rounds as u32);
                taken.push("rounds");
            }
        }
        request.follows = Some(self.follows());
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent() -> ParentSession {
        ParentSession {
            id: "20261127-101500-3fa9".into(),
            transcript: json!({"question": "Ship?", "outcome": {"kind": "completed"}}),
            spec: json!({
                "question": "Ship?",
                "panel": [{"id": "a", "model": "openai/a"}, {"id": "b", "model": "openai/b"}],
                "judge": null,
                "protocol": {"name": "rotating-challenger", "challenger": "b", "history": [{"disagreements": 1}]},
                "rounds": 3,
            }),
        }
    }

    #[test]
    fn what_is_not_chosen_comes_from_the_parent() {
        let mut request = DebateRequest::new("Which Friday?");
        let taken = parent().inherit(&mut request, &|_| false);
        assert_eq!(taken, ["panel", "judge", "protocol", "rounds"]);
        assert_eq!(request.panel, ["openai/a", "openai/b"]);
        assert_eq!(request.judge, Judge::Without, "the parent had no judge");
        assert_eq!(request.protocol, "rotating-challenger");
        assert_eq!(request.options.get("challenger"), Some(&json!("b")));
        assert!(!request.options.contains_key("history"), "the compete history is today's");
        assert_eq!(request.rounds, Some(3));
        assert_eq!(request.follows.as_ref().unwrap()["session"], "20261127-101500-3fa9");
    }

    #[test]
    fn what_is_chosen_stays() {
        let mut request = DebateRequest::new("Which Friday?");
        request.panel = vec!["openai/c".into()];
        request.protocol = "ranked".into();
        let chose = |name: &str| ["panel", "protocol", "judge"].contains(&name);
        let taken = parent().inherit(&mut request, &chose);
        assert!(taken.is_empty(), "{taken:?}");
        assert_eq!((request.panel.as_slice(), request.protocol.as_str()), (&["openai/c".to_string()][..], "ranked"));
        assert_eq!(request.judge, Judge::Default);
        assert!(request.options.is_empty() && request.rounds.is_none(), "the parent's options go with its protocol");
        assert!(request.follows.is_some(), "still a follow-up");
    }
}
