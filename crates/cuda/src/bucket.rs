//! Host side of the GPU bucket method (`kernels/msm/bucket_msm.cuh`): the
//! geometry and the final window combination, shared by the GPU runtime and
//! the host emulation, which run the same sequence; and plain host versions
//! of the steps the device does between kernels (prefix sum of the bucket
//! counts, cutting buckets into segments, the levels of bucket sums), the
//! references the tests hold the device kernels to.

use ark_bn254::G1Projective;
use ark_ff::Zero;

/// Bucket entries one thread sums at most (`zk_bucket_segments`;
/// `ZK_BUCKET_SEGMENT` in the kernels).
pub const SEGMENT: u32 = 64;

/// Values one block of `zk_scan_tiles` scans (`1 << ZK_SCAN_TILE_LOG`).
pub const SCAN_TILE: u32 = 1 << 10;

/// Bucket slices per window in `zk_window_reduce` (a power of two, at most
/// one per bucket): each slice is one thread's serial running sum, so more
/// slices mean more threads and shorter chains (at 2^20 terms, 16-bit
/// windows: 17 windows of 1,024 slices are 17,408 threads of 32 buckets);
/// docs/cuda.md has the measurement.
pub const MAX_SLICES: u32 = 1024;

/// `struct bucket_params` of the kernels.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BucketParams {
    /// Terms.
    pub n: u32,
    /// Window bits.
    pub c: u32,
    /// Windows: signed digits of a 256-bit scalar, `ceil(257 / c)`.
    pub windows: u32,
    /// Buckets per window, `2^(c-1)`.
    pub nb: u32,
}

impl BucketParams {
    /// The geometry for `n` terms of any 256-bit scalars.
    pub fn new(n: u32) -> BucketParams {
        BucketParams::for_bits(n, 256)
    }

    /// The geometry for `n` terms whose scalars are below `2^bits` (`bits`
    /// from `zk_scalar_bits`): the CPU's window rule (minimise
    /// `windows * (n + 2^c)`) kept to `2..=16` bits, and the fewest windows
    /// whose signed digits cover `bits` bits plus the final carry.
    pub fn for_bits(n: u32, bits: u32) -> BucketParams {
        let bits = bits.clamp(1, 256);
        let c = zkaccel_cpu::msm::min_work_window(n as usize, bits).clamp(2, 16);
        BucketParams::with_window_bits(n, c, bits)
    }

    /// The geometry with window `c` (2..=16) for any 256-bit scalars.
    pub fn with_window(n: u32, c: u32) -> BucketParams {
        BucketParams::with_window_bits(n, c, 256)
    }

    /// The geometry with window `c` (2..=16) for scalars below `2^bits`.
    pub fn with_window_bits(n: u32, c: u32, bits: u32) -> BucketParams {
        let c = c.clamp(2, 16);
        BucketParams {
            n,
            c,
            windows: (bits.clamp(1, 256) + 1).div_ceil(c),
            nb: 1 << (c - 1),
        }
    }

    /// Buckets over all windows.
    pub fn total_buckets(&self) -> u32 {
        self.windows * self.nb
    }

    /// Slices per window in the reduction (a power of two: the pairwise
    /// rounds that sum them never pair slices of two windows).
    pub fn slices(&self) -> u32 {
        self.nb.min(MAX_SLICES)
    }

    /// The pairwise rounds (`zk_reduce_pairs`) that sum each window's
    /// slices: `log2(slices)` of them, `windows * slices` points down to
    /// `windows`, window `j`'s sum last at index `j`.
    pub fn slice_rounds(&self) -> impl Iterator<Item = crate::plan::Round> {
        let w = self.windows;
        let s = self.slices();
        (0..s.trailing_zeros()).map(move |r| crate::plan::Round {
            inputs: w * (s >> r),
            outputs: w * (s >> (r + 1)),
        })
    }
}

/// `offsets[b] = counts[0] + ... + counts[b - 1]`, with the total last (the
/// host reference of the device scan).
pub fn exclusive_scan(counts: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(counts.len() + 1);
    let mut acc = 0u32;
    out.push(0);
    for &c in counts {
        acc += c;
        out.push(acc);
    }
    out
}

/// The segments: `seg_start` (one more entry than segments: the bounds in
/// the sorted entries) and `bucket_seg` (one more entry than buckets: each
/// bucket's first segment).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segments {
    /// Segment `s` covers entries `seg_start[s]..seg_start[s + 1]`.
    pub seg_start: Vec<u32>,
    /// Bucket `b` has segments `bucket_seg[b]..bucket_seg[b + 1]`.
    pub bucket_seg: Vec<u32>,
}

impl Segments {
    /// Cuts every bucket (entries `offsets[b]..offsets[b + 1]`) into
    /// segments of at most [`SEGMENT`] entries (the host reference of the
    /// device's `zk_segment_count` and `zk_segment_starts`).
    pub fn new(offsets: &[u32]) -> Segments {
        let buckets = offsets.len().saturating_sub(1);
        let mut seg_start = Vec::new();
        let mut bucket_seg = Vec::with_capacity(buckets + 1);
        for b in 0..buckets {
            bucket_seg.push(seg_start.len() as u32);
            let mut e = offsets[b];
            while e < offsets[b + 1] {
                seg_start.push(e);
                e = (e + SEGMENT).min(offsets[b + 1]);
            }
        }
        bucket_seg.push(seg_start.len() as u32);
        seg_start.push(offsets.last().copied().unwrap_or(0));
        Segments {
            seg_start,
            bucket_seg,
        }
    }

