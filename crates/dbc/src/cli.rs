//! The `dbc` command line as a library: [`run`] takes the arguments and
//! returns the text to print, so the binary (`src/bin/dbc.rs`), the tests and
//! the fuzz target share one parser.
//!
//! ```text
//! dbc chain --method {optimal,eom,suboptimal,naf,wnaf,binary} [--delta K] [--window W] [--json] N...
//! dbc stats --bits B --samples S --seed X [--window W] [--model D,T,A] [--json]
//! dbc mincost --bits B [--samples S] [--seed X] [--json | --rust]
//! ```
//! Numbers are decimal or `0x` hexadecimal.

use crate::stats::{stats, Method, Repr};
use crate::{CostModel, MinCost, MAX_BITS};
use num_bigint::BigUint;
use serde_json::{json, Value};

/// One-line usage of the `dbc` command.
pub const USAGE: &str = "usage: dbc chain --method {optimal,eom,suboptimal,naf,wnaf,binary} [--delta K] [--window W] [--json] N... | dbc stats --bits B --samples S --seed X [--window W] [--model D,T,A] [--json] | dbc mincost --bits B [--samples S] [--seed X] [--json|--rust]";

/// Parsed `--flag value` options and positional arguments.
struct Opts {
    values: Vec<(String, String)>,
    flags: Vec<String>,
    positional: Vec<String>,
}

impl Opts {
    fn parse(args: &[String], with_value: &[&str], bare: &[&str]) -> Result<Opts, String> {
        let mut o = Opts {
            values: vec![],
            flags: vec![],
            positional: vec![],
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if with_value.contains(&a.as_str()) {
                let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
                o.values.push((a.clone(), v.clone()));
            } else if bare.contains(&a.as_str()) {
                o.flags.push(a.clone());
            } else if a.starts_with("--") {
                return Err(format!("unknown option {a}"));
            } else {
                o.positional.push(a.clone());
            }
        }
        Ok(o)
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    }

    fn flag(&self, k: &str) -> bool {
        self.flags.iter().any(|f| f == k)
    }

    fn num<T: std::str::FromStr>(&self, k: &str, default: Option<T>) -> Result<T, String> {
        match self.get(k) {
            Some(v) => v
                .parse()
                .map_err(|_| format!("{k} expects a non-negative integer, got {v:?}")),
            None => default.ok_or_else(|| format!("{k} is required")),
        }
    }
}

/// Runs the `dbc` command on its arguments (without the program name) and
/// returns what it prints on success, or the one-line error message.
///
/// Never panics: bad numbers, unknown options and out-of-range values are
/// errors (the fuzz target `dbc_cli` checks this on arbitrary arguments).
/// Work grows with `--samples` and `--bits`: a caller exposing this to
/// untrusted input should bound them.
pub fn run(args: &[String]) -> Result<String, CliError> {
    let (cmd, rest) = args.split_first().ok_or(USAGE).map_err(CliError::from)?;
    match cmd.as_str() {
        "chain" => chain(rest),
        "stats" => stats_cmd(rest),
        "mincost" => mincost(rest),
        "-h" | "--help" | "help" => Ok(format!("{USAGE}\n")),
        other => Err(format!("unknown command {other:?}; {USAGE}")),
    }
    .map_err(CliError)
}

/// Why the `dbc` command refused its arguments: the one line it prints
/// (`Display`), naming the option or value at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(String);

impl CliError {
    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl From<&str> for CliError {
    fn from(s: &str) -> Self {
        CliError(s.to_string())
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

/// Parses a non-negative decimal or `0x` (or `0X`) hexadecimal integer of at
/// most [`MAX_BITS`] bits; anything else (signs, spaces, empty digits) is an error.
pub fn parse_number(s: &str) -> Result<BigUint, CliError> {
    parse_big(s).map_err(CliError)
}

fn parse_big(s: &str) -> Result<BigUint, String> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("not a non-negative integer: {s:?}"));
    }
    let n = BigUint::parse_bytes(digits.as_bytes(), radix)
        .ok_or_else(|| format!("not a number: {s:?}"))?;
    if n.bits() > MAX_BITS as u64 {
        return Err(format!("{} bits is over the limit of {MAX_BITS}", n.bits()));
    }
    Ok(n)
}

