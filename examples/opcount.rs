//! Field multiplications (M) and squarings (S) per scalar multiplication, per
//! method and curve, averaged over 100 random inputs: the theoretical side of
//! the scalar-multiplication table of docs/scalar-mul.md. Prints a Markdown table.
//! The inversion of the generic-formula path's base is arkworks code and not
//! counted; everything else a method does is.
use ark_ec::short_weierstrass::Projective;
use ark_ec::PrimeGroup;
use ark_ff::UniformRand;
use rand::SeedableRng;
use zkaccel_cpu::{mul_scalar_with, Counting, CurveMul, FormulaSet, ScalarMulMethod};

fn run<P: CurveMul>(name: &str, glv: bool) {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
    let inputs: Vec<_> = (0..100)
        .map(|_| {
            (
                Projective::<P>::generator() * P::ScalarField::rand(&mut rng),
                P::ScalarField::rand(&mut rng),
            )
        })
        .collect();
    let own = FormulaSet::for_curve::<P>();
    let mut runs = vec![
        (ScalarMulMethod::Naf, own),
        (ScalarMulMethod::Wnaf(4), own),
        (ScalarMulMethod::Wnaf(5), own),
        (ScalarMulMethod::Dbc { delta: 1 }, own),
        (ScalarMulMethod::Dbc { delta: 2 }, own),
        (ScalarMulMethod::Auto, own),
    ];
    if glv {
        runs.push((ScalarMulMethod::Glv, own));
        runs.push((ScalarMulMethod::GlvDbc, own));
    } else {
        runs.push((ScalarMulMethod::Naf, FormulaSet::Generic));
        runs.push((ScalarMulMethod::Dbc { delta: 1 }, FormulaSet::Generic));
    }
    for (m, set) in runs {
        let mut ops = Counting::default();
        for (p, k) in &inputs {
            let _ = mul_scalar_with(p, k, m, set, &mut ops).unwrap();
        }
        let n = inputs.len() as f64;
        let (mm, ss) = (ops.mul as f64 / n, ops.sqr as f64 / n);
        println!(
            "| {name} | {m:?} | {set:?} | {mm:.0} | {ss:.0} | {:.0} |",
            mm + 0.8 * ss
        );
    }
}

fn main() {
    println!("| curve | method | formulas | M | S | M + 0.8 S |\n|---|---|---|---:|---:|---:|");
    run::<ark_bn254::g1::Config>("BN254 G1", true);
    run::<ark_bn254::g2::Config>("BN254 G2 (Fq2 ops)", true);
    run::<ark_bls12_381::g1::Config>("BLS12-381 G1", true);
    run::<ark_secp256k1::Config>("secp256k1", false);
}
