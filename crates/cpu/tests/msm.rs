//! Every MSM algorithm against arkworks' `VariableBaseMSM::msm`, per curve.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{PrimeField, UniformRand};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::io::Write;
use zkaccel_cpu::msm::BucketAdds;
use zkaccel_cpu::{
    msm, msm_bases, msm_bigint_with, msm_with, BaseSlice, CpuMsm, CurveMul, MontBytes,
    MsmAlgorithm, MsmError, MsmProvider, PackedBases, PreparedBases,
};
use zkaccel_testkit::msm::{msm_max, over_msm_max};

const ALL: [MsmAlgorithm; 6] = [
    MsmAlgorithm::Auto,
    MsmAlgorithm::Pippenger,
    MsmAlgorithm::PippengerGlv,
    MsmAlgorithm::Strauss,
    MsmAlgorithm::DbcPerTerm,
    MsmAlgorithm::Naive,
];

/// Every algorithm, over field scalars and over their integers (the
/// `msm_bigint` entry and the `CpuMsm` provider), and on the bases read from
/// bytes at an unaligned offset ([`PackedBases`]), equals arkworks.
fn check<P: CurveMul>(bases: &[Affine<P>], scalars: &[P::ScalarField], what: &str)
where
    P::BaseField: MontBytes,
{
    let want = <Projective<P> as VariableBaseMSM>::msm(bases, scalars).unwrap();
    // snarkjs' sections lie 4 bytes off; 1 is as unaligned as it gets.
    for offset in [1usize, 4] {
        let mut bytes = vec![0; offset];
        PackedBases::<P>::encode(bases, &mut bytes);
        let packed = PackedBases::<P>::new(&bytes[offset..]).unwrap();
        assert_eq!(
            msm_bases(packed, scalars).unwrap(),
            want,
            "packed at +{offset}: {what}"
        );
        assert_eq!(
            BaseSlice::Packed(packed).msm(scalars).unwrap(),
            want,
            "BaseSlice at +{offset}: {what}"
        );
    }
    let ints: Vec<_> = scalars.iter().map(|k| k.into_bigint()).collect();
    for alg in ALL {
        assert_eq!(
            msm_with(bases, scalars, alg).unwrap(),
            want,
            "{alg:?}: {what}"
        );
        assert_eq!(
            msm_bigint_with(bases, &ints, alg).unwrap(),
            want,
            "{alg:?} (bigint): {what}"
        );
    }
    let cpu = CpuMsm::default();
    assert_eq!(MsmProvider::<P>::msm(&cpu, bases, scalars).unwrap(), want);
    assert_eq!(
        MsmProvider::<P>::msm_bigint(&cpu, bases, &ints).unwrap(),
        want
    );
    // Precomputed shifted bases, with the chosen window and a small one.
    let prepared = PreparedBases::new(bases);
    assert_eq!(prepared.msm(scalars).unwrap(), want, "prepared: {what}");
    if bases.len() <= 100 {
        let narrow = PreparedBases::with_window(bases, 5);
        assert_eq!(
            narrow.msm_bigint(&ints).unwrap(),
            want,
            "prepared c=5: {what}"
        );
    }
}

fn random_input<P: CurveMul>(
    rng: &mut ChaCha20Rng,
    n: usize,
) -> (Vec<Affine<P>>, Vec<P::ScalarField>) {
    let g = Projective::<P>::generator();
    let bases = Projective::normalize_batch(
        &(0..n)
            .map(|_| g * P::ScalarField::rand(rng))
            .collect::<Vec<_>>(),
    );
    let scalars = (0..n).map(|_| P::ScalarField::rand(rng)).collect();
    (bases, scalars)
}

/// Scalars below 2^bits.
fn small_scalars<F: PrimeField>(rng: &mut ChaCha20Rng, n: usize, bits: u32) -> Vec<F> {
    (0..n)
        .map(|_| {
            let v: u64 = rng.gen();
            F::from(if bits >= 64 {
                v
            } else {
                v & ((1u64 << bits) - 1)
            })
        })
        .collect()
}

