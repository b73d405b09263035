//! From a [`DebateRequest`] to the engine's spec request (JSON), which the
//! engine turns into a spec (`build-spec`): seat ids, the judge and
//! role-council's roles are decided there, as for every host. This only maps
//! settings to the names the engine uses, and says which settings a protocol
//! does not take (named by their flags, which MCP's arguments mirror).

use agon_core::{CompeteMode, Effort, QualityGate};
use serde_json::{Map, Value, json};

use crate::engine::wit::ProtocolInfo;
use crate::options::PerSeat;
use crate::request::{DEFAULT_MAX_TOKENS, DEFAULT_TEMPERATURE, DebateRequest, Judge};

/// What the flags point at, already read by the caller.
#[derive(Debug, Default)]
pub struct Inputs {
    /// `--roles`: the role files' texts (empty: the engine's built-in roles where a protocol needs roles).
    pub roles: Vec<String>,
    /// `--items`: the items.
    pub items: Vec<String>,
    /// agon.toml's `[[triggers]]`, as the option `triggers` takes them; used
    /// where the protocol takes triggers and no `--trigger` was given.
    pub file_triggers: Vec<Value>,
    /// agon.toml's `defaults.consensus`; used where the protocol reads
    /// agreement (a document's too) and no `--consensus` was given.
    pub file_consensus: Option<Value>,
    /// The recent compete history (`[{"disagreements": N}]`, newest last),
    /// for the protocols that take one.
    pub history: Vec<Value>,
    /// The protocol document this run uses (`--protocol-file`, or agon.toml's
    /// `[protocols]`), checked by the engine; its options replace the catalog's.
    pub document: Option<crate::protocol_file::Checked>,
    /// The files the request names, read.
    pub files: Vec<agon_core::ContextFile>,
}

/// The spec request `args` describes. `protocols` is the engine's catalog:
/// which options a protocol takes comes from there, never from a list of
/// names here.
pub fn build(args: &DebateRequest, inputs: &Inputs, protocols: &[ProtocolInfo]) -> Result<Value, String> {
    let info = protocol_info(args, inputs, protocols)?;
    let mut options = protocol_options(args, inputs, info, protocols)?;
    let models = models(args);
    let mut role_models = Map::new();
    for o in &args.role_models {
        let (role, model) = o.split_once('=').ok_or(format!("--model '{o}': write ROLE=provider/model"))?;
        role_models.insert(role.trim().to_string(), json!(model.trim()));
    }
    if args.settings.roles.is_some() && inputs.roles.is_empty() {
        return Err("--roles: no role files there".into());
    }

    let limits = limits(args)?;
    let protocol = match &inputs.document {
        Some(checked) => {
            // `NAME:SEAT` names the document's adversary (a file has no suffix).
            let named = checked.name();
            let seat = args.protocol.split_once(':').filter(|(n, _)| args.protocol_file.is_none() && n.trim() == named);
            let (protocol, document) =
                crate::protocol_file::request_protocol(&checked.document, seat.map(|(_, seat)| seat.trim()));
            options.insert("document".into(), document);
            protocol
        }
        None => args.protocol.trim().to_string(),
    };
    let s = &args.settings;
    let (reasoning, seat_reasoning) =
        reasoning(s.effort.as_deref().unwrap_or_default(), s.thinking.as_deref().unwrap_or_default());
    let (domain, seat_domains) = domains(&args.domain);
    let mut request = json!({
        "question": args.question,
        "protocol": protocol,
        "models": models,
        "judge": match &args.judge {
            Judge::Model(model) => Some(model.trim()),
            Judge::Default | Judge::Without => None,
        },
        "no_judge": args.judge == Judge::Without,
        "options": options,
        "roles": inputs.roles,
        "role_models": role_models,
        "rounds": args.rounds,
        "seed": args.seed,
        "limits": limits,
        "context": args.context,
        "files": inputs.files,
        "max_cost": s.max_cost,
        "reasoning": reasoning,
        "seat_reasoning": seat_reasoning,
        "domain": domain,
        "seat_domains": seat_domains,
        "blind": s.blind.filter(|b| *b),
        "answer": args.answer,
        "follows": args.follows,
    });
    // Absent rather than null: the engine's defaults apply.
    request.as_object_mut().expect("an object").retain(|_, v| !v.is_null());
    Ok(request)
}

