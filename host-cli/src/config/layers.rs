//! Configuration in layers, as git and cargo read theirs: your own file
//! always applies, and a working folder's `./agon.toml` goes over it.
//!
//! - **Yours** (`~/.config/agon/agon.toml`, or the file `--config` /
//!   `$AGON_CONFIG` names instead): the base, in full.
//! - **A trusted folder file** (`agon trust`): adds to yours; where both set
//!   the same thing, the folder's wins, as a project's settings do.
//! - **An untrusted folder file**: its sections that act for you are left out
//!   (`Config::withhold`); its choices (protocol, panel, judge, temperature,
//!   …) apply; its limits may only narrow: fewer rounds and tokens, a lower
//!   cost cap, less thinking. It never replaces a panel of yours of the same
//!   name, and never removes a setting of yours.
//!
//! A folder file is judged by where it lives, not where a symlink points:
//! `./agon.toml` linked to your own file is still the folder's, and its
//! relative paths resolve from the folder.

use std::path::{Path, PathBuf};

use agon_core::Effort;

use super::{Config, QualityGate, SizeSetting, user_config_file};
use crate::provider::DEFAULT_MAX_REPLY;

/// One file read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub path: PathBuf,
    pub standing: Standing,
}

/// How far a file is trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Your own config folder's file.
    Yours,
    /// Named by `--config` or `$AGON_CONFIG`.
    Named,
    /// A working folder's file that `agon trust` vouched for as it is now.
    Trusted,
    /// A working folder's file nobody vouched for (or edited since).
    Untrusted { changed: bool },
}

impl Standing {
    pub fn describe(self) -> &'static str {
        match self {
            Standing::Yours => "yours",
            Standing::Named => "named by --config",
            Standing::Trusted => "this folder's, trusted",
            Standing::Untrusted { changed: false } => "this folder's, not trusted",
            Standing::Untrusted { changed: true } => "this folder's, changed since trusted",
        }
    }
}

/// A limit an untrusted folder file asked to raise (or to set where you set
/// none, above the built-in default), and what was kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowed {
    pub key: &'static str,
    pub asked: String,
    pub kept: String,
}

impl std::fmt::Display for Narrowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} = {}, which would raise a limit; keeping {} (a folder's file that is not trusted may only lower limits)",
            self.key, self.asked, self.kept
        )
    }
}

