//! [`CudaMsm`]: the MSM provider of the GPU backend (BN254 G1), running the
//! paper's per-thread DBC method, with an explicit CPU fallback.

use crate::device::RawBuf;
use crate::error::CudaError;
use crate::layout::{bigint_slice_limbs, fr_limbs, fr_slice_limbs, scalar_limbs, DeviceAffine};
use crate::plan::quotient_job;
use crate::{CudaContext, CudaNtt};
use ark_bn254::{g1::Config as G1Config, Fr, G1Affine, G1Projective};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, BigInteger, PrimeField, Zero};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;
use zkaccel_core::{check_lengths, BackendCause, MsmError, MsmProvider};
use zkaccel_cpu::CpuMsm;
use zkaccel_ntt::{NttDomain, QuotientForm};

/// The delta of the per-thread chain search (the paper's GPU setting).
pub const DEFAULT_DELTA: u32 = 1;

/// Below this many non-zero terms, [`GpuMethod::Auto`] runs zkaccel's CPU
/// MSM instead of the GPU (the measurement is with the constant, in
/// zkaccel-core, which the Groth16 prover's fused path shares).
pub use zkaccel_core::GPU_MIN_TERMS;

/// [`GpuMethod::Auto`] keeps only the non-zero terms (a parallel filter on
/// the host) when fewer than `1 / SPARSE_FACTOR` of the terms are non-zero,
/// so a sparse MSM moves only its non-zero terms to the device (staging
/// every base costs a conversion and a copy of all of them, docs/cuda.md).
pub const SPARSE_FACTOR: usize = 4;

/// [`GpuMethod::Auto`] keeps an MSM on the CPU when fewer than half of a
/// sample of its non-zero scalars (up to [`WIDTH_SAMPLE`], evenly spaced)
/// are wider than 64 bits: zkaccel's CPU MSM has small-scalar paths, and
/// the GPU's windows follow the widest scalar, so a few wide scalars among
/// bits cost it every window (the SHA-256 proof's A, B and L MSMs ran
/// faster on the CPU, its H MSM on the GPU: docs/cuda.md).
pub const WIDTH_SAMPLE: usize = 1024;

/// Which GPU algorithm [`CudaMsm`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum GpuMethod {
    /// The bucket method from [`GPU_MIN_TERMS`] non-zero terms up when
    /// most scalars are wide ([`WIDTH_SAMPLE`]), the CPU otherwise. The
    /// per-thread DBC method is never chosen: its latency is one thread's
    /// whole chain and scalar multiplication, and it was slower than the
    /// bucket method at every size and density measured (docs/cuda.md).
    #[default]
    Auto,
    /// The bucket method (`kernels/msm/bucket_msm.cuh`).
    Bucket,
    /// The paper's per-thread DBC method (`kernels/msm/dbc_msm.cuh`).
    DbcPerThread,
    /// zkaccel's CPU MSM (what `Auto` resolves to for few terms).
    Cpu,
}

impl GpuMethod {
    /// The method `Auto` resolves to for `nonzero` non-zero terms of which
    /// `wide_sampled` of `sampled` (a sample) are wider than 64 bits.
    pub fn resolve(self, nonzero: usize, wide_sampled: usize, sampled: usize) -> GpuMethod {
        match self {
            GpuMethod::Auto if nonzero < GPU_MIN_TERMS => GpuMethod::Cpu,
            GpuMethod::Auto if 2 * wide_sampled < sampled => GpuMethod::Cpu,
            GpuMethod::Auto => GpuMethod::Bucket,
            m => m,
        }
    }
}

/// The GPU MSM provider for BN254 G1.
///
/// [`CudaMsm::new`] needs a usable GPU. [`CudaMsm::or_cpu`] takes one if
/// there is one and otherwise runs zkaccel's CPU MSM, logging the
/// reason at level warn (so a run never silently loses its GPU).
#[derive(Debug, Clone)]
pub struct CudaMsm {
    gpu: Option<Arc<CudaContext>>,
    fallback_reason: Option<CudaError>,
    delta: u32,
    method: GpuMethod,
    cpu: CpuMsm,
}

