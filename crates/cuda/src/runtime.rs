//! The GPU runtime on `cust` 0.3 (feature `cuda`): one context per device,
//! the embedded PTX loaded as a module, a stream, device buffers, and the
//! MSM pipeline (`zk_fr_from_montgomery` where needed, `zk_dbc_msm_terms`,
//! then `zk_reduce_pairs` round by round, as [`crate::plan`] lays out and as
//! the host emulation runs it), chunked to fit device memory.

use crate::bucket::{combine_windows, BucketParams, SCAN_TILE, SEGMENT};
use crate::error::CudaError;
use crate::layout::{fr_from_limbs, fr_limbs, fr_slice_limbs, fr_slice_limbs_mut};
use crate::layout::{DeviceAffine, DeviceJacobian, DeviceXyzz};
use crate::ntt::{vectors_per_chunk, NttJob, QuotientJob, MAX_BATCH};
use crate::plan::{terms_per_chunk, LaunchPlan, ReductionRounds, Round, BYTES_PER_TERM};
use crate::tables::DbcTables;
use ark_bn254::{Fr, G1Projective};
use ark_ff::{One, Zero};
use cust::context::{Context, CurrentContext};
use cust::device::Device;
use cust::launch;
use cust::memory::{AsyncCopyDestination, CopyDestination, DeviceBox, DeviceBuffer, DeviceSlice};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::CudaFlags;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

/// Bases kept on the device between MSMs ([`crate::DeviceBases`]).
pub(crate) type BasesBuffer = DeviceBuffer<DeviceAffine>;

/// Per-step timings of the GPU pipelines, logged (level info, target
/// `zkaccel_cuda::profile`) when the environment variable
/// `ZKACCEL_CUDA_PROFILE` is set: each lap waits for
/// the stream, so profiling serialises the steps it measures.
struct Laps<'a> {
    stream: &'a Stream,
    what: &'static str,
    start: Option<std::time::Instant>,
    last: std::time::Duration,
    laps: Vec<(&'static str, f64)>,
}

impl<'a> Laps<'a> {
    fn new(stream: &'a Stream, what: &'static str) -> Laps<'a> {
        let on = std::env::var_os("ZKACCEL_CUDA_PROFILE").is_some();
        Laps {
            stream,
            what,
            start: on.then(std::time::Instant::now),
            last: std::time::Duration::ZERO,
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, name: &'static str) -> Result<(), CudaError> {
        if let Some(t) = self.start {
            self.stream.synchronize()?;
            let now = t.elapsed();
            self.laps
                .push((name, (now - self.last).as_secs_f64() * 1e3));
            self.last = now;
        }
        Ok(())
    }
}

impl Drop for Laps<'_> {
    fn drop(&mut self) {
        if self.start.is_some() {
            let steps: Vec<String> = self
                .laps
                .iter()
                .map(|(n, ms)| format!("{n} {ms:.3}"))
                .collect();
            log::info!(
                target: "zkaccel_cuda::profile",
                "{}: total {:.3} ms: {}",
                self.what,
                self.last.as_secs_f64() * 1e3,
                steps.join(", ")
            );
        }
    }
}

/// The PTX built from `kernels/zkaccel.cu` (PTX ISA 8.0, compute_80).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/zkaccel.ptx"));

// Fields drop in declaration order: everything that lives in the context
// goes before the context itself (destroying the context first made every
// later unload and free crash: seen on an H100, the first GPU run).
struct Inner {
    module: Module,
    stream: Stream,
    tables: DeviceBox<DbcTables>,
    /// `base^i` for `i < count`, by `(count, base's limbs)`: the NTT's
    /// twiddles and coset powers, kept for the next transform of the domain.
    powers: HashMap<(u32, [u32; 8]), DeviceBuffer<[u32; 8]>>,
    ctx: Context,
}

/// Powers tables kept at most (a Groth16 quotient uses four: the twiddles
/// of each direction and the coset's powers of g and 1/g; a few domains
/// fit).
const MAX_POWER_TABLES: usize = 12;

