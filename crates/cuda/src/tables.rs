//! [`DbcTables`]: what the per-thread chain computation reads, built from
//! zkaccel-dbc so the GPU and the CPU search the same leading terms under the
//! same cost model (the layout of `kernels/dbc/tables.cuh`).

use zkaccel_dbc::eom::SUBOPTIMAL_WINDOW;
use zkaccel_dbc::{CostModel, MinCost};

/// 32-bit limbs of the table's integers (`ZK_DBC_LIMBS`).
pub const LIMBS: usize = 9;
/// Powers of three in the table, `3^0 ..= 3^162` (`ZK_DBC_POW3`).
pub const POW3: usize = 163;
/// MinCost entries kept per bit length (`ZK_DBC_ORDER`).
pub const ORDER: usize = 48;
/// Widest scalar, in bits (`ZK_DBC_MAX_BITS`).
pub const MAX_BITS: usize = 256;

/// The tables, `#[repr(C)]` exactly as `struct dbc_tables` in CUDA C++.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DbcTables {
    /// Cost of a doubling (M).
    pub cost_double: f64,
    /// Cost of a tripling (M).
    pub cost_triple: f64,
    /// Cost of an addition (M).
    pub cost_add: f64,
    /// Window of Eom's greedy step.
    pub window: u32,
    /// Unused (keeps the layout 8-byte aligned).
    pub reserved: u32,
    /// `3^b`, little-endian 32-bit limbs.
    pub pow3: [[u32; LIMBS]; POW3],
    /// Bit length of `3^b`.
    pub pow3_bits: [u32; POW3],
    /// The top 63 bits of `3^b`, in `[2^62, 2^63)`.
    pub pow3_mant: [u64; POW3],
    /// `order[bits]`: the first MinCost entries for `bits`-bit scalars
    /// (`0xffff` past the end).
    pub order: [[u16; ORDER]; MAX_BITS + 1],
}

const _: () = assert!(std::mem::size_of::<DbcTables>() == 32528);

fn bits(x: &[u32; LIMBS]) -> u32 {
    for i in (0..LIMBS).rev() {
        if x[i] != 0 {
            return 32 * i as u32 + 32 - x[i].leading_zeros();
        }
    }
    0
}

/// Bits `[k, k + 64)` of `x`.
fn window64(x: &[u32; LIMBS], k: u32) -> u64 {
    let mut r = 0u64;
    for (i, &w) in x.iter().enumerate() {
        let pos = 32 * i as i64 - k as i64;
        if pos >= 64 || pos <= -32 {
            continue;
        }
        if pos >= 0 {
            r |= (w as u64) << pos;
        } else {
            r |= (w as u64) >> (-pos);
        }
    }
    r
}

fn mantissa(x: &[u32; LIMBS]) -> u64 {
    let b = bits(x);
    match b {
        0 => 0,
        1..=63 => window64(x, 0) << (63 - b),
        _ => window64(x, b - 63) & (u64::MAX >> 1),
    }
}

impl DbcTables {
    /// The tables for the paper's cost model (the default of
    /// `zkaccel_dbc::Dbc::suboptimal`) and the suboptimal search window.
    pub fn new() -> Box<DbcTables> {
        DbcTables::with_model(&CostModel::default())
    }

    /// The tables for `model`.
    pub fn with_model(model: &CostModel) -> Box<DbcTables> {
        let mut t = Box::new(DbcTables {
            cost_double: model.double,
            cost_triple: model.triple,
            cost_add: model.add,
            window: SUBOPTIMAL_WINDOW,
            reserved: 0,
            pow3: [[0; LIMBS]; POW3],
            pow3_bits: [0; POW3],
            pow3_mant: [0; POW3],
            order: [[0xffff; ORDER]; MAX_BITS + 1],
        });
        let mut p = [0u32; LIMBS];
        p[0] = 1;
        for b in 0..POW3 {
            t.pow3[b] = p;
            t.pow3_bits[b] = bits(&p);
            t.pow3_mant[b] = mantissa(&p);
            let mut carry = 0u64;
            for w in p.iter_mut() {
                let v = *w as u64 * 3 + carry;
                *w = v as u32;
                carry = v >> 32;
            }
            debug_assert_eq!(carry, 0);
        }
        for nbits in 1..=MAX_BITS {
            // The process-wide table `Dbc::suboptimal` itself uses.
            let order = MinCost::cached(nbits as u32);
            for (slot, &b) in t.order[nbits].iter_mut().zip(order.order()) {
                if (b as usize) < POW3 {
                    *slot = b;
                }
            }
        }
        t
    }
}
