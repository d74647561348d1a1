//! [`Inputs`]: a circuit's input signals, read from `input.json` as circom's
//! calculator reads it.
//!
//! - Keys in file order (JavaScript's `Object.keys`), a repeated key keeping
//!   its first place and its last value (`JSON.parse`).
//! - Nested arrays flattened row-major (circom's order), numbers, strings
//!   and booleans mixed as snarkjs takes them; arrays of objects
//!   and objects qualified into names as circom 2.2's `witness_calculator.js`
//!   does for buses: `{"s": {"x": 1}}` is signal `s.x`, `{"b": [{"y": 1}]}`
//!   is `b[0].y`.
//! - A value is a JSON integer, or a string holding a decimal integer
//!   (optionally signed), or `0x`/`0o`/`0b` digits (JavaScript's `BigInt`
//!   of a string), or `true`/`false` (1/0, as `BigInt` takes them);
//!   negative values are taken modulo the prime (`p - x`). A JSON number
//!   above 2^53 has already been rounded by JSON, here as in snarkjs (a
//!   warning is logged: write it as a string). An empty string, a fraction,
//!   `null` or anything else is refused, naming the signal and the index.

use crate::error::WitnessError;
use num_bigint::BigInt;
use num_traits::{FromPrimitive, Num};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// One value of `input.json`: an integer, or why it is not one (reported
/// when the signal is set, after the checks snarkjs makes first).
pub(crate) type Value = Result<BigInt, String>;

/// A circuit's input signals: qualified names, each with its values in
/// circom's order.
///
/// ```
/// use zkaccel_witness::Inputs;
/// let inputs = Inputs::from_json(r#"{"a": "3", "b": [["1", "2"], ["0x3", "-4"]]}"#)?;
/// assert_eq!(inputs.names().collect::<Vec<_>>(), ["a", "b"]);
/// assert_eq!(inputs.len(), 5);
/// # Ok::<(), zkaccel_witness::WitnessError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    pub(crate) signals: Vec<(String, Vec<Value>)>,
}

impl Inputs {
    /// No inputs (a circuit without input signals).
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `input.json`'s text.
    pub fn from_json(text: &str) -> Result<Self, WitnessError> {
        let json: Json =
            serde_json::from_str(text).map_err(|e| WitnessError::Json(e.to_string()))?;
        let Json::Object(entries) = json else {
            return Err(WitnessError::Json(
                "the input is not a JSON object of signals".into(),
            ));
        };
        let mut inputs = Inputs::new();
        for (key, value) in entries {
            inputs.qualify(key, value)?;
        }
        Ok(inputs)
    }

