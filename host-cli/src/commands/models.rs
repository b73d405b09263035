//! `agon models`: the model catalog as this run sees it — the one
//! `agon models --update` fetched, else the shipped snapshot, with its date
//! and source, and agon.toml's own facts on top; `--update` fetches it.

use std::collections::BTreeMap;

use agon_cli::config::Config;
use agon_cli::safe_println;
use agon_cli::{catalog, catalog_update, safe_eprintln};
use agon_core::CatalogEntry;
use anyhow::Result;

use super::exit;

/// `agon models --update`: fetch, check and keep models.dev's newest catalog.
pub fn update() -> Result<u8> {
    let url = catalog_update::url();
    match catalog_update::update(&url) {
        Ok(done) => {
            for note in &done.notes {
                safe_eprintln!("agon: note: {note}");
            }
            let list = |names: &[String]| match names.len() {
                0 => "none".to_string(),
                n if n <= 8 => names.join(", "),
                n => format!("{}, and {} more", names[..8].join(", "), n - 8),
            };
            safe_println!(
                "{} models from {url}, kept in {}: every run uses them from now on (the shipped snapshot of {} is the fallback)",
                done.models,
                done.path.display(),
                catalog::shipped_date()
            );
            safe_println!("new: {}", list(&done.added));
            safe_println!("new prices: {}", list(&done.repriced));
            Ok(exit::OK)
        }
        Err(why) => {
            safe_eprintln!("agon: {why}; the catalog in use is unchanged");
            Ok(exit::FAILURE)
        }
    }
}

pub fn models(config: &Config, filter: Option<&str>, json: bool) -> Result<u8> {
    let in_use = catalog::in_use();
    if let Some(why) = &in_use.unreadable {
        safe_eprintln!("agon: note: {why}");
    }
    let snapshot = &in_use.catalog;
    let overrides = catalog::overrides(config);
    // Every model the snapshot or the user names, each with the user's facts on top.
    let mut rows: BTreeMap<&str, (CatalogEntry, bool)> = BTreeMap::new();
    for (model, entry) in &snapshot.models {
        rows.insert(model, (*entry, false));
    }
    for model in overrides.keys() {
        let entry = snapshot.resolve(model, &overrides).unwrap_or_default();
        rows.insert(model, (entry, true));
    }
    let shown: Vec<(&str, CatalogEntry, bool)> = rows
        .into_iter()
        .filter(|(m, _)| filter.is_none_or(|f| m.contains(f)))
        .map(|(m, (e, own))| (m, e, own))
        .collect();
    if json {
        for (model, entry, own) in &shown {
            let mut line = serde_json::to_value(entry)?;
            line["model"] = serde_json::json!(model);
            if *own {
                line["from_agon_toml"] = serde_json::json!(true);
            }
            safe_println!("{line}");
        }
        return Ok(exit::OK);
    }
    let which = match &in_use.file {
        Some(path) => format!(
            "the catalog fetched {} ({}, kept in {}; the shipped snapshot of {} is the fallback)",
            snapshot.snapshot,
            snapshot.package,
            path.display(),
            catalog::shipped_date()
        ),
        None => format!(
            "the shipped snapshot of {} ({}; `agon models --update` fetches the newest)",
            snapshot.snapshot, snapshot.package
        ),
    };
    safe_println!(
        "{} models from {} ({}): {which}{}",
        shown.len(),
        snapshot.source,
        snapshot.licence,
        if overrides.is_empty() { "" } else { "; * marks agon.toml's [models] or [prices]" }
    );
    safe_println!(
        "{:<44} {:>9} {:>5} {:>9} {:>8} {:>8} {:>8}",
        "model",
        "reasoning",
        "temp",
        "context",
        "output",
        "$in/M",
        "$out/M"
    );
    let number = |n: Option<u32>| n.map_or("-".to_string(), |n| n.to_string());
    let price = |p: Option<f64>| p.map_or("-".to_string(), |p| format!("{p}"));
    for (model, e, own) in shown {
        let yes = |b: Option<bool>| match b {
            Some(true) => "yes",
            Some(false) => "no",
            None => "?",
        };
        safe_println!(
            "{:<44} {:>9} {:>5} {:>9} {:>8} {:>8} {:>8}",
            format!("{model}{}", if own { " *" } else { "" }),
            yes(e.reasoning),
            yes(e.temperature),
            number(e.context),
            number(e.max_output),
            price(e.price.map(|p| p.input)),
            price(e.price.map(|p| p.output)),
        );
    }
    Ok(exit::OK)
}