fn method_from(o: &Opts) -> Result<Method, String> {
    let name = o.get("--method").ok_or("--method is required")?;
    let method = match name {
        "optimal" => Method::Optimal,
        "eom" => Method::Eom,
        "suboptimal" => {
            let d: u32 = o.num("--delta", Some(1))?;
            if d == 0 {
                return Err("--delta must be at least 1".into());
            }
            Method::Suboptimal(d)
        }
        "naf" => Method::Naf,
        "wnaf" => Method::Wnaf(window(o)?),
        "binary" => Method::Binary,
        other => {
            return Err(format!(
                "unknown method {other:?} (optimal, eom, suboptimal, naf, wnaf, binary)"
            ))
        }
    };
    Ok(method)
}

fn window(o: &Opts) -> Result<u32, String> {
    let w: u32 = o.num("--window", Some(4))?;
    if !(2..=16).contains(&w) {
        return Err(format!("--window {w} is outside 2..=16"));
    }
    Ok(w)
}

fn chain(args: &[String]) -> Result<String, String> {
    let o = Opts::parse(args, &["--method", "--delta", "--window"], &["--json"])?;
    let method = method_from(&o)?;
    if o.positional.is_empty() {
        return Err("no number given".into());
    }
    let model = CostModel::default();
    let mut out = String::new();
    let mut rows = Vec::new();
    for s in &o.positional {
        let n = parse_big(s)?;
        let repr = method
            .chain(&n.to_u64_digits(), &model)
            .map_err(|e| e.to_string())?;
        let terms: Vec<Value> = match &repr {
            Repr::Chain(c) => c
                .terms()
                .iter()
                .map(|t| json!({"sign": t.sign.as_i8(), "a": t.a, "b": t.b}))
                .collect(),
            Repr::Recoding(r) => r
                .digits()
                .iter()
                .map(|&(d, e)| json!({"sign": d.signum(), "digit": d, "a": e, "b": 0}))
                .collect(),
        };
        let (cost, hw) = (repr.cost(&model), repr.hamming_weight());
        if o.flag("--json") {
            let mut row = json!({
                "n": n.to_string(), "method": method.name(), "terms": terms,
                "hamming_weight": hw, "cost": cost,
            });
            if let Method::Suboptimal(d) = method {
                row["delta"] = json!(d);
            }
            if let Method::Wnaf(w) = method {
                row["window"] = json!(w);
            }
            rows.push(row);
        } else {
            let text = match &repr {
                Repr::Chain(c) => c.to_string(),
                Repr::Recoding(r) => r
                    .digits()
                    .iter()
                    .map(|&(d, e)| format!("{d:+}*2^{e}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            out += &format!(
                "n = {n}\n  {}: {text}\n  terms {hw}, cost {cost:.1}M\n",
                method.name()
            );
        }
    }
    if o.flag("--json") {
        let v = if rows.len() == 1 {
            rows.pop().unwrap()
        } else {
            Value::Array(rows)
        };
        out = format!("{v}\n");
    }
    Ok(out)
}

fn bits_opt(o: &Opts) -> Result<u32, String> {
    let bits: u32 = o.num("--bits", None)?;
    if bits == 0 || bits > MAX_BITS {
        return Err(format!("--bits must be in 1..={MAX_BITS}"));
    }
    Ok(bits)
}

/// `D,T,A` as a cost model.
fn parse_model(s: &str) -> Result<CostModel, String> {
    let bad = || format!("--model expects three positive costs D,T,A, got {s:?}");
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    match v[..] {
        [d, t, a] => CostModel::new(d, t, a).map_err(|_| bad()),
        _ => Err(bad()),
    }
}

fn stats_cmd(args: &[String]) -> Result<String, String> {
    let o = Opts::parse(
        args,
        &["--bits", "--samples", "--seed", "--window", "--model"],
        &["--json"],
    )?;
    let bits = bits_opt(&o)?;
    let samples: usize = o.num("--samples", None)?;
    if samples == 0 {
        return Err("--samples must be at least 1".into());
    }
    let seed: u64 = o.num("--seed", Some(1))?;
    let model = match o.get("--model") {
        None => CostModel::default(),
        Some(s) => parse_model(s)?,
    };
    let rows = stats(bits, samples, seed, &model, &Method::table4(window(&o)?))
        .map_err(|e| e.to_string())?;
    let naf = rows
        .iter()
        .find(|r| r.method == Method::Naf)
        .map(|r| r.avg_cost);
    let opt = rows
        .iter()
        .find(|r| r.method == Method::Optimal)
        .map(|r| r.avg_time_us);
    if o.flag("--json") {
        let v: Vec<Value> = rows
            .iter()
            .map(|r| {
                let mut row = json!({
                    "method": r.method.name(), "avg_cost": r.avg_cost,
                    "avg_hamming_weight": r.avg_hamming_weight, "avg_time_us": r.avg_time_us,
                });
                match r.method {
                    Method::Suboptimal(d) => row["delta"] = json!(d),
                    Method::Wnaf(w) => row["window"] = json!(w),
                    _ => {}
                }
                row
            })
            .collect();
        return Ok(format!("{}\n", Value::Array(v)));
    }
    let mut out = format!(
        "{samples} random {bits}-bit inputs (top bit set), seed {seed}; cost model D = {}, T = {}, A = {} (M)\n\
         delta counts the leading terms tried (the paper's authors' program tries delta + 1)\n\n\
         {:<16} {:>12} {:>10} {:>14} {:>12} {:>14}\n",
        model.double, model.triple, model.add, "method", "avg cost (M)", "avg terms", "time/chain us", "vs NAF cost", "optimal/this t"
    );
    for r in &rows {
        let name = match r.method {
            Method::Suboptimal(d) => format!("{d}-suboptimal"),
            Method::Wnaf(w) => format!("wnaf(w={w})"),
            m => m.name().to_string(),
        };
        out += &format!(
            "{:<16} {:>12.1} {:>10.2} {:>14.2} {:>11.1}% {:>13.1}x\n",
            name,
            r.avg_cost,
            r.avg_hamming_weight,
            r.avg_time_us,
            naf.map_or(f64::NAN, |c| 100.0 * c / r.avg_cost),
            opt.map_or(f64::NAN, |t| t / r.avg_time_us),
        );
    }
    Ok(out)
}

/// JSON for a float that may be infinite (no sample).
fn finite(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        Value::Null
    }
}

fn mincost(args: &[String]) -> Result<String, String> {
    let o = Opts::parse(
        args,
        &["--bits", "--samples", "--seed"],
        &["--json", "--rust"],
    )?;
    let bits = bits_opt(&o)?;
    let samples: usize = o.num("--samples", Some(2000))?;
    let seed: u64 = o.num("--seed", Some(1))?;
    let (table, entries) =
        MinCost::generate(bits, samples, seed, &CostModel::default()).map_err(|e| e.to_string())?;
    if o.flag("--rust") {
        let list: Vec<String> = table.order().iter().map(|b| b.to_string()).collect();
        return Ok(format!(
            "/// MinCost order for {bits}-bit inputs: `dbc mincost --bits {bits} --samples {samples} --seed {seed} --rust`.\n\
             pub(crate) static MINCOST_{bits}: &[u16] = &[{}];\n",
            list.join(", ")
        ));
    }
    if o.flag("--json") {
        let v: Vec<Value> = entries
            .iter()
            .map(|e| {
                json!({"b": e.b, "avg_cost": finite(e.avg_cost), "std_error": finite(e.std_error), "samples": e.samples})
            })
            .collect();
        return Ok(format!(
            "{}\n",
            json!({"bits": bits, "samples": samples, "seed": seed, "order": table.order(), "entries": v})
        ));
    }
    let mut out = format!(
        "MinCost for {bits}-bit inputs ({samples} samples, seed {seed}), cheapest first\n{:>5} {:>5} {:>14} {:>10} {:>8}\n",
        "rank", "b", "avg cost (M)", "std err", "samples"
    );
    for (i, e) in entries.iter().enumerate() {
        out += &format!(
            "{:>5} {:>5} {:>14.1} {:>10.2} {:>8}\n",
            i + 1,
            e.b,
            e.avg_cost,
            e.std_error,
            e.samples
        );
    }
    Ok(out)
}