impl CudaMsm {
    /// The provider on device `ordinal`; an error if it cannot be used.
    pub fn new(ordinal: u32) -> Result<CudaMsm, CudaError> {
        Ok(CudaMsm::with_context(Arc::new(CudaContext::new(ordinal)?)))
    }

    /// The provider on an open device.
    pub fn with_context(ctx: Arc<CudaContext>) -> CudaMsm {
        CudaMsm {
            gpu: Some(ctx),
            fallback_reason: None,
            delta: DEFAULT_DELTA,
            method: GpuMethod::Auto,
            cpu: CpuMsm::default(),
        }
    }

    /// The GPU on device `ordinal` if usable, else the CPU, with one log
    /// line (level warn) naming the reason.
    pub fn or_cpu(ordinal: u32) -> CudaMsm {
        match CudaMsm::new(ordinal) {
            Ok(m) => m,
            Err(e) => {
                log::warn!("the CUDA MSM is unavailable ({e}); falling back to the CPU MSM");
                CudaMsm {
                    gpu: None,
                    fallback_reason: Some(e),
                    delta: DEFAULT_DELTA,
                    method: GpuMethod::Auto,
                    cpu: CpuMsm::default(),
                }
            }
        }
    }

    /// The same provider with another chain-search delta (0 = NAF only).
    pub fn with_delta(mut self, delta: u32) -> CudaMsm {
        self.delta = delta;
        self
    }

    /// The same provider with another GPU algorithm.
    pub fn with_method(mut self, method: GpuMethod) -> CudaMsm {
        self.method = method;
        self
    }

    /// Whether MSMs run on the GPU.
    pub fn uses_gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// Why the CPU runs them, for a provider made by [`CudaMsm::or_cpu`].
    pub fn fallback_reason(&self) -> Option<&CudaError> {
        self.fallback_reason.as_ref()
    }

    /// Uploads `bases` to the GPU once, for many [`CudaMsm::msm_resident`]
    /// calls on them (a proving key's queries): the per-call upload and
    /// conversion of the bases, most of a large MSM's transfer, is gone.
    /// An error without a GPU (a provider made by [`CudaMsm::or_cpu`] that
    /// fell back) or when the device cannot hold them.
    pub fn upload(&self, bases: &[G1Affine]) -> Result<DeviceBases, MsmError> {
        let Some(ctx) = &self.gpu else {
            return Err(backend_error(
                self.fallback_reason.clone().unwrap_or(CudaError::NoDevice),
            ));
        };
        let (device, infinity) = stage_bases(bases);
        let buf = ctx.upload_bases(&device).map_err(backend_error)?;
        Ok(DeviceBases {
            ctx: ctx.clone(),
            buf: Some(buf),
            infinity: infinity.len(),
            len: bases.len(),
        })
    }

    /// `sum scalars[i] * bases[i]` on bases uploaded by [`CudaMsm::upload`]
    /// (the bucket method, whatever the provider's [`GpuMethod`]); as many
    /// scalars as bases, or fewer (the first bases are used).
    pub fn msm_resident(
        &self,
        bases: &DeviceBases,
        scalars: &[Fr],
    ) -> Result<G1Projective, MsmError> {
        if scalars.len() > bases.len {
            return Err(MsmError::LengthMismatch {
                bases: bases.len,
                scalars: scalars.len(),
            });
        }
        let buf = bases.buf.as_ref().expect("present until drop");
        // The scalars as they are (no copy): a base at infinity is `(0, 0)`,
        // which the kernels' additions skip, so its scalar need not be
        // zeroed (a copy of every scalar for a query with points at
        // infinity, such as most A queries).
        let staged = stage_scalars(scalars, &[]);
        bases
            .ctx
            .bucket_msm_resident(buf, &staged, true)
            .map_err(backend_error)
    }

