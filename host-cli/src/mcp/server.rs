//! The MCP server: its tools, with schemas from [`super::schema`], each call
//! on a thread of its own (the engine and the providers are synchronous),
//! progress from the engine's events, and a client's cancellation passed to
//! the host loop as an interruption.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::mpsc;

use agon_cli::BadInput;
use agon_cli::host::Message;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InputRequiredResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::Semaphore;

use super::background::Background;
use super::debate::{self, Answer, EventLines, Outlets, Shared};
use super::input_required::{self, Desk};
use super::progress::Progress;
use super::sampling;
use super::schema::{self, ContinueArgs, DebateArgs, NoArgs, ResumeArgs, ShowArgs, StatusArgs};

/// The quiet after which a running debate sends a heartbeat. Checked once a
/// period, so notifications are never more than two periods (8 s) apart:
/// issue 37 asks for at most 10 s.
const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(4);

/// Kept sessions listed as resources, newest first.
const RESOURCES_LISTED: usize = 100;

/// The server every client connection shares.
#[derive(Clone)]
pub struct Agon {
    shared: Arc<Shared>,
    /// Debates at once, over every client.
    debates: Arc<Semaphore>,
    /// Debates started with `wait: false`, for `status`.
    background: Arc<Background>,
    /// The sampling requests of debates followed in legs (MCP 2026-07-28), by session.
    desks: Arc<std::sync::Mutex<std::collections::BTreeMap<String, Arc<Desk>>>>,
}

impl Agon {
    pub fn new(shared: Shared, debates: usize) -> Agon {
        Agon {
            shared: Arc::new(shared),
            debates: Arc::new(Semaphore::new(debates.max(1))),
            background: Arc::new(Background::default()),
            desks: Arc::default(),
        }
    }
}

/// What a debate or resume runs on its own thread.
type Job = Box<dyn FnOnce(&Shared, Outlets<'_>) -> anyhow::Result<Answer> + Send + 'static>;

// Every tool's description and schema stays in the calling agent's context
// for its whole session: each says what the tool is for in a few lines, and
// `tools/list` stays under 2,000 tokens (a test measures it).

const DEBATE: &str = "Ask a council of language models to debate a question, then a judge to synthesize: \
a second opinion, a design or code review, a decision with trade-offs. Runs in this one call, with progress. \
The answer states its outcome first; unless `complete`, it is not a complete result: read `reason`. Returns \
the synthesis, each seat's last position, the protocol's results, the cost and the session id (for `show`, \
`continue`, `resume`). Leave `panel` out unless the user named models.";

const STATUS: &str = "Follow a debate started with `wait: false`, by its session: `running` with progress, \
or the finished result. `cancel: true` stops it, keeping answered turns for `resume`.";

const PROTOCOLS: &str = "The debate protocols, each with its seats, rounds and the `options` it takes.";

const ESTIMATE: &str = "The worst case of a debate (calls, tokens, US dollars) before running it. Takes \
`debate`'s arguments; calls no model.";

const SESSIONS: &str = "The kept debates, newest first: id, date, protocol, outcome, cost, question.";

const SHOW: &str = "A kept debate's whole transcript, Markdown or JSON.";

const RESUME: &str = "Finish a debate that stopped early: only the calls never answered are made again.";

const CONTINUE: &str = "A follow-up question on a finished debate: a new debate whose speakers read the \
earlier one's outcome, synthesis and last words, on its panel, judge, protocol, context and files (those \
still the same) unless given.";

fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new().read_only(true).open_world(false);
    vec![
        Tool::new("debate", DEBATE, schema::input::<DebateArgs>())
            .with_title("Debate a question in a council of models")
            .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(true)),
        Tool::new("review", super::review::REVIEW, schema::input::<super::review::ReviewArgs>())
            .with_title("Review a code change")
            .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(true)),
        Tool::new("protocols", PROTOCOLS, schema::input::<NoArgs>())
            .with_title("List debate protocols")
            .with_annotations(read_only.clone()),
        Tool::new("estimate", ESTIMATE, schema::debate_arguments())
            .with_title("Worst-case cost of a debate")
            .with_annotations(read_only.clone()),
        Tool::new("sessions", SESSIONS, schema::input::<NoArgs>())
            .with_title("List kept debates")
            .with_annotations(read_only.clone()),
        Tool::new("show", SHOW, schema::input::<ShowArgs>())
            .with_title("Show a kept debate")
            .with_annotations(read_only),
        Tool::new("status", STATUS, schema::input::<StatusArgs>())
            .with_title("Follow a debate started without waiting")
            .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(false)),
        Tool::new("continue", CONTINUE, schema::input::<ContinueArgs>())
            .with_title("Ask a follow-up on a finished debate")
            .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(true)),
        Tool::new("resume", RESUME, schema::input::<ResumeArgs>())
            .with_title("Finish an interrupted debate")
            .with_annotations(ToolAnnotations::new().read_only(false).destructive(false).open_world(true)),
    ]
}

