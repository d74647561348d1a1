// The kernels zkaccel-cuda loads (compiled to PTX by crates/cuda/build.rs).
// Each is a thin wrapper of a __host__ __device__ body; the host emulation
// (crates/cuda/host/emulation.cpp) compiles this very file for the host and
// runs its entry points over a simulated grid. The Rust side of each
// signature is in crates/cuda/src/kernels.rs, in the same order.
#include "msm/dbc_msm.cuh"
#include "msm/bucket_msm.cuh"
#include "ntt/ntt.cuh"

using namespace zk;

#define ZK_TID (blockIdx.x * blockDim.x + threadIdx.x)

extern "C" __global__ void zk_fr_from_montgomery(uint32_t* scalars, uint32_t n) {
    fr_from_montgomery_body(ZK_TID, scalars, n);
}

extern "C" __global__ void zk_dbc_msm_terms(const bn254_g1_affine* __restrict__ bases,
                                            const uint32_t* __restrict__ scalars,
                                            bn254_g1_jacobian* __restrict__ out, uint32_t n,
                                            uint32_t delta, const dbc_tables* __restrict__ t) {
    dbc_msm_terms_body(ZK_TID, bases, scalars, out, n, delta, t);
}

extern "C" __global__ void zk_reduce_pairs(const bn254_g1_jacobian* __restrict__ in,
                                           bn254_g1_jacobian* __restrict__ out, uint32_t n) {
    reduce_pairs_body(ZK_TID, in, out, n);
}

// The bucket method (kernels/msm/bucket_msm.cuh): count, prefix sums and
// segments, scatter, segment sums, bucket sums, window reductions.
extern "C" __global__ void zk_scalar_bits(const uint32_t* __restrict__ scalars, uint32_t* bits,
                                          uint32_t n) {
    scalar_bits_body(ZK_TID, scalars, bits, n);
}

extern "C" __global__ void zk_bucket_count(const uint32_t* __restrict__ scalars,
                                           uint32_t* counts, bucket_params p) {
    bucket_count_body(ZK_TID, scalars, counts, p);
}

extern "C" __global__ void zk_scan_tiles(const uint32_t* __restrict__ in, uint32_t count,
                                         uint32_t* __restrict__ out, uint32_t len,
                                         uint32_t* __restrict__ tile_sums) {
    __shared__ uint32_t sh[1 << ZK_SCAN_TILE_LOG];
    scan_tiles_body(blockIdx.x, in, count, out, len, tile_sums, sh);
}

extern "C" __global__ void zk_scan_add(uint32_t* out, const uint32_t* __restrict__ tile_offsets,
                                       uint32_t len) {
    scan_add_body(ZK_TID, out, tile_offsets, len);
}

extern "C" __global__ void zk_segment_count(const uint32_t* __restrict__ offsets,
                                            uint32_t* __restrict__ nseg, uint32_t* widest,
                                            uint32_t m) {
    segment_count_body(ZK_TID, offsets, nseg, widest, m);
}

extern "C" __global__ void zk_segment_starts(const uint32_t* __restrict__ offsets,
                                             const uint32_t* __restrict__ first,
                                             uint32_t* __restrict__ seg_start, uint32_t m) {
    segment_starts_body(ZK_TID, offsets, first, seg_start, m);
}

extern "C" __global__ void zk_bucket_scatter(const uint32_t* __restrict__ scalars,
                                             uint32_t* cursors, uint32_t* __restrict__ entries,
                                             bucket_params p) {
    bucket_scatter_body(ZK_TID, scalars, cursors, entries, p);
}

extern "C" __global__ void zk_bucket_segments(const bn254_g1_affine* __restrict__ bases,
                                              const uint32_t* __restrict__ entries,
                                              const uint32_t* __restrict__ seg_start,
                                              bn254_g1_xyzz* __restrict__ seg_sums,
                                              uint32_t segments) {
    bucket_segments_body(ZK_TID, bases, entries, seg_start, seg_sums, segments);
}

