//! From what a user chose to a spec: models as typed, a protocol by name, its
//! options, role files. Every host builds its specs here, so one panel gets
//! the same seat ids, the same judge and the same roles in the CLI, the page
//! and the SDKs; a host only turns its flags or form fields into a
//! [`SpecRequest`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::catalog::{Catalog, CatalogEntry};
use crate::protocol::definition;
use crate::protocol::definition::Definition;
use crate::protocol::document;
use crate::protocol::registry;
use crate::reasoning::{self, ModelTraits, Reasoning};
use crate::{CouncilRole, DebateSpec, Error, Limits, OptionKind, Participant, Price, ProtocolSpec, parse_role};

/// A debate as a user describes it. Only `question` and `protocol` are required.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecRequest {
    pub question: String,
    #[serde(default)]
    pub context: Option<String>,
    /// Files every speaker reads with the question: `{path, text}`, read by the host.
    #[serde(default)]
    pub files: Vec<crate::ContextFile>,
    /// The finished debate this one follows up: its session id and its
    /// transcript's JSON, from which the spec's `parent` is made here, once
    /// for every host.
    #[serde(default)]
    pub follows: Option<Follows>,
    /// Model references in seat order, as typed; a fallback chain `a|b` is one seat.
    #[serde(default)]
    pub models: Vec<String>,
    /// The judge's model. Absent: the judging role's (role files), else the first seat's.
    #[serde(default)]
    pub judge: Option<String>,
    /// No judge, hence no synthesis.
    #[serde(default)]
    pub no_judge: bool,
    /// A protocol's name; `NAME:SEAT` also sets its seat option (`devils-advocate:2`;
    /// a document's adversary). A protocol document comes as the option `document`.
    pub protocol: String,
    /// The protocol's options by name, as `agon protocols` lists them.
    #[serde(default)]
    pub options: BTreeMap<String, Value>,
    /// Role files, as text: each debating role becomes a seat with the role's
    /// instructions as its persona, the judging role the judge. A protocol
    /// whose seats are roles (role-council) uses the built-in roles without them.
    #[serde(default)]
    pub roles: Vec<String>,
    /// A model per role id, over the role file's own.
    #[serde(default)]
    pub role_models: BTreeMap<String, String>,
    #[serde(default)]
    pub rounds: Option<u32>,
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
    #[serde(default)]
    pub max_cost: Option<f64>,
    /// The model catalog the host ships (`catalog/models.json`'s form): each
    /// of the spec's models gets its price (unless `prices` names it) and its
    /// traits from here.
    #[serde(default)]
    pub catalog: Option<Value>,
    /// The user's own catalog entries (agon.toml `[models."REF"]`), by model
    /// reference, field by field over the catalog's.
    #[serde(default)]
    pub catalog_overrides: Option<Value>,
    /// What every seat and the judge ask of a reasoning model.
    #[serde(default)]
    pub reasoning: Option<Reasoning>,
    /// The same for one seat (by id, or `judge`), over `reasoning`.
    #[serde(default)]
    pub seat_reasoning: BTreeMap<String, Reasoning>,
    /// The question has a checkable answer: ask for `ANSWER:` lines and take the vote.
    #[serde(default)]
    pub answer: Option<crate::answer::AnswerSpec>,
    /// Every seat's field of expertise (a role file's own `domain:` stands).
    #[serde(default)]
    pub domain: Option<String>,
    /// One seat's (by id), over `domain`.
    #[serde(default)]
    pub seat_domains: BTreeMap<String, String>,
    /// Blind first answers (the spec's `blind`).
    #[serde(default)]
    pub blind: bool,
}

/// A finished debate to follow up, as a host has it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Follows {
    /// Its session id.
    pub session: String,
    /// Its transcript, as JSON.
    pub transcript: Value,
    /// Its files as its spec held them (`{path, text}`), for a follow-up that
    /// names none of its own. Each must be the file the transcript records.
    #[serde(default)]
    pub files: Vec<crate::ContextFile>,
}

impl Follows {
    /// The parent's context, from its transcript.
    fn context(&self) -> Option<String> {
        self.transcript["context"].as_str().map(str::to_string)
    }

