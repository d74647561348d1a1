//! Host emulation of the kernels: the CUDA C++ of `kernels/`, compiled for
//! the CPU by g++ (see `build.rs` and `host/emulation.cpp`), with the PTX
//! carry-chain instructions emulated on a thread-local flag.
//!
//! The tests use it to check every kernel algorithm against arkworks and
//! zkaccel-dbc on every CI run, without a GPU: field and point formulas one
//! operation at a time, the chain each thread computes, and whole kernel
//! launches over a simulated grid (every `(block, thread)` index, blocks
//! spread over the host's cores), in the same sequence as the GPU runtime.
//! It is slow (32-bit limbs, an emulated carry flag): a test tool, not a
//! CPU backend.

use crate::bucket::{combine_windows, BucketParams, SCAN_TILE, SEGMENT};
use crate::layout::{fq_limbs, fr_limbs, DeviceAffine, DeviceJacobian, DeviceXyzz};
use crate::plan::{LaunchPlan, ReductionRounds, Round};
use crate::tables::DbcTables;
use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ff::{BigInt, One, Zero};
use zkaccel_dbc::{Dbc, Sign, Term};

mod ffi {
    use crate::bucket::BucketParams;
    use crate::tables::DbcTables;
    extern "C" {
        pub fn zk_emu_powers(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            out: *mut u32,
            count: u32,
            base: *const u32,
        );
        pub fn zk_emu_ntt_bitrev(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            grid_x: u32,
            data: *mut u32,
            log_n: u32,
        );
        pub fn zk_emu_ntt_block_stages(
            block_begin: u32,
            block_end: u32,
            grid_x: u32,
            data: *mut u32,
            tw: *const u32,
            log_n: u32,
            k: u32,
        );
        pub fn zk_emu_ntt_group_stages(
            block_begin: u32,
            block_end: u32,
            grid_x: u32,
            data: *mut u32,
            tw: *const u32,
            log_n: u32,
            s0: u32,
            k: u32,
        );
        pub fn zk_emu_ntt_scale(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            grid_x: u32,
            data: *mut u32,
            powers: *const u32,
            has_powers: u32,
            factor: *const u32,
            n: u32,
        );
        pub fn zk_emu_quotient(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            abc: *mut u32,
            z_inv: *const u32,
            n: u32,
        );
        pub fn zk_emu_scan_tiles(
            block_begin: u32,
            block_end: u32,
            input: *const u32,
            count: u32,
            out: *mut u32,
            len: u32,
            tile_sums: *mut u32,
        );
        pub fn zk_emu_scan_add(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            out: *mut u32,
            tile_offsets: *const u32,
            len: u32,
        );
        pub fn zk_emu_segment_count(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            offsets: *const u32,
            nseg: *mut u32,
            widest: *mut u32,
            m: u32,
        );
        pub fn zk_emu_segment_starts(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            offsets: *const u32,
            first: *const u32,
            seg_start: *mut u32,
            m: u32,
        );
        pub fn zk_emu_scalar_bits(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            scalars: *const u32,
            bits: *mut u32,
            n: u32,
        );
        pub fn zk_emu_bucket_count(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            scalars: *const u32,
            counts: *mut u32,
            p: BucketParams,
        );
        pub fn zk_emu_bucket_scatter(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            scalars: *const u32,
            cursors: *mut u32,
            entries: *mut u32,
            p: BucketParams,
        );
        pub fn zk_emu_bucket_segments(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            bases: *const u32,
            entries: *const u32,
            seg_start: *const u32,
            seg_sums: *mut u32,
            segments: u32,
        );
        pub fn zk_emu_bucket_collect(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            seg_sums: *const u32,
            bucket_seg: *const u32,
            buckets: *mut u32,
            total_buckets: u32,
        );
        pub fn zk_emu_window_reduce(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            buckets: *const u32,
            out: *mut u32,
            p: BucketParams,
            slices: u32,
        );
        pub fn zk_emu_tables_layout(out: *mut u64);
        pub fn zk_emu_fp(field: u32, op: u32, a: *const u32, b: *const u32, out: *mut u32);
        pub fn zk_emu_g1(op: u32, p: *const u32, q: *const u32, qa: *const u32, out: *mut u32);
        pub fn zk_emu_xyzz(op: u32, p: *const u32, q: *const u32, qa: *const u32, out: *mut u32);
        pub fn zk_emu_dbc_chain(
            k: *const u32,
            delta: u32,
            t: *const DbcTables,
            terms: *mut i32,
            max: u32,
            len: *mut u32,
        ) -> u32;
        pub fn zk_emu_fr_from_montgomery(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            scalars: *mut u32,
            n: u32,
        );
        pub fn zk_emu_dbc_msm_terms(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            bases: *const u32,
            scalars: *const u32,
            out: *mut u32,
            n: u32,
            delta: u32,
            t: *const DbcTables,
        );
        pub fn zk_emu_reduce_pairs(
            block_begin: u32,
            block_end: u32,
            block_dim: u32,
            inp: *const u32,
            out: *mut u32,
            n: u32,
        );
    }
}

