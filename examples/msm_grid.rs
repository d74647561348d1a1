//! Checks "Auto is never more than 5% slower than the best single
//! algorithm", over the cells of the msm bench's grid (`crates/testkit/src/grid.rs`:
//! sizes x densities 1, sqrt(n)/n, 1/100, 1/1000 x scalar widths 1, 8, 16,
//! 32, 64 and full; BN254 G1).
//!
//! Per cell, every algorithm runs once and is checked equal to arkworks'
//! `msm` (an algorithm taking more than three times the fastest in that
//! pilot cannot be the best and is not timed further). Then `--rounds`
//! rounds: every remaining algorithm and arkworks in a fresh random order,
//! each sample the mean of enough calls to last about `--sample-ms`. Auto
//! against the best single algorithm is the median over rounds of Auto's
//! time divided by that algorithm's time *in the same round* (a paired
//! ratio: load that drifts over seconds falls on both), printed with its
//! quartiles. A cell whose ratio exceeds 1.05 is measured once more with
//! twice the rounds and both figures are printed. One row per cell as it
//! finishes, then a summary.
//!
//! `cargo run --release --example msm_grid -- [--log-n 10,12,14,16,18,20]
//! [--densities 1,sqrt,1/100,1/1000] [--widths 1,8,16,32,64,full] [--rounds 9]
//! [--sample-ms 20]`

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::VariableBaseMSM;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Instant;
use zkaccel::cpu::{msm_with, MsmAlgorithm};

// Shared with `compare`; this example needs no bare flags.
use zkaccel_testkit::flags;
use zkaccel_testkit::grid;
use zkaccel_testkit::inputs;
// Shared with `compare`; this example uses only the median.
use zkaccel_testkit::timing;

/// A contender: one of zkaccel's algorithms, or arkworks' `msm`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Contender {
    Zk(MsmAlgorithm),
    Arkworks,
}

impl Contender {
    fn run(self, bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
        match self {
            Contender::Zk(a) => msm_with(bases, scalars, a).expect("lengths agree"),
            Contender::Arkworks => G1Projective::msm(bases, scalars).expect("lengths agree"),
        }
    }
}

/// Mean milliseconds of `reps` calls.
fn sample(c: Contender, reps: usize, bases: &[G1Affine], scalars: &[Fr]) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        let _ = black_box(c.run(black_box(bases), black_box(scalars)));
    }
    t.elapsed().as_secs_f64() * 1e3 / reps as f64
}

/// Per-contender samples over `rounds` rounds, each round in a fresh random order.
fn timed_rounds(
    contenders: &[Contender],
    rounds: usize,
    reps: usize,
    bases: &[G1Affine],
    scalars: &[Fr],
    rng: &mut impl Rng,
) -> Vec<Vec<f64>> {
    let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
    for _ in 0..rounds {
        let mut order: Vec<usize> = (0..contenders.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.gen_range(0..=i));
        }
        for k in order {
            times[k].push(sample(contenders[k], reps, bases, scalars));
        }
    }
    times
}

/// What one cell measured.
struct Cell {
    medians: Vec<f64>,
    /// Index of the fastest contender other than Auto and arkworks.
    best: usize,
    /// Median, lower and upper quartile of Auto's paired ratio to `best`.
    ratio: (f64, f64, f64),
}

fn measure(contenders: &[Contender], times: Vec<Vec<f64>>) -> Cell {
    let medians: Vec<f64> = times.iter().map(|t| timing::median(t.clone())).collect();
    let best = (1..contenders.len())
        .filter(|&k| contenders[k] != Contender::Arkworks)
        .min_by(|&a, &b| medians[a].total_cmp(&medians[b]))
        .expect("the fastest single algorithm is always timed");
    let mut r: Vec<f64> = times[0]
        .iter()
        .zip(&times[best])
        .map(|(a, b)| a / b)
        .collect();
    r.sort_by(f64::total_cmp);
    let q = |f: f64| r[((r.len() - 1) as f64 * f).round() as usize];
    Cell {
        medians,
        best,
        ratio: (q(0.5), q(0.25), q(0.75)),
    }
}

