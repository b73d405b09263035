//! The ledger's declared lines, read from a reply's own words only: a line
//! inside a quote, a code block or another speaker's labelled turn never
//! counts (`stance::own_words`).
//!
//! ```text
//! CLAIM A1: the migration needs a maintenance window
//! ATTACK B2: the benchmark ran on one node only
//! CONCEDE B1: the lock is held for under a second
//! BECAUSE B1: what changed my mind            (or BECAUSE Bo: …, a seat's name)
//! POSITION: ship in May
//! RULING A1: upheld — the window is in the runbook      (the judge only)
//! ```

use crate::review::{strip_decoration, strip_prefix_ci};

/// One declared line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A claim, under the id the seat wrote (`C1`, or its own letter's `B1`).
    Claim { id: String, text: String },
    /// An attack on another seat's claim.
    Attack { id: String, why: String },
    /// A concession: of another seat's claim, or the seat's own (withdrawn).
    Concede { id: String, why: String },
    /// What changed the seat's position: a claim id or a seat, as written.
    Because { cites: String, why: String },
    /// Where the seat stands, in a few words.
    Position(String),
    /// The judge's ruling on a claim.
    Ruling { id: String, upheld: bool, why: String },
}

/// The most characters of a claim's text, or a reason, that are kept.
pub const TEXT_CHARS: usize = 280;

/// Every well-formed declared line of a reply's own words, in order.
pub fn read(text: &str) -> Vec<Line> {
    // The mask keeps every byte's place and every `\n`; it also blanks the
    // words after a reporting verb ("claim"), so it decides only whether a
    // line's opening word is the seat's own, and the line is read unmasked.
    let own = crate::stance::own_words::mask(text);
    text.split('\n')
        .zip(own.split('\n'))
        .filter(|(line, mask)| {
            let first = |l: &str| strip_decoration(l).split_whitespace().next().map(str::to_string);
            first(line).is_some() && first(line) == first(mask)
        })
        .filter_map(|(line, _)| line_of(strip_decoration(line)))
        .collect()
}

fn line_of(line: &str) -> Option<Line> {
    if let Some(rest) = strip_prefix_ci(line, "POSITION:") {
        return (!rest.is_empty()).then(|| Line::Position(cut(rest)));
    }
    if let Some(rest) = strip_prefix_ci(line, "BECAUSE ") {
        let (cites, why) = rest.split_once(':')?;
        let cites = cites.trim().trim_matches('*').trim();
        return (!cites.is_empty()).then(|| Line::Because { cites: cut(cites), why: cut(why) });
    }
    for word in ["CLAIM ", "ATTACK ", "CONCEDE ", "RULING "] {
        let Some(rest) = strip_prefix_ci(line, word) else { continue };
        let (id, body) = rest.split_once(':')?;
        let id = claim_id(id.trim().trim_matches('*'))?;
        let body = body.trim().trim_start_matches("**").trim();
        return match word {
            "CLAIM " if body.is_empty() => None,
            "CLAIM " => Some(Line::Claim { id, text: cut(body) }),
            "ATTACK " => Some(Line::Attack { id, why: cut(body) }),
            "CONCEDE " => Some(Line::Concede { id, why: cut(body) }),
            _ => ruling(id, body),
        };
    }
    None
}

/// `upheld — why` or `rejected: why`; anything else is no ruling.
fn ruling(id: String, body: &str) -> Option<Line> {
    let word: String = body.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    let upheld = match word.to_ascii_lowercase().as_str() {
        "upheld" | "uphold" => true,
        "rejected" | "reject" => false,
        _ => return None,
    };
    let why = body[word.len()..].trim_start_matches(|c: char| c.is_whitespace() || "—–-:|,.".contains(c));
    Some(Line::Ruling { id, upheld, why: cut(why) })
}

/// A claim id: one to three letters then one to four digits (`B12`), uppercased.
pub(crate) fn claim_id(s: &str) -> Option<String> {
    let letters = s.chars().take_while(char::is_ascii_alphabetic).count();
    let digits = &s[letters..];
    let ok = (1..=3).contains(&letters)
        && (1..=4).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit())
        && !digits.starts_with('0');
    ok.then(|| s.to_ascii_uppercase())
}

/// One line, at most [`TEXT_CHARS`] characters.
fn cut(s: &str) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match s.char_indices().nth(TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_kind_of_line_and_leaves_malformed_ones_out() {
        let text = "I hold two things.\nCLAIM C1: the lock is short\n- **ATTACK B2:** one node only\n\
                    CONCEDE a1: fair point\nBECAUSE Bo: the numbers\nPOSITION: ship in May\n\
                    RULING B2: upheld — it was measured\nRULING B3: maybe\nCLAIM: no id\nCLAIM X: no number\n\
                    I CLAIM C2: in prose";
        assert_eq!(
            read(text),
            [
                Line::Claim { id: "C1".into(), text: "the lock is short".into() },
                Line::Attack { id: "B2".into(), why: "one node only".into() },
                Line::Concede { id: "A1".into(), why: "fair point".into() },
                Line::Because { cites: "Bo".into(), why: "the numbers".into() },
                Line::Position("ship in May".into()),
                Line::Ruling { id: "B2".into(), upheld: true, why: "it was measured".into() },
            ]
        );
    }

    #[test]
    fn a_line_quoted_from_another_seat_never_counts() {
        let text = "> CLAIM C1: quoted\nSpeaker 2: ATTACK A1: labelled\n```\nCLAIM C2: code\n```\nCLAIM C3: mine";
        assert_eq!(read(text), [Line::Claim { id: "C3".into(), text: "mine".into() }]);
    }

    #[test]
    fn long_text_is_cut() {
        let text = format!("CLAIM C1: {}", "x".repeat(10_000));
        let Line::Claim { text, .. } = &read(&text)[0] else { panic!() };
        assert_eq!(text.chars().count(), TEXT_CHARS + 1);
    }
}
