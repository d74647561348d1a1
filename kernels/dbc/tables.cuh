// Tables the per-thread chain computation reads, built on the host from
// zkaccel-dbc (so there is one source of truth for the MinCost orders and the
// cost model) and uploaded once: 3^b exactly and as 63-bit mantissas, and for
// every scalar bit length the first entries of its MinCost order.
//
// The layout is shared with Rust's `#[repr(C)] DbcTables`
// (crates/cuda/src/tables.rs); the host tests check size and offsets.
#pragma once

#include "../util/compat.cuh"

#define ZK_DBC_LIMBS 9        // 288-bit integers: room for 2 * 2^a 3^b with n < 2^256
#define ZK_DBC_POW3 163       // 3^0 .. 3^162
#define ZK_DBC_ORDER 48       // MinCost entries kept per bit length
#define ZK_DBC_MAX_BITS 256   // scalars are at most 256-bit integers
#define ZK_DBC_MAX_TERMS 256  // a greedy chain longer than this is abandoned

namespace zk {

struct dbc_tables {
    /// The cost model (D, T, A in field multiplications), as zkaccel-dbc's CostModel.
    double cost_double;
    double cost_triple;
    double cost_add;
    /// Search window of Eom's greedy step (zkaccel-dbc's SUBOPTIMAL_WINDOW).
    uint32_t window;
    uint32_t reserved;
    /// 3^b, little-endian 32-bit limbs.
    uint32_t pow3[ZK_DBC_POW3][ZK_DBC_LIMBS];
    /// Bit length of 3^b.
    uint32_t pow3_bits[ZK_DBC_POW3];
    /// Top 63 bits of 3^b, in [2^62, 2^63).
    uint64_t pow3_mant[ZK_DBC_POW3];
    /// order[bits][i]: the i-th power of three to try for a bits-bit scalar
    /// (0xffff past the end of a short order).
    uint16_t order[ZK_DBC_MAX_BITS + 1][ZK_DBC_ORDER];
};

static_assert(sizeof(dbc_tables) == 32528, "layout shared with crates/cuda/src/tables.rs");

}  // namespace zk
