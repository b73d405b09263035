//! A user's protocol document in a file: JSON, TOML or YAML, read into the
//! JSON document the engine interprets, and checked by the engine (so an
//! error names the file and the JSON path inside it).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::engine::{Runtime, wit};

/// A document the engine checked: as it normalized it, and as it describes it.
#[derive(Debug, Clone)]
pub struct Checked {
    pub document: Value,
    /// Its name, rounds, seats and the options a spec may set for it, read
    /// by the engine (as `protocols` gives a built-in's).
    pub info: wit::ProtocolInfo,
}

impl Checked {
    pub fn name(&self) -> &str {
        &self.info.name
    }
}

/// A checked document, and where it came from.
#[derive(Debug, Clone)]
pub struct UserProtocol {
    pub file: PathBuf,
    pub checked: Checked,
}

impl UserProtocol {
    pub fn name(&self) -> &str {
        self.checked.name()
    }
}

/// The file's document as JSON, by its extension: `.toml`, `.yaml`/`.yml`,
/// anything else JSON. Not yet checked.
pub fn read(path: &Path) -> Result<Value, String> {
    let text = crate::bounded::read_text(path, crate::bounded::DOCUMENT_LIMIT, "protocol document")
        .map_err(|e| e.to_string())?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
    if matches!(ext.as_str(), "yaml" | "yml") {
        yaml_depth_within(&text, MAX_YAML_DEPTH).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let parsed = match ext.as_str() {
        "toml" => toml::from_str::<toml::Value>(&text)
            .map_err(|e| e.to_string().trim_end().to_string())
            .and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string())),
        "yaml" | "yml" => serde_yaml_ng::from_str::<Value>(&text).map_err(|e| e.to_string()),
        _ => serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()),
    };
    parsed.map_err(|e| format!("{}: {e}", path.display()))
}

/// Deeper than any protocol document needs (they nest a handful of levels),
/// and shallow enough that the YAML parser, which slows down with depth
/// faster than linearly, stays quick.
pub const MAX_YAML_DEPTH: usize = 64;

/// Checked before parsing, from the text alone: flow nesting (`[`, `{`)
/// and block nesting (each line's indentation and leading
/// `- ` marks, which open a level apiece). A rough count that never
/// under-counts a deep document, so the parser never sees one.
fn yaml_depth_within(text: &str, max: usize) -> Result<(), String> {
    let mut flow = 0usize;
    for (n, line) in text.lines().enumerate() {
        let rest = line.trim_start_matches(' ');
        let mut block = (line.len() - rest.len()) / 2;
        let mut rest = rest;
        while let Some(r) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("? ")) {
            block += 1;
            rest = r.trim_start_matches(' ');
        }
        // Brackets in quoted text count too: counting more never lets a deep
        // document through, and a real one is far from the limit anyway.
        let mut deepest = flow;
        for b in rest.bytes() {
            match b {
                b'[' | b'{' => {
                    flow += 1;
                    deepest = deepest.max(flow);
                }
                b']' | b'}' => flow = flow.saturating_sub(1),
                _ => {}
            }
        }
        if block + deepest > max {
            return Err(format!(
                "line {}: nested deeper than {max} levels; a protocol document needs a handful",
                n + 1
            ));
        }
    }
    Ok(())
}

/// Read and check the document in `path`; errors name the file, then the
/// JSON path the engine found wrong (`protocol.phases[1].turns[0].prompt.user`).
pub fn load(runtime: &mut Runtime, path: &Path) -> anyhow::Result<Result<UserProtocol, String>> {
    let document = match read(path) {
        Ok(d) => d,
        Err(e) => return Ok(Err(e)),
    };
    Ok(check(runtime, &document)?
        .map(|checked| UserProtocol { file: path.to_path_buf(), checked })
        .map_err(|e| format!("{}: {e}", path.display())))
}

/// Check a document: as the engine normalized and described it, or the JSON
/// path of the mistake and what it is.
pub fn check(runtime: &mut Runtime, document: &Value) -> anyhow::Result<Result<Checked, String>> {
    let normalized = match runtime.check_document(&document.to_string())? {
        Ok(normalized) => normalized,
        Err(e) => return Ok(Err(engine_reason(&e.0))),
    };
    let info = runtime.document_info(&normalized)?.map_err(|e| anyhow::anyhow!("a checked document: {e}"))?;
    Ok(Ok(Checked { document: serde_json::from_str(&normalized)?, info }))
}

/// The engine's error without its "invalid spec:" lead: a file is not a spec.
fn engine_reason(e: &wit::Error) -> String {
    match &e.kind {
        wit::ErrorKind::InvalidSpec(s) if s.field.is_empty() => s.reason.clone(),
        wit::ErrorKind::InvalidSpec(s) => format!("{}: {}", s.field, s.reason),
        _ => e.message.clone(),
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
mod depth_tests {
    use super::*;

    #[test]
    fn deep_yaml_is_refused_before_parsing_and_ordinary_yaml_is_not() {
        let deep_flow = "a: ".to_string() + &"[".repeat(65) + &"]".repeat(65);
        let deep_block: String = (0..70).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect();
        let dashes = "- ".repeat(70) + "x";
        for text in [&deep_flow, &deep_block, &dashes] {
            let e = yaml_depth_within(text, MAX_YAML_DEPTH).unwrap_err();
            assert!(e.contains("nested deeper than 64 levels"), "{e}");
        }
        let ordinary = "version: 1\nphases:\n  - name: open\n    turns:\n      - prompt: {user: \"[x] {question}\"}\n";
        assert_eq!(yaml_depth_within(ordinary, MAX_YAML_DEPTH), Ok(()));
    }
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
}
