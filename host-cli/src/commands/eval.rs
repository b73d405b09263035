//! `agon eval`: arms side by side on a dataset. Each arm is a batch of
//! debates (one results file per arm, resumed like `agon batch`); the engine
//! scores them all with one reader and writes the report.

use std::path::{Path, PathBuf};

use agon_cli::cli::EvalArgs;
use agon_cli::config::Config;
use agon_cli::engine::{Runtime, wit};
use agon_cli::eval_file::{self, ArmPlan};
use agon_cli::options::{Combine, Options};
use agon_cli::provider::Environment;
use agon_cli::request::{DebateRequest, Judge};
use agon_cli::runner::cost::{micro_usd, usd};
use agon_cli::runner::{self, History};
use agon_cli::{bad, safe_eprintln};
use anyhow::{Context, Result};

use super::batch::{Settings, run_items};
use super::exit;

pub fn eval(args: EvalArgs, config: &Config, asked: &Options) -> Result<u8> {
    // Before anything is read or spent: the results folder must be one.
    if args.output.exists() && !args.output.is_dir() {
        return Err(bad(format!(
            "-o {}: that is a file; agon eval writes a folder (each arm's results, report.md, items.jsonl): \
             give a folder's path, new or one an earlier run wrote",
            args.output.display()
        )));
    }
    let bytes = agon_cli::bounded::read_bytes(&args.dataset, agon_cli::bounded::BATCH_LIMIT, "dataset").map_err(bad)?;
    // A line that is not UTF-8 is named and skipped, as any bad line is.
    let (text, not_text) = agon_cli::batch::utf8_lines(&bytes);
    drop(bytes);
    // Read, and later scored, by agon-core: the reading and the report of
    // every host (the SDKs', through the report component).
    let format = agon_core::eval::Format::from_json(&dataset_format(&args)?).map_err(bad)?;
    let (mut items, problems) = agon_core::eval::dataset::read_as(&text, &format)
        .map_err(|e| bad(format!("{}: {e}", args.dataset.display())))?;
    for p in not_text.iter().chain(&problems) {
        safe_eprintln!("agon: {}: {p}", args.dataset.display());
    }
    if let Some(n) = args.limit {
        items.truncate(n);
    }
    if items.is_empty() {
        return Err(bad(format!("{}: no items", args.dataset.display())));
    }
    // The dataset as scored: every item read, in agon's own form (a CSV or an
    // export as it was read), or with --limit the items kept, in order.
    let scored_text: String = items.iter().map(|i| i.to_line() + "\n").collect();
    let arms = arm_plans(&args)?;
    std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    let failed = !args.rescore && run_arms(&args, config, asked, &items, &arms)?;
    // The lines skipped in reading go to the report too: it is scored from
    // the dataset as read, which holds none of them.
    let skipped: Vec<&String> = not_text.iter().chain(&problems).collect();
    let report = score(&args, &arms, &scored_text, &skipped)?;
    let mut failed_any = false;
    safe_eprintln!("agon: report in {}", args.output.join("report.md").display());
    // Failures are the arm's outage, not its answers: said apart, and an exit
    // that is not 0 unless asked.
    let summary: serde_json::Value = serde_json::from_str(&report.json).context("the engine's report.json")?;
    for arm in summary["arms"].as_array().into_iter().flatten() {
        let failed = arm["failed"].as_u64().unwrap_or(0);
        if failed > 0 {
            failed_any = true;
            safe_eprintln!(
                "agon: arm {}: {failed} debate(s) with a failed call (scored apart from wrong answers); run again to ask them again",
                arm["name"].as_str().unwrap_or("?")
            );
        }
    }
    let mut spent = agon_cli::runner::cost::Spent { cost_micro_usd: Some(0), ..Default::default() };
    for arm in &arms {
        if let Ok(s) = agon_cli::runner::cost::spent_in_results(&arm.results_in(&args.output)) {
            spent.add(&s);
        }
    }
    safe_eprintln!("{} (every arm's debates)", agon_cli::runner::cost::spent(&spent));
    Ok(if (failed || failed_any) && !args.allow_failures { exit::DEGRADED } else { exit::OK })
}

