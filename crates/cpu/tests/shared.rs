//! `SharedScalars`: several MSMs over one scalar vector, each equal to
//! arkworks' MSM over its own base set and its part of the scalars.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{Field, PrimeField, UniformRand, Zero};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use zkaccel_cpu::{BaseSlice, CurveMul, MontBytes, MsmError, PackedBases, SharedScalars};
use zkaccel_testkit::msm::over_msm_max;

/// The kinds of scalar vectors a witness has.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// Random field elements.
    Dense,
    /// Mostly 0 and 1 (a bit-heavy witness), a few random.
    Bits,
    /// 16-bit values.
    Small,
    /// Zero, one, two, r - 1 and r - 2, cycled.
    Edges,
    /// All zero.
    Zeros,
}

fn scalars<F: PrimeField>(rng: &mut ChaCha20Rng, n: usize, kind: Kind) -> Vec<F> {
    let edges = [
        F::zero(),
        F::one(),
        F::from(2u64),
        -F::one(),
        -F::from(2u64),
    ];
    (0..n)
        .map(|i| match kind {
            Kind::Dense => F::rand(rng),
            Kind::Bits => match rng.gen_range(0..10) {
                0..=4 => F::zero(),
                5..=7 => F::one(),
                _ => F::rand(rng),
            },
            Kind::Small => F::from(rng.gen::<u16>()),
            Kind::Edges => edges[i % edges.len()],
            Kind::Zeros => F::zero(),
        })
        .collect()
}

/// `n` points, with the point at infinity at a few places and one point
/// repeated (as a Groth16 key's A query has them).
fn bases<P: CurveMul>(rng: &mut ChaCha20Rng, n: usize) -> Vec<Affine<P>> {
    let g = Projective::<P>::generator();
    let mut v = Projective::normalize_batch(
        &(0..n)
            .map(|_| g * P::ScalarField::rand(rng))
            .collect::<Vec<_>>(),
    );
    for i in (0..n).step_by(7) {
        v[i] = Affine::zero();
    }
    if n > 3 {
        v[n - 1] = v[1];
        v[n - 2] = v[1];
    }
    v
}

fn reference<P: CurveMul>(b: &[Affine<P>], s: &[P::ScalarField]) -> Projective<P> {
    <Projective<P> as VariableBaseMSM>::msm(b, s).unwrap()
}

/// Three base sets over one scalar vector, as Groth16's A and B1 (every
/// scalar) and L (the scalars from `offset` on), from slices and from
/// packed bytes 4 bytes off alignment.
fn check<P: CurveMul>(n: usize, offset: usize, kind: Kind, seed: u64)
where
    P::BaseField: MontBytes,
{
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let s = scalars::<P::ScalarField>(&mut rng, n, kind);
    let (a, b1) = (bases::<P>(&mut rng, n), bases::<P>(&mut rng, n));
    let l = bases::<P>(&mut rng, n - offset);
    let shared = SharedScalars::<P>::new(&s);
    let what = format!("n {n}, offset {offset}, {kind:?}, {shared:?}");
    for (set, from) in [(&a, 0), (&b1, 0), (&l, offset)] {
        let want = reference(set, &s[from..]);
        assert_eq!(shared.msm(set.as_slice(), from).unwrap(), want, "{what}");
        let mut bytes = vec![0; 4];
        PackedBases::<P>::encode(set, &mut bytes);
        let packed = PackedBases::<P>::new(&bytes[4..]).unwrap();
        let got = shared.msm_slice(BaseSlice::Packed(packed), from).unwrap();
        assert_eq!(got, want, "packed: {what}");
    }
    // A shorter base set inside the vector, and an empty one at its end.
    if n > 2 {
        let want = reference(&a[1..n - 1], &s[1..n - 1]);
        assert_eq!(shared.msm(&a[1..n - 1], 1).unwrap(), want, "inner: {what}");
    }
    assert!(shared.msm(&a[..0], n).unwrap().is_zero(), "empty: {what}");
}

fn every_kind<P: CurveMul>()
where
    P::BaseField: MontBytes,
{
    let kinds = [
        Kind::Dense,
        Kind::Bits,
        Kind::Small,
        Kind::Edges,
        Kind::Zeros,
    ];
    // 0 and 1; Strauss's sizes; the bucket method with and without the GLV
    // split (BN254: below 1,280 terms and from 2,560); filtered bits whose
    // kept terms land in either.
    for (n, offset) in [
        (0, 0),
        (1, 0),
        (1, 1),
        (2, 1),
        (33, 5),
        (700, 3),
        (1500, 2),
        (3000, 7),
        (6000, 1),
    ] {
        if over_msm_max(n, &format!("every_kind, n = {n}")) {
            continue;
        }
        // The larger sizes take the two kinds whose paths differ there.
        let kinds = if n >= 1500 { &kinds[..2] } else { &kinds[..] };
        for (k, &kind) in kinds.iter().enumerate() {
            check::<P>(n, offset, kind, (n * 10 + k) as u64);
        }
    }
}

