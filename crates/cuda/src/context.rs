//! [`CudaContext`]: a device ready to run zkaccel's pipelines — a GPU
//! (feature `cuda`) or the host emulation of the same kernels (feature
//! `emulation`) — with its chain tables and cached NTT powers, one caller
//! at a time.

use crate::device::{Device, RawBuf};
use crate::error::CudaError;
#[cfg(feature = "emulation")]
use crate::layout::DeviceXyzz;
use crate::layout::{DeviceAffine, DeviceJacobian};
use crate::pipeline::Gpu;
use crate::plan::{NttJob, QuotientJob};
use ark_bn254::{Fr, G1Projective};
use std::sync::{Mutex, MutexGuard};

/// Device memory of [`CudaContext::emulated`]: 4 GiB, a small GPU.
#[cfg(feature = "emulation")]
#[doc(hidden)]
pub const EMULATED_MEMORY: usize = 4 << 30;

/// A device ready to run zkaccel's kernels: a GPU ([`CudaContext::new`],
/// feature `cuda`) or the host emulation (`CudaContext::emulated`,
/// feature `emulation`), which runs the same pipelines with the same
/// launches, slowly, for tests.
pub struct CudaContext {
    gpu: Mutex<Gpu>,
    ordinal: u32,
    name: String,
    total_memory: usize,
    emulated: bool,
}

impl std::fmt::Debug for CudaContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaContext")
            .field("ordinal", &self.ordinal)
            .field("name", &self.name)
            .field("total_memory", &self.total_memory)
            .field("emulated", &self.emulated)
            .finish()
    }
}

impl CudaContext {
    /// Initialises the driver, opens GPU `ordinal` and loads the kernels.
    /// `Err(CudaError::NoDevice)` where there is no GPU (no panic, no
    /// abort); `Err(CudaError::NotCompiled)` in a build without the
    /// feature `cuda`.
    pub fn new(ordinal: u32) -> Result<CudaContext, CudaError> {
        #[cfg(feature = "cuda")]
        {
            let dev = crate::device::cust::CustDevice::open(ordinal)?;
            CudaContext::on(Box::new(dev), ordinal, false)
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = ordinal;
            Err(CudaError::NotCompiled)
        }
    }

    /// The host emulation of the kernels as a device of
    /// [`EMULATED_MEMORY`] bytes: every pipeline runs its GPU launch
    /// sequence on the host's cores (slowly: a test device).
    #[cfg(feature = "emulation")]
    #[doc(hidden)]
    pub fn emulated() -> CudaContext {
        CudaContext::emulated_with_memory(EMULATED_MEMORY)
    }

    /// The host emulation as a device of `memory` bytes: allocations past
    /// it fail as on a full GPU, so the chunked and out-of-memory paths
    /// can be tested.
    #[cfg(feature = "emulation")]
    #[doc(hidden)]
    pub fn emulated_with_memory(memory: usize) -> CudaContext {
        let dev = crate::device::host::HostDevice::new(memory);
        // The emulation's only allocation here is the tables (32 KiB).
        CudaContext::on(Box::new(dev), 0, true)
            .unwrap_or_else(|e| panic!("an emulated device of {memory} bytes: {e}"))
    }

    fn on(dev: Box<dyn Device>, ordinal: u32, emulated: bool) -> Result<CudaContext, CudaError> {
        let (name, total_memory) = (dev.name().to_string(), dev.total_memory());
        Ok(CudaContext {
            gpu: Mutex::new(Gpu::new(dev)?),
            ordinal,
            name,
            total_memory,
            emulated,
        })
    }

    /// The device's ordinal (0 for the emulation).
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device's memory, in bytes.
    pub fn total_memory(&self) -> usize {
        self.total_memory
    }

    /// Whether this is the host emulation rather than a GPU.
    pub fn is_emulated(&self) -> bool {
        self.emulated
    }

