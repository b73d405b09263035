//! A document run as a [`Protocol`]: round after round, each phase that runs
//! in it, each part's speakers (one call at a time, or all at once), then the
//! round's stop check; at the end the aggregators.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Document;
use super::Quorum;
use super::aggregators::section;
use super::borda_aggregate;
use super::labels::Drawn;
use super::phases::{Adversarial, Order, Part, Prompt as PromptDoc};
use super::speakers::{Pick, Speakers};
use super::stopping::{Among, Stop};
use super::templates::{Piece, Slot};
use super::visibility::{Labels, Sees, ShowOrder, Turns};
use crate::consensus::{self, ConsensusCheck, ConsensusMode, Rule, confirm};
use crate::debate::{Debate, Seat};
use crate::plan::{Conclusion, EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::{self, HistoryEntry, Prompt};
use crate::protocol::sequential::rounds_ran;
use crate::rng::Rng;

/// A reply's declared fields, by name.
type Fields = serde_json::Map<String, Value>;

#[derive(Clone)]
pub(crate) struct Interpreter {
    doc: Arc<Document>,
    /// The adversary the spec named (for a rotation, round 1's), if it named one.
    named: Option<usize>,
    /// The adversary as picked at the start (round 1's, for a rotation).
    chosen: Option<usize>,
    mode: ConsensusMode,
    /// The labels the drawing phase drew, its latest round's.
    drawn: Drawn,
    stage: Stage,
}

#[derive(Clone)]
enum Stage {
    Start,
    /// Phase `index` of round `round`: its speakers as (seat, part), `next` to go.
    Phase {
        round: u32,
        index: usize,
        queue: Vec<(usize, usize)>,
        next: usize,
    },
    /// The judge confirms the round's apparent consensus (judge mode) before the round ends.
    Confirming {
        check: ConsensusCheck,
        asked: bool,
    },
    Conclude {
        conclusion: Conclusion,
        ending: Ending,
    },
}

/// Who a prompt is for: a panel seat in a part, or the judge.
#[derive(Clone, Copy)]
struct Speaker<'a> {
    seat: Option<usize>,
    part: Option<&'a Part>,
    round: u32,
    /// Written blind: it sees no other seat's turn ([`Interpreter::blind`]).
    blind: bool,
}

impl Interpreter {
    pub fn new(doc: Arc<Document>, named: Option<usize>, mode: ConsensusMode) -> Self {
        Interpreter { doc, named, chosen: None, mode, drawn: Drawn::default(), stage: Stage::Start }
    }

    fn quorate(&self, debate: &Debate) -> bool {
        match self.doc.quorum {
            Quorum::Spec => debate.has_quorum(),
            Quorum::Any => !debate.active_seats().is_empty(),
        }
    }

    /// Round 1's adversary: the spec's, the document's seat, or the seed's pick (recorded).
    fn pick(&self, debate: &Debate, notes: &mut Vec<Note>) -> Option<usize> {
        let adversary = self.doc.adversary.as_ref()?;
        if self.named.is_some() {
            return self.named;
        }
        Some(match adversary.pick {
            Pick::Seat(p) | Pick::Rotate { start: p, .. } => p as usize - 1,
            Pick::Seeded => {
                let pick = Rng::new(debate.spec.seed, &self.doc.name).below(debate.spec.panel.len());
                notes.push(Note::Choice { what: adversary.title.clone(), value: debate.seat(pick).id.clone() });
                pick
            }
        })
    }

    /// The adversary in `round`. A rotation passes over seats that stopped answering.
    fn adversary(&self, debate: &Debate, round: u32) -> Option<usize> {
        let (chosen, pick) = (self.chosen?, &self.doc.adversary.as_ref()?.pick);
        let n = debate.spec.panel.len();
        let planned = pick.in_round(chosen, round, n);
        match pick {
            Pick::Rotate { .. } => (0..n).map(|k| (planned + k) % n).find(|&s| !debate.is_benched(s)),
            _ => Some(planned),
        }
    }

