//! The generators, derived as secp256k1-zkp derives them.
//!
//! A generator from a 32-byte key `k` (`secp256k1_generator_generate`):
//! `t1 = SHA256("1st generation: " || k)` and `t2 = SHA256("2nd
//! generation: " || k)`, each read as a field element and mapped to the
//! curve by the Shallue-van de Woestijne map (Fouque and Tibouchi,
//! "Indifferentiable hashing to Barreto-Naehrig curves", Latincrypt 2012),
//! the two points summed. The range proofs' `n` generators are the images
//! of the 32-byte blocks of an RFC 6979 HMAC-SHA256 stream keyed with the
//! curve generator's coordinates (`x || y`, 64 bytes); the first `n/2` are
//! the `G_i`, the rest the `H_i`.

use crate::field::{fq_from_be, fq_to_be, is_odd, sqrt, sqrt_power};
use crate::hash::{hmac_sha256 as hmac, sha256};
use crate::Error;
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::Field;
use ark_secp256k1::{Affine, Fq, Projective};

/// How many generators Grin's `grin_secp256k1zkp` creates (its
/// `MAX_GENERATORS`): 128 `G_i` and 128 `H_i`, enough for two aggregated
/// 64-bit values. The `H_i` start at index `n/2`, so a different count
/// gives different `H_i`.
pub const GRIN_GENERATOR_COUNT: usize = 256;

/// `sqrt(-3)`, the root secp256k1-zkp's map uses.
const SQRT_MINUS_3: [u8; 32] = [
    0x0a, 0x2d, 0x2b, 0xa9, 0x35, 0x07, 0xf1, 0xdf, 0x23, 0x37, 0x70, 0xc2, 0xa7, 0x97, 0x96, 0x2c,
    0xc6, 0x1f, 0x6d, 0x15, 0xda, 0x14, 0xec, 0xd4, 0x7d, 0x8d, 0x27, 0xae, 0x1c, 0xd5, 0xf8, 0x52,
];
/// `(sqrt(-3) - 1) / 2`.
const SVDW_D: [u8; 32] = [
    0x85, 0x16, 0x95, 0xd4, 0x9a, 0x83, 0xf8, 0xef, 0x91, 0x9b, 0xb8, 0x61, 0x53, 0xcb, 0xcb, 0x16,
    0x63, 0x0f, 0xb6, 0x8a, 0xed, 0x0a, 0x76, 0x6a, 0x3e, 0xc6, 0x93, 0xd6, 0x8e, 0x6a, 0xfa, 0x40,
];

fn constant(bytes: &[u8; 32]) -> Fq {
    // Both constants are below p (checked by the tests).
    fq_from_be(bytes).unwrap_or_default()
}

/// The Shallue-van de Woestijne map of `t` to a curve point, step for step
/// as secp256k1-zkp's `shallue_van_de_woestijne` computes it: the first of
/// `x1 = d - t·w`, `x2 = -(x1 + 1)`, `x3 = 1 + 1/w²` (with
/// `w = c·t / (1 + 7 + t²)`) whose `x³ + 7` is a square, `y` the power
/// `(x³+7)^((p+1)/4)`, negated when `t` is odd.
///
/// Written, as the C code is, with one joint inversion of
/// `j = (c·t)²·(t² + 8)`, whose inverse is taken as zero when `j` is zero
/// (`t = 0`; `t² + 8` is never zero, -2 not being a square mod p): all
/// three x are then zero, as in the C code. SHA-256 never gave such a `t`.
pub(crate) fn svdw(t: &Fq) -> Affine {
    let c = constant(&SQRT_MINUS_3);
    let d = constant(&SVDW_D);
    let b = Fq::from(7u64);
    let wn = c * t;
    let wd = t.square() + Fq::from(8u64);
    let x1n = d * wd - *t * wn;
    let x2n = -(x1n + wd);
    let x3d = wn.square();
    let x3n = wd.square() + x3d;
    let jinv = (x3d * wd).inverse().unwrap_or_default();
    let x1 = x1n * x3d * jinv;
    let x2 = x2n * x3d * jinv;
    let x3 = x3n * wd * jinv;
    let rhs = |x: &Fq| x.square() * x + b;
    let (x, y) = match (sqrt(&rhs(&x1)), sqrt(&rhs(&x2))) {
        (Some(y), _) => (x1, y),
        (None, Some(y)) => (x2, y),
        // One of the three is a square whenever t is not zero (the map's
        // theorem); the C code takes the power either way.
        (None, None) => (x3, sqrt_power(&rhs(&x3))),
    };
    let y = if is_odd(t) { -y } else { y };
    Affine::new_unchecked(x, y)
}

