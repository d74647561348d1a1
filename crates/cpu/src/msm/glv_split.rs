//! Pippenger on GLV-split terms (`2n` half-width terms `k1 P + k2 φ(P)`).

use super::bases::Bases;
use super::pippenger::{max_bits, pippenger, pippenger_known_bits};
use crate::field_ops::{DetectOps, FieldOps};
use crate::parallel::{map_indices, FILTER_CHUNK};
use crate::xyzz::Xyzz;
use crate::CurveMul;
use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::AffineRepr;
use ark_ff::{BigInteger, Zero};

/// Scalars up to this width are not split by [`pippenger_glv`]: the halves
/// would be as wide as the scalars.
pub(super) const GLV_MIN_BITS: u32 = 160;

/// [`MsmAlgorithm::PippengerGlv`](super::MsmAlgorithm::PippengerGlv): [`pippenger`] on the GLV-split terms
/// (`2n` terms of about half the width, `CurveMul::msm_glv_split`) where
/// [`CurveMul::msm_glv_split`] allows it and the scalars are wider than
/// 160 bits, on the terms as given otherwise. `Auto` runs it only for the
/// term counts where it pays (`GLV_AUTO_TERMS`): it halves the windows but
/// not the bucket additions, and streams twice the points.
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
pub(super) fn split_then_pippenger<P: CurveMul, S: Bases<P>, B: BigInteger>(
    bases: S,
    scalars: &[B],
) -> Projective<P> {
    match P::msm_glv_split(bases, scalars) {
        Some(terms) => {
            let split = terms.scalars();
            pippenger_known_bits(terms.bases(bases), split, max_bits(split))
        }
        None => pippenger_known_bits(bases, scalars, max_bits(scalars)),
    }
}

/// Drops the terms with a zero scalar or base, sums the bases whose scalar is
/// one, and returns that sum with the remaining terms. Chunks run in
/// parallel: witness vectors of real circuits are mostly bits.
#[allow(clippy::type_complexity)]
pub(super) fn split_terms<P: CurveMul, Q: Bases<P>, S: Copy + Send + Sync>(
    bases: Q,
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
pub(super) fn split_terms_with<P: CurveMul, Q: Bases<P>, S: Copy + Send + Sync, O>(
    bases: Q,
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
            let k = &scalars[i];
            if is_zero(k) {
                continue;
            }
            let b = bases.get(i);
            if b.is_zero() {
                continue;
            }
            if is_one(k) {
                ones.add_affine(&b, &mut ops);
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
        kept_b.extend(kept.iter().map(|&i| bases.get(i)));
        kept_s.extend(kept.iter().map(|&i| scalars[i]));
    }
    (ones, kept_b, kept_s)
}
