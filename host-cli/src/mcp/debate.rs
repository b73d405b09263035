//! One debate (or resumed session) for an MCP client, on a thread of its own:
//! the same path as `agon run` and `agon resume` (agon.toml, providers, the
//! sessions folder, the compete history), minus everything that would write
//! to stdout, which belongs to the protocol.

use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

use agon_cli::config::Config;
use agon_cli::context_files::FileScope;
use agon_cli::engine::{Council, Runtime};
use agon_cli::follow_up::ParentSession;
use agon_cli::host::{Ending, JournalFile, Message, Sinks};
use agon_cli::options::Combine;
use agon_cli::options::PerSeat;
use agon_cli::provider::client_model::is_client;
use agon_cli::provider::gate::CallGate;
use agon_cli::provider::{CallOptions, Environment};
use agon_cli::request::{DebateRequest, Judge};
use agon_cli::runner::drive::write_transcripts;
use agon_cli::runner::spec::{history_key, human_seats, spec_json};
use agon_cli::runner::{self, History, Keep, Reopened, lock_session, reopen};
use agon_cli::sessions::{self, SessionDir};
use agon_cli::view::View;
use agon_cli::{bad, sanitize};
use anyhow::{Context, Result};
use serde_json::{Value, json};

use super::sampling::Caller;
use super::schema::{ContinueArgs, DebateArgs, DebateResult, Estimate, Outcome, Position, Usage};

/// What every debate of one server shares.
pub struct Shared {
    pub config: Config,
    pub calls: CallOptions,
    /// `--retries`, `--max-retry-wait` and the like, as given.
    pub call_flags: agon_cli::cli::CallArgs,
    /// The in-flight limit over every debate, as `agon batch` has.
    pub gate: Arc<CallGate>,
    /// `--allow-programs`: whether a tool call may seat `cmd/` models.
    pub allow_programs: bool,
    /// The most a debate's result may hold, in estimated tokens (`--max-result-tokens`).
    pub max_result_tokens: usize,
    /// `--root`: the folders a call's `files` may name, canonical.
    pub roots: Vec<std::path::PathBuf>,
}

impl Shared {
    fn environment(&self) -> Environment {
        let mut env = self.call_flags.environment(&self.config);
        env.gate = Some(self.gate.clone());
        env
    }
}

/// A finished tool call: Markdown for people and models, and the same as data.
pub struct Answer {
    pub markdown: String,
    pub data: Value,
}

/// Where a debate run for a tool call reports: the host loop's messages (a
/// client's cancellation arrives there as `Interrupted`), the engine's
/// events, and `started`, told the worst-case calls and the session once the
/// run is checked and begins.
pub struct Outlets<'a> {
    pub channel: (Sender<Message>, Receiver<Message>),
    pub events: EventLines,
    pub started: &'a mut dyn FnMut(u32, &str),
}

/// The engine's events, one JSON line each, handed on as they are written.
pub struct EventLines {
    buffer: Vec<u8>,
    send: tokio::sync::mpsc::UnboundedSender<Value>,
}

impl EventLines {
    pub fn new(send: tokio::sync::mpsc::UnboundedSender<Value>) -> EventLines {
        EventLines { buffer: Vec::new(), send }
    }
}