/// The arms to compare: an arms file's, or those named (`--arm`), or the defaults.
fn arm_plans(args: &EvalArgs) -> Result<Vec<ArmPlan>> {
    Ok(match &args.arms_file {
        Some(file) => eval_file::read(file).map_err(bad)?,
        None => {
            let names: Vec<String> = if args.arms.is_empty() {
                eval_file::DEFAULT_ARMS.map(String::from).to_vec()
            } else {
                args.arms.clone()
            };
            for (i, arm) in names.iter().enumerate() {
                if names[..i].contains(arm) {
                    return Err(bad(format!("--arm {arm} is given twice")));
                }
            }
            let arms: Vec<ArmPlan> = names.iter().map(|n| ArmPlan::named(n)).collect();
            eval_file::check(&arms).map_err(|e| bad(format!("--arm: {e}")))?;
            arms
        }
    })
}

/// Asks every arm's debates not already answered for the same settings;
/// whether any debate failed.
fn run_arms(
    args: &EvalArgs,
    config: &Config,
    asked: &Options,
    items: &[agon_core::eval::Item],
    arms: &[ArmPlan],
) -> Result<bool> {
    let mut failed = false;
    let mut base = args.spec.clone().into_request(String::new(), &mut |w| safe_eprintln!("{w}"));
    config.apply_to_request(&mut base, asked).map_err(bad)?;
    // --max-cost bounds the evaluation as a whole, not each debate.
    let cap = base.settings.max_cost.take();
    let mut batch_items = Vec::new();
    for k in 1..=args.repeats as u32 {
        for i in items {
            let answer = serde_json::to_value(i.answer_spec()).context("the dataset's answer spec")?;
            batch_items.push(agon_cli::batch::Item {
                id: sample_id(&i.id, k),
                question: i.prompt(),
                context: i.context.clone(),
                answer: Some(answer),
            });
        }
    }
    let vote_document: serde_json::Value =
        serde_json::from_str(agon_core::eval::VOTE_DOCUMENT).context("the engine's vote document")?;
    let mut plans = Vec::new();
    for arm in arms {
        let request = arm_request(arm, &base, args.votes, &vote_document)?;
        let output = arm.results_in(&args.output);
        agon_cli::output::check_writable(&output, "--output").map_err(bad)?;
        let (bound, spec) = worst_case(&request, &batch_items, config)?;
        // Results are kept only for the settings and the items that asked them.
        let settings = agon_core::eval::settings_line(&spec).map_err(|e| bad(format!("arm {}: {e}", arm.name)))?;
        keep_matching(&arm.name, &output, &settings, &batch_items)?;
        let done = agon_cli::batch::finished_ids(&output, false)?;
        let todo = batch_items.iter().filter(|i| !done.contains(&i.id)).count() as u64;
        plans.push((arm, request, output, todo, bound));
    }
    super::batch::on_ctrl_c(&args.output);
    print_worst_case(
        &plans.iter().map(|(a, _, _, todo, bound)| (a.name.as_str(), *todo, bound)).collect::<Vec<_>>(),
        cap,
    )?;
    for (arm, request, output, _, _) in plans {
        safe_eprintln!("agon: arm {}", arm.name);
        let settings = Settings {
            output: &output,
            journals: output.with_extension("journals"),
            keep_errors: false,
            pool: &args.pool,
        };
        let _lock = super::batch::lock_results(&output)?;
        let tally = run_items(request, batch_items.clone(), &settings, config)?;
        failed |= tally.errors > 0;
    }
    Ok(failed)
}

