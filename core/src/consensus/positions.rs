//! Two seats that both declare SAME have not agreed if the positions they
//! state contradict each other. Checked before a consensus is declared; the
//! check is deliberately narrow — it only ever keeps a debate going.
//!
//! Two positions contradict when
//! - both give a checkable answer (an option, yes or no, a number, a named
//!   option) and the answers differ; or
//! - they say the same thing, word for word in what matters, and one of them
//!   denies it ("ship the pilot now" / "do not ship the pilot now").

use serde::{Deserialize, Serialize};

use super::SeatStance;
use crate::answer;

/// Two agreeing seats whose stated positions contradict each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// The two seats, in panel order.
    pub seats: Vec<String>,
    /// Why, in a few words.
    pub why: String,
}

/// Every contradicting pair among the agreeing seats that stated a position.
pub(crate) fn conflicts(seats: &[SeatStance], options: &[String]) -> Vec<Conflict> {
    let stated: Vec<(&str, &str)> = seats
        .iter()
        .filter(|s| s.verdict.counts())
        .filter_map(|s| s.position.as_deref().map(|p| (s.seat.as_str(), p)))
        .collect();
    let mut out = Vec::new();
    for (i, (a, pa)) in stated.iter().enumerate() {
        for (b, pb) in &stated[i + 1..] {
            if let Some(why) = contradiction(pa, pb, options) {
                out.push(Conflict { seats: vec![a.to_string(), b.to_string()], why });
            }
        }
    }
    out
}

fn contradiction(a: &str, b: &str, options: &[String]) -> Option<String> {
    if let (Some(x), Some(y)) = (checkable(a, options), checkable(b, options))
        && x != y
    {
        return Some(format!("the answers {x} and {y} differ"));
    }
    let (ca, na) = content(a);
    let (cb, nb) = content(b);
    if na == nb || ca.is_empty() || cb.is_empty() {
        return None;
    }
    let shared = ca.iter().filter(|w| cb.contains(w)).count();
    let smaller = ca.len().min(cb.len());
    // What one affirms, the other denies: the same content words, one polarity each.
    (shared == smaller && smaller >= 1 && shared * 2 >= ca.len().max(cb.len()))
        .then(|| "one denies what the other affirms".to_string())
}

/// A short position that is one checkable answer: an option, yes/no, a
/// named option, or a number standing (almost) alone.
fn checkable(position: &str, options: &[String]) -> Option<String> {
    let words = position.split_whitespace().count();
    let normal = answer::normalise(position, options)?;
    let is_letter = normal.len() == 1 && normal.chars().all(|c| c.is_ascii_uppercase());
    // "No, keep it" is an answer; "No rush: ship in phases" is not.
    let lead = position.trim_start().trim_start_matches(['*', '_']).to_ascii_lowercase();
    let is_yes_no = (normal == "yes" || normal == "no")
        && lead[normal.len().min(lead.len())..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != ' ');
    let is_named = options.iter().any(|o| o.trim() == normal);
    let is_number = words <= 3 && normal.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '-');
    (is_letter || is_yes_no || is_named || is_number).then_some(normal)
}

/// The position's content words (lower case, without function words and
/// negations), and whether it is negated.
fn content(position: &str) -> (Vec<String>, bool) {
    let mut words = Vec::new();
    let mut negated = false;
    for w in position.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')) {
        let w = w.to_ascii_lowercase().replace('’', "'");
        if w.is_empty() {
            continue;
        }
        if NEGATIONS.contains(&w.as_str()) || w.ends_with("n't") {
            negated = !negated;
            continue;
        }
        if !FUNCTION_WORDS.contains(&w.as_str()) && !words.contains(&w) {
            words.push(w);
        }
    }
    (words, negated)
}

const NEGATIONS: &[&str] = &["not", "no", "never", "cannot", "against", "nor"];

const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "with", "and", "it", "we", "i", "is", "be", "should",
    "would", "will", "must", "do", "does", "now", "first", "this", "that", "as", "by", "our", "its",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stance::{Source, Verdict};

    fn seat(id: &str, position: &str) -> SeatStance {
        SeatStance {
            seat: id.into(),
            verdict: Verdict::Agrees,
            source: Source::Declared,
            declared: Some(Verdict::Agrees),
            position: Some(position.into()),
            evidence: None,
            answer: None,
            not_counted: None,
        }
    }

    #[test]
    fn a_denial_of_the_same_position_conflicts() {
        let c = conflicts(&[seat("a", "ship the pilot now."), seat("b", "do not ship the pilot.")], &[]);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].seats, vec!["a", "b"]);
        assert_eq!(c[0].why, "one denies what the other affirms");
        let c = conflicts(&[seat("a", "We shouldn't migrate yet"), seat("b", "migrate yet")], &[]);
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn different_checkable_answers_conflict() {
        let c = conflicts(&[seat("a", "B"), seat("b", "(C)")], &[]);
        assert_eq!(c[0].why, "the answers B and C differ");
        assert_eq!(conflicts(&[seat("a", "Yes."), seat("b", "no")], &[]).len(), 1);
        assert!(conflicts(&[seat("a", "Yes, in phases"), seat("b", "No rush: ship in phases")], &[]).is_empty());
        assert_eq!(conflicts(&[seat("a", "18"), seat("b", "$18.00")], &[]).len(), 0);
        let options = vec!["PostgreSQL".to_string(), "DynamoDB".to_string()];
        assert_eq!(conflicts(&[seat("a", "PostgreSQL"), seat("b", "DynamoDB, on demand")], &options).len(), 1);
    }

    #[test]
    fn paraphrases_and_different_topics_do_not_conflict() {
        for (a, b) in [
            ("phase the rollout", "roll out in phases, busiest corridors first"),
            ("ship the pilot now", "ship the pilot now, with the tests"),
            ("ship the pilot now", "we should ship the pilot"),
            ("keep the monolith", "do not split services before the audit"),
            ("phase the rollout over 3 months", "phase it, review in 6 weeks"),
        ] {
            assert!(conflicts(&[seat("a", a), seat("b", b)], &[]).is_empty(), "{a} / {b}");
        }
    }

    #[test]
    fn only_agreeing_seats_with_positions_are_compared() {
        let mut b = seat("b", "do not ship the pilot");
        b.verdict = Verdict::Disagrees;
        assert!(conflicts(&[seat("a", "ship the pilot"), b], &[]).is_empty());
    }
}