    /// The parent's files, each checked against the path, size and SHA-256
    /// its transcript records, so a follow-up quotes only what the parent read.
    fn files(&self) -> Result<Vec<crate::ContextFile>, Error> {
        if self.files.is_empty() {
            return Ok(Vec::new());
        }
        let recorded: Vec<crate::FileRecord> = match self.transcript.get("files") {
            Some(files) => {
                crate::json_read::read(files).map_err(|e| crate::spec::field_error("follows.transcript.files", e))?
            }
            None => Vec::new(),
        };
        // A host may leave out files that changed since (the MCP server keeps
        // only those that read the same inside its roots): the rest must be
        // the parent's, in its order.
        if self.files.len() > recorded.len() {
            return Err(Error::spec(
                "follows.files",
                format!("{} files, but the earlier debate read {}", self.files.len(), recorded.len()),
            ));
        }
        let mut unread = recorded.iter();
        for (i, file) in self.files.iter().enumerate() {
            let record = file.record();
            if !unread.any(|r| *r == record) {
                let why = match recorded.iter().find(|r| r.path == file.path) {
                    Some(r) => format!(
                        "{}: not the file the earlier debate read ({}, {} bytes, SHA-256 {})",
                        file.path, r.path, r.bytes, r.sha256
                    ),
                    None => format!("{}: not a file the earlier debate read, in its order", file.path),
                };
                return Err(Error::spec(format!("follows.files[{i}]"), why));
            }
        }
        Ok(self.files.clone())
    }
}

impl SpecRequest {
    /// Read a request from JSON; errors name the field.
    pub fn from_json(json: &str) -> Result<SpecRequest, Error> {
        let value =
            crate::json_read::parse(json).map_err(|e| Error::spec("", crate::spec::strip_position(&e.to_string())))?;
        crate::json_read::read(&value).map_err(|e| crate::spec::field_error("", e))
    }
}

/// Build and validate the spec a request describes.
pub fn build_spec(mut request: SpecRequest) -> Result<DebateSpec, Error> {
    let (name, seat_suffix) = match request.protocol.split_once(':') {
        Some((name, seat)) => (name.trim(), Some(seat.trim())),
        None => (request.protocol.trim(), None),
    };
    let mut options = std::mem::take(&mut request.options);
    // A document brings its own protocol; the spec checks it (and its name) when it validates.
    let def = if options.contains_key("document") { &document::DEF } else { registry::lookup(name)? };
    if let Some(seat) = seat_suffix {
        let option = if options.contains_key("document") { "adversary" } else { seat_option(def)? };
        if options.contains_key(option) {
            return Err(Error::spec(
                format!("protocol.{option}"),
                format!("given twice: as '{name}:{seat}' and as an option"),
            ));
        }
        options.insert(option.to_string(), Value::from(seat));
    }

    let roles = roles(def, &request.roles)?;
    let (panel, role_judge) = if roles.is_empty() {
        (models_panel(def, &request.models, &options)?, None)
    } else {
        roles_panel(&roles, &request.models, &request.role_models)?
    };
    let judge = if request.no_judge {
        None
    } else {
        match (request.judge.as_deref().map(str::trim), role_judge) {
            (Some(model), Some(role)) => Some(Participant { model: model.to_string(), ..role }),
            (Some(model), None) => Some(seat("judge", model)),
            (None, Some(role)) => Some(role),
            (None, None) => panel.first().map(|p| seat("judge", &p.model)),
        }
    };
    let (mut panel, mut judge) = (panel, judge);
    seat_settings(&request, &mut panel, judge.as_mut())?;
    let catalog = request.catalog.as_ref().map(Catalog::from_value).transpose()?.unwrap_or_default();
    let overrides = match &request.catalog_overrides {
        Some(v) => crate::catalog::entries(v, "catalog_overrides")?,
        None => BTreeMap::new(),
    };
    let (prices, models) = catalog_facts(&panel, judge.as_ref(), &request.prices, &catalog, &overrides);
    // A follow-up reads its parent's context and files unless it brings its
    // own; an empty context given is none, and takes none from the parent.
    let context = match (&request.follows, request.context) {
        (Some(follows), None) => follows.context(),
        (_, context) => context,
    }
    .filter(|c| !c.trim().is_empty());
    let files = match &request.follows {
        Some(follows) if request.files.is_empty() => follows.files()?,
        _ => request.files,
    };
    let spec = DebateSpec {
        question: request.question.trim().to_string(),
        context,
        files,
        parent: request
            .follows
            .as_ref()
            .map(|f| crate::Parent::from_transcript(&f.session, &f.transcript))
            .transpose()?,
        panel,
        judge,
        protocol: ProtocolSpec { name: name.to_string(), options },
        rounds: request.rounds,
        seed: request.seed,
        limits: request.limits,
        prices,
        max_cost: request.max_cost,
        models,
        answer: request.answer,
        blind: request.blind,
    };
    let mut spec = spec;
    name_seats_by_id(&mut spec, def);
    spec.validate()?;
    Ok(spec)
}