/// The engine's report of every arm's results, written into the folder.
fn score(args: &EvalArgs, arms: &[ArmPlan], scored_text: &str, skipped: &[&String]) -> Result<agon_core::eval::Report> {
    let mut texts = Vec::new();
    for arm in arms {
        let path = arm.results_in(&args.output);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && args.rescore => {
                return Err(bad(format!("--rescore: no results for arm {} ({} is missing)", arm.name, path.display())));
            }
            Err(e) => return Err(anyhow::Error::new(e).context(format!("reading {}", path.display()))),
        };
        texts.push(text);
    }
    let rows: Vec<(String, &str, agon_core::eval::Scoring)> = arms
        .iter()
        .zip(&texts)
        .flat_map(|(arm, results)| arm.rows().into_iter().map(move |(name, scoring)| (name, results.as_str(), scoring)))
        .collect();
    let arm_list: Vec<agon_core::eval::Arm> =
        rows.iter().map(|(name, results, scoring)| agon_core::eval::Arm { name, results, scoring: *scoring }).collect();
    let name =
        args.dataset.file_name().map_or_else(|| args.dataset.display().to_string(), |n| n.to_string_lossy().into());
    let options = serde_json::json!({"by": args.by, "skipped": skipped}).to_string();
    let options = agon_core::eval::Options::from_json(&options).map_err(bad)?;
    let report = agon_core::eval::report_with(&name, scored_text, &arm_list, &options);
    write(&args.output.join("report.md"), &report.markdown)?;
    write(&args.output.join("report.json"), &report.json)?;
    write(&args.output.join("items.jsonl"), &report.items)?;
    for picture in &report.pictures {
        // The engine names its pictures; nothing else lands outside the folder.
        let file = Path::new(&picture.file).file_name().context("a picture without a file name")?;
        write(&args.output.join(file), &picture.svg)?;
    }
    Ok(report)
}

/// The dataset's format for the engine: CSV (by flag or by the file's
/// extension), agon's fields renamed, a kind for every line without one.
fn dataset_format(args: &EvalArgs) -> Result<String> {
    let csv = args.csv || args.dataset.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let mut fields = serde_json::Map::new();
    for f in &args.fields {
        let (ours, theirs) =
            f.split_once('=').ok_or_else(|| bad(format!("--field {f}: give FIELD=NAME, e.g. question=problem")))?;
        fields.insert(ours.trim().to_string(), serde_json::Value::from(theirs.trim()));
    }
    let mut format = serde_json::json!({"csv": csv, "fields": fields});
    if let Some(kind) = &args.kind {
        if !["number", "choice", "yes-no", "exact", "regex"].contains(&kind.as_str()) {
            return Err(bad(format!("--kind {kind}: give number, choice, yes-no, exact or regex")));
        }
        format["kind"] = serde_json::Value::from(kind.as_str());
    }
    Ok(format.to_string())
}

/// The results id of sample `k` of item `id`, as the engine reads it back.
fn sample_id(id: &str, k: u32) -> String {
    if k <= 1 { id.to_string() } else { format!("{id}~{k}") }
}

