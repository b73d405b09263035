//! One model call from start to answer, as a state machine a host drives
//! with plain data: the time, the status, the bytes. It says what to send,
//! when to wait, which model of the fallback chain comes next and what the
//! reply was; the host keeps only a transport (send, stream the bytes, sleep
//! until). Every host follows the same rules because they live here.
//!
//! Each state is its own type, so a host cannot feed a body before a status
//! nor start a second request before the first has ended:
//!
//! 1. [`Exchange::next`] with the time: an [`Action`].
//! 2. [`Action::Note`]: show the line, go on with the exchange it gives back.
//!    [`Action::Wait`]: sleep until then, go on.
//! 3. [`Action::Send`]: send [`Attempt::request`] to the target's base URL,
//!    then [`Attempt::status`] with the status and headers (or
//!    [`Attempt::transport_failed`]); feed every chunk of the body to
//!    [`Receiving::body`] (show the text pieces it returns) while
//!    [`Receiving::wants_more`]; then [`Receiving::body_end`] (or
//!    [`Receiving::transport_failed`] when the body broke off). Back to 1.
//! 4. [`Action::Ask`]: a model the host answers itself; [`Asking::answered`]. Back to 1.
//! 5. [`Action::Done`] or [`Action::Failed`]: the call's outcome.
//!
//! Each model is tried as [`RetryRule`] says (never again once text was
//! shown: the reader would see it twice), then the next model of the chain.

use std::collections::VecDeque;

use agon_core::ModelRequest;

use crate::compose::request;
use crate::failure::{Retry, WireError, status_failure};
use crate::reply::{Completion, Reader};
use crate::request::{Call, HttpRequest};
use crate::retry::{Limit, Next, RetryRule};
use crate::target::{HttpTarget, Target};

/// How one call is made.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub retry: RetryRule,
    pub stream: bool,
    /// The most reply text accepted, in bytes.
    pub max_reply: usize,
    /// Bounds on any one wait the host knows of (the call's timeout).
    pub limits: Vec<WaitLimit>,
    /// Where the person raises the longest wait, for the message of one not taken.
    pub raise_wait: String,
    /// Where the person raises the reply limit, for the message of a reply past it.
    pub raise_reply: String,
}

/// A bound on waiting: its length, and what it is (`the call's timeout of 120 s (--timeout)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitLimit {
    pub ms: u64,
    pub what: String,
}

/// A finished call.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub completion: Completion,
    /// The fallback chain's model that answered, when not its first.
    pub model: Option<String>,
    /// Its text was already handed out as pieces; otherwise show it whole.
    pub shown: bool,
}

/// What the host does next.
#[derive(Debug)]
#[must_use]
pub enum Action {
    /// Tell the person this line (a retry, a fallback, a note on the
    /// request), then call [`Exchange::next`] on `exchange`.
    Note { text: String, exchange: Exchange },
    /// Sleep until `until_ms` (the host's clock, as given to `next`), then call `next` again.
    Wait { until_ms: u64, exchange: Exchange },
    /// Send this request.
    Send(Attempt),
    /// Ask a model the host answers itself.
    Ask(Asking),
    /// The call is answered.
    Done(Answer),
    /// Every attempt the rules allow failed; this is why.
    Failed(WireError),
}

/// A call between attempts.
#[derive(Debug)]
pub struct Exchange {
    state: Box<State>,
}

/// An HTTP request to send.
#[derive(Debug)]
#[must_use]
pub struct Attempt {
    state: Box<State>,
    http: HttpRequest,
}

/// A reply whose status came: its body being read.
#[derive(Debug)]
#[must_use]
pub struct Receiving {
    state: Box<State>,
    body: Body,
    shown: bool,
    broken: Option<WireError>,
}

/// A model the host answers itself.
#[derive(Debug)]
#[must_use]
pub struct Asking {
    state: Box<State>,
}

#[derive(Debug)]
struct State {
    request: ModelRequest,
    targets: Vec<Target>,
    settings: Settings,
    /// The model being tried, and the attempts made with it.
    current: usize,
    made: u32,
    /// The host's time when the last attempt started.
    started_ms: u64,
    notes: VecDeque<String>,
    /// Models that failed, for the note of one that answered after them.
    failed: Vec<String>,
    pending: Pending,
}

#[derive(Debug)]
enum Pending {
    /// Try the current model (again).
    Attempt,
    /// Wait this long from the next `now`, then try again.
    Pause(u64),
    Until(u64),
    /// An attempt begun: its request (none for a model the host answers).
    Ready(Option<HttpRequest>),
    /// The last attempt failed; `shown`: after text was shown.
    Judge {
        error: WireError,
        shown: bool,
    },
    Over(Result<Answer, WireError>),
}

#[derive(Debug)]
enum Body {
    Reply(Box<Reader>),
    /// A failed status: its body kept for the provider's message.
    Error {
        status: u16,
        headers: Vec<(String, String)>,
        bytes: Vec<u8>,
        url: String,
    },
}

/// Enough of an error body for any real one: its code and type must not be cut off.
const ERROR_BODY: usize = 16 << 10;

