//! Consensus: each counted seat's stance, and the rule that turns stances
//! into a decision to stop.
//!
//! How a stance is read is the spec's choice ([`ConsensusMode`]); how many
//! stances are enough is the protocol's ([`Rule`]). Every check is recorded
//! whole: each counted seat with its verdict, the evidence and its source, the
//! rule in one line, and — in judge mode — the judge's word.

pub(crate) mod confirm;
mod positions;

use serde::{Deserialize, Serialize};

use crate::answer;
use crate::stance::{self, Evidence, Source, Verdict};

pub use positions::Conflict;

/// How agreement is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConsensusMode {
    /// The free-text reader alone; prompts ask for nothing extra.
    Read,
    /// Every counted seat closes with a `VOTE:` line, which decides its stance;
    /// the reader vetoes a SAME the body contradicts, and reads replies without a line.
    #[default]
    Declared,
    /// As `declared`, and when the panel seems to have converged, the judge's
    /// model is asked to confirm before the debate stops (one extra call).
    Judge,
    /// Every counted seat closes with an `ANSWER:` line; the answers are
    /// normalised and compared, and the same answer is agreement. For
    /// questions with a checkable answer: a number, an option, yes or no.
    Answer,
}

impl ConsensusMode {
    /// Every mode, in the order the docs list them.
    pub const ALL: [ConsensusMode; 4] =
        [ConsensusMode::Read, ConsensusMode::Declared, ConsensusMode::Judge, ConsensusMode::Answer];

    pub fn as_str(self) -> &'static str {
        match self {
            ConsensusMode::Read => "read",
            ConsensusMode::Declared => "declared",
            ConsensusMode::Judge => "judge",
            ConsensusMode::Answer => "answer",
        }
    }

    /// Whether prompts ask counted seats for the `VOTE:` line.
    pub fn asks_for_vote(self) -> bool {
        matches!(self, ConsensusMode::Declared | ConsensusMode::Judge)
    }

    /// Whether prompts ask counted seats for the `ANSWER:` line.
    pub fn asks_for_answer(self) -> bool {
        self == ConsensusMode::Answer
    }

    pub(crate) fn is_default(&self) -> bool {
        *self == ConsensusMode::default()
    }
}

/// What a counted seat is asked to close its turn with, in this mode: a
/// plain statement of where it stands (read), or the `VOTE:` line. The same
/// words go to every counted seat, every round, whatever it said before, and
/// none of them is a word the reader counts.
pub(crate) fn closing(mode: ConsensusMode) -> String {
    if mode.asks_for_answer() {
        format!("\n\n{}", answer::INSTRUCTION)
    } else if mode.asks_for_vote() {
        format!("\n\n{}", stance::DECLARED_LINE)
    } else {
        "\n\nClose by saying plainly where you now stand relative to the other speakers, \
         and what, if anything, still divides you."
            .to_string()
    }
}

/// How many agreeing seats are enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// Seed 000's "all but one", read strictly: at least two counted seats
    /// agree, at most one is silent or unclear, and none dissents.
    AllButOne,
    /// Seed 002's stand-down: every counted seat agrees (at least two).
    All,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::AllButOne => {
                "at least 2 counted seats agree, at most 1 is silent or unclear, \
                 and none disagrees, agrees in part or agrees on a condition"
            }
            Rule::All => "every counted seat agrees, and there are at least 2",
        }
    }

    /// The same rule, in answer mode's words.
    pub fn describe_answers(self) -> &'static str {
        match self {
            Rule::AllButOne => {
                "at least 2 counted seats give the same answer, at most 1 gives none that can be read, \
                 and none gives a different one"
            }
            Rule::All => "every counted seat gives the same readable answer, and there are at least 2",
        }
    }

    fn reached(self, verdicts: &[Verdict]) -> bool {
        let agreeing = verdicts.iter().filter(|v| v.counts()).count();
        let dissent = verdicts.iter().any(|v| v.dissents());
        match self {
            Rule::AllButOne => !dissent && agreeing >= 2 && agreeing + 1 >= verdicts.len(),
            Rule::All => agreeing >= 2 && agreeing == verdicts.len(),
        }
    }
}

/// One counted seat's stance in a check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatStance {
    pub seat: String,
    pub verdict: Verdict,
    /// What decided the verdict: the seat's `VOTE:` line, the reader, or the judge.
    pub source: Source,
    /// What the seat's `VOTE:` line said, when it had a valid one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<Verdict>,
    /// The position the `VOTE:` line stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// The words that decided the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// The seat's final answer, normalised (answer mode; absent when it gave none that could be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Why the seat's reply could not count, whatever it says (cut at its token limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_counted: Option<answer::Uncounted>,
}