/// Keep in an arm's results file only what its settings and items now ask:
/// a file written under other settings is set aside whole (and its debates
/// asked again); a line for another question under the same id, or a debate
/// with a failed call, is moved aside and asked again. Nothing is deleted.
/// A file without recorded settings is refused: its answers cannot be tied
/// to what asked them.
fn keep_matching(arm: &str, output: &Path, settings: &str, items: &[agon_cli::batch::Item]) -> Result<()> {
    let text = match std::fs::read_to_string(output) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(anyhow::Error::new(e).context(format!("reading {}", output.display()))),
    };
    let wanted: serde_json::Value = serde_json::from_str(settings).context("the engine's settings line")?;
    let first = text.lines().next().and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok());
    let recorded = first.as_ref().and_then(|v| v.get("eval_settings"));
    let has_results = text.lines().any(|l| l.contains("\"id\""));
    match recorded {
        None if !has_results => {
            // A new file (or one with nothing of value): it opens with the settings.
            std::fs::write(output, format!("{settings}\n")).with_context(|| format!("writing {}", output.display()))?;
            return Ok(());
        }
        None => {
            return Err(bad(format!(
                "{} holds results with no recorded settings, so they cannot be tied to what asked them: \
                 move it away to ask again, or score it as it is with --rescore",
                output.display()
            )));
        }
        Some(old) if old["key"] != wanted["eval_settings"]["key"] => {
            let changed = changed_settings(old, &wanted["eval_settings"]);
            let aside = aside_path(
                output,
                &format!("settings-{}", old["key"].as_str().unwrap_or("?").get(..12).unwrap_or("?")),
            );
            std::fs::rename(output, &aside).with_context(|| format!("setting {} aside", output.display()))?;
            std::fs::write(output, format!("{settings}\n")).with_context(|| format!("writing {}", output.display()))?;
            safe_eprintln!(
                "agon: arm {arm}: its settings changed ({changed}): the results asked before are kept in {}, and every item is asked again",
                aside.display()
            );
            return Ok(());
        }
        Some(_) => {}
    }
    // The same settings: drop only the lines for other questions, and failed debates.
    let by_id: std::collections::BTreeMap<&str, &agon_cli::batch::Item> =
        items.iter().map(|i| (i.id.as_str(), i)).collect();
    let (mut kept, mut stale, mut failed) = (String::new(), String::new(), String::new());
    for line in text.lines() {
        let value = serde_json::from_str::<serde_json::Value>(line).ok();
        let transcript = value.as_ref().map(|v| &v["transcript"]).filter(|t| t.is_object());
        let id = value.as_ref().and_then(|v| v["id"].as_str());
        let item = id.and_then(|id| by_id.get(id));
        match (transcript, item) {
            (Some(t), Some(item))
                if t["question"].as_str() != Some(item.question.as_str())
                    || t["context"].as_str() != item.context.as_deref() =>
            {
                stale.push_str(line);
                stale.push('\n');
            }
            (Some(t), Some(_))
                if t.pointer("/outcome/failures").and_then(|f| f.as_array()).is_some_and(|f| !f.is_empty()) =>
            {
                failed.push_str(line);
                failed.push('\n');
            }
            _ => {
                kept.push_str(line);
                kept.push('\n');
            }
        }
    }
    for (lines, what, why) in
        [(&stale, "stale", "asked another question under the same id"), (&failed, "failed", "had a failed call")]
    {
        if lines.is_empty() {
            continue;
        }
        let aside = aside_path(output, what);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&aside)
            .with_context(|| format!("opening {}", aside.display()))?;
        std::io::Write::write_all(&mut f, lines.as_bytes()).with_context(|| format!("writing {}", aside.display()))?;
        safe_eprintln!(
            "agon: arm {arm}: {} result(s) {why}: moved to {} and asked again",
            lines.lines().count(),
            aside.display()
        );
    }
    if !stale.is_empty() || !failed.is_empty() {
        let tmp = output.with_extension(format!("jsonl.tmp{}", std::process::id()));
        std::fs::write(&tmp, kept).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, output).with_context(|| format!("replacing {}", output.display()))?;
    }
    Ok(())
}

/// `ARM.jsonl` → `ARM.WHAT.jsonl` beside it.
fn aside_path(output: &Path, what: &str) -> PathBuf {
    output.with_extension(format!("{what}.jsonl"))
}

