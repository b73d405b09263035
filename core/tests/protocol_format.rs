//! docs/src/protocol-format.md, the book's reference of the protocol document format,
//! is generated here from the document's types: their source in
//! core/src/protocol/document/ (doc comments, fields, variants and serde
//! attributes). The test fails when the committed file is stale;
//! `AGON_BLESS=1 cargo test -p agon-core --test protocol_format` rewrites it.

// This test reads AGON_BLESS; the engine itself reads nothing from its environment.
#![allow(clippy::disallowed_methods)]

mod common;

use std::path::{Path, PathBuf};

/// The types of the format, in the order the reference shows them: (file, type).
const TYPES: &[(&str, &str)] = &[
    ("protocol/document/mod.rs", "Document"),
    ("protocol/document/mod.rs", "Rounds"),
    ("protocol/document/mod.rs", "Seats"),
    ("protocol/document/mod.rs", "Quorum"),
    ("protocol/document/speakers.rs", "Adversary"),
    ("protocol/document/speakers.rs", "Pick"),
    ("protocol/document/phases.rs", "PhaseDoc"),
    ("request.rs", "Phase"),
    ("protocol/document/phases.rs", "Order"),
    ("protocol/document/when.rs", "When"),
    ("protocol/document/labels.rs", "Draw"),
    ("protocol/document/phases.rs", "Part"),
    ("protocol/document/speakers.rs", "Speakers"),
    ("protocol/document/visibility.rs", "Sees"),
    ("protocol/document/visibility.rs", "Turns"),
    ("protocol/document/visibility.rs", "Labels"),
    ("protocol/document/visibility.rs", "Show"),
    ("protocol/document/visibility.rs", "ShowOrder"),
    ("protocol/document/phases.rs", "Prompt"),
    ("protocol/document/templates.rs", "Slot"),
    ("protocol/document/outputs.rs", "Output"),
    ("protocol/document/outputs.rs", "Kind"),
    ("protocol/document/ranking.rs", "Ranking"),
    ("protocol/document/phases.rs", "Adversarial"),
    ("protocol/document/stopping.rs", "Stop"),
    ("protocol/document/stopping.rs", "Consensus"),
    ("protocol/document/stopping.rs", "Rule"),
    ("protocol/document/stopping.rs", "Condition"),
    ("protocol/document/stopping.rs", "Among"),
    ("protocol/document/aggregators.rs", "Aggregate"),
    ("protocol/document/aggregators.rs", "Borda"),
    ("review/aggregate.rs", "ReviewAggregate"),
    ("review/policy.rs", "Policy"),
    ("review/finding.rs", "Severity"),
    ("ledger/aggregate.rs", "LedgerAggregate"),
    ("protocol/document/aggregators.rs", "Synthesis"),
    ("protocol/document/aggregators.rs", "Section"),
];

/// Phases a document may not use (validate.rs refuses them): the judge's and the session's.
const NOT_DEBATE_PHASES: &[&str] = &["synthesis", "summary", "confirmation"];

#[derive(Debug)]
struct Item {
    name: String,
    doc: Vec<String>,
    kebab: bool,
    is_enum: bool,
    members: Vec<Member>,
}

#[derive(Debug)]
struct Member {
    name: String,
    doc: Vec<String>,
    /// A field's type; a variant's payload (`(T)` or `{ a: T, b: U }`), if any.
    ty: Option<String>,
    /// `#[serde(default…)]`: a field that may be left out.
    defaulted: bool,
}

