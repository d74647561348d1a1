//! The GLV split's terms without a copy of the points: `2n` bases read
//! from the `n` given ones through the endomorphism's x-coordinates and a
//! sign bit per split term.
//!
//! Term `i` of an MSM becomes `±P_i` and `±φ(P_i)` with `φ(x, y) = (βx, y)`.
//! Materialising the `2n` signed points costs two points a term (144 bytes
//! on BN254 G1: 36 MiB at 2^18 terms, written once and read once per
//! window, and as much again while per-thread parts were gathered into
//! it); [`GlvTerms`] keeps `βx` (one coordinate a term) and the signs (two
//! bits a term), and [`GlvBases`] assembles each split point when the
//! bucket method reads it.

use super::bases::Bases;
use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::BigInt;
use core::ops::Range;

/// The GLV split of an MSM's `n` terms: the `2n` half-width scalars, and
/// what [`GlvTerms::bases`] needs to read the `2n` bases from the original
/// ones (split term `2i` is `±P_i`, term `2i + 1` is `±φ(P_i)`).
pub struct GlvTerms<P: SWCurveConfig> {
    /// `x` of `φ(P_i)` (`β x_i`; unused for the point at infinity).
    pub(crate) beta_x: Vec<P::BaseField>,
    /// Bit `t` (word `t / 64`, bit `t % 64`): split term `t`'s base is
    /// negated (its scalar's half was negative).
    pub(crate) negate: Vec<u64>,
    /// The half-width scalars' magnitudes, two per term.
    pub(crate) scalars: Vec<BigInt<4>>,
}

impl<P: SWCurveConfig> GlvTerms<P> {
    /// The split of `n` terms from its parts, for a [`CurveMul`](crate::CurveMul)
    /// implementation of its own `msm_glv_split`: `beta_x[i]` the x of
    /// `φ(P_i) = (βx_i, y_i)` (an endomorphism that keeps `y`), bit `t` of
    /// `negate` (word `t / 64`, bit `t % 64`) set where split term `t`'s
    /// base is negated, `scalars[2i]` and `scalars[2i + 1]` the magnitudes
    /// of `P_i`'s and `φ(P_i)`'s scalars. `None` unless `scalars` has `2n`
    /// entries and `negate` `ceil(2n / 64)` words.
    pub fn new(
        beta_x: Vec<P::BaseField>,
        negate: Vec<u64>,
        scalars: Vec<BigInt<4>>,
    ) -> Option<Self> {
        let n = beta_x.len();
        (scalars.len() == 2 * n && negate.len() == (2 * n).div_ceil(64)).then_some(GlvTerms {
            beta_x,
            negate,
            scalars,
        })
    }

    /// The split scalars: `2n` non-negative integers of about half the
    /// scalar field's width.
    pub fn scalars(&self) -> &[BigInt<4>] {
        &self.scalars
    }

    /// The split bases, read from the bases the split was made from
    /// (`inner`: the same points, `n` of them).
    ///
    /// # Panics
    /// If `inner` does not have the `n` points the split was made for.
    pub fn bases<S: Bases<P>>(&self, inner: S) -> GlvBases<'_, P, S> {
        assert_eq!(
            inner.len(),
            self.beta_x.len(),
            "GlvTerms::bases: the split was made for another number of points"
        );
        GlvBases {
            inner,
            beta_x: &self.beta_x,
            negate: &self.negate,
            negate_from: 0,
            start: 0,
            len: 2 * self.beta_x.len(),
        }
    }
}

impl<'a, P: SWCurveConfig, S: Bases<P>> GlvBases<'a, P, S> {
    /// The split bases of `inner` (`n` points, `beta_x` their `βx`) whose
    /// sign bits start at bit `negate_from` of `negate` (a sub-range of a
    /// split made once for several base sets).
    pub(crate) fn shared(
        inner: S,
        beta_x: &'a [P::BaseField],
        negate: &'a [u64],
        negate_from: usize,
    ) -> Self {
        debug_assert_eq!(inner.len(), beta_x.len());
        debug_assert!(negate_from + 2 * inner.len() <= 64 * negate.len());
        GlvBases {
            inner,
            beta_x,
            negate,
            negate_from,
            start: 0,
            len: 2 * inner.len(),
        }
    }
}

/// The scalar half of a GLV split ([`CurveMul::msm_glv_scalars`](crate::CurveMul::msm_glv_scalars)):
/// the `2n` half-width magnitudes and their signs as in [`GlvTerms`], and
/// `β` of the endomorphism `φ(x, y) = (βx, y)`, from which each base set
/// that shares the scalars gets its `βx` ([`SharedScalars`](super::SharedScalars)).
pub struct GlvScalars<P: SWCurveConfig> {
    pub(crate) beta: P::BaseField,
    pub(crate) negate: Vec<u64>,
    pub(crate) scalars: Vec<BigInt<4>>,
}

impl<P: SWCurveConfig> GlvScalars<P> {
    /// The split of `n` scalars from its parts, laid out as
    /// [`GlvTerms::new`] takes them; `beta` such that `(βx, y) = λ (x, y)`
    /// for every point of the curve. `None` unless `scalars` has an even
    /// length `2n` and `negate` `ceil(2n / 64)` words.
    pub fn new(beta: P::BaseField, negate: Vec<u64>, scalars: Vec<BigInt<4>>) -> Option<Self> {
        (scalars.len().is_multiple_of(2) && negate.len() == scalars.len().div_ceil(64)).then_some(
            GlvScalars {
                beta,
                negate,
                scalars,
            },
        )
    }

    /// The split scalars: `2n` non-negative integers of about half the
    /// scalar field's width.
    pub fn scalars(&self) -> &[BigInt<4>] {
        &self.scalars
    }
}

impl<P: SWCurveConfig> core::fmt::Debug for GlvTerms<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "GlvTerms({} split terms)", self.scalars.len())
    }
}

/// The `2n` bases of a GLV split ([`GlvTerms::bases`]), assembled on each
/// read: `P_i` or `(β x_i, y_i)`, negated where the term's sign bit says.
pub struct GlvBases<'a, P: SWCurveConfig, S> {
    inner: S,
    beta_x: &'a [P::BaseField],
    negate: &'a [u64],
    /// The bit of `negate` that holds split term 0's sign.
    negate_from: usize,
    /// The first split term of this view (a [`Bases::range`] of the whole).
    start: usize,
    len: usize,
}

impl<P: SWCurveConfig, S: Copy> Clone for GlvBases<'_, P, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: SWCurveConfig, S: Copy> Copy for GlvBases<'_, P, S> {}

impl<P: SWCurveConfig, S> core::fmt::Debug for GlvBases<'_, P, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "GlvBases({}..{})", self.start, self.start + self.len)
    }
}

impl<P: SWCurveConfig, S: Bases<P>> Bases<P> for GlvBases<'_, P, S> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn get(&self, j: usize) -> Affine<P> {
        assert!(j < self.len, "GlvBases: index {j} of {}", self.len);
        let t = self.start + j;
        let i = t >> 1;
        let p = self.inner.get(i);
        if p.is_zero() {
            return p;
        }
        let x = if t & 1 == 1 { self.beta_x[i] } else { p.x };
        let s = self.negate_from + t;
        let negated = (self.negate[s >> 6] >> (s & 63)) & 1 == 1;
        Affine::new_unchecked(x, if negated { -p.y } else { p.y })
    }

    fn range(&self, range: Range<usize>) -> Self {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "GlvBases: range {range:?} of {}",
            self.len
        );
        GlvBases {
            start: self.start + range.start,
            len: range.len(),
            ..*self
        }
    }
}