impl Exchange {
    /// A call of `request` to the models of `targets` in turn (its fallback chain).
    pub fn new(request: ModelRequest, targets: Vec<Target>, settings: Settings) -> Exchange {
        let pending = if targets.is_empty() {
            Pending::Over(Err(WireError::provider(format!("'{}' names no model to call", request.model))))
        } else {
            Pending::Attempt
        };
        let state = State {
            request,
            targets,
            settings,
            current: 0,
            made: 0,
            started_ms: 0,
            notes: VecDeque::new(),
            failed: Vec::new(),
            pending,
        };
        Exchange { state: Box::new(state) }
    }

    /// What to do at `now_ms` (the host's clock in milliseconds since the
    /// Unix epoch: a `Retry-After` date is read against it).
    pub fn next(self, now_ms: u64) -> Action {
        let mut s = self.state;
        loop {
            if let Some(text) = s.notes.pop_front() {
                return Action::Note { text, exchange: Exchange { state: s } };
            }
            match std::mem::replace(&mut s.pending, Pending::Attempt) {
                Pending::Over(Ok(answer)) => return Action::Done(answer),
                Pending::Over(Err(error)) => return Action::Failed(error),
                Pending::Judge { error, shown } => s.judge(error, shown, now_ms),
                Pending::Pause(ms) => s.pending = Pending::Until(now_ms.saturating_add(ms)),
                Pending::Until(until_ms) if now_ms < until_ms => {
                    s.pending = Pending::Until(until_ms);
                    return Action::Wait { until_ms, exchange: Exchange { state: s } };
                }
                Pending::Until(_) | Pending::Attempt => s.attempt(now_ms),
                Pending::Ready(Some(http)) => return Action::Send(Attempt { state: s, http }),
                Pending::Ready(None) => return Action::Ask(Asking { state: s }),
            }
        }
    }
}

impl Exchange {
    /// Whether the attempt just ended answered the call (for a host that times its attempts).
    pub fn answered(&self) -> bool {
        matches!(self.state.pending, Pending::Over(Ok(_)))
    }
}

impl State {
    fn reference(&self) -> &str {
        self.targets[self.current].reference()
    }

    /// Start the next attempt: its request made, its notes queued before it.
    fn attempt(&mut self, now_ms: u64) {
        self.made += 1;
        self.started_ms = now_ms;
        if self.made > 1 {
            let note = format!("{}: attempt {}", self.reference(), self.made);
            self.notes.push_back(note);
        }
        let Target::Http(target) = &self.targets[self.current] else {
            self.pending = Pending::Ready(None);
            return;
        };
        let known = self.request.traits.contains_key(&target.reference);
        let call = Call {
            api: target.api(known),
            reference: &target.reference,
            model: &target.model,
            stream: self.settings.stream,
            server: target.server,
        };
        let http = request(&call, &self.request);
        if let Some(note) = &http.note {
            let note = format!("{}: {note}", target.reference);
            self.notes.push_back(note);
        }
        self.pending = Pending::Ready(Some(http));
    }

    /// After a failed attempt: wait and try again, the next model, or the end.
    fn judge(&mut self, error: WireError, shown: bool, now_ms: u64) {
        let retry = if shown { Retry::No } else { error.retry };
        let limits: Vec<Limit<'_>> = self.settings.limits.iter().map(|l| Limit { ms: l.ms, what: &l.what }).collect();
        let jitter = now_ms % 1000;
        let why = match self.settings.retry.next(self.made, retry, jitter, &limits, &self.settings.raise_wait) {
            Next::Wait(ms) => {
                if ms >= 1000 {
                    let note = format!("{}: waiting {} s before trying again", self.reference(), ms / 1000);
                    self.notes.push_back(note);
                }
                self.pending = Pending::Pause(ms);
                return;
            }
            Next::Stop(why) => why,
        };
        let mut message = error.message.clone();
        if let Some(why) = why {
            message = format!("{message}; {why}");
        }
        if self.made > 1 {
            message = format!("{message} (after {} attempts)", self.made);
        }
        let reference = self.reference().to_string();
        if let Some(next) = self.targets.get(self.current + 1) {
            let note = format!("{reference} failed ({message}); trying {}", next.reference());
            self.notes.push_back(note);
            self.failed.push(format!("{reference} failed"));
            self.current += 1;
            self.made = 0;
            self.pending = Pending::Attempt;
            return;
        }
        if self.targets.len() > 1 {
            message = format!("every model of '{}' failed; the last: {message}", self.request.model);
        }
        self.pending = Pending::Over(Err(WireError { message, ..error }));
    }

    fn ended(mut self: Box<Self>, result: Result<Completion, WireError>, shown: bool) -> Exchange {
        self.pending = match result {
            Err(error) => Pending::Judge { error, shown },
            Ok(completion) => {
                let model = (self.current > 0).then(|| self.reference().to_string());
                if let Some(model) = &model {
                    let note = format!("answered by {model} after {}", self.failed.join("; "));
                    self.notes.push_back(note);
                }
                Pending::Over(Ok(Answer { completion, model, shown }))
            }
        };
        Exchange { state: self }
    }
}

