//! zkaccel's circom prover for JavaScript: the WebAssembly module behind the
//! npm package `zkaccel` (built by `scripts/npm-build.sh`; docs/browser.md).
//!
//! snarkjs' Groth16 keys (`.zkey`) and witnesses (`.wtns`) in, snarkjs'
//! `proof.json` and `public.json` out, text for text. The package's
//! JavaScript (`crates/wasm/js`) wraps these bindings in snarkjs' API
//! (`groth16.prove`, `groth16.verify`) and a [`Prover`] that decodes a key
//! once and proves many times.
//!
//! Every function here is plain Rust first ([`KeyProver`], [`verify_json`]),
//! tested natively against the committed circom fixtures; the bindings
//! only turn [`CircomError`](zkaccel_circom::CircomError) into a JavaScript
//! `Error` carrying its message.
//!
//! In WebAssembly the field kernels are the portable ones (arkworks'
//! 64-bit limbs, multiplied on 29-bit limbs with lazy carries: wasm has no
//! 64x64->128-bit multiply), and an instance proves on the thread that
//! calls it (the package's workers are an instance each).

#![warn(missing_docs)]
#![deny(unsafe_code)]

mod prover;
pub mod sums;

pub use prover::{verify_json, KeyProver, KeyStream, ProofFiles, QuotientColumns, Randomness};

use wasm_bindgen::prelude::*;
use zkaccel_groth16::ProofPart;

fn js_err(e: zkaccel_circom::CircomError) -> JsError {
    JsError::new(&e.to_string())
}

/// A snarkjs Groth16 key decoded once, to prove many witnesses.
#[wasm_bindgen]
pub struct Prover {
    inner: KeyProver,
}

#[wasm_bindgen]
impl Prover {
    /// Decodes a zkey (`bn128` or `bls12381`) from its bytes; throws an
    /// `Error` naming the section and value at fault if it is truncated,
    /// corrupted or not a Groth16 key.
    #[wasm_bindgen(constructor)]
    pub fn new(zkey: &[u8]) -> Result<Prover, JsError> {
        KeyProver::new(zkey)
            .map(|inner| Prover { inner })
            .map_err(js_err)
    }

    /// A proof from a `.wtns` file's bytes: `[proof.json, public.json]` as
    /// snarkjs writes them. Throws if the witness is malformed, of another
    /// length or prime than the key's, or violates the circuit (the proof
    /// is verified before it is returned).
    pub fn prove(&self, wtns: &[u8]) -> Result<Vec<String>, JsError> {
        self.prove_from(wtns, Randomness::Os)
    }

    /// [`Prover::prove`] with the randomness from a fixed seed (as
    /// `zkaccel-prover --test-seed`): reproducible, NOT zero-knowledge.
    /// For tests only.
    #[wasm_bindgen(js_name = proveWithTestSeed)]
    pub fn prove_with_test_seed(&self, wtns: &[u8], seed: u64) -> Result<Vec<String>, JsError> {
        self.prove_from(wtns, Randomness::Seed(seed))
    }

    /// One share of a proof's work, for a pool of workers that each hold
    /// this key ([`zkaccel_groth16::ProofPart`]): `kind` 0 is the witness
    /// map and the H MSM over the terms `start..end` (clamped to
    /// [`Prover::h_terms`]), 1 the B MSM in G2, 2 the L, A and B MSMs in G1
    /// (`start` and `end` unused). Returns the share's sums as bytes, for
    /// [`Prover::assemble`] on any worker.
    #[wasm_bindgen(js_name = provePart)]
    pub fn prove_part(
        &self,
        wtns: &[u8],
        kind: u32,
        start: usize,
        end: usize,
    ) -> Result<Vec<u8>, JsError> {
        let part = match kind {
            0 => ProofPart::QuotientH { start, end },
            1 => ProofPart::B2,
            2 => ProofPart::LAB1,
            k => {
                return Err(JsError::new(&format!(
                    "part kind {k}: a proof's parts are of kinds 0 (quotient and H), 1 (B in G2) and 2 (L, A and B in G1)"
                )))
            }
        };
        self.inner.prove_part_wtns(wtns, part).map_err(js_err)
    }

    /// The witness map's quotient of `wtns` alone, as bytes (32 per term,
    /// [`sums::scalars_to_bytes`]): the H MSM's scalars, computed once and
    /// shared between workers ([`Prover::h_part`]).
    pub fn quotient(&self, wtns: &[u8]) -> Result<Vec<u8>, JsError> {
        self.inner.quotient_wtns(wtns).map_err(js_err)
    }

    /// The quotient's columns of `wtns` that `mask` selects (bit 0 A z,
    /// bit 1 B z, bit 2 C z) on its coset: the quotient's work split
    /// between two workers. One keeps its [`Columns`] for
    /// [`Prover::quotient_from`]; the other sends [`Columns::bytes`].
    #[wasm_bindgen(js_name = quotientColumns)]
    pub fn quotient_columns(&self, wtns: &[u8], mask: u32) -> Result<Columns, JsError> {
        self.inner
            .quotient_columns(wtns, mask)
            .map(|inner| Columns { inner })
            .map_err(js_err)
    }

    /// [`Prover::quotient`]'s bytes from `held` (columns computed here,
    /// consumed) and `others` (the bytes of the columns `held` lacks, in
    /// order A, B, C, from another worker's [`Columns::bytes`]).
    #[wasm_bindgen(js_name = quotientFrom)]
    pub fn quotient_from(
        &self,
        wtns: &[u8],
        held: Columns,
        others: &[u8],
    ) -> Result<Vec<u8>, JsError> {
        self.inner
            .quotient_from(wtns, held.inner, others)
            .map_err(js_err)
    }

