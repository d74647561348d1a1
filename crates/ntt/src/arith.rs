//! The arithmetic the transform is written against, with three
//! implementations chosen once per call:
//!
//! - [`Generic`]: any `T: DomainCoeff<F>` (field elements, group elements, ...)
//!   with its own operators; what `EvaluationDomain` promises.
//! - [`Portable`]: `T = F` for a [`MontField`], branch-free add/sub on limbs.
//! - [`AdxArith`]: as `Portable`, with the target's assembly kernels (BMI2/ADX
//!   on x86-64, aarch64's); chosen at run time when the CPU and the modulus
//!   allow it.

use ark_ff::FftField;
use ark_poly::domain::DomainCoeff;
use core::marker::PhantomData;

use crate::field::MontField;

/// Element operations used by the transform. Twiddles are always field
/// elements `F`; data elements are `Self::E`.
pub(crate) trait Arith<F: FftField>: Sync {
    /// The element type being transformed.
    type E: Copy + Send + Sync;
    /// `a + b`.
    fn add(&self, a: &Self::E, b: &Self::E) -> Self::E;
    /// `a - b`.
    fn sub(&self, a: &Self::E, b: &Self::E) -> Self::E;
    /// `a * w`.
    fn scale(&self, a: &Self::E, w: &F) -> Self::E;
    /// `a * b` on twiddles.
    fn mul(&self, a: &F, b: &F) -> F;
    /// One radix-4 butterfly of the transform's `dif`: with `s = x0 + x2`,
    /// `t = x1 + x3`, `d = x0 - x2` and `e = (x1 - x3) w4`, returns
    /// `[s + t, (s - t) w1, (d + e) w0, (d - e) w2]`. A kernel may fuse it
    /// (the ADX one leaves the sums unreduced between the products).
    #[inline(always)]
    fn radix4(&self, x: [&Self::E; 4], w4: &F, w: [&F; 3]) -> [Self::E; 4] {
        zkaccel_ff::dif4_with(
            x,
            w4,
            w,
            |a, b| self.add(a, b),
            |a, b| self.sub(a, b),
            |a, b| self.scale(a, b),
        )
    }
}

/// Any arkworks `DomainCoeff` through its own operators.
pub(crate) struct Generic<T>(PhantomData<fn() -> T>);

impl<T> Generic<T> {
    pub(crate) fn new() -> Self {
        Generic(PhantomData)
    }
}

impl<F: FftField, T: DomainCoeff<F>> Arith<F> for Generic<T> {
    type E = T;
    #[inline(always)]
    fn add(&self, a: &T, b: &T) -> T {
        *a + *b
    }
    #[inline(always)]
    fn sub(&self, a: &T, b: &T) -> T {
        *a - *b
    }
    #[inline(always)]
    fn scale(&self, a: &T, w: &F) -> T {
        let mut r = *a;
        r *= *w;
        r
    }
    #[inline(always)]
    fn mul(&self, a: &F, b: &F) -> F {
        *a * b
    }
}

/// Field elements with branch-free limb arithmetic.
pub(crate) struct Portable;

impl<F: MontField> Arith<F> for Portable {
    type E = F;
    #[inline(always)]
    fn add(&self, a: &F, b: &F) -> F {
        a.add_fast(b)
    }
    #[inline(always)]
    fn sub(&self, a: &F, b: &F) -> F {
        a.sub_fast(b)
    }
    #[inline(always)]
    fn scale(&self, a: &F, w: &F) -> F {
        a.mul_fast(w)
    }
    #[inline(always)]
    fn mul(&self, a: &F, b: &F) -> F {
        a.mul_fast(b)
    }
}

/// Field elements with the target's assembly kernels (zkaccel-ff's safe
/// token `Asm`: BMI2/ADX on x86-64, aarch64's; only constructed where the
/// CPU runs them).
pub(crate) struct AdxArith(zkaccel_ff::Asm);

impl AdxArith {
    /// `Some` when this CPU supports the assembly kernel.
    pub(crate) fn new() -> Option<Self> {
        zkaccel_ff::Asm::detect().map(AdxArith)
    }
}

impl<F: MontField> Arith<F> for AdxArith {
    type E = F;
    #[inline(always)]
    fn add(&self, a: &F, b: &F) -> F {
        self.0.add(a, b)
    }
    #[inline(always)]
    fn sub(&self, a: &F, b: &F) -> F {
        self.0.sub(a, b)
    }
    #[inline(always)]
    fn scale(&self, a: &F, w: &F) -> F {
        self.0.mul(a, w)
    }
    #[inline(always)]
    fn mul(&self, a: &F, b: &F) -> F {
        self.0.mul(a, b)
    }
    #[inline(always)]
    fn radix4(&self, x: [&F; 4], w4: &F, w: [&F; 3]) -> [F; 4] {
        self.0.dif4(x, w4, w)
    }
}
