//! From the page's form to a debate spec. The core validates the result; this
//! only shapes it, the way the CLI shapes its flags.

use std::collections::BTreeMap;

use agon_core::{DebateSpec, Error, Limits, OptionKind, ProtocolInfo, SpecRequest, build_spec};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The form's fields that decide the debate (the endpoint and key do not).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Form {
    /// Comma-separated model names, sent to the endpoint as typed.
    pub models: String,
    /// The judge's model; empty for a debate without synthesis.
    #[serde(default)]
    pub judge: String,
    /// A built-in protocol's name; ignored when `document` is given.
    #[serde(default)]
    pub protocol: String,
    /// A protocol document of one's own (JSON text); empty: `protocol` is a built-in.
    #[serde(default)]
    pub document: String,
    /// Empty: the protocol's own default.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// The protocol's options as typed, by the names the catalog gives them;
    /// an empty field means the protocol's default. Read by the option's kind:
    /// a list of texts one per line, a flag `true`/`false`, data as JSON.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// A model per role id (protocols whose seats are roles); empty: the Models in turn.
    #[serde(default)]
    pub role_models: BTreeMap<String, String>,
    pub question: String,
    /// Material the question is about (the extension puts a page's selected
    /// text here); empty for none. The core quotes it to every speaker after
    /// the question, as material rather than instructions.
    #[serde(default)]
    pub context: String,
    /// Files dropped on the page or chosen, read as text (`{path, text}`): the
    /// core quotes each after the context, checks the caps and hashes it.
    #[serde(default)]
    pub files: Vec<agon_core::ContextFile>,
    /// The finished debate this one follows up ("Ask a follow-up"): its id
    /// and transcript, from which the core makes the spec's parent section.
    #[serde(default)]
    pub follows: Option<agon_core::Follows>,
    /// Ceiling on every debate turn; the judge gets twice as much.
    pub max_tokens: u32,
    /// How hard reasoning models think (`low`, `medium`, `high`); empty: each model's default.
    #[serde(default)]
    pub effort: String,
    /// Role files of one's own, as text (Markdown with YAML frontmatter):
    /// each debating role a seat, the judging role the judge.
    #[serde(default)]
    pub roles: Vec<String>,
    /// Every seat's field of expertise (a role file's own `domain:` stands); empty: none.
    #[serde(default)]
    pub domain: String,
    /// Blind first answers: in round 1 no seat sees another's answer.
    #[serde(default)]
    pub blind: bool,
}

/// Build and validate the spec this form describes: the core's spec builder
/// decides seat ids and the judge, as for every host. Errors are for people.
pub fn spec(form: &Form) -> Result<DebateSpec, String> {
    let models: Vec<String> =
        form.models.split(',').map(str::trim).filter(|m| !m.is_empty()).map(String::from).collect();
    if models.is_empty() {
        return Err("Models: give at least one model name".into());
    }
    let (protocol, options) = if form.document.trim().is_empty() {
        let info = agon_core::protocols().into_iter().find(|p| p.name == form.protocol);
        (form.protocol.clone(), options(&form.protocol, info.as_ref(), &form.options)?)
    } else {
        own_protocol(&form.document, &form.options)?
    };
    let role_models = form
        .role_models
        .iter()
        .filter(|(_, m)| !m.trim().is_empty())
        .map(|(r, m)| (r.clone(), m.trim().into()))
        .collect();
    let judge = form.judge.trim();
    let request = SpecRequest {
        question: form.question.clone(),
        // A blank field is no context given: a follow-up then reads its parent's.
        context: Some(form.context.clone()).filter(|c| !c.trim().is_empty()),
        files: form.files.clone(),
        follows: form.follows.clone(),
        models,
        judge: Some(judge.to_string()).filter(|j| !j.is_empty()),
        no_judge: judge.is_empty(),
        protocol,
        options,
        role_models,
        rounds: form.rounds,
        limits: Limits {
            max_tokens: form.max_tokens,
            judge_max_tokens: form.max_tokens.saturating_mul(2),
            ..Limits::default()
        },
        reasoning: effort(&form.effort)?,
        roles: form.roles.clone(),
        domain: Some(form.domain.trim().to_string()).filter(|d| !d.is_empty()),
        blind: form.blind,
        ..SpecRequest::default()
    };
    build_spec(request).map_err(|e| e.to_string())
}

/// The Effort field: every seat's reasoning effort, or none.
fn effort(field: &str) -> Result<Option<agon_core::Reasoning>, String> {
    let effort = match field.trim() {
        "" => return Ok(None),
        "low" => agon_core::Effort::Low,
        "medium" => agon_core::Effort::Medium,
        "high" => agon_core::Effort::High,
        other => return Err(format!("Reasoning effort: '{other}' is not low, medium or high")),
    };
    Ok(Some(agon_core::Reasoning { effort: Some(effort), budget: None }))
}

