//! # zkaccel-pcs
//!
//! Linear-code polynomial commitments (ark-poly-commit's `LinearCodePCS`)
//! with their two costly stages replaced, and not one line of arkworks
//! changed:
//!
//! - [`NttLigero`]: Ligero's Reed-Solomon encoder on zkaccel's NTT
//!   (`LinearCodePCS<NttLigero<..>, ..>` where stock code names
//!   `MultilinearLigero`), with the same parameters type, so stock
//!   parameters, commitments and proofs carry over unchanged;
//! - [`Blake2sColHasher`]: the column hasher computing the digests of the
//!   stock `FieldToBytesColHasher<F, Blake2s256>` (canonical bytes of the
//!   column, BLAKE2s-256) without a serializer call per element and with
//!   the faster BLAKE2s core on the CPU ([`Blake2sCore`]); [`Sha256Tree`] is the Merkle configuration arkworks'
//!   linear-code tests and benches use with it.
//!
//! - [`check_paths`] / [`check_strict`]: the Merkle-path check that
//!   ark-poly-commit 0.6's `LinearCodePCS::check` drops (it discards the
//!   `bool` that `Path::verify` returns, so opened columns are not bound to
//!   the commitment).
//!
//! The first two are byte-identical to what they replace (the tests compare
//! commitments and proofs with stock Ligero's from 2^1 to 2^20 variables),
//! so a proof made with either verifies with the other.
//!
//! ```
//! use ark_bn254::Fr;
//! use ark_poly::{DenseMultilinearExtension, MultilinearExtension};
//! use ark_poly_commit::linear_codes::LinearCodePCS;
//! use ark_poly_commit::{LabeledPolynomial, PolynomialCommitment};
//! use zkaccel_pcs::{Blake2sColHasher, NttLigero, Sha256Tree as Tree};
//!
//! type Poly = DenseMultilinearExtension<Fr>;
//! type Ligero = LinearCodePCS<
//!     NttLigero<Fr, Tree, Poly, Blake2sColHasher<Fr>>, Fr, Poly, Tree, Blake2sColHasher<Fr>>;
//!
//! let rng = &mut ark_std::test_rng();
//! let pp = Ligero::setup(1, Some(10), rng).unwrap();
//! let (ck, _vk) = Ligero::trim(&pp, 0, 0, None).unwrap();
//! let p = LabeledPolynomial::new("p".into(), Poly::rand(10, rng), None, None);
//! let (_com, _states) = Ligero::commit(&ck, [&p], None).unwrap();
//! ```
//!
//! Opening and checking take a sponge for the Fiat-Shamir transcript
//! (`Ligero::open(&ck, [&p], &com, &point, &mut sponge, &states, None)`),
//! exactly as with stock Ligero; see the tests for a whole round trip.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod check;
mod hash;
mod ligero;

pub use check::{check_paths, check_strict};

pub use hash::{
    column_digest, column_digest_with, Blake2sColHasher, Blake2sCore, LeafIdentityHasher,
    Sha256Tree, BLAKE2S_ENV,
};
pub use ligero::{reed_solomon, tensor, NttLigero};