fn sizes() -> Vec<usize> {
    let max = msm_max().unwrap_or(4096);
    let mut v: Vec<usize> = (0..=40).collect();
    for p in [64usize, 128, 256, 1024, 4096, 1 << 14, 1 << 16] {
        v.extend([p - 1, p, p + 1]);
    }
    v.retain(|&n| n <= max);
    v
}

fn suite<P: CurveMul>()
where
    P::BaseField: MontBytes,
{
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    for n in sizes() {
        let (b, s) = random_input::<P>(&mut rng, n);
        check(&b, &s, &format!("random, n = {n}"));
    }
    let (b, s) = random_input::<P>(&mut rng, 100);
    let zero = P::ScalarField::from(0u64);
    let one = P::ScalarField::from(1u64);
    for c in zkaccel_testkit::msm::edge_cases::<P>(100, &mut rng) {
        check(&c.bases, &c.scalars, c.name);
    }
    // Fewer zeros and ones than Auto filters out (under 1/16 of the
    // terms): they go through the bucket method as they are.
    let mut few_trivial = s.clone();
    few_trivial[3] = zero;
    few_trivial[50] = one;
    few_trivial[99] = zero;
    check(&b, &few_trivial, "a few zeros and ones, unfiltered");
    for bits in [1u32, 8, 16, 32, 64] {
        let small = small_scalars(&mut rng, 100, bits);
        check(&b, &small, &format!("{bits}-bit scalars"));
        // Auto's small inputs by width: Strauss with NAF or wNAF tables,
        // split over the threads or not, and the crossover to Pippenger.
        for n in [1usize, 2, 3, 5, 9, 10, 11, 24, 25] {
            check(
                &b[..n],
                &small[..n],
                &format!("{bits}-bit scalars, n = {n}"),
            );
        }
    }
    let mut two_inf = b[..2].to_vec();
    two_inf[1] = Affine::identity();
    check(&two_inf, &s[..2], "two terms, one base at infinity");
    // A larger small-scalar case for Pippenger's fewer windows.
    let (b2, _) = random_input::<P>(&mut rng, 2000);
    let small = small_scalars(&mut rng, 2000, 16);
    let want = <Projective<P> as VariableBaseMSM>::msm(&b2, &small).unwrap();
    assert_eq!(
        msm_with(&b2, &small, MsmAlgorithm::Pippenger).unwrap(),
        want
    );
    assert_eq!(msm(&b2, &small).unwrap(), want);
    // The batch-affine window path (c >= 9, from a few thousand terms, the
    // exact count depends on the thread count): bucket conflicts, doublings
    // inside a batch (equal points), cancellations.
    let n3 = (3000..20_000)
        .step_by(500)
        .find(|&n| {
            zkaccel_cpu::msm::pippenger_window(n, 254, BucketAdds::detect::<P>())
                >= zkaccel_cpu::msm::BATCH_AFFINE_MIN_WINDOW
        })
        .expect("a batch-affine size");
    let (b3, s3) = random_input::<P>(&mut rng, n3);
    let pip = |b: &[Affine<P>], s: &[P::ScalarField], what: &str| {
        let want = <Projective<P> as VariableBaseMSM>::msm(b, s).unwrap();
        assert_eq!(
            msm_with(b, s, MsmAlgorithm::Pippenger).unwrap(),
            want,
            "batch-affine: {what}"
        );
        assert_eq!(msm(b, s).unwrap(), want, "auto: {what}");
    };
    // Vectors, not arrays: thousands of points would crowd the test thread's stack.
    let repeated_base = vec![b3[0]; n3];
    let repeated_scalar = vec![s3[0]; n3];
    pip(&repeated_base, &s3, "one base repeated");
    pip(&repeated_base, &repeated_scalar, "one base, one scalar");
    let pm: Vec<Affine<P>> = (0..n3)
        .map(|i| if i % 2 == 0 { b3[i] } else { -b3[i - 1] })
        .collect();
    pip(&pm, &s3, "P and -P");
    let same: Vec<P::ScalarField> = (0..n3).map(|i| s3[i - i % 2]).collect();
    pip(&pm, &same, "P and -P with equal scalars");
    let few: Vec<Affine<P>> = (0..n3).map(|i| b3[i % 3]).collect();
    pip(
        &few,
        &s3,
        "three bases (constant bucket conflicts within batches)",
    );
    let inf: Vec<Affine<P>> = (0..n3)
        .map(|i| {
            if i % 5 == 0 {
                Affine::identity()
            } else {
                b3[i]
            }
        })
        .collect();
    pip(&inf, &s3, "infinity among the bases");
    let ones = vec![one; n3];
    pip(&b3, &ones, "all ones through Pippenger");
    // Point ranges (narrow scalars, more than one thread): each range runs
    // its own wide window; the ranges' sums are added.
    let n4 = 3 * zkaccel_cpu::msm::MIN_RANGE_TERMS + 5;
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 {
        assert!(
            zkaccel_cpu::msm::pippenger_plan(n4, 8, BucketAdds::detect::<P>()).1 > 1,
            "8-bit scalars split the points"
        );
    }
    let (b4, _) = random_input::<P>(&mut rng, n4);
    for bits in [8u32, 16, 32] {
        let small = small_scalars(&mut rng, n4, bits);
        pip(
            &b4,
            &small,
            &format!("{bits}-bit scalars over point ranges"),
        );
        let pm4: Vec<Affine<P>> = (0..n4)
            .map(|i| if i % 2 == 0 { b4[i] } else { -b4[i - 1] })
            .collect();
        pip(
            &pm4,
            &small,
            &format!("{bits}-bit scalars, P and -P, point ranges"),
        );
    }
    pip(&b3, &small_scalars(&mut rng, n3, 1), "1-bit scalars");
    // Length mismatch is an error, not a panic.
    assert_eq!(
        msm(&b[..3], &s[..2]),
        Err(MsmError::LengthMismatch {
            bases: 3,
            scalars: 2
        })
    );
    assert!(msm(&b[..3], &s[..2])
        .unwrap_err()
        .to_string()
        .contains("3 bases but 2 scalars"));
    let mut bytes = Vec::new();
    PackedBases::encode(&b[..3], &mut bytes);
    let packed = PackedBases::<P>::new(&bytes).unwrap();
    assert_eq!(
        msm_bases(packed, &s[..2]),
        Err(MsmError::LengthMismatch {
            bases: 3,
            scalars: 2
        })
    );
}

