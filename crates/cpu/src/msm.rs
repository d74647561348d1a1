//! Multi-scalar multiplication `sum k_i P_i` on the CPU.
//!
//! | algorithm | what it does | where it wins |
//! |---|---|---|
//! | [`MsmAlgorithm::Pippenger`] | signed-digit windows, XYZZ buckets, running-sum reduction, windows in parallel | dense inputs beyond a few dozen terms |
//! | [`MsmAlgorithm::PippengerGlv`] | the same on `2n` half-width terms `k1 P + k2 φ(P)` (GLV split with 256-bit-limb Babai rounding), cofactor-1 curves with an endomorphism | dense full-width terms up to about 2^10 (5-20%) and 2^12-2^14 (4-30%); slower from 2^16 |
//! | [`MsmAlgorithm::Strauss`] | interleaved wNAF (NAF for narrow scalars, no table), all tables normalised with one inversion, split over the threads where each part has enough work | a few terms: up to 4-32 by scalar width here (libsecp256k1's crossover is about 88: it has no parallel bucket method) |
//! | [`MsmAlgorithm::DbcPerTerm`] | the paper's method: each term by its δ = 1 chain, then a sum | measured against the others |
//! | [`MsmAlgorithm::Naive`] | arkworks' own `P * k` per term, summed | the reference |
//! | [`MsmAlgorithm::Auto`] | drops zero scalars and adds the bases of scalar one directly (where they are at least 1/16 of the terms), sizes windows to the widest remaining scalar, then picks one GLV scalar multiplication per term (up to [`GLV_PER_THREAD`] wide terms a thread), Strauss ([`strauss_max_terms`]), Pippenger with the GLV split ([`GLV_AUTO_TERMS`]) or Pippenger | everything |
//!
//! Pippenger's window count follows the effective scalar width, so small
//! scalars (8, 16, 32, 64 bits) need proportionally fewer windows: that is
//! the small-scalar path. Issue 4 continues this module (batch-affine
//! buckets, GLV split, precomputed bases, a measured cost model for `Auto`).

use crate::formulas::{double, DetectOps, FieldOps, FormulaSet, Plain};
use crate::scalar_mul::{interleaved, odd_multiples};
use crate::xyzz::Xyzz;
use crate::{mul_scalar_with, CurveMul, ScalarMulMethod};
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{BigInteger, PrimeField, Zero};
use core::fmt;
use zkaccel_dbc::Recoding;

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

/// Why an MSM was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MsmError {
    /// `bases` and `scalars` differ in length.
    LengthMismatch {
        /// Number of bases.
        bases: usize,
        /// Number of scalars.
        scalars: usize,
    },
    /// Even in chunks of [`MIN_CHUNK_TERMS`] terms the MSM needs more
    /// working memory than the budget ([`memory_budget`]) allows.
    OutOfMemory {
        /// Number of terms asked for.
        terms: usize,
        /// Working memory of the smallest chunk, in bytes.
        needed: usize,
        /// The budget, in bytes.
        budget: usize,
    },
    /// A provider other than the CPU (the GPU) failed; the message says why.
    Backend {
        /// The provider's name ([`MsmProvider::name`]).
        backend: &'static str,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for MsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MsmError::LengthMismatch { bases, scalars } => {
                write!(
                    f,
                    "{bases} bases but {scalars} scalars: an MSM needs one scalar per base"
                )
            }
            MsmError::OutOfMemory {
                terms,
                needed,
                budget,
            } => write!(
                f,
                "an MSM of {terms} terms needs {needed} bytes of working memory even in chunks \
                 of {MIN_CHUNK_TERMS} terms, over the budget of {budget} bytes \
                 (zkaccel_cpu::msm::set_memory_budget)"
            ),
            MsmError::Backend { backend, message } => {
                write!(f, "the {backend} MSM failed: {message}")
            }
        }
    }
}

impl std::error::Error for MsmError {}

/// The most terms (after filtering) for which `Auto` runs Strauss, at any
/// scalar width ([`strauss_max_terms`] gives the limit per width).
pub const STRAUSS_MAX_TERMS: usize = 32;

/// The most terms of `bits`-bit scalars for which `Auto` runs Strauss
/// rather than Pippenger (measured crossovers on BN254 G1 with the field
/// kernels, 2 threads: about 32 terms for 8-bit scalars, 10 for 16- to
/// 64-bit ones, 4 for full-width ones, where the GLV split makes Pippenger
/// fast early).
pub fn strauss_max_terms(bits: u32) -> usize {
    match bits {
        0..=8 => STRAUSS_MAX_TERMS,
        9..=64 => 10,
        _ => 4,
    }
}

/// `Err(LengthMismatch)` unless there are as many scalars as bases (the
/// check every [`MsmProvider`] makes first).
pub fn check_lengths(bases: usize, scalars: usize) -> Result<(), MsmError> {
    if bases == scalars {
        Ok(())
    } else {
        Err(MsmError::LengthMismatch { bases, scalars })
    }
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
        MsmAlgorithm::Auto => {
            let bits = P::ScalarField::MODULUS_BIT_SIZE;
            let chunk = chunk_for_budget::<P>(bases.len(), bits, None)?;
            in_chunks(bases, scalars, chunk, auto)
        }
    })
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

fn in_chunks<P: CurveMul, S>(
    bases: &[Affine<P>],
    scalars: &[S],
    chunk: usize,
    run: impl Fn(&[Affine<P>], &[S]) -> Projective<P>,
) -> Projective<P> {
    if chunk >= bases.len() {
        return run(bases, scalars);
    }
    bases
        .chunks(chunk)
        .zip(scalars.chunks(chunk))
        .map(|(b, s)| run(b, s))
        .sum()
}

