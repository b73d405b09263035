//! The session: one debate as a state machine. Feed inputs, drain outputs.

mod cost_guard;
mod quality_gate;
mod record;
mod replay;
mod summaries;
mod usage;

use std::collections::{BTreeMap, VecDeque};

use crate::budget;
use crate::debate::{Answer, Debate, Record, Seat};
use crate::plan::{EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::protocol;
use crate::transcript::{Choice, Warning};
use crate::{
    ConsensusCheck, DebateSpec, EVENT_VERSION, Error, Event, EventKind, FailureKind, FailureNote, Input, ModelRequest,
    Outcome, OutcomeKind, Purpose, QualityGate, SeatInfo, StopReason, journal,
};

/// What the host must do next. Drain with [`Session::poll`] after every
/// change until it returns [`Output::Idle`] or [`Output::Done`].
#[derive(Debug, Clone, PartialEq)]
#[must_use]
pub enum Output {
    /// Perform this model call and feed back its [`Input`]. Every request
    /// released before the next `Idle` may run concurrently.
    Request(ModelRequest),
    /// Something happened; show it or record it.
    Event(Event),
    /// Nothing to do until a reply or failure arrives for an outstanding request.
    Idle,
    /// The debate is over; this is returned on every later poll.
    Done(Outcome),
}

/// One debate, from spec to outcome.
pub struct Session {
    debate: Debate,
    protocol: Box<dyn Protocol>,
    queue: VecDeque<Output>,
    events: Vec<Event>,
    consensus: Vec<ConsensusCheck>,
    results: BTreeMap<String, crate::NamedResult>,
    choices: Vec<Choice>,
    warnings: Vec<Warning>,
    /// Gated adversarial calls that may still be regenerated once, by record index.
    retry: BTreeMap<usize, PlannedCall>,
    inputs: Vec<Input>,
    outcome: Option<Outcome>,
    /// Set when another engine version wrote the journal this was rebuilt from.
    replay_note: Option<String>,
    /// The prompt of the last turn released to each model: a judge on the
    /// same model is laid out like it.
    last_turn: BTreeMap<String, crate::prompt_kit::Prompt>,
}

impl Session {
    /// Start a debate. The first batch of requests is ready to poll at once.
    pub fn new(spec: DebateSpec) -> Result<Session, Error> {
        spec.validate()?;
        let protocol = protocol::registry::for_spec(&spec);
        let mut session = Session {
            debate: Debate { spec, records: Vec::new() },
            protocol,
            queue: VecDeque::new(),
            events: Vec::new(),
            consensus: Vec::new(),
            results: BTreeMap::new(),
            choices: Vec::new(),
            warnings: Vec::new(),
            retry: BTreeMap::new(),
            inputs: Vec::new(),
            outcome: None,
            replay_note: None,
            last_turn: BTreeMap::new(),
        };
        let spec = &session.debate.spec;
        let started = EventKind::DebateStarted {
            protocol: spec.protocol.name().to_string(),
            question: spec.question.clone(),
            participants: spec.panel.iter().map(seat_info).collect(),
            judge: spec.judge.as_ref().map(seat_info),
            rounds: spec.rounds(),
            seed: spec.seed,
        };
        session.emit(started);
        if let Some(message) = crate::diversity::warning(&session.debate.spec) {
            session.apply(vec![Note::Warning { speaker: None, round: 0, phase: crate::Phase::Deliberation, message }]);
        }
        if let Some(message) = conflicted_judge(&session.debate.spec) {
            let judge = session.debate.spec.judge.as_ref().map(|j| j.id.clone());
            session.apply(vec![Note::Warning { speaker: judge, round: 0, phase: crate::Phase::Synthesis, message }]);
        }
        session.advance();
        Ok(session)
    }

    /// Start a debate from a JSON spec.
    pub fn from_spec_json(json: &str) -> Result<Session, Error> {
        Session::new(DebateSpec::from_json(json)?)
    }

    /// Rebuild a session from its journal: the spec, then every input in order.
    ///
    /// Earlier outputs are not replayed to the host; the queue holds only the
    /// requests still unanswered, so a host resumes by calling just those.
    pub fn from_journal(text: &str) -> Result<Session, Error> {
        let (recorded, inputs) = journal::parse(text)?;
        let replay_note = recorded.replay_note();
        let mut session = Session::new(recorded.spec)?;
        session.replay_note = replay_note;
        for (line, input) in inputs {
            session.handle(input).map_err(|e| Error::InvalidJournal { line, reason: e.to_string() })?;
        }
        let outstanding: Vec<u64> = session.outstanding().collect();
        session.queue.retain(|o| matches!(o, Output::Request(r) if outstanding.contains(&r.id)));
        Ok(session)
    }

    /// When this session was rebuilt from a journal another engine version
    /// wrote, the sentence a host shows before trusting the replay.
    pub fn replay_note(&self) -> Option<&str> {
        self.replay_note.as_deref()
    }

    /// The next thing for the host to do.
    pub fn poll(&mut self) -> Output {
        if let Some(out) = self.queue.pop_front() {
            return out;
        }
        match &self.outcome {
            Some(outcome) => Output::Done(outcome.clone()),
            None => Output::Idle,
        }
    }

    /// Feed the reply to, or failure of, an outstanding request.
    ///
    /// An unknown or already-answered id is an error and changes nothing.
    pub fn handle(&mut self, input: Input) -> Result<(), Error> {
        let id = input.id();
        let index = self.index_of(id)?;
        if self.debate.records[index].answer.is_some() {
            return Err(Error::AlreadyAnswered { id });
        }
        let slot = self.debate.records[index].slot;
        let speaker = self.seat_id(slot.seat).to_string();
        let answer = match &input {
            Input::Reply { text, usage, stop: Some(StopReason::TokenLimit), .. } if text.trim().is_empty() => {
                // Nothing but thinking came back: a failed call with a named
                // reason, never an empty turn (hosts say so first; this holds
                // whatever a host sends).
                let message = format!(
                    "{} spent all of its {} before writing any answer: raise max_tokens or lower the reasoning effort",
                    self.debate.records[index].model,
                    self.request_limit(index)
                );
                self.failed(id, slot, speaker, FailureKind::TokenLimit, message, *usage)
            }
            Input::Reply { text, usage, stop, model, .. } => {
                let cut = *stop == Some(StopReason::TokenLimit);
                let model = answered_by(&self.debate.records[index].model, model.as_deref());
                self.emit(EventKind::TurnCompleted {
                    id,
                    round: slot.round,
                    phase: slot.phase,
                    speaker: speaker.clone(),
                    challenger: slot.challenger,
                    text: text.clone(),
                    usage: *usage,
                });
                if cut {
                    let message = format!(
                        "the reply was cut at its token limit of {}: it is kept, marked as cut, and later prompts say so",
                        self.request_limit(index)
                    );
                    self.apply(vec![Note::Warning {
                        speaker: Some(speaker),
                        round: slot.round,
                        phase: slot.phase,
                        message,
                    }]);
                }
                Answer::Text { text: text.clone(), usage: *usage, cut, model }
            }
            Input::Failed { kind, message, usage, .. } => {
                self.failed(id, slot, speaker, *kind, message.clone(), *usage)
            }
        };
        self.debate.records[index].answer = Some(answer);
        self.inputs.push(input);
        if self.debate.records.iter().all(|r| r.answer.is_some()) && !self.quality_gate() {
            self.advance();
        }
        Ok(())
    }

    /// A failed call: its event, and the answer to record.
    fn failed(
        &mut self,
        id: u64,
        slot: crate::debate::Slot,
        speaker: String,
        kind: FailureKind,
        message: String,
        usage: Option<crate::Usage>,
    ) -> Answer {
        self.emit(EventKind::TurnFailed {
            id,
            round: slot.round,
            phase: slot.phase,
            speaker,
            kind,
            message: message.clone(),
        });
        Answer::Failed { kind, message, usage }
    }

    /// The output limit request `index` was sent with, in words: its reply's
    /// tokens, and those it might spend thinking.
    fn request_limit(&self, index: usize) -> String {
        match &self.debate.records[index] {
            r if r.allowance == 0 => format!("{} tokens", r.max_tokens),
            r => format!(
                "{} tokens ({} for the answer, {} for thinking)",
                r.max_tokens + r.allowance,
                r.max_tokens,
                r.allowance
            ),
        }
    }

    /// Every event so far, in order.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The journal so far: the spec, then every accepted input, one JSON per line.
    pub fn journal(&self) -> String {
        let mut out = journal::header(&self.debate.spec);
        for input in &self.inputs {
            out.push_str(&journal::entry(input));
        }
        out
    }

    pub fn spec(&self) -> &DebateSpec {
        &self.debate.spec
    }

    /// The outcome, once the debate is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Requests released but not yet answered.
    pub fn outstanding(&self) -> impl Iterator<Item = u64> + '_ {
        self.debate.records.iter().filter(|r| r.answer.is_none()).map(|r| r.id)
    }

    fn index_of(&self, id: u64) -> Result<usize, Error> {
        // Ids are 1-based positions in the record list. Compared as u64: on
        // wasm32 a cast to usize would make id 2^32 + 1 alias request 1.
        if id == 0 || id > self.debate.records.len() as u64 {
            return Err(Error::UnknownRequest { id });
        }
        Ok((id - 1) as usize)
    }

    fn seat_id(&self, seat: Seat) -> &str {
        match seat {
            Seat::Panel(i) => &self.debate.spec.panel[i].id,
            Seat::Judge => &self.debate.spec.judge.as_ref().expect("judge calls need a judge").id,
        }
    }

    fn emit(&mut self, kind: EventKind) {
        let event = Event { v: EVENT_VERSION, seq: self.events.len() as u64, kind };
        self.events.push(event.clone());
        self.queue.push_back(Output::Event(event));
    }

    /// Record what the protocol noted and emit each as an event.
    fn apply(&mut self, notes: Vec<Note>) {
        for note in notes {
            let kind = match note {
                Note::RoundStarted { round, phase, challenger } => EventKind::RoundStarted {
                    round,
                    phase,
                    challenger: challenger.map(|c| self.debate.spec.panel[c].id.clone()),
                },
                Note::Consensus(check) => {
                    self.consensus.push(check.clone());
                    EventKind::ConsensusChecked(check)
                }
                Note::RoundEnded { round, phase } => EventKind::RoundEnded { round, phase },
                Note::Result { name, kind, value } => {
                    let value = crate::order::canonical(value);
                    self.results.insert(name.to_string(), crate::NamedResult { kind, data: value.clone() });
                    EventKind::ResultRecorded { name: name.to_string(), value }
                }
                Note::Choice { what, value } => {
                    self.choices.push(Choice { what: what.clone(), value: value.clone() });
                    EventKind::ChoiceMade { what, value }
                }
                Note::Warning { speaker, round, phase, message } => {
                    self.warnings.push(Warning { speaker: speaker.clone(), round, phase, message: message.clone() });
                    EventKind::Warning { speaker, round, phase, message }
                }
            };
            self.emit(kind);
        }
    }

    /// Ask the protocol for the next batch (or the end) and release it.
    fn advance(&mut self) {
        let snapshot = self.protocol.clone_box();
        let mut notes = Vec::new();
        let step = self.protocol.advance(&self.debate, &mut notes);
        if let Step::Run(calls) = &step
            && let Some(covers) = self.summary_needed(calls)
        {
            // Fetch a summary first, then plan the same step again with it.
            self.protocol = snapshot;
            self.release_summary(covers);
            return;
        }
        self.apply(notes);
        match step {
            Step::Run(calls) => {
                validate_plan(&self.debate, &calls);
                if let Err(ending) = self.affordable(&calls) {
                    return self.finish(ending);
                }
                for call in calls {
                    self.release(call);
                }
            }
            Step::Finish(ending) => self.finish(ending),
        }
    }

    fn release(&mut self, mut call: PlannedCall) {
        let id = self.debate.records.len() as u64 + 1;
        let slot = call.slot;
        let spec = &self.debate.spec;
        ask_for_answers(spec, &mut call);
        let participant = match slot.seat {
            Seat::Panel(i) => &spec.panel[i],
            Seat::Judge => spec.judge.as_ref().expect("validated plan"),
        };
        let shared_layout = lay_out(&mut self.last_turn, &participant.model, &mut call);
        let rendered = budget::render(&call.prompt, spec.limits.context_budget, self.debate.latest_summary());
        let request = ModelRequest {
            id,
            seat: participant.id.clone(),
            model: participant.model.clone(),
            purpose: slot.purpose,
            round: slot.round,
            phase: slot.phase,
            messages: rendered.messages,
            max_tokens: call.max_tokens,
            temperature: spec.limits.temperature,
            expect: call.expect.as_deref().map(str::to_string),
            reasoning: crate::reasoning::request_for(
                &participant.model,
                participant.reasoning,
                &spec.models,
                call.max_tokens,
            ),
            traits: crate::reasoning::chain(&participant.model)
                .filter_map(|m| spec.models.get(m).map(|t| (m.to_string(), *t)))
                .collect(),
            // A one-off prompt marked for caching would only be written to a
            // cache (Anthropic bills that above the input price), never read;
            // the judge's, laid out like the seats', reads what they wrote.
            cache_marks: if shared_layout { rendered.cache_marks } else { Vec::new() },
        };
        let started = started_event(&self.debate, &request, slot);
        let index = self.debate.records.len();
        let prompt_tokens = request.messages.iter().map(|m| crate::estimate_tokens(&m.content)).sum();
        self.debate.records.push(Record {
            id,
            slot,
            answer: None,
            superseded: false,
            covers_round: 0,
            prompt_tokens,
            model: request.model.clone(),
            max_tokens: request.max_tokens,
            allowance: request.reasoning.map_or(0, |r| r.allowance),
        });
        if call.quality_gate && spec.limits.quality_gate != QualityGate::Off {
            self.retry.insert(index, call);
        }
        self.emit(started);
        self.queue.push_back(Output::Request(request));
    }

    fn finish(&mut self, ending: Ending) {
        // A checkable answer: the vote over the seats' last answers stands beside the synthesis.
        if self.debate.spec.takes_answers() {
            let vote = serde_json::to_value(crate::vote::take(&self.debate)).expect("a vote serializes");
            self.apply(vec![crate::result_kind::VOTE.note(vote)]);
        }
        let failures: Vec<FailureNote> = self
            .debate
            .records
            .iter()
            .filter_map(|r| match &r.answer {
                Some(Answer::Failed { kind, message, .. }) => Some(FailureNote {
                    speaker: self.seat_id(r.slot.seat).to_string(),
                    round: r.slot.round,
                    phase: r.slot.phase,
                    kind: *kind,
                    message: message.clone(),
                }),
                _ => None,
            })
            .collect();
        let (kind, reason) = match ending.kind {
            EndKind::NoQuorum => (OutcomeKind::NoQuorum, ending.reason),
            EndKind::JudgeFailed => (OutcomeKind::JudgeFailed, ending.reason),
            EndKind::CostLimit => (OutcomeKind::CostLimit, ending.reason),
            EndKind::Degraded => (OutcomeKind::Degraded, ending.reason),
            EndKind::Completed | EndKind::Consensus if !failures.is_empty() => {
                let who: Vec<String> = failures
                    .iter()
                    .map(|f| format!("{} ({} in {} round {})", f.speaker, f.kind.as_str(), f.phase.as_str(), f.round))
                    .collect();
                (OutcomeKind::Degraded, format!("{}; but not every call succeeded: {}", ending.reason, who.join(", ")))
            }
            EndKind::Completed => (OutcomeKind::Completed, ending.reason),
            EndKind::Consensus => (OutcomeKind::Consensus, ending.reason),
        };
        let outcome = Outcome { kind, reason, rounds_run: ending.rounds_run, failures };
        self.outcome = Some(outcome.clone());
        self.emit(EventKind::DebateEnded { outcome });
    }
}

