//! The claim ledger: what each seat claimed, who attacked or conceded it and
//! in which round, how the judge ruled on what stayed open, and every change
//! of position with the claim or seat that caused it.
//!
//! Seats declare [`lines`]; the engine keeps the books. A claim's id is its
//! seat's letter (the first seat's `A`, the second's `B`, …) and its number:
//! a seat declares `CLAIM C1:` or `CLAIM B1:` (its own letter) and the ledger
//! names it `B1`; a seat cannot raise a claim under another seat's letter,
//! attack or concede a claim not yet raised, or rule on one (only the judge's
//! `RULING` lines are read). A megabyte of `CLAIM` lines is bounded: a seat
//! keeps at most [`MAX_CLAIMS_PER_SEAT`] claims over the debate, a turn at
//! most [`MAX_ACTS_PER_TURN`] attacks and concessions, a text at most
//! [`TEXT_CHARS`] characters; what is refused is listed with why (at most
//! [`MAX_REFUSED_PER_TURN`] lines a turn).
//!
//! A claim stands in one of three ways, and only an open one is ruled on
//! ([`Standing`]): a conceded claim cannot carry a ruling. A seat whose
//! position changes between rounds must give a `BECAUSE` naming a claim or
//! another seat (or concede another seat's claim in that turn); a change
//! without one is unexplained, and an agreement any seat reached through one
//! is [negotiated](AgreementKind::Negotiated), not independent.
//!
//! The types serialize into the transcript; they deserialize only under the
//! `testing` feature (the renderer reads the JSON field by field: a derived
//! reader would cost the component more).

pub(crate) mod aggregate;
pub mod lines;
mod render;
#[cfg(test)]
mod tests;

#[cfg(feature = "testing")]
use serde::Deserialize;
use serde::Serialize;

pub use crate::citation::SeatName;
pub use lines::{Line, TEXT_CHARS};
pub(crate) use render::render;

/// The most claims one seat keeps over a whole debate.
pub const MAX_CLAIMS_PER_SEAT: usize = 12;
/// The most attacks and concessions one turn makes.
pub const MAX_ACTS_PER_TURN: usize = 24;
/// The most refused lines one turn lists (the rest are not listed).
pub const MAX_REFUSED_PER_TURN: usize = 8;
/// The transcript result the shipped protocol records the ledger in.
pub const LEDGER_RESULT: &str = "ledger";
/// A ledger is claims and what became of them.
pub(crate) const KIND: crate::ResultKind = crate::ResultKind::Findings;

/// The ledger as the transcript keeps it (result `ledger`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
pub struct Ledger {
    /// Every claim, in the order raised.
    pub claims: Vec<Claim>,
    /// Every change of position between a seat's rounds, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flips: Vec<Flip>,
    /// The position every seat ended on, when they all ended on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<Agreement>,
    /// Declared lines the ledger did not take, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<Refused>,
}

/// One claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
pub struct Claim {
    /// The seat's letter and the claim's number: `B1`.
    pub id: String,
    /// The seat that raised it.
    pub seat: String,
    pub round: u32,
    pub text: String,
    /// Every attack made on it, in order (an attacker that later conceded among them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attacks: Vec<Act>,
    pub standing: Standing,
}

/// A seat's attack on, or concession of, a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
pub struct Act {
    pub seat: String,
    pub round: u32,
    pub why: String,
}

/// Where a claim stands at the end. Only an open claim (unanswered or
/// attacked) is ruled on, so a conceded claim with a ruling cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum Standing {
    /// No other seat attacked or conceded it.
    Unanswered { ruling: Ruling },
    /// At least one seat's last word on it is an attack.
    Attacked { ruling: Ruling },
    /// Its raiser withdrew it (`by` is the raiser), or every seat that
    /// answered it conceded it.
    Conceded { by: Vec<Act> },
}

impl Standing {
    pub fn is_open(&self) -> bool {
        !matches!(self, Standing::Conceded { .. })
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Standing::Unanswered { .. } => "unanswered",
            Standing::Attacked { .. } => "attacked",
            Standing::Conceded { .. } => "conceded",
        }
    }
}

/// The judge's ruling on an open claim.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Ruling {
    /// The judge gave none (or there is no judge): shown, never dropped.
    #[default]
    Unruled,
    Upheld {
        why: String,
    },
    Rejected {
        why: String,
    },
}

/// A seat's position changing between two of its rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
pub struct Flip {
    pub seat: String,
    /// The round whose turn changed it.
    pub round: u32,
    pub from: String,
    pub to: String,
    pub because: Because,
}

