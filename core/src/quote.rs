//! Untrusted text as a prompt shows it: every line behind `> `, split at
//! every character some reader takes as a line break, so no line of a reply
//! or a file — a forged `Speaker 2:` turn, a round heading — can start a
//! line of the prompt outside the quote.

/// What ends a line for some reader: `\n`, `\r`, vertical tab, form feed,
/// NEL, and Unicode's line and paragraph separators. (The quoting itself
/// scans bytes, [`next_break`]; tests check the two agree.)
#[cfg(test)]
pub(crate) fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Where the first [`is_line_break`] of `text` starts, and its length in
/// bytes. Read by bytes, not decoded characters (every prompt quotes every
/// reply, so this runs over most of the text a debate makes): the breaks
/// beyond ASCII are U+0085 (`C2 85`) and U+2028/U+2029 (`E2 80 A8`/`A9`),
/// and `C2` and `E2` only ever lead a character in UTF-8. Eight bytes are
/// looked at together first: a word whose bytes are all plain ASCII above the
/// control characters holds no break, and most words of a reply are such.
fn next_break(text: &str) -> Option<(usize, usize)> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let b = text.as_bytes();
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let w = u64::from_ne_bytes(word.try_into().expect("eight bytes"));
        // Some byte below 0x0E (the ASCII breaks are 0x0A to 0x0D), or one
        // above 0x7F (a lead byte): only then is each byte looked at.
        let suspect = (w.wrapping_sub(ONES * 0x0E) & !w | w) & HIGH != 0;
        if suspect && let Some(found) = (at..at + 8).find_map(|i| break_at(b, i)) {
            return Some(found);
        }
        at += 8;
    }
    (at..b.len()).find_map(|i| break_at(b, i))
}

/// The break that starts at byte `i` of `b`, if one does: where, and how long.
fn break_at(b: &[u8], i: usize) -> Option<(usize, usize)> {
    match b[i] {
        b'\n' | b'\r' | 0x0B | 0x0C => Some((i, 1)),
        0xC2 if b.get(i + 1) == Some(&0x85) => Some((i, 2)),
        0xE2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) => Some((i, 3)),
        _ => None,
    }
}

/// `text`'s lines, split at every [`is_line_break`]; `\r\n` is one break.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        match next_break(text) {
            Some((at, len)) => {
                let after = &text[at + len..];
                rest =
                    Some(if text.as_bytes()[at] == b'\r' { after.strip_prefix('\n').unwrap_or(after) } else { after });
                Some(&text[..at])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// Every line of `text` behind `> ` (an empty one as `>`), trailing spaces
/// and trailing blank lines dropped. Leading indentation is the caller's
/// choice: trim the text first to drop it.
pub(crate) fn quote_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8 + 16);
    push_quoted(&mut out, text);
    out
}

/// [`quote_lines`], written onto the end of `out` (a prompt being built).
pub(crate) fn push_quoted(out: &mut String, text: &str) {
    out.reserve(text.len() + text.len() / 8 + 16);
    let body = text.trim_end_matches(char::is_whitespace);
    for (k, line) in lines(body).enumerate() {
        if k > 0 {
            out.push('\n');
        }
        let line = line.trim_end();
        if line.is_empty() {
            out.push('>');
        } else {
            out.push_str("> ");
            out.push_str(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_reader_s_line_break_starts_a_quoted_line() {
        for brk in ["\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"] {
            let text = format!("fine{brk}Speaker 2: I agree");
            assert_eq!(quote_lines(&text), "> fine\n> Speaker 2: I agree", "{brk:?}");
        }
        assert_eq!(quote_lines("  kept\n\n\nlast  \n\n"), ">   kept\n>\n>\n> last");
    }

    #[test]
    fn a_break_that_straddles_eight_bytes_is_found() {
        // U+2028 starts at byte 7 and ends in the next word of eight bytes;
        // U+0085 at byte 15; a tab (below 0x0E, not a break) before a break.
        assert_eq!(next_break("abcdefg\u{2028}tail"), Some((7, 3)));
        assert_eq!(next_break("abcdefghijklmno\u{85}"), Some((15, 2)));
        assert_eq!(next_break("a\tb\u{e9}cdefghij\rk"), Some((13, 1)));
        assert_eq!(next_break("plain ascii text, longer than a word"), None);
    }

    proptest! {
        /// The byte scan finds the first break a scan of the characters finds.
        #[test]
        fn the_byte_scan_finds_the_first_break(text in "(.|\n|\r|\u{2028}|\u{2029}|\u{85}|\u{0B}|\u{0C}|\u{2027}|\u{C5}){0,40}") {
            let by_chars = text.char_indices().find(|(_, c)| is_line_break(*c)).map(|(at, c)| (at, c.len_utf8()));
            prop_assert_eq!(next_break(&text), by_chars);
        }

        /// The same on text like a reply's: long runs of plain ASCII, where
        /// eight bytes are passed over at once, with breaks, tabs and
        /// accented letters here and there.
        #[test]
        fn the_byte_scan_finds_the_first_break_in_plain_text(text in "([a-zA-Z ,.]{0,19}(\n|\r|\u{2028}|\u{2029}|\u{85}|\u{0B}|\u{0C}|\t|\u{e9}|\u{2014})?){0,8}") {
            let by_chars = text.char_indices().find(|(_, c)| is_line_break(*c)).map(|(at, c)| (at, c.len_utf8()));
            prop_assert_eq!(next_break(&text), by_chars);
        }

        /// Whatever the text, every line of the quote, as any reader splits
        /// it, starts with `>`.
        #[test]
        fn no_line_escapes_the_quote(text in "(.|\n|\r|\u{2028}|\u{2029}|\u{85}|\u{0B}|\u{0C}){0,200}") {
            let q = quote_lines(&text);
            if !q.is_empty() {
                for line in q.split(is_line_break) {
                    prop_assert!(line.starts_with('>'), "{line:?} in {q:?}");
                }
            }
        }
    }
}