/// Each seat's reasoning and domain: its own, over its role file's (a
/// domain), over every seat's; a seat named that is none is refused.
fn seat_settings(
    request: &SpecRequest,
    panel: &mut [Participant],
    judge: Option<&mut Participant>,
) -> Result<(), Error> {
    for (at, seat) in panel.iter_mut().map(|p| (p.id.clone(), p)).chain(judge.map(|j| ("judge".into(), j))) {
        seat.reasoning = request.seat_reasoning.get(&at).copied().or(request.reasoning);
    }
    for seat in panel.iter_mut() {
        // The seat's own, over its role file's, over every seat's.
        if let Some(domain) = request.seat_domains.get(&seat.id) {
            seat.domain = Some(domain.trim().to_string());
        } else if seat.domain.is_none() {
            seat.domain = request.domain.as_deref().map(|d| d.trim().to_string());
        }
    }
    if let Some(key) = request.seat_domains.keys().find(|k| !panel.iter().any(|p| &p.id == *k)) {
        let ids: Vec<&str> = panel.iter().map(|p| p.id.as_str()).collect();
        let judge = if *key == "judge" { "; the judge weighs every seat's answer and takes none" } else { "" };
        return Err(Error::spec(
            format!("seat_domains.{key}"),
            format!("no such seat (seats: {}){judge}", ids.join(", ")),
        ));
    }
    if let Some(key) = request.seat_reasoning.keys().find(|k| *k != "judge" && !panel.iter().any(|p| &p.id == *k)) {
        let ids: Vec<&str> = panel.iter().map(|p| p.id.as_str()).collect();
        return Err(Error::spec(
            format!("seat_reasoning.{key}"),
            format!("no such seat (seats: {}, and judge)", ids.join(", ")),
        ));
    }
    Ok(())
}

/// A seat option given by the start of a seat's id or model (seed 000's
/// `--challenger gemini`) becomes that seat's id, so the spec — and every host
/// that shows it — says which seat was meant. One that names no seat, or
/// several, is left for validation to refuse with the candidates.
fn name_seats_by_id(spec: &mut DebateSpec, def: &definition::Definition) {
    let seat_options: Vec<&str> = if spec.protocol.options.contains_key("document") {
        vec!["adversary"]
    } else {
        def.options.iter().filter(|o| o.kind == definition::OptionKind::Seat).map(|o| o.name).collect()
    };
    for option in seat_options {
        let Some(Value::String(name)) = spec.protocol.options.get(option) else { continue };
        let seat = crate::SeatRef::Id(name.clone());
        if !seat.by_name(spec) {
            continue;
        }
        if let Ok(i) = spec.resolve_seat(&seat, option) {
            let id = spec.panel[i].id.clone();
            spec.protocol.options.insert(option.to_string(), Value::from(id));
        }
    }
}

