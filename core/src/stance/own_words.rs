//! A reply's own words: everything it attributes to someone else is blanked.
//!
//! Text in code (fenced or indented), block quotes, inline quotation marks,
//! lines that open with a speaker label (`Speaker 2: …`, `[Speaker 1]`,
//! `Judge: …`, `### Speaker 3`) and what follows a reporting verb with
//! another subject ("the others said: …") is someone else's, or an attempt
//! to pass as someone else's. It counts for nothing, so it is replaced by
//! spaces of the same byte length: offsets into the result are offsets into
//! the reply, and evidence can quote the reply itself.

/// The reply with every attributed span blanked; same length, same newlines.
pub(crate) fn mask(text: &str) -> String {
    mask_with(text, None, false).0
}

/// [`mask`], but a fence never closed is a stray marker, not code: the words
/// after it are the reply's own (a model that opens ``` and writes its
/// conclusion after it). For answers, where a hidden conclusion reads as
/// none; agreement stays with [`mask`], where unsure means not counted.
pub(crate) fn mask_unclosed_fence_as_text(text: &str) -> String {
    match mask_with(text, None, true) {
        (out, None) => out,
        (_, Some(opener)) => mask_with(text, Some(opener), true).0,
    }
}

/// A fence whose info string says it holds prose (```` ```plaintext ````,
/// `text`, `markdown`): a model that sets its own conclusion in one
/// ("```plaintext\nAnswer: C\n```") writes words, not code.
fn prose_fence(opener: &str) -> bool {
    let info = opener.trim_start_matches(['`', '~']).trim().to_ascii_lowercase();
    matches!(info.as_str(), "plaintext" | "text" | "txt" | "markdown" | "md")
}

/// The reply's lines with what is attributed blanked, and where a fence that
/// is never closed opened. A fence opener at `stray` is read as text.
fn mask_with(text: &str, stray: Option<usize>, prose_fences: bool) -> (String, Option<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<(char, usize)> = None;
    // An open prose fence (answers only): its lines are read, its markers blanked.
    let mut prose: Option<(char, usize)> = None;
    let mut opened_at = 0;
    // After a bare label line or a label heading: the lines that follow are
    // that speaker's, until a heading or another label line.
    let mut attributed_block = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start_matches([' ', '\t']).len();
        let trimmed = body.trim_start_matches([' ', '\t']);
        // 1. Fenced code: ``` or ~~~, closed by a fence at least as long.
        if let Some((c, n)) = fence {
            if indent <= 3 && run_of(trimmed, c) >= n && trimmed.trim_start_matches(c).trim().is_empty() {
                fence = None;
            }
            blank(&mut out, line);
            continue;
        }
        if let Some((c, n)) = prose {
            if indent <= 3 && run_of(trimmed, c) >= n && trimmed.trim_start_matches(c).trim().is_empty() {
                prose = None;
                blank(&mut out, line);
                continue;
            }
        } else if prose_fences && indent <= 3 && prose_fence(trimmed) {
            let c = if trimmed.starts_with('`') { '`' } else { '~' };
            if run_of(trimmed, c) >= 3 {
                prose = Some((c, run_of(trimmed, c)));
                blank(&mut out, line);
                continue;
            }
        }
        if indent <= 3 {
            let at = out.len();
            for c in ['`', '~'] {
                let n = run_of(trimmed, c);
                if n >= 3 {
                    fence = Some((c, n));
                }
            }
            if fence.is_some() {
                blank(&mut out, line);
                if stray == Some(at) {
                    fence = None;
                } else {
                    opened_at = at;
                }
                continue;
            }
        }
        // A chat role's turn (`USER:`, `Human:`, `### Instruction:`) that the
        // model wrote on: the rest is a turn it invented, not its own words.
        if role_turn(trimmed) {
            let rest = &text[out.len()..];
            blank(&mut out, rest);
            break;
        }
        // 2. Indented code (or anything indented like it), and tabs.
        if !trimmed.is_empty() && (indent >= 4 || body.starts_with('\t')) {
            blank(&mut out, line);
            continue;
        }
        // 3. Block quotes.
        if trimmed.starts_with('>') {
            blank(&mut out, line);
            continue;
        }
        // 4. Speaker labels and label headings.
        match label_line(trimmed) {
            Some(LabelLine::Heading) => {
                attributed_block = true;
                blank(&mut out, line);
                continue;
            }
            Some(LabelLine::Bare) => {
                attributed_block = true;
                blank(&mut out, line);
                continue;
            }
            Some(LabelLine::WithText) => {
                blank(&mut out, line);
                continue;
            }
            None if trimmed.starts_with('#') => attributed_block = false,
            None => {}
        }
        if attributed_block {
            blank(&mut out, line);
            continue;
        }
        // 5. Inline quotations and reported speech, within the line.
        out.push_str(&mask_inline(line));
    }
    debug_assert_eq!(out.len(), text.len());
    (out, fence.map(|_| opened_at))
}