    /// The seats a part of phase `index` gives the floor to in `round`, in order.
    fn members(&self, debate: &Debate, speakers: &Speakers, round: u32, index: usize) -> Vec<usize> {
        let n = debate.spec.panel.len();
        let adversary = self.adversary(debate, round);
        match speakers {
            Speakers::Each => (0..n).collect(),
            Speakers::Others => (0..n).filter(|&s| Some(s) != adversary).collect(),
            Speakers::Adversary => adversary.into_iter().collect(),
            Speakers::Seat(p) => vec![*p as usize - 1],
            Speakers::Role(name) => debate.spec.panel.iter().position(|p| &p.name == name).into_iter().collect(),
            Speakers::Answered => {
                // Validated: never the first phase; the one before may not have run this round.
                let before = (0..index).rev().find(|&i| self.doc.phases[i].runs_in(round, debate.spec.rounds()));
                let phase = before.map(|i| self.doc.phases[i].phase);
                (0..n).filter(|&s| phase.is_some_and(|p| debate.text(s, round, p).is_some())).collect()
            }
        }
    }

    /// The first phase at or after `from` that runs in `round`.
    fn phase_from(&self, debate: &Debate, round: u32, from: usize) -> Option<usize> {
        (from..self.doc.phases.len()).find(|&i| self.doc.phases[i].runs_in(round, debate.spec.rounds()))
    }

    /// Start phase `index` of `round`: its speakers still answering, in order.
    fn begin(&mut self, debate: &Debate, round: u32, index: usize, notes: &mut Vec<Note>) -> Result<Stage, Ending> {
        if !self.quorate(debate) {
            return Err(Ending::no_quorum(debate, round - 1));
        }
        let phase = &self.doc.phases[index];
        let mut queue: Vec<(usize, usize)> = Vec::new();
        let rounds = debate.spec.rounds();
        for (k, part) in phase.turns.iter().enumerate().filter(|(_, t)| t.when.holds(round, rounds)) {
            for seat in self.members(debate, &part.speakers, round, index) {
                // Validation keeps parts apart; a role two seats share must not plan one seat twice.
                if !debate.is_benched(seat) && !queue.iter().any(|(s, _)| *s == seat) {
                    queue.push((seat, k));
                }
            }
        }
        if queue.len() < phase.min_speakers as usize {
            return Err(Ending::no_quorum(debate, round - 1));
        }
        if let Some(draw) = &phase.labels {
            let seats: Vec<usize> = queue.iter().map(|(s, _)| *s).collect();
            // Salted with the document's name, apart from a seeded adversary's pick; round 1 keeps the plain salt.
            let salt = match round {
                1 => format!("{}-labels", self.doc.name),
                r => format!("{}-labels-{r}", self.doc.name),
            };
            let drawn = Drawn::draw(draw, &seats, debate.spec.seed, &salt);
            let mapping: Vec<String> = drawn.0.iter().map(|(s, l)| format!("{l} = {}", debate.seat(*s).id)).collect();
            notes.push(Note::Choice { what: draw.choice.clone(), value: mapping.join(", ") });
            self.drawn = drawn;
        }
        let challenger =
            queue.iter().find(|(_, k)| phase.turns[*k].adversarial != Adversarial::No).map(|(seat, _)| *seat);
        notes.push(Note::RoundStarted { round, phase: phase.phase, challenger });
        Ok(Stage::Phase { round, index, queue, next: 0 })
    }

    /// Whether part `k` of phase `index` is written blind in `round`: the
    /// spec asks for blind first answers, this is round 1's first phase, its
    /// turns would otherwise see each other (one at a time, seeing earlier
    /// turns; a phase answered at once is blind already and left as it is),
    /// and the part is no adversary's (attacking the others' answers is its part).
    fn blind(&self, debate: &Debate, round: u32, index: usize, k: usize) -> bool {
        let phase = &self.doc.phases[index];
        let part = &phase.turns[k];
        prompt_kit::blind(debate, round)
            && self.phase_from(debate, 1, 0) == Some(index)
            && phase.order == Order::Sequential
            && matches!(part.sees.turns, Turns::All | Turns::Phases(_))
            && part.adversarial == Adversarial::No
    }

