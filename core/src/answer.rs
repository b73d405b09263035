//! A reply's final answer, and the form two answers are compared in.
//!
//! Where a debate has a checkable answer — a number, an option letter, a yes
//! or no, one of the named options — agreement is not a matter of wording: it
//! is the same answer. [`find`] takes the answer a reply gives, from its own
//! words only (a quoted or speaker-labelled `ANSWER:` line is someone else's),
//! and [`normalise`] puts it in one canonical form, so "$1,200." and
//! `\boxed{1200}` compare equal and "A or B" is no answer at all.
//!
//! Unreadable is a result, never a guess: a reply whose answer cannot be read
//! counts as giving none, and none is never equal to anything.

use crate::stance::own_words;

/// The line counted seats close with in `answer` mode.
pub(crate) const INSTRUCTION: &str = "End your reply with one line of its own: ANSWER: followed by your final answer \
     alone, as short as it can be (a number, an option's letter, yes or no, or the option's name).";

/// A final answer read from a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The answer as written (the `ANSWER:` line's value, or the boxed text).
    pub raw: String,
    /// Its canonical form, or `None` when it gives no single answer.
    pub normal: Option<String>,
    /// Byte range of the line or box in the reply.
    pub span: (usize, usize),
}

/// The reply's final answer: its last own `ANSWER:` (or `Final answer:`)
/// line, else its last `\boxed{…}`. `options` are names an answer may give
/// instead of a letter.
pub fn find(text: &str, options: &[String]) -> Option<Found> {
    let own = own_words::mask(text);
    let (raw, span) = answer_line(&own, text).or_else(|| boxed(&own, text))?;
    let normal = normalise(&raw, options);
    Some(Found { raw, normal, span })
}

fn answer_line(own: &str, text: &str) -> Option<(String, (usize, usize))> {
    let mut found = None;
    let mut at = 0;
    for line in own.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let keyed = own_words::keyed(line, "answer").or_else(|| own_words::keyed(line, "final answer"));
        let Some((_, value)) = keyed else { continue };
        let end = start + line.trim_end().len();
        let value_start = end - value.trim_end().len();
        let raw = text[value_start..end].trim().trim_start_matches(['*', '_']).trim();
        if !raw.is_empty() {
            found = Some((raw.to_string(), (start + line.len() - line.trim_start().len(), end)));
        }
    }
    found
}

fn boxed(own: &str, text: &str) -> Option<(String, (usize, usize))> {
    let start = own.rfind("\\boxed{")?;
    let open = start + "\\boxed{".len();
    let mut depth = 1;
    for (i, c) in own[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((text[open..open + i].to_string(), (start, open + i + 1)));
                }
            }
            _ => {}
        }
    }
    None
}

/// The canonical form of one answer: a yes/no as `yes`/`no`, an option as
/// its letter (`B`) or its name as given in `options`, a number as a plain
/// decimal (`1200`, `-3.5`, `2/3` when it does not terminate), anything else
/// as lower-case words. `None` when it gives no single answer: empty, a
/// placeholder, or two candidates ("A or B", "12 or 13").
pub fn normalise(raw: &str, options: &[String]) -> Option<String> {
    let text = strip_markup(raw);
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | ',' | '/' | '-' | '$' | '%')))
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | ',' | '-')).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() || words.iter().any(|w| HEDGES.contains(&w.as_str())) {
        return None;
    }
    if let Some(name) = named_option(&text, options) {
        return Some(name);
    }
    if let Some(letter) = option_letter(&text) {
        return Some(letter);
    }
    match words[0].as_str() {
        "yes" | "true" => return Some("yes".into()),
        "no" | "false" => return Some("no".into()),
        _ => {}
    }
    // After the last `=`, the result of any working shown.
    let tail = text.rsplit('=').next().unwrap_or(&text);
    if let Some(n) = first_number(tail) {
        return Some(n);
    }
    let plain: Vec<&str> = words.iter().map(String::as_str).filter(|w| !ARTICLES.contains(w)).collect();
    (!plain.is_empty()).then(|| plain.join(" "))
}

/// Words that mean the answer is not one answer.
const HEDGES: &[&str] = &["or", "either", "unsure", "unknown", "undetermined", "n/a", "none", "tbd"];
const ARTICLES: &[&str] = &["the", "a", "an"];