/// The smallest chunk the budget may force: below this the per-chunk bucket
/// reduction dominates and the MSM is refused instead.
pub const MIN_CHUNK_TERMS: usize = 1024;

/// Below this much working memory, `Auto` does not look at the budget (and
/// does not read `/proc/meminfo`).
const BUDGET_CHECK_BYTES: usize = 64 << 20;

/// Working memory, in bytes beyond the inputs and the result, of
/// [`MsmAlgorithm::Auto`] on `n` terms whose widest scalar has `bits` bits.
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
        // The split terms: 2n bases and half-width scalars (at most 129 bits).
        (2 * n * (point + int), 2 * n, 129)
    } else {
        (0, n, bits)
    };
    let (c, parts) = pippenger_plan(n, bits);
    let windows = (bits + 1).div_ceil(c) as usize;
    let digits = n.saturating_mul(windows).saturating_mul(size_of::<i32>())
        + n.div_ceil(DIGIT_CHUNK) * windows * size_of::<&mut [i32]>();
    let nb = 1usize << (c - 1);
    let xyzz = size_of::<Xyzz<P>>();
    let per_window = if c >= BATCH_AFFINE_MIN_WINDOW {
        // Affine buckets, XYZZ overflow, busy flags, then both zipped for
        // the running sums; the batch and the two queues of waiting
        // additions (each `(index, point)`), and the flush's temporaries:
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
static MEMORY_BUDGET: AtomicUsize = AtomicUsize::new(0);

/// Sets the process-wide cap on the working memory of one `Auto` MSM, in
/// bytes (`None`: back to the default, half of the memory available now).
/// Larger MSMs run in chunks ([`msm_chunked`]); MSMs that do not fit even in
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

/// Where multi-scalar multiplications run: the CPU now ([`CpuMsm`]), CUDA
/// later. Provers hold a provider and do not care where the work happens;
/// every provider must return exactly what arkworks' `VariableBaseMSM`
/// returns.
pub trait MsmProvider<P: CurveMul>: Send + Sync {
    /// A short name for logs ("cpu", "cuda").
    fn name(&self) -> &'static str;

    /// `sum k_i P_i` over field scalars.
    fn msm(
        &self,
        bases: &[Affine<P>],
        scalars: &[P::ScalarField],
    ) -> Result<Projective<P>, MsmError>;

    /// `sum k_i P_i` over integer scalars (`VariableBaseMSM::msm_bigint`).
    fn msm_bigint(
        &self,
        bases: &[Affine<P>],
        scalars: &[<P::ScalarField as PrimeField>::BigInt],
    ) -> Result<Projective<P>, MsmError>;
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
fn map_ranges<R: Send>(
    len: usize,
    parts: usize,
    f: impl Fn(core::ops::Range<usize>) -> R + Sync + Send,
) -> Vec<R> {
    let per = len.div_ceil(parts.max(1)).max(1);
    map_indices(len.div_ceil(per), |p| f(p * per..((p + 1) * per).min(len)))
}

/// `f(i, &mut items[i])` for every item, in parallel with the `parallel`
/// feature.
fn for_each_indexed<T: Send>(items: &mut [T], f: impl Fn(usize, &mut T) + Sync + Send) {
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
fn parallel_threads() -> usize {
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
fn to_bigints<F: PrimeField>(scalars: &[F]) -> Vec<F::BigInt> {
    if scalars.len() < PARALLEL_CONVERT {
        return scalars.iter().map(|k| k.into_bigint()).collect();
    }
    map_indices(scalars.len(), |i| scalars[i].into_bigint())
}

/// See [`to_bigints`].
const PARALLEL_CONVERT: usize = 4096;

fn naive<P: SWCurveConfig>(bases: &[Affine<P>], scalars: &[P::ScalarField]) -> Projective<P> {
    bases.iter().zip(scalars).map(|(b, k)| *b * k).sum()
}

fn auto<P: CurveMul>(bases: &[Affine<P>], scalars: &[P::ScalarField]) -> Projective<P> {
    // Zero scalars vanish and scalars equal to one are a plain sum of bases;
    // both tests are cheap on field elements, so only the rest is converted
    // out of Montgomery form (which matters for sparse inputs).
    let one = P::ScalarField::from(1u64);
    let trivial = |k: &P::ScalarField| k.is_zero() || *k == one;
    if !worth_filtering(scalars, trivial) {
        // Few trivial scalars (dense inputs): no copy of the bases.
        return bucket_or_strauss(bases, &to_bigints(scalars));
    }
    let (ones, kept_b, kept_s) = split_terms(bases, scalars, |k| k.is_zero(), |k| *k == one);
    ones + bucket_or_strauss(&kept_b, &to_bigints(&kept_s))
}

fn auto_bigint<P: CurveMul, B: BigInteger>(bases: &[Affine<P>], scalars: &[B]) -> Projective<P> {
    let one = B::from(1u64);
    let trivial = |k: &B| k.is_zero() || *k == one;
    if !worth_filtering(scalars, trivial) {
        return bucket_or_strauss(bases, scalars);
    }
    let (ones, kept_b, kept_s) = split_terms(bases, scalars, |k| k.is_zero(), |k| *k == one);
    ones + bucket_or_strauss(&kept_b, &kept_s)
}

/// Whether `auto` should copy out the terms with a zero or one scalar: when
/// at least `1 / FILTER_FRACTION` of a sample of the scalars are (at most
/// [`FILTER_SAMPLE`] of them, evenly spaced over the input; all of them for
/// shorter inputs). Below that the copy costs more than it saves: Pippenger
/// skips a zero digit for free and adds a scalar one in its first window
/// only (measured: filtering 1% of 2^12 8-bit terms cost 6%). A sample
/// rather than every scalar, and no look at the bases: reading all scalars
/// and bases once costs about 15 ms at 2^20 (measured, 6-12% of a 2^20 MSM
/// of 8- to 64-bit scalars). An input the sample misjudges is only slower,
/// never wrong: every path skips zero scalars and bases at infinity.
fn worth_filtering<S>(scalars: &[S], trivial: impl Fn(&S) -> bool) -> bool {
    let step = scalars.len().div_ceil(FILTER_SAMPLE).max(1);
    let (mut seen, mut hits) = (0usize, 0usize);
    for k in scalars.iter().step_by(step) {
        seen += 1;
        hits += usize::from(trivial(k));
    }
    seen > 0 && hits * FILTER_FRACTION >= seen
}

/// Scalars [`worth_filtering`] reads at most.
const FILTER_SAMPLE: usize = 4096;

/// See [`worth_filtering`].
const FILTER_FRACTION: usize = 16;

/// Wide terms per thread up to which `Auto` multiplies each term on its
/// own (see `bucket_or_strauss`).
pub const GLV_PER_THREAD: usize = 1;

/// Wide scalars on curves where the GLV split applies: up to
/// [`GLV_PER_THREAD`] terms a thread, one GLV scalar multiplication each
/// (BN254 G1, 2 threads: 39 us for one term, 52 us for two, against 106
/// and 119 us for Pippenger with the split; four terms a thread measured
/// 207 us against 157 at eight terms: this machine's two threads do not
/// double the throughput). Else Strauss up to [`strauss_max_terms`] terms, Pippenger above,
/// with the GLV split where [`GLV_AUTO_TERMS`] says it pays.
fn bucket_or_strauss<P: CurveMul, B: BigInteger>(
    bases: &[Affine<P>],
    scalars: &[B],
) -> Projective<P> {
    let bits = max_bits(scalars);
    if bases.len() <= GLV_PER_THREAD * parallel_threads() && bits > 64 && glv_splits::<P>() {
        // Cofactor 1 (every point is in the subgroup), so the GLV scalar
        // multiplication gives the exact multiple.
        map_indices(bases.len(), |i| {
            crate::mul(&bases[i].into(), scalars[i].as_ref(), ScalarMulMethod::Auto)
                .expect("a field's BigInt is within the scalar size limit (1024 bits)")
        })
        .into_iter()
        .sum()
    } else if bases.len() <= strauss_max_terms(bits) {
        strauss(bases, scalars)
    } else if uses_glv::<P>(bases.len(), bits) {
        split_then_pippenger(bases, scalars)
    } else {
        pippenger_known_bits(bases, scalars, bits)
    }
}

/// Term counts for which `Auto` runs [`pippenger_glv`] (where the curve
/// allows the split). Measured against plain Pippenger on BN254 G1 (AVX-512
/// IFMA machine, 2 threads, full-width scalars): 12-20% faster from 33 to
/// 384 terms, 5-10% at 768-1024, 5% slower at 1536, even at 2048 (where
/// the split terms move to the batch-affine windows), 15-30% faster at
/// 3072-4096, 4-7% at 2^13-2^14, 1.5% at 2^15, 1-4% slower at 2^16, 6-10%
/// faster at 2^18 (three grid runs), even to 10% slower at 2^20 (twice the
/// points to stream). The range around 2^18 stops halfway (in log scale)
/// to the measured losses at 2^17 and 2^20.
pub const GLV_AUTO_TERMS: [core::ops::Range<usize>; 3] =
    [0..1280, 2560..(1 << 15), (3 << 16)..(3 << 17)];

/// Whether `Auto` splits `n` terms of `bits` bits by GLV on this curve.
fn uses_glv<P: CurveMul>(n: usize, bits: u32) -> bool {
    GLV_AUTO_TERMS.iter().any(|r| r.contains(&n)) && bits > GLV_MIN_BITS && glv_splits::<P>()
}

/// Whether the curve allows the GLV split of an MSM's terms
/// ([`CurveMul::msm_glv_split`]: an endomorphism and cofactor 1).
fn glv_splits<P: CurveMul>() -> bool {
    P::msm_glv_split::<ark_ff::BigInt<4>>(&[], &[]).is_some()
}

/// Scalars up to this width are not split by [`pippenger_glv`]: the halves
/// would be as wide as the scalars.
pub const GLV_MIN_BITS: u32 = 160;

/// [`MsmAlgorithm::PippengerGlv`]: [`pippenger`] on the GLV-split terms
/// (`2n` terms of about half the width, [`crate::glv`]) where
/// [`CurveMul::msm_glv_split`] allows it and the scalars are wider than
/// [`GLV_MIN_BITS`], on the terms as given otherwise. `Auto` runs it for
/// [`GLV_AUTO_TERMS`] terms only: it halves the windows but not the bucket
/// additions and streams twice the points, which costs more than it saves
/// from 2^16 terms up (see docs/msm.md).
pub fn pippenger_glv<P: CurveMul, B: BigInteger>(
    bases: &[Affine<P>],
    scalars: &[B],
) -> Projective<P> {
    if max_bits(scalars) > GLV_MIN_BITS {
        split_then_pippenger(bases, scalars)
    } else {
        pippenger(bases, scalars)
    }
}

/// [`pippenger`] on the GLV-split terms, or on the terms as given where the
/// curve has no split.
fn split_then_pippenger<P: CurveMul, B: BigInteger>(
    bases: &[Affine<P>],
    scalars: &[B],
) -> Projective<P> {
    match P::msm_glv_split(bases, scalars) {
        Some((b, s)) => pippenger(&b, &s),
        None => pippenger(bases, scalars),
    }
}

/// Drops the terms with a zero scalar or base, sums the bases whose scalar is
/// one, and returns that sum with the remaining terms. Chunks run in
/// parallel: witness vectors of real circuits are mostly bits.
#[allow(clippy::type_complexity)]
fn split_terms<P: CurveMul, S: Copy + Send + Sync>(
    bases: &[Affine<P>],
    scalars: &[S],
    is_zero: impl Fn(&S) -> bool + Sync + Send,
    is_one: impl Fn(&S) -> bool + Sync + Send,
) -> (Projective<P>, Vec<Affine<P>>, Vec<S>) {
    match P::Ops::detect() {
        Some(ops) => split_terms_with(bases, scalars, is_zero, is_one, ops),
        None => split_terms_with(bases, scalars, is_zero, is_one, P::Ops::fallback()),
    }
}

/// [`split_terms`] with the given field arithmetic (the sum of the bases
/// with scalar one accumulates in XYZZ coordinates).
#[allow(clippy::type_complexity)]
fn split_terms_with<P: CurveMul, S: Copy + Send + Sync, O>(
    bases: &[Affine<P>],
    scalars: &[S],
    is_zero: impl Fn(&S) -> bool + Sync + Send,
    is_one: impl Fn(&S) -> bool + Sync + Send,
    ops: O,
) -> (Projective<P>, Vec<Affine<P>>, Vec<S>)
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    // Each chunk keeps the indices of its remaining terms; the terms are
    // then gathered once into exactly sized vectors (no second copy of the
    // kept terms, see `working_memory`).
    let chunk = FILTER_CHUNK;
    let parts = map_indices(bases.len().div_ceil(chunk), |c| {
        let range = c * chunk..((c + 1) * chunk).min(bases.len());
        let mut ops = ops;
        let mut ones = Xyzz::<P>::zero();
        let mut kept = Vec::with_capacity(range.len());
        for i in range {
            let (b, k) = (&bases[i], &scalars[i]);
            if is_zero(k) || b.is_zero() {
                continue;
            }
            if is_one(k) {
                ones.add_affine(b, &mut ops);
            } else {
                kept.push(i);
            }
        }
        (ones.to_projective(&mut ops), kept)
    });
    let total = parts.iter().map(|(_, kept)| kept.len()).sum();
    let mut ones = Projective::<P>::zero();
    let (mut kept_b, mut kept_s) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for (o, kept) in parts {
        ones += o;
        kept_b.extend(kept.iter().map(|&i| bases[i]));
        kept_s.extend(kept.iter().map(|&i| scalars[i]));
    }
    (ones, kept_b, kept_s)
}

/// Terms per task of `auto`'s zero/one filter and of [`sum_affine_with`]
/// (small enough that 2^12 1-bit scalars keep both threads busy: with 4096
/// the sum of their bases ran on one thread, 1.4x slower than Pippenger).
const FILTER_CHUNK: usize = 1024;

/// `point(0) + ... + point(count - 1)`: parallel chunks accumulated in XYZZ
/// on `ops`, as `auto` sums the bases of scalars equal to one.
pub(crate) fn sum_affine_with<P: SWCurveConfig, O>(
    count: usize,
    point: impl Fn(usize) -> Affine<P> + Sync + Send,
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    map_indices(count.div_ceil(FILTER_CHUNK), |c| {
        let mut ops = ops;
        let mut acc = Xyzz::<P>::zero();
        for t in c * FILTER_CHUNK..((c + 1) * FILTER_CHUNK).min(count) {
            acc.add_affine(&point(t), &mut ops);
        }
        acc.to_projective(&mut ops)
    })
    .into_iter()
    .sum()
}

/// The bit length of the bitwise OR of all scalars, which is that of the
/// widest one: one branch-free pass over the limbs, in parallel chunks for
/// long inputs (`Auto` reads it before the bucket method: at 2^20 a pass
/// over the scalars costs a few milliseconds).
pub(crate) fn max_bits<B: BigInteger>(scalars: &[B]) -> u32 {
    let or = |part: &[B]| -> B {
        let mut acc = B::default();
        for k in part {
            for (a, l) in acc.as_mut().iter_mut().zip(k.as_ref()) {
                *a |= *l;
            }
        }
        acc
    };
    let acc = if scalars.len() < PARALLEL_CONVERT {
        or(scalars)
    } else {
        let parts = map_ranges(
            scalars.len(),
            scalars.len().div_ceil(PARALLEL_CONVERT),
            |r| or(&scalars[r]),
        );
        or(&parts)
    };
    acc.num_bits()
}

/// The window `c` minimising the total work `windows * (n + 2^c)` point
/// additions, whatever the parallelism (the GPU bucket MSM's choice).
pub fn min_work_window(n: usize, bits: u32) -> u32 {
    (1..=20u32)
        .min_by_key(|&c| (bits + 1).div_ceil(c) as u64 * (n as u64 + (1u64 << c)))
        .unwrap_or(1)
}

/// The window `c` for `n` terms of `bits` bits: among the three sizes on
/// either side of the one minimising the total work `windows * (n + 2^c)`
/// point additions (each window adds every point once and walks `2^(c-1)`
/// buckets twice; instruction counts agree within 1% near the optimum), the
/// one with the shortest critical path `ceil(windows / threads) * (n + 2^c)`:
/// windows run in parallel, so 16 windows on 2 threads beat 15 (2^20 full
/// width) and 6 beat 5 (64-bit scalars at 2^16).
pub fn pippenger_window(n: usize, bits: u32) -> u32 {
    let per_window = |c: u32| n as u64 + (1u64 << c);
    let windows = |c: u32| (bits + 1).div_ceil(c) as u64;
    let work = min_work_window(n, bits);
    let threads = parallel_threads().max(1) as u64;
    (work.saturating_sub(3).max(1)..=(work + 3).min(20))
        .min_by_key(|&c| {
            (
                windows(c).div_ceil(threads) * per_window(c),
                windows(c) * per_window(c),
            )
        })
        .unwrap_or(work)
}

/// Pippenger's plan for `n` terms of `bits` bits: the window `c` and the
/// number of point ranges run as separate bucket methods and summed. Where
/// the scalars are narrow, the windows alone leave threads idle or force
/// small windows (8-bit scalars: two 6-bit windows over all points on two
/// threads); splitting the points lets each thread run one wide window
/// over its own range (arkworks does the same for 8- and 16-bit scalars).
/// The plan minimises the critical path `ceil(windows * parts / threads) *
/// (n / parts + 2^c)`, ties by total work; ranges get at least
/// [`MIN_RANGE_TERMS`] terms; without a gain it is [`pippenger_window`]
/// with one range.
pub fn pippenger_plan(n: usize, bits: u32) -> (u32, usize) {
    let single = (pippenger_window(n, bits), 1usize);
    let threads = parallel_threads().max(1);
    let cost = |(c, parts): (u32, usize)| {
        let windows = (bits + 1).div_ceil(c) as u64 * parts as u64;
        let per = n.div_ceil(parts) as u64 + (1u64 << c);
        (windows.div_ceil(threads as u64) * per, windows * per)
    };
    // `min_by_key` keeps the first of equal plans: the single range.
    core::iter::once(single)
        .chain(
            (2..=threads.min(n / MIN_RANGE_TERMS))
                .flat_map(|parts| (1..=20u32).map(move |c| (c, parts))),
        )
        .min_by_key(|&plan| cost(plan))
        .unwrap_or(single)
}

/// The fewest terms of a point range in [`pippenger_plan`].
pub const MIN_RANGE_TERMS: usize = 1 << 11;

/// Signed digits of `k` in base `2^c`: `k = sum d_j 2^(jc)`, `d_j` in
/// `[-2^(c-1), 2^(c-1))`, `windows` of them (the last absorbs the carry).
pub(crate) fn signed_digits<B: BigInteger>(k: &B, c: u32, windows: usize, out: &mut [i32]) {
    let limbs = k.as_ref();
    // Bits [start, start + c) of k, c <= 20.
    let window = |start: u32| -> i64 {
        let (w, b) = ((start / 64) as usize, start % 64);
        let lo = limbs.get(w).map_or(0, |l| l >> b);
        let hi = if b + c > 64 {
            limbs.get(w + 1).map_or(0, |l| l << (64 - b))
        } else {
            0
        };
        ((lo | hi) & ((1u64 << c) - 1)) as i64
    };
    let half = 1i64 << (c - 1);
    let mut carry = 0i64;
    for (j, d) in out.iter_mut().enumerate().take(windows) {
        let v = window(j as u32 * c) + carry;
        if v >= half && j + 1 < windows {
            *d = (v - (half << 1)) as i32;
            carry = 1;
        } else {
            *d = v as i32;
            carry = 0;
        }
    }
}

/// The signed digits of every scalar, window-major: `out[j * n + i]` is
/// window `j` of scalar `i`. Chunks of scalars run in parallel, each writing
/// its own columns of every row in place (no second copy of the digits).
fn window_major_digits<B: BigInteger>(scalars: &[B], c: u32, windows: usize) -> Vec<i32> {
    let n = scalars.len();
    let mut out = vec![0i32; n * windows];
    if n == 0 {
        return out;
    }
    // columns[p][j]: window j's digits of the scalars of chunk p.
    let chunks = n.div_ceil(DIGIT_CHUNK);
    let mut columns: Vec<Vec<&mut [i32]>> =
        (0..chunks).map(|_| Vec::with_capacity(windows)).collect();
    for row in out.chunks_mut(n) {
        for (p, part) in row.chunks_mut(DIGIT_CHUNK).enumerate() {
            columns[p].push(part);
        }
    }
    let fill = |p: usize, rows: &mut Vec<&mut [i32]>| {
        let mut one = vec![0i32; windows];
        for (t, k) in scalars[p * DIGIT_CHUNK..]
            .iter()
            .take(DIGIT_CHUNK)
            .enumerate()
        {
            signed_digits(k, c, windows, &mut one);
            for (row, &d) in rows.iter_mut().zip(&one) {
                row[t] = d;
            }
        }
    };
    for_each_indexed(&mut columns, fill);
    drop(columns);
    out
}

/// Scalars per task of [`window_major_digits`].
const DIGIT_CHUNK: usize = 4096;

/// Bucket method; see the module docs. Runs on the curve's
/// [`CurveMul::Ops`] (zkaccel-ff's assembly on BN254) where the CPU supports
/// it, on arkworks' field operators otherwise.
pub fn pippenger<P: CurveMul, B: BigInteger>(bases: &[Affine<P>], scalars: &[B]) -> Projective<P> {
    pippenger_known_bits(bases, scalars, max_bits(scalars))
}

/// [`pippenger`] for scalars of at most `bits` bits (`Auto` knows the width
/// already).
fn pippenger_known_bits<P: CurveMul, B: BigInteger>(
    bases: &[Affine<P>],
    scalars: &[B],
    bits: u32,
) -> Projective<P> {
    match P::Ops::detect() {
        Some(ops) => pippenger_bits(bases, scalars, bits, ops),
        None => pippenger_bits(bases, scalars, bits, P::Ops::fallback()),
    }
}

/// [`pippenger`] with the given field arithmetic.
pub fn pippenger_with<P: SWCurveConfig, B: BigInteger, O>(
    bases: &[Affine<P>],
    scalars: &[B],
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    pippenger_bits(bases, scalars, max_bits(scalars), ops)
}

/// [`pippenger_with`] for scalars of at most `bits` bits (`Auto` knows the
/// width already).
fn pippenger_bits<P: SWCurveConfig, B: BigInteger, O>(
    bases: &[Affine<P>],
    scalars: &[B],
    bits: u32,
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    if bases.is_empty() || bits == 0 {
        return Projective::zero();
    }
    let (c, parts) = pippenger_plan(bases.len(), bits);
    if parts == 1 {
        return pippenger_windows(bases, scalars, bits, c, ops);
    }
    map_ranges(bases.len(), parts, |range| {
        pippenger_windows(&bases[range.clone()], &scalars[range], bits, c, ops)
    })
    .into_iter()
    .sum()
}

/// The bucket method over all `bases` with window `c`, windows in parallel.
fn pippenger_windows<P: SWCurveConfig, B: BigInteger, O>(
    bases: &[Affine<P>],
    scalars: &[B],
    bits: u32,
    c: u32,
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    let windows = ((bits + 1).div_ceil(c)) as usize;
    // digits[j * n + i]: window j, scalar i (each window reads its own
    // contiguous row), computed in parallel over chunks of scalars.
    let n = bases.len();
    let digits = window_major_digits(scalars, c, windows);
    let set = FormulaSet::for_curve::<P>();
    let batch_affine = c >= BATCH_AFFINE_MIN_WINDOW;
    let window_sum = |j: usize| -> Projective<P> {
        let row = &digits[j * n..(j + 1) * n];
        let digit = |i: usize| row[i];
        if batch_affine {
            window_batch_affine(bases, digit, c, ops)
        } else {
            window_xyzz(bases, digit, c, ops)
        }
    };
    let sums = map_indices(windows, window_sum);
    // Horner over the windows: result = sum_j 2^(jc) W_j.
    let mut result = Projective::<P>::zero();
    for w in sums.iter().rev() {
        for _ in 0..c {
            double(&mut result, set, &mut Plain);
        }
        result += w;
    }
    result
}

/// From this window size up, buckets are accumulated in affine form with
/// batched inversions; below it there are too few buckets for batches.
pub const BATCH_AFFINE_MIN_WINDOW: u32 = 9;

/// One window's `sum_b (b + 1) * bucket_b` from the running sums, top down;
/// `add` adds one bucket to the running sum.
fn running_sums<P: SWCurveConfig, B, O: FieldOps<P::BaseField> + Copy>(
    buckets: &[B],
    mut ops: O,
    add: impl Fn(&mut Xyzz<P>, &B),
) -> Projective<P> {
    let (mut running, mut acc) = (Xyzz::<P>::zero(), Xyzz::<P>::zero());
    for bucket in buckets.iter().rev() {
        add(&mut running, bucket);
        acc.add(&running, &mut ops);
    }
    acc.to_projective(&mut ops)
}

/// One window with XYZZ buckets (8M + 2S per point).
pub(crate) fn window_xyzz<P: SWCurveConfig, O: FieldOps<P::BaseField> + Copy>(
    bases: &[Affine<P>],
    digit: impl Fn(usize) -> i32,
    c: u32,
    mut ops: O,
) -> Projective<P> {
    let mut buckets = vec![Xyzz::<P>::zero(); 1 << (c - 1)];
    for (i, b) in bases.iter().enumerate() {
        let d = digit(i);
        if d > 0 {
            buckets[(d - 1) as usize].add_affine(b, &mut ops);
        } else if d < 0 {
            buckets[(-d - 1) as usize].add_affine(&-*b, &mut ops);
        }
    }
    running_sums(&buckets, ops, |r, b| r.add(b, &mut { ops }))
}

/// One window with affine buckets: additions are gathered in batches in which
/// every bucket appears at most once, and each batch shares one inversion
/// (Montgomery's trick: 3M per element), so an addition costs about
/// 5M + 1S plus its share of the inversion, against 8M + 2S in XYZZ. An
/// addition whose bucket is already in the current batch goes to that
/// bucket's XYZZ overflow instead of waiting, so a window whose digits fall
/// in a few buckets (the top window of a full-width scalar) costs no more
/// than the XYZZ method.
pub(crate) fn window_batch_affine<P: SWCurveConfig, O: FieldOps<P::BaseField> + Copy>(
    bases: &[Affine<P>],
    digit: impl Fn(usize) -> i32,
    c: u32,
    mut ops: O,
) -> Projective<P> {
    let nb = 1usize << (c - 1);
    let batch_size = (nb / 2).clamp(MIN_BATCH, MAX_BATCH);
    let mut buckets = vec![Affine::<P>::identity(); nb];
    let mut overflow = vec![Xyzz::<P>::zero(); nb];
    let mut busy = vec![false; nb];
    let mut batch: Vec<(usize, Affine<P>)> = Vec::with_capacity(batch_size + 1);
    // Additions whose bucket was busy, retried after the next flush (at
    // most `batch_size` wait; beyond that they go to the XYZZ overflow).
    let mut pending: Vec<(usize, Affine<P>)> = Vec::new();
    let mut retry: Vec<(usize, Affine<P>)> = Vec::new();
    let mut slots = Slots {
        buckets: &mut buckets,
        overflow: &mut overflow,
        busy: &mut busy,
        batch: &mut batch,
    };
    for (i, b) in bases.iter().enumerate() {
        let d = digit(i);
        if d == 0 || b.is_zero() {
            continue;
        }
        let (k, q) = if d > 0 {
            ((d - 1) as usize, *b)
        } else {
            ((-d - 1) as usize, -*b)
        };
        if !slots.place(k, q, &mut ops) {
            if pending.len() < batch_size {
                pending.push((k, q));
            } else {
                slots.overflow[k].add_affine(&q, &mut ops);
            }
        }
        if slots.batch.len() >= batch_size {
            slots.flush_and_retry(&mut pending, &mut retry, ops);
        }
    }
    // Two more rounds for the waiting additions, then the overflow (a
    // window whose digits fall in few buckets would otherwise need one
    // round, and one inversion, per addition).
    for _ in 0..2 {
        slots.flush_and_retry(&mut pending, &mut retry, ops);
    }
    flush(slots.buckets, slots.busy, slots.batch, ops);
    for (k, q) in pending {
        slots.overflow[k].add_affine(&q, &mut ops);
    }
    let both: Vec<(Affine<P>, Xyzz<P>)> = buckets.into_iter().zip(overflow).collect();
    running_sums(&both, ops, |r, (a, x)| {
        let mut ops = ops;
        r.add_affine(a, &mut ops);
        r.add(x, &mut ops);
    })
}

/// Bounds of the batch (additions per batched inversion) of
/// [`window_batch_affine`]: half the window's buckets, within these. One
/// inversion costs about as much as 50 batched additions (6 us against
/// 0.1 us with the ADX kernel, 0.04 us on AVX-512 IFMA lanes).
const MIN_BATCH: usize = 128;
const MAX_BATCH: usize = 2048;

/// The affine buckets of one window and the batch being gathered.
struct Slots<'a, P: SWCurveConfig> {
    buckets: &'a mut [Affine<P>],
    overflow: &'a mut [Xyzz<P>],
    busy: &'a mut [bool],
    batch: &'a mut Vec<(usize, Affine<P>)>,
}

impl<P: SWCurveConfig> Slots<'_, P> {
    /// Schedules `buckets[k] += q` (finite `q`): `false` if bucket `k` is
    /// already in the batch.
    fn place<O: FieldOps<P::BaseField>>(&mut self, k: usize, q: Affine<P>, ops: &mut O) -> bool {
        if self.busy[k] {
            return false;
        }
        if self.buckets[k].is_zero() {
            self.buckets[k] = q;
        } else if ops.has_affine_batch() && ops.equal(&self.buckets[k].x, &q.x) {
            // A doubling or `P + (-P)`: the bulk kernel adds chords only.
            self.overflow[k].add_affine(&q, ops);
        } else {
            self.busy[k] = true;
            self.batch.push((k, q));
        }
        true
    }

    /// Flushes the batch, then places the waiting additions again; those
    /// whose bucket is taken once more go back to `pending`.
    fn flush_and_retry<O: FieldOps<P::BaseField> + Copy>(
        &mut self,
        pending: &mut Vec<(usize, Affine<P>)>,
        retry: &mut Vec<(usize, Affine<P>)>,
        mut ops: O,
    ) {
        flush(self.buckets, self.busy, self.batch, ops);
        core::mem::swap(pending, retry);
        for (k, q) in retry.drain(..) {
            if !self.place(k, q, &mut ops) {
                pending.push((k, q));
            }
        }
    }
}

/// Applies `buckets[k] += q` for every `(k, q)` in `batch` (distinct `k`, both
/// points finite) with one shared inversion, then empties the batch.
fn flush<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    buckets: &mut [Affine<P>],
    busy: &mut [bool],
    batch: &mut Vec<(usize, Affine<P>)>,
    mut ops: O,
) {
    use ark_ff::{AdditiveGroup, Field};
    if batch.is_empty() {
        return;
    }
    if ops.has_affine_batch() {
        // The bulk kernel (no equal x in the batch: see the caller).
        let (mut px, mut py): (Vec<_>, Vec<_>) = batch
            .iter()
            .map(|(k, _)| (buckets[*k].x, buckets[*k].y))
            .unzip();
        let (qx, qy): (Vec<_>, Vec<_>) = batch.iter().map(|(_, q)| (q.x, q.y)).unzip();
        ops.add_affine_batch(&mut px, &mut py, &qx, &qy);
        for ((k, _), (x, y)) in batch.drain(..).zip(px.into_iter().zip(py)) {
            buckets[k] = Affine::new_unchecked(x, y);
            busy[k] = false;
        }
        return;
    }
    // Denominators: x_q - x_p, or 2 y_p for a doubling; zero for P + (-P).
    let mut den: Vec<P::BaseField> = batch
        .iter()
        .map(|(k, q)| {
            let p = &buckets[*k];
            if !ops.equal(&p.x, &q.x) {
                ops.sub(&q.x, &p.x)
            } else if ops.equal(&p.y, &q.y) {
                ops.double(&p.y)
            } else {
                P::BaseField::ZERO
            }
        })
        .collect();
    // Montgomery's trick (serial: windows already run in parallel, and a
    // batch is small): prefix products, one inversion, then back.
    let mut prefix = Vec::with_capacity(den.len());
    let mut acc = P::BaseField::ONE;
    for d in &den {
        prefix.push(acc);
        if !ops.is_zero(d) {
            acc = ops.mul(&acc, d);
        }
    }
    let mut inv = acc.inverse().expect("a product of non-zero elements");
    for (d, pre) in den.iter_mut().zip(&prefix).rev() {
        if !ops.is_zero(d) {
            let this = ops.mul(&inv, pre);
            inv = ops.mul(&inv, d);
            *d = this;
        }
    }
    for ((k, q), inv) in batch.drain(..).zip(den) {
        let p = buckets[k];
        busy[k] = false;
        if ops.is_zero(&inv) {
            // P + (-P), or a doubling of a point with y = 0: infinity.
            buckets[k] = Affine::identity();
            continue;
        }
        let lambda = if !ops.equal(&p.x, &q.x) {
            let dy = ops.sub(&q.y, &p.y);
            ops.mul(&dy, &inv)
        } else {
            let xx = ops.sqr(&p.x);
            let xx2 = ops.double(&xx);
            let xx3 = ops.add(&xx2, &xx);
            let num = ops.add(&xx3, &P::COEFF_A);
            ops.mul(&num, &inv)
        };
        let ll = ops.sqr(&lambda);
        let t = ops.sub(&ll, &p.x);
        let x3 = ops.sub(&t, &q.x);
        let dx = ops.sub(&p.x, &x3);
        let t = ops.mul(&lambda, &dx);
        let y3 = ops.sub(&t, &p.y);
        buckets[k] = Affine::new_unchecked(x3, y3);
    }
}

