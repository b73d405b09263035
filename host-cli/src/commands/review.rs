//! `agon review`: a council as a gate on a change. The diff is read (git,
//! a file or standard input), split by file when over the budget, each part
//! reviewed under the review protocol document with the policy in it; the
//! core merges the findings and decides; this writes the report and the
//! exit code: 0 pass, 1 fail, 2 anything else (never a pass on an error).

use std::io::Write;
use std::path::Path;

use agon_cli::cli::review::{ReviewArgs, ReviewFormat};
use agon_cli::cli::{DriveArgs, Format};
use agon_cli::config::Config;
use agon_cli::engine::Runtime;
use agon_cli::host::{self, Ending, JournalFile, Sinks};
use agon_cli::options::{Options, ProtocolChoice};
use agon_cli::review::diff::{self, FileDiff};
use agon_cli::review::report::{self, Meta};
use agon_cli::runner::cost::{usd, worst_case_line};
use agon_cli::runner::{self, History, Keep};
use agon_cli::view::View;
use agon_cli::{bad, safe_eprintln};
use agon_core::review::{Policy, REVIEW_DOCUMENT, Review, Severity, Verdict};
use anyhow::{Context, Result, anyhow};
use serde_json::Value;

use super::drive::{call_options, environment};

/// Exit codes of a review: CI reads them.
const PASS: u8 = 0;
const FAIL: u8 = 1;
const ERROR: u8 = 2;

/// Lines of unchanged code shown around each change, when the diff fits the budget with them.
const SURROUNDING: u32 = 10;

/// `agon review`, every error an exit 2 with its reason on stderr.
pub fn review(args: ReviewArgs, config: Option<&Path>, asked: &Options) -> u8 {
    match run(args, config, asked) {
        Ok(code) => code,
        Err(e) => {
            safe_eprintln!("agon: review: {e:#}");
            ERROR
        }
    }
}

