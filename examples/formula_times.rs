//! Time per formula and per field operation, to read a cost model off the
//! machine rather than off the operation counts.
use ark_ec::short_weierstrass::{Projective, SWCurveConfig};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{Field, UniformRand};
use rand::SeedableRng;
use std::hint::black_box;
use std::time::Instant;
use zkaccel_cpu::formulas::{add_affine, double, triple};
use zkaccel_cpu::{FormulaSet, Plain};

fn per<F: FnMut()>(n: u32, mut f: F) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn run<P: SWCurveConfig>(name: &str, set: FormulaSet) {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let mut p = Projective::<P>::generator() * P::ScalarField::rand(&mut rng);
    let q = (Projective::<P>::generator() * P::ScalarField::rand(&mut rng)).into_affine();
    let (mut a, b) = (P::BaseField::rand(&mut rng), P::BaseField::rand(&mut rng));
    let n = 200_000;
    let mul = per(n, || a = black_box(a * b));
    let sqr = per(n, || a = black_box(a.square()));
    let add = per(n, || a = black_box(a + b));
    let dbl = per(n, || double(black_box(&mut p), set, &mut Plain));
    let tpl = per(n, || triple(black_box(&mut p), set, &mut Plain));
    let madd = per(n, || add_affine(black_box(&mut p), &q, set, &mut Plain));
    println!(
        "{name:10} {set:?}: mul {mul:.1} ns, sqr {sqr:.1} ns, add {add:.1} ns | dbl {dbl:.0} ns ({:.2} M), tpl {tpl:.0} ns ({:.2} M), madd {madd:.0} ns ({:.2} M); tpl/dbl {:.3} (log2 3 = 1.585)",
        dbl / mul, tpl / mul, madd / mul, tpl / dbl
    );
}

fn main() {
    inverse_time();
    run::<ark_bn254::g1::Config>("bn254-g1", FormulaSet::AZero);
    run::<ark_secp256k1::Config>("secp256k1", FormulaSet::AZero);
    run::<ark_secp256k1::Config>("secp256k1", FormulaSet::Generic);
}

#[allow(dead_code)]
fn inverse_time() {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(2);
    let mut a = ark_bn254::Fq::rand(&mut rng);
    let t = per(20_000, || a = black_box(a.inverse().unwrap() + a));
    println!("bn254 Fq inverse: {t:.0} ns");
}
