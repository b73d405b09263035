//! Markdown rendering of a transcript, shared by every host.

pub(crate) mod adr;
pub(crate) mod data_blocks;
pub(crate) mod inert;
pub(crate) mod json_tables;
pub(crate) mod kinds;
pub(crate) mod results;

use std::fmt::Write;

use crate::{OutcomeKind, Phase, Transcript};

/// Render a transcript as Markdown. A run that is not a full council answer
/// says so at the top and never uses the normal synthesis heading.
pub fn markdown(t: &Transcript) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", t.question.trim());
    if let Some(context) = &t.context {
        let _ = writeln!(out, "{}\n", results::quote(context));
    }
    if let Some(parent) = &t.parent {
        let shortened = if parent.shortened { " (shortened in the prompts to fit)" } else { "" };
        let _ = writeln!(out, "**Follows:** session `{}`{shortened}\n", parent.session);
    }
    files_list(&mut out, &t.files);
    let panel: Vec<String> = t.participants.iter().map(|p| format!("{} (`{}`)", p.name, p.model)).collect();
    let blind = if t.blind { " · **Blind first answers**" } else { "" };
    let _ = write!(out, "**Protocol:** {}{blind} · **Seed:** {} · **Panel:** {}", t.protocol, t.seed, panel.join(", "));
    match &t.judge {
        Some(j) => {
            let _ = writeln!(out, " · **Judge:** {} (`{}`)\n", j.name, j.model);
        }
        None => out.push_str("\n\n"),
    }
    match &t.outcome {
        Some(o) if !o.kind.is_full() => {
            let _ = writeln!(out, "> **Warning — {}:** {}\n", o.headline(), o.reason);
        }
        None => out.push_str("> **Unfinished:** this debate has not ended; what follows is every answered turn.\n\n"),
        _ => {}
    }

    turns(&mut out, t);
    summaries_and_notes(&mut out, t);
    if !t.results.is_empty() {
        out.push_str("## Results\n\n");
        out.push_str(&results_section(t));
    }

    synthesis_or_positions(&mut out, t);
    usage_table(&mut out, &t.usage);

    out.push_str("## Outcome\n\n");
    match &t.outcome {
        Some(o) => {
            let _ = writeln!(out, "**{}** — {} Rounds run: {}.", o.headline(), sentence(&o.reason), o.rounds_run);
        }
        None => out.push_str("**Unfinished** — the journal ends before the debate did.\n"),
    }
    // Model and user text never renders as HTML or a script link.
    inert::text(&out)
}

/// The rounds: a heading per round and phase, each turn under its speaker,
/// and each round's convergence check after it.
fn turns(out: &mut String, t: &Transcript) {
    let name = |id: &str| results::name(t, id);
    let mut current: Option<(u32, Phase)> = None;
    for turn in &t.turns {
        if current != Some((turn.round, turn.phase)) {
            let heading = turn.phase.heading(turn.round);
            if let Some((round, _)) = current {
                consensus_line(out, t, round);
            }
            let _ = writeln!(out, "## {heading}\n");
            current = Some((turn.round, turn.phase));
        }
        // A single agent answering alone plays no side.
        let side = (turn.phase != Phase::Single).then(|| side(t, &turn.speaker)).flatten();
        let mut mark = match (turn.challenger, side) {
            (true, _) => " (challenger)".to_string(),
            (false, Some(side)) => format!(" — {side}"),
            (false, None) => String::new(),
        };
        if let Some(model) = &turn.answered_by {
            mark.push_str(&format!(" · answered by `{model}` (fallback)"));
        }
        let _ = writeln!(
            out,
            "### {}{mark}\n\n{}\n{}",
            name(&turn.speaker),
            block(&turn_text(t, turn)),
            cut_note(turn.cut)
        );
    }
    if let Some((round, _)) = current {
        consensus_line(out, t, round);
    }
}