fn run(args: ReviewArgs, config_path: Option<&Path>, asked: &Options) -> Result<u8> {
    for (path, flag) in [(&args.output, "--output"), (&args.sarif, "--sarif"), (&args.comment, "--comment")] {
        if let Some(path) = path {
            agon_cli::output::check_writable(path, flag).map_err(bad)?;
        }
    }
    let config = Config::load(config_path).map_err(bad)?;
    if let Some(notice) = config.trust_notice() {
        safe_eprintln!("{notice}");
    }
    if matches!(asked.protocol, Some(ProtocolChoice::Named(_))) {
        return Err(bad(
            "agon review runs the review protocol; bring a review protocol of your own with --protocol-file",
        ));
    }
    let text = read_diff(&args)?;
    let files = diff::files(&text);
    if files.is_empty() {
        return Err(bad("the diff names no file: nothing to review (is the range right?)"));
    }
    let parts = diff::split(&files, args.max_diff_bytes).map_err(bad)?;
    if parts.len() > 1 {
        safe_eprintln!(
            "agon: the diff is {} bytes, over the budget of {} (--max-diff-bytes): reviewed in {} parts, split by file",
            files.iter().map(|f| f.text.len()).sum::<usize>(),
            args.max_diff_bytes,
            parts.len()
        );
    }
    let policy = policy(&args, &config)?;
    let document = document(&args, policy)?;

    let mut runtime = Runtime::load()?;
    let drive = drive_args(&args);
    let env = environment(&config, &drive);
    // Every part prepared, and the worst case of them all printed and capped, before any call.
    let mut prepared = Vec::new();
    // The review's document is the protocol asked for: agon.toml's protocol does not replace it.
    let name = document["name"].as_str().unwrap_or("review").to_string();
    let asked = Options { protocol: Some(ProtocolChoice::Named(name)), ..asked.clone() };
    for (i, part) in parts.iter().enumerate() {
        let mut request = args.spec.clone().into_request(question(i, &parts), &mut |w| safe_eprintln!("{w}"));
        request.protocol_file = None;
        request.document = Some(document.clone());
        request.context = Some(part.iter().map(|f| f.text.as_str()).collect());
        let mut drive = drive_args(&args);
        super::run::configure_run(&mut request, &mut drive, &config, &asked)?;
        prepared.push(runner::prepare(&request, &mut runtime, &config, &env, History::Alone, &|_| Ok(()))?);
    }
    let calls: u32 = prepared.iter().map(|p| p.bound.calls).sum();
    let priced: Option<u64> = prepared.iter().map(|p| p.bound.cost_micro_usd).sum();
    if !args.quiet {
        for p in &prepared {
            safe_eprintln!("{}", worst_case_line(&p.bound));
        }
        if prepared.len() > 1 {
            let cost = priced.map_or("cost unknown".into(), |m| format!("≤ {}", usd(m)));
            safe_eprintln!("agon: worst case for the whole review: {calls} calls, {cost}");
        }
    }
    if let (Some(cap), true) = (args.spec.max_cost.or(config.defaults.max_cost), prepared.len() > 1) {
        match priced {
            Some(micro) if micro as f64 / 1e6 <= cap => {}
            Some(micro) => {
                return Err(bad(format!(
                    "the review's worst case, {}, is over --max-cost {}",
                    usd(micro),
                    usd((cap * 1e6) as u64)
                )));
            }
            None => {
                return Err(bad("some model has no price, so the review's worst case cannot be held to --max-cost"));
            }
        }
    }

    let mut reviews = Vec::new();
    let mut sessions_kept = Vec::new();
    for (i, p) in prepared.iter().enumerate() {
        let journal = args.journal.as_deref().map(|j| part_path(j, i, prepared.len()));
        let (review, session) = review_part(&mut runtime, p, &args, journal.as_deref(), &config, &env)?;
        reviews.push(review);
        sessions_kept.extend(session);
    }
    let review = combine(reviews);
    let meta = Meta {
        session: (!sessions_kept.is_empty()).then(|| sessions_kept.join(", ")),
        engine: agon_core::journal::ENGINE_VERSION.to_string(),
        links: args.links.clone().or_else(github_links),
        new_lines: diff::new_lines(&text),
        parts: parts.len(),
    };
    let out = match args.format {
        ReviewFormat::Markdown => report::markdown(&review, &meta),
        ReviewFormat::Sarif => serde_json::to_string_pretty(&report::sarif(&review, &meta))? + "\n",
        ReviewFormat::Annotations => report::annotations(&review, &meta),
        ReviewFormat::Json => serde_json::to_string_pretty(&report::json(&review, &meta))? + "\n",
    };
    if let Some(path) = &args.sarif {
        let sarif = serde_json::to_string_pretty(&report::sarif(&review, &meta))? + "\n";
        std::fs::write(path, sarif).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.comment {
        std::fs::write(path, report::markdown(&review, &meta))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    match &args.output {
        Some(path) => std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))?,
        None => std::io::stdout().lock().write_all(out.as_bytes())?,
    }
    safe_eprintln!("agon: review: {}", report::headline(&review));
    Ok(match review.verdict {
        Verdict::Pass => PASS,
        Verdict::Fail => FAIL,
        Verdict::Undecided => ERROR,
    })
}

/// The diff: standard input, a file, or git in the working folder (with
/// surrounding lines when they fit the budget).
fn read_diff(args: &ReviewArgs) -> Result<String> {
    let limit = agon_core::MAX_FILE_BYTES.max(args.max_diff_bytes as u64 * 64);
    if args.target.as_deref() == Some("-") {
        let bytes = agon_cli::context_files::read_up_to(std::io::stdin().lock(), limit + 1)
            .map_err(|e| bad(format!("cannot read the diff on standard input: {e}")))?;
        if bytes.len() as u64 > limit {
            return Err(bad(format!("the diff on standard input is over {limit} bytes")));
        }
        return String::from_utf8(bytes).map_err(|_| bad("the diff on standard input is not UTF-8"));
    }
    if let Some(path) = &args.diff {
        return agon_cli::bounded::read_text(path, limit, "diff (--diff)").map_err(|e| bad(e.to_string()));
    }
    let here = std::env::current_dir()?;
    let wide = diff::from_git(&here, args.target.as_deref(), SURROUNDING).map_err(bad)?;
    if wide.len() <= args.max_diff_bytes {
        return Ok(wide);
    }
    diff::from_git(&here, args.target.as_deref(), 3).map_err(bad)
}

