// Montgomery arithmetic in a prime field, on N 32-bit limbs (little-endian),
// for moduli with at least two spare top bits (p < 2^(32N - 2), true of BN254
// Fq and Fr). Values are kept fully reduced in [0, p) and in Montgomery form
// x * R mod p with R = 2^(32N): the very integers arkworks stores in its
// 64-bit limbs, so data crosses between Rust and the kernels by reinterpreting
// limbs, with no conversion.
//
// `P` supplies N, INV (= -p^-1 mod 2^32) and the limbs of the modulus and of
// R mod p as `modulus(i)` and `one(i)` (constexpr functions: after unrolling
// every index is a constant and the limbs become immediates).
#pragma once

#include "../util/ptx.cuh"

namespace zk {

template <class P>
struct fp_t {
    static constexpr int N = P::N;
    uint32_t l[N];

    ZK_HD static fp_t zero() {
        fp_t r;
        ZK_UNROLL
        for (int i = 0; i < N; i++) r.l[i] = 0;
        return r;
    }

    /// R mod p: one in Montgomery form.
    ZK_HD static fp_t one() {
        fp_t r;
        ZK_UNROLL
        for (int i = 0; i < N; i++) r.l[i] = P::one(i);
        return r;
    }

    ZK_HD bool is_zero() const {
        uint32_t acc = 0;
        ZK_UNROLL
        for (int i = 0; i < N; i++) acc |= l[i];
        return acc == 0;
    }

    ZK_HD bool operator==(const fp_t& o) const {
        uint32_t acc = 0;
        ZK_UNROLL
        for (int i = 0; i < N; i++) acc |= l[i] ^ o.l[i];
        return acc == 0;
    }
    ZK_HD bool operator!=(const fp_t& o) const { return !(*this == o); }

    /// r = x - p if x >= p, else x (x < 2p, fits in N limbs).
    ZK_HD static fp_t reduce_once(const fp_t& x) {
        fp_t t;
        t.l[0] = ptx::sub_cc(x.l[0], P::modulus(0));
        ZK_UNROLL
        for (int i = 1; i < N; i++) t.l[i] = ptx::subc_cc(x.l[i], P::modulus(i));
        uint32_t borrow = ptx::subc(0, 0);  // 0 or 0xffffffff
        fp_t r;
        ZK_UNROLL
        for (int i = 0; i < N; i++) r.l[i] = (x.l[i] & borrow) | (t.l[i] & ~borrow);
        return r;
    }

    ZK_HD fp_t operator+(const fp_t& b) const {
        fp_t s;
        s.l[0] = ptx::add_cc(l[0], b.l[0]);
        ZK_UNROLL
        for (int i = 1; i < N; i++) s.l[i] = ptx::addc_cc(l[i], b.l[i]);
        // p < 2^(32N-2): the sum fits in N limbs, no carry out.
        return reduce_once(s);
    }

    ZK_HD fp_t operator-(const fp_t& b) const {
        fp_t d;
        d.l[0] = ptx::sub_cc(l[0], b.l[0]);
        ZK_UNROLL
        for (int i = 1; i < N; i++) d.l[i] = ptx::subc_cc(l[i], b.l[i]);
        uint32_t borrow = ptx::subc(0, 0);  // all ones if a < b: add p back
        fp_t r;
        r.l[0] = ptx::add_cc(d.l[0], P::modulus(0) & borrow);
        ZK_UNROLL
        for (int i = 1; i < N - 1; i++) r.l[i] = ptx::addc_cc(d.l[i], P::modulus(i) & borrow);
        r.l[N - 1] = ptx::addc(d.l[N - 1], P::modulus(N - 1) & borrow);
        return r;
    }

    ZK_HD fp_t dbl() const { return *this + *this; }

    ZK_HD fp_t neg() const { return zero() - *this; }

    /// Montgomery product a * b / R mod p (CIOS: per limb of b, add a * b_i in
    /// two carry chains, low halves then high halves; then add m * p with
    /// m = t_0 * INV mod 2^32 in the same way and drop the zero low limb).
    /// With p < R/4 every intermediate t stays below 2p.
    ZK_HD fp_t operator*(const fp_t& b) const {
        uint32_t t[N + 2];
        ZK_UNROLL
        for (int j = 0; j < N + 2; j++) t[j] = 0;
        ZK_UNROLL
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.l[i];
            // t += lo(a * bi)
            t[0] = ptx::mad_lo_cc(l[0], bi, t[0]);
            ZK_UNROLL
            for (int j = 1; j < N; j++) t[j] = ptx::madc_lo_cc(l[j], bi, t[j]);
            t[N] = ptx::addc_cc(t[N], 0);
            t[N + 1] = ptx::addc(0, 0);
            // t += hi(a * bi) << 32
            t[1] = ptx::mad_hi_cc(l[0], bi, t[1]);
            ZK_UNROLL
            for (int j = 1; j < N; j++) t[j + 1] = ptx::madc_hi_cc(l[j], bi, t[j + 1]);
            t[N + 1] = ptx::addc(t[N + 1], 0);
            // t += m * p, which zeroes t[0]
            const uint32_t m = t[0] * P::INV;
            t[0] = ptx::mad_lo_cc(m, P::modulus(0), t[0]);
            ZK_UNROLL
            for (int j = 1; j < N; j++) t[j] = ptx::madc_lo_cc(m, P::modulus(j), t[j]);
            t[N] = ptx::addc_cc(t[N], 0);
            t[N + 1] = ptx::addc(t[N + 1], 0);
            t[1] = ptx::mad_hi_cc(m, P::modulus(0), t[1]);
            ZK_UNROLL
            for (int j = 1; j < N; j++) t[j + 1] = ptx::madc_hi_cc(m, P::modulus(j), t[j + 1]);
            t[N + 1] = ptx::addc(t[N + 1], 0);
            // t /= 2^32
            ZK_UNROLL
            for (int j = 0; j < N + 1; j++) t[j] = t[j + 1];
            t[N + 1] = 0;
        }
        fp_t r;
        ZK_UNROLL
        for (int j = 0; j < N; j++) r.l[j] = t[j];
        return reduce_once(r);
    }

    ZK_HD fp_t sqr() const { return *this * *this; }

    /// x / R mod p: the integer a Montgomery-form value stands for.
    ZK_HD fp_t from_montgomery() const {
        fp_t one_int = zero();
        one_int.l[0] = 1;
        return *this * one_int;
    }
};

}  // namespace zk