impl Write for EventLines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = self.buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            if let Ok(event) = serde_json::from_slice(&line) {
                // A client that went away no longer hears; the debate goes on to its end.
                let _ = self.send.send(event);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The debate a `debate` call asks for, with agon.toml applied exactly as to
/// `agon run`; for a follow-up (`continue`), what the call leaves open taken
/// from the parent first, as `agon continue` does.
fn request_of(a: &DebateArgs, shared: &Shared, parent: Option<&ParentSession>) -> Result<DebateRequest> {
    let config = &shared.config;
    if a.question.trim().is_empty() {
        return Err(bad("question: ask something"));
    }
    let mut request = DebateRequest::new(a.question.clone());
    let mut asked = a.options().map_err(bad)?;
    if let Some(document) = &a.document {
        request.document = Some(document.clone());
    }
    if let Some(s) = a.seed {
        request.seed = s;
    }
    // As `--domain [SEAT=]AREA`: the engine checks each area and seat, naming the field.
    if a.domain.as_deref().is_some_and(|d| d.trim().is_empty() || d.contains('=')) {
        return Err(bad("domain: give a field of expertise in a few words (per seat: seat_domains)"));
    }
    request.domain = a.domain.iter().map(|area| PerSeat { seat: None, value: area.trim().to_string() }).collect();
    for (seat, area) in &a.seat_domains {
        if seat.trim().is_empty() || seat.contains(['=', ' ']) {
            return Err(bad(format!("seat_domains: '{seat}' is not a seat id")));
        }
        if area.trim().is_empty() {
            return Err(bad(format!("seat_domains.{seat}: give a field of expertise in a few words")));
        }
        request.domain.push(PerSeat { seat: Some(seat.trim().to_string()), value: area.trim().to_string() });
    }
    request.context = a.context.clone();
    // Only inside the server's roots, whoever names them (the caller, or agon.toml).
    request.file_scope = FileScope::Roots(shared.roots.clone());
    request.options = a.options.clone().into_iter().collect();
    // The compete history is the host's: a label picks it, as `--label` does.
    if let Some(label) = request.options.remove("label") {
        request.label = Some(label.as_str().ok_or_else(|| bad("options.label: give a name (text)"))?.to_string());
    }
    if request.options.contains_key("history") {
        return Err(bad("options.history: agon keeps the compete history itself; give options.label instead"));
    }
    if request.options.contains_key("document") {
        return Err(bad("options.document: give the protocol document as `document`"));
    }
    if let Some(parent) = parent {
        let (inherited, _) = parent.inherit(&mut request, &asked);
        asked = asked.combine(inherited);
    }
    config.apply_to_request(&mut request, &asked).map_err(bad)?;
    judge_not_the_caller(&mut request)?;
    Ok(request)
}

/// No panel in the call nor in agon.toml: seat what this machine offers, as
/// `agon run` does (role-council's seats are its roles); no judge: one off
/// the panel. A program is seated only when the server allows programs.
fn seat_what_is_found(request: &mut DebateRequest, shared: &Shared) -> Result<()> {
    // Programs are not even looked for (nor run for their version) unless
    // the server allows them.
    let discover = || {
        let (env, wait) = (shared.environment(), std::time::Duration::from_secs(2));
        match shared.allow_programs {
            true => agon_cli::discovery::discover(&env, wait),
            false => agon_cli::discovery::discover_without_programs(&env, wait),
        }
    };
    let line = agon_cli::discovery::fill(request, discover).map_err(|_| {
        bad("no panel given and none found: give `panel` (provider/model references), set a provider's key \
             (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY…) in the server's environment, set [defaults] panel \
             in agon.toml, or start a local server (Ollama, llama.cpp, LM Studio); programs (cmd/) are seated only \
             with agon mcp --allow-programs")
    })?;
    if let Some(line) = line {
        eprintln!("{}", line.replacen("agon:", "agon mcp:", 1));
    }
    Ok(())
}

/// What a tool call may not seat: a person (nobody answers at a terminal
/// over MCP), the calling client when it cannot sample, or a program unless
/// the server was started to allow it.
fn refuse_seats(spec: &Value, shared: &Shared, caller: &Caller) -> Result<()> {
    if let Some((seat, model)) = human_seats(spec).into_iter().next() {
        return Err(bad(format!(
            "seat '{seat}' is {model}, a person: over MCP nobody answers at a terminal; give the seat a model"
        )));
    }
    refuse_client_seats(spec, caller)?;
    refuse_programs(spec, shared)
}

/// Every seat (the judge's too) and its model, as the built spec has them.
fn seats(spec: &Value) -> impl Iterator<Item = (&str, &str)> {
    spec["panel"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(spec["judge"].as_object().map(|_| &spec["judge"]))
        .map(|seat| (seat["id"].as_str().unwrap_or_default(), seat["model"].as_str().unwrap_or_default()))
}

/// `mcp/client` seats need a caller that samples.
fn refuse_client_seats(spec: &Value, caller: &Caller) -> Result<()> {
    if let (Err(why), Some((seat, _))) = (caller.model(), seats(spec).find(|(_, model)| is_client(model))) {
        return Err(bad(format!(
            "seat '{seat}' is mcp/client, the calling client's own model, but {why}: give the seat a provider/model"
        )));
    }
    Ok(())
}

/// The judge is never the calling client unless asked: when the engine's
/// default (the first panel model) would make it so, the first other panel
/// model judges instead.
fn judge_not_the_caller(request: &mut DebateRequest) -> Result<()> {
    if request.judge != Judge::Default || !request.panel.first().is_some_and(|m| is_client(m)) {
        return Ok(());
    }
    match request.panel.iter().find(|m| !is_client(m)) {
        Some(model) => {
            request.judge = Judge::Model(model.clone());
            Ok(())
        }
        None => {
            Err(bad("judge: every seat is mcp/client, and the calling client judges only when asked: give `judge` \
             (a provider/model, or \"mcp/client\" to have your own model judge)"))
        }
    }
}

/// A `cmd/` model starts a program on this machine, with text the caller
/// chose: only when the person who started the server said so. Checked on
/// the built spec, so the panel, the judge, role models, a document's seats
/// and agon.toml's defaults are all covered.
fn refuse_programs(spec: &Value, shared: &Shared) -> Result<()> {
    if shared.allow_programs {
        return Ok(());
    }
    for (seat, model) in seats(spec) {
        if model.split('|').any(|m| m.trim().starts_with("cmd/")) {
            return Err(bad(format!(
                "seat '{seat}' is {model}, a program on this machine: agon mcp seats cmd/ models only when started with --allow-programs"
            )));
        }
    }
    Ok(())
}

/// `estimate`: the worst case, before anything is spent.
pub fn estimate(a: &DebateArgs, shared: &Shared, caller: &Caller) -> Result<Answer> {
    let mut runtime = Runtime::load()?;
    let mut request = request_of(a, shared, None)?;
    seat_what_is_found(&mut request, shared)?;
    let history = history_key(&request, &mut runtime)?;
    let spec = spec_json(&request, &mut runtime, &shared.config, history.as_ref())?;
    refuse_seats(&serde_json::from_str(&spec)?, shared, caller)?;
    let bound = runtime.estimate(&spec)?.map_err(|e| bad(e.to_string()))?;
    let estimate = Estimate {
        calls: bound.calls,
        prompt_tokens: bound.prompt_tokens,
        completion_tokens: bound.completion_tokens,
        cost_usd: bound.cost_micro_usd.map(|m| m as f64 / 1e6),
        unpriced: bound.unpriced.clone(),
    };
    Ok(Answer {
        markdown: agon_cli::runner::cost::worst_case_line(&bound).trim_start_matches("agon: ").to_string(),
        data: serde_json::to_value(estimate)?,
    })
}

/// `debate`: run it to its end, or until `channel` hears `Interrupted`.
/// `started` hears the worst-case number of calls and the session, once the run is checked.
pub fn debate(a: &DebateArgs, shared: &Shared, caller: &Caller, outlets: Outlets<'_>) -> Result<Answer> {
    run(request_of(a, shared, None)?, shared, caller, outlets)
}

/// `continue`: a follow-up on a finished session, run as `debate` runs.
pub fn follow_up(a: &ContinueArgs, shared: &Shared, caller: &Caller, outlets: Outlets<'_>) -> Result<Answer> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME) for agon mcp"))?;
    let mut parent = agon_cli::follow_up::open(&root, &a.session).map_err(bad)?;
    // A client reads only inside the roots: so do the parent's files it carries.
    let left_out = parent.keep_files_readable_in(&FileScope::Roots(shared.roots.clone()));
    let request = request_of(&a.debate(), shared, Some(&parent))?;
    eprintln!("agon mcp: following up session {}", parent.id);
    if !left_out.is_empty() && a.files.is_empty() {
        eprintln!(
            "agon mcp: left out of the follow-up, as not the same inside the server's roots: the earlier debate's {}",
            left_out.join(", ")
        );
    }
    run(request, shared, caller, outlets)
}

/// A request run to its end in a new session, or until `channel` hears `Interrupted`.
fn run(mut request: DebateRequest, shared: &Shared, caller: &Caller, outlets: Outlets<'_>) -> Result<Answer> {
    let mut runtime = Runtime::load()?;
    seat_what_is_found(&mut request, shared)?;
    let mut env = shared.environment();
    env.client = caller.model().ok();
    let prepared = runner::prepare(&request, &mut runtime, &shared.config, &env, History::Counted, &|spec| {
        refuse_seats(spec, shared, caller)
    })?;
    let (bound, history) = (prepared.bound, prepared.history);

    let mut council = runtime.create(&prepared.spec)?.map_err(|e| bad(e.to_string()))?;
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME) for agon mcp"))?;
    let session = SessionDir::create(&root).with_context(|| format!("creating a session in {}", root.display()))?;
    let _lock = lock_session(&session)?;
    if let Some(key) = &history {
        session.write(sessions::COMPETE_KEY, &serde_json::to_string(key)?)?;
    }
    let journals = vec![JournalFile::create(&session.journal(), &council.journal()?)?];
    eprintln!("agon mcp: debating in session {}", session.id);
    (outlets.started)(bound.calls, &session.id);
    finish(&mut council, &session, &env, shared, journals, history.as_ref(), outlets)
}

/// `resume`: a kept session, on from where it stopped.
pub fn resume(id: &str, retry_failed: bool, shared: &Shared, caller: &Caller, outlets: Outlets<'_>) -> Result<Answer> {
    let root = sessions::root().ok_or_else(|| bad("no sessions folder: set AGON_DATA_DIR (or HOME) for agon mcp"))?;
    let session = SessionDir::find(&root, id).map_err(bad)?;
    let _lock = lock_session(&session)?;
    let mut runtime = Runtime::load()?;
    let mut env = shared.environment();
    env.client = caller.model().ok();
    match reopen(&mut runtime, &session, retry_failed, &env)? {
        Reopened::Finished(mut council, _) => {
            write_transcripts(&mut council, &session)?;
            answer(&mut council, &session, None, shared.max_result_tokens)
        }
        Reopened::Ready { mut council, journals, history } => {
            let spec: Value = serde_json::from_str(&council.spec_json()?)?;
            if let Some((seat, model)) = human_seats(&spec).into_iter().next() {
                return Err(bad(format!(
                    "seat '{seat}' is {model}, a person: resume it with `agon resume {}` at a terminal",
                    session.id
                )));
            }
            refuse_client_seats(&spec, caller)?;
            refuse_programs(&spec, shared)?;
            let waiting = council.outstanding()?.len() as u32;
            (outlets.started)(waiting, &session.id);
            finish(&mut council, &session, &env, shared, journals, history.as_ref(), outlets)
        }
    }
}

/// Drive a checked council in its session to its end (or the client's
/// cancellation), then answer as `debate` does.
fn finish(
    council: &mut Council<'_>,
    session: &SessionDir,
    env: &Environment,
    shared: &Shared,
    journals: Vec<JournalFile>,
    history: Option<&agon_cli::compete_history::Key>,
    outlets: Outlets<'_>,
) -> Result<Answer> {
    let max_tokens = shared.max_result_tokens;
    let mut sinks = Sinks { events: Some(Box::new(outlets.events)), journals, timings: None };
    let keep =
        Keep { session: Some(session), history, resume: Some(format!("call resume with session {}", session.id)) };
    match runner::drive(council, env, shared.calls, &mut sinks, &mut View::new(None), outlets.channel, &keep)? {
        Ending::Done(_) => answer(council, session, None, max_tokens),
        Ending::Interrupted => answer(
            council,
            session,
            Some(format!(
                "cancelled: every answered turn is kept; call resume with session {} (or run `agon resume {}`)",
                session.id, session.id
            )),
            max_tokens,
        ),
    }
}

/// The protocol's named results, each with its kind, as the transcript keeps them.
fn results(t: &Value) -> Result<std::collections::BTreeMap<String, agon_core::NamedResult>> {
    let results = t.get("results").cloned().unwrap_or_default();
    if results.is_null() {
        return Ok(Default::default());
    }
    serde_json::from_value(results).context("the transcript's results")
}

/// The result: the outcome first (a run that is not complete says why before
/// anything else), the synthesis, the protocol's results, each seat's last word.
fn answer(
    council: &mut Council<'_>,
    session: &SessionDir,
    interrupted: Option<String>,
    max_tokens: usize,
) -> Result<Answer> {
    let t: Value = serde_json::from_str(&council.transcript_json()?)?;
    let outcome = match &interrupted {
        Some(next) => Outcome {
            kind: "interrupted".into(),
            complete: false,
            headline: "Interrupted".into(),
            reason: "the client cancelled the debate before it ended".into(),
            next: Some(next.clone()),
        },
        None => {
            let kind = t["outcome"]["kind"].as_str().unwrap_or("unknown").to_string();
            Outcome {
                complete: t["outcome"]["complete"] == true,
                kind,
                headline: t["outcome"]["headline"].as_str().unwrap_or_default().to_string(),
                reason: t["outcome"]["reason"].as_str().unwrap_or_default().to_string(),
                next: None,
            }
        }
    };
    let result = DebateResult {
        session: session.id.clone(),
        transcript: super::resources::transcript_uri(&session.id),
        shortened: Vec::new(),
        synthesis: t["synthesis"]["text"]
            .as_str()
            .map(|s| agon_core::synthesis_shown(t["protocol"].as_str().unwrap_or_default(), s)),
        positions: positions(&t),
        results: results(&t)?,
        usage: usage(&t, &council.cost_summary()?),
        warnings: t["warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w["message"].as_str().map(str::to_string))
            .collect(),
        outcome,
    };
    // Within the client's cap, with what was cut named; the whole is a resource.
    let (result, results) = super::fit::fit(result, council.results_markdown()?, max_tokens, &markdown);
    // Model text in our own layout: made inert by agon-core, as transcript.md and `show` are.
    let markdown = agon_core::inert_markdown(&markdown(&result, &results));
    Ok(Answer { markdown: sanitize::terminal(&markdown).into_owned(), data: serde_json::to_value(&result)? })
}

/// Each participant's last turn, in seat order.
fn positions(t: &Value) -> Vec<Position> {
    let turns = t["turns"].as_array().map(Vec::as_slice).unwrap_or_default();
    t["participants"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| {
            let id = p["id"].as_str()?;
            let last = turns.iter().rev().find(|turn| turn["speaker"] == id)?;
            Some(Position {
                seat: p["name"].as_str().filter(|n| !n.is_empty()).unwrap_or(id).to_string(),
                model: last["model"].as_str().unwrap_or_default().to_string(),
                round: last["round"].as_u64().unwrap_or_default() as u32,
                text: last["text"].as_str().unwrap_or_default().to_string(),
            })
        })
        .collect()
}

/// The transcript's totals, and the cost as the engine tells it (only when every seat had a price).
fn usage(t: &Value, cost: &agon_cli::engine::wit::CostSummary) -> Usage {
    let total = &t["usage"]["total"];
    Usage {
        calls: total["calls"].as_u64().unwrap_or_default(),
        prompt_tokens: total["prompt_tokens"].as_u64().unwrap_or_default(),
        completion_tokens: total["completion_tokens"].as_u64().unwrap_or_default(),
        cost_usd: cost.cost_micro_usd.map(|m| m as f64 / 1e6),
    }
}

fn markdown(r: &DebateResult, results: &str) -> String {
    let mut out = String::new();
    let o = &r.outcome;
    if o.complete {
        out.push_str(&format!("**{}**: {}\n\n", o.headline, o.reason));
    } else {
        out.push_str(&format!("**{} — not a complete result**: {}\n\n", o.headline, o.reason));
        if let Some(next) = &o.next {
            out.push_str(&format!("Next: {next}\n\n"));
        }
    }
    if let Some(s) = &r.synthesis {
        out.push_str(&format!("## Synthesis\n\n{}\n\n", block(s)));
    }
    if !results.trim().is_empty() {
        out.push_str(results.trim());
        out.push_str("\n\n");
    }
    if !r.warnings.is_empty() {
        out.push_str("## Warnings\n\n");
        for w in &r.warnings {
            out.push_str(&format!("- {w}\n"));
        }
        out.push('\n');
    }
    if !r.shortened.is_empty() {
        out.push_str("## Shortened to fit\n\n");
        for s in &r.shortened {
            out.push_str(&format!("- {s}\n"));
        }
        out.push('\n');
    }
    if !r.positions.is_empty() {
        out.push_str("## Final positions\n\n");
        for p in &r.positions {
            out.push_str(&format!("### {} ({}, round {})\n\n{}\n\n", p.seat, p.model, p.round, block(&p.text)));
        }
    }
    let cost = r.usage.cost_usd.map(|c| format!(", ${c:.4}")).unwrap_or_default();
    out.push_str(&format!(
        "Session {} · {} calls, {} prompt + {} completion tokens{cost} · the whole transcript: {}\n",
        r.session, r.usage.calls, r.usage.prompt_tokens, r.usage.completion_tokens, r.transcript
    ));
    out
}

/// A model's text as a block of its own: inert, any fence it left open
/// closed, so the sections after it are never swallowed (the whole result
/// passes the engine's neutralizer again).
fn block(text: &str) -> String {
    agon_core::inert_markdown(text.trim()).trim_end().to_string()
}

/// `json!` for the protocols tool: the catalog as hosts describe it, then
/// agon.toml's own protocols (one whose file is unusable is left out, and the log says why).
pub fn protocols(config: &Config) -> Result<Value> {
    let mut runtime = Runtime::load()?;
    let mut list: Vec<Value> = runtime.protocols()?.iter().map(protocol_json).collect();
    for (name, entry) in &config.protocols {
        match agon_cli::runner::spec::configured(&mut runtime, config, name, &entry.file) {
            Ok(own) => {
                let mut v = protocol_json(&own.checked.info);
                v["file"] = json!(own.file.display().to_string());
                list.push(v);
            }
            Err(e) => agon_cli::safe_eprintln!("agon mcp: {e:#}"),
        }
    }
    Ok(json!({ "protocols": list }))
}

/// One protocol as the protocols tool shows it.
fn protocol_json(p: &agon_cli::engine::wit::ProtocolInfo) -> Value {
    let options: Vec<Value> = p
        .options
        .iter()
        .map(|o| {
            use agon_cli::engine::wit::OptionKind as K;
            let (kind, choices) = match &o.kind {
                K::Seat => ("seat", vec![]),
                K::Choice(words) => ("choice", words.clone()),
                K::Flag => ("flag", vec![]),
                K::Text => ("text", vec![]),
                K::Texts => ("texts", vec![]),
                K::Data => ("data", vec![]),
            };
            let mut v = json!({"name": o.name, "kind": kind, "default": o.default, "help": o.help});
            if !choices.is_empty() {
                v["choices"] = json!(choices);
            }
            v
        })
        .collect();
    let mut v = json!({
        "name": p.name, "summary": p.summary, "min_seats": p.min_seats,
        "default_rounds": p.default_rounds, "max_rounds": p.max_rounds, "options": options,
    });
    if let Some(max) = p.max_seats {
        v["max_seats"] = json!(max);
    }
    v
}
