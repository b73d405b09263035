//! `agon batch`: many debates with one panel and protocol, as people evaluate
//! a protocol on a dataset. Questions come one per line (JSONL); each finished
//! debate appends one line to the results, flushed at once, so a rerun skips
//! what is done and an interrupted batch loses nothing finished.
//!
//! Each debate keeps a journal while it runs (`OUTPUT.journals/ID.ndjson`,
//! one line per answered call, as a session's), removed once its result line
//! is written: a batch killed mid-debate resumes that debate call by call on
//! the rerun, and no answered call is paid for twice.

use std::collections::{BTreeSet, VecDeque};
use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};

use crate::engine::{Council, Runtime, wit};
use crate::host::{Ending, JournalFile, Sinks};
use crate::journal;
use crate::provider::{CallOptions, Environment};
use crate::view::View;

/// One question to debate.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub id: String,
    pub question: String,
    pub context: Option<String>,
    /// The spec's `answer` for this debate (an evaluation's item), over the template's.
    pub answer: Option<Value>,
}

/// The questions of a file, and a message for each line that is not one.
/// Each line stands alone: one that is not UTF-8 text, or not a question, is
/// skipped and named, never the whole file. A line without an id gets
/// `line-N`, or `line-N-2`, … when another line chose that id itself.
pub fn read_items(bytes: &[u8]) -> (Vec<Item>, Vec<String>) {
    let mut parsed = Vec::new();
    let mut problems = Vec::new();
    // A byte-order mark is not part of the first line: with it, that line's
    // JSON would read as a plain-text question, raw JSON and all.
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    for (n, raw) in bytes.split(|b| *b == b'\n').enumerate().map(|(i, l)| (i + 1, l)) {
        let Ok(line) = std::str::from_utf8(raw).map(str::trim) else {
            problems.push(format!("line {n} is not UTF-8 text; skipped"));
            continue;
        };
        if !line.is_empty() {
            match read_line(line) {
                Ok(item) => parsed.push((n, item)),
                Err(why) => problems.push(format!("line {n} {why}; skipped")),
            }
        }
    }
    let chosen: BTreeSet<String> = parsed.iter().filter_map(|(_, (id, _))| id.clone()).collect();
    let (mut items, mut ids) = (Vec::new(), BTreeSet::new());
    for (n, (id, mut item)) in parsed {
        item.id = id.unwrap_or_else(|| {
            let base = format!("line-{n}");
            std::iter::once(base.clone())
                .chain((2..).map(|k| format!("{base}-{k}")))
                .find(|c| !chosen.contains(c) && !ids.contains(c))
                .expect("a free id")
        });
        if ids.insert(item.id.clone()) {
            items.push(item);
        } else {
            problems.push(format!("line {n}: the id '{}' is used twice", item.id));
        }
    }
    problems.sort_by_key(|p| p.split_whitespace().nth(1).and_then(|n| n.trim_end_matches(':').parse::<usize>().ok()));
    (items, problems)
}

/// UTF-8's byte-order mark, which some editors put first in a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A dataset's bytes as text, line by line: a line that is not UTF-8 is
/// left empty (the others keep their numbers) and named; a byte-order mark
/// first is dropped. One bad line never costs the rest.
pub fn utf8_lines(bytes: &[u8]) -> (String, Vec<String>) {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let (mut text, mut problems) = (String::with_capacity(bytes.len()), Vec::new());
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match std::str::from_utf8(raw) {
            Ok(line) => text.push_str(line),
            Err(_) => problems.push(format!("line {} is not UTF-8 text; skipped", i + 1)),
        }
    }
    (text, problems)
}

/// One line: its id if it chose one, and the question.
fn read_line(line: &str) -> Result<(Option<String>, Item), String> {
    let item = |id, question: String, context| Ok((id, Item { id: String::new(), question, context, answer: None }));
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(o)) => match o.get("question").and_then(Value::as_str).filter(|q| !q.trim().is_empty()) {
            Some(q) => {
                let id = match o.get("id") {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                };
                // A context that is not text is a mistake to name, not one to drop.
                let context = match o.get("context") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(c)) => Some(c.clone()),
                    Some(_) => return Err("has a \"context\" that is not a string".to_string()),
                };
                item(id, q.to_string(), context)
            }
            None => Err("needs a non-empty \"question\"".to_string()),
        },
        Ok(Value::String(q)) if !q.trim().is_empty() => item(None, q, None),
        Ok(_) => Err("is neither an object with a \"question\" nor a string".to_string()),
        // A line that is not JSON at all but plain text is a question too — unless it looks like broken JSON.
        Err(_) if !line.starts_with(['{', '[', '"']) => item(None, line.to_string(), None),
        Err(e) => Err(format!("is not valid JSON ({e})")),
    }
}

