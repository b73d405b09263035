//! `agon.toml`: named panels, default protocol and options, role folders,
//! provider endpoints, command models and prices.
//!
//! Files are read in layers, as git and cargo do (see [`layers`]): your own
//! (`$XDG_CONFIG_HOME/agon/agon.toml` or `~/.config/agon/agon.toml`, or the
//! file `--config FILE` / `$AGON_CONFIG` names instead) always applies, and a
//! working folder's `./agon.toml` goes over it. Flags override the files; the
//! files override the built-in defaults. Keys never live here: a provider
//! names the environment variable that holds its key.
//!
//! A `./agon.toml` that is not in your own config folder is somebody else's
//! until `agon trust` says otherwise (see [`crate::trust`]): until then its
//! `[commands]`, `[providers]`, `[prices]`, `[models]`, `[seats]`,
//! `[protocols]` and `defaults.roles` are left out, a panel or judge of it
//! that names a `cmd/` model is refused, and it may only lower your limits
//! (rounds, tokens, thinking, the cost cap), never raise or remove one. Its
//! choices (protocol, panel, judge) still apply: they choose among your own
//! providers and keys, within your limits, and the worst case is printed first.

pub mod layers;
mod show;

pub use layers::{Layer, Narrowed, Standing};
pub use show::show;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agon_core::{ConsensusMode, QualityGate};
use serde::Deserialize;

pub use crate::options::PanelChoice;
use crate::options::{Combine, Options, PerSeat, ProtocolChoice};
pub use crate::provider::command::{CommandSettings, PromptVia};
use crate::request::{DebateRequest, Judge};

/// The whole file. Unknown keys are errors, so a typo is not silently ignored.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub defaults: Defaults,
    #[serde(default)]
    pub panels: BTreeMap<String, Panel>,
    /// Endpoint overrides by provider name (`openai`, `anthropic`, a preset such as `groq`, …).
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderSettings>,
    /// Command-line models, used as `cmd/NAME`.
    #[serde(default)]
    pub commands: BTreeMap<String, CommandSettings>,
    /// USD per million tokens, by model reference (`openai/gpt-4o`).
    #[serde(default)]
    pub prices: BTreeMap<String, PriceSettings>,
    /// Your own facts about models, over the catalog's, field by field
    /// (`[models."openai/o3"]`: `reasoning`, `temperature`, `context`,
    /// `max_output`, `price = { input, output, cache_read, cache_write }`).
    #[serde(default)]
    pub models: BTreeMap<String, agon_core::CatalogEntry>,
    /// A seat's own reasoning settings (`[seats.o3] effort = "high"`), over `defaults`.
    #[serde(default)]
    pub seats: BTreeMap<String, SeatSettings>,
    /// Your own protocols (`[protocols.NAME]`): protocol document files, used
    /// as `--protocol NAME`.
    #[serde(default)]
    pub protocols: BTreeMap<String, ProtocolSettings>,
    /// adversarial's auto-triggers (`[[triggers]]`), in order; `--trigger` replaces them.
    #[serde(default)]
    pub triggers: Vec<TriggerSettings>,
    /// `[review]`: the policy `agon review` decides its verdict by (`fail_at`, `confirmed_by`), under its flags.
    #[serde(default)]
    pub review: Option<agon_core::review::Policy>,
    /// Where this configuration was read from (not part of the file).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// Set when the file is a working folder's and not trusted: what was left out.
    #[serde(skip)]
    pub untrusted: Option<Untrusted>,
    /// The files read, yours first (see [`layers`]).
    #[serde(skip)]
    pub layers: Vec<Layer>,
    /// Which layer set each setting (`["defaults", "max_cost"]`, `["panels", "trio"]`).
    #[serde(skip)]
    pub origin: BTreeMap<Vec<String>, usize>,
    /// What an untrusted folder's file asked that would have raised a limit of yours.
    #[serde(skip)]
    pub narrowed: Vec<Narrowed>,
    /// An untrusted folder's `rounds` where you set none: used only up to the
    /// protocol's own default, which is known once the protocol is.
    #[serde(skip)]
    pub rounds_ceiling: Option<u32>,
}

/// A working folder's file that `agon trust` has not vouched for (as it is now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    /// It was trusted, then edited.
    pub changed: bool,
    /// The sections it set that are left out: `[commands]`, `[providers]`, …
    pub withheld: Vec<&'static str>,
}