/// The generator secp256k1-zkp derives from `key`
/// (`secp256k1_generator_generate`).
pub fn generator_generate(key: &[u8; 32]) -> Result<Affine, Error> {
    let mut sum = Projective::default();
    for prefix in [b"1st generation: ", b"2nd generation: "] {
        let t = fq_from_be(&sha256(&[prefix, key])).ok_or(Error::HashNotInField)?;
        sum += svdw(&t);
    }
    let p = sum.into_affine();
    if p.is_zero() {
        return Err(Error::Infinity);
    }
    Ok(p)
}

/// The RFC 6979 (section 3.2) HMAC-SHA256 stream of libsecp256k1
/// (`secp256k1_rfc6979_hmac_sha256`): keyed once, then 32-byte blocks.
#[derive(Clone)]
pub struct Rfc6979HmacSha256 {
    v: [u8; 32],
    k: [u8; 32],
    retry: bool,
}

impl Rfc6979HmacSha256 {
    /// The stream keyed with `key` (any length).
    pub fn new(key: &[u8]) -> Self {
        let mut v = [1u8; 32];
        let mut k = [0u8; 32];
        for sep in [[0u8], [1u8]] {
            k = hmac(&k, &[&v, &sep, key]);
            v = hmac(&k, &[&v]);
        }
        Rfc6979HmacSha256 { v, k, retry: false }
    }

    /// Fills `out` with the stream's next bytes. Each call after the first
    /// rekeys first, as libsecp256k1's does, so two calls of 32 bytes differ
    /// from one call of 64.
    pub fn fill(&mut self, out: &mut [u8]) {
        if self.retry {
            self.k = hmac(&self.k, &[&self.v, &[0u8]]);
            self.v = hmac(&self.k, &[&self.v]);
        }
        for chunk in out.chunks_mut(32) {
            self.v = hmac(&self.k, &[&self.v]);
            chunk.copy_from_slice(&self.v[..chunk.len()]);
        }
        self.retry = true;
    }
}

/// The range proofs' generators: `G_i` and `H_i`, `n/2` of each
/// (`secp256k1_bulletproof_generators_create` with `n`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generators {
    g: Vec<Affine>,
    h: Vec<Affine>,
}

impl Generators {
    /// The `n` generators secp256k1-zkp creates for `n` (its `G_i` are the
    /// first `n/2`, its `H_i` the next `n/2`; an odd `n`'s last generator
    /// is not used by the C code either). Grin uses
    /// [`GRIN_GENERATOR_COUNT`].
    pub fn new(n: usize) -> Result<Self, Error> {
        let g = Affine::generator();
        let mut seed = [0u8; 64];
        seed[..32].copy_from_slice(&fq_to_be(&g.x));
        seed[32..].copy_from_slice(&fq_to_be(&g.y));
        let mut rng = Rfc6979HmacSha256::new(&seed);
        let mut all = Vec::with_capacity(n);
        for _ in 0..n {
            let mut key = [0u8; 32];
            rng.fill(&mut key);
            all.push(generator_generate(&key)?);
        }
        let h = all.split_off(n / 2);
        Ok(Generators { g: all, h })
    }

    /// Generators of the caller's own (`g` are the `G_i`, `h` the `H_i`),
    /// for a system that derives them otherwise.
    pub fn from_points(g: Vec<Affine>, h: Vec<Affine>) -> Self {
        Generators { g, h }
    }