/// The form's option fields as the spec's option values, each read by the
/// kind the engine's description of the protocol (`info`) gives it.
fn options(
    protocol: &str,
    info: Option<&ProtocolInfo>,
    fields: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, Value>, String> {
    let mut options = BTreeMap::new();
    for (name, text) in fields {
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let option = info
            .and_then(|p| p.options.iter().find(|o| o.name == name))
            .ok_or_else(|| format!("{name}: {protocol} takes no option of that name"))?;
        let value = match option.kind {
            OptionKind::Texts => json!(text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>()),
            OptionKind::Flag => match text {
                "true" => json!(true),
                "false" => json!(false),
                other => return Err(format!("{name}: true or false, not '{other}'")),
            },
            OptionKind::Data => serde_json::from_str(text).map_err(|e| format!("{name}: not JSON: {e}"))?,
            OptionKind::Seat | OptionKind::Choice(_) | OptionKind::Text => json!(text),
        };
        options.insert(name.clone(), value);
    }
    Ok(options)
}

/// Check a protocol document (JSON) with the core: the document normalized,
/// or the JSON path of the mistake and what it is
/// (`protocol.phases[1].turns[0].prompt.user: unknown slot {histroy}`).
pub fn check_document(text: &str) -> Result<String, String> {
    agon_core::check_document(text).map_err(|e| readable_for(text, e))
}

/// A protocol document as the core describes it (as its catalog describes a
/// built-in): the page offers its option fields from this.
pub fn document_info(text: &str) -> Result<ProtocolInfo, String> {
    agon_core::document_info(text).map_err(|e| readable_for(text, e))
}

/// The core's error for `text`; for text that is not even a JSON object (a
/// TOML or YAML document, most likely), also how to get one.
fn readable_for(text: &str, e: Error) -> String {
    let reason = readable(e);
    if text.trim_start().starts_with('{') {
        return reason;
    }
    format!(
        "{reason}. The page reads JSON: `agon protocols --show FILE --format json` converts a TOML or YAML document"
    )
}

/// A document is not a spec: its errors read without the "invalid spec" lead.
fn readable(e: Error) -> String {
    match e {
        Error::InvalidSpec { field, reason } if field.is_empty() => reason,
        Error::InvalidSpec { field, reason } => format!("{field}: {reason}"),
        other => other.to_string(),
    }
}

/// The spec request's protocol for a document: its name, and the document
/// (as the core normalized it) as the option `document`, beside the options
/// the document takes (its adversary, its consensus mode) from their fields.
fn own_protocol(text: &str, fields: &BTreeMap<String, String>) -> Result<(String, BTreeMap<String, Value>), String> {
    let document: Value = serde_json::from_str(&check_document(text)?).map_err(|e| e.to_string())?;
    let info = document_info(text)?;
    let mut options = options(&info.name, Some(&info), fields)?;
    options.insert("document".to_string(), document);
    Ok((info.name, options))
}

/// One of the roles a protocol seats, for the page's per-role model fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleField {
    pub id: String,
    pub name: String,
    /// The role file's own model.
    pub model: String,
    /// It debates (stage 1); otherwise it judges.
    pub debates: bool,
}