    /// Reads and parses `input.json` at `path`; errors name the path.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, WitnessError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| WitnessError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_json(&text).map_err(|e| match e {
            WitnessError::Json(msg) => WitnessError::Json(format!("{}: {msg}", path.display())),
            other => other,
        })
    }

    /// Sets the signal `name` (as qualified: `a`, `s.x`, `b[0].y`) to
    /// `values` (row-major for an array), replacing any earlier values.
    pub fn set<V: Into<BigInt>>(&mut self, name: &str, values: impl IntoIterator<Item = V>) {
        let values = values.into_iter().map(|v| Ok(v.into())).collect();
        self.put(name.to_string(), values);
    }

    /// The signals' names, in the order they are set.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.signals.iter().map(|(name, _)| name.as_str())
    }

    /// How many values in all.
    pub fn len(&self) -> usize {
        self.signals.iter().map(|(_, v)| v.len()).sum()
    }

    /// Whether there is no value at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn put(&mut self, name: String, values: Vec<Value>) {
        match self.signals.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = values,
            None => self.signals.push((name, values)),
        }
    }

    /// circom's `qualify_input`: objects become dotted names, arrays of
    /// objects indexed names, arrays of numbers one signal.
    fn qualify(&mut self, prefix: String, value: Json) -> Result<(), WitnessError> {
        match value {
            Json::Object(entries) => {
                for (key, v) in entries {
                    let name = if prefix.is_empty() {
                        key
                    } else {
                        format!("{prefix}.{key}")
                    };
                    self.qualify(name, v)?;
                }
                Ok(())
            }
            Json::Array(items) => {
                let mut flat = Vec::new();
                flatten(&items, &mut flat);
                // snarkjs takes numbers, strings and booleans mixed; an
                // array all of objects is an array of buses (circom 2.2).
                let objects = flat.iter().filter(|v| v.kind() == Kind::Object).count();
                if objects > 0 && objects < flat.len() {
                    return Err(WitnessError::Json(format!(
                        "the values of `{prefix}` mix objects and numbers"
                    )));
                }
                if objects > 0 {
                    self.qualify_list(prefix, Json::Array(items))
                } else {
                    let values = flat.iter().map(|v| v.to_int(&prefix)).collect();
                    self.put(prefix, values);
                    Ok(())
                }
            }
            scalar => {
                let v = scalar.to_int(&prefix);
                self.put(prefix, vec![v]);
                Ok(())
            }
        }
    }

    fn qualify_list(&mut self, prefix: String, value: Json) -> Result<(), WitnessError> {
        match value {
            Json::Array(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    self.qualify_list(format!("{prefix}[{i}]"), item)?;
                }
                Ok(())
            }
            Json::Null => Err(WitnessError::Json(format!(
                "`{prefix}` is null, not a signal's values"
            ))),
            other => self.qualify(prefix, other),
        }
    }
}

/// Row-major flattening (circom's `flatArray`).
fn flatten<'a>(items: &'a [Json], out: &mut Vec<&'a Json>) {
    for item in items {
        match item {
            Json::Array(inner) => flatten(inner, out),
            other => out.push(other),
        }
    }
}

/// A JSON value with object keys in file order.
#[derive(Clone, Debug)]
enum Json {
    Null,
    Bool(bool),
    Int(BigInt),
    Float(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// JavaScript's `typeof` of a flattened value (null counts as an object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Number,
    String,
    Bool,
    Object,
}

impl Json {
    fn kind(&self) -> Kind {
        match self {
            Json::Int(_) | Json::Float(_) => Kind::Number,
            Json::String(_) => Kind::String,
            Json::Bool(_) => Kind::Bool,
            Json::Null | Json::Array(_) | Json::Object(_) => Kind::Object,
        }
    }