impl ServerHandler for Agon {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_resources().build())
            .with_server_info(Implementation::new("agon", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "agon runs councils of language models: call `debate` with a question for a debated, \
judged answer; `protocols` lists the ways a council can debate; `estimate` bounds the cost first.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut result = ListToolsResult::with_all_items(tools());
        // Newer clients cache the list; it never changes while the server runs.
        if context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28) {
            result = result.with_ttl_ms(0).with_cache_scope(CacheScope::Public);
        }
        Ok(result)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let listed = tokio::task::spawn_blocking(|| super::resources::list(RESOURCES_LISTED))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let resources =
            listed.into_iter().map(|(uri, title)| Resource::new(uri, title).with_mime_type("text/markdown")).collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(super::resources::TEMPLATE, "A kept debate's transcript")
            .with_description("format is md or json; session is an id from `sessions` or a debate's result");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let read = tokio::task::spawn_blocking(move || super::resources::read(&uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match read {
            Ok((text, mime)) => {
                let contents = ResourceContents::text(text, request.uri).with_mime_type(mime);
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
            Err(e) => Err(ErrorData::resource_not_found(format!("{e:#}"), None)),
        }
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let shared = self.shared.clone();
        let args = request.arguments;
        let bad = |tool: &str, why: String| ErrorData::invalid_params(format!("{tool}: {why}"), None);
        let result = match request.name.as_ref() {
            // A client answering the sampling requests of a debate it started.
            tool @ ("debate" | "continue") if request.request_state.is_some() => {
                let state = request.request_state.unwrap_or_default();
                let session = input_required::session_of(&state)
                    .ok_or_else(|| bad(tool, "requestState: not one agon gave".into()))?
                    .to_string();
                return self.next_leg(session, request.input_responses.unwrap_or_default(), context).await;
            }
            "debate" => {
                let a: DebateArgs = schema::parse(args).map_err(|e| bad("debate", e))?;
                let (wait, caller) = waiting("debate", a.wait, &context);
                let legs = caller.legs();
                let job: Job = Box::new(move |s, outlets| debate::debate(&a, s, &caller, outlets));
                return self.launch(job, legs, wait, context).await;
            }
            "review" => {
                let r: super::review::ReviewArgs = schema::parse(args).map_err(|e| bad("review", e))?;
                let a = super::review::debate_args(&r).map_err(|e| bad("review", format!("{e:#}")))?;
                let (wait, caller) = waiting("review", Some(true), &context);
                let legs = caller.legs();
                let job: Job = Box::new(move |s, outlets| {
                    super::review::answer(debate::debate(&a, s, &caller, outlets)?, &r.diff)
                });
                return self.launch(job, legs, wait, context).await;
            }
            "status" => {
                let a: StatusArgs = schema::parse(args).map_err(|e| bad("status", e))?;
                let owner = owner(&context);
                if a.cancel && self.background.cancel(&a.session, &owner) {
                    eprintln!("agon mcp: a client cancelled background debate {}; its session is kept", a.session);
                }
                match self.background.status(&a.session, &owner) {
                    Some(Ok(answer)) => Ok(answer),
                    Some(Err(why)) => Err(anyhow::anyhow!(why)),
                    None => Err(agon_cli::bad(format!(
                        "no debate this client started with `wait: false` in this server is session {}: `show` reads a kept one",
                        a.session
                    ))),
                }
            }
            "continue" => {
                let a: ContinueArgs = schema::parse(args).map_err(|e| bad("continue", e))?;
                let (wait, caller) = waiting("continue", a.wait, &context);
                let legs = caller.legs();
                let job: Job = Box::new(move |s, outlets| debate::follow_up(&a, s, &caller, outlets));
                return self.launch(job, legs, wait, context).await;
            }
            "resume" => {
                let a: ResumeArgs = schema::parse(args).map_err(|e| bad("resume", e))?;
                let caller = sampling::caller(&context).without_legs(
                    "on MCP 2026-07-28 agon asks the client only within `debate` and `continue`: resume this \
                     session from a client on an earlier protocol, or with `agon resume` once the seat is a model",
                );
                self.run(
                    context,
                    Box::new(move |s, outlets| debate::resume(&a.session, a.retry_failed, s, &caller, outlets)),
                )
                .await
            }
            "estimate" => {
                let a: DebateArgs = schema::parse(args).map_err(|e| bad("estimate", e))?;
                let caller = sampling::caller(&context);
                blocking(move || debate::estimate(&a, &shared, &caller)).await
            }
            "protocols" => {
                let _: NoArgs = schema::parse(args).map_err(|e| bad("protocols", e))?;
                blocking(move || {
                    let data = debate::protocols(&shared.config)?;
                    Ok(Answer { markdown: protocols_markdown(&data), data })
                })
                .await
            }
            "sessions" => {
                let _: NoArgs = schema::parse(args).map_err(|e| bad("sessions", e))?;
                blocking(super::sessions::list).await
            }
            "show" => {
                let a: ShowArgs = schema::parse(args).map_err(|e| bad("show", e))?;
                blocking(move || super::sessions::show(&a.session, a.format)).await
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "no tool '{other}' (agon has debate, review, status, protocols, estimate, sessions, show, continue, resume)"
                    ),
                    None,
                ));
            }
        };
        Ok(tool_result(result).into())
    }
}