/// `sizeof(dbc_tables)` and the offsets of `window`, `pow3`, `pow3_bits`,
/// `pow3_mant` and `order` as the C++ compiler laid them out.
pub fn tables_layout() -> [u64; 6] {
    let mut out = [0u64; 6];
    // SAFETY: the callee writes exactly 6 u64.
    unsafe { ffi::zk_emu_tables_layout(out.as_mut_ptr()) };
    out
}

/// A field operation of the kernels' Montgomery arithmetic (`kernels/ff/mont.cuh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldOp {
    /// `a + b`.
    Add = 0,
    /// `a - b`.
    Sub = 1,
    /// `-a`.
    Neg = 2,
    /// `2a`.
    Double = 3,
    /// `a * b`.
    Mul = 4,
    /// `a^2`.
    Square = 5,
    /// The integer of the Montgomery form (`a / R`), as raw limbs.
    FromMontgomery = 6,
}

fn fp_raw(field: u32, op: FieldOp, a: [u32; 8], b: [u32; 8]) -> [u32; 8] {
    let mut out = [0u32; 8];
    // SAFETY: a, b and out are 8 limbs each, as the callee reads and writes.
    unsafe { ffi::zk_emu_fp(field, op as u32, a.as_ptr(), b.as_ptr(), out.as_mut_ptr()) };
    out
}

/// `op` on BN254 Fq by the kernels' code; raw Montgomery limbs out.
pub fn fq_op(op: FieldOp, a: &Fq, b: &Fq) -> [u32; 8] {
    fp_raw(0, op, fq_limbs(a), fq_limbs(b))
}

/// `op` on BN254 Fr by the kernels' code; raw Montgomery limbs out.
pub fn fr_op(op: FieldOp, a: &Fr, b: &Fr) -> [u32; 8] {
    fp_raw(1, op, fr_limbs(a), fr_limbs(b))
}

/// A point operation of `kernels/ec/jacobian.cuh` on BN254 G1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointOp {
    /// `2p` (dbl-2009-l).
    Double = 0,
    /// `3p` (tpl-2007-bl, a = 0).
    Triple = 1,
    /// `p + q` (add-2007-bl).
    Add = 2,
    /// `p + q` with `q` affine (madd-2007-bl).
    AddAffine = 3,
    /// `-p`.
    Neg = 4,
    /// `q` (affine) to Jacobian.
    FromAffine = 5,
}

/// `op` by the kernels' code (`q` is read by `Add`, `qa` by `AddAffine` and
/// `FromAffine`); raw Jacobian limbs out.
pub fn g1_op(op: PointOp, p: &G1Projective, q: &G1Projective, qa: &G1Affine) -> DeviceJacobian {
    let (p, q, qa) = (
        DeviceJacobian::from_ark(p),
        DeviceJacobian::from_ark(q),
        DeviceAffine::from_ark(qa),
    );
    let mut out = DeviceJacobian::default();
    // SAFETY: 24, 24, 16 limbs in, 24 out, as the callee expects.
    unsafe {
        ffi::zk_emu_g1(
            op as u32,
            p.0.as_ptr(),
            q.0.as_ptr(),
            qa.0.as_ptr(),
            out.0.as_mut_ptr(),
        )
    };
    out
}

/// An XYZZ operation of `kernels/ec/xyzz.cuh` on BN254 G1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XyzzOp {
    /// `qa` (affine) to XYZZ.
    FromAffine = 0,
    /// `2p` (dbl-2008-s-1).
    Double = 1,
    /// `p + qa` (madd-2008-s).
    AddAffine = 2,
    /// `p + q` (add-2008-s).
    Add = 3,
    /// `2 qa` (mdbl-2008-s-1).
    DoubleAffine = 4,
}

/// `op` by the kernels' code.
pub fn xyzz_op(op: XyzzOp, p: &DeviceXyzz, q: &DeviceXyzz, qa: &G1Affine) -> DeviceXyzz {
    let qa = DeviceAffine::from_ark(qa);
    let mut out = DeviceXyzz::default();
    // SAFETY: 32, 32, 16 limbs in, 32 out.
    unsafe {
        ffi::zk_emu_xyzz(
            op as u32,
            p.0.as_ptr(),
            q.0.as_ptr(),
            qa.0.as_ptr(),
            out.0.as_mut_ptr(),
        )
    };
    out
}

