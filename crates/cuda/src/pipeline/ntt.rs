//! The NTT on the device: the powers tables (twiddles, coset powers) cached
//! between calls, one launch per pass for a whole batch of vectors, and
//! Groth16's quotient as one device job, alone or with the MSM of `h` kept
//! on the device.

use super::bucket::bucket_bytes;
use super::{Gpu, Laps};
use crate::device::{Buf, Device, Grid, RawBuf, Slice};
use crate::error::CudaError;
use crate::kernels as k;
use crate::layout::{fr_from_limbs, fr_limbs, fr_slice_limbs, fr_slice_limbs_mut, DeviceAffine};
use crate::plan::{vectors_per_chunk, NttJob, QuotientJob, MAX_BATCH};
use ark_bn254::{Fr, G1Projective};
use ark_ff::One;
use rayon::prelude::*;

/// Powers tables kept at most (a Groth16 quotient uses four: the twiddles
/// of each direction and the coset's powers of g and 1/g; a few domains
/// fit).
const MAX_POWER_TABLES: usize = 12;

impl Gpu {
    /// Makes sure the powers tables that `jobs` read are on the device, all
    /// at once (tables are evicted before, never between, so every table
    /// of the batch is there when the transforms run).
    fn ensure_job_powers(&mut self, jobs: &[&NttJob]) -> Result<(), CudaError> {
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
        let missing = keys.iter().filter(|k| !self.powers.contains_key(k)).count();
        if self.powers.len() + missing > MAX_POWER_TABLES {
            // Kernels still queued may read the old tables: wait, then free
            // them all; every table of this batch is then made below (the
            // ones it shared with the old set too: seen missing on an H200,
            // where a quotient after twelve other tables found its twiddles
            // evicted).
            self.dev.synchronize()?;
            for (_, b) in self.powers.drain() {
                // SAFETY: allocated on this device; nothing is queued.
                unsafe { b.free(&*self.dev) };
            }
        }
        keys.retain(|key| !self.powers.contains_key(key));
        for key in keys {
            let (count, base) = key;
            let dev = &*self.dev;
            let out = RawBuf::<[u32; 8]>::alloc(dev, count as usize)?;
            // SAFETY: thread i < count writes out[i].
            let r = unsafe { k::zk_powers(dev, Grid::threads(count), out.slice(), count, base) };
            if let Err(e) = r {
                // SAFETY: nothing was queued on it.
                unsafe { out.free(dev) };
                return Err(e);
            }
            self.powers.insert(key, out);
        }
        Ok(())
    }

    /// A made powers table.
    fn powers(&self, count: u32, base: &Fr) -> Slice<[u32; 8]> {
        self.powers[&(count, fr_limbs(base))].slice()
    }

    /// The NTT of each of the `vectors` back-to-back vectors of
    /// `2^job.log_n` values in `d`, in place, each pass one launch over a
    /// 2-D grid (`blockIdx.y` = the vector; `vectors <= MAX_BATCH`), the
    /// powers already made by [`Gpu::ensure_job_powers`]; queued.
    fn ntt_on_device(
        &self,
        d: Slice<[u32; 8]>,
        vectors: u32,
        job: &NttJob,
        laps: &mut Laps<'_>,
    ) -> Result<(), CudaError> {
        let dev = self.dev();
        let n = 1u32 << job.log_n;
        assert!(
            (1..=MAX_BATCH as u32).contains(&vectors) && d.len() == n as usize * vectors as usize,
            "checked by the callers"
        );
        let all = Grid::threads(n).batch(vectors);
        let scale = |powers: Option<Slice<[u32; 8]>>, factor: &Fr| {
            // `d` stands in for the powers when there are none: not read.
            let (pw, has) = powers.map_or((d, 0), |p| (p, 1));
            // SAFETY: n values per vector and, when has = 1, n powers.
            unsafe { k::zk_ntt_scale(dev, all, d, pw, has, fr_limbs(factor), n) }
        };
        if let Some(g) = job.pre {
            scale(Some(self.powers(n, &g)), &Fr::one())?;
        }
        let tw = self.powers((n / 2).max(1), &job.root);
        // SAFETY: thread i swaps i and rev(i) of its own vector when i < rev(i).
        unsafe { k::zk_ntt_bitrev(dev, all, d, job.log_n)? };
        laps.lap("pre-scaling and bit reversal")?;
        let kb = job.block_stages();
        if kb > 0 {
            let grid = Grid::blocks(n >> kb, (1u32 << kb) / 2).batch(vectors);
            // SAFETY: each block works on its own 2^k elements of its vector.
            unsafe { k::zk_ntt_block_stages(dev, grid, d, tw, job.log_n, kb)? };
        }
        laps.lap("block stages")?;
        for (s0, kg) in job.group_passes() {
            let grid = Grid::blocks(n >> kg, (1u32 << kg) / 2).batch(vectors);
            // SAFETY: each block works on its own 2^k strided elements of its vector.
            unsafe { k::zk_ntt_group_stages(dev, grid, d, tw, job.log_n, s0, kg)? };
        }
        laps.lap("strided passes")?;
        if job.post_powers.is_some() || job.post_factor.is_some() {
            let pw = job.post_powers.map(|g| self.powers(n, &g));
            scale(pw, &job.post_factor.unwrap_or(Fr::one()))?;
        }
        laps.lap("post-scaling")?;
        Ok(())
    }