/// Makes sure `g.powers` holds the twiddles and coset powers that `jobs`
/// read, all at once (tables are evicted before, never between, so every
/// table of the batch is there when the transforms run).
fn ensure_job_powers(g: &mut Inner, jobs: &[&NttJob]) -> Result<(), CudaError> {
    let mut keys = Vec::new();
    for job in jobs {
        let n = 1u32 << job.log_n;
        keys.push(((n / 2).max(1), fr_limbs(&job.root)));
        for base in [job.pre, job.post_powers].into_iter().flatten() {
            keys.push((n, fr_limbs(&base)));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys.retain(|k| !g.powers.contains_key(k));
    if g.powers.len() + keys.len() > MAX_POWER_TABLES {
        // Kernels still queued may read the old tables: wait, then free.
        g.stream.synchronize()?;
        g.powers.clear();
    }
    for key in keys {
        make_powers(g, key)?;
    }
    Ok(())
}

/// Copies field elements (their Montgomery limbs) into `d` (same length).
fn upload_fr_into(data: &[Fr], d: &mut DeviceSlice<[u32; 8]>) -> Result<(), CudaError> {
    match fr_slice_limbs(data) {
        Some(v) => d.copy_from(v)?,
        None => d.copy_from(&data.iter().map(fr_limbs).collect::<Vec<_>>()[..])?,
    }
    Ok(())
}

/// A device buffer holding `vectors` back to back (the layout of the
/// batched NTT kernels).
fn upload_fr_batch<V: AsRef<[Fr]>>(vectors: &[V]) -> Result<DeviceBuffer<[u32; 8]>, CudaError> {
    let n = vectors.first().map_or(0, |v| v.as_ref().len());
    // Every element is written by the copies below before a kernel reads it.
    let d = alloc_output::<[u32; 8]>(n * vectors.len())?;
    for (i, v) in vectors.iter().enumerate() {
        upload_fr_into(v.as_ref(), &mut d.index(i * n..(i + 1) * n))?;
    }
    Ok(d)
}

/// Copies `d` back into `data` and checks every value is below the modulus
/// (an error otherwise: the contents of `data` are then unspecified).
fn download_fr(d: &DeviceSlice<[u32; 8]>, data: &mut [Fr]) -> Result<(), CudaError> {
    let below = |l: &[u32; 8]| fr_from_limbs(l).is_some();
    let ok = match fr_slice_limbs_mut(data) {
        Some(out) => {
            d.copy_to(&mut *out)?;
            out.par_iter().all(below)
        }
        None => {
            let mut out = vec![[0u32; 8]; data.len()];
            d.copy_to(&mut out[..])?;
            let ok = out.par_iter().all(below);
            for (x, l) in data.iter_mut().zip(&out) {
                *x = fr_from_limbs(l).unwrap_or_default();
            }
            ok
        }
    };
    if ok {
        Ok(())
    } else {
        Err(CudaError::BadResult(
            "an NTT output is not below the modulus".into(),
        ))
    }
}

/// The NTT of each of the `vectors` back-to-back vectors of `2^job.log_n`
/// values in `d`, in place, on the stream, each pass one launch over a 2-D
/// grid (`blockIdx.y` = the vector; `vectors <= MAX_BATCH`), the powers
/// already made by [`ensure_job_powers`]; waits for it.
fn ntt_on_device(
    g: &Inner,
    d: &DeviceSlice<[u32; 8]>,
    vectors: u32,
    job: &NttJob,
    laps: &mut Laps<'_>,
) -> Result<(), CudaError> {
    let n = 1u32 << job.log_n;
    assert!(
        (1..=MAX_BATCH as u32).contains(&vectors) && d.len() == n as usize * vectors as usize,
        "checked by the callers"
    );
    let (module, stream) = (&g.module, &g.stream);
    let all = LaunchPlan::for_threads(n);
    let powers = |count: u32, base: &Fr| &g.powers[&(count, fr_limbs(base))];
    let scale = |pw: Option<&DeviceBuffer<[u32; 8]>>, factor: &Fr| -> Result<(), CudaError> {
        let f = fr_limbs(factor);
        let (ptr, has) = match pw {
            Some(p) => (p.as_device_ptr(), 1u32),
            None => (d.as_device_ptr(), 0u32), // not read when has = 0
        };
        // SAFETY: n values per vector and, when has = 1, n powers.
        unsafe {
            launch!(module.zk_ntt_scale<<<(all.grid, vectors), all.block, 0, stream>>>(
                d.as_device_ptr(), ptr, has, f, n))?;
        }
        Ok(())
    };
    if let Some(gen) = job.pre {
        scale(Some(powers(n, &gen)), &Fr::one())?;
    }
    let tw = powers((n / 2).max(1), &job.root);
    // SAFETY: argument types and counts match the kernel's signature.
    unsafe {
        launch!(module.zk_ntt_bitrev<<<(all.grid, vectors), all.block, 0, stream>>>(
            d.as_device_ptr(), job.log_n))?;
    }
    laps.lap("pre-scaling and bit reversal")?;
    let k = job.block_stages();
    if k > 0 {
        let threads = (1u32 << k) / 2;
        // SAFETY: each block works on its own 2^k elements of its vector.
        unsafe {
            launch!(module.zk_ntt_block_stages<<<(n >> k, vectors), threads, 0, stream>>>(
                d.as_device_ptr(), tw.as_device_ptr(), job.log_n, k))?;
        }
    }
    laps.lap("block stages")?;
    for (s0, k) in job.group_passes() {
        let threads = (1u32 << k) / 2;
        // SAFETY: each block works on its own 2^k strided elements of its vector.
        unsafe {
            launch!(module.zk_ntt_group_stages<<<(n >> k, vectors), threads, 0, stream>>>(
                d.as_device_ptr(), tw.as_device_ptr(), job.log_n, s0, k))?;
        }
    }
    laps.lap("strided passes")?;
    if job.post_powers.is_some() || job.post_factor.is_some() {
        let pw = job.post_powers.map(|gen| powers(n, &gen));
        scale(pw, &job.post_factor.unwrap_or(Fr::one()))?;
    }
    stream.synchronize()?;
    laps.lap("post-scaling")?;
    Ok(())
}

/// Computes `base^i` for `i < count` (`key = (count, base)`) into
/// `g.powers` with `zk_powers` on the device.
fn make_powers(g: &mut Inner, key: (u32, [u32; 8])) -> Result<(), CudaError> {
    let (count, base) = key;
    let out = alloc_output::<[u32; 8]>(count as usize)?;
    let p = LaunchPlan::for_threads(count);
    let module = &g.module;
    let stream = &g.stream;
    // SAFETY: argument types and counts match the kernel's signature;
    // thread i < count writes out[i].
    unsafe {
        launch!(module.zk_powers<<<p.grid, p.block, 0, stream>>>(
            out.as_device_ptr(), count, base))?;
    }
    g.powers.insert(key, out);
    Ok(())
}

/// A CUDA device ready to run zkaccel's kernels.
pub struct CudaContext {
    inner: Mutex<Inner>,
    ordinal: u32,
    name: String,
    total_memory: usize,
}

impl std::fmt::Debug for CudaContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaContext")
            .field("ordinal", &self.ordinal)
            .field("name", &self.name)
            .field("total_memory", &self.total_memory)
            .finish()
    }
}

