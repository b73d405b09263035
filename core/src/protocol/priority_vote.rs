//! `priority-vote` (seed 001's priority voting): two lenses — urgency and
//! impact — assign P0–P3 to every item, independently and at once. A Borda
//! count (P0=4, P1=3, P2=2, P3=1, summed over the lenses) orders the items;
//! items on which the lenses differ by two or more levels are flagged with
//! both justifications. No judge: the ranking is the result.
//!
//! Ties are broken deterministically: first the item with the higher single
//! best score (someone's P0 beats two P1s), then the lower item number.
//!
//! Cost-gated as the seed's `/update-todos`: duplicates are found first (the
//! same text, ignoring case, spacing and end punctuation) and reported; with
//! 15 or more distinct items both lenses vote (`compete: auto`, the default),
//! with fewer one agent prioritizes through both lenses at once. `compete`
//! and `single` force either way. A lens that leaves out an item keeps its
//! other priorities; the omission is a warning.
//!
//! Flagged items are the person's to settle (seed 001 asks them): the
//! results list them `to_confirm` with both lenses' priorities and reasons,
//! and a third seat named by `confirm` (typically `human/you`) is asked once,
//! after the count, for a final priority per flagged item ([`confirm`]).
//! A confirmed priority counts for both lenses in the final ordering.

pub(crate) mod confirm;
pub(crate) mod reply;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::debate::Debate;
use crate::plan::{Bounds, EndKind, Ending, Note, PlannedCall, Protocol, Step};
use crate::prompt_kit::{self, Prompt};
use crate::protocol::definition::{
    BASE, Declared, Definition, OptionInfo, OptionKind, PLAIN, ProtocolOptions, Seats, Shown, checked, typed,
};
use crate::{DebateSpec, Error, Phase, estimate_tokens};

/// What it records, each result with its kind (the one place they are said).
/// The items in Borda order with both lenses' priorities.
const RANKING: Declared = Declared::new("ranking", crate::ResultKind::Ranking);
/// Items the lenses disagree on, for the confirmer.
const TO_CONFIRM: Declared = Declared::new("to_confirm", crate::ResultKind::Table);
/// What the confirmer decided.
const CONFIRMED: Declared = Declared::new("confirmed", crate::ResultKind::Table);
/// Items read as the same, merged.
const DUPLICATES: Declared = Declared::new("duplicates", crate::ResultKind::Table);
/// Whether both lenses ran, and why.
const GATE: Declared = Declared::new("gate", crate::ResultKind::Gate);

/// What readers of its transcripts need of it (see [`Shown`]): apart from
/// [`DEF`], so the registry finds it without the protocol's code.
pub(crate) const SHOWN: Shown =
    Shown { sides: &["urgency", "impact"], results: &[RANKING, TO_CONFIRM, CONFIRMED, DUPLICATES, GATE], ..PLAIN };

pub(crate) const DEF: Definition = Definition {
    name: "priority-vote",
    summary: "Urgency and impact lenses assign P0–P3 to every item; a Borda count orders them, gaps are flagged.",
    shown: SHOWN,
    seats: Seats {
        min: 2,
        max: Some(3),
        why: "the urgency lens is seat 1, the impact lens seat 2, a confirmer (if any) seat 3",
    },
    options: &[
        OptionInfo {
            name: "items",
            kind: OptionKind::Texts,
            default: "",
            help: Cow::Borrowed("The action items to prioritize, one or more."),
        },
        OptionInfo {
            name: "compete",
            kind: OptionKind::Choice(&["auto", "compete", "single"]),
            default: "auto",
            help: Cow::Borrowed(
                "compete: both lenses vote; single: one agent; auto: both lenses at 15 or more distinct items.",
            ),
        },
        OptionInfo {
            name: "confirm",
            kind: OptionKind::Seat,
            default: "none: flagged items are listed to confirm",
            help: Cow::Borrowed(
                "The third seat (typically human/you) asked for a final priority on each item the lenses put two or more levels apart.",
            ),
        },
    ],
    example: |seats| {
        let mut options =
            serde_json::json!({"items": ["fix CI", "hire a second SRE", "ship 1.0"], "compete": "compete"});
        if seats > 2 {
            options["confirm"] = json!(3);
        }
        options
    },
    check: checked::<Options>,
    // Two lenses vote once, a confirmer may answer once; the count is the result: the judge is never asked.
    bounds: |spec| {
        let confirmer = confirmer(&typed::<Options>(spec), spec).is_some() as u32;
        Bounds { judge: 0, ..Bounds::new(spec, 2 + confirmer, 0, 1) }
    },
    build: |spec| {
        let o: Options = typed(spec);
        let confirm = confirmer(&o, spec);
        Box::new(PriorityVote { items: o.items, compete: o.compete, asked: Vec::new(), confirm, held: None })
    },
    prompt_tokens: |spec| {
        let o = typed::<Options>(spec);
        // The confirmer's prompt lists each item again with a line per lens.
        let per_item = if confirmer(&o, spec).is_some() { 16 } else { 8 };
        o.items.iter().map(|i| estimate_tokens(i) as u64 + per_item).sum()
    },
    ..BASE
};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Options {
    items: Vec<String>,
    #[serde(default)]
    compete: CompeteMode,
    /// The seat that confirms flagged items: the third, never a lens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confirm: Option<crate::SeatRef>,
}

