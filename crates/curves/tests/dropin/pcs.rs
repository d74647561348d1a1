//! ark-poly-commit 0.6, unmodified, over zkaccel's BN254 and over
//! ark_bn254 on the same inputs and RNG: Hyrax, multilinear KZG and KZG10
//! commitments are byte-identical, and the openings made over zkaccel's
//! types verify (and fail on a wrong value or point).

use ark_crypto_primitives::sponge::poseidon::{PoseidonConfig, PoseidonSponge};
use ark_crypto_primitives::sponge::CryptographicSponge;
use ark_ec::pairing::Pairing;
use ark_ec::AffineRepr;
use ark_ff::{One, UniformRand, Zero};
use ark_poly::{DenseMultilinearExtension, DenseUVPolynomial, MultilinearExtension, Polynomial};
use ark_poly_commit::hyrax::HyraxPC;
use ark_poly_commit::kzg10::{Powers, VerifierKey, KZG10};
use ark_poly_commit::multilinear_pc::MultilinearPC;
use ark_poly_commit::{LabeledPolynomial, PolynomialCommitment};
use ark_serialize::CanonicalSerialize;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::borrow::Cow;
use zkaccel_curves::bn254;

type Fr = ark_bn254::Fr;

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v).unwrap();
    v
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// A Poseidon sponge for the openings' Fiat-Shamir (parameters of no
/// security value: the test only needs prover and verifier to agree).
fn sponge() -> PoseidonSponge<Fr> {
    let mut r = rng(99);
    let ark = (0..39)
        .map(|_| (0..3).map(|_| Fr::rand(&mut r)).collect())
        .collect();
    let mds = vec![
        vec![Fr::one(), Fr::zero(), Fr::one()],
        vec![Fr::one(), Fr::one(), Fr::zero()],
        vec![Fr::zero(), Fr::one(), Fr::one()],
    ];
    PoseidonSponge::new(&PoseidonConfig::new(8, 31, 17, mds, ark, 2, 1))
}

/// Hyrax over `G`: the commitment's bytes, and whether the opening
/// verifies at the right value and fails at a wrong one.
fn hyrax<G: AffineRepr<ScalarField = Fr>>(nv: usize) -> (Vec<u8>, bool, bool) {
    type Poly = DenseMultilinearExtension<Fr>;
    let r = &mut rng(nv as u64);
    let pp = HyraxPC::<G, Poly>::setup(1, Some(nv), r).unwrap();
    let (ck, vk) = HyraxPC::<G, Poly>::trim(&pp, 1, 1, None).unwrap();
    let poly = LabeledPolynomial::new("p".into(), Poly::rand(nv, r), None, None);
    let (com, states) = HyraxPC::<G, Poly>::commit(&ck, [&poly], Some(r)).unwrap();
    let point: Vec<Fr> = (0..nv).map(|_| Fr::rand(r)).collect();
    let value = poly.evaluate(&point);
    let proof =
        HyraxPC::<G, Poly>::open(&ck, [&poly], &com, &point, &mut sponge(), &states, Some(r))
            .unwrap();
    let ok = HyraxPC::<G, Poly>::check(&vk, &com, &point, [value], &proof, &mut sponge(), Some(r))
        .unwrap();
    // Hyrax's check takes the value as a hiding commitment inside the proof
    // (ark-poly-commit ignores the `values` argument), so the failing case
    // is a different point.
    let mut other = point.clone();
    other[0] += Fr::one();
    let bad = HyraxPC::<G, Poly>::check(&vk, &com, &other, [value], &proof, &mut sponge(), Some(r))
        .unwrap_or(false);
    (bytes(&com[0].commitment().row_coms), ok, bad)
}