/// The ids already in a results file, as the engine reads it. Its end is
/// repaired first: a torn last line (a crash mid-write) is set aside in
/// `RESULTS.torn` and cut; the debate it was writing runs again. Unless
/// `keep_errors`, a debate that ended in an `error` line is not done: its
/// line moves to `RESULTS.errors` (kept, appended) and the debate runs again.
pub fn finished_ids(path: &Path, keep_errors: bool) -> Result<BTreeSet<String>> {
    if !path.exists() {
        return Ok(BTreeSet::new());
    }
    let contents = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let repair = Runtime::load()?.repair_batch_results(&contents, keep_errors)?;
    let tail = match (repair.torn_at, repair.newline_missing) {
        (Some(keep), _) => journal::Tail::Torn { keep },
        (None, true) => journal::Tail::MissingNewline,
        (None, false) => journal::Tail::Clean,
    };
    journal::repair(path, tail)?;
    if let Some(retry) = repair.retry {
        // The error lines first, where they stay; then the results without them, atomically.
        let aside = journal::sibling(path, ".errors");
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&aside)
            .with_context(|| format!("opening {}", aside.display()))?;
        f.write_all(&retry.error_lines)
            .and_then(|_| f.sync_data())
            .with_context(|| format!("writing {}", aside.display()))?;
        let tmp = journal::sibling(path, &format!(".tmp{}", std::process::id()));
        std::fs::write(&tmp, retry.kept_lines).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    }
    Ok(repair.finished.into_iter().collect())
}

/// Where a batch keeps its debates' journals by default: beside the results.
pub fn default_journals(output: &Path) -> PathBuf {
    journal::sibling(output, ".journals")
}

/// A debate's journal file name: its id, with every byte but letters, digits
/// and `-_.@` percent-encoded (an id can be any text); a long id is cut and
/// made unique by its digest.
pub fn journal_name(id: &str) -> String {
    let encode = |s: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'@' => char::from(b).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    if id.len() <= 120 {
        format!("{}.ndjson", encode(id))
    } else {
        let cut = id.char_indices().map(|(i, _)| i).take_while(|&i| i <= 80).last().unwrap_or(0);
        let digest = crate::trust::digest(id.as_bytes());
        format!("{}-{}.ndjson", encode(&id[..cut]), &digest["sha256:".len().."sha256:".len() + 32])
    }
}

/// A debate's results line, as the engine wrote it, and how it ended
/// (an outcome kind, or `error`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    ended: String,
    text: String,
}

/// How many debates ended how.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tally {
    pub full: usize,
    pub partial: usize,
    pub errors: usize,
}

pub struct Batch<'a> {
    /// The spec every debate shares; each item sets its question and context.
    pub template: Value,
    pub env: Environment,
    pub options: CallOptions,
    pub concurrency: usize,
    pub output: &'a Path,
    /// Each running debate's journal, by [`journal_name`].
    pub journals: PathBuf,
}

