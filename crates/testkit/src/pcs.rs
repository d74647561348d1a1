//! Helpers for running ark-poly-commit over both curve types, shared by the
//! `pcs` bench and `compare pcs`.

use ark_bn254::Fr;
use ark_crypto_primitives::sponge::poseidon::{PoseidonConfig, PoseidonSponge};
use ark_crypto_primitives::sponge::CryptographicSponge;
use ark_ff::UniformRand;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The same value as another type with the same encoding (a key over
/// `ark_bn254` as the key over `zkaccel::curves::bn254`).
pub fn convert<A: CanonicalSerialize, B: CanonicalDeserialize>(a: &A) -> Result<B, String> {
    let mut v = Vec::new();
    a.serialize_uncompressed(&mut v)
        .map_err(|e| e.to_string())?;
    B::deserialize_uncompressed_unchecked(&v[..]).map_err(|e| e.to_string())
}

/// A Poseidon sponge for Hyrax's Fiat-Shamir (fixed parameters of no
/// security value: both sides only need the same transcript).
pub fn sponge() -> PoseidonSponge<Fr> {
    let mut r = ChaCha20Rng::seed_from_u64(99);
    let ark = (0..39)
        .map(|_| (0..3).map(|_| Fr::rand(&mut r)).collect())
        .collect();
    let (one, zero) = (Fr::from(1u64), Fr::from(0u64));
    let mds = vec![
        vec![one, zero, one],
        vec![one, one, zero],
        vec![zero, one, one],
    ];
    PoseidonSponge::new(&PoseidonConfig::new(8, 31, 17, mds, ark, 2, 1))
}