/// The flags over agon.toml's `[review]` over the protocol's own.
fn policy(args: &ReviewArgs, config: &Config) -> Result<Option<Policy>> {
    let base = config.review;
    if base.is_none() && args.fail_at.is_none() && args.confirmed_by.is_none() {
        return Ok(None);
    }
    let mut p = base.unwrap_or_default();
    if let Some(s) = &args.fail_at {
        p.fail_at = Severity::parse(s).ok_or_else(|| bad(format!("--fail-at {s}: not a severity")))?;
    }
    if let Some(n) = args.confirmed_by {
        p.confirmed_by = n;
    }
    Ok(Some(p))
}

/// The review protocol (`--protocol-file`, else the shipped one), with the policy put in.
fn document(args: &ReviewArgs, policy: Option<Policy>) -> Result<Value> {
    let mut doc: Value = match &args.spec.protocol_file {
        Some(path) => agon_cli::protocol_file::read(path).map_err(bad)?,
        None => serde_json::from_str(REVIEW_DOCUMENT)?,
    };
    if doc.pointer("/aggregate/review").is_none() {
        return Err(bad("the protocol document has no `aggregate.review`: it declares no findings to decide on"));
    }
    if let Some(p) = policy {
        doc["aggregate"]["review"]["policy"] = serde_json::to_value(p)?;
    }
    Ok(doc)
}

fn question(i: usize, parts: &[Vec<FileDiff>]) -> String {
    let mut q = "Review this change (the unified diff below) before it merges.".to_string();
    if parts.len() > 1 {
        let names: Vec<&str> = parts[i].iter().map(|f| f.path.as_str()).collect();
        q.push_str(&format!(
            " The change was too big for one review, so it is split by file: this is part {} of {}, with {}.",
            i + 1,
            parts.len(),
            names.join(", ")
        ));
    }
    q
}

fn drive_args(args: &ReviewArgs) -> DriveArgs {
    DriveArgs {
        format: Format::Json,
        output: None,
        events: None,
        calls: agon_cli::cli::CallArgs { timeout: args.timeout, retries: 2, max_retry_wait: None, max_reply: None },
        no_stream: false,
        quiet: true,
    }
}

/// One part reviewed: a session kept (unless --no-save), the journal
/// written, the council driven, its review read from the transcript.
fn review_part(
    runtime: &mut Runtime,
    prepared: &runner::Prepared,
    args: &ReviewArgs,
    journal: Option<&Path>,
    config: &Config,
    env: &agon_cli::provider::Environment,
) -> Result<(Review, Option<String>)> {
    let mut council = runtime.create(&prepared.spec)?.map_err(|e| bad(e.to_string()))?;
    let header = council.journal()?;
    let (session, _lock) = runner::new_session(args.no_save)?;
    let mut journals = Vec::new();
    if let Some(s) = &session {
        journals.push(JournalFile::create(&s.journal(), &header)?);
    }
    if let Some(path) = journal {
        journals.push(JournalFile::create_copy(path, &header)?);
    }
    let mut sinks = Sinks { events: None, journals, timings: None };
    let keep = Keep { session: session.as_ref(), history: None, resume: None };
    let mut view = View::new(if args.quiet { None } else { Some(Box::new(std::io::stderr())) });
    let channel = host::channel_with_interrupt(&mut |w| safe_eprintln!("{w}"));
    let options = call_options(&drive_args(args), config);
    let ending = runner::drive(&mut council, env, options, &mut sinks, &mut view, channel, &keep)?;
    drop(view);
    if let Ending::Interrupted = ending {
        return Err(anyhow!("interrupted before the review finished"));
    }
    let transcript: Value = serde_json::from_str(&council.transcript_json()?)?;
    let id = session.as_ref().map(|s| s.id.clone());
    if let Some(id) = &id {
        safe_eprintln!("agon: kept as session {id} (agon show {id})");
    }
    let outcome = council.outcome()?.context("the review ended without an outcome")?;
    if !matches!(outcome.kind, agon_cli::engine::wit::OutcomeKind::Completed) {
        return Err(anyhow!("the review did not finish: {}", agon_cli::view::outcome_line(&outcome)));
    }
    let value = agon_core::results_shaped(&transcript, agon_core::ResultShape::Review).next();
    let value = value.ok_or_else(|| anyhow!("the transcript holds no review result"))?;
    Ok((Review::from_value(value).map_err(|e| anyhow!("the transcript's review result: {e}"))?, id))
}

