// The bucket method (Pippenger) on the GPU, the dense-input MSM of GPU
// libraries (sppark, ICICLE, cuZK), in kernels that each do one simple,
// parallel thing, so the host emulation can run and check every step:
//
//   1. zk_bucket_count    thread per scalar: signed base-2^c digits; one
//                         atomic increment per non-zero digit of the count
//                         of its bucket (window j, |digit|) -> counts.
//      zk_scan_*          exclusive prefix sum of counts -> offsets, cursors
//                         (util/scan.cuh).
//      zk_segment_count,  each bucket cut into segments of at most
//      zk_segment_starts  ZK_BUCKET_SEGMENT entries: per-bucket segment
//                         counts, their prefix sum, each bucket's segment
//                         bounds; only the segment total and the widest
//                         bucket come back to the host, which sizes buffers.
//   2. zk_bucket_scatter  thread per scalar: the same digits; each entry
//                         (point index, sign) goes to its bucket's next free
//                         slot (atomic cursor): a counting sort by bucket.
//   3. zk_bucket_segments thread per segment: the XYZZ sum of its entries
//                         (+-P, mixed additions). Segments bound the work of
//                         one thread however skewed the buckets are (all
//                         scalars equal put every entry in one bucket).
//   0. zk_scalar_bits     thread per scalar: the largest bit length, by an
//                         atomic maximum; the host sizes the windows by it
//                         (1-bit witnesses get one window, not 17).
//   4. zk_bucket_collect  thread per range: the sum of a range of segment
//                         sums. A bucket with more than SEG segments (skewed
//                         scalars: a top window holding one or two bits, all
//                         scalars equal) is summed in levels of SEG-wide
//                         ranges (cut by the same segment kernels), so no
//                         thread adds more than SEG points.
//   5. zk_window_reduce   thread per (window, slice of buckets [lo, hi)):
//                         running sums give R = sum (b - lo + 1) B_b and
//                         S = sum B_b; the thread returns R + lo * S, so the
//                         slices of a window add up to sum_b (b + 1) B_b.
//      (host)             sums the slices of each window and combines the
//                         windows: sum_j 2^(jc) W_j.
//
// Entries within a bucket land in an order that depends on thread timing;
// the sum does not. Scalars are integers below 2^256 (8 limbs).
#pragma once

#include "../ec/bn254.cuh"
#include "../util/atomic.cuh"
#include "../util/scan.cuh"

#define ZK_BUCKET_SEGMENT 64  // entries one thread sums at most (bucket::SEGMENT)

namespace zk {

/// The geometry of one bucket MSM, shared by every kernel of it.
struct bucket_params {
    uint32_t n;        // terms
    uint32_t c;        // window bits, 2..16
    uint32_t windows;  // ceil(257 / c): signed digits of a 256-bit scalar
    uint32_t nb;       // buckets per window, 2^(c-1)
};

/// Signed digit j (in [-2^(c-1), 2^(c-1)]) of the integer k: base-2^c
/// digits, each >= 2^(c-1) replaced by digit - 2^c with a carry into the
/// next. Computed from the low window up, so a thread walks j = 0, 1, ...
struct digit_walker {
    const uint32_t* k;
    uint32_t c;
    uint32_t carry;

    ZK_HD uint32_t bits(uint32_t start) const {
        // bits [start, start + c) of k (zero beyond bit 255), c <= 16
        uint32_t w = start / 32, b = start % 32;
        uint64_t lo = w < 8 ? k[w] : 0;
        uint64_t hi = w + 1 < 8 ? k[w + 1] : 0;
        uint64_t v = (lo | (hi << 32)) >> b;
        return (uint32_t)(v & ((1u << c) - 1));
    }

