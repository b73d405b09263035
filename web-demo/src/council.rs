//! What the page calls: run a debate, stop it, replay a journal, and hand out
//! the transcript and journal. The host loop lives here; the page only shows
//! the events it is given, and asks the people seated in the debate.

use std::cell::RefCell;
use std::rc::Rc;

use agon_core::picture::{self, CallTiming};
use agon_core::{Error, Event, FailureKind, Input, ModelRequest, Output, Phase, Session};
use futures::StreamExt;
use futures::future::{self, Either};
use futures::stream::FuturesUnordered;
use js_sys::{Function, Promise};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};
use web_sys::{AbortController, AbortSignal};

use crate::fetch::{self, Endpoint};
use crate::form::{self, Form};
use crate::human;

/// Every protocol the core offers: name, summary, rounds, seats, sides and options.
#[wasm_bindgen]
pub fn protocols() -> Result<JsValue, JsError> {
    to_js(&agon_core::protocols()).map_err(js_error)
}

/// The spec JSON (pretty) the form describes, or an error a person can read.
#[wasm_bindgen(js_name = specFromForm)]
pub fn spec_from_form(form: JsValue) -> Result<String, JsError> {
    let form: Form = from_js(&form)?;
    let spec = form::spec(&form).map_err(|e| JsError::new(&e))?;
    Ok(serde_json::to_string_pretty(&spec)?)
}

/// Check a protocol document (JSON) with the core: the document normalized
/// (pretty JSON), or an error naming the JSON path of the mistake.
#[wasm_bindgen(js_name = checkDocument)]
pub fn check_document(document: &str) -> Result<String, JsError> {
    form::check_document(document).map_err(|e| JsError::new(&e))
}

/// A protocol document (JSON) as the core describes it, as `protocols`
/// describes a built-in: the page shows its option fields from it.
#[wasm_bindgen(js_name = documentInfo)]
pub fn document_info(document: &str) -> Result<JsValue, JsError> {
    to_js(&form::document_info(document).map_err(|e| JsError::new(&e))?).map_err(js_error)
}

/// The roles of the role files given (`roles`: their texts, `names`: their
/// file names, for errors), else the built-in roles when `protocol` seats
/// roles, each with its own model (the page then offers a model field per
/// role); `null` when there are none. A bad file: an error naming it and its line.
#[wasm_bindgen(js_name = roleFields)]
pub fn role_fields(protocol: &str, roles: JsValue, names: JsValue) -> Result<JsValue, JsError> {
    let texts: Vec<String> = if roles.is_undefined() { Vec::new() } else { from_js(&roles)? };
    let names: Vec<String> = if names.is_undefined() { Vec::new() } else { from_js(&names)? };
    let fields = form::roles(protocol, &texts, &names).map_err(|e| JsError::new(&e))?;
    to_js(&fields).map_err(js_error)
}

/// Markdown as HTML that can run and load nothing (agon-html): raw HTML is
/// text, links only to http(s), mailto or relative places, no images. The
/// only way model text reaches the page as markup.
#[wasm_bindgen(js_name = markdownToHtml)]
pub fn markdown_to_html(markdown: &str) -> String {
    agon_html::markdown_to_html(markdown)
}

/// The heading the core gives a phase of a round (`"Blind answers"`, `"Round 2"`, …).
#[wasm_bindgen(js_name = phaseHeading)]
pub fn phase_heading(phase: JsValue, round: u32) -> Result<String, JsError> {
    let phase: Phase = from_js(&phase)?;
    Ok(phase.heading(round))
}

/// One debate in the page: live, or replayed from a journal.
#[wasm_bindgen]
#[derive(Default)]
pub struct Council {
    state: Rc<RefCell<State>>,
}

#[derive(Default)]
struct State {
    session: Option<Session>,
    /// Aborts the calls in flight; present while a run is going.
    abort: Option<AbortController>,
    /// When each model call of this page's run ran (the page's clock): the
    /// timeline. A replayed journal has none; it holds no time.
    timings: Vec<CallTiming>,
}

