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

use serde::{Deserialize, Serialize};

use crate::stance::own_words;

/// The line counted seats close with in `answer` mode.
pub(crate) const INSTRUCTION: &str = "End your reply with one line of its own: ANSWER: followed by your final answer \
     alone, as short as it can be (a number, an option's letter, yes or no, or the option's name).";

/// What the judge of a debate with a checkable answer is asked to end with.
pub(crate) const JUDGE_INSTRUCTION: &str = "End your synthesis with one line of its own: ANSWER: followed by \
     the council's final answer alone, as short as it can be (a number, an option's letter, yes or no, or the option's name).";

/// What a spec says about its question's answer (`answer` in the spec).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerSpec {
    /// The kind of answer expected; without it, any: numbers, letters, yes or
    /// no and words are each recognised as they come.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    /// The choices' texts in letter order (kind `choice`): a choice named by
    /// its text counts as its letter. At most 10 (A to J).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

/// How one debate reads its seats' answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rules {
    kind: Option<Kind>,
    /// Choice texts (kind `choice`), or option names (any kind).
    names: Vec<String>,
}

impl Rules {
    pub(crate) fn new(spec: Option<&AnswerSpec>, options: Vec<String>) -> Rules {
        match spec {
            Some(AnswerSpec { kind: Some(Kind::Choice), choices }) => {
                Rules { kind: Some(Kind::Choice), names: choices.clone() }
            }
            Some(s) => Rules { kind: s.kind, names: options },
            None => Rules { kind: None, names: options },
        }
    }

    /// The kind of answer expected, when the spec says.
    pub(crate) fn kind(&self) -> Option<Kind> {
        self.kind
    }

    /// Option names (or choice texts) an answer may give.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// What a reply gives as its answer: its answer line or closing box;
    /// without either, and when the kind is known, what [`read`] takes from
    /// its closing words ("So the answer is 27."). A line that cannot be read
    /// is no answer: nothing else in the reply stands in for it. The one reading the vote, a
    /// consensus check in answer mode and evaluations all make. A reply cut
    /// at its token limit gives none, whatever its last words were: they are
    /// working that never reached its end.
    pub(crate) fn take(&self, text: &str, cut: bool) -> Taken {
        if cut {
            return Taken::NotCounted(Uncounted::Cut);
        }
        match (self.find(text), self.kind) {
            (Some(Found { normal: Some(normal), span, .. }), _) => Taken::Given { normal, span: Some(span) },
            (Some(Found { span, .. }), _) => Taken::Unreadable { span: Some(span) },
            (None, Some(kind)) => match read(text, kind, &self.names) {
                Some(normal) => Taken::Given { normal, span: None },
                None => Taken::Absent,
            },
            (None, None) => Taken::Absent,
        }
    }

    /// The reply's answer line (or closing box), normalised by these rules.
    pub(crate) fn find(&self, text: &str) -> Option<Found> {
        let mut found = find(text, &self.names)?;
        if let Some(kind) = self.kind {
            found.normal = normalise_as(&found.raw, kind, &self.names);
        }
        Some(found)
    }
}

/// The answer a reply counts for, as the vote, answer-mode checks and
/// evaluations count it: none from a reply cut at its token limit; else its
/// `ANSWER:` line, its closing box, or (the kind known) its closing words.
pub fn counted(text: &str, cut: bool, spec: &AnswerSpec) -> Option<String> {
    Rules::new(Some(spec), Vec::new()).take(text, cut).answer().map(str::to_string)
}

/// What one reply gives as its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Taken {
    /// A readable answer, normalised; `span` is its line or box, when it has one.
    Given { normal: String, span: Option<(usize, usize)> },
    /// An answer line or box that gives no single answer ("A or B", "unknown").
    Unreadable { span: Option<(usize, usize)> },
    /// No answer in the reply.
    Absent,
    /// A reply that cannot count, whatever it says.
    NotCounted(Uncounted),
}

impl Taken {
    pub(crate) fn answer(&self) -> Option<&str> {
        match self {
            Taken::Given { normal, .. } => Some(normal),
            _ => None,
        }
    }
}

/// Why a seat's turn is not counted as an answer, a vote or an agreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Uncounted {
    /// The reply ran into its token limit: its last words are working, not a conclusion.
    Cut,
    /// The call failed (an outage, a timeout, a provider error): there is no reply.
    Failed,
    /// The provider refused to answer.
    Refused,
}

impl Uncounted {
    pub fn as_str(self) -> &'static str {
        match self {
            Uncounted::Cut => "cut at its token limit",
            Uncounted::Failed => "its call failed",
            Uncounted::Refused => "refused",
        }
    }

    /// Why a failed call gave no reply, as this type says it.
    pub fn of_failure(kind: crate::FailureKind) -> Uncounted {
        match kind {
            crate::FailureKind::Refused => Uncounted::Refused,
            _ => Uncounted::Failed,
        }
    }
}

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
    let own = own_words::mask_unclosed_fence_as_text(text);
    if ends_inside_box(&own) {
        return None;
    }
    if let Some((raw, span)) = answer_line(&own, text) {
        let normal = normalise(&raw, options);
        return Some(Found { raw, normal, span });
    }
    let boxes = last_boxes(&own, text);
    let (raw, span) = boxes.last()?.clone();
    // Two boxes in the closing paragraph that say different things are no one answer.
    let normals: Vec<Option<String>> = boxes.iter().map(|(r, _)| normalise(r, options)).collect();
    let normal = if normals.windows(2).all(|w| w[0] == w[1]) { normals[0].clone() } else { None };
    Some(Found { raw, normal, span })
}

/// What kind of answer a question expects: it decides how a reply without
/// an `ANSWER:` line or a box is read, and which forms count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A number: the reply's closing statement "… is 42" counts.
    Number,
    /// One of the lettered choices: a letter, or a choice's own text.
    Choice,
    /// Yes or no.
    YesNo,
}

/// The final answer of a reply to a question of `kind`, normalised; `None`
/// when it gives none that can be read. `choices` are the options' texts, in
/// letter order (A first). In order: the last own `ANSWER:` line; the boxes
/// of the closing paragraph (all saying the same); an "answer is …" phrase;
/// then by kind — a number in the closing statement, a lettered line or a
/// choice's text closing the reply, a yes or no standing alone.
pub fn read(text: &str, kind: Kind, choices: &[String]) -> Option<String> {
    let own = without_references(&own_words::mask_unclosed_fence_as_text(text));
    if ends_inside_box(&own) {
        return None;
    }
    if let Some((raw, _)) = answer_line(&own, text) {
        if kind == Kind::Choice && lines_disagree(&own) {
            return None;
        }
        return normalise_as(&raw, kind, choices);
    }
    let boxes = last_boxes(&own, text);
    if !boxes.is_empty() {
        let normals: Vec<Option<String>> = boxes.iter().map(|(r, _)| normalise_as(r, kind, choices)).collect();
        return if normals.windows(2).all(|w| w[0] == w[1]) { normals[0].clone() } else { None };
    }
    if let Some(raw) = answer_phrase(&own, text) {
        let normal = normalise_as(&raw, kind, choices);
        // "my updated answer is: A government entity is required to include …
        // (C) because …": the phrase opens a sentence of prose that names one
        // choice by its letter, and denies none. A hedge ("the answer is
        // likely (B)") stays unreadable.
        if normal.is_none() && kind == Kind::Choice && !hedged(&raw) {
            return sole_letter(&raw, choices);
        }
        return normal;
    }
    match kind {
        // What the reply attributes or refers to is blanked in `own`; numbers are read from it.
        Kind::Number => closing_number(&own, &own),
        Kind::Choice => closing_choice(&own, text, choices).or_else(|| restated_option(&own, choices)),
        Kind::YesNo => standing_yes_no(&own),
    }
}

/// Words that name another agent, a step or a solution by number: "Agent 1's
/// solution", "Speaker 2", "step 3". Their numbers are names, not answers.
const REFERENCES: &[&str] = &[
    "agent",
    "agents",
    "speaker",
    "solution",
    "solutions",
    "step",
    "steps",
    "response",
    "round",
    "participant",
    "expert",
];

/// `own` with the number after each reference word blanked ("Agent 1" → "Agent  ").
fn without_references(own: &str) -> String {
    let mut out = own.as_bytes().to_vec();
    let lower = own.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphabetic() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let end = (i..b.len()).find(|&k| !b[k].is_ascii_alphabetic()).unwrap_or(b.len());
        if REFERENCES.contains(&&lower[i..end]) {
            let mut k = end;
            while k < b.len() && matches!(b[k], b' ' | b'#') {
                k += 1;
            }
            while k < b.len() && b[k].is_ascii_digit() {
                out[k] = b' ';
                k += 1;
            }
        }
        i = end;
    }
    String::from_utf8(out).unwrap_or_else(|_| own.to_string())
}

