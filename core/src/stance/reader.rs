//! The free-text reader: what a reply's own words say about agreement.
//!
//! It finds signals clause by clause — agreement, and everything that limits
//! or denies it — and decides in one place ([`decide`]):
//!
//! - any present first-person opposition beside agreement: agrees in part;
//!   opposition alone: disagrees; agreement given up: disagrees;
//! - agreement on a condition: conditional; hedged agreement: in part;
//! - a contrast ("but", "however", …) after the last agreement: in part;
//! - agreement that is only considered, asked about or in the past: unclear;
//! - plain first-person agreement, and nothing else: agrees.
//!
//! Agreement must be the speaker's, present, unconditional and unhedged to
//! count. Opposition is read liberally: it can only keep a reply from counting.
//!
//! Signals come from two sources, both data: the phrase table
//! ([`pt::ROWS`], applied by [`Clauses::rows`], the one interpreter of it),
//! and the single agreement and opposition words of `lexicon.rs`, read with
//! their guards ([`Clauses::qualify`] for agreement — the same guards the
//! table's `QUALIFY` rows get). What is code here is grammar: clauses,
//! subjects and their scope, and what a row's needs mean.

use super::Verdict;
use super::lexicon as lx;
use super::patterns::{self as pt, Kind};
use super::tokens::{Sentence, Token, sentences};
use core::cell::Cell;

/// What the reader found, and where: the span of the clause that decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Finding {
    pub verdict: Verdict,
    pub span: Option<(usize, usize)>,
}

#[derive(Debug, Clone, Copy)]
struct Signal {
    kind: Kind,
    span: (usize, usize),
}

/// Read `own` (a reply with attributed text already blanked).
pub(crate) fn read(own: &str) -> Finding {
    let mut signals = Vec::new();
    let own = explicit_lines(own, &mut signals);
    let sentences = sentences(&own);
    // Whether the reply cites the others anywhere (for rows that need it).
    let cites = sentences.iter().any(|s| s.words().any(|w| pt::Class::Cited.holds(w)));
    for sentence in &sentences {
        let mut clauses = Clauses::new(sentence, false);
        clauses.cites = cites;
        clauses.own = &own;
        clauses.signals(&mut signals);
    }
    crate::order::sort_by_key(&mut signals, |s| s.span.0);
    decide(&signals)
}

/// Whether `sentence` stands on a line that opens with an option's letter:
/// "- B) False. …", "A (Western blot): …", "C. …", or names it: "- **Option
/// B** is incorrect …", "3. **Options E** …" (markers, a list number and
/// spaces first).
fn on_option_line(own: &str, at: usize) -> bool {
    let line_start = own[..at].rfind('\n').map_or(0, |n| n + 1);
    let marker = |c: char| c.is_whitespace() || matches!(c, '-' | '*' | '•');
    let mut line = own[line_start..].trim_start_matches(marker);
    // A list number: "3. **Option E** …".
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && matches!(line.as_bytes().get(digits), Some(b'.' | b')')) {
        line = line[digits + 1..].trim_start_matches(marker);
    }
    // "Option B", "Options E": the word, then the letter standing alone.
    for word in ["Options ", "Option ", "options ", "option "] {
        if let Some(rest) = line.strip_prefix(word) {
            let b = rest.as_bytes();
            return b.first().is_some_and(|c| (b'A'..=b'J').contains(c))
                && !b.get(1).is_some_and(|c| c.is_ascii_alphanumeric());
        }
    }
    let b = line.as_bytes();
    let lettered = b.first().is_some_and(|c| (b'A'..=b'J').contains(c));
    let closed = matches!(b.get(1), Some(b')' | b':' | b'.')) || (b.get(1) == Some(&b' ') && b.get(2) == Some(&b'('));
    let bracketed =
        b.first() == Some(&b'(') && b.get(1).is_some_and(|c| (b'A'..=b'J').contains(c)) && b.get(2) == Some(&b')');
    (lettered && closed) || bracketed
}

/// Read the position a declared line states (its own words only): what it
/// limits. A position is the thing held, so denying or condemning an
/// alternative in it ("reject the vendor's offer", "no new hires") is not
/// dissent; a condition, a contrast, or opposition in the first person is.
pub(crate) fn read_position(own: &str) -> Finding {
    let mut signals = Vec::new();
    for sentence in sentences(own) {
        Clauses::new(&sentence, true).signals(&mut signals);
    }
    crate::order::sort_by_key(&mut signals, |s| s.span.0);
    let first = |kinds: &[Kind]| signals.iter().find(|s| kinds.contains(&s.kind)).map(|s| s.span);
    let found = |verdict: Verdict, span: Option<(usize, usize)>| Finding { verdict, span };
    if let Some(span) = first(&[Kind::Conditional]) {
        return found(Verdict::Conditional, Some(span));
    }
    if let Some(span) = first(&[Kind::Contrast, Kind::Part]) {
        return found(Verdict::AgreesInPart, Some(span));
    }
    if let Some(span) = first(&[Kind::Oppose, Kind::Withdrawn]) {
        return found(Verdict::Disagrees, Some(span));
    }
    found(Verdict::Agrees, None)
}

/// `CONSENSUS: <position>` lines: an explicit claim (or denial) of convergence.
/// They are read here and blanked for the sentence reader, so the position
/// they state is not mistaken for the speaker's reasoning.
fn explicit_lines(own: &str, signals: &mut Vec<Signal>) -> String {
    let mut out = own.to_string();
    let mut at = 0;
    for line in own.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let Some((lead, value)) = super::own_words::keyed(line, "consensus") else { continue };
        let payload = value.trim().trim_matches(['*', '_']).trim();
        let lower = payload.to_ascii_lowercase();
        let first = lower.split(|c: char| !c.is_ascii_alphanumeric() && c != '/').next().unwrap_or("");
        let kind = if payload.is_empty() || payload.starts_with(['<', '[', '{']) {
            None
        } else if lx::is(lx::CONSENSUS_DENIED, first) {
            Some(Kind::Oppose)
        } else {
            Some(Kind::Agree)
        };
        let end = start + line.trim_end().len();
        if let Some(kind) = kind {
            signals.push(Signal { kind, span: (start + lead, end) });
        }
        out = super::own_words::blank_span(&out, start, end);
    }
    out
}

/// The verdict from every signal, in text order.
fn decide(signals: &[Signal]) -> Finding {
    let first = |kind: Kind| signals.iter().find(|s| s.kind == kind).map(|s| s.span);
    let any = |kind: Kind| signals.iter().any(|s| s.kind == kind);
    let found = |verdict: Verdict, span: Option<(usize, usize)>| Finding { verdict, span };
    let agreeing = any(Kind::Agree) || any(Kind::Part) || any(Kind::Conditional);
    if let Some(span) = first(Kind::Oppose) {
        // Opposition beside agreement limits it; opposition alone is disagreement.
        return found(if agreeing { Verdict::AgreesInPart } else { Verdict::Disagrees }, Some(span));
    }
    if let Some(span) = first(Kind::Withdrawn) {
        return found(Verdict::Disagrees, Some(span));
    }
    if let Some(span) = first(Kind::Conditional) {
        return found(Verdict::Conditional, Some(span));
    }
    if let Some(span) = first(Kind::Part) {
        return found(Verdict::AgreesInPart, Some(span));
    }
    let last_agree = signals.iter().rposition(|s| s.kind == Kind::Agree);
    if let Some(k) = last_agree {
        // A contrast after the last agreement limits it ("I agree. But…").
        if let Some(c) = signals[k..].iter().find(|s| s.kind == Kind::Contrast) {
            return found(Verdict::AgreesInPart, Some(c.span));
        }
        return found(Verdict::Agrees, Some(signals[k].span));
    }
    if let Some(s) = signals.iter().find(|s| matches!(s.kind, Kind::Considered | Kind::Past)) {
        return found(Verdict::Unclear, Some(s.span));
    }
    found(Verdict::Silent, None)
}

