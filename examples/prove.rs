//! The README's main job: build a real circuit, set it up, prove it with
//! stock ark-groth16 and with zkaccel (same key, same RNG seed, interleaved
//! rounds), verify both with ark-groth16's verifier, check the proofs are
//! byte-identical, and print sizes, times, the speed-up and the time split.
//!
//! ```text
//! cargo run --release --example prove -- [--circuit sha256|merkle|mimc] [--size N]
//!     [--backend cpu|auto|cuda] [--rounds R] [--prepared] [--json]
//! ```
//! `--size`: SHA-256 message blocks (default 2, about 55k constraints), Merkle
//! depth (default 20), or the MiMC chain's domain size (default 2^16: the
//! chain fills it, public inputs included).

use ark_bn254::{Bn254, Fr};
use ark_ec::VariableBaseMSM;
use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::ProvingKey;
use ark_poly::GeneralEvaluationDomain;
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, OptimizationGoal, SynthesisError,
    SynthesisMode, R1CS_PREDICATE_LABEL,
};
use ark_serialize::CanonicalSerialize;
use ark_snark::SNARK;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use zkaccel::groth16::circuits::{MerkleMembership, MimcChain, Sha256Circuit};
use zkaccel::groth16::{backend, Groth16, Groth16Error, PreparedProvingKey, ProofTimings};

use zkaccel_testkit::flags;
use zkaccel_testkit::timing;

const USAGE: &str = "usage: prove [--circuit sha256|merkle|mimc] [--size N] [--backend cpu|auto|cuda] [--rounds R] [--prepared] [--json]";

#[derive(Clone)]
enum Circuit {
    Sha256(Sha256Circuit<Fr>),
    Merkle(MerkleMembership<Fr>),
    Mimc(MimcChain<Fr>),
}

impl Circuit {
    fn public_inputs(&self) -> Vec<Fr> {
        match self {
            Circuit::Sha256(c) => c.public_inputs(),
            Circuit::Merkle(c) => c.public_inputs(),
            Circuit::Mimc(c) => c.public_inputs(),
        }
    }
}

impl ConstraintSynthesizer<Fr> for Circuit {
    fn generate_constraints(self, cs: ConstraintSystemRef<Fr>) -> Result<(), SynthesisError> {
        match self {
            Circuit::Sha256(c) => c.generate_constraints(cs),
            Circuit::Merkle(c) => c.generate_constraints(cs),
            Circuit::Mimc(c) => c.generate_constraints(cs),
        }
    }
}

struct Args {
    circuit: String,
    size: Option<usize>,
    backend: String,
    rounds: usize,
    prepared: bool,
    json: bool,
}

fn progress(json: bool, msg: &str) {
    if !json {
        eprintln!("{msg}");
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The stock prover's phases, timed by running ark-groth16's own pieces
/// (LibsnarkReduction's witness map, `VariableBaseMSM::msm_bigint`) one by
/// one on the same inputs.
fn stock_split(pk: &ProvingKey<Bn254>, circuit: Circuit) -> Result<ProofTimings, SynthesisError> {
    let mut t = ProofTimings::default();
    let start = Instant::now();
    let cs = ConstraintSystem::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(SynthesisMode::Prove {
        construct_matrices: true,
        generate_lc_assignments: false,
    });
    circuit.generate_constraints(cs.clone())?;
    cs.finalize();
    t.synthesis = start.elapsed();
    let matrices = &cs.to_matrices()?[R1CS_PREDICATE_LABEL];
    let full = [cs.instance_assignment()?, cs.witness_assignment()?].concat();
    let (ni, nc) = (cs.num_instance_variables(), cs.num_constraints());
    let w = Instant::now();
    let h = LibsnarkReduction::witness_map_from_matrices::<Fr, GeneralEvaluationDomain<Fr>>(
        matrices, ni, nc, &full,
    )?;
    t.witness_map = w.elapsed();
    let big = |v: &[Fr]| v.iter().map(|s| s.into_bigint()).collect::<Vec<_>>();
    let (h, aux, all) = (big(&h), big(&full[ni..]), big(&full[1..]));
    type G1 = <Bn254 as ark_ec::pairing::Pairing>::G1;
    type G2 = <Bn254 as ark_ec::pairing::Pairing>::G2;
    let time = |slot: &mut Duration, f: &dyn Fn()| {
        let s = Instant::now();
        f();
        *slot = s.elapsed();
    };
    time(&mut t.msm_h, &|| {
        let _ = std::hint::black_box(G1::msm_bigint(&pk.h_query, &h));
    });
    time(&mut t.msm_l, &|| {
        let _ = std::hint::black_box(G1::msm_bigint(&pk.l_query, &aux));
    });
    time(&mut t.msm_a, &|| {
        let _ = std::hint::black_box(G1::msm_bigint(&pk.a_query[1..], &all));
    });
    time(&mut t.msm_b_g1, &|| {
        let _ = std::hint::black_box(G1::msm_bigint(&pk.b_g1_query[1..], &all));
    });
    time(&mut t.msm_b_g2, &|| {
        let _ = std::hint::black_box(G2::msm_bigint(&pk.b_g2_query[1..], &all));
    });
    t.total = start.elapsed();
    Ok(t)
}

fn split_json(t: &ProofTimings) -> String {
    format!(
        "{{\"synthesis_ms\": {:.2}, \"witness_map_ms\": {:.2}, \"msm_a_ms\": {:.2}, \"msm_b_g1_ms\": {:.2}, \"msm_b_g2_ms\": {:.2}, \"msm_l_ms\": {:.2}, \"msm_h_ms\": {:.2}, \"total_ms\": {:.2}}}",
        ms(t.synthesis), ms(t.witness_map), ms(t.msm_a), ms(t.msm_b_g1), ms(t.msm_b_g2), ms(t.msm_l), ms(t.msm_h), ms(t.total)
    )
}

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v)
        .expect("serialising to memory");
    v
}

