//! Where a seat stands: a verdict read from its reply, with the evidence.
//!
//! A reply is read in three steps:
//!
//! 1. **Own words.** Everything the reply attributes to someone else — code,
//!    quotations, block quotes, speaker-labelled lines, reported speech — is
//!    blanked (`own_words.rs`). It counts for nothing, whoever it claims to be.
//! 2. **The declared line**, when the protocol asked for one: `VOTE: SAME |
//!    PARTLY | DIFFERENT — position` (`declared.rs`). A valid line decides the
//!    verdict, except that disagreement stated in the body vetoes a declared
//!    SAME, and a SAME whose position sets a condition, limits itself or
//!    dissents in the first person is read as that (conditional, in part,
//!    disagrees).
//! 3. **The free-text reader** otherwise (`reader.rs`): clause-level, and
//!    conservative — when unsure, a reply does not count as agreeing. Its
//!    phrases are a table (`patterns.rs`) and its words lists (`lexicon.rs`).
//!
//! Only [`Verdict::Agrees`] ever counts towards consensus.

mod declared;
mod lexicon;
pub(crate) mod own_words;
mod patterns;
mod reader;
mod tokens;

use serde::{Deserialize, Serialize};

pub(crate) use declared::INSTRUCTION as DECLARED_LINE;

/// What one reply says about agreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The speaker holds the shared position, without limit or condition.
    Agrees,
    /// Agreement on part of it, hedged, or with a reservation.
    AgreesInPart,
    /// Agreement only under a condition, or for now.
    Conditional,
    /// The speaker holds a different position.
    Disagrees,
    /// Nothing either way.
    Silent,
    /// Agreement mentioned but not held (asked about, considered, past), or a line that could not be read.
    Unclear,
}

impl Verdict {
    /// Only plain agreement counts towards consensus.
    pub fn counts(self) -> bool {
        self == Verdict::Agrees
    }

    /// An active dissent: disagreement, or agreement that is partial or conditional.
    pub fn dissents(self) -> bool {
        matches!(self, Verdict::Disagrees | Verdict::AgreesInPart | Verdict::Conditional)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::AgreesInPart => "agrees in part",
            Verdict::Conditional => "agrees on a condition",
            Verdict::Disagrees => "disagrees",
            Verdict::Silent => "silent",
            Verdict::Unclear => "unclear",
        }
    }
}

/// What decided a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The seat's own `VOTE:` line.
    Declared,
    /// The free-text reader.
    Read,
    /// The judge's confirmation (judge mode).
    Judge,
    /// The seat's `ANSWER:` line, compared with the others' (answer mode).
    Answer,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Declared => "declared",
            Source::Read => "read",
            Source::Judge => "judge",
            Source::Answer => "answer",
        }
    }
}

/// The words that decided a verdict: a byte range of the reply and a short quote of it.
/// From the judge, only the quote (its reason).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The quote, at most [`QUOTE_CHARS`] characters, whitespace collapsed.
    pub quote: String,
    /// Byte offsets into the reply: `start..end`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<u32>,
}

/// The longest quote evidence carries.
pub const QUOTE_CHARS: usize = 120;

impl Evidence {
    pub(crate) fn of(text: &str, (start, end): (usize, usize)) -> Evidence {
        let quote = short(text.get(start..end).unwrap_or(""));
        Evidence { quote, start: Some(start as u32), end: Some(end as u32) }
    }

    pub(crate) fn said(reason: &str) -> Evidence {
        Evidence { quote: short(reason), start: None, end: None }
    }
}

fn short(text: &str) -> String {
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= QUOTE_CHARS {
        return collapsed;
    }
    let kept: String = collapsed.chars().take(QUOTE_CHARS - 1).collect();
    format!("{}…", kept.trim_end())
}

/// One reply, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub verdict: Verdict,
    pub source: Source,
    pub evidence: Option<Evidence>,
    /// What the seat's `VOTE:` line said, when it had a valid one.
    pub declared: Option<Verdict>,
    /// The position the `VOTE:` line stated.
    pub position: Option<String>,
}