    /// The NTT of every vector of `batch` (each of length `2^job.log_n`):
    /// as many vectors at a time as fit in 80% of the free device memory
    /// (and [`MAX_BATCH`]), uploaded back to back, each pass one launch for
    /// all of them. Twiddles and coset powers stay on the device for the
    /// next transforms of the same domain.
    pub fn ntt_batch(&mut self, batch: &mut [&mut [Fr]], job: &NttJob) -> Result<(), CudaError> {
        let n = 1usize << job.log_n;
        assert!(batch.iter().all(|v| v.len() == n), "checked by the caller");
        self.ensure_job_powers(&[job])?;
        let dev = self.dev();
        let free = self.free()?;
        for chunk in batch.chunks_mut(vectors_per_chunk(job.log_n, free)) {
            let mut laps = Laps::new(dev, "ntt");
            let d = upload_fr_batch(dev, chunk)?;
            laps.lap("upload")?;
            self.ntt_on_device(d.slice(), chunk.len() as u32, job, &mut laps)?;
            for (i, v) in chunk.iter_mut().enumerate() {
                download_fr(dev, d.index(i * n..(i + 1) * n), v)?;
            }
            laps.lap("download and check")?;
        }
        Ok(())
    }

    /// Groth16's quotient: `abc` (each `2^log_n` values) uploaded back to
    /// back, interpolated and evaluated on the coset as batches of three,
    /// combined by `zk_quotient`, the first vector interpolated from the
    /// coset where the job asks for coefficients. The buffer's first
    /// `2^log_n` values are then `h` (Montgomery form) in the job's form.
    /// The powers must be made.
    fn quotient_on_device<'d>(
        &'d self,
        abc: [&[Fr]; 3],
        job: &QuotientJob,
        laps: &mut Laps<'_>,
    ) -> Result<Buf<'d, [u32; 8]>, CudaError> {
        let dev = self.dev();
        let n = 1usize << job.interpolate.log_n;
        assert!(abc.iter().all(|v| v.len() == n), "checked by the caller");
        let d = upload_fr_batch(dev, &abc)?;
        laps.lap("upload a, b, c")?;
        self.ntt_on_device(d.slice(), 3, &job.interpolate, laps)?;
        self.ntt_on_device(d.slice(), 3, &job.to_coset, laps)?;
        // SAFETY: 3n values; thread i reads element i of each vector and
        // writes a[i] only.
        unsafe {
            k::zk_quotient(
                dev,
                Grid::threads(n as u32),
                d.slice(),
                fr_limbs(&job.z_inv),
                n as u32,
            )?
        };
        laps.lap("quotient")?;
        if let Some(from_coset) = &job.from_coset {
            self.ntt_on_device(d.index(0..n), 1, from_coset, laps)?;
        }
        Ok(d)
    }

    fn quotient_powers(&mut self, job: &QuotientJob) -> Result<(), CudaError> {
        let mut jobs = vec![&job.interpolate, &job.to_coset];
        jobs.extend(&job.from_coset);
        self.ensure_job_powers(&jobs)
    }

    /// Groth16's quotient ([`QuotientJob`]): the three vectors go up once,
    /// back to back, and are transformed as batches of three; `h` comes
    /// back.
    pub fn quotient(&mut self, abc: [Vec<Fr>; 3], job: &QuotientJob) -> Result<Vec<Fr>, CudaError> {
        let n = 1usize << job.interpolate.log_n;
        self.quotient_powers(job)?;
        let dev = self.dev();
        let mut laps = Laps::new(dev, "quotient");
        let [mut a, b, c] = abc;
        let d = self.quotient_on_device([&a, &b, &c], job, &mut laps)?;
        free_in_background((b, c));
        download_fr(dev, d.index(0..n), &mut a)?;
        laps.lap("download and check")?;
        Ok(a)
    }

    /// Groth16's quotient and the MSM of its first `bases.len()`
    /// coefficients on bases uploaded by [`Gpu::upload_bases`], with `h`
    /// kept on the device between the two: the quotient's job, then the
    /// bucket method on `h` in place. One chunk: an error if the device
    /// cannot hold the three vectors and the MSM's working memory.
    pub fn quotient_msm(
        &mut self,
        abc: [Vec<Fr>; 3],
        job: &QuotientJob,
        bases: Slice<DeviceAffine>,
    ) -> Result<G1Projective, CudaError> {
        let n = 1usize << job.interpolate.log_n;
        let len = bases.len();
        assert!(len <= n, "checked by the caller");
        self.quotient_powers(job)?;
        let free = self.free()?;
        let need = 3 * n * 32 + bucket_bytes(len) - len * (64 + 32);
        if need > free / 10 * 8 {
            return Err(CudaError::OutOfMemory {
                requested: need,
                free,
            });
        }
        let mut laps = Laps::new(self.dev(), "quotient and msm");
        let [a, b, c] = abc;
        let d = self.quotient_on_device([&a, &b, &c], job, &mut laps)?;
        free_in_background((a, b, c));
        self.bucket_on_device(bases, d.index(0..len), true, None, laps)
    }
}