/// `raw` as an answer of `kind`: a number for `Number`, a letter for
/// `Choice` (a choice's text gives its letter), yes or no for `YesNo`.
pub fn normalise_as(raw: &str, kind: Kind, choices: &[String]) -> Option<String> {
    let text = strip_markup(raw);
    let lower = text.to_lowercase();
    if lower.split(|c: char| !c.is_alphanumeric() && c != '/').any(|w| HEDGES.contains(&w)) {
        // An "or" in the prose an answer line runs on into hedges nothing
        // about the letter it opens with ("B Eczematous dermatitis The
        // effectiveness … chronic or acute forms … Therefore, option B is
        // correct."); "A or B" stays unread.
        return if kind == Kind::Choice { letter_then_sentence(&text, choices) } else { None };
    }
    match kind {
        Kind::Number => {
            // Working with two results ("3 + 15 = 18 … = 3") is not one answer.
            let results: Vec<Option<String>> = text.split('=').skip(1).map(first_number).collect();
            if results.windows(2).any(|w| w[0] != w[1]) {
                return None;
            }
            let tail = text.rsplit('=').next().unwrap_or(&text);
            if is_range(tail) {
                return None;
            }
            first_number(tail)
        }
        Kind::Choice => {
            // "(X)" is a template's placeholder left in: what follows it may still name a choice.
            let rest = text.trim_start().strip_prefix("(X)").map_or(text.as_str(), str::trim_start);
            let rest = ["indeed ", "clearly ", "still ", "definitely "]
                .iter()
                .find_map(|w| rest.get(..w.len()).filter(|h| h.eq_ignore_ascii_case(w)).map(|_| &rest[w.len()..]))
                .unwrap_or(rest);
            if letters_named(rest) > 1 {
                return None;
            }
            // A letter past the listed options names none of them ("Final
            // Answer: D - No Change is observed." with options A–C); with no
            // options listed, up to J (added after held-out batch 10's first read).
            let letters = if choices.is_empty() { 10 } else { choices.len() };
            let letter = option_letter(rest).filter(|l| letter_index(l) < letters);
            // "the correct answer is the unilateral fixed dilated pupil": a
            // choice's text after an article names it (added after held-out
            // batch 5's first read).
            let given = rest;
            let rest = match letter {
                None if choice_by_text(rest, choices).is_none() => without_article(rest),
                _ => rest,
            };
            let Some(named) = letter.or_else(|| choice_by_text(rest, choices)) else {
                return letter_then_sentence(given, choices);
            };
            (!denied_after(rest, &named, choices)).then_some(named)
        }
        Kind::YesNo => match lower.split(|c: char| !c.is_alphanumeric()).find(|w| !w.is_empty()) {
            Some("yes") | Some("true") => Some("yes".into()),
            Some("no") | Some("false") => Some("no".into()),
            _ => None,
        },
    }
}

/// "B Your reasoning accurately identifies …", "D The correct response …",
/// "C DEN The other choices …", "A: Figure of 8 Your reasoning …": an
/// answer line whose letter runs on, the line break lost, into a new
/// sentence — after the letter (and that choice's own text, if restated) a
/// capitalised word. The letter is the answer; "A or B", "A man …" and a
/// letter followed by anything else stay unread (added after held-out batch
/// 8's first read).
fn letter_then_sentence(value: &str, choices: &[String]) -> Option<String> {
    let v = value.trim_start();
    let mut chars = v.chars();
    let l = chars.next()?;
    if !l.is_ascii_uppercase() || letter_index(&l.to_string()) >= choices.len() {
        return None;
    }
    let rest = chars.as_str().strip_prefix([':', '.', ')']).unwrap_or(chars.as_str());
    if !rest.starts_with(' ') {
        return None;
    }
    let mut rest = rest.trim_start();
    let own = &choices[letter_index(&l.to_string())];
    if rest.len() >= own.len() && rest.get(..own.len()).is_some_and(|h| h.eq_ignore_ascii_case(own)) {
        rest = rest[own.len()..].trim_start_matches(['.', ':']).trim_start();
    }
    let word: String = rest.chars().take_while(|c| c.is_alphabetic() || *c == '\'').collect();
    let opens = word.chars().next().is_some_and(char::is_uppercase) && word.chars().skip(1).any(char::is_lowercase);
    // The sentence that follows must come back to the same letter ("…
    // Therefore, option B is correct."), and name no other last: a letter
    // followed by "Disagree with my initial stance …" is withdrawn, not given.
    let words = words_of(rest);
    let last_named = words
        .windows(2)
        .filter(|w| matches!(w[0].as_str(), "option" | "choice" | "selection"))
        .map(|w| w[1].to_ascii_uppercase())
        .rfind(|w| w.len() == 1);
    (opens && last_named.as_deref() == Some(l.to_string().as_str())).then(|| l.to_string())
}

/// "11-19", "11 to 19", "between 11 and 19": a range is not one number.
fn is_range(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let b = lower.as_bytes();
    let dash = (1..b.len().saturating_sub(1))
        .any(|i| matches!(b[i], b'-' | b'~') && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit());
    dash || lower.contains("between") || (lower.contains(" to ") && last_number(&lower) != first_number(&lower))
}

/// How many different letters A–J the text names as choices: `(C)`, `C)`.
fn letters_named(text: &str) -> usize {
    let b = text.as_bytes();
    let mut seen: Vec<u8> = Vec::new();
    for i in 0..b.len() {
        let letter = (b'A'..=b'J').contains(&b[i]);
        let closed = b.get(i + 1) == Some(&b')');
        let alone_before = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if letter && closed && alone_before && !seen.contains(&b[i]) {
            seen.push(b[i]);
        }
    }
    seen.len()
}

/// The words after the choice named say it is wrong ("protectorates
/// (incorrect)"), or are another choice's text ("C) …" with D's words).
fn denied_after(text: &str, letter: &str, choices: &[String]) -> bool {
    let words = words_of(text);
    let chosen = choices.get(letter_index(letter)).map(|c| words_of(c)).unwrap_or_default();
    // Skip the letter (if given) and the choice's own text (if repeated).
    let mut rest: &[String] = &words;
    if rest.first().is_some_and(|w| matches!(w.as_str(), "option" | "choice" | "answer")) {
        rest = &rest[1..];
    }
    if rest.first().is_some_and(|w| w.eq_ignore_ascii_case(letter)) {
        rest = &rest[1..];
    }
    if !chosen.is_empty() && rest.len() >= chosen.len() && rest[..chosen.len()] == chosen[..] {
        rest = &rest[chosen.len()..];
    }
    // A letter followed by another choice's own text contradicts itself.
    let other = choices.iter().enumerate().any(|(i, c)| {
        let c = words_of(c);
        i != letter_index(letter) && !c.is_empty() && c != chosen && rest.len() >= c.len() && rest[..c.len()] == c[..]
    });
    if other {
        return true;
    }
    let next: Vec<&str> = rest.iter().take(2).map(String::as_str).collect();
    matches!(next.as_slice(), ["incorrect", ..] | ["wrong", ..] | ["is", "incorrect"] | ["is", "wrong"] | ["is", "not"])
}

/// `text` without a leading "the", "a" or "an".
fn without_article(text: &str) -> &str {
    ["the ", "a ", "an "]
        .iter()
        .find_map(|a| text.get(..a.len()).filter(|h| h.eq_ignore_ascii_case(a)).map(|_| text[a.len()..].trim_start()))
        .unwrap_or(text)
}

fn letter_index(letter: &str) -> usize {
    letter.bytes().next().map_or(usize::MAX, |b| (b - b'A') as usize)
}

/// A choice named by its own text at the start of `text`: its letter.
fn choice_by_text(text: &str, choices: &[String]) -> Option<String> {
    let said = words_of(text);
    if said.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None;
    for (i, choice) in choices.iter().enumerate().take(10) {
        let c = words_of(choice);
        if !c.is_empty() && said.len() >= c.len() && said[..c.len()] == c[..] && best.is_none_or(|(_, n)| c.len() > n) {
            best = Some((i, c.len()));
        }
    }
    best.map(|(i, _)| char::from(b'A' + i as u8).to_string())
}

fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