impl Config {
    /// Read your own file (or the one named) and then the working folder's
    /// over it; no file at all is the empty configuration.
    pub fn load(explicit: Option<&Path>) -> Result<Config, String> {
        let (base, standing) = match explicit {
            Some(path) => (Some(path.to_path_buf()), Standing::Named),
            None => (user_config_file(), Standing::Yours),
        };
        let mut config = Config::default();
        if let Some(path) = &base
            && let Some(text) = read(path, explicit.is_some())?
        {
            config.layer(Config::parse(&text, path)?, standing);
        }
        // With `--config`, the named file is the whole configuration.
        if explicit.is_some() {
            return Ok(config);
        }
        let folder = PathBuf::from("agon.toml");
        let Some(text) = read(&folder, false)? else { return Ok(config) };
        // Where the file lives, symlinks not followed: the same file as
        // yours only when the working folder is your config folder.
        let at = std::path::absolute(&folder).unwrap_or_else(|_| folder.clone());
        let own = base.as_deref().map(|p| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
        if own.as_deref() == Some(at.as_path()) {
            return Ok(config);
        }
        let verdict = match crate::trust::TrustStore::load() {
            Ok(store) => store.verdict(&crate::trust::absolute(&folder), text.as_bytes()),
            Err(_) => crate::trust::Verdict::Unknown,
        };
        // Trust is recorded by where a file lives (`trust::absolute`): a link
        // to your own file is not trusted until trusted here.
        let standing = match verdict {
            crate::trust::Verdict::Trusted => Standing::Trusted,
            crate::trust::Verdict::Changed => Standing::Untrusted { changed: true },
            crate::trust::Verdict::Unknown => Standing::Untrusted { changed: false },
        };
        config.layer(Config::parse(&text, &folder)?, standing);
        Ok(config)
    }

    /// `upper` over this configuration, by its standing.
    pub fn layer(&mut self, mut upper: Config, standing: Standing) {
        let index = self.layers.len();
        self.layers.push(Layer { path: upper.path.clone().unwrap_or_default(), standing });
        let narrow = matches!(standing, Standing::Untrusted { .. });
        if let Standing::Untrusted { changed } = standing {
            upper.withhold(changed);
        }
        let mut origin = |key: &[&str]| {
            self.origin.insert(key.iter().map(|k| k.to_string()).collect(), index);
        };
        macro_rules! maps {
            ($($field:ident),*) => {$(
                for (name, value) in std::mem::take(&mut upper.$field) {
                    // Yours are never replaced by a file nobody vouched for.
                    if narrow && self.$field.contains_key(&name) {
                        continue;
                    }
                    origin(&[stringify!($field), &name]);
                    self.$field.insert(name, value);
                }
            )*};
        }
        maps!(panels, providers, commands, prices, models, seats, protocols);
        // A review's policy gates changes: only a file someone vouched for sets it.
        if let (Some(policy), false) = (upper.review.take(), narrow) {
            origin(&["review"]);
            self.review = Some(policy);
        }
        if !upper.triggers.is_empty() {
            origin(&["triggers"]);
            self.triggers = std::mem::take(&mut upper.triggers);
        }
        let (d, mut u) = (&mut self.defaults, upper.defaults);
        let mut narrowed = Vec::new();
        if narrow {
            // A file nobody vouched for may only lower a limit: a value that
            // would raise one is dropped here (and reported); what is left
            // is merged below, as any layer's.
            let mut limit = |key: &'static str, mine: Option<String>, asked: Option<String>, keep: bool| {
                if let (Some(asked), false) = (asked, keep) {
                    let kept = mine.unwrap_or_else(|| "the built-in default".into());
                    narrowed.push(Narrowed { key, asked, kept });
                }
            };
            // Lower than yours, or (where you set none) than the built-in default.
            let lower = |mine: Option<u64>, asked: Option<u64>, default: Option<u64>| match (asked, mine.or(default)) {
                (Some(a), Some(m)) => a <= m,
                (Some(_), None) => true,
                (None, _) => true,
            };
            let show = |n: Option<u64>| n.map(|n| n.to_string());
            macro_rules! lowered {
                ($field:ident, $default:expr) => {{
                    let (mine, asked) = (d.$field.map(u64::from), u.$field.map(u64::from));
                    let keep = lower(mine, asked, $default);
                    limit(concat!("defaults.", stringify!($field)), show(mine), show(asked), keep);
                    if !keep {
                        u.$field = None;
                    }
                }};
            }
            let tokens = u64::from(crate::request::DEFAULT_MAX_TOKENS);
            lowered!(max_tokens, Some(tokens));
            lowered!(judge_max_tokens, Some(2 * tokens));
            lowered!(context_budget, None);
            lowered!(timeout, Some(crate::request::DEFAULT_TIMEOUT_S));
            lowered!(max_retry_wait, Some(agon_wire::DEFAULT_MAX_WAIT_MS / 1000));
            // Thinking where you set none is more tokens than none at all.
            lowered!(thinking, Some(0));
            // Rounds where you set none: capped by the protocol's default
            // once the protocol is known (`apply_to_request`).
            match (d.rounds, u.rounds) {
                (Some(mine), Some(asked)) if asked > mine => {
                    limit("defaults.rounds", Some(mine.to_string()), Some(asked.to_string()), false);
                    u.rounds = None;
                }
                (None, asked) => {
                    if asked.is_some() {
                        origin(&["defaults", "rounds"]);
                    }
                    self.rounds_ceiling = u.rounds.take();
                }
                _ => {}
            }
            // A cost cap is only ever lowered; none of yours is no cap.
            if let (Some(mine), Some(asked)) = (d.max_cost, u.max_cost)
                && asked > mine
            {
                limit("defaults.max_cost", Some(format!("{mine}")), Some(format!("{asked}")), false);
                u.max_cost = None;
            }
            let bytes = |s: &Option<SizeSetting>| s.as_ref().and_then(|s| s.bytes().ok()).map(|n| n as u64);
            let (mine, asked) = (bytes(&d.max_reply), bytes(&u.max_reply));
            let keep = lower(mine, asked, Some(DEFAULT_MAX_REPLY as u64));
            limit("defaults.max_reply", show(mine), show(asked), keep);
            if !keep {
                u.max_reply = None;
            }
            // Effort: lower than yours, or `low` where you set none.
            if let Some(asked) = u.effort {
                let keep = asked <= d.effort.unwrap_or(Effort::Low);
                limit("defaults.effort", d.effort.map(|e| e.as_str().into()), Some(asked.as_str().into()), keep);
                if !keep {
                    u.effort = None;
                }
            }
            // Regenerating asks again: more calls than warning or nothing.
            if let Some(asked) = u.quality_gate {
                let rank = |g: QualityGate| g as u8;
                let keep = rank(asked) <= rank(d.quality_gate.unwrap_or(QualityGate::Regenerate));
                let name = |g: Option<QualityGate>| g.map(|g| format!("{g:?}").to_lowercase());
                limit("defaults.quality_gate", name(d.quality_gate), name(Some(asked)), keep);
                if !keep {
                    u.quality_gate = None;
                }
            }
        } else if u.rounds.is_some() {
            self.rounds_ceiling = None;
        }
        d.take_from(u, |key| origin(&["defaults", key]));
        self.narrowed.extend(narrowed);
        self.path = upper.path;
        self.untrusted = upper.untrusted;
    }
}