/// LaTeX and Markdown wrapping that does not change an answer.
fn strip_markup(raw: &str) -> String {
    let mut s = raw.trim().to_string();
    if let Some(inner) = s.strip_prefix("\\boxed{").and_then(|r| r.strip_suffix('}')) {
        s = inner.to_string();
    }
    for (from, to) in [("\\frac{", ""), ("}{", "/"), ("\\text{", ""), ("\\mathrm{", ""), ("\\$", "$"), ("\\%", "%")] {
        s = s.replace(from, to);
    }
    s.retain(|c| !matches!(c, '*' | '_' | '`' | '{' | '}' | '\\'));
    s.trim().trim_end_matches(['.', '!']).trim().to_string()
}

/// An option by its name: the answer is (or starts with) exactly one of the names.
fn named_option(text: &str, options: &[String]) -> Option<String> {
    let lower = text.to_lowercase();
    let lower = lower.trim_start_matches(|c: char| !c.is_alphanumeric());
    let hits: Vec<&String> = options
        .iter()
        .filter(|o| {
            let name = o.trim().to_lowercase();
            !name.is_empty()
                && lower.starts_with(&name)
                && lower[name.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric())
        })
        .collect();
    // The longest name wins when one is the start of another ("Postgres" and "Postgres 16").
    let best = hits.iter().max_by_key(|o| o.len())?;
    Some(best.trim().to_string())
}

/// `B`, `(B)`, `B)`, `B.`, `B:`, `option B`, `(B) text`: one capital letter A–J
/// standing alone at the start.
fn option_letter(text: &str) -> Option<String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let t = ["option ", "choice ", "answer "]
        .iter()
        .find(|p| lower.starts_with(*p))
        .map_or(t, |p| t[p.len()..].trim_start());
    let (letter, rest) = match t.strip_prefix('(') {
        Some(inner) => {
            let mut chars = inner.chars();
            let l = chars.next()?.to_ascii_uppercase();
            (l, chars.as_str().strip_prefix(')')?)
        }
        None => {
            let mut chars = t.chars();
            let l = chars.next()?.to_ascii_uppercase();
            let rest = chars.as_str();
            // A bare letter must stand alone or be closed by `)`, `.` or `:`.
            if !(rest.is_empty() || rest.starts_with([')', '.', ':', ' '])) {
                return None;
            }
            // "A man…": a sentence, not an option.
            if rest.starts_with(' ') && !rest.trim_start().starts_with(['-', '—', '(']) {
                return None;
            }
            (l, rest)
        }
    };
    let _ = rest;
    ('A'..='J').contains(&letter).then(|| letter.to_string())
}

/// The first number in `text`, canonical: thousands separators, currency and
/// units dropped, a fraction reduced, a terminating fraction as a decimal.
fn first_number(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts = c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()));
        if !starts {
            i += 1;
            continue;
        }
        let negative = i > 0 && matches!(chars[i - 1], '-' | '−') && (i < 2 || !chars[i - 2].is_alphanumeric());
        let (value, _) = number_at(&chars, i)?;
        let value = if negative { Ratio { num: -value.num, den: value.den } } else { value };
        return Some(value.to_string());
    }
    None
}

/// An exact rational: every decimal and fraction an answer gives is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ratio {
    num: i128,
    den: i128,
}

impl Ratio {
    fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.abs(), den.abs()).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Some(Ratio { num: sign * num / g, den: sign * den / g })
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl core::fmt::Display for Ratio {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.den == 1 {
            return write!(f, "{}", self.num);
        }
        // Terminating when the denominator has no prime factors but 2 and 5.
        let mut d = self.den;
        let mut places = 0u32;
        while d % 10 == 0 || d % 2 == 0 || d % 5 == 0 {
            if d % 10 == 0 {
                d /= 10;
            } else if d % 2 == 0 {
                d /= 2;
            } else {
                d /= 5;
            }
            places += 1;
        }
        if d != 1 || places > 18 {
            return write!(f, "{}/{}", self.num, self.den);
        }
        let scale = 10i128.pow(places);
        let scaled = self.num * scale / self.den;
        let sign = if scaled < 0 { "-" } else { "" };
        let (whole, frac) = (scaled.abs() / scale, scaled.abs() % scale);
        let frac = format!("{frac:0width$}", width = places as usize);
        write!(f, "{sign}{whole}.{}", frac.trim_end_matches('0'))
    }
}

