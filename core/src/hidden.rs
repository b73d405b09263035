//! Characters that change what text appears to say without being seen:
//! bidirectional controls (U+202E turns `exe.txt` into `txt.exe` on screen)
//! and noncharacters (U+FFFE, U+FFFF, which XML forbids, so one of them makes
//! an SVG unreadable). Every output agon writes — terminal, Markdown, HTML,
//! SVG — shows them through [`reveal`], written once here for every host.

use std::borrow::Cow;

/// The bidirectional formatting characters: embeddings, overrides, isolates
/// and the marks.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Unicode's noncharacters: U+FDD0..U+FDEF and the last two of every plane.
fn is_noncharacter(c: char) -> bool {
    let n = c as u32;
    (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE
}

/// Whether [`reveal`] changes `c`.
pub fn is_hidden(c: char) -> bool {
    is_bidi_control(c) || is_noncharacter(c)
}

/// `text` with each bidirectional control shown by name (`[U+202E]`), so a
/// reader sees that it was there, and each noncharacter replaced by U+FFFD.
pub fn reveal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_bidi_control(c) {
            out.push_str(&format!("[U+{:04X}]", c as u32));
        } else if is_noncharacter(c) {
            out.push('\u{FFFD}');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_are_named_and_noncharacters_replaced() {
        assert_eq!(reveal("invoice\u{202E}fdp.exe"), "invoice[U+202E]fdp.exe");
        assert_eq!(reveal("a\u{2066}b\u{2069}\u{200F}"), "a[U+2066]b[U+2069][U+200F]");
        assert_eq!(reveal("x\u{FFFE}y\u{FFFF}\u{10FFFF}\u{FDD0}"), "x\u{FFFD}y\u{FFFD}\u{FFFD}\u{FFFD}");
        assert!(matches!(reveal("plain עברית and العربية text"), Cow::Borrowed(_)), "scripts themselves stay");
        assert!(!is_hidden('\u{FFFD}') && !is_hidden('\u{FFFC}') && is_hidden('\u{2067}'));
    }
}