/// Seed 001's cost gate for priority voting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CompeteMode {
    /// Both lenses from [`AUTO_COMPETE_AT`] distinct items on; one agent below.
    #[default]
    Auto,
    Compete,
    Single,
}

/// The seed's trigger: "auto-triggers when total action items >= 15 after deduplication".
const AUTO_COMPETE_AT: usize = 15;

impl ProtocolOptions for Options {
    fn check(&self, spec: &DebateSpec) -> Result<(), Error> {
        if self.items.is_empty() {
            return Err(Error::spec("protocol.items", "give at least one item to prioritize"));
        }
        if let Some(i) = self.items.iter().position(|o| o.trim().is_empty()) {
            return Err(Error::spec(format!("protocol.items[{i}]"), "must not be empty"));
        }
        match &self.confirm {
            Some(seat) if spec.resolve_seat(seat, "protocol.confirm")? != 2 => Err(Error::spec(
                "protocol.confirm",
                "the confirmer is a seat of its own, the third: seats 1 and 2 are the lenses",
            )),
            _ => Ok(()),
        }
    }
}

/// The seat that confirms flagged items: the one `confirm` names, else a
/// third seat if the panel has one (a host that seats every model it is
/// given need not know the option).
fn confirmer(o: &Options, spec: &DebateSpec) -> Option<usize> {
    match &o.confirm {
        Some(seat) => Some(spec.resolve_seat(seat, "protocol.confirm").expect("validated")),
        None => (spec.panel.len() > 2).then_some(2),
    }
}

const LENSES: [(&str, &str); 2] = [
    ("urgency", "URGENCY: who is waiting on this, how soon a response is due, which deadlines are close."),
    ("impact", "IMPACT: strategic value, effect on the team's health, leverage — how much else it unlocks."),
];

const SHAPE: &str =
    "json: [{\"item\": <number>, \"priority\": \"P0|P1|P2|P3\", \"why\": \"...\"}] — one entry per item";

#[derive(Clone)]
pub(crate) struct PriorityVote {
    items: Vec<String>,
    compete: CompeteMode,
    /// The seats asked to vote; empty until the gate has run.
    asked: Vec<usize>,
    /// The confirmer's seat, if the spec names one.
    confirm: Option<usize>,
    /// The count, held while the confirmer answers.
    held: Option<Held>,
}

/// What the count found, kept until the confirmer has answered (the
/// ballots are read again from the replies: cheaper than keeping them).
#[derive(Clone)]
struct Held {
    /// The flagged items, as `to_confirm` lists them.
    flagged: Vec<serde_json::Value>,
    ending: Ending,
}

/// Items with the same text (case, spacing and end punctuation aside) are one
/// item: the distinct ones in order, and each duplicate's 1-based number with
/// the number of the item it repeats.
fn deduplicate(items: &[String]) -> (Vec<String>, Vec<(usize, usize)>) {
    let key = |s: &str| {
        s.split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches(['.', '!', '?', ';', ',']).to_lowercase()
    };
    let (mut distinct, mut keys, mut duplicates) = (Vec::new(), Vec::new(), Vec::new());
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        match keys.iter().position(|seen| *seen == k) {
            Some(first) => duplicates.push((i + 1, first + 1)),
            None => {
                keys.push(k);
                distinct.push(item.clone());
            }
        }
    }
    (distinct, duplicates)
}