/// The judge's synthesis, or (the judge failed, or the cost limit came
/// first) every seat's final position side by side.
fn synthesis_or_positions(out: &mut String, t: &Transcript) {
    let name = |id: &str| results::name(t, id);
    if let Some(s) = &t.synthesis {
        let heading = t.outcome.as_ref().map_or("Synthesis", |o| o.kind.synthesis_heading());
        let _ = writeln!(
            out,
            "## {heading} — {}{}\n\n{}\n{}",
            name(&s.speaker),
            s.answered_by.as_ref().map(|m| format!(" · answered by `{m}` (fallback)")).unwrap_or_default(),
            block(&t.synthesis_shown()),
            cut_note(s.cut)
        );
    } else if let Some(kind) =
        t.outcome.as_ref().map(|o| o.kind).filter(|k| matches!(k, OutcomeKind::JudgeFailed | OutcomeKind::CostLimit))
    {
        out.push_str("## Final positions, side by side (no synthesis)\n\n");
        for p in &t.participants {
            if let Some(last) = t.turns.iter().rev().find(|turn| turn.speaker == p.id) {
                let _ = writeln!(out, "### {}\n\n{}\n", p.name, block(&last.text));
            }
        }
        if kind == OutcomeKind::JudgeFailed {
            out.push_str("*The judge failed: weigh these positions yourself.*\n\n");
        } else {
            out.push_str("*The cost limit stopped the debate before a synthesis: weigh these positions yourself.*\n\n");
        }
    }
}

/// The rolling summaries and the notes (the seed's choices, warnings), as
/// [`markdown`] writes them after the rounds; empty when there are none.
/// Inert, for hosts that lay a transcript out themselves (agon-html's page).
pub fn notes_markdown(t: &Transcript) -> String {
    let mut out = String::new();
    summaries_and_notes(&mut out, t);
    inert::text(&out)
}

/// A round's consensus check as [`markdown`] writes it under the round;
/// empty when the round had none. Inert, as [`notes_markdown`].
pub fn consensus_markdown(t: &Transcript, round: u32) -> String {
    let mut out = String::new();
    consensus_line(&mut out, t, round);
    inert::text(&out)
}

fn summaries_and_notes(out: &mut String, t: &Transcript) {
    let name = |id: &str| results::name(t, id);
    if !t.summaries.is_empty() {
        out.push_str("## Summaries (context budget)\n\n");
        for s in &t.summaries {
            let _ = writeln!(out, "### Rounds 1 to {} — {}\n\n{}\n", s.covers_round, name(&s.speaker), block(&s.text));
        }
    }
    if !t.choices.is_empty() || !t.warnings.is_empty() {
        out.push_str("## Notes\n\n");
        for c in &t.choices {
            let _ = writeln!(out, "- The seed chose the {}: {}.", c.what, c.value);
        }
        for w in &t.warnings {
            let who = w.speaker.as_deref().map(|s| format!("{} ", name(s))).unwrap_or_default();
            let _ = writeln!(
                out,
                "- Warning ({who}{} round {}): {}.",
                w.phase.as_str(),
                w.round,
                w.message.trim_end_matches('.')
            );
        }
        out.push('\n');
    }
}

/// The side a panel seat plays where the protocol gives seats sides (the
/// advocate and the challenger, a defender and its challengers, the urgency
/// and impact lenses), capitalized; the last side is every later seat's.
fn side(t: &Transcript, speaker: &str) -> Option<String> {
    let sides = crate::protocol::registry::shown(&t.protocol)?.sides;
    let seat = t.participants.iter().position(|p| p.id == speaker)?;
    let side = sides.get(seat).or(sides.last())?;
    // A seat named for its side ("Defender") says it already.
    if t.participants[seat].name.to_lowercase().contains(&side.to_lowercase()) {
        return None;
    }
    let mut chars = side.chars();
    Some(chars.next()?.to_uppercase().chain(chars).collect())
}

/// A turn's text as every host shows it: a reply in a protocol's JSON shape
/// (challenge's verdicts and responses) as labelled Markdown fields, any other
/// as it is. Model text, not yet inert: [`markdown`] makes it so, agon-html's
/// page renders it safely.
pub fn turn_text(t: &Transcript, turn: &crate::Turn) -> String {
    let shown = crate::protocol::registry::shown(&t.protocol);
    shown.and_then(|s| (s.render_turn)(t, turn)).unwrap_or_else(|| turn.text.clone())
}