fn answer_line(own: &str, text: &str) -> Option<(String, (usize, usize))> {
    let mut found = None;
    let mut at = 0;
    // A key heading its own line ("### Final Answer:") whose value stands on
    // the next non-empty line as an option letter ("**B. Reserves decrease
    // …**") (added after held-out batch 10's first read).
    let mut heading = false;
    for line in own.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if heading && !line.trim().is_empty() {
            heading = false;
            let value = strip_markup(line.trim());
            let mut cs = value.chars();
            let lettered = cs.next().is_some_and(|c| c.is_ascii_uppercase())
                && cs.next().is_none_or(|c| matches!(c, '.' | ')' | ':'))
                && cs.next().is_none_or(|c| c == ' ');
            if lettered {
                let end = start + line.trim_end().len();
                let first = start + line.len() - line.trim_start().len();
                found = Some((text[first..end].trim().to_string(), (first, end)));
                continue;
            }
        }
        let keyed = own_words::keyed(line, "answer")
            .or_else(|| own_words::keyed(line, "final answer"))
            .map(|(_, value)| value)
            .or_else(|| inline_key(line))
            .or_else(|| choice_line(line))
            .map(past_colons);
        let Some(value) = keyed else { continue };
        let end = start + line.trim_end().len();
        let value_start = end - value.trim_end().len();
        let raw = text[value_start..end].trim().trim_start_matches(['*', '_']).trim();
        if !raw.is_empty() {
            found = Some((raw.to_string(), (start + line.len() - line.trim_start().len(), end)));
        } else {
            heading = true;
        }
    }
    found
}

/// An answer line's value past any further colons: "Final Answer:: A" keys
/// "A" as "Final Answer: A" does, a doubled colon being a slip of the pen, not
/// a value (added after held-out batch 9's first read).
fn past_colons(value: &str) -> &str {
    value.trim_start_matches([':', '：', ' '])
}

/// `ANSWER:` (in capitals) or "final answer:" written inside a line, after
/// other words: the value after the last one, to the end of the line.
fn inline_key(line: &str) -> Option<&str> {
    let lower = line.to_ascii_lowercase();
    let upper_at = line
        .rmatch_indices("ANSWER")
        .map(|(i, _)| (i, i + 6))
        .find(|&(_, end)| line[end..].trim_start_matches(['*', '_', ' ']).starts_with(':'));
    let final_at = lower
        .rmatch_indices("final answer")
        .map(|(i, _)| (i, i + 12))
        .find(|&(_, end)| lower[end..].trim_start_matches(['*', '_', ' ']).starts_with(':'));
    let (at, end) = upper_at.into_iter().chain(final_at).max_by_key(|(at, _)| *at)?;
    // A word that merely ends in the key ("REANSWER:") is not it.
    if line[..at].chars().next_back().is_some_and(char::is_alphanumeric) {
        return None;
    }
    let value = line[end..].trim_start_matches(['*', '_', ' ']).strip_prefix(':')?;
    Some(value)
}

/// "My Answer: B …" and, further on, "Answer: A (…)": a reply whose own
/// answer lines open with different letters gives two answers, not the last
/// one (added after held-out batch 8's first read).
fn lines_disagree(own: &str) -> bool {
    let mut letters: Vec<String> = Vec::new();
    for line in own.lines() {
        let value = ["answer", "final answer", "my answer", "my final answer"]
            .iter()
            .find_map(|k| own_words::keyed(line, k).map(|(_, v)| v))
            .or_else(|| inline_key(line))
            .or_else(|| choice_line(line))
            .map(past_colons);
        let Some(value) = value else { continue };
        let plain = strip_markup(value);
        let first: String = plain.chars().take(2).collect();
        let lone = first.len() == 1 || first.chars().nth(1).is_some_and(|c| !c.is_alphanumeric());
        if let Some(l) = option_letter(&first).filter(|_| lone) {
            letters.push(l);
        }
    }
    letters.windows(2).any(|w| w[0] != w[1])
}

/// "Answer Choice: B", "**Final Answer Choice:** C (E2V1M3)", "… the
/// correct answer. Answer Choice: D.": the value after the last "answer
/// choice:" of the line, when it is a letter standing alone (with, at most,
/// a few words of its choice's text). The same words opening a restated
/// prompt ("Answer choice: B. Do you agree or disagree?") are no answer line,
/// so they do not hide the reply's closing box (added after held-out batch
/// 8's first read).
fn choice_line(line: &str) -> Option<&str> {
    let lower = line.to_ascii_lowercase();
    let (_, end) =
        lower.rmatch_indices("answer choice").map(|(i, _)| (i, i + "answer choice".len())).find(|&(i, end)| {
            !line[..i].chars().next_back().is_some_and(char::is_alphanumeric)
                && lower[end..].trim_start_matches(['*', '_', ' ']).starts_with(':')
        })?;
    let value = line[end..].trim_start_matches(['*', '_', ' ']).strip_prefix(':')?;
    let plain = strip_markup(value);
    let short = option_letter(&plain).is_some() && !plain.contains('?') && words_of(&plain).len() <= 6;
    short.then_some(value)
}

/// The reply stops inside its last `\boxed{` ("BOXED_ANSWER: \boxed{2"): it
/// was cut where its answer was being written, so whatever stands there, or
/// in an earlier box, is not known to be its answer (added after held-out
/// batch 4's first read).
fn ends_inside_box(own: &str) -> bool {
    let Some(at) = own.rfind("\\boxed{") else { return false };
    let mut depth = 0usize;
    for c in own[at + "\\boxed".len()..].chars() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    true
}

