//! Own words as sentences of tokens, each with its byte span in the reply.
//!
//! Sentences end at `.` `!` `?` `;` and line ends (not at the dot of "e.g."
//! or "2.5"). Inside a sentence, commas, colons, dashes and brackets break
//! clauses; the reader treats connectives ("but", "if", …) as breaks too.

/// One token: a word (lowercased, curly apostrophes made straight) or a clause break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    Word { text: String, start: usize, end: usize },
    Break { at: usize },
}

impl Token {
    pub fn word(&self) -> Option<&str> {
        match self {
            Token::Word { text, .. } => Some(text),
            Token::Break { .. } => None,
        }
    }
}

/// A sentence of own words.
#[derive(Debug, Clone)]
pub(crate) struct Sentence {
    pub tokens: Vec<Token>,
    /// Ends with a question mark: asks rather than states.
    pub question: bool,
}

impl Sentence {
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().filter_map(Token::word)
    }
}

const ABBREVIATIONS: &str = "e.g i.e etc vs mr mrs ms dr cf approx incl esp fig resp al";

/// Split masked own words into sentences.
pub(crate) fn sentences(own: &str) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    let mut tokens: Vec<Token> = Vec::new();
    let mut word = String::new();
    let mut word_start = 0;
    let chars: Vec<(usize, char)> = own.char_indices().collect();
    // A word never starts with an apostrophe or hyphen (see `in_word`), so
    // only its end needs trimming; `end` is fixed from the source below.
    let flush = |word: &mut String, start: usize, tokens: &mut Vec<Token>| {
        let trimmed = word.trim_end_matches(['\'', '-', '.']);
        if !trimmed.is_empty() {
            tokens.push(Token::Word { text: trimmed.to_string(), start, end: start });
        }
        word.clear();
    };
    for (k, &(at, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let prev = k.checked_sub(1).map(|p| chars[p].1);
        let in_word = c.is_alphanumeric()
            || ((c == '\'' || c == '’') && !word.is_empty())
            || (c == '-' && !word.is_empty() && next.is_some_and(char::is_alphanumeric))
            || (c == '.' && !word.is_empty() && next.is_some_and(char::is_alphanumeric));
        if in_word {
            if word.is_empty() {
                word_start = at;
            }
            match c {
                '’' => word.push('\''),
                c if c.is_ascii() => word.push(c.to_ascii_lowercase()),
                c => word.extend(c.to_lowercase()),
            }
            continue;
        }
        // Read before the word is flushed: "e.g." ends no sentence.
        let abbreviation =
            c == '.' && super::lexicon::is(ABBREVIATIONS, &word) && prev.is_some_and(char::is_alphanumeric);
        flush(&mut word, word_start, &mut tokens);
        let ends_sentence = match c {
            '!' | '?' | ';' | '\n' => true,
            '.' => !abbreviation && next.is_none_or(|n| n.is_whitespace() || "\"')]*_".contains(n)),
            _ => false,
        };
        if ends_sentence {
            if !tokens.is_empty() {
                sentences.push(Sentence { tokens: std::mem::take(&mut tokens), question: c == '?' });
            }
            continue;
        }
        let breaks = matches!(c, ',' | ':' | '：' | '—' | '–' | '(' | ')' | '[' | ']' | '|')
            || (c == '-' && prev.is_none_or(char::is_whitespace) && next.is_none_or(char::is_whitespace));
        if breaks && !matches!(tokens.last(), Some(Token::Break { .. }) | None) {
            tokens.push(Token::Break { at });
        }
    }
    flush(&mut word, word_start, &mut tokens);
    if !tokens.is_empty() {
        sentences.push(Sentence { tokens, question: false });
    }
    // Fix word ends: a word's end is where its last character ends in the source.
    for s in &mut sentences {
        for t in &mut s.tokens {
            if let Token::Word { start, end, .. } = t {
                let src = &own[*start..];
                let len = src
                    .char_indices()
                    .find(|&(_, c)| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-' || c == '.'))
                    .map_or(src.len(), |(i, _)| i);
                *end = *start + len;
                // Trailing apostrophes, hyphens and dots are not part of the word.
                while *end > *start && own[..*end].ends_with(['\'', '-', '.']) {
                    *end -= 1;
                }
            }
        }
    }
    sentences
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Vec<String>> {
        sentences(text).iter().map(|s| s.words().map(str::to_string).collect()).collect()
    }

    #[test]
    fn sentences_split_on_ends_not_on_abbreviations_or_decimals() {
        assert_eq!(
            words("I agree, e.g. on cost. Version 2.5 works! Does it? Yes; fine\nNext"),
            vec![
                vec!["i", "agree", "e.g", "on", "cost"],
                vec!["version", "2.5", "works"],
                vec!["does", "it"],
                vec!["yes"],
                vec!["fine"],
                vec!["next"],
            ]
        );
        assert!(sentences("Do we agree?")[0].question);
    }

    #[test]
    fn words_are_lowercased_with_straight_apostrophes_and_spans_into_the_source() {
        let text = "I don’t AGREE—stress-tested.";
        let s = &sentences(text)[0];
        assert_eq!(s.words().collect::<Vec<_>>(), vec!["i", "don't", "agree", "stress-tested"]);
        for t in &s.tokens {
            if let Token::Word { text: w, start, end } = t {
                assert_eq!(text[*start..*end].to_lowercase().replace('’', "'"), *w);
            }
        }
        assert!(s.tokens.iter().any(|t| matches!(t, Token::Break { .. })));
    }
}