    /// Groth16's quotient and its MSM with `h` kept on the device
    /// ([`DeviceBases::quotient_msm`]), or, for a provider that fell back
    /// to the CPU, the same result from the CPU NTT and MSM (`bases` given
    /// on the host, as many as `h` has coefficients or fewer).
    pub fn quotient_msm(
        &self,
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
        bases: &[G1Affine],
    ) -> Result<G1Projective, MsmError> {
        self.quotient_msm_in(domain, coset, abc, bases, QuotientForm::Coefficients)
    }

    /// [`CudaMsm::quotient_msm`] with `h` in `form`
    /// ([`QuotientForm::CosetEvaluations`]: circom's).
    pub fn quotient_msm_in(
        &self,
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
        bases: &[G1Affine],
        form: QuotientForm,
    ) -> Result<G1Projective, MsmError> {
        // Checked before the bases are uploaded.
        check_h_bases(bases.len(), domain)?;
        if self.gpu.is_some() {
            return self
                .upload(bases)?
                .quotient_msm_in(domain, coset, abc, form);
        }
        let h = CudaNtt::on_cpu(self.fallback_reason.clone())
            .quotient_in(domain, coset, abc, form)
            .map_err(|e| MsmError::Backend {
                backend: "cuda (cpu fallback)",
                cause: BackendCause::new(e),
            })?;
        self.cpu.msm(bases, &h[..bases.len()])
    }

    /// Runs the non-zero terms on the GPU with the chosen method.
    fn run<S: GpuScalar>(
        &self,
        ctx: &CudaContext,
        bases: &[G1Affine],
        scalars: &[S],
    ) -> Result<G1Projective, MsmError> {
        let backend = backend_error;
        let nonzero = scalars.par_iter().filter(|s| !s.is_zero()).count();
        if nonzero == 0 {
            return Ok(G1Projective::zero());
        }
        // The widths of up to WIDTH_SAMPLE evenly spaced non-zero scalars
        // (only Auto looks at them).
        let (mut wide, mut sampled) = (0, 0);
        if self.method == GpuMethod::Auto && nonzero >= GPU_MIN_TERMS {
            let step = (scalars.len() / WIDTH_SAMPLE).max(1);
            for s in scalars.iter().step_by(step).filter(|s| !s.is_zero()) {
                sampled += 1;
                wide += (s.bits() > 64) as usize;
            }
        }
        let method = self.method.resolve(nonzero, wide, sampled);
        match method {
            GpuMethod::Cpu => return S::cpu_msm(&self.cpu, bases, scalars),
            GpuMethod::Bucket if nonzero * SPARSE_FACTOR >= scalars.len() => {
                // Zero scalars cost the bucket method nothing (no digit lands
                // in a bucket); bases at infinity get a zero scalar.
                let (b, infinity) = stage_bases(bases);
                let k = stage_scalars(scalars, &infinity);
                return ctx.bucket_msm(&b, &k, S::MONTGOMERY, None).map_err(backend);
            }
            _ => {}
        }
        // Sparse input, or the per-thread method: only the non-zero terms
        // (scalar and base) reach the device.
        let (b, k): (Vec<DeviceAffine>, Vec<[u32; 8]>) = bases
            .par_iter()
            .zip(scalars)
            .filter(|(p, s)| !s.is_zero() && !p.is_zero())
            .map(|(p, s)| (DeviceAffine::from_ark(p), s.limbs()))
            .unzip();
        if b.is_empty() {
            return Ok(G1Projective::zero());
        }
        if method == GpuMethod::Bucket {
            return ctx.bucket_msm(&b, &k, S::MONTGOMERY, None).map_err(backend);
        }
        let partial = ctx
            .dbc_msm(&b, &k, S::MONTGOMERY, self.delta)
            .map_err(backend)?;
        let mut sum = G1Projective::zero();
        for p in partial {
            sum += p.to_ark().ok_or_else(|| {
                backend(CudaError::BadResult(
                    "a coordinate of the MSM result is not below the field modulus".into(),
                ))
            })?;
        }
        Ok(sum)
    }
}