/// The protocol asked for: the document given, or one of the engine's.
fn protocol_info<'a>(
    args: &DebateRequest,
    inputs: &'a Inputs,
    protocols: &'a [ProtocolInfo],
) -> Result<&'a ProtocolInfo, String> {
    let own = inputs.document.as_ref().map(|checked| &checked.info);
    let name = match own {
        Some(info) => info.name.as_str(),
        None => args.protocol_name(),
    };
    match own {
        Some(info) => Ok(info),
        None => protocols.iter().find(|p| p.name == name).ok_or_else(|| {
            let known: Vec<&str> = protocols.iter().map(|p| p.name.as_str()).collect();
            format!("unknown protocol '{name}' (see `agon protocols`: {})", known.join(", "))
        }),
    }
}

/// The protocol's options: `--option`-style ones as given, then each flag
/// that sets one, refused where the protocol has no such option.
fn protocol_options(
    args: &DebateRequest,
    inputs: &Inputs,
    info: &ProtocolInfo,
    protocols: &[ProtocolInfo],
) -> Result<Map<String, Value>, String> {
    let name = info.name.as_str();
    let mut options = Map::new();
    for (option, value) in &args.options {
        if !info.options.iter().any(|o| &o.name == option) {
            let takes: Vec<&str> = info.options.iter().map(|o| o.name.as_str()).collect();
            let takes = if takes.is_empty() { "none".to_string() } else { takes.join(", ") };
            return Err(format!("options.{option}: {name} takes no such option (it takes: {takes})"));
        }
        options.insert(option.clone(), value.clone());
    }
    // A flag sets one option; a protocol without that option does not take the flag.
    let mut set = |flag: &str, option: &str, value: Option<Value>| -> Result<(), String> {
        let Some(value) = value else { return Ok(()) };
        if !info.options.iter().any(|o| o.name == option) {
            let takers: Vec<&str> = protocols
                .iter()
                .filter(|p| p.options.iter().any(|o| o.name == option))
                .map(|p| p.name.as_str())
                .collect();
            return Err(format!("{flag} only applies to {}, not {name}", takers.join(" and ")));
        }
        options.insert(option.to_string(), value);
        Ok(())
    };
    set("--challenger", "challenger", args.challenger.clone().map(Value::from))?;
    set("--consensus", "consensus", args.consensus.map(|m| json!(m.as_str())))?;
    set("--option", "options", (!args.compared.is_empty()).then(|| json!(args.compared)))?;
    set("--items", "items", args.items.as_ref().map(|_| json!(inputs.items)))?;
    let compete = match args.compete {
        CompeteMode::Auto => None,
        CompeteMode::Compete => Some("compete"),
        CompeteMode::Single => Some("single"),
    };
    set("--compete/--single", "compete", compete.map(Value::from))?;
    // The confirmer sits third, after the two lenses (see `models`).
    set("--confirm", "confirm", args.confirm_by.as_ref().map(|_| json!(3)))?;
    let triggers: Vec<Value> = args.triggers.iter().map(|t| trigger(t)).collect::<Result<_, String>>()?;
    set("--trigger", "triggers", (!triggers.is_empty()).then(|| json!(triggers)))?;
    let takes = |option: &str| info.options.iter().any(|o| o.name == option);
    // The file's triggers are a default: they apply where they mean something.
    if !options.contains_key("triggers") && !inputs.file_triggers.is_empty() && takes("triggers") {
        options.insert("triggers".into(), json!(inputs.file_triggers));
    }
    if let Some(mode) = &inputs.file_consensus
        && !options.contains_key("consensus")
        && takes("consensus")
    {
        options.insert("consensus".into(), mode.clone());
    }
    if let Some(label) = &args.label {
        if label.trim().is_empty() {
            return Err("--label: give a name (the compete history this run counts in)".into());
        }
        if !takes("label") {
            let takers: Vec<&str> = protocols
                .iter()
                .filter(|p| p.options.iter().any(|o| o.name == "label"))
                .map(|p| p.name.as_str())
                .collect();
            return Err(format!("--label only applies to {}, not {name}", takers.join(" and ")));
        }
        // The engine names the compete result's skill after it.
        options.insert("label".into(), json!(label.trim()));
    }
    if !inputs.history.is_empty() && takes("history") {
        options.insert("history".into(), json!(inputs.history));
    }
    Ok(options)
}

