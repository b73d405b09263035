//! The host loop: drive the engine, perform the calls it releases, feed back
//! what comes of them, and keep the journal.
//!
//! Concurrency is plain threads and one channel. A debate has at most a
//! handful of calls in flight (one per seat), each blocking on a socket; a
//! thread per call is cheap, keeps the engine on one thread (the wasmtime
//! store never moves), and spares the binary an async runtime.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::engine::{Council, wit};
use crate::provider::{self, CallOptions, Environment, ModelRef, Wire, retry};
use crate::view::View;

/// What a worker thread or the signal handler reports.
pub enum Message {
    Text {
        id: u64,
        piece: String,
    },
    /// A retry or a fallback, worth a line in the view.
    Note {
        id: u64,
        text: String,
    },
    Finished {
        id: u64,
        result: Result<provider::Completion, provider::CallError>,
    },
    Interrupted,
}

/// How a run ended, from the host's side.
pub enum Ending {
    Done(wit::Outcome),
    Interrupted,
}

/// Where events and the journal go.
pub struct Sinks {
    pub events: Option<Box<dyn Write>>,
    /// The session's journal and any `--journal` copy; every input goes to each.
    pub journals: Vec<JournalFile>,
}

/// An append-only journal file, flushed after every line so a crash loses
/// nothing that was answered.
pub struct JournalFile {
    file: File,
    path: PathBuf,
}

impl JournalFile {
    pub fn create(path: &Path, header: &str) -> Result<JournalFile> {
        let file = File::create(path).with_context(|| format!("creating the journal {}", path.display()))?;
        let mut journal = JournalFile { file, path: path.to_path_buf() };
        journal.append(header)?;
        Ok(journal)
    }

    /// Continue a journal a previous run wrote (its torn tail already cut).
    pub fn append_to(path: &Path) -> Result<JournalFile> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("opening the journal {}", path.display()))?;
        Ok(JournalFile { file, path: path.to_path_buf() })
    }

    /// Append one line and wait until it is on disk. A failure (a full disk)
    /// names the file: every line before this one is kept.
    pub fn append(&mut self, line: &str) -> Result<()> {
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.sync_data())
            .with_context(|| format!("writing the journal {}", self.path.display()))
    }
}

/// Drive `council` to its end.
pub fn drive(
    council: &mut Council<'_>,
    env: &Environment,
    options: CallOptions,
    sinks: &mut Sinks,
    view: &mut View,
    channel: (Sender<Message>, Receiver<Message>),
) -> Result<Ending> {
    let (tx, rx) = channel;
    loop {
        loop {
            match council.poll()? {
                wit::Output::Request(request) => spawn_call(request, env, options, tx.clone()),
                wit::Output::Event(event) => {
                    if let Some(out) = &mut sinks.events {
                        writeln!(out, "{}", crate::output::json_text(&event.json))?;
                        out.flush()?;
                    }
                    view.event(&event);
                }
                wit::Output::Idle => break,
                wit::Output::Done(outcome) => return Ok(Ending::Done(outcome)),
            }
        }
        match rx.recv().context("every call worker vanished")? {
            Message::Text { id, piece } => view.text(id, &piece),
            Message::Note { id: _, text } => view.notice(&text),
            Message::Finished { id, result } => {
                let input = match result {
                    Ok(c) => wit::Input::Reply(wit::Reply { id, text: c.text, usage: c.usage }),
                    Err(e) => wit::Input::Failed(wit::Failure { id, kind: e.kind, message: e.message }),
                };
                let line = council.handle(&input)?.map_err(anyhow::Error::new)?;
                for journal in &mut sinks.journals {
                    journal.append(&line)?;
                }
            }
            Message::Interrupted => return Ok(Ending::Interrupted),
        }
    }
}

fn spawn_call(request: wit::ModelRequest, env: &Environment, options: CallOptions, tx: Sender<Message>) {
    let id = request.id;
    let env = env.clone();
    thread::spawn(move || {
        let text_tx = tx.clone();
        let mut on_text = |piece: &str| {
            let _ = text_tx.send(Message::Text { id, piece: piece.to_string() });
        };
        let mut on_note = |note: String| {
            let _ = tx.send(Message::Note { id, text: note });
        };
        let result = call_seat(&env, &request, options, &mut on_text, &mut on_note, &mut thread::sleep);
        let _ = tx.send(Message::Finished { id, result });
    });
}

