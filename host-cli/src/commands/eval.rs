//! `agon eval`: arms side by side on a dataset. Each arm is a batch of
//! debates (one results file per arm, resumed like `agon batch`); the engine
//! scores them all with one reader and writes the report.

use std::path::{Path, PathBuf};

use agon_cli::cli::EvalArgs;
use agon_cli::config::Config;
use agon_cli::request::{DebateRequest, Judge};
use agon_cli::{bad, safe_eprintln};
use agon_core::eval::{self, Arm};
use anyhow::{Context, Result};

use super::batch::{Settings, run_items};
use super::exit;

/// The arms run when none is named: one model, a plain vote, and a debate.
const DEFAULT_ARMS: [&str; 3] = ["single", "vote", "rotating-challenger"];

pub fn eval(args: EvalArgs, config: &Config, given: &dyn Fn(&str) -> bool) -> Result<u8> {
    let text = agon_cli::bounded::read_bytes(&args.dataset, agon_cli::bounded::BATCH_LIMIT, "dataset")
        .map_err(bad)
        .and_then(|b| String::from_utf8(b).map_err(|_| bad(format!("{}: not UTF-8 text", args.dataset.display()))))?;
    let (mut items, problems) = eval::dataset::read(&text);
    for p in &problems {
        safe_eprintln!("agon: {}: {p}", args.dataset.display());
    }
    if let Some(n) = args.limit {
        items.truncate(n);
    }
    if items.is_empty() {
        return Err(bad(format!("{}: no items", args.dataset.display())));
    }
    // The dataset as scored: the whole file (as every host scores it), or with
    // --limit the items kept, in order.
    let scored_text: String = if args.limit.is_none() { text.clone() } else { limited(&text, &items) };
    let arms: Vec<String> =
        if args.arms.is_empty() { DEFAULT_ARMS.map(String::from).to_vec() } else { args.arms.clone() };
    for (i, arm) in arms.iter().enumerate() {
        if arms[..i].contains(arm) {
            return Err(bad(format!("--arm {arm} is given twice")));
        }
    }
    std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    let results_of = |arm: &str| args.output.join(format!("{}.jsonl", file_name(arm)));

    let mut failed = false;
    if !args.rescore {
        let mut base = args.spec.clone().into_request(String::new(), &mut |w| safe_eprintln!("{w}"));
        config.apply_to_request(&mut base, given).map_err(bad)?;
        for arm in &arms {
            safe_eprintln!("agon: arm {arm}");
            let request = arm_request(arm, &base, args.votes)?;
            let batch_items: Vec<agon_cli::batch::Item> = items
                .iter()
                .map(|i| agon_cli::batch::Item {
                    id: i.id.clone(),
                    question: i.prompt(),
                    context: i.context.clone(),
                    answer: Some(serde_json::to_value(i.answer_spec()).expect("serializes")),
                })
                .collect();
            let output = results_of(arm);
            let settings = Settings {
                output: &output,
                journals: args.output.join(format!("{}.journals", file_name(arm))),
                keep_errors: false,
                concurrency: args.concurrency,
                max_in_flight: args.max_in_flight,
                rates: &args.rates,
                timeout: args.timeout,
                retries: args.retries,
                max_reply: None,
            };
            agon_cli::output::check_writable(&output, "--output").map_err(bad)?;
            let _lock = super::batch::lock_results(&output)?;
            let tally = run_items(request, batch_items, &settings, config)?;
            failed |= tally.errors > 0;
        }
    }

    let mut texts = Vec::new();
    for arm in &arms {
        let path = results_of(arm);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && args.rescore => {
                return Err(bad(format!("--rescore: no results for arm {arm} ({} is missing)", path.display())));
            }
            Err(e) => return Err(anyhow::Error::new(e).context(format!("reading {}", path.display()))),
        };
        texts.push(text);
    }
    let arm_list: Vec<Arm> = arms.iter().zip(&texts).map(|(name, results)| Arm { name, results }).collect();
    let name =
        args.dataset.file_name().map_or_else(|| args.dataset.display().to_string(), |n| n.to_string_lossy().into());
    let report = eval::report(&name, &scored_text, &arm_list);
    write(&args.output.join("report.md"), &report.markdown)?;
    write(&args.output.join("items.jsonl"), &report.items)?;
    write(&args.output.join("accuracy.svg"), &report.svg)?;
    safe_eprintln!("agon: report in {}", args.output.join("report.md").display());
    Ok(if failed { exit::DEGRADED } else { exit::OK })
}

/// The request an arm runs: the flags' panel and settings, with the arm's protocol.
fn arm_request(arm: &str, base: &DebateRequest, votes: usize) -> Result<DebateRequest> {
    let mut request = base.clone();
    let first =
        || base.panel.first().cloned().ok_or_else(|| bad("agon eval: give the models with --panel MODEL[,MODEL…]"));
    match arm {
        "single" | "vote" => {
            let document: serde_json::Value =
                serde_json::from_str(eval::VOTE_DOCUMENT).expect("the vote document is JSON");
            request.protocol = "vote".into();
            request.protocol_file = None;
            request.document = Some(document);
            request.judge = Judge::Without;
            request.rounds = None;
            request.panel = match arm {
                "single" => vec![first()?],
                _ if base.panel.len() >= 2 => base.panel.clone(),
                _ => vec![first()?; votes],
            };
        }
        other if Path::new(other).extension().is_some() && Path::new(other).exists() => {
            request.protocol_file = Some(PathBuf::from(other));
            request.document = None;
        }
        other => {
            request.protocol = other.to_string();
            request.protocol_file = None;
            request.document = None;
        }
    }
    Ok(request)
}

/// An arm's name as a file name: a document's path becomes its stem.
fn file_name(arm: &str) -> String {
    let stem = Path::new(arm).file_stem().map_or(arm.to_string(), |s| s.to_string_lossy().into_owned());
    stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// The lines of `text` that hold one of `items` (what `--limit` kept), in order.
fn limited(text: &str, items: &[eval::Item]) -> String {
    text.lines()
        .filter(|l| {
            let value = serde_json::from_str::<serde_json::Value>(l).ok();
            let id = value.and_then(|v| v.get("id").and_then(|i| i.as_str().map(str::to_string)));
            id.is_some_and(|id| items.iter().any(|i| i.id == id))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}