#[wasm_bindgen]
impl Council {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Council {
        Council::default()
    }

    /// Run the debate `spec_json` describes against `endpoint`, each model
    /// call limited to `timeout_seconds`. `on_event` gets each core event (as
    /// an object), `on_text(request_id, piece)` each piece of streamed text.
    /// A seat whose model is `human/NAME` is asked through
    /// `on_human(request_id, name, prompt)`, a promise of the typed answer
    /// (rejected when the person declines), with no time limit.
    /// Resolves to `"done"` or `"stopped"`.
    #[allow(clippy::too_many_arguments)] // each is one thing the page passes in
    pub fn run(
        &self,
        spec_json: &str,
        endpoint: String,
        api_key: String,
        timeout_seconds: u32,
        on_event: Function,
        on_text: Function,
        on_human: Function,
    ) -> Result<Promise, JsError> {
        let session = Session::from_spec_json(spec_json).map_err(to_error)?;
        let endpoint = Endpoint::new(endpoint, api_key, timeout_seconds);
        // A new session's events are all still in its queue: the loop shows them.
        self.start(session, Vec::new(), endpoint, Callbacks { on_event, on_text, on_human })
    }

    /// Go on with the debate `journal` holds: every event it produced goes to
    /// `on_event` first (the debate so far), then only the requests it left
    /// unanswered are made, as the CLI's `agon resume` does. Answered calls
    /// are never made again. Takes the rest as [`Council::run`] does.
    #[allow(clippy::too_many_arguments)] // each is one thing the page passes in
    pub fn resume(
        &self,
        journal: &str,
        endpoint: String,
        api_key: String,
        timeout_seconds: u32,
        on_event: Function,
        on_text: Function,
        on_human: Function,
    ) -> Result<Promise, JsError> {
        let session = Session::from_journal(journal).map_err(to_error)?;
        // A rebuilt session's queue holds only the unanswered requests: its
        // events so far are shown here, once.
        let so_far = session.events().to_vec();
        let endpoint = Endpoint::new(endpoint, api_key, timeout_seconds);
        self.start(session, so_far, endpoint, Callbacks { on_event, on_text, on_human })
    }

    /// Make `session` the page's debate: show `so_far` (the debate before a
    /// resume), then drive it to its end or to Stop.
    fn start(
        &self,
        session: Session,
        so_far: Vec<Event>,
        endpoint: Endpoint,
        callbacks: Callbacks,
    ) -> Result<Promise, JsError> {
        let abort = AbortController::new().map_err(|_| JsError::new("no AbortController"))?;
        {
            let mut state = self.state.borrow_mut();
            if let Some(old) = state.abort.take() {
                old.abort();
            }
            state.session = Some(session);
            state.abort = Some(abort.clone());
            state.timings.clear();
        }
        // After the session is in place: the page may ask it for results meanwhile.
        for event in &so_far {
            emit(&callbacks.on_event, event).map_err(|e| JsError::new(&fetch::describe(&e)))?;
        }
        let state = self.state.clone();
        Ok(future_to_promise(async move {
            let status = drive(&state, &endpoint, &abort, &callbacks).await?;
            Ok(JsValue::from_str(status))
        }))
    }

    /// Stop the debate: calls in flight are aborted, a person asked is no
    /// longer waited for, nothing new starts. The journal keeps every
    /// answered call, so the run can be reopened.
    pub fn stop(&self) {
        if let Some(abort) = self.state.borrow_mut().abort.take() {
            abort.abort();
        }
    }

    /// Rebuild a saved debate from its journal without calling any model,
    /// passing every event it produced to `on_event`.
    pub fn replay(&self, journal: &str, on_event: &Function) -> Result<(), JsValue> {
        self.stop();
        let session = Session::from_journal(journal).map_err(to_error)?;
        let events = session.events().to_vec();
        {
            let mut state = self.state.borrow_mut();
            state.session = Some(session);
            state.timings.clear();
        }
        for event in &events {
            emit(on_event, event)?;
        }
        Ok(())
    }