/// An XYZZ point converted to Jacobian by the kernels' code.
pub fn xyzz_to_jacobian(p: &DeviceXyzz) -> DeviceJacobian {
    let mut wide = [0u32; 32];
    let zero = DeviceXyzz::default();
    let qa = DeviceAffine::default();
    // SAFETY: 32, 32, 16 limbs in, up to 32 out (op 5 writes 24).
    unsafe {
        ffi::zk_emu_xyzz(
            5,
            p.0.as_ptr(),
            zero.0.as_ptr(),
            qa.0.as_ptr(),
            wide.as_mut_ptr(),
        )
    };
    let mut out = DeviceJacobian::default();
    out.0.copy_from_slice(&wide[..24]);
    out
}

/// Which chain a GPU thread used for its scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainKind {
    /// The scalar is zero: no chain.
    None,
    /// Eom's greedy chain for a MinCost leading term (cheaper than the NAF).
    Greedy,
    /// The NAF (no greedy candidate was cheaper, or all got stuck).
    Naf,
}

/// The chain a GPU thread computes for the integer `k` (`kernels/dbc/chain.cuh`).
pub fn thread_chain(k: &BigInt<4>, delta: u32, tables: &DbcTables) -> (ChainKind, Dbc) {
    let limbs = crate::layout::scalar_limbs(k);
    const MAX: usize = 300;
    let mut raw = vec![0i32; 3 * MAX];
    let mut len = 0u32;
    // SAFETY: 8 limbs in, a table, room for MAX terms; len is written.
    let kind = unsafe {
        ffi::zk_emu_dbc_chain(
            limbs.as_ptr(),
            delta,
            tables,
            raw.as_mut_ptr(),
            MAX as u32,
            &mut len,
        )
    };
    let terms = raw
        .chunks(3)
        .take((len as usize).min(MAX))
        .map(|t| Term {
            sign: if t[0] > 0 { Sign::Plus } else { Sign::Minus },
            a: t[1] as u32,
            b: t[2] as u32,
        })
        .collect();
    let kind = match kind {
        1 => ChainKind::Greedy,
        2 => ChainKind::Naf,
        _ => ChainKind::None,
    };
    (kind, Dbc::from_terms(terms))
}

/// Runs `body(block_begin, block_end)` over the plan's blocks, split into
/// contiguous ranges on the host's cores (a simulated grid).
fn simulate_grid(plan: LaunchPlan, body: impl Fn(u32, u32) + Sync) {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(plan.grid as usize)
        .max(1) as u32;
    let per = plan.grid.div_ceil(threads);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (lo, hi) = (t * per, ((t + 1) * per).min(plan.grid));
            if lo < hi {
                let body = &body;
                s.spawn(move || body(lo, hi));
            }
        }
    });
}

/// Raw pointer wrapper so the simulated blocks can share an output buffer;
/// each block writes only its own threads' elements.
#[derive(Clone, Copy)]
struct SharedMut(*mut u32);
// SAFETY: blocks write disjoint elements (thread i writes element i only).
unsafe impl Send for SharedMut {}
// SAFETY: as above.
unsafe impl Sync for SharedMut {}

/// The kernel `zk_fr_from_montgomery` over a simulated grid.
pub fn launch_fr_from_montgomery(plan: LaunchPlan, scalars: &mut [[u32; 8]]) {
    let n = scalars.len() as u32;
    assert!(plan.covers(n), "the grid must cover every scalar");
    let ptr = SharedMut(scalars.as_mut_ptr().cast());
    simulate_grid(plan, |lo, hi| {
        let p = ptr;
        // SAFETY: n scalars of 8 limbs; thread i touches scalar i only.
        unsafe { ffi::zk_emu_fr_from_montgomery(lo, hi, plan.block, p.0, n) }
    });
}

