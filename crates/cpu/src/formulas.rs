//! Jacobian point formulas: doubling, tripling, mixed and full addition.
//!
//! Points are arkworks' `Projective<P>`, which is Jacobian (`x = X/Z^2`,
//! `y = Y/Z^3`, infinity at `Z = 0`). Each formula exists for `a = 0` (BN254,
//! BLS12-381, secp256k1), `a = -3` (NIST curves) and any `a`, selected by
//! [`FormulaSet`]; costs are in field multiplications M and squarings S, from
//! the Explicit-Formulas Database (EFD, hyperelliptic.org/EFD, "g1p/shortw-jacobian"),
//! with multiplications by small constants done as additions (not counted).
//! A multiplication by a generic `a` is counted as one M.
//!
//! | formula | a = 0 | a = -3 | any a |
//! |---|---|---|---|
//! | doubling | dbl-2009-l: 2M + 5S | dbl-2001-b: 3M + 5S | dbl-2007-bl: 2M + 8S (1M is the `a` product) |
//! | tripling | tpl-2007-bl, `a = 0`: 5M + 9S | tpl-2007-bl with `3(X-ZZ)(X+ZZ)`: 6M + 9S | tpl-2007-bl: 6M + 10S |
//! | mixed addition (`Z2 = 1`) | madd-2007-bl: 7M + 4S | same | same |
//! | addition | add-2007-bl: 11M + 5S | same | same |
//!
//! Every field multiplication and squaring goes through a [`FieldOps`]
//! ([`crate::FieldOps`]), so the same code runs plain
//! ([`Plain`](crate::Plain), compiled away), on zkaccel-ff's kernels, or
//! counted ([`Counting`](crate::Counting)), and tests can check a scalar
//! multiplication's exact cost.
//! Exceptional inputs are handled: infinity on either side, `P + P` (falls
//! back to doubling) and `P + (-P)` (infinity).

use crate::field_ops::FieldOps;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, Field, Zero};

/// Which family of formulas to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormulaSet {
    /// Formulas for `a = 0`.
    AZero,
    /// Formulas for `a = -3`.
    AMinus3,
    /// Formulas valid for any `a` (what OpenSSL uses for a generic curve).
    Generic,
}

impl FormulaSet {
    /// The fastest set that is valid for the curve `P`.
    pub fn for_curve<P: SWCurveConfig>() -> FormulaSet {
        if P::COEFF_A.is_zero() {
            FormulaSet::AZero
        } else if P::COEFF_A == -P::BaseField::from(3u64) {
            FormulaSet::AMinus3
        } else {
            FormulaSet::Generic
        }
    }

    /// Whether this set computes correct results on the curve `P`.
    pub fn is_valid_for<P: SWCurveConfig>(self) -> bool {
        match self {
            FormulaSet::Generic => true,
            s => s == FormulaSet::for_curve::<P>(),
        }
    }

    /// `(M, S)` of one doubling.
    pub const fn double_cost(self) -> (u64, u64) {
        match self {
            FormulaSet::AZero => (2, 5),
            FormulaSet::AMinus3 => (3, 5),
            FormulaSet::Generic => (2, 8),
        }
    }

    /// `(M, S)` of one tripling.
    pub const fn triple_cost(self) -> (u64, u64) {
        match self {
            FormulaSet::AZero => (5, 9),
            FormulaSet::AMinus3 => (6, 9),
            FormulaSet::Generic => (6, 10),
        }
    }

    /// `(M, S)` of one mixed addition.
    pub const fn madd_cost(self) -> (u64, u64) {
        (7, 4)
    }

    /// `(M, S)` of one full addition.
    pub const fn add_cost(self) -> (u64, u64) {
        (11, 5)
    }

    /// The chain cost model of these formulas with `S = s_over_m * M`
    /// (D, T and A = mixed addition), for the double-base chain searches.
    pub fn cost_model(self, s_over_m: f64) -> zkaccel_dbc::CostModel {
        let c = |(m, s): (u64, u64)| m as f64 + s as f64 * s_over_m;
        zkaccel_dbc::CostModel {
            double: c(self.double_cost()),
            triple: c(self.triple_cost()),
            add: c(self.madd_cost()),
        }
    }
}

