//! Extended Jacobian ("XYZZ") coordinates for bucket accumulation.
//!
//! A point is `(X, Y, ZZ, ZZZ)` with `x = X/ZZ`, `y = Y/ZZZ`, `ZZ^3 = ZZZ^2`;
//! infinity has `ZZ = 0`. Adding an affine point costs 8M + 2S (madd-2008-s)
//! against 7M + 4S in Jacobian, but the sum of two XYZZ points costs 12M + 2S
//! (add-2008-s) against 11M + 5S, and no formula needs a squaring of `Z`; this
//! is the representation bucket methods (Pippenger) accumulate in.
//! Sources: EFD, "g1p/shortw-xyzz". Costs for `a = 0`; a generic `a` adds
//! 1M + 1S to the doubling.

use crate::field_ops::FieldOps;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, Field, Zero};

/// A point in XYZZ coordinates.
pub struct Xyzz<P: SWCurveConfig> {
    /// `x * ZZ`.
    pub x: P::BaseField,
    /// `y * ZZZ`.
    pub y: P::BaseField,
    /// `Z^2` for some `Z` (zero at infinity).
    pub zz: P::BaseField,
    /// `Z^3`.
    pub zzz: P::BaseField,
}

// Written out: derives would demand `P: Copy` etc. of the config type.
impl<P: SWCurveConfig> Clone for Xyzz<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: SWCurveConfig> Copy for Xyzz<P> {}
impl<P: SWCurveConfig> PartialEq for Xyzz<P> {
    /// Coordinate-wise equality (not equality of the points represented).
    fn eq(&self, o: &Self) -> bool {
        (self.x, self.y, self.zz, self.zzz) == (o.x, o.y, o.zz, o.zzz)
    }
}
impl<P: SWCurveConfig> Eq for Xyzz<P> {}
impl<P: SWCurveConfig> core::fmt::Debug for Xyzz<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Xyzz({}, {}, {}, {})", self.x, self.y, self.zz, self.zzz)
    }
}

impl<P: SWCurveConfig> Xyzz<P> {
    /// The point at infinity.
    pub fn zero() -> Self {
        Xyzz {
            x: P::BaseField::ONE,
            y: P::BaseField::ONE,
            zz: P::BaseField::ZERO,
            zzz: P::BaseField::ZERO,
        }
    }

    /// Whether this is the point at infinity.
    pub fn is_zero(&self) -> bool {
        self.zz.is_zero()
    }

    /// The same point in Jacobian coordinates `(X ZZ, Y ZZZ, ZZ)` (2M).
    pub fn to_projective<O: FieldOps<P::BaseField>>(&self, ops: &mut O) -> Projective<P> {
        if self.is_zero() {
            return Projective::zero();
        }
        Projective::new_unchecked(
            ops.mul(&self.x, &self.zz),
            ops.mul(&self.y, &self.zzz),
            self.zz,
        )
    }

    /// `self <- 2 self` (dbl-2008-s-1; 6M + 3S for `a = 0`).
    pub fn double<O: FieldOps<P::BaseField>>(&mut self, ops: &mut O) {
        if ops.is_zero(&self.zz) {
            return;
        }
        let u = ops.double(&self.y);
        let v = ops.sqr(&u);
        let w = ops.mul(&u, &v);
        let s = ops.mul(&self.x, &v);
        let xx = ops.sqr(&self.x);
        let xx2 = ops.double(&xx);
        let mut m = ops.add(&xx2, &xx);
        if !P::COEFF_A.is_zero() {
            let zz2 = ops.sqr(&self.zz);
            let a_zz2 = ops.mul(&P::COEFF_A, &zz2);
            m = ops.add(&m, &a_zz2);
        }
        let m2 = ops.sqr(&m);
        let s2 = ops.double(&s);
        let x3 = ops.sub(&m2, &s2);
        let s_x3 = ops.sub(&s, &x3);
        let t = ops.mul(&m, &s_x3);
        let wy = ops.mul(&w, &self.y);
        let y3 = ops.sub(&t, &wy);
        self.zz = ops.mul(&v, &self.zz);
        self.zzz = ops.mul(&w, &self.zzz);
        self.x = x3;
        self.y = y3;
    }

