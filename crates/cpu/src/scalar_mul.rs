//! Scalar multiplication driven by chains and recodings.
//!
//! * [`run_chain`]: the paper's Algorithm 1. From the leading term down, do
//!   the doublings and triplings between consecutive terms, then add `±P`
//!   (a mixed addition). A NAF is the chain with every `b = 0`.
//! * [`wnaf_mul`]: width-`w` NAF over a table of odd multiples `P, 3P, ...`
//!   put in affine form with one batched inversion (Montgomery's trick), so
//!   every addition is a mixed one.
//! * [`glv_mul`]: the GLV split `k = k1 + k2 λ` (arkworks' decomposition) and
//!   interleaved wNAF over the affine tables of `P` and `φ(P)`, so the ~128
//!   doublings are shared; arkworks' own GLV does a joint binary
//!   double-and-add with projective additions.

use crate::formulas::{add_affine, double, triple, FieldOps, FormulaSet};
use ark_ec::scalar_mul::glv::GLVConfig;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::CurveGroup;
use ark_ff::{PrimeField, Zero};
use zkaccel_dbc::{Dbc, Recoding, Sign};

/// `k * P` from the chain `chain` of `k` (terms largest first).
pub fn run_chain<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    base: &Affine<P>,
    chain: &Dbc,
    set: FormulaSet,
    ops: &mut O,
) -> Projective<P> {
    let terms = chain.terms();
    let Some(first) = terms.first() else {
        return Projective::zero();
    };
    let neg = -*base;
    let pick = |s: Sign| if s == Sign::Plus { base } else { &neg };
    let mut acc: Projective<P> = (*pick(first.sign)).into();
    let (mut ca, mut cb) = (first.a, first.b);
    for t in &terms[1..] {
        for _ in t.a..ca {
            double(&mut acc, set, ops);
        }
        for _ in t.b..cb {
            triple(&mut acc, set, ops);
        }
        add_affine(&mut acc, pick(t.sign), set, ops);
        (ca, cb) = (t.a, t.b);
    }
    for _ in 0..ca {
        double(&mut acc, set, ops);
    }
    for _ in 0..cb {
        triple(&mut acc, set, ops);
    }
    acc
}

/// Odd multiples `P, 3P, ..., (2^{w-1} - 1)P` of each base, all normalised
/// to affine with one shared inversion. Returns one table per base.
pub(crate) fn odd_multiples<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    bases: &[Projective<P>],
    w: u32,
    set: FormulaSet,
    ops: &mut O,
) -> Vec<Vec<Affine<P>>> {
    let per = 1usize << (w - 2);
    let mut all = Vec::with_capacity(per * bases.len());
    for b in bases {
        let mut twice = *b;
        double(&mut twice, set, ops);
        let mut cur = *b;
        all.push(cur);
        for _ in 1..per {
            crate::formulas::add(&mut cur, &twice, set, ops);
            all.push(cur);
        }
    }
    let affine = Projective::normalize_batch(&all);
    affine.chunks(per).map(|c| c.to_vec()).collect()
}

/// Interleaved wNAF: `sum_i k_i * P_i` for digit lists sharing the doublings.
fn interleaved<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    digits: &[&Recoding],
    tables: &[Vec<Affine<P>>],
    set: FormulaSet,
    ops: &mut O,
) -> Projective<P> {
    let top = digits
        .iter()
        .filter_map(|r| r.digits().first().map(|d| d.1))
        .max();
    let Some(top) = top else {
        return Projective::zero();
    };
    let mut next: Vec<usize> = vec![0; digits.len()];
    let mut acc = Projective::<P>::zero();
    let mut pos = top as i64;
    while pos >= 0 {
        if !acc.z.is_zero() {
            double(&mut acc, set, ops);
        }
        for (i, r) in digits.iter().enumerate() {
            if let Some(&(d, e)) = r.digits().get(next[i]) {
                if e as i64 == pos {
                    let pt = tables[i][(d.unsigned_abs() / 2) as usize];
                    let pt = if d < 0 { -pt } else { pt };
                    add_affine(&mut acc, &pt, set, ops);
                    next[i] += 1;
                }
            }
        }
        pos -= 1;
    }
    acc
}

/// `k * P` by width-`w` NAF (`2 <= w <= 16`; `k` as little-endian limbs).
pub fn wnaf_mul<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    base: &Projective<P>,
    k: &[u64],
    w: u32,
    set: FormulaSet,
    ops: &mut O,
) -> Result<Projective<P>, zkaccel_dbc::DbcError> {
    let rec = Recoding::wnaf(k, w)?;
    if rec.digits().is_empty() || base.z.is_zero() {
        return Ok(Projective::zero());
    }
    let tables = odd_multiples(&[*base], w, set, ops);
    Ok(interleaved(&[&rec], &tables, set, ops))
}

/// `k * P` for `P` in the prime-order subgroup, by the GLV split and
/// interleaved width-`w` NAF on the two half-size scalars.
pub fn glv_mul<P: GLVConfig, O: FieldOps<P::BaseField>>(
    base: &Projective<P>,
    k: P::ScalarField,
    w: u32,
    set: FormulaSet,
    ops: &mut O,
) -> Projective<P> {
    if k.is_zero() || base.z.is_zero() {
        return Projective::zero();
    }
    let ((s1, k1), (s2, k2)) = P::scalar_decomposition(k);
    let b1 = if s1 { *base } else { -*base };
    let e = P::endomorphism(base);
    let b2 = if s2 { e } else { -e };
    let r1 = Recoding::wnaf(k1.into_bigint().as_ref(), w).expect("w is in range");
    let r2 = Recoding::wnaf(k2.into_bigint().as_ref(), w).expect("w is in range");
    let tables = odd_multiples(&[b1, b2], w, set, ops);
    interleaved(&[&r1, &r2], &tables, set, ops)
}

/// The affine form of `p` (one inversion unless `Z = 1`).
pub(crate) fn to_affine<P: SWCurveConfig>(p: &Projective<P>) -> Affine<P> {
    p.into_affine()
}