/// The kernel `zk_dbc_msm_terms` over a simulated grid: `out[i] = k_i P_i`.
pub fn launch_dbc_msm_terms(
    plan: LaunchPlan,
    bases: &[DeviceAffine],
    scalars: &[[u32; 8]],
    out: &mut [DeviceJacobian],
    delta: u32,
    tables: &DbcTables,
) {
    let n = bases.len() as u32;
    assert!(scalars.len() == bases.len() && out.len() == bases.len());
    assert!(plan.covers(n), "the grid must cover every term");
    let ptr = SharedMut(out.as_mut_ptr().cast());
    simulate_grid(plan, |lo, hi| {
        let p = ptr;
        // SAFETY: n bases (16 limbs), n scalars (8), n outputs (24); thread i
        // writes out[i] only; the tables are read-only.
        unsafe {
            ffi::zk_emu_dbc_msm_terms(
                lo,
                hi,
                plan.block,
                bases.as_ptr().cast(),
                scalars.as_ptr().cast(),
                p.0,
                n,
                delta,
                tables,
            )
        }
    });
}

/// The kernel `zk_reduce_pairs` over a simulated grid:
/// `out[i] = inp[2i] + inp[2i + 1]`.
pub fn launch_reduce_pairs(plan: LaunchPlan, inp: &[DeviceJacobian], out: &mut [DeviceJacobian]) {
    let n = inp.len() as u32;
    assert!(out.len() >= inp.len().div_ceil(2));
    assert!(plan.covers(n.div_ceil(2)), "the grid must cover every pair");
    let ptr = SharedMut(out.as_mut_ptr().cast());
    simulate_grid(plan, |lo, hi| {
        let p = ptr;
        // SAFETY: n inputs, ceil(n/2) outputs, disjoint buffers; thread i
        // writes out[i] only.
        unsafe { ffi::zk_emu_reduce_pairs(lo, hi, plan.block, inp.as_ptr().cast(), p.0, n) }
    });
}

/// Sums points with the reduction kernel, round by round, as the GPU does.
pub fn reduce(points: Vec<DeviceJacobian>) -> DeviceJacobian {
    let mut cur = points;
    if cur.is_empty() {
        return DeviceJacobian::from_ark(&G1Projective::zero());
    }
    let rounds = ReductionRounds::new(cur.len() as u32);
    cur = reduce_rounds(cur, rounds);
    cur[0]
}

/// `zk_reduce_pairs` over `points`, one launch per round, as the runtime
/// runs it; the last round's output.
fn reduce_rounds(
    points: Vec<DeviceJacobian>,
    rounds: impl Iterator<Item = Round>,
) -> Vec<DeviceJacobian> {
    let mut cur = points;
    for round in rounds {
        let mut next = vec![DeviceJacobian::default(); round.outputs as usize];
        launch_reduce_pairs(LaunchPlan::for_threads(round.outputs), &cur, &mut next);
        cur = next;
    }
    cur
}

/// The paper's per-thread DBC MSM, every kernel emulated: one chain and
/// scalar multiplication per term, then the pairwise reduction. Integer
/// scalars (below 2^256).
pub fn dbc_msm_bigint(bases: &[G1Affine], scalars: &[BigInt<4>], delta: u32) -> DeviceJacobian {
    let tables = DbcTables::new();
    let k: Vec<[u32; 8]> = scalars.iter().map(crate::layout::scalar_limbs).collect();
    terms_and_reduce(bases, &k, delta, &tables)
}

/// The same over field scalars: their Montgomery limbs go in, and the kernel
/// `zk_fr_from_montgomery` turns them into integers first, as on the GPU.
pub fn dbc_msm(bases: &[G1Affine], scalars: &[Fr], delta: u32) -> DeviceJacobian {
    let tables = DbcTables::new();
    let mut k: Vec<[u32; 8]> = scalars.iter().map(fr_limbs).collect();
    if !k.is_empty() {
        launch_fr_from_montgomery(LaunchPlan::for_threads(k.len() as u32), &mut k);
    }
    terms_and_reduce(bases, &k, delta, &tables)
}

fn terms_and_reduce(
    bases: &[G1Affine],
    k: &[[u32; 8]],
    delta: u32,
    tables: &DbcTables,
) -> DeviceJacobian {
    assert_eq!(bases.len(), k.len(), "one scalar per base");
    let b: Vec<DeviceAffine> = bases.iter().map(DeviceAffine::from_ark).collect();
    let mut terms = vec![DeviceJacobian::default(); b.len()];
    if !b.is_empty() {
        let plan = LaunchPlan::for_threads(b.len() as u32);
        launch_dbc_msm_terms(plan, &b, k, &mut terms, delta, tables);
    }
    reduce(terms)
}

