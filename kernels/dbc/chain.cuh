// The per-thread double-base chain: the paper's Algorithm 3 (delta-suboptimal
// chain) as one GPU thread runs it, streaming the chosen chain's terms from
// the largest down, which is the order the scalar multiplication consumes
// them (Horner's rule), so no chain is ever stored.
//
// Pass 1 measures the candidates: the NAF, and Eom et al.'s greedy chain for
// each of the first `delta` admissible leading terms in the MinCost order
// (window `tables.window`). Pass 2 regenerates the cheapest one into the sink.
// This is zkaccel-dbc's `Dbc::suboptimal_with` step for step (same
// admissibility test, same 63-bit mantissa comparisons, same tie-breaks, same
// cost model), with one difference: where the greedy gets stuck,
// zkaccel-dbc finishes the chain with the exact DP, while a GPU thread drops
// that candidate (the NAF stays available). The host tests compare the two.
#pragma once

#include "tables.cuh"
#include "uint.cuh"

namespace zk {

typedef uint_t<ZK_DBC_LIMBS> dbc_uint;

/// Which chain a thread used.
enum dbc_kind : uint32_t { DBC_NONE = 0, DBC_GREEDY = 1, DBC_NAF = 2 };

/// A chain term sign * 2^a 3^b.
struct dbc_term {
    int32_t sign;  // +1 or -1
    uint32_t a;
    uint32_t b;
};

/// log2(9 / (7 sqrt 2)) and log2(16 sqrt 2 / 21): Eom et al.'s bounds B1, B2.
#define ZK_LOG2_B1_FACTOR (-0.13742992061529183)
#define ZK_LOG2_B2_FACTOR (0.1076825772212399)
#define ZK_LOG2_3 (1.5849625007211563)

/// The a for which 2^a 3^b lies in [B1, B2], or -1.
ZK_HD int32_t dbc_admissible_a(double log2n, uint32_t b) {
    double base = log2n - (double)b * ZK_LOG2_3;
    double lo = ceil(base + ZK_LOG2_B1_FACTOR);
    double hi = floor(base + ZK_LOG2_B2_FACTOR);
    return (lo == hi && lo >= 0.0) ? (int32_t)lo : -1;
}

ZK_HD double dbc_chain_cost(const dbc_tables& t, uint32_t terms, uint32_t a, uint32_t b) {
    if (terms == 0) return 0.0;
    return (double)(terms - 1) * t.cost_add + (double)a * t.cost_double +
           (double)b * t.cost_triple;
}

ZK_HD dbc_uint dbc_pow3(const dbc_tables& t, uint32_t b) {
    dbc_uint r;
    ZK_UNROLL
    for (int i = 0; i < ZK_DBC_LIMBS; i++) r.w[i] = t.pow3[b][i];
    return r;
}

/// Eom's step: the term 2^alpha 3^beta closest to the remainder r, with
/// lowest <= beta <= pb, alpha <= pa, (alpha, beta) != (pa, pb), strictly
/// closer to r than 0 is. Distances compare 63-bit mantissas aligned at r's
/// scale; the chosen term is then formed exactly and checked (term < 2r).
ZK_HD bool dbc_closest(const dbc_uint& r, uint32_t pa, uint32_t pb, uint32_t lowest,
                       const dbc_tables& t, uint32_t& alpha_out, uint32_t& beta_out,
                       dbc_uint& term_out) {
    const uint32_t rbits = r.bits();
    const uint64_t rm = r.mantissa();
    bool found = false;
    uint64_t best_d = 0;
    uint32_t best_a = 0, best_b = 0;
    for (int32_t beta = (int32_t)pb; beta >= (int32_t)lowest; beta--) {
        uint32_t amax;
        if ((uint32_t)beta == pb) {
            if (pa == 0) continue;
            amax = pa - 1;
        } else {
            amax = pa;
        }
        if (beta >= ZK_DBC_POW3) continue;
        const uint32_t pbits = t.pow3_bits[beta];
        const uint64_t pm = t.pow3_mant[beta];
        // value of a term with mantissa m and bit length e at r's scale
#define ZK_AT_SCALE(m, e)                                                          \
    ((e) > rbits ? ((m) << 1) : ((rbits - (e)) >= 64 ? 0ull : ((m) >> (rbits - (e)))))
        uint32_t alpha;
        uint64_t dist;
        if (pbits > rbits + 1) {
            continue;  // 3^beta > 2r: no alpha makes progress
        } else if (pbits == rbits + 1 || (pbits == rbits && pm > rm)) {
            alpha = 0;  // 3^beta alone overshoots r
            dist = ZK_AT_SCALE(pm, pbits) - rm;
        } else {
            uint32_t a0;
            uint64_t lo;
            if (pm > rm) {
                a0 = rbits - pbits - 1;
                lo = pm >> 1;
            } else {
                a0 = rbits - pbits;
                lo = pm;
            }
            if (a0 >= amax) {
                alpha = amax;
                dist = rm - ZK_AT_SCALE(pm, pbits + amax);
            } else {
                uint64_t dlo = rm - lo, dhi = 2 * lo - rm;
                if (dlo <= dhi) {
                    alpha = a0;
                    dist = dlo;
                } else {
                    alpha = a0 + 1;
                    dist = dhi;
                }
            }
        }
        // With alpha = 0 only powers of three remain below, which reach
        // exactly |r'| <= (3^beta - 1) / 2 (balanced ternary).
        if (alpha == 0 && beta > 0 && dist > ZK_AT_SCALE(pm, pbits) / 2) continue;
#undef ZK_AT_SCALE
        if (!found || dist < best_d) {
            found = true;
            best_d = dist;
            best_a = alpha;
            best_b = (uint32_t)beta;
        }
    }
    if (!found || best_d >= rm) return false;
    dbc_uint term = dbc_pow3(t, best_b).shl(best_a);
    if (term.cmp(r.shl(1)) >= 0) return false;
    alpha_out = best_a;
    beta_out = best_b;
    term_out = term;
    return true;
}

/// Eom's greedy chain of n with leading term 2^a 3^b, terms fed to `sink`
/// largest first (sink(term) for each). Returns the number of terms, or 0
/// if the greedy gets stuck (then the sink saw a prefix: run it with a
/// counting sink first).
template <class Sink>
ZK_HD uint32_t dbc_greedy(const dbc_uint& n, uint32_t a, uint32_t b, const dbc_tables& t,
                          Sink& sink) {
    dbc_uint lead = dbc_pow3(t, b).shl(a);
    dbc_term term = {1, a, b};
    sink(term);
    uint32_t len = 1;
    bool ge;
    dbc_uint r = n.abs_diff(lead, ge);
    int32_t sign = ge ? 1 : -1;
    uint32_t pa = a, pb = b;
    while (!r.is_zero()) {
        if (len >= ZK_DBC_MAX_TERMS) return 0;
        uint32_t lowest = pb > t.window ? pb - t.window : 0;
        uint32_t alpha, beta;
        dbc_uint value;
        bool ok = dbc_closest(r, pa, pb, lowest, t, alpha, beta, value);
        if (!ok && lowest > 0) ok = dbc_closest(r, pa, pb, 0, t, alpha, beta, value);
        if (!ok) return 0;
        term.sign = sign;
        term.a = alpha;
        term.b = beta;
        sink(term);
        len++;
        r = r.abs_diff(value, ge);
        if (!ge) sign = -sign;
        pa = alpha;
        pb = beta;
    }
    return len;
}

/// NAF masks of n: +2^i where plus has bit i, -2^i where minus has.
ZK_HD void dbc_naf_masks(const dbc_uint& n, dbc_uint& plus, dbc_uint& minus) {
    dbc_uint h = n.shr1();
    dbc_uint s = n.add(h);
    dbc_uint c;
    ZK_UNROLL
    for (int i = 0; i < ZK_DBC_LIMBS; i++) c.w[i] = h.w[i] ^ s.w[i];
    ZK_UNROLL
    for (int i = 0; i < ZK_DBC_LIMBS; i++) {
        plus.w[i] = s.w[i] & c.w[i];
        minus.w[i] = h.w[i] & c.w[i];
    }
}

ZK_HD uint32_t dbc_popcount(const dbc_uint& x) {
    uint32_t c = 0;
    for (int i = 0; i < ZK_DBC_LIMBS; i++) {
#ifdef __CUDA_ARCH__
        c += __popc(x.w[i]);
#else
        c += __builtin_popcount(x.w[i]);
#endif
    }
    return c;
}

/// Feeds the NAF of n to `sink`, largest term first; returns its weight.
template <class Sink>
ZK_HD uint32_t dbc_naf(const dbc_uint& n, Sink& sink) {
    dbc_uint plus, minus;
    dbc_naf_masks(n, plus, minus);
    uint32_t top = plus.bits();
    uint32_t len = 0;
    for (int32_t pos = (int32_t)top - 1; pos >= 0; pos--) {
        dbc_term term = {0, (uint32_t)pos, 0};
        if (plus.bit(pos)) {
            term.sign = 1;
        } else if (minus.bit(pos)) {
            term.sign = -1;
        } else {
            continue;
        }
        sink(term);
        len++;
    }
    return len;
}

/// A sink that only counts.
struct dbc_count_sink {
    ZK_HD void operator()(const dbc_term&) {}
};

/// Chooses n's delta-suboptimal chain and feeds it to `sink`. Returns the
/// kind (DBC_NONE for n = 0: the sink sees nothing).
template <class Sink>
ZK_HD dbc_kind dbc_suboptimal(const dbc_uint& n, uint32_t delta, const dbc_tables& t,
                              Sink& sink) {
    const uint32_t nbits = n.bits();
    if (nbits == 0) return DBC_NONE;
    dbc_uint plus, minus;
    dbc_naf_masks(n, plus, minus);
    double best_cost = dbc_chain_cost(t, dbc_popcount(plus) + dbc_popcount(minus),
                                      plus.bits() - 1, 0);
    bool have = false;
    uint32_t best_a = 0, best_b = 0;
    if (nbits <= ZK_DBC_MAX_BITS) {
        const double log2n = n.log2();
        dbc_count_sink count;
        uint32_t tried = 0;
        for (int i = 0; i < ZK_DBC_ORDER && tried < delta; i++) {
            uint32_t b = t.order[nbits][i];
            if (b == 0xffff) break;
            int32_t a = dbc_admissible_a(log2n, b);
            if (a < 0) continue;
            tried++;
            uint32_t len = dbc_greedy(n, (uint32_t)a, b, t, count);
            if (len == 0) continue;
            double cost = dbc_chain_cost(t, len, (uint32_t)a, b);
            if (cost < best_cost) {
                best_cost = cost;
                have = true;
                best_a = (uint32_t)a;
                best_b = b;
            }
        }
    }
    if (have) {
        dbc_greedy(n, best_a, best_b, t, sink);
        return DBC_GREEDY;
    }
    dbc_naf(n, sink);
    return DBC_NAF;
}

}  // namespace zk
