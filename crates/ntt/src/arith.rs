//! The arithmetic the transform is written against, with three
//! implementations chosen once per call:
//!
//! - [`Generic`]: any `T: DomainCoeff<F>` (field elements, group elements, ...)
//!   with its own operators; what `EvaluationDomain` promises.
//! - [`Portable`]: `T = F` for a [`MontField`], branch-free add/sub on limbs.
//! - [`Adx`]: as `Portable`, with the BMI2/ADX multiplication kernel; chosen
//!   at run time when the CPU and the modulus allow it.

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
    fn add(a: &Self::E, b: &Self::E) -> Self::E;
    /// `a - b`.
    fn sub(a: &Self::E, b: &Self::E) -> Self::E;
    /// `a * w`.
    fn scale(a: &Self::E, w: &F) -> Self::E;
    /// `a * b` on twiddles.
    fn mul(a: &F, b: &F) -> F;
}

/// Any arkworks `DomainCoeff` through its own operators.
pub(crate) struct Generic<T>(PhantomData<fn() -> T>);

impl<F: FftField, T: DomainCoeff<F>> Arith<F> for Generic<T> {
    type E = T;
    #[inline(always)]
    fn add(a: &T, b: &T) -> T {
        *a + *b
    }
    #[inline(always)]
    fn sub(a: &T, b: &T) -> T {
        *a - *b
    }
    #[inline(always)]
    fn scale(a: &T, w: &F) -> T {
        let mut r = *a;
        r *= *w;
        r
    }
    #[inline(always)]
    fn mul(a: &F, b: &F) -> F {
        *a * b
    }
}

/// Field elements with branch-free limb arithmetic.
pub(crate) struct Portable;

impl<F: MontField> Arith<F> for Portable {
    type E = F;
    #[inline(always)]
    fn add(a: &F, b: &F) -> F {
        a.add_fast(b)
    }
    #[inline(always)]
    fn sub(a: &F, b: &F) -> F {
        a.sub_fast(b)
    }
    #[inline(always)]
    fn scale(a: &F, w: &F) -> F {
        a.mul_fast(w)
    }
    #[inline(always)]
    fn mul(a: &F, b: &F) -> F {
        a.mul_fast(b)
    }
}

/// Field elements with the BMI2/ADX multiplication kernel.
///
/// Only constructed through [`Adx::new`], which checks the CPU and the field,
/// so holding an `Adx` value is the proof that `mul_adx` is safe to call.
pub(crate) struct Adx(());

impl Adx {
    /// `Some` when `F` and this CPU support the assembly kernel.
    pub(crate) fn new<F: MontField>() -> Option<Self> {
        (F::ADX_MUL && crate::field::adx_supported()).then_some(Adx(()))
    }
}

impl<F: MontField> Arith<F> for Adx {
    type E = F;
    #[inline(always)]
    fn add(a: &F, b: &F) -> F {
        // SAFETY: as for `scale` below (ADX_MUL holds).
        unsafe { a.add_asm(b) }
    }
    #[inline(always)]
    fn sub(a: &F, b: &F) -> F {
        // SAFETY: as for `scale` below (ADX_MUL holds).
        unsafe { a.sub_asm(b) }
    }
    #[inline(always)]
    fn scale(a: &F, w: &F) -> F {
        // SAFETY: transforms run with `Adx` only after `Adx::new` succeeded.
        unsafe { a.mul_adx(w) }
    }
    #[inline(always)]
    fn mul(a: &F, b: &F) -> F {
        // SAFETY: as above.
        unsafe { a.mul_adx(b) }
    }
}