/// The roles the page seats: those of the role files given (`names` name
/// them in errors), else the built-in ones when `protocol` seats roles
/// rather than models (the core's builder seats them without any model
/// given); `None` when there are none.
pub fn roles(protocol: &str, texts: &[String], names: &[String]) -> Result<Option<Vec<RoleField>>, String> {
    let roles = if texts.is_empty() {
        let probe = SpecRequest { question: "?".into(), protocol: protocol.into(), ..SpecRequest::default() };
        if build_spec(probe).is_err() {
            return Ok(None);
        }
        agon_core::builtin_roles()
    } else {
        let read = texts.iter().zip(names.iter().map(String::as_str).chain(std::iter::repeat("a role file")));
        read.map(|(text, name)| agon_core::parse_role(text).map_err(|e| format!("{name}: {e}")))
            .collect::<Result<_, _>>()?
    };
    let fields = roles
        .into_iter()
        .filter(|r| r.participates_in_stage1 || r.participates_in_stage3)
        .map(|r| RoleField { id: r.role_id, name: r.role_name, model: r.model, debates: r.participates_in_stage1 })
        .collect();
    Ok(Some(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(models: &str, judge: &str) -> Form {
        Form {
            models: models.into(),
            judge: judge.into(),
            protocol: "rotating-challenger".into(),
            document: String::new(),
            rounds: Some(1),
            options: BTreeMap::new(),
            role_models: BTreeMap::new(),
            question: " Tabs or spaces? ".into(),
            context: String::new(),
            files: Vec::new(),
            follows: None,
            max_tokens: 100,
            effort: String::new(),
            roles: Vec::new(),
            domain: String::new(),
            blind: false,
        }
    }

    #[test]
    fn the_effort_reaches_every_seat_and_the_judge() {
        let mut f = form("gpt-5, o3", "gpt-5");
        f.effort = "high".into();
        let spec = spec(&f).unwrap();
        let high = Some(agon_core::Reasoning { effort: Some(agon_core::Effort::High), budget: None });
        assert!(spec.panel.iter().chain(&spec.judge).all(|p| p.reasoning == high), "{:?}", spec.panel);
        f.effort = "extreme".into();
        assert!(spec_err(&f).contains("Reasoning effort"));
    }

    #[test]
    fn repeated_models_get_numbered_seats() {
        let spec = spec(&form("smollm2, smollm2,org/smollm2", "smollm2")).unwrap();
        let ids: Vec<&str> = spec.panel.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["smollm2", "smollm2-2", "smollm2-3"]);
        assert_eq!(spec.panel[2].model, "org/smollm2");
        assert_eq!(spec.judge.unwrap().model, "smollm2");
        assert_eq!(spec.question, "Tabs or spaces?");
        assert_eq!(spec.limits.judge_max_tokens, 200);
    }

    #[test]
    fn dropped_files_reach_the_spec_and_a_binary_one_is_refused_by_name() {
        let mut f = form("a,b", "j");
        f.files = vec![agon_core::ContextFile { path: "change.diff".into(), text: "+ a line\n".into() }];
        assert_eq!(spec(&f).unwrap().files, f.files);
        f.files.push(agon_core::ContextFile { path: "logo.png".into(), text: "\u{89}PNG\0".into() });
        let e = spec(&f).unwrap_err();
        assert!(e.contains("files[1].text") && e.contains("'logo.png' is binary"), "{e}");
    }

    #[test]
    fn a_context_reaches_the_spec_and_a_blank_one_is_none() {
        let mut f = form("a,b", "j");
        assert_eq!(spec(&f).unwrap().context, None);
        f.context = " \n ".into();
        assert_eq!(spec(&f).unwrap().context, None);
        f.context = "From a page:\nRust has no GC.".into();
        assert_eq!(spec(&f).unwrap().context.as_deref(), Some("From a page:\nRust has no GC."));
    }

    #[test]
    fn a_follow_up_with_a_blank_context_field_reads_its_parents() {
        let mut f = form("a,b", "j");
        let transcript = serde_json::json!({"question": "Ship?", "context": "Payments only.",
            "turns": [], "outcome": {"kind": "completed", "reason": ""}});
        f.follows = Some(agon_core::Follows { session: "s-1".into(), transcript, files: Vec::new() });
        assert_eq!(spec(&f).unwrap().context.as_deref(), Some("Payments only."));
        f.context = "Search too.".into();
        assert_eq!(spec(&f).unwrap().context.as_deref(), Some("Search too."));
    }

    #[test]
    fn an_empty_judge_means_no_synthesis() {
        assert!(spec(&form("a,b", " ")).unwrap().judge.is_none());
    }

    #[test]
    fn the_core_rejects_what_is_wrong_and_says_where() {
        assert!(spec(&form(" , ", "j")).unwrap_err().starts_with("Models"));
        let mut bad = form("a,b", "j");
        bad.protocol = "shouting-match".into();
        assert!(spec(&bad).unwrap_err().contains("protocol"));
        let mut stray = form("a,b", "j");
        stray.options.insert("items".into(), "x".into());
        assert!(spec(&stray).unwrap_err().starts_with("items: rotating-challenger takes no option"));
    }

    #[test]
    fn options_go_where_the_protocol_wants_them() {
        let mut f = form("a,b", "j");
        f.protocol = "priority-vote".into();
        f.options.insert("items".into(), "fix login\n\n ship dark mode \n".into());
        f.rounds = None;
        let spec = spec(&f).unwrap();
        assert_eq!(spec.rounds, None);
        let json = serde_json::to_value(&spec.protocol).unwrap();
        assert_eq!(json["items"], json!(["fix login", "ship dark mode"]));
    }

    #[test]
    fn every_kind_of_option_is_read_by_its_kind() {
        let mut f = form("a,b", "j");
        f.protocol = "adversarial".into();
        f.rounds = None;
        f.options.insert("compete".into(), "compete".into());
        f.options.insert("triggers".into(), r#"[{"name": "security", "any_of": ["auth"]}]"#.into());
        f.options.insert("history".into(), " ".into());
        let json = serde_json::to_value(spec(&f).unwrap().protocol).unwrap();
        assert_eq!(json["compete"], "compete");
        assert_eq!(json["triggers"][0]["any_of"], json!(["auth"]));
        assert!(json.get("history").is_none(), "an empty field is the default");
        f.options.insert("triggers".into(), "[oops".into());
        assert!(spec(&f).unwrap_err().starts_with("triggers: not JSON"));

        let mut f = form("a,b,c", "j");
        f.protocol = "challenge".into();
        f.rounds = None;
        f.options.insert("skeptical_of_early_agreement".into(), "false".into());
        let json = serde_json::to_value(spec(&f).unwrap().protocol).unwrap();
        assert_eq!(json["skeptical_of_early_agreement"], false);
        f.options.insert("skeptical_of_early_agreement".into(), "maybe".into());
        assert!(spec(&f).unwrap_err().contains("true or false"));
    }

    #[test]
    fn role_protocols_seat_the_builtin_roles_with_their_own_models() {
        assert_eq!(roles("rotating-challenger", &[], &[]), Ok(None));
        let fields = roles("role-council", &[], &[]).unwrap().expect("role-council seats roles");
        let ids: Vec<&str> = fields.iter().map(|r| r.id.as_str()).collect();
        assert!(ids.contains(&"devils_advocate") && fields.iter().any(|r| !r.debates), "{ids:?}");

        let mut f = form("m1, m2", "");
        f.protocol = "role-council".into();
        f.role_models.insert("cfo".into(), " finance-model ".into());
        f.role_models.insert("optimist".into(), "  ".into());
        let spec = spec(&f).unwrap();
        let seat = |id: &str| spec.panel.iter().find(|p| p.id == id).unwrap();
        assert_eq!(seat("cfo").model, "finance-model");
        assert_eq!(seat("devils_advocate").name, "Devil's Advocate");
        assert!(["m1", "m2"].contains(&seat("optimist").model.as_str()), "empty: the Models in turn");
        f.role_models.insert("nobody".into(), "x".into());
        assert!(spec_err(&f).contains("nobody"));
    }

    /// Role files of one's own seat the debate, in any protocol; a bad one is
    /// named with its line; the form's domain and blind reach the spec.
    #[test]
    fn own_role_files_seat_the_debate_and_a_bad_one_is_named() {
        let skeptic = "---\nrole_id: skeptic\nrole_name: Skeptic\nmodel: m9\nparticipates_in_stage1: true\n\
                       domain: clinical trials\n---\n# Stage 1 Instructions\nDoubt every number.\n";
        let referee =
            "---\nrole_id: referee\nmodel: j\nparticipates_in_stage3: true\n---\n# Stage 3 Instructions\nWeigh it.\n";
        let texts = vec![skeptic.to_string(), referee.to_string()];
        let fields = roles("round-robin", &texts, &["skeptic.md".into()]).unwrap().unwrap();
        assert_eq!(
            fields.iter().map(|r| (r.id.as_str(), r.debates)).collect::<Vec<_>>(),
            [("skeptic", true), ("referee", false)]
        );
        let bad = roles("round-robin", &["---\nrole_id: x y\n".into()], &["mine.md".into()]).unwrap_err();
        assert!(bad.starts_with("mine.md: ") && bad.contains("line"), "{bad}");

        let mut f = form("m1", "j");
        f.protocol = "round-robin".into();
        f.roles = texts;
        f.blind = true;
        let spec = spec(&f).unwrap();
        assert_eq!(spec.panel.len(), 1);
        assert_eq!(spec.panel[0].persona.as_deref(), Some("Doubt every number."));
        assert_eq!(spec.panel[0].domain.as_deref(), Some("clinical trials"));
        assert_eq!(spec.judge.as_ref().map(|j| (j.id.as_str(), j.model.as_str())), Some(("referee", "j")));
        assert!(spec.blind);
    }

    /// "Ask a follow-up": the form carries the finished debate, and the core
    /// makes the spec's parent section from its transcript.
    #[test]
    fn a_follow_up_carries_its_parent() {
        let mut f = form("gpt-5, o3", "gpt-5");
        let transcript = serde_json::json!({"question": "Tabs?", "turns": [], "participants": [],
            "synthesis": {"text": "Tabs."}, "outcome": {"kind": "completed", "reason": ""}});
        f.follows =
            Some(serde_json::from_value(serde_json::json!({"session": "m1x2", "transcript": transcript})).unwrap());
        let parent = spec(&f).unwrap().parent.unwrap();
        assert_eq!((parent.session.as_str(), parent.synthesis.as_deref()), ("m1x2", Some("Tabs.")));
        f.follows = Some(
            serde_json::from_value(serde_json::json!({"session": "m1x2", "transcript": {"question": "Tabs?"}}))
                .unwrap(),
        );
        assert!(spec_err(&f).contains("has not finished"), "{}", spec_err(&f));
    }

    /// The red/blue exercise as the page's browser test fills the form:
    /// the document pasted, three models, a judge.
    fn red_blue_form(document: String) -> Form {
        Form {
            models: "red1, red2, blue".into(),
            judge: "judge".into(),
            protocol: "rotating-challenger".into(),
            document,
            rounds: Some(3),
            options: BTreeMap::new(),
            role_models: BTreeMap::new(),
            question: "Ship the billing rewrite on Monday?".into(),
            context: String::new(),
            files: Vec::new(),
            follows: None,
            max_tokens: 200,
            effort: String::new(),
            roles: Vec::new(),
            domain: String::new(),
            blind: false,
        }
    }

    fn golden(case: &str) -> Value {
        let path = format!("{}/../tests/golden/{case}/spec.json", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// The golden case the browser test compares the page's run with holds
    /// exactly the spec this form makes: the document decides the protocol,
    /// not the select's leftover choice.
    #[test]
    fn a_pasted_document_makes_the_spec_of_its_golden_case() {
        let document = golden("red-blue-document")["protocol"]["document"].to_string();
        let spec = spec(&red_blue_form(document)).unwrap();
        assert_eq!(serde_json::to_value(&spec).unwrap(), golden("red-blue-page"));
    }

    #[test]
    fn a_bad_document_is_named_by_its_json_path() {
        let mut document = golden("red-blue-document")["protocol"]["document"].clone();
        document["phases"][1]["turns"][0]["prompt"]["user"] = json!("{question}{histroy}");
        let err = spec_err(&red_blue_form(document.to_string()));
        assert_eq!(err, "protocol.phases[1].turns[0].prompt.user: unknown slot {histroy}");
        assert!(spec_err(&red_blue_form("{\"version\": 1,".into())).starts_with("protocol: not JSON"));
        assert!(!spec_err(&red_blue_form("{\"version\": 1,".into())).contains("--show"), "JSON gets no hint");
        let toml = "version = 1\nname = \"red-blue\"\n";
        let err = spec_err(&red_blue_form(toml.into()));
        assert!(err.starts_with("protocol: not JSON") && err.ends_with("converts a TOML or YAML document"), "{err}");
        let mut f = red_blue_form(golden("red-blue-document")["protocol"]["document"].to_string());
        f.options.insert("items".into(), "x".into());
        assert_eq!(spec_err(&f), "items: red-blue takes no option of that name");
    }

    /// A document that declares an adversary and stops on consensus takes
    /// both options from the page's fields, read by their kinds; an empty
    /// field leaves the document's own choice.
    #[test]
    fn a_documents_own_options_reach_its_spec() {
        let devils = agon_core::BUILTIN_DOCUMENTS.iter().find(|(n, _)| *n == "devils-advocate").unwrap().1;
        let mut document: Value = serde_json::from_str(devils).unwrap();
        document["name"] = json!("critics");
        document["stop"] = json!({"consensus": {"phase": "deliberation", "rule": "all"}});
        let info = document_info(&document.to_string()).unwrap();
        let names: Vec<&str> = info.options.iter().map(|o| o.name).collect();
        // Every document that reads answers also takes stop_when_unchanged.
        assert_eq!(names, ["adversary", "consensus", "stop_when_unchanged"]);

        let mut f = red_blue_form(document.to_string());
        let plain = serde_json::to_value(spec(&f).unwrap().protocol).unwrap();
        assert_eq!((plain.get("adversary"), plain.get("consensus")), (None, None), "empty fields: the defaults");
        f.options.insert("adversary".into(), "blue".into());
        f.options.insert("consensus".into(), "read".into());
        let chosen = serde_json::to_value(spec(&f).unwrap().protocol).unwrap();
        assert_eq!((chosen["name"].as_str(), chosen["adversary"].as_str()), (Some("critics"), Some("blue")));
        assert_eq!(chosen["consensus"], "read");
        f.options.insert("adversary".into(), "nobody".into());
        assert!(spec_err(&f).contains("protocol.adversary"), "{}", spec_err(&f));
    }

    fn spec_err(f: &Form) -> String {
        spec(f).unwrap_err()
    }
}
