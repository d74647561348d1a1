//! [`SharedScalars`]: MSMs over several base sets that share one scalar
//! vector (Groth16's A, B1 and L sums over the witness), the scalars
//! recoded once.
//!
//! `Auto` on each base set converts the scalars out of Montgomery form,
//! sets the zero and one scalars apart, splits the rest by GLV and cuts
//! them into signed digits, once per MSM, although none of it depends on
//! the points. [`SharedScalars::new`] does it once and keeps only what the
//! bucket passes read: the digits, the GLV signs, and the indices of the
//! kept and of the one-valued scalars. [`SharedScalars::msm`] then runs one
//! base set's bucket passes on them (with its own `βx` where the terms are
//! split). The sums are those of [`msm_bases`](super::msm_bases) on each
//! set; the window is sized once, for the whole scalar vector.

use super::auto::{glv_splits, sum_affine_with, uses_glv, worth_filtering, GLV_PER_THREAD};
use super::bases::{BaseSlice, Bases, MontBytes};
use super::budget::chunk_for_budget;
use super::chunked::msm_bases;
use super::glv_bases::GlvBases;
use super::pippenger::{
    max_bits, pippenger_digit_rows, pippenger_plan, window_major_digits, BucketAdds,
    MIN_RANGE_TERMS,
};
use super::strauss::strauss_max_terms;
use crate::field_ops::{DetectOps, FieldOps};
use crate::parallel::{map_indices, map_ranges, parallel_threads, to_bigints, FILTER_CHUNK};
use crate::CurveMul;
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::AffineRepr;
use ark_ff::{PrimeField, Zero};
use zkaccel_core::MsmError;

/// One scalar vector recoded for several MSMs ([`SharedScalars::msm`] on
/// each base set); see the module docs.
pub struct SharedScalars<'a, P: CurveMul> {
    scalars: &'a [P::ScalarField],
    /// `None`: each MSM runs on its own ([`msm_bases`]), where the terms are
    /// too few for the bucket method or more than the memory budget
    /// ([`chunk_for_budget`]) allows at once.
    recoded: Option<Recoded<P>>,
}

/// The digits every base set's bucket passes read.
struct Recoded<P: CurveMul> {
    /// The indices of the scalars other than zero and one, ascending, where
    /// `Auto`'s filter applies (the digits cover these only); `None`: the
    /// digits cover every scalar.
    kept: Option<Vec<usize>>,
    /// The indices of the scalars equal to one, ascending (filtered only).
    ones: Vec<usize>,
    /// Window-major digits: `digits[j * stride + t]` is window `j` of
    /// recoded term `t` (two terms a scalar where split by GLV).
    digits: Vec<i32>,
    stride: usize,
    c: u32,
    windows: usize,
    /// Point ranges run as separate bucket methods ([`pippenger_plan`]).
    parts: usize,
    /// Where the terms are split by GLV: `β` and the sign bits of the
    /// split terms.
    glv: Option<(P::BaseField, Vec<u64>)>,
}

impl<'a, P: CurveMul> SharedScalars<'a, P> {
    /// Recodes `scalars` for MSMs over base sets of at most
    /// `scalars.len()` points.
    pub fn new(scalars: &'a [P::ScalarField]) -> Self {
        let n = scalars.len();
        let bits = P::ScalarField::MODULUS_BIT_SIZE;
        let whole = chunk_for_budget::<P>(n, bits, None).is_ok_and(|chunk| chunk >= n);
        SharedScalars {
            scalars,
            recoded: if whole { Recoded::new(scalars) } else { None },
        }
    }

