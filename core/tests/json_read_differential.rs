//! The pieces written by hand to keep the component small, each held against
//! the standard implementation it replaces (issue 34): the JSON reader
//! against serde_json, the sort against the standard stable sort, and
//! `svg::Fixed` against `{:.N}`.
//!
//! The JSON reader is fed every golden spec, journal line, event line and
//! transcript, every built-in and example document, the picture timings, and
//! random mutations of them. For each value, both readers must read the same
//! thing, or both refuse it, json_read naming a path that is in the value and
//! on the way to what was changed. One difference is by design and allowed:
//! serde_json reads a struct from an array of its fields in order, json_read
//! only from an object.
//!
//! Every document and golden spec also takes every one of a few edits at
//! every place, exhaustively: the random edits reach rare shapes (a struct
//! variant) too seldom at 256 cases to be relied on alone.
//!
//! Case counts are kept small (256 a property) so the test command stays
//! fast: the whole file runs in one to three seconds in a debug build.

use std::path::{Path, PathBuf};

use agon_core::BUILTIN_DOCUMENTS;
use agon_core::differential::{self, Reading, Shape};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------
// The corpus: every JSON the repository keeps, each with the type it is read as.

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// A spec's protocol options as each protocol reads them: the object without `name`.
fn options_of(spec: &Value) -> Option<(Shape, Value)> {
    let mut protocol = spec.get("protocol")?.as_object()?.clone();
    let name = protocol.remove("name")?.as_str()?.to_string();
    // The shape wants a 'static name; the corpus is built once per test run.
    Some((Shape::Options(Box::leak(name.into_boxed_str())), Value::Object(protocol)))
}

/// What a spec holds that the engine reads again on its own: the protocol
/// options, a carried document, the consensus mode, the adversary.
fn spec_parts(spec: &Value, from: &str, out: &mut Vec<(Shape, Value, String)>) {
    out.push((Shape::Spec, spec.clone(), from.to_string()));
    if let Some((shape, options)) = options_of(spec) {
        for (key, shape) in
            [("document", Shape::Document), ("consensus", Shape::ConsensusMode), ("adversary", Shape::SeatRef)]
        {
            if let Some(part) = options.get(key) {
                out.push((shape, part.clone(), format!("{from} protocol.{key}")));
            }
        }
        out.push((shape, options, format!("{from} protocol options")));
    }
    out.push((Shape::SpecRequest, request_from(spec), format!("{from} as a request")));
}

/// A spec request describing the same debate, for the one type no file holds.
fn request_from(spec: &Value) -> Value {
    let mut request = Map::new();
    for key in ["question", "context", "rounds", "seed", "limits", "prices", "max_cost"] {
        if let Some(v) = spec.get(key) {
            request.insert(key.into(), v.clone());
        }
    }
    let models: Vec<Value> =
        spec["panel"].as_array().into_iter().flatten().filter_map(|seat| seat.get("model").cloned()).collect();
    request.insert("models".into(), Value::Array(models));
    if let Some(judge) = spec.get("judge").and_then(|j| j.get("model")) {
        request.insert("judge".into(), judge.clone());
    }
    if let Some((_, options)) = options_of(spec) {
        request.insert("protocol".into(), spec["protocol"]["name"].clone());
        request.insert("options".into(), options);
    }
    Value::Object(request)
}

