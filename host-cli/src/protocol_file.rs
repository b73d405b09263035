//! A user's protocol document in a file: JSON, TOML or YAML, read into the
//! JSON document the engine interprets, and checked by the engine (so an
//! error names the file and the JSON path inside it).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::engine::{Runtime, wit};

/// A checked document, and where it came from.
#[derive(Debug, Clone)]
pub struct UserProtocol {
    pub file: PathBuf,
    /// The document as the engine normalized it.
    pub document: Value,
}

impl UserProtocol {
    pub fn name(&self) -> &str {
        self.document["name"].as_str().unwrap_or_default()
    }
}

/// The file's document as JSON, by its extension: `.toml`, `.yaml`/`.yml`,
/// anything else JSON. Not yet checked.
pub fn read(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    let parsed = match ext.as_str() {
        "toml" => toml::from_str::<toml::Value>(&text)
            .map_err(|e| e.to_string().trim_end().to_string())
            .and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string())),
        "yaml" | "yml" => serde_yaml_ng::from_str::<Value>(&text).map_err(|e| e.to_string()),
        _ => serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()),
    };
    parsed.map_err(|e| format!("{}: {e}", path.display()))
}

/// Read and check the document in `path`; errors name the file, then the
/// JSON path the engine found wrong (`protocol.phases[1].turns[0].prompt.user`).
pub fn load(runtime: &mut Runtime, path: &Path) -> anyhow::Result<Result<UserProtocol, String>> {
    let document = match read(path) {
        Ok(d) => d,
        Err(e) => return Ok(Err(e)),
    };
    Ok(check(runtime, &document)?
        .map(|document| UserProtocol { file: path.to_path_buf(), document })
        .map_err(|e| format!("{}: {e}", path.display())))
}

/// Check a document; the document as the engine normalized it, or the JSON
/// path of the mistake and what it is.
pub fn check(runtime: &mut Runtime, document: &Value) -> anyhow::Result<Result<Value, String>> {
    Ok(match runtime.check_document(&document.to_string())? {
        Ok(normalized) => Ok(serde_json::from_str(&normalized)?),
        Err(e) => Err(engine_reason(&e.0)),
    })
}

/// The engine's error without its "invalid spec:" lead: a file is not a spec.
fn engine_reason(e: &wit::Error) -> String {
    match &e.kind {
        wit::ErrorKind::InvalidSpec(s) if s.field.is_empty() => s.reason.clone(),
        wit::ErrorKind::InvalidSpec(s) => format!("{}: {}", s.field, s.reason),
        _ => e.message.clone(),
    }
}

/// What hosts show of a protocol, for a checked document: its facts, and the
/// options a spec may set for it (`adversary` when it declares one,
/// `consensus` when it stops on agreement).
pub fn info(document: &Value) -> wit::ProtocolInfo {
    let number = |v: &Value, default: u32| v.as_u64().map_or(default, |n| n as u32);
    let mut options = Vec::new();
    if document.get("adversary").is_some_and(|a| !a.is_null()) {
        options.push(wit::OptionInfo {
            name: "adversary".into(),
            kind: wit::OptionKind::Seat,
            default: "the document's pick".into(),
            help: "The seat that holds the document's adversarial role.".into(),
        });
    }
    let reads_agreement = document["stop"].get("consensus").is_some();
    if reads_agreement {
        options.push(wit::OptionInfo {
            name: "consensus".into(),
            kind: wit::OptionKind::Choice(vec!["read".into(), "declared".into(), "judge".into()]),
            default: "declared".into(),
            help: "How agreement is read before an early stop (judge: the judge's model confirms it).".into(),
        });
    }
    wit::ProtocolInfo {
        name: document["name"].as_str().unwrap_or_default().into(),
        summary: document["summary"].as_str().unwrap_or_default().into(),
        default_rounds: number(&document["rounds"]["default"], 1),
        max_rounds: number(&document["rounds"]["max"], 1),
        round_unit: document["rounds"]["unit"].as_str().unwrap_or("one pass").into(),
        min_seats: number(&document["seats"]["min"], 1),
        max_seats: document["seats"]["max"].as_u64().map(|n| n as u32),
        sides: vec![],
        options,
        reads_agreement,
        seats_are_roles: false,
    }
}

/// The document as `--show --format` asks: TOML, YAML or (otherwise) JSON.
pub fn render(document: &Value, format: &str) -> Result<String, String> {
    match format {
        "toml" => toml::to_string(document).map_err(|e| e.to_string()),
        "yaml" => serde_yaml_ng::to_string(document).map_err(|e| e.to_string()),
        _ => Ok(serde_json::to_string_pretty(document).map_err(|e| e.to_string())? + "\n"),
    }
}

/// The spec request's protocol part for a document: its name (with the
/// `:SEAT` of `NAME:SEAT`) and the document as the option `document`.
pub fn request_protocol(document: &Value, seat: Option<&str>) -> (String, Value) {
    let name = document["name"].as_str().unwrap_or_default();
    let protocol = match seat {
        Some(seat) => format!("{name}:{seat}"),
        None => name.to_string(),
    };
    (protocol, json!(document))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same document written three ways reads as one JSON document.
    #[test]
    fn toml_yaml_and_json_files_read_alike() {
        let dir = agon_testkit::sandbox::scratch("protocol-file");
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let toml = write("p.toml", "version = 1\nname = \"p\"\n[[phases]]\nphase = \"opening\"\nturns = []\n");
        let yaml = write("p.yaml", "version: 1\nname: p\nphases:\n  - phase: opening\n    turns: []\n");
        let json = write("p.json", r#"{"version": 1, "name": "p", "phases": [{"phase": "opening", "turns": []}]}"#);
        let expected = json!({"version": 1, "name": "p", "phases": [{"phase": "opening", "turns": []}]});
        for p in [toml, yaml, json] {
            assert_eq!(read(&p).unwrap(), expected, "{}", p.display());
        }
        let broken = write("b.toml", "version = \n");
        assert!(read(&broken).unwrap_err().starts_with(&broken.display().to_string()));
    }

    #[test]
    fn options_follow_what_the_document_declares() {
        let plain = info(&json!({"name": "p", "rounds": {"default": 2, "max": 4}, "seats": {"min": 3}}));
        assert!(plain.options.is_empty());
        assert_eq!((plain.default_rounds, plain.max_rounds, plain.min_seats, plain.max_seats), (2, 4, 3, None));
        let both = info(&json!({"name": "p", "adversary": {"title": "x", "pick": "seeded"},
            "stop": {"consensus": {"phase": "deliberation"}}}));
        let names: Vec<&str> = both.options.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["adversary", "consensus"]);
        assert!(both.reads_agreement);
    }
}
