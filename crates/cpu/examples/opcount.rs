//! Average field multiplications, squarings and time per scalar multiplication,
//! per method, on BN254 G1 and secp256k1: the measured side of the cost model.
use ark_ec::short_weierstrass::Projective;
use ark_ec::PrimeGroup;
use ark_ff::UniformRand;
use rand::SeedableRng;
use std::time::Instant;
use zkaccel_cpu::{mul_scalar_with, Counting, CurveMul, FormulaSet, Plain, ScalarMulMethod};

fn run<P: CurveMul>(name: &str, sets: &[FormulaSet]) {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
    let inputs: Vec<_> = (0..200)
        .map(|_| {
            (
                Projective::<P>::generator() * P::ScalarField::rand(&mut rng),
                P::ScalarField::rand(&mut rng),
            )
        })
        .collect();
    for &set in sets {
        for m in [
            ScalarMulMethod::Naf,
            ScalarMulMethod::Wnaf(4),
            ScalarMulMethod::Wnaf(5),
            ScalarMulMethod::Dbc { delta: 1 },
            ScalarMulMethod::Dbc { delta: 2 },
        ] {
            let mut ops = Counting::default();
            for (p, k) in &inputs {
                let _ = mul_scalar_with(p, k, m, set, &mut ops).unwrap();
            }
            let t = Instant::now();
            for _ in 0..3 {
                for (p, k) in &inputs {
                    let _ =
                        std::hint::black_box(mul_scalar_with(p, k, m, set, &mut Plain).unwrap());
                }
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / (3.0 * inputs.len() as f64);
            let n = inputs.len() as f64;
            let (mm, ss) = (ops.mul as f64 / n, ops.sqr as f64 / n);
            println!(
                "{name:10} {set:?}: {m:?}: {mm:.0}M + {ss:.0}S = {:.0}M (S=0.8M), {us:.1} us",
                mm + 0.8 * ss
            );
        }
    }
}

fn main() {
    run::<ark_bn254::g1::Config>("bn254-g1", &[FormulaSet::AZero]);
    run::<ark_secp256k1::Config>("secp256k1", &[FormulaSet::AZero, FormulaSet::Generic]);
}
