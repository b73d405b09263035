//! The spec a [`DebateRequest`] makes: the files it names read and checked,
//! agon.toml's triggers, consensus mode and protocols, the compete history,
//! the model catalog; the engine decides the seats.

use anyhow::Result;

use crate::compete_history::{self, Key};
use crate::config::Config;
use crate::engine::Runtime;
use crate::protocol_file::{self, UserProtocol};
use crate::request::DebateRequest;
use crate::{bad, safe_eprintln, spec_request};

/// The spec `args` makes. `history`: the compete history this run counts
/// in, whose recent runs the protocol is told about (see [`history_key`]).
pub fn spec_json(
    args: &DebateRequest,
    runtime: &mut Runtime,
    config: &Config,
    history: Option<&Key>,
) -> Result<String> {
    let mut inputs = spec_request::Inputs {
        file_triggers: config.triggers.iter().map(|t| serde_json::json!(t)).collect(),
        file_consensus: config.defaults.consensus.map(|m| serde_json::json!(m.as_str())),
        ..Default::default()
    };
    if let (Some(key), Some(path)) = (history, compete_history::path()) {
        match compete_history::History::load(&path) {
            Ok(h) => inputs.history = h.option(key),
            Err(e) => safe_eprintln!("agon: warning: the compete history is left out: {e}"),
        }
    }
    if let Some(dir) = &args.settings.roles {
        inputs.roles = read_roles(dir, runtime)?;
    }
    if let Some(path) = &args.items {
        let text = read_text(path, "items file (--items)")?;
        inputs.items = spec_request::read_items(&text);
    }
    let stdin = &mut |limit| crate::context_files::read_up_to(std::io::stdin().lock(), limit);
    let files = args.settings.files.as_deref().unwrap_or_default();
    inputs.files = if args.files_from_config {
        crate::context_files::read_named(files, &args.file_scope, "agon.toml's [defaults] files", stdin)
    } else {
        crate::context_files::read(files, &args.file_scope, stdin)
    }
    .map_err(bad)?;
    // A document given inline (`agon mcp`'s `document`), else a file's.
    inputs.document = match &args.document {
        Some(document) => Some(protocol_file::check(runtime, document)?.map_err(|e| bad(format!("document: {e}")))?),
        None => own_protocol(args, runtime, config)?.map(|p| p.checked),
    };
    let protocols = runtime.protocols()?;
    let mut request = spec_request::build(args, &inputs, &protocols).map_err(bad)?;
    // Prices and what each model can do travel in the spec, from the catalog
    // (the engine looks them up), so it can bound, limit and report the cost,
    // shape each call, and a replay agrees.
    request["catalog"] = serde_json::from_str(crate::catalog::json())?;
    request["catalog_overrides"] = serde_json::to_value(crate::catalog::overrides(config))?;
    // The engine decides the seats; model references are this host's to check.
    let built = runtime.build_spec(&request.to_string())?.map_err(|e| bad(e.to_string()))?;
    let spec: serde_json::Value = serde_json::from_str(&built)?;
    for note in seats_named(args, &spec) {
        safe_eprintln!("{note}");
    }
    if inputs.files.iter().any(|f| f.path == "-")
        && let Some((seat, model)) = human_seats(&spec).into_iter().next()
    {
        return Err(bad(format!(
            "--file - reads standard input, which seat '{seat}' ({model}) answers from: give the file by its path"
        )));
    }
    let models = models_of(&spec);
    for model in &models {
        crate::provider::ModelRef::parse_chain(model).map_err(bad)?;
    }
    let env = crate::provider::Environment::new(config);
    let at_home = |provider: &str| env.endpoint(provider).is_some_and(|e| e.is_default_url());
    let unknown = crate::catalog::unknown(models.iter().flat_map(|m| agon_core::Catalog::chain(m)), config, &at_home);
    if !unknown.is_empty() {
        safe_eprintln!(
            "agon: note: {} not in the model catalog ({}): sent with cautious defaults (no temperature to OpenAI \
or Anthropic, no room reserved for thinking), and unpriced; `agon models --update` fetches models.dev's newest \
catalog, or describe it in agon.toml's [models.\"REF\"] and price it in [prices.\"REF\"] (input and output, USD \
per million tokens)",
            unknown.join(", "),
            crate::catalog::catalog().snapshot
        );
    }
    Ok(built)
}

/// A seat asked for by the start of its id or model (`--challenger gemini`,
/// `devils-advocate:claude`), which the engine wrote into the spec as an id:
/// one line each saying which seat that is.
fn seats_named(args: &DebateRequest, spec: &serde_json::Value) -> Vec<String> {
    let suffix = args.protocol.split_once(':').map(|(_, seat)| seat.trim());
    let mut notes = Vec::new();
    for (option, asked) in [("challenger", args.challenger.as_deref().or(suffix)), ("adversary", suffix)] {
        let (Some(asked), Some(id)) = (asked, spec["protocol"][option].as_str()) else { continue };
        if asked != id {
            let model = spec["panel"].as_array().into_iter().flatten().find(|p| p["id"] == id);
            let model = model.and_then(|p| p["model"].as_str()).unwrap_or_default();
            notes.push(format!("agon: {option} '{asked}' is seat {id} ({model})"));
        }
    }
    notes
}