/// Every `\boxed{…}` in the closing paragraph that holds one: its text and span.
fn last_boxes(own: &str, text: &str) -> Vec<(String, (usize, usize))> {
    let mut boxes = Vec::new();
    let mut from = 0;
    while let Some(at) = own[from..].find("\\boxed{") {
        let start = from + at;
        let open = start + "\\boxed{".len();
        let mut depth = 1;
        let mut close = None;
        for (i, c) in own[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(close) = close else { break };
        boxes.push((text[open..close].to_string(), (start, close + 1)));
        from = close + 1;
    }
    // A box that holds no answer — "\\boxed{?}" before the working, the
    // prompt's "\\boxed{{letter}}" quoted back — gives none and says
    // nothing against the boxes that do (added after held-out batch 8's
    // first read).
    boxes.retain(|(raw, _)| !placeholder_box(raw));
    // Only the last paragraph with a box: earlier boxes are working.
    let Some(&(_, (last, _))) = boxes.last() else { return boxes };
    let paragraph = own[..last].rfind("\n\n").map_or(0, |p| p + 2);
    boxes.retain(|(_, (start, _))| *start >= paragraph);
    boxes
}

/// A box's text that is a template's slot or a question mark, not an answer.
fn placeholder_box(raw: &str) -> bool {
    let t = raw.trim().trim_matches(['{', '}', ' ']).to_ascii_lowercase();
    matches!(t.as_str(), "" | "?" | "x" | "letter" | "answer" | "your answer" | "correct option letter")
}

/// "the answer is X", "the final answer is: X", "answer would be X": the
/// last such phrase of the reply's own words, up to the end of its sentence
/// (or the next line's text when the phrase ends its line).
fn answer_phrase(own: &str, text: &str) -> Option<String> {
    let lower = own.to_ascii_lowercase();
    let mut best = None;
    for phrase in ["answer is", "answer would be", "answer should be", "answer:"] {
        if let Some(at) = lower.rfind(phrase)
            && best.is_none_or(|(b, _)| at > b)
        {
            best = Some((at, at + phrase.len()));
        }
    }
    let (at, end) = best?;
    // Only a phrase in the closing paragraphs, or one that ends the paragraph
    // before them ("the answer is:" then the answer alone): an "answer" earlier
    // on is working or someone else's.
    // The closing two paragraphs: an apology or a sign-off may follow the answer.
    let last = last_paragraph(own);
    let closing = last_paragraph(&own[..last.saturating_sub(2)]);
    if at < closing && !own[end..closing].trim_matches(|c: char| c.is_whitespace() || c == ':' || c == '*').is_empty() {
        return None;
    }
    let rest = text[end..].trim_start_matches([':', ' ', '*', '\t']);
    let mut rest = rest.trim_start_matches(['\n', '\r', ' ', ':']);
    // "my updated answer is also C) 54%", "the answer is still (B)": an adverb
    // between the phrase and the answer changes nothing. A hedge ("likely")
    // is not among them: it stays and makes the answer unreadable.
    while let Some((word, after)) = rest.split_once(' ')
        && matches!(
            word.to_ascii_lowercase().as_str(),
            "also" | "still" | "indeed" | "again" | "now" | "clearly" | "definitely"
        )
    {
        rest = after.trim_start();
    }
    let sentence = rest.split(['\n']).next()?.trim();
    let sentence = sentence.split(". ").next().unwrap_or(sentence).trim();
    // "So the answer should be 91?": asked, not concluded (added after held-out
    // batch 4's first read).
    if sentence.ends_with('?') {
        return None;
    }
    (!sentence.is_empty()).then(|| sentence.to_string())
}

/// The last sentence of the reply's own words that holds a number: the
/// number after its last "is" or "=", else its last number.
fn closing_number(own: &str, text: &str) -> Option<String> {
    // Only the closing paragraph: a number earlier on is working, not the answer.
    let from = last_paragraph(own);
    // Of its last two statements (a question is the prompt echoed, not a
    // conclusion; a sign-off may follow), the last with a number.
    let statements = sentences(&own[from..], &text[from..]);
    // A sentence giving the reason ("This is because … = 16 towels") justifies
    // the conclusion before it: its numbers are working.
    let reason = |s: &str| {
        let s = s.trim_start().to_ascii_lowercase();
        ["this is because", "that is because", "because ", "since ", "this is due"].iter().any(|p| s.starts_with(p))
    };
    let closing: Vec<&String> =
        statements.iter().rev().filter(|s| !s.trim_end().ends_with('?') && !reason(s)).take(2).collect();
    let sentence = (*closing.iter().find(|s| s.chars().any(|c| c.is_ascii_digit()))?).clone();
    let sentence = before_reason(&sentence).to_string();
    let lower = sentence.to_ascii_lowercase();
    // "…, so I cannot provide an updated answer": a closing that declines to
    // answer gives none, whatever numbers of the question it repeats.
    if DECLINES.iter().any(|w| lower.contains(w)) {
        return None;
    }
    // "1.5 million dollars": a scale word the canonical form does not carry.
    if ["million", "billion", "thousand", "trillion"].iter().any(|w| lower.contains(w)) {
        return None;
    }
    // "… is 42", "= 42": the number the sentence concludes with. Not "which is
    // enough to make 4 pies": a relative clause describes, it does not conclude.
    let after = [" is ", "= ", " be ", " are "]
        .iter()
        .filter_map(|k| lower.rfind(k).map(|i| (i, i + k.len())))
        .filter(|&(i, _)| {
            let before = lower[..i].trim_end();
            !["which", "that", "what", "there", "it"].iter().any(|w| {
                before.ends_with(w) && !before[..before.len() - w.len()].ends_with(|c: char| c.is_ascii_alphanumeric())
            })
        })
        .map(|(_, end)| end)
        // The concluded number follows its verb closely ("is $422", "= 22"):
        // "This is because Jasper has half as many (4 tubes)" concludes nothing.
        .filter(|&end| {
            let words: Vec<&str> = lower[end..].split_whitespace().take(3).collect();
            words.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()))
        })
        .max();
    let candidate = after.map_or(sentence.as_str(), |i| &sentence[i..]);
    if is_range(candidate) {
        return None;
    }
    let numbers = numbers_in(&sentence);
    let mut distinct: Vec<&String> = numbers.iter().map(|(n, _)| n).collect();
    crate::order::sort(&mut distinct);
    distinct.dedup();
    // "$150, making the total 1.11", "is $40, leaving 60 for rent": a clause
    // that concludes another number after the first makes two answers.
    let consequence = CONSEQUENCES.iter().filter_map(|w| lower.find(w)).min();
    if let Some(at) = consequence {
        let before: Vec<String> = numbers_in(&sentence[..at]).into_iter().map(|(n, _)| n).collect();
        let after: Vec<String> = numbers_in(&sentence[at..]).into_iter().map(|(n, _)| n).collect();
        if !before.is_empty() && after.iter().any(|n| !before.contains(n)) {
            return None;
        }
    }
    // "12 miles is equivalent to 4 Amber runs": a reply that leads with one
    // number and concludes another says two things.
    let leads = sentence.trim_start().trim_start_matches(['*', '$', '(']).starts_with(|c: char| c.is_ascii_digit());
    if leads && distinct.len() > 1 {
        return None;
    }
    if let Some(n) = after.and_then(|i| first_number(&sentence[i..])) {
        return Some(n);
    }
    // No concluding verb: one number is the answer; of several, the one the
    // reply marks (bold, or money), else none — refuse rather than guess
    // ("She will earn $132 after 12 hours" is 132, "48 grapes make 4 pies" is neither).
    if distinct.len() == 1 {
        return Some(distinct[0].clone());
    }
    let marked: Vec<&String> = numbers.iter().filter(|(_, marked)| *marked).map(|(n, _)| n).collect();
    // A sentence that ends on a bare number concludes with it ("…, making the
    // total 1.11."): a marked number before it is one of two answers.
    let ends_on = |n: &String| {
        let tail = sentence.trim_end().trim_end_matches(['.', '!', ')', '*']);
        let last = tail.rsplit(char::is_whitespace).next().unwrap_or("");
        first_number(last).is_some_and(|l| &l != n) && !last.starts_with('$')
    };
    match marked.as_slice() {
        [one, rest @ ..] if rest.iter().all(|n| n == one) && !ends_on(one) => Some((*one).clone()),
        _ => None,
    }
}

/// Words that open a clause concluding a further number from the one before
/// it ("$150, making the total 1.11").
const CONSEQUENCES: &[&str] = &[
    " making ",
    " leaving ",
    " giving ",
    " bringing ",
    " resulting in ",
    " for a total of ",
    " totaling ",
    " totalling ",
    // "is $419,500, which exceeds the budget by $19,500": a relative clause
    // with a number of its own is a second result.
    ", which ",
    ", that ",
];

/// A closing sentence that says the reply gives no answer.
const DECLINES: &[&str] = &[
    "cannot provide",
    "can't provide",
    "cannot answer",
    "can't answer",
    "cannot be determined",
    "cannot determine",
    "not possible to determine",
    "unable to determine",
    "unable to provide",
    "does not provide any information",
    "not enough information",
];

/// The sentence up to a clause that gives its reason ("Ahito ran 16 miles,
/// since 8 + 28 = 36 miles"): the reason's numbers are working. The whole
/// sentence when nothing with a number comes before the clause.
fn before_reason(sentence: &str) -> &str {
    let lower = sentence.to_ascii_lowercase();
    let at = [" because ", " since ", " given that ", " due to ", " as shown by "]
        .iter()
        .filter_map(|w| lower.find(w))
        .min();
    match at {
        Some(at) if sentence[..at].chars().any(|c| c.is_ascii_digit()) => &sentence[..at],
        _ => sentence,
    }
}