impl CudaContext {
    /// Initialises the driver, opens device `ordinal` and loads the kernels.
    /// `Err(CudaError::NoDevice)` where there is no GPU (no panic, no abort).
    pub fn new(ordinal: u32) -> Result<CudaContext, CudaError> {
        cust::init(CudaFlags::empty())?;
        let count = Device::num_devices()?;
        if count == 0 {
            return Err(CudaError::NoDevice);
        }
        if ordinal >= count {
            return Err(CudaError::InvalidDevice { ordinal, count });
        }
        let device = Device::get_device(ordinal)?;
        let ctx = Context::new(device)?;
        CurrentContext::set_current(&ctx)?;
        let module = Module::from_ptx(PTX, &[])?;
        // A blocking stream: it orders after the synchronous copies cust makes
        // on the legacy default stream, so a kernel never reads a buffer
        // whose upload is still in flight.
        let stream = Stream::new(StreamFlags::DEFAULT, None)?;
        let tables = DeviceBox::new(&*DbcTables::new())?;
        Ok(CudaContext {
            name: device.name()?,
            total_memory: device.total_memory()?,
            ordinal,
            inner: Mutex::new(Inner {
                ctx,
                module,
                stream,
                tables,
                powers: HashMap::new(),
            }),
        })
    }

    /// The device's ordinal.
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

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Inner>, CudaError> {
        let g = self
            .inner
            .lock()
            .map_err(|_| CudaError::Driver("a previous GPU call panicked".into()))?;
        CurrentContext::set_current(&g.ctx)?;
        Ok(g)
    }

