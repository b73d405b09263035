//! What a person sees while a debate runs: round headers, who is speaking,
//! the reply streaming in, failures, consensus checks and the outcome.
//!
//! Replies that run concurrently are shown one after another in the order
//! they were asked for: the earliest in flight streams live, the others are
//! held back and shown, whole or as far as they got, when their turn comes.
//!
//! Everything written passes through [`sanitize::terminal`]: model text never
//! drives the terminal. The one exception is the judge's synthesis rendered by
//! termimad, whose own styling must survive; its input is sanitized instead.

mod live;

use std::collections::BTreeMap;
use std::io::Write;

use crate::engine::wit;
use crate::sanitize;
use crate::words::{kind_name, phase_title};

pub struct View {
    out: Option<Box<dyn Write>>,
    /// On a terminal: status lines per call in flight, text above them.
    live: Option<live::Live>,
    /// The judge's request, whose reply is rendered as Markdown when it is complete (live only).
    judge: Option<u64>,
    colour: bool,
    /// A call failed: the outcome cannot be a full one.
    failed: bool,
    /// Requests in flight or finished but not yet shown, by id (BTreeMap: shown in id order).
    pending: BTreeMap<u64, Pending>,
    /// The request whose text is streaming to the screen.
    focus: Option<u64>,
    /// The judge's consensus confirmation in flight: its JSON is not shown, the check is.
    confirming: Option<u64>,
    /// The panel's seat ids: a confirmation from one of them is a turn (priority-vote's confirmer), shown as such.
    panel: Vec<String>,
    /// `out` was left mid-line (a reply streaming when the run stopped).
    mid_line: bool,
}

struct Pending {
    header: String,
    text: String,
    /// The judge's synthesis, rendered (styled) from sanitized text: written as is.
    rendered: Option<String>,
    finished: bool,
    footer: Option<String>,
}

impl View {
    /// A view writing to `out`; `None` shows nothing.
    pub fn new(out: Option<Box<dyn Write>>) -> View {
        View {
            out,
            live: None,
            judge: None,
            colour: false,
            failed: false,
            pending: BTreeMap::new(),
            focus: None,
            confirming: None,
            panel: Vec::new(),
            mid_line: false,
        }
    }

    /// The terminal view: status lines, streamed text, the synthesis rendered as Markdown.
    /// `colour` false (NO_COLOR) leaves out every colour and style.
    pub fn live(colour: bool) -> View {
        let mut view = View::new(None);
        view.live = Some(live::Live::new(colour));
        view.colour = colour;
        view
    }

    /// Write untrusted text, made safe for a terminal.
    fn say(&mut self, text: &str) {
        self.say_styled(&sanitize::terminal(text));
    }

    /// Write text that is safe already: sanitized, then styled by termimad.
    fn say_styled(&mut self, text: &str) {
        if let Some(live) = &mut self.live {
            live.print(text);
        } else if let Some(out) = &mut self.out {
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            if !text.is_empty() {
                self.mid_line = !text.ends_with('\n');
            }
        }
    }

    /// A line that does not belong to any one reply.
    fn note(&mut self, line: &str) {
        if self.focus.is_none() {
            self.say(line);
        }
        // While a reply streams, notes wait behind it: attach to the last pending entry.
        else if let Some((_, last)) = self.pending.iter_mut().next_back() {
            last.footer.get_or_insert_with(String::new).push_str(line);
        }
    }