impl Batch<'_> {
    /// Run every item not already in the output; returns the tally.
    pub fn run(&self, items: Vec<Item>) -> Result<Tally> {
        let error_line =
            |runtime: &mut Runtime, item: &Item, error: &str| runtime.batch_error_line(&item.id, &item.question, error);
        self.run_on(
            items,
            &Runtime::load,
            &|runtime: &mut Runtime, item: &Item| self.debate(runtime, item),
            &error_line,
        )
    }

    /// [`Batch::run`] on any engine: `load` makes one for a worker, `debate`
    /// runs one item on it, `error_line` writes the line of one that failed
    /// (tests give a stand-in for the component).
    fn run_on<E>(
        &self,
        items: Vec<Item>,
        load: &(dyn Fn() -> Result<E> + Sync),
        debate: &(dyn Fn(&mut E, &Item) -> Result<Line> + Sync),
        error_line: &(dyn Fn(&mut E, &Item, &str) -> Result<String> + Sync),
    ) -> Result<Tally> {
        let total = items.len();
        let queue = Arc::new(Mutex::new(VecDeque::from(items)));
        let out = Arc::new(Mutex::new(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.output)
                .with_context(|| format!("opening {}", self.output.display()))?,
        ));
        let progress = Progress::new(total);
        let tally = Mutex::new(Tally::default());
        let workers = self.concurrency.clamp(1, total.max(1));
        let stopped: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    let (queue, out, progress, tally) = (queue.clone(), out.clone(), &progress, &tally);
                    scope.spawn(move || {
                        let stopped = work(&queue, load, debate, error_line, &|item, line| {
                            record(&out, tally, progress, item, line)?;
                            // Its result is on disk: the journal has told its story.
                            self.forget_journal(item);
                            Ok(())
                        });
                        if let Err(why) = &stopped {
                            progress.line(&format!("agon: a batch worker stopped: {why}"));
                        }
                        stopped
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().expect("a batch worker panicked").err()).collect()
        });
        progress.finish();
        let tally = tally.into_inner().unwrap();
        if let Some(first) = stopped.first() {
            // Debates left in the queue were never run: a rerun does them.
            anyhow::bail!(
                "{} of {workers} batch worker(s) stopped, the first because it {first}; {} debate(s) finished are in {} ({} complete, {} degraded or stopped, {} failed): run the same command to continue",
                stopped.len(),
                tally.full + tally.partial + tally.errors,
                self.output.display(),
                tally.full,
                tally.partial,
                tally.errors
            );
        }
        Ok(tally)
    }

    fn journal_of(&self, item: &Item) -> PathBuf {
        self.journals.join(journal_name(&item.id))
    }

    fn forget_journal(&self, item: &Item) {
        let _ = std::fs::remove_file(self.journal_of(item));
    }

    /// The debate's council: resumed from the journal an earlier run left
    /// (calls that failed on the way to their model asked again), or new.
    /// A journal that cannot be resumed is set aside (`.bad`) with a note.
    fn council<'r>(&self, runtime: &'r mut Runtime, item: &Item, spec: &Value) -> Result<(Council<'r>, JournalFile)> {
        let path = self.journal_of(item);
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
            // The journal's spec must be this batch's for this item, as the engine keeps specs.
            let wanted =
                runtime.validate_spec(&spec.to_string())?.ok().and_then(|s| serde_json::from_str::<Value>(&s).ok());
            // Opened twice (to check, then to use): a conditional return of
            // the first would hold the engine for the fresh start below.
            let resumable = match journal::open(runtime, &path, Some(journal::Retry::Transport)) {
                Ok(mut opened) => {
                    let theirs = opened.council.spec_json().ok().and_then(|s| serde_json::from_str::<Value>(&s).ok());
                    Ok(wanted.is_some() && theirs == wanted)
                }
                Err(e) => Err(e),
            };
            match resumable {
                Ok(true) => {
                    let journal::Opened { mut council, tail, cut } =
                        journal::open(runtime, &path, Some(journal::Retry::Transport))?;
                    match cut {
                        Some(_) => {
                            journal::replace(&path, &council.journal()?)?;
                        }
                        None => journal::repair(&path, tail)?,
                    }
                    return Ok((council, JournalFile::append_to(&path)?));
                }
                Ok(false) => set_aside(&path, "it is another spec's (the batch's flags changed)"),
                Err(e) => set_aside(&path, &format!("{e:#}")),
            }
        }
        std::fs::create_dir_all(&self.journals).with_context(|| format!("creating {}", self.journals.display()))?;
        let mut council = runtime.create(&spec.to_string())?.map_err(|e| anyhow::anyhow!("{e}"))?;
        let header = council.journal()?;
        let file = JournalFile::create(&path, &header)?;
        Ok((council, file))
    }

    /// One debate to its end; the result line.
    fn debate(&self, runtime: &mut Runtime, item: &Item) -> Result<Line> {
        let mut spec = self.template.clone();
        spec["question"] = json!(item.question);
        if let Some(answer) = &item.answer {
            spec["answer"] = answer.clone();
        }
        match &item.context {
            Some(c) => spec["context"] = json!(c),
            None => {
                if let Some(o) = spec.as_object_mut() {
                    o.remove("context");
                }
            }
        }
        let (mut council, journal) = self.council(runtime, item, &spec)?;
        let mut sinks = Sinks { events: None, journals: vec![journal], timings: None };
        let mut view = View::new(None);
        // No Ctrl-C here: the batch's own handler stops the process, and the results file keeps what finished.
        let keep = crate::runner::Keep::default();
        let ending =
            crate::runner::drive(&mut council, &self.env, self.options, &mut sinks, &mut view, mpsc::channel(), &keep)?;
        let Ending::Done(outcome) = ending else { anyhow::bail!("interrupted") };
        let text = council
            .batch_result_line(&item.id, &item.question)?
            .context("the engine gave no results line for a debate that ended")?;
        Ok(Line { ended: outcome_kind(outcome.kind).to_string(), text })
    }
}