/// A protocol's plan must name existing seats, each at most once per batch.
/// A violation is a bug in the protocol, never the host's or user's doing.
fn validate_plan(debate: &Debate, calls: &[PlannedCall]) {
    assert!(!calls.is_empty(), "protocol bug: an empty batch");
    let mut seen: Vec<Seat> = Vec::with_capacity(calls.len());
    for call in calls {
        let seat = call.slot.seat;
        match seat {
            Seat::Panel(i) => assert!(i < debate.spec.panel.len(), "protocol bug: unknown seat {i}"),
            Seat::Judge => assert!(debate.judge().is_some(), "protocol bug: judge call without a judge"),
        }
        assert!(!seen.contains(&seat), "protocol bug: seat {seat:?} planned twice in one batch");
        seen.push(seat);
    }
}

/// A spec with a checkable answer: every counted prose turn closes with the
/// ANSWER line (answer mode's protocols ask for it themselves), and the
/// judge gives the council's answer too, so an evaluation can score the
/// synthesis beside the vote. Last, with the turn's own instruction: the
/// head stays shared.
fn ask_for_answers(spec: &crate::DebateSpec, call: &mut PlannedCall) {
    let slot = call.slot;
    if spec.answer.is_some()
        && spec.consensus_mode() != Some(crate::ConsensusMode::Answer)
        && slot.purpose == Purpose::Turn
        && !slot.challenger
        && call.expect.is_none()
    {
        call.prompt.after.push_str(&crate::consensus::closing(crate::ConsensusMode::Answer));
    }
    if spec.takes_answers() && slot.purpose == Purpose::Judge && call.expect.is_none() {
        call.prompt.after.push_str(&format!("\n\n{}", crate::answer::JUDGE_INSTRUCTION));
    }
}