    /// `self <- self + q`, `q` affine (madd-2008-s; 8M + 2S).
    pub fn add_affine<O: FieldOps<P::BaseField>>(&mut self, q: &Affine<P>, ops: &mut O) {
        if q.is_zero() {
            return;
        }
        if ops.is_zero(&self.zz) {
            *self = Xyzz {
                x: q.x,
                y: q.y,
                zz: P::BaseField::ONE,
                zzz: P::BaseField::ONE,
            };
            return;
        }
        let u2 = ops.mul(&q.x, &self.zz);
        let s2 = ops.mul(&q.y, &self.zzz);
        let (x1, y1) = (self.x, self.y);
        if let Some((pp, ppp)) = self.combine(&x1, &y1, &u2, &s2, ops) {
            self.zz = ops.mul(&self.zz, &pp);
            self.zzz = ops.mul(&self.zzz, &ppp);
        }
    }

    /// `self <- self + q` (add-2008-s; 12M + 2S).
    pub fn add<O: FieldOps<P::BaseField>>(&mut self, q: &Self, ops: &mut O) {
        if ops.is_zero(&q.zz) {
            return;
        }
        if ops.is_zero(&self.zz) {
            *self = *q;
            return;
        }
        let u1 = ops.mul(&self.x, &q.zz);
        let u2 = ops.mul(&q.x, &self.zz);
        let s1 = ops.mul(&self.y, &q.zzz);
        let s2 = ops.mul(&q.y, &self.zzz);
        if let Some((pp, ppp)) = self.combine(&u1, &s1, &u2, &s2, ops) {
            let zz = ops.mul(&self.zz, &q.zz);
            self.zz = ops.mul(&zz, &pp);
            let zzz = ops.mul(&self.zzz, &q.zzz);
            self.zzz = ops.mul(&zzz, &ppp);
        }
    }

    /// The part both additions share: from `U1, S1` (this point) and `U2, S2`
    /// (the other, on the same scale) set `X3, Y3` and return `(PP, PPP)` for
    /// the caller to scale `ZZ, ZZZ`; or handle `P + P` (doubling) and
    /// `P + (-P)` (infinity) and return `None`. 4M + 2S.
    fn combine<O: FieldOps<P::BaseField>>(
        &mut self,
        u1: &P::BaseField,
        s1: &P::BaseField,
        u2: &P::BaseField,
        s2: &P::BaseField,
        ops: &mut O,
    ) -> Option<(P::BaseField, P::BaseField)> {
        let p = ops.sub(u2, u1);
        let r = ops.sub(s2, s1);
        if ops.is_zero(&p) {
            if ops.is_zero(&r) {
                self.double(ops);
            } else {
                *self = Self::zero();
            }
            return None;
        }
        let pp = ops.sqr(&p);
        let ppp = ops.mul(&p, &pp);
        let q = ops.mul(u1, &pp);
        let rr = ops.sqr(&r);
        let q2 = ops.double(&q);
        let t = ops.sub(&rr, &ppp);
        let x3 = ops.sub(&t, &q2);
        let q_x3 = ops.sub(&q, &x3);
        let t = ops.mul(&r, &q_x3);
        let s1ppp = ops.mul(s1, &ppp);
        let y3 = ops.sub(&t, &s1ppp);
        self.x = x3;
        self.y = y3;
        Some((pp, ppp))
    }
}

impl<P: SWCurveConfig> From<Affine<P>> for Xyzz<P> {
    fn from(q: Affine<P>) -> Self {
        let mut out = Self::zero();
        out.add_affine(&q, &mut crate::Plain);
        out
    }
}
