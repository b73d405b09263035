//! `agon doctor`: a tiny live call to every configured model, what works,
//! what does not and how to fix it. The results are kept for a day, and
//! `agon run` leaves out the seats found dead, with a warning, instead of
//! paying for a debate that loses them halfway. A verdict holds for one model
//! at one endpoint: the same model name behind another URL is another seat.
//! A refused key (HTTP 401 or 403) is never kept: it says nothing about the
//! model, and once the key is fixed the seat must be back at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::{Config, PanelChoice};
use crate::engine::wit;
use crate::host;
use crate::provider::{self, CallOptions, Environment, ModelRef};

/// How long a probe's verdict is trusted.
pub const FRESH_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// What one probe found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub model: String,
    /// Where the model was asked: the base URL as shown (never a credential),
    /// or the program of a command model.
    #[serde(default)]
    pub endpoint: String,
    pub healthy: bool,
    /// On success the latency, on failure what went wrong and how to fix it.
    pub detail: String,
    /// Seconds since the Unix epoch.
    pub checked_at: u64,
}

impl Check {
    /// The probe failed because the provider refused the key: a verdict on
    /// the credential, not on the model, so it is shown but never kept.
    pub fn key_refused(&self) -> bool {
        !self.healthy && provider::refuses_credential(&self.detail)
    }
}

/// The models worth probing: every one the configuration names (panels,
/// judges, defaults, command models), then those given on the command line.
pub fn targets(config: &Config, extra: &[String]) -> Vec<String> {
    let mut models: Vec<String> = Vec::new();
    let mut add = |m: &str| {
        for alternative in m.split('|').map(str::trim).filter(|a| !a.is_empty()) {
            if !models.iter().any(|x| x == alternative) {
                models.push(alternative.to_string());
            }
        }
    };
    if let Some(PanelChoice::Models(list)) = &config.defaults.panel {
        list.iter().for_each(|m| add(m));
    }
    if let Some(j) = &config.defaults.judge {
        add(j);
    }
    for panel in config.panels.values() {
        panel.models.iter().chain(&panel.judge).for_each(|m| add(m));
    }
    for name in config.commands.keys() {
        add(&format!("cmd/{name}"));
    }
    extra.iter().for_each(|m| add(m));
    models
}

/// What a healthy probe did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The model answered the tiny call.
    Answered,
    /// A person (`human/NAME`): nobody is asked; they answer at the terminal during a run.
    Person,
    /// The calling MCP client (`mcp/client`): there is none to ask outside a tool call.
    Client,
}

/// Where `model` would be asked, for the cache's key: see [`Check::endpoint`].
pub fn endpoint_of(model: &str, env: &Environment) -> String {
    match ModelRef::parse(model) {
        Ok(r) if r.provider == "cmd" => env.commands.get(&r.model).map_or("cmd".into(), |c| c.program.clone()),
        Ok(r) if r.provider == provider::human::PROVIDER => "the terminal".into(),
        Ok(r) if r.provider == provider::client_model::PROVIDER => "the MCP client".into(),
        Ok(r) => env.endpoint(&r.provider).map_or_else(String::new, |e| e.base_url.clone()),
        Err(_) => String::new(),
    }
}

/// Probe each model with `probe` (which returns the failure's explanation);
/// `endpoint` says where each model lives.
pub fn check_all(
    models: &[String],
    probe: &mut dyn FnMut(&str) -> Result<Probe, String>,
    endpoint: &dyn Fn(&str) -> String,
    now: u64,
) -> Vec<Check> {
    models
        .iter()
        .map(|model| {
            let started = Instant::now();
            let (healthy, detail) = match probe(model) {
                Ok(Probe::Answered) => (true, format!("answered in {} ms", started.elapsed().as_millis())),
                Ok(Probe::Person) => (true, "a person at the terminal (not asked)".to_string()),
                Ok(Probe::Client) => {
                    (true, "the calling MCP client, through sampling, in agon mcp only (not asked)".to_string())
                }
                Err(why) => (false, why),
            };
            Check { model: model.clone(), endpoint: endpoint(model), healthy, detail, checked_at: now }
        })
        .collect()
}

/// The cache's key of a model at an endpoint.
fn key(model: &str, endpoint: &str) -> String {
    format!("{model} @ {endpoint}")
}

