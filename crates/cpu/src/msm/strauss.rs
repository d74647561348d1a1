//! Strauss' interleaved wNAF, for a few terms.

use super::bases::Bases;
use super::pippenger::max_bits;
use crate::field_ops::{DetectOps, FieldOps};
use crate::formulas::FormulaSet;
use crate::parallel::{map_ranges, parallel_threads};
use crate::scalar_mul::{interleaved, odd_multiples};
use crate::CurveMul;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{BigInteger, Zero};
use zkaccel_dbc::Recoding;

/// The widest window of Strauss' per-base wNAF tables.
pub(super) const STRAUSS_MAX_WINDOW: u32 = 5;

/// Strauss' wNAF window for `terms` scalars of `bits` bits: the `w` in
/// `2..=5` with the fewest field multiplications (`S = 0.8 M`) for the
/// tables and the additions. A table of `2^(w-2)` odd multiples costs one
/// doubling (6 M), `2^(w-2) - 1` full additions (15 M) and a normalisation
/// (about 6 M a point, plus one inversion, about 250 M, shared by all
/// bases); the loop adds `bits / (w + 1)` mixed additions (10.2 M) per
/// term. `w = 2` (NAF) needs no table at all: the affine base is its own.
/// 8-bit scalars get NAF, full-width ones `w = 4` or 5.
pub(super) fn strauss_window(terms: usize, bits: u32) -> u32 {
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
/// scalar (`w` from 2 to 5, the fewest field multiplications by a cost
/// model); the field arithmetic is the curve's
/// [`CurveMul::Ops`] where the CPU supports it.
pub fn strauss<P: CurveMul, B: BigInteger>(bases: &[Affine<P>], scalars: &[B]) -> Projective<P> {
    strauss_bases(bases, scalars)
}

/// [`strauss`] on any [`Bases`].
pub(super) fn strauss_bases<P: CurveMul, S: Bases<P>, B: BigInteger>(
    bases: S,
    scalars: &[B],
) -> Projective<P> {
    match P::Ops::detect() {
        Some(ops) => strauss_with(bases, scalars, ops),
        None => strauss_with(bases, scalars, P::Ops::fallback()),
    }
}

pub(super) fn strauss_with<P: SWCurveConfig, S: Bases<P>, B: BigInteger, O>(
    bases: S,
    scalars: &[B],
    mut ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    let kept: Vec<usize> = (0..bases.len())
        .filter(|&i| !scalars[i].is_zero() && !bases.get(i).is_zero())
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
        kept.iter().map(|&i| vec![bases.get(i)]).collect()
    } else {
        let bs: Vec<Projective<P>> = kept.iter().map(|&i| bases.get(i).into()).collect();
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
pub(super) const STRAUSS_PART_BITS: usize = 256;

/// The most terms (after filtering) for which `Auto` runs Strauss, at any
/// scalar width ([`strauss_max_terms`] gives the limit per width).
pub(crate) const STRAUSS_MAX_TERMS: usize = 32;

/// The most terms of `bits`-bit scalars for which `Auto` runs Strauss
/// rather than Pippenger: Strauss costs a table per term and one doubling
/// chain for all, Pippenger a bucket reduction per window, so the crossover
/// falls as scalars widen (and earliest for full-width ones, where the GLV
/// split makes Pippenger fast early); the crossovers are docs/msm.md's.
pub(crate) fn strauss_max_terms(bits: u32) -> usize {
    match bits {
        0..=8 => STRAUSS_MAX_TERMS,
        9..=64 => 10,
        _ => 4,
    }
}
