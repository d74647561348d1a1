// Host emulation of the kernels in kernels/: the same __host__ __device__
// code, compiled by g++ (through the `cc` crate) with the carry-chain
// primitives of kernels/util/ptx.cuh emulated on a thread-local flag, and
// exposed to Rust (crates/cuda/src/emulation.rs) for the tests.
//
// Points cross as arrays of 32-bit limbs: affine 16 (x, y; (0, 0) is
// infinity), Jacobian 24 (X, Y, Z), XYZZ 32 (X, Y, ZZ, ZZZ), Montgomery form.
// Kernel launches run the kernel body for every (block, thread) of the
// blocks [block_begin, block_end) of a simulated grid.
#include <stddef.h>
#include <string.h>

#include "msm/dbc_msm.cuh"
#include "msm/bucket_msm.cuh"
#include "ntt/ntt.cuh"

using namespace zk;

namespace {

template <class T>
T load(const uint32_t* p) {
    T t;
    static_assert(sizeof(T) % 4 == 0, "limb types only");
    memcpy(&t, p, sizeof(T));
    return t;
}

template <class T>
void store(uint32_t* p, const T& t) {
    memcpy(p, &t, sizeof(T));
}

template <class F>
void field_op(uint32_t op, const uint32_t* a, const uint32_t* b, uint32_t* out) {
    F x = load<F>(a), y = load<F>(b), r;
    switch (op) {
        case 0: r = x + y; break;
        case 1: r = x - y; break;
        case 2: r = x.neg(); break;
        case 3: r = x.dbl(); break;
        case 4: r = x * y; break;
        case 5: r = x.sqr(); break;
        case 6: r = x.from_montgomery(); break;
        default: r = F::zero(); break;
    }
    store(out, r);
}

/// Records the terms a chain feeds to its sink.
struct record_sink {
    int32_t* out;
    uint32_t max;
    uint32_t len;
    void operator()(const dbc_term& t) {
        if (len < max) {
            out[3 * len] = t.sign;
            out[3 * len + 1] = (int32_t)t.a;
            out[3 * len + 2] = (int32_t)t.b;
        }
        len++;
    }
};

}  // namespace

static_assert(sizeof(bn254_fq) == 32, "8 limbs");
static_assert(sizeof(bn254_g1_affine) == 64, "x, y");
static_assert(sizeof(bn254_g1_jacobian) == 96, "X, Y, Z");
static_assert(sizeof(bn254_g1_xyzz) == 128, "X, Y, ZZ, ZZZ");

