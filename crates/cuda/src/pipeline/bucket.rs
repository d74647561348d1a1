//! The bucket method (Pippenger) on the device: the scalars' width sizes
//! the windows; a counting sort puts every (term, window) digit into its
//! bucket (counts, the device prefix sum, segments, scatter); segments of at
//! most `SEGMENT` entries are summed in XYZZ and the buckets from them, in
//! levels where buckets hold many segments; each window's buckets are
//! summed by sliced running sums and pairwise rounds; the host combines the
//! windows.

use super::{Gpu, Keep, Laps};
use crate::bucket::{combine_windows, BucketParams, SCAN_TILE, SEGMENT};
use crate::device::{Buf, Grid, RawBuf, Slice};
use crate::error::CudaError;
use crate::kernels as k;
use crate::layout::{DeviceAffine, DeviceJacobian, DeviceXyzz};
use ark_bn254::G1Projective;
use ark_ff::Zero;

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
    pub(super) fn bucket_on_device(
        &self,
        d_bases: Slice<DeviceAffine>,
        d_scalars: Slice<[u32; 8]>,
        montgomery: bool,
        window: Option<u32>,
        mut laps: Laps<'_>,
    ) -> Result<G1Projective, CudaError> {
        if d_scalars.len() == 0 {
            return Ok(G1Projective::zero());
        }
        let Some(p) = self.bucket_geometry(d_scalars, montgomery, window, &mut laps)? else {
            return Ok(G1Projective::zero());
        };
        // Every buffer of the sort and the sums stays in `keep` until the
        // device has finished with it (released after the bucket sums).
        let mut keep = Keep::new(self.dev());
        let (entries, seg) = self.sort_into_buckets(d_scalars, p, &mut keep, &mut laps)?;
        let d_buckets = self.bucket_sums(d_bases, entries, seg, p, keep, &mut laps)?;
        self.window_sums(d_buckets, p, &mut laps)
    }

    /// Step 0: the scalars converted from Montgomery form (with
    /// `montgomery`), their widest bit length found on the device, and the
    /// geometry it gives; `None` when every scalar is zero.
    fn bucket_geometry(
        &self,
        d_scalars: Slice<[u32; 8]>,
        montgomery: bool,
        window: Option<u32>,
        laps: &mut Laps<'_>,
    ) -> Result<Option<BucketParams>, CudaError> {
        let dev = self.dev();
        let n = d_scalars.len() as u32;
        let all = Grid::threads(n);
        let d_bits = Buf::upload(dev, &[0u32])?;
        // SAFETY: n scalars, converted in place by thread i; one counter.
        unsafe {
            if montgomery {
                k::zk_fr_from_montgomery(dev, all, d_scalars, n)?;
            }
            k::zk_scalar_bits(dev, all, d_scalars, d_bits.slice(), n)?;
        }
        // The download waits for both kernels: d_bits is free to go.
        let bits = d_bits.slice().to_vec(dev)?[0];
        laps.lap("scalar bits")?;
        Ok((bits != 0).then(|| match window {
            Some(c) => BucketParams::with_window_bits(n, c, bits),
            None => BucketParams::for_bits(n, bits),
        }))
    }

    /// Steps 1 and 2: a counting sort of every (term, window) digit into
    /// its bucket: counts, their prefix sum and the buckets' segments on the
    /// device, then the scatter. The entries (point index and sign) and the
    /// segments; every buffer goes to `keep`.
    fn sort_into_buckets<'d>(
        &'d self,
        d_scalars: Slice<[u32; 8]>,
        p: BucketParams,
        keep: &mut Keep<'d>,
        laps: &mut Laps<'_>,
    ) -> Result<(Slice<u32>, SegmentsOnDevice<'d>), CudaError> {
        let dev = self.dev();
        let all = Grid::threads(p.n);
        let total = p.total_buckets();
        let d_counts = Buf::upload(dev, &vec![0u32; total as usize])?;
        // SAFETY: n scalars; total_buckets zeroed counters.
        unsafe { k::zk_bucket_count(dev, all, d_scalars, d_counts.slice(), p)? };
        laps.lap("count")?;
        let d_offsets = Buf::<u32>::alloc(dev, total as usize + 1)?;
        self.scan_into(d_counts.slice(), total, d_offsets.slice(), keep)?;
        let d_cursors = Buf::<u32>::alloc(dev, total as usize)?;
        d_cursors
            .slice()
            .copy_from(dev, d_offsets.index(0..total as usize))?;
        let seg = self.segments_on_device(d_offsets.slice(), total, keep)?;
        laps.lap("scan and segments")?;
        let d_entries = Buf::<u32>::alloc(dev, p.n as usize * p.windows as usize)?;
        // SAFETY: each cursor starts at its bucket's offset; slots stay below
        // the next offset, at most n * windows, inside d_entries.
        unsafe {
            k::zk_bucket_scatter(dev, all, d_scalars, d_cursors.slice(), d_entries.slice(), p)?
        };
        laps.lap("scatter")?;
        let entries = d_entries.slice();
        keep.u32s
            .extend([d_counts, d_offsets, d_cursors, d_entries]);
        Ok((entries, seg))
    }

    /// Steps 3 and 4: the XYZZ sum of each segment of entries, then of each
    /// bucket's segments, in levels where buckets hold many segments (each
    /// level's ranges cut by the segment kernels). Waits for the device and
    /// frees what `keep` holds; the buckets' sums.
    fn bucket_sums<'d>(
        &'d self,
        d_bases: Slice<DeviceAffine>,
        entries: Slice<u32>,
        seg: SegmentsOnDevice<'d>,
        p: BucketParams,
        mut keep: Keep<'d>,
        laps: &mut Laps<'_>,
    ) -> Result<Buf<'d, DeviceXyzz>, CudaError> {
        let dev = self.dev();
        let d_seg_sums = Buf::<DeviceXyzz>::alloc(dev, seg.count as usize)?;
        if seg.count > 0 {
            // SAFETY: segment bounds index the entries; entries index
            // d_bases; thread s writes seg_sums[s] only.
            unsafe {
                k::zk_bucket_segments(
                    dev,
                    Grid::threads(seg.count),
                    d_bases,
                    entries,
                    seg.seg_start.slice(),
                    d_seg_sums.slice(),
                    seg.count,
                )?
            };
        }
        laps.lap("segment sums")?;
        let total = p.total_buckets();
        let mut sums = d_seg_sums;
        let (mut bounds, mut widest) = (seg.bucket_seg, seg.widest);
        keep.u32s.push(seg.seg_start);
        while widest.div_ceil(SEGMENT) > SEGMENT {
            let level = self.segments_on_device(bounds.slice(), total, &mut keep)?;
            let next = self.collect_ranges(sums.slice(), level.seg_start.slice(), level.count)?;
            keep.points.push(std::mem::replace(&mut sums, next));
            keep.u32s
                .push(std::mem::replace(&mut bounds, level.bucket_seg));
            keep.u32s.push(level.seg_start);
            widest = level.widest;
        }
        let d_buckets = self.collect_ranges(sums.slice(), bounds.slice(), total)?;
        keep.points.push(sums);
        keep.u32s.push(bounds);
        keep.release()?;
        laps.lap("bucket sums")?;
        Ok(d_buckets)
    }

    /// The sum of each of `ranges` ranges of `sums` (`bounds` has `ranges +
    /// 1` entries bounding them), by `zk_bucket_collect`; queued.
    fn collect_ranges(
        &self,
        sums: Slice<DeviceXyzz>,
        bounds: Slice<u32>,
        ranges: u32,
    ) -> Result<Buf<'_, DeviceXyzz>, CudaError> {
        let dev = self.dev();
        let out = Buf::<DeviceXyzz>::alloc(dev, ranges as usize)?;
        // SAFETY: `bounds` has ranges + 1 entries bounding `sums`; thread r
        // writes out[r] only.
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
        Ok(out)
    }

    /// Steps 5 and 6: each window's buckets by sliced running sums, the
    /// slices of each window summed pairwise on the device (`slices` is a
    /// power of two), the windows combined on the host.
    fn window_sums(
        &self,
        d_buckets: Buf<'_, DeviceXyzz>,
        p: BucketParams,
        laps: &mut Laps<'_>,
    ) -> Result<G1Projective, CudaError> {
        let dev = self.dev();
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
        let cur = self.reduce_rounds(d_parts, p.slice_rounds())?;
        laps.lap("slice sums")?;
        // The download waits for the device: d_buckets is free to go.
        let parts = cur.index(0..p.windows as usize).to_vec(dev)?;
        drop(d_buckets);
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
}

/// Device bytes of a bucket MSM of `n` terms (an upper bound): bases and
/// scalars, one entry per (term, window), segments, and the buckets.
pub(super) fn bucket_bytes(n: usize) -> usize {
    let p = BucketParams::new(n.min(u32::MAX as usize) as u32);
    let (w, buckets) = (p.windows as usize, p.total_buckets() as usize);
    let entries = n * w;
    let segments = entries / SEGMENT as usize + buckets;
    n * (64 + 32) + entries * 4 + segments * (128 + 4) + buckets * (128 + 20)
}