    /// `sum k_i P_i` by the paper's per-thread DBC method; `scalars` are
    /// integers, or Fr Montgomery limbs when `montgomery`. Inputs larger than
    /// the free device memory run in chunks, summed on the host.
    pub fn dbc_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        delta: u32,
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        assert_eq!(bases.len(), scalars.len(), "checked by the caller");
        let g = self.lock()?;
        let (free, _) = cust::memory::mem_get_info()?;
        let chunk = terms_per_chunk(free);
        if chunk == 0 && !bases.is_empty() {
            return Err(CudaError::OutOfMemory {
                requested: BYTES_PER_TERM,
                free,
            });
        }
        let mut partial = Vec::new();
        for (b, k) in bases.chunks(chunk.max(1)).zip(scalars.chunks(chunk.max(1))) {
            partial.push(run_chunk(&g, b, k, montgomery, delta)?);
        }
        Ok(partial)
    }

    /// `sum k_i P_i` by the bucket method (`kernels/msm/bucket_msm.cuh`),
    /// in the sequence [`crate::emulation::bucket_msm_bigint`] emulates;
    /// `scalars` are integers, or Fr Montgomery limbs when `montgomery`.
    /// Inputs too large for the free device memory run in chunks.
    pub fn bucket_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
    ) -> Result<G1Projective, CudaError> {
        assert_eq!(bases.len(), scalars.len(), "checked by the caller");
        let g = self.lock()?;
        let (free, _) = cust::memory::mem_get_info()?;
        let budget = free / 10 * 8;
        let mut chunk = bases.len().max(1);
        while chunk > 1 && bucket_bytes(chunk) > budget {
            chunk = chunk.div_ceil(2);
        }
        if bucket_bytes(chunk) > budget {
            return Err(CudaError::OutOfMemory {
                requested: bucket_bytes(chunk),
                free,
            });
        }
        let mut sum = G1Projective::zero();
        for (b, k) in bases.chunks(chunk).zip(scalars.chunks(chunk)) {
            sum += run_bucket_chunk(&g, b, k, montgomery)?;
        }
        Ok(sum)
    }

    /// Uploads bases for [`CudaContext::bucket_msm_resident`] (points at
    /// infinity as `(0, 0)`: the caller zeroes their scalars).
    pub(crate) fn upload_bases(&self, bases: &[DeviceAffine]) -> Result<BasesBuffer, CudaError> {
        let _g = self.lock()?;
        upload(bases)
    }

    /// Frees bases uploaded by [`CudaContext::upload_bases`], with this
    /// context current (as cuMemFree needs).
    pub(crate) fn free_bases(&self, bases: BasesBuffer) {
        match self.lock() {
            Ok(_g) => drop(bases),
            // A poisoned lock: leak rather than free in no context.
            Err(_) => std::mem::forget(bases),
        }
    }

    /// The bucket method on bases uploaded by [`CudaContext::upload_bases`]
    /// (at least `scalars.len()` of them); `scalars` as for
    /// [`CudaContext::bucket_msm`]. One chunk: an error if the device cannot
    /// hold its working memory.
    pub(crate) fn bucket_msm_resident(
        &self,
        bases: &BasesBuffer,
        scalars: &[[u32; 8]],
        montgomery: bool,
    ) -> Result<G1Projective, CudaError> {
        assert!(bases.len() >= scalars.len(), "checked by the caller");
        if scalars.is_empty() {
            return Ok(G1Projective::zero());
        }
        let g = self.lock()?;
        let (free, _) = cust::memory::mem_get_info()?;
        let need = bucket_bytes(scalars.len()) - scalars.len() * 64;
        if need > free / 10 * 8 {
            return Err(CudaError::OutOfMemory {
                requested: need,
                free,
            });
        }
        let laps = Laps::new(&g.stream, "bucket msm (resident bases)");
        bucket_pipeline(&g, bases, scalars, montgomery, laps)
    }

    /// One NTT of `data` (length `2^job.log_n`) on the device, in the
    /// sequence [`crate::emulation::ntt`] emulates. Twiddles and coset powers
    /// stay on the device for the next transforms of the same domain.
    pub fn ntt(&self, data: &mut [Fr], job: &NttJob) -> Result<(), CudaError> {
        self.ntt_batch(&mut [data], job)
    }

    /// The NTT of every vector of `batch` (each of length `2^job.log_n`),
    /// in the sequence [`crate::emulation::ntt_batch`] emulates: as many
    /// vectors at a time as fit in 80% of the free device memory (and
    /// [`MAX_BATCH`]), uploaded back to back, each pass one launch for all
    /// of them.
    pub fn ntt_batch(&self, batch: &mut [&mut [Fr]], job: &NttJob) -> Result<(), CudaError> {
        let n = 1usize << job.log_n;
        assert!(batch.iter().all(|v| v.len() == n), "checked by the caller");
        let mut g = self.lock()?;
        ensure_job_powers(&mut g, &[job])?;
        let g = &*g;
        let free = cust::memory::mem_get_info()?.0;
        for chunk in batch.chunks_mut(vectors_per_chunk(job.log_n, free)) {
            let mut laps = Laps::new(&g.stream, "ntt");
            let d = upload_fr_batch(chunk)?;
            laps.lap("upload")?;
            ntt_on_device(g, &d, chunk.len() as u32, job, &mut laps)?;
            for (i, v) in chunk.iter_mut().enumerate() {
                download_fr(&d.index(i * n..(i + 1) * n), v)?;
            }
            laps.lap("download and check")?;
        }
        Ok(())
    }

    /// Groth16's quotient ([`crate::ntt::QuotientJob`]) on the device, in
    /// the sequence [`crate::emulation::quotient`] emulates: the three
    /// vectors go up once, back to back, and are transformed as batches of
    /// three; `h` comes back.
    pub fn quotient(&self, abc: [Vec<Fr>; 3], job: &QuotientJob) -> Result<Vec<Fr>, CudaError> {
        let n = 1usize << job.interpolate.log_n;
        let mut g = self.lock()?;
        ensure_job_powers(&mut g, &[&job.interpolate, &job.to_coset, &job.from_coset])?;
        let g = &*g;
        let mut laps = Laps::new(&g.stream, "quotient");
        let [mut a, b, c] = abc;
        let d = quotient_on_device(g, [&a, &b, &c], job, &mut laps)?;
        drop((b, c));
        download_fr(&d.index(0..n), &mut a)?;
        laps.lap("download and check")?;
        Ok(a)
    }

    /// Groth16's quotient and the MSM of its first `bases.len()`
    /// coefficients on bases uploaded by [`CudaContext::upload_bases`], with
    /// `h` kept on the device between the two, in the sequence
    /// [`crate::emulation::quotient_msm`] emulates: the quotient's job, then
    /// the bucket method on `h` in place. One chunk: an error if the device
    /// cannot hold the three vectors and the MSM's working memory.
    pub(crate) fn quotient_msm(
        &self,
        abc: [Vec<Fr>; 3],
        job: &QuotientJob,
        bases: &BasesBuffer,
    ) -> Result<G1Projective, CudaError> {
        let n = 1usize << job.interpolate.log_n;
        let len = bases.len();
        assert!(len <= n, "checked by the caller");
        let mut g = self.lock()?;
        ensure_job_powers(&mut g, &[&job.interpolate, &job.to_coset, &job.from_coset])?;
        let g = &*g;
        let (free, _) = cust::memory::mem_get_info()?;
        let need = 3 * n * 32 + bucket_bytes(len) - len * (64 + 32);
        if need > free / 10 * 8 {
            return Err(CudaError::OutOfMemory {
                requested: need,
                free,
            });
        }
        let mut laps = Laps::new(&g.stream, "quotient and msm");
        let [a, b, c] = abc;
        let d = quotient_on_device(g, [&a, &b, &c], job, &mut laps)?;
        drop((a, b, c));
        if len == 0 {
            return Ok(G1Projective::zero());
        }
        bucket_on_device(g, bases, &d.index(0..len), true, laps)
    }

    /// `a_i * b_i` in Fq on the device (Montgomery limbs), one per thread.
    pub fn fq_mul(&self, a: &[[u32; 8]], b: &[[u32; 8]]) -> Result<Vec<[u32; 8]>, CudaError> {
        let g = self.lock()?;
        let n = a.len().min(b.len()) as u32;
        let (da, db) = (
            DeviceBuffer::from_slice(&a[..n as usize])?,
            DeviceBuffer::from_slice(&b[..n as usize])?,
        );
        let out = DeviceBuffer::from_slice(&vec![[0u32; 8]; n.max(1) as usize])?;
        let p = LaunchPlan::for_threads(n);
        let (module, stream) = (&g.module, &g.stream);
        // SAFETY: argument types and counts match the kernel's signature.
        unsafe {
            launch!(module.zk_fq_mul<<<p.grid, p.block, 0, stream>>>(
                da.as_device_ptr(), db.as_device_ptr(), out.as_device_ptr(), n))?;
        }
        stream.synchronize()?;
        let mut host = vec![[0u32; 8]; n.max(1) as usize];
        out.copy_to(&mut host[..])?;
        host.truncate(n as usize);
        Ok(host)
    }

    /// `a_i + b_i` (Jacobian, add-2007-bl) on the device.
    pub fn g1_add(
        &self,
        a: &[DeviceJacobian],
        b: &[DeviceJacobian],
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        let g = self.lock()?;
        let n = a.len().min(b.len()) as u32;
        let (da, db) = (
            DeviceBuffer::from_slice(&a[..n as usize])?,
            DeviceBuffer::from_slice(&b[..n as usize])?,
        );
        let out = DeviceBuffer::from_slice(&vec![DeviceJacobian::default(); n.max(1) as usize])?;
        let p = LaunchPlan::for_threads(n);
        let (module, stream) = (&g.module, &g.stream);
        // SAFETY: argument types and counts match the kernel's signature.
        unsafe {
            launch!(module.zk_g1_add<<<p.grid, p.block, 0, stream>>>(
                da.as_device_ptr(), db.as_device_ptr(), out.as_device_ptr(), n))?;
        }
        stream.synchronize()?;
        let mut host = vec![DeviceJacobian::default(); n.max(1) as usize];
        out.copy_to(&mut host[..])?;
        host.truncate(n as usize);
        Ok(host)
    }

    /// `(2 a_i, 3 a_i)` on the device.
    pub fn g1_dbl_tpl(
        &self,
        a: &[DeviceJacobian],
    ) -> Result<(Vec<DeviceJacobian>, Vec<DeviceJacobian>), CudaError> {
        let g = self.lock()?;
        let n = a.len() as u32;
        let da = DeviceBuffer::from_slice(a)?;
        let zero = vec![DeviceJacobian::default(); n.max(1) as usize];
        let (d2, d3) = (
            DeviceBuffer::from_slice(&zero)?,
            DeviceBuffer::from_slice(&zero)?,
        );
        let p = LaunchPlan::for_threads(n);
        let (module, stream) = (&g.module, &g.stream);
        // SAFETY: argument types and counts match the kernel's signature.
        unsafe {
            launch!(module.zk_g1_dbl_tpl<<<p.grid, p.block, 0, stream>>>(
                da.as_device_ptr(), d2.as_device_ptr(), d3.as_device_ptr(), n))?;
        }
        stream.synchronize()?;
        let (mut h2, mut h3) = (zero.clone(), zero);
        d2.copy_to(&mut h2[..])?;
        d3.copy_to(&mut h3[..])?;
        h2.truncate(n as usize);
        h3.truncate(n as usize);
        Ok((h2, h3))
    }

    /// `a_i + b_i` (XYZZ plus affine, madd-2008-s) on the device.
    pub fn xyzz_add_affine(
        &self,
        a: &[DeviceXyzz],
        b: &[DeviceAffine],
    ) -> Result<Vec<DeviceXyzz>, CudaError> {
        let g = self.lock()?;
        let n = a.len().min(b.len()) as u32;
        let (da, db) = (
            DeviceBuffer::from_slice(&a[..n as usize])?,
            DeviceBuffer::from_slice(&b[..n as usize])?,
        );
        let out = DeviceBuffer::from_slice(&vec![DeviceXyzz::default(); n.max(1) as usize])?;
        let p = LaunchPlan::for_threads(n);
        let (module, stream) = (&g.module, &g.stream);
        // SAFETY: argument types and counts match the kernel's signature.
        unsafe {
            launch!(module.zk_g1_xyzz_madd<<<p.grid, p.block, 0, stream>>>(
                da.as_device_ptr(), db.as_device_ptr(), out.as_device_ptr(), n))?;
        }
        stream.synchronize()?;
        let mut host = vec![DeviceXyzz::default(); n.max(1) as usize];
        out.copy_to(&mut host[..])?;
        host.truncate(n as usize);
        Ok(host)
    }
}