fn source(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The struct or enum `name` in rustfmt-formatted source, with its doc
/// comments and serde attributes.
fn item(text: &str, name: &str) -> Item {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| {
            let l = l.trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            l == format!("struct {name} {{") || l == format!("enum {name} {{")
        })
        .unwrap_or_else(|| panic!("no struct or enum {name}"));
    let mut doc = Vec::new();
    let mut kebab = false;
    for l in lines[..start].iter().rev() {
        let l = l.trim();
        if let Some(d) = l.strip_prefix("///") {
            doc.insert(0, d.trim().to_string());
        } else if l.starts_with("#[") {
            kebab |= l.contains("rename_all = \"kebab-case\"");
        } else {
            break;
        }
    }
    let is_enum = lines[start].contains("enum ");
    let mut members = Vec::new();
    let (mut pending_doc, mut defaulted) = (Vec::new(), false);
    let mut i = start + 1;
    while lines[i] != "}" {
        let l = lines[i].trim();
        i += 1;
        if let Some(d) = l.strip_prefix("///") {
            pending_doc.push(d.trim().to_string());
            continue;
        }
        if l.starts_with("#[") {
            defaulted |= l.contains("serde(default");
            continue;
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        let (name, ty) = if is_enum {
            let l = l.trim_end_matches(',');
            if let Some((name, rest)) = l.split_once('(') {
                (name.to_string(), Some(format!("({}", rest)))
            } else if let Some(name) = l.strip_suffix(" {") {
                // A struct variant over several lines: its fields up to `},`.
                let mut fields = Vec::new();
                while lines[i].trim() != "}," {
                    fields.push(lines[i].trim().trim_end_matches(',').to_string());
                    i += 1;
                }
                i += 1;
                (name.to_string(), Some(format!("{{ {} }}", fields.join(", "))))
            } else if let Some((name, rest)) = l.split_once(" {") {
                (name.to_string(), Some(format!("{{{rest}")))
            } else {
                (l.to_string(), None)
            }
        } else {
            let l = l.trim_start_matches("pub ").trim_end_matches(',');
            let (name, ty) = l.split_once(": ").unwrap_or_else(|| panic!("{name}: cannot read field line {l:?}"));
            (name.to_string(), Some(ty.to_string()))
        };
        members.push(Member { name, doc: std::mem::take(&mut pending_doc), ty, defaulted });
        defaulted = false;
    }
    Item { name: name.to_string(), doc, kebab, is_enum, members }
}

fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, ch) in name.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

/// What the reference calls a type: the format's own words, or a link to its section.
fn shown(ty: &str) -> String {
    let ty = ty.trim();
    let ty = ty.rsplit("::").next().unwrap_or(ty);
    if let Some(inner) = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        return shown(inner);
    }
    if let Some(inner) = ty.strip_prefix("Vec<").and_then(|t| t.strip_suffix('>')) {
        return format!("list of {}", shown(inner));
    }
    if let Some(inner) = ty.strip_prefix("BTreeMap<String, ").and_then(|t| t.strip_suffix('>')) {
        return format!("object: name → {}", shown(inner));
    }
    match ty {
        "String" => "text".into(),
        "u32" => "whole number".into(),
        "bool" => "true or false".into(),
        "Value" => "any JSON value".into(),
        "Version" => "`1`".into(),
        "Template" => "[template](#slot)".into(),
        other => format!("[{other}](#{})", other.to_ascii_lowercase()),
    }
}

fn prose(doc: &[String]) -> String {
    doc.join(" ").replace("[`bounds`](bounds::bounds)", "the bounds").replace("[`Adversary`]", "`Adversary`")
}

