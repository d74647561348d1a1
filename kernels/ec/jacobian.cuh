// Short Weierstrass points y^2 = x^3 + b (a = 0) in Jacobian coordinates
// (x = X/Z^2, y = Y/Z^3, infinity at Z = 0), the representation arkworks'
// `Projective` uses, so results cross to Rust limb for limb.
//
// Formulas from the Explicit-Formulas Database (EFD, g1p/shortw-jacobian-0),
// costs in field multiplications M and squarings S:
//   dbl-2009-l    2M + 5S
//   tpl-2007-bl   5M + 9S   (a = 0: M = 3 X^2; the a = -3 variant of the
//                            paper authors' GPU code is wrong on BN254)
//   madd-2007-bl  7M + 4S   (second point affine)
//   add-2007-bl   11M + 5S
// Exceptional cases are handled: infinity on either side, P + P (doubles)
// and P + (-P) (infinity).
//
// `C` supplies `field` and `A_IS_ZERO`; these formulas refuse to compile for
// a curve with a != 0.
#pragma once

#include "../ff/mont.cuh"

namespace zk {

/// An affine point; (0, 0), which is on no curve y^2 = x^3 + b with b != 0,
/// encodes the point at infinity.
template <class C>
struct affine_t {
    typedef typename C::field F;
    F x, y;

    ZK_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

template <class C>
struct jacobian_t {
    typedef typename C::field F;
    static_assert(C::A_IS_ZERO, "these Jacobian formulas are for curves with a = 0");
    F x, y, z;

    ZK_HD static jacobian_t inf() {
        jacobian_t r;
        r.x = F::one();
        r.y = F::one();
        r.z = F::zero();
        return r;
    }

    ZK_HD static jacobian_t from_affine(const affine_t<C>& p) {
        if (p.is_inf()) return inf();
        jacobian_t r;
        r.x = p.x;
        r.y = p.y;
        r.z = F::one();
        return r;
    }

    ZK_HD bool is_inf() const { return z.is_zero(); }

    ZK_HD jacobian_t neg() const {
        jacobian_t r = *this;
        r.y = y.neg();
        return r;
    }

    /// dbl-2009-l: 2M + 5S.
    ZK_HD jacobian_t dbl() const {
        if (is_inf()) return *this;
        F a = x.sqr();
        F b = y.sqr();
        F c = b.sqr();
        F d = ((x + b).sqr() - a - c).dbl();
        F e = a.dbl() + a;
        F f = e.sqr();
        jacobian_t r;
        r.z = (y * z).dbl();
        r.x = f - d.dbl();
        r.y = e * (d - r.x) - c.dbl().dbl().dbl();
        return r;
    }

    /// tpl-2007-bl with a = 0: 5M + 9S.
    ZK_HD jacobian_t tpl() const {
        if (is_inf()) return *this;
        F xx = x.sqr();
        F yy = y.sqr();
        F zz = z.sqr();
        F yyyy = yy.sqr();
        F m = xx.dbl() + xx;
        F mm = m.sqr();
        F t6 = (x + yy).sqr() - xx - yyyy;
        F e = t6.dbl().dbl() + t6.dbl() - mm;
        F ee = e.sqr();
        F t = yyyy.dbl().dbl().dbl().dbl();
        F u = (m + e).sqr() - mm - ee - t;
        jacobian_t r;
        r.x = (x * ee - (yy * u).dbl().dbl()).dbl().dbl();
        r.y = (y * (u * (t - u) - e * ee)).dbl().dbl().dbl();
        r.z = (z + e).sqr() - zz - ee;
        return r;
    }

    /// madd-2007-bl: this + q with q affine, 7M + 4S.
    ZK_HD jacobian_t add_affine(const affine_t<C>& q) const {
        if (q.is_inf()) return *this;
        if (is_inf()) return from_affine(q);
        F z1z1 = z.sqr();
        F u2 = q.x * z1z1;
        F s2 = q.y * z * z1z1;
        F h = u2 - x;
        F rr = (s2 - y).dbl();
        if (h.is_zero()) {
            if (rr.is_zero()) return dbl();
            return inf();
        }
        F hh = h.sqr();
        F i = hh.dbl().dbl();
        F j = h * i;
        F v = x * i;
        jacobian_t r;
        r.x = rr.sqr() - j - v.dbl();
        r.y = rr * (v - r.x) - (y * j).dbl();
        r.z = (z + h).sqr() - z1z1 - hh;
        return r;
    }

    /// add-2007-bl: 11M + 5S.
    ZK_HD jacobian_t operator+(const jacobian_t& q) const {
        if (q.is_inf()) return *this;
        if (is_inf()) return q;
        F z1z1 = z.sqr();
        F z2z2 = q.z.sqr();
        F u1 = x * z2z2;
        F u2 = q.x * z1z1;
        F s1 = y * q.z * z2z2;
        F s2 = q.y * z * z1z1;
        F h = u2 - u1;
        F rr = (s2 - s1).dbl();
        if (h.is_zero()) {
            if (rr.is_zero()) return dbl();
            return inf();
        }
        F i = h.dbl().sqr();
        F j = h * i;
        F v = u1 * i;
        jacobian_t r;
        r.x = rr.sqr() - j - v.dbl();
        r.y = rr * (v - r.x) - (s1 * j).dbl();
        r.z = ((z + q.z).sqr() - z1z1 - z2z2) * h;
        return r;
    }
};

}  // namespace zk