/// One counted seat's reply in a check.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reply<'a> {
    pub seat: &'a str,
    pub text: &'a str,
    /// Cut at its token limit: never agreement, never an answer.
    pub cut: bool,
}

/// The judge's answer to "has the panel converged?" (judge mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeReview {
    /// The judge confirmed that the counted seats hold one position.
    pub confirmed: bool,
    /// The shared position, as the judge put it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
    /// Seats the judge found still holding out, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub holdouts: Vec<Holdout>,
    /// False when the judge's reply could not be read (or the call failed): then not confirmed.
    pub readable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holdout {
    pub seat: String,
    pub why: String,
}

/// The result of one convergence check, as events and transcripts record it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsensusCheck {
    pub round: u32,
    /// Whether the debate stops here on consensus.
    pub reached: bool,
    /// Why, in one sentence.
    pub reason: String,
    pub mode: ConsensusMode,
    /// The rule that turns stances into consensus, in one line.
    pub rule: String,
    /// Every counted seat, in panel order, with its verdict and evidence.
    pub seats: Vec<SeatStance>,
    /// The seats whose verdict counts as agreement.
    pub agreeing: Vec<String>,
    /// The seat left out because it held the adversarial role.
    #[serde(default)]
    pub excluded: Option<String>,
    /// The judge's confirmation, when it was asked (judge mode, and the reading said converged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeReview>,
    /// Agreeing seats whose stated positions contradict each other: then no consensus.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
}

impl ConsensusCheck {
    /// The reader saw agreement, and the judge did not confirm it.
    pub fn overruled(&self) -> bool {
        self.judge.as_ref().is_some_and(|j| !j.confirmed)
    }
}

/// Read every `(seat id, reply)` pair and apply `rule`. `answers` says how
/// answers are read (answer mode, and positions that are answers).
pub(crate) fn evaluate(
    round: u32,
    replies: &[Reply],
    excluded: Option<&str>,
    mode: ConsensusMode,
    rule: Rule,
    answers: &answer::Rules,
) -> ConsensusCheck {
    let seats = if mode.asks_for_answer() { read_answers(replies, answers) } else { stances(replies, mode) };
    let verdicts: Vec<Verdict> = seats.iter().map(|s| s.verdict).collect();
    // Two agreeing seats whose own positions contradict each other hold no one position.
    let mut conflicts = if mode.asks_for_answer() { Vec::new() } else { positions::conflicts(&seats, answers.names()) };
    if !mode.asks_for_answer() && answers.kind().is_some() {
        conflicts.extend(answer_conflicts(replies, &seats, answers));
    }
    let reached = rule.reached(&verdicts) && conflicts.is_empty();
    let mut reason = if mode.asks_for_answer() { answer_tally(&seats) } else { tally(&seats) };
    for c in &conflicts {
        reason.push_str(&format!("; {} and {} state contradicting positions ({})", c.seats[0], c.seats[1], c.why));
    }
    if !reached && !seats.is_empty() {
        reason.push_str("; not enough for consensus");
    }
    ConsensusCheck {
        round,
        reached,
        reason,
        mode,
        rule: if mode.asks_for_answer() { rule.describe_answers() } else { rule.describe() }.to_string(),
        agreeing: seats.iter().filter(|s| s.verdict.counts()).map(|s| s.seat.clone()).collect(),
        seats,
        excluded: excluded.map(str::to_string),
        judge: None,
        conflicts,
    }
}

/// With a checkable answer, agreement in prose is checked against the
/// answers: a seat that concedes ("this aligns with the other agents'
/// calculation") while its own answer differs from another seat's holds no
/// shared position.
fn answer_conflicts(replies: &[Reply], seats: &[SeatStance], rules: &answer::Rules) -> Vec<Conflict> {
    let given: Vec<Option<String>> =
        replies.iter().map(|r| rules.take(r.text, r.cut).answer().map(str::to_string)).collect();
    let mut out = Vec::new();
    for (i, seat) in seats.iter().enumerate() {
        let Some(mine) = given[i].as_deref().filter(|_| seat.verdict.counts()) else { continue };
        for (j, other) in seats.iter().enumerate() {
            let Some(theirs) = given[j].as_deref() else { continue };
            // Each pair once: an agreeing seat with any seat after it, or with a non-agreeing one before.
            if j == i || (j < i && other.verdict.counts()) || theirs == mine {
                continue;
            }
            let (a, b) = if i < j { (seat, other) } else { (other, seat) };
            let (x, y) = if i < j { (mine, theirs) } else { (theirs, mine) };
            out.push(Conflict {
                seats: vec![a.seat.clone(), b.seat.clone()],
                why: format!("the answers {x} and {y} differ"),
            });
        }
    }
    out
}

