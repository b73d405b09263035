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

/// What a debate's picture says above itself, so that it stands alone once
/// saved or forwarded: what it shows, and the question the debate was about.
pub(crate) struct Heading<'a> {
    pub title: &'a str,
    /// The debate's question; empty when the picture has none to name.
    pub question: &'a str,
}

/// The most lines a heading gives its question before shortening it.
const QUESTION_LINES: usize = 3;
const TITLE_Y: u32 = 20;
const LINE_H: u32 = 18;

/// How tall `heading` is drawn at `width`: the title, the question's lines, a gap.
fn heading_height(heading: &Heading, width: u32) -> u32 {
    let lines = wrap(heading.question, width_units(width, 7), QUESTION_LINES).len() as u32;
    TITLE_Y + lines * LINE_H + 14
}

/// [`open`], then the heading drawn above the picture, whose own drawing
/// (`body_height` tall, at y = 0) follows, shifted below it; close with
/// [`close_headed`]. The question goes into the description too: inside
/// `role="img"` only the title and the description are read out.
pub(crate) fn open_headed(out: &mut String, id: &str, width: u32, body_height: u32, heading: &Heading, desc: &str) {
    let top = heading_height(heading, width);
    let desc = match clip(heading.question, 300) {
        q if q.is_empty() => desc.to_string(),
        q => format!("Question: {q} {desc}"),
    };
    open(out, id, width, top + body_height, heading.title, &desc);
    let _ = writeln!(
        out,
        "<text class=\"title\" x=\"8\" y=\"{TITLE_Y}\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        text(heading.title, width_units(width, 8))
    );
    for (i, line) in wrap(heading.question, width_units(width, 7), QUESTION_LINES).iter().enumerate() {
        let _ = writeln!(
            out,
            "<text class=\"question\" x=\"8\" y=\"{}\" fill=\"#333333\">{}</text>",
            TITLE_Y + (i as u32 + 1) * LINE_H,
            escape(line)
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"8\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#dddddd\"/>\n<g transform=\"translate(0 {top})\">",
        width - 8,
        y = top - 6
    );
}

/// Closes what [`open_headed`] opened.
pub(crate) fn close_headed(out: &mut String) {
    out.push_str("</g>\n");
    close(out);
}

/// How many narrow characters fit across `width` at `per_char` pixels each,
/// with an 8-pixel margin either side. No font is measured (a picture's bytes
/// must not depend on one): 7 px is about a 13-pixel sans-serif's average.
fn width_units(width: u32, per_char: u32) -> usize {
    (width.saturating_sub(16) / per_char) as usize
}

/// How many narrow characters `c` is as wide as: CJK ideographs, kana,
/// Hangul and full-width forms take about two.
fn units(c: char) -> usize {
    match c as u32 {
        0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F => 2,
        0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1FAFF | 0x20000..=0x3FFFD => 2,
        _ => 1,
    }
}

/// `text` on at most `max_lines` lines of at most `max` units each, broken
/// between words (a word longer than a line is broken inside it); when it
/// does not fit, the last line ends in an ellipsis. Whitespace, newlines
/// included, is one space: a heading is no place for a question's layout.
pub(crate) fn wrap(text: &str, max: usize, max_lines: usize) -> Vec<String> {
    let max = max.max(2);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    let mut cut = false;
    'words: for word in text.split_whitespace() {
        let width: usize = word.chars().map(units).sum();
        if used > 0 && used + 1 + width > max {
            lines.push(std::mem::take(&mut line));
            used = 0;
        }
        if lines.len() == max_lines {
            cut = true;
            break;
        }
        if used > 0 {
            line.push(' ');
            used += 1;
        }
        for c in word.chars() {
            if used + units(c) > max {
                lines.push(std::mem::take(&mut line));
                used = 0;
                if lines.len() == max_lines {
                    cut = true;
                    break 'words;
                }
            }
            line.push(c);
            used += units(c);
        }
    }
    if !line.is_empty() && lines.len() < max_lines {
        lines.push(line);
    }
    if cut && let Some(last) = lines.last_mut() {
        // Room for the ellipsis: drop characters from the end until it fits.
        let mut width: usize = last.chars().map(units).sum();
        while width + 1 > max {
            width -= last.pop().map_or(0, units);
        }
        last.truncate(last.trim_end().len());
        last.push('…');
    }
    lines
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
    fn wraps_between_words_and_shortens_what_does_not_fit() {
        assert_eq!(wrap("Should we adopt a four-day week?", 14, 3), ["Should we", "adopt a", "four-day week?"]);
        assert_eq!(wrap("  a\n\tb  ", 10, 3), ["a b"]);
        assert!(wrap("", 10, 3).is_empty());
        // A word longer than a line is broken inside it.
        assert_eq!(wrap("abcdefghij", 4, 3), ["abcd", "efgh", "ij"]);
        // Too long for three lines: the third ends in an ellipsis, within the width.
        let lines = wrap(&"word ".repeat(100), 12, 3);
        assert_eq!(lines, ["word word", "word word", "word word…"]);
        let lines = wrap(&"x".repeat(1 << 20), 10, 3);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2], "xxxxxxxxx…");
        // Ideographs count double: ten of them fill a twenty-unit line.
        assert_eq!(wrap("九十年代很多人下海经商。", 20, 3), ["九十年代很多人下海经", "商。"]);
    }

    #[test]
    fn a_heading_shows_the_title_and_the_question_escaped_above_the_drawing() {
        let mut out = String::new();
        let heading = Heading { title: "Stance map", question: "Ship <script>x()</script> on\nFriday?" };
        open_headed(&mut out, "t", 500, 100, &heading, "Round 1.");
        out.push_str("<rect class=\"body\" x=\"0\" y=\"0\"/>\n");
        close_headed(&mut out);
        assert!(out.contains(
            "<text class=\"title\" x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Stance map</text>"
        ));
        assert!(out.contains(">Ship &lt;script&gt;x()&lt;/script&gt; on Friday?</text>"), "{out}");
        assert!(!out.contains("<script"));
        // One line of question: 20 + 18 + 14 above the drawing, which is shifted down by it.
        assert!(out.contains("viewBox=\"0 0 500 152\""), "{out}");
        assert!(out.contains("<g transform=\"translate(0 52)\">\n<rect class=\"body\""), "{out}");
        assert!(out.ends_with("</g>\n</svg>\n"));
        assert!(out.contains(
            "<desc id=\"t-desc\">Question: Ship &lt;script&gt;x()&lt;/script&gt; on Friday? Round 1.</desc>"
        ));
        // No question, no question line and no "Question:" in the description.
        let mut out = String::new();
        open_headed(&mut out, "t", 500, 100, &Heading { title: "T", question: "" }, "D.");
        assert!(!out.contains("class=\"question\"") && out.contains("<desc id=\"t-desc\">D.</desc>"));
        assert!(out.contains("viewBox=\"0 0 500 134\""), "{out}");
    }

    #[test]
    fn clips_to_one_short_line() {
        assert_eq!(clip("a\nb  c", 10), "a b c");
        assert_eq!(clip("abcdefghij", 5), "abcd…");
        assert_eq!(clip(&"x".repeat(1 << 20), 8).chars().count(), 8);
    }
}
