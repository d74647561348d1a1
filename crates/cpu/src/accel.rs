//! `Accel<P>`: the curve `P` with zkaccel's scalar multiplication.
//!
//! `Projective<Accel<P>>` behaves exactly like `Projective<P>` (same
//! coefficients, generator, subgroup check, cofactor clearing and
//! serialization, byte for byte) except that `mul_projective` and
//! `mul_affine`, which arkworks' `Projective * Fr`, `mul_bigint` and every
//! generic caller reach, run [`crate::mul`] with `Auto`. Scalars beyond what
//! zkaccel accepts (over 1024 bits) fall back to `P`'s own multiplication.

use crate::{mul, CurveMul, ScalarMulMethod};
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::{AffineRepr, CurveConfig};
use ark_serialize::{Compress, Read, SerializationError, Validate, Write};
use core::marker::PhantomData;

/// The curve configuration `P`, with scalar multiplication routed to zkaccel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Accel<P>(PhantomData<P>);

impl<P: CurveMul> CurveConfig for Accel<P> {
    type BaseField = P::BaseField;
    type ScalarField = P::ScalarField;
    const COFACTOR: &'static [u64] = P::COFACTOR;
    const COFACTOR_INV: Self::ScalarField = P::COFACTOR_INV;
}

/// The same point on the inner curve.
pub fn to_inner<P: CurveMul>(p: &Affine<Accel<P>>) -> Affine<P> {
    if p.is_zero() {
        Affine::identity()
    } else {
        Affine::new_unchecked(p.x, p.y)
    }
}

/// The same point on the wrapped curve.
pub fn from_inner<P: CurveMul>(p: &Affine<P>) -> Affine<Accel<P>> {
    if p.is_zero() {
        Affine::identity()
    } else {
        Affine::new_unchecked(p.x, p.y)
    }
}

/// The same Jacobian point on the inner curve.
pub fn to_inner_projective<P: CurveMul>(p: &Projective<Accel<P>>) -> Projective<P> {
    Projective::new_unchecked(p.x, p.y, p.z)
}

/// The same Jacobian point on the wrapped curve.
pub fn from_inner_projective<P: CurveMul>(p: &Projective<P>) -> Projective<Accel<P>> {
    Projective::new_unchecked(p.x, p.y, p.z)
}

impl<P: CurveMul> SWCurveConfig for Accel<P> {
    const COEFF_A: Self::BaseField = P::COEFF_A;
    const COEFF_B: Self::BaseField = P::COEFF_B;
    const GENERATOR: Affine<Self> = Affine::new_unchecked(P::GENERATOR.x, P::GENERATOR.y);
    type ZeroFlag = ();

    #[inline]
    fn mul_by_a(elem: Self::BaseField) -> Self::BaseField {
        P::mul_by_a(elem)
    }

    #[inline]
    fn add_b(elem: Self::BaseField) -> Self::BaseField {
        P::add_b(elem)
    }

    fn is_in_correct_subgroup_assuming_on_curve(item: &Affine<Self>) -> bool {
        P::is_in_correct_subgroup_assuming_on_curve(&to_inner(item))
    }

    fn clear_cofactor(item: &Affine<Self>) -> Affine<Self> {
        from_inner(&P::clear_cofactor(&to_inner(item)))
    }

    fn mul_projective(base: &Projective<Self>, scalar: &[u64]) -> Projective<Self> {
        let inner = to_inner_projective(base);
        let out = mul(&inner, scalar, ScalarMulMethod::Auto)
            .unwrap_or_else(|_| P::mul_projective(&inner, scalar));
        from_inner_projective(&out)
    }

    fn mul_affine(base: &Affine<Self>, scalar: &[u64]) -> Projective<Self> {
        Self::mul_projective(&(*base).into(), scalar)
    }

    fn serialize_with_mode<W: Write>(
        item: &Affine<Self>,
        writer: W,
        compress: Compress,
    ) -> Result<(), SerializationError> {
        P::serialize_with_mode(&to_inner(item), writer, compress)
    }

    fn deserialize_with_mode<R: Read>(
        reader: R,
        compress: Compress,
        validate: Validate,
    ) -> Result<Affine<Self>, SerializationError> {
        P::deserialize_with_mode(reader, compress, validate).map(|p| from_inner(&p))
    }

    fn serialized_size(compress: Compress) -> usize {
        P::serialized_size(compress)
    }
}

impl<P: CurveMul> CurveMul for Accel<P> {
    const AUTO_GLV: bool = P::AUTO_GLV;
    type Ops = P::Ops;

    fn glv<O: crate::FieldOps<Self::BaseField>>(
        p: &Projective<Self>,
        k: Self::ScalarField,
        w: u32,
        set: crate::FormulaSet,
        ops: &mut O,
    ) -> Option<Projective<Self>> {
        P::glv(&to_inner_projective(p), k, w, set, ops).map(|q| from_inner_projective(&q))
    }

    fn glv_dbc<O: crate::FieldOps<Self::BaseField>>(
        p: &Projective<Self>,
        k: Self::ScalarField,
        set: crate::FormulaSet,
        ops: &mut O,
    ) -> Option<Projective<Self>> {
        P::glv_dbc(&to_inner_projective(p), k, set, ops).map(|q| from_inner_projective(&q))
    }
}
