//! The BN254 G1 MSM grid, shared by the criterion bench (`benches/msm.rs`,
//! behind `ZKACCEL_BENCH_MSM_FULL=1`) and the `msm_grid` example
//! (interleaved paired ratios): the cells, their random scalars and the
//! contending algorithms.

use ark_bn254::Fr;
use ark_ff::UniformRand;
use rand::Rng;
use zkaccel_cpu::MsmAlgorithm;

/// Densities: every scalar non-zero, `sqrt(n)` of them, `n / 100`, `n / 1000`.
pub const DENSITIES: [&str; 4] = ["1", "sqrt", "1/100", "1/1000"];

/// Scalar widths in bits; 0 stands for full field elements.
pub const WIDTHS: [u32; 6] = [1, 8, 16, 32, 64, 0];

/// How many scalars of a cell of `n` terms are drawn non-zero.
pub fn nonzero(n: usize, density: &str) -> usize {
    match density {
        "1" => n,
        "sqrt" => (n as f64).sqrt() as usize,
        "1/100" => (n / 100).max(1),
        "1/1000" => (n / 1000).max(1),
        other => panic!("unknown density {other:?}"),
    }
}

/// A width as printed: `full` for 0.
pub fn width_label(bits: u32) -> String {
    if bits == 0 {
        "full".to_string()
    } else {
        bits.to_string()
    }
}

/// The scalars of a cell: `nonzero(n, density)` draws of `bits`-bit values
/// (uniform field elements for 0) at random positions (all positions in
/// order for density 1; a position drawn twice keeps its last value), zero
/// elsewhere. A 1-bit draw is 0 or 1 with equal chance, as a witness bit is.
pub fn scalars(n: usize, density: &str, bits: u32, rng: &mut impl Rng) -> Vec<Fr> {
    let count = nonzero(n, density);
    let mut s = vec![Fr::from(0u64); n];
    for placed in 0..count {
        let i = if count == n {
            placed
        } else {
            rng.gen_range(0..n)
        };
        s[i] = match bits {
            0 => Fr::rand(rng),
            64 => Fr::from(rng.gen::<u64>()),
            k => Fr::from(rng.gen::<u64>() & ((1u64 << k) - 1)),
        };
    }
    s
}

/// The algorithms a cell of `n` terms with `nonzero` non-zero scalars runs,
/// `Auto` first. Each algorithm is left out only where its cost makes it
/// hopeless (seconds where the cell's best takes milliseconds): Strauss
/// (which skips zero scalars) up to 2^14 non-zero terms, the naive sum up
/// to 2^12 terms, the per-term DBC method (which does not skip zeros) up
/// to 2^12 non-zero terms and 2^18 terms.
pub fn algorithms(n: usize, nonzero: usize) -> Vec<MsmAlgorithm> {
    let mut algs = vec![
        MsmAlgorithm::Auto,
        MsmAlgorithm::Pippenger,
        MsmAlgorithm::PippengerGlv,
    ];
    if nonzero <= 1 << 14 {
        algs.push(MsmAlgorithm::Strauss);
    }
    if nonzero <= 1 << 12 && n <= 1 << 18 {
        algs.push(MsmAlgorithm::DbcPerTerm);
    }
    if n <= 1 << 12 {
        algs.push(MsmAlgorithm::Naive);
    }
    algs
}
