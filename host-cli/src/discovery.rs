//! What this machine can seat without any configuration (seed 004's
//! preflight): the coding agents' CLIs on PATH, the providers whose keys are
//! set, and the local model servers that answer. `agon doctor` lists it;
//! `agon run` without a panel builds one from it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::council::Council;
use crate::provider::{Environment, PRESETS, command};

/// One thing found, with what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Found {
    /// A coding agent's CLI, seated as `cmd/NAME`.
    Program { name: String, path: PathBuf, version: Option<String> },
    /// A hosted provider whose key variable is set.
    Key { provider: String, variable: String },
    /// A local server that answered, with the models it serves (by a short
    /// name: a GGUF file's stem, not its path) and the names it gave that
    /// are not a single model id, left out.
    Server {
        provider: String,
        url: String,
        models: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        rejected: Vec<String>,
    },
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
            Found::Server { provider, url, models, rejected } => {
                let left_out = if rejected.is_empty() {
                    String::new()
                } else {
                    // Shown as found, made safe, never seated.
                    let names: Vec<String> = rejected.iter().map(|n| format!("{n:?}")).collect();
                    format!(" · left out, not a single model id: {}", names.join(", "))
                };
                match models.first() {
                    Some(first) => format!(
                        "server   {provider} at {url}: {} ({} model(s)) · e.g. --panel {provider}/{first}{left_out}",
                        models.join(", "),
                        models.len()
                    ),
                    None => format!("server   {provider} at {url}: answers, but serves no usable model yet{left_out}"),
                }
            }
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
    for preset in PRESETS.iter().filter(|p| !p.key_required) {
        if let Some((url, names)) = (machine.served)(preset.name) {
            let (mut models, mut rejected) = (Vec::new(), Vec::new());
            for name in names {
                match model_id(&name) {
                    Some(id) if !models.contains(&id) => models.push(id),
                    Some(_) => {}
                    None => rejected.push(name.chars().take(80).collect()),
                }
            }
            found.push(Found::Server { provider: preset.name.into(), url, models, rejected });
        }
    }
    found
}

/// A name a server reported, as one model id agon may seat: a file path
/// (llama.cpp names its model by its GGUF file) by the file's stem, and
/// only names of letters, digits and `. _ : @ + - /` (no `|` that would
/// make a fallback chain, no `,` that would split a panel, no spaces or
/// controls), at most 128 characters. Anything else is data shown as
/// found, never a model reference.
pub fn model_id(name: &str) -> Option<String> {
    let name = name.trim();
    let looks_like_path = name.starts_with(['/', '~', '.']) || name.contains('\\') || name.ends_with(".gguf");
    let short = if looks_like_path {
        let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
        file.strip_suffix(".gguf").unwrap_or(file)
    } else {
        name
    };
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._:@+-/".contains(c);
    let ok = !short.is_empty()
        && short.len() <= 128
        && short.chars().all(allowed)
        && !short.starts_with(['-', '/', '.'])
        && !short.ends_with('/')
        && !short.contains("//");
    ok.then(|| short.to_string())
}

/// The council `agon run` seats from what was found, when given no panel:
/// the providers whose keys are set, by the catalog's rule ([`crate::council`]);
/// else every distinct model the local servers serve (up to three seats, a
/// fourth model judging; one model alone plays every part, said so); else
/// the coding agents' CLIs found (each another vendor's agent). None when
/// nothing can be seated without a choice of model.
pub fn council(found: &[Found]) -> Option<Council> {
    let keys: Vec<String> = found
        .iter()
        .filter_map(|f| if let Found::Key { provider, .. } = f { Some(provider.clone()) } else { None })
        .collect();
    if let Some(council) = crate::council::from_keys(&keys) {
        return Some(council);
    }
    let distinct = |kind: fn(&Found) -> bool| {
        let mut models: Vec<String> = Vec::new();
        for model in found.iter().filter(|f| kind(f)).flat_map(Found::models) {
            if !models.contains(&model) {
                models.push(model);
            }
        }
        models
    };
    let served = distinct(|f| matches!(f, Found::Server { .. }));
    match served.as_slice() {
        [] => {}
        [one] => {
            return Some(Council {
                panel: vec![one.clone(); 3],
                judge: Some(one.clone()),
                why: format!("the one local model found, {one}, plays every seat and judges"),
                one_model: true,
            });
        }
        many => {
            return Some(Council {
                panel: many.iter().take(3).cloned().collect(),
                judge: many.get(3).cloned(),
                why: format!("each distinct model the local servers serve ({} found)", many.len()),
                one_model: false,
            });
        }
    }
    let programs = distinct(|f| matches!(f, Found::Program { .. }));
    (!programs.is_empty()).then(|| Council {
        // One program alone plays every part, on purpose.
        one_model: programs.len() == 1,
        panel: programs.into_iter().take(3).collect(),
        judge: None,
        why: "the coding agents' CLIs found on PATH".to_string(),
    })
}