impl MsmProvider<G1Config> for CudaMsm {
    fn name(&self) -> &'static str {
        if self.gpu.is_some() {
            "cuda"
        } else {
            "cuda (cpu fallback)"
        }
    }

    fn msm(&self, bases: &[G1Affine], scalars: &[Fr]) -> Result<G1Projective, MsmError> {
        check_lengths(bases.len(), scalars.len())?;
        match &self.gpu {
            Some(ctx) => self.run(ctx, bases, scalars),
            None => MsmProvider::<G1Config>::msm(&self.cpu, bases, scalars),
        }
    }

    fn msm_bigint(
        &self,
        bases: &[G1Affine],
        scalars: &[BigInt<4>],
    ) -> Result<G1Projective, MsmError> {
        check_lengths(bases.len(), scalars.len())?;
        match &self.gpu {
            Some(ctx) => self.run(ctx, bases, scalars),
            None => MsmProvider::<G1Config>::msm_bigint(&self.cpu, bases, scalars),
        }
    }
}

/// The two scalar forms the GPU MSM takes: field elements (their Montgomery
/// limbs go up, the device converts them) and integers.
trait GpuScalar: Sync + Sized {
    /// Whether the device converts the limbs from Montgomery form.
    const MONTGOMERY: bool;
    fn is_zero(&self) -> bool;
    /// The limbs the device receives.
    fn limbs(&self) -> [u32; 8];
    /// A whole slice as those limbs without a copy, where the layout allows.
    fn view(xs: &[Self]) -> Option<&[[u32; 8]]>;
    /// The scalar's bit length as an integer.
    fn bits(&self) -> u32;
    /// The same MSM on the CPU.
    fn cpu_msm(cpu: &CpuMsm, bases: &[G1Affine], k: &[Self]) -> Result<G1Projective, MsmError>;
}

impl GpuScalar for Fr {
    const MONTGOMERY: bool = true;
    fn is_zero(&self) -> bool {
        Zero::is_zero(self)
    }
    fn limbs(&self) -> [u32; 8] {
        fr_limbs(self)
    }
    fn view(xs: &[Self]) -> Option<&[[u32; 8]]> {
        fr_slice_limbs(xs)
    }
    fn bits(&self) -> u32 {
        self.into_bigint().num_bits()
    }
    fn cpu_msm(cpu: &CpuMsm, bases: &[G1Affine], k: &[Self]) -> Result<G1Projective, MsmError> {
        MsmProvider::<G1Config>::msm(cpu, bases, k)
    }
}

impl GpuScalar for BigInt<4> {
    const MONTGOMERY: bool = false;
    fn is_zero(&self) -> bool {
        BigInteger::is_zero(self)
    }
    fn limbs(&self) -> [u32; 8] {
        scalar_limbs(self)
    }
    fn view(xs: &[Self]) -> Option<&[[u32; 8]]> {
        bigint_slice_limbs(xs)
    }
    fn bits(&self) -> u32 {
        self.num_bits()
    }
    fn cpu_msm(cpu: &CpuMsm, bases: &[G1Affine], k: &[Self]) -> Result<G1Projective, MsmError> {
        MsmProvider::<G1Config>::msm_bigint(cpu, bases, k)
    }
}

/// A failure of the GPU path (the driver's `CudaError`, or a refused
/// quotient shape) as an [`MsmError`], the error kept typed.
fn backend_error<E: std::error::Error + Send + Sync + 'static>(e: E) -> MsmError {
    MsmError::Backend {
        backend: "cuda",
        cause: BackendCause::new(e),
    }
}