    /// A share's sums as bytes, for [`Prover::assemble`]: the H MSM over the
    /// H query's terms from `start` on, one per scalar of `scalars` (those
    /// terms of [`Prover::quotient`]'s bytes). Throws on malformed scalars
    /// or a range past the query.
    #[wasm_bindgen(js_name = hPart)]
    pub fn h_part(&self, start: usize, scalars: &[u8]) -> Result<Vec<u8>, JsError> {
        self.inner.h_part(start, scalars).map_err(js_err)
    }

    /// The proof of `wtns` from its shares' bytes ([`Prover::prove_part`]),
    /// each preceded by its length as 4 bytes (little-endian), verified
    /// before it is returned: `[proof.json, public.json]`.
    pub fn assemble(&self, wtns: &[u8], shares: &[u8]) -> Result<Vec<String>, JsError> {
        self.assemble_from(wtns, shares, Randomness::Os)
    }

    /// [`Prover::assemble`] with the randomness from a fixed seed:
    /// reproducible, NOT zero-knowledge. For tests only.
    #[wasm_bindgen(js_name = assembleWithTestSeed)]
    pub fn assemble_with_test_seed(
        &self,
        wtns: &[u8],
        shares: &[u8],
        seed: u64,
    ) -> Result<Vec<String>, JsError> {
        self.assemble_from(wtns, shares, Randomness::Seed(seed))
    }

    fn assemble_from(
        &self,
        wtns: &[u8],
        shares: &[u8],
        rng: Randomness,
    ) -> Result<Vec<String>, JsError> {
        let shares = sums::split_shares(shares).map_err(|e| JsError::new(&e))?;
        let out = self
            .inner
            .assemble_wtns(wtns, &shares, rng)
            .map_err(js_err)?;
        Ok(vec![out.proof, out.public])
    }

    fn prove_from(&self, wtns: &[u8], rng: Randomness) -> Result<Vec<String>, JsError> {
        let out = self.inner.prove_wtns(wtns, rng).map_err(js_err)?;
        Ok(vec![out.proof, out.public])
    }

    /// snarkjs' name of the key's curve (`bn128` or `bls12381`).
    #[wasm_bindgen(getter)]
    pub fn curve(&self) -> String {
        self.inner.curve().to_owned()
    }

    /// How many signals a witness of this key has (`nVars`).
    #[wasm_bindgen(getter, js_name = nVars)]
    pub fn n_vars(&self) -> usize {
        self.inner.n_vars()
    }

    /// How many terms the key's H query has (the range of the shares of
    /// kind 0 in [`Prover::prove_part`]).
    #[wasm_bindgen(getter, js_name = hTerms)]
    pub fn h_terms(&self) -> usize {
        self.inner.h_terms()
    }

    /// How many public signals a proof of this key has (`nPublic`).
    #[wasm_bindgen(getter, js_name = nPublic)]
    pub fn n_public(&self) -> usize {
        self.inner.n_public()
    }

    /// The key's verification key, as `snarkjs zkey export
    /// verificationkey` writes `vkey.json`.
    #[wasm_bindgen(js_name = vkeyJson)]
    pub fn vkey_json(&self) -> String {
        self.inner.vkey_json()
    }
}

/// Some of a proof's quotient columns, computed by
/// [`Prover::quotient_columns`] and held in this instance.
#[wasm_bindgen]
pub struct Columns {
    inner: QuotientColumns,
}

#[wasm_bindgen]
impl Columns {
    /// The columns held, in order A, B, C, 32 bytes a value: `others` for
    /// [`Prover::quotient_from`] on another worker.
    pub fn bytes(&self) -> Vec<u8> {
        self.inner.to_bytes()
    }
}

/// A zkey decoded as its bytes arrive (a `fetch` body, a file read in
/// pieces): chunks in file order ([`ProverStream::push`]), then the
/// [`Prover`] ([`ProverStream::finish`]). The point sections are decoded
/// as they come, so the instance never holds the whole file beside its
/// decoded key.
#[wasm_bindgen]
#[derive(Default)]
pub struct ProverStream {
    inner: KeyStream,
}

#[wasm_bindgen]
impl ProverStream {
    /// An empty stream.
    #[wasm_bindgen(constructor)]
    pub fn new() -> ProverStream {
        ProverStream::default()
    }

    /// The next bytes of the zkey; throws as soon as they show the file
    /// malformed, foreign or of another protocol (and every later call
    /// throws too).
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsError> {
        self.inner.push(chunk).map_err(js_err)
    }

    /// The decoded key, once every byte is in; throws if the file is
    /// truncated or malformed (as `new Prover(bytes)` would).
    pub fn finish(self) -> Result<Prover, JsError> {
        self.inner
            .finish()
            .map(|inner| Prover { inner })
            .map_err(js_err)
    }
}

/// Whether `proof` (`proof.json`'s text) verifies for `publicSignals`
/// (`public.json`'s) under `vkey` (`vkey.json`'s). Throws on malformed
/// input (bad JSON, a point off the curve, a count other than the key's).
#[wasm_bindgen]
pub fn verify(vkey: &str, public: &str, proof: &str) -> Result<bool, JsError> {
    verify_json(vkey, public, proof).map_err(js_err)
}

/// Which field kernels this module runs (in WebAssembly: the portable
/// ones), for the figures of a benchmark.
#[wasm_bindgen]
pub fn kernel() -> String {
    zkaccel_ff::kernel_summary()
}