fn stances(replies: &[Reply], mode: ConsensusMode) -> Vec<SeatStance> {
    replies
        .iter()
        .map(|reply| {
            if reply.cut {
                return cut(reply.seat, Source::Read);
            }
            let r = stance::read(reply.text, mode.asks_for_vote());
            SeatStance {
                seat: reply.seat.to_string(),
                verdict: r.verdict,
                source: r.source,
                declared: r.declared,
                position: r.position,
                evidence: r.evidence,
                answer: None,
                not_counted: None,
            }
        })
        .collect()
}

/// A reply cut at its token limit: whatever it said is unfinished, so it is unclear.
fn cut(seat: &str, source: Source) -> SeatStance {
    SeatStance {
        seat: seat.to_string(),
        verdict: Verdict::Unclear,
        source,
        declared: None,
        position: None,
        evidence: Some(Evidence::said(answer::Uncounted::Cut.as_str())),
        answer: None,
        not_counted: Some(answer::Uncounted::Cut),
    }
}

/// Answer mode: a seat agrees when its answer is readable and every other
/// readable answer is the same; a line that cannot be read is unclear, no
/// line is silent, and an answer that differs from another disagrees.
fn read_answers(replies: &[Reply], rules: &answer::Rules) -> Vec<SeatStance> {
    use answer::Taken;
    // The reader the vote and evaluations use: a line, a box, or (when the
    // kind is known) the closing words.
    let taken: Vec<Taken> = replies.iter().map(|r| rules.take(r.text, r.cut)).collect();
    let mut distinct: Vec<&str> = taken.iter().filter_map(Taken::answer).collect();
    crate::order::sort(&mut distinct);
    distinct.dedup();
    replies
        .iter()
        .zip(&taken)
        .map(|(reply, t)| {
            let verdict = match t {
                Taken::NotCounted(_) => return cut(reply.seat, Source::Answer),
                Taken::Absent => Verdict::Silent,
                Taken::Unreadable { .. } => Verdict::Unclear,
                Taken::Given { .. } if distinct.len() == 1 => Verdict::Agrees,
                Taken::Given { .. } => Verdict::Disagrees,
            };
            let span = match t {
                Taken::Given { span, .. } | Taken::Unreadable { span } => *span,
                _ => None,
            };
            SeatStance {
                seat: reply.seat.to_string(),
                verdict,
                source: Source::Answer,
                declared: None,
                position: None,
                evidence: span.map(|s| Evidence::of(reply.text, s)),
                answer: t.answer().map(str::to_string),
                not_counted: None,
            }
        })
        .collect()
}