    /// Number of segments.
    pub fn count(&self) -> u32 {
        self.seg_start.len() as u32 - 1
    }
}

/// The launches of `zk_bucket_collect` that sum each bucket's segment sums
/// (`bucket_seg` as [`Segments`] gives it): each entry is the bounds array
/// of one launch (thread `r` sums its input `bounds[r]..bounds[r + 1]`);
/// the last has one range per bucket. Before it, every bucket with more
/// than [`SEGMENT`] inputs is cut into ranges of at most [`SEGMENT`],
/// level after level, so no thread adds more than [`SEGMENT`] points
/// however skewed the buckets are. (The host reference of the level loop
/// the runtime and the emulation run with the segment kernels.)
pub fn collect_levels(bucket_seg: &[u32]) -> Vec<Vec<u32>> {
    let widest = |b: &[u32]| b.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let mut levels = Vec::new();
    let mut bounds = bucket_seg.to_vec();
    while widest(&bounds) > SEGMENT {
        let level = Segments::new(&bounds);
        levels.push(level.seg_start);
        bounds = level.bucket_seg;
    }
    levels.push(bounds);
    levels
}

/// `sum_j 2^(jc) W_j` for the window sums `W_j` (low window first).
pub fn combine_windows(windows: &[G1Projective], p: &BucketParams) -> G1Projective {
    let mut result = G1Projective::zero();
    for w in windows.iter().rev() {
        for _ in 0..p.c {
            result += result;
        }
        result += w;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_and_segments() {
        let counts = [0u32, 3, 0, 130, 64, 1];
        let off = exclusive_scan(&counts);
        assert_eq!(off, vec![0, 0, 3, 3, 133, 197, 198]);
        let s = Segments::new(&off);
        // bucket 1: one segment; bucket 3: 64 + 64 + 2; bucket 4: 64; bucket 5: 1
        assert_eq!(s.bucket_seg, vec![0, 0, 1, 1, 4, 5, 6]);
        assert_eq!(s.seg_start, vec![0, 3, 67, 131, 133, 197, 198]);
        assert_eq!(s.count(), 6);
        let empty = Segments::new(&exclusive_scan(&[0, 0]));
        assert_eq!(empty.count(), 0);
    }

    #[test]
    fn slice_rounds_end_with_one_sum_per_window() {
        for n in [1u32, 8, 300, 1 << 12, 1 << 20] {
            let p = BucketParams::new(n);
            let s = p.slices();
            assert!(s.is_power_of_two() && s <= p.nb && s <= MAX_SLICES);
            let rounds: Vec<_> = p.slice_rounds().collect();
            assert_eq!(rounds.len() as u32, s.trailing_zeros());
            let mut cur = p.windows * s;
            for r in &rounds {
                // every round pairs whole windows' worth of even counts
                assert_eq!((r.inputs, r.outputs), (cur, cur / 2));
                assert_eq!(r.inputs % (2 * p.windows), 0);
                cur = r.outputs;
            }
            assert_eq!(cur, p.windows);
        }
    }

    #[test]
    fn geometry_covers_256_bit_scalars() {
        for n in [1u32, 100, 1 << 10, 1 << 16, 1 << 20, 1 << 26] {
            let p = BucketParams::new(n);
            assert!((2..=16).contains(&p.c));
            assert!(p.windows * p.c > 256, "signed digits need one spare bit");
            assert_eq!(p.nb, 1 << (p.c - 1));
            for bits in [0u32, 1, 2, 17, 64, 254, 255, 256, 300] {
                let q = BucketParams::for_bits(n, bits);
                assert!(
                    q.windows >= 1 && q.windows * q.c > bits.clamp(1, 256),
                    "{n} {bits}"
                );
                // no window more than needed
                assert!((q.windows - 1) * q.c <= bits.clamp(1, 256), "{n} {bits}");
            }
        }
        assert_eq!(BucketParams::for_bits(1 << 18, 1).windows, 1);
    }

    #[test]
    fn collect_levels_bound_every_thread() {
        // buckets with 0, 1, 64, 65, 5000 and 300000 segments
        let sizes = [0u32, 1, 64, 65, 5000, 300_000];
        let mut bucket_seg = vec![0u32];
        for s in sizes {
            bucket_seg.push(bucket_seg.last().unwrap() + s);
        }
        let levels = collect_levels(&bucket_seg);
        assert_eq!(levels.len(), 4, "300000 -> 4688 -> 74 -> 2 -> 1");
        let mut inputs = *bucket_seg.last().unwrap();
        for l in &levels {
            assert_eq!(l[0], 0);
            assert_eq!(
                *l.last().unwrap(),
                inputs,
                "each level covers all its inputs"
            );
            assert!(l.windows(2).all(|w| w[0] <= w[1] && w[1] - w[0] <= SEGMENT));
            inputs = l.len() as u32 - 1;
        }
        assert_eq!(inputs, sizes.len() as u32, "one sum per bucket");
        assert_eq!(collect_levels(&[0, 3, 3, 70]).len(), 2);
        assert_eq!(collect_levels(&[0, 3, 3, 64]), vec![vec![0, 3, 3, 64]]);
    }
}
