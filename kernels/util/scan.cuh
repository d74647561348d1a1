// Exclusive prefix sums of 32-bit counts on the device, in tiles of
// 2^ZK_SCAN_TILE_LOG values per block (Blelloch's up-sweep and down-sweep in
// shared memory: every step's pairs are disjoint, so the same body runs
// thread-parallel on the device and step by step on the host):
//
//   zk_scan_tiles  block b: out[i] = in[tile start] + ... + in[i - 1] for
//                  the i of its tile; tile_sums[b] = the tile's total
//   zk_scan_add    thread i: out[i] += tile_offsets[i / tile]
//
// A long input takes a scan of its tile totals (recursively: 2^20 tiles per
// two levels) and one zk_scan_add. Values at or past `count` read as zero,
// so scanning count + 1 outputs leaves the total last.
#pragma once

#include "block.cuh"

#define ZK_SCAN_TILE_LOG 10  // 1024 values (4 KiB of shared memory), 512 threads

namespace zk {

/// Block b: the exclusive scan of in[b * tile .. (b + 1) * tile) into out
/// (indices below `len`; in[i] = 0 for i >= count), the tile's total into
/// tile_sums[b]. `sh` holds one tile.
ZK_HD void scan_tiles_body(uint32_t b, const uint32_t* in, uint32_t count, uint32_t* out,
                           uint32_t len, uint32_t* tile_sums, uint32_t* sh) {
    const uint32_t m = 1u << ZK_SCAN_TILE_LOG;
    const size_t base = (size_t)b << ZK_SCAN_TILE_LOG;
    ZK_BLOCK_FOR(t, m) sh[t] = base + t < count ? in[base + t] : 0;
    ZK_BLOCK_SYNC();
    for (uint32_t d = 1; d < m; d <<= 1) {
        ZK_BLOCK_FOR(t, m / (2 * d)) {
            uint32_t i = (2 * t + 2) * d - 1;
            sh[i] += sh[i - d];
        }
        ZK_BLOCK_SYNC();
    }
    ZK_BLOCK_FOR(t, 1) {
        tile_sums[b] = sh[m - 1];
        sh[m - 1] = 0;
    }
    ZK_BLOCK_SYNC();
    for (uint32_t d = m / 2; d >= 1; d >>= 1) {
        ZK_BLOCK_FOR(t, m / (2 * d)) {
            uint32_t i = (2 * t + 2) * d - 1;
            uint32_t left = sh[i - d];
            sh[i - d] = sh[i];
            sh[i] += left;
        }
        ZK_BLOCK_SYNC();
    }
    ZK_BLOCK_FOR(t, m) {
        if (base + t < len) out[base + t] = sh[t];
    }
}

/// Thread i < len: out[i] += tile_offsets[i >> ZK_SCAN_TILE_LOG].
ZK_HD void scan_add_body(uint32_t i, uint32_t* out, const uint32_t* tile_offsets, uint32_t len) {
    if (i >= len) return;
    out[i] += tile_offsets[i >> ZK_SCAN_TILE_LOG];
}

}  // namespace zk