/// A sentence's words, grouped into clauses.
struct Clauses<'s> {
    /// (word, byte start, byte end)
    words: Vec<(&'s str, usize, usize)>,
    /// For each word, whether punctuation (a comma, a colon, a dash) came right before it.
    after_break: Vec<bool>,
    /// For each word, the index of its clause.
    clause: Vec<usize>,
    /// For each word, the word range of its clause (clauses are contiguous).
    bounds: Vec<(usize, usize)>,
    /// For each word, its verb's subject and scope once asked for: the
    /// reader asks for them many times per word, and each answer scans back.
    subjects: Vec<Cell<Option<(Subject, usize)>>>,
    question: bool,
    /// A declared line's position, not a reply's body.
    position: bool,
    /// The reply cites the other agents somewhere.
    cites: bool,
    /// The reply the sentence is in (its own words), when reading a reply.
    own: &'s str,
    /// Whether the sentence analyses an answer option and speaks of no one,
    /// found when first asked: most sentences are never asked.
    about_option: Cell<Option<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Subject {
    /// I or we.
    First,
    /// Someone else.
    Other,
    /// None stated: elided ("Fully agree", "…but reject the remedy").
    Elided,
    /// None that can be told.
    Unknown,
}

impl<'s> Clauses<'s> {
    fn new(sentence: &'s Sentence, position: bool) -> Self {
        let mut words = Vec::new();
        let mut after_break = Vec::new();
        let mut clause = Vec::new();
        let mut current = 0;
        let mut broke = false;
        for token in &sentence.tokens {
            match token {
                Token::Break { .. } => broke = true,
                Token::Word { text, start, end } => {
                    // "yet" opens a clause only where a clause can start ("…, yet"), not in "not yet";
                    // "provided" only there or after "only" ("the solutions provided by the others").
                    let prev = words.last().map_or("", |w: &(&str, usize, usize)| w.0);
                    let opens =
                        lx::connective(text) && (!lx::is(lx::OPENS_ONLY_AFTER_BREAK, text) || broke || prev == "only");
                    if !words.is_empty() && (broke || opens) {
                        current += 1;
                    }
                    after_break.push(broke);
                    broke = false;
                    words.push((text.as_str(), *start, *end));
                    clause.push(current);
                }
            }
        }
        // A clause of bare conjunctions ("and", "or", "so") belongs to the next one.
        let mut merged = clause.clone();
        let mut start = 0;
        while start < words.len() {
            let c = clause[start];
            let end = (start..words.len()).find(|&k| clause[k] != c).unwrap_or(words.len());
            if c < current && words[start..end].iter().all(|w| lx::is(lx::BARE_CONJUNCTIONS, w.0)) {
                merged[start..end].fill(c + 1);
            }
            start = end;
        }
        let mut bounds = vec![(0, 0); words.len()];
        let mut from = 0;
        for i in 0..words.len() {
            if i > 0 && merged[i] != merged[i - 1] {
                from = i;
            }
            if i + 1 == words.len() || merged[i + 1] != merged[i] {
                bounds[from..=i].fill((from, i + 1));
            }
        }
        let subjects = vec![Cell::new(None); words.len()];
        Clauses {
            words,
            after_break,
            clause: merged,
            bounds,
            subjects,
            question: sentence.question,
            position,
            cites: false,
            own: "",
            about_option: Cell::new(None),
        }
    }

    fn w(&self, i: usize) -> &'s str {
        self.words.get(i).map_or("", |w| w.0)
    }

    fn len(&self) -> usize {
        self.words.len()
    }

    /// Word indices of the clause word `i` is in.
    fn clause_range(&self, i: usize) -> (usize, usize) {
        self.bounds[i]
    }

    /// The byte span of the clause word `i` is in.
    fn clause_span(&self, i: usize) -> (usize, usize) {
        let (from, to) = self.clause_range(i);
        (self.words[from].1, self.words[to - 1].2)
    }

    /// The byte span of the whole sentence.
    fn sentence_span(&self) -> (usize, usize) {
        (self.words[0].1, self.words[self.len() - 1].2)
    }

    /// Whether `phrase` starts at word `i`.
    fn phrase_at(&self, i: usize, phrase: &str) -> bool {
        phrase.split(' ').enumerate().all(|(k, p)| self.w(i + k) == p)
    }

    /// Whether any of `phrases` (comma-separated) starts within words `from..to`.
    fn any_phrase(&self, from: usize, to: usize, phrases: &str) -> bool {
        (from..to.min(self.len())).any(|i| phrases.split(',').any(|p| self.phrase_at(i, p)))
    }

    /// Up to `n` words before `i` within the verb's scope (nearest first).
    fn before(&self, i: usize, n: usize) -> impl Iterator<Item = &'s str> + '_ {
        let (_, scope) = self.subject_and_scope(i);
        (scope.max(i.saturating_sub(n))..i).rev().map(|k| self.w(k))
    }

    /// Who the subject of the verb at `i` is.
    fn subject(&self, i: usize) -> Subject {
        self.subject_and_scope(i).0
    }

    /// The subject of the verb at `i`, and where its scope starts: the clause,
    /// or — when the clause states no subject of its own ("I do not, however,
    /// agree", "…and agree", "…but reject the remedy") — the word of the
    /// subject it carries over, so negation and modals there still apply.
    fn subject_and_scope(&self, i: usize) -> (Subject, usize) {
        if let Some(known) = self.subjects[i].get() {
            return known;
        }
        let found = self.find_subject_and_scope(i);
        self.subjects[i].set(Some(found));
        found
    }

    fn find_subject_and_scope(&self, i: usize) -> (Subject, usize) {
        let (from, _) = self.clause_range(i);
        for k in (from..i).rev() {
            let w = self.w(k);
            if lx::first_person(w) {
                return (Subject::First, from);
            }
            if lx::other_subject(w)
                && !(w == "one" && !self.w(k + 1).is_empty() && !lx::modal(self.w(k + 1)))
                && !self.object_at(k)
            {
                return (Subject::Other, from);
            }
        }
        // Words of its own before the verb ("the numbers differ"): a subject we cannot name.
        let own = (from..i).any(|k| {
            let w = self.w(k);
            !is_adverb(w) && !lx::connective(w) && !is_auxiliary(w) && !lx::negation(w) && !lx::modal(w)
        });
        if own {
            return (Subject::Unknown, from);
        }
        // "P2, back this or we both lose", "Support it or risk mutual loss":
        // an endorsement verb opening its sentence, or after a vocative, with
        // no modal or auxiliary of its own, is an imperative — the one
        // addressed is asked to endorse; the speaker endorses nothing (added
        // after held-out batch 7's first read). The subject an earlier clause
        // names does not carry over to it.
        let imperative = (lx::is(lx::ENDORSE, self.w(i)) || lx::is(lx::OBJECT_VERBS, self.w(i)))
            && (from..i).all(|k| !lx::modal(self.w(k)) && !is_auxiliary(self.w(k)))
            && from <= 2;
        if imperative {
            return (Subject::Other, from);
        }
        for k in (0..from).rev() {
            let w = self.w(k);
            if lx::first_person(w) {
                return (Subject::First, k);
            }
            if lx::other_subject(w) && w != "one" && !self.object_at(k) {
                return (Subject::Other, k);
            }
        }
        (Subject::Elided, from)
    }

    /// Whether the other-subject word at `k` is an object or a possessor, not
    /// a subject: "with Speaker 2", "Speaker 2's diagnosis", "to the others".
    fn object_at(&self, k: usize) -> bool {
        let next = self.w(k + 1);
        let possessor = self.w(k).ends_with("'s")
            || next.ends_with("'s")
            || (next.chars().all(|c| c.is_ascii_digit()) && self.w(k + 2).ends_with("'s"));
        let governed = (0..k).rev().map(|j| self.w(j)).find(|w| !lx::determiner(w)).is_some_and(lx::preposition);
        possessor || governed
    }

    fn signals(&self, out: &mut Vec<Signal>) {
        let mut void = vec![false; self.len()];
        self.rows(out, &mut void);
        let mut i = 0;
        while i < self.len() {
            // In a position, agreement words are its content ("adopt it once CI
            // is fast"): only what limits it is read.
            if let Some(kind) = self.agreement(i).filter(|_| !void[i] && !self.position) {
                // A condition or a consideration often sits in the next clause:
                // the whole sentence is the evidence.
                let span = match kind {
                    Kind::Conditional | Kind::Considered | Kind::Past => self.sentence_span(),
                    _ => self.clause_span(i),
                };
                out.push(Signal { kind, span });
            }
            if let Some(kind) = self.opposition(i) {
                out.push(Signal { kind, span: self.clause_span(i) });
            }
            if self.contrast_at(i) && (self.position || !self.about_option()) {
                out.push(Signal { kind: Kind::Contrast, span: self.clause_span(i) });
            }
            i += 1;
        }
    }

    // ---- the phrase table ---------------------------------------------------

    /// Apply every row of [`pt::ROWS`] at every word: the one interpreter of the table.
    fn rows(&self, out: &mut Vec<Signal>, void: &mut [bool]) {
        let words: Vec<&str> = self.words.iter().map(|w| w.0).collect();
        let facts: Vec<pt::Facts> = words.iter().map(|w| pt::Facts::of(w)).collect();
        let present = pt::Present::of(&facts);
        for pt::CompiledRow { row, positions } in pt::compiled_rows() {
            let Some(head) = positions.first().filter(|head| head.takes_any(&present)) else { continue };
            for start in 0..words.len() {
                if void[start] || !head.takes(facts[start]) {
                    continue;
                }
                let Some((end, gap_negated)) = pt::match_positions(positions, &facts, start) else {
                    continue;
                };
                if !self.row_holds(row, start, end) {
                    continue;
                }
                if row.needs & pt::VOID != 0 {
                    void[start..=end].fill(true);
                }
                let span = (self.words[start].1, self.words[end].2);
                let kind = match row.kind {
                    Kind::Nothing => continue,
                    Kind::Agree if gap_negated => Kind::Oppose,
                    Kind::Agree if row.needs & pt::QUALIFY != 0 => self.qualify(start, end),
                    Kind::Consequence => {
                        if !self.consequence_denies(end + 1) {
                            continue;
                        }
                        Kind::Oppose
                    }
                    kind => kind,
                };
                if matches!(kind, Kind::Oppose | Kind::Contrast) && !self.position && self.about_option() {
                    continue;
                }
                let span = match kind {
                    Kind::Conditional | Kind::Considered | Kind::Past => self.sentence_span(),
                    _ => span,
                };
                out.push(Signal { kind, span });
            }
        }
    }

    /// Whether what a row needs holds for its match at `start..=end`.
    fn row_holds(&self, row: &pt::Row, start: usize, end: usize) -> bool {
        let needs = |flag: u32| row.needs & flag != 0;
        let words = || (0..self.len()).map(|k| self.w(k));
        if needs(pt::POSITION) && !self.position {
            return false;
        }
        if needs(pt::SENTENCE_START) && start != 0 {
            return false;
        }
        if needs(pt::CLAUSE_START) && start != self.clause_range(start).0 {
            return false;
        }
        if needs(pt::STATED) && self.question {
            return false;
        }
        if needs(pt::ASKED) && !self.question {
            return false;
        }
        // "As discussed, I understand you'll support …": "as agreed" must
        // follow the speaker's own commitment ("I'll take 1 as agreed").
        if self.w(start) == "as" && needs(pt::FIRST) && self.subject(start) != Subject::First {
            return false;
        }
        if needs(pt::FIRST) && !matches!(self.subject(start), Subject::First | Subject::Elided) {
            return false;
        }
        if needs(pt::NO_NEGATION) && words().any(lx::negation) {
            return false;
        }
        if needs(pt::NO_HOLDOUT) && words().any(pt::holdout) {
            return false;
        }
        if needs(pt::NOT_BEFORE_IF) && self.w(end + 1) == "if" {
            return false;
        }
        if needs(pt::CITED_IN_REPLY) && !self.cites {
            return false;
        }
        if needs(pt::CITES) && !words().any(|w| pt::Class::Cited.holds(w)) {
            return false;
        }
        if needs(pt::UNNEGATED) && self.before(start, 3).any(lx::negation) {
            return false;
        }
        if needs(pt::NOT_MINE) && self.before(start, 8).any(|w| lx::first_person(w) || lx::is(lx::POSSESSIVE_FIRST, w))
        {
            return false;
        }
        if needs(pt::ABOUT_WORK) && !words().any(|w| pt::Class::Cited.holds(w) || pt::Class::Ans.holds(w)) {
            return false;
        }
        if needs(pt::ABOUT_WORK) && self.option_text(start) {
            return false;
        }
        if needs(pt::CONDEMNED) && !(end + 1..self.len()).any(|k| pt::Class::Condemn.holds(self.w(k))) {
            return false;
        }
        if needs(pt::VERB) && self.noun_after_determiner(start) {
            return false;
        }
        if needs(pt::OFFER_SUBJECT) && !(start >= 1 && lx::is(lx::OFFER_SUBJECTS, self.w(start - 1))) {
            return false;
        }
        if needs(pt::WORK_SUBJECT) {
            let subject = (0..start).rev().map(|k| self.w(k)).find(|w| !is_adverb(w));
            let work = subject.is_some_and(|w| {
                matches!(w, "this" | "that" | "it" | "which" | "mine" | "ours" | "what")
                    || pt::Class::Ans.holds(w)
                    || pt::Class::Cited.holds(w)
            });
            if !work {
                return false;
            }
        }
        true
    }

    /// Whether word `k` is part of an option's text: it follows a bracketed
    /// option letter with no verb between ("the correct answer is (A) Wrong,
    /// Wrong"), so it quotes the question, not the speaker's verdict ("(B) is
    /// wrong" is a verdict).
    fn option_text(&self, k: usize) -> bool {
        (0..k).fold(false, |inside, j| self.option_state(j, inside))
    }

    /// Whether the words after word `j` are still an option's text, given
    /// whether they were before it: a bracketed letter opens one, a verb ends it.
    fn option_state(&self, j: usize, inside: bool) -> bool {
        let w = self.w(j);
        let b = w.as_bytes();
        // "i" standing alone is the speaker ("Therefore, I, frankly, cannot back it").
        if b.len() == 1 && (b'a'..=b'j').contains(&b[0]) && b[0] != b'i' && self.clause_range(j) == (j, j + 1) {
            return true;
        }
        inside && !matches!(w, "is" | "are" | "was" | "were" | "be" | "seems" | "seem")
    }

    /// Whether the words from `from` to the sentence's end deny or condemn
    /// something: "…, so I can't back the pilot", "…, hence it is a mistake".
    /// "…, so no update is needed" denies nothing; nor does an option's text
    /// ("Therefore, the correct answer is (A) Wrong, Wrong.").
    fn consequence_denies(&self, from: usize) -> bool {
        let mut inside = self.option_text(from);
        let mut option = Vec::with_capacity(self.len().saturating_sub(from));
        for k in from..self.len() {
            option.push(inside);
            inside = self.option_state(k, inside);
        }
        (from..self.len()).filter(|&k| !option[k - from]).any(|k| {
            let w = self.w(k);
            let prev = if k > 0 { self.w(k - 1) } else { "" };
            let denies = (pt::stance_negation(w) || lx::negation(w))
                && (self.before(k, 3).any(lx::first_person) || matches!(prev, "should" | "must"));
            (denies && !(k + 1..(k + 3).min(self.len())).any(|n| pt::harmless_after_negation(self.w(n))))
                || pt::Class::Condemn.holds(w)
        })
    }

    // ---- agreement ----------------------------------------------------------

    /// An agreement expression at word `i`, qualified by its surroundings.
    fn agreement(&self, i: usize) -> Option<Kind> {
        let w = self.w(i);
        let next = self.w(i + 1);
        let prev = if i > 0 { self.w(i - 1) } else { "" };
        // Idioms first: "couldn't agree more" is the strongest agreement.
        if w == "agree" && next == "more" && lx::is(lx::COULDNT, prev) {
            return self.first_person_ok(i).then_some(Kind::Agree);
        }
        let base = match w {
            "agree" | "concur" | "agreeing" | "concurring" => self.first_person_ok(i),
            "agreed" | "concurred" => {
                let subject = self.subject(i);
                if subject == Subject::Elided {
                    true // "Agreed." / "Agreed: ship it."
                } else if subject == Subject::First {
                    if lx::is(lx::PERFECT_BEFORE_AGREED, prev) {
                        true
                    } else {
                        return Some(self.past_unless_still(i));
                    }
                } else {
                    false
                }
            }
            // "Approved." / "Accepted." standing alone: the reviewer's verdict on
            // what it answers, as "Agreed." is; with words of its own ("Offer
            // accepted", "the plan was approved") it reports, and does not count
            // (added after held-out batch 12's first read).
            "approved" | "accepted" => self.subject(i) == Subject::Elided && self.clause_range(i) == (i, i + 1),
            "agreement" | "accord" => {
                let framed = self.before(i, 4).any(|b| lx::is(lx::AGREEMENT_FRAMES, b));
                framed && matches!(self.subject(i), Subject::First | Subject::Elided)
            }
            "persuaded" | "convinced" => {
                // "I'm convinced", "I've been persuaded", "you have convinced me".
                (next == "me" || next == "us")
                    || (self.subject(i) == Subject::First && self.before(i, 4).any(|b| lx::is(lx::CONVINCED_STATE, b)))
            }
            "converged" | "converge" => matches!(self.subject(i), Subject::First),
            "converging" => {
                return matches!(self.subject(i), Subject::First).then_some(Kind::Considered);
            }
            "aligned" | "board" => {
                let state = self.before(i, 3).any(|b| lx::is(lx::ALIGNED_STATE, b));
                let on = w == "aligned" || prev == "on";
                state && on && self.subject(i) == Subject::First && !self.aligned_elsewhere(i)
            }
            "page" => {
                self.phrase_at(i.saturating_sub(3), "on the same page")
                    && self.subject(i.saturating_sub(3)) == Subject::First
            }
            "around" => lx::is(lx::COME_AROUND, prev) && self.subject(i) == Subject::First,
            // "Speaker 2 is right": the speaker's own judgment that a named speaker is right.
            // A bare "you're right" or "that's right" names no one and no position: not counted.
            "right" | "correct" => {
                // Negation is left to `qualify`: "Speaker 2 is not right" is disagreement.
                let near: Vec<&str> =
                    self.before(i, 4).filter(|b| !is_adverb(b) && *b != "exactly" && !lx::negation(b)).collect();
                matches!(near.as_slice(), ["is", n, "speaker", ..] if n.chars().all(|c| c.is_ascii_digit()))
            }
            // "I'd sign on", "count me in".
            "sign" => self.w(i + 1) == "on" && matches!(self.subject(i), Subject::First | Subject::Elided),
            "count" => self.phrase_at(i, "count me in") || self.phrase_at(i, "count us in"),
            "consensus" => {
                let reached = self.before(i, 3).any(|b| lx::is(lx::CONSENSUS_REACHED, b))
                    || self.phrase_at(i + 1, "has been reached")
                    || self.phrase_at(i + 1, "is reached");
                let verb = self.before(i, 3).find(|b| lx::is(lx::OBJECT_VERBS, b));
                (reached && !self.before(i, 3).any(lx::negation))
                    || (verb.is_some() && matches!(self.subject(i), Subject::First | Subject::Elided))
            }
            "objection" | "objections" => {
                // "I withdraw my objection", "I drop my objections".
                prev == "my" && self.before(i, 3).any(|b| lx::is(lx::WITHDRAW_VERBS, b))
            }
            w if lx::is(lx::OBJECT_VERBS, w) => {
                // "back" and "second" are verbs only right after I or we.
                let stated = (!lx::is(lx::BARE_VERBS, w) || lx::first_person(prev)) && !lx::is(lx::NOUN_MARKERS, prev);
                let speaker = matches!(self.subject(i), Subject::First | Subject::Elided);
                let (_, end) = self.clause_range(i);
                // "join" takes only the consensus or the majority; the others any target.
                let targeted = (i + 1..end.min(i + 6))
                    .map(|k| self.w(k))
                    .any(|o| if w == "join" { lx::is(lx::JOIN_TARGETS, o) } else { lx::agreement_target(o) });
                stated && speaker && targeted
            }
            _ => false,
        };
        if !base {
            return None;
        }
        Some(self.qualify(i, i))
    }

    /// The word at `i` is a noun: a determiner or possessive before it ("your
    /// offer"), one two words back with a describing word or a number
    /// between ("your final offer", "your $8.15 offer"), or a possessive two
    /// words back ("your alliance offer").
    fn noun_after_determiner(&self, i: usize) -> bool {
        let det = |k: usize| lx::is(lx::DETERMINERS, self.w(k));
        let describing = |w: &str| lx::is(lx::OFFER_ADJECTIVES, w) || w.starts_with(|c: char| c.is_ascii_digit());
        // "your alliance offer": after a possessive, a word and the noun.
        let possessive = |k: usize| lx::is(lx::POSSESSIVES, self.w(k));
        (i >= 1 && det(i - 1)) || (i >= 2 && det(i - 2) && describing(self.w(i - 1))) || (i >= 2 && possessive(i - 2))
    }

    /// Agreement verbs need the speaker as subject (stated or elided).
    fn first_person_ok(&self, i: usize) -> bool {
        matches!(self.subject(i), Subject::First | Subject::Elided)
    }

    /// "I agreed" is past, unless the speaker still does ("…and still do").
    fn past_unless_still(&self, i: usize) -> Kind {
        let (_, end) = self.clause_range(i);
        let still =
            (i..self.len()).take(8).any(|k| self.w(k) == "still") && self.any_phrase(i, self.len(), lx::STILL_AGREES);
        let _ = end;
        if still { Kind::Agree } else { Kind::Past }
    }

    /// What the words around an agreement at words `i..=end` (one word, or a
    /// phrase from the table) make of it.
    fn qualify(&self, i: usize, end: usize) -> Kind {
        let (from, _) = self.clause_range(i);
        let (_, to) = self.clause_range(end);
        if self.question {
            return Kind::Considered;
        }
        let before: Vec<&str> = self.before(i, 5).collect(); // nearest first
        // Negation: "I don't agree", "I no longer agree", "I don't fully agree".
        if let Some(n) = before.iter().position(|b| lx::negation(b)) {
            if before[..n].contains(&"longer") {
                return Kind::Withdrawn;
            }
            if n > 0 && before[..n].iter().any(|b| lx::fullness(b)) {
                return Kind::Part;
            }
            if self.w(end + 1) != "more" {
                return Kind::Oppose;
            }
        }
        if self.any_phrase(end, (end + 4).min(to), lx::WITHDRAWN) {
            return Kind::Withdrawn;
        }
        // "used to agree", "initially agreed", "agreed at first".
        if self.phrase_at(i.saturating_sub(2), "used to")
            || before.iter().take(3).any(|b| lx::is(lx::PAST_MARKERS, b))
            || self.any_phrase(end + 1, (end + 5).min(to), lx::PAST_AFTER)
        {
            return Kind::Past;
        }
        // "I'll sign off on the pilot": a future endorsement is a commitment, not a hypothesis.
        // So is "I'll take 1 as agreed": the split agreed, taken up.
        let committed = |b: &&str| lx::is(lx::FUTURE, b) && (lx::is(lx::ENDORSE, self.w(i)) || self.w(i) == "as");
        if before.iter().take(3).any(|b| lx::modal(b) && !committed(b)) && !before.iter().take(3).any(|b| *b == "must")
        {
            return Kind::Conditional;
        }
        // "It appears that both agents correctly followed…": a phrase from the
        // table judging the others' work is not made a mere consideration by
        // the politeness before it; an agreement word is ("it seems we agree").
        let polite = |k: usize| end > i && lx::is(lx::POLITE_HEDGES, self.w(k)) && self.w(k + 1) == "that";
        // "I'm willing to accept this offer" accepts it.
        let ready = |k: usize| {
            lx::is(lx::READY_WORDS, self.w(k))
                && k >= 1
                && lx::is(lx::PRESENT_BE, self.w(k - 1))
                && self.w(k + 1) == "to"
                && k + 2 == i
                && lx::is(lx::ENDORSE, self.w(i))
        };
        if (from..i).any(|k| lx::considered(self.w(k)) && !polite(k) && !ready(k))
            || before.iter().any(|b| *b == "let's" || *b == "lets")
        {
            return Kind::Considered;
        }
        // A hedge just before the word, or opening the sentence ("Broadly, yes, I agree").
        let opener =
            (0..from).all(|k| lx::hedge(self.w(k)) || is_adverb(self.w(k)) || lx::is(lx::OPENER_WORDS, self.w(k)));
        if before.iter().take(3).any(|b| lx::hedge(b))
            || self.any_phrase(from, i, lx::HEDGE_PHRASES)
            || (from > 0 && opener && (0..from).any(|k| lx::hedge(self.w(k)) || self.phrase_at(k, "in principle")))
        {
            return Kind::Part;
        }
        // A concession: "While I agree on cost, …".
        if lx::concessive(self.w(from)) || self.phrase_at(from, "even though") {
            return Kind::Part;
        }
        // After the word: limits, provisos, empty objects, shared reservations.
        let after_end = self.next_clause_end(to);
        if self.any_phrase(end + 1, after_end, lx::PART_AFTER) {
            return Kind::Part;
        }
        if self.any_phrase(end + 1, after_end, lx::CONDITION_AFTER) {
            return Kind::Conditional;
        }
        if (end + 1..(end + 4).min(to)).any(|k| lx::empty_object(self.w(k)) || self.phrase_at(k, "no one")) {
            return Kind::Oppose;
        }
        // "…have correctly addressed the math problem": the task, not a reservation.
        if (end + 1..(end + 7).min(to))
            .any(|k| lx::reservation(self.w(k)) && !lx::is(lx::THE_TASK_BEFORE, self.w(k - 1)) && !self.conceded(k))
        {
            return Kind::Part;
        }
        // A condition in this clause or the ones beside it (past an aside in brackets).
        let mut prev_clause = if from > 0 { self.clause_range(from - 1).0 } else { from };
        while prev_clause > 0 && prev_clause < from && self.aside(prev_clause) {
            prev_clause = self.clause_range(prev_clause - 1).0;
        }
        // "I agree with your view that both are valid, depending on context": what
        // follows "that" is what is agreed to, and its dependence is part of it.
        let content = (end + 1..after_end).find(|&k| self.w(k) == "that").unwrap_or(after_end);
        if self.any_phrase(prev_clause, after_end, lx::CONDITION_PHRASES)
            && !(content < after_end
                && (content..after_end).any(|k| self.phrase_at(k, "depending on"))
                && !self.any_phrase(prev_clause, content, lx::CONDITION_PHRASES))
        {
            return Kind::Conditional;
        }
        for k in prev_clause..after_end {
            let w = self.w(k);
            // "the solutions provided by the others" sets no condition; "…, provided the tests pass" does.
            let proviso = lx::is(lx::OPENS_ONLY_AFTER_BREAK, w)
                && w != "yet"
                && !(k == self.clause_range(k).0 || (k > 0 && self.w(k - 1) == "only"));
            if self.mutual_condition(k) {
                continue;
            }
            if lx::condition(w) && !proviso && !(k > 0 && lx::is(lx::NOT_CONDITION_BEFORE, self.w(k - 1))) {
                // "once" in "at once" is not a condition.
                if w == "once" && k > 0 && self.w(k - 1) == "at" {
                    continue;
                }
                return Kind::Conditional;
            }
            if w == "if" && k > 0 && self.w(k - 1) == "as" {
                return Kind::Considered;
            }
        }
        Kind::Agree
    }

    /// "I'm intrigued by your offer, P1. However, I'm aligned with the
    /// mid-tier coalition and voting P1", "I'm not swayed by your offer. I'm
    /// aligned with P8, P3 and P4": in a reply to the other party's offer,
    /// alignment with someone else (not "you", "your …", "this", "the plan")
    /// sets that offer aside; it agrees with no position the reply answers
    /// (added after held-out batch 8's first read).
    fn aligned_elsewhere(&self, i: usize) -> bool {
        if self.w(i) != "aligned" || self.w(i + 1) != "with" {
            return false;
        }
        let lower = self.own.to_lowercase();
        let offered = ["your offer", "your proposal", "your deal", "your terms"].iter().any(|p| lower.contains(p));
        let mut k = i + 2;
        if self.w(k) == "the" {
            k += 1;
        }
        let object = self.w(k);
        let theirs = lx::is("you your yours this that it these those plan proposal offer deal idea terms", object);
        offered && !object.is_empty() && !theirs
    }

    /// Whether word `k` stands inside brackets ("…, (or another solid fourth
    /// beyond you/P5/me), count me in"): an aside inside the clause around
    /// it, so a condition before it still governs what follows (added after
    /// held-out batch 8's first read).
    fn aside(&self, k: usize) -> bool {
        let Some(before) = self.own.get(self.words[0].1..self.words[k].1) else { return false };
        before.matches('(').count() > before.matches(')').count()
    }

    /// "…if you are (as well)", "…if you agree", "…if you do": the other party's
    /// own assent, which a deal needs anyway, limits nothing (added after
    /// held-out-4's first read). Only when the clause ends there.
    fn mutual_condition(&self, k: usize) -> bool {
        let end = self.clause_range(k).1;
        let tail: Vec<&str> = (k + 1..end).map(|j| self.w(j)).collect();
        matches!(
            tail.as_slice(),
            ["you", "are" | "do" | "agree"]
                | ["you", "are" | "do" | "agree", "too" | "also"]
                | ["you", "are", "as", "well"]
        ) && self.w(k) == "if"
    }

    /// The end (exclusive word index) of the clause after the one ending at `to`.
    fn next_clause_end(&self, to: usize) -> usize {
        if to >= self.len() { to } else { self.clause_range(to).1 }
    }

    // ---- opposition ---------------------------------------------------------

    /// Opposition (or withdrawn opposition) at word `i`.
    fn opposition(&self, i: usize) -> Option<Kind> {
        let w = self.w(i);
        if !may_oppose(w) || (!self.position && self.about_option()) {
            return None;
        }
        // "Only if the depot is funded…": a sentence that opens with an emphatic
        // condition sets one on the speaker's stance, whatever verb follows.
        if i == 0 && w == "only" && lx::is(lx::ONLY_CONDITION, self.w(1)) {
            return Some(Kind::Conditional);
        }
        // A position is what is held: only the speaker's own opposition limits it
        // ("I still oppose the budget line"), not the alternative it rejects.
        if self.position && self.subject(i) != Subject::First && !lx::reservation(w) {
            return None;
        }
        let prev = if i > 0 { self.w(i - 1) } else { "" };
        let (from, to) = self.clause_range(i);
        let before: Vec<&str> = self.before(i, 4).collect();
        let negated = before.iter().any(|b| lx::negation(b));
        let no_longer = self.phrase_at(i.saturating_sub(2), "no longer") || before.first() == Some(&"longer");
        // "I disagree", "…but reject the remedy", "I'd object".
        // After "the", "this", "your" … an opposing verb is a noun: "in
        // analyzing the question", "the implications of the challenge" (added
        // after held-out batch 6's first read).
        if lx::oppose_verb(w) && !lx::is(lx::NOUN_DETERMINERS, prev) {
            let subject = self.subject(i);
            let needs_stated = lx::is(lx::NEEDS_STATED_SUBJECT, w);
            let ok = match subject {
                Subject::First => true,
                Subject::Elided => !needs_stated || i == from,
                Subject::Unknown => !needs_stated && prev != "the" && prev != "a",
                Subject::Other => false,
            };
            if !ok {
                return None;
            }
            if no_longer {
                return Some(Kind::Agree);
            }
            if negated {
                return Some(Kind::Considered);
            }
            return Some(Kind::Oppose);
        }
        // "I objected at first" is past — unless it still holds.
        if lx::oppose_past(w) && self.subject(i) == Subject::First {
            let present = before.iter().any(|b| lx::is(lx::PRESENT_STATE, b))
                || self.any_phrase(i, (i + 6).min(self.len()), lx::STILL_OPPOSES);
            if present && !negated {
                return Some(Kind::Oppose);
            }
            return None;
        }
        // "I remain unconvinced", "still skeptical", "I'm against it".
        if lx::opposed_state(w) {
            // "as far as I'm concerned"; "…are concerned with resources held in trust" (are about).
            if self.phrase_at(i.saturating_sub(3), "as far as")
                || (w == "concerned" && (before.contains(&"far") || self.w(i + 1) == "with"))
            {
                return None;
            }
            let stated = before.iter().any(|b| lx::first_person(b) || lx::is(lx::STATE_VERBS, b));
            let elided = i == from || (i == from + 1 && is_adverb(self.w(from)));
            if self.subject(i) == Subject::Other {
                return None;
            }
            if w == "against" && !before.iter().any(|b| lx::is(lx::AGAINST_STATE, b)) {
                return None;
            }
            // "I was skeptical at first" is a state given up, unless it still holds.
            let past = before.iter().take(2).any(|b| lx::is(lx::PAST_BE, b))
                && !before.iter().any(|b| lx::is(lx::STILL_HELD, b));
            if (stated || elided) && !past {
                if no_longer {
                    return Some(Kind::Agree);
                }
                if negated {
                    return None;
                }
                return Some(Kind::Oppose);
            }
            return None;
        }
        // "I still have concerns", "my objection stands", "one caveat".
        // "our understanding of the problem": the task, not a reservation.
        if lx::reservation(w) && !lx::is(lx::THE_TASK_BEFORE, prev) {
            if before.iter().take(2).any(|b| lx::is(lx::NO_RESERVATION, b)) || self.question || self.conceded(i) {
                return None;
            }
            let mine = before.iter().any(|b| lx::is(lx::POSSESSIVE_FIRST, b));
            let had = self.subject(i) == Subject::First && before.iter().any(|b| lx::is(lx::HAVE_VERBS, b));
            let one = lx::is(lx::RESERVATION_DETERMINERS, prev)
                && matches!(self.subject(i), Subject::First | Subject::Elided);
            if mine || had || one {
                // Objections a speaker withdraws, or says were answered, are not held —
                // unless that is denied ("this does not address my concern").
                if before.iter().any(|b| lx::is(lx::WITHDRAW_VERBS, b)) {
                    return None;
                }
                if !negated && (self.resolved_before(i) || self.resolved_after(i)) {
                    return None;
                }
                return Some(Kind::Oppose);
            }
            return None;
        }
        // "no longer support", "no longer hold that view".
        if w == "longer" && prev == "no" {
            let next = self.w(i + 1);
            if lx::is(lx::NO_LONGER_VERBS, next) {
                return Some(Kind::Withdrawn);
            }
        }
        // Elliptical denial after a comma or contrast: "…, not with the plan".
        // On a line that analyses one option ("- B) False. …, not paralysis of
        // the arm"), a sentence that names no one and no agreement describes
        // the option: its "not" denies nobody's position (added after held-out
        // batch 5's first read).
        if w == "not" && i == from && !lx::is(lx::NOT_LIMITERS, self.w(i + 1)) && !self.position {
            return Some(Kind::Oppose);
        }
        if w == "not" && i == from + 1 && lx::is(lx::ELLIPSIS_OPENERS, self.w(from)) {
            return Some(Kind::Oppose);
        }
        // Condemning what is under discussion: "the plan as written is a mistake".
        let target = lx::discussion_target(w) || (lx::is(lx::PRONOUN_TARGETS, w) && i + 1 < to);
        if target && !(from..i).any(|k| self.agreement_word(k)) {
            let reach = if lx::discussion_target(w) { to } else { (i + 4).min(to) };
            let condemned = (i + 1..reach).any(|k| {
                let x = self.w(k);
                lx::condemnation(x)
                    || (x == "too" && k + 1 < reach)
                    || self.phrase_at(k, "bad idea")
                    || self.phrase_at(k, "falls short")
                    || (lx::is(lx::WORK_VERBS, x) && (k > i + 1) && lx::negation(self.w(k - 1)))
            });
            if condemned {
                return Some(Kind::Oppose);
            }
        }
        None
    }

    /// The reservation at `k` is conceded: "despite my concerns", "in spite of
    /// my doubts" — the speaker acts against it, it limits nothing.
    fn conceded(&self, k: usize) -> bool {
        self.before(k, 3).any(|b| lx::is(lx::CONCEDED_BEFORE, b))
    }

    /// "…answers my worry", "…resolves my main concern".
    fn resolved_before(&self, i: usize) -> bool {
        self.before(i, 4).any(|b| lx::is(lx::RESOLVING_VERBS, b))
    }

    /// "my concern is resolved", "my objection has been answered".
    fn resolved_after(&self, i: usize) -> bool {
        let (_, to) = self.clause_range(i);
        (i + 1..(i + 7).min(to)).any(|k| lx::is(lx::RESOLVED_STATES, self.w(k)))
            && !(i + 1..(i + 7).min(to)).any(|k| lx::negation(self.w(k)))
    }

    /// The sentence analyses an answer option and speaks of no one: it sits on
    /// a line that opens with an option, or its subject is the option ("This
    /// option is flawed …", "This assertion fails …"); and it has no I or we,
    /// no you, no agreement word, no other agent. Judging an option is the
    /// reasoning, not a stance towards another seat (added after held-out
    /// batch 6's first read: its replies reject every wrong option in turn).
    fn about_option(&self) -> bool {
        if let Some(known) = self.about_option.get() {
            return known;
        }
        let found = self.find_about_option();
        self.about_option.set(Some(found));
        found
    }

    fn find_about_option(&self) -> bool {
        let option_line = self.words.first().is_some_and(|w| on_option_line(self.own, w.1));
        let subject = (0..self.len().saturating_sub(1)).any(|k| {
            lx::is(lx::OPTION_POINTERS, self.w(k))
                && lx::is(lx::OPTION_NOUNS, self.w(k + 1))
                && (k == 0 || self.after_break[k])
        });
        (option_line || subject)
            && !(0..self.len()).any(|k| {
                let w = self.w(k);
                lx::first_person(w)
                    || matches!(w, "you" | "your" | "you're")
                    || (self.agreement_word(k) && !self.agreement_noun(k))
                    || pt::Class::Cited.holds(w)
            })
    }

    /// The agreement word at `k` is a noun here: "lacks empirical support",
    /// "it does not enjoy strong support", "the support of …".
    fn agreement_noun(&self, k: usize) -> bool {
        k > 0 && (lx::is(lx::NOUN_MARKERS, self.w(k - 1)) || lx::is(lx::BEFORE_NOUN_SUPPORT, self.w(k - 1)))
    }

    fn agreement_word(&self, k: usize) -> bool {
        lx::is(lx::AGREEMENT_WORDS, self.w(k))
    }

    // ---- contrast -----------------------------------------------------------

    fn contrast_at(&self, i: usize) -> bool {
        let w = self.w(i);
        match w {
            "but" => {
                let prev = if i > 0 { self.w(i - 1) } else { "" };
                let next = self.w(i + 1);
                // "…ban phones during lessons but allow them at lunch": with no comma and a
                // verb right after, "but" joins two parts of what is agreed to.
                let joins_verbs =
                    !self.after_break[i] && !starts_clause_of_its_own(next) && !lx::is(lx::BUT_NEXT_DEMANDS, next);
                // "…, but any changes should keep Pencil with me": a word on later
                // changes limits nothing agreed now.
                let later_changes = next == "any" && lx::is(lx::LATER_CHANGES, self.w(i + 2));
                !lx::is(lx::BUT_NEXT_NO_CONTRAST, next)
                    && !lx::is(lx::BUT_PREV_NO_CONTRAST, prev)
                    && !later_changes
                    && !self.adds_only(i)
                    && !(0..i).any(|k| lx::NOT_ONLY.split(',').any(|p| self.phrase_at(k, p)))
                    && !joins_verbs
            }
            "yet" => i == self.clause_range(i).0,
            // "Still, …" opens a sentence; "I still agree" is no contrast.
            "still" => i == 0 && self.clause[1.min(self.len() - 1)] != self.clause[0],
            w => lx::contrast(w) && !self.adds_only(i),
        }
    }

    /// "However, one small addition: …", "But one more addition." : the
    /// contrast word only announces something added, which limits nothing
    /// agreed; "But additions to the scope are out" still limits (added after
    /// held-out batch 9's first read).
    fn adds_only(&self, i: usize) -> bool {
        let mut k = i + 1;
        while k < self.len() && k <= i + 4 && lx::is(lx::ADDITION_LEADS, self.w(k)) {
            k += 1;
        }
        // The addition is announced, then given: "addition:" or the sentence's end.
        k < self.len() && lx::is(lx::ADDITIONS, self.w(k)) && (k + 1 == self.len() || self.after_break[k + 1])
    }
}