#[test]
fn bn254_g1() {
    every_kind::<ark_bn254::g1::Config>();
}

#[test]
fn bls12_381_g1() {
    every_kind::<ark_bls12_381::g1::Config>();
}

#[test]
fn secp256k1() {
    every_kind::<ark_secp256k1::Config>();
}

/// The recoding really is shared: full-width scalars at 3,000 terms on
/// BN254 are split by GLV once, into 6,000 terms, and bit-heavy ones are
/// filtered to their other values (then split).
#[test]
fn recoded_once() {
    type P = ark_bn254::g1::Config;
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let dense = scalars::<ark_bn254::Fr>(&mut rng, 3000, Kind::Dense);
    let shared = format!("{:?}", SharedScalars::<P>::new(&dense));
    assert!(shared.contains(" 6000 recoded terms"), "{shared}");
    let mut bits = vec![ark_bn254::Fr::ONE; 3000];
    bits[..2000].fill(ark_bn254::Fr::zero());
    for k in &mut bits[..200] {
        *k = ark_bn254::Fr::rand(&mut rng);
    }
    let shared = format!("{:?}", SharedScalars::<P>::new(&bits));
    assert!(shared.contains(" 400 recoded terms"), "{shared}");
    // The BLS12-381 G1 split is not made (cofactor != 1): n terms.
    let fr = scalars::<ark_bls12_381::Fr>(&mut rng, 3000, Kind::Dense);
    let shared = format!("{:?}", SharedScalars::<ark_bls12_381::g1::Config>::new(&fr));
    assert!(shared.contains(" 3000 recoded terms"), "{shared}");
}

/// On 8 threads the bucket method splits the points into ranges: ranges of
/// the shared digits, with and without the GLV split, on BN254 and on
/// secp256k1 (whose split has negative halves), at offsets whose sign bits
/// start inside a word and in the second word.
fn point_ranges<P: CurveMul>() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(8);
    let n = 20_000;
    if over_msm_max(n, &format!("point_ranges, n = {n}")) {
        return;
    }
    let b = bases::<P>(&mut rng, n);
    for kind in [Kind::Small, Kind::Dense] {
        let s = scalars::<P::ScalarField>(&mut rng, n, kind);
        pool.install(|| {
            let shared = SharedScalars::<P>::new(&s);
            let what = format!("{kind:?}: {shared:?}");
            assert!(!what.ends_with(" 1 point ranges)"), "one range: {what}");
            for offset in [0, 3, 40] {
                let want = reference(&b[offset..], &s[offset..]);
                let got = shared.msm(&b[offset..], offset).unwrap();
                assert_eq!(got, want, "offset {offset}, {what}");
            }
            // A short base set takes no more ranges than it has terms for.
            let want = reference(&b[..5000], &s[..5000]);
            assert_eq!(shared.msm(&b[..5000], 0).unwrap(), want, "short: {what}");
        });
    }
}

#[test]
fn point_ranges_on_eight_threads() {
    point_ranges::<ark_bn254::g1::Config>();
    point_ranges::<ark_secp256k1::Config>();
}

/// A base set that runs past the scalars is an error naming both lengths,
/// never a panic, whatever the offset.
#[test]
fn base_set_past_the_scalars() {
    type P = ark_bn254::g1::Config;
    let mut rng = ChaCha20Rng::seed_from_u64(9);
    let s = scalars::<ark_bn254::Fr>(&mut rng, 100, Kind::Dense);
    let b = bases::<P>(&mut rng, 100);
    let shared = SharedScalars::<P>::new(&s);
    let err = shared.msm(b.as_slice(), 1).unwrap_err();
    assert!(
        matches!(
            err,
            MsmError::LengthMismatch {
                bases: 100,
                scalars: 99
            }
        ),
        "{err:?}"
    );
    for offset in [101, usize::MAX] {
        let err = shared.msm(&b[..1], offset).unwrap_err();
        assert!(
            matches!(
                err,
                MsmError::LengthMismatch {
                    bases: 1,
                    scalars: 0
                }
            ),
            "{err:?}"
        );
    }
}
