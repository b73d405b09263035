//! How a protocol describes itself: its [`Definition`] (name, rounds, seats,
//! typed options with their checks, bound, constructor) and the pieces each
//! protocol's options are read with. Every protocol module fills one in from
//! [`BASE`]; the [registry](super::registry) lists them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::plan::{Bounds, Protocol};
pub(crate) use crate::result_kind::Declared;
use crate::{DebateSpec, Error};

/// One protocol, whole.
pub(crate) struct Definition {
    pub name: &'static str,
    /// One line, for `agon protocols` and every host's picker.
    pub summary: &'static str,
    pub rounds: Rounds<'static>,
    pub seats: Seats<'static>,
    /// What readers of its transcripts need of it: the parts its seats play,
    /// the kind of each result, how a turn in its shape reads.
    pub shown: Shown,
    pub options: &'static [OptionInfo],
    /// It may stop early on agreement: its spec carries a consensus mode.
    pub reads_agreement: bool,
    /// Its counted turns are prose, so a spec's `answer` may ask them to close
    /// with an `ANSWER:` line (turns that reply in a declared shape never are).
    pub answers: bool,
    /// Its seats are roles from role files (the built-in ones when none are given).
    pub seats_are_roles: bool,
    /// Its worth is in different models disagreeing: a panel of one model is
    /// warned about, or refused ([`crate::diversity`]).
    pub needs_different_models: bool,
    /// Why a spec's `blind` means nothing in it, for the error; `None` where
    /// it holds (round 1's turns hidden from each other, or blind already).
    pub refuses_blind: Option<&'static str>,
    /// How many parts its options ask seats to play, when `sides` does not say
    /// (comparative: one per option); 0 when every seat is alike. One model
    /// given alone plays every part.
    pub parts: fn(&Options) -> usize,
    /// Valid options for a panel of `seats` seats: for tests, the fuzzer and docs.
    pub example: fn(seats: usize) -> Value,
    /// Parse and check the options against the spec; the normalized options.
    pub check: fn(&DebateSpec) -> Result<Options, Error>,
    /// The most it can ask for with this spec.
    pub bounds: fn(&DebateSpec) -> Bounds,
    pub build: fn(&DebateSpec) -> Box<dyn Protocol>,
    /// Estimated tokens its options add to every prompt (for the cost bound).
    pub prompt_tokens: fn(&DebateSpec) -> u64,
}

/// What the readers of a finished transcript need of its protocol — the
/// Markdown, the page, the format-1 migration — apart from what runs it: the
/// registry finds it without the protocol's behaviour
/// ([`registry::shown`](super::registry::shown)), so code that only reads
/// transcripts (the report component) carries no protocol's code.
#[derive(Clone, Copy)]
pub(crate) struct Shown {
    /// What each seat is, in panel order, when the protocol assigns parts
    /// (`["advocate", "challenger"]`); empty when every seat is alike.
    pub sides: &'static [&'static str],
    /// Every result it records, each with its kind: the one place a
    /// result's kind is said (a coded protocol records only through these).
    pub results: &'static [Declared],
    /// A turn's text as a person reads it, when the protocol asked for a
    /// shape (JSON) that reads poorly as it is; `None` shows the text itself.
    pub render_turn: fn(&crate::Transcript, &crate::Turn) -> Option<String>,
    /// Its judge closes the synthesis with a JSON block the protocol reads
    /// into its results: people are shown the synthesis without it.
    pub judge_closes_with_data: bool,
}

/// No parts, no results, turns and the synthesis shown as they are.
pub(crate) const PLAIN: Shown =
    Shown { sides: &[], results: &[], render_turn: |_, _| None, judge_closes_with_data: false };

/// A protocol's options as JSON, keys sorted.
pub(crate) type Options = BTreeMap<String, Value>;

/// What a round is for a protocol, its default and its maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rounds<'a> {
    pub default: u32,
    pub max: u32,
    /// What one round is, in a few words.
    pub unit: &'a str,
}

/// How many seats a protocol takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seats<'a> {
    pub min: usize,
    pub max: Option<usize>,
    /// Why, in a few words, for the error (none if empty).
    pub why: &'a str,
}

/// One option a protocol takes, as hosts describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OptionInfo {
    pub name: &'static str,
    pub kind: OptionKind,
    /// The default, in words (`"the first seat"`, `"true"`), or empty when the option is required.
    pub default: &'static str,
    /// The protocol's words: its module's, or its document's.
    pub help: Cow<'static, str>,
}

/// The option of every protocol that reads agreement (`reads_agreement`).
pub(crate) const CONSENSUS_OPTION: OptionInfo = OptionInfo {
    name: "consensus",
    kind: OptionKind::Choice(&["read", "declared", "judge", "answer"]),
    default: "declared",
    help: Cow::Borrowed(
        "How agreement is read before an early stop (judge: the judge's model confirms it; answer: the same final answer, and the vote).",
    ),
};

