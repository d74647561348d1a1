//! A BN254 zkey loaded once, then proved `rounds` times: the figure a
//! proving server sees, comparable with rapidsnark's library
//! (`groth16_prover_create` once, then `groth16_prover_prove`). Each timed
//! round does what rapidsnark's prove call does: parse the `.wtns` bytes
//! (already in memory), prove, and write the proof and public signals as
//! JSON text. Prints `load`, each `prove` and the `median prove` in
//! milliseconds; writes the last round's proof and public signals.
//!
//! ```text
//! cargo run --release --example prove_loaded -- \
//!     circuit.zkey witness.wtns proof.json public.json 5 [cpu|cuda|auto]
//! ```
//! The backend defaults to `cpu` (the figure compared with rapidsnark's);
//! `cuda` needs the feature `cuda` and a GPU, and keeps the key's G1 bases
//! on the device across the rounds.
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
    let (files, backend) = match &args[..] {
        [files @ .., b] if args.len() == 6 => (files, b.as_str()),
        files => (files, "cpu"),
    };
    let [zkey, wtns, proof_out, public_out, rounds] = files else {
        return Err(
            "usage: prove_loaded circuit.zkey witness.wtns proof.json public.json ROUNDS [cpu|cuda|auto]"
                .into(),
        );
    };
    let backend = match backend {
        "cpu" => Backend::Cpu,
        "cuda" => Backend::Cuda,
        "auto" => Backend::Auto,
        other => return Err(format!("backend {other:?}: cpu, cuda or auto")),
    };
    let rounds: usize = rounds
        .parse()
        .map_err(|e| format!("ROUNDS = {rounds}: {e}"))?;
    let wtns_bytes = std::fs::read(wtns).map_err(|e| format!("{wtns}: {e}"))?;
    let start = Instant::now();
    let prover = CircomProver::<E>::from_zkey_file(zkey, backend).map_err(at(zkey))?;
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
        let t = &out.timings;
        let f = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "prove {ms:.1} ms (witness map {:.1}, msm A {:.1}, B1 {:.1}, B2 {:.1}, L {:.1}, H {:.1}{})",
            f(t.witness_map),
            f(t.msm_a),
            f(t.msm_b_g1),
            f(t.msm_b_g2),
            f(t.msm_l),
            f(t.msm_h),
            if t.quotient_in_msm_h { ", quotient in H" } else { "" }
        );
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
