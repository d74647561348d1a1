//! The GLV split of an MSM, with a fixed-width scalar decomposition.
//!
//! On a curve with an efficient endomorphism `φ(P) = λP` (BN254 G1:
//! `φ(x, y) = (βx, y)`), every term `k P` becomes `k1 P + k2 φ(P)` with
//! `k = k1 + λ k2 (mod r)` and `|k1|, |k2|` about `sqrt(r)`: twice the terms
//! at half the width, so half the windows and half the bucket reductions in
//! Pippenger for the same number of bucket additions.
//!
//! arkworks' `GLVConfig::scalar_decomposition` rounds with heap-allocated
//! big integers (about a microsecond per scalar, as much as a bucket
//! addition's share of a whole MSM); [`GlvSplit::decompose`] does the same
//! Babai rounding with 256-bit limbs: `β_i = ⌊k g_i / 2^256⌋` with
//! `g_i = ⌊2^256 |n_i| / r⌋` precomputed, then `k1 = k - β1 n11 - β2 n21`,
//! `k2 = -(β1 n12 + β2 n22)` in wrapping 256-bit arithmetic. The identity
//! `k1 + λ k2 ≡ k` holds for any `β` (the rows of the basis are multiples of
//! `r` under `λ`), so a rounding error can only make `k1, k2` a bit or two
//! longer, never wrong; the tests check the identity on random and edge
//! scalars and the halves' width.
//!
//! The split is exact only for points of the prime-order subgroup, so the
//! MSM uses it on curves whose every point is (cofactor 1): BN254 G1.

use ark_ec::scalar_mul::glv::GLVConfig;
use ark_ec::short_weierstrass::Affine;
use ark_ff::{BigInt, BigInteger, PrimeField};

/// Precomputed constants of the decomposition for one curve.
#[derive(Clone, Debug)]
pub struct GlvSplit {
    /// `(positive, |n|)` for n11, n12, n21, n22 (arkworks' basis).
    n: [(bool, BigInt<4>); 4],
    /// `⌊2^256 |n22| / r⌋` and `⌊2^256 |n12| / r⌋`.
    g22: BigInt<4>,
    g12: BigInt<4>,
    r: BigInt<4>,
}

impl GlvSplit {
    /// The constants for `P` (its scalar field must have 4 limbs).
    pub fn new<P: GLVConfig>() -> GlvSplit
    where
        P::ScalarField: PrimeField<BigInt = BigInt<4>>,
    {
        let r = <P::ScalarField as PrimeField>::MODULUS;
        let n = P::SCALAR_DECOMP_COEFFS;
        GlvSplit {
            g22: div_shifted(&n[3].1, &r),
            g12: div_shifted(&n[1].1, &r),
            n,
            r,
        }
    }

    /// `(k1, k2)` as `(non-negative, |k|)` pairs with `k ≡ ±|k1| ± λ|k2|`
    /// (mod r), for any 256-bit `k` (reduced mod r first). All arithmetic
    /// below wraps mod 2^256 (ark-ff's `BigInt` operations, carries
    /// ignored): the true `k1`, `k2` are far below 2^255 in magnitude.
    pub fn decompose(&self, k: &BigInt<4>) -> ((bool, BigInt<4>), (bool, BigInt<4>)) {
        let mut k = *k;
        while k >= self.r {
            k.sub_with_borrow(&self.r);
        }
        let neg = |v: BigInt<4>| {
            let mut z = BigInt::zero();
            z.sub_with_borrow(&v);
            z
        };
        // β1 = k n22 / r, β2 = -k n12 / r (rounded down in magnitude).
        let b1 = (self.n[3].0, k.mul_high(&self.g22));
        let b2 = (!self.n[1].0, k.mul_high(&self.g12));
        // β n as a wrapping signed integer.
        let term = |b: (bool, BigInt<4>), n: (bool, BigInt<4>)| {
            let m = b.1.mul_low(&n.1);
            if b.0 == n.0 {
                m
            } else {
                neg(m)
            }
        };
        let sum = |x: BigInt<4>, y: BigInt<4>| {
            let mut x = x;
            x.add_with_carry(&y);
            x
        };
        // k1 = k - (β1 n11 + β2 n21), k2 = -(β1 n12 + β2 n22), mod 2^256.
        let mut k1 = k;
        k1.sub_with_borrow(&sum(term(b1, self.n[0]), term(b2, self.n[2])));
        let k2 = neg(sum(term(b1, self.n[1]), term(b2, self.n[3])));
        let split = |v: BigInt<4>| {
            if v.get_bit(255) {
                (false, neg(v))
            } else {
                (true, v)
            }
        };
        (split(k1), split(k2))
    }