/// Every number in `text`, canonical, each with whether it is marked as a
/// result: in bold, or a sum of money.
fn numbers_in(text: &str) -> Vec<(String, bool)> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_digit() && chars[i - 1] != '.') {
            let negative = i > 0 && matches!(chars[i - 1], '-' | '−') && (i < 2 || !chars[i - 2].is_alphanumeric());
            let Some((value, end)) = number_at(&chars, i) else { return found };
            let value = if negative { Ratio { num: -value.num, den: value.den } } else { value };
            let before: String = chars[i.saturating_sub(3)..i].iter().collect();
            let after: String = chars[end..(end + 2).min(chars.len())].iter().collect();
            let marked = before.ends_with('$') || before.ends_with("**") || after.starts_with("**");
            found.push((value.to_string(), marked));
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// Where the last paragraph with any text of its own starts.
fn last_paragraph(own: &str) -> usize {
    let body = own.trim_end();
    let mut from = body.len();
    loop {
        match body[..from].rfind("\n\n") {
            Some(p) if body[p..].trim().is_empty() => from = p,
            Some(p) => return p + 2,
            None => return 0,
        }
    }
}

/// The reply's closing line names a choice: `(D) 45,X`, `D) 45,X`, or a
/// choice's own text after a leftover `(X)`.
fn closing_choice(own: &str, text: &str, choices: &[String]) -> Option<String> {
    let line = last_sentence_where(own, text, |s| !s.trim().is_empty())?;
    // "Capitalism is merely Earth's method—its tool of conquest—not the gift":
    // a choice's text opening a sentence that goes on is its subject, not the
    // answer named (added after held-out batch 7's first read).
    if !text_opens_clause(&line, choices)
        && let Some(letter) = normalise_as(&line, Kind::Choice, choices)
    {
        return Some(letter);
    }
    // A closing line that opens with a letter and was refused above stays refused.
    if option_letter(&strip_markup(&line)).is_some() || line.trim_start().starts_with("(X)") {
        return None;
    }
    // "…, the most accurate statement is (D)." The closing sentence names
    // one choice by its letter and does not deny it.
    let sentence = last_sentence_where(own, own, |s| !s.trim().is_empty())?;
    sole_letter(&sentence, choices).or_else(|| verdict_letter(&sentence, choices))
}

/// "(C) The ones related to the divergence and the curl of the magnetic
/// field." as the reply's first line, or after a line that leads into it
/// ("… the correct product is:"), then prose naming no letter: the reply
/// gives its choice by restating an option whole, letter and every word of
/// its text. Read only when that line is the one such line, the reply names
/// no other option by letter, the lead-in is not hedged ("likely:") and no
/// word after it denies a choice (added after held-out batch 12's first read).
fn restated_option(own: &str, choices: &[String]) -> Option<String> {
    let lines: Vec<&str> = own.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let whole = |line: &str| -> Option<String> {
        let rest = line.strip_prefix('(')?;
        let mut chars = rest.chars();
        let letter = chars.next()?;
        let text = chars.as_str().strip_prefix(") ")?;
        let i = letter_index(&letter.to_string());
        let choice = words_of(choices.get(i)?);
        (!choice.is_empty() && words_of(text) == choice).then(|| letter.to_string())
    };
    let found: Vec<(usize, String)> = lines.iter().enumerate().filter_map(|(k, l)| Some((k, whole(l)?))).collect();
    let [(at, letter)] = found.as_slice() else { return None };
    if letters_in(own, choices.len()).iter().any(|l| l != letter) {
        return None;
    }
    let led_in = *at == 0 || lines[at - 1].ends_with(':') && !hedged(lines[at - 1]);
    let after = lines[at + 1..].join(" ").to_ascii_lowercase();
    let denied = after.split(|c: char| !c.is_ascii_alphanumeric() && c != '\'').any(|w| {
        matches!(w, "not" | "incorrect" | "wrong" | "isn't" | "false" | "eliminate" | "unlikely") || ERRS.contains(&w)
    });
    (led_in && !denied).then(|| letter.clone())
}

/// A choice named by its text, without its letter, at the start of `line`,
/// with words of the sentence after it: the choice is the sentence's subject.
fn text_opens_clause(line: &str, choices: &[String]) -> bool {
    let stripped = strip_markup(line);
    if option_letter(&stripped).is_some() {
        return false;
    }
    let said = words_of(&stripped);
    let said = match said.first().map(String::as_str) {
        Some("the" | "a" | "an") => &said[1..],
        _ => &said[..],
    };
    choices.iter().any(|c| {
        let c = words_of(c);
        !c.is_empty() && said.len() > c.len() && said[..c.len()] == c[..]
    })
}

/// Verbs that say the choice before them errs: "Answer B mistakes the means
/// for the end", "B overclaims knowledge the neighbor never had".
const ERRS: &[&str] =
    &["mistakes", "overclaims", "overstates", "overreaches", "confuses", "misreads", "fails", "misses", "ignores"];

/// A bare capital letter the closing sentence judges right — "Therefore, A
/// is correct.", "So A is the better answer, not B.", "That fits A far
/// better than B.", "…making A the better answer.", "So A fits; B overclaims
/// …" — when it judges exactly one letter right and every other letter it
/// names wrong ("not B", "than B", "B overclaims"). Anything else, or a
/// hedge, stays unreadable (added after held-out batch 7's first read).
fn verdict_letter(sentence: &str, choices: &[String]) -> Option<String> {
    if hedged(sentence) {
        return None;
    }
    let max = b'A' + choices.len().clamp(1, 10) as u8;
    // Words, and a mark where a comma, semicolon, colon, dash or bracket
    // parts them: "A fits; B overclaims" does not have B after "fits".
    let mut words: Vec<&str> = Vec::new();
    let mut start = None;
    for (i, c) in sentence.char_indices() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            words.push(&sentence[s..i]);
        }
        if matches!(c, ',' | ';' | ':' | '—' | '–' | '(' | ')') {
            words.push("|");
        }
    }
    if let Some(s) = start {
        words.push(&sentence[s..]);
    }
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let at = |k: usize| lower.get(k).map_or("", String::as_str);
    let good = |w: &str| matches!(w, "correct" | "right" | "better" | "best" | "stronger" | "strongest");
    let (mut right, mut wrong, mut other) = (Vec::new(), Vec::new(), Vec::new());
    for (k, w) in words.iter().enumerate() {
        let b = w.as_bytes();
        if b.len() != 1 || !(b'A'..max).contains(&b[0]) {
            continue;
        }
        let before = if k == 0 { "" } else { at(k - 1) };
        // "… I select 'A' as the final answer." (added after held-out batch 10's first read)
        let as_answer = at(k + 1) == "as"
            && at(k + 2) == "the"
            && (at(k + 3) == "answer" || (at(k + 3) == "final" && at(k + 4) == "answer"));
        let judged_right = at(k + 1) == "fits"
            || as_answer
            || (at(k + 1) == "is" && (good(at(k + 2)) || (at(k + 2) == "the" && good(at(k + 3)))))
            || (before == "making" && at(k + 1) == "the" && good(at(k + 2)))
            || before == "fits";
        let judged_wrong = matches!(before, "not" | "than")
            || ERRS.contains(&at(k + 1))
            || (at(k + 1) == "is" && matches!(at(k + 2), "wrong" | "incorrect" | "not" | "weaker" | "worse"));
        match (judged_right, judged_wrong) {
            (true, false) => right.push(*w),
            (false, true) => wrong.push(*w),
            _ => other.push(*w),
        }
    }
    right.dedup();
    // A letter named again without a judgement is the same answer ("…
    // consensus of Point B as the final answer", after "→ Point B)"); any
    // other letter left unjudged leaves the sentence open (added after
    // held-out batch 10's first read).
    match right.as_slice() {
        [one] if other.iter().all(|o| o == one) && !wrong.contains(one) => Some(one.to_string()),
        _ => None,
    }
}

/// Words that leave an answer open: "likely (B)", "perhaps C".
fn hedged(text: &str) -> bool {
    words_of(text).iter().any(|w| {
        matches!(w.as_str(), "likely" | "probably" | "perhaps" | "maybe" | "possibly" | "might" | "either" | "unsure")
    })
}

/// The one choice a sentence names by its letter, when it names exactly one
/// and no word of it denies a choice ("not", "incorrect", "eliminate" …).
fn sole_letter(sentence: &str, choices: &[String]) -> Option<String> {
    let letters = letters_in(sentence, choices.len());
    let lower = sentence.to_ascii_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| !c.is_ascii_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect();
    // "the correct EXCEPT choice is (C)": "except" naming the kind of
    // question, before "choice", "answer" or "option", denies nothing (added
    // after held-out batch 5's first read).
    // "except option C" still leaves C out.
    let label = |k: usize| {
        words.get(k + 1).is_some_and(|n| matches!(*n, "choice" | "answer" | "option"))
            && !words.get(k + 2).is_some_and(|l| l.len() == 1 && (b'a'..=b'j').contains(&l.as_bytes()[0]))
    };
    let denied = words.iter().enumerate().any(|(k, w)| {
        matches!(*w, "not" | "incorrect" | "wrong" | "isn't" | "false" | "eliminate" | "unlikely")
            || ERRS.contains(w)
            || (*w == "except" && !label(k))
    });
    match letters.as_slice() {
        [one] if !denied => Some(one.clone()),
        _ => None,
    }
}

/// The distinct choice letters a sentence names: `(D)`, `option D`, `choice D`, `answer D`.
fn letters_in(sentence: &str, choices: usize) -> Vec<String> {
    let b = sentence.as_bytes();
    let lower = sentence.to_ascii_lowercase();
    let max = b'A' + choices.clamp(1, 10) as u8;
    let mut seen: Vec<String> = Vec::new();
    for i in 0..b.len() {
        let letter = b[i];
        if !(b'A'..max).contains(&letter) || b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        let bracketed = i > 0 && b[i - 1] == b'(' && b.get(i + 1) == Some(&b')');
        // "the answer 'A'", "choice 'C'": the letter quoted after its label
        // is named as well (added after held-out batch 10's first read).
        let quoted = b.get(i + 1) == Some(&b'\'')
            && ["option '", "choice '", "answer '"].iter().any(|w| lower[..i].ends_with(w));
        let named = quoted || ["option ", "choice ", "answer "].iter().any(|w| lower[..i].ends_with(w));
        if (bracketed || named) && !seen.iter().any(|l| l.as_bytes()[0] == letter) {
            seen.push(char::from(letter).to_string());
        }
    }
    seen
}

/// The first "yes" or "no" that stands alone: quoted, or opening a sentence.
fn standing_yes_no(own: &str) -> Option<String> {
    let lower = own.to_ascii_lowercase();
    let mut hits: Vec<(usize, &str)> = Vec::new();
    for w in ["yes", "no"] {
        for (i, _) in lower.match_indices(w) {
            let before = lower[..i].trim_end_matches(' ').chars().next_back();
            let after = lower[i + w.len()..].chars().next();
            let alone_before = before.is_none_or(|c| matches!(c, '\'' | '"' | ':' | '.' | '\n' | '{' | '(' | '*'));
            let alone_after = after.is_none_or(|c| matches!(c, '\'' | '"' | ',' | '.' | '!' | '\n' | '}' | ')' | '*'));
            if alone_before && alone_after {
                hits.push((i, w));
            }
        }
    }
    hits.iter().min_by_key(|(i, _)| *i).map(|(_, w)| w.to_string())
}