fn corpus() -> Vec<(Shape, Value, String)> {
    let mut out = Vec::new();
    let golden = root().join("tests/golden");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&golden).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 20, "the golden cases moved: {}", golden.display());
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        spec_parts(&json_file(&case.join("spec.json")), &format!("{name}/spec.json"), &mut out);
        for (i, line) in json_lines(&case.join("journal.ndjson")).into_iter().enumerate() {
            let from = format!("{name}/journal.ndjson:{}", i + 1);
            if i == 0 {
                spec_parts(&line["spec"], &format!("{from} spec"), &mut out);
                out.push((Shape::JournalHeader, line, from));
            } else {
                out.push((Shape::JournalInput, line, from));
            }
        }
        for (i, line) in json_lines(&case.join("events.ndjson")).into_iter().enumerate() {
            out.push((Shape::Event, line, format!("{name}/events.ndjson:{}", i + 1)));
        }
        out.push((Shape::Transcript, json_file(&case.join("transcript.json")), format!("{name}/transcript.json")));
    }
    for (name, text) in BUILTIN_DOCUMENTS {
        out.push((Shape::Document, serde_json::from_str(text).unwrap(), format!("built-in {name}")));
    }
    // The JSON example; its TOML and YAML siblings are read by the hosts, not the core.
    let example = root().join("examples/protocols/design-review.json");
    out.push((Shape::Document, json_file(&example), "examples/protocols/design-review.json".into()));
    for (i, line) in json_lines(&root().join("tests/pictures/timeline/timings.ndjson")).into_iter().enumerate() {
        out.push((Shape::CallTiming, line, format!("timings.ndjson:{}", i + 1)));
    }
    // The adversary picks no file spells out, so every form of that enum is met.
    let picks = [json!({"rotate": {"start": 1, "step": 1}}), json!({"seat": 2})];
    let with_adversary: Vec<(Value, String)> = out
        .iter()
        .filter(|(shape, v, _)| *shape == Shape::Document && v.pointer("/adversary/pick").is_some())
        .map(|(_, v, from)| (v.clone(), from.clone()))
        .collect();
    for (document, from) in with_adversary {
        for pick in &picks {
            let mut document = document.clone();
            document["adversary"]["pick"] = pick.clone();
            out.push((Shape::Document, document, format!("{from} with pick {pick}")));
        }
    }
    out
}

fn shared_corpus() -> &'static [(Shape, Value, String)] {
    static CORPUS: std::sync::OnceLock<Vec<(Shape, Value, String)>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(corpus)
}

// ---------------------------------------------------------------------------
// Paths, written as json_read writes them: `phases[2].turns[0].prompt`.

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn render(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if out.is_empty() => out.push_str(k),
            Seg::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Every place in `value`, the top first, parents before their children.
fn places(value: &Value) -> Vec<Vec<Seg>> {
    fn walk(value: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
        out.push(at.clone());
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    at.push(Seg::Index(i));
                    walk(item, at, out);
                    at.pop();
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    at.push(Seg::Key(key.clone()));
                    walk(item, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'v>(value: &'v mut Value, path: &[Seg]) -> &'v mut Value {
    path.iter().fold(value, |v, seg| match seg {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(i) => &mut v[*i],
    })
}

fn at<'v>(value: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, seg| match seg {
        Seg::Key(k) => v.get(k.as_str()),
        Seg::Index(i) => v.get(*i),
    })
}

// ---------------------------------------------------------------------------
// Mutations.

#[derive(Debug, Clone)]
enum Mutation {
    /// Drop the member at the place (a required field goes missing).
    DeleteKey,
    /// Put in a value of another kind.
    Replace(Value),
    /// A number as text, negated, made huge or fractional.
    NumberAsString,
    Negate,
    Fractional,
    /// Add a member no type declares, to the object at (or holding) the place.
    InsertKey(String, Value),
    /// Keep only the first `n` elements of the array at (or holding) the place.
    Truncate(usize),
    /// Wrap the value one level deeper: `[v]` or `{"value": v}`.
    WrapInArray,
    WrapInObject,
    /// An object written as the array of its values, in order.
    ObjectAsArray,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let odd_value = prop_oneof![
        Just(Value::Null),
        Just(json!(true)),
        Just(json!(false)),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(4294967296u64)),
        Just(json!(1.5)),
        Just(json!(1e300)),
        Just(json!(-0.0)),
        Just(json!("")),
        Just(json!("text")),
        Just(json!("each")),
        Just(json!([])),
        Just(json!([1, "a"])),
        Just(json!({})),
        Just(json!({"name": "round-robin"})),
    ];
    let key = prop_oneof![
        Just("unknown".to_string()),
        Just("name".to_string()),
        Just("type".to_string()),
        Just("".to_string()),
        "[a-z_]{1,8}",
    ];
    prop_oneof![
        3 => Just(Mutation::DeleteKey),
        4 => odd_value.clone().prop_map(Mutation::Replace),
        1 => Just(Mutation::NumberAsString),
        1 => Just(Mutation::Negate),
        1 => Just(Mutation::Fractional),
        2 => (key, odd_value).prop_map(|(k, v)| Mutation::InsertKey(k, v)),
        1 => (0usize..3).prop_map(Mutation::Truncate),
        1 => Just(Mutation::WrapInArray),
        1 => Just(Mutation::WrapInObject),
        1 => Just(Mutation::ObjectAsArray),
    ]
}