/// A journal that cannot continue, renamed `.bad` (`.bad.1`, …) and named.
fn set_aside(path: &Path, why: &str) {
    let mut n = 0;
    let mut aside = journal::sibling(path, ".bad");
    while aside.exists() {
        n += 1;
        aside = journal::sibling(path, &format!(".bad.{n}"));
    }
    let moved = std::fs::rename(path, &aside);
    crate::safe_eprintln!(
        "agon: the journal {} cannot be resumed ({why}); {}, and the debate starts afresh",
        path.display(),
        match moved {
            Ok(()) => format!("set aside as {}", aside.display()),
            Err(e) => format!("it could not be moved ({e})"),
        }
    );
}

/// One worker: debates from the queue until it is empty, each recorded by
/// `record`. Each worker has its own engine (a wasmtime store stays on one
/// thread). A debate that fails may have trapped, and a trapped instance
/// refuses every later call, so after a failure a fresh engine writes its
/// error line and runs the next debate. `Err` says why the worker stopped
/// early (a debate it could not record is left to a rerun).
fn work<E>(
    queue: &Mutex<VecDeque<Item>>,
    load: &dyn Fn() -> Result<E>,
    debate: &dyn Fn(&mut E, &Item) -> Result<Line>,
    error_line: &dyn Fn(&mut E, &Item, &str) -> Result<String>,
    record: &dyn Fn(&Item, Line) -> Result<(), String>,
) -> Result<(), String> {
    let load = || load().map_err(|e| format!("could not load the engine: {e:#}"));
    let mut engine = load()?;
    loop {
        // Not `while let`: its guard would hold the queue for the whole debate.
        let Some(item) = queue.lock().unwrap().pop_front() else { return Ok(()) };
        match debate(&mut engine, &item) {
            Ok(line) => record(&item, line)?,
            Err(e) => {
                engine = load()?;
                let text = error_line(&mut engine, &item, &format!("{e:#}"))
                    .map_err(|e| format!("could not write an error line: {e:#}"))?;
                record(&item, Line { ended: "error".to_string(), text })?;
            }
        }
    }
}

/// Count a result line, append it to the results (on disk before the next),
/// and show it.
fn record(out: &Mutex<File>, tally: &Mutex<Tally>, progress: &Progress, item: &Item, line: Line) -> Result<(), String> {
    let kind = line.ended;
    {
        let mut t = tally.lock().unwrap();
        match kind.as_str() {
            "completed" | "consensus" => t.full += 1,
            "error" => t.errors += 1,
            _ => t.partial += 1,
        }
    }
    let written = {
        let mut f = out.lock().unwrap();
        writeln!(f, "{}", line.text).and_then(|_| f.flush()).and_then(|_| f.sync_data())
    };
    written.map_err(|e| format!("could not write the results: {e}"))?;
    progress.done(&item.id, &kind);
    Ok(())
}

fn outcome_kind(kind: wit::OutcomeKind) -> &'static str {
    match kind {
        wit::OutcomeKind::Completed => "completed",
        wit::OutcomeKind::Consensus => "consensus",
        wit::OutcomeKind::Degraded => "degraded",
        wit::OutcomeKind::JudgeFailed => "judge-failed",
        wit::OutcomeKind::NoQuorum => "no-quorum",
        wit::OutcomeKind::CostLimit => "cost-limit",
    }
}