/// What a change of position cites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
#[serde(tag = "cites", rename_all = "kebab-case")]
pub enum Because {
    /// Another seat's claim, by id.
    Claim { id: String },
    /// Another seat, by id.
    Seat { seat: String },
    /// Nothing: the change is flagged.
    Unexplained,
}

/// The position every seat with one ended on, and how it was reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
pub struct Agreement {
    pub position: String,
    pub kind: AgreementKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
#[serde(rename_all = "kebab-case")]
pub enum AgreementKind {
    /// Every seat held it from its first stated position.
    Independent,
    /// Seats came round to it, each change citing a claim or a seat.
    Persuaded,
    /// A seat came round to it without citing anything.
    Negotiated,
}

/// A declared line the ledger did not take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "testing", derive(Deserialize))]
pub struct Refused {
    pub seat: String,
    pub round: u32,
    pub line: String,
    pub why: String,
}

/// One counted turn, as the ledger reads it.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The seat's position in the panel.
    pub seat: usize,
    pub round: u32,
    pub text: &'a str,
    /// Its answer, when the debate reads answers: it stands for a `POSITION:` line.
    pub answer: Option<&'a str>,
}

/// A seat's letter: `A` for the first, … `Z`, then `AA`, `AB`, ….
pub fn letter(seat: usize) -> String {
    crate::prompt_kit::letter(seat)
}

/// The claim id a seat's `CLAIM` line names: `C<n>` or its own letter's, else none (another seat's letter).
fn own_claim_id(seat: usize, written: &str) -> Option<String> {
    let own = letter(seat);
    let digits = written.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &written[..written.len() - digits.len()];
    (prefix == own || prefix == "C").then(|| format!("{own}{digits}"))
}

/// A seat's last word on a claim.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Attack,
    Concede,
}

/// The ledger of `turns` (in speaking order), with the judge's `ruling`
/// text when it answered.
pub fn build(seats: &[SeatName], turns: &[Turn], ruling: Option<&str>) -> Ledger {
    let mut ledger = Ledger::default();
    // Per claim: each seat's acts, in order, with the last word of each.
    let mut words: Vec<Vec<(usize, Word)>> = Vec::new();
    let mut concessions: Vec<Vec<(usize, Act)>> = Vec::new();
    let mut last: Vec<Option<(u32, String)>> = vec![None; seats.len()];
    for turn in turns {
        let seat = seats[turn.seat].id;
        let mut refused = 0;
        let mut refuse = |line: &str, why: &str| {
            refused += 1;
            if refused > MAX_REFUSED_PER_TURN {
                return;
            }
            ledger.refused.push(Refused {
                seat: seat.to_string(),
                round: turn.round,
                line: line.to_string(),
                why: why.to_string(),
            })
        };
        let (mut acts, mut because, mut position) = (0, None, turn.answer.map(normal));
        for line in lines::read(turn.text) {
            match line {
                Line::Claim { id, text } => {
                    let Some(id) = own_claim_id(turn.seat, &id) else {
                        refuse(&id, "a claim under another seat's letter");
                        continue;
                    };
                    if ledger.claims.iter().any(|c| c.id == id) {
                        continue; // Restated: the first wording stands.
                    }
                    if ledger.claims.iter().filter(|c| c.seat == seat).count() >= MAX_CLAIMS_PER_SEAT {
                        refuse(&id, "over the claims a seat may raise");
                        continue;
                    }
                    ledger.claims.push(Claim {
                        id,
                        seat: seat.to_string(),
                        round: turn.round,
                        text,
                        attacks: Vec::new(),
                        standing: Standing::Unanswered { ruling: Ruling::Unruled },
                    });
                    words.push(Vec::new());
                    concessions.push(Vec::new());
                }
                Line::Attack { id, .. } | Line::Concede { id, .. } if acts >= MAX_ACTS_PER_TURN => {
                    refuse(&id, "over the attacks and concessions a turn may make");
                }
                Line::Attack { id, why } => {
                    let Some(k) = ledger.claims.iter().position(|c| c.id == id) else {
                        refuse(&id, "no such claim");
                        continue;
                    };
                    if ledger.claims[k].seat == seat {
                        refuse(&id, "a seat's attack on its own claim");
                        continue;
                    }
                    acts += 1;
                    ledger.claims[k].attacks.push(Act { seat: seat.to_string(), round: turn.round, why });
                    words[k].push((turn.seat, Word::Attack));
                }
                Line::Concede { id, why } => {
                    let Some(k) = ledger.claims.iter().position(|c| c.id == id) else {
                        refuse(&id, "no such claim");
                        continue;
                    };
                    acts += 1;
                    if ledger.claims[k].seat != seat && because.is_none() {
                        because = Some(Because::Claim { id: id.clone() });
                    }
                    words[k].push((turn.seat, Word::Concede));
                    concessions[k].push((turn.seat, Act { seat: seat.to_string(), round: turn.round, why }));
                }
                Line::Because { cites, .. } => {
                    let as_claim = lines::claim_id(&cites)
                        .filter(|id| ledger.claims.iter().any(|c| &c.id == id && c.seat != seat));
                    let cited = match as_claim {
                        Some(id) => Some(Because::Claim { id }),
                        None => crate::citation::cited_seat(seats, seat, &cites)
                            .map(|s| Because::Seat { seat: s.to_string() }),
                    };
                    // A BECAUSE that names nothing real explains nothing; the first real one counts.
                    if let (Some(c), None) = (cited, &because) {
                        because = Some(c);
                    }
                }
                Line::Position(p) => {
                    if position.is_none() {
                        position = Some(normal(&p));
                    }
                }
                Line::Ruling { .. } => {} // A seat does not rule.
            }
        }
        let Some(now) = position else { continue };
        if let Some((_, before)) = &last[turn.seat]
            && *before != now
        {
            ledger.flips.push(Flip {
                seat: seat.to_string(),
                round: turn.round,
                from: before.clone(),
                to: now.clone(),
                because: because.unwrap_or(Because::Unexplained),
            });
        }
        last[turn.seat] = Some((turn.round, now));
    }
    for (k, claim) in ledger.claims.iter_mut().enumerate() {
        claim.standing = standing(claim, seats, &words[k], &concessions[k]);
    }
    if let Some(text) = ruling {
        rule(&mut ledger, text);
    }
    ledger.agreement = agreement(&ledger.flips, &last);
    ledger
}

