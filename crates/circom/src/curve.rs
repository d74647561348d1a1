//! [`CircomCurve`]: how snarkjs encodes a curve's field elements and points.
//!
//! In `.zkey` files base-field coordinates are stored in Montgomery form
//! (`x R mod q`, `R = 2^(8 n8q)`, little-endian), which is exactly
//! arkworks' internal representation, so a coordinate is decoded with a
//! range check and no multiplication. The point at infinity is all zeros.
//! Scalars (`.wtns`, `.r1cs`) are plain little-endian integers; the key's
//! constraint coefficients are stored times `R^2`.

use ark_ec::{
    pairing::Pairing,
    short_weierstrass::{Affine, SWCurveConfig},
    AffineRepr,
};
use ark_ff::{
    BigInt, BigInteger, Field, Fp, Fp2, Fp2Config, FpConfig, MontBackend, MontConfig, PrimeField,
    Zero,
};
use num_bigint::BigUint;
use zkaccel_groth16::AccelPairing;

/// A pairing whose snarkjs encoding zkaccel-circom knows: BN254 (`"bn128"`)
/// and BLS12-381 (`"bls12381"`). Scalars are four 64-bit limbs on both.
pub trait CircomCurve: AccelPairing<ScalarField = Self::Fr> {
    /// The scalar field (named for the bound on its limbs).
    type Fr: PrimeField<BigInt = BigInt<4>>;
    /// snarkjs' name of the curve (`curve` in its JSON files).
    const NAME: &'static str;
    /// Bytes of one base-field element (`n8q`).
    const N8Q: usize;
    /// Bytes of one scalar (`n8r`).
    const N8R: usize = 32;

    /// The base field's modulus, little-endian, `N8Q` bytes.
    fn q_le() -> Vec<u8>;
    /// A G1 point from its Montgomery-form coordinates (`2 N8Q` bytes):
    /// `None` if a coordinate is not below the modulus. Not checked to be on
    /// the curve (`ZkeyOptions::check_points` asks for that).
    fn g1_from_mont(b: &[u8]) -> Option<Self::G1Affine>;
    /// A G2 point from `4 N8Q` bytes (x.c0, x.c1, y.c0, y.c1).
    fn g2_from_mont(b: &[u8]) -> Option<Self::G2Affine>;
    /// The scalar whose Montgomery form is the `N8R` little-endian bytes `b`
    /// (`b R^-1`, no multiplication): `None` if not below the modulus.
    fn fr_from_mont(b: &[u8]) -> Option<Self::Fr>;
    /// Appends a G1 point's Montgomery-form coordinates.
    fn g1_to_mont(p: &Self::G1Affine, out: &mut Vec<u8>);
    /// Appends a G2 point's Montgomery-form coordinates.
    fn g2_to_mont(p: &Self::G2Affine, out: &mut Vec<u8>);
    /// A G1 point as snarkjs' JSON (`[x, y, "1"]`, or `["0", "1", "0"]` at
    /// infinity).
    fn g1_json(p: &Self::G1Affine) -> [String; 3];
    /// A G2 point as snarkjs' JSON (`[[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]`).
    fn g2_json(p: &Self::G2Affine) -> [[String; 2]; 3];
    /// A G1 point from snarkjs' JSON coordinates (projective `x, y, z`).
    fn g1_from_json(c: &[&str; 3]) -> Option<Self::G1Affine>;
    /// A G2 point from snarkjs' JSON coordinates.
    fn g2_from_json(c: &[[&str; 2]; 3]) -> Option<Self::G2Affine>;
    /// Whether a G1 point is on the curve and in the prime-order subgroup.
    fn g1_valid(p: &Self::G1Affine) -> bool;
    /// Whether a G2 point is on the curve and in the prime-order subgroup.
    fn g2_valid(p: &Self::G2Affine) -> bool;
    /// `e(p, q)` as snarkjs' JSON (`vk_alphabeta_12`): the Fp12 tower as
    /// `[[[c0, c1] x 3] x 2]`.
    fn gt_json(p: &Self::G1Affine, q: &Self::G2Affine) -> Vec<Vec<[String; 2]>>;
}

/// Little-endian bytes to limbs; `None` if not below `modulus`.
fn limbs<const N: usize>(b: &[u8], modulus: &BigInt<N>) -> Option<BigInt<N>> {
    let mut l = [0u64; N];
    for (i, chunk) in b.chunks_exact(8).enumerate().take(N) {
        let mut a = [0u8; 8];
        a.copy_from_slice(chunk);
        l[i] = u64::from_le_bytes(a);
    }
    let v = BigInt::new(l);
    (v < *modulus).then_some(v)
}

