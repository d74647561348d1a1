// Host emulation of the kernels: kernels/zkaccel.cu itself, its __global__
// entry points compiled by g++ (through the `cc` crate) as plain functions,
// with the CUDA built-ins they read (blockIdx, threadIdx, blockDim,
// gridDim) as thread-local variables, __shared__ arrays thread-local, and
// the carry-chain primitives of kernels/util/ptx.cuh emulated on a
// thread-local flag. crates/cuda/src/device/host.rs launches them by name
// with cuLaunchKernel's argument list (zk_emu_kernel, zk_emu_run), so the
// GPU and the host run one launch sequence (crates/cuda/src/pipeline.rs).
//
// The formula hooks (zk_emu_fp, zk_emu_g1, zk_emu_xyzz, zk_emu_dbc_chain)
// let the tests check one operation at a time. Points cross as arrays of
// 32-bit limbs: affine 16 (x, y; (0, 0) is infinity), Jacobian 24 (X, Y,
// Z), XYZZ 32 (X, Y, ZZ, ZZZ), Montgomery form.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <utility>

struct zk_dim3 {
    uint32_t x, y, z;
};
static thread_local zk_dim3 blockIdx, threadIdx, blockDim, gridDim;

#define __global__
#define __shared__ static thread_local

#include "zkaccel.cu"

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
static_assert(sizeof(bucket_params) == 16, "layout shared with crates/cuda/src/bucket.rs");

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

}  // extern "C"

namespace {

/// An argument of cuLaunchKernel's list: `p` points to its value.
template <class T>
T read_arg(void* p) {
    T v;
    memcpy(static_cast<void*>(&v), p, sizeof(T));
    return v;
}

template <class... A, size_t... I>
void invoke(void (*f)(A...), void** args, std::index_sequence<I...>) {
    f(read_arg<A>(args[I])...);
}

/// Calls the kernel `f` with the argument list `args`, its parameter types
/// deduced from `f` itself: the signature is written only in zkaccel.cu.
template <class... A>
void invoke(void (*f)(A...), void** args) {
    invoke(f, args, std::index_sequence_for<A...>{});
}

struct kernel_entry {
    const char* name;
    /// The kernel's threads share memory: the host runs each block whole
    /// (ZK_BLOCK_FOR loops over its threads), once.
    bool whole_block;
    void (*run)(void** args);
};

#define ZK_PER_THREAD(k) {#k, false, [](void** a) { invoke(k, a); }}
#define ZK_WHOLE_BLOCK(k) {#k, true, [](void** a) { invoke(k, a); }}

const kernel_entry kernels[] = {
    ZK_PER_THREAD(zk_fr_from_montgomery),
    ZK_PER_THREAD(zk_dbc_msm_terms),
    ZK_PER_THREAD(zk_reduce_pairs),
    ZK_PER_THREAD(zk_scalar_bits),
    ZK_PER_THREAD(zk_bucket_count),
    ZK_WHOLE_BLOCK(zk_scan_tiles),
    ZK_PER_THREAD(zk_scan_add),
    ZK_PER_THREAD(zk_segment_count),
    ZK_PER_THREAD(zk_segment_starts),
    ZK_PER_THREAD(zk_bucket_scatter),
    ZK_PER_THREAD(zk_bucket_segments),
    ZK_PER_THREAD(zk_bucket_collect),
    ZK_PER_THREAD(zk_window_reduce),
    ZK_PER_THREAD(zk_powers),
    ZK_PER_THREAD(zk_ntt_bitrev),
    ZK_WHOLE_BLOCK(zk_ntt_block_stages),
    ZK_WHOLE_BLOCK(zk_ntt_group_stages),
    ZK_PER_THREAD(zk_ntt_scale),
    ZK_PER_THREAD(zk_quotient),
    ZK_PER_THREAD(zk_fq_mul),
    ZK_PER_THREAD(zk_g1_add),
    ZK_PER_THREAD(zk_g1_dbl_tpl),
    ZK_PER_THREAD(zk_g1_xyzz_madd),
};

const int kernel_count = sizeof(kernels) / sizeof(kernels[0]);

}  // namespace

extern "C" {

/// The index of the kernel named `name` (`len` bytes), or -1.
int32_t zk_emu_kernel(const char* name, size_t len) {
    for (int i = 0; i < kernel_count; i++)
        if (strlen(kernels[i].name) == len && memcmp(kernels[i].name, name, len) == 0) return i;
    return -1;
}

/// Blocks [block_begin, block_end) of a grid_x * grid_y grid (block b is
/// (b % grid_x, b / grid_x)) of `block` threads, of kernel `kernel`.
void zk_emu_run(int32_t kernel, uint32_t block_begin, uint32_t block_end, uint32_t grid_x,
                uint32_t grid_y, uint32_t block, void** args) {
    const kernel_entry& k = kernels[kernel];
    gridDim = {grid_x, grid_y, 1};
    blockDim = {block, 1, 1};
    for (uint32_t b = block_begin; b < block_end; b++) {
        blockIdx = {b % grid_x, b / grid_x, 0};
        if (k.whole_block) {
            threadIdx = {0, 0, 0};
            k.run(args);
        } else {
            for (uint32_t t = 0; t < block; t++) {
                threadIdx = {t, 0, 0};
                k.run(args);
            }
        }
    }
}

}  // extern "C"