fn run_chunk(
    g: &Inner,
    bases: &[DeviceAffine],
    scalars: &[[u32; 8]],
    montgomery: bool,
    delta: u32,
) -> Result<DeviceJacobian, CudaError> {
    let n = bases.len() as u32;
    let (module, stream) = (&g.module, &g.stream);
    let mut laps = Laps::new(stream, "dbc msm");
    let d_bases = upload(bases)?;
    let d_scalars = upload(scalars)?;
    laps.lap("upload")?;
    let mut cur = alloc_output::<DeviceJacobian>(n as usize)?;
    if montgomery {
        let p = LaunchPlan::for_threads(n);
        // SAFETY: argument types and counts match the kernel's signature.
        unsafe {
            launch!(module.zk_fr_from_montgomery<<<p.grid, p.block, 0, stream>>>(
                d_scalars.as_device_ptr(), n))?;
        }
    }
    let p = LaunchPlan::for_threads(n);
    // SAFETY: n bases, n scalars, n outputs; the tables live as long as the context.
    unsafe {
        launch!(module.zk_dbc_msm_terms<<<p.grid, p.block, 0, stream>>>(
            d_bases.as_device_ptr(), d_scalars.as_device_ptr(), cur.as_device_ptr(),
            n, delta, g.tables.as_device_ptr()))?;
    }
    laps.lap("chains and terms")?;
    cur = reduce_rounds(g, cur, ReductionRounds::new(n))?;
    laps.lap("tree reduction")?;
    let mut out = [DeviceJacobian::default()];
    cur.index(0..1).copy_to(&mut out[..])?;
    Ok(out[0])
}