/// One seat's call: each model of its fallback chain in turn, each with its
/// retries, until one answers. `note` hears about retries and fallbacks.
pub fn call_seat(
    env: &Environment,
    request: &wit::ModelRequest,
    options: CallOptions,
    on_text: &mut dyn FnMut(&str),
    note: &mut dyn FnMut(String),
    sleep: &mut dyn FnMut(Duration),
) -> Result<provider::Completion, provider::CallError> {
    // References were checked before the run; a bad one here still fails only this call.
    let chain = ModelRef::parse_chain(&request.model).map_err(provider::CallError::provider)?;
    let mut failures: Vec<String> = Vec::new();
    let mut last = None;
    for (i, model) in chain.iter().enumerate() {
        let mut attempt = |n: u32| {
            if n > 1 {
                note(format!("{}: attempt {n}", model.reference()));
            }
            let _permit = env.gate.as_ref().map(|g| g.acquire(&model.provider));
            let mut streamed = false;
            let result = provider::complete(env, model, request, options, &mut |piece: &str| {
                streamed = true;
                on_text(piece)
            });
            (result, streamed)
        };
        match retry::with_retries(env.retry, sleep, &mut attempt) {
            Ok(done) => {
                if i > 0 {
                    note(format!("answered by {} after {}", model.reference(), failures.join("; ")));
                }
                return Ok(done);
            }
            Err(e) => {
                if i + 1 < chain.len() {
                    note(format!("{} failed ({}); trying {}", model.reference(), e.message, chain[i + 1].reference()));
                }
                failures.push(format!("{} failed", model.reference()));
                last = Some(e);
            }
        }
    }
    let e = last.expect("a chain has at least one model");
    if chain.len() == 1 {
        return Err(e);
    }
    Err(provider::CallError {
        message: format!("every model of '{}' failed; the last: {}", request.model, e.message),
        ..e
    })
}

/// The channel the loop listens on, with Ctrl-C wired into it.
pub fn channel_with_interrupt() -> (Sender<Message>, Receiver<Message>) {
    let (tx, rx) = mpsc::channel();
    let signal_tx = tx.clone();
    // A second Ctrl-C while the first is handled must still stop us: the handler only sends.
    let _ = ctrlc::set_handler(move || {
        let _ = signal_tx.send(Message::Interrupted);
    });
    (tx, rx)
}

/// Before spending anything: every provider the spec names must have its
/// key (hosted ones) and accept a connection, and every command model must be
/// installed. Errors name the URL, the program, and the variable to set.
pub fn preflight(models: &[String], env: &Environment) -> Result<(), String> {
    let mut checked = BTreeSet::new();
    for chain in models {
        for model in ModelRef::parse_chain(chain)? {
            let key = if model.provider == "cmd" { model.reference() } else { model.provider.clone() };
            if !checked.insert(key) {
                continue;
            }
            if model.provider == "cmd" {
                let Some(cmd) = env.commands.get(&model.model) else {
                    return Err(format!(
                        "no command model '{}': define [commands.{}] in agon.toml (built in: {})",
                        model.model,
                        model.model,
                        env.commands.keys().cloned().collect::<Vec<_>>().join(", ")
                    ));
                };
                if !on_path(&cmd.program) {
                    return Err(format!(
                        "cmd/{}: the program '{}' is not on PATH: install it{}, or set [commands.{}] program in agon.toml",
                        model.model,
                        cmd.program,
                        cmd.install.map(|i| format!(" ({i})")).unwrap_or_default(),
                        model.model
                    ));
                }
                continue;
            }
            let endpoint =
                env.endpoint(&model.provider).ok_or_else(|| format!("unknown provider '{}'", model.provider))?;
            debug_assert!(endpoint.wire != Wire::Command);
            if endpoint.key_required && endpoint.api_key.is_none() {
                let var = endpoint.key_var.as_deref().unwrap_or("its key variable");
                return Err(if endpoint.provider == "openai" {
                    format!(
                        "OPENAI_API_KEY is not set, and {} needs it; set it, or set OPENAI_BASE_URL to another OpenAI-compatible endpoint",
                        endpoint.base_url
                    )
                } else {
                    format!("{var} is not set, and {} ({}/…) needs it; set it", endpoint.base_url, endpoint.provider)
                });
            }
            let base = endpoint.base()?;
            reachable(base).map_err(|why| {
                format!(
                    "cannot reach {} ({why}): is the endpoint running? Set {} to one that is",
                    endpoint.base_url, endpoint.url_var
                )
            })?;
        }
    }
    Ok(())
}

/// Whether `program` can be started: a path that exists, or a name found on PATH.
fn on_path(program: &str) -> bool {
    let path = Path::new(program);
    if path.components().count() > 1 {
        return path.is_file();
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn reachable(base: &provider::BaseUrl) -> Result<(), String> {
    let (host, port) = base.host_and_port().ok_or("no host in the URL")?;
    let addrs: Vec<_> = (host.as_str(), port).to_socket_addrs().map_err(|e| format!("cannot resolve: {e}"))?.collect();
    let mut last = String::from("no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(last)
}
