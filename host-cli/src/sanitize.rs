//! The one gate between untrusted text and a terminal or a text file.
//!
//! Model replies, questions, server error bodies and file contents can carry
//! control characters: `ESC ] 52` writes the clipboard, `ESC ] 8` plants a
//! hyperlink, `ESC [ 6 n` makes the terminal type an answer into stdin, `CR`
//! and backspace overwrite what was shown. Every byte of such text that agon
//! shows or writes as text passes through [`terminal`] first: newlines and
//! tabs stay, a carriage return goes (line endings are the only honest use of
//! it), and every other control character is shown as `cat -v` shows it
//! (`^[`, `^G`, `M-^[` for the C1 controls), so nothing is hidden and nothing
//! reaches the terminal as a command. JSON and NDJSON outputs do not need it:
//! their encoders escape every control character already.

use std::borrow::Cow;

/// `text` with every control character but `\n` and `\t` made visible (`\r` dropped).
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_care) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {}
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(c as u8 + 0x40));
            }
            c if (0x80..0xa0).contains(&(c as u32)) => {
                out.push_str("M-^");
                out.push(char::from((c as u32 - 0x80) as u8 + 0x40));
            }
            c if agon_core::hidden::is_hidden(c) => {
                out.push_str(&agon_core::hidden::reveal(c.encode_utf8(&mut [0; 4])))
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `println!` through [`terminal`]: for lines that carry any untrusted text.
/// A closed stdout ends agon quietly ([`crate::closed_pipe`]).
#[macro_export]
macro_rules! safe_println {
    ($($arg:tt)*) => { $crate::closed_pipe::line_out(&$crate::sanitize::terminal(&format!($($arg)*))) };
}

/// `eprintln!` through [`terminal`]. A closed stderr ends agon quietly.
#[macro_export]
macro_rules! safe_eprintln {
    ($($arg:tt)*) => { $crate::closed_pipe::line_err(&$crate::sanitize::terminal(&format!($($arg)*))) };
}

/// Control characters, and those that reorder or corrupt what is shown
/// (bidirectional overrides, noncharacters: [`agon_core::hidden`]).
fn needs_care(c: char) -> bool {
    (c != '\n' && c != '\t' && c.is_control()) || agon_core::hidden::is_hidden(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_text_newlines_and_tabs() {
        let plain = "Tabs\tor spaces?\nÜber → 😀";
        assert!(matches!(terminal(plain), Cow::Borrowed(_)));
        assert_eq!(terminal(plain), plain);
    }

    #[test]
    fn every_other_control_is_shown_not_obeyed() {
        let hostile =
            "\x1b]52;c;cGF5bG9hZA==\x07\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\\x1b[2J\x1b[6n\u{9b}31m\x08\x00\x7f";
        let shown = terminal(hostile);
        assert_eq!(shown, "^[]52;c;cGF5bG9hZA==^G^[]8;;https://evil^[\\link^[]8;;^[\\^[[2J^[[6nM-^[31m^H^@^?");
        assert!(!shown.chars().any(|c| c.is_control()));
    }

    #[test]
    fn overrides_and_noncharacters_are_shown_not_obeyed() {
        assert_eq!(terminal("rm -rf \u{202E}/ #\u{FFFF}"), "rm -rf [U+202E]/ #\u{FFFD}");
    }

    #[test]
    fn carriage_returns_cannot_overwrite() {
        assert_eq!(terminal("safe\rEVIL\r\nnext"), "safeEVIL\nnext");
    }
}