fn list<T>(
    f: &flags::Flags,
    name: &str,
    default: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Vec<T> {
    f.str(name, default)
        .split(',')
        .map(|s| {
            parse(s).unwrap_or_else(|| {
                eprintln!("msm_grid: bad {name} entry {s:?}");
                std::process::exit(2)
            })
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let f = flags::Flags::parse(
        &args,
        &[
            "--log-n",
            "--rounds",
            "--densities",
            "--widths",
            "--sample-ms",
        ],
        &[],
    )
    .unwrap_or_else(|e| {
        eprintln!("msm_grid: {e}");
        std::process::exit(2)
    });
    let logs: Vec<u32> = list(&f, "--log-n", "10,12,14,16,18,20", |s| {
        s.parse().ok().filter(|&l| l <= 24)
    });
    let densities: Vec<&str> = list(&f, "--densities", "1,sqrt,1/100,1/1000", |s| {
        grid::DENSITIES.iter().copied().find(|d| *d == s)
    });
    let widths: Vec<u32> = list(&f, "--widths", "1,8,16,32,64,full", |s| {
        grid::WIDTHS
            .iter()
            .copied()
            .find(|&w| grid::width_label(w) == s)
    });
    let rounds: usize = f.num("--rounds", 9).unwrap_or(9).max(1);
    let sample_ms: f64 = f.num("--sample-ms", 20.0).unwrap_or(20.0);

    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let log_max = logs.iter().copied().max().unwrap_or(10);
    let all: Vec<G1Affine> = inputs::progression(1 << log_max, &mut rng);
    println!(
        "| n | density | bits | non-zero | Auto ms | best single | best ms | Auto / best (quartiles) | arkworks ms | Auto vs arkworks | not timed (pilot > 3x) |"
    );
    println!("|---|---|---|---:|---:|---|---:|---|---:|---:|---|");
    let (mut worst, mut over, mut cells) = (0f64, Vec::new(), 0usize);
    for &log in &logs {
        let n = 1usize << log;
        let bases = &all[..n];
        for &density in &densities {
            for &bits in &widths {
                let scalars = grid::scalars(n, density, bits, &mut rng);
                let nonzero = scalars.iter().filter(|k| **k != Fr::from(0u64)).count();
                let want = G1Projective::msm(bases, &scalars).expect("lengths agree");
                // Pilot: one checked run each.
                let mut pilot = Vec::new();
                for a in grid::algorithms(n, grid::nonzero(n, density)) {
                    let t = Instant::now();
                    let got = Contender::Zk(a).run(bases, &scalars);
                    pilot.push((a, t.elapsed().as_secs_f64() * 1e3));
                    assert_eq!(
                        got, want,
                        "{a:?} differs from arkworks at 2^{log} {density} {bits}"
                    );
                }
                // Auto is always timed; another algorithm only within 3x of
                // the fastest single algorithm's pilot.
                let fastest = pilot
                    .iter()
                    .filter(|p| p.0 != MsmAlgorithm::Auto)
                    .map(|p| p.1)
                    .fold(f64::INFINITY, f64::min);
                let kept =
                    |p: &&(MsmAlgorithm, f64)| p.0 == MsmAlgorithm::Auto || p.1 <= 3.0 * fastest;
                let dropped: Vec<String> = pilot
                    .iter()
                    .filter(|p| !kept(p))
                    .map(|p| format!("{:?}", p.0))
                    .collect();
                let mut contenders: Vec<Contender> = pilot
                    .iter()
                    .filter(kept)
                    .map(|p| Contender::Zk(p.0))
                    .collect();
                contenders.push(Contender::Arkworks);
                let quickest = pilot.iter().map(|p| p.1).fold(fastest, f64::min);
                let reps = ((sample_ms / quickest.max(1e-3)).ceil() as usize).clamp(1, 1000);
                let times = timed_rounds(&contenders, rounds, reps, bases, &scalars, &mut rng);
                let mut cell = measure(&contenders, times);
                let mut ratio_text = format!(
                    "{:.3} ({:.3}-{:.3})",
                    cell.ratio.0, cell.ratio.1, cell.ratio.2
                );
                if cell.ratio.0 > 1.05 {
                    let times =
                        timed_rounds(&contenders, 2 * rounds, reps, bases, &scalars, &mut rng);
                    cell = measure(&contenders, times);
                    ratio_text = format!(
                        "{ratio_text}; again: {:.3} ({:.3}-{:.3})",
                        cell.ratio.0, cell.ratio.1, cell.ratio.2
                    );
                }
                let ark = *cell.medians.last().expect("arkworks runs");
                let Contender::Zk(best_alg) = contenders[cell.best] else {
                    unreachable!("best excludes arkworks")
                };
                cells += 1;
                let label = format!("2^{log} {density} {}", grid::width_label(bits));
                if cell.ratio.0 > worst {
                    worst = cell.ratio.0;
                }
                if cell.ratio.0 > 1.05 {
                    over.push(label);
                }
                println!(
                    "| 2^{log} | {density} | {} | {nonzero} | {:.3} | {best_alg:?} | {:.3} | {ratio_text} | {:.3} | {:.2}x | {} |",
                    grid::width_label(bits),
                    cell.medians[0],
                    cell.medians[cell.best],
                    ark,
                    ark / cell.medians[0],
                    if dropped.is_empty() { "-".to_string() } else { dropped.join(", ") },
                );
            }
        }
    }
    println!(
        "\n{cells} cells, {rounds} rounds each; largest Auto / best {worst:.3}; cells above 1.05: {}",
        if over.is_empty() { "none".to_string() } else { over.join("; ") }
    );
}