/// Whether `tool` waits for its debate (`wait`, default true), and who
/// answers `mcp/client` seats: without waiting, no call is left to carry a
/// 2026-07-28 connection's sampling requests.
/// The client a call comes from, as far as background debates go: its MCP
/// session over HTTP (each connection's own), the one client of a stdio server.
fn owner(context: &RequestContext<RoleServer>) -> String {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|id| id.to_str().ok())
        .map_or_else(|| "stdio".to_string(), |id| format!("http:{id}"))
}

fn waiting(tool: &str, wait: Option<bool>, context: &RequestContext<RoleServer>) -> (bool, sampling::Caller) {
    let wait = wait.unwrap_or(true);
    let caller = sampling::caller(context);
    match wait {
        true => (true, caller),
        false => (
            false,
            caller.without_legs(&format!(
                "on MCP 2026-07-28 agon asks the client only while `{tool}` waits: leave out `wait: false`"
            )),
        ),
    }
}

/// A tool's answer, or what went wrong, for the caller to read: a tool
/// error, not a protocol one.
fn tool_result(result: anyhow::Result<Answer>) -> CallToolResult {
    match result {
        Ok(answer) => {
            let mut r = CallToolResult::success(vec![ContentBlock::text(answer.markdown)]);
            if answer.data.is_object() {
                r.structured_content = Some(answer.data);
            }
            r
        }
        Err(e) => {
            let kind = if e.downcast_ref::<BadInput>().is_some() { "bad input" } else { "failed" };
            CallToolResult::error(vec![ContentBlock::text(format!("agon ({kind}): {e:#}"))])
        }
    }
}