    fn call(&self, debate: &Debate, round: u32, index: usize, (seat, k): (usize, usize)) -> PlannedCall {
        let part = &self.doc.phases[index].turns[k];
        let blind = self.blind(debate, round, index, k);
        let who = Speaker { seat: Some(seat), part: Some(part), round, blind };
        let prompt = self.prompt(debate, who, &part.sees, &part.prompt);
        let call = PlannedCall::turn(seat, round, self.doc.phases[index].phase, false, prompt, &debate.spec);
        let call = match part.adversarial {
            Adversarial::No => call,
            Adversarial::Marked => call.challenger_seat(),
            Adversarial::Gated => call.adversarial(),
        };
        match part.output.expect() {
            Some(shape) => call.expecting(shape),
            None => call,
        }
    }

    /// The phase's next calls from queue position `from`, and where the queue
    /// then stands; `None` when every speaker has had the floor.
    fn next_batch(
        &self,
        debate: &Debate,
        round: u32,
        index: usize,
        queue: &[(usize, usize)],
        from: usize,
    ) -> Result<Option<(usize, Vec<PlannedCall>)>, Ending> {
        match self.doc.phases[index].order {
            Order::Sequential => {
                // As each turn is planned: the seats still answering are enough.
                if !self.quorate(debate) {
                    return Err(Ending::no_quorum(debate, round - 1));
                }
                let Some(k) = (from..queue.len()).find(|&k| !debate.is_benched(queue[k].0)) else { return Ok(None) };
                // Blind turns see none of each other: the run of them goes out at once.
                let blind = |j: usize| self.blind(debate, round, index, queue[j].1);
                let end = if blind(k) { (k..queue.len()).find(|&j| !blind(j)).unwrap_or(queue.len()) } else { k + 1 };
                let calls = (k..end)
                    .filter(|&j| !debate.is_benched(queue[j].0))
                    .map(|j| self.call(debate, round, index, queue[j]))
                    .collect();
                Ok(Some((end, calls)))
            }
            Order::Parallel if from == 0 && !queue.is_empty() => {
                Ok(Some((queue.len(), queue.iter().map(|&s| self.call(debate, round, index, s)).collect())))
            }
            Order::Parallel => Ok(None),
        }
    }

    /// Phase `index` of `round` has been answered: read its JSON replies,
    /// then start the next phase, or end the round.
    fn end_phase(&mut self, debate: &Debate, round: u32, index: usize, notes: &mut Vec<Note>) -> Result<Stage, Step> {
        self.read_fields(debate, round, index, notes);
        let kind = self.doc.phases[index].phase;
        if let Some(next) = self.phase_from(debate, round, index + 1) {
            notes.push(Note::RoundEnded { round, phase: kind });
            return self.begin(debate, round, next, notes).map_err(Step::Finish);
        }
        match &self.doc.stop {
            Stop::Rounds => self.end_round(debate, round, None, None, notes),
            Stop::Settled => {
                let early = crate::ledger::aggregate::settled(debate)
                    .then(|| Ending::completed(format!("stopped in round {round}: no claim is open"), round));
                self.end_round(debate, round, None, early, notes)
            }
            Stop::Consensus(c) => {
                let adversary = if c.exclude_adversary { self.adversary(debate, round) } else { None };
                let replies: Vec<consensus::Reply> = (0..debate.spec.panel.len())
                    .filter(|&s| Some(s) != adversary)
                    .filter_map(|s| debate.reply(s, round, c.phase))
                    .collect();
                let rule = match c.rule {
                    super::stopping::Rule::All => Rule::All,
                    super::stopping::Rule::AllButOne => Rule::AllButOne,
                };
                let excluded = adversary.map(|a| debate.seat(a).id.as_str());
                let check =
                    consensus::evaluate(round, &replies, excluded, self.mode, rule, &debate.spec.answer_rules());
                if check.reached && self.mode == ConsensusMode::Judge {
                    return Ok(Stage::Confirming { check, asked: false });
                }
                self.end_round(debate, round, Some(check), None, notes)
            }
            Stop::When(c) => {
                // An unreadable reply never meets the condition: a stop needs what was asked for.
                let values: Vec<bool> = self
                    .parsed(debate, round, c.phase)
                    .into_iter()
                    .map(|(_, fields)| fields.is_ok_and(|f| f.get(&c.field) == Some(&c.equals)))
                    .collect();
                let met = match c.among {
                    Among::All => !values.is_empty() && values.iter().all(|&v| v),
                    Among::Any => values.contains(&true),
                };
                let early = met.then(|| {
                    Ending::completed(
                        format!(
                            "stopped in round {round}: {} replies of {} said {} = {}",
                            match c.among {
                                Among::All => "all",
                                Among::Any => "one of the",
                            },
                            c.phase.as_str(),
                            c.field,
                            c.equals
                        ),
                        round,
                    )
                });
                self.end_round(debate, round, None, early, notes)
            }
        }
    }