/// Whether `mutation` can be made at `place`.
fn fits(value: &Value, place: &[Seg], mutation: &Mutation) -> bool {
    let Some(target) = at(value, place) else { return false };
    match mutation {
        Mutation::DeleteKey => matches!(place.last(), Some(Seg::Key(_))),
        Mutation::NumberAsString | Mutation::Negate | Mutation::Fractional => target.is_number(),
        Mutation::InsertKey(..) | Mutation::ObjectAsArray => target.is_object(),
        Mutation::Truncate(_) => target.is_array(),
        Mutation::Replace(_) | Mutation::WrapInArray | Mutation::WrapInObject => true,
    }
}

/// Apply `mutation` at `place` (or the nearest place it makes sense for);
/// returns the place that changed, or `None` when it did not apply.
fn apply(value: &mut Value, place: &[Seg], mutation: &Mutation) -> Option<Vec<Seg>> {
    if let Mutation::DeleteKey = mutation {
        let (Seg::Key(key), parent) = place.split_last()? else { return None };
        at_mut(value, parent).as_object_mut()?.remove(key)?;
        return Some(place.to_vec());
    }
    let target = at_mut(value, place);
    match mutation {
        Mutation::DeleteKey => unreachable!("handled above"),
        Mutation::Replace(v) => *target = v.clone(),
        Mutation::NumberAsString => *target = Value::String(target.as_number()?.to_string()),
        Mutation::Negate => {
            let n = target.as_number()?;
            *target = match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => json!(i.checked_neg().unwrap_or(i64::MIN)),
                (None, Some(f)) => json!(-f),
                _ => return None,
            };
        }
        Mutation::Fractional => *target = json!(target.as_f64()? + 0.25),
        Mutation::InsertKey(key, v) => {
            target.as_object_mut()?.insert(key.clone(), v.clone());
            let mut changed = place.to_vec();
            changed.push(Seg::Key(key.clone()));
            return Some(changed);
        }
        Mutation::Truncate(n) => target.as_array_mut()?.truncate(*n),
        Mutation::WrapInArray => *target = json!([target.take()]),
        Mutation::WrapInObject => *target = json!({"value": target.take()}),
        Mutation::ObjectAsArray => {
            let values: Vec<Value> = target.as_object()?.values().cloned().collect();
            *target = Value::Array(values);
        }
    }
    Some(place.to_vec())
}

// ---------------------------------------------------------------------------
// The verdict.

/// Why the two readings of `value` disagree, or `None` when they agree.
/// `changed` is the place a mutation changed, when the value before it read.
fn disagreement(value: &Value, reading: &Reading, changed: Option<&[Seg]>) -> Option<String> {
    match (&reading.json_read, &reading.serde_json) {
        (Ok(ours), Ok(theirs)) => {
            (ours != theirs).then(|| format!("both read, differently:\n  json_read:  {ours}\n  serde_json: {theirs}"))
        }
        (Err((path, reason)), Ok(_)) => {
            // By design: a struct is read from an object only (json_read keeps
            // no `visit_seq` for structs, for size); serde_json also takes an array.
            let refused_array = reason.starts_with("invalid type: sequence, expected struct ")
                && at_path(value, path).is_some_and(Value::is_array);
            (!refused_array).then(|| format!("json_read refused what serde_json read: {path:?}: {reason}"))
        }
        (Ok(ours), Err(theirs)) => {
            let ours: String = ours.chars().take(300).collect();
            Some(format!("json_read read what serde_json refused ({theirs}): {ours}…"))
        }
        (Err((path, reason)), Err(theirs)) => {
            if at_path(value, path).is_none() {
                return Some(format!("json_read names {path:?}, which is not in the value ({reason})"));
            }
            if !same_reason(value, path, reason, theirs) {
                return Some(format!("the reasons differ: json_read {path:?}: {reason}; serde_json: {theirs}"));
            }
            let changed = changed?;
            // The error is on the way to the change: at it, above it, or inside what was put there.
            let on_the_way = places(value).iter().filter(|p| render(p) == *path).any(|p| {
                let n = p.len().min(changed.len());
                p[..n] == changed[..n]
            });
            (!on_the_way).then(|| {
                format!("json_read names {path:?}, off the way to the change at {:?} ({reason})", render(changed))
            })
        }
    }
}