/// The exclusive prefix sum of `input` into `out` by the kernels
/// `zk_scan_tiles` and `zk_scan_add`, in the runtime's sequence: tiles of
/// 2^ZK_SCAN_TILE_LOG values, the tile totals scanned the same way
/// (recursively), then added back. Inputs past `input.len()` read as zero,
/// so an `out` one longer than `input` ends with the total.
pub fn scan_into(input: &[u32], out: &mut [u32]) {
    let len = out.len() as u32;
    let tiles = len.div_ceil(SCAN_TILE).max(1);
    let mut tile_sums = vec![0u32; tiles as usize];
    let (op, tp) = (
        SharedMut(out.as_mut_ptr()),
        SharedMut(tile_sums.as_mut_ptr()),
    );
    let count = input.len() as u32;
    simulate_grid(
        LaunchPlan {
            grid: tiles,
            block: 1,
        },
        |lo, hi| {
            let (o, t) = (op, tp);
            // SAFETY: block b writes out[b tile .. (b + 1) tile) below len and
            // tile_sums[b] only; reads input below count.
            unsafe { ffi::zk_emu_scan_tiles(lo, hi, input.as_ptr(), count, o.0, len, t.0) }
        },
    );
    if tiles > 1 {
        let mut tile_offsets = vec![0u32; tiles as usize];
        scan_into(&tile_sums, &mut tile_offsets);
        let plan = LaunchPlan::for_threads(len);
        simulate_grid(plan, |lo, hi| {
            let o = op;
            // SAFETY: thread i < len updates out[i] only.
            unsafe { ffi::zk_emu_scan_add(lo, hi, plan.block, o.0, tile_offsets.as_ptr(), len) }
        });
    }
}

/// Buckets cut into segments on the "device" (what [`segments`] returns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceSegments {
    /// Segment `s` covers entries `seg_start[s]..seg_start[s + 1]`.
    pub seg_start: Vec<u32>,
    /// Bucket `b` has segments `bucket_seg[b]..bucket_seg[b + 1]`.
    pub bucket_seg: Vec<u32>,
    /// The most entries in one bucket.
    pub widest: u32,
}

impl DeviceSegments {
    /// Number of segments.
    pub fn count(&self) -> u32 {
        self.seg_start.len() as u32 - 1
    }
}

/// The buckets bounded by `offsets` (one more entry than buckets) cut into
/// segments of at most [`SEGMENT`] entries by the kernels
/// `zk_segment_count`, the scan and `zk_segment_starts`, as the runtime
/// runs them; equal to [`crate::bucket::Segments::new`].
pub fn segments(offsets: &[u32]) -> DeviceSegments {
    let m = offsets.len() as u32 - 1;
    let mut nseg = vec![0u32; m as usize];
    let mut widest = 0u32;
    let (np, wp) = (
        SharedMut(nseg.as_mut_ptr()),
        SharedMut(&mut widest as *mut u32),
    );
    let plan = LaunchPlan::for_threads(m);
    simulate_grid(plan, |lo, hi| {
        let (n, w) = (np, wp);
        // SAFETY: thread b < m reads offsets[b..=b + 1], writes nseg[b];
        // one counter, updated atomically.
        unsafe { ffi::zk_emu_segment_count(lo, hi, plan.block, offsets.as_ptr(), n.0, w.0, m) }
    });
    let mut bucket_seg = vec![0u32; m as usize + 1];
    scan_into(&nseg, &mut bucket_seg);
    let mut seg_start = vec![0u32; bucket_seg[m as usize] as usize + 1];
    let sp = SharedMut(seg_start.as_mut_ptr());
    let plan = LaunchPlan::for_threads(m + 1);
    simulate_grid(plan, |lo, hi| {
        let s = sp;
        // SAFETY: thread b writes its own bucket's segment bounds (disjoint
        // ranges of seg_start by the scan), thread m the last one.
        unsafe {
            ffi::zk_emu_segment_starts(
                lo,
                hi,
                plan.block,
                offsets.as_ptr(),
                bucket_seg.as_ptr(),
                s.0,
                m,
            )
        }
    });
    DeviceSegments {
        seg_start,
        bucket_seg,
        widest,
    }
}

/// The bucket method with every kernel emulated over simulated grids (blocks
/// on the host's cores, atomics real), in the GPU runtime's sequence:
/// count, prefix sum, scatter, segment sums, bucket sums, window slices,
/// the slices of each window summed pairwise, then the windows combined on
/// the host. Integer scalars below 2^256;
/// `window` overrides the window size (2..=16).
pub fn bucket_msm_bigint(
    bases: &[G1Affine],
    scalars: &[BigInt<4>],
    window: Option<u32>,
) -> G1Projective {
    assert_eq!(bases.len(), scalars.len(), "one scalar per base");
    let k: Vec<[u32; 8]> = scalars.iter().map(crate::layout::scalar_limbs).collect();
    bucket_msm_limbs(bases, &k, window)
}

