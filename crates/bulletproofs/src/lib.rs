//! Bulletproofs range proofs on secp256k1 in the format of the
//! implementation that shipped: the bulletproofs module of Grin's fork of
//! secp256k1-zkp (`grin_secp256k1zkp` on crates.io).
//!
//! Each part byte-compatible with that library (docs/bulletproofs.md: the
//! format, the checks, the tests and the timings):
//! - [`generator_generate`]: a generator from a 32-byte key (SHA-256, then
//!   the Shallue-van de Woestijne map, twice, summed), as
//!   `secp256k1_generator_generate` computes it;
//! - [`Generators`]: the range proofs' `G_i` and `H_i`, drawn from an
//!   RFC 6979 HMAC-SHA256 stream seeded with the curve's generator, as
//!   `secp256k1_bulletproof_generators_create` draws them;
//! - [`Commitment`]: Pedersen commitments `v·H + r·G` in their 33-byte
//!   encoding (`0x08`/`0x09` and x), parsed and made;
//! - [`RangeVerifier`]: single proofs, aggregated proofs of `m` values and
//!   batches of proofs verified as one multi-scalar multiplication on
//!   zkaccel's MSM, and [`RangeVerifier::find_invalid`] to name the bad
//!   proofs of a failing batch;
//! - [`prove`]: proofs in the same format, accepted by the C verifier.
//!
//! ```
//! use zkaccel_bulletproofs::{Commitment, Blinding};
//!
//! let blind = Blinding::from_be_bytes(&[7u8; 32])?;
//! let c = Commitment::commit(1_000, &blind)?;
//! let bytes = c.to_bytes();
//! assert!(bytes[0] == 0x08 || bytes[0] == 0x09);
//! assert_eq!(Commitment::from_bytes(&bytes)?, c);
//! # Ok::<(), zkaccel_bulletproofs::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod commitment;
mod error;
mod fe;
mod field;
mod generators;
mod hash;
mod prove;
mod rangeproof;

pub use commitment::{Blinding, Commitment, VALUE_GENERATOR};
pub use error::Error;
pub use generators::{generator_generate, Generators, Rfc6979HmacSha256, GRIN_GENERATOR_COUNT};
pub use prove::{prove, ProveError};
pub use rangeproof::{proof_len, ProofError, ProofInput, RangeVerifier, MAX_NBITS, MAX_PROOF_LEN};

/// The curve's points and scalars, re-exported so callers need not name
/// `ark_secp256k1` themselves.
pub use ark_secp256k1::{Affine, Fq, Fr, Projective};
