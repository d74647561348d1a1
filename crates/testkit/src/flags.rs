//! `--flag value` and bare `--flag` parsing shared by the examples.

use std::collections::HashMap;
use std::str::FromStr;

/// Parsed options of one workload.
pub struct Flags {
    values: HashMap<String, String>,
    bare: Vec<String>,
}

impl Flags {
    /// Parses `rest`, accepting only the names in `with_value` (each followed
    /// by a value) and `bare` (on their own).
    pub fn parse(rest: &[String], with_value: &[&str], bare: &[&str]) -> Result<Flags, String> {
        let mut f = Flags {
            values: HashMap::new(),
            bare: Vec::new(),
        };
        let mut it = rest.iter();
        while let Some(flag) = it.next() {
            if with_value.contains(&flag.as_str()) {
                let v = it.next().ok_or(format!("{flag} needs a value"))?;
                f.values.insert(flag.clone(), v.clone());
            } else if bare.contains(&flag.as_str()) {
                f.bare.push(flag.clone());
            } else {
                return Err(format!("unknown option {flag}"));
            }
        }
        Ok(f)
    }

    /// The value of `name`, or `default`.
    pub fn str(&self, name: &str, default: &str) -> String {
        self.values
            .get(name)
            .cloned()
            .unwrap_or_else(|| default.to_string())
    }

    /// The value of `name` parsed as a number, or `default`.
    pub fn num<T: FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.values.get(name) {
            Some(v) => v
                .parse()
                .map_err(|_| format!("{name} expects a number, got {v:?}")),
            None => Ok(default),
        }
    }

    /// Whether the bare flag `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.bare.iter().any(|f| f == name)
    }
}
