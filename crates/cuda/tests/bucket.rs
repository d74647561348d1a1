//! The GPU bucket method, every kernel emulated on the host, against
//! arkworks' `msm`: dense, sparse and small-scalar inputs up to 2^14, skewed
//! buckets, every window size, and the edge cases.
#![cfg(feature = "emulation")] // the host build of the kernels is the reference

use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM};
use ark_ff::{BigInt, PrimeField, UniformRand, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use zkaccel_cuda::emulation::{self, bucket_msm_bigint};

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn bases(r: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
    let step = G1Projective::rand(r);
    let mut cur = G1Projective::rand(r);
    let v: Vec<G1Projective> = (0..n)
        .map(|_| {
            cur += step;
            cur
        })
        .collect();
    G1Projective::normalize_batch(&v)
}

fn check(bases: &[G1Affine], scalars: &[Fr], window: Option<u32>, what: &str) {
    let want = G1Projective::msm(bases, scalars).unwrap();
    let ints: Vec<BigInt<4>> = scalars.iter().map(|s| s.into_bigint()).collect();
    let got = bucket_msm_bigint(bases, &ints, window);
    assert_eq!(
        got,
        want,
        "{what}: {} terms, window {window:?}",
        bases.len()
    );
}

#[test]
fn every_small_size_and_window() {
    let mut r = rng(1);
    let b = bases(&mut r, 64);
    for n in 0..=40 {
        let k: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut r)).collect();
        check(&b[..n], &k, None, "random");
    }
    let k: Vec<Fr> = (0..64).map(|_| Fr::rand(&mut r)).collect();
    for c in 2..=16 {
        check(&b, &k, Some(c), "every window size");
    }
}

#[test]
fn edge_cases() {
    let cases = zkaccel_testkit::msm::edge_cases::<ark_bn254::g1::Config>(16, &mut rng(2));
    for window in [None, Some(2), Some(5), Some(8), Some(13), Some(16)] {
        for c in &cases {
            check(&c.bases, &c.scalars, window, c.name);
        }
    }
}

#[test]
fn integers_up_to_2_pow_256() {
    let mut r = rng(3);
    let b = bases(&mut r, 50);
    let ints: Vec<BigInt<4>> = (0..50)
        .map(|i| {
            if i % 3 == 0 {
                BigInt::new([u64::MAX; 4])
            } else {
                BigInt::new([r.gen(), r.gen(), r.gen(), r.gen()])
            }
        })
        .collect();
    let want: G1Projective = b.iter().zip(&ints).map(|(p, k)| p.mul_bigint(k)).sum();
    for c in [3, 7, 16] {
        assert_eq!(bucket_msm_bigint(&b, &ints, Some(c)), want, "window {c}");
    }
}

fn size_max() -> usize {
    std::env::var("ZKACCEL_TEST_CUDA_BUCKET_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 14)
}

#[test]
fn dense_sparse_small_and_skewed_up_to_2_pow_14() {
    let mut r = rng(4);
    let max = size_max();
    let b = bases(&mut r, max);
    let mut sizes = vec![100, 1000, 4096];
    sizes.push(max);
    sizes.retain(|&n| n <= max);
    for n in sizes {
        let dense: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut r)).collect();
        check(&b[..n], &dense, None, "dense");
        let sparse: Vec<Fr> = (0..n)
            .map(|i| {
                if i % 100 == 0 {
                    Fr::rand(&mut r)
                } else {
                    Fr::zero()
                }
            })
            .collect();
        check(&b[..n], &sparse, None, "sparse");
        for bits in [1u32, 16, 64] {
            let small: Vec<Fr> = (0..n)
                .map(|_| Fr::from(r.gen::<u64>() >> (64 - bits)))
                .collect();
            check(&b[..n], &small, None, &format!("{bits}-bit scalars"));
        }
        // every scalar equal: one bucket per window holds all n entries
        let same = vec![Fr::from(12345u64); n];
        check(&b[..n], &same, None, "one crowded bucket");
    }
}

/// The device prefix sum (tiles of 1024, tile totals scanned recursively)
/// against the host's, on lengths around the tile boundaries and one that
/// needs three levels of tiles.
#[test]
fn device_scan_equals_host_scan() {
    use zkaccel_cuda::bucket::exclusive_scan;
    let mut r = rng(40);
    for len in [0usize, 1, 2, 1023, 1024, 1025, 5000, (1 << 20) + 3] {
        let counts: Vec<u32> = (0..len).map(|_| r.gen_range(0..200)).collect();
        let mut got = vec![0u32; len + 1];
        emulation::scan_into(&counts, &mut got);
        assert_eq!(got, exclusive_scan(&counts), "{len} counts");
    }
}

/// The device's segments (per-bucket counts, their scan, the bounds) and
/// its level loop for crowded buckets, against the host references.
#[test]
fn device_segments_equal_host_segments() {
    use zkaccel_cuda::bucket::{collect_levels, exclusive_scan, Segments, SEGMENT};
    let mut r = rng(41);
    let mut cases: Vec<Vec<u32>> = vec![
        vec![0],
        vec![0, 3, 0, 130, 64, 1],
        vec![63, 64, 65, 128, 129],
        vec![300_000, 0, 5000, 1],
    ];
    cases.push((0..3000).map(|_| r.gen_range(0..300)).collect());
    for counts in cases {
        let offsets = exclusive_scan(&counts);
        let seg = emulation::segments(&offsets);
        let host = Segments::new(&offsets);
        assert_eq!(seg.seg_start, host.seg_start, "{} buckets", counts.len());
        assert_eq!(seg.bucket_seg, host.bucket_seg);
        assert_eq!(seg.widest, counts.iter().copied().max().unwrap());
        // the level loop of the runtime against collect_levels
        let (mut bounds, mut widest, mut levels) = (seg.bucket_seg, seg.widest, Vec::new());
        while widest.div_ceil(SEGMENT) > SEGMENT {
            let level = emulation::segments(&bounds);
            levels.push(level.seg_start);
            (bounds, widest) = (level.bucket_seg, level.widest);
        }
        levels.push(bounds);
        assert_eq!(levels, collect_levels(&host.bucket_seg));
    }
}
