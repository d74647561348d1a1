//! The parallel helpers (the only places the `parallel` feature switches the
//! MSM, GLV splitting and the prepared bases) and scalar conversion: a leaf
//! module, so the algorithms that use it depend on nothing above them.

use ark_ff::PrimeField;

/// `f(0), ..., f(n - 1)`, in parallel with the `parallel` feature. This,
/// [`for_each_indexed`] and [`parallel_threads`] are the only places the
/// feature switches this module.
pub(crate) fn map_indices<R: Send>(n: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..n).into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..n).map(f).collect()
    }
}

/// `f(range)` over at most `parts` consecutive ranges of `0..len`, of equal
/// length but the last, in parallel with the `parallel` feature.
pub(crate) fn map_ranges<R: Send>(
    len: usize,
    parts: usize,
    f: impl Fn(core::ops::Range<usize>) -> R + Sync + Send,
) -> Vec<R> {
    let per = len.div_ceil(parts.max(1)).max(1);
    map_indices(len.div_ceil(per), |p| f(p * per..((p + 1) * per).min(len)))
}

/// `f(i, &mut items[i])` for every item, in parallel with the `parallel`
/// feature.
pub(crate) fn for_each_indexed<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync + Send) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter_mut().enumerate().for_each(|(i, t)| f(i, t));
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter_mut().enumerate().for_each(|(i, t)| f(i, t));
    }
}

/// Threads the parallel parts run on (rayon's pool; 1 without `parallel`).
pub(crate) fn parallel_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Canonical integers of the scalars (out of Montgomery form); in parallel
/// from [`PARALLEL_CONVERT`] scalars up (below, waking the thread pool costs
/// more than the conversions).
pub(crate) fn to_bigints<F: PrimeField>(scalars: &[F]) -> Vec<F::BigInt> {
    if scalars.len() < PARALLEL_CONVERT {
        return scalars.iter().map(|k| k.into_bigint()).collect();
    }
    map_indices(scalars.len(), |i| scalars[i].into_bigint())
}

/// See [`to_bigints`].
pub(crate) const PARALLEL_CONVERT: usize = 4096;

/// Terms per task of `Auto`'s zero/one filter and of [`crate::msm::sum_affine_with`]
/// (small enough that a few thousand 1-bit scalars still make a task for
/// every thread).
pub(crate) const FILTER_CHUNK: usize = 1024;
