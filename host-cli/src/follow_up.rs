//! A follow-up on a kept session (`agon continue`, MCP's `continue`): the
//! parent read from the session store, and what the new debate inherits from
//! it. The engine makes the spec's parent section from the transcript
//! (`follows` in the spec request); this only finds the files.

use std::path::Path;

use serde_json::{Value, json};

use crate::options::{Options, PanelChoice, ProtocolChoice};
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
    /// What the spec request carries for the engine to build the parent
    /// section from, with the parent's files as its spec holds them.
    pub fn follows(&self) -> Value {
        let files = self.spec.get("files").cloned().unwrap_or_else(|| json!([]));
        json!({"session": self.id, "transcript": self.transcript, "files": files})
    }

    /// Keep only the parent's files that read the same inside `scope` today,
    /// so a door that limits what may be read (`agon mcp`'s roots) never
    /// carries a file its caller could not read itself. Returns the paths
    /// left out.
    pub fn keep_files_readable_in(&mut self, scope: &crate::context_files::FileScope) -> Vec<String> {
        let Some(files) = self.spec.get_mut("files").and_then(Value::as_array_mut) else {
            return Vec::new();
        };
        let mut left_out = Vec::new();
        let no_stdin = &mut |_| Err(std::io::Error::other("not here"));
        files.retain(|file| {
            let (path, text) = (file["path"].as_str().unwrap_or_default(), file["text"].as_str());
            let same = crate::context_files::read(&[path.to_string()], scope, no_stdin)
                .is_ok_and(|read| read.len() == 1 && Some(read[0].text.as_str()) == text);
            if !same {
                left_out.push(path.to_string());
            }
            same
        });
        left_out
    }

    /// Whether the parent read any files.
    fn has_files(&self) -> bool {
        self.spec["files"].as_array().is_some_and(|f| !f.is_empty())
    }

    /// What the asker left to the parent, as a layer under what was
    /// `asked`: its panel, judge, protocol (its options and document go
    /// into the request) and rounds. Also the names of what was taken,
    /// context and files included, to say so.
    pub fn inherit(&self, request: &mut DebateRequest, asked: &Options) -> (Options, Vec<&'static str>) {
        let spec = &self.spec;
        let (mut layer, mut taken) = (Options::default(), Vec::new());
        if asked.panel.is_none() {
            let models: Vec<String> = spec["panel"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["model"].as_str().map(str::to_string))
                .collect();
            if !models.is_empty() {
                layer.panel = Some(PanelChoice::Models(models));
                taken.push("panel");
            }
        }
        if asked.judge.is_none() {
            layer.judge = Some(match spec["judge"]["model"].as_str() {
                Some(model) => Judge::Model(model.to_string()),
                None => Judge::Without,
            });
            taken.push("judge");
        }
        let protocol = &spec["protocol"];
        if asked.protocol.is_none()
            && let Some(name) = protocol["name"].as_str()
        {
            layer.protocol = Some(ProtocolChoice::Named(name.to_string()));
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
            if asked.rounds.is_none()
                && let Some(rounds) = spec["rounds"].as_u64()
            {
                layer.rounds = Some(rounds as u32);
                taken.push("rounds");
            }
        }
        // The engine carries the parent's context and files into a request
        // that brings none of its own (see `follows`); agon.toml's files do not replace them.
        if request.context.is_none() && self.spec["context"].is_string() {
            taken.push("context");
        }
        if asked.files.is_none() && self.has_files() {
            layer.files = Some(Vec::new());
            taken.push("files");
        }
        request.follows = Some(self.follows());
        (layer, taken)
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

    /// The parent's layer under `asked`, written into the request; what was taken.
    fn inherited(parent: &ParentSession, request: &mut DebateRequest, asked: Options) -> Vec<&'static str> {
        use crate::options::Combine;
        let (layer, taken) = parent.inherit(request, &asked);
        request.take_settings(asked.combine(layer));
        taken
    }

    #[test]
    fn what_is_not_chosen_comes_from_the_parent() {
        let mut request = DebateRequest::new("Which Friday?");
        let taken = inherited(&parent(), &mut request, Options::default());
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
    fn the_parents_context_and_files_come_unless_the_follow_up_brings_its_own() {
        let mut with_material = parent();
        with_material.spec["context"] = json!("Budget is fixed.");
        with_material.spec["files"] = json!([{"path": "plan.md", "text": "Ship on Friday.\n"}]);
        let mut request = DebateRequest::new("Which Friday?");
        let taken = inherited(&with_material, &mut request, Options::default());
        assert_eq!(taken, ["panel", "judge", "protocol", "rounds", "context", "files"]);
        assert_eq!(request.follows.as_ref().unwrap()["files"][0]["path"], "plan.md");
        let mut own = DebateRequest::new("Which Friday?");
        let asked = Options { files: Some(vec!["notes.md".into()]), ..Options::default() };
        let taken = inherited(&with_material, &mut own, asked);
        assert!(!taken.contains(&"files") && taken.contains(&"context"), "{taken:?}");
        assert_eq!(own.settings.files, Some(vec!["notes.md".to_string()]));
    }

    #[test]
    fn what_is_chosen_stays() {
        let mut request = DebateRequest::new("Which Friday?");
        let asked = Options {
            panel: Some(PanelChoice::Models(vec!["openai/c".into()])),
            protocol: Some(ProtocolChoice::Named("ranked".into())),
            judge: Some(Judge::Model("openai/j".into())),
            ..Options::default()
        };
        let taken = inherited(&parent(), &mut request, asked);
        assert!(taken.is_empty(), "{taken:?}");
        assert_eq!((request.panel.as_slice(), request.protocol.as_str()), (&["openai/c".to_string()][..], "ranked"));
        assert_eq!(request.judge, Judge::Model("openai/j".into()));
        assert!(request.options.is_empty() && request.rounds.is_none(), "the parent's options go with its protocol");
        assert!(request.follows.is_some(), "still a follow-up");
    }
}