impl Protocol for PriorityVote {
    fn advance(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        // Stage 1 — de-duplicate, gate, then the lenses vote at once.
        if self.asked.is_empty() {
            return self.open(debate, notes);
        }
        // Stage 3 — the confirmer has answered: read it strictly, rank again.
        if let Some(held) = self.held.take() {
            notes.push(Note::RoundEnded { round: 1, phase: Phase::Confirmation });
            return Step::Finish(self.settle(debate, held, notes));
        }
        // Stage 2 — parse once, count, flag.
        self.count(debate, notes)
    }
}

const CONFIRM_SHAPE: &str = "lines: one per item, \"<item number>: <P0|P1|P2|P3>\"";

impl PriorityVote {
    /// Stage 1: the items de-duplicated, the gate's choice of one agent or
    /// both lenses, and the vote asked of them at once.
    fn open(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        let (distinct, duplicates) = deduplicate(&self.items);
        if !duplicates.is_empty() {
            let value: Vec<serde_json::Value> = duplicates
                .iter()
                .map(|&(item, same_as)| json!({"item": item, "same_as": same_as, "text": self.items[item - 1]}))
                .collect();
            notes.push(DUPLICATES.note(json!(value)));
        }
        self.items = distinct;
        let n = self.items.len();
        let (both, reason) = match self.compete {
            CompeteMode::Compete => (true, "forced by compete".to_string()),
            CompeteMode::Single => (false, "single: one agent through both lenses".to_string()),
            CompeteMode::Auto if n >= AUTO_COMPETE_AT => {
                (true, format!("{n} distinct items (auto: both lenses from {AUTO_COMPETE_AT})"))
            }
            CompeteMode::Auto => {
                (false, format!("{n} distinct items, under {AUTO_COMPETE_AT}: one agent (compete forces both lenses)"))
            }
        };
        notes.push(GATE.note(json!({"compete": both, "reason": reason})));
        self.asked = if both { vec![0, 1] } else { vec![0] };
        notes.push(Note::RoundStarted { round: 1, phase: Phase::Vote, challenger: None });
        let calls = self
            .asked
            .iter()
            .map(|&seat| {
                let lens = if both { Lens::One(seat) } else { Lens::Both };
                PlannedCall::turn(seat, 1, Phase::Vote, false, prompt(debate, &self.items, lens), &debate.spec)
                    .expecting(SHAPE)
            })
            .collect();
        Step::Run(calls)
    }

    /// Stage 2: the ballots counted into a ranking; the flagged items go to
    /// the confirmer when there is one, else the ranking is the result.
    fn count(&mut self, debate: &Debate, notes: &mut Vec<Note>) -> Step {
        notes.push(Note::RoundEnded { round: 1, phase: Phase::Vote });
        let n = self.items.len();
        let single = self.asked.len() == 1;
        let votes = self.ballots(debate, notes);
        let counted: Vec<usize> = (0..2).filter(|&s| votes[s].is_some()).collect();
        if counted.is_empty() {
            let reason = if single {
                "the agent produced no usable priorities"
            } else {
                "neither lens produced usable priorities"
            };
            return Step::Finish(Ending { kind: EndKind::NoQuorum, reason: reason.into(), rounds_run: 1 });
        }
        let counted_ranking = ranking(&self.items, &votes, single, &[]);
        let flagged = confirm::flagged(&counted_ranking);
        let ending = if single {
            Ending::completed(format!("{n} items prioritized by one agent through both lenses"), 1)
        } else if counted.len() == 2 {
            Ending::completed(format!("{n} items ranked by a Borda count over both lenses"), 1)
        } else {
            let only = LENSES[counted[0]].0;
            Ending {
                kind: EndKind::Degraded,
                reason: format!("ranking from the {only} lens only: the other lens gave no usable priorities"),
                rounds_run: 1,
            }
        };
        if let Some(seat) = self.confirm.filter(|&s| !flagged.is_empty() && !debate.is_benched(s)) {
            notes.push(Note::RoundStarted { round: 1, phase: Phase::Confirmation, challenger: None });
            let call =
                PlannedCall::turn(seat, 1, Phase::Confirmation, false, confirm::prompt(debate, &flagged), &debate.spec)
                    .expecting(CONFIRM_SHAPE);
            self.held = Some(Held { flagged, ending });
            return Step::Run(vec![call]);
        }
        notes.push(RANKING.note(counted_ranking));
        if !flagged.is_empty() {
            notes.push(TO_CONFIRM.note(json!(flagged)));
        }
        Step::Finish(ending)
    }