    /// Grin's generators: [`Generators::new`] with [`GRIN_GENERATOR_COUNT`].
    pub fn grin() -> Result<Self, Error> {
        Self::new(GRIN_GENERATOR_COUNT)
    }

    /// The `G_i`.
    pub fn g(&self) -> &[Affine] {
        &self.g
    }

    /// The `H_i` (as many as the `G_i`, plus one when `n` was odd).
    pub fn h(&self) -> &[Affine] {
        &self.h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{AdditiveGroup, Zero};

    #[test]
    fn map_constants() {
        let c = constant(&SQRT_MINUS_3);
        let d = constant(&SVDW_D);
        assert_eq!(fq_from_be(&SQRT_MINUS_3), Some(c));
        assert_eq!(fq_from_be(&SVDW_D), Some(d));
        assert_eq!(c.square(), -Fq::from(3u64));
        assert_eq!(d.double() + Fq::from(1u64), c);
    }

    #[test]
    fn map_lands_on_the_curve_and_is_odd_in_t() {
        for v in [1u64, 2, 3, 5, 1 << 40, u64::MAX] {
            for t in [Fq::from(v), -Fq::from(v)] {
                let p = svdw(&t);
                assert!(p.is_on_curve(), "t = {t}");
                // Negating t negates the point (the map uses t only as t²
                // and its parity).
                assert_eq!(svdw(&-t), -p);
            }
        }
        // t = 0: the joint inverse is zero, so is every x (the C code's
        // answer, whatever it is worth).
        assert!(svdw(&Fq::from(0u64)).x.is_zero());
    }

    /// The vectors of libsecp256k1's own `run_rfc6979_hmac_sha256_tests`.
    #[test]
    fn rfc6979_stream_matches_libsecp256k1_vectors() {
        let mut key1 = [0u8; 64];
        for (i, b) in key1[..31].iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        key1[32..].copy_from_slice(&hex32(
            "4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a",
        ));
        let out1 = [
            "4fe29525b2086809159acdf0506efb86b0ec932c7ba44256ab321e421e67e9fb",
            "2bf0fff1d3c378a22dc5de1d856522325c65b504491a0cbd01cb8f3aa67ffd4a",
            "f528b410cb541f77000d7afb6c5b53c5c471eab43e466d9ac5190c39c82fd82e",
        ];
        let mut rng = Rfc6979HmacSha256::new(&key1);
        for o in out1 {
            let mut out = [0u8; 32];
            rng.fill(&mut out);
            assert_eq!(out, hex32(o));
        }
        // The same key with one more (zero) byte gives another stream.
        let mut key65 = key1.to_vec();
        key65.push(0);
        let mut rng = Rfc6979HmacSha256::new(&key65);
        for o in out1 {
            let mut out = [0u8; 32];
            rng.fill(&mut out);
            assert_ne!(out, hex32(o));
        }
        let mut key2 = [0xffu8; 64];
        key2[32..].copy_from_slice(&hex32(
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ));
        let out2 = [
            "9c236c165b82ae0cd590659e100b6bab3036e7ba8b06749baf6981e16f1a2b95",
            "df471061625bc0ea14b682feee2c9c02f235da04204c1d62a1536c6e17aed7a9",
            "7597887cbd76321f32e30440679a22cf7f8d9d2eac390e581fea091ce202ba94",
        ];
        let mut rng = Rfc6979HmacSha256::new(&key2);
        for o in out2 {
            let mut out = [0u8; 32];
            rng.fill(&mut out);
            assert_eq!(out, hex32(o));
        }
    }

    fn hex32(s: &str) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }

    #[test]
    fn generators_split_at_half() {
        let a = Generators::new(8).unwrap();
        assert_eq!((a.g().len(), a.h().len()), (4, 4));
        let b = Generators::new(4).unwrap();
        // The stream is the same, so the first G_i agree and the H_i move.
        assert_eq!(&a.g()[..2], b.g());
        assert_eq!(b.h(), &a.g()[2..4]);
        assert!(a.g().iter().chain(a.h()).all(|p| p.is_on_curve()));
    }
}