    pub fn event(&mut self, event: &wit::DebateEvent) {
        use wit::EventKind as K;
        match &event.kind {
            K::DebateStarted(d) => {
                let names: Vec<String> = d.participants.iter().map(|p| format!("{} ({})", p.id, p.model)).collect();
                self.panel = d.participants.iter().map(|p| p.id.clone()).collect();
                self.say(&format!("agon · {} · {}\npanel: {}\n", d.protocol, d.question, names.join(", ")));
            }
            K::RoundStarted(r) => {
                let title = match r.phase {
                    wit::Phase::Blind => "Blind answers".to_string(),
                    wit::Phase::Deliberation => format!("Round {}", r.round),
                    other => format!("{} (round {})", phase_title(other), r.round),
                };
                let challenger = r.challenger.as_ref().map(|c| format!(" — challenger: {c}")).unwrap_or_default();
                self.note(&format!("\n== {title}{challenger} ==\n"));
            }
            K::TurnStarted(t) if t.phase == wit::Phase::Confirmation && !self.panel.contains(&t.speaker) => {
                if let Some(live) = &mut self.live {
                    live.started(t.id, &format!("{} · {} (confirming the consensus)", t.speaker, t.model));
                }
                self.confirming = Some(t.id);
                self.start(t.id, "\n  the reader saw agreement; asking the judge to confirm it…\n".to_string());
            }
            K::TurnStarted(t) => {
                let mark = if t.challenger { " (challenger)" } else { "" };
                let phase = match t.phase {
                    wit::Phase::Deliberation | wit::Phase::Blind => String::new(),
                    other => format!(" — {}", phase_title(other).to_lowercase()),
                };
                if let Some(live) = &mut self.live {
                    live.started(t.id, &format!("{}{mark} · {}", t.speaker, t.model));
                    if crate::provider::human::is_human(&t.model) {
                        live.waiting_for_person(t.id);
                    }
                }
                self.start(t.id, format!("\n### {}{mark}{phase} · {}\n", t.speaker, t.model));
            }
            K::JudgeStarted(j) => {
                if let Some(live) = &mut self.live {
                    live.started(j.id, &format!("{} · {} (synthesis)", j.speaker, j.model));
                    if crate::provider::human::is_human(&j.model) {
                        live.waiting_for_person(j.id);
                    }
                    self.judge = Some(j.id);
                }
                // The engine words the heading: never the plain one once a call failed.
                self.start(j.id, format!("\n== {} — {} · {} ==\n", j.heading, j.speaker, j.model));
            }
            K::TurnFailed(f) => {
                self.failed = true;
                if let Some(live) = &mut self.live {
                    live.ended(f.id);
                }
                let line = format!("\n  ✗ {} failed ({}): {}\n", f.speaker, kind_name(f.kind), f.message);
                self.finish(f.id, Some(line));
            }
            K::TurnCompleted(t) => {
                if let Some(live) = &mut self.live {
                    live.ended(t.id);
                }
                if self.judge == Some(t.id) {
                    // Held back while it streamed: shown once, rendered.
                    let rendered = markdown_text(&sanitize::terminal(&t.text), self.colour);
                    if self.focus == Some(t.id) {
                        self.say_styled(&rendered);
                    } else if let Some(p) = self.pending.get_mut(&t.id) {
                        p.rendered = Some(rendered);
                    }
                }
                self.finish(t.id, None)
            }
            K::ConsensusChecked(c) => {
                let verdict = match (c.reached, c.judge.is_some()) {
                    (true, true) => "consensus (confirmed by the judge)",
                    (false, true) => "reader saw agreement; judge disagreed",
                    (true, false) => "consensus reached",
                    (false, false) => "consensus not reached",
                };
                self.note(&format!("\n  {verdict}: {}\n", c.reason));
            }
            K::RoundEnded(_) => {}
            K::ResultRecorded(r) => self.note(&format!("\n  result recorded: {}\n", r.name)),
            K::ChoiceMade(c) => self.note(&format!("\n  the seed chose {}: {}\n", c.what, c.value)),
            K::Warning(w) => {
                let who = w.speaker.as_deref().map(|s| format!("{s}: ")).unwrap_or_default();
                self.note(&format!("\n  ⚠ {who}{}\n", w.message));
            }
            K::DebateEnded(o) => {
                let line = format!("\n{}\n", outcome_line(o));
                self.note(&line);
                if let Some(live) = &mut self.live {
                    live.close();
                }
            }
        }
    }

    fn start(&mut self, id: u64, header: String) {
        self.pending.insert(id, Pending { header, text: String::new(), rendered: None, finished: false, footer: None });
        if self.focus.is_none() {
            self.advance_focus();
        }
    }

    /// The protocol's named results (the engine's Markdown), shown once the
    /// debate ends: rendered like the synthesis on a terminal, as plain
    /// sanitized text elsewhere.
    pub fn results(&mut self, markdown: &str) {
        if markdown.trim().is_empty() {
            return;
        }
        // Behind whatever is still shown, like every note.
        let safe = sanitize::terminal(markdown).into_owned();
        if self.live.is_some() && self.focus.is_none() {
            let rendered = markdown_text(&safe, self.colour);
            self.say_styled(&format!("\n{rendered}"));
        } else {
            self.note(&format!("\n{safe}\n"));
        }
    }