impl Agon {
    /// A debate or a resume: on its own thread, once a debate slot is free,
    /// with progress notifications and cancellation.
    async fn run(&self, context: RequestContext<RoleServer>, job: Job) -> anyhow::Result<Answer> {
        let _slot = tokio::select! {
            slot = self.debates.clone().acquire_owned() => slot?,
            () = context.ct.cancelled() => anyhow::bail!("cancelled before it started"),
        };
        let (tx, rx) = mpsc::channel();
        let interrupt = tx.clone();
        let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
        let (started_tx, mut started_rx) = tokio::sync::mpsc::unbounded_channel();
        let shared = self.shared.clone();
        let mut worker = tokio::task::spawn_blocking(move || {
            let started = &mut |calls: u32, session: &str| {
                let _ = started_tx.send((calls, session.to_string()));
            };
            job(&shared, Outlets { channel: (tx, rx), events: EventLines::new(events_tx), started })
        });
        let token = context.meta.get_progress_token();
        let mut progress = Progress::default();
        let mut total = None;
        let mut cancelled = false;
        // A client that stopped listening does not stop the debate: sending may fail.
        let notify = |value: f64, total: Option<u32>, message: String| {
            let peer = context.peer.clone();
            let token = token.clone();
            async move {
                if let Some(token) = token {
                    let mut note = ProgressNotificationParam::new(token, value).with_message(message);
                    if let Some(total) = total {
                        note = note.with_total(f64::from(total));
                    }
                    let _ = peer.notify_progress(note).await;
                }
            }
        };
        // A heartbeat when nothing was sent for a while: clients that reset
        // their timeout on progress (and time out without it) wait on.
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_sent = tokio::time::Instant::now();
        loop {
            // Biased, in the order the worker sends: the session note before any
            // event, every event before the answer. An unbiased select picks
            // among ready branches at random, and progress must only rise.
            tokio::select! {
                biased;
                Some((calls, session)) = started_rx.recv() => {
                    // First, so that a client that cancels knows which session to resume.
                    total = Some(calls);
                    notify(0.0, total, format!("session {session}: at most {calls} calls")).await;
                    last_sent = tokio::time::Instant::now();
                }
                Some(event) = events.recv() => {
                    if let Some((value, message)) = progress.step(&event) {
                        notify(value, total, message).await;
                        last_sent = tokio::time::Instant::now();
                    }
                }
                // Polled every period (a disabled branch would not wake the loop);
                // sent only after a full period of quiet, so at most two apart.
                _ = heartbeat.tick() => {
                    if last_sent.elapsed() >= HEARTBEAT {
                        let (value, message) = progress.heartbeat(last_sent.elapsed().as_secs());
                        notify(value, total, message).await;
                        last_sent = tokio::time::Instant::now();
                    }
                }
                () = context.ct.cancelled(), if !cancelled => {
                    // The host loop stops, keeps the session and says how to resume it.
                    cancelled = true;
                    eprintln!("agon mcp: the client cancelled a debate; its session is kept");
                    let _ = interrupt.send(Message::Interrupted);
                }
                done = &mut worker => return done?,
            }
        }
    }
}