    /// Digit j; call with j = 0, 1, ..., windows - 1 in order.
    ZK_HD int32_t next(uint32_t j, uint32_t windows) {
        uint32_t v = bits(j * c) + carry;
        uint32_t half = 1u << (c - 1);
        if (v >= half && j + 1 < windows) {
            carry = 1;
            return (int32_t)v - (int32_t)(half << 1);
        }
        carry = 0;
        return (int32_t)v;
    }
};

/// Thread i: *bits = max(*bits, bit length of scalar i) (0 for zero).
ZK_HD void scalar_bits_body(uint32_t i, const uint32_t* scalars, uint32_t* bits, uint32_t n) {
    if (i >= n) return;
    const uint32_t* k = scalars + 8 * (size_t)i;
    for (int j = 7; j >= 0; j--) {
        uint32_t w = k[j];
        if (w != 0) {
#ifdef __CUDA_ARCH__
            uint32_t lz = __clz(w);
#else
            uint32_t lz = __builtin_clz(w);
#endif
            atomic_max_u32(bits, 32 * j + 32 - lz);
            return;
        }
    }
}

/// Thread i: counts[j * nb + |d_j| - 1] += 1 for each non-zero digit d_j.
ZK_HD void bucket_count_body(uint32_t i, const uint32_t* scalars, uint32_t* counts,
                             bucket_params p) {
    if (i >= p.n) return;
    digit_walker w = {scalars + 8 * (size_t)i, p.c, 0};
    for (uint32_t j = 0; j < p.windows; j++) {
        int32_t d = w.next(j, p.windows);
        if (d != 0) {
            uint32_t b = (uint32_t)(d > 0 ? d : -d) - 1;
            atomic_add_u32(&counts[j * p.nb + b], 1);
        }
    }
}

/// Thread i: entries[cursor[bucket]++] = i | (sign << 31) for each non-zero digit.
ZK_HD void bucket_scatter_body(uint32_t i, const uint32_t* scalars, uint32_t* cursors,
                               uint32_t* entries, bucket_params p) {
    if (i >= p.n) return;
    digit_walker w = {scalars + 8 * (size_t)i, p.c, 0};
    for (uint32_t j = 0; j < p.windows; j++) {
        int32_t d = w.next(j, p.windows);
        if (d != 0) {
            uint32_t b = (uint32_t)(d > 0 ? d : -d) - 1;
            uint32_t slot = atomic_add_u32(&cursors[j * p.nb + b], 1);
            entries[slot] = i | (d < 0 ? 0x80000000u : 0u);
        }
    }
}

/// Thread b < m: nseg[b] = the segments of at most ZK_BUCKET_SEGMENT
/// entries that bucket b (entries offsets[b] .. offsets[b + 1]) is cut
/// into; *widest = max(*widest, its entries).
ZK_HD void segment_count_body(uint32_t b, const uint32_t* offsets, uint32_t* nseg,
                              uint32_t* widest, uint32_t m) {
    if (b >= m) return;
    uint32_t w = offsets[b + 1] - offsets[b];
    nseg[b] = (w + ZK_BUCKET_SEGMENT - 1) / ZK_BUCKET_SEGMENT;
    atomic_max_u32(widest, w);
}

/// Thread b < m: the bounds of bucket b's segments, seg_start[first[b] + k]
/// = offsets[b] + k * ZK_BUCKET_SEGMENT for k < first[b + 1] - first[b]
/// (`first` is the exclusive scan of nseg); thread m: the final bound
/// seg_start[first[m]] = offsets[m].
ZK_HD void segment_starts_body(uint32_t b, const uint32_t* offsets, const uint32_t* first,
                               uint32_t* seg_start, uint32_t m) {
    if (b > m) return;
    if (b == m) {
        seg_start[first[m]] = offsets[m];
        return;
    }
    uint32_t e = offsets[b];
    for (uint32_t s = first[b]; s < first[b + 1]; s++, e += ZK_BUCKET_SEGMENT) seg_start[s] = e;
}

/// Thread s: seg_sums[s] = sum of entries [seg_start[s], seg_start[s + 1]).
ZK_HD void bucket_segments_body(uint32_t s, const bn254_g1_affine* bases, const uint32_t* entries,
                                const uint32_t* seg_start, bn254_g1_xyzz* seg_sums,
                                uint32_t segments) {
    if (s >= segments) return;
    bn254_g1_xyzz acc = bn254_g1_xyzz::inf();
    for (uint32_t e = seg_start[s]; e < seg_start[s + 1]; e++) {
        uint32_t v = entries[e];
        bn254_g1_affine q = bases[v & 0x7fffffffu];
        if (v >> 31) q.y = q.y.neg();
        acc = acc.add_affine(q);
    }
    seg_sums[s] = acc;
}

/// Thread b: buckets[b] = sum of segments [bucket_seg[b], bucket_seg[b + 1]).
ZK_HD void bucket_collect_body(uint32_t b, const bn254_g1_xyzz* seg_sums,
                               const uint32_t* bucket_seg, bn254_g1_xyzz* buckets,
                               uint32_t total_buckets) {
    if (b >= total_buckets) return;
    bn254_g1_xyzz acc = bn254_g1_xyzz::inf();
    for (uint32_t s = bucket_seg[b]; s < bucket_seg[b + 1]; s++) acc = acc + seg_sums[s];
    buckets[b] = acc;
}

/// Thread t = j * slices + k: window j's buckets [lo, hi) with
/// lo = k * nb / slices; out[t] = sum_{b in [lo, hi)} (b + 1) B_b.
ZK_HD void window_reduce_body(uint32_t t, const bn254_g1_xyzz* buckets, bn254_g1_jacobian* out,
                              bucket_params p, uint32_t slices) {
    if (t >= p.windows * slices) return;
    uint32_t j = t / slices, k = t % slices;
    uint32_t lo = (uint32_t)((uint64_t)k * p.nb / slices);
    uint32_t hi = (uint32_t)((uint64_t)(k + 1) * p.nb / slices);
    const bn254_g1_xyzz* w = buckets + (size_t)j * p.nb;
    bn254_g1_xyzz running = bn254_g1_xyzz::inf(), r = bn254_g1_xyzz::inf();
    for (uint32_t b = hi; b > lo; b--) {
        running = running + w[b - 1];
        r = r + running;  // adds B_b once per bucket at or above b: (b - lo + 1) times
    }
    // + lo * S, where S = running = sum B_b: double-and-add on the bits of lo.
    bn254_g1_xyzz m = bn254_g1_xyzz::inf();
    for (int bit = 31; bit >= 0; bit--) {
        m = m.dbl();
        if ((lo >> bit) & 1) m = m + running;
    }
    out[t] = (r + m).to_jacobian();
}

}  // namespace zk
