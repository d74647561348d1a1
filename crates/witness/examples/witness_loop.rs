//! Witnesses in a long-lived process: the same calculator computing one
//! input's witness again and again, with instances reused (the default) and
//! with a fresh instance each time, alternating, medians.
//!
//! ```text
//! cargo run --release -p zkaccel-witness --example witness_loop -- circuit.wasm input.json [ROUNDS] [witness.wtns]
//! ```
//!
//! Both calculators' `.wtns` must be equal (and equal to `witness.wtns`
//! when given, e.g. snarkjs' or circom's) before anything is timed.

use std::time::Instant;
use zkaccel_witness::{CalculatorOptions, Inputs, WitnessCalculator};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(wasm), Some(input)) = (args.first(), args.get(1)) else {
        return Err("usage: witness_loop circuit.wasm input.json [ROUNDS] [witness.wtns]".into());
    };
    let rounds: usize = args.get(2).map_or(Ok(9), |r| r.parse())?;
    let inputs = Inputs::from_file(input)?;
    let reused = WitnessCalculator::from_file(wasm)?;
    let fresh =
        WitnessCalculator::from_file_with(wasm, &CalculatorOptions::new().reuse_instances(false))?;
    let want = fresh.calculate_wtns(&inputs)?;
    if let Some(reference) = args.get(3) {
        if std::fs::read(reference)? != want {
            return Err(format!("the witness differs from {reference}").into());
        }
    }
    // Two calculations first: the second one runs on the kept instance.
    for _ in 0..2 {
        if reused.calculate_wtns(&inputs)? != want {
            return Err("a reused instance's witness differs from a fresh one's".into());
        }
    }
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(String::from)
        })
        .unwrap_or_default();
    println!("{model}");
    println!(
        "{wasm}: {} witness values, {rounds} rounds alternating",
        reused.witness_size()
    );
    let mut t = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for k in [round % 2, 1 - round % 2] {
            let calc = if k == 0 { &reused } else { &fresh };
            let start = Instant::now();
            let w = calc.calculate_wtns(&inputs)?;
            t[k].push(start.elapsed().as_secs_f64() * 1e3);
            if w != want {
                return Err("the witness changed between rounds".into());
            }
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (r, f) = (median(&mut t[0]), median(&mut t[1]));
    println!(
        "reused instance {r:.2} ms, fresh instance {f:.2} ms (median), fresh / reused {:.2}x",
        f / r
    );
    Ok(())
}
