//! `Auto`: the zero/one filter, then the choice among GLV scalar multiplication
//! per term, Strauss, Pippenger with the GLV split, and Pippenger.

use super::bases::Bases;
use super::glv_split::{split_terms, split_then_pippenger, GLV_MIN_BITS};
use super::pippenger::{max_bits, pippenger_known_bits, pippenger_plan, BucketAdds};
use super::strauss::{strauss_bases, strauss_max_terms};
use crate::field_ops::FieldOps;
use crate::parallel::{map_indices, parallel_threads, to_bigints, FILTER_CHUNK};
use crate::xyzz::Xyzz;
use crate::{CurveMul, ScalarMulMethod};
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ff::{BigInteger, Zero};

pub(super) fn naive<P: SWCurveConfig>(
    bases: &[Affine<P>],
    scalars: &[P::ScalarField],
) -> Projective<P> {
    bases.iter().zip(scalars).map(|(b, k)| *b * k).sum()
}

pub(super) fn auto<P: CurveMul, S: Bases<P>>(
    bases: S,
    scalars: &[P::ScalarField],
) -> Projective<P> {
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
    ones + bucket_or_strauss(kept_b.as_slice(), &to_bigints(&kept_s))
}

pub(super) fn auto_bigint<P: CurveMul, S: Bases<P>, B: BigInteger>(
    bases: S,
    scalars: &[B],
) -> Projective<P> {
    let one = B::from(1u64);
    let trivial = |k: &B| k.is_zero() || *k == one;
    if !worth_filtering(scalars, trivial) {
        return bucket_or_strauss(bases, scalars);
    }
    let (ones, kept_b, kept_s) = split_terms(bases, scalars, |k| k.is_zero(), |k| *k == one);
    ones + bucket_or_strauss(kept_b.as_slice(), &kept_s)
}

/// Whether `auto` should copy out the terms with a zero or one scalar: when
/// at least `1 / FILTER_FRACTION` of a sample of the scalars are (at most
/// [`FILTER_SAMPLE`] of them, evenly spaced over the input; all of them for
/// shorter inputs). Below that the copy costs more than it saves: Pippenger
/// skips a zero digit for free and adds a scalar one in its first window
/// only, while the filter reads and copies every term. A sample rather than
/// every scalar, and no look at the bases: one pass over all scalars and
/// bases is a sizeable share of a narrow-scalar MSM (docs/msm.md, "Where
/// Auto's thresholds come from"). An input the sample misjudges is only
/// slower, never wrong: every path skips zero scalars and bases at infinity.
pub(super) fn worth_filtering<S>(scalars: &[S], trivial: impl Fn(&S) -> bool) -> bool {
    let step = scalars.len().div_ceil(FILTER_SAMPLE).max(1);
    let (mut seen, mut hits) = (0usize, 0usize);
    for k in scalars.iter().step_by(step) {
        seen += 1;
        hits += usize::from(trivial(k));
    }
    seen > 0 && hits * FILTER_FRACTION >= seen
}

/// Scalars [`worth_filtering`] reads at most.
pub(super) const FILTER_SAMPLE: usize = 4096;

/// See [`worth_filtering`].
pub(super) const FILTER_FRACTION: usize = 16;

/// Wide terms per thread up to which `Auto` multiplies each term on its
/// own (see `bucket_or_strauss`).
pub(super) const GLV_PER_THREAD: usize = 1;

/// Wide scalars on curves where the GLV split applies: up to
/// [`GLV_PER_THREAD`] terms a thread, one GLV scalar multiplication each
/// (a few terms cost a few scalar multiplications, less than any bucket
/// method's fixed cost; docs/msm.md has the crossover). Else Strauss up to
/// [`strauss_max_terms`] terms, Pippenger above, with the GLV split where
/// [`GLV_AUTO_TERMS`] says it pays.
pub(super) fn bucket_or_strauss<P: CurveMul, S: Bases<P>, B: BigInteger>(
    bases: S,
    scalars: &[B],
) -> Projective<P> {
    let bits = max_bits(scalars);
    if bases.len() <= GLV_PER_THREAD * parallel_threads() && bits > 64 && glv_splits::<P>() {
        // Cofactor 1 (every point is in the subgroup), so the GLV scalar
        // multiplication gives the exact multiple.
        map_indices(bases.len(), |i| {
            crate::mul(
                &bases.get(i).into(),
                scalars[i].as_ref(),
                ScalarMulMethod::Auto,
            )
            .expect("a field's BigInt is within the scalar size limit (1024 bits)")
        })
        .into_iter()
        .sum()
    } else if bases.len() <= strauss_max_terms(bits) {
        strauss_bases(bases, scalars)
    } else if uses_glv::<P>(bases.len(), bits) {
        split_then_pippenger(bases, scalars)
    } else {
        pippenger_known_bits(bases, scalars, bits)
    }
}