#[test]
fn bn254_g1() {
    suite::<ark_bn254::g1::Config>();
}

#[test]
fn bls12_381_g1() {
    suite::<ark_bls12_381::g1::Config>();
}

/// The bucket method on `ops` equals arkworks on random input and on the
/// inputs that force doublings, cancellations and bucket conflicts.
fn ops_agree<P: CurveMul, O>(ops: O, n: usize, name: &str)
where
    O: zkaccel_cpu::FieldOps<P::BaseField> + Copy + Send + Sync,
{
    use zkaccel_cpu::msm::pippenger_with;
    // Under qemu (CI's aarch64 stage sets ZKACCEL_TEST_MSM_MAX) the sizes
    // shrink with the other MSM tests'; natively they are what is written.
    let n = n.min(msm_max().unwrap_or(usize::MAX).max(16));
    let mut rng = ChaCha20Rng::seed_from_u64(77);
    let (b, s) = random_input::<P>(&mut rng, n);
    let s: Vec<_> = s.iter().map(|x| x.into_bigint()).collect();
    let repeated = vec![b[0]; n];
    let pm: Vec<Affine<P>> = (0..n)
        .map(|i| if i % 2 == 0 { b[i] } else { -b[i - 1] })
        .collect();
    let few: Vec<Affine<P>> = (0..n).map(|i| b[i % 3]).collect();
    let mut with_zero = b.clone();
    with_zero[n / 2] = Affine::zero();
    for (bases, what) in [
        (&b, "random"),
        (&repeated, "repeated"),
        (&pm, "P and -P"),
        (&few, "three bases"),
        (&with_zero, "a base at infinity"),
    ] {
        let want = <Projective<P> as VariableBaseMSM>::msm_bigint(bases, &s);
        assert_eq!(pippenger_with(bases, &s, ops), want, "{name}: {what}");
    }
}