/// The last verdict for each model, kept in the cache directory.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct HealthCache {
    pub checks: BTreeMap<String, Check>,
}

impl HealthCache {
    pub fn path(cache_dir: &Path) -> PathBuf {
        cache_dir.join("doctor.json")
    }

    /// A missing or unreadable cache is an empty one: it only ever saves calls.
    pub fn load(cache_dir: &Path) -> HealthCache {
        std::fs::read_to_string(HealthCache::path(cache_dir))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Keep each check's verdict, but for a refused key: that one forgets
    /// what was known of the model there (it could not be asked).
    pub fn record(&mut self, checks: &[Check]) {
        for c in checks {
            if c.key_refused() {
                self.checks.remove(&key(&c.model, &c.endpoint));
            } else {
                self.checks.insert(key(&c.model, &c.endpoint), c.clone());
            }
        }
    }

    pub fn save(&self, cache_dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(cache_dir)?;
        let path = HealthCache::path(cache_dir);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec_pretty(self)?)?;
        std::fs::rename(tmp, path)
    }

    /// The recent failure of `model` at `endpoint`, if the last probe there (within a day) found it dead.
    /// A refused key kept by an older agon is no such verdict.
    pub fn dead(&self, model: &str, endpoint: &str, now: u64) -> Option<&Check> {
        self.checks
            .get(&key(model, endpoint))
            .filter(|c| !c.healthy && !c.key_refused() && now.saturating_sub(c.checked_at) < FRESH_FOR.as_secs())
    }

    /// Leave out of `panel` the models found dead in the last day: a fallback
    /// chain loses its dead alternatives, a seat whose every alternative is dead
    /// goes. At least `keep` seats always stay (the protocol needs them; they
    /// may have recovered). `endpoint` says where each model lives now.
    /// Returns a warning per change.
    pub fn prune(
        &self,
        panel: &mut Vec<String>,
        keep: usize,
        now: u64,
        endpoint: &dyn Fn(&str) -> String,
    ) -> Vec<String> {
        let mut warnings = Vec::new();
        let mut pruned: Vec<(String, Option<String>)> = Vec::new();
        let dead = |m: &str| self.dead(m, &endpoint(m), now);
        for seat in panel.iter() {
            let alternatives: Vec<&str> = seat.split('|').map(str::trim).collect();
            let alive: Vec<&str> = alternatives.iter().copied().filter(|m| dead(m).is_none()).collect();
            let why = |m: &str| dead(m).map(|c| c.detail.clone()).unwrap_or_default();
            if alive.is_empty() {
                pruned.push((seat.clone(), Some(why(alternatives[0]))));
            } else {
                if alive.len() < alternatives.len() {
                    for m in alternatives.iter().filter(|m| !alive.contains(m)) {
                        warnings
                            .push(format!("agon: skipping {m} in '{seat}': `agon doctor` found it dead ({})", why(m)));
                    }
                }
                pruned.push((alive.join("|"), None));
            }
        }
        let alive_seats = pruned.iter().filter(|(_, dead)| dead.is_none()).count();
        let dead: Vec<&str> = pruned.iter().filter(|(_, d)| d.is_some()).map(|(s, _)| s.as_str()).collect();
        if dead.is_empty() {
            *panel = pruned.into_iter().map(|(s, _)| s).collect();
            return warnings;
        }
        if alive_seats < keep {
            warnings.push(format!(
                "agon: `agon doctor` found {} dead, but the protocol needs {keep} seats: keeping them; run `agon doctor` again to recheck",
                dead.join(", ")
            ));
            return warnings;
        }
        for (seat, dead) in &pruned {
            if let Some(why) = dead {
                warnings.push(format!(
                    "agon: leaving out the seat {seat}: `agon doctor` found it dead ({why}); run `agon doctor` to recheck"
                ));
            }
        }
        *panel = pruned.into_iter().filter(|(_, dead)| dead.is_none()).map(|(s, _)| s).collect();
        warnings
    }
}