/// Frees host vectors on another thread: giving back the pages of large
/// vectors costs the kernel a page at a time (milliseconds for a
/// quotient's three vectors, docs/cuda.md), time the device's work need not
/// wait for. Where no thread can be started, they are freed here.
fn free_in_background<T: Send + 'static>(v: T) {
    let _ = std::thread::Builder::new()
        .name("zkaccel-cuda-free".into())
        .spawn(move || drop(v));
}

/// A device buffer holding `vectors` back to back (the layout of the
/// batched NTT kernels).
fn upload_fr_batch<'d, V: AsRef<[Fr]>>(
    dev: &'d dyn Device,
    vectors: &[V],
) -> Result<Buf<'d, [u32; 8]>, CudaError> {
    let n = vectors.first().map_or(0, |v| v.as_ref().len());
    // Every element is written by the copies below before a kernel reads it.
    let d = Buf::<[u32; 8]>::alloc(dev, n * vectors.len())?;
    for (i, v) in vectors.iter().enumerate() {
        let v = v.as_ref();
        let dst = d.index(i * n..(i + 1) * n);
        match fr_slice_limbs(v) {
            Some(l) => dst.upload(dev, l)?,
            None => dst.upload(dev, &v.iter().map(fr_limbs).collect::<Vec<_>>())?,
        }
    }
    Ok(d)
}

/// Copies `d` back into `data` and checks every value is below the modulus
/// (an error otherwise: the contents of `data` are then unspecified).
fn download_fr(dev: &dyn Device, d: Slice<[u32; 8]>, data: &mut [Fr]) -> Result<(), CudaError> {
    let below = |l: &[u32; 8]| fr_from_limbs(l).is_some();
    let ok = match fr_slice_limbs_mut(data) {
        Some(out) => {
            d.download(dev, out)?;
            out.par_iter().all(below)
        }
        None => {
            let out = d.to_vec(dev)?;
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