/// A model's text as a block of its own: inert, and with any fence it
/// leaves open closed, so the headings after it are never swallowed.
fn block(text: &str) -> String {
    inert::text(text.trim()).trim_end().to_string()
}

/// The files the speakers read: each path as code (a fence longer than any
/// run of backticks in it), its size and SHA-256. Their text is in the spec.
fn files_list(out: &mut String, files: &[crate::FileRecord]) {
    if files.is_empty() {
        return;
    }
    out.push_str("**Files** (quoted in every prompt; size and SHA-256):\n\n");
    for f in files {
        let longest = f.path.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        let ticks = "`".repeat(longest + 1);
        let _ = writeln!(out, "- {ticks} {} {ticks} — {} bytes, `{}`", f.path, f.bytes, f.sha256);
    }
    out.push('\n');
}

/// The line under a reply cut at its token limit ("" for a whole one).
fn cut_note(cut: bool) -> &'static str {
    if cut { "\n*[cut at the token limit: the model had not finished]*\n" } else { "" }
}

/// The protocol's named results alone, as Markdown (tables and headings, as
/// in [`markdown`]): what a live view or a page shows under the synthesis.
pub fn results_markdown(t: &Transcript) -> String {
    inert::text(&results_section(t))
}

/// Every named result of `t`, rendered by its kind, else in the generic form;
/// empty when there are none. The caller makes the whole document inert
/// (model text sits in these tables).
fn results_section(t: &Transcript) -> String {
    let mut out = String::new();
    for (key, result) in &t.results {
        if !kinds::render(t, result, &mut out) {
            results::generic(key, &result.data, &mut out);
        }
    }
    out
}

/// A synthesis of protocol `protocol` as people read it: without its data
/// blocks where the protocol's judge is asked for one (its results show it),
/// as written otherwise (a question may ask the judge for JSON).
pub fn synthesis_shown(protocol: &str, text: &str) -> String {
    match crate::protocol::registry::shown(protocol) {
        Some(shown) if shown.judge_closes_with_data => data_blocks::without_data_blocks(text),
        _ => text.trim().to_string(),
    }
}

impl Transcript {
    /// The judge's synthesis as people read it: without the data block the
    /// protocol's judge closes it with (read into the results, which show it),
    /// where the protocol asks for one; empty without a synthesis.
    pub fn synthesis_shown(&self) -> String {
        let Some(s) = &self.synthesis else { return String::new() };
        synthesis_shown(&self.protocol, &s.text)
    }
}

/// Any Markdown made inert as the transcript is: raw HTML escaped, unsafe
/// links unlinked. For hosts that compose Markdown of their own around model
/// text (the MCP server's results), so every host neutralizes it one way.
pub fn inert_markdown(text: &str) -> String {
    inert::text(text)
}