/// The number starting at `chars[i]`: digits with `,` thousands groups, a
/// decimal part, and an optional `/denominator`. Returns it and where it ends.
fn number_at(chars: &[char], mut i: usize) -> Option<(Ratio, usize)> {
    let mut digits = String::new();
    let mut decimals = 0u32;
    let mut seen_point = false;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() {
            digits.push(c);
            if seen_point {
                decimals += 1;
            }
        } else if c == ',' && !seen_point && group_follows(chars, i) {
            // A thousands separator: skipped.
        } else if c == '.' && !seen_point && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
            seen_point = true;
        } else {
            break;
        }
        i += 1;
        if digits.len() > 30 {
            return None;
        }
    }
    let num: i128 = digits.parse().ok()?;
    let mut value = Ratio::new(num, 10i128.checked_pow(decimals)?)?;
    // A fraction: `3/4`, `3 / 4`.
    let mut j = i;
    while chars.get(j) == Some(&' ') {
        j += 1;
    }
    if chars.get(j) == Some(&'/') {
        let mut k = j + 1;
        while chars.get(k) == Some(&' ') {
            k += 1;
        }
        if chars.get(k).is_some_and(|d| d.is_ascii_digit())
            && let Some((den, end)) = number_at(chars, k)
            && den.num != 0
        {
            value = Ratio::new(value.num * den.den, value.den * den.num)?;
            i = end;
        }
    }
    Some((value, i))
}

/// `,` followed by exactly three digits and then no further digit.
fn group_follows(chars: &[char], comma: usize) -> bool {
    (1..=3).all(|k| chars.get(comma + k).is_some_and(|d| d.is_ascii_digit()))
        && !chars.get(comma + 4).is_some_and(|d| d.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(raw: &str) -> Option<String> {
        normalise(raw, &[])
    }

    #[test]
    fn numbers_lose_their_dress() {
        for (raw, want) in [
            ("1200", "1200"),
            ("$1,200.", "1200"),
            ("1,200 dollars", "1200"),
            ("**18** apples", "18"),
            ("3 × 6 = 18", "18"),
            ("-3.50", "-3.5"),
            ("0.250", "0.25"),
            ("\\frac{3}{4}", "0.75"),
            ("2/3", "2/3"),
            ("\\boxed{42}", "42"),
            ("50%", "50"),
            ("1,2", "1"),
        ] {
            assert_eq!(n(raw).as_deref(), Some(want), "{raw}");
        }
    }

    #[test]
    fn options_yes_no_and_names() {
        for (raw, want) in [
            ("B", "B"),
            ("(b)", "B"),
            ("c", "C"),
            ("(C) 42 meters", "C"),
            ("option D", "D"),
            ("A.", "A"),
            ("Yes.", "yes"),
            ("no, because the gap stays", "no"),
        ] {
            assert_eq!(n(raw).as_deref(), Some(want), "{raw}");
        }
        let options = vec!["PostgreSQL".to_string(), "DynamoDB".to_string()];
        assert_eq!(normalise("postgresql, with JSONB", &options).as_deref(), Some("PostgreSQL"));
        assert_eq!(normalise("A man with a plan", &[]).as_deref(), Some("man with plan"));
    }

    #[test]
    fn two_candidates_or_a_placeholder_are_no_answer() {
        for raw in ["A or B", "12 or 13", "", "  ", "unknown", "N/A", "**", "either yes or no"] {
            assert_eq!(n(raw), None, "{raw:?}");
        }
    }

    #[test]
    fn the_last_own_line_is_the_answer_and_quoted_ones_are_not() {
        let text = "I first thought 12.\nANSWER: 12\nOn reflection:\n**Answer:** 18 apples";
        let f = find(text, &[]).unwrap();
        assert_eq!((f.raw.as_str(), f.normal.as_deref()), ("18 apples", Some("18")));
        assert_eq!(&text[f.span.0..f.span.1], "**Answer:** 18 apples");
        assert_eq!(find("> ANSWER: 7\nI have not decided.", &[]), None);
        assert_eq!(find("```\nANSWER: 7\n```", &[]), None);
        let boxed = find("So the total is \\boxed{1,200}.", &[]).unwrap();
        assert_eq!(boxed.normal.as_deref(), Some("1200"));
    }
}