/// `2 x`, by addition.
#[inline(always)]
fn dbl_f<F: Field>(x: &F) -> F {
    x.double()
}

/// `p <- 2p`.
#[inline]
pub fn double<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if p.z.is_zero() {
        return;
    }
    match set {
        FormulaSet::AZero => {
            // dbl-2009-l
            let a = ops.sqr(&p.x);
            let b = ops.sqr(&p.y);
            let c = ops.sqr(&b);
            let xb = p.x + b;
            let d = dbl_f(&(ops.sqr(&xb) - a - c));
            let e = a.double() + a;
            let f = ops.sqr(&e);
            let z3 = dbl_f(&ops.mul(&p.y, &p.z));
            let x3 = f - d.double();
            let c8 = c.double().double().double();
            let y3 = ops.mul(&e, &(d - x3)) - c8;
            (p.x, p.y, p.z) = (x3, y3, z3);
        }
        FormulaSet::AMinus3 => {
            // dbl-2001-b
            let delta = ops.sqr(&p.z);
            let gamma = ops.sqr(&p.y);
            let beta = ops.mul(&p.x, &gamma);
            let t = ops.mul(&(p.x - delta), &(p.x + delta));
            let alpha = t.double() + t;
            let beta4 = beta.double().double();
            let x3 = ops.sqr(&alpha) - beta4.double();
            let yz = p.y + p.z;
            let z3 = ops.sqr(&yz) - gamma - delta;
            let g2 = ops.sqr(&gamma);
            let y3 = ops.mul(&alpha, &(beta4 - x3)) - g2.double().double().double();
            (p.x, p.y, p.z) = (x3, y3, z3);
        }
        FormulaSet::Generic => {
            // dbl-2007-bl
            let xx = ops.sqr(&p.x);
            let yy = ops.sqr(&p.y);
            let yyyy = ops.sqr(&yy);
            let zz = ops.sqr(&p.z);
            let xyy = p.x + yy;
            let s = dbl_f(&(ops.sqr(&xyy) - xx - yyyy));
            let zz2 = ops.sqr(&zz);
            let m = xx.double() + xx + ops.mul(&P::COEFF_A, &zz2);
            let t = ops.sqr(&m) - s.double();
            let y3 = ops.mul(&m, &(s - t)) - yyyy.double().double().double();
            let yz = p.y + p.z;
            let z3 = ops.sqr(&yz) - yy - zz;
            (p.x, p.y, p.z) = (t, y3, z3);
        }
    }
}

/// `p <- 3p` (tpl-2007-bl; the `a` term as in the table above).
#[inline]
pub fn triple<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if p.z.is_zero() {
        return;
    }
    let xx = ops.sqr(&p.x);
    let yy = ops.sqr(&p.y);
    let zz = ops.sqr(&p.z);
    let yyyy = ops.sqr(&yy);
    let m = match set {
        FormulaSet::AZero => xx.double() + xx,
        FormulaSet::AMinus3 => {
            let t = ops.mul(&(p.x - zz), &(p.x + zz));
            t.double() + t
        }
        FormulaSet::Generic => {
            let zz2 = ops.sqr(&zz);
            xx.double() + xx + ops.mul(&P::COEFF_A, &zz2)
        }
    };
    let mm = ops.sqr(&m);
    let xyy = p.x + yy;
    let t6 = ops.sqr(&xyy) - xx - yyyy;
    let e = t6.double().double() + t6.double() - mm;
    let ee = ops.sqr(&e);
    let t = yyyy.double().double().double().double();
    let me = m + e;
    let u = ops.sqr(&me) - mm - ee - t;
    let x_ee = ops.mul(&p.x, &ee);
    let yy_u = ops.mul(&yy, &u);
    let x3 = (x_ee - yy_u.double().double()).double().double();
    let inner = ops.mul(&u, &(t - u)) - ops.mul(&e, &ee);
    let y3 = ops.mul(&p.y, &inner).double().double().double();
    let ze = p.z + e;
    let z3 = ops.sqr(&ze) - zz - ee;
    (p.x, p.y, p.z) = (x3, y3, z3);
}

