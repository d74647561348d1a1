//! Column hashing for linear-code commitments.

use ark_crypto_primitives::crh::{sha256::Sha256, CRHScheme};
use ark_crypto_primitives::merkle_tree::{ByteDigestConverter, Config};
use ark_ff::PrimeField;
use ark_std::borrow::Borrow;
use ark_std::marker::PhantomData;
use ark_std::rand::RngCore;
use std::sync::OnceLock;

/// Elements serialized per BLAKE2s `update` call (a 4 KiB stack buffer for
/// 32-byte elements).
const CHUNK: usize = 128;

/// The largest element encoding the stack buffer takes (six-limb fields).
const MAX_ELEMENT_BYTES: usize = 48;

/// The column hasher of ark-poly-commit's linear-code benches
/// (`FieldToBytesColHasher<F, Blake2s256>`), computed faster: the digest
/// is BLAKE2s-256 of the column's compressed canonical serialization (its
/// length as a little-endian `u64`, then each element's canonical
/// little-endian bytes), the same bytes.
///
/// Stock hashing serializes the column into a heap buffer element by
/// element through `CanonicalSerialize` and hashes it with the portable
/// RustCrypto BLAKE2s; this one writes the canonical limbs straight into a
/// stack buffer and hashes them with the faster of two BLAKE2s cores on
/// this CPU ([`Blake2sCore`], chosen once per process).
pub struct Blake2sColHasher<F> {
    _phantom: PhantomData<F>,
}

/// The environment variable that forces the BLAKE2s core of
/// [`column_digest`]: `scalar`, `simd` or `auto` (the default).
pub const BLAKE2S_ENV: &str = "ZKACCEL_BLAKE2S";

/// The two BLAKE2s implementations [`column_digest`] can hash with. Both
/// compute the same digest; which one is faster depends on the CPU: on a
/// 4 KiB message `blake2s_simd`'s SSE4.1 core took 2.3 ns a byte on an AMD
/// Zen 5 EPYC and the scalar one 1.15, while on an Intel Xeon with IFMA the
/// SIMD core hashed a column in 41 ns an element, faster than the whole
/// stock hasher on the scalar core (docs/pcs.md). So the choice is made by
/// timing both ([`Blake2sCore::chosen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blake2sCore {
    /// The RustCrypto `blake2` crate's portable `Blake2s256`, the one stock
    /// column hashing uses.
    Scalar,
    /// `blake2s_simd`, with its run-time SSE4.1 dispatch (its portable
    /// code elsewhere).
    Simd,
}

impl Blake2sCore {
    /// The name [`BLAKE2S_ENV`] takes for this core.
    pub fn name(self) -> &'static str {
        match self {
            Blake2sCore::Scalar => "scalar",
            Blake2sCore::Simd => "simd",
        }
    }

    /// The core [`column_digest`] uses in this process: the one
    /// [`BLAKE2S_ENV`] names, else the faster of the two on a 4 KiB message
    /// (timed once, on first use, for about a millisecond; an x86 CPU
    /// only: elsewhere `blake2s_simd` has no SIMD core and the scalar one
    /// is taken). An unknown value of the variable is ignored.
    pub fn chosen() -> Blake2sCore {
        static CHOSEN: OnceLock<Blake2sCore> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            match std::env::var(BLAKE2S_ENV)
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
                .as_str()
            {
                "scalar" => Blake2sCore::Scalar,
                "simd" => Blake2sCore::Simd,
                _ => Blake2sCore::fastest(),
            }
        })
    }

    /// The faster core on this CPU, by timing both on the same 4 KiB
    /// message in alternation (the best of 16 runs each).
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    fn fastest() -> Blake2sCore {
        use std::time::{Duration, Instant};
        let message = [0x5au8; 4096];
        let mut best = [Duration::MAX; 2];
        for _ in 0..16 {
            for (k, core) in [Blake2sCore::Scalar, Blake2sCore::Simd]
                .into_iter()
                .enumerate()
            {
                let start = Instant::now();
                let digest = core.hash(|update| update(&message));
                best[k] = best[k].min(start.elapsed());
                std::hint::black_box(digest);
            }
        }
        if best[1] < best[0] {
            Blake2sCore::Simd
        } else {
            Blake2sCore::Scalar
        }
    }

    /// Off x86 both crates run portable code: the scalar one, as stock.
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    fn fastest() -> Blake2sCore {
        Blake2sCore::Scalar
    }

    /// BLAKE2s-256 of the bytes `feed` passes to the update function it is
    /// given, in order.
    fn hash(self, feed: impl FnOnce(&mut dyn FnMut(&[u8]))) -> [u8; 32] {
        match self {
            Blake2sCore::Scalar => {
                use blake2::Digest;
                let mut state = blake2::Blake2s256::new();
                feed(&mut |bytes| state.update(bytes));
                state.finalize().into()
            }
            Blake2sCore::Simd => {
                let mut state = blake2s_simd::State::new();
                feed(&mut |bytes| {
                    state.update(bytes);
                });
                *state.finalize().as_array()
            }
        }
    }
}