/// The kernels' form of `bases` (in parallel) and the indices of the points
/// at infinity among them (stored as `(0, 0)`, which the kernels' additions
/// skip: their scalars are zeroed only to save the work).
fn stage_bases(bases: &[G1Affine]) -> (Vec<DeviceAffine>, Vec<u32>) {
    let device: Vec<DeviceAffine> = bases.par_iter().map(DeviceAffine::from_ark).collect();
    let infinity: Vec<u32> = bases
        .par_iter()
        .enumerate()
        .filter(|(_, p)| p.is_zero())
        .map(|(i, _)| i as u32)
        .collect();
    (device, infinity)
}

/// The scalars' limbs, with those at `zero` indices set to zero: borrowed
/// from `scalars` when no index is to be zeroed and [`GpuScalar::view`] can
/// reinterpret them in place, else converted in parallel.
fn stage_scalars<'a, S: GpuScalar>(scalars: &'a [S], zero: &[u32]) -> Cow<'a, [[u32; 8]]> {
    if zero.iter().all(|&i| i as usize >= scalars.len()) {
        if let Some(v) = S::view(scalars) {
            return Cow::Borrowed(v);
        }
    }
    let mut k: Vec<[u32; 8]> = scalars.par_iter().map(S::limbs).collect();
    for &i in zero {
        if let Some(x) = k.get_mut(i as usize) {
            *x = [0; 8];
        }
    }
    Cow::Owned(k)
}

/// BN254 G1 bases held in GPU memory by [`CudaMsm::upload`], for
/// [`CudaMsm::msm_resident`]; freed on drop.
pub struct DeviceBases {
    ctx: Arc<CudaContext>,
    buf: Option<RawBuf<DeviceAffine>>,
    /// How many of the bases are the point at infinity.
    infinity: usize,
    len: usize,
}

impl DeviceBases {
    /// How many bases.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// At most as many bases as the quotient `h` on `domain` has coefficients.
fn check_h_bases(bases: usize, domain: &NttDomain<Fr>) -> Result<(), MsmError> {
    let n = domain.as_radix2().size as usize;
    if bases > n {
        return Err(MsmError::LengthMismatch { bases, scalars: n });
    }
    Ok(())
}

impl DeviceBases {
    /// Groth16's quotient `h = (a b - c) / Z` from the evaluations `abc` of
    /// `a`, `b`, `c` on `domain` (as [`CudaNtt::quotient`]), then `sum_i h_i
    /// B_i` over these bases (at most as many as `h` has coefficients: the
    /// first ones are used), with `h` kept on the device between the two:
    /// the quotient's download and the MSM's upload of its scalars are
    /// gone. Shapes are checked as [`CudaNtt::quotient`] checks them.
    pub fn quotient_msm(
        &self,
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
    ) -> Result<G1Projective, MsmError> {
        self.quotient_msm_in(domain, coset, abc, QuotientForm::Coefficients)
    }

    /// [`DeviceBases::quotient_msm`] with `h` in `form`
    /// ([`QuotientForm::CosetEvaluations`]: circom's `a b - c` on the coset,
    /// six transforms).
    pub fn quotient_msm_in(
        &self,
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
        form: QuotientForm,
    ) -> Result<G1Projective, MsmError> {
        check_h_bases(self.len, domain)?;
        let job = quotient_job(domain, coset, &abc, form).map_err(backend_error)?;
        let buf = self.buf.as_ref().expect("present until drop");
        self.ctx.quotient_msm(abc, &job, buf).map_err(backend_error)
    }
}

impl std::fmt::Debug for DeviceBases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBases")
            .field("len", &self.len)
            .field("at_infinity", &self.infinity)
            .finish()
    }
}

impl Drop for DeviceBases {
    fn drop(&mut self) {
        if let Some(b) = self.buf.take() {
            self.ctx.free_bases(b);
        }
    }
}
