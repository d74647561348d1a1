//! A fixed loop of GLV and arkworks scalar multiplications on BN254 G1, for
//! instruction counting (`valgrind --tool=callgrind`): `glv_loop {glv|glvdbc|ark} N`.
use ark_ec::PrimeGroup;
use ark_ff::UniformRand;
use rand::SeedableRng;
use zkaccel_cpu::{mul_scalar, ScalarMulMethod};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let g = ark_bn254::G1Projective::generator();
    let inputs: Vec<_> = (0..n)
        .map(|_| {
            (
                g * ark_bn254::Fr::rand(&mut rng),
                ark_bn254::Fr::rand(&mut rng),
            )
        })
        .collect();
    let mut acc = ark_bn254::G1Projective::default();
    for (p, k) in &inputs {
        acc += match args[1].as_str() {
            "ark" => *p * k,
            "glvdbc" => mul_scalar(p, k, ScalarMulMethod::GlvDbc).unwrap(),
            _ => mul_scalar(p, k, ScalarMulMethod::Glv).unwrap(),
        };
    }
    println!("{acc}");
}