    /// The round is over: record its check, then stop early, go on, or conclude.
    fn end_round(
        &mut self,
        debate: &Debate,
        round: u32,
        check: Option<ConsensusCheck>,
        early: Option<Ending>,
        notes: &mut Vec<Note>,
    ) -> Result<Stage, Step> {
        let rounds = debate.spec.rounds();
        let early = early
            .or_else(|| {
                check.as_ref().filter(|c| c.reached).map(|c| Ending {
                    kind: EndKind::Consensus,
                    reason: format!("consensus in round {round} of {rounds}: {}", c.reason),
                    rounds_run: round,
                })
            })
            .or_else(|| {
                let phases: Vec<crate::Phase> = self.doc.phases.iter().map(|p| p.phase).collect();
                (round < rounds).then(|| crate::protocol::unchanged::stop(debate, round, &phases)).flatten()
            });
        if let Some(check) = check {
            notes.push(Note::Consensus(check));
        }
        let last = self.doc.phases.iter().rev().find(|p| p.runs_in(round, rounds)).expect("a round runs a phase");
        notes.push(Note::RoundEnded { round, phase: last.phase });
        if !self.quorate(debate) {
            return Err(Step::Finish(Ending::no_quorum(debate, round)));
        }
        let mut conclude = |ending| {
            Ok(Stage::Conclude { conclusion: Conclusion::NotAsked, ending: self.count(debate, ending, notes) })
        };
        match early {
            Some(ending) => conclude(ending),
            None if round < rounds => {
                let first = self.phase_from(debate, round + 1, 0).expect("validated: later rounds run a phase");
                self.begin(debate, round + 1, first, notes).map_err(Step::Finish)
            }
            None => {
                let reason = self.doc.completed.clone().unwrap_or_else(|| rounds_ran(rounds));
                conclude(Ending { kind: EndKind::Completed, reason, rounds_run: rounds })
            }
        }
    }

    /// The aggregators that run before the judge: a review; the claim
    /// ledger, whose agreement reached through an unexplained change the
    /// outcome calls negotiated; a Borda count, which degrades the ending
    /// when no ranking could be read.
    fn count(&self, debate: &Debate, mut ending: Ending, notes: &mut Vec<Note>) -> Ending {
        if let Some(r) = &self.doc.aggregate.review {
            crate::review::run_aggregate(r, debate, ending.rounds_run, notes);
        }
        if let Some(l) = &self.doc.aggregate.ledger {
            let ledger = crate::ledger::aggregate::of(debate, None);
            crate::ledger::aggregate::record(l, &ledger, notes);
            if let Some(why) = crate::ledger::aggregate::negotiated(&ledger) {
                ending.reason = format!("{}; {why}", ending.reason);
            }
        }
        let Some(b) = &self.doc.aggregate.borda else { return ending };
        let phase = self.doc.phases.iter().find(|p| p.phase == b.phase);
        let Some(reader) = phase.into_iter().flat_map(|p| &p.turns).find_map(|t| t.output.ranking.as_ref()) else {
            return ending;
        };
        // The newest round in which the phase was answered.
        let round = (1..=ending.rounds_run.max(1))
            .rev()
            .find(|&r| (0..debate.spec.panel.len()).any(|s| debate.text(s, r, b.phase).is_some()))
            .unwrap_or(1);
        if borda_aggregate::count(b, reader, &self.drawn, debate, round, notes) {
            return ending;
        }
        Ending { kind: EndKind::Degraded, reason: b.none.clone(), rounds_run: ending.rounds_run }
    }