fn run(a: &Args) -> Result<(String, bool), String> {
    let circuit = match a.circuit.as_str() {
        "sha256" => Circuit::Sha256(Sha256Circuit::new(a.size.unwrap_or(2), 1)),
        "merkle" => Circuit::Merkle(MerkleMembership::random(a.size.unwrap_or(20), 1)),
        // Room for the two public inputs, so that `--size 2^k` fills a
        // domain of exactly 2^k.
        "mimc" => Circuit::Mimc(MimcChain::with_constraints(
            Fr::from(7u64),
            a.size.unwrap_or(1 << 16).saturating_sub(2),
        )),
        c => return Err(format!("unknown circuit {c:?}; {USAGE}")),
    };
    let prove_zk = |pk: &ProvingKey<Bn254>, c: Circuit, seed: u64| match a.backend.as_str() {
        "cpu" => Groth16::<Bn254, backend::Cpu>::prove_with_timings(
            pk,
            c,
            &mut ChaCha20Rng::seed_from_u64(seed),
        ),
        "cuda" => Groth16::<Bn254, backend::Cuda>::prove_with_timings(
            pk,
            c,
            &mut ChaCha20Rng::seed_from_u64(seed),
        ),
        _ => Groth16::<Bn254, backend::Auto>::prove_with_timings(
            pk,
            c,
            &mut ChaCha20Rng::seed_from_u64(seed),
        ),
    };
    if !["cpu", "auto", "cuda"].contains(&a.backend.as_str()) {
        return Err(format!("unknown backend {:?}; {USAGE}", a.backend));
    }

    progress(
        a.json,
        &format!("[1/5] synthesising the {} circuit", a.circuit),
    );
    let cs = ConstraintSystem::<Fr>::new_ref();
    circuit
        .clone()
        .generate_constraints(cs.clone())
        .map_err(|e| e.to_string())?;
    let (constraints, inputs) = (cs.num_constraints(), cs.num_instance_variables());
    let domain = (constraints + inputs).next_power_of_two();
    progress(
        a.json,
        &format!("      {constraints} constraints, {inputs} public inputs (with the constant 1), domain 2^{}", domain.trailing_zeros()),
    );

    progress(a.json, "[2/5] setup (ark-groth16, circuit-specific)");
    let t = Instant::now();
    let (pk, vk) = ark_groth16::Groth16::<Bn254>::circuit_specific_setup(
        circuit.clone(),
        &mut ChaCha20Rng::seed_from_u64(0),
    )
    .map_err(|e| e.to_string())?;
    let setup_ms = ms(t.elapsed());
    progress(a.json, &format!("      {setup_ms:.0} ms"));

    progress(
        a.json,
        &format!(
            "[3/5] proving: stock ark-groth16 and zkaccel ({} backend), same key and seed, {} interleaved rounds",
            a.backend, a.rounds
        ),
    );
    let stock_proof = ark_groth16::Groth16::<Bn254>::prove(
        &pk,
        circuit.clone(),
        &mut ChaCha20Rng::seed_from_u64(1),
    )
    .map_err(|e| e.to_string())?;
    let (zk_proof, zk_split) =
        prove_zk(&pk, circuit.clone(), 1).map_err(|e: Groth16Error| e.to_string())?;
    let identical = bytes(&stock_proof) == bytes(&zk_proof);
    // Stock ark-groth16's proof, timed against each zkaccel variant.
    let stock = || {
        std::hint::black_box(
            ark_groth16::Groth16::<Bn254>::prove(
                &pk,
                circuit.clone(),
                &mut ChaCha20Rng::seed_from_u64(1),
            )
            .ok(),
        );
    };
    let (zk_ms, stock_ms) = timing::interleaved(
        a.rounds,
        || {
            std::hint::black_box(prove_zk(&pk, circuit.clone(), 1).ok());
        },
        stock,
    );
    // ark-groth16 with only the reduction swapped, against stock.
    let (ntt_only_ms, stock2_ms) = timing::interleaved(
        a.rounds,
        || {
            std::hint::black_box(
                ark_groth16::Groth16::<Bn254, zkaccel::groth16::NttReduction>::prove(
                    &pk,
                    circuit.clone(),
                    &mut ChaCha20Rng::seed_from_u64(1),
                )
                .ok(),
            );
        },
        stock,
    );

    // With --prepared: a PreparedProvingKey (precomputed shifted bases),
    // built once outside the timed region, against stock in its own rounds.
    let prepared = if a.prepared {
        progress(
            a.json,
            "      --prepared: precomputing shifted bases of the proving key",
        );
        let t = Instant::now();
        let ppk = PreparedProvingKey::new(pk.clone());
        let build_ms = ms(t.elapsed());
        let (p, _) = Groth16::<Bn254, backend::Cpu>::prove_prepared(
            &ppk,
            circuit.clone(),
            &mut ChaCha20Rng::seed_from_u64(1),
        )
        .map_err(|e| e.to_string())?;
        let same = bytes(&p) == bytes(&stock_proof);
        let (pms, sms) = timing::interleaved(
            a.rounds,
            || {
                std::hint::black_box(
                    Groth16::<Bn254, backend::Cpu>::prove_prepared(
                        &ppk,
                        circuit.clone(),
                        &mut ChaCha20Rng::seed_from_u64(1),
                    )
                    .ok(),
                );
            },
            stock,
        );
        Some((build_ms, ppk.extra_memory_bytes(), pms, sms, same))
    } else {
        None
    };

    progress(
        a.json,
        "[4/5] verifying both proofs with ark-groth16's verifier",
    );
    let public = circuit.public_inputs();
    let verify = |p| ark_groth16::Groth16::<Bn254>::verify(&vk, &public, p);
    let stock_ok = verify(&stock_proof).map_err(|e| e.to_string())?;
    let zk_ok = verify(&zk_proof).map_err(|e| e.to_string())?;

    progress(a.json, "[5/5] time split (one more proof each)");
    let stock_split = stock_split(&pk, circuit.clone()).map_err(|e| e.to_string())?;
    let ok = identical && stock_ok && zk_ok && prepared.is_none_or(|p| p.4);
    let prepared_json = match prepared {
        Some((b, m, p, st, same)) => format!(
            ", \"prepared\": {{\"build_ms\": {b:.0}, \"extra_memory_bytes\": {m}, \"zkaccel_ms\": {p:.2}, \"arkworks_ms\": {st:.2}, \"speedup\": {:.4}, \"results_equal\": {same}}}",
            st / p
        ),
        None => String::new(),
    };
    let speedup = stock_ms / zk_ms;
    let out = if a.json {
        format!(
            "{{\"workload\": \"groth16\", \"params\": {{\"curve\": \"bn254\", \"circuit\": \"{}\", \"constraints\": {constraints}, \"domain_log\": {}, \"backend\": \"{}\", \"rounds\": {}}}, \"setup_ms\": {setup_ms:.1}, \"zkaccel_ms\": {zk_ms:.2}, \"arkworks_ms\": {stock_ms:.2}, \"speedup\": {speedup:.4}, \"ntt_reduction_only_ms\": {ntt_only_ms:.2}, \"ntt_reduction_speedup\": {:.4}, \"results_equal\": {identical}, \"verified\": {}, \"split_zkaccel\": {}, \"split_arkworks\": {}{prepared_json}}}\n",
            a.circuit, domain.trailing_zeros(), a.backend, a.rounds, stock2_ms / ntt_only_ms, stock_ok && zk_ok, split_json(&zk_split), split_json(&stock_split)
        )
    } else {
        let row = |name: &str, z: Duration, s: Duration| {
            format!("  {name:<22} {:>10.1} {:>10.1}\n", ms(z), ms(s))
        };
        let mut o = format!(
            "Groth16 on BN254, {} circuit: {constraints} constraints, domain 2^{}\n\
             setup (ark-groth16): {setup_ms:.0} ms\n\
             prove, medians of {} interleaved rounds:\n\
             \x20 stock ark-groth16              {stock_ms:>10.1} ms\n\
             \x20 zkaccel ({:<4})                 {zk_ms:>10.1} ms   speed-up {speedup:.2}x\n\
             \x20 ark-groth16 + NttReduction    {ntt_only_ms:>10.1} ms   speed-up {:.2}x (vs {stock2_ms:.1} ms stock in its own rounds)\n\
             proofs byte-identical: {identical}; both verify with ark-groth16: {}\n\
             time split of one proof (ms):  zkaccel      stock\n",
            a.circuit,
            domain.trailing_zeros(),
            a.rounds,
            a.backend,
            stock2_ms / ntt_only_ms,
            stock_ok && zk_ok,
        );
        o += &row("synthesis", zk_split.synthesis, stock_split.synthesis);
        o += &row(
            "witness map (7 NTTs)",
            zk_split.witness_map,
            stock_split.witness_map,
        );
        o += &row("MSM A (G1)", zk_split.msm_a, stock_split.msm_a);
        o += &row("MSM B (G1)", zk_split.msm_b_g1, stock_split.msm_b_g1);
        o += &row("MSM B (G2)", zk_split.msm_b_g2, stock_split.msm_b_g2);
        o += &row("MSM L (G1)", zk_split.msm_l, stock_split.msm_l);
        o += &row("MSM H (G1)", zk_split.msm_h, stock_split.msm_h);
        o += &row("total", zk_split.total, stock_split.total);
        if zk_split.quotient_in_msm_h {
            o += "  (zkaccel's quotient ran on the GPU fused with the H MSM: its transforms count in that row)\n";
        }
        if let Some((b, m, p, st, same)) = prepared {
            o += &format!(
                "prepared proving key: built in {b:.0} ms, {:.0} MiB beyond the key\n\
                 \x20 zkaccel, prepared key          {p:>10.1} ms   speed-up {:.2}x (vs {st:.1} ms stock in its own rounds); proof identical: {same}\n",
                m as f64 / (1 << 20) as f64,
                st / p
            );
        }
        o
    };
    Ok((out, ok))
}

fn main() -> ExitCode {
    // The library's log lines (backend choice, GPU fallbacks, GPU profiles);
    // RUST_LOG overrides the level.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let parsed = flags::Flags::parse(
        &raw,
        &["--circuit", "--size", "--backend", "--rounds"],
        &["--json", "--prepared"],
    )
    .and_then(|f| {
        Ok(Args {
            circuit: f.str("--circuit", "sha256"),
            size: match f.num::<usize>("--size", 0)? {
                0 => None,
                n => Some(n),
            },
            backend: f.str("--backend", "auto"),
            rounds: f.num("--rounds", 3)?,
            prepared: f.has("--prepared"),
            json: f.has("--json"),
        })
    });
    let args = match parsed {
        Ok(a) if a.rounds > 0 => a,
        Ok(_) => {
            eprintln!("prove: --rounds must be at least 1; {USAGE}");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("prove: {e}; {USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok((out, ok)) => {
            print!("{out}");
            if ok {
                ExitCode::SUCCESS
            } else {
                eprintln!("prove: proofs differ or do not verify");
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("prove: {e}");
            ExitCode::from(2)
        }
    }
}