impl Agon {
    /// A debate that outlives its call: answered as soon as its session
    /// exists (or with the error that stopped it before), then followed to its
    /// end on a task of its own, its progress and result kept for `status`.
    /// With every slot busy, a debate that may queue (`wait: false`) is
    /// answered at once with a ticket and starts when a slot frees.
    async fn start(&self, job: Job, owner: String, may_queue: bool) -> anyhow::Result<Answer> {
        let slot = match self.debates.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) if may_queue => {
                let ticket = self.background.queue(&owner);
                eprintln!("agon mcp: every debate slot is busy; {ticket} starts when one frees");
                let (this, queued) = (self.clone(), ticket.clone());
                tokio::spawn(async move {
                    let Ok(slot) = this.debates.clone().acquire_owned().await else { return };
                    if this.background.dropped(&queued) {
                        return;
                    }
                    if let Err(e) = this.start_in(slot, job, owner, Some(queued.clone())).await {
                        this.background.finished(&queued, Err(e));
                    }
                });
                return Ok(super::background::queued(&ticket, 0));
            }
            Err(_) => self.debates.clone().acquire_owned().await?,
        };
        self.start_in(slot, job, owner, None).await
    }

    async fn start_in(
        &self,
        slot: tokio::sync::OwnedSemaphorePermit,
        job: Job,
        owner: String,
        ticket: Option<String>,
    ) -> anyhow::Result<Answer> {
        let (tx, rx) = mpsc::channel();
        let interrupt = tx.clone();
        let (events_tx, mut events) = tokio::sync::mpsc::unbounded_channel();
        let (begun_tx, begun_rx) = tokio::sync::oneshot::channel::<(u32, String)>();
        let session = Arc::new(std::sync::Mutex::new(None::<String>));
        let (shared, background) = (self.shared.clone(), self.background.clone());
        let (at_start, registry) = (session.clone(), background.clone());
        let mut worker = tokio::task::spawn_blocking(move || {
            let mut begun = Some(begun_tx);
            let started = &mut |calls: u32, id: &str| {
                registry.started(&owner, id, calls, interrupt.clone(), ticket.as_deref());
                *at_start.lock().unwrap() = Some(id.to_string());
                if let Some(begun) = begun.take() {
                    let _ = begun.send((calls, id.to_string()));
                }
            };
            job(&shared, Outlets { channel: (tx, rx), events: EventLines::new(events_tx), started })
        });
        let (early_tx, early_rx) = tokio::sync::oneshot::channel::<anyhow::Error>();
        tokio::spawn(async move {
            let _slot = slot;
            let mut progress = Progress::default();
            loop {
                tokio::select! {
                    biased;
                    Some(event) = events.recv() => {
                        let id = session.lock().unwrap().clone();
                        if let (Some(id), Some((value, message))) = (id, progress.step(&event)) {
                            background.progressed(&id, value, message);
                        }
                    }
                    done = &mut worker => {
                        let result = done.map_err(anyhow::Error::from).and_then(|r| r);
                        let id = session.lock().unwrap().clone();
                        match (id, result) {
                            (Some(id), result) => background.finished(&id, result),
                            // Stopped before its session began: the caller hears why.
                            (None, Err(e)) => { let _ = early_tx.send(e); }
                            (None, Ok(_)) => { let _ = early_tx.send(anyhow::anyhow!("the debate ended without a session")); }
                        }
                        break;
                    }
                }
            }
        });
        // A job that fails before its session drops `begun` unsent: its error comes on `early`.
        match begun_rx.await {
            Ok((calls, id)) => {
                eprintln!("agon mcp: session {id} runs in the background");
                Ok(super::background::running(&id, 0.0, calls, "started", 0))
            }
            Err(_) => Err(early_rx.await.unwrap_or_else(|_| anyhow::anyhow!("the debate stopped before it began"))),
        }
    }
}

impl Agon {
    /// A debate (or follow-up) run as the call asks: waited for, in the
    /// background (`wait: false`), or in legs when the client's model sits
    /// on a 2026-07-28 connection (`legs`, its desk).
    async fn launch(
        &self,
        job: Job,
        legs: Option<Arc<Desk>>,
        wait: bool,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match legs {
            Some(desk) if wait => match self.start(job, owner(&context), false).await {
                Ok(begun) => {
                    let session = begun.data["session"].as_str().unwrap_or_default().to_string();
                    self.desks.lock().unwrap().insert(session.clone(), desk);
                    return self.leg(session, context).await;
                }
                Err(e) => Err(e),
            },
            _ if wait => self.run(context, job).await,
            _ => self.start(job, owner(&context), true).await,
        };
        Ok(tool_result(result).into())
    }

