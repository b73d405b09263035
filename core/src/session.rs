//! The session: one debate as a state machine. Feed inputs, drain outputs.

mod replay;

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use crate::budget;
use crate::cost;
use crate::debate::{Answer, Debate, Record, Seat, Slot};
use crate::protocol::{self, EndKind, Ending, HistoryEntry, Note, PlannedCall, Prompt, Protocol, Step, prompt_kit};
use crate::quality;
use crate::transcript::{Choice, SummaryNote, Warning};
use crate::{
    ConsensusCheck, DebateSpec, EVENT_VERSION, Error, Event, EventKind, FailureNote, Input, ModelRequest, Outcome,
    OutcomeKind, Phase, Purpose, QualityGate, SeatInfo, Synthesis, TRANSCRIPT_VERSION, Transcript, Turn, journal,
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
    results: BTreeMap<String, Value>,
    choices: Vec<Choice>,
    warnings: Vec<Warning>,
    /// Gated adversarial calls that may still be regenerated once, by record index.
    retry: BTreeMap<usize, PlannedCall>,
    inputs: Vec<Input>,
    outcome: Option<Outcome>,
}

impl Session {
    /// Start a debate. The first batch of requests is ready to poll at once.
    pub fn new(spec: DebateSpec) -> Result<Session, Error> {
        spec.validate()?;
        let protocol = protocol::for_spec(&spec);
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
        let (spec, inputs) = journal::parse(text)?;
        let mut session = Session::new(spec)?;
        for (line, input) in inputs {
            session.handle(input).map_err(|e| Error::InvalidJournal { line, reason: e.to_string() })?;
        }
        let outstanding: Vec<u64> = session.outstanding().collect();
        session.queue.retain(|o| matches!(o, Output::Request(r) if outstanding.contains(&r.id)));
        Ok(session)
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
            Input::Reply { text, usage, .. } => {
                self.emit(EventKind::TurnCompleted {
                    id,
                    round: slot.round,
                    phase: slot.phase,
                    speaker,
                    challenger: slot.challenger,
                    text: text.clone(),
                });
                Answer::Text { text: text.clone(), usage: *usage }
            }
            Input::Failed { kind, message, .. } => {
                self.emit(EventKind::TurnFailed {
                    id,
                    round: slot.round,
                    phase: slot.phase,
                    speaker,
                    kind: *kind,
                    message: message.clone(),
                });
                Answer::Failed { kind: *kind, message: message.clone() }
            }
        };
        self.debate.records[index].answer = Some(answer);
        self.inputs.push(input);
        if self.debate.records.iter().all(|r| r.answer.is_some()) && !self.quality_gate() {
            self.advance();
        }
        Ok(())
    }

    /// The debate as it stands: complete once the outcome is set.
    pub fn transcript(&self) -> Transcript {
        let spec = &self.debate.spec;
        let mut turns = Vec::new();
        let mut synthesis = None;
        let mut summaries = Vec::new();
        for record in &self.debate.records {
            let Some(Answer::Text { text, usage }) = &record.answer else { continue };
            if record.superseded {
                continue;
            }
            match (record.slot.seat, record.slot.purpose) {
                // The judge's consensus confirmations live in the consensus records.
                (_, Purpose::Confirmation) => {}
                (seat, Purpose::Summary) => summaries.push(SummaryNote {
                    covers_round: record.covers_round,
                    speaker: self.seat_id(seat).to_string(),
                    text: text.clone(),
                }),
                (Seat::Panel(i), _) => turns.push(Turn {
                    round: record.slot.round,
                    phase: record.slot.phase,
                    speaker: spec.panel[i].id.clone(),
                    model: spec.panel[i].model.clone(),
                    challenger: record.slot.challenger,
                    text: text.clone(),
                    usage: *usage,
                }),
                (Seat::Judge, _) => {
                    let judge = spec.judge.as_ref().expect("judge calls need a judge");
                    synthesis = Some(Synthesis {
                        speaker: judge.id.clone(),
                        model: judge.model.clone(),
                        text: text.clone(),
                        usage: *usage,
                    });
                }
            }
        }
        Transcript {
            version: TRANSCRIPT_VERSION,
            protocol: spec.protocol.name().to_string(),
            question: spec.question.clone(),
            context: spec.context.clone(),
            seed: spec.seed,
            participants: spec.panel.iter().map(seat_info).collect(),
            judge: spec.judge.as_ref().map(seat_info),
            turns,
            consensus: self.consensus.clone(),
            choices: self.choices.clone(),
            summaries,
            warnings: self.warnings.clone(),
            results: self.results.clone(),
            synthesis,
            outcome: self.outcome.clone(),
            usage: self.usage(),
        }
    }

    /// The transcript as Markdown.
    pub fn markdown(&self) -> String {
        crate::render::markdown(&self.transcript())
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

    /// Check the batch just completed against the quality gate. Returns true
    /// when it released regenerated turns (the protocol then waits for them).
    fn quality_gate(&mut self) -> bool {
        let gate = self.debate.spec.limits.quality_gate;
        let pending: Vec<usize> = self.retry.keys().copied().collect();
        let mut regenerate = Vec::new();
        for index in pending {
            let call = self.retry.remove(&index).expect("present");
            let record = &self.debate.records[index];
            let Some(Answer::Text { text, .. }) = &record.answer else { continue };
            let Some(reason) = quality::pulls_punches(text) else { continue };
            let speaker = Some(self.seat_id(record.slot.seat).to_string());
            let (round, phase) = (record.slot.round, record.slot.phase);
            let message = match gate {
                QualityGate::Regenerate => format!("adversarial turn asked again: {reason}"),
                _ => format!("adversarial turn kept although it {reason}"),
            };
            self.warnings.push(Warning { speaker: speaker.clone(), round, phase, message: message.clone() });
            self.emit(EventKind::Warning { speaker, round, phase, message });
            if gate == QualityGate::Regenerate {
                self.debate.records[index].superseded = true;
                regenerate.push((call, reason));
            }
        }
        for (mut call, reason) in regenerate {
            if self.affordable(std::slice::from_ref(&call)).is_err() {
                let (round, phase) = (call.slot.round, call.slot.phase);
                let speaker = Some(self.seat_id(call.slot.seat).to_string());
                let message = "not asked again: a second answer could pass the cost limit".to_string();
                self.warnings.push(Warning { speaker: speaker.clone(), round, phase, message: message.clone() });
                self.emit(EventKind::Warning { speaker, round, phase, message });
                // Keep the first answer after all.
                if let Some(r) = self.debate.records.iter_mut().rev().find(|r| r.slot == call.slot && r.superseded) {
                    r.superseded = false;
                }
                continue;
            }
            call.quality_gate = false; // once only
            call.prompt.after.push_str(&format!(
                "\n\nYour previous answer to this was rejected because it {reason}. \
                 Answer again as the adversary: state plainly what is wrong and why, with no softening."
            ));
            self.release(call);
        }
        self.debate.records.iter().any(|r| r.answer.is_none())
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
                Note::Result { name, value } => {
                    let value = canonical(value);
                    self.results.insert(name.to_string(), value.clone());
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

    /// The last round a summary should cover, when a planned prompt would
    /// otherwise lose history to the budget and older rounds are unsummarized.
    fn summary_needed(&self, calls: &[PlannedCall]) -> Option<u32> {
        let budget = self.debate.spec.limits.context_budget?;
        let summary = self.debate.latest_summary();
        let covers = calls
            .iter()
            .filter(|c| budget::render(&c.prompt, Some(budget), summary).omitted > 0)
            .filter_map(|c| {
                let newest = c.prompt.history.iter().map(|e| e.round).max()?;
                // Everything before the newest round: complete rounds only.
                c.prompt.history.iter().map(|e| e.round).filter(|&r| r < newest).max()
            })
            .max()?;
        let already = summary.map_or(0, |(k, _)| k);
        (covers > already && !self.debate.summary_attempted(covers)).then_some(covers)
    }

    /// Whether `calls` fit under the spending limit at their worst: what was
    /// spent so far, plus each call's rendered prompt and full `max_tokens` at
    /// its model's price. If not, the ending that says so.
    fn affordable(&self, calls: &[PlannedCall]) -> Result<(), Ending> {
        let spec = &self.debate.spec;
        let Some(limit) = spec.max_cost.map(cost::Usd::from_dollars) else { return Ok(()) };
        let spent = self.usage().spent();
        let mut worst = cost::Usd(0);
        for call in calls {
            let model = match call.slot.seat {
                Seat::Panel(i) => &spec.panel[i].model,
                Seat::Judge => &spec.judge.as_ref().expect("validated plan").model,
            };
            let Some(price) = cost::price_of(spec, model) else { continue };
            let rendered = budget::render(&call.prompt, spec.limits.context_budget, self.debate.latest_summary());
            let prompt: u64 = rendered.messages.iter().map(|m| crate::estimate_tokens(&m.content) as u64).sum();
            worst.0 += cost::cost(price, prompt, call.max_tokens as u64).0;
        }
        if spent.0 + worst.0 <= limit.0 {
            return Ok(());
        }
        let what = match calls.first().map(|c| c.slot) {
            Some(s) if s.purpose == Purpose::Judge => "the judge's synthesis".to_string(),
            Some(s) if s.purpose == Purpose::Summary => "a summary of the earlier rounds".to_string(),
            Some(s) if s.purpose == Purpose::Confirmation => "the judge's consensus confirmation".to_string(),
            Some(s) => format!("{} call(s) of {} round {}", calls.len(), s.phase.as_str(), s.round),
            None => "nothing".to_string(),
        };
        let rounds_run = self.debate.records.iter().filter(|r| r.answer.is_some()).map(|r| r.slot.round).max();
        Err(Ending {
            kind: EndKind::CostLimit,
            reason: format!(
                "stopped at the cost limit of {}: {} spent, and {what} could cost up to {} more; every answer so far is kept",
                limit.display(),
                spent.display(),
                worst.display()
            ),
            rounds_run: rounds_run.unwrap_or(0),
        })
    }

    /// Tokens and cost per seat so far: reported usage, or estimates where a provider gave none.
    pub fn usage(&self) -> cost::UsageReport {
        let spec = &self.debate.spec;
        let mut report = cost::UsageReport::default();
        for r in &self.debate.records {
            let tokens = match &r.answer {
                None => continue,
                Some(Answer::Text { usage: Some(u), .. }) => cost::CallTokens {
                    prompt: u.prompt_tokens as u64,
                    completion: u.completion_tokens as u64,
                    estimated: false,
                },
                Some(Answer::Text { text, usage: None }) => cost::CallTokens {
                    prompt: r.prompt_tokens as u64,
                    completion: crate::estimate_tokens(text) as u64,
                    estimated: true,
                },
                // A failed call is counted, with no tokens: nothing came back to count.
                Some(Answer::Failed { .. }) => cost::CallTokens { prompt: 0, completion: 0, estimated: false },
            };
            let model = match r.slot.seat {
                Seat::Panel(i) => &spec.panel[i].model,
                Seat::Judge => &spec.judge.as_ref().expect("a judge record has a judge").model,
            };
            report.add(spec, self.seat_id(r.slot.seat), model, tokens);
        }
        report.finish()
    }

    fn release_summary(&mut self, covers: u32) {
        let spec = &self.debate.spec;
        let seat = if spec.judge.is_some() {
            Seat::Judge
        } else {
            Seat::Panel(self.debate.active_seats().first().copied().unwrap_or(0))
        };
        let history: Vec<HistoryEntry> =
            prompt_kit::entries(&self.debate, |s| s.round <= covers, |s| prompt_kit::name(&self.debate, s));
        let budget = spec.limits.context_budget.unwrap_or(u32::MAX);
        let words = (budget / 4).clamp(100, 600);
        let prompt = Prompt {
            system: "You keep the record of a council debate. Summarize faithfully and neutrally; \
                     invent nothing and take no side."
                .to_string(),
            before: prompt_kit::question(&self.debate),
            history,
            history_title: "THE DEBATE SO FAR",
            after: format!(
                "Summarize rounds 1 to {covers} for the participants who will continue the debate, in at most \
                 {words} words: each speaker's position and strongest arguments, what they agree on, and \
                 what is still disputed. Plain prose, no preamble."
            ),
        };
        let call = PlannedCall {
            slot: Slot { seat, purpose: Purpose::Summary, round: covers, phase: Phase::Summary, challenger: false },
            prompt,
            max_tokens: spec.limits.max_tokens.min(words * 2),
            expect: None,
            quality_gate: false,
        };
        if let Err(ending) = self.affordable(std::slice::from_ref(&call)) {
            return self.finish(ending);
        }
        self.release(call);
        let index = self.debate.records.len() - 1;
        self.debate.records[index].covers_round = covers;
    }

    fn release(&mut self, call: PlannedCall) {
        let id = self.debate.records.len() as u64 + 1;
        let slot = call.slot;
        let spec = &self.debate.spec;
        let participant = match slot.seat {
            Seat::Panel(i) => &spec.panel[i],
            Seat::Judge => spec.judge.as_ref().expect("validated plan"),
        };
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
            expect: call.expect.map(str::to_string),
        };
        let started = match slot.purpose {
            Purpose::Judge => {
                EventKind::JudgeStarted { id, speaker: request.seat.clone(), model: request.model.clone() }
            }
            Purpose::Turn | Purpose::Summary | Purpose::Confirmation => EventKind::TurnStarted {
                id,
                round: slot.round,
                phase: slot.phase,
                speaker: request.seat.clone(),
                model: request.model.clone(),
                challenger: slot.challenger,
            },
        };
        let index = self.debate.records.len();
        let prompt_tokens = request.messages.iter().map(|m| crate::estimate_tokens(&m.content)).sum();
        self.debate.records.push(Record { id, slot, answer: None, superseded: false, covers_round: 0, prompt_tokens });
        if call.quality_gate && spec.limits.quality_gate != QualityGate::Off {
            self.retry.insert(index, call);
        }
        self.emit(started);
        self.queue.push_back(Output::Request(request));
    }

    fn finish(&mut self, ending: Ending) {
        let failures: Vec<FailureNote> = self
            .debate
            .records
            .iter()
            .filter_map(|r| match &r.answer {
                Some(Answer::Failed { kind, message }) => Some(FailureNote {
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

/// The value with every object's keys inserted in sorted order, so it
/// serializes identically whether or not some other crate in the build turned
/// on serde_json's `preserve_order` (feature unification must not change bytes).
pub(crate) fn canonical(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            // Inserted one by one: collecting would sort, and each sort is
            // another monomorphized merge sort in the component.
            let mut sorted = std::collections::BTreeMap::new();
            for (k, v) in map {
                sorted.insert(k, canonical(v));
            }
            let mut object = serde_json::Map::new();
            for (k, v) in sorted {
                object.insert(k, v);
            }
            Value::Object(object)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(canonical).collect()),
        other => other,
    }
}

fn seat_info(p: &crate::Participant) -> SeatInfo {
    SeatInfo { id: p.id.clone(), name: p.display_name().to_string(), model: p.model.clone() }
}
