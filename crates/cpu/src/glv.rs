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
//! MSM uses it on curves whose every point is (cofactor 1): BN254 G1 and
//! secp256k1, whose endomorphism arkworks 0.6 does not implement
//! ([`secp256k1`] holds it).

use crate::msm::GlvTerms;
use ark_ec::scalar_mul::glv::GLVConfig;
use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, BigInteger, PrimeField, Zero};

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
        Self::from_basis(
            <P::ScalarField as PrimeField>::MODULUS,
            P::SCALAR_DECOMP_COEFFS,
        )
    }

    /// The constants for the scalar field of order `r` and a reduced basis
    /// `n` of the lattice `{(a, b): a + λ b ≡ 0 (mod r)}`, as arkworks'
    /// `SCALAR_DECOMP_COEFFS` give it: `(positive, |n|)` for n11, n12, n21,
    /// n22, rows `(n11, n12)` and `(n21, n22)`, determinant
    /// `n11 n22 - n12 n21 = r`.
    pub fn from_basis(r: BigInt<4>, n: [(bool, BigInt<4>); 4]) -> GlvSplit {
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

    /// The split terms: `2n` half-width scalars, and the endomorphism's
    /// x-coordinates and signs from which [`GlvTerms::bases`] reads the `2n`
    /// bases `±P`, `±φ(P)` (in that order per term) without copying the
    /// points.
    /// Scalars are any `BigInteger` of at most 4 limbs (`None` otherwise).
    pub fn split_terms<P: GLVConfig, S: crate::msm::Bases<P>, B: BigInteger>(
        &self,
        bases: S,
        scalars: &[B],
    ) -> Option<GlvTerms<P>> {
        self.split_terms_by(bases, scalars, P::endomorphism_affine)
    }

    /// [`GlvSplit::split_terms`] with the endomorphism `φ` given (for a
    /// curve whose arkworks configuration has no `GLVConfig`); `φ` must
    /// keep `y` (`φ(x, y) = (βx, y)`: only its `x` is kept). Chunks of
    /// terms run in parallel, each writing its own part of the three
    /// vectors in place.
    pub fn split_terms_by<P: SWCurveConfig, S: crate::msm::Bases<P>, B: BigInteger>(
        &self,
        bases: S,
        scalars: &[B],
        endomorphism: impl Fn(&Affine<P>) -> Affine<P> + Sync + Send,
    ) -> Option<GlvTerms<P>> {
        if B::NUM_LIMBS > 4 {
            return None;
        }
        let n = bases.len();
        debug_assert_eq!(n, scalars.len());
        let mut terms = GlvTerms {
            beta_x: vec![P::BaseField::zero(); n],
            negate: vec![0u64; (2 * n).div_ceil(64)],
            scalars: vec![BigInt::<4>::zero(); 2 * n],
        };
        // A chunk's 2 * SPLIT_CHUNK sign bits are whole words.
        const _: () = assert!((2 * SPLIT_CHUNK).is_multiple_of(64));
        let mut parts: Vec<_> = terms
            .beta_x
            .chunks_mut(SPLIT_CHUNK)
            .zip(terms.negate.chunks_mut(2 * SPLIT_CHUNK / 64))
            .zip(terms.scalars.chunks_mut(2 * SPLIT_CHUNK))
            .collect();
        crate::parallel::for_each_indexed(&mut parts, |c, ((beta_x, negate), split)| {
            for (t, x) in beta_x.iter_mut().enumerate() {
                let i = c * SPLIT_CHUNK + t;
                let p = bases.get(i);
                if let Some((ex, ey)) = endomorphism(&p).xy() {
                    debug_assert_eq!(Some(ey), p.xy().map(|(_, y)| y), "φ keeps y");
                    *x = ex;
                }
                self.split_into(&scalars[i], t, negate, split);
            }
        });
        drop(parts);
        Some(terms)
    }

    /// The scalar half of [`GlvSplit::split_terms`]: the `2n` half-width
    /// magnitudes and the `2n` sign bits, without the points (for MSMs over
    /// several base sets that share their scalars; each base set then
    /// needs only its `βx`). `None` for scalars of more than 4 limbs.
    pub fn split_scalars<B: BigInteger>(
        &self,
        scalars: &[B],
    ) -> Option<(Vec<u64>, Vec<BigInt<4>>)> {
        if B::NUM_LIMBS > 4 {
            return None;
        }
        let n = scalars.len();
        let mut negate = vec![0u64; (2 * n).div_ceil(64)];
        let mut split = vec![BigInt::<4>::zero(); 2 * n];
        let mut parts: Vec<_> = negate
            .chunks_mut(2 * SPLIT_CHUNK / 64)
            .zip(split.chunks_mut(2 * SPLIT_CHUNK))
            .collect();
        crate::parallel::for_each_indexed(&mut parts, |c, (negate, split)| {
            for t in 0..split.len() / 2 {
                self.split_into(&scalars[c * SPLIT_CHUNK + t], t, negate, split);
            }
        });
        drop(parts);
        Some((negate, split))
    }

    /// Splits `k` (at most 4 limbs) into the chunk's term `t`: magnitudes
    /// at `split[2t]`, `split[2t + 1]`, negation bits `2t`, `2t + 1` of
    /// `negate` (which start cleared).
    #[inline(always)]
    fn split_into<B: BigInteger>(
        &self,
        k: &B,
        t: usize,
        negate: &mut [u64],
        split: &mut [BigInt<4>],
    ) {
        let mut wide = BigInt::<4>::zero();
        wide.0[..B::NUM_LIMBS].copy_from_slice(k.as_ref());
        let ((p1, k1), (p2, k2)) = self.decompose(&wide);
        let bits = u64::from(!p1) | (u64::from(!p2) << 1);
        negate[t / 32] |= bits << (2 * (t % 32));
        split[2 * t] = k1;
        split[2 * t + 1] = k2;
    }
}