/// One type's section.
fn section(item: &Item, out: &mut String) {
    out.push_str(&format!("\n## {}\n\n", item.name));
    if !item.doc.is_empty() {
        out.push_str(&format!("{}\n\n", prose(&item.doc)));
    }
    if item.name == "Slot" {
        out.push_str("A template names slots in braces; `{{` and `}}` write a literal brace.\n\n");
        out.push_str("| slot | fills in |\n|---|---|\n");
        for m in &item.members {
            let slot =
                if m.ty.is_some() { "{PHASE.FIELD}".to_string() } else { format!("{{{}}}", m.name.to_lowercase()) };
            out.push_str(&format!("| `{slot}` | {} |\n", prose(&m.doc)));
        }
        return;
    }
    if item.is_enum {
        out.push_str("One of:\n\n");
        for m in &item.members {
            let name = if item.kebab { kebab(&m.name) } else { m.name.clone() };
            if item.name == "Phase" && NOT_DEBATE_PHASES.contains(&name.as_str()) {
                continue;
            }
            let form = match &m.ty {
                None => format!("`\"{name}\"`"),
                Some(t) if t.starts_with('(') => {
                    format!("`{{\"{name}\": …}}` with {}", shown(t.trim_start_matches('(').trim_end_matches(')')))
                }
                Some(t) => {
                    let fields: Vec<String> = t
                        .trim_matches(|c| c == '{' || c == '}' || c == ' ')
                        .split(", ")
                        .filter_map(|f| f.split_once(": "))
                        .map(|(f, ty)| format!("`{f}`: {}", shown(ty)))
                        .collect();
                    format!("`{{\"{name}\": {{…}}}}` with {}", fields.join(", "))
                }
            };
            let doc = prose(&m.doc);
            out.push_str(&format!("- {form}{}\n", if doc.is_empty() { String::new() } else { format!(" — {doc}") }));
        }
        return;
    }
    out.push_str("| field | type | required | meaning |\n|---|---|---|---|\n");
    for m in &item.members {
        let ty = m.ty.as_deref().unwrap_or_default();
        let required = if m.defaulted || ty.starts_with("Option<") { "no" } else { "yes" };
        out.push_str(&format!("| `{}` | {} | {required} | {} |\n", m.name, shown(ty), prose(&m.doc)));
    }
}

fn reference() -> String {
    let mut out = String::from(
        "# The protocol document format\n\n\
         <!-- Generated from the types in core/src/protocol/document/ by core/tests/protocol_format.rs: \
         do not edit. Regenerate with AGON_BLESS=1 cargo test -p agon-core --test protocol_format -->\n\n\
         A protocol document is JSON (the CLI also reads TOML and YAML and converts them). \
         [Write your own protocol](own-protocol.md) builds one step by step; `agon protocols --show NAME` \
         prints a built-in one. Every field below is checked when the document loads, and an error \
         names its JSON path (`protocol.phases[1].turns[0].prompt.user: unknown slot {histroy}`).\n",
    );
    out.push_str(&format!("\nThis is version {} of the format.\n", agon_core::DOCUMENT_VERSION));
    for (file, name) in TYPES {
        section(&item(&source(file), name), &mut out);
    }
    out
}

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/protocol-format.md")
}

#[test]
fn the_committed_reference_is_generated_from_the_types() {
    let fresh = reference();
    if common::blessing("docs/src/protocol-format.md") {
        std::fs::create_dir_all(committed().parent().unwrap()).unwrap();
        std::fs::write(committed(), &fresh).unwrap();
    }
    let old = std::fs::read_to_string(committed()).unwrap_or_default();
    assert!(
        old == fresh,
        "docs/src/protocol-format.md is stale: AGON_BLESS=1 cargo test -p agon-core --test protocol_format"
    );
}

/// The reader must not miss what documents use: every key of every shipped
/// document (normalized, defaults written out) is in the reference.
#[test]
fn the_reference_names_every_key_the_built_in_documents_use() {
    fn keys(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.clone());
                    keys(v, out);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let text = reference();
    for (name, document) in agon_core::BUILTIN_DOCUMENTS {
        let normalized: serde_json::Value =
            serde_json::from_str(&agon_core::check_document(document).unwrap()).unwrap();
        let mut found = Vec::new();
        keys(&normalized, &mut found);
        for key in found {
            assert!(
                text.contains(&format!("`{key}`")) || text.contains(&format!("\"{key}\"")),
                "{name}: the reference does not name `{key}`"
            );
        }
    }
    // And a type the parser reads as an enum keeps its variants.
    for slot in ["{question}", "{history}", "{stance}", "{PHASE.FIELD}"] {
        assert!(text.contains(slot), "{slot}");
    }
}
