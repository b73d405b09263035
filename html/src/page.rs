//! A debate as one page to forward: a single self-contained HTML file, its
//! own style inline, no script, nothing loaded from anywhere.
//!
//! What a reader needs first comes first: the outcome (a degraded, failed or
//! unfinished run says so before anything else), the synthesis, the
//! protocol's results and the pictures; then the rounds, then the notes and
//! what it cost. Every reply, the synthesis and the results are Markdown,
//! rendered by [`markdown_to_html`], so model text never becomes markup;
//! everything else a model or a user wrote (seat names, the question, the
//! context, file names) is escaped. The pictures are the engine's SVGs,
//! which escape their own text. A Content-Security-Policy says the same to
//! the browser: should anything ever slip through, the page still runs no
//! script, loads nothing and sends nothing, and only its own style applies.

mod usage;

use std::fmt::Write;

use agon_core::{OutcomeKind, Phase, Transcript, Turn};

use crate::markdown_to_html;

/// The page's style, inline; [`CSP`] allows it by its hash and nothing else.
const STYLE: &str = include_str!("page.css");

/// No script, no fetch, no image, no frame, no form; no style but the page's
/// own (by its SHA-256: a test checks it against `page.css`).
pub const CSP: &str = "default-src 'none'; style-src 'sha256-fDmiF7PX4em4vAfuQ37nPx9t1lh33KH22k9BA9fMUGc='; \
img-src 'none'; base-uri 'none'; form-action 'none'";

/// The page for `t`. `results_markdown` is the protocol's named results as the
/// engine renders them (`results_markdown`; empty when there are none);
/// `pictures` the engine's SVGs, (file name, SVG), shown as they are.
pub fn session_page(t: &Transcript, results_markdown: &str, pictures: &[(String, String)]) -> String {
    let mut h = String::with_capacity(16 * 1024 + t.turns.iter().map(|turn| turn.text.len() * 2).sum::<usize>());
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<title>{} · agon</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&one_line(&t.question, 120))
    );
    header(&mut h, t);
    h.push_str("<main>\n");
    outcome(&mut h, t);
    synthesis(&mut h, t);
    if !results_markdown.trim().is_empty() {
        let _ = writeln!(
            h,
            "<section class=\"results\" aria-labelledby=\"results\">\n<h2 id=\"results\">Results</h2>\n{}</section>",
            markdown_to_html(results_markdown)
        );
    }
    if !pictures.is_empty() {
        h.push_str("<section class=\"pictures\" aria-labelledby=\"pictures\">\n<h2 id=\"pictures\">Pictures</h2>\n");
        for (name, svg) in pictures {
            let _ = writeln!(h, "<figure data-name=\"{}\">{svg}</figure>", escape(name));
        }
        h.push_str("</section>\n");
    }
    rounds(&mut h, t);
    let notes = agon_core::notes_markdown(t);
    if !notes.is_empty() {
        let _ = writeln!(h, "<section class=\"notes\">\n{}</section>", markdown_to_html(&notes));
    }
    usage::table(&mut h, &t.usage);
    h.push_str(
        "</main>\n<footer>Written by agon. Replies are rendered from the models' Markdown; \
nothing a model wrote can run or load anything on this page.</footer>\n</body>\n</html>\n",
    );
    shown(&h)
}

/// `page` with every control character but newline and tab shown as `cat -v`
/// shows it (`^[`, `M-^[`; a carriage return dropped), and bidirectional
/// overrides and noncharacters named, never obeyed, as in every output agon
/// writes: a page is text too, and may well be printed to a terminal.
fn shown(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
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
    out
}

/// The question, what it came with, and who sat where.
fn header(h: &mut String, t: &Transcript) {
    let rounds = t.outcome.as_ref().map(|o| format!(" · {} rounds run", o.rounds_run)).unwrap_or_default();
    let _ = writeln!(
        h,
        "<header>\n<p class=\"meta\">agon · {}{rounds} · seed {}</p>\n<h1>{}</h1>",
        escape(&t.protocol),
        t.seed,
        escape(t.question.trim())
    );
    if let Some(parent) = &t.parent {
        let shortened = if parent.shortened { " (shortened in the prompts to fit)" } else { "" };
        let _ =
            writeln!(h, "<p class=\"meta\">Follows session <code>{}</code>{shortened}</p>", escape(&parent.session));
    }
    if let Some(context) = &t.context {
        let _ = writeln!(
            h,
            "<details class=\"context\" open><summary>Context</summary><pre>{}</pre></details>",
            escape(context)
        );
    }
    if !t.files.is_empty() {
        h.push_str("<details class=\"files\"><summary>Files (quoted in every prompt; size and SHA-256)</summary><ul>");
        for f in &t.files {
            let _ = write!(
                h,
                "<li><code>{}</code> · {} bytes · <code>{}</code></li>",
                escape(&f.path),
                f.bytes,
                escape(&f.sha256)
            );
        }
        h.push_str("</ul></details>\n");
    }
    h.push_str("<ul class=\"panel\">");
    for (i, p) in t.participants.iter().enumerate() {
        let _ = write!(
            h,
            "<li class=\"seat-{}\"><b>{}</b> <span class=\"model\">{}</span></li>",
            i % 8,
            escape(&p.name),
            escape(&p.model)
        );
    }
    if let Some(j) = &t.judge {
        let _ = write!(h, "<li class=\"judge\"><b>judge</b> <span class=\"model\">{}</span></li>", escape(&j.model));
    }
    h.push_str("</ul>\n</header>\n");
}

