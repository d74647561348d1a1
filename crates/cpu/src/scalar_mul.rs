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
//!
//! On `a = 0` curves the tables need no inversion at all (the technique of
//! libsecp256k1's `ecmult`): with `d = 2P` in Jacobian form, `d` is an affine
//! point of the isomorphic curve `y^2 = x^3 + b Z_d^6`; the odd multiples are
//! built there by mixed additions of `d`, brought to one common `Z` with the
//! ratios `Z_i / Z_(i-1) = 2H_i` (multiplications only), and are then affine
//! points of a further isomorphic curve, scaled by `U`. The whole loop runs
//! there (doubling and addition for `a = 0` never read `b`) and the result's
//! `Z` is multiplied by `U` at the end. For GLV the `φ(P)` table is
//! `(βx, y)` of the same entries, the endomorphism commuting with the scaling.

use crate::field_ops::FieldOps;
use crate::formulas::{add_affine, double, madd_finite, triple, FormulaSet, Madd};
use ark_ec::scalar_mul::glv::GLVConfig;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::CurveGroup;
use ark_ff::{Field, PrimeField, Zero};
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

/// For `a = 0` curves: `P, 3P, ..., (2m - 1)P` as affine points of the curve
/// isomorphic to `P`'s by the scaling `U` (returned), with no inversion; see
/// the module docs. `None` where a special case arises (`2P = 0`, or a small
/// multiple of `P` equal to `±2P`), for the caller's general path.
fn iso_odd_multiples<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &Projective<P>,
    m: usize,
    ops: &mut O,
) -> Option<(Vec<Affine<P>>, P::BaseField)> {
    let mut d = *p;
    double(&mut d, FormulaSet::AZero, ops);
    if d.z.is_zero() {
        return None;
    }
    let u2 = ops.sqr(&d.z);
    let u3 = ops.mul(&u2, &d.z);
    // P on the curve scaled by u = Z_d: (X u^2, Y u^3, Z).
    let mut cur = Projective::<P>::new_unchecked(ops.mul(&p.x, &u2), ops.mul(&p.y, &u3), p.z);
    let mut pts = Vec::with_capacity(m);
    let mut ratios = Vec::with_capacity(m);
    pts.push((cur.x, cur.y));
    for _ in 1..m {
        // d is affine there; keep each Z ratio for the rescaling below.
        match madd_finite(&mut cur, &d.x, &d.y, ops) {
            Madd::Added(ratio) => ratios.push(ratio),
            Madd::Same | Madd::Opposite => return None,
        }
        pts.push((cur.x, cur.y));
    }
    // Scale entry i by (Z_last / Z_i)^2 and ^3 so all share Z_last.
    let mut out = vec![Affine::identity(); m];
    out[m - 1] = Affine::new_unchecked(pts[m - 1].0, pts[m - 1].1);
    let mut ratio = P::BaseField::ONE;
    for i in (0..m - 1).rev() {
        ratio = ops.mul(&ratio, &ratios[i]);
        let r2 = ops.sqr(&ratio);
        let r3 = ops.mul(&r2, &ratio);
        out[i] = Affine::new_unchecked(ops.mul(&pts[i].0, &r2), ops.mul(&pts[i].1, &r3));
    }
    Some((out, ops.mul(&d.z, &cur.z)))
}

/// `acc` computed on the curve scaled by `u`, mapped back.
#[inline]
pub(crate) fn unscale<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    mut acc: Projective<P>,
    u: &P::BaseField,
    ops: &mut O,
) -> Projective<P> {
    if !acc.z.is_zero() {
        acc.z = ops.mul(&acc.z, u);
    }
    acc
}

