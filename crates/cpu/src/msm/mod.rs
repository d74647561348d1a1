//! Multi-scalar multiplication `sum k_i P_i` on the CPU.
//!
//! | algorithm | what it does | where it wins |
//! |---|---|---|
//! | [`MsmAlgorithm::Pippenger`] | signed-digit windows, affine buckets with batched inversions (XYZZ below 9-bit windows), each window summed by batched row and column sums of its buckets, windows in parallel | dense inputs beyond a few dozen terms |
//! | [`MsmAlgorithm::PippengerGlv`] | the same on `2n` half-width terms `k1 P + k2 φ(P)` (GLV split with 256-bit-limb Babai rounding), cofactor-1 curves with an endomorphism | dense full-width terms up to about 2^10 (5-20%) and 2^12-2^14 (4-30%); slower from 2^16 |
//! | [`MsmAlgorithm::Strauss`] | interleaved wNAF (NAF for narrow scalars, no table), all tables normalised with one inversion, split over the threads where each part has enough work | a few terms: up to 4-32 by scalar width here (libsecp256k1's crossover is about 88: it has no parallel bucket method) |
//! | [`MsmAlgorithm::DbcPerTerm`] | the paper's method: each term by its δ = 1 chain, then a sum | measured against the others |
//! | [`MsmAlgorithm::Naive`] | arkworks' own `P * k` per term, summed | the reference |
//! | [`MsmAlgorithm::Auto`] | drops zero scalars and adds the bases of scalar one directly (where they are at least 1/16 of the terms), sizes windows to the widest remaining scalar, then picks one GLV scalar multiplication per term (up to one wide term a thread), Strauss (up to 4-32 terms, by scalar width), Pippenger with the GLV split (for the term counts where it measured faster) or Pippenger | everything |
//!
//! Pippenger's window count follows the effective scalar width, so small
//! scalars (8, 16, 32, 64 bits) need proportionally fewer windows: that is
//! the small-scalar path.
//!
//! One file per concern: this one holds the API (algorithms, errors,
//! [`MsmProvider`], [`CpuMsm`]); `auto.rs` the `Auto` choice and its
//! zero/one filter; `chunked.rs` `Auto` in memory-budget chunks;
//! `shared.rs` MSMs over several base sets that share their scalars
//! ([`SharedScalars`]); `pippenger.rs` the bucket method (digits, windows, XYZZ
//! buckets, running sums); `batch_affine.rs` its affine buckets with batched
//! inversions and their reduction; `glv_split.rs` Pippenger on GLV-split terms; `strauss.rs`
//! interleaved wNAF; `dbc.rs` the per-term double-base chains; `budget.rs`
//! the memory budget; `parallel.rs` the rayon helpers. Precomputed bases are
//! [`crate::PreparedBases`], the field arithmetic [`crate::formulas`].

use crate::{CurveMul, ScalarMulMethod};
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::AffineRepr;
use ark_ff::PrimeField;
pub use zkaccel_core::{check_lengths, BackendCause, MsmError, MsmProvider};

mod auto;
mod bases;
mod batch_affine;
mod budget;
mod chunked;
mod dbc;
mod glv_bases;
mod glv_split;
mod pippenger;
mod shared;
mod strauss;

use crate::parallel::{map_indices, to_bigints};
pub(crate) use auto::sum_affine_with;
use auto::{auto, auto_bigint, naive};
pub use bases::{BaseSlice, Bases, MontBytes, PackedBases};
pub(crate) use batch_affine::window_batch_affine;
pub use budget::{
    chunk_for_budget, memory_budget, set_memory_budget, working_memory, MIN_CHUNK_TERMS,
};
use chunked::in_chunks;
pub use chunked::msm_bases;
pub use dbc::dbc_per_term;
pub use glv_bases::{GlvBases, GlvScalars, GlvTerms};
pub use glv_split::pippenger_glv;
pub(crate) use pippenger::{max_bits, signed_digits};
pub use pippenger::{
    min_work_window, pippenger, pippenger_plan, pippenger_window, pippenger_with, window_cost,
    BucketAdds, BATCH_AFFINE_MIN_WINDOW, BATCH_AFFINE_WALK_DISCOUNT, BATCH_AFFINE_WALK_MAX_WINDOW,
    BATCH_AFFINE_WALK_MAX_WINDOW_SCALAR, BATCH_AFFINE_WALK_MAX_WINDOW_WASM,
    BATCH_AFFINE_WALK_MIN_WINDOW, BATCH_AFFINE_WIDE_WALK_DISCOUNT_WASM, MIN_RANGE_TERMS,
};
pub use shared::SharedScalars;
pub use strauss::strauss;

/// Which MSM algorithm to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MsmAlgorithm {
    /// Choose from the input (see the module docs).
    Auto,
    /// Bucket method with signed-digit windows.
    Pippenger,
    /// Pippenger on GLV-split terms ([`pippenger_glv`]) on curves whose
    /// points are all in the prime-order subgroup (BN254 G1); plain
    /// Pippenger elsewhere.
    PippengerGlv,
    /// Interleaved wNAF.
    Strauss,
    /// Each term by its double-base chain, then summed.
    DbcPerTerm,
    /// arkworks' scalar multiplication per term, summed.
    Naive,
}