/// Prices and traits of every model the panel and the judge name, from the
/// catalog with the user's overrides; a price the request gives wins.
fn catalog_facts(
    panel: &[Participant],
    judge: Option<&Participant>,
    prices: &BTreeMap<String, Price>,
    catalog: &Catalog,
    overrides: &BTreeMap<String, CatalogEntry>,
) -> (BTreeMap<String, Price>, BTreeMap<String, ModelTraits>) {
    let mut prices = prices.clone();
    let mut traits = BTreeMap::new();
    for seat in panel.iter().chain(judge) {
        for model in reasoning::chain(&seat.model) {
            let Some(entry) = catalog.resolve(model, overrides) else { continue };
            if let Some(price) = entry.spec_price() {
                prices.entry(model.to_string()).or_insert(price);
            }
            if let Some(t) = entry.traits() {
                traits.insert(model.to_string(), t);
            }
        }
    }
    (prices, traits)
}

/// The one seat option `NAME:SEAT` sets.
fn seat_option(def: &Definition) -> Result<&'static str, Error> {
    let mut seats = def.options.iter().filter(|o| o.kind == OptionKind::Seat);
    match (seats.next(), seats.next()) {
        (Some(only), None) => Ok(only.name),
        _ => Err(Error::spec("protocol", format!("'{}' takes no seat: write just '{}'", def.name, def.name))),
    }
}

/// Seed 003's speaking order: a folder of its role files speaks in this
/// order whatever the files are called; other roles follow, as given.
const SEED_ORDER: [&str; 4] = ["devils_advocate", "optimist", "regulator", "cfo"];

fn roles(def: &Definition, texts: &[String]) -> Result<Vec<CouncilRole>, Error> {
    let parse =
        |(i, text): (usize, &str)| parse_role(text).map_err(|e| Error::spec(format!("roles[{i}]"), e.to_string()));
    if texts.is_empty() && def.seats_are_roles {
        return crate::BUILTIN_ROLE_FILES.iter().copied().enumerate().map(parse).collect();
    }
    let mut roles: Vec<CouncilRole> =
        texts.iter().map(String::as_str).enumerate().map(parse).collect::<Result<_, _>>()?;
    // The seed's roles take the places they hold, in the seed's order; any
    // other role keeps its place.
    let rank = |r: &CouncilRole| SEED_ORDER.iter().position(|id| *id == r.role_id);
    let places: Vec<usize> = (0..roles.len()).filter(|&i| rank(&roles[i]).is_some()).collect();
    let mut seed_roles: Vec<CouncilRole> = places.iter().map(|&i| roles[i].clone()).collect();
    crate::order::sort_by_key(&mut seed_roles, |r| rank(r));
    for (place, role) in places.into_iter().zip(seed_roles) {
        roles[place] = role;
    }
    Ok(roles)
}

/// The role a `role_models` key names: its id, or `judge` / seed 003's `juge`
/// for whichever role judges (stage 3).
fn named_role<'r>(roles: &'r [CouncilRole], key: &str) -> Option<&'r CouncilRole> {
    roles
        .iter()
        .find(|r| r.role_id == key)
        .or_else(|| matches!(key, "judge" | "juge").then(|| roles.iter().find(|r| r.participates_in_stage3)).flatten())
}

/// Seats from models. When one model is given and the protocol assigns
/// parts, the model plays every part (a debate of one model with itself is
/// still a debate when each side is told what to argue).
fn models_panel(
    def: &Definition,
    models: &[String],
    options: &BTreeMap<String, Value>,
) -> Result<Vec<Participant>, Error> {
    let mut models: Vec<&str> = models.iter().map(|m| m.trim()).collect();
    if let Some(i) = models.iter().position(|m| m.is_empty()) {
        return Err(Error::spec(format!("models[{i}]"), "must not be empty"));
    }
    if models.is_empty() {
        return Err(Error::spec("models", "the panel is empty: give at least one model"));
    }
    let parts = if def.shown.sides.is_empty() { (def.parts)(options) } else { def.shown.sides.len() };
    // A document of a fixed size assigns parts by seat: one model plays them all.
    let parts = match options.get("document").map(|d| (&d["seats"]["min"], &d["seats"]["max"])) {
        Some((min, max)) if min == max => min.as_u64().map_or(parts, |n| n.min(64) as usize),
        _ => parts,
    };
    if models.len() == 1 && parts > 1 {
        models = vec![models[0]; parts];
    }
    Ok(seat_ids(&models).into_iter().zip(models).map(|(id, model)| seat(&id, model)).collect())
}