/// Whether the call's prompt is laid out as the seats' are, so a provider's
/// cache can serve it: every turn's is, and it is kept as its model's last
/// turn; a judge whose model sits on the panel gets its prompt laid out as
/// that model's last turn was, so that its cache serves all of it up to the
/// judge's own part; another model's judge keeps its own, shorter prompt
/// (nothing of the seats' is cached for it).
fn lay_out(last_turn: &mut BTreeMap<String, crate::prompt_kit::Prompt>, model: &str, call: &mut PlannedCall) -> bool {
    match call.slot.purpose {
        Purpose::Turn => {
            last_turn.insert(model.to_string(), call.prompt.clone());
            true
        }
        Purpose::Judge => {
            match last_turn.get(model).and_then(|turn| crate::prompt_kit::judged_like(&call.prompt, turn)) {
                Some(prompt) => {
                    call.prompt = prompt;
                    true
                }
                None => false,
            }
        }
        Purpose::Summary | Purpose::Confirmation => false,
    }
}

/// The event that says a call has gone out: the judge's under the heading
/// its synthesis will carry, any other as a turn.
fn started_event(debate: &Debate, request: &ModelRequest, slot: crate::debate::Slot) -> EventKind {
    let id = request.id;
    match slot.purpose {
        Purpose::Judge => {
            let failed = debate.records.iter().any(|r| matches!(r.answer, Some(Answer::Failed { .. })));
            EventKind::JudgeStarted {
                id,
                speaker: request.seat.clone(),
                model: request.model.clone(),
                heading: crate::outcome::synthesis_heading(failed).to_string(),
            }
        }
        Purpose::Turn | Purpose::Summary | Purpose::Confirmation => EventKind::TurnStarted {
            id,
            round: slot.round,
            phase: slot.phase,
            speaker: request.seat.clone(),
            model: request.model.clone(),
            challenger: slot.challenger,
        },
    }
}