/// What [`madd_finite`] did.
pub(crate) enum Madd<F> {
    /// `p` now holds the sum; its new `Z` is the old one times this factor (`2H`).
    Added(F),
    /// `p = q`: nothing changed, the caller doubles.
    Same,
    /// `p = -q`: nothing changed, the sum is infinity.
    Opposite,
}

/// madd-2007-bl for finite `p` and the affine point `(qx, qy)` (7M + 4S when
/// the x-coordinates differ). Shared by [`add_affine`] and the inversion-free
/// tables, which need the `Z` ratio.
#[inline]
pub(crate) fn madd_finite<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    qx: &P::BaseField,
    qy: &P::BaseField,
    ops: &mut O,
) -> Madd<P::BaseField> {
    let z1z1 = ops.sqr(&p.z);
    let u2 = ops.mul(qx, &z1z1);
    let yz = ops.mul(qy, &p.z);
    let s2 = ops.mul(&yz, &z1z1);
    let h = u2 - p.x;
    let r = dbl_f(&(s2 - p.y));
    if h.is_zero() {
        return if r.is_zero() {
            Madd::Same
        } else {
            Madd::Opposite
        };
    }
    let hh = ops.sqr(&h);
    let i = hh.double().double();
    let j = ops.mul(&h, &i);
    let v = ops.mul(&p.x, &i);
    let x3 = ops.sqr(&r) - j - v.double();
    let y3 = ops.mul(&r, &(v - x3)) - ops.mul(&p.y, &j).double();
    let zh = p.z + h;
    let z3 = ops.sqr(&zh) - z1z1 - hh;
    (p.x, p.y, p.z) = (x3, y3, z3);
    Madd::Added(h.double())
}

/// `p <- p + q` with `q` affine (madd-2007-bl).
#[inline]
pub fn add_affine<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    q: &Affine<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if q.is_zero() {
        return;
    }
    if p.z.is_zero() {
        *p = Projective::new_unchecked(q.x, q.y, P::BaseField::ONE);
        return;
    }
    match madd_finite(p, &q.x, &q.y, ops) {
        Madd::Added(_) => {}
        Madd::Same => double(p, set, ops),
        Madd::Opposite => *p = Projective::zero(),
    }
}

/// `p <- p + q` (add-2007-bl).
#[inline]
pub fn add<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    q: &Projective<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if q.z.is_zero() {
        return;
    }
    if p.z.is_zero() {
        *p = *q;
        return;
    }
    let z1z1 = ops.sqr(&p.z);
    let z2z2 = ops.sqr(&q.z);
    let u1 = ops.mul(&p.x, &z2z2);
    let u2 = ops.mul(&q.x, &z1z1);
    let yz1 = ops.mul(&p.y, &q.z);
    let s1 = ops.mul(&yz1, &z2z2);
    let yz2 = ops.mul(&q.y, &p.z);
    let s2 = ops.mul(&yz2, &z1z1);
    let h = u2 - u1;
    let r = dbl_f(&(s2 - s1));
    if h.is_zero() {
        if r.is_zero() {
            double(p, set, ops);
        } else {
            *p = Projective::zero();
        }
        return;
    }
    let h2 = h.double();
    let i = ops.sqr(&h2);
    let j = ops.mul(&h, &i);
    let v = ops.mul(&u1, &i);
    let x3 = ops.sqr(&r) - j - v.double();
    let y3 = ops.mul(&r, &(v - x3)) - ops.mul(&s1, &j).double();
    let zz = p.z + q.z;
    let zz2 = ops.sqr(&zz) - z1z1 - z2z2;
    let z3 = ops.mul(&zz2, &h);
    (p.x, p.y, p.z) = (x3, y3, z3);
}
