//! The C library's range-proof prover and verifier behind a small safe
//! wrapper: shared by the oracle tests and the benchmark
//! (`crates/bulletproofs/bench`), which include this file.

use secp256k1zkp::{constants, ffi};
use std::ptr;
use zkaccel_bulletproofs::Commitment;

/// A C context with signing and verification tables, a scratch space and
/// `n` range-proof generators made by the C library.
pub struct C {
    ctx: *mut ffi::Context,
    scratch: *mut ffi::ScratchSpace,
    gens: *mut ffi::BulletproofGenerators,
}

impl C {
    pub fn new(n: usize) -> Self {
        // SAFETY: the library's own constructors; each pointer is checked
        // and destroyed once, in Drop.
        unsafe {
            let ctx = ffi::secp256k1_context_create(
                ffi::SECP256K1_START_SIGN | ffi::SECP256K1_START_VERIFY,
            );
            assert!(!ctx.is_null());
            let scratch = ffi::secp256k1_scratch_space_create(ctx, 64 << 20);
            assert!(!scratch.is_null());
            let gens = ffi::secp256k1_bulletproof_generators_create(
                ctx,
                constants::GENERATOR_G.as_ptr(),
                n,
            );
            assert!(!gens.is_null());
            C { ctx, scratch, gens }
        }
    }

    /// The C prover's proof that each value lies in `[0, 2^nbits)`.
    pub fn prove(
        &self,
        values: &[u64],
        blinds: &[[u8; 32]],
        nbits: usize,
        nonce: &[u8; 32],
        extra: Option<&[u8]>,
    ) -> Vec<u8> {
        let mut proof = vec![0u8; 2000];
        let mut plen = proof.len();
        let blind_ptrs: Vec<*const u8> = blinds.iter().map(|b| b.as_ptr()).collect();
        let (extra_ptr, extra_len) = extra.map_or((ptr::null(), 0), |e| (e.as_ptr(), e.len()));
        // SAFETY: buffers of the sizes the C API documents: a 2,000-byte
        // proof buffer (longer than any proof of up to 8 values), one
        // 32-byte blinding factor per value, 64-byte generators.
        let ok = unsafe {
            ffi::secp256k1_bulletproof_rangeproof_prove(
                self.ctx,
                self.scratch,
                self.gens,
                proof.as_mut_ptr(),
                &mut plen,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                values.as_ptr(),
                ptr::null(),
                blind_ptrs.as_ptr(),
                ptr::null(),
                values.len(),
                constants::GENERATOR_H.as_ptr(),
                nbits,
                nonce.as_ptr(),
                nonce.as_ptr(),
                extra_ptr,
                extra_len,
                ptr::null(),
            )
        };
        assert_eq!(ok, 1, "the C prover failed for values {values:?}");
        proof.truncate(plen);
        proof
    }

    /// The commitments in the C library's internal form (64 bytes each,
    /// contiguous), as its verifier takes them.
    pub fn internal(&self, commits: &[Commitment]) -> Vec<u8> {
        let mut out = vec![0u8; 64 * commits.len()];
        for (c, o) in commits.iter().zip(out.chunks_mut(64)) {
            // SAFETY: a 33-byte input and a 64-byte output.
            let ok = unsafe {
                ffi::secp256k1_pedersen_commitment_parse(
                    self.ctx,
                    o.as_mut_ptr(),
                    c.to_bytes().as_ptr(),
                )
            };
            assert_eq!(ok, 1);
        }
        out
    }

    pub fn verify(
        &self,
        proof: &[u8],
        commits: &[Commitment],
        nbits: usize,
        extra: Option<&[u8]>,
    ) -> bool {
        let internal = self.internal(commits);
        let (extra_ptr, extra_len) = extra.map_or((ptr::null(), 0), |e| (e.as_ptr(), e.len()));
        // SAFETY: the proof's own length, the commitments' internal forms.
        unsafe {
            ffi::secp256k1_bulletproof_rangeproof_verify(
                self.ctx,
                self.scratch,
                self.gens,
                proof.as_ptr(),
                proof.len(),
                ptr::null(),
                internal.as_ptr(),
                commits.len(),
                nbits,
                constants::GENERATOR_H.as_ptr(),
                extra_ptr,
                extra_len,
            ) == 1
        }
    }

    /// `verify_multi`: proofs of the same length and value count.
    pub fn verify_multi(
        &self,
        proofs: &[Vec<u8>],
        commits: &[Vec<Commitment>],
        nbits: usize,
        extras: &[Option<Vec<u8>>],
    ) -> bool {
        let internals: Vec<Vec<u8>> = commits.iter().map(|c| self.internal(c)).collect();
        let proof_ptrs: Vec<*const u8> = proofs.iter().map(|p| p.as_ptr()).collect();
        let commit_ptrs: Vec<*const u8> = internals.iter().map(|c| c.as_ptr()).collect();
        let gens: Vec<u8> = (0..proofs.len())
            .flat_map(|_| constants::GENERATOR_H)
            .collect();
        let extra_ptrs: Vec<*const u8> = extras
            .iter()
            .map(|e| e.as_ref().map_or(ptr::null(), |e| e.as_ptr()))
            .collect();
        let extra_lens: Vec<usize> = extras
            .iter()
            .map(|e| e.as_ref().map_or(0, |e| e.len()))
            .collect();
        // SAFETY: one pointer per proof in each array, each to data of the
        // length the C API expects.
        unsafe {
            ffi::secp256k1_bulletproof_rangeproof_verify_multi(
                self.ctx,
                self.scratch,
                self.gens,
                proof_ptrs.as_ptr(),
                proofs.len(),
                proofs[0].len(),
                ptr::null(),
                commit_ptrs.as_ptr(),
                commits[0].len(),
                nbits,
                gens.as_ptr(),
                extra_ptrs.as_ptr(),
                extra_lens.as_ptr(),
            ) == 1
        }
    }
}

impl Drop for C {
    fn drop(&mut self) {
        // SAFETY: each pointer was made by its constructor in `new` and is
        // destroyed once.
        unsafe {
            ffi::secp256k1_bulletproof_generators_destroy(self.ctx, self.gens);
            ffi::secp256k1_scratch_space_destroy(self.scratch);
            ffi::secp256k1_context_destroy(self.ctx);
        }
    }
}