/// A base-field element from its Montgomery form.
fn fp_from_mont<T: MontConfig<N>, const N: usize>(b: &[u8]) -> Option<Fp<MontBackend<T, N>, N>> {
    limbs(b, &T::MODULUS).map(Fp::new_unchecked)
}

/// Appends a base-field element's Montgomery form.
fn fp_to_mont<P: FpConfig<N>, const N: usize>(x: &Fp<P, N>, out: &mut Vec<u8>) {
    for l in x.0 .0 {
        out.extend_from_slice(&l.to_le_bytes());
    }
}

/// A prime-field element as a decimal string.
pub(crate) fn decimal<F: PrimeField>(x: &F) -> String {
    BigUint::from_bytes_le(&x.into_bigint().to_bytes_le()).to_string()
}

/// A prime-field element from a decimal string (canonical: below the
/// modulus).
pub(crate) fn from_decimal<F: PrimeField>(s: &str) -> Option<F> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let v: BigUint = s.parse().ok()?;
    let m = BigUint::from_bytes_le(&F::MODULUS.to_bytes_le());
    (v < m).then(|| F::from_le_bytes_mod_order(&v.to_bytes_le()))
}

/// A scalar from its plain little-endian bytes (`.wtns`, `.r1cs`); `None` if
/// not below the modulus.
pub(crate) fn fr_from_le<F: PrimeField<BigInt = BigInt<4>>>(b: &[u8]) -> Option<F> {
    limbs(b, &F::MODULUS).and_then(F::from_bigint)
}

/// Appends a scalar's plain little-endian bytes.
pub(crate) fn fr_to_le<F: PrimeField<BigInt = BigInt<4>>>(x: &F, out: &mut Vec<u8>) {
    out.extend_from_slice(&x.into_bigint().to_bytes_le());
}

fn affine_g1<P: SWCurveConfig>(x: P::BaseField, y: P::BaseField) -> Affine<P> {
    if x.is_zero() && y.is_zero() {
        Affine::identity()
    } else {
        Affine::new_unchecked(x, y)
    }
}

fn valid<P: SWCurveConfig>(p: &Affine<P>) -> bool {
    p.is_zero() || (p.is_on_curve() && p.is_in_correct_subgroup_assuming_on_curve())
}

/// Projective JSON coordinates `(x, y, z)` to an affine point: `z = 0` is
/// infinity, `z = 1` affine; other `z` are divided out.
fn json_point<F: Field>(x: F, y: F, z: F) -> Option<(F, F)> {
    if z.is_zero() {
        return Some((F::zero(), F::zero()));
    }
    let zi = z.inverse()?;
    Some((x * zi, y * zi))
}

fn fp2_from_mont<P: Fp2Config>(
    b: &[u8],
    base: fn(&[u8]) -> Option<P::Fp>,
    n8: usize,
) -> Option<Fp2<P>> {
    Some(Fp2::new(base(&b[..n8])?, base(&b[n8..2 * n8])?))
}

