//! `compare msm`: zkaccel's MSM against arkworks' `VariableBaseMSM::msm`.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::{PrimeField, UniformRand};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::cpu::{msm_with, CurveMul, MsmAlgorithm, MsmProvider, PreparedBases};

struct Args {
    curve: String,
    log_n: u32,
    density: String,
    bits: u32,
    algorithm: String,
    rounds: usize,
    prepared: bool,
    backend: String,
    json: bool,
}

fn parse(rest: &[String]) -> Result<Args, String> {
    let f = crate::flags::Flags::parse(
        rest,
        &[
            "--curve",
            "--log-n",
            "--density",
            "--bits",
            "--algorithm",
            "--rounds",
            "--backend",
        ],
        &["--json", "--prepared"],
    )?;
    let a = Args {
        curve: f.str("--curve", "bn254-g1"),
        log_n: f.num("--log-n", 16)?,
        density: f.str("--density", "1"),
        bits: f.num("--bits", 0)?,
        algorithm: f.str("--algorithm", "auto"),
        rounds: f.num("--rounds", 7)?,
        prepared: f.has("--prepared"),
        backend: f.str("--backend", "cpu"),
        json: f.has("--json"),
    };
    if a.log_n > 24 || a.rounds == 0 {
        return Err("--log-n must be at most 24 and --rounds at least 1".into());
    }
    Ok(a)
}

fn algorithm(name: &str) -> Result<MsmAlgorithm, String> {
    Ok(match name {
        "auto" => MsmAlgorithm::Auto,
        "pippenger" => MsmAlgorithm::Pippenger,
        "pippenger-glv" => MsmAlgorithm::PippengerGlv,
        "strauss" => MsmAlgorithm::Strauss,
        "dbc-per-term" => MsmAlgorithm::DbcPerTerm,
        "naive" => MsmAlgorithm::Naive,
        _ => return Err(format!("unknown algorithm {name:?}")),
    })
}

/// `gpu`: the provider zkaccel's side runs on (`--backend cuda`), or the CPU.
fn run<P: CurveMul>(a: &Args, gpu: Option<&dyn MsmProvider<P>>) -> Result<String, String> {
    let n = 1usize << a.log_n;
    let alg = algorithm(&a.algorithm)?;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let bases: Vec<Affine<P>> = crate::inputs::progression(n, &mut rng);
    let nonzero = match a.density.as_str() {
        "1" => n,
        "sqrt" => (n as f64).sqrt().ceil() as usize,
        "1/100" => n.div_ceil(100),
        "1/1000" => n.div_ceil(1000),
        d => return Err(format!("unknown density {d:?} (1, sqrt, 1/100, 1/1000)")),
    };
    let mut scalars = vec![P::ScalarField::from(0u64); n];
    for i in 0..nonzero {
        let idx = if nonzero == n { i } else { rng.gen_range(0..n) };
        scalars[idx] = if a.bits == 0 || a.bits >= 256 {
            P::ScalarField::rand(&mut rng)
        } else {
            let v: u64 = rng.gen();
            P::ScalarField::from(if a.bits >= 64 {
                v
            } else {
                v & ((1u64 << a.bits) - 1)
            })
        };
    }
    let want = <Projective<P> as VariableBaseMSM>::msm(&bases, &scalars)
        .map_err(|e| format!("arkworks: {e}"))?;
    // With --prepared, zkaccel's side runs on precomputed shifted bases
    // (built here, outside the timed region; its memory is reported).
    let prepared = a.prepared.then(|| {
        let t = std::time::Instant::now();
        let p = PreparedBases::new(&bases);
        (p, t.elapsed())
    });
    let ours = |b: &[Affine<P>], s: &[P::ScalarField]| match (&prepared, gpu) {
        (Some((p, _)), _) => p.msm(s),
        (None, Some(g)) => g.msm(b, s),
        (None, None) => msm_with(b, s, alg),
    };
    let got = ours(&bases, &scalars).map_err(|e| e.to_string())?;
    let equal = got == want;
    if let Some((p, t)) = &prepared {
        if !a.json {
            println!(
                "prepared bases: window {}, {} copies, {:.1} MiB, built in {:.1} s",
                p.window(),
                p.copies(),
                p.memory_bytes() as f64 / (1 << 20) as f64,
                t.as_secs_f64()
            );
        }
    }
    let (ma, mb) = crate::timing::interleaved(
        a.rounds,
        || {
            black_box(ours(black_box(&bases), black_box(&scalars)).ok());
        },
        || {
            black_box(
                <Projective<P> as VariableBaseMSM>::msm(black_box(&bases), black_box(&scalars))
                    .ok(),
            );
        },
    );
    let _ = P::ScalarField::MODULUS_BIT_SIZE;
    Ok(if a.json {
        format!(
            "{{\"workload\": \"msm\", \"params\": {{\"curve\": \"{}\", \"log_n\": {}, \"density\": \"{}\", \"bits\": {}, \"algorithm\": \"{}\", \"rounds\": {}}}, \"zkaccel_ms\": {ma:.4}, \"arkworks_ms\": {mb:.4}, \"speedup\": {:.4}, \"results_equal\": {equal}}}\n",
            a.curve, a.log_n, a.density, a.bits, a.algorithm, a.rounds, mb / ma
        )
    } else {
        format!(
            "msm on {}: 2^{} bases, density {}, {} nonzero, scalar bits {} ({} interleaved rounds)\n  zkaccel {:<12} {:>10.2} ms (median)\n  arkworks             {:>10.2} ms (median)\n  speedup {:.3}x, results equal to arkworks: {equal}\n",
            a.curve, a.log_n, a.density, nonzero, if a.bits == 0 { "full".to_string() } else { a.bits.to_string() }, a.rounds, a.algorithm, ma, mb, mb / ma
        )
    })
}

/// Entry point for `compare msm ...`.
pub fn main(rest: &[String]) -> Result<String, String> {
    let a = parse(rest)?;
    match a.curve.as_str() {
        "bn254-g1" if a.backend == "cuda" => {
            let gpu = zkaccel::cuda::CudaMsm::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
            run::<ark_bn254::g1::Config>(&a, Some(&gpu))
        }
        _ if a.backend == "cuda" => Err("--backend cuda supports --curve bn254-g1 only".into()),
        _ if a.backend != "cpu" => Err(format!("unknown backend {:?} (cpu, cuda)", a.backend)),
        "bn254-g1" => run::<ark_bn254::g1::Config>(&a, None),
        "bn254-g2" => run::<ark_bn254::g2::Config>(&a, None),
        "bls12-381-g1" => run::<ark_bls12_381::g1::Config>(&a, None),
        "secp256k1" => run::<ark_secp256k1::Config>(&a, None),
        c => Err(format!(
            "unknown curve {c:?} (bn254-g1, bn254-g2, bls12-381-g1, secp256k1)"
        )),
    }
}