/// role-council's mapping: debating roles become seats, the judging role the
/// judge. A role's model: `role_models`, else the models in turn, else the
/// role file's own (a bare name is Ollama's).
fn roles_panel(
    roles: &[CouncilRole],
    models: &[String],
    role_models: &BTreeMap<String, String>,
) -> Result<(Vec<Participant>, Option<Participant>), Error> {
    if let Some(unknown) = role_models.keys().find(|key| named_role(roles, key).is_none()) {
        let known: Vec<&str> = roles.iter().map(|r| r.role_id.as_str()).collect();
        return Err(Error::spec(
            format!("role_models.{unknown}"),
            format!("no such role (roles: {})", known.join(", ")),
        ));
    }
    let model_of = |role: &CouncilRole, k: usize| -> String {
        let chosen =
            role_models.iter().find(|(key, _)| named_role(roles, key).is_some_and(|r| r.role_id == role.role_id));
        if let Some((_, m)) = chosen {
            return m.trim().to_string();
        }
        if !models.is_empty() {
            return models[k % models.len()].trim().to_string();
        }
        if role.model.contains('/') { role.model.clone() } else { format!("ollama/{}", role.model) }
    };
    let as_seat = |role: &CouncilRole, model: String, persona: &str| Participant {
        id: role.role_id.clone(),
        name: role.role_name.clone(),
        model,
        persona: Some(persona.to_string()).filter(|p| !p.trim().is_empty()),
        domain: role.domain.clone(),
        reasoning: None,
    };
    let debaters: Vec<&CouncilRole> = roles.iter().filter(|r| r.participates_in_stage1).collect();
    if debaters.is_empty() {
        return Err(Error::spec("roles", "no role participates in stage 1: the debate needs debating roles"));
    }
    let panel = debaters.iter().enumerate().map(|(k, r)| as_seat(r, model_of(r, k), &r.stage1_instructions)).collect();
    let judge = roles
        .iter()
        .find(|r| r.participates_in_stage3)
        // The judge weighs the roles' answers: a domain is a debating seat's.
        .map(|r| Participant { domain: None, ..as_seat(r, model_of(r, debaters.len()), &r.stage3_instructions) });
    Ok((panel, judge))
}

fn seat(id: &str, model: &str) -> Participant {
    Participant {
        id: id.to_string(),
        name: String::new(),
        model: model.to_string(),
        persona: None,
        domain: None,
        reasoning: None,
    }
}