    /// Each answering seat's declared fields in phase `phase` of `round`, or why they could not be read.
    fn parsed(&self, debate: &Debate, round: u32, phase: crate::Phase) -> Vec<(usize, Result<Fields, String>)> {
        let Some(index) = self.doc.phases.iter().position(|p| p.phase == phase) else { return Vec::new() };
        let mut out = Vec::new();
        let rounds = debate.spec.rounds();
        let parts = self.doc.phases[index].turns.iter().filter(|t| t.when.holds(round, rounds));
        for part in parts.filter(|t| !t.output.json.is_empty()) {
            for seat in self.members(debate, &part.speakers, round, index) {
                if let Some(text) = debate.text(seat, round, phase) {
                    out.push((seat, part.output.parse(text).map(crate::json_read::object)));
                }
            }
        }
        out
    }

    fn fields(&self, debate: &Debate, round: u32, phase: crate::Phase) -> Vec<(usize, serde_json::Map<String, Value>)> {
        self.parsed(debate, round, phase).into_iter().filter_map(|(s, r)| r.ok().map(|m| (s, m))).collect()
    }

    /// Warn of replies whose JSON could not be read, and record every reading so far as a result.
    fn read_fields(&self, debate: &Debate, round: u32, index: usize, notes: &mut Vec<Note>) {
        let phase = self.doc.phases[index].phase;
        if self.doc.phases[index].turns.iter().all(|t| t.output.json.is_empty()) {
            return;
        }
        for (seat, result) in self.parsed(debate, round, phase) {
            if let Err(why) = result {
                notes.push(Note::Warning {
                    speaker: Some(debate.seat(seat).id.clone()),
                    round,
                    phase,
                    message: format!("{why}; its fields are left out"),
                });
            }
        }
        let mut rows = Vec::new();
        for r in 1..=round {
            for (seat, fields) in self.fields(debate, r, phase) {
                let mut row = json!({"seat": debate.seat(seat).id, "round": r});
                row["fields"] = Value::Object(fields);
                rows.push(row);
            }
        }
        notes.push(Note::Result { name: phase.as_str().into(), kind: super::FIELDS_KIND, value: Value::Array(rows) });
    }

    fn prompt(&self, debate: &Debate, who: Speaker, sees: &Sees, prompt: &PromptDoc) -> Prompt {
        let history = match &sees.turns {
            Turns::None => Vec::new(),
            _ => self.history(debate, who, sees),
        };
        // A blind turn is not the first to speak: all of round 1 speaks at once.
        let user = match (&prompt.first, history.is_empty() && !who.blind) {
            (Some(first), true) => first,
            _ => &prompt.user,
        };
        let (before, after) = user.split_at_history();
        let mut after = self.render(debate, who, after);
        if who.blind {
            after = format!("{}\n\n{}", prompt_kit::BLIND_NOTE, after.trim_start());
        }
        Prompt {
            system: self.render(debate, who, &prompt.system.0),
            before: self.render(debate, who, before),
            history,
            history_title: sees.title.clone().into(),
            after,
        }
    }