/// Multilinear KZG over `E`: commitment bytes, proof bytes, verdicts.
fn mlkzg<E: Pairing<ScalarField = Fr>>(nv: usize) -> (Vec<u8>, Vec<u8>, bool, bool) {
    let r = &mut rng(100 + nv as u64);
    let params = MultilinearPC::<E>::setup(nv, r);
    let (ck, vk) = MultilinearPC::<E>::trim(&params, nv);
    let poly = DenseMultilinearExtension::<Fr>::rand(nv, r);
    let com = MultilinearPC::<E>::commit(&ck, &poly);
    let point: Vec<Fr> = (0..nv).map(|_| Fr::rand(r)).collect();
    let proof = MultilinearPC::<E>::open(&ck, &poly, &point);
    let value = poly.evaluate(&point);
    let ok = MultilinearPC::<E>::check(&vk, &com, &point, value, &proof);
    let bad = MultilinearPC::<E>::check(&vk, &com, &point, value + Fr::one(), &proof);
    (bytes(&com), bytes(&proof), ok, bad)
}

/// KZG10 over `E`: commitment bytes, proof bytes, verdicts.
fn kzg10<E: Pairing<ScalarField = Fr>>(degree: usize) -> (Vec<u8>, Vec<u8>, bool, bool) {
    type Poly = ark_poly::univariate::DensePolynomial<Fr>;
    let r = &mut rng(200 + degree as u64);
    let pp = KZG10::<E, Poly>::setup(degree, false, r).unwrap();
    let powers = Powers::<E> {
        powers_of_g: Cow::Borrowed(&pp.powers_of_g[..=degree]),
        powers_of_gamma_g: Cow::Owned((0..=degree).map(|i| pp.powers_of_gamma_g[&i]).collect()),
    };
    let vk = VerifierKey::<E> {
        g: pp.powers_of_g[0],
        gamma_g: pp.powers_of_gamma_g[&0],
        h: pp.h,
        beta_h: pp.beta_h,
        prepared_h: pp.prepared_h.clone(),
        prepared_beta_h: pp.prepared_beta_h.clone(),
    };
    let poly = Poly::rand(degree, r);
    let (com, rand) = KZG10::<E, Poly>::commit(&powers, &poly, None, None).unwrap();
    let point = Fr::rand(r);
    let proof = KZG10::<E, Poly>::open(&powers, &poly, point, &rand).unwrap();
    let value = poly.evaluate(&point);
    let ok = KZG10::<E, Poly>::check(&vk, &com, point, value, &proof).unwrap();
    let bad = KZG10::<E, Poly>::check(&vk, &com, point, value + Fr::one(), &proof).unwrap();
    (bytes(&com), bytes(&proof), ok, bad)
}

#[test]
fn hyrax_commitments_equal_stock() {
    for nv in [2, 6, 10] {
        let (stock, ok_s, bad_s) = hyrax::<ark_bn254::G1Affine>(nv);
        let (ours, ok, bad) = hyrax::<bn254::G1Affine>(nv);
        assert_eq!(ours, stock, "Hyrax commitment, {nv} variables");
        assert!(ok && ok_s, "Hyrax opening must verify ({nv} variables)");
        assert!(!bad && !bad_s, "Hyrax opening at another point must fail");
    }
}

#[test]
fn multilinear_kzg_commitments_equal_stock() {
    for nv in [1, 5, 10] {
        let stock = mlkzg::<ark_bn254::Bn254>(nv);
        let ours = mlkzg::<bn254::Bn254>(nv);
        assert_eq!(ours.0, stock.0, "mlKZG commitment, {nv} variables");
        assert_eq!(ours.1, stock.1, "mlKZG proof, {nv} variables");
        assert!(ours.2 && stock.2, "mlKZG opening must verify");
        assert!(
            !ours.3 && !stock.3,
            "mlKZG opening at a wrong value must fail"
        );
    }
}

#[test]
fn kzg10_commitments_equal_stock() {
    for degree in [1, 100, 1023] {
        let stock = kzg10::<ark_bn254::Bn254>(degree);
        let ours = kzg10::<bn254::Bn254>(degree);
        assert_eq!(ours.0, stock.0, "KZG10 commitment, degree {degree}");
        assert_eq!(ours.1, stock.1, "KZG10 proof, degree {degree}");
        assert!(ours.2 && stock.2, "KZG10 opening must verify");
        assert!(
            !ours.3 && !stock.3,
            "KZG10 opening at a wrong value must fail"
        );
    }
}