/// What differs between two settings, in a few words: the engine and the spec's changed fields.
fn changed_settings(old: &serde_json::Value, new: &serde_json::Value) -> String {
    let mut changed = Vec::new();
    if old["engine"] != new["engine"] {
        changed.push(format!(
            "engine {} → {}",
            old["engine"].as_str().unwrap_or("?"),
            new["engine"].as_str().unwrap_or("?")
        ));
    }
    let (a, b) = (&old["spec"], &new["spec"]);
    let mut keys: Vec<&String> = a.as_object().into_iter().chain(b.as_object()).flat_map(|o| o.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys {
        if a.get(k) != b.get(k) {
            changed.push(k.clone());
        }
    }
    if changed.is_empty() { "the settings key".to_string() } else { changed.join(", ") }
}

/// The request an arm runs: the flags' panel and settings, with the arm's
/// protocol and its own panel, rounds, judge and consensus.
fn arm_request(
    arm: &ArmPlan,
    base: &DebateRequest,
    votes: usize,
    vote_document: &serde_json::Value,
) -> Result<DebateRequest> {
    let mut request = base.clone();
    // The arm's panel, judge and rounds over the flags' (a blind arm has no
    // judge nor rounds: eval_file::check refuses them, and the match below
    // sets its own).
    request.take_settings(arm.layer().combine(base.settings.clone()));
    let panel = request.panel.clone();
    let first = || {
        panel.first().cloned().ok_or_else(|| {
            bad(format!(
                "agon eval: arm {}: give the models with --panel MODEL[,MODEL…] or the arm's `panel`",
                arm.name
            ))
        })
    };
    match arm.protocol() {
        blind @ ("single" | "vote") => {
            request.protocol = "vote".into();
            request.protocol_file = None;
            request.document = Some(vote_document.clone());
            request.judge = Judge::Without;
            request.rounds = None;
            request.panel = match blind {
                "single" => vec![first()?],
                _ if panel.len() >= 2 => panel.clone(),
                _ => vec![first()?; arm.votes.unwrap_or(votes)],
            };
        }
        "self-correct" => {
            // Each seat revises alone, for the arm's rounds: the same panel as a debate's, no judge.
            request.protocol = "self-correct".into();
            request.protocol_file = None;
            request.document = Some(
                serde_json::from_str(agon_core::eval::SELF_CORRECT_DOCUMENT).context("the self-correction document")?,
            );
            request.judge = Judge::Without;
            request.panel = if panel.len() >= 2 { panel.clone() } else { vec![first()?; arm.votes.unwrap_or(votes)] };
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
    if let Some(mode) = arm.consensus {
        request.consensus = Some(mode);
    }
    if let Some(stop) = arm.stop_when_unchanged {
        request.options.insert("stop_when_unchanged".into(), serde_json::Value::Bool(stop));
    }
    Ok(request)
}

/// One debate of `request` at worst, asked the dataset's longest question:
/// a bound for every item; and the spec it makes (its settings, whatever the item).
fn worst_case(
    request: &DebateRequest,
    items: &[agon_cli::batch::Item],
    config: &Config,
) -> Result<(wit::CostEstimate, String)> {
    let longest = items
        .iter()
        .max_by_key(|i| i.question.len() + i.context.as_ref().map_or(0, String::len))
        .expect("at least one item");
    let mut request = request.clone();
    request.question = longest.question.clone();
    request.context = longest.context.clone();
    request.answer =
        longest.answer.clone().map(serde_json::from_value).transpose().map_err(|e| bad(format!("answer: {e}")))?;
    let mut runtime = Runtime::load()?;
    let env = Environment::new(config);
    let prepared = runner::prepare(&request, &mut runtime, config, &env, History::Alone, &|_| Ok(()))?;
    Ok((prepared.bound, prepared.spec))
}

/// The evaluation's worst case, arm by arm, before any call; above `cap`
/// (US dollars), refused.
fn print_worst_case(arms: &[(&str, u64, &wit::CostEstimate)], cap: Option<f64>) -> Result<()> {
    let debates: u64 = arms.iter().map(|(_, todo, _)| todo).sum();
    let calls: u64 = arms.iter().map(|(_, todo, b)| todo * u64::from(b.calls)).sum();
    let tokens: u64 = arms.iter().map(|(_, todo, b)| todo * (b.prompt_tokens + b.completion_tokens)).sum();
    let unpriced: Vec<&str> = {
        let mut models: Vec<&str> = arms
            .iter()
            .filter(|(_, todo, _)| *todo > 0)
            .flat_map(|(_, _, b)| b.unpriced.iter().map(String::as_str))
            .collect();
        models.sort_unstable();
        models.dedup();
        models
    };
    let total: Option<u64> =
        arms.iter().filter(|(_, todo, _)| *todo > 0).map(|(_, todo, b)| b.cost_micro_usd.map(|c| c * todo)).sum();
    let cost = match total {
        Some(micro) => format!(", ≤ {}", usd(micro)),
        None => format!("; cost unknown: no price for {}", unpriced.join(", ")),
    };
    let each: Vec<String> = arms
        .iter()
        .map(|(name, todo, b)| {
            let price = b.cost_micro_usd.map_or(String::new(), |c| format!(" × ≤ {}", usd(c)));
            format!("{name} {todo}{price}")
        })
        .collect();
    safe_eprintln!(
        "agon: evaluation at worst: {debates} debate(s) still to run ({}), {calls} calls, ≤ {} tokens{cost}",
        each.join("; "),
        agon_cli::runner::cost::thousands(tokens)
    );
    if let (Some(max), Some(micro)) = (cap, total)
        && micro > micro_usd(max)
    {
        return Err(bad(format!(
            "the evaluation's worst case, {}, is above --max-cost ${max}: use --limit, fewer arms or rounds, lower --max-tokens, or raise --max-cost",
            usd(micro)
        )));
    }
    if cap.is_some() && !unpriced.is_empty() {
        safe_eprintln!(
            "agon: --max-cost cannot count {} (no price): add [prices.\"MODEL\"] to agon.toml",
            unpriced.join(", ")
        );
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}