impl Attempt {
    /// What to send: path segments under the target's base URL (each
    /// percent-encoded), the query, headers besides the key's
    /// ([`crate::auth_header`]), the body.
    pub fn request(&self) -> &HttpRequest {
        &self.http
    }

    /// The model this attempt is for.
    pub fn target(&self) -> &HttpTarget {
        match &self.state.targets[self.state.current] {
            Target::Http(t) => t,
            Target::Host { .. } => unreachable!("an HTTP attempt is made for an HTTP target"),
        }
    }

    /// Which attempt at this model (1 for the first).
    pub fn number(&self) -> u32 {
        self.state.made
    }

    /// Which model of the chain this is (0 for its first; more: a fallback).
    pub fn index(&self) -> usize {
        self.state.current
    }

    /// The response's status and headers (any case) came; `url` is the
    /// URL as messages show it.
    pub fn status(self, status: u16, headers: &[(&str, &str)], url: &str) -> Receiving {
        let body = if (200..300).contains(&status) {
            let reader =
                self.http.reader(url, self.state.settings.max_reply).with_limit_hint(&self.state.settings.raise_reply);
            Body::Reply(Box::new(reader))
        } else {
            let kept = ["retry-after", "retry-after-ms", "x-should-retry"];
            let headers = headers
                .iter()
                .filter(|(k, _)| kept.iter().any(|name| k.trim().eq_ignore_ascii_case(name)))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.to_string()))
                .collect();
            Body::Error { status, headers, bytes: Vec::new(), url: url.to_string() }
        };
        Receiving { state: self.state, body, shown: false, broken: None }
    }

    /// No response came (refused, reset, timed out): the host says why.
    pub fn transport_failed(self, error: WireError) -> Exchange {
        self.state.ended(Err(error), false)
    }
}

impl Receiving {
    /// The next bytes of the body: the text pieces they completed, to show in order.
    pub fn body(&mut self, bytes: &[u8]) -> Vec<String> {
        if self.broken.is_some() {
            return Vec::new();
        }
        match &mut self.body {
            Body::Reply(reader) => match reader.feed(bytes) {
                Ok(pieces) => {
                    self.shown |= !pieces.is_empty();
                    pieces
                }
                Err(e) => {
                    self.broken = Some(e);
                    Vec::new()
                }
            },
            Body::Error { bytes: kept, .. } => {
                let room = ERROR_BODY.saturating_sub(kept.len());
                kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
                Vec::new()
            }
        }
    }

    /// Whether more of the body is worth reading: not once the reply has
    /// failed, nor past what an error body needs.
    pub fn wants_more(&self) -> bool {
        match &self.body {
            _ if self.broken.is_some() => false,
            Body::Reply(_) => true,
            Body::Error { bytes, .. } => bytes.len() < ERROR_BODY,
        }
    }

    /// The body has ended (or the host stopped reading it, as [`Self::wants_more`] said).
    pub fn body_end(self) -> Exchange {
        let Receiving { state, body, shown, broken } = self;
        if let Some(error) = broken {
            return state.ended(Err(error), shown);
        }
        let result = match body {
            Body::Reply(reader) => reader.finish(),
            Body::Error { status, headers, bytes, url } => {
                let target = match &state.targets[state.current] {
                    Target::Http(t) => t,
                    Target::Host { .. } => unreachable!("a status comes from an HTTP target"),
                };
                Err(failed_status(status, &headers, &bytes, &url, &target.hint(status), state.started_ms))
            }
        };
        state.ended(result, shown)
    }

    /// The body broke off while being read: the host says how.
    pub fn transport_failed(self, error: WireError) -> Exchange {
        self.state.ended(Err(error), self.shown)
    }
}

impl Asking {
    /// The model's reference (`cmd/review`, `human/ana`).
    pub fn reference(&self) -> &str {
        self.state.reference()
    }

    /// Which attempt at this model (1 for the first).
    pub fn number(&self) -> u32 {
        self.state.made
    }

    /// Which model of the chain this is (0 for its first; more: a fallback).
    pub fn index(&self) -> usize {
        self.state.current
    }

    /// What came of it; `shown`: its text (or part of it) was shown already.
    pub fn answered(self, result: Result<Completion, WireError>, shown: bool) -> Exchange {
        self.state.ended(result, shown)
    }
}

/// A failed status as a failure; a `Retry-After` date is read against the
/// time the request was sent.
fn failed_status(
    status: u16,
    headers: &[(String, String)],
    body: &[u8],
    url: &str,
    hint: &str,
    sent_ms: u64,
) -> WireError {
    let body = String::from_utf8_lossy(body);
    let pairs: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut error = status_failure(status, &body, &pairs, url, hint);
    let date = pairs.iter().find(|(k, _)| *k == "retry-after").and_then(|(_, v)| crate::http_date::unix_ms(v));
    if let (Retry::Yes { after_ms: None }, Some(at)) = (error.retry, date) {
        error.retry = Retry::Yes { after_ms: Some(at.saturating_sub(sent_ms)) };
    }
    error
}
