//! A debate's settings as one layer gives them: the built-in defaults, your
//! agon.toml, a working folder's agon.toml, a followed-up session, and the
//! flags or tool-call arguments. Every field is an `Option`: `None` is "this
//! layer says nothing", so whether a setting was given is a type, not a name
//! looked up. Layers are merged by [`Combine`] (as uv merges its settings):
//! the higher layer's `Some` wins, field by field.
//!
//! Which file set a setting is kept where agon reports it: the
//! configuration's `origin` ([`crate::config::layers`]).

mod merge;

pub use merge::Combine;

use std::path::PathBuf;

use agon_core::{Diversity, Effort, QualityGate};

/// Who judges the debate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Judge {
    /// The configuration's judge, else the engine's default (the first panel model).
    #[default]
    Default,
    /// This model.
    Model(String),
    /// Nobody: the debate ends without a synthesis.
    Without,
}

/// A value for every seat (`seat: None`) or for one: `--effort high`,
/// `--effort o3=high`, agon.toml's `[defaults]` and `[seats.ID]`. The last
/// given for a seat wins.
#[derive(Debug, Clone, PartialEq)]
pub struct PerSeat<T> {
    pub seat: Option<String>,
    pub value: T,
}

impl<T> PerSeat<T> {
    /// `[SEAT=]VALUE`, the value read by `read` (which says what it takes when it refuses).
    fn parse(given: &str, read: impl Fn(&str) -> Result<T, String>) -> Result<PerSeat<T>, String> {
        let (seat, value) = match given.split_once('=') {
            Some((seat, _)) if seat.trim().is_empty() => return Err("name the seat before '='".into()),
            Some((seat, value)) => (Some(seat.trim().to_string()), value),
            None => (None, given),
        };
        Ok(PerSeat { seat, value: read(value.trim())? })
    }
}

/// `--effort [SEAT=]LEVEL`, read where the flag is.
pub fn effort_entry(given: &str) -> Result<PerSeat<Effort>, String> {
    PerSeat::parse(given, |level| match level {
        "low" => Ok(Effort::Low),
        "medium" => Ok(Effort::Medium),
        "high" => Ok(Effort::High),
        _ => Err("the level is low, medium or high".into()),
    })
}

/// `--thinking [SEAT=]TOKENS`, read where the flag is.
pub fn thinking_entry(given: &str) -> Result<PerSeat<u32>, String> {
    PerSeat::parse(given, |tokens| {
        tokens
            .parse()
            .ok()
            .filter(|n| (1..=agon_core::MAX_BUDGET).contains(n))
            .ok_or(format!("give tokens, from 1 to {}", agon_core::MAX_BUDGET))
    })
}

/// `--domain [SEAT=]AREA`, read where the flag is. A seat id has no spaces,
/// so in `EU law=GDPR` the `=` is part of the area.
pub fn domain_entry(given: &str) -> Result<PerSeat<String>, String> {
    let (seat, area) = match given.split_once('=') {
        Some((seat, _)) if seat.trim().is_empty() => return Err("name the seat before '='".into()),
        Some((seat, area)) if !seat.trim().contains(' ') => (Some(seat.trim().to_string()), area),
        _ => (None, given),
    };
    match area.trim() {
        "" => Err("give a field of expertise in a few words, or SEAT=AREA".into()),
        area => Ok(PerSeat { seat, value: area.to_string() }),
    }
}

/// A panel: a name from agon.toml's `[panels]`, or model references.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, PartialEq)]
#[serde(untagged)]
pub enum PanelChoice {
    Named(String),
    Models(Vec<String>),
}

/// The protocol a layer asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ProtocolChoice {
    /// A protocol by name (the catalog's or agon.toml's `[protocols]`); `NAME:SEAT` names an adversary.
    Named(String),
    /// A protocol document of one's own, from a file (`--protocol-file`).
    File(PathBuf),
}