/// What an option holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptionKind {
    /// A seat, by id or 1-based number.
    Seat,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    Flag,
    /// One line of text.
    Text,
    /// A list of texts.
    Texts,
    /// Structured data (JSON).
    Data,
}

/// What hosts need to know about a protocol: a built-in's, from [`protocols`](super::registry::protocols),
/// or a document's, from [`document_info`](crate::document_info).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtocolInfo {
    pub name: String,
    pub summary: String,
    pub default_rounds: u32,
    pub max_rounds: u32,
    /// What one round is.
    pub round_unit: String,
    pub min_seats: u32,
    pub max_seats: Option<u32>,
    /// What each seat is, in panel order, when the protocol assigns parts.
    pub sides: Vec<String>,
    pub options: Vec<OptionInfo>,
    /// It may stop early on agreement (`protocol.consensus` applies).
    pub reads_agreement: bool,
    /// Its seats are roles from role files (the built-in ones when none are
    /// given): hosts offer a model per role, and prompts show role names.
    pub seats_are_roles: bool,
}

/// Check the panel's size and the rounds a spec asks for against a protocol's bounds.
pub(crate) fn limits(name: &str, seats: &Seats, rounds: &Rounds, spec: &DebateSpec) -> Result<(), Error> {
    let n = spec.panel.len();
    let why = if seats.why.is_empty() { String::new() } else { format!(" ({})", seats.why) };
    let outside = |bound: String| Err(Error::spec("panel", format!("{name} {bound}{why}; it has {n}")));
    if n < seats.min {
        return outside(format!("needs at least {} seats", seats.min));
    }
    if let Some(max) = seats.max.filter(|&m| n > m) {
        return outside(format!("takes at most {max} seats"));
    }
    if let Some(r) = spec.rounds.filter(|&r| r > rounds.max) {
        return Err(Error::spec(
            "rounds",
            format!("{name} runs at most {} ({}); {r} asked", plural(rounds.max, "round"), rounds.unit),
        ));
    }
    Ok(())
}

fn plural(n: u32, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// A protocol's typed options: parsed from the spec (errors name
/// `protocol.<field>`), checked beyond their types, serialized back normalized.
pub(crate) trait ProtocolOptions: Serialize + DeserializeOwned {
    /// Checks the types cannot express: seat references, counts.
    fn check(&self, _spec: &DebateSpec) -> Result<(), Error> {
        Ok(())
    }
}

/// The options of a protocol that takes none.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoOptions {}

impl ProtocolOptions for NoOptions {}

/// Parse `T` from the spec's protocol options.
pub(crate) fn parse<T: ProtocolOptions>(spec: &DebateSpec) -> Result<T, Error> {
    crate::json_read::read(&options_object(spec)).map_err(|e| crate::spec::field_error("protocol", e))
}

/// The spec's protocol options as one JSON object; not generic, so every protocol shares it.
fn options_object(spec: &DebateSpec) -> Value {
    Value::Object(crate::json_read::object(spec.protocol.options.clone()))
}

/// Parse, check and normalize `T`: the `check` of a definition.
pub(crate) fn checked<T: ProtocolOptions>(spec: &DebateSpec) -> Result<Options, Error> {
    let options: T = parse(spec)?;
    options.check(spec)?;
    match crate::order::canonical(serde_json::to_value(&options).expect("options serialize")) {
        // Filled by insertion: `collect` would instantiate a sort.
        Value::Object(map) => {
            let mut options = Options::new();
            for (key, value) in map {
                options.insert(key, value);
            }
            Ok(options)
        }
        _ => unreachable!("options are a struct"),
    }
}

/// `T` from a spec already validated.
pub(crate) fn typed<T: ProtocolOptions>(spec: &DebateSpec) -> T {
    parse(spec).expect("a validated spec's options parse")
}

/// The starting point every definition fills in.
pub(crate) const BASE: Definition = Definition {
    name: "",
    summary: "",
    rounds: Rounds { default: 1, max: 1, unit: "one pass" },
    seats: Seats { min: 1, max: None, why: "" },
    shown: PLAIN,
    options: &[],
    reads_agreement: false,
    answers: false,
    seats_are_roles: false,
    needs_different_models: false,
    refuses_blind: None,
    parts: |_| 0,
    example: |_| Value::Object(serde_json::Map::new()),
    check: checked::<NoOptions>,
    bounds: |_| unreachable!("every protocol states its bounds"),
    build: |_| unreachable!("every protocol builds itself"),
    prompt_tokens: |_| 0,
};