    /// The value as JavaScript's `BigInt` converts it, or why not.
    fn to_int(&self, signal: &str) -> Value {
        match self {
            Json::Int(v) => Ok(v.clone()),
            Json::Bool(b) => Ok(BigInt::from(*b as u8)),
            Json::Float(f) => {
                if !(f.is_finite() && f.fract() == 0.0) {
                    return Err(f.to_string());
                }
                if f.abs() > 9007199254740992.0 {
                    log::warn!(
                        "input signal `{signal}`: the JSON number {f:e} is above 2^53 and was rounded by JSON parsing (as in snarkjs); write it as a string"
                    );
                }
                BigInt::from_f64(*f).ok_or_else(|| f.to_string())
            }
            Json::String(s) => parse_int(s).ok_or_else(|| format!("{s:?}")),
            Json::Null => Err("null".into()),
            Json::Array(_) | Json::Object(_) => Err("an object".into()),
        }
    }
}

/// JavaScript's `BigInt(string)`, but refusing the empty string (which
/// `BigInt` takes as 0): surrounding whitespace, then a signed decimal, or
/// unsigned `0x`, `0o` or `0b` digits.
pub(crate) fn parse_int(s: &str) -> Option<BigInt> {
    let t = s.trim();
    let (radix, digits) = match t.get(..2) {
        Some("0x" | "0X") => (16, &t[2..]),
        Some("0o" | "0O") => (8, &t[2..]),
        Some("0b" | "0B") => (2, &t[2..]),
        _ => (10, t),
    };
    let unsigned = match digits.as_bytes().first() {
        Some(b'+' | b'-') if radix == 10 => &digits[1..],
        _ => digits,
    };
    if unsigned.is_empty() || !unsigned.bytes().all(|b| (b as char).is_digit(radix)) {
        return None;
    }
    BigInt::from_str_radix(digits, radix).ok()
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Int(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            // JSON.parse: a repeated key keeps its first place, its last value.
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(Json::Object(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(inputs: &Inputs, name: &str) -> Vec<Value> {
        inputs
            .signals
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no signal {name}"))
    }

    fn int(v: i64) -> Value {
        Ok(BigInt::from(v))
    }

    #[test]
    fn numbers_as_javascript_bigint_reads_them() {
        assert_eq!(parse_int("12"), Some(12.into()));
        assert_eq!(parse_int(" -12 \n"), Some((-12).into()));
        assert_eq!(parse_int("+7"), Some(7.into()));
        assert_eq!(parse_int("0xff"), Some(255.into()));
        assert_eq!(parse_int("0XFF"), Some(255.into()));
        assert_eq!(parse_int("0o17"), Some(15.into()));
        assert_eq!(parse_int("0b101"), Some(5.into()));
        let big = "21888242871839275222246405745257275088548364400416034343698204186575808495617";
        assert_eq!(parse_int(big).unwrap().to_string(), big);
        for bad in [
            "", " ", "-", "0x", "-0x5", "1.5", "1e3", "abc", "12a", "0x1g", "--1", "0b2",
        ] {
            assert_eq!(parse_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn keys_in_file_order_arrays_row_major() {
        let i = Inputs::from_json(r#"{"z": 1, "a": [[1, 2, 3], [4, 5, 6]], "m": "0x10"}"#).unwrap();
        assert_eq!(i.names().collect::<Vec<_>>(), ["z", "a", "m"]);
        assert_eq!(values(&i, "a"), (1..=6).map(int).collect::<Vec<_>>());
        assert_eq!(values(&i, "m"), vec![int(16)]);
        assert_eq!(i.len(), 8);
    }

    #[test]
    fn repeated_key_keeps_first_place_last_value() {
        let i = Inputs::from_json(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(i.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(values(&i, "a"), vec![int(3)]);
    }

    #[test]
    fn objects_qualified_as_buses() {
        let i = Inputs::from_json(r#"{"s": {"x": 1, "y": [2, 3]}, "b": [{"y": 4}, {"y": 5}]}"#)
            .unwrap();
        assert_eq!(
            i.names().collect::<Vec<_>>(),
            ["s.x", "s.y", "b[0].y", "b[1].y"]
        );
        assert_eq!(values(&i, "s.y"), vec![int(2), int(3)]);
        assert_eq!(values(&i, "b[1].y"), vec![int(5)]);
    }

    #[test]
    fn bad_values_are_kept_until_set() {
        let i = Inputs::from_json(r#"{"a": [1, "x"], "b": 1.5, "c": null, "d": true, "e": 1e3}"#)
            .unwrap();
        assert_eq!(values(&i, "a")[1], Err("\"x\"".into()));
        assert_eq!(values(&i, "b"), vec![Err("1.5".into())]);
        assert_eq!(values(&i, "c"), vec![Err("null".into())]);
        assert_eq!(values(&i, "d"), vec![int(1)]);
        assert_eq!(values(&i, "e"), vec![int(1000)]);
    }

    #[test]
    fn structure_errors() {
        for (text, want) in [
            ("[1, 2]", "not a JSON object"),
            ("{\"a\": 1", "EOF"),
            ("{\"a\": [1, {\"b\": 2}]}", "`a` mix objects and numbers"),
            ("", "EOF"),
        ] {
            let e = Inputs::from_json(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn empty_array_is_a_signal_with_no_values() {
        let i = Inputs::from_json(r#"{"a": []}"#).unwrap();
        assert_eq!(values(&i, "a"), Vec::<Value>::new());
    }
}