/// The bucket method with and without the AVX-512 IFMA bulk additions (the
/// path `Auto` takes depends on the CPU).
#[test]
fn bn254_batch_kernels_agree() {
    use zkaccel_cpu::{AdxFp2Ops, AdxOps};
    type G1 = ark_bn254::g1::Config;
    type G2 = ark_bn254::g2::Config;
    match (AdxOps::new(), AdxOps::without_lanes()) {
        (Some(l), Some(s)) => {
            ops_agree::<G1, _>(l, 1 << 13, "lanes");
            ops_agree::<G1, _>(s, 1 << 13, "scalar");
        }
        _ => {
            let _ = writeln!(std::io::stderr(), "SKIPPED: bn254_batch_kernels_agree G1 (this CPU lacks BMI2/ADX, or ZKACCEL_KERNEL=portable)");
        }
    }
    match (AdxFp2Ops::new(), AdxFp2Ops::without_lanes()) {
        (Some(l), Some(s)) => {
            ops_agree::<G2, _>(l, 1 << 13, "lanes");
            ops_agree::<G2, _>(s, 1 << 13, "scalar");
        }
        _ => {
            let _ = writeln!(std::io::stderr(), "SKIPPED: bn254_batch_kernels_agree G2 (this CPU lacks BMI2/ADX, or ZKACCEL_KERNEL=portable)");
        }
    }
}

/// The bucket method on the six-limb kernels (BLS12-381's Fq and Fq2, what
/// `Auto` runs there), with the AVX-512 IFMA bulk additions (eight-limb
/// lanes) where the CPU has them and with the ADX kernel alone.
#[test]
fn bls12_381_batch_kernels_agree() {
    use zkaccel_cpu::{AdxFp2Ops, AdxOps};
    type G1 = ark_bls12_381::g1::Config;
    type G2 = ark_bls12_381::g2::Config;
    match (
        AdxOps::new(),
        AdxOps::without_lanes(),
        AdxFp2Ops::new(),
        AdxFp2Ops::without_lanes(),
    ) {
        (Some(l1), Some(s1), Some(l2), Some(s2)) => {
            ops_agree::<G1, _>(l1, 1 << 12, "bls12-381 g1 lanes");
            ops_agree::<G1, _>(s1, 1 << 12, "bls12-381 g1 scalar");
            ops_agree::<G2, _>(l2, 1 << 10, "bls12-381 g2 lanes");
            ops_agree::<G2, _>(s2, 1 << 10, "bls12-381 g2 scalar");
        }
        _ => {
            let _ = writeln!(std::io::stderr(), "SKIPPED: bls12_381_batch_kernels_agree (this CPU lacks BMI2/ADX, or ZKACCEL_KERNEL=portable)");
        }
    }
}

/// The portable kernels (what CPUs without BMI2/ADX run, and the MSM
/// arithmetic of secp256k1 and P-256 everywhere) on every curve.
#[test]
fn portable_kernels_agree() {
    use zkaccel_cpu::{PortableFp2Ops, PortableOps};
    ops_agree::<ark_bn254::g1::Config, _>(PortableOps, 1 << 12, "bn254 g1");
    ops_agree::<ark_bn254::g2::Config, _>(PortableFp2Ops, 1 << 11, "bn254 g2");
    ops_agree::<ark_bls12_381::g1::Config, _>(PortableOps, 1 << 12, "bls12-381 g1");
    ops_agree::<ark_bls12_381::g2::Config, _>(PortableFp2Ops, 1 << 10, "bls12-381 g2");
    ops_agree::<ark_secp256k1::Config, _>(PortableOps, 1 << 12, "secp256k1");
    ops_agree::<ark_secp256r1::Config, _>(PortableOps, 1 << 12, "p256");
}

