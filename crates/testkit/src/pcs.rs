//! Helpers for running ark-poly-commit over both curve types, shared by the
//! `pcs` bench and `compare pcs`.

use ark_bn254::Fr;
use ark_crypto_primitives::crh::CRHScheme;
use ark_crypto_primitives::sponge::poseidon::{PoseidonConfig, PoseidonSponge};
use ark_crypto_primitives::sponge::CryptographicSponge;
use ark_ff::PrimeField;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use blake2::{Blake2s256, Digest};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::borrow::Borrow;
use std::marker::PhantomData;

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
    sponge_for::<Fr>()
}

/// [`sponge`] over any prime field (Ligero's transcripts over BLS12-381's
/// scalar field, ...).
pub fn sponge_for<F: PrimeField>() -> PoseidonSponge<F> {
    let mut r = ChaCha20Rng::seed_from_u64(99);
    let ark = (0..39)
        .map(|_| (0..3).map(|_| F::rand(&mut r)).collect())
        .collect();
    let (one, zero) = (F::one(), F::zero());
    let mds = vec![
        vec![one, zero, one],
        vec![one, one, zero],
        vec![zero, one, one],
    ];
    PoseidonSponge::new(&PoseidonConfig::new(8, 31, 17, mds, ark, 2, 1))
}

/// The column hasher of ark-poly-commit's linear-code benches,
/// `FieldToBytesColHasher<F, Blake2s256>` (its `ark-pcs-bench-templates`
/// crate is not published, so it is restated here, as the reference):
/// BLAKE2s-256 (RustCrypto's `blake2`) of the column's compressed
/// serialization.
pub struct StockColHasher<F>(PhantomData<F>);

impl<F: PrimeField> CRHScheme for StockColHasher<F> {
    type Input = Vec<F>;
    type Output = Vec<u8>;
    type Parameters = ();

    fn setup<R: rand::RngCore>(_: &mut R) -> Result<(), ark_crypto_primitives::Error> {
        Ok(())
    }

    fn evaluate<T: Borrow<Vec<F>>>(
        _: &(),
        input: T,
    ) -> Result<Vec<u8>, ark_crypto_primitives::Error> {
        let mut bytes = Vec::new();
        input.borrow().serialize_compressed(&mut bytes)?;
        Ok(Blake2s256::digest(&bytes).to_vec())
    }
}