    /// The earlier turns `sees` shows `who`: kept, labelled, headed and ordered as it says.
    fn history(&self, debate: &Debate, who: Speaker, sees: &Sees) -> Vec<HistoryEntry> {
        let own = |slot: &crate::debate::Slot| who.seat.is_some_and(|s| slot.is_panel(s));
        let keep = |slot: &crate::debate::Slot| match &sees.turns {
            _ if who.blind && !own(slot) => false,
            Turns::None => false,
            Turns::Own => own(slot),
            Turns::Phases(list) => list.contains(&slot.phase),
            Turns::All => true,
        };
        let mut shown: Vec<(crate::debate::Slot, HistoryEntry)> = debate
            .answered_turns()
            .filter(|(slot, _, _)| keep(slot) && !(sees.hide_own && own(slot)))
            .map(|(slot, text, cut)| {
                let show = sees.show.iter().find(|s| s.phase == slot.phase);
                let mut label = self.label(debate, slot.seat, slot.phase, slot.round, sees.labels);
                if let Some(template) = show.and_then(|s| s.label.as_ref()) {
                    label = around(template, &label);
                }
                let heading = show.and_then(|s| s.heading.clone()).unwrap_or_else(|| slot.phase.heading(slot.round));
                (slot, HistoryEntry { round: slot.round, heading, label, text: text.trim().to_string(), cut })
            })
            .collect();
        // Label order within each run of one phase's turns in one round.
        let mut start = 0;
        while start < shown.len() {
            let (phase, round) = (shown[start].0.phase, shown[start].0.round);
            let len = shown[start..].iter().take_while(|(s, _)| s.phase == phase && s.round == round).count();
            if sees.show.iter().any(|s| s.phase == phase && s.order == ShowOrder::Labels) {
                crate::order::sort_by_key(&mut shown[start..start + len], |(s, _)| match s.seat {
                    Seat::Panel(i) => self.drawn.position(i),
                    Seat::Judge => usize::MAX,
                });
            }
            start += len;
        }
        shown.into_iter().map(|(_, entry)| entry).collect()
    }

    /// How a turn is shown in a history.
    fn label(&self, debate: &Debate, seat: Seat, phase: crate::Phase, round: u32, labels: Labels) -> String {
        let Seat::Panel(i) = seat else { return "Judge".into() };
        match labels {
            Labels::Named => prompt_kit::seat_label(debate, i),
            Labels::Anonymized => prompt_kit::speaker(i),
            Labels::Drawn => self.drawn.label(i).map_or_else(|| prompt_kit::speaker(i), str::to_string),
            Labels::Roles => self
                .doc
                .phases
                .iter()
                .enumerate()
                .filter(|(_, p)| p.phase == phase)
                .flat_map(|(index, p)| p.turns.iter().map(move |part| (index, part)))
                .filter(|(_, part)| part.when.holds(round, debate.spec.rounds()))
                .find(|(index, part)| self.members(debate, &part.speakers, round, *index).contains(&i))
                .map(|(_, part)| part)
                .map_or_else(|| prompt_kit::seat_label(debate, i), |part| part.role.clone()),
        }
    }

    fn render(&self, debate: &Debate, who: Speaker, pieces: &[Piece]) -> String {
        let spec = &debate.spec;
        let mut out = String::new();
        for piece in pieces {
            let slot = match piece {
                Piece::Text(text) => {
                    out.push_str(text);
                    continue;
                }
                Piece::Slot(slot) => slot,
            };
            match slot {
                Slot::Question => out.push_str(&prompt_kit::question(debate)),
                Slot::Context => {
                    out.push_str(&spec.context.as_deref().map(prompt_kit::quoted).unwrap_or_default());
                    out.push_str(&spec.parent_frame());
                    out.push_str(&crate::files::frame(&spec.files));
                }
                Slot::Round => out.push_str(&who.round.to_string()),
                Slot::Rounds => out.push_str(&spec.rounds().to_string()),
                Slot::Seats => out.push_str(&spec.panel.len().to_string()),
                Slot::Label => {
                    out.push_str(&who.seat.map_or_else(|| "Judge".into(), |s| prompt_kit::seat_label(debate, s)))
                }
                Slot::Role => out.push_str(who.part.map_or("", |p| p.role.as_str())),
                Slot::Persona => {
                    out.push_str(&who.seat.map(|s| prompt_kit::persona(debate.seat(s))).unwrap_or_default())
                }
                Slot::Adversary => {
                    let adversary = self.adversary(debate, who.round);
                    out.push_str(&adversary.map(|a| prompt_kit::seat_label(debate, a)).unwrap_or_default());
                }
                Slot::Stance => {
                    if matches!(self.doc.stop, Stop::Consensus(_)) {
                        out.push_str(&consensus::closing(self.mode));
                    }
                }
                Slot::History => {}
                Slot::Claims => out.push_str(&crate::ledger::aggregate::listing(debate, who.seat)),
                Slot::Field { phase, field } => {
                    // The newest round in which the phase ran, up to this one.
                    let newest = (1..=who.round).rev().map(|r| self.fields(debate, r, *phase)).find(|f| !f.is_empty());
                    for (seat, fields) in newest.unwrap_or_default() {
                        let Some(value) = fields.get(field) else { continue };
                        let text = value.as_str().map_or_else(|| value.to_string(), str::to_string);
                        out.push_str(&format!(
                            "[{}]\n{}\n",
                            prompt_kit::seat_label(debate, seat),
                            prompt_kit::quoted(&text)
                        ));
                    }
                }
            }
        }
        out
    }