/// A file's text; `None` when there is none (an error when it was named).
/// Only a regular file of a sane size is read: a FIFO would hang agon, a
/// device would never end.
fn read(path: &Path, named: bool) -> Result<Option<String>, String> {
    match crate::bounded::read_text(path, crate::bounded::CONFIG_LIMIT, "configuration") {
        Ok(text) => Ok(Some(text)),
        Err(e) if !named && e.not_found() => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, path: &str) -> Config {
        Config::parse(text, Path::new(path)).unwrap()
    }

    /// Any `[defaults]` key is merged from every layer; from a file nobody
    /// vouched for it is taken as it is unless `layer` lowers it. A key added
    /// fails here until someone decides which it is.
    #[test]
    fn every_defaults_key_is_either_free_or_only_lowered_by_a_folder_file() {
        const FREE: &[&str] = &[
            "protocol",
            "panel",
            "judge",
            "temperature",
            "consensus",
            "roles",
            "files",
            "diversity",
            "blind",
            "quorum",
        ];
        const LOWERED: &[&str] = &[
            "rounds",
            "max_tokens",
            "judge_max_tokens",
            "context_budget",
            "timeout",
            "max_cost",
            "max_reply",
            "max_retry_wait",
            "effort",
            "thinking",
            "quality_gate",
        ];
        let keys: std::collections::BTreeSet<String> = serde_json::to_value(crate::config::Defaults::default())
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        let listed = FREE.iter().chain(LOWERED).map(|k| k.to_string()).collect();
        assert_eq!(keys, listed, "a new [defaults] key: may a folder file raise it? (config/layers.rs)");
    }

    const YOURS: &str = r#"
[defaults]
max_cost = 0.05
rounds = 3
max_tokens = 400
effort = "medium"
[panels.trio]
models = ["openai/a", "openai/b", "openai/c"]
[providers.openai]
key_env = "MY_KEY"
[prices."openai/a"]
input = 1
output = 2
"#;

    const FOLDER: &str = r#"
[defaults]
rounds = 50
max_tokens = 100000
max_cost = 100
effort = "high"
thinking = 30000
timeout = 100000
max_reply = "16M"
quality_gate = "regenerate"
protocol = "consensus-check"
panel = "six"
[panels.six]
models = ["openai/gpt-4o", "openai/gpt-4o", "openai/gpt-4o", "openai/gpt-4o", "openai/gpt-4o", "openai/gpt-4o"]
[panels.trio]
models = ["openai/x"]
[providers.openai]
base_url = "https://attacker.example/v1"
[prices."openai/gpt-4o"]
input = 0
output = 0
"#;

    fn layered(standing: Standing) -> Config {
        let mut config = Config::default();
        config.layer(parse(YOURS, "/home/u/.config/agon/agon.toml"), Standing::Yours);
        config.layer(parse(FOLDER, "agon.toml"), standing);
        config
    }

    #[test]
    fn an_untrusted_folder_file_never_raises_a_limit_nor_removes_a_setting_of_yours() {
        let c = layered(Standing::Untrusted { changed: false });
        let d = &c.defaults;
        assert_eq!(d.max_cost, Some(0.05), "your cap stands");
        assert_eq!((d.rounds, d.max_tokens, d.effort, d.thinking), (Some(3), Some(400), Some(Effort::Medium), None));
        assert_eq!(d.max_reply, None, "a larger reply limit than the built-in one is not taken");
        assert_eq!(c.providers["openai"].key_env.as_deref(), Some("MY_KEY"), "your provider is kept whole");
        assert_eq!(c.providers["openai"].base_url, None);
        assert_eq!(c.prices.len(), 1, "its prices are left out, yours kept");
        assert_eq!(c.panels["trio"].models.len(), 3, "your panel is not replaced");
        assert_eq!(c.panels["six"].models.len(), 6, "its own panel is a choice among your providers");
        assert_eq!(d.protocol.as_deref(), Some("consensus-check"));
        let asked: Vec<&str> = c.narrowed.iter().map(|n| n.key).collect();
        assert_eq!(
            asked,
            [
                "defaults.max_tokens",
                "defaults.timeout",
                "defaults.thinking",
                "defaults.rounds",
                "defaults.max_cost",
                "defaults.max_reply",
                "defaults.effort"
            ]
        );
        let notice = c.trust_notice().unwrap();
        assert!(notice.contains("defaults.max_cost = 100, which would raise a limit; keeping 0.05"), "{notice}");
        assert_eq!(c.origin[&vec!["defaults".to_string(), "max_cost".to_string()]], 0, "from your file");
        assert_eq!(c.origin[&vec!["panels".to_string(), "six".to_string()]], 1, "from the folder's");
    }

    #[test]
    fn only_a_trusted_folder_file_sets_the_review_policy() {
        let loose = "[review]\nfail_at = \"critical\"\nconfirmed_by = 3\n";
        let mut c = Config::default();
        c.layer(parse(loose, "agon.toml"), Standing::Untrusted { changed: false });
        assert_eq!(c.review, None, "a file nobody vouched for does not loosen a gate");
        c.layer(parse(loose, "agon.toml"), Standing::Trusted);
        let p = c.review.unwrap();
        assert_eq!((p.fail_at.as_str(), p.confirmed_by), ("critical", 3));
    }

    #[test]
    fn an_untrusted_folder_file_may_lower_limits() {
        let mut c = Config::default();
        c.layer(parse(YOURS, "/home/u/.config/agon/agon.toml"), Standing::Yours);
        let lower =
            "[defaults]\nmax_cost = 0.01\nrounds = 1\nmax_tokens = 100\neffort = \"low\"\nquality_gate = \"off\"\n";
        c.layer(parse(lower, "agon.toml"), Standing::Untrusted { changed: false });
        let d = &c.defaults;
        assert_eq!((d.max_cost, d.rounds, d.max_tokens, d.effort), (Some(0.01), Some(1), Some(100), Some(Effort::Low)));
        assert_eq!(d.quality_gate, Some(QualityGate::Off));
        assert!(c.narrowed.is_empty());
    }

    #[test]
    fn where_you_set_no_limit_a_folder_file_is_held_to_the_built_in_one() {
        let mut c = Config::default();
        c.layer(parse(FOLDER, "agon.toml"), Standing::Untrusted { changed: false });
        assert_eq!(c.defaults.max_tokens, None, "above the built-in 512");
        assert_eq!(c.defaults.timeout, None, "above the built-in 120 s");
        assert_eq!(c.defaults.max_cost, Some(100.0), "a cap where there was none only narrows");
        assert_eq!((c.defaults.rounds, c.rounds_ceiling), (None, Some(50)), "capped by the protocol's default later");
        assert_eq!(c.defaults.effort, None);
    }

    #[test]
    fn a_trusted_folder_file_adds_to_yours_and_wins_where_both_speak() {
        let c = layered(Standing::Trusted);
        assert_eq!((c.defaults.rounds, c.defaults.max_cost), (Some(50), Some(100.0)));
        assert_eq!(c.panels["trio"].models, ["openai/x"]);
        assert_eq!(c.providers["openai"].base_url.as_deref(), Some("https://attacker.example/v1"));
        assert_eq!(c.prices.len(), 2, "both files' prices");
        assert!(c.narrowed.is_empty() && c.untrusted.is_none());
    }

    #[test]
    fn the_shown_configuration_names_each_settings_file() {
        let text = crate::config::show(&layered(Standing::Untrusted { changed: false }));
        assert!(text.contains("#   1  /home/u/.config/agon/agon.toml  (yours)"), "{text}");
        assert!(text.contains("#   2  agon.toml  (this folder's, not trusted)"), "{text}");
        let line = |key: &str| text.lines().find(|l| l.starts_with(key)).unwrap_or_default().to_string();
        assert!(line("defaults.max_cost = 0.05").ends_with("# 1"), "{text}");
        assert!(line("panels.six = ").ends_with("# 2"), "{text}");
        assert!(line("prices.\"openai/a\" = ").ends_with("# 1"), "{text}");
        assert!(text.contains("# Left out of the folder's file until `agon trust`: [providers], [prices]"), "{text}");
    }
}
