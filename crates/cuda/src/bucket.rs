//! Host side of the GPU bucket method (`kernels/msm/bucket_msm.cuh`): the
//! geometry, the steps between kernels (prefix sum of the bucket counts,
//! cutting buckets into segments) and the final window combination. Shared
//! by the GPU runtime and the host emulation, which run the same sequence.

use ark_bn254::G1Projective;
use ark_ff::Zero;

/// Bucket entries one thread sums at most (`zk_bucket_segments`).
pub const SEGMENT: u32 = 64;

/// Bucket slices per window in `zk_window_reduce` (at most one per bucket).
pub const MAX_SLICES: u32 = 128;

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

#[cfg(feature = "cuda")]
// SAFETY: four u32, no padding, no pointers.
unsafe impl cust::memory::DeviceCopy for BucketParams {}

impl BucketParams {
    /// The geometry for `n` terms: the CPU's window rule (minimise
    /// `windows * (n + 2^c)`) kept to `2..=16` bits.
    pub fn new(n: u32) -> BucketParams {
        let c = zkaccel_cpu::msm::min_work_window(n as usize, 256).clamp(2, 16);
        BucketParams::with_window(n, c)
    }

    /// The geometry with window `c` (2..=16).
    pub fn with_window(n: u32, c: u32) -> BucketParams {
        let c = c.clamp(2, 16);
        BucketParams {
            n,
            c,
            windows: 257u32.div_ceil(c),
            nb: 1 << (c - 1),
        }
    }

    /// Buckets over all windows.
    pub fn total_buckets(&self) -> u32 {
        self.windows * self.nb
    }

    /// Slices per window in the reduction.
    pub fn slices(&self) -> u32 {
        self.nb.min(MAX_SLICES)
    }
}

/// `offsets[b] = counts[0] + ... + counts[b - 1]`, with the total last.
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
    /// segments of at most [`SEGMENT`] entries.
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

/// `sum_j 2^(jc) W_j` where `W_j` is the sum of window `j`'s slices.
pub fn combine_windows(parts: &[G1Projective], p: &BucketParams) -> G1Projective {
    let slices = p.slices() as usize;
    let mut result = G1Projective::zero();
    for j in (0..p.windows as usize).rev() {
        for _ in 0..p.c {
            result += result;
        }
        result += parts[j * slices..(j + 1) * slices]
            .iter()
            .sum::<G1Projective>();
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
    fn geometry_covers_256_bit_scalars() {
        for n in [1u32, 100, 1 << 10, 1 << 16, 1 << 20, 1 << 26] {
            let p = BucketParams::new(n);
            assert!((2..=16).contains(&p.c));
            assert!(p.windows * p.c > 256, "signed digits need one spare bit");
            assert_eq!(p.nb, 1 << (p.c - 1));
        }
    }
}