/// Integers at and beyond the group order are multiplied as integers
/// (equal to arkworks' `msm_bigint` while they fit in the modulus' bit
/// size); lengths are checked.
#[test]
fn bigint_scalars_beyond_the_order() {
    use ark_ff::BigInteger;
    type P = ark_bn254::g1::Config;
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let (bases, _) = random_input::<P>(&mut rng, 300);
    let r = <ark_bn254::Fr as PrimeField>::MODULUS;
    let ints: Vec<_> = (0..300u64)
        .map(|i| {
            let mut k = r;
            k.add_with_carry(&ark_ff::BigInt::from(i * 7919));
            k
        })
        .collect();
    let want = <Projective<P> as VariableBaseMSM>::msm_bigint(&bases, &ints);
    for alg in ALL {
        assert_eq!(
            msm_bigint_with(&bases, &ints, alg).unwrap(),
            want,
            "{alg:?}"
        );
    }
    assert_eq!(
        msm_bigint_with(&bases, &ints[..5], MsmAlgorithm::Auto),
        Err(MsmError::LengthMismatch {
            bases: 300,
            scalars: 5
        })
    );
    // Prepared bases fall back to the plain path for such integers.
    let prepared = PreparedBases::new(&bases);
    assert_eq!(prepared.msm_bigint(&ints).unwrap(), want);
    assert_eq!(
        prepared.msm_bigint(&ints[..5]),
        Err(MsmError::LengthMismatch {
            bases: 300,
            scalars: 5
        })
    );
    assert!(prepared.memory_bytes() >= 300 * prepared.copies() * 64);
}

/// Regression (found by the `msm` fuzz target): scalars with bits set at or
/// above the modulus' bit size (up to 2^256 - 1) are multiplied exactly by
/// every algorithm, on every curve, against the plain sum of arkworks'
/// `mul_bigint`. arkworks 0.6's own `msm_bigint` ignores those top bits (it
/// reads `MODULUS_BIT_SIZE` bits of each scalar), so it is not the
/// reference here.
#[test]
fn full_width_integers_are_exact() {
    fn check<P: CurveMul>(seed: u64)
    where
        P::ScalarField: PrimeField<BigInt = ark_ff::BigInt<4>>,
    {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        for n in [1usize, 2, 33, 1500] {
            if over_msm_max(n, &format!("full_width_integers_are_exact, n = {n}")) {
                continue;
            }
            let (bases, _) = random_input::<P>(&mut rng, n);
            let mut ints: Vec<ark_ff::BigInt<4>> =
                (0..n).map(|_| ark_ff::BigInt(rng.gen())).collect();
            ints[0] = ark_ff::BigInt([u64::MAX; 4]);
            let want: Projective<P> = bases.iter().zip(&ints).map(|(b, k)| b.mul_bigint(k)).sum();
            for alg in ALL {
                assert_eq!(
                    msm_bigint_with(&bases, &ints, alg).unwrap(),
                    want,
                    "{alg:?} n {n}"
                );
            }
            let prepared = PreparedBases::new(&bases);
            assert_eq!(prepared.msm_bigint(&ints).unwrap(), want, "prepared n {n}");
        }
    }
    check::<ark_bn254::g1::Config>(1);
    check::<ark_bn254::g2::Config>(2);
    check::<ark_bls12_381::g1::Config>(3);
}

#[test]
fn secp256k1() {
    suite::<ark_secp256k1::Config>();
}