    /// Each lens's ballot, read once; what could not be read is a warning.
    fn ballots(&self, debate: &Debate, notes: &mut Vec<Note>) -> [Option<reply::Ballot>; 2] {
        let (n, single) = (self.items.len(), self.asked.len() == 1);
        let mut votes: [Option<reply::Ballot>; 2] = [None, None];
        for &seat in &self.asked {
            let Some(text) = debate.text(seat, 1, Phase::Vote) else { continue };
            let lens = if single { "single agent's" } else { LENSES[seat].0 };
            let warn = |message: String| Note::Warning {
                speaker: Some(debate.seat(seat).id.clone()),
                round: 1,
                phase: Phase::Vote,
                message,
            };
            match reply::priorities(text, n) {
                Ok(ballot) => {
                    notes.extend(ballot.problems.iter().map(|p| warn(format!("the {lens} lens: {p}"))));
                    votes[seat] = Some(ballot);
                }
                Err(why) => notes.push(warn(format!("the {lens} votes could not be parsed: {why}"))),
            }
        }
        votes
    }

    /// Read the confirmer's reply; record the final ranking, what was
    /// confirmed and by whom, and what still awaits confirmation.
    fn settle(&self, debate: &Debate, held: Held, notes: &mut Vec<Note>) -> Ending {
        let seat = self.confirm.expect("asked only with a confirmer");
        let who = debate.seat(seat);
        let asked: Vec<usize> = held.flagged.iter().filter_map(|f| f["item"].as_u64()).map(|n| n as usize).collect();
        let (levels, problems) = match debate.text(seat, 1, Phase::Confirmation) {
            Some(text) => confirm::read(text, &asked),
            None => (Vec::new(), vec!["no reply came; every flagged item stays unconfirmed".to_string()]),
        };
        for problem in problems {
            notes.push(Note::Warning {
                speaker: Some(who.id.clone()),
                round: 1,
                phase: Phase::Confirmation,
                message: format!("the confirmer: {problem}"),
            });
        }
        // Both lenses counted, or no item would have been flagged.
        let n = self.items.len();
        let ballot = |seat| debate.text(seat, 1, Phase::Vote).and_then(|t| reply::priorities(t, n).ok());
        let votes = [ballot(0), ballot(1)];
        notes.push(RANKING.note(ranking(&self.items, &votes, false, &levels)));
        let confirmed: Vec<serde_json::Value> = levels
            .iter()
            .map(|&(item, level)| json!({"item": item, "text": self.items[item - 1], "priority": format!("P{level}")}))
            .collect();
        notes.push(CONFIRMED.note(json!({"by": who.id, "items": confirmed})));
        let left: Vec<serde_json::Value> =
            held.flagged.into_iter().filter(|f| !levels.iter().any(|&(i, _)| f["item"] == i)).collect();
        let summary = format!("; {} of {} flagged items confirmed by {}", levels.len(), asked.len(), who.name);
        if !left.is_empty() {
            notes.push(TO_CONFIRM.note(json!(left)));
        }
        Ending { reason: held.ending.reason + &summary, ..held.ending }
    }
}

/// Whose eyes a vote is cast through.
#[derive(Clone, Copy)]
enum Lens {
    /// One of [`LENSES`], by seat.
    One(usize),
    /// The single agent: both lenses at once.
    Both,
}