/// `zk_reduce_pairs` over `points`, one launch per round (`out[i] =
/// in[2i] + in[2i + 1]`); the last round's output, once the stream is done.
fn reduce_rounds(
    g: &Inner,
    points: DeviceBuffer<DeviceJacobian>,
    rounds: impl Iterator<Item = Round>,
) -> Result<DeviceBuffer<DeviceJacobian>, CudaError> {
    let (module, stream) = (&g.module, &g.stream);
    let mut cur = points;
    // Every round's buffers stay alive until the stream has finished.
    let mut done = Vec::new();
    for round in rounds {
        let next = alloc_output::<DeviceJacobian>(round.outputs as usize)?;
        let p = LaunchPlan::for_threads(round.outputs);
        // SAFETY: `cur` holds round.inputs points, `next` round.outputs; disjoint.
        unsafe {
            launch!(module.zk_reduce_pairs<<<p.grid, p.block, 0, stream>>>(
                cur.as_device_ptr(), next.as_device_ptr(), round.inputs))?;
        }
        done.push(std::mem::replace(&mut cur, next));
    }
    stream.synchronize()?;
    drop(done);
    Ok(cur)
}

/// A device copy of `data`; running out of memory reports how much was
/// asked for and how much was free.
fn upload<T: cust::memory::DeviceCopy>(data: &[T]) -> Result<DeviceBuffer<T>, CudaError> {
    DeviceBuffer::from_slice(data).map_err(|e| match e {
        cust::error::CudaError::OutOfMemory => CudaError::OutOfMemory {
            requested: std::mem::size_of_val(data),
            free: cust::memory::mem_get_info().map(|m| m.0).unwrap_or(0),
        },
        other => other.into(),
    })
}

/// A device buffer of `n` values that a kernel fills (thread `i` writes
/// element `i` for every `i < n`) before anything reads it.
fn alloc_output<T: cust::memory::DeviceCopy>(n: usize) -> Result<DeviceBuffer<T>, CudaError> {
    // SAFETY: the contents are only read after the kernel that the caller
    // launches next has written every element (see the kernel bodies in
    // kernels/msm/dbc_msm.cuh: out[i] for each i < n).
    unsafe { DeviceBuffer::uninitialized(n.max(1)) }.map_err(|e| match e {
        cust::error::CudaError::OutOfMemory => CudaError::OutOfMemory {
            requested: n * std::mem::size_of::<T>(),
            free: cust::memory::mem_get_info().map(|m| m.0).unwrap_or(0),
        },
        other => other.into(),
    })
}

/// Groth16's quotient on the device: `abc` (each `2^log_n` values) uploaded
/// back to back, interpolated and evaluated on the coset as batches of
/// three, combined by `zk_quotient`, the first vector interpolated from the
/// coset. The buffer's first `2^log_n` values are then `h`'s coefficients
/// (Montgomery form); the stream has finished. The powers must be made
/// ([`ensure_job_powers`]).
fn quotient_on_device(
    g: &Inner,
    abc: [&[Fr]; 3],
    job: &QuotientJob,
    laps: &mut Laps<'_>,
) -> Result<DeviceBuffer<[u32; 8]>, CudaError> {
    let n = 1usize << job.interpolate.log_n;
    assert!(abc.iter().all(|v| v.len() == n), "checked by the caller");
    let d = upload_fr_batch(&abc)?;
    laps.lap("upload a, b, c")?;
    ntt_on_device(g, &d, 3, &job.interpolate, laps)?;
    ntt_on_device(g, &d, 3, &job.to_coset, laps)?;
    let plan = LaunchPlan::for_threads(n as u32);
    let (module, stream) = (&g.module, &g.stream);
    let z = fr_limbs(&job.z_inv);
    // SAFETY: 3n values; thread i reads element i of each vector and writes
    // a[i] only.
    unsafe {
        launch!(module.zk_quotient<<<plan.grid, plan.block, 0, stream>>>(
            d.as_device_ptr(), z, n as u32))?;
    }
    laps.lap("quotient")?;
    ntt_on_device(g, &d.index(0..n), 1, &job.from_coset, laps)?;
    Ok(d)
}

/// The exclusive prefix sum of the first `count` values of `input` into
/// `out` (`zk_scan_tiles`, the tile totals scanned the same way, then
/// `zk_scan_add`), as [`crate::emulation::scan_into`] runs it; values past
/// `count` read as zero, so an `out` of `count + 1` values ends with the
/// total. Queued on the stream; the buffers of the recursion go to `keep`,
/// which the caller holds until the stream is done.
fn scan_into(
    g: &Inner,
    input: &DeviceSlice<u32>,
    count: u32,
    out: &DeviceSlice<u32>,
    keep: &mut Vec<DeviceBuffer<u32>>,
) -> Result<(), CudaError> {
    let (module, stream) = (&g.module, &g.stream);
    let len = out.len() as u32;
    let tiles = len.div_ceil(SCAN_TILE).max(1);
    let tile_sums = alloc_output::<u32>(tiles as usize)?;
    // SAFETY: block b reads input below count and writes out below len and
    // tile_sums[b]; `sh` is the kernel's static shared tile.
    unsafe {
        launch!(module.zk_scan_tiles<<<tiles, SCAN_TILE / 2, 0, stream>>>(
            input.as_device_ptr(), count, out.as_device_ptr(), len, tile_sums.as_device_ptr()))?;
    }
    if tiles > 1 {
        let tile_offsets = alloc_output::<u32>(tiles as usize)?;
        scan_into(g, &tile_sums, tiles, &tile_offsets, keep)?;
        let p = LaunchPlan::for_threads(len);
        // SAFETY: thread i < len updates out[i] from tile_offsets[i / tile].
        unsafe {
            launch!(module.zk_scan_add<<<p.grid, p.block, 0, stream>>>(
                out.as_device_ptr(), tile_offsets.as_device_ptr(), len))?;
        }
        keep.push(tile_offsets);
    }
    keep.push(tile_sums);
    Ok(())
}