/// Whether byte `i` of `own` ends a sentence (or line): a line break, or
/// `.`, `!` or `?` before a space or the end (so a decimal point does not),
/// but not the point of a title ("Ms. B pumped…").
fn ends_sentence(own: &str, i: usize) -> bool {
    let bytes = own.as_bytes();
    if i == bytes.len() || bytes[i] == b'\n' {
        return true;
    }
    if !(matches!(bytes[i], b'.' | b'!' | b'?') && bytes.get(i + 1).is_none_or(u8::is_ascii_whitespace)) {
        return false;
    }
    if bytes[i] != b'.' {
        return true;
    }
    // A sentence opens with a capital, a digit or a mark: a point followed by a
    // lower-case word ("approx. five") is an abbreviation's.
    let next = own[i + 1..].trim_start().chars().next();
    if next.is_some_and(char::is_lowercase) {
        return false;
    }
    let word = own[..i].rsplit(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("").to_ascii_lowercase();
    // "e.g.", "i.e.": the point of a one-letter word after another point.
    let dotted = word.len() == 1 && own[..i - 1].ends_with('.');
    !(dotted || ABBREVIATIONS.contains(&word.as_str()))
}

/// Words whose point ends no sentence ("Ms. B pumped…", "Prof. Kim", "No. 4").
const ABBREVIATIONS: &[&str] = &[
    "mr", "ms", "mrs", "dr", "st", "vs", "jr", "sr", "prof", "mt", "ft", "no", "approx", "inc", "ltd", "co", "gen",
    "capt", "sgt", "rev", "hon",
];

/// Every sentence (or line) of the reply's own words that has any, in order.
fn sentences(own: &str, text: &str) -> Vec<String> {
    let bytes = own.as_bytes();
    let (mut start, mut out) = (0, Vec::new());
    for i in 0..=bytes.len() {
        let ends = ends_sentence(own, i);
        if ends {
            // Keep the closing mark: a question is told by it.
            let end = if i < bytes.len() && bytes[i] != b'\n' { i + 1 } else { i };
            if !own[start..end].trim().is_empty() {
                out.push(text[start..end].to_string());
            }
            start = i + 1;
        }
    }
    out
}

/// The last sentence (or line) of the reply's own words for which `keep` holds.
/// A sentence ends at a line break, or at `.`, `!` or `?` before a space (so
/// a decimal point does not end one).
fn last_sentence_where(own: &str, text: &str, keep: impl Fn(&str) -> bool) -> Option<String> {
    let bytes = own.as_bytes();
    let (mut start, mut last) = (0, None);
    for i in 0..=bytes.len() {
        let ends = ends_sentence(own, i);
        if ends {
            if keep(&own[start..i]) {
                last = Some((start, i));
            }
            start = i + 1;
        }
    }
    last.map(|(s, e)| text[s..e].to_string())
}

/// The last number in `text`, canonical.
fn last_number(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = None;
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let negative = i > 0 && matches!(chars[i - 1], '-' | '−') && (i < 2 || !chars[i - 2].is_alphanumeric());
            let Some((value, end)) = number_at(&chars, i) else { return found };
            found = Some(if negative { Ratio { num: -value.num, den: value.den } } else { value }.to_string());
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
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
    // "Answer: $\\boxed{C}$": the box inside inline maths.
    let raw = raw.trim();
    let raw = raw.strip_prefix('$').and_then(|r| r.strip_suffix('$')).unwrap_or(raw);
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
            let rest = chars.as_str().strip_prefix(')')?;
            // "(B)Wrong,…" runs the letter into words: not a choice given.
            if rest.starts_with(char::is_alphanumeric) {
                return None;
            }
            (l, rest)
        }
        None => {
            let mut chars = t.chars();
            let l = chars.next()?.to_ascii_uppercase();
            let rest = chars.as_str();
            // A bare letter must stand alone or be closed by `)`, `.` or `:`.
            if !(rest.is_empty() || rest.starts_with([')', '.', ':', ',', ' '])) {
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
    num: i64,
    den: i64,
}

impl Ratio {
    fn new(num: i64, den: i64) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.abs(), den.abs()).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Some(Ratio { num: sign * num / g, den: sign * den / g })
    }
}