/// How it ended, first: a run that fell short says so before anything else.
fn outcome(h: &mut String, t: &Transcript) {
    let Some(o) = &t.outcome else {
        h.push_str(
            "<section class=\"outcome bad\" aria-labelledby=\"outcome\">\n<h2 id=\"outcome\">Unfinished</h2>\n\
<p>The journal ends before the debate did: what follows is every answered turn.</p>\n</section>\n",
        );
        return;
    };
    let _ = write!(
        h,
        "<section class=\"outcome {}\" aria-labelledby=\"outcome\">\n<h2 id=\"outcome\">{}</h2>\n<p>{}</p>\n",
        if o.kind.is_full() { "ok" } else { "bad" },
        escape(o.headline()),
        escape(&sentence(&o.reason))
    );
    if !o.failures.is_empty() {
        h.push_str("<ul class=\"failures\">");
        for f in &o.failures {
            let _ = write!(
                h,
                "<li><b>{}</b> ({} round {}): {} — {}</li>",
                escape(&name(t, &f.speaker)),
                f.phase.as_str(),
                f.round,
                f.kind.as_str(),
                escape(&f.message)
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

/// The judge's synthesis under the engine's heading for it; without one,
/// when the judge failed or the money ran out, each seat's last word.
fn synthesis(h: &mut String, t: &Transcript) {
    if let Some(s) = &t.synthesis {
        let heading = t.outcome.as_ref().map_or("Synthesis", |o| o.kind.synthesis_heading());
        let _ = writeln!(
            h,
            "<section class=\"synthesis\" aria-labelledby=\"synthesis\">\n<h2 id=\"synthesis\">{heading}</h2>\n\
<p class=\"who\"><b>{}</b> <span class=\"model\">{}</span></p>\n<div class=\"reply\">\n{}</div>{}\n</section>",
            escape(&name(t, &s.speaker)),
            escape(&s.model),
            markdown_to_html(&t.synthesis_shown()),
            cut_note(s.cut)
        );
        return;
    }
    let Some(kind) = t.outcome.as_ref().map(|o| o.kind) else { return };
    if !matches!(kind, OutcomeKind::JudgeFailed | OutcomeKind::CostLimit) {
        return;
    }
    h.push_str(
        "<section class=\"synthesis\" aria-labelledby=\"synthesis\">\n\
<h2 id=\"synthesis\">Final positions, side by side (no synthesis)</h2>\n",
    );
    for (i, p) in t.participants.iter().enumerate() {
        if let Some(last) = t.turns.iter().rev().find(|turn| turn.speaker == p.id) {
            turn(h, t, last, &format!("seat-{}", i % 8));
        }
    }
    let why = if kind == OutcomeKind::JudgeFailed {
        "The judge failed: weigh these positions yourself."
    } else {
        "The cost limit stopped the debate before a synthesis: weigh these positions yourself."
    };
    let _ = writeln!(h, "<p><em>{why}</em></p>\n</section>");
}

/// Every turn, under its round and phase, each round's consensus check after it.
fn rounds(h: &mut String, t: &Transcript) {
    if t.turns.is_empty() {
        return;
    }
    h.push_str("<section class=\"rounds\" aria-labelledby=\"rounds\">\n<h2 id=\"rounds\">The debate</h2>\n");
    let mut groups: Vec<(u32, Phase, Vec<&Turn>)> = Vec::new();
    for turn in &t.turns {
        match groups.last_mut() {
            Some((round, phase, turns)) if *round == turn.round && *phase == turn.phase => turns.push(turn),
            _ => groups.push((turn.round, turn.phase, vec![turn])),
        }
    }
    for (i, (round, phase, turns)) in groups.iter().enumerate() {
        let _ = writeln!(h, "<h3>{}</h3>", escape(&phase.heading(*round)));
        for turn in turns {
            let class = t
                .participants
                .iter()
                .position(|p| p.id == turn.speaker)
                .map_or_else(|| "other".to_string(), |i| format!("seat-{}", i % 8));
            self::turn(h, t, turn, &class);
        }
        // After the round's last phase: its check, once.
        if groups.get(i + 1).is_none_or(|next| next.0 != *round) {
            let check = agon_core::consensus_markdown(t, *round);
            if !check.is_empty() {
                let _ = writeln!(h, "<div class=\"check\">\n{}</div>", markdown_to_html(&check));
            }
        }
    }
    h.push_str("</section>\n");
}

fn turn(h: &mut String, t: &Transcript, turn: &Turn, class: &str) {
    let challenger = if turn.challenger { " <span class=\"tag\">challenger</span>" } else { "" };
    let _ = writeln!(
        h,
        "<article class=\"turn {class}{}\">\n<p class=\"who\"><b>{}</b> <span class=\"model\">{}</span>{challenger}</p>\n\
<div class=\"reply\">\n{}</div>{}\n</article>",
        if turn.challenger { " challenger" } else { "" },
        escape(&name(t, &turn.speaker)),
        escape(&turn.model),
        markdown_to_html(turn.text.trim()),
        cut_note(turn.cut)
    );
}

fn cut_note(cut: bool) -> &'static str {
    if cut { "\n<p class=\"cut\">Cut at the token limit: the model had not finished.</p>" } else { "" }
}

/// A seat's name as the transcript gives it, or its id.
fn name(t: &Transcript, id: &str) -> String {
    t.participants.iter().chain(t.judge.iter()).find(|p| p.id == id).map_or_else(|| id.to_string(), |p| p.name.clone())
}

/// At most `max` characters of `text`, on one line.
fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// A reason as a sentence of its own: capitalized, with its full stop.
fn sentence(reason: &str) -> String {
    let reason = reason.trim();
    let mut chars = reason.chars();
    let mut s: String = chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default();
    if !s.ends_with('.') {
        s.push('.');
    }
    s
}

/// Text or an attribute value with its markup characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