fn seat_info(p: &crate::Participant) -> SeatInfo {
    SeatInfo { id: p.id.clone(), name: p.display_name().to_string(), model: p.model.clone() }
}

/// The judge's model also sits on the panel: its synthesis may favour the
/// arguments it made itself. Seed 000 keeps the judge apart; agon allows it
/// (one local model can play every part) but says so in the transcript —
/// unless the spec says one model plays every part on purpose
/// (`limits.diversity = "off"`).
fn conflicted_judge(spec: &DebateSpec) -> Option<String> {
    if spec.limits.diversity == crate::Diversity::Off {
        return None;
    }
    let primary = |model: &str| model.split('|').next().unwrap_or(model).trim().to_string();
    let judge = primary(&spec.judge.as_ref()?.model);
    let seats: Vec<&str> = spec.panel.iter().filter(|p| primary(&p.model) == judge).map(|p| p.display_name()).collect();
    (!seats.is_empty()).then(|| {
        format!(
            "the judge's model {judge} also sits on the panel ({}): its synthesis may favour its own arguments; \
give the judge a model of its own for an independent verdict",
            seats.join(", ")
        )
    })
}

/// The model a host says answered a request for `requested`: kept when it is
/// one of the chain's later models (the first is the request's own; anything
/// else the host cannot have called for this request).
fn answered_by(requested: &str, said: Option<&str>) -> Option<String> {
    let said = said?.trim();
    let mut chain = requested.split('|').map(str::trim);
    let first = chain.next()?;
    (said != first && chain.any(|m| m == said)).then(|| said.to_string())
}
