//! The terminal's live layer, drawn with indicatif: one status line per call
//! in flight (spinner, seat and model, elapsed time, tokens so far), the
//! streamed text printed above them line by line, the line being written
//! shown in its speaker's status. On anything but a terminal none of this
//! exists and the view writes plain text.

use std::collections::BTreeMap;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

pub struct Live {
    multi: MultiProgress,
    bars: BTreeMap<u64, (ProgressBar, usize)>,
    style: ProgressStyle,
    /// Text printed since the last newline: indicatif prints whole lines only.
    partial: String,
}

impl Live {
    /// Draw on stdout (the view is on a terminal there). `colour` false: no escape codes but cursor moves.
    pub fn new(colour: bool) -> Live {
        let template = if colour {
            "{spinner:.cyan} {prefix:.bold} {elapsed:>3.dim} {msg:.dim}"
        } else {
            "{spinner} {prefix} {elapsed:>3} {msg}"
        };
        let style = ProgressStyle::with_template(template).expect("a valid template");
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stdout());
        Live { multi, bars: BTreeMap::new(), style, partial: String::new() }
    }

    /// A call in flight: its status line.
    pub fn started(&mut self, id: u64, who: &str) {
        let bar = self.multi.add(ProgressBar::new_spinner());
        bar.set_style(self.style.clone());
        bar.set_prefix(crate::sanitize::terminal(who).into_owned());
        bar.set_message("waiting");
        bar.enable_steady_tick(Duration::from_millis(100));
        self.bars.insert(id, (bar, 0));
    }

    /// The call is a person's: its status says so, instead of counting tokens.
    pub fn waiting_for_person(&mut self, id: u64) {
        if let Some((bar, _)) = self.bars.get(&id) {
            bar.set_message("waiting for the person at the terminal");
        }
    }

    /// Take the status lines down while a person types (they would redraw over the typing).
    pub fn pause(&mut self) {
        let _ = self.multi.clear();
        self.multi.set_draw_target(ProgressDrawTarget::hidden());
    }

    /// Draw the status lines again.
    pub fn unpause(&mut self) {
        self.multi.set_draw_target(ProgressDrawTarget::stdout());
    }

    /// Text arrived for a call: its token count (estimated: characters / 4) goes up.
    pub fn streamed(&mut self, id: u64, piece: &str) {
        if let Some((bar, chars)) = self.bars.get_mut(&id) {
            *chars += piece.chars().count();
            bar.set_message(format!("~{} tokens", chars.div_ceil(4)));
        }
    }

    pub fn ended(&mut self, id: u64) {
        if let Some((bar, _)) = self.bars.remove(&id) {
            bar.finish_and_clear();
            self.multi.remove(&bar);
        }
    }

    /// Print text above the status lines, whole lines at a time.
    pub fn print(&mut self, text: &str) {
        self.partial.push_str(text);
        while let Some(i) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=i).collect();
            let _ = self.multi.println(line.trim_end_matches('\n'));
        }
    }

    /// Flush a line left unfinished and take the status lines down.
    pub fn close(&mut self) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            let _ = self.multi.println(line);
        }
        for (_, (bar, _)) in std::mem::take(&mut self.bars) {
            bar.finish_and_clear();
        }
        let _ = self.multi.clear();
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.close();
    }
}