/// Whether both readers gave the same reason: word for word, but where
/// json_read refused a struct written as an array (serde_json read on, and
/// failed on something inside), and where json_read names the variant it
/// expected (`struct variant Pick::Rotate`) and serde_json does not.
fn same_reason(value: &Value, path: &str, ours: &str, theirs: &str) -> bool {
    let refused_array = ours.starts_with("invalid type: sequence, expected struct ")
        && at_path(value, path).is_some_and(Value::is_array);
    let named_variant = ours.strip_prefix(theirs).is_some_and(|rest| {
        (theirs.ends_with("struct variant") || theirs.ends_with("tuple variant"))
            && rest.strip_prefix(' ').is_some_and(|name| name.split("::").count() == 2)
    });
    ours == theirs || refused_array || named_variant
}

/// The value at a path json_read wrote, found by matching the places'
/// rendering (a key holding `.` or `[` makes the text ambiguous; any match will do).
fn at_path<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    places(value).into_iter().find(|p| render(p) == path).and_then(|p| at(value, &p))
}

#[test]
fn every_file_reads_the_same_through_both_readers() {
    let corpus = shared_corpus();
    for (shape, value, from) in corpus {
        let reading = differential::read_both(*shape, value);
        assert!(reading.json_read.is_ok(), "{from} ({shape:?}): json_read refused it: {:?}", reading.json_read);
        if let Some(why) = disagreement(value, &reading, None) {
            panic!("{from} ({shape:?}): {why}");
        }
    }
    // Every type the engine reads from JSON is in the corpus at least once.
    assert_eq!(kinds(corpus).len(), 11, "{:?}", kinds(corpus));
}

/// A shape without its protocol name: the type family it reads.
fn kind(shape: Shape) -> String {
    format!("{shape:?}").split('(').next().unwrap().to_string()
}

fn kinds(corpus: &[(Shape, Value, String)]) -> Vec<String> {
    let mut kinds: Vec<String> = corpus.iter().map(|(s, ..)| kind(*s)).collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// Every document and golden spec (with its options and its request),
/// every place in it, each of the edits most likely to find a reader taking
/// a shape it should not: all of them, not a sample.
#[test]
fn every_single_edit_of_every_document_and_spec() {
    let edits = [
        Mutation::DeleteKey,
        Mutation::Replace(Value::Null),
        Mutation::Replace(json!(false)),
        Mutation::Replace(json!("text")),
        Mutation::Replace(json!([])),
        Mutation::WrapInArray,
        Mutation::ObjectAsArray,
        Mutation::InsertKey("unknown".into(), json!(1)),
    ];
    let mut reads = 0;
    let swept = |(shape, _, from): &&(Shape, Value, String)| {
        *shape == Shape::Document || from.contains("/spec.json") && !from.contains(" protocol.")
    };
    for (shape, original, from) in shared_corpus().iter().filter(swept) {
        for place in places(original) {
            for edit in edits.iter().filter(|e| fits(original, &place, e)) {
                let mut value = original.clone();
                let changed = apply(&mut value, &place, edit).expect("it fits");
                let reading = differential::read_both(*shape, &value);
                if let Some(why) = disagreement(&value, &reading, Some(&changed)) {
                    panic!("{from}: {edit:?} at {:?}: {why}", render(&place));
                }
                reads += 1;
            }
        }
    }
    assert!(reads > 1000, "only {reads} edits made");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Mutated files read the same through both readers, or both refuse them
    /// with json_read pointing on the way to the change.
    #[test]
    fn mutated_files_read_the_same_or_fail_at_the_change(
        kind_pick in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), mutation()), 1..3),
    ) {
        // A type first, then one of its values: event and journal lines
        // outnumber documents a hundred to one.
        let corpus = shared_corpus();
        let kinds = kinds(corpus);
        let of_kind: Vec<&(Shape, Value, String)> =
            corpus.iter().filter(|(s, ..)| kind(*s) == kinds[kind_pick.index(kinds.len())]).collect();
        let (shape, original, from) = of_kind[pick.index(of_kind.len())];
        let mut value = original.clone();
        let mut changed = Vec::new();
        for (where_, mutation) in &edits {
            let fitting: Vec<Vec<Seg>> = places(&value).into_iter().filter(|p| fits(&value, p, mutation)).collect();
            if fitting.is_empty() {
                continue;
            }
            if let Some(place) = apply(&mut value, &fitting[where_.index(fitting.len())], mutation) {
                changed.push(place);
            }
        }
        // The change's place is only meaningful for a single edit (the original always reads).
        let one = (changed.len() == 1).then(|| changed[0].as_slice());
        let reading = differential::read_both(*shape, &value);
        if let Some(why) = disagreement(&value, &reading, one) {
            prop_assert!(false, "{} ({:?}) after {:?}: {}", from, shape, edits, why);
        }
    }
}

