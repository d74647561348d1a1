//! The GPU pipelines, each written once over [`Device`]: the bucket MSM
//! (count, prefix sum and segments on the device, scatter, segment and
//! bucket sums, window slices), the per-thread DBC MSM and its pairwise
//! reduction, the NTT and its batches, Groth16's quotient (alone and with
//! its MSM, `h` kept on the device), and the one-operation-per-thread
//! formula kernels. The GPU and the host emulation run exactly these
//! launch sequences; [`crate::CudaContext`] locks a [`Gpu`] and calls them.

use crate::bucket::{combine_windows, BucketParams, SCAN_TILE, SEGMENT};
#[cfg(feature = "emulation")]
use crate::device::Plain;
use crate::device::{Buf, Device, Grid, RawBuf, Slice};
use crate::error::CudaError;
use crate::kernels as k;
use crate::layout::{fr_from_limbs, fr_limbs, fr_slice_limbs, fr_slice_limbs_mut};
use crate::layout::{DeviceAffine, DeviceJacobian, DeviceXyzz};
use crate::ntt::{vectors_per_chunk, NttJob, QuotientJob, MAX_BATCH};
use crate::plan::{terms_per_chunk, ReductionRounds, Round, BYTES_PER_TERM};
use crate::tables::DbcTables;
use ark_bn254::{Fr, G1Projective};
use ark_ff::{One, Zero};
use rayon::prelude::*;
use std::collections::HashMap;

/// Powers tables kept at most (a Groth16 quotient uses four: the twiddles
/// of each direction and the coset's powers of g and 1/g; a few domains
/// fit).
const MAX_POWER_TABLES: usize = 12;

/// A device and what lives on it between calls: the chain tables and the
/// NTT's powers tables.
pub(crate) struct Gpu {
    dev: Box<dyn Device>,
    tables: Option<RawBuf<DbcTables>>,
    /// `base^i` for `i < count`, by `(count, base's limbs)`: the NTT's
    /// twiddles and coset powers, kept for the next transform of the domain.
    powers: HashMap<(u32, [u32; 8]), RawBuf<[u32; 8]>>,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // Free what lives on the device before the device goes, with
        // nothing queued that could still read it.
        let ok = self.dev.make_current().is_ok() && self.dev.synchronize().is_ok();
        let dev = &*self.dev;
        for (_, b) in self.powers.drain() {
            if ok {
                // SAFETY: allocated on dev; the queue is empty.
                unsafe { b.free(dev) };
            }
        }
        if let (true, Some(t)) = (ok, self.tables.take()) {
            // SAFETY: as above.
            unsafe { t.free(dev) };
        }
    }
}

/// Per-step timings of the pipelines, logged (level info, target
/// `zkaccel_cuda::profile`) when the environment variable
/// `ZKACCEL_CUDA_PROFILE` is set: each lap waits for the device, so
/// profiling serialises the steps it measures.
pub(crate) struct Laps<'a> {
    dev: &'a dyn Device,
    what: &'static str,
    start: Option<std::time::Instant>,
    last: std::time::Duration,
    laps: Vec<(&'static str, f64)>,
}

impl<'a> Laps<'a> {
    fn new(dev: &'a dyn Device, what: &'static str) -> Laps<'a> {
        let on = std::env::var_os("ZKACCEL_CUDA_PROFILE").is_some();
        Laps {
            dev,
            what,
            start: on.then(std::time::Instant::now),
            last: std::time::Duration::ZERO,
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, name: &'static str) -> Result<(), CudaError> {
        if let Some(t) = self.start {
            self.dev.synchronize()?;
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
                "{} on {}: total {:.3} ms: {}",
                self.what,
                self.dev.name(),
                self.last.as_secs_f64() * 1e3,
                steps.join(", ")
            );
        }
    }
}