/// secp256k1's endomorphism `φ(x, y) = (β x, y) = λ (x, y)`, which
/// arkworks 0.6 does not implement for the curve: `β` and `λ` are the
/// matching primitive cube roots of unity in Fq and Fr, and the basis is
/// the short one of the lattice `{(a, b): a + λ b ≡ 0 (mod r)}` (GLV's
/// extended-Euclid construction; the values are the curve's published
/// ones). The tests check every property from scratch: `β³ = 1`, `λ³ = 1`,
/// `φ(G) = λ G` by arkworks' scalar multiplication, both rows in the
/// lattice, the determinant `r`, and the decomposition on random scalars.
pub mod secp256k1 {
    use super::GlvSplit;
    use ark_ec::short_weierstrass::Affine;
    use ark_ec::AffineRepr;
    use ark_ff::{BigInt, MontFp, PrimeField};
    use ark_secp256k1::{Config, Fq, Fr};

    /// `β`: `(β x, y)` is `λ (x, y)`.
    pub const BETA: Fq =
        MontFp!("55594575648329892869085402983802832744385952214688224221778511981742606582254");

    /// `λ` (the tests check `BETA` and the basis against it).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const LAMBDA: Fr =
        MontFp!("37718080363155996902926221483475020450927657555482586988616620542887997980018");

    /// `|n11| = |n22|`.
    const A1: BigInt<4> = BigInt!("64502973549206556628585045361533709077");
    /// `|n12|` (n12 is negative).
    const B1: BigInt<4> = BigInt!("303414439467246543595250775667605759171");
    /// `|n21|`.
    const A2: BigInt<4> = BigInt!("367917413016453100223835821029139468248");

    /// The reduced basis, in arkworks' `SCALAR_DECOMP_COEFFS` form.
    pub const BASIS: [(bool, BigInt<4>); 4] = [(true, A1), (false, B1), (true, A2), (true, A1)];

    /// `φ(P)`.
    pub fn endomorphism(p: &Affine<Config>) -> Affine<Config> {
        match p.xy() {
            Some((x, y)) => Affine::new_unchecked(x * BETA, y),
            None => *p,
        }
    }

