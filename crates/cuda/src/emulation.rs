//! Host emulation of the kernels: the CUDA C++ of `kernels/`, compiled for
//! the CPU by g++ (see `build.rs` and `host/emulation.cpp`), with the PTX
//! carry-chain instructions emulated on a thread-local flag.
//!
//! The tests use it to check every kernel algorithm against arkworks and
//! zkaccel-dbc on every CI run, without a GPU: field and point formulas one
//! operation at a time and the chain each thread computes (the functions
//! here that call the formulas directly), and whole pipelines, which run on
//! [`CudaContext::emulated`](crate::CudaContext::emulated): the GPU's own
//! launch sequence (`crate::pipeline`), each launch over a simulated grid.
//! The pipeline functions below are shorthands that open an emulated
//! device for one call. It is slow (32-bit limbs, an emulated carry flag):
//! a test tool, not a CPU backend.

use crate::layout::{fq_limbs, fr_limbs, DeviceAffine, DeviceJacobian, DeviceXyzz};
use crate::tables::DbcTables;
use crate::CudaContext;
use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ff::BigInt;
use zkaccel_dbc::{Dbc, Sign, Term};

mod ffi {
    use crate::tables::DbcTables;
    extern "C" {
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

/// A fresh emulated device for one call (its own tables and powers).
fn device() -> CudaContext {
    CudaContext::emulated()
}

/// What an emulated pipeline returns; its errors (none expected on a
/// device of [`crate::context::EMULATED_MEMORY`] bytes) end the test.
fn ok<T>(r: Result<T, crate::CudaError>) -> T {
    r.unwrap_or_else(|e| panic!("the emulated pipeline failed: {e}"))
}

/// Sums points with the reduction kernel, round by round, as the GPU does.
pub fn reduce(points: Vec<DeviceJacobian>) -> DeviceJacobian {
    ok(device().reduce(&points))
}

/// The partial sums of the per-thread DBC MSM summed into one point.
fn sum_partials(partial: Vec<DeviceJacobian>) -> DeviceJacobian {
    match partial.len() {
        1 => partial[0],
        _ => {
            let sum: G1Projective = partial
                .iter()
                .map(|p| p.to_ark().expect("reduced coordinates from the kernels"))
                .sum();
            DeviceJacobian::from_ark(&sum)
        }
    }
}

/// The paper's per-thread DBC MSM as the GPU runs it: one chain and
/// scalar multiplication per term, then the pairwise reduction. Integer
/// scalars (below 2^256).
pub fn dbc_msm_bigint(bases: &[G1Affine], scalars: &[BigInt<4>], delta: u32) -> DeviceJacobian {
    assert_eq!(bases.len(), scalars.len(), "one scalar per base");
    let b: Vec<DeviceAffine> = bases.iter().map(DeviceAffine::from_ark).collect();
    let k: Vec<[u32; 8]> = scalars.iter().map(crate::layout::scalar_limbs).collect();
    sum_partials(ok(device().dbc_msm(&b, &k, false, delta)))
}

/// The same over field scalars: their Montgomery limbs go in, and the kernel
/// `zk_fr_from_montgomery` turns them into integers first, as on the GPU.
pub fn dbc_msm(bases: &[G1Affine], scalars: &[Fr], delta: u32) -> DeviceJacobian {
    assert_eq!(bases.len(), scalars.len(), "one scalar per base");
    let b: Vec<DeviceAffine> = bases.iter().map(DeviceAffine::from_ark).collect();
    let k: Vec<[u32; 8]> = scalars.iter().map(fr_limbs).collect();
    sum_partials(ok(device().dbc_msm(&b, &k, true, delta)))
}

/// The exclusive prefix sum of `input` into `out` by the kernels
/// `zk_scan_tiles` and `zk_scan_add`, in the GPU's sequence: tiles of
/// 2^ZK_SCAN_TILE_LOG values, the tile totals scanned the same way
/// (recursively), then added back. Inputs past `input.len()` read as zero,
/// so an `out` one longer than `input` ends with the total.
pub fn scan_into(input: &[u32], out: &mut [u32]) {
    out.copy_from_slice(&ok(device().scan(input, out.len())));
}

/// Buckets cut into segments on the device (what [`segments`] returns).
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
/// segments of at most [`SEGMENT`](crate::bucket::SEGMENT) entries by the
/// kernels `zk_segment_count`, the scan and `zk_segment_starts`, as the
/// GPU runs them; equal to [`crate::bucket::Segments::new`].
pub fn segments(offsets: &[u32]) -> DeviceSegments {
    assert!(!offsets.is_empty(), "one more bound than buckets");
    let (seg_start, bucket_seg, widest) = ok(device().segments(offsets));
    DeviceSegments {
        seg_start,
        bucket_seg,
        widest,
    }
}

/// The bucket method as the GPU runs it: count, prefix sum, scatter,
/// segment sums, bucket sums, window slices, the slices of each window
/// summed pairwise, then the windows combined on the host. Integer scalars
/// below 2^256; `window` overrides the window size (2..=16).
pub fn bucket_msm_bigint(
    bases: &[G1Affine],
    scalars: &[BigInt<4>],
    window: Option<u32>,
) -> G1Projective {
    assert_eq!(bases.len(), scalars.len(), "one scalar per base");
    let b: Vec<DeviceAffine> = bases.iter().map(DeviceAffine::from_ark).collect();
    let k: Vec<[u32; 8]> = scalars.iter().map(crate::layout::scalar_limbs).collect();
    ok(device().bucket_msm(&b, &k, false, window))
}

/// One NTT as the GPU runs it ([`crate::plan::NttJob`]): twiddles and coset
/// powers computed by `zk_powers`, pre-scaling, bit reversal, the first
/// stages per block in "shared memory", the later stages in strided passes,
/// post-scaling. `data.len()` must be `2^job.log_n`.
pub fn ntt(data: &mut [Fr], job: &crate::plan::NttJob) {
    ok(device().ntt_batch(&mut [data], job))
}

/// A batch of NTTs as the GPU runs it ([`crate::CudaNtt`]'s
/// `transform_batch`): the vectors stored back to back, each kernel launched
/// once per pass over a 2-D grid (`blockIdx.y` = the vector). Every vector
/// must have `2^job.log_n` values.
pub fn ntt_batch(batch: &mut [Vec<Fr>], job: &crate::plan::NttJob) {
    let n = 1usize << job.log_n;
    assert!(
        batch.iter().all(|v| v.len() == n),
        "one value per point of the domain"
    );
    let mut vectors: Vec<&mut [Fr]> = batch.iter_mut().map(|v| &mut v[..]).collect();
    ok(device().ntt_batch(&mut vectors, job))
}

/// Groth16's quotient as the GPU runs it ([`crate::plan::QuotientJob`]):
/// the three evaluations `abc` (on the domain) stored back to back,
/// interpolated and evaluated on the coset as batches of three,
/// `(a b - c) * z_inv` by the kernel `zk_quotient`, and, for
/// [`QuotientForm::Coefficients`](zkaccel_ntt::QuotientForm), the first
/// vector interpolated from the coset; the result is `h` in the job's form.
pub fn quotient(abc: [Vec<Fr>; 3], job: &crate::plan::QuotientJob) -> Vec<Fr> {
    ok(device().quotient(abc, job))
}

/// Groth16's quotient and the MSM of its first `bases.len()` coefficients
/// as the GPU runs them with `h` kept on the device
/// (`DeviceBases::quotient_msm`): the quotient's launches, then
/// `zk_fr_from_montgomery` on `h` in place and the bucket method on it.
pub fn quotient_msm(
    abc: [Vec<Fr>; 3],
    job: &crate::plan::QuotientJob,
    bases: &[G1Affine],
) -> G1Projective {
    let ctx = device();
    let b: Vec<DeviceAffine> = bases.iter().map(DeviceAffine::from_ark).collect();
    let d = ok(ctx.upload_bases(&b));
    let r = ctx.quotient_msm(abc, job, &d);
    ctx.free_bases(d);
    ok(r)
}