/// The one rule for seat ids: a model's last path segment, from the first
/// model of a fallback chain (`openrouter/google/gemini-2.5-pro` →
/// `gemini-2.5-pro`); a name that sits twice gets `-2`, `-3`, … so every id
/// is unique.
pub fn seat_ids(models: &[&str]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::with_capacity(models.len());
    for model in models {
        let first = model.split('|').next().unwrap_or(model).trim();
        let base: String = first
            .rsplit('/')
            .next()
            .unwrap_or(first)
            .chars()
            .map(|c| if c.is_whitespace() { '-' } else { c })
            .collect();
        let mut id = base.clone();
        let mut n = 2;
        while ids.contains(&id) {
            id = format!("{base}-{n}");
            n += 1;
        }
        ids.push(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request(value: Value) -> Result<DebateSpec, Error> {
        build_spec(SpecRequest::from_json(&value.to_string())?)
    }

    fn ids(spec: &DebateSpec) -> Vec<&str> {
        spec.panel.iter().map(|p| p.id.as_str()).collect()
    }

    #[test]
    fn seat_ids_are_last_path_segments_numbered_when_repeated() {
        let models = ["openai/gpt-4o", "ollama/llama3", "openai/gpt-4o", "openrouter/openai/gpt-4o", "gpt-4o-2"];
        assert_eq!(seat_ids(&models), ["gpt-4o", "llama3", "gpt-4o-2", "gpt-4o-3", "gpt-4o-2-2"]);
        // The same model through three routes gets one name.
        let routes = ["openrouter/google/gemini-2.5-pro", "gemini/gemini-2.5-pro|openrouter/google/x"];
        assert_eq!(seat_ids(&routes), ["gemini-2.5-pro", "gemini-2.5-pro-2"]);
    }

    /// A follow-up names its parent session and gives its transcript; the
    /// builder makes the spec's `parent` from it, once for every host.
    #[test]
    fn a_follow_up_takes_its_parent_from_a_transcript() {
        let transcript = json!({
            "question": "Tabs or spaces?",
            "participants": [{"id": "a", "name": "a", "model": "m/a"}],
            "turns": [{"speaker": "a", "text": "Tabs."}],
            "synthesis": {"text": "Tabs win."},
            "outcome": {"kind": "completed", "reason": ""},
        });
        let ask = |transcript: &Value| {
            request(json!({"question": "How wide?", "protocol": "round-robin", "models": ["m/a", "m/b"],
                "follows": {"session": "s-1", "transcript": transcript}}))
        };
        let spec = ask(&transcript).unwrap();
        let parent = spec.parent.as_ref().unwrap();
        assert_eq!((parent.session.as_str(), parent.synthesis.as_deref()), ("s-1", Some("Tabs win.")));
        assert_eq!(parent.positions[0].speaker, "Speaker 1");
        assert_eq!(DebateSpec::from_json(&spec.to_json()).unwrap(), spec, "the spec carries it whole");

        let mut running = transcript.clone();
        running["outcome"] = Value::Null;
        let e = ask(&running).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "follows.transcript.outcome"), "{e}");
        let e = ask(&json!({"turns": []})).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "follows.transcript.question"), "{e}");
    }

    /// A follow-up that brings no context or files reads its parent's: the
    /// context from the transcript, the files as the host gives them, each
    /// held to the transcript's record. Its own replace them.
    #[test]
    fn a_follow_up_reads_its_parents_material_unless_it_brings_its_own() {
        let diff = "--- a/x.rs\n+++ b/x.rs\n+fn x() {}\n";
        // Written as `sha256sum` prints it for the diff above.
        let sha = "262298f2efef18d9a3644b679db2b8401d6655de26f3385a98d5d16640f3bba6";
        let transcript = json!({
            "question": "Review this change",
            "context": "Our style guide forbids unwrap.",
            "files": [{"path": "-", "bytes": diff.len(), "sha256": sha}],
            "participants": [{"id": "a", "name": "a", "model": "m/a"}],
            "turns": [{"speaker": "a", "text": "Fine."}],
            "synthesis": {"text": "Approve."},
            "outcome": {"kind": "completed", "reason": ""},
        });
        let ask = |extra: Value, files: Value| {
            let mut r = json!({"question": "And the tests?", "protocol": "round-robin", "models": ["m/a", "m/b"],
                "follows": {"session": "s-1", "transcript": transcript, "files": files}});
            r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            request(r)
        };
        let spec = ask(json!({}), json!([{"path": "-", "text": diff}])).unwrap();
        assert_eq!(spec.context.as_deref(), Some("Our style guide forbids unwrap."));
        assert_eq!(spec.files, [crate::ContextFile { path: "-".into(), text: diff.into() }]);
        let own = ask(
            json!({"context": "Mind the MSRV.", "files": [{"path": "t.rs", "text": "#[test]"}]}),
            json!([{"path": "-", "text": diff}]),
        )
        .unwrap();
        assert_eq!(own.context.as_deref(), Some("Mind the MSRV."));
        assert_eq!(own.files[0].path, "t.rs");
        // A host that gives no files carries none; the context still comes,
        // unless the request gives an empty one.
        let bare = ask(json!({}), json!([])).unwrap();
        assert!(bare.files.is_empty() && bare.context.is_some());
        assert_eq!(ask(json!({"context": ""}), json!([])).unwrap().context, None);
        // A file changed since the parent read it is refused, by its index.
        let e = ask(json!({}), json!([{"path": "-", "text": "+fn y() {}\n"}])).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "follows.files[0]"), "{e}");
        assert!(e.to_string().contains(sha), "{e}");
        let e = ask(json!({}), json!([{"path": "-", "text": diff}, {"path": "b", "text": "b"}])).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "follows.files"), "{e}");
    }

    /// A host that leaves out a file changed since keeps the unchanged ones.
    #[test]
    fn a_follow_up_keeps_the_parents_unchanged_files_when_one_is_left_out() {
        let record = |path: &str, text: &str| {
            let f = crate::ContextFile { path: path.into(), text: text.into() }.record();
            json!({"path": f.path, "bytes": f.bytes, "sha256": f.sha256})
        };
        let transcript = json!({
            "question": "Review these",
            "files": [record("a.rs", "fn a() {}"), record("b.rs", "fn b() {}")],
            "participants": [{"id": "a", "name": "a", "model": "m/a"}],
            "turns": [{"speaker": "a", "text": "Fine."}],
            "synthesis": {"text": "Approve."},
            "outcome": {"kind": "completed", "reason": ""},
        });
        let ask = |files: Value| {
            request(json!({"question": "And the tests?", "protocol": "round-robin", "models": ["m/a", "m/b"],
                "follows": {"session": "s-1", "transcript": transcript, "files": files}}))
        };
        let kept = ask(json!([{"path": "b.rs", "text": "fn b() {}"}])).unwrap();
        assert_eq!(kept.files, [crate::ContextFile { path: "b.rs".into(), text: "fn b() {}".into() }]);
        let e = ask(json!([{"path": "c.rs", "text": "fn c() {}"}])).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "follows.files[0]"), "{e}");
        let e = ask(json!([{"path": "b.rs", "text": "fn b() {}"}, {"path": "a.rs", "text": "fn a() {}"}])).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "follows.files[1]"), "{e}");
    }

    /// Seed 000's `--challenger gemini`: the builder writes the seat's id into
    /// the spec, so it says which seat was meant; an unclear name is refused.
    #[test]
    fn a_seat_named_by_its_model_becomes_its_id() {
        let ask = |challenger: &str| {
            request(json!({"question": "q", "protocol": format!("rotating-challenger:{challenger}"),
                "models": ["openai/gpt-5", "google/gemini-2.5-pro", "openai/gpt-4o"]}))
        };
        let spec = ask("gemini").unwrap();
        assert_eq!(spec.protocol.options["challenger"], json!("gemini-2.5-pro"));
        assert_eq!(ask("2").unwrap().protocol.options["challenger"], json!("2"), "a number stays as given");
        let e = ask("gpt").unwrap_err().to_string();
        assert!(e.contains("protocol.challenger") && e.contains("gpt-5 (openai/gpt-5)"), "{e}");
        let spec = request(json!({"question": "q", "protocol": "devils-advocate:Gemini",
            "models": ["openai/gpt-5", "google/gemini-2.5-pro"]}))
        .unwrap();
        assert_eq!(spec.protocol.options["adversary"], json!("gemini-2.5-pro"));
    }

    #[test]
    fn the_judge_defaults_to_the_first_model_unless_told_otherwise() {
        let spec = request(json!({"question": " q ", "protocol": "round-robin", "models": ["a/x", "b/y"]})).unwrap();
        assert_eq!((ids(&spec), spec.question.as_str()), (vec!["x", "y"], "q"));
        assert_eq!(spec.judge.as_ref().map(|j| (j.id.as_str(), j.model.as_str())), Some(("judge", "a/x")));
        let spec =
            request(json!({"question": "q", "protocol": "round-robin", "models": ["a/x", "b/y"], "judge": "c/z"}))
                .unwrap();
        assert_eq!(spec.judge.unwrap().model, "c/z");
        let spec =
            request(json!({"question": "q", "protocol": "round-robin", "models": ["a/x", "b/y"], "no_judge": true}))
                .unwrap();
        assert!(spec.judge.is_none());
    }

    #[test]
    fn a_seat_suffix_sets_the_protocols_seat_option() {
        let spec =
            request(json!({"question": "q", "protocol": "devils-advocate:2", "models": ["a/x", "b/y"]})).unwrap();
        assert_eq!(spec.protocol.options["adversary"], json!("2"));
        let e = request(json!({"question": "q", "protocol": "round-robin:2", "models": ["a/x", "b/y"]})).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "protocol"), "{e}");
    }

    #[test]
    fn one_model_plays_every_part() {
        let spec = request(json!({"question": "q", "protocol": "adversarial", "models": ["a/x"]})).unwrap();
        assert_eq!(ids(&spec), ["x", "x-2"]);
        let spec = request(json!({"question": "q", "protocol": "comparative", "models": ["a/x"],
            "options": {"options": ["Postgres", "SQLite", "DynamoDB"]}}))
        .unwrap();
        assert_eq!(spec.panel.len(), 3);
        // A protocol where every seat is alike does not debate a model with itself.
        let e = request(json!({"question": "q", "protocol": "ranked", "models": ["a/x"]})).unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "panel"), "{e}");
    }

    #[test]
    fn roles_become_seats_and_the_judging_role_the_judge() {
        let spec = request(json!({"question": "q", "protocol": "role-council", "models": ["a/x"]})).unwrap();
        let builtin: Vec<CouncilRole> = crate::builtin_roles();
        let debaters: Vec<&str> =
            builtin.iter().filter(|r| r.participates_in_stage1).map(|r| r.role_id.as_str()).collect();
        assert_eq!(ids(&spec), debaters);
        assert!(spec.panel.iter().all(|p| p.model == "a/x" && p.persona.is_some()));
        let judge = spec.judge.unwrap();
        assert_eq!(
            Some(judge.id.as_str()),
            builtin.iter().find(|r| r.participates_in_stage3).map(|r| r.role_id.as_str())
        );

        let one = "---\nrole_id: skeptic\nrole_name: Skeptic\nmodel: llama3\nparticipates_in_stage1: true\n---\n## Stage 1\nDoubt.\n";
        let other = one.replace("skeptic", "optimist").replace("Skeptic", "Optimist");
        let spec = request(json!({"question": "q", "protocol": "round-robin", "roles": [one, other],
            "role_models": {"optimist": "openai/gpt-4o"}}))
        .unwrap();
        let models: Vec<&str> = spec.panel.iter().map(|p| p.model.as_str()).collect();
        assert_eq!(models, ["ollama/llama3", "openai/gpt-4o"], "a bare model name is Ollama's");
        // Seed 003's habit: the judge role is `juge` (or `judge`), whatever its id.
        let spec = request(json!({"question": "q", "protocol": "role-council", "models": ["a/x"],
            "role_models": {"juge": "openai/judge"}}))
        .unwrap();
        assert_eq!(spec.judge.unwrap().model, "openai/judge");
        // A folder read in file-name order (cfo.md, devils_advocate.md, optimist.md, regulator.md)
        // speaks in the seed's order.
        let files: Vec<String> = {
            let mut f: Vec<(String, &str)> = crate::BUILTIN_ROLE_FILES
                .iter()
                .map(|t| (crate::parse_role(t).unwrap().role_id, *t))
                .filter(|(id, _)| id != "judge")
                .collect();
            f.sort();
            f.into_iter().map(|(_, t)| t.to_string()).collect()
        };
        let spec =
            request(json!({"question": "q", "protocol": "role-council", "models": ["a/x"], "roles": files})).unwrap();
        assert_eq!(ids(&spec), ["devils_advocate", "optimist", "regulator", "cfo"]);
        let e = request(json!({"question": "q", "protocol": "role-council", "role_models": {"nobody": "a/b"}}))
            .unwrap_err();
        assert!(matches!(&e, Error::InvalidSpec { field, .. } if field == "role_models.nobody"), "{e}");
    }

    #[test]
    fn bad_requests_name_their_field() {
        for (value, field) in [
            (json!({"question": "q", "protocol": "round-robin", "models": ["a/x", " "]}), "models[1]"),
            (json!({"question": "q", "protocol": "round-robin"}), "models"),
            (json!({"question": "q", "protocol": "shouting-match", "models": ["a/x"]}), "protocol.name"),
            (json!({"question": "q", "protocol": "round-robin", "modles": []}), "modles"),
            (json!({"question": "q", "protocol": "round-robin", "models": "a/x"}), "models"),
        ] {
            let e = request(value.clone()).unwrap_err();
            assert!(matches!(&e, Error::InvalidSpec { field: f, .. } if f == field), "{value}: {e}");
        }
    }
}