/// The 32-byte digest [`Blake2sColHasher`] gives for `column`, with the
/// BLAKE2s core [`Blake2sCore::chosen`].
///
/// # Panics
/// Never for arkworks' prime fields (up to 48-byte encodings, BLS12-381's
/// and BLS12-377's base fields); a field with a longer encoding is refused
/// by an assertion, not hashed wrongly.
pub fn column_digest<F: PrimeField>(column: &[F]) -> [u8; 32] {
    column_digest_with(Blake2sCore::chosen(), column)
}

/// [`column_digest`] with the given BLAKE2s core (the same digest with
/// either; for tests and measurements).
///
/// # Panics
/// As [`column_digest`].
pub fn column_digest_with<F: PrimeField>(core: Blake2sCore, column: &[F]) -> [u8; 32] {
    let size = F::zero().compressed_size();
    assert!(
        size <= MAX_ELEMENT_BYTES,
        "column_digest: {size}-byte field elements (at most {MAX_ELEMENT_BYTES})"
    );
    core.hash(|update| {
        update(&(column.len() as u64).to_le_bytes());
        let mut buf = [0u8; CHUNK * MAX_ELEMENT_BYTES];
        for chunk in column.chunks(CHUNK) {
            let mut at = 0;
            for x in chunk {
                let big = x.into_bigint();
                let mut le = [0u8; MAX_ELEMENT_BYTES + 8];
                for (k, limb) in big
                    .as_ref()
                    .iter()
                    .enumerate()
                    .take(MAX_ELEMENT_BYTES / 8 + 1)
                {
                    le[8 * k..8 * k + 8].copy_from_slice(&limb.to_le_bytes());
                }
                buf[at..at + size].copy_from_slice(&le[..size]);
                at += size;
            }
            update(&buf[..at]);
        }
    })
}

impl<F: PrimeField> CRHScheme for Blake2sColHasher<F> {
    type Input = Vec<F>;
    type Output = Vec<u8>;
    type Parameters = ();

    fn setup<R: RngCore>(_rng: &mut R) -> Result<Self::Parameters, ark_crypto_primitives::Error> {
        Ok(())
    }

    fn evaluate<T: Borrow<Self::Input>>(
        _parameters: &Self::Parameters,
        input: T,
    ) -> Result<Self::Output, ark_crypto_primitives::Error> {
        Ok(column_digest(input.borrow()).to_vec())
    }
}

/// The Merkle-tree leaf hash of ark-poly-commit's linear-code benches: the
/// leaf (a column digest) is its own leaf digest, so the tree's two-to-one
/// hash is the only one applied above the column hash. Stock code defines
/// it only in its tests and benches; it is here so that a
/// `merkle_tree::Config` for [`crate::NttLigero`] needs no copy of it.
pub struct LeafIdentityHasher;

impl CRHScheme for LeafIdentityHasher {
    type Input = Vec<u8>;
    type Output = Vec<u8>;
    type Parameters = ();

    fn setup<R: RngCore>(_rng: &mut R) -> Result<Self::Parameters, ark_crypto_primitives::Error> {
        Ok(())
    }

    fn evaluate<T: Borrow<Self::Input>>(
        _parameters: &Self::Parameters,
        input: T,
    ) -> Result<Self::Output, ark_crypto_primitives::Error> {
        Ok(input.borrow().to_vec())
    }
}

/// The Merkle tree of ark-poly-commit's linear-code tests and benches:
/// byte-vector leaves (the column digests) taken as their own leaf digests
/// ([`LeafIdentityHasher`]) and SHA-256 above them. Any `Config` whose leaf
/// is `Vec<u8>` works with [`Blake2sColHasher`]; this is the one the
/// byte-identity tests and the grid use.
pub struct Sha256Tree;

impl Config for Sha256Tree {
    type Leaf = Vec<u8>;
    type LeafDigest = Vec<u8>;
    type LeafInnerDigestConverter = ByteDigestConverter<Self::LeafDigest>;
    type InnerDigest = Vec<u8>;
    type LeafHash = LeafIdentityHasher;
    type TwoToOneHash = Sha256;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_serialize::CanonicalSerialize;

    #[test]
    fn limbs_are_written_little_endian() {
        // 2^64 + 2: limb 0 = 2, limb 1 = 1; bytes 0 and 8 set.
        let x =
            ark_bn254::Fr::from(2u64) + ark_bn254::Fr::from(u64::MAX) + ark_bn254::Fr::from(1u64);
        let mut bytes = Vec::new();
        x.serialize_compressed(&mut bytes).unwrap();
        assert_eq!(bytes[0], 2);
        assert_eq!(bytes[8], 1);
        let mut expect = Vec::new();
        vec![x].serialize_compressed(&mut expect).unwrap();
        assert_eq!(
            column_digest(&[x]),
            *blake2s_simd::blake2s(&expect).as_array()
        );
    }
}
