//! The few SVG pieces every picture shares: escaping, clipping, the opening
//! tag with its text alternative, and a legend. Written as text: the core
//! takes no drawing crate, and text is what makes the bytes the same in
//! every host.

use std::fmt::{self, Write};

/// A number with a fixed count of decimals: scaled, rounded to nearest (ties
/// to even), and written by integer arithmetic. `{:.N}` would bring core's
/// float formatter and its tables, 34 KB of the component, for a handful of
/// coordinates; the two differ only where scaling rounds across a half
/// (0.15 to one place: 0.2 here, 0.1 there) and in the sign of a zero (-0.04
/// to one place: 0.0 here, -0.0 there), while the scaled value stays well
/// under 2^53, as coordinates do. Not finite is 0: a coordinate must always
/// be a number.
pub(crate) struct Fixed(pub f64, pub u32);

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let scale = 10u64.pow(self.1);
        let scaled = (self.0 * scale as f64).round_ties_even();
        let scaled = if scaled.is_finite() { scaled as i64 } else { 0 };
        let sign = if scaled < 0 { "-" } else { "" };
        let (whole, part) = (scaled.unsigned_abs() / scale, scaled.unsigned_abs() % scale);
        match self.1 {
            0 => write!(f, "{sign}{whole}"),
            places => write!(f, "{sign}{whole}.{part:0width$}", width = places as usize),
        }
    }
}

/// Untrusted text as SVG character data or an attribute value: markup
/// characters escaped, control characters (ANSI escapes among them, which
/// XML forbids anyway) replaced by U+FFFD.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push('\u{FFFD}'),
            c if crate::hidden::is_hidden(c) => out.push_str(&crate::hidden::reveal(c.encode_utf8(&mut [0; 4]))),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text`, one line, with an ellipsis when cut:
/// a label drawn at a fixed width must not run over its neighbours, and a
/// megabyte reply must not make a megabyte picture.
pub(crate) fn clip(text: &str, max: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Clipped, then escaped: the form every drawn or described text takes.
pub(crate) fn text(text: &str, max: usize) -> String {
    escape(&clip(text, max))
}

/// The opening tag, the title and the description. `id` keeps the ids
/// unique when a page holds several pictures; `title` and `desc` are escaped here.
pub(crate) fn open(out: &mut String, id: &str, width: u32, height: u32, title: &str, desc: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"100%\" \
role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" font-family=\"system-ui, sans-serif\" font-size=\"13\">\n\
<title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>\n\
<rect width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n",
        escape(title),
        escape(desc)
    );
}

pub(crate) fn close(out: &mut String) {
    out.push_str("</svg>\n");
}

/// A diagonal hatch pattern named `id`, drawn over a fill to mark a cell or
/// bar without relying on its colour.
pub(crate) fn hatch(out: &mut String, id: &str, colour: &str) {
    let _ = writeln!(
        out,
        "<defs><pattern id=\"{id}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"{colour}\" stroke-width=\"2\"/></pattern></defs>"
    );
}

/// One legend entry: a swatch with its letter, then its words. Returns the x after it.
pub(crate) fn legend_entry(out: &mut String, x: u32, y: u32, fill: &str, ink: &str, letter: &str, words: &str) -> u32 {
    let _ = writeln!(
        out,
        "<rect x=\"{x}\" y=\"{y}\" width=\"18\" height=\"18\" fill=\"{fill}\" stroke=\"#555555\"/>\
<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{ink}\" font-weight=\"bold\">{letter}</text>\
<text x=\"{}\" y=\"{}\">{words}</text>",
        x + 9,
        y + 13,
        x + 23,
        y + 13
    );
    x + 23 + 8 * words.chars().count() as u32 + 14
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_writes_decimals_rounding_ties_to_even() {
        let cases = [
            (12.25, 1, "12.2"),
            // 12.35 is 12.3499… in binary, but ×10 rounds to 123.5 exactly: to even, 124.
            (12.35, 1, "12.4"),
            (0.0, 1, "0.0"),
            (3.0, 0, "3"),
            (2.5, 0, "2"),
            (1234.5678, 2, "1234.57"),
            (0.05, 2, "0.05"),
            (-1.25, 1, "-1.2"),
            (f64::NAN, 1, "0.0"),
            (f64::INFINITY, 0, "0"),
        ];
        for (value, places, written) in cases {
            assert_eq!(Fixed(value, places).to_string(), written, "{value} to {places} places");
        }
    }

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("<a href='x'>\"&\u{1b}[31m"), "&lt;a href=&#39;x&#39;&gt;&quot;&amp;\u{FFFD}[31m");
        // Issue 33: U+FFFE in a criterion's name made the scorecard unreadable XML.
        assert_eq!(escape("cost\u{FFFE}\u{FFFF} \u{202E}lanigiro"), "cost\u{FFFD}\u{FFFD} [U+202E]lanigiro");
    }

    proptest::proptest! {
        /// Whatever the text, what is written is XML character data: only
        /// characters XML allows, and no markup but the entities.
        #[test]
        fn any_text_escapes_to_xml_character_data(text in "\\PC*|[\u{0}-\u{1F}\u{FFFE}\u{FFFF}\u{202E}<&>]*") {
            let out = escape(&text);
            let xml_char = |c: char| matches!(c as u32, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
            proptest::prop_assert!(out.chars().all(xml_char), "{out:?}");
            proptest::prop_assert!(!out.contains('<') && !out.contains('>'));
            proptest::prop_assert!(!out.chars().any(crate::hidden::is_hidden));
        }
    }

    #[test]
    fn clips_to_one_short_line() {
        assert_eq!(clip("a\nb  c", 10), "a b c");
        assert_eq!(clip("abcdefghij", 5), "abcd…");
        assert_eq!(clip(&"x".repeat(1 << 20), 8).chars().count(), 8);
    }
}
