//! zkaccel's generators and commitments against the C library that
//! shipped: Grin's secp256k1-zkp (`grin_secp256k1zkp`, its bundled C
//! sources), on random and edge inputs.
//!
//! `ZKACCEL_BP_CASES` sets how many random keys and commitments each test
//! draws (default 2,000).

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use secp256k1zkp::{ffi, key::SecretKey, ContextFlag, Secp256k1};
use zkaccel_bulletproofs::{generator_generate, Blinding, Commitment, Error, Fr};

use super::cases;

/// The C library's generator for `key` (x || y, big-endian).
fn c_generator(key: &[u8; 32]) -> [u8; 64] {
    let mut gen = ffi::Generator([0u8; 64]);
    // SAFETY: a context of the library's own making, a 64-byte output and a
    // 32-byte key, as `secp256k1_generator_generate` requires; the context
    // is destroyed once, after the call.
    let ok = unsafe {
        let ctx = ffi::secp256k1_context_create(ffi::SECP256K1_START_NONE);
        let ok = ffi::secp256k1_generator_generate(ctx, &mut gen, key.as_ptr());
        ffi::secp256k1_context_destroy(ctx);
        ok
    };
    assert_eq!(ok, 1, "the C library refused key {key:02x?}");
    gen.0
}

fn to_xy(p: &zkaccel_bulletproofs::Affine) -> [u8; 64] {
    use ark_ff::{BigInteger, PrimeField};
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&p.x.into_bigint().to_bytes_be());
    out[32..].copy_from_slice(&p.y.into_bigint().to_bytes_be());
    out
}

#[test]
fn generators_equal_the_c_librarys() {
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let mut keys: Vec<[u8; 32]> = vec![[0u8; 32], [0xff; 32], {
        let mut k = [0u8; 32];
        k[31] = 1;
        k
    }];
    for _ in 0..cases() / 4 {
        let mut k = [0u8; 32];
        rng.fill_bytes(&mut k);
        keys.push(k);
    }
    for key in &keys {
        let ours = generator_generate(key).unwrap();
        assert!(ours.is_on_curve());
        assert_eq!(to_xy(&ours), c_generator(key), "key {key:02x?}");
    }
}

fn c_commit(secp: &Secp256k1, value: u64, blind: &[u8; 32]) -> Option<[u8; 33]> {
    let sk = SecretKey::from_slice(secp, blind).ok()?;
    secp.commit(value, sk).ok().map(|c| c.0)
}

#[test]
fn commitments_equal_the_c_librarys() {
    let secp = Secp256k1::with_caps(ContextFlag::Commit);
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let one = {
        let mut b = [0u8; 32];
        b[31] = 1;
        b
    };
    // The group order minus one, the largest blinding factor.
    let n_minus_1 = Blinding(-Fr::from(1u64)).to_be_bytes();
    let mut inputs: Vec<(u64, [u8; 32])> = vec![
        (0, one),
        (1, one),
        (u64::MAX, one),
        (0, n_minus_1),
        (u64::MAX, n_minus_1),
        (1 << 63, n_minus_1),
    ];
    for i in 0..cases() {
        let mut b = [0u8; 32];
        rng.fill_bytes(&mut b);
        let value = match i % 4 {
            0 => rng.gen(),
            1 => rng.gen_range(0..1000),
            2 => u64::MAX - rng.gen_range(0..1000),
            _ => 1u64 << rng.gen_range(0..64),
        };
        inputs.push((value, b));
    }
    let mut compared = 0;
    for (value, b) in inputs {
        let ours = Blinding::from_be_bytes(&b).and_then(|bl| Commitment::commit(value, &bl));
        match c_commit(&secp, value, &b) {
            Some(theirs) => {
                let ours = ours.unwrap_or_else(|e| panic!("value {value}, blind {b:02x?}: {e}"));
                assert_eq!(ours.to_bytes(), theirs, "value {value}, blind {b:02x?}");
                assert_eq!(Commitment::from_bytes(&theirs), Ok(ours));
                compared += 1;
            }
            // Both refuse a blinding factor at or above the group order.
            None => assert_eq!(ours, Err(Error::ScalarNotInGroup), "blind {b:02x?}"),
        }
    }
    assert!(compared >= cases(), "only {compared} commitments compared");
}

#[test]
fn commitment_parsing_agrees_with_the_c_library() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut accepted = 0;
    for i in 0..cases() {
        let mut b = [0u8; 33];
        rng.fill_bytes(&mut b);
        // Mostly the two valid first bytes, so that the x checks are reached.
        b[0] = match i % 8 {
            0 => rng.gen(),
            k => 0x08 | (k as u8 & 1),
        };
        if i % 16 == 1 {
            // x at or above p.
            b[1..29].fill(0xff);
        }
        let ours = Commitment::from_bytes(&b);
        // The Rust binding's parse-and-serialize round trip (via the public
        // key conversion, which parses first) would hide the parse result;
        // `secp256k1_pedersen_commitment_parse` is called directly.
        let mut internal = [0u8; 64];
        // SAFETY: a 64-byte output, a 33-byte input, a context of the
        // library's own making, destroyed once after the call.
        let theirs = unsafe {
            let ctx = ffi::secp256k1_context_create(ffi::SECP256K1_START_NONE);
            let ok =
                ffi::secp256k1_pedersen_commitment_parse(ctx, internal.as_mut_ptr(), b.as_ptr());
            ffi::secp256k1_context_destroy(ctx);
            ok
        };
        assert_eq!(ours.is_ok(), theirs == 1, "bytes {b:02x?}: ours {ours:?}");
        if let Ok(c) = ours {
            assert_eq!(c.to_bytes(), b);
            accepted += 1;
        }
    }
    assert!(
        accepted > cases() / 4,
        "only {accepted} valid encodings drawn"
    );
}