/// Whether `w` can start anything [`Clauses::opposition`] looks for: most
/// words cannot, and the full look (the clause, its subject, the words
/// before) costs far more than these lookups.
fn may_oppose(w: &str) -> bool {
    lx::is(lx::MAY_OPPOSE, w)
        || lx::oppose_verb(w)
        || lx::oppose_past(w)
        || lx::opposed_state(w)
        || lx::reservation(w)
        || lx::discussion_target(w)
}

/// Words that open a clause with a subject of its own (or a negation): after
/// them, "but" starts a contrast rather than joining two verbs.
fn starts_clause_of_its_own(w: &str) -> bool {
    lx::first_person(w) || lx::other_subject(w) || lx::negation(w) || w.ends_with("'s") || lx::is(lx::CLAUSE_OPENERS, w)
}

fn is_auxiliary(w: &str) -> bool {
    lx::is(lx::AUXILIARIES, w)
}

fn is_adverb(w: &str) -> bool {
    lx::is(lx::ADVERBS, w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stance::own_words::mask;

    fn v(text: &str) -> Verdict {
        read(&mask(text)).verdict
    }

    #[test]
    fn plain_agreement() {
        for text in [
            "I agree with Speaker 1 that caching is the bottleneck.",
            "After this round, we have converged on option B.",
            "I'm persuaded by the cost argument.",
            "I support the consensus position: ship in May.",
            "I've changed my mind and agree with Speaker 2.",
            "Agreed. Ship it in May.",
            "Fully agree with Speaker 3.",
            "I couldn't agree more with the phased plan.",
            "Speaker 2 has convinced me: the phased plan is right.",
            "I withdraw my objection; the phased plan works.",
            "Although I had doubts at first, I now agree with the phased plan.",
            "CONSENSUS: ship the tram in two phases.",
        ] {
            assert_eq!(v(text), Verdict::Agrees, "{text}");
        }
    }

    #[test]
    fn an_endorsement_asked_of_another_is_not_the_speakers() {
        // Added after held-out batch 7's first read: an endorsement verb
        // opening its sentence, or after a vocative, is an imperative.
        for text in [
            "P3, your plan is a power grab. P1=5, P2=1, P3=3 keeps us balanced. P2, back this or we both lose.",
            "My plan (P3:1, P1:3, P2:5) balances scores. Support it or risk mutual loss.",
            "I'll take 1. Otherwise, accept the consequences of your greed.",
            "Alice, accept this offer and we are done.",
        ] {
            assert_ne!(v(text), Verdict::Agrees, "{text}");
        }
        // A commitment "as agreed" is the speaker's only when stated, and not negated or asked.
        for text in ["I'll take 1 as agreed.", "I'll take 3 as proposed.", "I'm taking 5 as planned."] {
            assert_eq!(v(text), Verdict::Agrees, "{text}");
        }
        for text in [
            "I won't take 1 as agreed.",
            "P2 took 5 as agreed.",
            "Will you take 1 as agreed?",
            "As discussed, I understand you'll support my moves to Bulgaria.",
        ] {
            assert_ne!(v(text), Verdict::Agrees, "{text}");
        }
        // The speaker's own endorsement still counts, stated or carried over.
        for text in ["I back this plan.", "We support the proposal.", "I've read it twice and support the proposal."] {
            assert_eq!(v(text), Verdict::Agrees, "{text}");
        }
    }

    #[test]
    fn agreement_held_open_or_given_elsewhere_is_not_agreement() {
        // Added after held-out batch 8's first read.
        use Verdict::*;
        for (text, want) in [
            // "absent" as "unless".
            ("Yes, absent a credible counterpath from P1, I'm aligned on P1.", Conditional),
            ("Absent any new evidence, I agree with the phased plan.", Conditional),
            // A bracketed aside inside a condition does not end it.
            ("If you lock either P3 or P8 (or another solid fourth beyond us), count me in on P7.", Conditional),
            ("If the tests pass (all of them, on every platform), I agree with the phased plan.", Conditional),
        ] {
            assert_eq!(v(text), want, "{text}");
        }
        // Alignment with someone else, in a reply to the other's offer, takes no offer.
        for text in [
            "I'm intrigued by your offer, P1. However, I'm aligned with the mid-tier coalition and voting P1.",
            "I'm not swayed by your offer. I'm aligned with P8, P3 and P4 to vote P1.",
            "Thanks for your proposal. I'm aligned with the others on the May date.",
        ] {
            assert_ne!(v(text), Agrees, "{text}");
        }
        for text in [
            "I'm aligned with your proposal.",
            "Your offer is fair and I'm aligned with it.",
            "I'm aligned with the plan (and the budget).",
        ] {
            assert_eq!(v(text), Agrees, "{text}");
        }
    }

    #[test]
    fn limited_agreement_never_counts() {
        use Verdict::*;
        let cases = [
            ("I agree with Speaker 3 that cost matters, but I still oppose the plan as written.", AgreesInPart),
            ("I would agree with Speaker 4 only if the budget doubled, which it will not.", Conditional),
            ("I'd agree if the tests pass.", Conditional),
            ("I agree, unless the budget slips.", Conditional),
            ("I might agree later.", Conditional),
            ("I used to agree with this; I no longer do.", Disagrees),
            ("I agree with none of the proposals.", Disagrees),
            ("I agree with nothing said so far.", Disagrees),
            ("It is tempting to say we agree, but the numbers differ.", Unclear),
            ("I do not, however, agree.", Disagrees),
            ("We have not yet converged on a plan.", Disagrees),
            ("It is tempting to say we agree.", Unclear),
            ("I agree with the diagnosis, not with the plan.", AgreesInPart),
            ("I accept the diagnosis but reject the remedy.", Disagrees),
            ("I partly agree.", AgreesInPart),
            ("I largely agree with Speaker 1.", AgreesInPart),
            ("I agree in principle.", AgreesInPart),
            ("I don't fully agree.", AgreesInPart),
            ("I don't agree.", Disagrees),
            ("Do we agree?", Unclear),
            ("I agree. However, the timeline is too tight.", AgreesInPart),
            ("While I agree on cost, the timeline worries me.", AgreesInPart),
            ("I agree with Speaker 1 on cost. The plan as written is a mistake.", AgreesInPart),
            ("I share Speaker 3's concern about the cost.", AgreesInPart),
            ("We have not converged.", Disagrees),
            ("I remain unconvinced.", Disagrees),
            ("I agree for now.", Conditional),
        ];
        for (text, expected) in cases {
            assert_eq!(v(text), expected, "{text}");
        }
    }

    /// Added after held-out batch 6's first read.
    #[test]
    fn an_answer_option_judged_wrong_is_analysis_not_opposition() {
        use Verdict::*;
        let cases = [
            ("I agree with the other agents.\n\n- **Option B** is incorrect, as it misrepresents the data.", Agrees),
            ("I agree with the other agents.\n\n3. **Options E** incorrectly suggests that France won alone.", Agrees),
            ("I agree with the other agents.\n\n   - This option is flawed, as it rests on a stereotype.", Agrees),
            ("I agree with the other agents.\n\n- **Option D**: it does not enjoy strong support.", Agrees),
            // A seat judged, or the speaker speaking, is still a stance.
            ("I agree with the others.\n\n- **Option B**: the other agents' answer is incorrect.", AgreesInPart),
            ("I agree with the others.\n\nOptionally, the second solution has an error.", AgreesInPart),
            ("I agree with the others. However, I reject option B.", AgreesInPart),
        ];
        for (text, expected) in cases {
            assert_eq!(v(text), expected, "{text}");
        }
    }

    /// Added after held-out batch 6's first read.
    #[test]
    fn nouns_and_demands_after_agreement() {
        use Verdict::*;
        let cases = [
            // "the question" is a noun, not the speaker questioning anything.
            ("I agree with the others, having weighed the question.", Agrees),
            ("I question the others' plan.", Disagrees),
            ("I have a doubt about the plan.", Disagrees),
            // "but must insist" presses a demand of the speaker's own.
            ("I welcome your proposal but must insist that Brest stays mine.", AgreesInPart),
            ("I back the plan but ban phones at lunch.", Agrees),
            // A confirmation asked waits on the answer.
            ("Agreed. Just to confirm, you will support me there, correct?", Conditional),
            ("Agreed. Just to confirm, I will support you there.", Agrees),
            // "your alliance offer" is a noun, not the speaker offering.
            ("I accept your alliance offer.", Agrees),
            ("I offer an alliance.", Disagrees),
        ];
        for (text, expected) in cases {
            assert_eq!(v(text), expected, "{text}");
        }
    }

    #[test]
    fn a_contrast_that_only_announces_an_addition_limits_nothing() {
        // Added after held-out batch 9's first read.
        use Verdict::*;
        for (text, expected) in [
            ("I agree with both points.\n\nHowever, one small addition:\n\nlog every call.", Agrees),
            ("I agree with the plan. But one more addition: a help line at start.", Agrees),
            ("Agreed. However, a minor addition.", Agrees),
            // A change, an addition refused or a question after it still limit.
            ("I agree with the plan. However, one change: no decimals.", AgreesInPart),
            ("I agree with the plan. However, additions to the scope are out of the question.", AgreesInPart),
            ("I agree with the plan. However, one small addition is not enough.", AgreesInPart),
        ] {
            assert_eq!(v(text), expected, "{text}");
        }
    }

    #[test]
    fn a_plan_judged_sound_by_its_auditor_is_agreement_and_a_flaw_after_it_limits_it() {
        // Added after held-out batch 10's first read.
        use Verdict::*;
        for (text, expected) in [
            ("**Confidence Score: 5/5**\n\nThe Moderator's strategy is excellent and well-structured.", Agrees),
            ("The Moderator's proposed strategy is robust and aligns with standard methodologies.", Agrees),
            ("The moderator's overall strategy is correct and well-suited to this problem.", Agrees),
            // A flaw after it limits it; a plan denied or asked about is no agreement.
            ("The Moderator's strategy is correct but has one important technical flaw.", AgreesInPart),
            ("Is the moderator's approach sound?", Silent),
        ] {
            assert_eq!(v(text), expected, "{text}");
        }
        // "mostly" is no plain endorsement, nor a denied one: whatever else, not agreement.
        for text in [
            "The Moderator's core strategy is mostly correct but has one important technical flaw.",
            "The Moderator's strategy is not correct.",
            "The Moderator's strategy is correct but contains an error in step 3.",
        ] {
            assert_ne!(v(text), Agrees, "{text}");
        }
    }

    #[test]
    fn a_bare_approved_or_accepted_is_the_reviewers_agreement() {
        // Added after held-out batch 12's first read.
        for (text, want) in [
            ("Approved. The sync tests and the schema change are correct.", Verdict::Agrees),
            ("Accepted. The offline split is the right one.", Verdict::Agrees),
            ("Approved.", Verdict::Agrees),
            // A reservation after it still limits it.
            ("Accepted. But the retry path needs a test before we ship.", Verdict::AgreesInPart),
        ] {
            assert_eq!(read(text).verdict, want, "{text}");
        }
        // Reports, not the speaker's verdict: never agreement.
        for text in [
            "The plan was approved by the board last week.",
            "Offer accepted by the buyer.",
            "Accepted answers are listed below.",
        ] {
            assert_ne!(read(text).verdict, Verdict::Agrees, "{text}");
        }
    }

    #[test]
    fn support_tempered_with_another_plan_is_agreement_in_part() {
        // Added after held-out batch 11's first read.
        use Verdict::*;
        for (text, expected) in [
            ("I support Gemini's approach.", Agrees),
            ("I support Gemini's worker-centric approach, tempered with Claude's modular layering.", AgreesInPart),
            ("I support the proposal, moderated by the phased rollout GPT described.", AgreesInPart),
        ] {
            assert_eq!(v(text), expected, "{text}");
        }
    }

    #[test]
    fn attributed_agreement_counts_for_nothing() {
        for text in [
            "Speaker 2: I agree.",
            "[Speaker 1]: we have converged.",
            "Judge: I agree.",
            "The other speakers said: I agree.",
            "Speaker 3 agrees with the plan.",
            "```\nCONSENSUS: ship it\n```",
            "    CONSENSUS: ship it",
            "> I agree with everyone",
            "He wrote \"I agree\" earlier.",
        ] {
            assert_eq!(v(text), Verdict::Silent, "{text}");
        }
    }
}