// ---------------------------------------------------------------------------
// order.rs against the standard stable sort.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any comparison, any keys (few distinct ones, so ties are many): the
    /// same order as `slice::sort_by`, equal items kept in their order.
    #[test]
    fn order_sorts_as_the_standard_stable_sort(
        items in prop::collection::vec((0u8..8, "[a-c]{0,3}", any::<u32>()), 0..300),
        descending in any::<bool>(),
    ) {
        let by = |a: &(u8, String, u32), b: &(u8, String, u32)| {
            let order = a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1));
            if descending { order.reverse() } else { order }
        };
        let mut ours = items.clone();
        differential::sort_by(&mut ours, by);
        let mut theirs = items.clone();
        theirs.sort_by(by);
        prop_assert_eq!(&ours, &theirs);

        let mut ours = items.clone();
        differential::sort_by_key(&mut ours, |t| t.1.clone());
        let mut theirs = items.clone();
        theirs.sort_by_key(|t| t.1.clone());
        prop_assert_eq!(&ours, &theirs);

        let mut ours: Vec<String> = items.iter().map(|t| t.1.clone()).collect();
        differential::sort(&mut ours);
        let mut theirs: Vec<String> = items.iter().map(|t| t.1.clone()).collect();
        theirs.sort();
        prop_assert_eq!(ours, theirs);
    }
}

// ---------------------------------------------------------------------------
// svg::Fixed against `{:.N}`.

/// Whether `ours` and `std` differ only as `Fixed` documents: by one unit in
/// the last place where scaling made an exact half of what was not one (so
/// ties-to-even went the other way), or in the sign of a zero (`Fixed` never
/// writes `-0`).
fn documented_difference(value: f64, places: u32, ours: &str, std: &str) -> bool {
    if std.strip_prefix('-') == Some(ours) && ours.chars().all(|c| c == '0' || c == '.') {
        return true;
    }
    let digits = |s: &str| s.replace('.', "").parse::<i128>().unwrap();
    let scaled = value * 10f64.powi(places as i32);
    let made_a_half = (scaled - scaled.trunc()).abs() == 0.5;
    // The value's exact decimal digits past the last place: a true tie is 5 then zeros.
    let exact = format!("{value:.prec$}", prec = places as usize + 80);
    let rest = &exact[exact.len() - 80..];
    let true_tie = rest.starts_with('5') && rest[1..].bytes().all(|b| b == b'0');
    (digits(ours) - digits(std)).abs() == 1 && made_a_half && !true_tie
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Finite values to zero to four places, scaled at most to 10^12 (a double
    /// holds the scaled value to well under a unit; coordinates stay below
    /// 10^5): as `{:.N}` writes them, but for the documented differences.
    #[test]
    fn fixed_writes_as_the_float_formatter_does(
        value in prop_oneof![-1e3f64..1e3, -1e8f64..1e8, (-2000i64..2000).prop_map(|n| n as f64 / 8.0)],
        places in 0u32..5,
    ) {
        let ours = differential::fixed(value, places);
        let std = format!("{value:.prec$}", prec = places as usize);
        prop_assert!(ours == std || documented_difference(value, places, &ours, &std), "{value} to {places}: {ours} vs {std}");
    }
}

#[test]
fn fixed_differs_from_the_float_formatter_only_as_documented() {
    // The documented half: 0.15 is 0.1499… in binary, but ×10 is 1.5 exactly.
    assert_eq!((differential::fixed(0.15, 1), format!("{:.1}", 0.15)), ("0.2".into(), "0.1".into()));
    // The sign of a zero: Fixed writes `0.0` for what rounds to zero from below.
    assert_eq!((differential::fixed(-0.04, 1), format!("{:.1}", -0.04)), ("0.0".into(), "-0.0".into()));
}