/// Buckets cut into segments on the device ([`device_segments`]).
struct SegmentsOnDevice {
    /// `count + 1` bounds into the entries.
    seg_start: DeviceBuffer<u32>,
    /// `buckets + 1` bounds into the segments.
    bucket_seg: DeviceBuffer<u32>,
    /// Segments.
    count: u32,
    /// The most entries in one bucket.
    widest: u32,
}

/// The `m` buckets bounded by `offsets` (`m + 1` values) cut into segments
/// of at most [`SEGMENT`] entries (`zk_segment_count`, the scan,
/// `zk_segment_starts`), as [`crate::emulation::segments`] runs it. Only
/// the number of segments and the widest bucket come back to the host.
fn device_segments(
    g: &Inner,
    offsets: &DeviceSlice<u32>,
    m: u32,
    keep: &mut Vec<DeviceBuffer<u32>>,
) -> Result<SegmentsOnDevice, CudaError> {
    let (module, stream) = (&g.module, &g.stream);
    let nseg = alloc_output::<u32>(m as usize)?;
    let d_widest = upload(&[0u32])?;
    let p = LaunchPlan::for_threads(m);
    // SAFETY: thread b < m reads offsets[b..=b + 1] and writes nseg[b]; one
    // counter, updated atomically.
    unsafe {
        launch!(module.zk_segment_count<<<p.grid, p.block, 0, stream>>>(
            offsets.as_device_ptr(), nseg.as_device_ptr(), d_widest.as_device_ptr(), m))?;
    }
    let bucket_seg = alloc_output::<u32>(m as usize + 1)?;
    scan_into(g, &nseg, m, &bucket_seg, keep)?;
    stream.synchronize()?;
    let (mut count, mut widest) = ([0u32], [0u32]);
    bucket_seg
        .index(m as usize..m as usize + 1)
        .copy_to(&mut count[..])?;
    d_widest.copy_to(&mut widest[..])?;
    keep.push(nseg);
    let seg_start = alloc_output::<u32>(count[0] as usize + 1)?;
    let p = LaunchPlan::for_threads(m + 1);
    // SAFETY: thread b < m writes its bucket's bounds (disjoint ranges of
    // seg_start, by the scan), thread m the last bound.
    unsafe {
        launch!(module.zk_segment_starts<<<p.grid, p.block, 0, stream>>>(
            offsets.as_device_ptr(), bucket_seg.as_device_ptr(), seg_start.as_device_ptr(), m))?;
    }
    Ok(SegmentsOnDevice {
        seg_start,
        bucket_seg,
        count: count[0],
        widest: widest[0],
    })
}

/// Device bytes of a bucket MSM of `n` terms (an upper bound): bases and
/// scalars, one entry per (term, window), segments, and the buckets.
fn bucket_bytes(n: usize) -> usize {
    let p = BucketParams::new(n.min(u32::MAX as usize) as u32);
    let (w, buckets) = (p.windows as usize, p.total_buckets() as usize);
    let entries = n * w;
    let segments = entries / crate::bucket::SEGMENT as usize + buckets;
    n * (64 + 32) + entries * 4 + segments * (128 + 4) + buckets * (128 + 20)
}

fn run_bucket_chunk(
    g: &Inner,
    bases: &[DeviceAffine],
    scalars: &[[u32; 8]],
    montgomery: bool,
) -> Result<G1Projective, CudaError> {
    let mut laps = Laps::new(&g.stream, "bucket msm");
    let d_bases = upload(bases)?;
    laps.lap("upload bases")?;
    bucket_pipeline(g, &d_bases, scalars, montgomery, laps)
}

/// The bucket method on bases already on the device (`d_bases` holds at
/// least `scalars.len()` of them).
fn bucket_pipeline(
    g: &Inner,
    d_bases: &DeviceSlice<DeviceAffine>,
    scalars: &[[u32; 8]],
    montgomery: bool,
    mut laps: Laps<'_>,
) -> Result<G1Projective, CudaError> {
    let d_scalars = upload(scalars)?;
    laps.lap("upload scalars")?;
    bucket_on_device(g, d_bases, &d_scalars, montgomery, laps)
}