/// The widest window of Strauss' per-base wNAF tables.
const STRAUSS_MAX_WINDOW: u32 = 5;

/// Strauss' wNAF window for `terms` scalars of `bits` bits: the `w` in
/// `2..=5` with the fewest field multiplications (`S = 0.8 M`) for the
/// tables and the additions. A table of `2^(w-2)` odd multiples costs one
/// doubling (6 M), `2^(w-2) - 1` full additions (15 M) and a normalisation
/// (about 6 M a point, plus one inversion, about 250 M, shared by all
/// bases); the loop adds `bits / (w + 1)` mixed additions (10.2 M) per
/// term. `w = 2` (NAF) needs no table at all: the affine base is its own.
/// 8-bit scalars get NAF, full-width ones `w = 4` or 5.
pub fn strauss_window(terms: usize, bits: u32) -> u32 {
    let terms = terms.max(1) as f64;
    let cost = |w: u32| -> f64 {
        let adds = bits as f64 / (w + 1) as f64 * 10.2;
        if w == 2 {
            return adds;
        }
        let m = (1u32 << (w - 2)) as f64;
        6.0 + (m - 1.0) * 15.0 + m * 6.0 + 250.0 / terms + adds
    };
    (2..=STRAUSS_MAX_WINDOW)
        .min_by(|&a, &b| cost(a).total_cmp(&cost(b)))
        .unwrap_or(2)
}

