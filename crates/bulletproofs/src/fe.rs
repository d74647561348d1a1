//! secp256k1's base field on four 64-bit limbs, reduced the way its
//! modulus allows: p = 2^256 - c with c = 2^32 + 977, so 2^256 = c mod p
//! and a 512-bit product folds into 256 bits with two multiplications by
//! the 33-bit c instead of a Montgomery reduction. This is what the
//! compressed points' square roots run on (253 squarings and 13 products
//! each); libsecp256k1 uses the same modulus shape on 5x52-bit limbs.
//!
//! Values are kept below 2^256 but not necessarily below p; [`Fe::to_fq`]
//! and [`Fe::equals`] reduce fully. Variable time: it only handles public
//! data (the points of the proofs being verified).

use ark_ff::{BigInt, PrimeField};
use ark_secp256k1::Fq;

/// `2^256 mod p`.
const C: u64 = 0x1_0000_03D1;

/// p's limbs, least significant first.
const P: [u64; 4] = [0xFFFF_FFFE_FFFF_FC2F, u64::MAX, u64::MAX, u64::MAX];

/// A field element as four little-endian limbs, any value below 2^256
/// (congruent to the element mod p).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fe([u64; 4]);

/// `acc + a*b + carry` as (low, high) words.
#[inline(always)]
fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = u128::from(acc) + u128::from(a) * u128::from(b) + u128::from(carry);
    (t as u64, (t >> 64) as u64)
}

/// `a + b + carry` as (sum, carry out).
#[inline(always)]
fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = u128::from(a) + u128::from(b) + u128::from(carry);
    (t as u64, (t >> 64) as u64)
}

/// The first 32 big-endian bytes as a 256-bit integer.
pub(crate) fn bigint_from_be(bytes: &[u8]) -> BigInt<4> {
    let mut limbs = [0u64; 4];
    for (i, chunk) in bytes[..32].chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        limbs[3 - i] = u64::from_be_bytes(w);
    }
    BigInt(limbs)
}

impl Fe {
    /// The first 32 big-endian bytes as an element, read modulo p (every 256-bit
    /// value is a valid representation here).
    pub(crate) fn from_be(bytes: &[u8]) -> Self {
        Fe(bigint_from_be(bytes).0)
    }

    /// The element of arkworks' field.
    pub(crate) fn from_fq(x: &Fq) -> Self {
        Fe(x.into_bigint().0)
    }

    /// The small constant `v`.
    #[cfg(test)]
    pub(crate) fn from_u64(v: u64) -> Self {
        Fe([v, 0, 0, 0])
    }

    /// The element in arkworks' field.
    pub(crate) fn to_fq(self) -> Fq {
        Fq::from_bigint(BigInt(self.canonical())).expect("a canonical value is below p")
    }

    /// The value below p.
    fn canonical(self) -> [u64; 4] {
        let a = self.0;
        let at_least_p = a[3] == u64::MAX && a[2] == u64::MAX && a[1] == u64::MAX && a[0] >= P[0];
        if at_least_p {
            // a - p = a + c - 2^256, and a < 2^256 so this is below c.
            Fe::add_small(a, C).0
        } else {
            a
        }
    }

    /// Whether the two represent the same element.
    pub(crate) fn equals(&self, other: &Fe) -> bool {
        self.canonical() == other.canonical()
    }

    /// `a + v` over the integers, as (low 256 bits, carry out).
    #[inline(always)]
    fn add_small(a: [u64; 4], v: u64) -> ([u64; 4], u64) {
        let (r0, c) = adc(a[0], v, 0);
        let (r1, c) = adc(a[1], 0, c);
        let (r2, c) = adc(a[2], 0, c);
        let (r3, c) = adc(a[3], 0, c);
        ([r0, r1, r2, r3], c)
    }

    /// `self + v` for a small `v` (below 2^63).
    pub(crate) fn add_u64(&self, v: u64) -> Fe {
        let (r, carry) = Fe::add_small(self.0, v);
        // A carry means the sum is r + 2^256 = r + c mod p, and r is then
        // below v, so adding c cannot carry again.
        Fe(Fe::add_small(r, carry * C).0)
    }

    /// `-self`.
    pub(crate) fn neg(&self) -> Fe {
        // p - canonical(self); zero stays zero.
        let a = self.canonical();
        if a == [0; 4] {
            return *self;
        }
        let mut r = [0u64; 4];
        let mut borrow = 0u64;
        for i in 0..4 {
            let (d, b1) = P[i].overflowing_sub(a[i]);
            let (d, b2) = d.overflowing_sub(borrow);
            r[i] = d;
            borrow = u64::from(b1 | b2);
        }
        Fe(r)
    }

    /// A 512-bit value modulo p, below 2^256.
    #[inline(always)]
    fn reduce(t: [u64; 8]) -> Fe {
        // t = lo + hi * 2^256 = lo + hi * c (mod p): 256 bits and a top
        // word below 2^34.
        let mut r = [0u64; 4];
        let mut top = 0u64;
        for i in 0..4 {
            let (lo, hi) = mac(t[i], t[i + 4], C, top);
            r[i] = lo;
            top = hi;
        }
        // Fold the top word the same way: top * c is below 2^67.
        let v = u128::from(top) * u128::from(C);
        let (r0, c) = adc(r[0], v as u64, 0);
        let (r1, c) = adc(r[1], (v >> 64) as u64, c);
        let (r2, c) = adc(r[2], 0, c);
        let (r3, c) = adc(r[3], 0, c);
        // A last carry leaves a value below 2^68: adding c cannot carry.
        Fe(Fe::add_small([r0, r1, r2, r3], c * C).0)
    }