/// [`bucket_msm_bigint`] on the scalars' limbs (integers, as the kernels
/// read them after `zk_fr_from_montgomery`).
fn bucket_msm_limbs(bases: &[G1Affine], k: &[[u32; 8]], window: Option<u32>) -> G1Projective {
    let n = bases.len() as u32;
    if n == 0 {
        return G1Projective::zero();
    }
    let b: Vec<DeviceAffine> = bases.iter().map(DeviceAffine::from_ark).collect();
    let plan = LaunchPlan::for_threads(n);

    // 0. the scalars' bit length sizes the windows
    let mut bits = 0u32;
    let bp = SharedMut(&mut bits as *mut u32);
    simulate_grid(plan, |lo, hi| {
        let b = bp;
        // SAFETY: n scalars of 8 limbs; one counter, updated atomically.
        unsafe { ffi::zk_emu_scalar_bits(lo, hi, plan.block, k.as_ptr().cast(), b.0, n) }
    });
    if bits == 0 {
        return G1Projective::zero();
    }
    let p = match window {
        Some(c) => BucketParams::with_window_bits(n, c, bits),
        None => BucketParams::for_bits(n, bits),
    };

    // 1. counts per bucket
    let mut counts = vec![0u32; p.total_buckets() as usize];
    let cp = SharedMut(counts.as_mut_ptr());
    simulate_grid(plan, |lo, hi| {
        let c = cp;
        // SAFETY: n scalars of 8 limbs; counts has total_buckets entries,
        // updated with atomic increments.
        unsafe { ffi::zk_emu_bucket_count(lo, hi, plan.block, k.as_ptr().cast(), c.0, p) }
    });
    // 2. prefix sum and segments on the "device", scatter (counting sort by bucket)
    let mut offsets = vec![0u32; counts.len() + 1];
    scan_into(&counts, &mut offsets);
    let seg = segments(&offsets);
    let mut cursors = offsets[..counts.len()].to_vec();
    let mut entries = vec![0u32; *offsets.last().unwrap() as usize];
    let (cu, en) = (
        SharedMut(cursors.as_mut_ptr()),
        SharedMut(entries.as_mut_ptr()),
    );
    simulate_grid(plan, |lo, hi| {
        let (c, e) = (cu, en);
        // SAFETY: cursors start at each bucket's offset and are bumped
        // atomically; every slot written is below the bucket's next offset.
        unsafe { ffi::zk_emu_bucket_scatter(lo, hi, plan.block, k.as_ptr().cast(), c.0, e.0, p) }
    });
    debug_assert!((0..counts.len()).all(|i| cursors[i] == offsets[i + 1]));
    // 3. segment sums
    let mut seg_sums = vec![DeviceXyzz::default(); seg.count().max(1) as usize];
    let ss = SharedMut(seg_sums.as_mut_ptr().cast());
    if seg.count() > 0 {
        let sp = LaunchPlan::for_threads(seg.count());
        simulate_grid(sp, |lo, hi| {
            let s = ss;
            // SAFETY: segment bounds index `entries`; entries index `b`;
            // thread s writes seg_sums[s] only.
            unsafe {
                ffi::zk_emu_bucket_segments(
                    lo,
                    hi,
                    sp.block,
                    b.as_ptr().cast(),
                    entries.as_ptr(),
                    seg.seg_start.as_ptr(),
                    s.0,
                    seg.count(),
                )
            }
        });
    }
    // 4. bucket sums, in levels where buckets hold many segments (each
    // level's ranges cut by the segment kernels, as the runtime does)
    let collect = |sums: &[DeviceXyzz], bounds: &[u32]| {
        let ranges = bounds.len() as u32 - 1;
        let mut out = vec![DeviceXyzz::default(); ranges.max(1) as usize];
        let op = SharedMut(out.as_mut_ptr().cast());
        let bp = LaunchPlan::for_threads(ranges);
        simulate_grid(bp, |lo, hi| {
            let o = op;
            // SAFETY: `bounds` has ranges + 1 entries bounding `sums`;
            // thread r writes out[r] only.
            unsafe {
                ffi::zk_emu_bucket_collect(
                    lo,
                    hi,
                    bp.block,
                    sums.as_ptr().cast(),
                    bounds.as_ptr(),
                    o.0,
                    ranges,
                )
            }
        });
        out
    };
    let (mut sums, mut bounds, mut widest) = (seg_sums, seg.bucket_seg, seg.widest);
    while widest.div_ceil(SEGMENT) > SEGMENT {
        let level = segments(&bounds);
        sums = collect(&sums, &level.seg_start);
        (bounds, widest) = (level.bucket_seg, level.widest);
    }
    let sums = collect(&sums, &bounds);
    let buckets = sums;
    debug_assert_eq!(buckets.len(), p.total_buckets() as usize);
    // 5. window slices, combined on the host
    let slices = p.slices();
    let mut parts = vec![DeviceJacobian::default(); (p.windows * slices) as usize];
    let pa = SharedMut(parts.as_mut_ptr().cast());
    let rp = LaunchPlan::for_threads(p.windows * slices);
    simulate_grid(rp, |lo, hi| {
        let o = pa;
        // SAFETY: buckets has windows * nb entries; thread t writes parts[t] only.
        unsafe {
            ffi::zk_emu_window_reduce(lo, hi, rp.block, buckets.as_ptr().cast(), o.0, p, slices)
        }
    });
    // 6. each window's slices summed pairwise, then the windows on the host
    let parts = reduce_rounds(parts, p.slice_rounds());
    let windows: Vec<G1Projective> = parts
        .iter()
        .map(|q| q.to_ark().expect("reduced coordinates from the kernels"))
        .collect();
    combine_windows(&windows, &p)
}