#[test]
fn bn254_g2_small() {
    // 6000 reaches the batch-affine windows (AdxFp2Ops on BMI2/ADX CPUs).
    // ZKACCEL_TEST_MSM_MAX, when set, caps it too: under qemu (the aarch64
    // stage) that case alone took over a minute, and the x86 runs with
    // ZKACCEL_KERNEL=portable cover the same portable Fp2 batches.
    let mut rng = ChaCha20Rng::seed_from_u64(5);
    for n in [0usize, 1, 2, 33, 100, 6000] {
        if over_msm_max(n, &format!("bn254_g2_small, n = {n}")) {
            continue;
        }
        let (b, s) = random_input::<ark_bn254::g2::Config>(&mut rng, n);
        check(&b, &s, &format!("G2, n = {n}"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("ZKACCEL_TEST_CASES").map_or(16, |s| s.parse().unwrap())
    ))]
    #[test]
    fn random_sizes_match_arkworks(seed in any::<u64>(), n in 0usize..300) {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let (b, s) = random_input::<ark_bn254::g1::Config>(&mut rng, n);
        let want = <ark_bn254::G1Projective as VariableBaseMSM>::msm(&b, &s).unwrap();
        for alg in [MsmAlgorithm::Auto, MsmAlgorithm::Pippenger, MsmAlgorithm::Strauss] {
            prop_assert_eq!(msm_with(&b, &s, alg).unwrap(), want);
        }
        let mut bytes = vec![0; 4];
        PackedBases::encode(&b, &mut bytes);
        let packed = PackedBases::<ark_bn254::g1::Config>::new(&bytes[4..]).unwrap();
        prop_assert_eq!(msm_bases(packed, &s).unwrap(), want);
    }
}

/// On many threads the bucket method splits the points into ranges
/// (`pippenger_plan`): sub-ranges of the bases, which packed bases compute
/// from bytes. Short scalars first, so that `Auto` runs the bucket method on
/// the bases as given (16-bit ones, few windows, so that the threads take
/// ranges); then full-width ones, which `Auto` splits by GLV at this size:
/// the ranges are then sub-ranges of the split terms (`GlvBases`), read
/// from the packed bytes and from a slice.
#[test]
fn packed_bases_in_ranges() {
    type P = ark_bn254::g1::Config;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let n = 20_000;
    let (b, _) = random_input::<P>(&mut rng, n);
    let s = small_scalars::<ark_bn254::Fr>(&mut rng, n, 16);
    let want = <Projective<P> as VariableBaseMSM>::msm(&b, &s).unwrap();
    let mut bytes = vec![0; 4];
    PackedBases::encode(&b, &mut bytes);
    let packed = PackedBases::<P>::new(&bytes[4..]).unwrap();
    pool.install(|| {
        let (_, parts) = zkaccel_cpu::msm::pippenger_plan(n, 16, BucketAdds::detect::<P>());
        assert!(parts > 1, "one range: the test would not cover ranges");
        assert_eq!(msm_bases(packed, &s).unwrap(), want, "8 threads");
    });
    let full: Vec<ark_bn254::Fr> = (0..n).map(|_| ark_bn254::Fr::rand(&mut rng)).collect();
    let want = <Projective<P> as VariableBaseMSM>::msm(&b, &full).unwrap();
    pool.install(|| {
        // The split halves are 127-129 bits wide.
        for bits in 127..=129 {
            let (_, parts) =
                zkaccel_cpu::msm::pippenger_plan(2 * n, bits, BucketAdds::detect::<P>());
            assert!(
                parts > 1,
                "{bits}-bit halves in one range: no GLV sub-ranges"
            );
        }
        assert_eq!(msm_bases(packed, &full).unwrap(), want, "GLV split, packed");
        let glv = msm_with(&b, &full, MsmAlgorithm::PippengerGlv).unwrap();
        assert_eq!(glv, want, "GLV split, slice");
    });
}