    /// `self * other`.
    #[inline(always)]
    pub(crate) fn mul(&self, other: &Fe) -> Fe {
        let (a, b) = (self.0, other.0);
        let mut t = [0u64; 8];
        for i in 0..4 {
            let mut carry = 0;
            for j in 0..4 {
                let (lo, hi) = mac(t[i + j], a[i], b[j], carry);
                t[i + j] = lo;
                carry = hi;
            }
            t[i + 4] = carry;
        }
        Fe::reduce(t)
    }

    /// `self^2`: the six cross products once, doubled, plus the squares.
    #[inline(always)]
    pub(crate) fn square(&self) -> Fe {
        let a = self.0;
        let mut t = [0u64; 8];
        for i in 0..3 {
            let mut carry = 0;
            for j in i + 1..4 {
                let (lo, hi) = mac(t[i + j], a[i], a[j], carry);
                t[i + j] = lo;
                carry = hi;
            }
            t[i + 4] = carry;
        }
        // Double the cross products (they fit: below 2^511).
        t[7] = t[6] >> 63;
        for k in (2..7).rev() {
            t[k] = (t[k] << 1) | (t[k - 1] >> 63);
        }
        t[1] <<= 1;
        // Add the squares a_i^2 at limbs 2i, 2i+1.
        let mut carry = 0;
        for i in 0..4 {
            let sq = u128::from(a[i]) * u128::from(a[i]);
            let (lo, c) = adc(t[2 * i], sq as u64, carry);
            let (hi, c) = adc(t[2 * i + 1], (sq >> 64) as u64, c);
            t[2 * i] = lo;
            t[2 * i + 1] = hi;
            carry = c;
        }
        Fe::reduce(t)
    }

    /// `self^(2^n)`.
    #[inline(always)]
    pub(crate) fn square_n(&self, n: usize) -> Fe {
        let mut t = *self;
        for _ in 0..n {
            t = t.square();
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{Field, One, UniformRand, Zero};
    use rand::SeedableRng;

    /// Edge values: 0, 1, small, p-1, p-2, and the representations at and
    /// above p (p, p+1, 2^256-1), which stand for 0, 1 and c-1.
    fn edge_limbs() -> Vec<[u64; 4]> {
        vec![
            [0; 4],
            [1, 0, 0, 0],
            [7, 0, 0, 0],
            [P[0] - 1, P[1], P[2], P[3]],
            [P[0] - 2, P[1], P[2], P[3]],
            P,
            [P[0] + 1, P[1], P[2], P[3]],
            [u64::MAX; 4],
            [0, 0, 0, 1 << 63],
            [u64::MAX, 0, u64::MAX, 0],
        ]
    }

    /// The element a 256-bit limb value stands for, through arkworks.
    fn as_fq(limbs: [u64; 4]) -> Fq {
        let mut bytes = Vec::with_capacity(32);
        for l in limbs {
            bytes.extend_from_slice(&l.to_le_bytes());
        }
        Fq::from_le_bytes_mod_order(&bytes)
    }

    #[test]
    fn products_squares_and_sums_agree_with_arkworks() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        let mut values: Vec<[u64; 4]> = edge_limbs();
        values.extend((0..60).map(|_| {
            let mut l = [0u64; 4];
            for w in &mut l {
                *w = rand::Rng::gen(&mut rng);
            }
            l
        }));
        values.extend((0..20).map(|_| Fe::from_fq(&Fq::rand(&mut rng)).0));
        for &a in &values {
            let (fa, xa) = (Fe(a), as_fq(a));
            assert_eq!(fa.to_fq(), xa, "{a:x?}");
            assert_eq!(fa.square().to_fq(), xa.square(), "square of {a:x?}");
            assert_eq!(fa.square_n(5).to_fq(), xa.pow([32u64]), "a^32 of {a:x?}");
            assert_eq!(fa.add_u64(7).to_fq(), xa + Fq::from(7u64), "{a:x?} + 7");
            assert_eq!(fa.neg().to_fq(), -xa, "-{a:x?}");
            for &b in &values {
                let fb = Fe(b);
                assert_eq!(fa.mul(&fb).to_fq(), xa * as_fq(b), "{a:x?} * {b:x?}");
                assert_eq!(fa.equals(&fb), xa == as_fq(b), "{a:x?} == {b:x?}");
            }
        }
    }

    #[test]
    fn conversions_and_representations() {
        assert!(Fe(P).equals(&Fe::from_u64(0)));
        assert!(Fe([P[0] + 1, P[1], P[2], P[3]]).equals(&Fe::from_u64(1)));
        assert_eq!(Fe(P).to_fq(), Fq::zero());
        assert_eq!(Fe([u64::MAX; 4]).to_fq(), Fq::from(C - 1));
        assert_eq!(Fe::from_fq(&-Fq::one()).to_fq(), -Fq::one());
        let mut be = [0u8; 32];
        be[31] = 5;
        be[0] = 0x80;
        let want = Fq::from(5u64) + Fq::from(2u64).pow([255u64]);
        assert_eq!(Fe::from_be(&be).to_fq(), want);
        assert_eq!(Fe::from_be(&[0xff; 32]).to_fq(), Fq::from(C - 1));
    }
}