/// The panel's models; the confirmer sits third, after the two lenses (one
/// model given alone plays both).
fn models(args: &DebateRequest) -> Vec<&str> {
    let mut models: Vec<&str> = args.panel.iter().map(|m| m.trim()).filter(|m| !m.is_empty()).collect();
    if let Some(model) = &args.confirm_by {
        if models.len() == 1 {
            models.push(models[0]);
        }
        models.push(model.trim());
    }
    models
}

/// The limits every turn runs under.
fn limits(args: &DebateRequest) -> Result<Value, String> {
    let s = &args.settings;
    if let Some(max) = s.max_cost
        && !(max.is_finite() && max >= 0.0)
    {
        return Err(format!("--max-cost {max}: give US dollars, zero or more"));
    }
    let max_tokens = s.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut limits = json!({
        "max_tokens": max_tokens,
        "judge_max_tokens": s.judge_max_tokens.unwrap_or(max_tokens.saturating_mul(2)),
        "temperature": s.temperature.unwrap_or(DEFAULT_TEMPERATURE),
        "quality_gate": match s.quality_gate.unwrap_or_default() {
            QualityGate::Off => "off",
            QualityGate::Warn => "warn",
            QualityGate::Regenerate => "regenerate",
        },
    });
    if let Some(b) = s.context_budget {
        limits["context_budget"] = json!(b);
    }
    if let Some(q) = s.quorum {
        limits["quorum"] = json!(q);
    }
    if let Some(d) = s.diversity {
        limits["diversity"] = json!(d);
    }
    Ok(limits)
}

/// The effort and thinking budget for every seat (null when none), and each
/// seat's own; the last given for a seat wins.
fn reasoning(efforts: &[PerSeat<Effort>], budgets: &[PerSeat<u32>]) -> (Value, Map<String, Value>) {
    let mut every = Map::new();
    let mut seats: Map<String, Value> = Map::new();
    let mut put = |seat: &Option<String>, key: &str, value: Value| match seat {
        Some(seat) => {
            seats.entry(seat.clone()).or_insert_with(|| json!({}))[key] = value;
        }
        None => {
            every.insert(key.to_string(), value);
        }
    };
    for e in efforts {
        put(&e.seat, "effort", json!(e.value.as_str()));
    }
    for b in budgets {
        put(&b.seat, "budget", json!(b.value));
    }
    let every = if every.is_empty() { Value::Null } else { Value::Object(every) };
    (every, seats)
}

/// `--domain [SEAT=]AREA` (read where it was given): every seat's field of
/// expertise (null when none), and each seat's own; the last for a seat wins.
fn domains(given: &[PerSeat<String>]) -> (Value, Map<String, Value>) {
    let mut every = Value::Null;
    let mut seats = Map::new();
    for d in given {
        match &d.seat {
            Some(seat) => {
                seats.insert(seat.clone(), json!(d.value));
            }
            None => every = json!(d.value),
        }
    }
    (every, seats)
}

/// `--trigger NAME=word,a phrase,…`: phrases keep their inner spaces; empty ones are dropped.
fn trigger(flag: &str) -> Result<Value, String> {
    let (name, words) = flag
        .split_once('=')
        .ok_or(format!("--trigger '{flag}': write NAME=word,a phrase,… (e.g. risk=data loss,outage)"))?;
    let phrases: Vec<&str> = words.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
    if name.trim().is_empty() {
        return Err(format!("--trigger '{flag}': the trigger needs a name before '='"));
    }
    if phrases.is_empty() {
        return Err(format!("--trigger '{flag}': give at least one word or phrase after '='"));
    }
    Ok(json!({"name": name.trim(), "any_of": phrases}))
}