macro_rules! circom_curve {
    ($pairing:ty, $name:literal, $n8q:literal, $n:literal, $fq:ty, $fq2:ty, $g1:ty, $g2:ty, $fr:ty) => {
        impl CircomCurve for $pairing {
            type Fr = $fr;
            const NAME: &'static str = $name;
            const N8Q: usize = $n8q;

            fn q_le() -> Vec<u8> {
                <$fq as PrimeField>::MODULUS.to_bytes_le()
            }
            fn g1_from_mont(b: &[u8]) -> Option<$g1> {
                let x: $fq = fp_from_mont(&b[..$n8q])?;
                let y: $fq = fp_from_mont(&b[$n8q..2 * $n8q])?;
                Some(affine_g1(x, y))
            }
            fn g2_from_mont(b: &[u8]) -> Option<$g2> {
                let f = |b: &[u8]| -> Option<$fq> { fp_from_mont(b) };
                let x: $fq2 = fp2_from_mont(&b[..2 * $n8q], f, $n8q)?;
                let y: $fq2 = fp2_from_mont(&b[2 * $n8q..4 * $n8q], f, $n8q)?;
                Some(affine_g1(x, y))
            }
            fn fr_from_mont(b: &[u8]) -> Option<$fr> {
                fp_from_mont(b)
            }
            fn g1_to_mont(p: &$g1, out: &mut Vec<u8>) {
                let (x, y) = p.xy().unwrap_or_default();
                fp_to_mont(&x, out);
                fp_to_mont(&y, out);
            }
            fn g2_to_mont(p: &$g2, out: &mut Vec<u8>) {
                let (x, y) = p.xy().unwrap_or_default();
                for c in [x.c0, x.c1, y.c0, y.c1] {
                    fp_to_mont(&c, out);
                }
            }
            fn g1_json(p: &$g1) -> [String; 3] {
                match p.xy() {
                    Some((x, y)) => [decimal(&x), decimal(&y), "1".into()],
                    None => ["0".into(), "1".into(), "0".into()],
                }
            }
            fn g2_json(p: &$g2) -> [[String; 2]; 3] {
                match p.xy() {
                    Some((x, y)) => [
                        [decimal(&x.c0), decimal(&x.c1)],
                        [decimal(&y.c0), decimal(&y.c1)],
                        ["1".into(), "0".into()],
                    ],
                    None => [
                        ["0".into(), "0".into()],
                        ["1".into(), "0".into()],
                        ["0".into(), "0".into()],
                    ],
                }
            }
            fn g1_from_json(c: &[&str; 3]) -> Option<$g1> {
                let f = |s: &str| from_decimal::<$fq>(s);
                let (x, y) = json_point(f(c[0])?, f(c[1])?, f(c[2])?)?;
                Some(affine_g1(x, y))
            }
            fn g2_from_json(c: &[[&str; 2]; 3]) -> Option<$g2> {
                let f = |s: &[&str; 2]| -> Option<$fq2> {
                    Some(<$fq2>::new(from_decimal(s[0])?, from_decimal(s[1])?))
                };
                let (x, y) = json_point(f(&c[0])?, f(&c[1])?, f(&c[2])?)?;
                Some(affine_g1(x, y))
            }
            fn g1_valid(p: &$g1) -> bool {
                valid(p)
            }
            fn g2_valid(p: &$g2) -> bool {
                valid(p)
            }
            fn gt_json(p: &$g1, q: &$g2) -> Vec<Vec<[String; 2]>> {
                let gt = <$pairing as Pairing>::pairing(*p, *q).0;
                [gt.c0, gt.c1]
                    .iter()
                    .map(|f6| {
                        [f6.c0, f6.c1, f6.c2]
                            .iter()
                            .map(|f2| [decimal(&f2.c0), decimal(&f2.c1)])
                            .collect()
                    })
                    .collect()
            }
        }
    };
}

circom_curve!(
    ark_bn254::Bn254,
    "bn128",
    32,
    4,
    ark_bn254::Fq,
    ark_bn254::Fq2,
    ark_bn254::G1Affine,
    ark_bn254::G2Affine,
    ark_bn254::Fr
);
circom_curve!(
    ark_bls12_381::Bls12_381,
    "bls12381",
    48,
    6,
    ark_bls12_381::Fq,
    ark_bls12_381::Fq2,
    ark_bls12_381::G1Affine,
    ark_bls12_381::G2Affine,
    ark_bls12_381::Fr
);

/// The curves a zkey can be for, told apart by the base field's modulus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    /// BN254 (snarkjs `bn128`).
    Bn254,
    /// BLS12-381 (snarkjs `bls12381`).
    Bls12_381,
}

impl Curve {
    /// The curve whose base-field modulus is `q` (little-endian, without
    /// trailing zero bytes mattering).
    pub(crate) fn from_q(q: &[u8]) -> Option<Curve> {
        let trim = |b: &[u8]| -> Vec<u8> {
            let mut v = b.to_vec();
            while v.last() == Some(&0) {
                v.pop();
            }
            v
        };
        let q = trim(q);
        if q == trim(&ark_bn254::Bn254::q_le()) {
            Some(Curve::Bn254)
        } else if q == trim(&ark_bls12_381::Bls12_381::q_le()) {
            Some(Curve::Bls12_381)
        } else {
            None
        }
    }

    /// The curve snarkjs calls `name` (`"bn128"`, `"bls12381"`): the
    /// inverse of [`Curve::name`].
    pub fn from_name(name: &str) -> Option<Curve> {
        [Curve::Bn254, Curve::Bls12_381]
            .into_iter()
            .find(|c| c.name() == name)
    }

    /// snarkjs' name.
    pub fn name(self) -> &'static str {
        match self {
            Curve::Bn254 => "bn128",
            Curve::Bls12_381 => "bls12381",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Curve;

    #[test]
    fn snarkjs_names_map_back_to_their_curves() {
        assert_eq!(Curve::from_name("bn128"), Some(Curve::Bn254));
        assert_eq!(Curve::from_name("bls12381"), Some(Curve::Bls12_381));
        assert_eq!(Curve::from_name("bn254"), None);
        assert_eq!(Curve::from_name(""), None);
    }
}