/// Tokens and cost per seat; `≈` marks numbers estimated for calls without
/// reported usage. The cache columns appear once a provider reported a cache
/// read or write: without them they would be zeros on every row.
fn usage_table(out: &mut String, u: &crate::UsageReport) {
    if u.seats.is_empty() {
        return;
    }
    // Without any price, a cost column would only say "unpriced" on every row.
    let priced = u.seats.iter().any(|s| s.cost_micro_usd.is_some());
    let cached = u.total.cached_tokens > 0 || u.total.cache_write_tokens > 0;
    out.push_str("## Usage\n\n| seat | model | calls | prompt tokens |");
    out.push_str(if cached { " cache reads | cache writes |" } else { "" });
    out.push_str(" completion tokens |");
    out.push_str(if priced { " cost |\n" } else { "\n" });
    out.push_str("|---|---|---:|---:|");
    out.push_str(if cached { "---:|---:|" } else { "" });
    out.push_str(if priced { "---:|---:|\n" } else { "---:|\n" });
    let approx = |estimated: u32| if estimated > 0 { "≈" } else { "" };
    let money = |c: Option<crate::Usd>| c.map_or("unpriced".to_string(), |c| c.display());
    let cache = |read: u64, written: u64| if cached { format!(" {read} | {written} |") } else { String::new() };
    for s in &u.seats {
        let a = approx(s.estimated_calls);
        let cost = if priced { format!(" {} |", money(s.cost_micro_usd)) } else { String::new() };
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {a}{} |{} {a}{} |{cost}",
            s.seat,
            s.model,
            s.calls,
            s.prompt_tokens,
            cache(s.cached_tokens, s.cache_write_tokens),
            s.completion_tokens
        );
    }
    let t = &u.total;
    let a = approx(t.estimated_calls);
    let cost = match (&t.cost_micro_usd, t.unpriced.is_empty()) {
        _ if !priced => String::new(),
        (Some(c), true) => format!(" {} |", c.display()),
        (Some(c), false) => format!(" {} + unpriced |", c.display()),
        (None, _) => " unpriced |".to_string(),
    };
    let _ = writeln!(
        out,
        "| **total** | | {} | {a}{} |{} {a}{} |{cost}\n",
        t.calls,
        t.prompt_tokens,
        cache(t.cached_tokens, t.cache_write_tokens),
        t.completion_tokens
    );
    if t.estimated_calls > 0 {
        let _ = writeln!(
            out,
            "≈ {} call(s) came without reported usage; their tokens are estimated as characters / 4.\n",
            t.estimated_calls
        );
    }
}

/// A consensus check, briefly: the decision, each counted seat's verdict with
/// its source and evidence, the judge's word, and the rule.
fn consensus_line(out: &mut String, t: &Transcript, round: u32) {
    let Some(c) = t.consensus.iter().find(|c| c.round == round) else { return };
    let name = |id: &str| t.participants.iter().find(|p| p.id == id).map_or(id.to_string(), |p| p.name.clone());
    let verdict = match (c.reached, &c.judge) {
        (true, Some(_)) => "reached, confirmed by the judge",
        (true, None) => "reached",
        (false, Some(_)) => "not reached: the reader saw agreement, the judge did not confirm it",
        (false, None) => "not reached",
    };
    let _ = writeln!(out, "**Consensus check, round {round}** ({} mode): {verdict}.\n", c.mode.as_str());
    for s in &c.seats {
        let declared = match s.declared {
            Some(d) if s.source != crate::stance::Source::Declared => {
                let word = match d {
                    crate::stance::Verdict::Agrees => "SAME",
                    crate::stance::Verdict::Disagrees => "DIFFERENT",
                    _ => "PARTLY",
                };
                format!(", although its VOTE line said {word}")
            }
            _ => String::new(),
        };
        let evidence = s.evidence.as_ref().map(|e| format!(" — “{}”", e.quote)).unwrap_or_default();
        let answer = s.answer.as_ref().map(|a| format!(", reads as {a}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "- {}: {} ({}{declared}{answer}){evidence}",
            name(&s.seat),
            s.verdict.as_str(),
            s.source.as_str()
        );
    }
    for conflict in &c.conflicts {
        let who: Vec<String> = conflict.seats.iter().map(|s| name(s)).collect();
        let _ = writeln!(out, "- {}: positions contradict ({})", who.join(" and "), conflict.why);
    }
    if let Some(e) = &c.excluded {
        let _ = writeln!(out, "- {}: not counted (challenger)", name(e));
    }
    if let Some(j) = &c.judge {
        let word = if !j.readable {
            "its answer could not be read, so it did not confirm".to_string()
        } else if j.confirmed {
            format!("confirmed{}", j.position.as_deref().map(|p| format!(": {p}")).unwrap_or_default())
        } else if j.holdouts.is_empty() {
            "found no single shared position".to_string()
        } else {
            let who: Vec<String> = j.holdouts.iter().map(|h| format!("{} ({})", name(&h.seat), h.why)).collect();
            format!("found holdouts: {}", who.join("; "))
        };
        let _ = writeln!(out, "- Judge: {word}");
    }
    let _ = writeln!(out, "\n*Rule: {}.*\n", c.rule);
}

fn sentence(reason: &str) -> String {
    let mut s = reason.trim().to_string();
    if !s.ends_with('.') {
        s.push('.');
    }
    s
}