/// Interleaved wNAF: `sum_i k_i * P_i` for digit lists sharing the doublings.
pub(crate) fn interleaved<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
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
    if set == FormulaSet::AZero {
        if let Some((table, u)) = iso_odd_multiples(base, 1 << (w - 2), ops) {
            let acc = interleaved(&[&rec], &[table], set, ops);
            return Ok(unscale(acc, &u, ops));
        }
    }
    let tables = odd_multiples(&[*base], w, set, ops);
    Ok(interleaved(&[&rec], &tables, set, ops))
}

/// `k * P` for `P` in the prime-order subgroup, by the GLV split and
/// interleaved width-`w` NAF on the two half-size scalars. `beta`, if given,
/// promises that `P::endomorphism` is `(x, y) -> (beta x, y)`, which lets
/// `a = 0` curves build both tables without an inversion.
pub fn glv_mul<P: GLVConfig, O: FieldOps<P::BaseField>>(
    base: &Projective<P>,
    k: P::ScalarField,
    w: u32,
    set: FormulaSet,
    beta: Option<P::BaseField>,
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
    if let (FormulaSet::AZero, Some(beta)) = (set, beta) {
        if let Some((t1, u)) = iso_odd_multiples(&b1, 1 << (w - 2), ops) {
            // φ(b1) = b2 when the signs agree, -b2 otherwise.
            let flip = s1 != s2;
            let t2: Vec<Affine<P>> = t1
                .iter()
                .map(|q| {
                    let e = Affine::new_unchecked(ops.mul(&q.x, &beta), q.y);
                    if flip {
                        -e
                    } else {
                        e
                    }
                })
                .collect();
            let acc = interleaved(&[&r1, &r2], &[t1, t2], set, ops);
            return unscale(acc, &u, ops);
        }
    }
    let tables = odd_multiples(&[b1, b2], w, set, ops);
    interleaved(&[&r1, &r2], &tables, set, ops)
}

/// The affine form of `p` (one inversion unless `Z = 1`).
pub(crate) fn to_affine<P: SWCurveConfig>(p: &Projective<P>) -> Affine<P> {
    p.into_affine()
}

/// One step of a joint double-base chain, in evaluation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum JointOp {
    Double,
    Triple,
    /// Add `u1 P + u2 Q`, `u_i` in {-1, 0, 1}, not both 0.
    Add(i8, i8),
}

/// Joint binary-ternary recoding of `(k1, k2)` (Adikari, Dimitrov, Imbert's
/// hybrid binary-ternary joint form, greedy right to left): halve when both
/// are even, divide by 3 when both are, else subtract the digit pair that makes
/// both even, preferring pairs that leave both divisible by 4, then by 3.
/// Returns the steps in evaluation (left-to-right) order; the halves must
/// fit in 126 bits (checked by the caller), so no step overflows.
fn joint_binary_ternary(mut k1: i128, mut k2: i128) -> Vec<JointOp> {
    let mut rev = Vec::with_capacity(200);
    while k1 != 0 || k2 != 0 {
        if k1 % 2 == 0 && k2 % 2 == 0 {
            rev.push(JointOp::Double);
            (k1, k2) = (k1 / 2, k2 / 2);
        } else if k1 % 3 == 0 && k2 % 3 == 0 {
            rev.push(JointOp::Triple);
            (k1, k2) = (k1 / 3, k2 / 3);
        } else {
            let choices = |k: i128| -> &'static [i8] {
                if k % 2 == 0 {
                    &[0]
                } else {
                    &[1, -1]
                }
            };
            let mut best = (0i32, 0i8, 0i8);
            let mut first = true;
            for &u1 in choices(k1) {
                for &u2 in choices(k2) {
                    let (a, b) = (k1 - u1 as i128, k2 - u2 as i128);
                    let score = 2 * i32::from(a % 4 == 0 && b % 4 == 0)
                        + i32::from(a % 3 == 0 && b % 3 == 0);
                    if first || score > best.0 {
                        best = (score, u1, u2);
                        first = false;
                    }
                }
            }
            rev.push(JointOp::Add(best.1, best.2));
            (k1, k2) = (k1 - best.1 as i128, k2 - best.2 as i128);
        }
    }
    rev.reverse();
    rev
}