/// Declares [`Defaults`] and how a higher layer's values replace a lower's,
/// from one list, so a key added to agon.toml is merged (and its origin
/// kept) without another line.
macro_rules! defaults {
    ($(#[$doc:meta])* pub struct Defaults { $($(#[$field_doc:meta])* pub $field:ident: Option<$ty:ty>,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        pub struct Defaults { $($(#[$field_doc])* pub $field: Option<$ty>,)* }

        impl Defaults {
            /// Every value `upper` sets replaces this one's; `given` hears each key so set.
            pub fn take_from(&mut self, upper: Defaults, mut given: impl FnMut(&'static str)) {
                $(if upper.$field.is_some() {
                    given(stringify!($field));
                    self.$field = upper.$field;
                })*
            }
        }
    };
}

defaults! {
/// Defaults for `run`, `spec` and `batch`; each is overridden by its flag.
pub struct Defaults {
    pub protocol: Option<String>,
    /// A panel name from `[panels]`, or model references.
    pub panel: Option<PanelChoice>,
    pub judge: Option<String>,
    pub rounds: Option<u32>,
    pub max_tokens: Option<u32>,
    pub judge_max_tokens: Option<u32>,
    pub temperature: Option<f64>,
    pub context_budget: Option<u32>,
    pub quality_gate: Option<QualityGate>,
    /// A folder of role files for role-council (relative to the config file).
    pub roles: Option<PathBuf>,
    /// Files every speaker reads (as `--file`: paths, globs relative to the
    /// working folder, `-`); `--file` replaces them.
    pub files: Option<Vec<String>>,
    /// Per-call timeout in seconds.
    pub timeout: Option<u64>,
    /// Refuse runs whose worst-case cost is above this (USD).
    pub max_cost: Option<f64>,
    /// How agreement is read, for the protocols that stop on it (others ignore it).
    pub consensus: Option<ConsensusMode>,
    /// The largest reply accepted: bytes, or text such as "4M" or "512K".
    pub max_reply: Option<SizeSetting>,
    /// The longest wait, in seconds, before trying a failed call again, asked for by the provider or not.
    pub max_retry_wait: Option<u64>,
    /// How hard reasoning models think: `low`, `medium` or `high`.
    pub effort: Option<agon_core::Effort>,
    /// Thinking tokens a reasoning model may spend beyond its reply.
    pub thinking: Option<u32>,
    /// A panel of one model, where the protocol needs several: `warn`, `strict` or `off`.
    pub diversity: Option<agon_core::Diversity>,
    /// Blind first answers, where the protocol would show round 1's turns to each other.
    pub blind: Option<bool>,
    /// How many seats must still be answering for the debate to go on.
    pub quorum: Option<u32>,
}
}

/// One seat's settings (`[seats.ID]`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SeatSettings {
    pub effort: Option<agon_core::Effort>,
    pub thinking: Option<u32>,
    /// The seat's field of expertise, beside its persona in its prompt.
    pub domain: Option<String>,
}

/// A size in agon.toml: a number of bytes, or text with a unit ("4M").
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(untagged)]
pub enum SizeSetting {
    Bytes(u64),
    Text(String),
}

impl SizeSetting {
    pub fn bytes(&self) -> Result<usize, String> {
        match self {
            SizeSetting::Bytes(n) => {
                usize::try_from(*n).map_err(|_| "too large".to_string()).and_then(|n| parse_reply_size(&n.to_string()))
            }
            SizeSetting::Text(t) => parse_reply_size(t),
        }
    }
}

/// `4M`, `512K`, `1G` (powers of 1024; `KiB`, `MB` and the like are read the
/// same) or plain bytes; zero is refused.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: usize = t[..digits].parse().map_err(|_| format!("'{text}': write a size such as 4M, 512K or 100000"))?;
    let unit = match t[digits..].trim().to_ascii_lowercase().trim_end_matches('b').trim_end_matches('i') {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        _ => return Err(format!("'{text}': the unit must be K, M or G")),
    };
    n.checked_mul(unit).ok_or_else(|| format!("'{text}' is too large")).and_then(at_least_one)
}

/// The largest `--max-reply`: a reply passes into the engine whole, and the
/// engine takes at most 128 MiB across one call (wasmtime's hostcall fuel),
/// the reply's events and transcript included. Past this a run would stop
/// with an internal error instead of a failed call it can resume from.
pub const MAX_REPLY_CEILING: usize = 32 << 20;

/// A reply size limit: [`parse_size`], at most [`MAX_REPLY_CEILING`].
pub fn parse_reply_size(text: &str) -> Result<usize, String> {
    let n = parse_size(text)?;
    if n > MAX_REPLY_CEILING {
        return Err(format!(
            "'{text}' is more than agon takes in one reply ({}): a reply that large is not an answer",
            crate::bounded::human(MAX_REPLY_CEILING as u64)
        ));
    }
    Ok(n)
}

