//! Reading a parsed JSON [`Value`] into a type, and naming where it failed.
//!
//! Every type the engine reads from JSON goes through this one deserializer:
//! text is parsed into a `Value` first, then read here. serde instantiates a
//! type's `Deserialize` code once per deserializer it meets, and that code is
//! much of the component's size, so one deserializer keeps it once. (A
//! path-tracking wrapper around serde_json's deserializers, as before, kept it
//! three times over and added 110 KB of its own.)
//!
//! Paths read as a host would write them: `phases[2].turns[0].prompt`, and the
//! empty string at the top.
//!
//! It reads what `serde_json::from_value` reads, with the same reasons, but
//! for one thing: a struct is read from an object only, never from the array
//! of its fields serde_json also takes. `core/tests/json_read_differential.rs`
//! holds it to that on every file the repository keeps, and on mutations.

use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, Deserialize, DeserializeSeed, Visitor};
use serde_json::{Map, Number, Value};

/// Read `T` from `value`; on failure, where and why.
pub(crate) fn read<'a, T: Deserialize<'a>>(value: &'a Value) -> Result<T, Misread> {
    T::deserialize(At { value, trail: &Trail::Root })
}

/// Parse `text` as JSON and read `T` from it: for inputs that need no field
/// path in their errors (journal lines), with the path put in front of the
/// reason when there is one.
pub(crate) fn from_str<T: for<'a> Deserialize<'a>>(text: &str) -> Result<T, String> {
    let value = parse(text).map_err(|e| e.to_string())?;
    read(&value).map_err(|e| e.to_string())
}

/// A JSON object from its entries, inserted one by one: `collect()` into a
/// map sorts first, and each sort is one more monomorphized sort in the
/// component.
pub(crate) fn object(entries: impl IntoIterator<Item = (String, Value)>) -> Map<String, Value> {
    let mut object = Map::new();
    for (key, value) in entries {
        object.insert(key, value);
    }
    object
}

/// JSON text as a `Value`, refusing an object that names a key twice.
/// serde_json keeps the last one silently; a spec that sets `rounds` twice
/// is a mistake to point at, not to guess about. (Model replies are read
/// leniently elsewhere: this is for what people and hosts write.)
pub(crate) fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|strict| strict.0)
}

/// A `Value` whose objects have no repeated key.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::from(i))
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(Value::from(u))
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            if object.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Why a value could not be read, and the path of the value that failed.
#[derive(Debug)]
pub(crate) struct Misread {
    /// serde_json's error type, so messages read as serde_json's own do
    /// (`invalid type: null, expected u32`).
    reason: serde_json::Error,
    /// Set by the innermost value that saw the error; `None` until then.
    path: Option<String>,
}

impl Misread {
    /// The path of the value that failed; empty for the top level.
    pub(crate) fn path(&self) -> &str {
        self.path.as_deref().unwrap_or("")
    }

    /// Why, without the path.
    pub(crate) fn reason(&self) -> String {
        self.reason.to_string()
    }

    fn at(mut self, trail: &Trail) -> Misread {
        if self.path.is_none() {
            self.path = Some(trail.to_string());
        }
        self
    }
}

impl fmt::Display for Misread {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.path() {
            "" => write!(f, "{}", self.reason),
            path => write!(f, "{path}: {}", self.reason),
        }
    }
}

impl std::error::Error for Misread {}

impl de::Error for Misread {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Misread { reason: <serde_json::Error as de::Error>::custom(msg), path: None }
    }

    fn invalid_type(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Misread { reason: <serde_json::Error as de::Error>::invalid_type(unexpected, expected), path: None }
    }

    fn invalid_value(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Misread { reason: <serde_json::Error as de::Error>::invalid_value(unexpected, expected), path: None }
    }
}

/// The way from the top to the value being read, kept on the stack: nothing
/// is allocated unless reading fails.
enum Trail<'t> {
    Root,
    Key(&'t Trail<'t>, &'t str),
    Index(&'t Trail<'t>, usize),
}

impl fmt::Display for Trail<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Trail::Root => Ok(()),
            Trail::Key(Trail::Root, key) => f.write_str(key),
            Trail::Key(parent, key) => write!(f, "{parent}.{key}"),
            Trail::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// A value and where it is.