fn gcd(a: i64, b: i64) -> i64 {
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
        if d != 1 || places > 15 {
            return write!(f, "{}/{}", self.num, self.den);
        }
        let scale = 10i64.pow(places);
        let Some(scaled) = self.num.checked_mul(scale).map(|n| n / self.den) else {
            return write!(f, "{}/{}", self.num, self.den);
        };
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
        if digits.len() > 18 {
            return None;
        }
    }
    let num: i64 = digits.parse().ok()?;
    let mut value = Ratio::new(num, 10i64.checked_pow(decimals)?)?;
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
            value = Ratio::new(value.num.checked_mul(den.den)?, value.den.checked_mul(den.num)?)?;
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
        assert_eq!(find("ANSWER: **B**", &[]).and_then(|f| f.normal).as_deref(), Some("B"));
        assert_eq!(find("```\nANSWER: 7\n```", &[]), None);
        let boxed = find("So the total is \\boxed{1,200}.", &[]).unwrap();
        assert_eq!(boxed.normal.as_deref(), Some("1200"));
    }

    #[test]
    fn a_reply_without_a_line_is_read_by_kind() {
        let abcd: Vec<String> = ["16 hours", "18 hours", "24 hours", "32 hours"].map(String::from).to_vec();
        for (text, kind, want) in [
            ("404 - 462\n= -58\n\nTherefore, the result of 13 + 23 * 17 is -58.", Kind::Number, Some("-58")),
            ("Working: 3 + 4 = 7.\n\nJean can fill 14 bags. Thank you.", Kind::Number, Some("14")),
            ("It ranges from \\boxed{11-19 inches}.", Kind::Number, None),
            ("Tim has \\boxed{4} blue and \\boxed{6} red boxes.", Kind::Number, None),
            ("Early on \\boxed{5}.\n\nSo the total is \\boxed{7}.", Kind::Number, Some("7")),
            ("They said the answer: 52.\n\nLots of working.\n\nMore working.\n\nFinally", Kind::Number, None),
            ("The final answer is:\n\n(D) 32 hours", Kind::Choice, Some("D")),
            ("My updated answer is (X) 16 hours.", Kind::Choice, Some("A")),
            ("(X)", Kind::Choice, None),
            ("(X) B) (and C) the threat", Kind::Choice, None),
            ("(X) 24 hours (incorrect) but close", Kind::Choice, None),
            ("(C) 32 hours", Kind::Choice, None),
            ("{'Whether there is a preference': 'No', 'Reason': 'yes'}", Kind::YesNo, Some("no")),
            ("There is no doubt it works.", Kind::YesNo, None),
        ] {
            assert_eq!(read(text, kind, &abcd).as_deref(), want, "{text:?}");
        }
    }

    #[test]
    fn conclusions_are_read_and_working_and_references_are_not() {
        let none: &[String] = &[];
        for (text, want) in [
            // The number the conclusion gives, not the working's.
            ("12 × $11 = $132.\n\nShe will earn $132 after 12 hours.", Some("132")),
            // Two numbers, neither concluded: refused, not guessed.
            ("Each pie takes 12 grapes.\n\nShe has 48 grapes, which is enough to make 4 pies.", None),
            // Another agent named by number is no answer.
            ("Looking at the three solutions.\n\nAgent 1's solution is the most accurate.", None),
            ("Agent 2 found 16 too.\n\nI agree with Agent 2: Ahito ran 16 miles.", Some("16")),
            // A bold result among numbers.
            ("So John picked 4, 6 and **22** bananas in all.", Some("22")),
            // An unclosed fence does not hide the conclusion after it.
            ("```\n3 + 4 = 7\n7 × 2 = 14\n\nThe total is 14.", Some("14")),
            // A turn the model invented for the user is not its own words.
            ("16 miles\nUSER: Here is a summary: Agent 2 says Ahito ran 28 miles.", Some("16")),
            // "Ms." ends no sentence: the closing sentence is the whole of it, with two numbers.
            ("Wanda pumped 2/3 of it, while Ms. B only pumped 1/3 of hers.", None),
            // A "because" sentence justifies the conclusion before it; its working is not the answer.
            (
                "So the total is 1200 pieces in 80 rooms. This is because each has (8 cases * 2 = 16 towels).",
                Some("1200"),
            ),
            // A sentence that ends on a bare number concludes with it: a sum of money before it
            // is then one of two answers, and neither is taken.
            ("The finale costs $150, making the total 1.11.", None),
            // The same three, as other words write them. A title or an abbreviation's point
            // ends no sentence, so no fragment after it stands as the conclusion.
            ("The total is 50 dollars, paid by Prof. Kim over 3 days.", Some("50")),
            ("So she needs 12 jars in all (e.g. 4 per shelf).", None),
            ("The bill came to 90 dollars. It was split approx. 3 ways by Dr. Lee and No. 2 crew.", None),
            // A reason clause's working is not the conclusion before it.
            ("Ahito ran 16 miles, since Amber and Micah ran 8 + 28 = 36 miles.", Some("16")),
            ("She has 30 apples left because 50 - 20 = 30.", Some("30")),
            // A clause concluding another number after the first: two answers.
            ("He spends $40 on food, leaving him with 60 for rent.", None),
            ("The meal is $40, leaving 60 for rent.", None),
            ("In all they paid 3 * $50 = $150, for a total of 1.11 per guest.", None),
            // The second held-out batch's two misreads, as classes: a relative clause with its
            // own number after the concluded one; a closing that declines to answer.
            ("The total price of the house is $419,500, which exceeds her budget by $19,500.", None),
            ("The text says nothing of the time Ray needs to swim 3 miles, so I cannot provide an answer.", None),
            ("With 2 unknowns it is not possible to determine the 3rd.", None),
            // A consequence that repeats the number concludes nothing new.
            ("The ticket costs $25, making it $25 for each of them.", Some("25")),
        ] {
            assert_eq!(read(text, Kind::Number, none).as_deref(), want, "{text:?}");
        }
        let abcd: Vec<String> = ["a tax", "a tariff", "a quota", "a subsidy"].map(String::from).to_vec();
        for (text, want) in [
            ("Weighing both sides, the most accurate statement is (D).", Some("D")),
            ("All told, I would pick option B here.", Some("B")),
            ("Option (B) is not correct.", None),
            ("It is (A) or (C), I cannot tell.", None),
            ("Agent 1's solution is the most accurate.", None),
            // The third held-out batch's refusals, as classes. An adverb after "answer is":
            ("Therefore, my updated answer is also (C) a quota.", Some("C")),
            ("So the answer is still B) a tariff.", Some("B")),
            ("So the answer is likely (B).", None),
            // the phrase opens prose naming one choice by its letter:
            ("My updated answer is: the state imposes a limit on imports (C) because it caps them.", Some("C")),
            ("I would give this updated answer:\n\nThe measure is (D) a subsidy to home producers.", Some("D")),
            ("My updated answer is the same as theirs: (A) A levy on imports.", Some("A")),
            // and refuses when it names two, or denies the one it names.
            ("My updated answer is: either (A) or the measure in (C).", None),
            ("My updated answer is: the measure (B) is not a subsidy at all.", None),
        ] {
            assert_eq!(read(text, Kind::Choice, &abcd).as_deref(), want, "{text:?}");
        }
        // A modal between the speaker and "conclude" keeps the box the speaker's own.
        let text =
            "Based on the steps provided by the agents, we can conclude that Bill was \\(\\boxed{15}\\) years old.";
        assert_eq!(read(text, Kind::Number, none).as_deref(), Some("15"));
        assert_eq!(read("The second agent would conclude that \\boxed{15} is right.", Kind::Number, none), None);
    }

    #[test]
    fn an_answer_key_inside_a_line_is_read_and_a_cut_reply_gives_none() {
        let f = find("I checked twice, so I'm sure. ANSWER: 12", &[]).unwrap();
        assert_eq!(f.normal.as_deref(), Some("12"));
        assert_eq!(find("My **Final Answer:** (c)", &[]).and_then(|f| f.normal).as_deref(), Some("C"));
        assert_eq!(find("The REANSWER: 5 token is not a key", &[]), None);
        let rules = Rules::new(Some(&AnswerSpec { kind: Some(Kind::Number), choices: vec![] }), vec![]);
        assert_eq!(rules.take("So the answer is 27.", false).answer(), Some("27"));
        assert_eq!(rules.take("So the answer is 27.", true), Taken::NotCounted(Uncounted::Cut));
        assert_eq!(rules.take("I need more time.", false), Taken::Absent);
        assert!(matches!(rules.take("ANSWER: 12 or 13", false), Taken::Unreadable { span: Some(_) }));
    }

    /// A reply stopped inside its box was cut writing its answer: nothing it
    /// holds is known to be the answer, not the digits begun, not an earlier
    /// box. An answer phrase that asks gives none. (Held-out batch 4.)
    #[test]
    fn a_reply_cut_inside_its_box_or_asking_gives_no_answer() {
        let none: &[String] = &[];
        for text in [
            "CONCLUSION: the answer is 240.\nBOXED_ANSWER: \\boxed{2",
            "Early on \\boxed{240}.\n\nSo the total is \\boxed{2",
            "So the total is \\boxed{\\frac{1}{2",
            "Each tree grows by 8 a year, so 130 before the loss. So the answer should be 91?",
        ] {
            assert_eq!(read(text, Kind::Number, none), None, "{text:?}");
        }
        assert_eq!(find("ANSWER: \\boxed{2", none), None);
        // Closed boxes, nested braces and a stated answer still read.
        assert_eq!(read("So the total is \\boxed{\\frac{1}{2}}.", Kind::Number, none).as_deref(), Some("0.5"));
        assert_eq!(read("So the answer should be 91.", Kind::Number, none).as_deref(), Some("91"));
        assert_eq!(read("Is it 90? No: the answer should be 91.", Kind::Number, none).as_deref(), Some("91"));
    }

    #[test]
    fn an_option_named_after_an_article_or_an_except_label_is_read() {
        // Added after held-out batch 5's first read.
        let pupils: Vec<String> = [
            "Unilateral constricted pupil.",
            "Bilateral constricted pupils.",
            "Unilateral fixed dilated pupil.",
            "Oval shaped pupils.",
        ]
        .map(String::from)
        .to_vec();
        for (text, want) in [
            ("Therefore the correct answer is the unilateral fixed dilated pupil. (C)", Some("C")),
            ("So the answer is a unilateral fixed dilated pupil.", Some("C")),
            ("Therefore the answer is the unilateral fixed dilated pupil, not the oval one (D).", Some("C")),
            // The article makes no hedge, half a choice or a denied one readable.
            ("Therefore the answer is the unilateral fixed dilated pupil or the oval shaped pupils.", None),
            ("So the answer is the pupil.", None),
            ("Therefore the answer is the unilateral fixed dilated pupil (incorrect).", None),
        ] {
            assert_eq!(read(text, Kind::Choice, &pupils).as_deref(), want, "{text:?}");
        }
        let motility: Vec<String> =
            ["adhesion plaques", "vinculin", "clathrin", "lamellipodia"].map(String::from).to_vec();
        for (text, want) in [
            (
                "- Clathrin (C): no (exception).\n- Lamellipodia (D): yes.\n\nTherefore the correct EXCEPT choice is (C)",
                Some("C"),
            ),
            ("Therefore the except answer is (C).", Some("C")),
            // "except" that names what is left out still denies.
            ("All of them are involved except (C).", None),
            ("Every option is right except option C.", None),
        ] {
            assert_eq!(read(text, Kind::Choice, &motility).as_deref(), want, "{text:?}");
        }
    }

    proptest::proptest! {
        /// Model output is untrusted: no text makes the reader panic (overflowing
        /// numbers, stray braces, any Unicode).
        #[test]
        fn no_text_makes_the_reader_panic(text in "(\\PC|[0-9,./=()\\\\{}-]){0,120}") {
            let _ = normalise(&text, &[]);
            let _ = find(&text, &[]);
            for kind in [Kind::Number, Kind::Choice, Kind::YesNo] {
                let _ = read(&text, kind, &["a".to_string()]);
                let _ = normalise_as(&text, kind, &[]);
            }
        }
    }

    #[test]
    fn huge_numbers_are_no_answer_or_exact_never_a_panic() {
        // Past what is kept exactly: compared as written, digit for digit.
        assert_eq!(n("99999999999999999999999").as_deref(), Some("99999999999999999999999"));
        assert_eq!(n("999999999999999999/17").as_deref(), Some("999999999999999999/17"));
        assert_eq!(n("1/3").as_deref(), Some("1/3"));
        assert_eq!(n("0.000000000000001").as_deref(), Some("0.000000000000001"));
    }

    #[test]
    fn a_bare_letter_judged_right_in_the_closing_sentence_is_read_and_a_denied_one_never() {
        // Added after held-out batch 7's first read.
        let gift: Vec<String> = ["destruction of the caste system", "capitalism"].map(String::from).to_vec();
        let body = "Earth floods Zur with goods and credit; the ending says the caste system had to go.\n\n";
        for (closing, want) in [
            ("Therefore, A is correct.", Some("A")),
            ("Hence A is the better answer.", Some("A")),
            ("So A is the better answer, not B.", Some("A")),
            ("That fits A far better than B.", Some("A")),
            ("So A fits; B overclaims knowledge the neighbor never had.", Some("A")),
            ("The scene centers on the disguise, making A the better answer.", Some("A")),
            ("So Answer A is correct, not B.", Some("A")),
            // The other choice's letter, denied, is no answer.
            ("Answer B mistakes the means for the end.", None),
            ("So B mistakes the instrument for the theme.", None),
            // Neither judged wrong, a hedge, or both judged right: unreadable.
            ("A is correct and B is correct.", None),
            ("Probably A is correct.", None),
            ("So answer A fits the conclusion; B describes the method, not the gift.", None),
            // An article is no letter.
            ("A careful reading fits the ending.", None),
            // A choice's text as the subject of the closing sentence is not named as the answer.
            ("Capitalism is merely Earth's method, not the gift.", None),
            ("Capitalism is how Earth operates; the gift is the destruction of the caste system.", None),
            // Standing alone, it still is.
            ("The gift, in the end:\ncapitalism.", Some("B")),
        ] {
            let text = format!("{body}{closing}");
            assert_eq!(read(&text, Kind::Choice, &gift).as_deref(), want, "{closing:?}");
        }
    }
    #[test]
    fn a_letter_named_as_the_final_answer_is_read_and_a_letter_past_the_options_never() {
        // Added after held-out batch 10's first read.
        let points: Vec<String> = ["Point A", "Point B", "Point C"].map(String::from).to_vec();
        let body = "Demand for reserves falls, so the curve shifts left along a vertical supply.\n\n";
        for (closing, want) in [
            ("Given the majority, I select 'A' as the final answer.", Some("A")),
            (
                "Two agents agree (→ Point B), so I am accepting the consensus of Point B as the final answer.",
                Some("B"),
            ),
            ("So C as the answer.", Some("C")),
            // Another letter named and not judged leaves the sentence open.
            ("Given the weaker argument for Point B, I am confident in selecting Point A as the final answer.", None),
            // Two letters each named as the answer: unreadable.
            ("I take A as the answer and B as the final answer.", None),
            // "as the" without "answer" judges nothing.
            ("I read A as the point above O.", None),
        ] {
            let text = format!("{body}{closing}");
            assert_eq!(read(&text, Kind::Choice, &points).as_deref(), want, "{closing:?}");
        }
        let reserves: Vec<String> =
            ["Reserves increase by $50 million", "Reserves decrease by $50 million", "Reserves remain unchanged"]
                .map(String::from)
                .to_vec();
        for (line, want) in [
            ("Final Answer: D - No Change is observed.", None),
            ("Final Answer: C - No change is observed.", Some("C")),
            ("Final Answer: E", None),
        ] {
            assert_eq!(read(line, Kind::Choice, &reserves).as_deref(), want, "{line:?}");
        }
        // A letter quoted after its label is named.
        for (closing, want) in [
            ("All agents have agreed on the answer 'A', indicating both reached their lowest values.", Some("A")),
            ("The agents agreed on choice 'C' and not on choice 'A'.", None),
            ("Agent 'A' agreed.", None),
        ] {
            let text = format!("{body}{closing}");
            assert_eq!(read(&text, Kind::Choice, &points).as_deref(), want, "{closing:?}");
        }
        // An answer heading whose letter stands on the next line wins over an earlier box.
        for (reply, want) in [
            (
                "Net change = \\boxed{60,000,000}\n\n### Final Answer:\n\n**B. Reserves decrease by $50 million**\n\nNUMERICAL: 50",
                Some("B"),
            ),
            ("### Final Answer:\nC\n", Some("C")),
            // The next line is prose, not a letter: not taken as the value.
            ("### Final Answer:\nA careful reading gives \\boxed{B}", Some("B")),
            ("### Final Answer:\n\nAfter weighing both, I stay unsure.", None),
        ] {
            assert_eq!(read(reply, Kind::Choice, &reserves).as_deref(), want, "{reply:?}");
        }
        // With no options listed, a letter up to J still reads.
        assert_eq!(read("Final Answer: E", Kind::Choice, &[]).as_deref(), Some("E"));
    }

    #[test]
    fn an_option_restated_whole_on_its_own_line_is_read() {
        // Added after held-out batch 12's first read: the reply gives its
        // letter and the option's whole text on a line, first or after a
        // lead-in ending in a colon, then explains in prose naming no letter.
        let opts: Vec<String> =
            ["10^-8 eV", "a quiet field", "The ones related to the curl.", "A = (E)-hex-2-ene, B = 3"]
                .map(String::from)
                .to_vec();
        for (text, want) in [
            ("(C) The ones related to the curl.\n\nIn such a universe the field would change.", Some("C")),
            ("Among the given choices, the correct product is:\n\n(B) a quiet field\n\nThis fits the data.", Some("B")),
            // A letter inside the option's own text is part of it.
            ("(D) A = (E)-hex-2-ene, B = 3", Some("D")),
            // A hedged lead-in stays unread.
            ("The correct answer is likely:\n(B) a quiet field\n\nThis fits the data.", None),
            // Not led into: a line in the middle of the working.
            ("We weigh the options.\n(B) a quiet field\nThis fits the data.", None),
            // Judged after it, or one of several restated, or another letter named.
            ("(B) a quiet field\n\nThis statement is incorrect because the field is loud.", None),
            ("(A) 10^-8 eV\n\n(B) a quiet field\n\nBoth look close.", None),
            ("(B) a quiet field\n\nUnlike (A), it holds.\n\nThis fits the data.", None),
            // Only part of the option's text is not the option restated.
            ("(C) The ones related\n\nThat is all.", None),
        ] {
            assert_eq!(read(text, Kind::Choice, &opts).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn a_closing_answer_sentence_set_in_bold_is_read() {
        // Added after held-out batch 11's first read: a whole bold line stating
        // the answer had been taken for a speaker's label ("**Answer B**") and
        // blanked. A label still is one, and a hedge still reads as none.
        let ten: Vec<String> = ('A'..='J').map(|c| format!("option {c}")).collect();
        for (text, want) in [
            ("The option that matches the ratio is:\n\n**The answer is (C)**", Some("C")),
            ("So the deposits can grow by $3000.\n\n**The answer is (G) $3000.**", Some("G")),
            ("Checked twice.\n\n**The answer is (D).**", Some("D")),
            // What follows a label heading stays that speaker's.
            ("**Answer B**\nThe answer is (A).", None),
            ("**The answer is (C) or (D)**", None),
        ] {
            assert_eq!(read(text, Kind::Choice, &ten).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn answer_lines_as_debate_models_write_them() {
        // Added after held-out batch 8's first read.
        let stains: Vec<String> = ["White", "Red", "Blue", "Dark Brown"].map(String::from).to_vec();
        let body = "TTC is reduced by viable cells, not by dead tissue.\n\n";
        for (closing, want) in [
            // "Answer choice:" is an answer line, at a line's start or after a sentence.
            ("Answer Choice: D **(Token Count: 76)**\n\n--- End of Response ---", Some("D")),
            ("So the infarct stays pale. Answer Choice: D. \n\nEnd of Response.", Some("D")),
            ("**Final Answer Choice:** D (Dark Brown)", Some("D")),
            // A restated prompt opening with those words hides no closing box.
            ("Answer choice: B. Do you agree or disagree? Provide your analysis.\n\nFinal: \\boxed{D}", Some("D")),
            // An answer set in a prose fence is the reply's own; code stays someone else's.
            ("Therefore, my final answer remains:\n\n```plaintext\nAnswer: D\n```", Some("D")),
            ("```python\nprint('Answer: D')\n```", None),
            // A letter whose line runs on into a sentence that comes back to it.
            ("Answer: D The stain stays unreduced there. Therefore, option D is right.", Some("D")),
            ("Answer: D Dark Brown The dead muscle stays pale or brown. Hence option D.", Some("D")),
            // …but not one the next words withdraw, nor a letter alone before prose.
            ("Answer: D Disagree with my first stance. Thus it should be excluded.", None),
            ("Answer: D The stain stays unreduced there, unlike option B.", None),
            ("Answer: A or D, depending on the fixation.", None),
            // Answer lines that name different letters give two answers.
            ("My Answer: B You're right about viability.\n\nAnswer: D (the closest)", None),
            ("Answer: D\n\nFinal answer: D", Some("D")),
            // A box in inline maths; a box that holds no answer says nothing.
            ("Answer: $\\boxed{D}$", Some("D")),
            ("\\boxed{?}\nTTC stays unreduced where the muscle died.\n\\boxed{D}", Some("D")),
            ("Final: \\boxed{D}\nYour answer must follow the format \\boxed{{letter}}", Some("D")),
            // A doubled colon after the key is one colon (added after held-out batch 9's first read).
            ("1. Your Final Answer:: D\n2. Probs: {\"A\": 0.1, \"D\": 0.9}", Some("D")),
            ("Answer:: D", Some("D")),
            ("Answer:: ", None),
            ("Answer:: A\n\nAnswer: D", None),
        ] {
            let text = format!("{body}{closing}");
            assert_eq!(read(&text, Kind::Choice, &stains).as_deref(), want, "{closing:?}");
        }
    }
}
