//! `agon doctor`: a tiny live call to every configured model.

use std::time::Duration;

use agon_cli::config::Config;
use agon_cli::provider::Environment;
use agon_cli::safe_println;
use anyhow::Result;

use super::exit;

pub fn doctor(config: &Config, extra: &[String], timeout: u64) -> Result<u8> {
    let models = agon_cli::doctor::targets(config, extra);
    let source = config.path.as_ref().map_or("no agon.toml found".to_string(), |p| format!("config {}", p.display()));
    if models.is_empty() {
        safe_println!(
            "agon doctor · {source} · nothing to check: name models in agon.toml's [panels], or give them: agon doctor openai/gpt-4o-mini"
        );
        return Ok(exit::BAD_INPUT);
    }
    safe_println!("agon doctor · {source}");
    let env = Environment::new(config);
    let mut probe = |m: &str| agon_cli::doctor::live_probe(m, &env, Duration::from_secs(timeout));
    let endpoint = |m: &str| agon_cli::doctor::endpoint_of(m, &env);
    let mut checks = Vec::new();
    for model in models {
        // One at a time, so each line shows as soon as its probe ends.
        let check = agon_cli::doctor::check_all(&[model], &mut probe, &endpoint, agon_cli::doctor::now()).remove(0);
        safe_println!("  {}  {}: {}", if check.healthy { "ok  " } else { "dead" }, check.model, check.detail);
        checks.push(check);
    }
    let dead = checks.iter().filter(|c| !c.healthy).count();
    if let Some(dir) = agon_cli::engine::cache_dir() {
        let mut cache = agon_cli::doctor::HealthCache::load(&dir);
        cache.record(&checks);
        match cache.save(&dir) {
            Ok(()) => safe_println!(
                "{} of {} answered; kept for a day in {}: `agon run` leaves out dead seats until then",
                checks.len() - dead,
                checks.len(),
                agon_cli::doctor::HealthCache::path(&dir).display()
            ),
            Err(e) => eprintln!("agon: could not keep the results: {e}"),
        }
    }
    Ok(if dead == 0 { exit::OK } else { exit::FAILURE })
}