/// `base^i` for `i < count` by the kernel `zk_powers`.
fn emu_powers(count: u32, base: &Fr) -> Vec<[u32; 8]> {
    let mut out = vec![[0u32; 8]; count.max(1) as usize];
    let op = SharedMut(out.as_mut_ptr().cast());
    let b = fr_limbs(base);
    let plan = LaunchPlan::for_threads(count);
    simulate_grid(plan, |lo, hi| {
        let o = op;
        // SAFETY: out holds count elements; thread i writes out[i] only.
        unsafe { ffi::zk_emu_powers(lo, hi, plan.block, o.0, count, b.as_ptr()) }
    });
    out
}

/// One NTT with every kernel emulated, in the runtime's sequence
/// ([`crate::ntt::NttJob`]): twiddles and coset powers computed by
/// `zk_powers`, pre-scaling, bit reversal, the first stages per block in
/// "shared memory", the later stages in strided passes, post-scaling.
/// `data.len()` must be `2^job.log_n`.
pub fn ntt(data: &mut [Fr], job: &crate::ntt::NttJob) {
    let mut batch = [data.to_vec()];
    ntt_batch(&mut batch, job);
    data.copy_from_slice(&batch[0]);
}

/// A batch of NTTs as the runtime runs it ([`crate::CudaNtt`]'s
/// `transform_batch`): the vectors stored back to back, each kernel launched
/// once per pass over a 2-D grid (`blockIdx.y` = the vector). Every vector
/// must have `2^job.log_n` values.
pub fn ntt_batch(batch: &mut [Vec<Fr>], job: &crate::ntt::NttJob) {
    let n = 1usize << job.log_n;
    assert!(
        batch.iter().all(|v| v.len() == n),
        "one value per point of the domain"
    );
    let mut d: Vec<[u32; 8]> = batch.iter().flatten().map(fr_limbs).collect();
    ntt_limbs(&mut d, batch.len() as u32, job);
    for (v, chunk) in batch.iter_mut().zip(d.chunks(n)) {
        for (x, l) in v.iter_mut().zip(chunk) {
            *x = crate::layout::fr_from_limbs(l).expect("reduced values from the kernels");
        }
    }
}