/// Buffers the queued work may still use: freed only once the device has
/// finished it ([`Keep::release`]).
struct Keep<'d> {
    dev: &'d dyn Device,
    u32s: Vec<Buf<'d, u32>>,
    points: Vec<Buf<'d, DeviceXyzz>>,
    jacobians: Vec<Buf<'d, DeviceJacobian>>,
}

impl<'d> Keep<'d> {
    fn new(dev: &'d dyn Device) -> Keep<'d> {
        Keep {
            dev,
            u32s: Vec::new(),
            points: Vec::new(),
            jacobians: Vec::new(),
        }
    }

    /// Waits for the device, then frees everything kept.
    fn release(self) -> Result<(), CudaError> {
        self.dev.synchronize()
        // the buffers drop here, the queue empty
    }
}

impl Drop for Keep<'_> {
    fn drop(&mut self) {
        if !(self.u32s.is_empty() && self.points.is_empty() && self.jacobians.is_empty()) {
            // An error path: wait before the buffers are freed.
            let _ = self.dev.synchronize();
        }
    }
}

/// The buckets of `m` bounds cut into segments on the device.
pub(crate) struct SegmentsOnDevice<'d> {
    /// `count + 1` bounds into the entries.
    pub seg_start: Buf<'d, u32>,
    /// `m + 1` bounds into the segments.
    pub bucket_seg: Buf<'d, u32>,
    /// Segments.
    pub count: u32,
    /// The most entries in one bucket.
    pub widest: u32,
}

impl Gpu {
    /// The device with the chain tables uploaded.
    pub fn new(dev: Box<dyn Device>) -> Result<Gpu, CudaError> {
        let tables = RawBuf::upload(&*dev, std::slice::from_ref(&*DbcTables::new()))?;
        Ok(Gpu {
            dev,
            tables: Some(tables),
            powers: HashMap::new(),
        })
    }

    /// The device.
    pub fn dev(&self) -> &dyn Device {
        &*self.dev
    }

    /// Free device memory.
    fn free(&self) -> Result<usize, CudaError> {
        self.dev.free_memory()
    }

    // ---- the per-thread DBC MSM ----