/// Fill what a request left to agon: with no panel, the council of what
/// this machine offers (`discover` is asked only then), its judge unless
/// one was chosen; with a panel and no judge, a judge off the panel where
/// the catalog knows one ([`crate::council::judge_for`]). Returns the line
/// to say before the run, or why nothing can be seated. Role-council's
/// seats are its roles: left alone.
pub fn fill(
    request: &mut crate::request::DebateRequest,
    discover: impl FnOnce() -> Vec<Found>,
) -> Result<Option<String>, String> {
    use crate::request::Judge;
    if request.protocol_name() == "role-council" || request.settings.roles.is_some() {
        return Ok(None);
    }
    if request.panel.is_empty() {
        let council = council(&discover()).ok_or(NOTHING_FOUND)?;
        if request.judge == Judge::Default
            && let Some(judge) = &council.judge
        {
            request.judge = Judge::Model(judge.clone());
        }
        if council.one_model && request.settings.diversity.is_none() {
            request.settings.diversity = Some(agon_core::Diversity::Off);
        }
        let judge = match &request.judge {
            Judge::Model(m) => m.clone(),
            Judge::Without => "none".into(),
            Judge::Default => format!("{}, the first seat's", council.panel[0]),
        };
        let line = format!(
            "agon: no panel given; seating {}: {} · judge {judge} · `agon doctor` lists what was found, --panel and --judge choose",
            council.why,
            council.panel.join(", ")
        );
        request.panel = council.panel;
        return Ok(Some(line));
    }
    if request.judge == Judge::Default
        && let Some(judge) = crate::council::judge_for(&request.panel)
    {
        let line = format!(
            "agon: judge {judge}, off the panel (the first seat's lab's next model by the catalog's rule; --judge chooses)"
        );
        request.judge = Judge::Model(judge);
        return Ok(Some(line));
    }
    Ok(None)
}

/// The panel [`council`] seats.
pub fn panel(found: &[Found]) -> Option<Vec<String>> {
    council(found).map(|c| c.panel)
}

/// The one line said when nothing was found: the next steps.
pub const NOTHING_FOUND: &str = "no panel given and none found: set a provider's key (OPENAI_API_KEY, \
ANTHROPIC_API_KEY, GEMINI_API_KEY…, or OPENROUTER_API_KEY for three labs at once) and agon seats a council of its models, give one with --panel provider/model,…, \
set [defaults] panel in agon.toml, start a local server (Ollama, llama.cpp, LM Studio), or run scripts/demo.sh for \
the embedded local model";

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
    fn finds_programs_keys_and_servers_and_seats_the_keys_first() {
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
        assert!(lines[3].contains("ollama at http://127.0.0.1:11434: llama3.2, qwen3 (2 model(s))"), "{lines:#?}");
        // A key seats its lab's models; nothing is run that nobody named.
        let c = council(&found).unwrap();
        assert!(c.panel.iter().all(|m| m.starts_with("anthropic/")), "{:?}", c.panel);
        // Without the key: the local models, each once, then the programs.
        let found = find(&machine_with(&|_| None, &program, &served));
        assert_eq!(panel(&found).unwrap(), ["ollama/llama3.2", "ollama/qwen3"]);
        let found = find(&machine_with(&|_| None, &program, &|_| None));
        assert_eq!(panel(&found).unwrap(), ["cmd/codex", "cmd/gemini"]);
    }

    #[test]
    fn a_key_alone_seats_a_council_and_nothing_found_says_what_to_do() {
        let var = |v: &str| (v == "OPENAI_API_KEY").then(|| "sk".to_string());
        let found = find(&machine_with(&var, &|_| None, &|_| None));
        let c = council(&found).unwrap();
        assert_eq!(c.panel.len(), 3, "{c:?}");
        assert!(c.judge.as_ref().is_some_and(|j| !c.panel.contains(j)), "{c:?}");
        assert_eq!(panel(&find(&machine_with(&|_| None, &|_| None, &|_| None))), None);
        assert!(NOTHING_FOUND.contains("--panel") && NOTHING_FOUND.contains("scripts/demo.sh"));
    }

    #[test]
    fn a_server_s_model_names_are_data_never_a_chain_or_a_path() {
        let served = |p: &str| {
            (p == "llamacpp").then(|| {
                let names = [
                    "local|openai/gpt-4o",
                    "/home/me/models/SmolLM2-135M-Instruct-Q8_0.gguf",
                    "a,b",
                    "two words",
                    "bad\u{1b}[31m",
                    "",
                    "qwen2.5:7b",
                    "meta-llama/Llama-3-8B",
                ];
                ("http://127.0.0.1:8080/v1".to_string(), names.map(String::from).to_vec())
            })
        };
        let found = find(&machine_with(&|_| None, &|_| None, &served));
        let Found::Server { models, rejected, .. } = &found[0] else { panic!("{found:?}") };
        assert_eq!(models, &["SmolLM2-135M-Instruct-Q8_0", "qwen2.5:7b", "meta-llama/Llama-3-8B"]);
        assert_eq!(rejected.len(), 5, "{rejected:?}");
        let c = council(&found).unwrap();
        assert!(c.panel.iter().all(|m| !m.contains('|') && m.starts_with("llamacpp/")), "{:?}", c.panel);
        let line = found[0].line();
        assert!(line.contains("left out, not a single model id") && !line.contains('\u{1b}'), "{line}");
        // One model alone plays every part, on purpose.
        let one =
            |p: &str| (p == "ollama").then(|| ("http://127.0.0.1:11434".to_string(), vec!["llama3.2".to_string()]));
        let c = council(&find(&machine_with(&|_| None, &|_| None, &one))).unwrap();
        assert!(c.one_model && c.panel == ["ollama/llama3.2"; 3], "{c:?}");
    }
}