/// The launch sequence of one batched NTT over `vectors` back-to-back
/// vectors of `2^job.log_n` limb arrays in `d` (the runtime's
/// `ntt_on_device`).
fn ntt_limbs(d: &mut [[u32; 8]], vectors: u32, job: &crate::ntt::NttJob) {
    let log_n = job.log_n;
    let n = 1u32 << log_n;
    assert_eq!(d.len(), n as usize * vectors as usize);
    let dp = SharedMut(d.as_mut_ptr().cast());
    let all = LaunchPlan::for_threads(n);
    // The 2-D grid of the runtime, flattened: `grid_x` blocks per vector.
    let batched = |grid_x: u32, block: u32| LaunchPlan {
        grid: grid_x * vectors,
        block,
    };
    let scale = |powers: Option<&Vec<[u32; 8]>>, factor: &Fr| {
        let f = fr_limbs(factor);
        let (ptr, has) = match powers {
            Some(p) => (p.as_ptr().cast::<u32>(), 1),
            None => (std::ptr::null(), 0),
        };
        let pp = SharedMut(ptr as *mut u32);
        simulate_grid(batched(all.grid, all.block), |lo, hi| {
            let (d, p) = (dp, pp);
            // SAFETY: n values per vector and, if has, n powers; thread i of
            // vector y touches element i of vector y only.
            unsafe {
                ffi::zk_emu_ntt_scale(lo, hi, all.block, all.grid, d.0, p.0, has, f.as_ptr(), n)
            }
        });
    };
    if let Some(g) = job.pre {
        scale(Some(&emu_powers(n, &g)), &Fr::one());
    }
    let tw = emu_powers(n / 2, &job.root);
    simulate_grid(batched(all.grid, all.block), |lo, hi| {
        let d = dp;
        // SAFETY: thread i swaps i with rev(i) of its own vector only when
        // i < rev(i): disjoint pairs.
        unsafe { ffi::zk_emu_ntt_bitrev(lo, hi, all.block, all.grid, d.0, log_n) }
    });
    let k = job.block_stages();
    if k > 0 {
        simulate_grid(batched(n >> k, 1), |lo, hi| {
            let d = dp;
            // SAFETY: block b of vector y touches that vector's elements
            // [b 2^k, (b + 1) 2^k) only.
            unsafe {
                ffi::zk_emu_ntt_block_stages(lo, hi, n >> k, d.0, tw.as_ptr().cast(), log_n, k)
            }
        });
    }
    for (s0, k) in job.group_passes() {
        simulate_grid(batched(n >> k, 1), |lo, hi| {
            let d = dp;
            // SAFETY: group g of vector y touches its own 2^k strided
            // elements of that vector only.
            unsafe {
                ffi::zk_emu_ntt_group_stages(lo, hi, n >> k, d.0, tw.as_ptr().cast(), log_n, s0, k)
            }
        });
    }
    if job.post_powers.is_some() || job.post_factor.is_some() {
        let powers = job.post_powers.map(|g| emu_powers(n, &g));
        scale(powers.as_ref(), &job.post_factor.unwrap_or(Fr::one()));
    }
}

/// Groth16's quotient as the GPU runs it ([`crate::ntt::QuotientJob`]):
/// the three evaluations `abc` (on the domain) stored back to back,
/// interpolated and evaluated on the coset as batches of three,
/// `(a b - c) / Z(g)` by the kernel `zk_quotient`, and the first vector
/// interpolated from the coset; the result is `h`'s coefficients.
pub fn quotient(abc: [Vec<Fr>; 3], job: &crate::ntt::QuotientJob) -> Vec<Fr> {
    let n = abc[0].len();
    quotient_limbs(abc, job)[..n]
        .iter()
        .map(|l| crate::layout::fr_from_limbs(l).expect("reduced values from the kernels"))
        .collect()
}

/// Groth16's quotient and the MSM of its first `bases.len()` coefficients
/// as the GPU runs them with `h` kept on the device
/// (`DeviceBases::quotient_msm`): the quotient's launches, then
/// `zk_fr_from_montgomery` on `h` in place and the bucket method on it.
pub fn quotient_msm(
    abc: [Vec<Fr>; 3],
    job: &crate::ntt::QuotientJob,
    bases: &[G1Affine],
) -> G1Projective {
    let d = quotient_limbs(abc, job);
    let mut h = d[..bases.len()].to_vec();
    launch_fr_from_montgomery(LaunchPlan::for_threads(h.len() as u32), &mut h);
    bucket_msm_limbs(bases, &h, None)
}

/// The quotient's launches over the three vectors stored back to back; `h`
/// (Montgomery limbs) is the first vector of the result.
fn quotient_limbs(abc: [Vec<Fr>; 3], job: &crate::ntt::QuotientJob) -> Vec<[u32; 8]> {
    let n = abc[0].len();
    assert!(
        abc.iter().all(|v| v.len() == n),
        "three vectors of n values"
    );
    let mut d: Vec<[u32; 8]> = abc.iter().flatten().map(fr_limbs).collect();
    ntt_limbs(&mut d, 3, &job.interpolate);
    ntt_limbs(&mut d, 3, &job.to_coset);
    let z = fr_limbs(&job.z_inv);
    let dp = SharedMut(d.as_mut_ptr().cast());
    let plan = LaunchPlan::for_threads(n as u32);
    simulate_grid(plan, |lo, hi| {
        let abc = dp;
        // SAFETY: 3n values; thread i reads a[i], b[i], c[i], writes a[i] only.
        unsafe { ffi::zk_emu_quotient(lo, hi, plan.block, abc.0, z.as_ptr(), n as u32) }
    });
    ntt_limbs(&mut d[..n], 1, &job.from_coset);
    d
}
