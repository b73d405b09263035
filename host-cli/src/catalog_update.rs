//! `agon models --update`: models.dev's newest catalog, fetched over HTTPS,
//! checked, trimmed by the same rule as the shipped snapshot
//! (agon-catalog), and kept in agon's data folder, where every later run
//! reads it. The snapshot stays the offline fallback: a document that does
//! not check out is refused and the catalog in use stays as it was.

use std::io::Read;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::catalog::{self, MODELS_DEV_URL};

/// The address fetched: `AGON_MODELS_URL` where set (a mirror, or a test's
/// local server), else models.dev's.
pub fn url() -> String {
    std::env::var("AGON_MODELS_URL").ok().filter(|u| !u.trim().is_empty()).unwrap_or_else(|| MODELS_DEV_URL.into())
}

/// models.dev's catalog is about a megabyte; far more is no catalog.
const MAX_BYTES: u64 = 64 << 20;

/// A real catalog keeps well over this many models of agon's providers
/// (135 in the shipped snapshot); fewer is a document cut short or emptied.
const FEWEST_MODELS: usize = 50;

/// What an update did.
#[derive(Debug)]
pub struct Updated {
    pub path: std::path::PathBuf,
    pub models: usize,
    /// Models the catalog in use before did not know.
    pub added: Vec<String>,
    /// Models whose price changed.
    pub repriced: Vec<String>,
    /// What the document says against the providers' known behaviour (set right).
    pub notes: Vec<String>,
}

/// Fetch, check, trim and keep models.dev's catalog.
pub fn update(url: &str) -> Result<Updated, String> {
    let path = catalog::store_path().ok_or("no data folder: set AGON_DATA_DIR, XDG_DATA_HOME or HOME")?;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into();
    let response = agent.get(url).call().map_err(|e| format!("cannot fetch {url}: {e}"))?;
    let status = response.status().as_u16();
    if status != 200 {
        return Err(format!("HTTP {status} from {url}"));
    }
    let mut body = Vec::new();
    response
        .into_body()
        .as_reader()
        .take(MAX_BYTES + 1)
        .read_to_end(&mut body)
        .map_err(|e| format!("the catalog from {url} broke off: {e}"))?;
    if body.len() as u64 > MAX_BYTES {
        return Err(format!("{url} sent more than {} MiB: no catalog is that large", MAX_BYTES >> 20));
    }
    let api: serde_json::Value =
        serde_json::from_slice(&body).map_err(|e| format!("{url} sent no JSON catalog: {e}"))?;
    let trimmed = agon_catalog::trim(&api).map_err(|e| format!("{url}'s catalog is not models.dev's shape: {e}"))?;
    if trimmed.models.len() < FEWEST_MODELS {
        return Err(format!(
            "{url}'s catalog keeps {} models of agon's providers, fewer than any real one ({FEWEST_MODELS} at least): not taken",
            trimmed.models.len()
        ));
    }
    for prefix in ["anthropic/", "openai/", "gemini/"] {
        if !trimmed.models.keys().any(|k| k.starts_with(prefix)) {
            return Err(format!("{url}'s catalog has no {prefix} model: not taken"));
        }
    }
    let today = crate::sessions::utc_stamp(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()));
    let date = format!("{}-{}-{}", &today[..4], &today[4..6], &today[6..8]);
    let header = agon_catalog::Header { package: format!("fetched from {url}"), snapshot: date };
    let text = agon_catalog::render(&header, &trimmed.models);
    let fresh = agon_core::Catalog::from_json(&text).map_err(|e| format!("the trimmed catalog does not read: {e}"))?;
    let before = catalog::catalog();
    let added: Vec<String> = fresh.models.keys().filter(|k| !before.models.contains_key(*k)).cloned().collect();
    let repriced: Vec<String> = fresh
        .models
        .iter()
        .filter(|(k, e)| before.models.get(*k).is_some_and(|old| old.price != e.price))
        .map(|(k, _)| k.clone())
        .collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // Whole or not at all: a run reading it meanwhile sees the old one or the new.
    let partial = path.with_extension("json.partial");
    std::fs::write(&partial, &text).map_err(|e| format!("cannot write {}: {e}", partial.display()))?;
    std::fs::rename(&partial, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Updated { path, models: fresh.models.len(), added, repriced, notes: trimmed.problems })
}