/// One tiny live call: eight tokens at most, no streaming, a short timeout.
/// A command model is run too, with the same prompt and timeout (its own
/// `timeout` in agon.toml does not apply: a probe is meant to be quick).
/// The error says what failed and what to do about it.
pub fn live_probe(model: &str, env: &Environment, timeout: Duration) -> Result<Probe, String> {
    let reference = ModelRef::parse(model)?;
    if reference.provider == provider::human::PROVIDER {
        return Ok(Probe::Person);
    }
    if reference.provider == provider::client_model::PROVIDER {
        return Ok(Probe::Client);
    }
    host::preflight(&[model.to_string()], env)?;
    let request = wit::ModelRequest {
        id: 0,
        seat: "doctor".into(),
        model: model.into(),
        purpose: wit::Purpose::Turn,
        round: 0,
        phase: wit::Phase::Opening,
        messages: vec![wit::Message { role: wit::Role::User, content: "Reply with the word OK.".into() }],
        max_tokens: 8,
        temperature: 0.0,
        expect: None,
        reasoning: None,
        traits: crate::catalog::traits_of(model),
        cache_marks: Vec::new(),
    };
    let options = CallOptions::new(timeout, false);
    if reference.provider == "cmd" {
        let mut cmd = env
            .commands
            .get(&reference.model)
            .cloned()
            .ok_or_else(|| format!("no command model '{}'", reference.model))?;
        cmd.timeout = Some(timeout);
        let how = std::iter::once(cmd.program.as_str())
            .chain(cmd.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        return provider::command::complete(&cmd, &request, options, &mut |_| {}).map(|_| Probe::Answered).map_err(|e| {
            match e.kind {
                wit::FailureKind::Timeout => format!(
                    "{}: raise `agon doctor --timeout`, or run `{how}` by hand: a program waiting for a login or a question never answers here",
                    e.message
                ),
                _ if e.message.contains("not on PATH") => e.message,
                _ => format!("{}: run `{how}` by hand to see why (a missing login or key is the usual cause)", e.message),
            }
        });
    }
    match provider::complete(env, &reference, &request, options, &mut |_| {}, &mut |_| {}) {
        // A reasoning model that spent the probe's few tokens thinking was
        // reached, and it answers: that is all a probe asks.
        Ok(_) => Ok(Probe::Answered),
        Err(e) if e.kind == wit::FailureKind::TokenLimit => Ok(Probe::Answered),
        Err(e) => Err(e.message),
    }
}

pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(model: &str, healthy: bool, at: u64) -> Check {
        Check {
            model: model.into(),
            endpoint: ENDPOINT.into(),
            healthy,
            detail: format!("{model} detail"),
            checked_at: at,
        }
    }

    const ENDPOINT: &str = "http://127.0.0.1:9/v1";

    fn here(_: &str) -> String {
        ENDPOINT.into()
    }

    fn cache(checks: &[Check]) -> HealthCache {
        let mut c = HealthCache::default();
        c.record(checks);
        c
    }

    const DAY: u64 = 24 * 60 * 60;

    #[test]
    fn targets_come_from_the_configuration_and_the_command_line() {
        let config = Config::parse(
            "[defaults]\njudge = \"openai/j\"\n[panels.p]\nmodels = [\"openai/a\", \"gemini/b|openrouter/c\"]\njudge = \"openai/a\"\n[commands.mine]\nprogram = \"mine\"\n",
            Path::new("agon.toml"),
        )
        .unwrap();
        assert_eq!(
            targets(&config, &["ollama/x".into(), "openai/a".into()]),
            ["openai/j", "openai/a", "gemini/b", "openrouter/c", "cmd/mine", "ollama/x"]
        );
    }

    #[test]
    fn probes_report_each_model() {
        let mut probe = |m: &str| match m {
            "openai/dead" => Err("HTTP 401 (check OPENAI_API_KEY)".into()),
            "human/me" => Ok(Probe::Person),
            _ => Ok(Probe::Answered),
        };
        let checks = check_all(&["openai/ok".into(), "openai/dead".into(), "human/me".into()], &mut probe, &here, 100);
        assert!(checks[0].healthy && checks[0].detail.starts_with("answered in"));
        assert_eq!((checks[1].healthy, checks[1].detail.as_str()), (false, "HTTP 401 (check OPENAI_API_KEY)"));
        assert_eq!(checks[2].detail, "a person at the terminal (not asked)", "never 'answered in 0 ms'");
        assert_eq!(checks[0].endpoint, ENDPOINT);
    }

    #[test]
    fn dead_seats_are_left_out_for_a_day() {
        let c = cache(&[check("openai/a", true, 0), check("openai/b", false, 0), check("openai/c", false, 0)]);
        let mut panel = vec!["openai/a".to_string(), "openai/b".into(), "openai/d".into()];
        let warnings = c.prune(&mut panel, 2, 10, &here);
        assert_eq!(panel, ["openai/a", "openai/d"]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("openai/b") && warnings[0].contains("openai/b detail"), "{warnings:?}");

        // A day later the verdict is stale: nobody is left out.
        let mut panel = vec!["openai/a".to_string(), "openai/b".into(), "openai/d".into()];
        assert!(c.prune(&mut panel, 2, DAY + 1, &here).is_empty());
        assert_eq!(panel.len(), 3);
    }

    #[test]
    fn a_model_dead_at_one_endpoint_is_not_dead_at_another() {
        let c = cache(&[check("openai/b", false, 0)]);
        let mut panel = vec!["openai/a".to_string(), "openai/b".into(), "openai/d".into()];
        let elsewhere = |_: &str| "http://other.example/v1".to_string();
        assert!(c.prune(&mut panel, 2, 10, &elsewhere).is_empty());
        assert_eq!(panel.len(), 3);
    }

    #[test]
    fn fallback_chains_lose_only_their_dead_alternatives() {
        let c = cache(&[check("gemini/x", false, 0)]);
        let mut panel = vec!["gemini/x|openrouter/y".to_string(), "openai/a".into()];
        let warnings = c.prune(&mut panel, 2, 1, &here);
        assert_eq!(panel, ["openrouter/y", "openai/a"]);
        assert!(warnings[0].contains("skipping gemini/x"), "{warnings:?}");
    }

    #[test]
    fn never_below_what_the_protocol_needs() {
        let c = cache(&[check("openai/b", false, 0)]);
        let mut panel = vec!["openai/a".to_string(), "openai/b".into()];
        let warnings = c.prune(&mut panel, 2, 1, &here);
        assert_eq!(panel, ["openai/a", "openai/b"], "kept: two seats are needed");
        assert!(warnings[0].contains("keeping them"), "{warnings:?}");

        // A panel already smaller than that, with nobody dead: nothing to say.
        let mut panel = vec!["openai/a".to_string()];
        assert!(c.prune(&mut panel, 2, 1, &here).is_empty());
        assert_eq!(panel, ["openai/a"]);
    }

    /// A wrong key gets 401: fixed, the seat must not stay out for a day.
    #[test]
    fn a_refused_key_is_never_kept_as_a_dead_model() {
        let refused = |model: &str| Check {
            detail: format!(
                "HTTP 401 from {ENDPOINT}/chat/completions (check OPENAI_API_KEY): Incorrect API key provided"
            ),
            ..check(model, false, 0)
        };
        let mut c = cache(&[check("openai/b", false, 0), check("openai/c", true, 0)]);
        c.record(&[refused("openai/b"), refused("openai/c"), refused("openai/d")]);
        assert!(c.checks.is_empty(), "what was known there is forgotten, nothing new kept: {:?}", c.checks);

        // A cache written before this rule, with a refused key in it, leaves nobody out.
        let mut old = HealthCache::default();
        old.checks.insert(key("openai/b", ENDPOINT), refused("openai/b"));
        let mut panel = vec!["openai/a".to_string(), "openai/b".into(), "openai/d".into()];
        assert!(old.prune(&mut panel, 2, 10, &here).is_empty());
        assert_eq!(panel.len(), 3);
        // A model that is gone (404) stays a verdict.
        assert!(!check("openai/x", false, 0).key_refused());
    }

    #[test]
    fn the_cache_round_trips_and_a_broken_one_is_empty() {
        let dir = std::env::temp_dir().join(format!("agon-doctor-{}", std::process::id()));
        let c = cache(&[check("openai/b", false, 7)]);
        c.save(&dir).unwrap();
        assert_eq!(HealthCache::load(&dir).checks[&key("openai/b", ENDPOINT)], check("openai/b", false, 7));
        std::fs::write(HealthCache::path(&dir), "{not json").unwrap();
        assert!(HealthCache::load(&dir).checks.is_empty());
        let _ = std::fs::remove_dir_all(dir);
    }
}
