//! `Auto` on any [`Bases`], in as many chunks as the memory budget
//! requires ([`chunk_for_budget`]).

use super::auto::auto;
use super::bases::Bases;
use super::budget::chunk_for_budget;
use crate::CurveMul;
use ark_ec::short_weierstrass::Projective;
use ark_ff::PrimeField;
use zkaccel_core::{check_lengths, MsmError};

/// [`msm`](super::msm) ([`MsmAlgorithm::Auto`](super::MsmAlgorithm::Auto))
/// on any [`Bases`]: a slice, or points read from their bytes
/// ([`PackedBases`](super::PackedBases)) where they lie.
pub fn msm_bases<P: CurveMul, S: Bases<P>>(
    bases: S,
    scalars: &[P::ScalarField],
) -> Result<Projective<P>, MsmError> {
    check_lengths(bases.len(), scalars.len())?;
    let bits = P::ScalarField::MODULUS_BIT_SIZE;
    let chunk = chunk_for_budget::<P>(bases.len(), bits, None)?;
    Ok(in_chunks(bases, scalars, chunk, auto))
}

/// `run` on consecutive chunks of at most `chunk` terms, summed (one call
/// where `chunk` covers them all).
pub(super) fn in_chunks<P: CurveMul, S: Bases<P>, K>(
    bases: S,
    scalars: &[K],
    chunk: usize,
    run: impl Fn(S, &[K]) -> Projective<P>,
) -> Projective<P> {
    if chunk >= bases.len() {
        return run(bases, scalars);
    }
    (0..bases.len())
        .step_by(chunk)
        .map(|start| {
            let r = start..(start + chunk).min(bases.len());
            run(bases.range(r.clone()), &scalars[r])
        })
        .sum()
}