/// Read one reply. With `declared`, a valid `VOTE:` line decides (the body
/// can still veto a SAME); without it, or when the line is missing or
/// malformed, the free-text reader does.
pub fn read(text: &str, declared: bool) -> Reading {
    let own = own_words::mask(text);
    let line = if declared { declared::find(&own, text) } else { declared::Declared::Missing };
    // The body: own words without the declared line.
    let body = match &line {
        declared::Declared::Valid { span, .. } | declared::Declared::Malformed { span } => {
            own_words::blank_span(&own, span.0, span.1)
        }
        declared::Declared::Missing => own,
    };
    let found = reader::read(&body);
    let read = |f: reader::Finding| Reading {
        verdict: f.verdict,
        source: Source::Read,
        evidence: f.span.map(|s| Evidence::of(text, s)),
        declared: None,
        position: None,
    };
    match line {
        declared::Declared::Valid { verdict, position, span } => {
            // Disagreement stated in the body still vetoes a declared SAME.
            if verdict == Verdict::Agrees && found.verdict.dissents() {
                return Reading { declared: Some(verdict), position, ..read(found) };
            }
            // The position is read too: a SAME whose own words set a condition,
            // limit it or dissent is not plain agreement.
            let verdict = match (verdict, &position) {
                (Verdict::Agrees, Some(p)) => reader::read_position(&own_words::mask(p)).verdict,
                _ => verdict,
            };
            Reading {
                verdict,
                source: Source::Declared,
                evidence: Some(Evidence::of(text, span)),
                declared: Some(verdict),
                position,
            }
        }
        declared::Declared::Malformed { .. } | declared::Declared::Missing => read(found),
    }
}

/// Every word in `text` whose echo could be read as agreement: prompts to
/// seats whose replies are read must have none.
pub fn counted_words(text: &str) -> Vec<String> {
    let mut hits: Vec<String> = tokens::sentences(text)
        .iter()
        .flat_map(|s| s.words().map(str::to_string).collect::<Vec<_>>())
        .filter(|w| lexicon::is(lexicon::COUNTED_HEADS, w))
        .collect();
    hits.dedup();
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_line_decides_and_carries_its_evidence() {
        let text = "Phasing limits the risk.\nVOTE: SAME — phase the rollout.";
        let r = read(text, true);
        assert_eq!((r.verdict, r.source, r.declared), (Verdict::Agrees, Source::Declared, Some(Verdict::Agrees)));
        assert_eq!(r.position.as_deref(), Some("phase the rollout."));
        let e = r.evidence.unwrap();
        assert_eq!(&text[e.start.unwrap() as usize..e.end.unwrap() as usize], "VOTE: SAME — phase the rollout.");
    }

    #[test]
    fn the_body_vetoes_a_declared_same() {
        let r = read("I still oppose the budget.\nVOTE: SAME — ship it.", true);
        assert_eq!((r.verdict, r.source, r.declared), (Verdict::Disagrees, Source::Read, Some(Verdict::Agrees)));
        assert_eq!(r.evidence.unwrap().quote, "I still oppose the budget");
    }

    #[test]
    fn a_declared_difference_stands_whatever_the_body_says() {
        let r = read("I agree with much of this.\nVOTE: DIFFERENT — keep the old plan.", true);
        assert_eq!((r.verdict, r.source), (Verdict::Disagrees, Source::Declared));
    }

    #[test]
    fn without_the_declared_mode_the_line_is_just_words() {
        assert_eq!(read("VOTE: SAME — ship it.", false).verdict, Verdict::Silent);
        assert_eq!(read("VOTE: SAME, PARTLY or DIFFERENT — x", true).verdict, Verdict::Silent);
    }

    #[test]
    fn evidence_quotes_are_short() {
        let long = format!("I agree with {}.", "the plan ".repeat(40));
        let e = read(&long, false).evidence.unwrap();
        assert!(e.quote.chars().count() <= QUOTE_CHARS && e.quote.ends_with('…'), "{}", e.quote);
    }

    #[test]
    fn counted_words_are_found() {
        assert_eq!(counted_words("Only if you are convinced, write CONSENSUS: x"), vec!["convinced", "consensus"]);
        assert!(counted_words("Say where you stand; VOTE: SAME, PARTLY or DIFFERENT.").is_empty());
    }
}

#[cfg(test)]
mod indented_code_tests {
    use super::*;

    /// Issue 33: a reply that is wholly indented code still counted.
    #[test]
    fn a_reply_that_is_wholly_indented_code_counts_for_nothing() {
        for (text, declared) in [
            ("    VOTE: SAME", true),
            ("    VOTE: SAME\n    I agree with the others.", true),
            ("    CONSENSUS: I agree.", false),
            ("\tI agree completely.", false),
            ("\n\n    I agree completely.\n", false),
        ] {
            let r = read(text, declared);
            assert_eq!((r.verdict, r.declared), (Verdict::Silent, None), "{text:?}: {r:?}");
        }
    }
}
