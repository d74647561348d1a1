// Extended Jacobian "XYZZ" coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2,
// infinity at ZZ = 0), the bucket representation of GPU MSMs: a mixed
// addition costs 8M + 2S against Jacobian's 7M + 4S, but needs no
// squaring of Z and no special cases beyond P = Q and P = -Q.
//
// Formulas from the EFD (g1p/shortw-xyzz), a = 0:
//   madd-2008-s    8M + 2S   (second point affine)
//   mdbl-2008-s-1  2M + 3S   (doubling an affine point)
//   dbl-2008-s-1   6M + 4S
//   add-2008-s     12M + 2S
#pragma once

#include "jacobian.cuh"

namespace zk {

template <class C>
struct xyzz_t {
    typedef typename C::field F;
    static_assert(C::A_IS_ZERO, "these XYZZ formulas are for curves with a = 0");
    F x, y, zz, zzz;

    ZK_HD static xyzz_t inf() {
        xyzz_t r;
        r.x = F::one();
        r.y = F::one();
        r.zz = F::zero();
        r.zzz = F::zero();
        return r;
    }

    ZK_HD bool is_inf() const { return zz.is_zero(); }

    ZK_HD static xyzz_t from_affine(const affine_t<C>& p) {
        if (p.is_inf()) return inf();
        xyzz_t r;
        r.x = p.x;
        r.y = p.y;
        r.zz = F::one();
        r.zzz = F::one();
        return r;
    }

    /// dbl-2008-s-1: 6M + 4S.
    ZK_HD xyzz_t dbl() const {
        if (is_inf()) return *this;
        F u = y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = x * v;
        F xx = x.sqr();
        F m = xx.dbl() + xx;
        xyzz_t r;
        r.x = m.sqr() - s.dbl();
        r.y = m * (s - r.x) - w * y;
        r.zz = v * zz;
        r.zzz = w * zzz;
        return r;
    }

    /// mdbl-2008-s-1: 2 * q for affine q, 2M + 3S.
    ZK_HD static xyzz_t dbl_affine(const affine_t<C>& q) {
        if (q.is_inf()) return inf();
        F u = q.y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = q.x * v;
        F xx = q.x.sqr();
        F m = xx.dbl() + xx;
        xyzz_t r;
        r.x = m.sqr() - s.dbl();
        r.y = m * (s - r.x) - w * q.y;
        r.zz = v;
        r.zzz = w;
        return r;
    }

    /// madd-2008-s: this + q with q affine, 8M + 2S.
    ZK_HD xyzz_t add_affine(const affine_t<C>& q) const {
        if (q.is_inf()) return *this;
        if (is_inf()) return from_affine(q);
        F u2 = q.x * zz;
        F s2 = q.y * zzz;
        F p = u2 - x;
        F rr = s2 - y;
        if (p.is_zero()) {
            if (rr.is_zero()) return dbl_affine(q);
            return inf();
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F q2 = x * pp;
        xyzz_t r;
        r.x = rr.sqr() - ppp - q2.dbl();
        r.y = rr * (q2 - r.x) - y * ppp;
        r.zz = zz * pp;
        r.zzz = zzz * ppp;
        return r;
    }

    /// add-2008-s: 12M + 2S.
    ZK_HD xyzz_t operator+(const xyzz_t& q) const {
        if (q.is_inf()) return *this;
        if (is_inf()) return q;
        F u1 = x * q.zz;
        F u2 = q.x * zz;
        F s1 = y * q.zzz;
        F s2 = q.y * zzz;
        F p = u2 - u1;
        F rr = s2 - s1;
        if (p.is_zero()) {
            if (rr.is_zero()) return dbl();
            return inf();
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F q2 = u1 * pp;
        xyzz_t r;
        r.x = rr.sqr() - ppp - q2.dbl();
        r.y = rr * (q2 - r.x) - s1 * ppp;
        r.zz = zz * q.zz * pp;
        r.zzz = zzz * q.zzz * ppp;
        return r;
    }

    /// To Jacobian without an inversion: Z' = ZZ ZZZ, X' = X ZZ ZZZ^2,
    /// Y' = Y ZZ^3 ZZZ^2 (then X'/Z'^2 = X/ZZ and Y'/Z'^3 = Y/ZZZ).
    ZK_HD jacobian_t<C> to_jacobian() const {
        if (is_inf()) return jacobian_t<C>::inf();
        jacobian_t<C> r;
        F zzz2 = zzz.sqr();
        F zz2 = zz.sqr();
        r.z = zz * zzz;
        r.x = x * zz * zzz2;
        r.y = y * zz2 * zz * zzz2;
        return r;
    }
};

}  // namespace zk