    /// `sum_i scalars[offset + i] * bases[i]`, as [`msm_bases`] computes it
    /// on those scalars. The base set may end before the scalars do (it
    /// covers `scalars[offset..offset + bases.len()]`); one that runs past
    /// them is an error. The choices `Auto` makes from the input (filter,
    /// GLV split, window, point ranges) were made for the whole vector, so a
    /// base set much shorter than it runs the bucket method where `Auto`
    /// alone might have taken Strauss.
    pub fn msm<S: Bases<P>>(&self, bases: S, offset: usize) -> Result<Projective<P>, MsmError> {
        let n = bases.len();
        let Some(scalars) = offset
            .checked_add(n)
            .and_then(|end| self.scalars.get(offset..end))
        else {
            return Err(MsmError::LengthMismatch {
                bases: n,
                scalars: self.scalars.len().saturating_sub(offset),
            });
        };
        match &self.recoded {
            None => msm_bases(bases, scalars),
            Some(r) => Ok(match P::Ops::detect() {
                Some(ops) => r.msm(bases, offset, ops),
                None => r.msm(bases, offset, P::Ops::fallback()),
            }),
        }
    }
}

impl<P: CurveMul> SharedScalars<'_, P>
where
    P::BaseField: MontBytes,
{
    /// [`SharedScalars::msm`] on a [`BaseSlice`] (points as a slice, or
    /// read from their bytes).
    pub fn msm_slice(
        &self,
        bases: BaseSlice<'_, P>,
        offset: usize,
    ) -> Result<Projective<P>, MsmError> {
        match bases {
            BaseSlice::Affine(s) => self.msm(s, offset),
            BaseSlice::Packed(p) => self.msm(p, offset),
        }
    }
}

impl<P: CurveMul> core::fmt::Debug for SharedScalars<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.recoded {
            None => write!(
                f,
                "SharedScalars({} scalars, not recoded)",
                self.scalars.len()
            ),
            Some(r) => write!(
                f,
                "SharedScalars({} scalars, {} recoded terms, window {}, {} windows, {} point ranges)",
                self.scalars.len(),
                r.stride,
                r.c,
                r.windows,
                r.parts
            ),
        }
    }
}

impl<P: CurveMul> Recoded<P> {
    /// `Auto`'s steps up to the digits, or `None` where `Auto` would not
    /// run the bucket method on the kept terms.
    fn new(scalars: &[P::ScalarField]) -> Option<Self> {
        let one = P::ScalarField::from(1u64);
        let (kept, ones, ints) = if worth_filtering(scalars, |k| k.is_zero() || *k == one) {
            let (kept, ones) = partition(scalars, one);
            let ints = map_indices(kept.len(), |t| scalars[kept[t]].into_bigint());
            (Some(kept), ones, ints)
        } else {
            (None, Vec::new(), to_bigints(scalars))
        };
        let (m, bits) = (ints.len(), max_bits(&ints));
        let glv_per_term =
            m <= GLV_PER_THREAD * parallel_threads() && bits > 64 && glv_splits::<P>();
        if glv_per_term || m <= strauss_max_terms(bits) {
            return None;
        }
        let split = if uses_glv::<P>(m, bits) {
            P::msm_glv_scalars(&ints)
        } else {
            None
        };
        let (digits, stride, c, windows, parts, glv) = match split {
            Some(s) => {
                drop(ints);
                let (stride, bits) = (s.scalars.len(), max_bits(&s.scalars));
                let (c, parts, windows) = plan::<P>(stride, bits);
                let digits = window_major_digits(&s.scalars, c, windows);
                (digits, stride, c, windows, parts, Some((s.beta, s.negate)))
            }
            None => {
                let (c, parts, windows) = plan::<P>(m, bits);
                (
                    window_major_digits(&ints, c, windows),
                    m,
                    c,
                    windows,
                    parts,
                    None,
                )
            }
        };
        Some(Recoded {
            kept,
            ones,
            digits,
            stride,
            c,
            windows,
            parts,
            glv,
        })
    }