extern "C" {

/// sizeof(dbc_tables) and the offsets of its fields, for the layout test.
void zk_emu_tables_layout(uint64_t* out) {
    out[0] = sizeof(dbc_tables);
    out[1] = offsetof(dbc_tables, window);
    out[2] = offsetof(dbc_tables, pow3);
    out[3] = offsetof(dbc_tables, pow3_bits);
    out[4] = offsetof(dbc_tables, pow3_mant);
    out[5] = offsetof(dbc_tables, order);
}

/// field 0 = Fq, 1 = Fr; op 0 add, 1 sub, 2 neg, 3 dbl, 4 mul, 5 sqr, 6 from_montgomery.
void zk_emu_fp(uint32_t field, uint32_t op, const uint32_t* a, const uint32_t* b, uint32_t* out) {
    if (field == 0) {
        field_op<bn254_fq>(op, a, b, out);
    } else {
        field_op<bn254_fr>(op, a, b, out);
    }
}

/// Jacobian ops on BN254 G1: 0 dbl(p), 1 tpl(p), 2 p + q, 3 p + qa (affine), 4 -p,
/// 5 from_affine(qa).
void zk_emu_g1(uint32_t op, const uint32_t* p, const uint32_t* q, const uint32_t* qa,
               uint32_t* out) {
    bn254_g1_jacobian a = load<bn254_g1_jacobian>(p), b = load<bn254_g1_jacobian>(q), r;
    bn254_g1_affine c = load<bn254_g1_affine>(qa);
    switch (op) {
        case 0: r = a.dbl(); break;
        case 1: r = a.tpl(); break;
        case 2: r = a + b; break;
        case 3: r = a.add_affine(c); break;
        case 4: r = a.neg(); break;
        default: r = bn254_g1_jacobian::from_affine(c); break;
    }
    store(out, r);
}

/// XYZZ ops on BN254 G1 (p, q XYZZ; qa affine): 0 from_affine(qa), 1 dbl(p),
/// 2 p + qa, 3 p + q, 4 dbl_affine(qa) -> XYZZ out; 5 to_jacobian(p) -> Jacobian out.
void zk_emu_xyzz(uint32_t op, const uint32_t* p, const uint32_t* q, const uint32_t* qa,
                 uint32_t* out) {
    bn254_g1_xyzz a = load<bn254_g1_xyzz>(p), b = load<bn254_g1_xyzz>(q), r;
    bn254_g1_affine c = load<bn254_g1_affine>(qa);
    switch (op) {
        case 0: r = bn254_g1_xyzz::from_affine(c); break;
        case 1: r = a.dbl(); break;
        case 2: r = a.add_affine(c); break;
        case 3: r = a + b; break;
        case 4: r = bn254_g1_xyzz::dbl_affine(c); break;
        default: store(out, a.to_jacobian()); return;
    }
    store(out, r);
}

/// The chain a thread computes for the integer k (8 limbs): up to `max`
/// terms (sign, a, b) into `terms`, the full length into `len`; returns the
/// kind (0 none, 1 greedy DBC, 2 NAF).
uint32_t zk_emu_dbc_chain(const uint32_t* k, uint32_t delta, const dbc_tables* t, int32_t* terms,
                          uint32_t max, uint32_t* len) {
    dbc_uint n = dbc_uint::zero();
    for (int i = 0; i < 8; i++) n.w[i] = k[i];
    record_sink sink = {terms, max, 0};
    uint32_t kind = dbc_suboptimal(n, delta, *t, sink);
    *len = sink.len;
    return kind;
}

void zk_emu_fr_from_montgomery(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                               uint32_t* scalars, uint32_t n) {
    for (uint32_t b = block_begin; b < block_end; b++)
        for (uint32_t t = 0; t < block_dim; t++) fr_from_montgomery_body(b * block_dim + t, scalars, n);
}

void zk_emu_dbc_msm_terms(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                          const uint32_t* bases, const uint32_t* scalars, uint32_t* out,
                          uint32_t n, uint32_t delta, const dbc_tables* t) {
    for (uint32_t b = block_begin; b < block_end; b++)
        for (uint32_t th = 0; th < block_dim; th++)
            dbc_msm_terms_body(b * block_dim + th, (const bn254_g1_affine*)bases, scalars,
                               (bn254_g1_jacobian*)out, n, delta, t);
}

void zk_emu_reduce_pairs(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                         const uint32_t* in, uint32_t* out, uint32_t n) {
    for (uint32_t b = block_begin; b < block_end; b++)
        for (uint32_t t = 0; t < block_dim; t++)
            reduce_pairs_body(b * block_dim + t, (const bn254_g1_jacobian*)in,
                              (bn254_g1_jacobian*)out, n);
}

static_assert(sizeof(bucket_params) == 16, "layout shared with crates/cuda/src/bucket.rs");

#define ZK_EMU_GRID(body)                                       \
    for (uint32_t blk = block_begin; blk < block_end; blk++)    \
        for (uint32_t thr = 0; thr < block_dim; thr++) {        \
            uint32_t tid = blk * block_dim + thr;               \
            body;                                               \
        }

void zk_emu_scalar_bits(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                        const uint32_t* scalars, uint32_t* bits, uint32_t n) {
    ZK_EMU_GRID(scalar_bits_body(tid, scalars, bits, n))
}

void zk_emu_bucket_count(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                         const uint32_t* scalars, uint32_t* counts, bucket_params p) {
    ZK_EMU_GRID(bucket_count_body(tid, scalars, counts, p))
}

/// Blocks [block_begin, block_end) of zk_scan_tiles, each run whole with
/// its own shared-memory tile.
void zk_emu_scan_tiles(uint32_t block_begin, uint32_t block_end, const uint32_t* in,
                       uint32_t count, uint32_t* out, uint32_t len, uint32_t* tile_sums) {
    uint32_t sh[1 << ZK_SCAN_TILE_LOG];
    for (uint32_t b = block_begin; b < block_end; b++)
        scan_tiles_body(b, in, count, out, len, tile_sums, sh);
}

void zk_emu_scan_add(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                     uint32_t* out, const uint32_t* tile_offsets, uint32_t len) {
    ZK_EMU_GRID(scan_add_body(tid, out, tile_offsets, len))
}

void zk_emu_segment_count(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                          const uint32_t* offsets, uint32_t* nseg, uint32_t* widest, uint32_t m) {
    ZK_EMU_GRID(segment_count_body(tid, offsets, nseg, widest, m))
}

void zk_emu_segment_starts(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                           const uint32_t* offsets, const uint32_t* first, uint32_t* seg_start,
                           uint32_t m) {
    ZK_EMU_GRID(segment_starts_body(tid, offsets, first, seg_start, m))
}

void zk_emu_bucket_scatter(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                           const uint32_t* scalars, uint32_t* cursors, uint32_t* entries,
                           bucket_params p) {
    ZK_EMU_GRID(bucket_scatter_body(tid, scalars, cursors, entries, p))
}

void zk_emu_bucket_segments(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                            const uint32_t* bases, const uint32_t* entries,
                            const uint32_t* seg_start, uint32_t* seg_sums, uint32_t segments) {
    ZK_EMU_GRID(bucket_segments_body(tid, (const bn254_g1_affine*)bases, entries, seg_start,
                                     (bn254_g1_xyzz*)seg_sums, segments))
}

void zk_emu_bucket_collect(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                           const uint32_t* seg_sums, const uint32_t* bucket_seg,
                           uint32_t* buckets, uint32_t total_buckets) {
    ZK_EMU_GRID(bucket_collect_body(tid, (const bn254_g1_xyzz*)seg_sums, bucket_seg,
                                    (bn254_g1_xyzz*)buckets, total_buckets))
}

void zk_emu_window_reduce(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                          const uint32_t* buckets, uint32_t* out, bucket_params p,
                          uint32_t slices) {
    ZK_EMU_GRID(window_reduce_body(tid, (const bn254_g1_xyzz*)buckets, (bn254_g1_jacobian*)out,
                                   p, slices))
}

void zk_emu_powers(uint32_t block_begin, uint32_t block_end, uint32_t block_dim, uint32_t* out,
                   uint32_t count, const uint32_t* base) {
    bn254_fr base_value = load<bn254_fr>(base);
    ZK_EMU_GRID(powers_body(tid, (bn254_fr*)out, count, base_value))
}

// The NTT's transform kernels run over a 2-D grid (blockIdx.y = the
// vector of the batch); here block `blk` of the flattened range is block
// blk % grid_x of vector blk / grid_x.
#define ZK_EMU_BATCH_GRID(body)                                  \
    for (uint32_t blk = block_begin; blk < block_end; blk++) {   \
        uint32_t y = blk / grid_x, bx = blk % grid_x;            \
        for (uint32_t thr = 0; thr < block_dim; thr++) {         \
            uint32_t tid = bx * block_dim + thr;                 \
            body;                                                \
        }                                                        \
    }

void zk_emu_ntt_bitrev(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                       uint32_t grid_x, uint32_t* data, uint32_t log_n) {
    ZK_EMU_BATCH_GRID(
        ntt_bitrev_body(tid, batch_vector((bn254_fr*)data, y, 1u << log_n), log_n))
}

/// Blocks [block_begin, block_end) of zk_ntt_block_stages, each run whole
/// (all its threads, stage by stage) with its own shared-memory array.
void zk_emu_ntt_block_stages(uint32_t block_begin, uint32_t block_end, uint32_t grid_x,
                             uint32_t* data, const uint32_t* tw, uint32_t log_n, uint32_t k) {
    bn254_fr sh[1 << ZK_NTT_BLOCK_LOG];
    for (uint32_t b = block_begin; b < block_end; b++)
        ntt_block_stages_body(b % grid_x, batch_vector((bn254_fr*)data, b / grid_x, 1u << log_n),
                              (const bn254_fr*)tw, log_n, k, sh);
}

void zk_emu_ntt_group_stages(uint32_t block_begin, uint32_t block_end, uint32_t grid_x,
                             uint32_t* data, const uint32_t* tw, uint32_t log_n, uint32_t s0,
                             uint32_t k) {
    bn254_fr sh[1 << ZK_NTT_BLOCK_LOG];
    for (uint32_t b = block_begin; b < block_end; b++)
        ntt_group_stages_body(b % grid_x, batch_vector((bn254_fr*)data, b / grid_x, 1u << log_n),
                              (const bn254_fr*)tw, log_n, s0, k, sh);
}

void zk_emu_ntt_scale(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                      uint32_t grid_x, uint32_t* data, const uint32_t* powers,
                      uint32_t has_powers, const uint32_t* factor, uint32_t n) {
    bn254_fr f = load<bn254_fr>(factor);
    ZK_EMU_BATCH_GRID(ntt_scale_body(tid, batch_vector((bn254_fr*)data, y, n),
                                     (const bn254_fr*)powers, has_powers, f, n))
}

void zk_emu_quotient(uint32_t block_begin, uint32_t block_end, uint32_t block_dim,
                     uint32_t* abc, const uint32_t* z_inv, uint32_t n) {
    bn254_fr z = load<bn254_fr>(z_inv);
    ZK_EMU_GRID(quotient_body(tid, (bn254_fr*)abc, z, n))
}

}  // extern "C"
