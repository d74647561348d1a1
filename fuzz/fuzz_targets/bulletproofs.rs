//! The range-proof parser and verifier on arbitrary bytes, and on a valid
//! proof with arbitrary changes.
//!
//! First byte even: the rest is read as a bit width, one or two 33-byte
//! commitments and a proof; verification returns `Ok` or an error, never
//! panics. First byte odd: the rest is a list of (position, xor) changes to
//! a valid 64-bit proof; the changed proof must be refused unless every
//! change lies in a sign bit that no point uses (the format's only
//! malleable bits: 4 in the byte of A, S, T1, T2 and 6 after the ten L and
//! R bits, which secp256k1-zkp ignores too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use std::sync::OnceLock;
use zkaccel_bulletproofs::{prove, Blinding, Commitment, ProofInput, RangeVerifier};

struct Fixture {
    verifier: RangeVerifier,
    proof: Vec<u8>,
    commits: Vec<Commitment>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let verifier = RangeVerifier::grin().unwrap();
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let b = Blinding::from_be_bytes(&[5u8; 32]).unwrap();
        let (proof, commits) =
            prove(verifier.generators(), &[123_456_789], &[b], 64, None, &mut rng).unwrap();
        Fixture { verifier, proof, commits }
    })
}

/// Whether bit `bit` of byte `pos` is one no point of a 675-byte proof uses.
fn unused_bit(pos: usize, bit: u32) -> bool {
    // Byte 64: A, S, T1, T2 in bits 0-3. Bytes 353-354: L0 R0 .. L4 R4 in
    // bits 0-9 (the inner product starts at 193: t, four scalars, then the
    // sign bits).
    (pos == 64 && bit >= 4) || (pos == 354 && bit >= 2)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let f = fixture();
    if mode % 2 == 0 {
        let Some((&bits, rest)) = rest.split_first() else {
            return;
        };
        let nbits = 1usize << (bits % 8);
        let m = 1 + (bits as usize >> 7);
        if rest.len() < 33 * m {
            return;
        }
        let commits: Vec<Commitment> =
            rest[..33 * m].chunks(33).filter_map(|c| Commitment::from_bytes(c).ok()).collect();
        let proof = &rest[33 * m..];
        let _ = f.verifier.verify(proof, &commits, nbits, None);
        let _ = f.verifier.verify_batch(
            &[ProofInput { proof, commitments: &commits, extra: Some(&[]) }; 2],
            nbits,
        );
        return;
    }
    let mut proof = f.proof.clone();
    for change in rest.chunks_exact(3) {
        let pos = u16::from_le_bytes([change[0], change[1]]) as usize % proof.len();
        proof[pos] ^= change[2];
    }
    let changed = proof.iter().zip(&f.proof).enumerate().any(|(pos, (a, b))| {
        let d = a ^ b;
        (0..8).any(|bit| d >> bit & 1 == 1 && !unused_bit(pos, bit))
    });
    let result = f.verifier.verify(&proof, &f.commits, 64, None);
    assert_eq!(result.is_ok(), !changed, "{result:?}");
});