/// Part `i`'s journal: the path given for a review in one part, else
/// `NAME.partN.EXT` beside it.
fn part_path(path: &Path, i: usize, parts: usize) -> std::path::PathBuf {
    if parts == 1 {
        return path.to_path_buf();
    }
    let stem = path.file_stem().map_or("journal".into(), |s| s.to_string_lossy().into_owned());
    let ext = path.extension().map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
    path.with_file_name(format!("{stem}.part{}{ext}", i + 1))
}

/// The parts' reviews as one: findings in order (ids prefixed by the part
/// when there are several), fail if any part fails, a pass only if all pass.
fn combine(mut reviews: Vec<Review>) -> Review {
    if reviews.len() == 1 {
        return reviews.pop().expect("one");
    }
    let mut all = reviews[0].clone();
    all.findings.clear();
    all.blocking.clear();
    all.unread.clear();
    all.changes.clear();
    all.unmatched.clear();
    for (i, mut r) in reviews.into_iter().enumerate() {
        let tag = |id: &str| format!("P{}-{id}", i + 1);
        for f in &mut r.findings {
            f.id = tag(&f.id);
        }
        all.blocking.extend(r.blocking.iter().map(|id| tag(id)));
        all.findings.extend(r.findings);
        all.unread.extend(r.unread.into_iter().filter(|s| !all.unread.contains(s)).collect::<Vec<_>>());
        all.changes.extend(r.changes.into_iter().map(|mut c| {
            c.finding = tag(&c.finding);
            c
        }));
        all.unmatched.extend(r.unmatched);
    }
    all.verdict = match (all.blocking.is_empty(), all.unread.is_empty()) {
        (false, _) => Verdict::Fail,
        (true, true) => Verdict::Pass,
        (true, false) => Verdict::Undecided,
    };
    all
}

/// In GitHub Actions: the run's commit on its server, for links to lines.
fn github_links() -> Option<String> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    Some(format!("{}/{}/blob/{}/", var("GITHUB_SERVER_URL")?, var("GITHUB_REPOSITORY")?, var("GITHUB_SHA")?))
}

/// `agon replay JOURNAL --verify REPORT`: the review the journal re-derives,
/// offline, against the one the report states. 0 when they match, 1 when not.
pub fn verify(transcript: &Value, report: &Path) -> Result<u8> {
    let derived = agon_core::results_shaped(transcript, agon_core::ResultShape::Review)
        .next()
        .ok_or_else(|| bad("the journal's debate holds no review result: it is not a finished review"))?;
    let derived = Review::from_value(derived).map_err(|e| anyhow!("the journal's review result: {e}"))?;
    let text = agon_cli::bounded::read_text(report, 64 << 20, "report (--verify)").map_err(|e| bad(e.to_string()))?;
    let stated: Value = serde_json::from_str(&text).map_err(|e| bad(format!("{}: not JSON: {e}", report.display())))?;
    let stated = agon_cli::review::verify::stated(&stated).map_err(|e| bad(format!("{}: {e}", report.display())))?;
    let mine = agon_cli::review::verify::Stated::of(&derived);
    let differences = mine.differences(&stated);
    if differences.is_empty() {
        agon_cli::safe_println!(
            "the journal's review matches {}: {} ({} findings)",
            report.display(),
            derived.verdict.as_str(),
            derived.findings.len()
        );
        Ok(PASS)
    } else {
        agon_cli::safe_println!("the journal's review does not match {}:", report.display());
        for d in differences {
            agon_cli::safe_println!("  {d}");
        }
        Ok(FAIL)
    }
}