/// A line that opens another chat role's turn: `USER:`, `Human:`, `### Instruction`.
fn role_turn(line: &str) -> bool {
    let bare = line.trim_start_matches(['#', ' ', '*']);
    let name = bare.split([':', '：']).next().unwrap_or("").trim_matches(['*', ' ']);
    let keyed = bare.len() > name.len();
    (keyed && (name.eq_ignore_ascii_case("user") || name.eq_ignore_ascii_case("human")))
        || (line.starts_with("###") && name.eq_ignore_ascii_case("instruction"))
}

enum LabelLine {
    /// `### Speaker 2`, `**Speaker 2**`: a heading naming a speaker.
    Heading,
    /// `[Speaker 1]` or `Speaker 1:` alone on its line.
    Bare,
    /// `Speaker 2: I agree.`
    WithText,
}

/// Whether a line opens with a speaker label, and of which kind.
fn label_line(line: &str) -> Option<LabelLine> {
    let undecorated = line.trim_start_matches(['-', '*', '+', ' ']).trim_start();
    // Headings: `### Speaker 2 (challenger)`, or a bold label alone on its line.
    if let Some(rest) = line.strip_prefix('#') {
        let name = rest.trim_start_matches('#').trim().trim_end_matches(':');
        return is_speaker_name(strip_emphasis(name)).then_some(LabelLine::Heading);
    }
    let stripped = strip_emphasis(undecorated.trim_end());
    // Only a name alone: "ANSWER: **B**" ends in bold but is a keyed line, not a heading.
    let name = stripped.trim_end_matches(':');
    if stripped.len() < undecorated.trim_end().len() && !name.contains([':', '：']) && is_speaker_name(name) {
        return Some(LabelLine::Heading);
    }
    // `[Anything]` at the start of a line is a label.
    if let Some(inner) = undecorated.strip_prefix('[')
        && let Some(close) = inner.find(']')
        && close > 0
        && close <= 60
    {
        let after = inner[close + 1..].trim_start_matches(['*', '_', ':', ' ']).trim();
        return Some(if after.is_empty() { LabelLine::Bare } else { LabelLine::WithText });
    }
    // `Name: …` where the name is a speaker's.
    let colon = undecorated.find([':', '：'])?;
    let name = strip_emphasis(undecorated[..colon].trim());
    if !is_speaker_name(name) {
        return None;
    }
    let after = undecorated[colon..].trim_start_matches([':', '：', '*', '_', ' ']).trim();
    Some(if after.is_empty() { LabelLine::Bare } else { LabelLine::WithText })
}

fn strip_emphasis(s: &str) -> &str {
    s.trim().trim_matches(['*', '_']).trim()
}

/// Names that mark someone else's words: numbered or role-named speakers,
/// the judge, the others. Our own structural keys (`VOTE`, `CONSENSUS`,
/// `Position`) are not names.
fn is_speaker_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 5 || name.len() > 60 {
        return false;
    }
    const SPEAKERS: &str = "speaker speakers expert experts participant participants panelist panelists member judge \
        juge moderator chair chairman chairperson challenger advocate defender critic assistant user human ai agent \
        model others everyone everybody all respondent optimist regulator cfo steelman response answer seat";
    let head = words.iter().position(|w| super::lexicon::is(SPEAKERS, w));
    // Only articles and the like may come before the speaker word: "The other
    // speakers:", "Devil's Advocate:", not "Before that, the others said:".
    if let Some(h) = head
        && !words[..h]
            .iter()
            .all(|w| matches!(*w, "the" | "other" | "all" | "both" | "devil" | "devils" | "s" | "a" | "an"))
    {
        return false;
    }
    // `ANSWER:` alone is our own structural key (answer mode); "Answer B:" is a label.
    if head.is_some_and(|h| words[h] == "answer" && h + 1 == words.len()) {
        return false;
    }
    match head {
        // "Speaker 2", "The other speakers", "Devil's Advocate", "Response A" — the
        // label's last meaningful word names a speaker, or a number/letter follows it.
        // A verb after it makes the line a sentence: "**The answer is (C)**"
        // states an answer, it labels no one (added after held-out batch 11's
        // first read).
        Some(i) => words[i + 1..].iter().all(|w| {
            !matches!(*w, "is" | "am" | "be" | "do")
                && (w.len() <= 2 || w.chars().all(|c| c.is_ascii_digit()) || is_label_tail(w))
        }),
        None => false,
    }
}

