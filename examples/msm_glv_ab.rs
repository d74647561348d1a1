//! Pippenger with and without the GLV split on the same random BN254 G1
//! terms, interleaved: `msm_glv_ab [TERMS] [ROUNDS]` (default 2^17 terms, 9
//! rounds; the order of the two alternates each round). Prints the median
//! of the rounds' time ratios (split over unsplit) with their range, then
//! each method's median time. Building the inputs is outside the timed
//! region; every result is checked equal to the first unsplit one.
//! `ZKACCEL_KERNEL` picks the kernels (docs/msm.md, "GLV split").
use rand::SeedableRng;
use std::time::Instant;
use zkaccel_cpu::{msm_with, MsmAlgorithm};
use zkaccel_testkit::inputs::{progression, random_scalars};
use zkaccel_testkit::timing::median;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 17);
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(9).max(1);
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let bases = progression::<ark_bn254::g1::Config>(n, &mut rng);
    let scalars: Vec<ark_bn254::Fr> = random_scalars(n, &mut rng);
    let methods = [
        ("unsplit", MsmAlgorithm::Pippenger),
        ("split", MsmAlgorithm::PippengerGlv),
    ];
    let expected = msm_with(&bases, &scalars, MsmAlgorithm::Pippenger).expect("equal lengths");
    let mut ms = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for j in 0..2 {
            let j = (j + round) % 2;
            let start = Instant::now();
            let sum = msm_with(&bases, &scalars, methods[j].1).expect("equal lengths");
            ms[j].push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(sum, expected, "{} differs", methods[j].0);
        }
    }
    let ratios: Vec<f64> = ms[1].iter().zip(&ms[0]).map(|(s, u)| s / u).collect();
    let (lo, hi) = ratios
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    println!(
        "{n} terms, {rounds} rounds: split / unsplit {:.3} (range {lo:.3}-{hi:.3})",
        median(ratios)
    );
    for ((name, _), times) in methods.iter().zip(ms) {
        println!("{name}: median {:.1} ms", median(times));
    }
}