struct At<'a, 't> {
    value: &'a Value,
    trail: &'t Trail<'t>,
}

fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value, Misread> {
    if let Some(u) = n.as_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.as_i64() {
        visitor.visit_i64(i)
    } else {
        visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

impl<'de> At<'de, '_> {
    fn visit_array<V: Visitor<'de>>(&self, items: &'de [Value], visitor: V) -> Result<V::Value, Misread> {
        let mut access = Items { items: items.iter(), index: 0, trail: self.trail };
        let out = visitor.visit_seq(&mut access)?;
        match access.items.len() {
            0 => Ok(out),
            _ => Err(de::Error::invalid_length(items.len(), &"fewer elements in array")),
        }
    }

    fn visit_object<V: Visitor<'de>>(&self, map: &'de Map<String, Value>, visitor: V) -> Result<V::Value, Misread> {
        let mut access = Entries { entries: map.iter(), pending: None, trail: self.trail };
        let out = visitor.visit_map(&mut access)?;
        match access.entries.len() {
            0 => Ok(out),
            _ => Err(de::Error::invalid_length(map.len(), &"fewer elements in map")),
        }
    }

    fn mismatch(&self, expected: &dyn de::Expected) -> Misread {
        <Misread as de::Error>::invalid_type(unexpected(self.value), expected)
    }
}

/// Every number reads the same way: the visitor says which kinds it takes.
macro_rules! every_number_as_u64 {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
            self.deserialize_u64(visitor)
        })*
    };
}