/// ", about 3 min left": the mean time of a finished debate so far, times
/// the debates left (nothing when none is left or none finished yet).
fn eta(elapsed: Duration, done: usize, total: usize) -> String {
    if done == 0 || done >= total {
        return String::new();
    }
    let left = elapsed.as_secs_f64() / done as f64 * (total - done) as f64;
    match left.round() as u64 {
        s if s < 90 => format!(", about {s} s left"),
        s if s < 5400 => format!(", about {} min left", (s + 30) / 60),
        s => format!(", about {:.1} h left", s as f64 / 3600.0),
    }
}

/// A progress bar on a terminal; a plain line per debate otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    count: Mutex<usize>,
    started: std::time::Instant,
}

impl Progress {
    fn new(total: usize) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            let style = indicatif::ProgressStyle::with_template(
                "{spinner} {pos}/{len} debates {wide_bar} {elapsed}, about {eta} left {msg}",
            )
            .expect("a valid template");
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        Progress { bar, total, count: Mutex::new(0), started: std::time::Instant::now() }
    }

    fn done(&self, id: &str, kind: &str) {
        let id = crate::sanitize::terminal(id); // the questions file chose it
        let mut count = self.count.lock().unwrap();
        *count += 1;
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                bar.set_message(format!("{id}: {kind}"));
            }
            None => {
                let left = eta(self.started.elapsed(), *count, self.total);
                eprintln!("batch: {}/{} {id}: {kind}{left}", *count, self.total)
            }
        }
    }

    fn line(&self, text: &str) {
        let text = crate::sanitize::terminal(text);
        match &self.bar {
            Some(bar) => bar.println(text.as_ref()),
            None => eprintln!("{text}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_is_the_mean_so_far_times_the_debates_left() {
        assert_eq!(eta(Duration::from_secs(30), 3, 9), ", about 60 s left");
        assert_eq!(eta(Duration::from_secs(600), 10, 40), ", about 30 min left");
        assert_eq!(eta(Duration::from_secs(3600), 1, 4), ", about 3.0 h left");
        assert_eq!(eta(Duration::from_secs(5), 0, 4), "");
        assert_eq!(eta(Duration::from_secs(5), 4, 4), "");
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_question() {
        let (items, problems) = read_items(b"\xEF\xBB\xBF{\"id\": \"q1\", \"question\": \"Tabs?\"}\nSpaces?\n");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!((items[0].id.as_str(), items[0].question.as_str()), ("q1", "Tabs?"));
        let (text, problems) = utf8_lines(b"\xEF\xBB\xBFa\n\xff\xfe\nc");
        assert_eq!((text.as_str(), problems), ("a\n\nc", vec!["line 2 is not UTF-8 text; skipped".to_string()]));
    }

    #[test]
    fn reads_objects_strings_and_plain_lines_and_names_bad_ones() {
        let text = "{\"id\": \"q1\", \"question\": \"Tabs?\", \"context\": \"A team of 3\"}\n\
                    \"Spaces?\"\n\
                    Should we ship on Friday?\n\
                    {\"question\": \"\"}\n\
                    {\"id\": \"q1\", \"question\": \"again\"}\n\
                    {broken\n\
                    \n\
                    {\"id\": 7, \"question\": \"Seven?\"}\n\
                    {\"id\": 8, \"question\": \"Eight?\", \"context\": {\"team\": 3}}\n";
        let (items, problems) = read_items(text.as_bytes());
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["q1", "line-2", "line-3", "7"]);
        assert_eq!(items[0].context.as_deref(), Some("A team of 3"));
        assert_eq!(items[2].question, "Should we ship on Friday?");
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].starts_with("line 4 needs a non-empty \"question\""));
        assert!(problems[1].contains("line 5: the id 'q1' is used twice"));
        assert!(problems[2].starts_with("line 6 is not valid JSON"));
        assert!(problems[3].starts_with("line 9 has a \"context\" that is not a string"), "{problems:?}");
    }

    #[test]
    fn automatic_ids_never_take_one_a_line_chose() {
        let (items, problems) = read_items(b"First?\n{\"id\": \"line-1\", \"question\": \"Second?\"}\n");
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["line-1-2", "line-1"]);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn one_bad_byte_costs_its_line_only() {
        let (items, problems) = read_items(b"Good?\nBad \xff byte?\nAlso good?\n");
        assert_eq!(items.len(), 2);
        assert_eq!(problems, ["line 2 is not UTF-8 text; skipped"]);
    }

    /// A stand-in for the component: `trap` breaks it, as a trap breaks a
    /// wasmtime instance (every later call fails).
    struct Engine {
        broken: bool,
    }

    fn fake_debate(engine: &mut Engine, item: &Item) -> Result<Line> {
        if engine.broken {
            anyhow::bail!("cannot enter component instance");
        }
        if item.question == "trap" {
            engine.broken = true;
            anyhow::bail!("wasm trap: wasm `unreachable` instruction executed");
        }
        Ok(completed(item))
    }

    fn completed(item: &Item) -> Line {
        Line { ended: "completed".into(), text: json!({"id": item.id, "outcome": "completed"}).to_string() }
    }

    fn fake_error_line(engine: &mut Engine, item: &Item, error: &str) -> Result<String> {
        assert!(!engine.broken, "an error line comes from a fresh engine");
        Ok(json!({"id": item.id, "question": item.question, "error": error}).to_string())
    }

    fn batch_into(output: &Path, concurrency: usize) -> Batch<'_> {
        let options = CallOptions::new(Duration::from_secs(1), false);
        let journals = default_journals(output);
        Batch { template: json!({}), env: Environment::from_env(), options, concurrency, output, journals }
    }

    fn items(questions: &[&str]) -> Vec<Item> {
        let item =
            |(i, q): (usize, &&str)| Item { id: format!("q{i}"), question: q.to_string(), context: None, answer: None };
        questions.iter().enumerate().map(item).collect()
    }

    #[test]
    fn a_debate_that_traps_fails_alone_and_the_next_gets_a_fresh_engine() {
        let path = std::env::temp_dir().join(format!("agon-batch-trap-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let loads = std::sync::atomic::AtomicUsize::new(0);
        let load = || {
            loads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(Engine { broken: false })
        };
        let tally = batch_into(&path, 1)
            .run_on(items(&["first?", "trap", "after?"]), &load, &fake_debate, &fake_error_line)
            .unwrap();
        assert_eq!(tally, Tally { full: 2, partial: 0, errors: 1 });
        let lines: Vec<Value> =
            std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!((&lines[0]["outcome"], &lines[2]["outcome"]), (&json!("completed"), &json!("completed")));
        assert_eq!(lines[1]["id"], "q1");
        assert!(lines[1]["error"].as_str().unwrap().contains("wasm trap"), "{}", lines[1]);
        assert_eq!(loads.into_inner(), 2, "one engine at the start, a fresh one after the trap");
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn workers_debate_at_the_same_time() {
        let path = std::env::temp_dir().join(format!("agon-batch-together-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        // Each debate waits (a while at most) for another to be under way too.
        let under_way = (Mutex::new((0, 0)), std::sync::Condvar::new());
        let debate = |_: &mut Engine, item: &Item| {
            let (lock, cv) = &under_way;
            let mut now = lock.lock().unwrap();
            now.0 += 1;
            now.1 = now.1.max(now.0);
            cv.notify_all();
            let (mut now, _) = cv.wait_timeout_while(now, Duration::from_secs(5), |n| n.1 < 2).unwrap();
            now.0 -= 1;
            Ok(completed(item))
        };
        let load = || Ok(Engine { broken: false });
        batch_into(&path, 2).run_on(items(&["a?", "b?"]), &load, &debate, &fake_error_line).unwrap();
        assert_eq!(under_way.0.into_inner().unwrap().1, 2, "two debates were under way at once");
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn workers_that_cannot_load_the_engine_fail_the_run() {
        let path = std::env::temp_dir().join(format!("agon-batch-noload-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let load = || -> Result<Engine> { anyhow::bail!("no room for the compiled component") };
        let error =
            batch_into(&path, 2).run_on(items(&["a?", "b?"]), &load, &fake_debate, &fake_error_line).unwrap_err();
        let message = format!("{error:#}");
        assert!(message.contains("could not load the engine"), "{message}");
        assert!(message.contains("no room for the compiled component"), "{message}");
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn finished_ids_repair_a_torn_last_line() {
        let path = std::env::temp_dir().join(format!("agon-batch-{}.jsonl", std::process::id()));
        std::fs::write(&path, "{\"id\": \"a\"}\n{\"id\": \"b\"}\n{\"id\": \"c\", \"trans").unwrap();
        assert_eq!(finished_ids(&path, false).unwrap(), BTreeSet::from(["a".to_string(), "b".to_string()]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"id\": \"a\"}\n{\"id\": \"b\"}\n");
        let aside = path.with_extension("jsonl.torn");
        assert_eq!(std::fs::read_to_string(&aside).unwrap(), "{\"id\": \"c\", \"trans\n", "set aside, not lost");
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(aside);
        assert!(finished_ids(Path::new("/nonexistent/agon/results.jsonl"), false).unwrap().is_empty());
    }

    #[test]
    fn error_lines_are_asked_again_unless_kept() {
        let scratch = agon_testkit::sandbox::scratch("batch-errors");
        let path = scratch.path().join("results.jsonl");
        let text = "{\"id\": \"a\", \"outcome\": \"completed\"}\n{\"id\": \"b\", \"error\": \"boom\"}\n";
        std::fs::write(&path, text).unwrap();
        assert_eq!(finished_ids(&path, true).unwrap().len(), 2, "kept: both done");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert_eq!(finished_ids(&path, false).unwrap(), BTreeSet::from(["a".to_string()]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"id\": \"a\", \"outcome\": \"completed\"}\n");
        let aside = std::fs::read_to_string(scratch.path().join("results.jsonl.errors")).unwrap();
        assert_eq!(aside, "{\"id\": \"b\", \"error\": \"boom\"}\n", "moved, not lost");
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// Any bytes as a questions file (issue 33's probe of batch lines):
        /// never a panic; every line that is not blank is an item or a named
        /// problem; items have a question and ids of their own.
        #[test]
        fn any_questions_file_is_read_line_by_line(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::collection::vec(proptest::num::u8::ANY, 0..40),
                    "[{}\\[\\]\"a-z:, 0-9]{0,40}".prop_map(String::into_bytes),
                    ("[a-z0-9/ ]{0,8}", "[A-Za-z ?]{0,20}", proptest::prop_oneof![
                        proptest::strategy::Just("null".to_string()), "\"[a-z ]{0,8}\"", "[0-9]{1,3}", "\\{\\}"
                    ]).prop_map(|(id, q, c)| format!("{{\"id\": \"{id}\", \"question\": \"{q}\", \"context\": {c}}}").into_bytes()),
                ],
                0..12,
            )
        ) {
            let text: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().filter(|b| *b != b'\n').chain([b'\n'])).collect();
            let (items, problems) = read_items(&text);
            let ids: BTreeSet<&str> = items.iter().map(|i| i.id.as_str()).collect();
            proptest::prop_assert_eq!(ids.len(), items.len(), "ids are unique");
            proptest::prop_assert!(items.iter().all(|i| !i.question.trim().is_empty()));
            let blank = text.split(|b| *b == b'\n').filter(|l| !l.is_empty() && String::from_utf8_lossy(l).trim().is_empty()).count();
            let lines = text.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count();
            proptest::prop_assert!(items.len() + problems.len() + blank >= lines, "{} items, {} problems, {lines} lines", items.len(), problems.len());
        }
    }

    #[test]
    fn journal_names_are_safe_file_names_and_distinct() {
        assert_eq!(journal_name("q1"), "q1.ndjson");
        assert_eq!(journal_name("../x/y z"), "..%2Fx%2Fy%20z.ndjson");
        assert_eq!(journal_name("é"), "%C3%A9.ndjson");
        let long = |c: char| format!("{}{c}", "a".repeat(200));
        let (a, b) = (journal_name(&long('1')), journal_name(&long('2')));
        assert!(a != b && a.len() < 200 && !a.contains('/'), "{a} {b}");
    }
}