    /// The transcript as the core writes it to files (pretty JSON).
    #[wasm_bindgen(js_name = transcriptJson)]
    pub fn transcript_json(&self) -> Option<String> {
        self.with_session(|s| s.transcript().to_json())
    }

    #[wasm_bindgen(js_name = transcriptMarkdown)]
    pub fn transcript_markdown(&self) -> Option<String> {
        self.with_session(Session::markdown)
    }

    /// The debate as an Architecture Decision Record, the same Markdown
    /// `agon export --format adr` writes (the core's `adr_markdown`).
    #[wasm_bindgen(js_name = adrMarkdown)]
    pub fn adr_markdown(&self) -> Option<String> {
        self.with_session(Session::adr_markdown)
    }

    /// The protocol's named results so far (rankings, scorecards, reviews…)
    /// as the core renders them in Markdown, turned into safe HTML.
    #[wasm_bindgen(js_name = resultsHtml)]
    pub fn results_html(&self) -> Option<String> {
        self.with_session(|s| agon_html::markdown_to_html(&s.results_markdown()))
    }

    /// The debate's pictures as HTML figures: the core's SVGs (the stance
    /// map, the results' charts), then the timeline of this page's calls when
    /// it made any. The core escaped every model-written text in them.
    #[wasm_bindgen(js_name = picturesHtml)]
    pub fn pictures_html(&self) -> Option<String> {
        let all = self.pictures()?;
        Some(all.into_iter().map(|(name, svg)| format!("<figure data-name=\"{name}\">{svg}</figure>")).collect())
    }

    /// The debate as one self-contained page to forward, the same page
    /// `agon export --format html` writes (agon-html's `session_page`):
    /// outcome and synthesis first, replies rendered, results, pictures,
    /// rounds, usage.
    #[wasm_bindgen(js_name = pageHtml)]
    pub fn page_html(&self) -> Option<String> {
        let pictures = self.pictures()?;
        self.with_session(|s| agon_html::session_page(&s.transcript(), &s.results_markdown(), &pictures))
    }

    /// (file name, SVG) of every picture: the core's, then this page's call timeline.
    fn pictures(&self) -> Option<Vec<(String, String)>> {
        let state = self.state.borrow();
        let session = state.session.as_ref()?;
        let transcript = session.transcript();
        let mut all = picture::pictures(&transcript);
        if let Some(svg) = picture::timeline(&state.timings, &transcript.question) {
            all.push((agon_core::picture::TIMELINE_FILE.to_string(), svg));
        }
        Some(all)
    }

    /// The journal: the spec, then every reply or failure so far.
    pub fn journal(&self) -> Option<String> {
        self.with_session(Session::journal)
    }

    fn with_session<T>(&self, f: impl FnOnce(&Session) -> T) -> Option<T> {
        self.state.borrow().session.as_ref().map(f)
    }
}