/// Items for priority-vote: one per non-empty line, list markers removed.
pub fn read_items(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let t = l.trim().trim_start_matches(['-', '*', '•']).trim_start();
            let digits = t.chars().take_while(char::is_ascii_digit).count();
            match t[digits..].strip_prefix(['.', ')']) {
                Some(rest) if digits > 0 => rest.trim().to_string(),
                _ => t.to_string(),
            }
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::wit::{OptionInfo, OptionKind};

    /// A request for `protocol` on the panel `openai/m`, then `set`.
    fn args(protocol: &str, set: impl FnOnce(&mut DebateRequest)) -> DebateRequest {
        let mut request = DebateRequest::new("q");
        request.protocol = protocol.into();
        request.panel = vec!["openai/m".into()];
        set(&mut request);
        request
    }

    /// A protocol as the engine describes it, taking `options`; the names here are the test's own.
    fn described(name: &str, options: &[&str]) -> ProtocolInfo {
        ProtocolInfo {
            name: name.into(),
            summary: String::new(),
            default_rounds: 1,
            max_rounds: 1,
            round_unit: String::new(),
            min_seats: 1,
            max_seats: None,
            sides: vec![],
            options: options
                .iter()
                .map(|o| OptionInfo {
                    name: o.to_string(),
                    kind: OptionKind::Data,
                    default: String::new(),
                    help: String::new(),
                })
                .collect(),
            reads_agreement: false,
            seats_are_roles: false,
        }
    }

    /// A document as the engine checked it, described as taking `options`.
    fn checked(document: &Value, options: &[&str]) -> crate::protocol_file::Checked {
        let info = described(document["name"].as_str().unwrap(), options);
        crate::protocol_file::Checked { document: document.clone(), info }
    }

    /// A catalog as the engine gives it.
    fn catalog() -> Vec<ProtocolInfo> {
        vec![
            described("plain", &[]),
            described("pick", &["challenger", "consensus"]),
            described("weigh", &["options"]),
            described("gate", &["triggers", "history", "label"]),
        ]
    }

    fn build_with(protocol: &str, set: impl FnOnce(&mut DebateRequest)) -> Result<Value, String> {
        build(&args(protocol, set), &Inputs::default(), &catalog())
    }

    #[test]
    fn the_answer_kind_and_choices_reach_the_engine_as_given() {
        use agon_core::answer::{AnswerSpec, Kind};
        let answer = AnswerSpec { kind: Some(Kind::Choice), choices: vec!["5 cents".into(), "10 cents".into()] };
        let request = build_with("plain", |r| r.answer = Some(answer)).unwrap();
        assert_eq!(request["answer"], json!({"kind": "choice", "choices": ["5 cents", "10 cents"]}));
        assert_eq!(build_with("plain", |_| {}).unwrap().get("answer"), None);
    }

    #[test]
    fn settings_become_the_options_the_catalog_says_a_protocol_takes() {
        let request = build_with("weigh", |r| r.compared = vec!["A".into(), "B".into()]).unwrap();
        assert_eq!(request["options"]["options"], json!(["A", "B"]));
        assert_eq!(request["models"], json!(["openai/m"]), "the engine decides how many seats one model fills");
        let e = build_with("plain", |r| r.compared = vec!["x".into()]).unwrap_err();
        assert_eq!(e, "--option only applies to weigh, not plain");
        let e = build_with("plain", |r| r.consensus = Some(agon_core::ConsensusMode::Judge)).unwrap_err();
        assert!(e.starts_with("--consensus only applies to pick"), "{e}");
        let request = build_with("pick:2", |r| r.judge = Judge::Without).unwrap();
        assert_eq!((request["protocol"].as_str(), request["no_judge"].as_bool()), (Some("pick:2"), Some(true)));
        assert_eq!(request.get("judge"), None, "no judge: none named");
        let request = build_with("pick", |r| r.judge = Judge::Model(" openai/j ".into())).unwrap();
        assert_eq!((request["judge"].as_str(), request["no_judge"].as_bool()), (Some("openai/j"), Some(false)));
        assert!(build_with("nope", |_| {}).unwrap_err().contains("unknown protocol"));
        let request = build_with("plain", |r| r.settings.diversity = Some(agon_core::Diversity::Off)).unwrap();
        assert_eq!(request["limits"]["diversity"], "off");
        assert_eq!(build_with("plain", |_| {}).unwrap()["limits"].get("diversity"), None, "the engine's default");
    }

    /// Options by the catalog's names (an MCP client's `options`) reach the
    /// protocols that take them; one it does not take is named with what it takes.
    #[test]
    fn options_by_name_are_checked_against_the_catalog() {
        let request = build_with("pick", |r| {
            r.options.insert("challenger".into(), json!("1"));
        })
        .unwrap();
        assert_eq!(request["options"]["challenger"], "1");
        let e = build_with("weigh", |r| {
            r.options.insert("challenger".into(), json!("1"));
        })
        .unwrap_err();
        assert_eq!(e, "options.challenger: weigh takes no such option (it takes: options)");
    }

    #[test]
    fn triggers_take_phrases_and_name_the_flag_when_wrong() {
        let request = build_with("gate", |r| r.triggers = vec!["risk=data loss, outage ,".into()]).unwrap();
        assert_eq!(request["options"]["triggers"], json!([{"name": "risk", "any_of": ["data loss", "outage"]}]));
        for bad in ["risk", "=x", "risk= , "] {
            let e = build_with("gate", |r| r.triggers = vec![bad.into()]).unwrap_err();
            assert!(e.starts_with(&format!("--trigger '{bad}'")), "{e}");
        }
    }

    #[test]
    fn the_files_triggers_apply_where_they_mean_something_and_flags_replace_them() {
        let inputs = Inputs {
            file_triggers: vec![json!({"name": "arch", "any_of": ["data model"]})],
            history: vec![json!({"disagreements": 0})],
            ..Inputs::default()
        };
        let with = |protocol: &str, triggers: &[&str]| {
            let request = args(protocol, |r| r.triggers = triggers.iter().map(|t| t.to_string()).collect());
            build(&request, &inputs, &catalog()).unwrap()
        };
        let request = with("gate", &[]);
        assert_eq!(request["options"]["triggers"][0]["any_of"], json!(["data model"]));
        assert_eq!(request["options"]["history"], json!([{"disagreements": 0}]));
        let request = with("gate", &["x=y"]);
        assert_eq!(request["options"]["triggers"], json!([{"name": "x", "any_of": ["y"]}]));
        let request = with("plain", &[]);
        assert_eq!(request["options"], json!({}), "no triggers nor history where the protocol takes none");
    }

    /// agon.toml's `defaults.consensus` reaches every protocol that reads
    /// agreement, a document of one's own too, and no other; the flag wins.
    #[test]
    fn the_files_consensus_mode_applies_where_agreement_is_read() {
        let document = json!({"name": "mine", "stop": {"consensus": {"phase": "talk", "rule": "all"}}});
        let mut inputs = Inputs { file_consensus: Some(json!("judge")), ..Inputs::default() };
        let with = |inputs: &Inputs, protocol: &str, mode: Option<agon_core::ConsensusMode>| {
            build(&args(protocol, |r| r.consensus = mode), inputs, &catalog()).unwrap()
        };
        assert_eq!(with(&inputs, "pick", None)["options"]["consensus"], "judge");
        let request = with(&inputs, "pick", Some(agon_core::ConsensusMode::Read));
        assert_eq!(request["options"]["consensus"], "read");
        assert_eq!(with(&inputs, "plain", None)["options"], json!({}));
        inputs.document = Some(checked(&document, &["consensus"]));
        assert_eq!(with(&inputs, "mine", None)["options"]["consensus"], "judge");
        inputs.document = Some(checked(&json!({"name": "mine"}), &[]));
        assert_eq!(with(&inputs, "mine", None)["options"].get("consensus"), None);
    }

    #[test]
    fn a_label_reaches_the_protocols_that_take_one() {
        let request = build_with("gate", |r| r.label = Some(" rfc ".into())).unwrap();
        assert_eq!(request["options"]["label"], json!("rfc"));
        let e = build_with("plain", |r| r.label = Some("rfc".into())).unwrap_err();
        assert_eq!(e, "--label only applies to gate, not plain");
        let e = build_with("gate", |r| r.label = Some(" ".into())).unwrap_err();
        assert!(e.starts_with("--label"), "{e}");
    }

    /// A document's name and options replace the catalog's: `NAME:SEAT` names
    /// its adversary, and a flag for an option it does not take is refused.
    #[test]
    fn a_document_brings_its_own_name_and_options() {
        let document = json!({"name": "mine", "adversary": {"title": "x", "pick": "seeded"}});
        let inputs = Inputs { document: Some(checked(&document, &["adversary"])), ..Inputs::default() };
        let with = |protocol: &str, mode: Option<agon_core::ConsensusMode>| {
            build(&args(protocol, |r| r.consensus = mode), &inputs, &catalog())
        };
        let request = with("mine:2", None).unwrap();
        assert_eq!(request["protocol"], "mine:2");
        assert_eq!(request["options"]["document"], document);
        // Another protocol's suffix is not this document's seat.
        let request = with("pick:2", None).unwrap();
        assert_eq!(request["protocol"], "mine");
        let e = with("mine", Some(agon_core::ConsensusMode::Judge)).unwrap_err();
        assert!(e.starts_with("--consensus only applies to") && e.ends_with("not mine"), "{e}");
    }

    #[test]
    fn items_files_lose_their_list_markers() {
        assert_eq!(read_items("- fix CI\n\n2. hire\n* ship 1.0\n"), ["fix CI", "hire", "ship 1.0"]);
    }
}