/// "a", "a and b", "a, b and c".
fn names(who: &[&str]) -> String {
    match who {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "a and b answer 18; c answers 20; d gives no answer".
fn answer_tally(seats: &[SeatStance]) -> String {
    if seats.is_empty() {
        return "no replies to read".to_string();
    }
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    let (mut silent, mut unreadable) = (Vec::new(), Vec::new());
    for s in seats {
        match (&s.answer, s.verdict) {
            (Some(a), _) => match groups.iter_mut().find(|(g, _)| g == a) {
                Some((_, who)) => who.push(&s.seat),
                None => groups.push((a, vec![&s.seat])),
            },
            (None, Verdict::Unclear) => unreadable.push(s.seat.as_str()),
            (None, _) => silent.push(s.seat.as_str()),
        }
    }
    let mut parts: Vec<String> = groups
        .iter()
        .map(|(a, who)| format!("{} {} {a}", names(who), if who.len() == 1 { "answers" } else { "answer" }))
        .collect();
    if !unreadable.is_empty() {
        parts.push(format!("{} gave an answer that cannot be read", names(&unreadable)));
    }
    if !silent.is_empty() {
        parts.push(format!("{} gave no ANSWER line", names(&silent)));
    }
    parts.join("; ")
}

/// "2 of 3 counted seats agree; c agrees in part" — the verdicts in one sentence.
fn tally(seats: &[SeatStance]) -> String {
    if seats.is_empty() {
        return "no replies to read".to_string();
    }
    let agreeing = seats.iter().filter(|s| s.verdict.counts()).count();
    let others: Vec<String> =
        seats.iter().filter(|s| !s.verdict.counts()).map(|s| format!("{} {}", s.seat, s.verdict.as_str())).collect();
    let mut reason = format!("{agreeing} of {} counted seats agree", seats.len());
    if !others.is_empty() {
        reason.push_str(&format!("; {}", others.join(", ")));
    }
    reason
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(replies: &[(&str, &str)], mode: ConsensusMode, rule: Rule) -> ConsensusCheck {
        let replies: Vec<Reply> = replies.iter().map(|&(seat, text)| Reply { seat, text, cut: false }).collect();
        evaluate(1, &replies, Some("d"), mode, rule, &answer::Rules::new(None, vec![]))
    }

    #[test]
    fn all_but_one_needs_two_agreeing_and_no_dissent() {
        use ConsensusMode::Read;
        let c = check(&[("a", "I agree."), ("b", "CONSENSUS: ship it"), ("c", "Hmm.")], Read, Rule::AllButOne);
        assert!(c.reached, "{c:?}");
        assert_eq!(c.agreeing, vec!["a", "b"]);
        assert_eq!(c.excluded.as_deref(), Some("d"));
        // An active dissent blocks, whatever the count.
        assert!(
            !check(&[("a", "I agree."), ("b", "I agree."), ("c", "I partly agree.")], Read, Rule::AllButOne).reached
        );
        // Two silent seats are too many.
        assert!(!check(&[("a", "I agree."), ("b", "Hmm."), ("c", "Well.")], Read, Rule::AllButOne).reached);
        // One agreeing seat of two counted is not consensus (seed 000's threshold allowed it).
        assert!(
            !check(&[("a", "I agree with Speaker 2 that cost matters."), ("b", "Hmm.")], Read, Rule::AllButOne).reached
        );
        assert!(!check(&[], Read, Rule::AllButOne).reached);
    }

    #[test]
    fn a_concession_whose_own_answer_differs_is_no_consensus() {
        let rules =
            answer::Rules::new(Some(&answer::AnswerSpec { kind: Some(answer::Kind::Number), choices: vec![] }), vec![]);
        let replies = [
            Reply { seat: "a", text: "I agree with the other agents.\nANSWER: 50", cut: false },
            Reply {
                seat: "b",
                text: "This aligns with the accurate calculation provided by other agents.\nANSWER: 48",
                cut: false,
            },
            Reply { seat: "c", text: "I agree with the others.\nANSWER: 50", cut: false },
        ];
        let c = evaluate(1, &replies, None, ConsensusMode::Read, Rule::AllButOne, &rules);
        assert!(!c.reached, "{c:#?}");
        assert!(c.conflicts.iter().any(|k| k.seats == ["a", "b"] && k.why.contains("48")), "{:#?}", c.conflicts);
        // The same words with the same answer are consensus.
        let replies = [
            replies[0],
            Reply {
                text: "This aligns with the accurate calculation provided by other agents.\nANSWER: 50",
                ..replies[1]
            },
            replies[2],
        ];
        assert!(evaluate(1, &replies, None, ConsensusMode::Read, Rule::AllButOne, &rules).reached);
    }

    #[test]
    fn the_protocol_option_offers_every_mode() {
        let crate::protocol::definition::OptionKind::Choice(names) = crate::protocol::definition::CONSENSUS_OPTION.kind
        else {
            panic!("consensus is a choice")
        };
        assert_eq!(names, ConsensusMode::ALL.map(ConsensusMode::as_str));
    }

    #[test]
    fn all_needs_every_seat() {
        let replies = [("a", "VOTE: SAME — ship"), ("b", "Silent.")];
        assert!(!check(&replies, ConsensusMode::Declared, Rule::All).reached);
        let replies = [("a", "VOTE: SAME — ship"), ("b", "vote: same — ship")];
        assert!(check(&replies, ConsensusMode::Declared, Rule::All).reached);
    }

    #[test]
    fn the_record_names_each_seat_with_its_verdict_source_and_evidence() {
        let replies = [("a", "VOTE: SAME — ship"), ("b", "I would agree only if tests pass.")];
        let c = check(&replies, ConsensusMode::Declared, Rule::AllButOne);
        assert_eq!(c.seats[0].source, Source::Declared);
        assert_eq!(c.seats[1].verdict, Verdict::Conditional);
        assert_eq!(c.seats[1].source, Source::Read);
        assert_eq!(c.seats[1].evidence.as_ref().unwrap().quote, "I would agree only if tests pass");
        assert_eq!(c.reason, "1 of 2 counted seats agree; b agrees on a condition; not enough for consensus");
    }
}