/// Declares [`Options`] and its [`Combine`] from one list, so a field added
/// is merged without another line.
macro_rules! options {
    ($(#[$doc:meta])* pub struct Options { $($(#[$field_doc:meta])* pub $field:ident: Option<$ty:ty>,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct Options { $($(#[$field_doc])* pub $field: Option<$ty>,)* }

        impl Combine for Options {
            fn combine(self, lower: Options) -> Options {
                Options { $($field: self.$field.combine(lower.$field),)* }
            }
        }
    };
}

options! {
    /// A debate's settings, each declared once, each `None` unless its layer set it.
    pub struct Options {
        pub protocol: Option<ProtocolChoice>,
        /// Model references, one per seat, or a name from agon.toml's `[panels]`.
        pub panel: Option<PanelChoice>,
        /// A judge's model, or none at all (never "the default": that is `None`).
        pub judge: Option<Judge>,
        pub rounds: Option<u32>,
        /// Each turn's reply ceiling, in tokens.
        pub max_tokens: Option<u32>,
        pub judge_max_tokens: Option<u32>,
        pub temperature: Option<f64>,
        pub context_budget: Option<u32>,
        pub quality_gate: Option<QualityGate>,
        /// role-council: a folder of role files.
        pub roles: Option<PathBuf>,
        /// Files every speaker reads: paths, globs, `-`.
        pub files: Option<Vec<String>>,
        /// US dollars the worst case may reach.
        pub max_cost: Option<f64>,
        /// How hard reasoning models think, for every seat or one.
        pub effort: Option<Vec<PerSeat<Effort>>>,
        /// Thinking tokens beyond the reply, for every seat or one.
        pub thinking: Option<Vec<PerSeat<u32>>>,
        /// Blind first answers.
        pub blind: Option<bool>,
        /// What a panel of one model gets where the protocol needs several.
        pub diversity: Option<Diversity>,
        /// Each call's timeout, in seconds.
        pub timeout: Option<u64>,
        /// How many seats must still be answering for the debate to go on.
        pub quorum: Option<u32>,
    }
}

/// Why a value is out of its bounds, and which setting it is (its agon.toml key).
#[derive(Debug, Clone, PartialEq)]
pub struct OutOfBounds {
    pub key: &'static str,
    pub why: &'static str,
}

impl Options {
    /// Each setting's bounds, checked wherever a layer is read from text.
    pub fn check(&self) -> Result<(), OutOfBounds> {
        let fail = |key, why| Err(OutOfBounds { key, why });
        if self.timeout == Some(0) {
            return fail("timeout", "seconds, at least 1");
        }
        if self.quorum == Some(0) {
            return fail("quorum", "seats, at least 1");
        }
        if let Some(t) = self.temperature
            && !(0.0..=2.0).contains(&t)
        {
            return fail("temperature", "must be between 0 and 2");
        }
        if let Some(c) = self.max_cost
            && !(c >= 0.0 && c.is_finite())
        {
            return fail("max_cost", "USD, zero or more");
        }
        Ok(())
    }
}

impl PanelChoice {
    /// A list as a flag or an argument gives it: one word without a `/` names a panel.
    pub fn of(models: Vec<String>) -> PanelChoice {
        match models.as_slice() {
            [one] if !one.trim().is_empty() && !one.contains('/') => PanelChoice::Named(one.trim().to_string()),
            _ => PanelChoice::Models(models),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_value_is_read_where_the_flag_is_and_a_bad_one_is_named() {
        assert_eq!(effort_entry("high"), Ok(PerSeat { seat: None, value: Effort::High }));
        assert_eq!(effort_entry(" o3 = low "), Ok(PerSeat { seat: Some("o3".into()), value: Effort::Low }));
        assert_eq!(thinking_entry("claude=2048"), Ok(PerSeat { seat: Some("claude".into()), value: 2048 }));
        assert_eq!(effort_entry("extreme"), Err("the level is low, medium or high".into()));
        assert_eq!(effort_entry("=high"), Err("name the seat before '='".into()));
        assert_eq!(thinking_entry("o3=0"), Err(format!("give tokens, from 1 to {}", agon_core::MAX_BUDGET)));
        assert!(thinking_entry(&(agon_core::MAX_BUDGET + 1).to_string()).is_err());
        assert!(thinking_entry("o3=lots").is_err());
        assert_eq!(domain_entry(" security "), Ok(PerSeat { seat: None, value: "security".into() }));
        assert_eq!(
            domain_entry("b = EU privacy law"),
            Ok(PerSeat { seat: Some("b".into()), value: "EU privacy law".into() })
        );
        assert_eq!(domain_entry("EU law=GDPR"), Ok(PerSeat { seat: None, value: "EU law=GDPR".into() }));
        assert_eq!(domain_entry("=law"), Err("name the seat before '='".into()));
        assert_eq!(domain_entry("b= "), Err("give a field of expertise in a few words, or SEAT=AREA".into()));
        assert!(domain_entry("  ").is_err());
    }
}