    fn lock(&self) -> Result<MutexGuard<'_, Gpu>, CudaError> {
        let g = self
            .gpu
            .lock()
            .map_err(|_| CudaError::Driver("a previous GPU call panicked".into()))?;
        g.dev().make_current()?;
        Ok(g)
    }

    /// See [`Gpu::dbc_msm`] (lengths checked by the caller).
    pub(crate) fn dbc_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        delta: u32,
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        self.lock()?.dbc_msm(bases, scalars, montgomery, delta)
    }

    /// See [`Gpu::bucket_msm`] (lengths checked by the caller).
    pub(crate) fn bucket_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        window: Option<u32>,
    ) -> Result<G1Projective, CudaError> {
        self.lock()?.bucket_msm(bases, scalars, montgomery, window)
    }

    /// See [`Gpu::upload_bases`].
    pub(crate) fn upload_bases(
        &self,
        bases: &[DeviceAffine],
    ) -> Result<RawBuf<DeviceAffine>, CudaError> {
        self.lock()?.upload_bases(bases)
    }

    /// Frees bases uploaded by [`CudaContext::upload_bases`], with this
    /// device current (as cuMemFree needs).
    pub(crate) fn free_bases(&self, bases: RawBuf<DeviceAffine>) {
        // A poisoned lock: the bases are leaked (a RawBuf frees nothing on
        // drop) rather than freed in no context.
        if let Ok(g) = self.lock() {
            g.free_bases(bases)
        }
    }

    /// See [`Gpu::bucket_msm_resident`].
    pub(crate) fn bucket_msm_resident(
        &self,
        bases: &RawBuf<DeviceAffine>,
        scalars: &[[u32; 8]],
        montgomery: bool,
    ) -> Result<G1Projective, CudaError> {
        self.lock()?.bucket_msm_resident(bases, scalars, montgomery)
    }

    /// See [`Gpu::ntt_batch`] (lengths checked by the caller).
    pub(crate) fn ntt_batch(&self, batch: &mut [&mut [Fr]], job: &NttJob) -> Result<(), CudaError> {
        self.lock()?.ntt_batch(batch, job)
    }

    /// See [`Gpu::quotient`] (shapes checked by the caller).
    pub(crate) fn quotient(
        &self,
        abc: [Vec<Fr>; 3],
        job: &QuotientJob,
    ) -> Result<Vec<Fr>, CudaError> {
        self.lock()?.quotient(abc, job)
    }

    /// See [`Gpu::quotient_msm`] (shapes checked by the caller).
    pub(crate) fn quotient_msm(
        &self,
        abc: [Vec<Fr>; 3],
        job: &QuotientJob,
        bases: &RawBuf<DeviceAffine>,
    ) -> Result<G1Projective, CudaError> {
        self.lock()?.quotient_msm(abc, job, bases.slice())
    }

    /// See [`Gpu::reduce`].
    #[cfg(feature = "emulation")]
    pub(crate) fn reduce(&self, points: &[DeviceJacobian]) -> Result<DeviceJacobian, CudaError> {
        self.lock()?.reduce(points)
    }

    /// See [`Gpu::scan`].
    #[cfg(feature = "emulation")]
    pub(crate) fn scan(&self, input: &[u32], out_len: usize) -> Result<Vec<u32>, CudaError> {
        self.lock()?.scan(input, out_len)
    }

    /// See [`Gpu::segments`].
    #[cfg(feature = "emulation")]
    pub(crate) fn segments(&self, offsets: &[u32]) -> Result<(Vec<u32>, Vec<u32>, u32), CudaError> {
        self.lock()?.segments(offsets)
    }

    /// `a_i * b_i` in BN254 Fq (Montgomery limbs) by the kernel
    /// `zk_fq_mul`, one per thread, for the first `min(a.len(), b.len())`
    /// pairs.
    #[cfg(feature = "emulation")]
    #[doc(hidden)]
    pub fn fq_mul(&self, a: &[[u32; 8]], b: &[[u32; 8]]) -> Result<Vec<[u32; 8]>, CudaError> {
        self.lock()?.fq_mul(a, b)
    }

    /// `a_i + b_i` (Jacobian, add-2007-bl) by the kernel `zk_g1_add`, for
    /// the first `min(a.len(), b.len())` pairs.
    #[cfg(feature = "emulation")]
    #[doc(hidden)]
    pub fn g1_add(
        &self,
        a: &[DeviceJacobian],
        b: &[DeviceJacobian],
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        self.lock()?.g1_add(a, b)
    }

    /// `(2 a_i, 3 a_i)` by the kernel `zk_g1_dbl_tpl`.
    #[cfg(feature = "emulation")]
    #[doc(hidden)]
    pub fn g1_dbl_tpl(
        &self,
        a: &[DeviceJacobian],
    ) -> Result<(Vec<DeviceJacobian>, Vec<DeviceJacobian>), CudaError> {
        self.lock()?.g1_dbl_tpl(a)
    }

    /// `a_i + b_i` (XYZZ plus affine, madd-2008-s) by the kernel
    /// `zk_g1_xyzz_madd`, for the first `min(a.len(), b.len())` pairs.
    #[cfg(feature = "emulation")]
    #[doc(hidden)]
    pub fn xyzz_add_affine(
        &self,
        a: &[DeviceXyzz],
        b: &[DeviceAffine],
    ) -> Result<Vec<DeviceXyzz>, CudaError> {
        self.lock()?.xyzz_add_affine(a, b)
    }
}