/// The Borda ranking: `[{"item", "text", "score", "priorities", "disagreement"}]`,
/// best first; from one agent, `priorities` is `{"priority"}` with its `why`.
/// A `confirmed` level (0 for P0) counts for both lenses, and its row says so.
fn ranking(
    items: &[String],
    votes: &[Option<reply::Ballot>; 2],
    single: bool,
    confirmed: &[(usize, u8)],
) -> serde_json::Value {
    let confirmed = |item: usize| confirmed.iter().find(|(i, _)| *i == item).map(|&(_, l)| l);
    let level = |lens: usize, item: usize| votes[lens].as_ref().and_then(|b| b.votes.get(&item));
    let mut rows: Vec<(u32, u32, usize)> = (1..=items.len())
        .map(|item| {
            let points: Vec<u32> = match confirmed(item) {
                Some(l) => vec![4 - l as u32; 2],
                None => (0..2).filter_map(|l| level(l, item)).map(|v| 4 - v.level as u32).collect(),
            };
            (points.iter().sum(), points.iter().copied().max().unwrap_or(0), item)
        })
        .collect();
    // The item number breaks every tie.
    crate::order::sort_by(&mut rows, |a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let list: Vec<serde_json::Value> = rows
        .iter()
        .map(|&(score, _, item)| {
            let p = |l: usize| level(l, item).map(|v| format!("P{}", v.level));
            let disagreement = match (level(0, item), level(1, item)) {
                (Some(u), Some(i)) if u.level.abs_diff(i.level) >= 2 => json!({"urgency": u.why, "impact": i.why}),
                _ => serde_json::Value::Null,
            };
            if single {
                let why = level(0, item).map(|v| v.why.clone());
                return json!({"item": item, "text": items[item - 1], "score": score, "priorities": {"priority": p(0)}, "why": why});
            }
            let mut row = json!({
                "item": item,
                "text": items[item - 1],
                "score": score,
                "priorities": {"urgency": p(0), "impact": p(1)},
                "disagreement": disagreement,
            });
            if let Some(l) = confirmed(item) {
                row["confirmed"] = json!(format!("P{l}"));
            }
            row
        })
        .collect();
    serde_json::Value::Array(list)
}

/// One vote. Output: a JSON list, one entry per item, as `SHAPE` shows.
fn prompt(debate: &Debate, items: &[String], who: Lens) -> Prompt {
    let (seat, lens, intro) = match who {
        Lens::One(seat) => {
            let (lens, focus) = LENSES[seat];
            (seat, lens, format!("Assign priorities through one lens only.\n\nYOUR LENS — {focus}"))
        }
        Lens::Both => (
            0,
            "urgency and impact",
            format!("Assign priorities weighing two lenses together.\n\n{}\n{}", LENSES[0].1, LENSES[1].1),
        ),
    };
    let list: String = items.iter().enumerate().map(|(i, t)| format!("{}. {t}\n", i + 1)).collect();
    // The same for every lens: with the question and the items it is a
    // prefix both lenses share; the lens comes last.
    Prompt {
        system: "You assign priorities to action items through a lens given at the end.\n\n\
Give every item exactly one priority: P0 (now), P1 (this week), P2 (this month) or P3 (later). \
Answer with a JSON list and nothing else, one entry per item, numbered as given:\n\
[{\"item\": <item number>, \"priority\": \"<P0|P1|P2|P3>\", \"why\": \"<one sentence through your lens>\"}]"
            .into(),
        before: format!("{}\nITEMS:\n{list}", prompt_kit::question(debate)),
        after: prompt_kit::turn_block(&[
            &intro,
            &prompt_kit::persona(debate.seat(seat)),
            &format!(
                "Your priorities through the {lens} lens{}, as JSON.",
                if matches!(who, Lens::Both) { "es" } else { "" }
            ),
        ]),
        ..Prompt::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ballot(levels: &[u8]) -> Option<reply::Ballot> {
        let votes = levels
            .iter()
            .enumerate()
            .map(|(i, &level)| (i + 1, reply::PriorityVote { item: i + 1, level, why: format!("why {}", i + 1) }))
            .collect();
        Some(reply::Ballot { votes, problems: Vec::new() })
    }

    #[test]
    fn borda_orders_flags_and_breaks_ties_by_the_best_single_score() {
        let items: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        // item 1: P1+P1 = 6; item 2: P0+P2 = 6 (best single 4); item 3: P3+P3 = 2.
        let votes = [ballot(&[1, 0, 3]), ballot(&[1, 2, 3])];
        let r = ranking(&items, &votes, false, &[]);
        let order: Vec<u64> = r.as_array().unwrap().iter().map(|x| x["item"].as_u64().unwrap()).collect();
        assert_eq!(order, [2, 1, 3]);
        assert_eq!(r[0]["score"], 6);
        assert_eq!(r[0]["disagreement"]["urgency"], "why 2");
        assert!(r[1]["disagreement"].is_null());
        assert_eq!(r[2]["priorities"], json!({"urgency": "P3", "impact": "P3"}));
    }

    #[test]
    fn an_omitted_item_is_ranked_on_the_other_lens() {
        let items: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let mut impact = ballot(&[3, 0]);
        impact.as_mut().unwrap().votes.remove(&2);
        let r = ranking(&items, &[ballot(&[2, 0]), impact], false, &[]);
        // item 2: urgency P0 only = 4; item 1: P2 + P3 = 3 + 1 = 4, best single 3 < 4.
        assert_eq!(r[0]["item"], 2);
        assert_eq!(r[0]["priorities"], json!({"urgency": "P0", "impact": null}));
        assert!(r[0]["disagreement"].is_null());
    }

    #[test]
    fn the_confirmer_is_a_third_seat_named_by_confirm_and_never_a_lens() {
        let refused = |seats: usize, confirm: Option<serde_json::Value>| {
            let mut spec = crate::example_spec("priority-vote", seats, 1).unwrap();
            match confirm {
                Some(seat) => spec.protocol.options.insert("confirm".into(), seat),
                None => spec.protocol.options.remove("confirm"),
            };
            match spec.validate() {
                Err(Error::InvalidSpec { field, reason }) => Some((field, reason)),
                _ => None,
            }
        };
        assert_eq!(refused(3, Some(json!(3))), None);
        assert_eq!(refused(3, Some(json!("c"))), None, "by id");
        let (field, reason) = refused(3, Some(json!(1))).unwrap();
        assert_eq!(field, "protocol.confirm");
        assert!(reason.contains("seats 1 and 2 are the lenses"), "{reason}");
        assert_eq!(refused(3, None), None, "a third seat is the confirmer without being named");
        assert_eq!(refused(2, Some(json!(3))).unwrap().0, "protocol.confirm", "no third seat");
        // The confirmer's one call is within the bound.
        let spec = crate::example_spec("priority-vote", 3, 1).unwrap();
        assert_eq!((DEF.bounds)(&spec).turns, 3);
        let mut unnamed = spec.clone();
        unnamed.protocol.options.remove("confirm");
        assert_eq!((DEF.bounds)(&unnamed).turns, 3, "the third seat confirms unnamed");
        let two = crate::example_spec("priority-vote", 2, 1).unwrap();
        assert_eq!((DEF.bounds)(&two).turns, 2);
    }

    #[test]
    fn a_confirmed_priority_counts_for_both_lenses_and_is_marked() {
        let items: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        // item 1: P0 + P3 = 5, flagged; item 2: P1 + P1 = 6. Confirmed at P0, item 1 scores 8.
        let votes = [ballot(&[0, 1]), ballot(&[3, 1])];
        let before = ranking(&items, &votes, false, &[]);
        assert_eq!(before[0]["item"], 2);
        assert_eq!(confirm::flagged(&before).len(), 1);
        let after = ranking(&items, &votes, false, &[(1, 0)]);
        assert_eq!((after[0]["item"].clone(), after[0]["score"].clone()), (json!(1), json!(8)));
        assert_eq!(after[0]["confirmed"], "P0");
        assert!(after[1].get("confirmed").is_none());
    }

    #[test]
    fn duplicates_are_one_item_whatever_their_case_spacing_and_end_punctuation() {
        let items: Vec<String> =
            ["Fix CI", "hire an SRE", "fix  ci.", "Hire an SRE!", "ship 1.0"].iter().map(|s| s.to_string()).collect();
        let (distinct, duplicates) = deduplicate(&items);
        assert_eq!(distinct, ["Fix CI", "hire an SRE", "ship 1.0"]);
        assert_eq!(duplicates, [(3, 1), (4, 2)]);
    }
}
