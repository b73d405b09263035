//! The pieces written by hand to keep the component small, opened to the
//! differential property tests (`core/tests/json_read_differential.rs`) that
//! hold each against the standard implementation it replaces: `json_read`
//! against serde_json, `order` against the standard sorts, `svg::Fixed`
//! against `{:.N}`. Test support only: the pieces and most of the types read
//! are private, so comparisons are made here and handed out as plain data.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::definition;
use crate::protocol::registry::{self, Entry};
use crate::protocol::{adversarial, challenge, comparative, document, priority_vote, rotating_challenger};

/// A type the engine reads from JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Spec,
    SpecRequest,
    Document,
    JournalHeader,
    JournalInput,
    Transcript,
    Event,
    CallTiming,
    SeatRef,
    ConsensusMode,
    /// The protocol options of the protocol so named (the spec's `protocol`
    /// object without `name`); a name no built-in has reads as a document's.
    Options(&'static str),
}

/// What each reader made of one value. A value read is written out as its
/// `Debug` form where the type has one (every field, floats exactly), else as
/// serialized JSON: equal text means equal values.
#[derive(Debug)]
pub struct Reading {
    /// json_read's value, or the path it named and its reason.
    pub json_read: Result<String, (String, String)>,
    pub serde_json: Result<String, String>,
}

/// Read `value` as `shape` with both readers.
pub fn read_both(shape: Shape, value: &Value) -> Reading {
    match shape {
        Shape::Spec => both::<crate::DebateSpec>(value, debug),
        Shape::SpecRequest => both::<crate::SpecRequest>(value, debug),
        Shape::Document => both::<document::Document>(value, debug),
        Shape::JournalHeader => both::<crate::journal::Header>(value, json),
        Shape::JournalInput => both::<crate::Input>(value, debug),
        Shape::Transcript => both::<crate::Transcript>(value, debug),
        Shape::Event => both::<crate::Event>(value, debug),
        Shape::CallTiming => both::<crate::picture::CallTiming>(value, debug),
        Shape::SeatRef => both::<crate::SeatRef>(value, debug),
        Shape::ConsensusMode => both::<crate::ConsensusMode>(value, debug),
        Shape::Options(name) => match name {
            "adversarial" => both::<adversarial::Options>(value, json),
            "challenge" => both::<challenge::Options>(value, json),
            "comparative" => both::<comparative::Options>(value, json),
            "priority-vote" => both::<priority_vote::Options>(value, json),
            "rotating-challenger" => both::<rotating_challenger::Options>(value, json),
            // A built-in document reads its options key by key from the map
            // (`adversary` as a SeatRef, `consensus` as a ConsensusMode: shapes of their own).
            _ if registry::REGISTRY.iter().any(|e| matches!(e, Entry::Document(n) if *n == name)) => {
                both::<std::collections::BTreeMap<String, Value>>(value, json)
            }
            _ if registry::lookup(name).is_ok() => both::<definition::NoOptions>(value, json),
            _ => both::<document::spec_option::Options>(value, json),
        },
    }
}

fn both<T: DeserializeOwned>(value: &Value, write: fn(&T) -> String) -> Reading {
    Reading {
        json_read: crate::json_read::read::<T>(value)
            .map(|t| write(&t))
            .map_err(|e| (e.path().to_string(), e.reason())),
        serde_json: serde_json::from_value::<T>(value.clone()).map(|t| write(&t)).map_err(|e| e.to_string()),
    }
}

fn debug<T: Debug>(t: &T) -> String {
    format!("{t:?}")
}

fn json<T: Serialize>(t: &T) -> String {
    serde_json::to_string(t).expect("a value read serializes")
}

/// `order::sort_by`: the engine's one stable sort.
pub fn sort_by<T>(items: &mut [T], compare: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    crate::order::sort_by(items, compare)
}

/// `order::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl FnMut(&T) -> K) {
    crate::order::sort_by_key(items, key)
}

/// `order::sort`.
pub fn sort<T: Ord>(items: &mut [T]) {
    crate::order::sort(items)
}

/// `value` written with `places` decimals as pictures write coordinates (`svg::Fixed`).
pub fn fixed(value: f64, places: u32) -> String {
    crate::picture::svg::Fixed(value, places).to_string()
}
