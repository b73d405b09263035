//! What this machine can seat without any configuration (seed 004's
//! preflight): the coding agents' CLIs on PATH, the providers whose keys are
//! set, and the local model servers that answer. `agon doctor` lists it;
//! `agon run` without a panel builds one from it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::provider::{Environment, PRESETS, Wire, command};

/// One thing found, with what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Found {
    /// A coding agent's CLI, seated as `cmd/NAME`.
    Program { name: String, path: PathBuf, version: Option<String> },
    /// A hosted provider whose key variable is set.
    Key { provider: String, variable: String },
    /// A local server that answered, with the models it serves.
    Server { provider: String, url: String, models: Vec<String> },
}

impl Found {
    /// The model references it offers a panel, best first.
    pub fn models(&self) -> Vec<String> {
        match self {
            Found::Program { name, .. } => vec![format!("cmd/{name}")],
            Found::Key { .. } => Vec::new(),
            Found::Server { provider, models, .. } => models.iter().map(|m| format!("{provider}/{m}")).collect(),
        }
    }

    /// One line: what it is, and the next step.
    pub fn line(&self) -> String {
        match self {
            Found::Program { name, path, version } => format!(
                "program  cmd/{name}: {}{} · seat it with --panel cmd/{name}",
                path.display(),
                version.as_deref().map(|v| format!(" ({v})")).unwrap_or_default()
            ),
            Found::Key { provider, variable } => format!(
                "key      {provider}: {variable} is set · pick a model with `agon models {provider}/`, then --panel {provider}/MODEL"
            ),
            Found::Server { provider, url, models } => match models.first() {
                Some(first) => {
                    format!("server   {provider} at {url}: {} model(s) · e.g. --panel {provider}/{first}", models.len())
                }
                None => format!("server   {provider} at {url}: answers, but serves no model yet"),
            },
        }
    }
}

/// A local server's address and the models it serves, when it answers.
pub type Served = Option<(String, Vec<String>)>;

/// Where discovery looks; the real machine in [`discover`], a stand-in in tests.
pub struct Machine<'a> {
    /// An environment variable, when set and not empty.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The program's path, when it is on PATH.
    pub program: &'a dyn Fn(&str) -> Option<PathBuf>,
    /// What `PROGRAM --version` prints first.
    pub version: &'a dyn Fn(&Path) -> Option<String>,
    /// The models a local provider's server serves, when it answers.
    pub served: &'a dyn Fn(&str) -> Served,
}

/// Everything found, programs first, then keys, then local servers.
pub fn find(machine: &Machine<'_>) -> Vec<Found> {
    let mut found = Vec::new();
    for name in command::builtin().into_keys() {
        if let Some(path) = (machine.program)(&name) {
            let version = (machine.version)(&path);
            found.push(Found::Program { name, path, version });
        }
    }
    for preset in PRESETS.iter().filter(|p| p.key_required) {
        if let Some(variable) = preset.key_var.filter(|v| (machine.var)(v).is_some()) {
            found.push(Found::Key { provider: preset.name.into(), variable: variable.into() });
        }
    }
    for preset in PRESETS.iter().filter(|p| !p.key_required && p.wire != Wire::Command) {
        if let Some((url, models)) = (machine.served)(preset.name) {
            found.push(Found::Server { provider: preset.name.into(), url, models });
        }
    }
    found
}

/// A panel from what was found: up to three different models, programs
/// (each another vendor's agent) first, then local servers' models. None
/// when nothing can be seated without a choice of model.
pub fn panel(found: &[Found]) -> Option<Vec<String>> {
    let mut models: Vec<String> = Vec::new();
    for model in found.iter().flat_map(Found::models) {
        if !models.contains(&model) && models.len() < 3 {
            models.push(model);
        }
    }
    (!models.is_empty()).then_some(models)
}

/// The one line said when nothing was found: the next steps.
pub const NOTHING_FOUND: &str = "no panel given and none found: give one with --panel provider/model,… (e.g. \
--panel openai/gpt-5-mini with OPENAI_API_KEY set), set [defaults] panel in agon.toml, start a local server \
(Ollama, llama.cpp, LM Studio), or run scripts/demo.sh for the embedded local model";

/// This machine, as it is: PATH, the environment, local servers asked for
/// their models (each given `timeout`), programs asked for their version.
pub fn discover(env: &Environment, timeout: Duration) -> Vec<Found> {
    discover_with(env, timeout, true)
}

/// [`discover`] without programs: nothing on PATH is looked for, so nothing
/// is run, not even for its version (`agon mcp` without `--allow-programs`).
pub fn discover_without_programs(env: &Environment, timeout: Duration) -> Vec<Found> {
    discover_with(env, timeout, false)
}

fn discover_with(env: &Environment, timeout: Duration, programs: bool) -> Vec<Found> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let served = |provider: &str| {
        let endpoint = env.endpoint(provider)?;
        let models = endpoint.served_models(timeout)?;
        Some((endpoint.base_url.clone(), models))
    };
    // Programs only from PATH's absolute entries, their version asked within `timeout`.
    let program = |name: &str| if programs { crate::programs::on_path(name) } else { None };
    let version = |path: &Path| crate::programs::version(path, timeout);
    find(&Machine { var: &var, program: &program, version: &version, served: &served })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine_with<'a>(
        var: &'a dyn Fn(&str) -> Option<String>,
        program: &'a dyn Fn(&str) -> Option<PathBuf>,
        served: &'a dyn Fn(&str) -> Served,
    ) -> Machine<'a> {
        Machine { var, program, version: &|_| Some("1.0".into()), served }
    }

    #[test]
    fn finds_programs_keys_and_servers_and_makes_a_panel_of_different_models() {
        let var = |v: &str| (v == "ANTHROPIC_API_KEY").then(|| "sk".to_string());
        let program = |p: &str| (p == "codex" || p == "gemini").then(|| PathBuf::from(format!("/usr/bin/{p}")));
        let served = |p: &str| {
            (p == "ollama").then(|| ("http://127.0.0.1:11434".to_string(), vec!["llama3.2".into(), "qwen3".into()]))
        };
        let found = find(&machine_with(&var, &program, &served));
        let lines: Vec<String> = found.iter().map(Found::line).collect();
        assert_eq!(found.len(), 4, "{lines:#?}");
        assert!(lines[0].starts_with("program  cmd/codex: /usr/bin/codex (1.0)"), "{lines:#?}");
        assert!(lines[2].contains("anthropic: ANTHROPIC_API_KEY is set"), "{lines:#?}");
        assert!(lines[3].contains("ollama at http://127.0.0.1:11434: 2 model(s)"), "{lines:#?}");
        assert_eq!(panel(&found).unwrap(), ["cmd/codex", "cmd/gemini", "ollama/llama3.2"]);
    }

    #[test]
    fn a_key_alone_makes_no_panel_and_nothing_found_says_what_to_do() {
        let var = |v: &str| (v == "OPENAI_API_KEY").then(|| "sk".to_string());
        let found = find(&machine_with(&var, &|_| None, &|_| None));
        assert_eq!(found.len(), 1);
        assert_eq!(panel(&found), None, "a key does not say which model");
        assert_eq!(panel(&find(&machine_with(&|_| None, &|_| None, &|_| None))), None);
        assert!(NOTHING_FOUND.contains("--panel") && NOTHING_FOUND.contains("scripts/demo.sh"));
    }
}