    /// `sum k_i P_i` by the paper's per-thread DBC method; `scalars` are
    /// integers, or Fr Montgomery limbs when `montgomery`. Inputs larger
    /// than the free device memory run in chunks: one partial sum each.
    pub fn dbc_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        delta: u32,
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        assert_eq!(bases.len(), scalars.len(), "checked by the caller");
        let free = self.free()?;
        let chunk = terms_per_chunk(free);
        if chunk == 0 && !bases.is_empty() {
            return Err(CudaError::OutOfMemory {
                requested: BYTES_PER_TERM,
                free,
            });
        }
        let mut partial = Vec::new();
        for (b, s) in bases.chunks(chunk.max(1)).zip(scalars.chunks(chunk.max(1))) {
            partial.push(self.dbc_chunk(b, s, montgomery, delta)?);
        }
        Ok(partial)
    }

    fn dbc_chunk(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        delta: u32,
    ) -> Result<DeviceJacobian, CudaError> {
        let dev = self.dev();
        let n = bases.len() as u32;
        let mut laps = Laps::new(dev, "dbc msm");
        let d_bases = Buf::upload(dev, bases)?;
        let d_scalars = Buf::upload(dev, scalars)?;
        laps.lap("upload")?;
        let terms = Buf::<DeviceJacobian>::alloc(dev, n as usize)?;
        let all = Grid::threads(n);
        let tables = self.tables.as_ref().expect("present until drop").slice();
        // SAFETY: n scalars, n bases, n outputs (thread i writes out[i]);
        // the tables live as long as the device.
        unsafe {
            if montgomery {
                k::zk_fr_from_montgomery(dev, all, d_scalars.slice(), n)?;
            }
            k::zk_dbc_msm_terms(
                dev,
                all,
                d_bases.slice(),
                d_scalars.slice(),
                terms.slice(),
                n,
                delta,
                tables,
            )?;
        }
        laps.lap("chains and terms")?;
        let sum = self.reduce_rounds(terms, ReductionRounds::new(n))?;
        laps.lap("tree reduction")?;
        let mut out = [DeviceJacobian::default()];
        sum.index(0..1).download(dev, &mut out)?;
        drop((d_bases, d_scalars));
        Ok(out[0])
    }

    /// `zk_reduce_pairs` over `points`, one launch per round (`out[i] =
    /// in[2i] + in[2i + 1]`); the last round's output, once the device is
    /// done.
    fn reduce_rounds<'d>(
        &'d self,
        points: Buf<'d, DeviceJacobian>,
        rounds: impl Iterator<Item = Round>,
    ) -> Result<Buf<'d, DeviceJacobian>, CudaError> {
        let dev = self.dev();
        let mut keep = Keep::new(dev);
        let mut cur = points;
        for round in rounds {
            let next = Buf::<DeviceJacobian>::alloc(dev, round.outputs as usize)?;
            // SAFETY: `cur` holds round.inputs points, `next` round.outputs;
            // thread i writes next[i] only.
            unsafe {
                k::zk_reduce_pairs(
                    dev,
                    Grid::threads(round.outputs),
                    cur.slice(),
                    next.slice(),
                    round.inputs,
                )?;
            }
            keep.jacobians.push(std::mem::replace(&mut cur, next));
        }
        keep.release()?;
        Ok(cur)
    }

    /// The sum of `points` by the reduction kernel, round by round.
    #[cfg(feature = "emulation")]
    pub fn reduce(&self, points: &[DeviceJacobian]) -> Result<DeviceJacobian, CudaError> {
        if points.is_empty() {
            return Ok(DeviceJacobian::from_ark(&G1Projective::zero()));
        }
        let d = Buf::upload(self.dev(), points)?;
        let sum = self.reduce_rounds(d, ReductionRounds::new(points.len() as u32))?;
        Ok(sum.index(0..1).to_vec(self.dev())?[0])
    }

    // ---- the bucket MSM ----

    /// `sum k_i P_i` by the bucket method (`kernels/msm/bucket_msm.cuh`);
    /// `scalars` are integers, or Fr Montgomery limbs when `montgomery`;
    /// `window` overrides the window size (2..=16). Inputs too large for
    /// the free device memory run in chunks.
    pub fn bucket_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        window: Option<u32>,
    ) -> Result<G1Projective, CudaError> {
        assert_eq!(bases.len(), scalars.len(), "checked by the caller");
        let free = self.free()?;
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
        let dev = self.dev();
        let mut sum = G1Projective::zero();
        for (b, s) in bases.chunks(chunk).zip(scalars.chunks(chunk)) {
            let mut laps = Laps::new(dev, "bucket msm");
            let d_bases = Buf::upload(dev, b)?;
            laps.lap("upload bases")?;
            sum += self.bucket_scalars(d_bases.slice(), s, montgomery, window, laps)?;
        }
        Ok(sum)
    }

    /// Uploads bases for [`Gpu::bucket_msm_resident`] (points at infinity
    /// as `(0, 0)`, which the kernels' additions skip).
    pub fn upload_bases(&self, bases: &[DeviceAffine]) -> Result<RawBuf<DeviceAffine>, CudaError> {
        RawBuf::upload(self.dev(), bases)
    }

    /// Frees bases uploaded by [`Gpu::upload_bases`].
    pub fn free_bases(&self, bases: RawBuf<DeviceAffine>) {
        if self.dev.synchronize().is_ok() {
            // SAFETY: uploaded on this device; nothing is queued.
            unsafe { bases.free(self.dev()) }
        }
    }

    /// The bucket method on bases uploaded by [`Gpu::upload_bases`] (at
    /// least `scalars.len()` of them). One chunk: an error if the device
    /// cannot hold its working memory.
    pub fn bucket_msm_resident(
        &self,
        bases: &RawBuf<DeviceAffine>,
        scalars: &[[u32; 8]],
        montgomery: bool,
    ) -> Result<G1Projective, CudaError> {
        assert!(bases.len() >= scalars.len(), "checked by the caller");
        if scalars.is_empty() {
            return Ok(G1Projective::zero());
        }
        let free = self.free()?;
        let need = bucket_bytes(scalars.len()) - scalars.len() * 64;
        if need > free / 10 * 8 {
            return Err(CudaError::OutOfMemory {
                requested: need,
                free,
            });
        }
        let laps = Laps::new(self.dev(), "bucket msm (resident bases)");
        self.bucket_scalars(bases.slice(), scalars, montgomery, None, laps)
    }

    /// The bucket method on bases on the device, the scalars uploaded.
    fn bucket_scalars(
        &self,
        d_bases: Slice<DeviceAffine>,
        scalars: &[[u32; 8]],
        montgomery: bool,
        window: Option<u32>,
        mut laps: Laps<'_>,
    ) -> Result<G1Projective, CudaError> {
        let d_scalars = Buf::upload(self.dev(), scalars)?;
        laps.lap("upload scalars")?;
        self.bucket_on_device(d_bases, d_scalars.slice(), montgomery, window, laps)
    }

    /// The bucket method on bases and scalars on the device (`d_bases`
    /// holds at least `d_scalars.len()` bases); with `montgomery`, the
    /// scalars are Fr Montgomery limbs, converted in place first.
    fn bucket_on_device(
        &self,
        d_bases: Slice<DeviceAffine>,
        d_scalars: Slice<[u32; 8]>,
        montgomery: bool,
        window: Option<u32>,
        mut laps: Laps<'_>,
    ) -> Result<G1Projective, CudaError> {
        let dev = self.dev();
        let n = d_scalars.len() as u32;
        if n == 0 {
            return Ok(G1Projective::zero());
        }
        let all = Grid::threads(n);
        // 0. the scalars' bit length sizes the windows
        let d_bits = Buf::upload(dev, &[0u32])?;
        // SAFETY: n scalars, converted in place by thread i; one counter.
        unsafe {
            if montgomery {
                k::zk_fr_from_montgomery(dev, all, d_scalars, n)?;
            }
            k::zk_scalar_bits(dev, all, d_scalars, d_bits.slice(), n)?;
        }
        let bits = d_bits.slice().to_vec(dev)?[0];
        laps.lap("scalar bits")?;
        if bits == 0 {
            return Ok(G1Projective::zero());
        }
        let p = match window {
            Some(c) => BucketParams::with_window_bits(n, c, bits),
            None => BucketParams::for_bits(n, bits),
        };
        // 1. counts
        let total = p.total_buckets();
        let d_counts = Buf::upload(dev, &vec![0u32; total as usize])?;
        // SAFETY: n scalars; total_buckets zeroed counters.
        unsafe { k::zk_bucket_count(dev, all, d_scalars, d_counts.slice(), p)? };
        laps.lap("count")?;
        // 2. prefix sum and segments on the device, scatter
        let mut keep = Keep::new(dev);
        let d_offsets = Buf::<u32>::alloc(dev, total as usize + 1)?;
        self.scan_into(d_counts.slice(), total, d_offsets.slice(), &mut keep)?;
        let d_cursors = Buf::<u32>::alloc(dev, total as usize)?;
        d_cursors
            .slice()
            .copy_from(dev, d_offsets.index(0..total as usize))?;
        let seg = self.segments_on_device(d_offsets.slice(), total, &mut keep)?;
        laps.lap("scan and segments")?;
        let d_entries = Buf::<u32>::alloc(dev, p.n as usize * p.windows as usize)?;
        // SAFETY: each cursor starts at its bucket's offset; slots stay below
        // the next offset, at most n * windows, inside d_entries.
        unsafe {
            k::zk_bucket_scatter(dev, all, d_scalars, d_cursors.slice(), d_entries.slice(), p)?
        };
        laps.lap("scatter")?;
        // 3. segment sums
        let d_seg_sums = Buf::<DeviceXyzz>::alloc(dev, seg.count as usize)?;
        if seg.count > 0 {
            // SAFETY: segment bounds index d_entries; entries index d_bases;
            // thread s writes seg_sums[s] only.
            unsafe {
                k::zk_bucket_segments(
                    dev,
                    Grid::threads(seg.count),
                    d_bases,
                    d_entries.slice(),
                    seg.seg_start.slice(),
                    d_seg_sums.slice(),
                    seg.count,
                )?
            };
        }
        laps.lap("segment sums")?;
        // 4. bucket sums, in levels where buckets hold many segments (each
        // level's ranges cut by the segment kernels)
        let collect = |sums: Slice<DeviceXyzz>, bounds: Slice<u32>, ranges: u32| {
            let out = Buf::<DeviceXyzz>::alloc(dev, ranges as usize)?;
            // SAFETY: `bounds` has ranges + 1 entries bounding `sums`;
            // thread r writes out[r] only.
            unsafe {
                k::zk_bucket_collect(
                    dev,
                    Grid::threads(ranges),
                    sums,
                    bounds,
                    out.slice(),
                    ranges,
                )?
            };
            Ok::<_, CudaError>(out)
        };
        let mut sums = d_seg_sums;
        let (mut bounds, mut widest) = (seg.bucket_seg, seg.widest);
        keep.u32s.push(seg.seg_start);
        while widest.div_ceil(SEGMENT) > SEGMENT {
            let level = self.segments_on_device(bounds.slice(), total, &mut keep)?;
            let next = collect(sums.slice(), level.seg_start.slice(), level.count)?;
            keep.points.push(std::mem::replace(&mut sums, next));
            keep.u32s
                .push(std::mem::replace(&mut bounds, level.bucket_seg));
            keep.u32s.push(level.seg_start);
            widest = level.widest;
        }
        let d_buckets = collect(sums.slice(), bounds.slice(), total)?;
        keep.points.push(sums);
        keep.u32s.push(bounds);
        keep.release()?;
        laps.lap("bucket sums")?;
        // 5. window slices, combined on the host
        let slices = p.slices();
        let d_parts = Buf::<DeviceJacobian>::alloc(dev, (p.windows * slices) as usize)?;
        // SAFETY: d_buckets holds windows * nb buckets; thread t writes part t.
        unsafe {
            k::zk_window_reduce(
                dev,
                Grid::threads(p.windows * slices),
                d_buckets.slice(),
                d_parts.slice(),
                p,
                slices,
            )?
        };
        laps.lap("window reduce")?;
        // 6. each window's slices summed pairwise (slices is a power of two)
        let cur = self.reduce_rounds(d_parts, p.slice_rounds())?;
        laps.lap("slice sums")?;
        let parts = cur.index(0..p.windows as usize).to_vec(dev)?;
        drop((d_buckets, d_entries, d_cursors, d_offsets, d_counts, d_bits));
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

    /// The exclusive prefix sum of the first `count` values of `input`
    /// into `out` (`zk_scan_tiles`, the tile totals scanned the same way,
    /// then `zk_scan_add`); values past `count` read as zero, so an `out`
    /// of `count + 1` values ends with the total. Queued; the recursion's
    /// buffers go to `keep`.
    fn scan_into<'d>(
        &'d self,
        input: Slice<u32>,
        count: u32,
        out: Slice<u32>,
        keep: &mut Keep<'d>,
    ) -> Result<(), CudaError> {
        let dev = self.dev();
        let len = out.len() as u32;
        let tiles = len.div_ceil(SCAN_TILE).max(1);
        let tile_sums = Buf::<u32>::alloc(dev, tiles as usize)?;
        // SAFETY: block b reads input below count and writes out below len
        // and tile_sums[b]; its shared tile is the kernel's own.
        unsafe {
            k::zk_scan_tiles(
                dev,
                Grid::blocks(tiles, SCAN_TILE / 2),
                input,
                count,
                out,
                len,
                tile_sums.slice(),
            )?
        };
        if tiles > 1 {
            let tile_offsets = Buf::<u32>::alloc(dev, tiles as usize)?;
            self.scan_into(tile_sums.slice(), tiles, tile_offsets.slice(), keep)?;
            // SAFETY: thread i < len updates out[i] from tile_offsets[i / tile].
            unsafe { k::zk_scan_add(dev, Grid::threads(len), out, tile_offsets.slice(), len)? };
            keep.u32s.push(tile_offsets);
        }
        keep.u32s.push(tile_sums);
        Ok(())
    }

    /// The exclusive prefix sum of `input` into `out_len` values.
    #[cfg(feature = "emulation")]
    pub fn scan(&self, input: &[u32], out_len: usize) -> Result<Vec<u32>, CudaError> {
        let dev = self.dev();
        let d_in = Buf::upload(dev, input)?;
        let d_out = Buf::<u32>::alloc(dev, out_len)?;
        let mut keep = Keep::new(dev);
        self.scan_into(d_in.slice(), input.len() as u32, d_out.slice(), &mut keep)?;
        keep.release()?;
        d_out.slice().to_vec(dev)
    }

    /// The `m` buckets bounded by `offsets` (`m + 1` values) cut into
    /// segments of at most [`SEGMENT`] entries (`zk_segment_count`, the
    /// scan, `zk_segment_starts`). Only the number of segments and the
    /// widest bucket come back to the host.
    fn segments_on_device<'d>(
        &'d self,
        offsets: Slice<u32>,
        m: u32,
        keep: &mut Keep<'d>,
    ) -> Result<SegmentsOnDevice<'d>, CudaError> {
        let dev = self.dev();
        let nseg = Buf::<u32>::alloc(dev, m as usize)?;
        let d_widest = Buf::upload(dev, &[0u32])?;
        // SAFETY: thread b < m reads offsets[b..=b + 1] and writes nseg[b];
        // one counter, updated atomically.
        unsafe {
            k::zk_segment_count(
                dev,
                Grid::threads(m),
                offsets,
                nseg.slice(),
                d_widest.slice(),
                m,
            )?
        };
        let bucket_seg = Buf::<u32>::alloc(dev, m as usize + 1)?;
        self.scan_into(nseg.slice(), m, bucket_seg.slice(), keep)?;
        let count = bucket_seg.index(m as usize..m as usize + 1).to_vec(dev)?[0];
        let widest = d_widest.slice().to_vec(dev)?[0];
        keep.u32s.push(nseg);
        keep.u32s.push(d_widest);
        let seg_start = Buf::<u32>::alloc(dev, count as usize + 1)?;
        // SAFETY: thread b < m writes its bucket's bounds (disjoint ranges of
        // seg_start, by the scan), thread m the last bound.
        unsafe {
            k::zk_segment_starts(
                dev,
                Grid::threads(m + 1),
                offsets,
                bucket_seg.slice(),
                seg_start.slice(),
                m,
            )?
        };
        Ok(SegmentsOnDevice {
            seg_start,
            bucket_seg,
            count,
            widest,
        })
    }

    /// The buckets bounded by `offsets` cut into segments: `(seg_start,
    /// bucket_seg, widest)`.
    #[cfg(feature = "emulation")]
    pub fn segments(&self, offsets: &[u32]) -> Result<(Vec<u32>, Vec<u32>, u32), CudaError> {
        let dev = self.dev();
        let d = Buf::upload(dev, offsets)?;
        let mut keep = Keep::new(dev);
        let m = offsets.len() as u32 - 1;
        let seg = self.segments_on_device(d.slice(), m, &mut keep)?;
        keep.release()?;
        Ok((
            seg.seg_start.slice().to_vec(dev)?,
            seg.bucket_seg.slice().to_vec(dev)?,
            seg.widest,
        ))
    }

    // ---- the NTT and Groth16's quotient ----

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

    // ---- one formula per thread ----

    /// `kernel(a, b, out, n)` over the first `n = min(len a, len b)` pairs.
    #[cfg(feature = "emulation")]
    fn per_thread<A: Plain, B: Plain, O: Plain + Default>(
        &self,
        a: &[A],
        b: &[B],
        kernel: PairKernel<A, B, O>,
    ) -> Result<Vec<O>, CudaError> {
        let dev = self.dev();
        let n = a.len().min(b.len());
        let (da, db) = (Buf::upload(dev, &a[..n])?, Buf::upload(dev, &b[..n])?);
        let out = Buf::<O>::alloc(dev, n)?;
        // SAFETY: n values in each buffer; thread i writes out[i].
        unsafe {
            kernel(
                dev,
                Grid::threads(n as u32),
                da.slice(),
                db.slice(),
                out.slice(),
                n as u32,
            )?
        };
        out.slice().to_vec(dev)
    }

    /// `a_i * b_i` in Fq (Montgomery limbs), one per thread.
    #[cfg(feature = "emulation")]
    pub fn fq_mul(&self, a: &[[u32; 8]], b: &[[u32; 8]]) -> Result<Vec<[u32; 8]>, CudaError> {
        self.per_thread(a, b, k::zk_fq_mul)
    }

    /// `a_i + b_i` (Jacobian, add-2007-bl).
    #[cfg(feature = "emulation")]
    pub fn g1_add(
        &self,
        a: &[DeviceJacobian],
        b: &[DeviceJacobian],
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        self.per_thread(a, b, k::zk_g1_add)
    }

    /// `a_i + b_i` (XYZZ plus affine, madd-2008-s).
    #[cfg(feature = "emulation")]
    pub fn xyzz_add_affine(
        &self,
        a: &[DeviceXyzz],
        b: &[DeviceAffine],
    ) -> Result<Vec<DeviceXyzz>, CudaError> {
        self.per_thread(a, b, k::zk_g1_xyzz_madd)
    }

    /// `(2 a_i, 3 a_i)`.
    #[cfg(feature = "emulation")]
    pub fn g1_dbl_tpl(
        &self,
        a: &[DeviceJacobian],
    ) -> Result<(Vec<DeviceJacobian>, Vec<DeviceJacobian>), CudaError> {
        let dev = self.dev();
        let n = a.len();
        let da = Buf::upload(dev, a)?;
        let (d2, d3) = (Buf::alloc(dev, n)?, Buf::alloc(dev, n)?);
        // SAFETY: n points in each buffer; thread i writes d2[i] and d3[i].
        unsafe {
            k::zk_g1_dbl_tpl(
                dev,
                Grid::threads(n as u32),
                da.slice(),
                d2.slice(),
                d3.slice(),
                n as u32,
            )?
        };
        Ok((d2.slice().to_vec(dev)?, d3.slice().to_vec(dev)?))
    }
}

/// A kernel of one operation per thread on two inputs: `(a, b, out, n)`.
#[cfg(feature = "emulation")]
type PairKernel<A, B, O> =
    unsafe fn(&dyn Device, Grid, Slice<A>, Slice<B>, Slice<O>, u32) -> Result<(), CudaError>;

/// Device bytes of a bucket MSM of `n` terms (an upper bound): bases and
/// scalars, one entry per (term, window), segments, and the buckets.
pub(crate) fn bucket_bytes(n: usize) -> usize {
    let p = BucketParams::new(n.min(u32::MAX as usize) as u32);
    let (w, buckets) = (p.windows as usize, p.total_buckets() as usize);
    let entries = n * w;
    let segments = entries / SEGMENT as usize + buckets;
    n * (64 + 32) + entries * 4 + segments * (128 + 4) + buckets * (128 + 20)
}

/// Frees host vectors on another thread: giving back the pages of three
/// vectors of 2^20 field elements took about 5 ms on an H200's host (seen
/// inside a timed step of the first GPU runs), time the device's work need
/// not wait for. Where no thread can be started, they are freed here.
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