    /// The client's answers to a debate's sampling requests, then the next leg.
    async fn next_leg(
        &self,
        session: String,
        responses: rmcp::model::InputResponses,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let desk = self.desks.lock().unwrap().get(&session).cloned();
        let Some(desk) = desk else {
            return Ok(tool_result(Err(agon_cli::bad(format!(
                "no debate of this server waits on the client in session {session}: `show` reads a kept one"
            ))))
            .into());
        };
        desk.answer(responses);
        self.leg(session, context).await
    }

    /// One leg of a debate followed over MCP 2026-07-28: wait until the
    /// debate needs the client's model (answer "input required" with the
    /// requests) or ends (answer its result), with progress meanwhile.
    async fn leg(&self, session: String, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let desk = self.desks.lock().unwrap().get(&session).cloned().unwrap_or_default();
        let token = context.meta.get_progress_token();
        let (mut sent, mut heartbeats, mut last_sent) = (-1.0_f64, 0_u32, tokio::time::Instant::now());
        let mut poll = tokio::time::interval(std::time::Duration::from_millis(100));
        loop {
            tokio::select! {
                _ = poll.tick() => {}
                () = context.ct.cancelled() => {
                    self.background.cancel(&session, &owner(&context));
                    eprintln!("agon mcp: the client cancelled a debate; its session is kept");
                }
            }
            if let Some(requests) = desk.hand_out() {
                let state = input_required::state_of(&session);
                return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(state))));
            }
            let Some((value, total, message)) = self.background.progress(&session) else {
                self.desks.lock().unwrap().remove(&session);
                let result =
                    self.background.status(&session, &owner(&context)).map(|r| r.map_err(|why| anyhow::anyhow!(why)));
                return Ok(
                    tool_result(result.unwrap_or_else(|| Err(anyhow::anyhow!("session {session} is gone")))).into()
                );
            };
            // Progress only rises within a call: a heartbeat goes part of the
            // way to the next whole call, and what falls below it is not sent.
            let (value, message) = if value > sent {
                heartbeats = 0;
                (value, message)
            } else if last_sent.elapsed() >= HEARTBEAT {
                heartbeats += 1;
                let next = sent.floor() + 1.0;
                (
                    sent + (next - sent) * f64::from(heartbeats) / f64::from(heartbeats + 1),
                    format!("still running ({message})"),
                )
            } else {
                continue;
            };
            if let Some(token) = &token {
                let note = ProgressNotificationParam::new(token.clone(), value)
                    .with_message(message)
                    .with_total(f64::from(total));
                let _ = context.peer.notify_progress(note).await;
            }
            (sent, last_sent) = (value, tokio::time::Instant::now());
        }
    }
}

async fn blocking(job: impl FnOnce() -> anyhow::Result<Answer> + Send + 'static) -> anyhow::Result<Answer> {
    tokio::task::spawn_blocking(job).await?
}

fn protocols_markdown(data: &Value) -> String {
    let mut out = String::new();
    for p in data["protocols"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "- **{}**: {}\n",
            p["name"].as_str().unwrap_or_default(),
            p["summary"].as_str().unwrap_or_default()
        ));
        for o in p["options"].as_array().into_iter().flatten() {
            out.push_str(&format!(
                "  - `{}` ({}, default {}): {}\n",
                o["name"].as_str().unwrap_or_default(),
                o["kind"].as_str().unwrap_or_default(),
                Cow::from(o["default"].as_str().unwrap_or("none")),
                o["help"].as_str().unwrap_or_default()
            ));
        }
    }
    out
}
