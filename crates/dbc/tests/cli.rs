//! The `dbc` binary: JSON shapes, values, and bad input (exit status 2, one line).

use num_bigint::{BigInt, BigUint};
use serde_json::Value;
use std::process::Output;

fn dbc(args: &[&str]) -> Output {
    zkaccel_testkit::process::command(env!("CARGO_BIN_EXE_dbc"))
        .args(args)
        .output()
        .expect("run dbc")
}

fn json(args: &[&str]) -> Value {
    let out = dbc(args);
    assert!(
        out.status.success(),
        "dbc {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Sums a chain's JSON terms with big integers.
fn value_of(row: &Value) -> BigInt {
    row["terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let digit = t
                .get("digit")
                .map_or(t["sign"].as_i64().unwrap(), |d| d.as_i64().unwrap());
            let (a, b) = (
                t["a"].as_u64().unwrap() as usize,
                t["b"].as_u64().unwrap() as u32,
            );
            (BigInt::from(digit) << a) * BigInt::from(3u8).pow(b)
        })
        .sum()
}

#[test]
fn chain_json_evaluates_back_for_every_method() {
    let n = "21888242871839275222246405745257275088548364400416034343698204186575808495616";
    for method in ["optimal", "eom", "suboptimal", "naf", "wnaf", "binary"] {
        let row = json(&["chain", "--method", method, "--json", n]);
        assert_eq!(row["n"], n);
        assert_eq!(row["method"], method);
        assert_eq!(value_of(&row), n.parse::<BigInt>().unwrap(), "{method}");
        let terms = row["terms"].as_array().unwrap();
        assert_eq!(
            row["hamming_weight"].as_u64().unwrap() as usize,
            terms.len()
        );
        assert!(row["cost"].as_f64().unwrap() > 0.0);
        // Terms from the largest 2^a 3^b down, exponents non-increasing.
        for w in terms.windows(2) {
            assert!(
                w[1]["a"].as_u64() <= w[0]["a"].as_u64()
                    && w[1]["b"].as_u64() <= w[0]["b"].as_u64()
            );
        }
    }
}

#[test]
fn chain_accepts_hex_several_numbers_and_delta() {
    let rows = json(&[
        "chain",
        "--method",
        "suboptimal",
        "--delta",
        "3",
        "--json",
        "0x10",
        "12345",
        "0",
    ]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["n"], "16");
    assert_eq!(rows[0]["delta"], 3);
    assert_eq!(value_of(&rows[1]), BigInt::from(12345));
    assert_eq!(rows[2]["terms"].as_array().unwrap().len(), 0);
    let text = dbc(&["chain", "--method", "optimal", "100"]);
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("cost"));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let too_big = (BigUint::from(1u8) << 1024u32).to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec![],
        vec!["frobnicate"],
        vec!["chain", "--method", "optimal", "12x"],
        vec!["chain", "--method", "optimal", "-5"],
        vec!["chain", "--method", "optimal", ""],
        vec!["chain", "--method", "optimal", "0x"],
        vec!["chain", "--method", "optimal"],
        vec!["chain", "--method", "magic", "5"],
        vec!["chain", "--method", "suboptimal", "--delta", "0", "5"],
        vec!["chain", "--method", "suboptimal", "--delta", "-1", "5"],
        vec!["chain", "--method", "wnaf", "--window", "40", "5"],
        vec!["chain", "--method", "optimal", &too_big],
        vec!["chain", "--bogus", "5"],
        vec!["chain", "--method"],
        vec!["stats", "--bits", "0", "--samples", "5"],
        vec!["stats", "--bits", "256"],
        vec!["stats", "--bits", "2000", "--samples", "5"],
        vec!["stats", "--bits", "256", "--samples", "0"],
        vec!["mincost"],
        vec!["stats", "--bits", "64", "--samples", "5", "--model", "1,2"],
        vec![
            "stats",
            "--bits",
            "64",
            "--samples",
            "5",
            "--model",
            "1,-2,3",
        ],
        vec![
            "stats",
            "--bits",
            "64",
            "--samples",
            "5",
            "--model",
            "a,b,c",
        ],
    ];
    for args in cases {
        let out = dbc(&args);
        assert_eq!(out.status.code(), Some(2), "dbc {args:?} should exit 2");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.lines().count(),
            1,
            "dbc {args:?}: one line expected, got {err:?}"
        );
        assert!(err.starts_with("dbc: "), "{err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn stats_json_has_every_row() {
    let rows = json(&[
        "stats",
        "--bits",
        "128",
        "--samples",
        "20",
        "--seed",
        "3",
        "--json",
    ]);
    let rows = rows.as_array().unwrap();
    let methods: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
    for m in ["optimal", "eom", "suboptimal", "naf", "wnaf", "binary"] {
        assert!(methods.contains(&m), "{m} missing");
    }
    let deltas: Vec<u64> = rows
        .iter()
        .filter_map(|r| r.get("delta"))
        .map(|d| d.as_u64().unwrap())
        .collect();
    assert_eq!(deltas, vec![1, 2, 3, 10, 20]);
    for r in rows {
        for k in ["avg_cost", "avg_hamming_weight", "avg_time_us"] {
            assert!(r[k].as_f64().unwrap() > 0.0, "{k} in {r}");
        }
    }
}

#[test]
fn mincost_prints_a_permutation() {
    let v = json(&["mincost", "--bits", "64", "--samples", "30", "--json"]);
    let mut order: Vec<u64> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    order.sort_unstable();
    assert_eq!(order, (0..order.len() as u64).collect::<Vec<_>>());
    let rust = dbc(&["mincost", "--bits", "64", "--samples", "30", "--rust"]);
    assert!(String::from_utf8_lossy(&rust.stdout).contains("static MINCOST_64: &[u16] = &["));
}