fn is_label_tail(w: &str) -> bool {
    matches!(w, "challenger" | "says" | "said" | "wrote" | "writes" | "adds" | "added" | "replies" | "replied")
}

/// Blank inline quotations ("…", “…”, «…», ‘…’, `…`) and the words after a
/// reporting verb whose subject is someone else.
fn mask_inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut closer: Option<char> = None;
    let mut prev: Option<char> = None;
    for c in line.chars() {
        match closer {
            Some(close) => {
                if c == close {
                    closer = None;
                }
                if c == '\n' { out.push('\n') } else { push_blank(&mut out, c) }
            }
            None => {
                let opens = match c {
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '«' => Some('»'),
                    '`' => Some('`'),
                    // A curly single quote opens only after a space or line start,
                    // so "don’t" stays a word.
                    '‘' if prev.is_none_or(|p| p.is_whitespace() || "([".contains(p)) => Some('’'),
                    _ => None,
                };
                match opens {
                    Some(close) => {
                        closer = Some(close);
                        push_blank(&mut out, c);
                    }
                    None => out.push(c),
                }
            }
        }
        prev = Some(c);
    }
    mask_reported_speech(out)
}

/// After a reporting verb ("said", "wrote", "argues", "according to") whose
/// subject is not the speaker, blank the rest of the clause — or of the
/// sentence, when a colon introduces the report.
fn mask_reported_speech(line: String) -> String {
    // ASCII lowercasing keeps every byte offset, so ranges found in `lower`
    // are ranges of `line`.
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_alphabetic() || (i > 0 && is_word_byte(bytes[i - 1])) {
            i += 1;
            continue;
        }
        let end = (i..bytes.len()).find(|&k| !is_word_byte(bytes[k])).unwrap_or(bytes.len());
        let word = &lower[i..end];
        let reporting = super::lexicon::is(REPORTING_VERBS, word)
            || (word == "according" && lower[end..].trim_start().starts_with("to "))
            // "As Speaker 2 put it, …" reports; "Speaker 4 put it well" praises.
            || (word == "put" && lower[end..].trim_start().starts_with("it") && clause_starts_with_as(&lower[..i]));
        // "tempting to say we agree": an infinitive reports no one.
        let infinitive = lower[..i].trim_end().ends_with(" to") || lower[..i].trim_end() == "to";
        // "your suggested split", "the stated price": an adjective after a
        // determiner reports no one.
        let prev_word = lower[..i].trim_end().rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '\'')).next();
        let attributive = prev_word
            .is_some_and(|w| matches!(w, "your" | "my" | "our" | "their" | "his" | "her" | "its" | "the" | "a" | "an"));
        if reporting && !infinitive && !attributive && !first_person_subject(&lower[..i]) {
            let rest = &lower[end..];
            let skip = rest.len() - rest.trim_start().len();
            let colon = rest.trim_start().starts_with(':');
            // "According to X, …" and "As X put it, …" attribute the whole sentence.
            let whole_sentence = colon || word == "according" || word == "put";
            let stop = if whole_sentence { ".!?;" } else { ",.!?;:" };
            let from = end + skip + usize::from(colon);
            let to = lower[from..].find(|c: char| stop.contains(c)).map_or(lower.len(), |k| from + k);
            ranges.push((end, to));
            i = to.max(end);
            continue;
        }
        i = end;
    }
    if ranges.is_empty() {
        return line;
    }
    let mut out = String::with_capacity(line.len());
    for (at, c) in line.char_indices() {
        let inside = ranges.iter().any(|&(from, to)| at >= from && at < to);
        if inside && c != '\n' { push_blank(&mut out, c) } else { out.push(c) }
    }
    out
}

const REPORTING_VERBS: &str = "said says say wrote writes argued argues argue claimed claims claim stated states \
    state noted notes suggested suggests suggest asserted asserts insisted insists replied replies responded responds \
    concluded concludes conclude declared declares told tells mentioned mentions believes believe thinks think feels \
    maintains maintained maintain contended contends announced announces";

fn clause_starts_with_as(before: &str) -> bool {
    let clause = before.rsplit([',', '.', ';', ':', '!', '?', '\n']).next().unwrap_or(before);
    clause.trim_start().starts_with("as ")
}

/// Whether the nearest subject before a verb (in the same clause) is I or we.
fn first_person_subject(before: &str) -> bool {
    let clause = before.rsplit([',', '.', ';', ':', '!', '?']).next().unwrap_or(before);
    clause
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .rev()
        .find(|w| {
            !w.is_empty()
                && !matches!(
                    *w,
                    "also"
                        | "already"
                        | "just"
                        | "once"
                        | "have"
                        | "had"
                        | "earlier"
                        | "before"
                        | "still"
                        | "really"
                        | "do"
                        | "now"
                        | "personally"
                        | "strongly"
                        | "genuinely"
                        | "honestly"
                        | "truly"
                        // "we can conclude that …": a modal keeps the speaker the subject.
                        | "can"
                        | "could"
                        | "would"
                        | "should"
                        | "must"
                        | "will"
                        | "may"
                        | "might"
                )
        })
        .is_some_and(|w| matches!(w, "i" | "we" | "i've" | "we've" | "i'd" | "we'd"))
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'\''
}

