//! XYZZ formulas against arkworks' Jacobian arithmetic, including the
//! exceptional cases (P + P, P + (-P), infinity on either side), and their
//! operation counts.

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::UniformRand;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use zkaccel_cpu::{Counting, Plain, Xyzz};

fn check<P: SWCurveConfig>() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let g = Projective::<P>::generator();
    let pts: Vec<Affine<P>> = (0..16)
        .map(|_| (g * P::ScalarField::rand(&mut rng)).into_affine())
        .collect();
    // A running sum in XYZZ against the same sum in arkworks, with repeats and negations.
    let mut acc = Xyzz::<P>::zero();
    let mut want = Projective::<P>::default();
    let seq: Vec<Affine<P>> = pts
        .iter()
        .copied()
        .chain([pts[0], -pts[1], pts[1], Affine::identity(), pts[2]])
        .collect();
    for q in &seq {
        acc.add_affine(q, &mut Plain);
        want += q;
        assert_eq!(acc.to_projective(&mut Plain), want);
    }
    // P + P doubles, P + (-P) vanishes, in both additions.
    let p: Xyzz<P> = pts[3].into();
    let mut twice = p;
    twice.add_affine(&pts[3], &mut Plain);
    assert_eq!(
        twice.to_projective(&mut Plain),
        Projective::from(pts[3]) * P::ScalarField::from(2u64)
    );
    let mut gone = p;
    gone.add_affine(&-pts[3], &mut Plain);
    assert!(gone.is_zero());
    let mut sum = twice;
    sum.add(&p, &mut Plain);
    assert_eq!(
        sum.to_projective(&mut Plain),
        Projective::from(pts[3]) * P::ScalarField::from(3u64)
    );
    let mut self_sum = twice;
    self_sum.add(&twice, &mut Plain);
    assert_eq!(
        self_sum.to_projective(&mut Plain),
        Projective::from(pts[3]) * P::ScalarField::from(4u64)
    );
    let mut cancel = twice;
    let mut neg_twice = twice;
    neg_twice.y = -neg_twice.y;
    cancel.add(&neg_twice, &mut Plain);
    assert!(cancel.is_zero());
    let mut with_zero = twice;
    with_zero.add(&Xyzz::zero(), &mut Plain);
    assert_eq!(with_zero, twice);
    let mut from_zero = Xyzz::<P>::zero();
    from_zero.add(&twice, &mut Plain);
    assert_eq!(from_zero, twice);
    let mut d = Xyzz::<P>::zero();
    d.double(&mut Plain);
    assert!(d.is_zero());
    // Operation counts: 8M + 2S, 12M + 2S, 6M + 3S (a = 0).
    let (mut a, mut b) = (twice, sum);
    let mut ops = Counting::default();
    a.add_affine(&pts[9], &mut ops);
    assert_eq!((ops.mul, ops.sqr), (8, 2));
    let mut ops = Counting::default();
    b.add(&a, &mut ops);
    assert_eq!((ops.mul, ops.sqr), (12, 2));
    let mut ops = Counting::default();
    b.double(&mut ops);
    assert_eq!((ops.mul, ops.sqr), (6, 3));
}

#[test]
fn bn254_g1() {
    check::<ark_bn254::g1::Config>();
}

#[test]
fn bls12_381_g1() {
    check::<ark_bls12_381::g1::Config>();
}

#[test]
fn secp256k1() {
    check::<ark_secp256k1::Config>();
}
