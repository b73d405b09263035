//! A reader that goes away — `agon sessions | head -1`, a pager quit early,
//! `agon run … 2>&1 | head -2` — ends agon as it ends any Unix tool: at
//! once, without a word, with the status a shell gives a process killed by
//! SIGPIPE (141). Answered calls are already in the session's journal, so
//! `agon resume` continues such a run.
//!
//! Rust ignores SIGPIPE, and agon keeps it so: a command model's closed pipe
//! or a dropped socket must be an error agon reports, not its death. So a
//! write to a closed stdout or stderr fails with EPIPE instead, and three
//! places turn that into the quiet ending:
//!
//! 1. every line agon prints itself ([`crate::safe_println!`],
//!    [`crate::safe_eprintln!`]) and every stream the live view and the
//!    events write to ([`Quiet`]);
//! 2. `main`, for an error whose cause is a closed pipe ([`caused_by`]): a
//!    document written with `write_all`;
//! 3. a panic hook ([`install`]) for std's own `println!` and `eprintln!`,
//!    which panic on a closed pipe. Under `panic = "abort"` the hook still
//!    runs before the abort, so it is where the abort is prevented.

use std::io::{self, ErrorKind, Write};

/// What a shell reports for a process killed by SIGPIPE: 128 + 13.
pub const STATUS: i32 = 141;

/// End agon now, quietly.
pub fn end() -> ! {
    std::process::exit(STATUS)
}

/// Whether `error`, or anything that caused it, is a write to a closed pipe.
pub fn caused_by(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == ErrorKind::BrokenPipe))
}

/// A writer (stdout, stderr) that ends agon quietly once its reader has
/// gone; its other errors are returned as they are.
pub struct Quiet<W>(pub W);

impl<W: Write> Write for Quiet<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(or_end)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(or_end)
    }
}

fn or_end(e: io::Error) -> io::Error {
    if e.kind() == ErrorKind::BrokenPipe {
        end();
    }
    e
}

/// A line on stdout; a closed pipe ends agon quietly, any other failure (a
/// full disk behind a redirection) ends it with the reason on stderr.
pub fn line_out(text: &str) {
    let mut out = io::stdout().lock();
    if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()).map_err(or_end) {
        drop(out);
        line_err(&format!("agon: writing to standard output: {e}"));
        std::process::exit(1);
    }
}

/// A line on stderr; a closed pipe ends agon quietly, and any other failure
/// is dropped: there is nowhere left to say it.
pub fn line_err(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}").map_err(or_end);
}

/// std's `println!` and `eprintln!` panic on a closed pipe ("failed printing
/// to stdout: Broken pipe"): that panic ends agon quietly; every other panic
/// is reported as before.
pub fn install() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if is_print_to_closed_pipe(message) {
            end();
        }
        report(info);
    }));
}

/// std's words for a print to a closed pipe (`library/std/src/io/stdio.rs`,
/// `print_to`), on stdout or stderr.
fn is_print_to_closed_pipe(message: &str) -> bool {
    let closed = io::Error::from(ErrorKind::BrokenPipe).to_string();
    ["failed printing to stdout: ", "failed printing to stderr: "]
        .iter()
        .any(|start| message.starts_with(start) && (message.contains("Broken pipe") || message.contains(&closed)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_found_among_the_causes() {
        let closed = anyhow::Error::new(io::Error::from(ErrorKind::BrokenPipe)).context("writing the transcript");
        assert!(caused_by(&closed));
        let full = anyhow::Error::new(io::Error::from(ErrorKind::StorageFull)).context("writing the transcript");
        assert!(!caused_by(&full));
        assert!(!caused_by(&anyhow::anyhow!("Broken pipe, said a model")), "words are not a cause");
    }

    #[test]
    fn only_a_print_to_a_closed_pipe_is_quiet() {
        assert!(is_print_to_closed_pipe("failed printing to stdout: Broken pipe (os error 32)"));
        assert!(is_print_to_closed_pipe("failed printing to stderr: Broken pipe (os error 32)"));
        assert!(!is_print_to_closed_pipe("failed printing to stdout: No space left on device (os error 28)"));
        assert!(!is_print_to_closed_pipe("index out of bounds: Broken pipe"));
    }
}
