// The paper's GPU MSM (Section 4): one thread per term k_i P_i computes the
// delta-suboptimal double-base chain of k_i and runs the scalar
// multiplication it drives (from the leading term down: doublings and
// triplings, then +-P_i); then ceil(log2 m) rounds of pairwise additions sum
// the m products. Every term takes part in the sum: the host tests run it for
// every m up to 2^12, powers of two or not, and compare with arkworks.
//
// Kernel bodies are __host__ __device__ functions of the global thread index;
// kernels/zkaccel.cu wraps them as __global__ kernels, and the host emulation
// runs them over a simulated grid.
#pragma once

#include "../dbc/chain.cuh"
#include "../ec/bn254.cuh"

namespace zk {

/// Horner's rule over a chain streamed largest term first.
template <class C>
struct scalar_mul_sink {
    jacobian_t<C> acc;
    affine_t<C> base;
    affine_t<C> neg_base;
    uint32_t pa, pb;
    bool started;

    ZK_HD explicit scalar_mul_sink(const affine_t<C>& p) : base(p), neg_base(p), pa(0), pb(0), started(false) {
        neg_base.y = p.y.neg();
        acc = jacobian_t<C>::inf();
    }

    ZK_HD void operator()(const dbc_term& t) {
        if (started) {
            for (uint32_t i = t.a; i < pa; i++) acc = acc.dbl();
            for (uint32_t i = t.b; i < pb; i++) acc = acc.tpl();
            acc = acc.add_affine(t.sign > 0 ? base : neg_base);
        } else {
            acc = jacobian_t<C>::from_affine(t.sign > 0 ? base : neg_base);
            started = true;
        }
        pa = t.a;
        pb = t.b;
    }

    /// The last term's 2^a 3^b.
    ZK_HD jacobian_t<C> finish() {
        for (uint32_t i = 0; i < pa; i++) acc = acc.dbl();
        for (uint32_t i = 0; i < pb; i++) acc = acc.tpl();
        return acc;
    }
};

/// k * p for an integer k (little-endian 32-bit limbs, 8 of them).
template <class C>
ZK_HD jacobian_t<C> dbc_scalar_mul(const affine_t<C>& p, const uint32_t* k, uint32_t delta,
                                   const dbc_tables& t) {
    if (p.is_inf()) return jacobian_t<C>::inf();
    dbc_uint n = dbc_uint::zero();
    ZK_UNROLL
    for (int i = 0; i < 8; i++) n.w[i] = k[i];
    scalar_mul_sink<C> sink(p);
    if (dbc_suboptimal(n, delta, t, sink) == DBC_NONE) return jacobian_t<C>::inf();
    return sink.finish();
}

/// Thread i: out[i] = k_i P_i.
ZK_HD void dbc_msm_terms_body(uint32_t i, const bn254_g1_affine* bases, const uint32_t* scalars,
                              bn254_g1_jacobian* out, uint32_t n, uint32_t delta,
                              const dbc_tables* t) {
    if (i >= n) return;
    out[i] = dbc_scalar_mul<bn254_g1>(bases[i], scalars + 8 * (size_t)i, delta, *t);
}

/// Thread i: out[i] = in[2i] + in[2i + 1] (in[2i] alone when 2i + 1 = n).
/// `in` and `out` must not overlap.
ZK_HD void reduce_pairs_body(uint32_t i, const bn254_g1_jacobian* in, bn254_g1_jacobian* out,
                             uint32_t n) {
    uint32_t half = (n + 1) / 2;
    if (i >= half) return;
    uint32_t j = 2 * i;
    out[i] = j + 1 < n ? in[j] + in[j + 1] : in[j];
}

/// Thread i: scalar i (Fr in Montgomery form) becomes its integer, in place.
ZK_HD void fr_from_montgomery_body(uint32_t i, uint32_t* scalars, uint32_t n) {
    if (i >= n) return;
    bn254_fr x;
    ZK_UNROLL
    for (int j = 0; j < 8; j++) x.l[j] = scalars[8 * (size_t)i + j];
    x = x.from_montgomery();
    ZK_UNROLL
    for (int j = 0; j < 8; j++) scalars[8 * (size_t)i + j] = x.l[j];
}

}  // namespace zk
