//! The memory budget of `Auto`: working-memory estimates, the chunk size that
//! fits, the process-wide cap.

use super::auto::uses_glv;
use super::batch_affine::{MAX_BATCH, MIN_BATCH};
use super::pippenger::{pippenger_plan, BucketAdds, BATCH_AFFINE_MIN_WINDOW, DIGIT_CHUNK};
use super::strauss::{STRAUSS_MAX_TERMS, STRAUSS_MAX_WINDOW};
use crate::parallel::parallel_threads;
use crate::xyzz::Xyzz;
use crate::CurveMul;
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ff::PrimeField;
use zkaccel_core::MsmError;

/// The smallest chunk the budget may force: below this the per-chunk bucket
/// reduction dominates and the MSM is refused instead.
pub const MIN_CHUNK_TERMS: usize = 1024;

/// Below this much working memory, `Auto` does not look at the budget (and
/// does not read `/proc/meminfo`).
pub(super) const BUDGET_CHECK_BYTES: usize = 64 << 20;

/// Working memory, in bytes beyond the inputs and the result, of
/// [`MsmAlgorithm::Auto`](super::MsmAlgorithm::Auto) on `n` terms whose widest scalar has `bits` bits.
/// An upper estimate: it assumes some scalars are 0 or 1 (so the remaining
/// terms are copied), and counts the signed digits and the buckets of as
/// many windows as rayon has threads.
///
/// For BN254 G1 and full-width scalars on 2 threads: about 244 MiB at 2^20
/// terms (the bases themselves are 72 MiB), 832 MiB at 2^22.
pub fn working_memory<P: CurveMul>(n: usize, bits: u32) -> usize {
    use core::mem::size_of;
    let point = size_of::<Affine<P>>();
    let int = size_of::<<P::ScalarField as PrimeField>::BigInt>();
    // Indices of the kept terms, the kept bases and scalars, and the
    // scalars out of Montgomery form.
    let filter = n.saturating_mul(size_of::<usize>() + point + 2 * int);
    if bits == 0 || n == 0 {
        return filter;
    }
    if n <= STRAUSS_MAX_TERMS {
        // A projective copy, 2^(w-2) odd multiples and the wNAF digits.
        let table = (1usize << (STRAUSS_MAX_WINDOW - 2)) * point + size_of::<Projective<P>>();
        let digits = (bits as usize + 1) * size_of::<(i32, u32)>();
        return filter + n * (table + digits);
    }
    let (split, n, bits) = if uses_glv::<P>(n, bits) {
        // The split terms (`GlvTerms`): an endomorphism x-coordinate and two
        // sign bits a term, 2n half-width scalars (at most 129 bits).
        let field = size_of::<P::BaseField>();
        (n * field + 2 * n * int + n.div_ceil(32) * 8, 2 * n, 129)
    } else {
        (0, n, bits)
    };
    let (c, parts) = pippenger_plan(n, bits, BucketAdds::detect::<P>());
    let windows = (bits + 1).div_ceil(c) as usize;
    let digits = n.saturating_mul(windows).saturating_mul(size_of::<i32>())
        + n.div_ceil(DIGIT_CHUNK) * windows * size_of::<&mut [i32]>();
    let nb = 1usize << (c - 1);
    let xyzz = size_of::<Xyzz<P>>();
    let per_window = if c >= BATCH_AFFINE_MIN_WINDOW {
        // Affine buckets, XYZZ overflow, busy flags, then the reduction's
        // two copies of the buckets and their flags (no more than the
        // buckets and the overflow again); the batch and the two queues of
        // waiting additions (each `(index, point)`), and the flush's temporaries:
        // four coordinate vectors, or (AVX-512 lanes) two and three lane
        // vectors of 40 bytes per element plus scalar copies.
        let batch = (nb / 2).clamp(MIN_BATCH, MAX_BATCH) + 1;
        let field = size_of::<P::BaseField>();
        nb * (2 * (point + xyzz) + 1) + 3 * batch * (point + 8) + batch * (4 * field + 3 * 40 + 8)
    } else {
        nb * xyzz
    };
    filter
        .saturating_add(split)
        .saturating_add(digits)
        .saturating_add(per_window.saturating_mul(parallel_threads().min(windows * parts)))
}

/// Terms per chunk so that [`working_memory`] of a chunk fits `budget`
/// (default [`memory_budget`]): all `n` when they fit, else the largest
/// chunk that fits, or [`MsmError::OutOfMemory`] if even
/// [`MIN_CHUNK_TERMS`] terms do not.
pub fn chunk_for_budget<P: CurveMul>(
    n: usize,
    bits: u32,
    budget: Option<usize>,
) -> Result<usize, MsmError> {
    let need = |m: usize| working_memory::<P>(m, bits);
    if budget.is_none() && need(n) <= BUDGET_CHECK_BYTES && MEMORY_BUDGET.load(Relaxed) == 0 {
        return Ok(n.max(1));
    }
    let budget = budget.unwrap_or_else(memory_budget);
    if need(n) <= budget {
        return Ok(n.max(1));
    }
    let smallest = n.min(MIN_CHUNK_TERMS);
    if need(smallest) > budget {
        return Err(MsmError::OutOfMemory {
            terms: n,
            needed: need(smallest),
            budget,
        });
    }
    // The largest fitting chunk (the estimate grows with m, up to the steps
    // of the window size: the search only needs its answer to fit).
    let (mut lo, mut hi) = (smallest, n);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if need(mid) <= budget {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// 0: no explicit budget.
pub(super) static MEMORY_BUDGET: AtomicUsize = AtomicUsize::new(0);

/// Sets the process-wide cap on the working memory of one `Auto` MSM, in
/// bytes (`None`: back to the default, half of the memory available now).
/// Larger MSMs run in chunks ([`msm_chunked`](super::msm_chunked)); MSMs that do not fit even in
/// chunks of [`MIN_CHUNK_TERMS`] terms fail with [`MsmError::OutOfMemory`].
pub fn set_memory_budget(bytes: Option<usize>) {
    MEMORY_BUDGET.store(bytes.map_or(0, |b| b.max(1)), Relaxed);
}

/// The current budget: the one set by [`set_memory_budget`], else half of
/// the memory available to the process (Linux: `MemAvailable`, capped by a
/// cgroup v2 limit), else unlimited.
pub fn memory_budget() -> usize {
    match MEMORY_BUDGET.load(Relaxed) {
        0 => crate::memory::available().map_or(usize::MAX, |a| a / 2),
        b => b,
    }
}
