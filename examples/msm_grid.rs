//! Issue 4's "Auto is never more than 5% slower than the best single
//! algorithm": for each cell of a grid (size x density x scalar width), every
//! algorithm and arkworks run on the same inputs, in a fresh random order
//! each round; the medians, Auto's ratio to the best algorithm, and Auto's
//! speed-up over arkworks are printed as one row per cell (results checked
//! equal).
//!
//! `cargo run --release --example msm_grid -- [--log-n 10,12,14] [--rounds 5]`

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::UniformRand;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Instant;
use zkaccel::cpu::{msm_with, MsmAlgorithm};

// Shared with `compare`; this example needs no bare flags.
#[allow(dead_code)]
#[path = "compare/flags.rs"]
mod flags;
#[path = "../benches/support/inputs.rs"]
mod inputs;
// Shared with `compare`; this example uses only the median.
#[allow(dead_code)]
#[path = "compare/timing.rs"]
mod timing;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f = flags::Flags::parse(&args, &["--log-n", "--rounds"], &[]).unwrap_or_else(|e| {
        eprintln!("msm_grid: {e}");
        std::process::exit(2)
    });
    let logs: Vec<u32> = f
        .str("--log-n", "10,12,14")
        .split(',')
        .filter_map(|s| s.parse().ok())
        .collect();
    let rounds: usize = f.num("--rounds", 5).unwrap_or(5).max(1);
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    println!(
        "| n | density | bits | Auto ms | best single | best ms | Auto / best | Auto vs arkworks |"
    );
    println!("|---|---|---|---:|---|---:|---:|---:|");
    for &log in &logs {
        let n = 1usize << log;
        let bases: Vec<G1Affine> = inputs::progression(n, &mut rng);
        for density in ["1", "sqrt", "1/100"] {
            for bits in [0u32, 64, 16, 1] {
                let nonzero = match density {
                    "1" => n,
                    "sqrt" => (n as f64).sqrt().ceil() as usize,
                    _ => n.div_ceil(100),
                };
                let mut scalars = vec![Fr::from(0u64); n];
                for i in 0..nonzero {
                    let idx = if nonzero == n { i } else { rng.gen_range(0..n) };
                    scalars[idx] = match bits {
                        0 => Fr::rand(&mut rng),
                        b => Fr::from(rng.gen::<u64>() & (u64::MAX >> (64 - b))),
                    };
                }
                let want = G1Projective::msm(&bases, &scalars).unwrap();
                let mut algs = vec![MsmAlgorithm::Auto, MsmAlgorithm::Pippenger];
                if nonzero <= 4096 {
                    algs.push(MsmAlgorithm::Strauss);
                }
                for &a in &algs {
                    assert_eq!(msm_with(&bases, &scalars, a).unwrap(), want, "{a:?}");
                }
                // Every algorithm and arkworks once per round, in a fresh
                // random order each round (a fixed rotation would always put
                // the same contender right after arkworks).
                let mut times = vec![Vec::new(); algs.len() + 1];
                for _ in 0..rounds {
                    let mut order: Vec<usize> = (0..=algs.len()).collect();
                    for i in (1..order.len()).rev() {
                        order.swap(i, rng.gen_range(0..=i));
                    }
                    for k in order {
                        let t = Instant::now();
                        if k == algs.len() {
                            black_box(
                                G1Projective::msm(black_box(&bases), black_box(&scalars)).ok(),
                            );
                        } else {
                            black_box(
                                msm_with(black_box(&bases), black_box(&scalars), algs[k]).ok(),
                            );
                        }
                        times[k].push(t.elapsed().as_secs_f64() * 1e3);
                    }
                }
                let med: Vec<f64> = times.into_iter().map(timing::median).collect();
                let (best_i, best) = med[1..algs.len()]
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1.total_cmp(b.1))
                    .map(|(i, v)| (i + 1, *v))
                    .unwrap();
                println!(
                    "| 2^{log} | {density} | {} | {:.3} | {:?} | {:.3} | {:.3} | {:.2}x |",
                    if bits == 0 {
                        "full".to_string()
                    } else {
                        bits.to_string()
                    },
                    med[0],
                    algs[best_i],
                    best,
                    med[0] / best,
                    med[algs.len()] / med[0]
                );
            }
        }
    }
}
