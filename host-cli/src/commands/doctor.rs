//! `agon doctor`: a tiny live call to every configured model, and what this
//! machine offers without configuration (`--discover`, or when there is
//! nothing configured to check).

use std::time::Duration;

use agon_cli::config::Config;
use agon_cli::discovery::{self, Found};
use agon_cli::provider::Environment;
use agon_cli::safe_println;
use anyhow::Result;

use super::exit;

/// What `agon doctor` was asked to do.
pub struct Asked {
    /// Seconds each probe may take.
    pub timeout: u64,
    pub discover: bool,
    pub json: bool,
}

pub fn doctor(config: &Config, extra: &[String], asked: Asked) -> Result<u8> {
    let models = agon_cli::doctor::targets(config, extra);
    let source = config.path.as_ref().map_or("no agon.toml found".to_string(), |p| format!("config {}", p.display()));
    let env = Environment::new(config);
    if models.is_empty() || asked.discover {
        let found = discovery::discover(&env, Duration::from_secs(asked.timeout.min(3)));
        show_found(&found, &source, asked.json)?;
        if models.is_empty() {
            return Ok(if found.is_empty() { exit::FAILURE } else { exit::OK });
        }
    }
    let timeout = asked.timeout;
    if !asked.json {
        safe_println!("agon doctor · {source}");
    }
    let mut probe = |m: &str| agon_cli::doctor::live_probe(m, &env, Duration::from_secs(timeout));
    let endpoint = |m: &str| agon_cli::doctor::endpoint_of(m, &env);
    let mut checks = Vec::new();
    for model in models {
        // One at a time, so each line shows as soon as its probe ends.
        let check = agon_cli::doctor::check_all(&[model], &mut probe, &endpoint, agon_cli::doctor::now()).remove(0);
        if asked.json {
            let line = serde_json::json!({"kind": "check", "model": check.model, "healthy": check.healthy, "key_refused": check.key_refused(), "detail": check.detail});
            agon_cli::closed_pipe::line_out(&agon_cli::output::json_text(&line.to_string()));
        } else {
            let state = match (check.healthy, check.key_refused()) {
                (true, _) => "ok  ",
                (false, true) => "key ",
                (false, false) => "dead",
            };
            safe_println!("  {state}  {}: {}", check.model, check.detail);
        }
        checks.push(check);
    }
    let dead = checks.iter().filter(|c| !c.healthy).count();
    let refused = checks.iter().filter(|c| c.key_refused()).count();
    if let Some(dir) = agon_cli::engine::cache_dir() {
        let mut cache = agon_cli::doctor::HealthCache::load(&dir);
        cache.record(&checks);
        match cache.save(&dir) {
            Ok(()) if asked.json => {}
            Ok(()) => {
                safe_println!(
                    "{} of {} answered; kept for a day in {}: `agon run` leaves out dead seats until then",
                    checks.len() - dead,
                    checks.len(),
                    agon_cli::doctor::HealthCache::path(&dir).display()
                );
                if refused > 0 {
                    safe_println!(
                        "{refused} refused the key: not kept (the model was not judged); fix the key and nothing is left out"
                    );
                }
            }
            Err(e) => eprintln!("agon: could not keep the results: {e}"),
        }
    }
    Ok(if dead == 0 { exit::OK } else { exit::FAILURE })
}

/// What discovery found: a line each (or JSON), then what `agon run` would seat.
fn show_found(found: &[Found], source: &str, json: bool) -> Result<()> {
    if json {
        for f in found {
            println!("{}", agon_cli::output::json_text(&serde_json::to_string(f)?));
        }
        return Ok(());
    }
    safe_println!("agon doctor · {source} · what this machine offers:");
    if found.is_empty() {
        safe_println!("  nothing: {}", discovery::NOTHING_FOUND.trim_start_matches("no panel given and none found: "));
        return Ok(());
    }
    for f in found {
        safe_println!("  {}", f.line());
    }
    match discovery::council(found) {
        Some(c) => safe_println!(
            "`agon run QUESTION` with no panel would seat {}: {}{}",
            c.why,
            c.panel.join(", "),
            c.judge.map(|j| format!(" · judge {j}")).unwrap_or_default()
        ),
        None => safe_println!("no model to seat without a choice: give one with --panel"),
    }
    Ok(())
}