/// `sum k_i P_i` with [`MsmAlgorithm::Auto`].
pub fn msm<P: CurveMul>(
    bases: &[Affine<P>],
    scalars: &[P::ScalarField],
) -> Result<Projective<P>, MsmError> {
    msm_with(bases, scalars, MsmAlgorithm::Auto)
}

/// `sum k_i P_i` with the given algorithm.
pub fn msm_with<P: CurveMul>(
    bases: &[Affine<P>],
    scalars: &[P::ScalarField],
    algorithm: MsmAlgorithm,
) -> Result<Projective<P>, MsmError> {
    check_lengths(bases.len(), scalars.len())?;
    Ok(match algorithm {
        MsmAlgorithm::Naive => naive(bases, scalars),
        MsmAlgorithm::Pippenger => pippenger(bases, &to_bigints(scalars)),
        MsmAlgorithm::PippengerGlv => pippenger_glv(bases, &to_bigints(scalars)),
        MsmAlgorithm::Strauss => strauss(bases, &to_bigints(scalars)),
        MsmAlgorithm::DbcPerTerm => dbc_per_term(bases, scalars),
        MsmAlgorithm::Auto => return msm_bases(bases, scalars),
    })
}

impl<P: CurveMul> BaseSlice<'_, P>
where
    P::BaseField: MontBytes,
{
    /// [`msm_bases`] on these points.
    pub fn msm(&self, scalars: &[P::ScalarField]) -> Result<Projective<P>, MsmError> {
        match *self {
            BaseSlice::Affine(s) => msm_bases(s, scalars),
            BaseSlice::Packed(p) => msm_bases(p, scalars),
        }
    }
}

/// `sum k_i P_i` for scalars given as integers (out of Montgomery form), as
/// arkworks' `VariableBaseMSM::msm_bigint` takes them. Integers of any size
/// up to the `BigInt` width are multiplied exactly (not reduced mod r).
pub fn msm_bigint_with<P: CurveMul>(
    bases: &[Affine<P>],
    scalars: &[<P::ScalarField as PrimeField>::BigInt],
    algorithm: MsmAlgorithm,
) -> Result<Projective<P>, MsmError> {
    check_lengths(bases.len(), scalars.len())?;
    Ok(match algorithm {
        MsmAlgorithm::Naive => bases
            .iter()
            .zip(scalars)
            .map(|(b, k)| b.mul_bigint(k))
            .sum(),
        MsmAlgorithm::Pippenger => pippenger(bases, scalars),
        MsmAlgorithm::PippengerGlv => pippenger_glv(bases, scalars),
        MsmAlgorithm::Strauss => strauss(bases, scalars),
        MsmAlgorithm::DbcPerTerm => map_indices(bases.len(), |i| {
            crate::mul(
                &Projective::from(bases[i]),
                scalars[i].as_ref(),
                ScalarMulMethod::Dbc { delta: 1 },
            )
            .expect("a field's BigInt is within the chain size limit (1024 bits)")
        })
        .into_iter()
        .sum(),
        MsmAlgorithm::Auto => {
            let chunk = chunk_for_budget::<P>(bases.len(), max_bits(scalars), None)?;
            in_chunks(bases, scalars, chunk, auto_bigint)
        }
    })
}

/// [`MsmAlgorithm::Auto`] on consecutive chunks of at most `chunk` terms,
/// summed: the same result as one call, in less working memory
/// ([`working_memory`] of a chunk instead of all terms), usually slower.
/// `chunk = 0` is taken as 1.
pub fn msm_chunked<P: CurveMul>(
    bases: &[Affine<P>],
    scalars: &[P::ScalarField],
    chunk: usize,
) -> Result<Projective<P>, MsmError> {
    check_lengths(bases.len(), scalars.len())?;
    Ok(in_chunks(bases, scalars, chunk.max(1), auto))
}

/// The CPU provider, running [`msm_with`] with its algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuMsm {
    /// The algorithm ([`MsmAlgorithm::Auto`] by default).
    pub algorithm: MsmAlgorithm,
}

impl Default for CpuMsm {
    fn default() -> Self {
        CpuMsm {
            algorithm: MsmAlgorithm::Auto,
        }
    }
}

impl<P: CurveMul> MsmProvider<P> for CpuMsm {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn msm(
        &self,
        bases: &[Affine<P>],
        scalars: &[P::ScalarField],
    ) -> Result<Projective<P>, MsmError> {
        msm_with(bases, scalars, self.algorithm)
    }

    fn msm_bigint(
        &self,
        bases: &[Affine<P>],
        scalars: &[<P::ScalarField as PrimeField>::BigInt],
    ) -> Result<Projective<P>, MsmError> {
        msm_bigint_with(bases, scalars, self.algorithm)
    }
}