/// `k * P` by the GLV split and a joint binary-ternary chain of the two
/// halves over the table `P, φ(P), P + φ(P), P - φ(P)`; `None` where it does
/// not apply (formulas other than `a = 0`, no `beta`, halves over 126 bits),
/// for the caller's other method.
pub fn glv_dbc_mul<P: GLVConfig, O: FieldOps<P::BaseField>>(
    base: &Projective<P>,
    k: P::ScalarField,
    set: FormulaSet,
    beta: Option<P::BaseField>,
    ops: &mut O,
) -> Option<Projective<P>> {
    let beta = beta?;
    if set != FormulaSet::AZero {
        return None;
    }
    if k.is_zero() || base.z.is_zero() {
        return Some(Projective::zero());
    }
    let ((s1, k1), (s2, k2)) = P::scalar_decomposition(k);
    let signed = |s: bool, x: P::ScalarField| -> Option<i128> {
        let b = x.into_bigint();
        let limbs = b.as_ref();
        if limbs.iter().skip(2).any(|&l| l != 0) || limbs.get(1).copied().unwrap_or(0) >> 62 != 0 {
            return None;
        }
        let v = limbs[0] as i128 | (limbs.get(1).copied().unwrap_or(0) as i128) << 64;
        Some(if s { v } else { -v })
    };
    let (k1, k2) = (signed(s1, k1)?, signed(s2, k2)?);
    let steps = joint_binary_ternary(k1, k2);
    // P = (X, Y) and Q = φ(P) = (βX, Y) are affine on the curve scaled by Z_P.
    // P ± Q by madd share Z = 2H (Q and -Q have the same x); scale P and Q to it.
    let (x, y) = (base.x, base.y);
    let qx = ops.mul(&x, &beta);
    let h = qx - x;
    if h.is_zero() {
        return None; // Q = ±P: not a point of the prime-order subgroup with λ ≠ ±1
    }
    let sum_with = |qy: P::BaseField, ops: &mut O| {
        let mut acc = Projective::<P>::new_unchecked(x, y, P::BaseField::ONE);
        add_affine(&mut acc, &Affine::new_unchecked(qx, qy), set, ops);
        acc
    };
    let plus = sum_with(y, ops);
    let minus = sum_with(-y, ops);
    if plus.z.is_zero() || minus.z.is_zero() || plus.z != minus.z {
        return None;
    }
    let z = plus.z;
    let z2 = ops.sqr(&z);
    let z3 = ops.mul(&z2, &z);
    let p_s = Affine::<P>::new_unchecked(ops.mul(&x, &z2), ops.mul(&y, &z3));
    let q_s = Affine::<P>::new_unchecked(ops.mul(&qx, &z2), p_s.y);
    let table = [
        p_s,
        q_s,
        Affine::new_unchecked(plus.x, plus.y),
        Affine::new_unchecked(minus.x, minus.y),
    ];
    let pick = |u1: i8, u2: i8| -> Affine<P> {
        match (u1, u2) {
            (1, 0) => table[0],
            (-1, 0) => -table[0],
            (0, 1) => table[1],
            (0, -1) => -table[1],
            (1, 1) => table[2],
            (-1, -1) => -table[2],
            (1, -1) => table[3],
            _ => -table[3], // (-1, 1)
        }
    };
    let mut acc = Projective::<P>::zero();
    for step in steps {
        match step {
            JointOp::Double => double(&mut acc, set, ops),
            JointOp::Triple => triple(&mut acc, set, ops),
            JointOp::Add(u1, u2) => add_affine(&mut acc, &pick(u1, u2), set, ops),
        }
    }
    // Back from the curve scaled by U = Z_P * Z.
    let u = ops.mul(&base.z, &z);
    Some(unscale(acc, &u, ops))
}