/// The windows `window_cost` widens (batch-affine windows of 10 to 13 bits
/// over a few thousand terms, on one thread and on two): every algorithm
/// equals arkworks there, on full-width scalars (GLV-split or not) and on
/// 64- and 16-bit ones, whose plans changed with it.
#[test]
fn windows_of_window_cost() {
    use zkaccel_cpu::msm::{
        pippenger_window, BATCH_AFFINE_WALK_MAX_WINDOW, BATCH_AFFINE_WALK_MIN_WINDOW,
    };
    type P = ark_bn254::g1::Config;
    let mut rng = ChaCha20Rng::seed_from_u64(55);
    let (bases, scalars) = random_input::<P>(&mut rng, 5000);
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            // 1,024 terms are 2,048 after the GLV split: the shape the
            // discount widened (8- and 9-bit windows before).
            let c = pippenger_window(2048, 128, BucketAdds::detect::<P>());
            assert!(
                (BATCH_AFFINE_WALK_MIN_WINDOW..=BATCH_AFFINE_WALK_MAX_WINDOW).contains(&c),
                "{threads} threads: window {c} is outside the discounted range; \
                 this test would not cover it"
            );
            for n in [1024usize, 1500, 2048, 4096, 5000] {
                let (b, s) = (&bases[..n], &scalars[..n]);
                let want = <Projective<P> as VariableBaseMSM>::msm(b, s).unwrap();
                for alg in [
                    MsmAlgorithm::Auto,
                    MsmAlgorithm::Pippenger,
                    MsmAlgorithm::PippengerGlv,
                ] {
                    assert_eq!(
                        msm_with(b, s, alg).unwrap(),
                        want,
                        "{alg:?}, {n} terms, {threads} threads"
                    );
                }
                for bits in [16u32, 64] {
                    let small = small_scalars::<ark_bn254::Fr>(&mut rng, n, bits);
                    let want = <Projective<P> as VariableBaseMSM>::msm(b, &small).unwrap();
                    assert_eq!(
                        msm(b, &small).unwrap(),
                        want,
                        "{bits}-bit scalars, {n} terms, {threads} threads"
                    );
                }
            }
        });
    }
}

/// The wider windows of scalar kernels ([`BucketAdds::Scalar`]: the ADX
/// assembly, the portable kernels): full-width terms at 2^16 and 2^17 (capped
/// by `ZKACCEL_TEST_MSM_MAX`) plan windows wider than the lane kernels'
/// 13 bits, and Pippenger on the portable kernels and on the ADX assembly
/// without lanes (where the CPU runs it) equals arkworks there, with points
/// at infinity and a repeated base among the terms. The lane kernels'
/// plans are unchanged.
#[test]
fn scalar_kernels_plan_wider_windows() {
    use zkaccel_cpu::msm::{pippenger_plan, pippenger_with, BATCH_AFFINE_WALK_MAX_WINDOW};
    use zkaccel_cpu::{AdxOps, PortableOps};
    type P = ark_bn254::g1::Config;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(56);
    for log in [16u32, 17] {
        let n = 1usize << log;
        pool.install(|| {
            let (lanes, _) = pippenger_plan(n, 254, BucketAdds::Lanes);
            assert_eq!(lanes, BATCH_AFFINE_WALK_MAX_WINDOW, "lanes, 2^{log}");
            let (c, parts) = pippenger_plan(n, 254, BucketAdds::Scalar);
            assert!(
                c > BATCH_AFFINE_WALK_MAX_WINDOW && parts == 1,
                "scalar kernels, 2^{log}: window {c}, {parts} ranges"
            );
        });
        if over_msm_max(
            n,
            &format!("scalar_kernels_plan_wider_windows, n = 2^{log}"),
        ) {
            continue;
        }
        // A progression of points (random ones cost a scalar multiplication
        // each) and random scalars.
        let mut bases = zkaccel_testkit::inputs::progression::<P>(n, &mut rng);
        let scalars: Vec<ark_bn254::Fr> = (0..n).map(|_| UniformRand::rand(&mut rng)).collect();
        bases[7] = Affine::identity();
        bases[n - 1] = bases[0];
        let ints: Vec<_> = scalars.iter().map(|s| s.into_bigint()).collect();
        let want = <Projective<P> as VariableBaseMSM>::msm(&bases, &scalars).unwrap();
        pool.install(|| {
            let got = pippenger_with(&bases, &ints, PortableOps);
            assert_eq!(got, want, "portable kernels, 2^{log}");
            match AdxOps::without_lanes() {
                Some(ops) => assert_eq!(
                    pippenger_with(&bases, &ints, ops),
                    want,
                    "assembly, 2^{log}"
                ),
                None => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "SKIPPED: scalar_kernels_plan_wider_windows, the assembly at 2^{log} (not run by this CPU)"
                    );
                }
            }
        });
    }
}