/// The protocol document a request chooses, checked: `--protocol-file`, or
/// the agon.toml `[protocols]` entry `--protocol` names. None for a built-in.
pub fn own_protocol(args: &DebateRequest, runtime: &mut Runtime, config: &Config) -> Result<Option<UserProtocol>> {
    if let Some(path) = &args.protocol_file {
        return protocol_file::load(runtime, path)?.map(Some).map_err(bad);
    }
    let name = args.protocol_name();
    match config.protocols.get(name) {
        Some(entry) => configured(runtime, config, name, &entry.file).map(Some),
        None => Ok(None),
    }
}

/// agon.toml's protocol `name`, checked; its document must bear that name.
pub fn configured(runtime: &mut Runtime, config: &Config, name: &str, file: &std::path::Path) -> Result<UserProtocol> {
    let at = config.path.as_ref().map_or("agon.toml".into(), |p| p.display().to_string());
    let protocol = protocol_file::load(runtime, file)?.map_err(|e| bad(format!("{at}: protocols.{name}: {e}")))?;
    if protocol.name() != name {
        return Err(bad(format!(
            "{at}: protocols.{name}: the document in {} is named '{}'; name the entry after it",
            file.display(),
            protocol.name()
        )));
    }
    Ok(protocol)
}

/// The compete history a request counts in: its protocol's, under `--label`
/// (default: the protocol's name), for the protocols that take a `history`
/// (the engine's catalog says which).
pub fn history_key(args: &DebateRequest, runtime: &mut Runtime) -> Result<Option<Key>> {
    let protocol = args.protocol_name().to_string();
    let takes =
        runtime.protocols()?.iter().any(|p| p.name == protocol && p.options.iter().any(|o| o.name == "history"));
    Ok(takes.then(|| Key {
        label: args.label.as_deref().map(str::trim).filter(|l| !l.is_empty()).unwrap_or(&protocol).to_string(),
        protocol,
    }))
}

/// Every seat a person holds (`human/NAME`): (seat id, model).
pub fn human_seats(spec: &serde_json::Value) -> Vec<(String, String)> {
    spec["panel"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(spec["judge"].as_object().map(|_| &spec["judge"]))
        .filter_map(|p| Some((p["id"].as_str()?.to_string(), p["model"].as_str()?.to_string())))
        .filter(|(_, model)| crate::provider::human::is_human(model))
        .collect()
}

/// The role files of a folder (`*.md`, by file name), as text; each is parsed
/// here first, so an error names its file.
fn read_roles(dir: &std::path::Path, runtime: &mut Runtime) -> Result<Vec<String>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| bad(format!("cannot read --roles {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(bad(format!("--roles {}: no .md role files there", dir.display())));
    }
    paths
        .into_iter()
        .map(|p| {
            let text = read_text(&p, "role file")?;
            runtime.parse_role(&text)?.map_err(|e| bad(format!("{}: {e}", p.display())))?;
            Ok(text)
        })
        .collect()
}

/// A text file the user named; errors name it (and `what` it was for).
pub fn read_text(path: &std::path::Path, what: &'static str) -> Result<String> {
    crate::bounded::read_text(path, crate::bounded::DOCUMENT_LIMIT, what).map_err(bad)
}

/// Every model a spec names: the panel's, then the judge's.
pub fn models_of(spec: &serde_json::Value) -> Vec<String> {
    spec["panel"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(spec["judge"].as_object().map(|_| &spec["judge"]))
        .filter_map(|p| p["model"].as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_seat_named_by_its_model_is_said() {
        let spec = json!({
            "panel": [{"id": "gpt-5", "model": "openai/gpt-5"}, {"id": "gemini-2.5-pro", "model": "google/gemini-2.5-pro"}],
            "protocol": {"name": "rotating-challenger", "challenger": "gemini-2.5-pro"},
        });
        let mut request = DebateRequest::new("q");
        request.challenger = Some("gemini".into());
        assert_eq!(
            seats_named(&request, &spec),
            ["agon: challenger 'gemini' is seat gemini-2.5-pro (google/gemini-2.5-pro)"]
        );
        request.challenger = Some("gemini-2.5-pro".into());
        assert!(seats_named(&request, &spec).is_empty(), "an id is not news");
        let request = DebateRequest { protocol: "rotating-challenger:gem".into(), ..DebateRequest::new("q") };
        assert_eq!(seats_named(&request, &spec).len(), 1);
    }
}