    /// The aggregators: the judge's synthesis, and once it has answered, its named sections.
    fn conclude(&self, debate: &Debate, conclusion: &mut Conclusion, ending: &Ending, notes: &mut Vec<Note>) -> Step {
        let Some(synthesis) = self.doc.aggregate.synthesis.as_ref() else { return Step::Finish(ending.clone()) };
        if let Some(text) = conclusion.verdict(debate) {
            // The judge has answered: the ledger again, with its rulings.
            if let Some(l) = &self.doc.aggregate.ledger {
                crate::ledger::aggregate::record(l, &crate::ledger::aggregate::of(debate, Some(text)), notes);
            }
            for s in &synthesis.sections {
                match section(text, &s.heading.to_lowercase()) {
                    Some(body) => notes.push(Note::Result {
                        name: s.result.clone().into(),
                        kind: super::SECTION_KIND,
                        value: json!(body),
                    }),
                    None => notes.push(Note::Warning {
                        speaker: debate.judge().map(|j| j.id.clone()),
                        round: ending.rounds_run,
                        phase: crate::Phase::Synthesis,
                        message: format!("the judge wrote no '## {}' section", s.heading),
                    }),
                }
            }
        }
        let round = ending.rounds_run;
        let who = Speaker { seat: None, part: None, round, blind: false };
        conclusion.step(debate, ending.clone(), round, || self.prompt(debate, who, &synthesis.sees, &synthesis.prompt))
    }
}

impl Protocol for Interpreter {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        loop {
            let next = match &mut self.stage {
                Stage::Start => {
                    self.chosen = self.pick(debate, notes);
                    let first = self.phase_from(debate, 1, 0).expect("validated: round 1 runs a phase");
                    self.begin(debate, 1, first, notes).map_err(Step::Finish)
                }
                Stage::Phase { round, index, queue, next } => {
                    let (round, index, from, queue) = (*round, *index, *next, queue.clone());
                    match self.next_batch(debate, round, index, &queue, from) {
                        Err(ending) => return Step::Finish(ending),
                        Ok(Some((to, calls))) => {
                            if let Stage::Phase { next, .. } = &mut self.stage {
                                *next = to;
                            }
                            return Step::Run(calls);
                        }
                        Ok(None) => self.end_phase(debate, round, index, notes),
                    }
                }
                Stage::Confirming { check, asked: asked @ false } => {
                    *asked = true;
                    return Step::Run(vec![confirm::call(debate, check)]);
                }
                Stage::Confirming { check, asked: true } => {
                    let check = confirm::settle(debate, check.clone(), notes);
                    self.end_round(debate, check.round, Some(check), None, notes)
                }
                Stage::Conclude { conclusion, ending } => {
                    // Taken out and put back: the prompt reads the rest of `self`.
                    let (mut conclusion, ending) = (conclusion.clone(), ending.clone());
                    let step = self.conclude(debate, &mut conclusion, &ending, notes);
                    self.stage = Stage::Conclude { conclusion, ending };
                    return step;
                }
            };
            match next {
                Ok(stage) => self.stage = stage,
                Err(step) => return step,
            }
        }
    }
}

/// A `show` label template around a turn's label: its text, `{label}` where the label goes.
fn around(template: &super::templates::Template, label: &str) -> String {
    template
        .0
        .iter()
        .map(|piece| match piece {
            Piece::Text(t) => t.as_str(),
            Piece::Slot(_) => label,
        })
        .collect()
}