/// Where a claim stands, from each seat's last word on it.
fn standing(claim: &Claim, seats: &[SeatName], words: &[(usize, Word)], conceded: &[(usize, Act)]) -> Standing {
    let raiser = seats.iter().position(|s| s.id == claim.seat).expect("a panel seat");
    let last_word = |seat: usize| words.iter().rev().find(|(s, _)| *s == seat).map(|(_, w)| *w);
    if last_word(raiser) == Some(Word::Concede) {
        let by = conceded.iter().rev().find(|(s, _)| *s == raiser).map(|(_, a)| a.clone());
        return Standing::Conceded { by: by.into_iter().collect() };
    }
    let others = || (0..seats.len()).filter(|&s| s != raiser);
    if others().any(|s| last_word(s) == Some(Word::Attack)) {
        return Standing::Attacked { ruling: Ruling::Unruled };
    }
    // Each conceding seat's last concession.
    let by: Vec<Act> = others()
        .filter(|&s| last_word(s) == Some(Word::Concede))
        .filter_map(|s| conceded.iter().rev().find(|(t, _)| *t == s).map(|(_, a)| a.clone()))
        .collect();
    match by.is_empty() {
        true => Standing::Unanswered { ruling: Ruling::Unruled },
        false => Standing::Conceded { by },
    }
}

/// Read the judge's rulings onto the open claims; the first ruling on a claim counts.
fn rule(ledger: &mut Ledger, text: &str) {
    let mut ruled: Vec<String> = Vec::new();
    for line in lines::read(text) {
        let Line::Ruling { id, upheld, why } = line else { continue };
        if ruled.contains(&id) {
            continue;
        }
        let Some(claim) = ledger.claims.iter_mut().find(|c| c.id == id) else { continue };
        let (Standing::Unanswered { ruling } | Standing::Attacked { ruling }) = &mut claim.standing else { continue };
        *ruling = if upheld { Ruling::Upheld { why } } else { Ruling::Rejected { why } };
        ruled.push(id);
    }
}

/// The agreement, when every seat with a position ended on the same one (two seats at least).
fn agreement(flips: &[Flip], last: &[Option<(u32, String)>]) -> Option<Agreement> {
    let ends: Vec<&String> = last.iter().flatten().map(|(_, p)| p).collect();
    let position = (*ends.first()?).clone();
    if ends.len() < 2 || ends.iter().any(|p| **p != position) {
        return None;
    }
    let kind = if flips.iter().any(|f| f.because == Because::Unexplained) {
        AgreementKind::Negotiated
    } else if flips.is_empty() {
        AgreementKind::Independent
    } else {
        AgreementKind::Persuaded
    };
    Some(Agreement { position, kind })
}

/// A position as two are compared: lower case, words only.
fn normal(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ").to_lowercase()
}