/// Interleaved wNAF; see the module docs. The window follows the widest
/// scalar ([`strauss_window`]); the field arithmetic is the curve's
/// [`CurveMul::Ops`] where the CPU supports it.
pub fn strauss<P: CurveMul, B: BigInteger>(bases: &[Affine<P>], scalars: &[B]) -> Projective<P> {
    match P::Ops::detect() {
        Some(ops) => strauss_with(bases, scalars, ops),
        None => strauss_with(bases, scalars, P::Ops::fallback()),
    }
}

fn strauss_with<P: SWCurveConfig, B: BigInteger, O>(
    bases: &[Affine<P>],
    scalars: &[B],
    mut ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    let kept: Vec<usize> = (0..bases.len())
        .filter(|&i| !scalars[i].is_zero() && !bases[i].is_zero())
        .collect();
    if kept.is_empty() {
        return Projective::zero();
    }
    let bits = max_bits(scalars);
    let w = strauss_window(kept.len(), bits);
    let recs: Vec<Recoding> = kept
        .iter()
        .map(|&i| {
            Recoding::wnaf(scalars[i].as_ref(), w).expect("field scalars fit and w is in range")
        })
        .collect();
    let set = FormulaSet::for_curve::<P>();
    let tables = if w == 2 {
        // NAF: the only odd multiple is the base itself, already affine.
        kept.iter().map(|&i| vec![bases[i]]).collect()
    } else {
        let bs: Vec<Projective<P>> = kept.iter().map(|&i| bases[i].into()).collect();
        odd_multiples(&bs, w, set, &mut ops)
    };
    // Up to one part per thread, each with its own doublings, where every
    // part gets at least STRAUSS_PART_BITS scalar bits of work.
    let parts = (kept.len() * bits as usize / STRAUSS_PART_BITS).clamp(1, parallel_threads());
    map_ranges(kept.len(), parts, |range| {
        let refs: Vec<&Recoding> = recs[range.clone()].iter().collect();
        interleaved(&refs, &tables[range], set, &mut ops.clone())
    })
    .into_iter()
    .sum()
}

/// Scalar bits a parallel part of [`strauss`] needs at least (a part costs
/// about `bits / (w + 1)` additions per term plus its own doublings; one
/// wake-up of the thread pool costs about as much as 20 additions).
const STRAUSS_PART_BITS: usize = 256;

/// The paper's method: each term by its δ = 1 double-base chain, summed.
pub fn dbc_per_term<P: CurveMul>(bases: &[Affine<P>], scalars: &[P::ScalarField]) -> Projective<P> {
    let set = FormulaSet::for_curve::<P>();
    map_indices(bases.len(), |i| {
        mul_scalar_with(
            &Projective::from(bases[i]),
            &scalars[i],
            ScalarMulMethod::Dbc { delta: 1 },
            set,
            &mut Plain,
        )
        .expect("field scalars are within the chain size limit")
    })
    .into_iter()
    .sum()
}