    /// The sum over `bases`, whose scalars start at `offset`.
    fn msm<S: Bases<P>, O>(&self, bases: S, offset: usize, ops: O) -> Projective<P>
    where
        O: FieldOps<P::BaseField> + Copy + Send + Sync,
    {
        let end = offset + bases.len();
        let Some(kept) = &self.kept else {
            return self.buckets(bases, offset, ops);
        };
        let within =
            |v: &[usize]| v.partition_point(|&i| i < offset)..v.partition_point(|&i| i < end);
        let ones = &self.ones[within(&self.ones)];
        let ones_sum = sum_affine_with(ones.len(), |t| bases.get(ones[t] - offset), ops);
        let terms = within(kept);
        let lo = terms.start;
        let view: Vec<Affine<P>> = kept[terms].iter().map(|&i| bases.get(i - offset)).collect();
        ones_sum + self.buckets(view.as_slice(), lo, ops)
    }

    /// The bucket passes over `view`, whose terms are recoded terms
    /// `first..first + view.len()` (before any GLV split).
    fn buckets<S: Bases<P>, O>(&self, view: S, first: usize, ops: O) -> Projective<P>
    where
        O: FieldOps<P::BaseField> + Copy + Send + Sync,
    {
        match &self.glv {
            None => self.passes(view, first, ops),
            Some((beta, negate)) => {
                let beta_x = map_indices(view.len(), |i| {
                    view.get(i)
                        .xy()
                        .map_or(P::BaseField::zero(), |(x, _)| *beta * x)
                });
                self.passes(
                    GlvBases::shared(view, &beta_x, negate, 2 * first),
                    2 * first,
                    ops,
                )
            }
        }
    }

    /// Pippenger on `view` with the digit columns `col..col + view.len()`.
    fn passes<S: Bases<P>, O>(&self, view: S, col: usize, ops: O) -> Projective<P>
    where
        O: FieldOps<P::BaseField> + Copy + Send + Sync,
    {
        if view.is_empty() {
            return Projective::zero();
        }
        let (d, stride, c, windows) = (&self.digits, self.stride, self.c, self.windows);
        let ranged = |r: core::ops::Range<usize>| {
            let row = |j: usize| &d[j * stride + col + r.start..j * stride + col + r.end];
            pippenger_digit_rows(view.range(r.clone()), row, c, windows, ops)
        };
        // Ranges of at least MIN_RANGE_TERMS, as `pippenger_plan` makes them
        // (a short base set takes fewer).
        let parts = self.parts.min(view.len() / MIN_RANGE_TERMS).max(1);
        if parts == 1 {
            return ranged(0..view.len());
        }
        map_ranges(view.len(), parts, ranged).into_iter().sum()
    }
}

/// The window, point ranges and window count for `m` terms of `bits` bits
/// (no windows where every scalar is zero), for the curve's arithmetic as
/// [`SharedScalars::msm`] detects it.
fn plan<P: CurveMul>(m: usize, bits: u32) -> (u32, usize, usize) {
    if bits == 0 {
        return (1, 1, 0);
    }
    let (c, parts) = pippenger_plan(m, bits, BucketAdds::detect::<P>());
    (c, parts, (bits + 1).div_ceil(c) as usize)
}

/// The indices of the scalars other than zero and one, and of those equal
/// to one, both ascending; chunks in parallel.
fn partition<F: PrimeField>(scalars: &[F], one: F) -> (Vec<usize>, Vec<usize>) {
    let parts = map_indices(scalars.len().div_ceil(FILTER_CHUNK), |p| {
        let (mut kept, mut ones) = (Vec::new(), Vec::new());
        let start = p * FILTER_CHUNK;
        let chunk = &scalars[start..(start + FILTER_CHUNK).min(scalars.len())];
        for (i, k) in chunk.iter().enumerate() {
            if *k == one {
                ones.push(start + i);
            } else if !k.is_zero() {
                kept.push(start + i);
            }
        }
        (kept, ones)
    });
    let (mut kept, mut ones) = (Vec::new(), Vec::new());
    for (k, o) in parts {
        kept.extend(k);
        ones.extend(o);
    }
    (kept, ones)
}