    /// A person is about to be asked (`human/NAME`): say so, and keep the
    /// status lines still while they type.
    pub fn asking_person(&mut self, id: u64, seat: &str, model: &str) {
        let line = format!("\n  ⌨ waiting for {seat} ({model}) to answer at the terminal…\n");
        if let Some(live) = &mut self.live {
            live.waiting_for_person(id);
            live.print(&sanitize::terminal(&line));
            live.pause();
        } else if let Some(out) = &mut self.out {
            let _ = out.write_all(sanitize::terminal(&line).as_bytes());
            let _ = out.flush();
        }
    }

    /// The person answered: the status lines move again.
    pub fn person_answered(&mut self, _id: u64) {
        if let Some(live) = &mut self.live {
            live.unpause();
        }
    }

    /// A line from the host itself (a retry, a fallback), shown like the engine's notes.
    pub fn notice(&mut self, text: &str) {
        self.note(&format!("  · {text}\n"));
    }

    /// Streamed text for request `id`.
    pub fn text(&mut self, id: u64, piece: &str) {
        if let Some(live) = &mut self.live {
            live.streamed(id, piece);
        }
        if self.judge == Some(id) || self.confirming == Some(id) {
            return; // the synthesis is rendered whole when complete; a confirmation shows as its check
        }
        if self.focus == Some(id) {
            self.say(piece);
        } else if let Some(p) = self.pending.get_mut(&id) {
            p.text.push_str(piece);
        }
    }

    fn finish(&mut self, id: u64, footer: Option<String>) {
        if let Some(p) = self.pending.get_mut(&id) {
            p.finished = true;
            if let Some(f) = footer {
                p.footer.get_or_insert_with(String::new).push_str(&f);
            }
        }
        if self.focus == Some(id) {
            self.advance_focus();
        }
    }

    /// Flush finished entries in id order, then stream the next one still running.
    fn advance_focus(&mut self) {
        if let Some(p) = self.focus.take().and_then(|id| self.pending.remove(&id)) {
            self.say(&format!("\n{}", p.footer.unwrap_or_default()));
        }
        while let Some((&id, _)) = self.pending.iter().next() {
            let p = self.pending.get_mut(&id).expect("present");
            let shown = format!("{}{}", p.header, p.text);
            p.text.clear();
            let (finished, rendered) = (p.finished, p.rendered.take());
            self.say(&shown);
            if let Some(rendered) = rendered {
                self.say_styled(&rendered);
            }
            if !finished {
                self.focus = Some(id);
                return;
            }
            let p = self.pending.remove(&id).expect("present");
            self.say(&format!("\n{}", p.footer.unwrap_or_default()));
        }
    }
}

impl Drop for View {
    /// A run that stops mid-reply (a full disk, say) ends the line it was
    /// writing, so the message that follows starts a line of its own.
    fn drop(&mut self) {
        if let (true, Some(out)) = (self.mid_line, &mut self.out) {
            let _ = out.write_all(b"\n");
            let _ = out.flush();
        }
    }
}

/// Markdown for a terminal: styled, or plain layout without escape codes.
fn markdown_text(text: &str, colour: bool) -> String {
    let skin = if colour { termimad::MadSkin::default() } else { termimad::MadSkin::no_style() };
    let width = termimad::terminal_size().0.clamp(40, 120) as usize;
    skin.text(text, Some(width)).to_string()
}

/// The outcome in one line; a run that is not a full answer says so in words
/// ("Outcome: Completed — all 2 rounds ran (rounds run: 2)").
pub fn outcome_line(o: &wit::Outcome) -> String {
    format!("Outcome: {} — {} (rounds run: {})", o.headline, o.reason, o.rounds_run)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Issue 33: the disk-full message was glued to the streamed text.
    #[test]
    fn a_view_dropped_mid_reply_ends_its_line() {
        for (written, expected) in [("a reply cut sho", "a reply cut sho\n"), ("a whole line\n", "a whole line\n")] {
            let shared = Shared::default();
            let mut view = View::new(Some(Box::new(shared.clone())));
            view.say(written);
            drop(view);
            assert_eq!(String::from_utf8(shared.0.lock().unwrap().clone()).unwrap(), expected);
        }
    }
}
