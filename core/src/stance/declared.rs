//! The declared stance: one line every counted seat is asked to close with.
//!
//! ```text
//! VOTE: SAME — ship the tram in two phases.
//! ```
//!
//! `SAME`, `PARTLY` or `DIFFERENT`, then the seat's position in one sentence.
//! The words are relations, not verdicts: none of them is a word the
//! free-text reader counts, so a prompt that shows them primes nothing the
//! reader would take for agreement. The line is read tolerantly (Markdown,
//! case, a missing position, the usual synonyms), but an echo of the prompt's
//! template (`SAME, PARTLY or DIFFERENT`) or a placeholder is malformed.

use super::Verdict;

/// What the line asks, as the prompts show it.
pub(crate) const INSTRUCTION: &str = "End your reply with one line that records where you stand now, \
as every speaker does every round:\n\
VOTE: SAME, PARTLY or DIFFERENT — your position in one sentence\n\
SAME: your position matches the one the other speakers hold now. \
PARTLY: it matches in part, or only under a condition. \
DIFFERENT: it does not match. Whichever you choose, the line is recorded as it is.";

/// A declared line found in a reply's own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Declared {
    /// No line at all.
    Missing,
    /// A line that could not be read (an echoed template, conflicting lines).
    Malformed {
        span: (usize, usize),
    },
    Valid {
        verdict: Verdict,
        position: Option<String>,
        span: (usize, usize),
    },
}

/// Find the declared line in `own` (the reply with attributed text blanked;
/// same offsets as `text`, which supplies the position's words).
pub(crate) fn find(own: &str, text: &str) -> Declared {
    let mut found: Option<Declared> = None;
    let mut at = 0;
    for line in own.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let Some((lead, value)) = super::own_words::keyed(line, "vote") else { continue };
        let span = (start + lead, start + line.trim_end().len());
        let value_at = span.1 - value.trim_end().len();
        let this = parse(value, &text[value_at..span.1.max(value_at)], span);
        found = Some(match (found, this) {
            // Restating the same vote is fine; contradicting it is not.
            (Some(Declared::Valid { verdict: a, .. }), Declared::Valid { verdict: b, position, span }) if a == b => {
                Declared::Valid { verdict: b, position, span }
            }
            (Some(Declared::Valid { .. }), Declared::Valid { span, .. }) => Declared::Malformed { span },
            (Some(Declared::Malformed { span }), _) => Declared::Malformed { span },
            (_, this) => this,
        });
    }
    found.unwrap_or(Declared::Missing)
}

/// The value after `VOTE:`: a choice, then a separator and the position.
fn parse(own_value: &str, text_value: &str, span: (usize, usize)) -> Declared {
    let value = own_value.trim().trim_start_matches(['*', '_', '`', ' ']);
    let word_len = value.find(|c: char| !c.is_alphabetic() && c != '-').unwrap_or(value.len());
    let choice = value[..word_len].to_ascii_lowercase();
    let Some(verdict) = choice_verdict(&choice) else {
        return Declared::Malformed { span };
    };
    // The template echoed back: "SAME, PARTLY or DIFFERENT", "SAME | PARTLY".
    let rest = value[word_len..].trim_start_matches(['*', '_', '`', ' ']);
    let next_word: String = rest
        .trim_start_matches([',', '|', '/', ' '])
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    if rest.starts_with([',', '|', '/']) && choice_verdict(&next_word).is_some() || next_word == "or" {
        return Declared::Malformed { span };
    }
    // The position: what follows the separator, in the reply's own characters.
    let offset = own_value.len() - rest.len();
    let position = text_value
        .get(offset..)
        .unwrap_or("")
        .trim_start_matches(|c: char| c.is_whitespace() || "—–-:|.,)*_`".contains(c))
        .trim()
        .trim_end_matches(['*', '_', '`'])
        .trim();
    let placeholder =
        position.starts_with(['<', '[', '{']) || position.eq_ignore_ascii_case("your position in one sentence");
    let position = (!position.is_empty() && !placeholder).then(|| position.to_string());
    Declared::Valid { verdict, position, span }
}

fn choice_verdict(word: &str) -> Option<Verdict> {
    use super::lexicon::is;
    Some(if is("same yes agree agreed aligned shared", word) {
        Verdict::Agrees
    } else if is("partly partial partially part somewhat mixed", word) {
        Verdict::AgreesInPart
    } else if is("conditional conditionally", word) {
        Verdict::Conditional
    } else if is("different differ no disagree apart opposed divided", word) {
        Verdict::Disagrees
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(text: &str) -> Declared {
        find(&crate::stance::own_words::mask(text), text)
    }

    #[test]
    fn a_plain_line_is_read_with_its_position() {
        let text = "Reasons.\nVOTE: SAME — ship the tram in two phases.";
        match declared(text) {
            Declared::Valid { verdict, position, span } => {
                assert_eq!(verdict, Verdict::Agrees);
                assert_eq!(position.as_deref(), Some("ship the tram in two phases."));
                assert_eq!(&text[span.0..span.1], "VOTE: SAME — ship the tram in two phases.");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            declared("**Vote:** partly - cost first"),
            Declared::Valid { verdict: Verdict::AgreesInPart, .. }
        ));
        assert!(matches!(
            declared("- vote: DIFFERENT"),
            Declared::Valid { verdict: Verdict::Disagrees, position: None, .. }
        ));
    }

    #[test]
    fn echoes_placeholders_conflicts_and_quoted_lines_are_not_declarations() {
        assert!(matches!(declared("VOTE: SAME, PARTLY or DIFFERENT — your position"), Declared::Malformed { .. }));
        assert!(matches!(declared("VOTE: SAME | PARTLY | DIFFERENT"), Declared::Malformed { .. }));
        assert!(matches!(declared("VOTE: maybe — who knows"), Declared::Malformed { .. }));
        assert!(matches!(declared("VOTE: SAME — a\nVOTE: DIFFERENT — b"), Declared::Malformed { .. }));
        assert!(matches!(declared("```\nVOTE: SAME — x\n```"), Declared::Missing));
        assert!(matches!(declared("> VOTE: SAME — x"), Declared::Missing));
        assert!(matches!(declared("Speaker 2: VOTE: SAME"), Declared::Missing));
        assert!(matches!(
            declared("VOTE: SAME — <your position in one sentence>"),
            Declared::Valid { verdict: Verdict::Agrees, position: None, .. }
        ));
    }
}