/// The bucket method on bases and scalars already on the device
/// (`d_bases` holds at least `d_scalars.len()` bases); with `montgomery`,
/// the scalars are Fr Montgomery limbs, converted in place first.
fn bucket_on_device(
    g: &Inner,
    d_bases: &DeviceSlice<DeviceAffine>,
    d_scalars: &DeviceSlice<[u32; 8]>,
    montgomery: bool,
    mut laps: Laps<'_>,
) -> Result<G1Projective, CudaError> {
    let n = d_scalars.len() as u32;
    let (module, stream) = (&g.module, &g.stream);
    let plan = LaunchPlan::for_threads(n);
    if montgomery {
        // SAFETY: argument types and counts match the kernel's signature.
        unsafe {
            launch!(module.zk_fr_from_montgomery<<<plan.grid, plan.block, 0, stream>>>(
                d_scalars.as_device_ptr(), n))?;
        }
    }
    // 0. the scalars' bit length sizes the windows
    let d_bits = upload(&[0u32])?;
    // SAFETY: n scalars; one counter.
    unsafe {
        launch!(module.zk_scalar_bits<<<plan.grid, plan.block, 0, stream>>>(
            d_scalars.as_device_ptr(), d_bits.as_device_ptr(), n))?;
    }
    stream.synchronize()?;
    let mut bits = [0u32];
    d_bits.copy_to(&mut bits[..])?;
    laps.lap("scalar bits")?;
    if bits[0] == 0 {
        return Ok(G1Projective::zero());
    }
    let p = BucketParams::for_bits(n, bits[0]);
    // 1. counts
    let total = p.total_buckets();
    let d_counts = upload(&vec![0u32; total as usize])?;
    // SAFETY: n scalars; counts has total_buckets zeroed entries.
    unsafe {
        launch!(module.zk_bucket_count<<<plan.grid, plan.block, 0, stream>>>(
            d_scalars.as_device_ptr(), d_counts.as_device_ptr(), p))?;
    }
    laps.lap("count")?;
    // 2. prefix sum and segments on the device, scatter
    let mut keep = Vec::new();
    let d_offsets = alloc_output::<u32>(total as usize + 1)?;
    scan_into(g, &d_counts, total, &d_offsets, &mut keep)?;
    let mut d_cursors = alloc_output::<u32>(total as usize)?;
    // SAFETY: both slices hold `total` values; the copy is queued on the
    // stream after the scan that writes the offsets.
    unsafe { d_cursors.async_copy_from(&d_offsets.index(0..total as usize), stream)? };
    let seg = device_segments(g, &d_offsets, total, &mut keep)?;
    laps.lap("scan and segments")?;
    let d_entries = alloc_output::<u32>(p.n as usize * p.windows as usize)?;
    // SAFETY: each cursor starts at its bucket's offset; slots stay below
    // the next offset, at most n * windows, inside d_entries.
    unsafe {
        launch!(module.zk_bucket_scatter<<<plan.grid, plan.block, 0, stream>>>(
            d_scalars.as_device_ptr(), d_cursors.as_device_ptr(), d_entries.as_device_ptr(), p))?;
    }
    laps.lap("scatter")?;
    // 3. segment sums
    let d_seg_sums = alloc_output::<DeviceXyzz>(seg.count as usize)?;
    if seg.count > 0 {
        let sp = LaunchPlan::for_threads(seg.count);
        // SAFETY: segment bounds index d_entries; entries index d_bases.
        unsafe {
            launch!(module.zk_bucket_segments<<<sp.grid, sp.block, 0, stream>>>(
                d_bases.as_device_ptr(), d_entries.as_device_ptr(), seg.seg_start.as_device_ptr(),
                d_seg_sums.as_device_ptr(), seg.count))?;
        }
    }
    laps.lap("segment sums")?;
    // 4. bucket sums, in levels where buckets hold many segments (each
    // level's ranges cut by the segment kernels)
    // Every level's buffers stay alive until the stream is done with them.
    let mut keep_sums = Vec::new();
    let mut collect = |sums: DeviceBuffer<DeviceXyzz>,
                       bounds: &DeviceBuffer<u32>,
                       ranges: u32|
     -> Result<DeviceBuffer<DeviceXyzz>, CudaError> {
        let out = alloc_output::<DeviceXyzz>(ranges as usize)?;
        let bp = LaunchPlan::for_threads(ranges);
        // SAFETY: `bounds` has ranges + 1 entries bounding `sums`; thread r
        // writes out[r] only.
        unsafe {
            launch!(module.zk_bucket_collect<<<bp.grid, bp.block, 0, stream>>>(
                sums.as_device_ptr(), bounds.as_device_ptr(), out.as_device_ptr(), ranges))?;
        }
        keep_sums.push(sums);
        Ok(out)
    };
    let mut sums = d_seg_sums;
    let (mut bounds, mut widest) = (seg.bucket_seg, seg.widest);
    while widest.div_ceil(SEGMENT) > SEGMENT {
        let level = device_segments(g, &bounds, total, &mut keep)?;
        sums = collect(sums, &level.seg_start, level.count)?;
        keep.push(std::mem::replace(&mut bounds, level.bucket_seg));
        keep.push(level.seg_start);
        widest = level.widest;
    }
    sums = collect(sums, &bounds, total)?;
    stream.synchronize()?;
    drop((keep, keep_sums, bounds, seg.seg_start));
    let d_buckets = sums;
    laps.lap("bucket sums")?;
    // 5. window slices, combined on the host
    let slices = p.slices();
    let d_parts = alloc_output::<DeviceJacobian>((p.windows * slices) as usize)?;
    let rp = LaunchPlan::for_threads(p.windows * slices);
    // SAFETY: d_buckets holds windows * nb buckets; thread t writes part t.
    unsafe {
        launch!(module.zk_window_reduce<<<rp.grid, rp.block, 0, stream>>>(
            d_buckets.as_device_ptr(), d_parts.as_device_ptr(), p, slices))?;
    }
    laps.lap("window reduce")?;
    // 6. each window's slices summed pairwise (slices is a power of two)
    let cur = reduce_rounds(g, d_parts, p.slice_rounds())?;
    laps.lap("slice sums")?;
    let mut parts = vec![DeviceJacobian::default(); p.windows as usize];
    cur.index(0..p.windows as usize).copy_to(&mut parts[..])?;
    let parts = parts
        .iter()
        .map(|q| {
            q.to_ark().ok_or_else(|| {
                CudaError::BadResult("a window sum has a coordinate above the modulus".into())
            })
        })
        .collect::<Result<Vec<G1Projective>, CudaError>>()?;
    let sum = combine_windows(&parts, &p);
    laps.lap("combine (host)")?;
    Ok(sum)
}