    /// The split terms: `2n` bases (`±P`, `±φ(P)`) and their half-width
    /// scalars, in that order per term.
    /// Scalars are any `BigInteger` of at most 4 limbs (`None` otherwise).
    pub fn split_terms<P: GLVConfig, S: crate::msm::Bases<P>, B: BigInteger>(
        &self,
        bases: S,
        scalars: &[B],
    ) -> Option<(Vec<Affine<P>>, Vec<BigInt<4>>)> {
        if B::NUM_LIMBS > 4 {
            return None;
        }
        let parts = crate::msm::map_indices(bases.len().div_ceil(SPLIT_CHUNK), |c| {
            let range = c * SPLIT_CHUNK..((c + 1) * SPLIT_CHUNK).min(bases.len());
            let mut b = Vec::with_capacity(2 * range.len());
            let mut s = Vec::with_capacity(2 * range.len());
            for i in range {
                let mut k = BigInt::<4>::zero();
                k.0[..B::NUM_LIMBS].copy_from_slice(scalars[i].as_ref());
                let ((p1, k1), (p2, k2)) = self.decompose(&k);
                let p = bases.get(i);
                let e = P::endomorphism_affine(&p);
                b.push(if p1 { p } else { -p });
                b.push(if p2 { e } else { -e });
                s.push(k1);
                s.push(k2);
            }
            (b, s)
        });
        let total = 2 * bases.len();
        let (mut b, mut s) = (Vec::with_capacity(total), Vec::with_capacity(total));
        for (pb, ps) in parts {
            b.extend(pb);
            s.extend(ps);
        }
        Some((b, s))
    }
}

/// Terms per task of [`GlvSplit::split_terms`].
const SPLIT_CHUNK: usize = 4096;

/// `⌊m 2^256 / r⌋` for `m < r`, by shift-and-subtract over the 512-bit
/// numerator `m 2^256` (run once per curve).
fn div_shifted(m: &BigInt<4>, r: &BigInt<4>) -> BigInt<4> {
    let mut rem = BigInt::<4>::zero();
    let mut q = BigInt::<4>::zero();
    for bit in (0..512usize).rev() {
        let out = rem.mul2();
        if bit >= 256 && m.get_bit(bit - 256) {
            rem.0[0] |= 1;
        }
        if out || rem >= *r {
            rem.sub_with_borrow(r);
            if bit < 256 {
                q.0[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::{g1::Config, Fr};
    use ark_ff::UniformRand;
    use rand::SeedableRng;

    fn check(split: &GlvSplit, k: BigInt<4>) {
        let ((p1, k1), (p2, k2)) = split.decompose(&k);
        let f = |pos: bool, v: BigInt<4>| {
            let x = Fr::from_bigint(v).expect("half-width");
            if pos {
                x
            } else {
                -x
            }
        };
        let lambda = <Config as GLVConfig>::LAMBDA;
        let want = Fr::from_le_bytes_mod_order(&k.to_bytes_le());
        assert_eq!(f(p1, k1) + lambda * f(p2, k2), want, "identity for {k}");
        assert!(
            k1.num_bits() <= 129 && k2.num_bits() <= 129,
            "{k}: {k1} {k2}"
        );
    }

    #[test]
    fn decomposition_identity_and_width() {
        let split = GlvSplit::new::<Config>();
        let r = <Fr as PrimeField>::MODULUS;
        let mut edge = vec![BigInt::zero(), BigInt::from(1u64), r, BigInt([u64::MAX; 4])];
        let mut r1 = r;
        r1.sub_with_borrow(&BigInt::from(1u64));
        edge.push(r1);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        for k in edge
            .into_iter()
            .chain((0..2000).map(|_| Fr::rand(&mut rng).into_bigint()))
        {
            check(&split, k);
        }
    }
}