/// Each typed `deserialize_*` calls only the visitor methods its kind of
/// value can need (a struct's `visit_map`, never its `visit_seq`): serde
/// instantiates every visitor method a deserializer calls, once per type, so
/// the catch-all `deserialize_any` is kept for the few that need it (`Value`,
/// internally tagged and untagged enums).
impl<'de> de::Deserializer<'de> for At<'de, '_> {
    type Error = Misread;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => self.visit_array(items, visitor),
            Value::Object(map) => self.visit_object(map, visitor),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::Bool(b) => visitor.visit_bool(*b),
            _ => Err(self.mismatch(&visitor)),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::Number(n) => visit_number(n, visitor),
            _ => Err(self.mismatch(&visitor)),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(self.mismatch(&visitor)),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(self.mismatch(&visitor)),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            _ => Err(self.mismatch(&visitor)),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        let read = match self.value {
            Value::Object(map) => self.visit_object(map, visitor),
            _ => Err(self.mismatch(&visitor)),
        };
        read.map_err(|e| e.at(self.trail))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        match self.value {
            Value::Null => visitor.visit_none().map_err(|e: Misread| e.at(self.trail)),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &str, visitor: V) -> Result<V::Value, Misread> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Misread> {
        let trail = self.trail;
        let read = match self.value {
            Value::String(name) => visitor.visit_enum(BorrowedStrDeserializer::<Misread>::new(name)),
            Value::Object(map) => match map.iter().next() {
                Some((name, value)) if map.len() == 1 => visitor.visit_enum(Variant { name, value, trail }),
                _ => Err(de::Error::invalid_value(de::Unexpected::Map, &"map with a single key")),
            },
            other => Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        };
        read.map_err(|e| e.at(trail))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        visitor.visit_unit()
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Misread> {
        self.deserialize_map(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Misread> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Misread> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Misread> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        self.deserialize_str(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Misread> {
        self.deserialize_str(visitor)
    }

    serde::forward_to_deserialize_any! { bytes byte_buf }
    every_number_as_u64! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u128 deserialize_f32 deserialize_f64
    }
}
fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => de::Unexpected::Unsigned(u),
            (_, Some(i)) => de::Unexpected::Signed(i),
            _ => de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

/// An array's elements, each at its index.
struct Items<'a, 't> {
    items: std::slice::Iter<'a, Value>,
    index: usize,
    trail: &'t Trail<'t>,
}

impl<'de> de::SeqAccess<'de> for Items<'de, '_> {
    type Error = Misread;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Misread> {
        let Some(value) = self.items.next() else { return Ok(None) };
        let trail = Trail::Index(self.trail, self.index);
        self.index += 1;
        seed.deserialize(At { value, trail: &trail }).map(Some).map_err(|e| e.at(&trail))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's entries, each value at its key. A key that cannot be read
/// (an unknown field) fails at its own path, so the error names it.
struct Entries<'a, 't> {
    entries: serde_json::map::Iter<'a>,
    pending: Option<(&'a str, &'a Value)>,
    trail: &'t Trail<'t>,
}

impl<'de> de::MapAccess<'de> for Entries<'de, '_> {
    type Error = Misread;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Misread> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.pending = Some((key, value));
        let at_key = Trail::Key(self.trail, key);
        seed.deserialize(BorrowedStrDeserializer::<Misread>::new(key)).map(Some).map_err(|e| e.at(&at_key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Misread> {
        let (key, value) = self.pending.take().ok_or_else(|| de::Error::custom("a value was read before its key"))?;
        let trail = Trail::Key(self.trail, key);
        seed.deserialize(At { value, trail: &trail }).map_err(|e| e.at(&trail))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum's `{"variant": value}`; the value is at the variant's name.
struct Variant<'a, 't> {
    name: &'a str,
    value: &'a Value,
    trail: &'t Trail<'t>,
}

impl<'de, 't> de::EnumAccess<'de> for Variant<'de, 't> {
    type Error = Misread;
    type Variant = Variant<'de, 't>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant), Misread> {
        let variant = seed.deserialize(BorrowedStrDeserializer::<Misread>::new(self.name))?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'de, '_> {
    type Error = Misread;

    fn unit_variant(self) -> Result<(), Misread> {
        let trail = Trail::Key(self.trail, self.name);
        <()>::deserialize(At { value: self.value, trail: &trail })
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Misread> {
        let trail = Trail::Key(self.trail, self.name);
        seed.deserialize(At { value: self.value, trail: &trail })
    }

    // A tuple variant's value is an array and a struct variant's an object,
    // as serde_json has them: through `deserialize_any`, a struct variant
    // also took `[1, 2]` for `{"start": 1, "step": 2}`.
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Misread> {
        let trail = Trail::Key(self.trail, self.name);
        de::Deserializer::deserialize_seq(At { value: self.value, trail: &trail }, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Misread> {
        let trail = Trail::Key(self.trail, self.name);
        de::Deserializer::deserialize_map(At { value: self.value, trail: &trail }, visitor)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        name: String,
        #[serde(default)]
        items: Vec<Inner>,
        #[serde(default)]
        kind: Option<Kind>,
        #[serde(default)]
        table: BTreeMap<String, u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        weight: u32,
        #[serde(default)]
        tags: Vec<String>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    enum Kind {
        Plain,
        Scaled(f64),
        Pair { low: u32, high: u32 },
    }

    fn misread(v: Value) -> (String, String) {
        let e = read::<Outer>(&v).unwrap_err();
        (e.path().to_string(), e.reason())
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let v = json!({
            "name": "n",
            "items": [{"weight": 1, "tags": ["x"]}, {"weight": 2}],
            "kind": {"pair": {"low": 1, "high": 2}},
            "table": {"a": 3},
        });
        let ours: Outer = read(&v).unwrap();
        let theirs: Outer = serde_json::from_value(v).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(read::<Kind>(&json!("plain")).unwrap(), Kind::Plain);
        assert_eq!(read::<Kind>(&json!({"scaled": 1.5})).unwrap(), Kind::Scaled(1.5));
        assert_eq!(read::<Value>(&v_with_numbers()).unwrap(), v_with_numbers());
    }

    fn v_with_numbers() -> Value {
        json!({"u": 18446744073709551615u64, "i": -3, "f": 0.25, "n": null, "b": [true, "s"]})
    }

    #[test]
    fn names_the_path_of_a_wrong_type() {
        let (path, reason) = misread(json!({"name": "n", "items": [{"weight": 1}, {"weight": "heavy"}]}));
        assert_eq!(path, "items[1].weight");
        assert_eq!(reason, "invalid type: string \"heavy\", expected u32");
    }

    #[test]
    fn null_reads_as_null_as_serde_json_says_it() {
        let (path, reason) = misread(json!({"name": null}));
        assert_eq!(path, "name");
        assert_eq!(reason, "invalid type: null, expected a string");
    }

    #[test]
    fn an_unknown_field_is_named_in_the_path() {
        let (path, reason) = misread(json!({"name": "n", "items": [{"weight": 1, "wieght": 2}]}));
        assert_eq!(path, "items[0].wieght");
        assert!(reason.starts_with("unknown field `wieght`"), "{reason}");
    }

    #[test]
    fn a_missing_field_fails_at_its_object() {
        let (path, reason) = misread(json!({"name": "n", "items": [{}]}));
        assert_eq!(path, "items[0]");
        assert_eq!(reason, "missing field `weight`");
        let (path, reason) = misread(json!({}));
        assert_eq!((path.as_str(), reason.as_str()), ("", "missing field `name`"));
    }

    #[test]
    fn a_variant_value_is_at_the_variant_name() {
        let (path, reason) = misread(json!({"name": "n", "kind": {"pair": {"low": 1, "high": -2}}}));
        assert_eq!(path, "kind.pair.high");
        assert_eq!(reason, "invalid value: integer `-2`, expected u32");
        let (path, reason) = misread(json!({"name": "n", "kind": "sideways"}));
        assert_eq!(path, "kind");
        assert!(reason.starts_with("unknown variant `sideways`"), "{reason}");
        let (path, _) = misread(json!({"name": "n", "kind": {"plain": null, "scaled": 1.0}}));
        assert_eq!(path, "kind");
    }

    #[test]
    fn a_struct_variant_is_an_object_and_a_tuple_variant_an_array() {
        // serde_json refuses both; json_read took the array until the
        // differential test (core/tests/json_read_differential.rs) caught it.
        let (path, reason) = misread(json!({"name": "n", "kind": {"pair": [1, 2]}}));
        assert_eq!(path, "kind.pair");
        assert_eq!(reason, "invalid type: sequence, expected struct variant Kind::Pair");
        assert!(serde_json::from_value::<Kind>(json!({"pair": [1, 2]})).is_err());
        assert_eq!(read::<Twice>(&json!({"twice": [1, 2]})).unwrap(), Twice::Twice(1, 2));
        let e = read::<Twice>(&json!({"twice": {"0": 1, "1": 2}})).unwrap_err();
        assert_eq!(
            (e.path(), e.reason().as_str()),
            ("twice", "invalid type: map, expected tuple variant Twice::Twice")
        );
        assert!(serde_json::from_value::<Twice>(json!({"twice": {"0": 1, "1": 2}})).is_err());
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "kebab-case")]
    enum Twice {
        Twice(u32, u32),
    }

    #[test]
    fn map_values_are_at_their_keys() {
        let (path, reason) = misread(json!({"name": "n", "table": {"a": 1, "b c": 1.5}}));
        assert_eq!(path, "table.b c");
        assert_eq!(reason, "invalid type: floating point `1.5`, expected u32");
    }

    #[test]
    fn too_many_elements_for_a_tuple_fail() {
        let e = read::<(u32, u32)>(&json!([1, 2, 3])).unwrap_err();
        assert_eq!(e.reason(), "invalid length 3, expected fewer elements in array");
    }

    #[test]
    fn parse_refuses_a_repeated_key_at_any_depth() {
        let e = parse(r#"{"a": 1, "b": {"c": 2, "c": 3}}"#).unwrap_err().to_string();
        assert!(e.starts_with("duplicate field `c`"), "{e}");
        let v = parse(r#"{"a": [1, -2, 0.5, "s", null, true, {"c": 2}]}"#).unwrap();
        assert_eq!(v, json!({"a": [1, -2, 0.5, "s", null, true, {"c": 2}]}));
        assert!(parse(&"[".repeat(1000)).is_err(), "serde_json's depth limit still holds");
    }

    #[test]
    fn from_str_puts_the_path_before_the_reason() {
        let e = from_str::<Outer>(r#"{"name": "n", "items": [{"weight": true}]}"#).unwrap_err();
        assert_eq!(e, "items[0].weight: invalid type: boolean `true`, expected u32");
        assert!(from_str::<Outer>("{").unwrap_err().contains("EOF"));
    }
}