fn at_least_one(n: usize) -> Result<usize, String> {
    if n == 0 { Err("must be more than zero".to_string()) } else { Ok(n) }
}

/// A named panel: its models, one per seat, and optionally its judge.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Panel {
    pub models: Vec<String>,
    pub judge: Option<String>,
}

/// An auto-trigger: compete when the question or context holds one of the
/// words or phrases (`any_of`), as the protocol's option `triggers` takes it.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TriggerSettings {
    pub name: String,
    pub any_of: Vec<String>,
}

/// A protocol of your own: its document's file (JSON, TOML or YAML), relative
/// to the configuration file.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProtocolSettings {
    pub file: PathBuf,
}

#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    pub base_url: Option<String>,
    /// The environment variable holding the key (never the key itself).
    pub key_env: Option<String>,
    /// The most calls in flight to this provider at once (a local server on one GPU: 1).
    pub concurrency: Option<usize>,
}

#[derive(Debug, Clone, Copy, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PriceSettings {
    /// USD per million input (prompt) tokens.
    pub input: f64,
    /// USD per million output (completion) tokens.
    pub output: f64,
    /// USD per million prompt tokens read from the provider's cache (`input` when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// USD per million prompt tokens written to the provider's cache (`input` when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl PriceSettings {
    /// Every rate set, by its key.
    fn rates(&self) -> impl Iterator<Item = f64> {
        [Some(self.input), Some(self.output), self.cache_read, self.cache_write].into_iter().flatten()
    }
}

impl Config {
    /// Parse a file's text; errors name the file, the line and the key.
    pub fn parse(text: &str, path: &Path) -> Result<Config, String> {
        let mut config: Config =
            toml::from_str(text).map_err(|e| format!("{}: {}", path.display(), e.to_string().trim_end()))?;
        config.path = Some(path.to_path_buf());
        config.check()?;
        if let Some(roles) = &config.defaults.roles
            && roles.is_relative()
        {
            config.defaults.roles = Some(path.parent().unwrap_or(Path::new(".")).join(roles));
        }
        for protocol in config.protocols.values_mut() {
            if protocol.file.is_relative() {
                protocol.file = path.parent().unwrap_or(Path::new(".")).join(&protocol.file);
            }
        }
        Ok(config)
    }

    /// Leave out what an untrusted file must not decide: programs to run,
    /// endpoints and key variables, prices, and role files (which name models).
    pub(crate) fn withhold(&mut self, changed: bool) {
        let mut withheld = Vec::new();
        if !std::mem::take(&mut self.commands).is_empty() {
            withheld.push("[commands]");
        }
        if !std::mem::take(&mut self.providers).is_empty() {
            withheld.push("[providers]");
        }
        if !std::mem::take(&mut self.prices).is_empty() {
            withheld.push("[prices]");
        }
        // A folder's facts could price a model at zero, past any cost limit.
        if !std::mem::take(&mut self.models).is_empty() {
            withheld.push("[models]");
        }
        // A document's file may be any file of yours, and its prompts go to the models.
        if !std::mem::take(&mut self.protocols).is_empty() {
            withheld.push("[protocols]");
        }
        // A seat's thinking and effort spend tokens: yours stay, a folder's are not added.
        if !std::mem::take(&mut self.seats).is_empty() {
            withheld.push("[seats]");
        }
        if self.defaults.roles.take().is_some() {
            withheld.push("defaults.roles");
        }
        // Files are read and sent to the models: a folder's file could name any of yours.
        if self.defaults.files.take().is_some() {
            withheld.push("defaults.files");
        }
        self.untrusted = Some(Untrusted { changed, withheld });
    }

    /// The lines to print when a working folder's file is not used in full:
    /// what of it is left out, and which of its limits were not allowed to
    /// raise yours.
    pub fn trust_notice(&self) -> Option<String> {
        let u = self.untrusted.as_ref()?;
        let file = self.path.as_ref().map_or("agon.toml".into(), |p| p.display().to_string());
        let mut lines = Vec::new();
        if !u.withheld.is_empty() {
            lines.push(format!(
                "agon: not using the {} of {file}: {}; read it, then run `agon trust` to use them",
                list(&u.withheld),
                if u.changed {
                    "it changed since you trusted it"
                } else {
                    "this folder's configuration is not trusted"
                }
            ));
        }
        for n in &self.narrowed {
            lines.push(format!("agon: {file} asks {n}"));
        }
        (!lines.is_empty()).then(|| lines.join("\n"))
    }