    /// The split's constants.
    pub fn split() -> GlvSplit {
        GlvSplit::from_basis(<Fr as PrimeField>::MODULUS, BASIS)
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

    /// `k1 + λ k2 ≡ k (mod r)` and both halves at most 129 bits.
    fn check<F: PrimeField<BigInt = BigInt<4>>>(split: &GlvSplit, lambda: F, k: BigInt<4>) {
        let ((p1, k1), (p2, k2)) = split.decompose(&k);
        let f = |pos: bool, v: BigInt<4>| {
            let x = F::from_bigint(v).expect("half-width");
            if pos {
                x
            } else {
                -x
            }
        };
        let want = F::from_le_bytes_mod_order(&k.to_bytes_le());
        assert_eq!(f(p1, k1) + lambda * f(p2, k2), want, "identity for {k}");
        assert!(
            k1.num_bits() <= 129 && k2.num_bits() <= 129,
            "{k}: {k1} {k2}"
        );
    }

    /// Random scalars and the edge cases 0, 1, r - 1, r, 2^256 - 1.
    fn scalars<F: PrimeField<BigInt = BigInt<4>>>(seed: u64) -> Vec<BigInt<4>> {
        let r = F::MODULUS;
        let mut edge = vec![BigInt::zero(), BigInt::from(1u64), r, BigInt([u64::MAX; 4])];
        let mut r1 = r;
        r1.sub_with_borrow(&BigInt::from(1u64));
        edge.push(r1);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        edge.into_iter()
            .chain((0..2000).map(|_| F::rand(&mut rng).into_bigint()))
            .collect()
    }

    #[test]
    fn decomposition_identity_and_width() {
        let split = GlvSplit::new::<Config>();
        for k in scalars::<Fr>(3) {
            check(&split, <Config as GLVConfig>::LAMBDA, k);
        }
    }

    #[test]
    fn secp256k1_endomorphism_and_basis() {
        use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
        use ark_ff::{Field, One};
        use ark_secp256k1::{Fq as Sq, Fr as Sr, Projective as SP};
        use secp256k1::{BASIS, BETA, LAMBDA};
        // Primitive cube roots of unity.
        assert!(BETA != Sq::one() && BETA.pow([3]) == Sq::one());
        assert!(LAMBDA != Sr::one() && LAMBDA.pow([3]) == Sr::one());
        // φ(P) = λ P by arkworks' scalar multiplication, on G, random
        // points, -G and the point at infinity.
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let mut points = vec![SP::generator(), -SP::generator(), SP::default()];
        points.extend((0..20).map(|_| SP::rand(&mut rng)));
        for p in points {
            let a = p.into_affine();
            assert_eq!(
                secp256k1::endomorphism(&a),
                (p * LAMBDA).into_affine(),
                "{a}"
            );
            assert!(a.is_zero() || secp256k1::endomorphism(&a).is_on_curve());
        }
        // Both rows lie in the lattice: n11 + λ n12 ≡ 0, n21 + λ n22 ≡ 0.
        let v = |(pos, n): (bool, BigInt<4>)| {
            let x = Sr::from_bigint(n).expect("below r");
            if pos {
                x
            } else {
                -x
            }
        };
        assert_eq!(v(BASIS[0]) + LAMBDA * v(BASIS[1]), Sr::from(0u64));
        assert_eq!(v(BASIS[2]) + LAMBDA * v(BASIS[3]), Sr::from(0u64));
        // n11 n22 - n12 n21 = r as integers (n12 < 0): |n11| |n22| + |n12| |n21|.
        let (lo1, hi1) = BASIS[0].1.mul(&BASIS[3].1);
        let (lo2, hi2) = BASIS[1].1.mul(&BASIS[2].1);
        let (mut lo, mut hi) = (lo1, hi1);
        let carry = lo.add_with_carry(&lo2);
        hi.add_with_carry(&hi2);
        if carry {
            hi.add_with_carry(&BigInt::from(1u64));
        }
        assert_eq!((lo, hi), (<Sr as PrimeField>::MODULUS, BigInt::zero()));
        let split = secp256k1::split();
        for k in scalars::<Sr>(7) {
            check(&split, LAMBDA, k);
        }
    }

    /// The split terms read through `GlvTerms::bases` sum to the MSM of the
    /// given terms (arkworks' scalar multiplication, term by term), on
    /// random points, the point at infinity, a repeated point and edge
    /// scalars; a sub-range starting at an odd term reads the same points
    /// as the whole; packed bases read the same as a slice.
    #[test]
    fn split_terms_read_in_place() {
        use crate::msm::{Bases, PackedBases};
        use ark_bn254::{G1Affine, G1Projective};
        use ark_ec::{AffineRepr, CurveGroup};
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(11);
        // More than one chunk of `SPLIT_CHUNK`, and an odd count.
        let n = SPLIT_CHUNK + 37;
        let mut points: Vec<G1Affine> = (0..n)
            .map(|_| G1Projective::rand(&mut rng).into_affine())
            .collect();
        points[3] = G1Affine::zero();
        points[n - 1] = G1Affine::zero();
        points[5] = points[4];
        let edge = scalars::<Fr>(13);
        let ks: Vec<BigInt<4>> = (0..n).map(|i| edge[i % edge.len()]).collect();
        let split = GlvSplit::new::<Config>();
        let terms = split.split_terms(points.as_slice(), &ks).expect("4 limbs");
        let bases = terms.bases(points.as_slice());
        assert_eq!((bases.len(), terms.scalars().len()), (2 * n, 2 * n));
        let want: G1Projective = points
            .iter()
            .zip(&ks)
            .map(|(p, k)| *p * Fr::from_le_bytes_mod_order(&k.to_bytes_le()))
            .sum();
        let got: G1Projective = (0..2 * n)
            .map(|t| bases.get(t) * Fr::from_bigint(terms.scalars()[t]).expect("half width"))
            .sum();
        assert_eq!(got, want);
        // Each split base is ±P or ±φ(P) = ±(βx, y).
        let beta = <Config as GLVConfig>::ENDO_COEFFS[0];
        for (i, p) in points.iter().enumerate() {
            let (a, b) = (bases.get(2 * i), bases.get(2 * i + 1));
            match p.xy() {
                None => assert!(a.is_zero() && b.is_zero()),
                Some((x, y)) => {
                    assert!(a == *p || a == -*p, "term {i}");
                    let e: G1Affine = G1Affine::new_unchecked(x * beta, y);
                    assert!(b == e || b == -e, "term {i}");
                    assert!(b.is_on_curve());
                }
            }
        }
        let sub = bases.range(7..2 * n - 3);
        assert_eq!(sub.len(), 2 * n - 10);
        for j in [0, 1, 2, 100, sub.len() - 1] {
            assert_eq!(sub.get(j), bases.get(7 + j), "range offset {j}");
        }
        let mut bytes = vec![0u8; 4];
        PackedBases::<Config>::encode(&points, &mut bytes);
        let packed = PackedBases::<Config>::new(&bytes[4..]).expect("whole points");
        let via_packed = split.split_terms(packed, &ks).expect("4 limbs");
        let pb = via_packed.bases(packed);
        assert_eq!(via_packed.scalars(), terms.scalars());
        assert!((0..2 * n).all(|t| pb.get(t) == bases.get(t)));
    }
}
