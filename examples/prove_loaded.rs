//! A BN254 zkey loaded once, then proved `rounds` times: the figure a
//! proving server sees, comparable with rapidsnark's library
//! (`groth16_prover_create` once, then `groth16_prover_prove`). Each timed
//! round does what rapidsnark's prove call does: parse the `.wtns` bytes
//! (already in memory), prove, and write the proof and public signals as
//! JSON text. Prints `load`, each `prove` and the `median prove` in
//! milliseconds; writes the last round's proof and public signals.
//!
//! ```text
//! cargo run --release -p zkaccel-circom --example prove_loaded -- \
//!     circuit.zkey witness.wtns proof.json public.json 5
//! ```
use std::time::Instant;
use zkaccel_circom::{proof_json, public_json, read_wtns, CircomProver};
use zkaccel_groth16::Backend;

type E = ark_bn254::Bn254;

/// An error message naming the file at fault.
fn at(path: &str) -> impl Fn(zkaccel_circom::CircomError) -> String + '_ {
    move |e| format!("{path}: {e}")
}

fn main() -> Result<(), String> {
    // The library's log lines (backend choice, GPU fallbacks, GPU profiles);
    // RUST_LOG overrides the level.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [zkey, wtns, proof_out, public_out, rounds] = &args[..] else {
        return Err(
            "usage: prove_loaded circuit.zkey witness.wtns proof.json public.json ROUNDS".into(),
        );
    };
    let rounds: usize = rounds
        .parse()
        .map_err(|e| format!("ROUNDS = {rounds}: {e}"))?;
    let wtns_bytes = std::fs::read(wtns).map_err(|e| format!("{wtns}: {e}"))?;
    let start = Instant::now();
    let prover = CircomProver::<E>::from_zkey_file(zkey, Backend::Cpu).map_err(at(zkey))?;
    println!("load {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    let mut times = Vec::with_capacity(rounds);
    let mut last = None;
    for _ in 0..rounds {
        let t = Instant::now();
        let witness = read_wtns(&wtns_bytes).map_err(at(wtns))?;
        let out = prover
            .prove(&witness, &mut rand::rngs::OsRng)
            .map_err(at(zkey))?;
        let json = (proof_json(&out.proof), public_json::<E>(&out.public));
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!("prove {ms:.1} ms");
        times.push(ms);
        last = Some(json);
    }
    if let Some((proof, public)) = last {
        std::fs::write(proof_out, proof).map_err(|e| format!("{proof_out}: {e}"))?;
        std::fs::write(public_out, public).map_err(|e| format!("{public_out}: {e}"))?;
    }
    times.sort_by(f64::total_cmp);
    if let Some(m) = times.get(times.len() / 2) {
        println!("median prove {m:.1} ms");
    }
    Ok(())
}