/// The host loop: drain the session, start every released request at once
/// (a person's too: each has a card of their own to answer in), feed back
/// each result as it lands, until the debate is done or stopped.
async fn drive(
    state: &RefCell<State>,
    endpoint: &Endpoint,
    abort: &AbortController,
    callbacks: &Callbacks,
) -> Result<&'static str, JsValue> {
    let Callbacks { on_event, on_text, on_human } = callbacks;
    let signal = abort.signal();
    let mut calls = FuturesUnordered::new();
    loop {
        // 1. Drain: show events, start requests (independent until Idle).
        loop {
            // The borrow ends before the page's callback runs: it may ask
            // for the transcript meanwhile.
            let output = state.borrow_mut().session.as_mut().map(Session::poll);
            match output {
                Some(Output::Request(request)) => {
                    let signal = signal.clone();
                    calls.push(async move {
                        let start_ms = js_sys::Date::now() as u64;
                        // A person's answer is timed as a call is, from the moment they are
                        // asked: the timeline shows where the debate waited on them.
                        let input = if let Some(name) = human::person(&request.model) {
                            ask_person(on_human, &request, name, &signal).await
                        } else {
                            let id = JsValue::from_f64(request.id as f64);
                            let on_piece = |piece: &str| {
                                // A failing view must not fail the call.
                                let _ = on_text.call2(&JsValue::NULL, &id, &JsValue::from_str(piece));
                            };
                            fetch::call(endpoint, &request, &signal, &on_piece).await
                        };
                        // The page makes one attempt a call: no retries, no fallbacks.
                        let timing = CallTiming {
                            id: request.id,
                            seat: request.seat.clone(),
                            model: request.model.clone(),
                            round: request.round,
                            attempt: 1,
                            fallback: false,
                            start_ms,
                            end_ms: js_sys::Date::now() as u64,
                            ok: matches!(input, Input::Reply { .. }),
                        };
                        (input, timing)
                    });
                }
                Some(Output::Event(event)) => emit(on_event, &event)?,
                Some(Output::Idle) => break,
                Some(Output::Done(_)) => return Ok("done"),
                None => return Ok("stopped"),
            }
        }
        // 2. Wait for the next call to land, whichever it is.
        let Some((input, timing)) = calls.next().await else {
            return Err(JsError::new("the engine is idle with no call in flight").into());
        };
        if signal.aborted() {
            return Ok("stopped");
        }
        // 3. Feed it back, then drain again.
        let mut state = state.borrow_mut();
        state.timings.push(timing);
        let Some(session) = state.session.as_mut() else {
            return Ok("stopped");
        };
        session.handle(input).map_err(to_error)?;
    }
}

/// What the page passes in to hear about a run and to ask its people.
struct Callbacks {
    on_event: Function,
    on_text: Function,
    on_human: Function,
}

/// Ask a person through the page's `on_human`, waiting as long as they take
/// (no timeout applies to a person) or until Stop.
async fn ask_person(on_human: &Function, request: &ModelRequest, name: &str, signal: &AbortSignal) -> Input {
    let asked = on_human.call3(
        &JsValue::NULL,
        &JsValue::from_f64(request.id as f64),
        &JsValue::from_str(name),
        &JsValue::from_str(&human::prompt(request)),
    );
    let answer = match asked {
        Ok(promise) => {
            let answer = JsFuture::from(Promise::resolve(&promise));
            let stopped = JsFuture::from(aborted(signal));
            match future::select(answer, stopped).await {
                Either::Left((Ok(text), _)) => text.as_string().ok_or_else(|| "the page's answer is not text".into()),
                Either::Left((Err(why), _)) => Err(fetch::describe(&why)),
                // The loop sees the abort and stops without feeding this back.
                Either::Right(_) => {
                    let message = "stopped by the person".into();
                    return Input::Failed { id: request.id, kind: FailureKind::Cancelled, message, usage: None };
                }
            }
        }
        Err(why) => Err(fetch::describe(&why)),
    };
    human::input(request, answer)
}

/// A promise resolved once `signal` aborts.
fn aborted(signal: &AbortSignal) -> Promise {
    Promise::new(&mut |resolve, _| {
        if signal.aborted() {
            let _ = resolve.call0(&JsValue::NULL);
        } else {
            let _ = signal.add_event_listener_with_callback("abort", &resolve);
        }
    })
}

fn emit(on_event: &Function, event: &Event) -> Result<(), JsValue> {
    on_event.call1(&JsValue::NULL, &to_js(event)?)?;
    Ok(())
}

/// Values cross to the page as JSON text, parsed by the browser: the core
/// already writes its types to JSON, while a serializer to JS objects would
/// instantiate all their serde code a second time (tens of KB of the wasm).
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let json = serde_json::to_string(value).map_err(|e| JsValue::from_str(&e.to_string()))?;
    js_sys::JSON::parse(&json)
}

/// A value from the page, through JSON text, for the same reason.
fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, JsError> {
    let json: String = js_sys::JSON::stringify(value).map_err(|_| JsError::new("not JSON"))?.into();
    Ok(serde_json::from_str(&json)?)
}

fn js_error(e: JsValue) -> JsError {
    JsError::new(&e.as_string().unwrap_or_else(|| "the browser could not read agon's JSON".into()))
}

fn to_error(e: Error) -> JsError {
    JsError::new(&e.to_string())
}
