//! Average cost, Hamming weight and computation time per method over random
//! inputs: the paper's Tables 4 and 5, as printed by `dbc stats`.

use crate::chain::{CostModel, Dbc, DbcError, Input};
use crate::recoding::Recoding;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::time::Instant;

/// A way to write a scalar as a chain or a recoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// [`Dbc::optimal`].
    Optimal,
    /// [`Dbc::eom`].
    Eom,
    /// [`Dbc::suboptimal`] with this δ.
    Suboptimal(u32),
    /// [`Recoding::naf`].
    Naf,
    /// [`Recoding::wnaf`] with this window.
    Wnaf(u32),
    /// [`Recoding::binary`].
    Binary,
}

impl Method {
    /// The name used by the CLI and in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Optimal => "optimal",
            Method::Eom => "eom",
            Method::Suboptimal(_) => "suboptimal",
            Method::Naf => "naf",
            Method::Wnaf(_) => "wnaf",
            Method::Binary => "binary",
        }
    }

    /// The rows of `dbc stats`: the paper's Table 4 plus wNAF with window `w`.
    pub fn table4(w: u32) -> Vec<Method> {
        let mut v = vec![Method::Optimal, Method::Eom];
        v.extend([1, 2, 3, 10, 20].map(Method::Suboptimal));
        v.extend([Method::Binary, Method::Naf, Method::Wnaf(w)]);
        v
    }

    /// Computes the representation of `n`.
    pub fn chain(&self, n: &[u64], model: &CostModel) -> Result<Repr, DbcError> {
        Ok(match *self {
            Method::Optimal => Repr::Chain(Dbc::optimal_with(n, model)?),
            Method::Eom => Repr::Chain(Dbc::eom_with(n, model)?),
            Method::Suboptimal(d) => Repr::Chain(Dbc::suboptimal_with(n, d, None, model)?),
            Method::Naf => Repr::Recoding(Recoding::naf(n)?),
            Method::Wnaf(w) => Repr::Recoding(Recoding::wnaf(n, w)?),
            Method::Binary => Repr::Recoding(Recoding::binary(n)?),
        })
    }
}

/// A chain or a single-base recoding.
#[derive(Clone, Debug)]
pub enum Repr {
    /// A double-base chain.
    Chain(Dbc),
    /// A binary, NAF or wNAF recoding.
    Recoding(Recoding),
}

impl Repr {
    /// Cost under `model`.
    pub fn cost(&self, model: &CostModel) -> f64 {
        match self {
            Repr::Chain(c) => c.cost(model),
            Repr::Recoding(r) => r.cost(model),
        }
    }

    /// Number of terms (non-zero digits).
    pub fn hamming_weight(&self) -> usize {
        match self {
            Repr::Chain(c) => c.hamming_weight(),
            Repr::Recoding(r) => r.hamming_weight(),
        }
    }
}

/// One row of `dbc stats`.
#[derive(Clone, Debug)]
pub struct StatsRow {
    /// The method.
    pub method: Method,
    /// Average cost in M under the model.
    pub avg_cost: f64,
    /// Average number of terms (non-zero digits).
    pub avg_hamming_weight: f64,
    /// Average wall time to compute one representation, in microseconds.
    pub avg_time_us: f64,
}

/// A random integer of exactly `bits` bits (top bit set), little-endian limbs.
pub fn random_scalar<R: Rng>(rng: &mut R, bits: u32) -> Vec<u64> {
    let bits = bits.max(1);
    let limbs = bits.div_ceil(64) as usize;
    let mut v: Vec<u64> = (0..limbs).map(|_| rng.gen()).collect();
    let top = (bits - 1) % 64;
    let last = &mut v[limbs - 1];
    if top < 63 {
        *last &= (1u64 << (top + 1)) - 1;
    }
    *last |= 1u64 << top;
    v
}

/// Runs every method in `methods` on the same `samples` random `bits`-bit
/// inputs (seeded ChaCha20). Each method's timing loop computes only the
/// representations; costs are summed afterwards.
pub fn stats(
    bits: u32,
    samples: usize,
    seed: u64,
    model: &CostModel,
    methods: &[Method],
) -> Result<Vec<StatsRow>, DbcError> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let inputs: Vec<Vec<u64>> = (0..samples)
        .map(|_| random_scalar(&mut rng, bits))
        .collect();
    if let Some(n) = inputs.first() {
        Input::new(n)?;
    }
    let mut rows = Vec::new();
    for &method in methods {
        // Warm up (tables, caches) outside the timed loop.
        if let Some(n) = inputs.first() {
            method.chain(n, model)?;
        }
        let start = Instant::now();
        let reprs = inputs
            .iter()
            .map(|n| method.chain(black_box(n), model).map(black_box))
            .collect::<Result<Vec<_>, _>>()?;
        let elapsed = start.elapsed();
        let (mut cost, mut weight) = (0f64, 0f64);
        for r in &reprs {
            cost += r.cost(model);
            weight += r.hamming_weight() as f64;
        }
        let k = samples.max(1) as f64;
        rows.push(StatsRow {
            method,
            avg_cost: cost / k,
            avg_hamming_weight: weight / k,
            avg_time_us: elapsed.as_secs_f64() * 1e6 / k,
        });
    }
    Ok(rows)
}
