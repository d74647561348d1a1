//! The Rust side of every kernel in `kernels/zkaccel.cu`, written once: a
//! typed launch function per `__global__` entry point, which the GPU
//! ([`crate::device::cust`]) and the host emulation
//! ([`crate::device::host`]) both receive as a name and an argument list in
//! `cuLaunchKernel`'s form. Pointer parameters are [`Slice`]s, the rest
//! plain values of the kernel's parameter types (`bn254_fr` by value is
//! `[u32; 8]` of Montgomery limbs).

use crate::bucket::BucketParams;
use crate::device::{Device, Grid, KernelArg, Slice};
use crate::error::CudaError;
use crate::layout::{DeviceAffine, DeviceJacobian, DeviceXyzz};
use crate::tables::DbcTables;

macro_rules! kernels {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?);
    )*) => {$(
        $(#[doc = $doc])*
        ///
        /// # Safety
        /// Every slice is valid for what the kernel reads and writes over
        /// `grid` (see its body in `kernels/`).
        // Some entry points only serve the tests (the formula kernels).
        #[allow(clippy::too_many_arguments, dead_code)]
        pub(crate) unsafe fn $name(
            dev: &dyn Device,
            grid: Grid,
            $($arg: $ty),*
        ) -> Result<(), CudaError> {
            $(let $arg = KernelArg::raw($arg);)*
            let args = [$(&$arg as *const _ as *mut std::ffi::c_void),*];
            // SAFETY: the argument list is the kernel's parameter list, in
            // order and type (the values live until the call returns); the
            // buffers are the caller's promise.
            unsafe { dev.launch(stringify!($name), grid, &args) }
        }
    )*};
}

kernels! {
    /// Fr scalars from Montgomery form to integers, in place.
    fn zk_fr_from_montgomery(scalars: Slice<[u32; 8]>, n: u32);
    /// `out[i] = k_i P_i` by the thread's own δ-suboptimal chain.
    fn zk_dbc_msm_terms(
        bases: Slice<DeviceAffine>,
        scalars: Slice<[u32; 8]>,
        out: Slice<DeviceJacobian>,
        n: u32,
        delta: u32,
        tables: Slice<DbcTables>,
    );
    /// `out[i] = in[2i] + in[2i + 1]` (the last one alone when `n` is odd).
    fn zk_reduce_pairs(input: Slice<DeviceJacobian>, out: Slice<DeviceJacobian>, n: u32);
    /// The widest scalar's bit length into `bits[0]` (atomic max).
    fn zk_scalar_bits(scalars: Slice<[u32; 8]>, bits: Slice<u32>, n: u32);
    /// Entries per bucket (atomic increments).
    fn zk_bucket_count(scalars: Slice<[u32; 8]>, counts: Slice<u32>, p: BucketParams);
    /// Exclusive prefix sums of tiles of `input` (values past `count` read
    /// as zero), each tile's total into `tile_sums`.
    fn zk_scan_tiles(
        input: Slice<u32>,
        count: u32,
        out: Slice<u32>,
        len: u32,
        tile_sums: Slice<u32>,
    );
    /// Adds each tile's offset to its values.
    fn zk_scan_add(out: Slice<u32>, tile_offsets: Slice<u32>, len: u32);
    /// Segments per bucket, and the widest bucket (atomic max).
    fn zk_segment_count(offsets: Slice<u32>, nseg: Slice<u32>, widest: Slice<u32>, m: u32);
    /// Each bucket's segment bounds.
    fn zk_segment_starts(offsets: Slice<u32>, first: Slice<u32>, seg_start: Slice<u32>, m: u32);
    /// Every (term, window) entry into its bucket's next slot.
    fn zk_bucket_scatter(
        scalars: Slice<[u32; 8]>,
        cursors: Slice<u32>,
        entries: Slice<u32>,
        p: BucketParams,
    );
    /// Each segment's sum of bases.
    fn zk_bucket_segments(
        bases: Slice<DeviceAffine>,
        entries: Slice<u32>,
        seg_start: Slice<u32>,
        seg_sums: Slice<DeviceXyzz>,
        segments: u32,
    );
    /// Each range's sum of segment sums.
    fn zk_bucket_collect(
        seg_sums: Slice<DeviceXyzz>,
        bucket_seg: Slice<u32>,
        buckets: Slice<DeviceXyzz>,
        total_buckets: u32,
    );
    /// Running sums of each window's buckets, cut into `slices` slices.
    fn zk_window_reduce(
        buckets: Slice<DeviceXyzz>,
        out: Slice<DeviceJacobian>,
        p: BucketParams,
        slices: u32,
    );
    /// `out[i] = base^i` for `i < count`.
    fn zk_powers(out: Slice<[u32; 8]>, count: u32, base: [u32; 8]);
    /// Bit reversal of each vector of `2^log_n` values.
    fn zk_ntt_bitrev(data: Slice<[u32; 8]>, log_n: u32);
    /// The first `k` stages, one block per `2^k` contiguous values.
    fn zk_ntt_block_stages(data: Slice<[u32; 8]>, tw: Slice<[u32; 8]>, log_n: u32, k: u32);
    /// Stages `s0..s0 + k`, one block per group of `2^k` strided values.
    fn zk_ntt_group_stages(
        data: Slice<[u32; 8]>,
        tw: Slice<[u32; 8]>,
        log_n: u32,
        s0: u32,
        k: u32,
    );
    /// `data[i] *= powers[i] * factor` (`powers` read only if `has_powers`).
    fn zk_ntt_scale(
        data: Slice<[u32; 8]>,
        powers: Slice<[u32; 8]>,
        has_powers: u32,
        factor: [u32; 8],
        n: u32,
    );
    /// `a[i] = (a[i] b[i] - c[i]) z_inv` over `abc` = a, b, c back to back.
    fn zk_quotient(abc: Slice<[u32; 8]>, z_inv: [u32; 8], n: u32);
    /// `out[i] = a[i] b[i]` in Fq.
    fn zk_fq_mul(a: Slice<[u32; 8]>, b: Slice<[u32; 8]>, out: Slice<[u32; 8]>, n: u32);
    /// `out[i] = a[i] + b[i]` (Jacobian).
    fn zk_g1_add(
        a: Slice<DeviceJacobian>,
        b: Slice<DeviceJacobian>,
        out: Slice<DeviceJacobian>,
        n: u32,
    );
    /// `dbl[i] = 2 a[i]`, `tpl[i] = 3 a[i]`.
    fn zk_g1_dbl_tpl(
        a: Slice<DeviceJacobian>,
        dbl: Slice<DeviceJacobian>,
        tpl: Slice<DeviceJacobian>,
        n: u32,
    );
    /// `out[i] = a[i] + b[i]` (XYZZ plus affine).
    fn zk_g1_xyzz_madd(
        a: Slice<DeviceXyzz>,
        b: Slice<DeviceAffine>,
        out: Slice<DeviceXyzz>,
        n: u32,
    );
}