    /// Models taken from an untrusted file must not run programs.
    fn allowed_from_file(&self, models: &[String]) -> Result<(), String> {
        if self.untrusted.is_none() {
            return Ok(());
        }
        match models.iter().flat_map(|m| m.split('|')).map(str::trim).find(|m| m.starts_with("cmd/")) {
            Some(m) => Err(format!(
                "{} names {m}, a program to run, and this folder's configuration is not trusted: read it, then run `agon trust`",
                self.path.as_ref().map_or("agon.toml".into(), |p| p.display().to_string())
            )),
            None => Ok(()),
        }
    }

    /// What serde cannot say: references that point nowhere, numbers out of range.
    fn check(&self) -> Result<(), String> {
        let at = |key: &str| match &self.path {
            Some(p) => format!("{}: {key}", p.display()),
            None => key.to_string(),
        };
        if let Some(PanelChoice::Named(name)) = &self.defaults.panel
            && !name.contains('/')
            && !self.panels.contains_key(name)
        {
            let known: Vec<&str> = self.panels.keys().map(String::as_str).collect();
            return Err(format!(
                "{}: no panel named '{name}' in [panels] (known: {})",
                at("defaults.panel"),
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ));
        }
        // Model references: a typo is named where it is, not when a run reaches it.
        let model = |field: String, reference: &str| -> Result<(), String> {
            crate::provider::ModelRef::parse_chain(reference).map(|_| ()).map_err(|e| format!("{}: {e}", at(&field)))
        };
        for (name, panel) in &self.panels {
            if panel.models.is_empty() {
                return Err(format!("{}: a panel needs at least one model", at(&format!("panels.{name}.models"))));
            }
            for (i, m) in panel.models.iter().enumerate() {
                model(format!("panels.{name}.models[{i}]"), m)?;
            }
            if let Some(judge) = &panel.judge {
                model(format!("panels.{name}.judge"), judge)?;
            }
        }
        if let Some(judge) = &self.defaults.judge {
            model("defaults.judge".into(), judge)?;
        }
        if let Some(PanelChoice::Models(models)) = &self.defaults.panel {
            for (i, m) in models.iter().enumerate() {
                model(format!("defaults.panel[{i}]"), m)?;
            }
        }
        for (i, t) in self.triggers.iter().enumerate() {
            if t.name.trim().is_empty() {
                return Err(format!("{}: the trigger needs a name", at(&format!("triggers[{i}].name"))));
            }
            if t.any_of.is_empty() {
                return Err(format!("{}: give at least one word or phrase", at(&format!("triggers[{i}].any_of"))));
            }
            if let Some(j) = t.any_of.iter().position(|w| w.trim().is_empty()) {
                return Err(format!("{}: an empty phrase", at(&format!("triggers[{i}].any_of[{j}]"))));
            }
        }
        for (name, protocol) in &self.protocols {
            let words = name
                .split('-')
                .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
            if !words {
                return Err(format!(
                    "{}: name a protocol with lowercase words joined by hyphens",
                    at(&format!("protocols.{name}"))
                ));
            }
            if protocol.file.as_os_str().is_empty() {
                return Err(format!("{}: name the protocol document's file", at(&format!("protocols.{name}.file"))));
            }
        }
        for (model, price) in &self.prices {
            if !model.contains('/') {
                return Err(format!("{}: write the model as provider/model", at(&format!("prices.\"{model}\""))));
            }
            if !price.rates().all(|r| r >= 0.0 && r.is_finite()) {
                return Err(format!(
                    "{}: prices are USD per million tokens, zero or more",
                    at(&format!("prices.\"{model}\""))
                ));
            }
            // The dearest models cost hundreds of dollars per million tokens; more is a typo.
            if price.rates().any(|r| r > MAX_PRICE) {
                return Err(format!(
                    "{}: prices are USD per million tokens; above {MAX_PRICE} is surely a mistake",
                    at(&format!("prices.\"{model}\""))
                ));
            }
        }
        for name in self.providers.keys() {
            if !crate::provider::PRESETS.iter().any(|p| p.name == name) {
                return Err(format!(
                    "{}: no provider '{name}' (known: {})",
                    at(&format!("providers.{name}")),
                    crate::provider::PRESETS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        if let Err(e) = self.options().check() {
            return Err(format!("{}: {}", at(&format!("defaults.{}", e.key)), e.why));
        }
        if self.defaults.max_retry_wait == Some(0) {
            return Err(format!("{}: seconds, at least 1", at("defaults.max_retry_wait")));
        }
        if let Some(size) = &self.defaults.max_reply {
            size.bytes().map_err(|e| format!("{}: {e}", at("defaults.max_reply")))?;
        }
        for (name, command) in &self.commands {
            if command.timeout == Some(0) {
                return Err(format!("{}: seconds, at least 1", at(&format!("commands.{name}.timeout"))));
            }
        }
        for (name, command) in &self.commands {
            if command.program.trim().is_empty() {
                return Err(format!("{}: the program is empty", at(&format!("commands.{name}.program"))));
            }
        }
        Ok(())
    }

    /// This configuration as a layer of settings: `[defaults]`, with each
    /// seat's effort and thinking (`[seats]`) after the file's own.
    pub fn options(&self) -> Options {
        let d = &self.defaults;
        fn seated<T>(
            every: Option<T>,
            seats: &BTreeMap<String, SeatSettings>,
            each: impl Fn(&SeatSettings) -> Option<T>,
        ) -> Option<Vec<PerSeat<T>>> {
            let mut all: Vec<PerSeat<T>> = every.map(|value| PerSeat { seat: None, value }).into_iter().collect();
            all.extend(seats.iter().filter_map(|(id, s)| Some(PerSeat { seat: Some(id.clone()), value: each(s)? })));
            (!all.is_empty()).then_some(all)
        }
        Options {
            protocol: d.protocol.clone().map(ProtocolChoice::Named),
            panel: d.panel.clone(),
            judge: d.judge.clone().map(Judge::Model),
            rounds: d.rounds,
            max_tokens: d.max_tokens,
            judge_max_tokens: d.judge_max_tokens,
            temperature: d.temperature,
            context_budget: d.context_budget,
            quality_gate: d.quality_gate,
            roles: d.roles.clone(),
            files: d.files.clone(),
            max_cost: d.max_cost,
            effort: seated(d.effort, &self.seats, |s| s.effort),
            thinking: seated(d.thinking, &self.seats, |s| s.thinking),
            blind: d.blind,
            diversity: d.diversity,
            timeout: d.timeout,
            quorum: d.quorum,
        }
    }

    /// What was asked (`asked`: the flags or a tool call's arguments, over a
    /// followed-up session's settings) over this configuration, written into
    /// the request; returns the settings merged. A panel named in either is
    /// looked up in `[panels]`, and its judge stands between the one asked
    /// for and the file's.
    pub fn apply_to_request(&self, request: &mut DebateRequest, asked: &Options) -> Result<Options, String> {
        let file = self.options();
        let files_from_config = asked.files.is_none() && file.files.is_some();
        let panel_from_file = asked.panel.is_none();
        let judge_from_file = asked.judge.is_none();
        let mut merged = asked.clone().combine(file);
        let mut panel_judge = None;
        match merged.panel.take() {
            Some(PanelChoice::Named(name)) => {
                let Some(panel) = self.panels.get(&name) else {
                    let known: Vec<&str> = self.panels.keys().map(String::as_str).collect();
                    return Err(format!(
                        "--panel {name}: no such panel in {} (known: {}); or give models as provider/model,…",
                        self.path
                            .as_ref()
                            .map_or("the configuration (no agon.toml found)".into(), |p| p.display().to_string()),
                        if known.is_empty() { "none".to_string() } else { known.join(", ") }
                    ));
                };
                self.allowed_from_file(&panel.models)?;
                merged.panel = Some(PanelChoice::Models(panel.models.clone()));
                panel_judge = panel.judge.clone();
            }
            Some(PanelChoice::Models(models)) => {
                if panel_from_file {
                    self.allowed_from_file(&models)?;
                }
                merged.panel = Some(PanelChoice::Models(models));
            }
            None => {}
        }
        if judge_from_file && let Some(j) = panel_judge.or_else(|| self.defaults.judge.clone()) {
            self.allowed_from_file(std::slice::from_ref(&j))?;
            merged.judge = Some(Judge::Model(j));
        }
        request.take_settings(merged.clone());
        request.files_from_config = files_from_config;
        if merged.rounds.is_none()
            && request.protocol_file.is_none()
            && let Some(ceiling) = self.rounds_ceiling
        {
            // Lower than the protocol's own default, or not at all; a
            // document's default is not known here, so it is not lowered.
            if let Some(p) = agon_core::protocols().into_iter().find(|p| p.name == request.protocol) {
                request.rounds = Some(ceiling.min(p.default_rounds));
            }
        }
        // A seat's domain: the file's, under the flag's for the same seat (the engine takes the last).
        let domains =
            self.seats.iter().filter_map(|(id, s)| Some(PerSeat { seat: Some(id.clone()), value: s.domain.clone()? }));
        request.domain.splice(0..0, domains);
        // `defaults.consensus` is not a flag's default: it applies only where the
        // protocol reads agreement, which the spec request decides
        // (`spec_args::Inputs::file_consensus`), documents included.
        Ok(merged)
    }
}

/// The most an agon.toml price may be, in USD per million tokens.
pub const MAX_PRICE: f64 = 10_000.0;

/// Where a configuration is looked for, in order.
pub fn search_path() -> Vec<PathBuf> {
    let mut paths = vec![PathBuf::from("agon.toml")];
    paths.extend(user_config_file());
    paths
}

/// Your own configuration: `$XDG_CONFIG_HOME/agon/agon.toml` or `~/.config/agon/agon.toml`.
pub fn user_config_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("agon").join("agon.toml"))
}

/// `a`, `a and b`, `a, b and c`.
fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
[defaults]
protocol = "rotating-challenger"
panel = "trio"
rounds = 4
max_tokens = 300
quality_gate = "warn"
roles = "roles"
timeout = 60
consensus = "judge"

[panels.trio]
models = ["openai/a", "anthropic/b", "gemini/c"]
judge = "openai/judge"

[panels.local]
models = ["ollama/llama3.2"]

[providers.groq]
key_env = "MY_GROQ_KEY"

[commands.mine]
program = "my-model"
args = ["--quiet"]
prompt = "argument"
timeout = 30

[prices."openai/a"]
input = 2.5
output = 10
"#;

    /// A request with `asked` over the file.
    fn applied(c: &Config, asked: Options) -> Result<DebateRequest, String> {
        let mut request = DebateRequest::new("Q?");
        c.apply_to_request(&mut request, &asked).map(|_| request)
    }

    fn models(list: &[&str]) -> Option<PanelChoice> {
        Some(PanelChoice::of(list.iter().map(|m| m.to_string()).collect()))
    }

    fn example() -> Config {
        Config::parse(EXAMPLE, Path::new("/etc/agon/agon.toml")).unwrap()
    }

    #[test]
    fn reads_every_section() {
        let c = example();
        assert_eq!(c.defaults.rounds, Some(4));
        assert_eq!(c.panels["trio"].models.len(), 3);
        assert_eq!(c.providers["groq"].key_env.as_deref(), Some("MY_GROQ_KEY"));
        assert_eq!(c.commands["mine"].prompt, PromptVia::Argument);
        assert_eq!(
            c.prices["openai/a"],
            PriceSettings { input: 2.5, output: 10.0, cache_read: None, cache_write: None }
        );
        // A relative role folder is relative to the file, not to where agon runs.
        assert_eq!(c.defaults.roles.as_deref(), Some(Path::new("/etc/agon/roles")));
    }

    #[test]
    fn the_file_fills_what_flags_leave_at_their_defaults() {
        let args = applied(&example(), Options::default()).unwrap();
        assert_eq!(args.protocol, "rotating-challenger");
        assert_eq!(args.panel, ["openai/a", "anthropic/b", "gemini/c"]);
        assert_eq!(args.judge, Judge::Model("openai/judge".into()));
        assert_eq!(args.rounds, Some(4));
        assert_eq!(args.settings.max_tokens, Some(300));
        assert_eq!(args.settings.quality_gate, Some(QualityGate::Warn));
        // The file's consensus mode is not the request's: it is applied where the protocol reads agreement.
        assert_eq!(args.consensus, None);
        assert_eq!(example().defaults.consensus, Some(ConsensusMode::Judge));
        let strict = Config::parse("[defaults]\ndiversity = \"strict\"\n", Path::new("agon.toml")).unwrap();
        assert_eq!(
            applied(&strict, Options::default()).unwrap().settings.diversity,
            Some(agon_core::Diversity::Strict)
        );
        let flag = applied(&strict, Options { diversity: Some(agon_core::Diversity::Off), ..Options::default() });
        assert_eq!(flag.unwrap().settings.diversity, Some(agon_core::Diversity::Off), "the flag wins");
    }

    #[test]
    fn flags_override_the_file() {
        let asked = Options {
            protocol: Some(ProtocolChoice::Named("round-robin".into())),
            max_tokens: Some(512),
            panel: models(&["local"]),
            ..Options::default()
        };
        let args = applied(&example(), asked).unwrap();
        assert_eq!(args.protocol, "round-robin");
        // Given explicitly, even though it equals the built-in default.
        assert_eq!(args.settings.max_tokens, Some(512));
        assert_eq!(args.panel, ["ollama/llama3.2"]);
        assert_eq!(args.judge, Judge::Default, "the local panel names no judge and neither does [defaults]");
        assert_eq!(args.rounds, Some(4));

        let asked = Options {
            panel: models(&["openai/x", "openai/y"]),
            judge: Some(Judge::Model("openai/z".into())),
            ..Options::default()
        };
        let args = applied(&example(), asked).unwrap();
        assert_eq!(args.panel, ["openai/x", "openai/y"]);
        assert_eq!(args.judge, Judge::Model("openai/z".into()));
        let args = applied(&example(), Options { judge: Some(Judge::Without), ..Options::default() }).unwrap();
        assert_eq!(args.judge, Judge::Without, "no judge asked for stays so, whatever the panel names");
    }

    #[test]
    fn an_unknown_panel_name_is_named() {
        let err = applied(&example(), Options { panel: models(&["quartet"]), ..Options::default() }).unwrap_err();
        assert!(err.contains("--panel quartet") && err.contains("known: local, trio"), "{err}");
    }

    #[test]
    fn mistakes_name_the_file_and_the_key() {
        let path = Path::new("agon.toml");
        let err = Config::parse("[defaults]\nrouns = 3\n", path).unwrap_err();
        assert!(err.contains("agon.toml") && err.contains("rouns"), "{err}");
        let err = Config::parse("[defaults]\nrounds = \"three\"\n", path).unwrap_err();
        assert!(err.contains("rounds"), "{err}");
        let err = Config::parse("[defaults]\npanel = \"nope\"\n", path).unwrap_err();
        assert!(err.contains("defaults.panel") && err.contains("nope"), "{err}");
        let err = Config::parse("[prices.\"gpt-4o\"]\ninput = 1\noutput = 2\n", path).unwrap_err();
        assert!(err.contains("provider/model"), "{err}");
        let err = Config::parse("[prices.\"openai/x\"]\ninput = -1\noutput = 2\n", path).unwrap_err();
        assert!(err.contains("zero or more"), "{err}");
        let err = Config::parse("[panels.empty]\nmodels = []\n", path).unwrap_err();
        assert!(err.contains("panels.empty.models"), "{err}");
    }

    #[test]
    fn values_that_make_no_sense_are_named() {
        let path = Path::new("agon.toml");
        let err = Config::parse("[providers.acme]\nbase_url = \"http://x\"\n", path).unwrap_err();
        assert!(err.contains("providers.acme") && err.contains("groq"), "{err}");
        let err = Config::parse("[prices.\"openai/x\"]\ninput = 1e308\noutput = 2\n", path).unwrap_err();
        assert!(err.contains("mistake"), "{err}");
        let err = Config::parse("[defaults]\ntimeout = 0\n", path).unwrap_err();
        assert!(err.contains("defaults.timeout"), "{err}");
        let err = Config::parse("[defaults]\nmax_reply = \"4 parsecs\"\n", path).unwrap_err();
        assert!(err.contains("defaults.max_reply"), "{err}");
        let c = Config::parse("[defaults]\nmax_reply = \"8M\"\n", path).unwrap();
        assert_eq!(c.defaults.max_reply.unwrap().bytes(), Ok(8 << 20));
        assert_eq!(parse_size("512KiB"), Ok(512 << 10));
        assert_eq!(parse_size("100000"), Ok(100_000));
        assert!(parse_size("0").is_err());
        // Issue 33: `--max-reply 1G` let a 100 MB reply stop the engine with an internal error.
        assert_eq!(parse_reply_size("32M"), Ok(32 << 20));
        assert!(parse_reply_size("1G").unwrap_err().contains("more than agon takes in one reply (32 MiB)"));
        let err = Config::parse("[defaults]\nmax_reply = 1073741824\n", path).unwrap_err();
        assert!(err.contains("defaults.max_reply") && err.contains("32 MiB"), "{err}");
    }

    #[test]
    fn triggers_and_panel_judges_are_read_and_bad_values_name_their_field() {
        let path = Path::new("agon.toml");
        let c = Config::parse(
            "[[triggers]]\nname = \"architecture\"\nany_of = [\"data model\", \"infrastructure\"]\n\
             [[triggers]]\nname = \"exec\"\nany_of = [\"board meeting\"]\n\
             [panels.p]\nmodels = [\"openai/a\", \"openai/b\"]\njudge = \"anthropic/j|openai/j\"\n",
            path,
        )
        .unwrap();
        assert_eq!(c.triggers.len(), 2);
        assert_eq!(c.triggers[0].any_of, ["data model", "infrastructure"], "phrases keep their spaces, in order");
        assert_eq!(c.panels["p"].judge.as_deref(), Some("anthropic/j|openai/j"));
        for (text, field) in [
            ("[panels.p]\nmodels = [\"openai/a\"]\njudge = \"gpt-4o\"\n", "panels.p.judge"),
            ("[panels.p]\nmodels = [\"openai/a\"]\njudge = \"acme/x\"\n", "panels.p.judge"),
            ("[panels.p]\nmodels = [\"openai/a\", \"nope\"]\n", "panels.p.models[1]"),
            ("[defaults]\njudge = \"openai/\"\n", "defaults.judge"),
            ("[[triggers]]\nname = \"x\"\nany_of = []\n", "triggers[0].any_of"),
            ("[[triggers]]\nname = \"\"\nany_of = [\"a\"]\n", "triggers[0].name"),
            ("[[triggers]]\nname = \"x\"\nany_of = [\"a\", \" \"]\n", "triggers[0].any_of[1]"),
        ] {
            let err = Config::parse(text, path).unwrap_err();
            assert!(err.contains(&format!("agon.toml: {field}")), "{field}: {err}");
        }
        let err = Config::parse("[[triggers]]\nname = \"x\"\nwords = [\"a\"]\n", path).unwrap_err();
        assert!(err.contains("words"), "{err}");
        let err = Config::parse("[panels.p]\nmodels = [\"openai/a\"]\njudge = 3\n", path).unwrap_err();
        assert!(err.contains("judge"), "{err}");
    }

    #[test]
    fn an_untrusted_file_keeps_only_what_cannot_act_for_you() {
        let mut c = Config::parse(
            "[defaults]\nrounds = 3\nroles = \"r\"\npanel = \"p\"\n[panels.p]\nmodels = [\"openai/a\", \"cmd/x|openai/b\"]\n\
             [panels.q]\nmodels = [\"openai/a\", \"openai/b\"]\n\
             [providers.openai]\nbase_url = \"http://evil\"\nkey_env = \"AWS_SECRET_ACCESS_KEY\"\n\
             [commands.x]\nprogram = \"sh\"\n[prices.\"openai/a\"]\ninput = 0\noutput = 0\n\
             [protocols.mine]\nfile = \"/home/you/.ssh/id_ed25519\"\n",
            Path::new("agon.toml"),
        )
        .unwrap();
        c.withhold(false);
        assert!(c.commands.is_empty() && c.providers.is_empty() && c.prices.is_empty() && c.defaults.roles.is_none());
        assert!(c.protocols.is_empty(), "an untrusted file must not make agon read a file of yours");
        let notice = c.trust_notice().unwrap();
        assert!(
            notice.contains("[commands], [providers], [prices], [protocols] and defaults.roles")
                && notice.contains("agon trust"),
            "{notice}"
        );
        let err = applied(&c, Options::default()).unwrap_err();
        assert!(err.contains("cmd/x") && err.contains("agon trust"), "{err}");
        let args = applied(&c, Options { panel: models(&["q"]), ..Options::default() }).unwrap();
        assert_eq!((args.panel.len(), args.rounds), (2, Some(3)), "panels and defaults still apply");
    }

    #[test]
    fn protocol_files_are_relative_to_the_file_and_named_in_words() {
        let c = Config::parse("[protocols.red-blue]\nfile = \"p/red-blue.toml\"\n", Path::new("/etc/agon/agon.toml"))
            .unwrap();
        assert_eq!(c.protocols["red-blue"].file, Path::new("/etc/agon/p/red-blue.toml"));
        let err = Config::parse("[protocols.Red_Blue]\nfile = \"x.toml\"\n", Path::new("agon.toml")).unwrap_err();
        assert!(err.contains("agon.toml: protocols.Red_Blue") && err.contains("lowercase"), "{err}");
        let err = Config::parse("[protocols.x]\npath = \"x.toml\"\n", Path::new("agon.toml")).unwrap_err();
        assert!(err.contains("path"), "{err}");
    }

    #[test]
    fn no_file_is_the_empty_configuration() {
        let args = applied(&Config::default(), Options { panel: models(&["openai/a"]), ..Options::default() }).unwrap();
        let mut before = DebateRequest::new("Q?");
        before.panel = vec!["openai/a".into()];
        before.settings.panel = models(&["openai/a"]);
        assert_eq!(args, before, "only what was asked");
    }
}