extern "C" __global__ void zk_bucket_collect(const bn254_g1_xyzz* __restrict__ seg_sums,
                                             const uint32_t* __restrict__ bucket_seg,
                                             bn254_g1_xyzz* __restrict__ buckets,
                                             uint32_t total_buckets) {
    bucket_collect_body(ZK_TID, seg_sums, bucket_seg, buckets, total_buckets);
}

extern "C" __global__ void zk_window_reduce(const bn254_g1_xyzz* __restrict__ buckets,
                                            bn254_g1_jacobian* __restrict__ out, bucket_params p,
                                            uint32_t slices) {
    window_reduce_body(ZK_TID, buckets, out, p, slices);
}

// The NTT (kernels/ntt/ntt.cuh). The transform kernels take a batch of
// vectors of 2^log_n elements: blockIdx.y is the vector.
extern "C" __global__ void zk_powers(bn254_fr* out, uint32_t count, bn254_fr base) {
    powers_body(ZK_TID, out, count, base);
}

extern "C" __global__ void zk_ntt_bitrev(bn254_fr* data, uint32_t log_n) {
    ntt_bitrev_body(ZK_TID, batch_vector(data, blockIdx.y, 1u << log_n), log_n);
}

extern "C" __global__ void zk_ntt_block_stages(bn254_fr* data, const bn254_fr* __restrict__ tw,
                                               uint32_t log_n, uint32_t k) {
    __shared__ bn254_fr sh[1 << ZK_NTT_BLOCK_LOG];
    ntt_block_stages_body(blockIdx.x, batch_vector(data, blockIdx.y, 1u << log_n), tw, log_n,
                          k, sh);
}

extern "C" __global__ void zk_ntt_group_stages(bn254_fr* data, const bn254_fr* __restrict__ tw,
                                               uint32_t log_n, uint32_t s0, uint32_t k) {
    __shared__ bn254_fr sh[1 << ZK_NTT_BLOCK_LOG];
    ntt_group_stages_body(blockIdx.x, batch_vector(data, blockIdx.y, 1u << log_n), tw, log_n,
                          s0, k, sh);
}

extern "C" __global__ void zk_ntt_scale(bn254_fr* data, const bn254_fr* __restrict__ powers,
                                        uint32_t has_powers, bn254_fr factor, uint32_t n) {
    ntt_scale_body(ZK_TID, batch_vector(data, blockIdx.y, n), powers, has_powers, factor, n);
}

extern "C" __global__ void zk_quotient(bn254_fr* abc, bn254_fr z_inv, uint32_t n) {
    quotient_body(ZK_TID, abc, z_inv, n);
}

// Field and point kernels, one operation per thread: the GPU side of the
// tests that compare each formula with the CPU (and ptxas's register and
// spill report for the formulas alone).
extern "C" __global__ void zk_fq_mul(const bn254_fq* a, const bn254_fq* b, bn254_fq* out,
                                     uint32_t n) {
    uint32_t i = ZK_TID;
    if (i < n) out[i] = a[i] * b[i];
}

extern "C" __global__ void zk_g1_add(const bn254_g1_jacobian* a, const bn254_g1_jacobian* b,
                                     bn254_g1_jacobian* out, uint32_t n) {
    uint32_t i = ZK_TID;
    if (i < n) out[i] = a[i] + b[i];
}

extern "C" __global__ void zk_g1_dbl_tpl(const bn254_g1_jacobian* a, bn254_g1_jacobian* dbl,
                                         bn254_g1_jacobian* tpl, uint32_t n) {
    uint32_t i = ZK_TID;
    if (i < n) {
        dbl[i] = a[i].dbl();
        tpl[i] = a[i].tpl();
    }
}

extern "C" __global__ void zk_g1_xyzz_madd(const bn254_g1_xyzz* a, const bn254_g1_affine* b,
                                           bn254_g1_xyzz* out, uint32_t n) {
    uint32_t i = ZK_TID;
    if (i < n) out[i] = a[i].add_affine(b[i]);
}
