//! The paper's per-term double-base-chain method.

use crate::field_ops::Plain;
use crate::formulas::FormulaSet;
use crate::parallel::map_indices;
use crate::{mul_scalar_with, CurveMul, ScalarMulMethod};
use ark_ec::short_weierstrass::{Affine, Projective};

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