/// `KEY: value` opening a line, Markdown decoration allowed (`**VOTE:** x`,
/// `- Consensus: x`): the offset where the key starts, and the value.
pub(crate) fn keyed<'a>(line: &'a str, key: &str) -> Option<(usize, &'a str)> {
    let lead = line.len() - line.trim_start_matches(|c: char| c.is_whitespace() || "*-#_+".contains(c)).len();
    let rest = &line[lead..];
    let head = rest.get(..key.len()).filter(|h| h.eq_ignore_ascii_case(key))?;
    let after = rest[head.len()..].trim_start_matches(['*', '_', ' ']);
    let value = after.strip_prefix([':', '：'])?;
    Some((lead, value))
}

/// `text` with the bytes `start..end` blanked (same length, newlines kept).
pub(crate) fn blank_span(text: &str, start: usize, end: usize) -> String {
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..start]);
    blank(&mut out, &text[start..end]);
    out.push_str(&text[end..]);
    out
}

fn run_of(s: &str, c: char) -> usize {
    s.chars().take_while(|&x| x == c).count()
}

fn blank(out: &mut String, line: &str) {
    for c in line.chars() {
        if c == '\n' || c == '\r' { out.push(c) } else { push_blank(out, c) }
    }
}

fn push_blank(out: &mut String, c: char) {
    for _ in 0..c.len_utf8() {
        out.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::mask;

    fn own(text: &str) -> String {
        mask(text).split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn keeps_length_and_plain_text() {
        let text = "I agree — ça va.\nSecond line “quoted” here.";
        assert_eq!(mask(text).len(), text.len());
        assert_eq!(own("I agree with Speaker 2."), "I agree with Speaker 2.");
    }

    #[test]
    fn code_blocks_are_not_own_words() {
        assert_eq!(own("Look:\n```\nCONSENSUS: ship it\n```\nDone."), "Look: Done.");
        assert_eq!(own("Look:\n\n    CONSENSUS: ship it\n\nDone."), "Look: Done.");
        assert_eq!(own("Unclosed\n~~~~\nI agree"), "Unclosed");
    }

    #[test]
    fn quotes_and_labels_are_not_own_words() {
        assert_eq!(own("> I agree\nMine."), "Mine.");
        assert_eq!(own("He wrote \"I agree\" there."), "He wrote .");
        assert_eq!(own("Speaker 2: I agree.\nMine."), "Mine.");
        assert_eq!(own("[Speaker 1]: we have converged.\nMine."), "Mine.");
        assert_eq!(own("Judge: I agree."), "");
        assert_eq!(own("**Speaker 3:** I agree."), "");
        assert_eq!(own("[Speaker 3]\nI agree.\nStill theirs.\n### My view\nMine."), "### My view Mine.");
        assert_eq!(own("VOTE: SAME — ship it"), "VOTE: SAME — ship it");
        assert_eq!(own("Position: I agree."), "Position: I agree.");
        // A bold sentence whose subject is "the answer" is the reply's own, not a label.
        assert_eq!(own("**Response A**\nI agree."), "");
        assert_eq!(own("**Answer B**\nI agree."), "");
        assert_eq!(own("**The answer is (C)**"), "**The answer is (C)**");
        assert_eq!(own("**The answer is (G) $3000.**"), "**The answer is (G) $3000.**");
    }

    #[test]
    fn reported_speech_is_not_own_words() {
        assert_eq!(own("The other speakers said: I agree."), "");
        assert_eq!(own("Before that, the others said: I agree."), "Before that, the others said .");
        assert_eq!(own("Speaker 2 said that we have converged, and I doubt it."), "Speaker 2 said , and I doubt it.");
        assert_eq!(own("As Speaker 2 argued, I agree."), "As Speaker 2 argued, I agree.");
        assert_eq!(own("According to Speaker 2, we have converged."), "According .");
        assert_eq!(own("I said earlier that I agree."), "I said earlier that I agree.");
        // Added after held-out-3's first read: a modal between the speaker and the verb.
        assert_eq!(own("So we can conclude that Bill was 15."), "So we can conclude that Bill was 15.");
        assert_eq!(own("I would say that it holds."), "I would say that it holds.");
        assert_eq!(own("Speaker 2 would say that it holds."), "Speaker 2 would say .");
    }
}