/// Term counts for which `Auto` runs [`pippenger_glv`] (where the curve
/// allows the split): the split halves the windows (fewer bucket
/// reductions) but not the additions, and doubles the points to stream, so
/// it pays where the reductions dominate and where the halved width moves
/// the terms to a better window size. The ranges are the grid's (docs/msm.md,
/// "Where Auto's thresholds come from"). In the third, around 2^18, the
/// split applies only where it widens the window ([`split_widens`]).
pub(super) const GLV_AUTO_TERMS: [core::ops::Range<usize>; 3] =
    [0..1280, 2560..(1 << 15), (3 << 16)..(3 << 17)];

/// The ranges of [`GLV_AUTO_TERMS`] that apply on this target. In
/// WebAssembly (one thread an instance, the SIMD128 lanes, 13- to 15-bit
/// windows) the split lost around 2^18: one thread of node 20 on an Intel
/// Xeon, BN254 G1, random full-width terms, 3 alternated rounds, medians,
/// split against unsplit: 200,000 terms 1,848 against 1,789 ms, 240,000
/// 2,183 against 2,134, 300,000 2,696 against 2,621; so only the first two
/// ranges apply there (where it still won: 1,000 terms 29 against 31 ms,
/// 4,096 60 against 65, 16,384 193 against 208).
fn glv_auto_terms() -> &'static [core::ops::Range<usize>] {
    if cfg!(target_arch = "wasm32") {
        &GLV_AUTO_TERMS[..2]
    } else {
        &GLV_AUTO_TERMS
    }
}

/// Whether `Auto` splits `n` terms of `bits` bits by GLV on this curve.
pub(super) fn uses_glv<P: CurveMul>(n: usize, bits: u32) -> bool {
    // The first two ranges split whatever the plan; the third (absent in
    // WebAssembly) only where the split widens the window.
    let (always, widening) = glv_auto_terms().split_at(2);
    let within = |ranges: &[core::ops::Range<usize>]| ranges.iter().any(|r| r.contains(&n));
    bits > GLV_MIN_BITS
        && glv_splits::<P>()
        && (within(always) || within(widening) && split_widens::<P>(n, bits))
}

/// Whether the `2n` split terms of half the width get a wider window than
/// the `n` unsplit ones ([`pippenger_plan`] on this CPU's bucket
/// additions). Around 2^18 that is what the split gains: on two threads,
/// from 150,000 to 253,967 full-width terms the IFMA lanes' plan gives
/// the split 16-bit windows and the unsplit terms 13-bit ones; from
/// 253,968 terms, and on the scalar kernels (ADX, aarch64, portable)
/// throughout, both get 16-bit windows, and the split, doing the same
/// additions over twice the points, loses. On a 2-core Intel Xeon (family
/// 6 model 207), BN254 G1, random terms, two threads, the median of 9
/// interleaved pairs' time ratios, split over unsplit (docs/msm.md, "GLV
/// split"): IFMA 0.864-0.895 at 200,000-248,163 terms, 1.082-1.104 at 2^18
/// and 350,000; ADX 1.035 at 248,163 and 1.027-1.030 at 2^18; portable
/// 1.008-1.019 at 2^18.
fn split_widens<P: CurveMul>(n: usize, bits: u32) -> bool {
    let adds = BucketAdds::detect::<P>();
    pippenger_plan(2 * n, bits.div_ceil(2), adds).0 > pippenger_plan(n, bits, adds).0
}

/// Whether the curve allows the GLV split of an MSM's terms
/// ([`CurveMul::msm_glv_split`]: an endomorphism and cofactor 1).
pub(super) fn glv_splits<P: CurveMul>() -> bool {
    P::msm_glv_split::<ark_ff::BigInt<4>, &[Affine<P>]>(&[], &[]).is_some()
}

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
