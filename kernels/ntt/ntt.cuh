// The NTT on the GPU: radix-2 Cooley-Tukey over BN254 Fr (Montgomery form),
// in four kinds of kernels:
//
//   zk_powers            thread i: base^i (square-and-multiply), for the
//                        twiddle table w^i (i < n/2) and the coset powers g^i
//   zk_ntt_bitrev        thread i: swaps i with its bit reversal
//   zk_ntt_block_stages  block b: the first k <= 8 stages of its 2^k
//                        contiguous elements, in shared memory (one
//                        __syncthreads per stage, no global traffic between)
//   zk_ntt_group_stages  block g: up to 8 later stages of a strided group
//                        of 2^k elements, in shared memory: large transforms
//                        split into independent 2^8-point sub-transforms,
//                        pass after pass (the four-step idea, in place, with
//                        no transpose: each element is one 32-byte sector)
//   zk_ntt_scale         thread i: x_i * powers_i * factor (coset and 1/n)
//   zk_quotient          thread i: (a_i b_i - c_i) / Z(g), Groth16's quotient
//
// Forward: (coset scaling), bit reversal, stages; inverse: the same with
// w^-1, then scaling by g^-i / n: exactly ark-poly's Radix2EvaluationDomain.
//
// Batches: the transform kernels run over a 2-D grid, blockIdx.y picking one
// vector of a batch stored back to back (batch_vector), so a batch of small
// transforms costs one launch per pass instead of one per pass and vector.
//
// The block kernels are written once for both sides (util/block.cuh).
#pragma once

#include "../ff/bn254.cuh"
#include "../util/block.cuh"

#define ZK_NTT_BLOCK_LOG 8  // shared-memory stages: blocks of 256 elements (8 KiB)

namespace zk {

/// Vector `y` of a batch of `n`-element vectors stored one after another
/// (blockIdx.y on the device, the host emulation's outer index).
ZK_HD bn254_fr* batch_vector(bn254_fr* data, uint32_t y, uint32_t n) {
    return data + (size_t)y * n;
}

/// Thread i: out[i] = base^i.
ZK_HD void powers_body(uint32_t i, bn254_fr* out, uint32_t count, bn254_fr base) {
    if (i >= count) return;
    bn254_fr acc = bn254_fr::one(), sq = base;
    for (uint32_t e = i; e != 0; e >>= 1) {
        if (e & 1) acc = acc * sq;
        sq = sq.sqr();
    }
    out[i] = acc;
}

ZK_HD uint32_t bit_reverse(uint32_t x, uint32_t log_n) {
    if (log_n == 0) return 0;
#ifdef __CUDA_ARCH__
    return __brev(x) >> (32 - log_n);
#else
    uint32_t r = 0;
    for (uint32_t b = 0; b < log_n; b++) r |= ((x >> b) & 1) << (log_n - 1 - b);
    return r;
#endif
}

/// Thread i: swaps data[i] and data[rev(i)] once (the smaller index does it).
ZK_HD void ntt_bitrev_body(uint32_t i, bn254_fr* data, uint32_t log_n) {
    if (i >= (1u << log_n)) return;
    uint32_t j = bit_reverse(i, log_n);
    if (i < j) {
        bn254_fr t = data[i];
        data[i] = data[j];
        data[j] = t;
    }
}

/// The butterfly of stage s (1-based) for butterfly index t, on `a`
/// (offsets relative to `a`); twiddles tw[j] = w^j for the full size 2^log_n.
ZK_HD void ntt_butterfly(bn254_fr* a, const bn254_fr* tw, uint32_t log_n, uint32_t s, uint32_t t) {
    uint32_t half = 1u << (s - 1);
    uint32_t k = t & (half - 1);
    uint32_t i = ((t >> (s - 1)) << s) + k;
    bn254_fr u = a[i];
    bn254_fr v = a[i + half] * tw[(size_t)k << (log_n - s)];
    a[i] = u + v;
    a[i + half] = u - v;
}

/// Block b: stages 1..k on elements [b 2^k, (b + 1) 2^k), in `sh` (2^k elements).
ZK_HD void ntt_block_stages_body(uint32_t b, bn254_fr* data, const bn254_fr* tw, uint32_t log_n,
                                 uint32_t k, bn254_fr* sh) {
    const uint32_t m = 1u << k;
    bn254_fr* d = data + (size_t)b * m;
    ZK_BLOCK_FOR(t, m) sh[t] = d[t];
    ZK_BLOCK_SYNC();
    for (uint32_t s = 1; s <= k; s++) {
        ZK_BLOCK_FOR(t, m / 2) ntt_butterfly(sh, tw, log_n, s, t);
        ZK_BLOCK_SYNC();
    }
    ZK_BLOCK_FOR(t, m) d[t] = sh[t];
}

/// Block `grp`: stages s0 + 1 .. s0 + k on its group of 2^k elements with
/// stride 2^s0 (column j = grp mod 2^s0 of the 2^(s0 + k)-element block
/// grp >> s0), in `sh` (2^k elements). Every butterfly of those stages pairs
/// two elements of one group, so the groups are independent sub-transforms:
/// after the contiguous first pass, a transform of 2^20 takes two such
/// passes (stages 9-16, 17-20) where one launch per stage took twelve. Each
/// element is one 32-byte sector, so the strided loads waste no bandwidth.
ZK_HD void ntt_group_stages_body(uint32_t grp, bn254_fr* data, const bn254_fr* tw,
                                 uint32_t log_n, uint32_t s0, uint32_t k, bn254_fr* sh) {
    const uint32_t m = 1u << k;
    const uint32_t j = grp & ((1u << s0) - 1);
    const size_t base = ((size_t)(grp >> s0) << (s0 + k)) | j;
    ZK_BLOCK_FOR(t, m) sh[t] = data[base + ((size_t)t << s0)];
    ZK_BLOCK_SYNC();
    for (uint32_t s = 1; s <= k; s++) {
        ZK_BLOCK_FOR(t, m / 2) {
            // the butterfly of global stage s0 + s whose first element is
            // local i: its index within the stage's half-block is j + (kk << s0)
            uint32_t half = 1u << (s - 1);
            uint32_t kk = t & (half - 1);
            uint32_t i = ((t >> (s - 1)) << s) + kk;
            bn254_fr u = sh[i];
            bn254_fr v = sh[i + half] * tw[(size_t)(j + (kk << s0)) << (log_n - s0 - s)];
            sh[i] = u + v;
            sh[i + half] = u - v;
        }
        ZK_BLOCK_SYNC();
    }
    ZK_BLOCK_FOR(t, m) data[base + ((size_t)t << s0)] = sh[t];
}

/// Thread i: data[i] = data[i] * powers[i] (if has_powers) * factor.
ZK_HD void ntt_scale_body(uint32_t i, bn254_fr* data, const bn254_fr* powers, uint32_t has_powers,
                          bn254_fr factor, uint32_t n) {
    if (i >= n) return;
    bn254_fr x = data[i];
    if (has_powers) x = x * powers[i];
    data[i] = x * factor;
}

/// Thread i: a[i] = (a[i] * b[i] - c[i]) * z_inv, with a, b, c the three
/// vectors of the batch `abc` (3n elements): the Groth16 quotient on the
/// coset, between the witness map's transforms (which stay on the device:
/// three uploads, one download, for seven transforms in three batches).
ZK_HD void quotient_body(uint32_t i, bn254_fr* abc, bn254_fr z_inv, uint32_t n) {
    if (i >= n) return;
    abc[i] = (abc[i] * abc[(size_t)n + i] - abc[2 * (size_t)n + i]) * z_inv;
}

}  // namespace zk
