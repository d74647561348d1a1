//! The kernels' data layout: points and scalars as little-endian 32-bit
//! limbs, field elements in Montgomery form (the integers arkworks stores,
//! split into halves), so crossing to the device is a copy.
//!
//! | type | limbs | content |
//! |---|---|---|
//! | [`DeviceAffine`] | 16 | x, y; `(0, 0)` is the point at infinity |
//! | [`DeviceJacobian`] | 24 | X, Y, Z (arkworks' `Projective`); `Z = 0` is infinity |
//! | [`DeviceXyzz`] | 32 | X, Y, ZZ, ZZZ; `ZZ = 0` is infinity |
//! | scalar | 8 | an integer below 2^256, or an Fr in Montgomery form |

use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ec::AffineRepr;
use ark_ff::{BigInt, PrimeField, Zero};

/// An affine BN254 G1 point as the kernels read it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DeviceAffine(pub [u32; 16]);

/// A Jacobian BN254 G1 point as the kernels write it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DeviceJacobian(pub [u32; 24]);

/// An XYZZ BN254 G1 point (bucket representation).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DeviceXyzz(pub [u32; 32]);

/// The 8 limbs of a 4 x 64-bit integer.
pub fn limbs32(x: &[u64; 4]) -> [u32; 8] {
    let mut out = [0u32; 8];
    for (i, w) in x.iter().enumerate() {
        out[2 * i] = *w as u32;
        out[2 * i + 1] = (*w >> 32) as u32;
    }
    out
}

/// The 4 x 64-bit integer of 8 limbs.
pub fn limbs64(x: &[u32]) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (i, w) in out.iter_mut().enumerate() {
        *w = x[2 * i] as u64 | ((x[2 * i + 1] as u64) << 32);
    }
    out
}

/// An Fq's Montgomery limbs.
pub fn fq_limbs(x: &Fq) -> [u32; 8] {
    limbs32(&x.0 .0)
}

/// The Fq of Montgomery limbs, or `None` unless they are below the modulus.
pub fn fq_from_limbs(x: &[u32]) -> Option<Fq> {
    let b = BigInt::new(limbs64(x));
    (b < Fq::MODULUS).then(|| Fq::new_unchecked(b))
}

/// An Fr's Montgomery limbs (what `zk_fr_from_montgomery` reads).
pub fn fr_limbs(x: &Fr) -> [u32; 8] {
    limbs32(&x.0 .0)
}

/// The Fr of Montgomery limbs, or `None` unless they are below the modulus.
pub fn fr_from_limbs(x: &[u32]) -> Option<Fr> {
    let b = BigInt::new(limbs64(x));
    (b < Fr::MODULUS).then(|| Fr::new_unchecked(b))
}

impl DeviceAffine {
    /// The kernels' form of `p`.
    pub fn from_ark(p: &G1Affine) -> Self {
        let mut out = [0u32; 16];
        if let Some((x, y)) = p.xy() {
            out[..8].copy_from_slice(&fq_limbs(&x));
            out[8..].copy_from_slice(&fq_limbs(&y));
        }
        DeviceAffine(out)
    }
}

impl DeviceJacobian {
    /// The kernels' form of `p` (arkworks' own Jacobian coordinates).
    pub fn from_ark(p: &G1Projective) -> Self {
        let mut out = [0u32; 24];
        if p.z.is_zero() {
            // Z = 0 is infinity; X = Y = 1 as the kernels write it.
            out[..8].copy_from_slice(&fq_limbs(&Fq::from(1u64)));
            out[8..16].copy_from_slice(&fq_limbs(&Fq::from(1u64)));
        } else {
            out[..8].copy_from_slice(&fq_limbs(&p.x));
            out[8..16].copy_from_slice(&fq_limbs(&p.y));
            out[16..].copy_from_slice(&fq_limbs(&p.z));
        }
        DeviceJacobian(out)
    }

    /// The arkworks point, or `None` if a coordinate is out of range.
    /// (Whether it is on the curve is the caller's check: MSM results are
    /// compared, or validated by [`G1Projective`]'s own arithmetic.)
    pub fn to_ark(self) -> Option<G1Projective> {
        let x = fq_from_limbs(&self.0[..8])?;
        let y = fq_from_limbs(&self.0[8..16])?;
        let z = fq_from_limbs(&self.0[16..])?;
        if z.is_zero() {
            return Some(G1Projective::zero());
        }
        Some(G1Projective::new_unchecked(x, y, z))
    }
}

/// The integer limbs of a scalar given as an arkworks big integer.
pub fn scalar_limbs(k: &BigInt<4>) -> [u32; 8] {
    limbs32(&k.0)
}

/// `xs` as the kernels' 8-limb words without a copy, where the platform
/// stores `T` as exactly those words (little-endian, 32 bytes, no padding):
/// checked on `probe`, a value whose words are `probe_limbs`. `None` where
/// it does not (the caller converts instead).
fn as_limbs<'a, T>(xs: &'a [T], probe: &T, probe_limbs: &[u32; 8]) -> Option<&'a [[u32; 8]]> {
    if std::mem::size_of::<T>() != 32 || std::mem::align_of::<T>() < std::mem::align_of::<u32>() {
        return None;
    }
    // SAFETY: `probe` is a live value of 32 bytes, readable as 8 u32 (its
    // alignment is at least u32's).
    let words = unsafe { &*(probe as *const T as *const [u32; 8]) };
    if words != probe_limbs {
        return None;
    }
    // SAFETY: same size and an alignment at least u32's, checked above; the
    // probe shows that the bytes of a T are its limbs in this order, and
    // every bit pattern is a valid [u32; 8].
    Some(unsafe { std::slice::from_raw_parts(xs.as_ptr() as *const [u32; 8], xs.len()) })
}

const PROBE: [u64; 4] = [
    0x0706_0504_0302_0100,
    0x0f0e_0d0c_0b0a_0908,
    0x1716_1514_1312_1110,
    0x1f1e_1d1c_1b1a_1918,
];

/// Field scalars as their Montgomery limbs (what [`fr_limbs`] gives each),
/// without a copy where arkworks' layout allows (it does on little-endian
/// targets); `None` otherwise.
pub fn fr_slice_limbs(xs: &[Fr]) -> Option<&[[u32; 8]]> {
    // The probe need not be a reduced field element: only its bytes matter.
    as_limbs(xs, &Fr::new_unchecked(BigInt::new(PROBE)), &limbs32(&PROBE))
}

/// [`fr_slice_limbs`] for writing: the kernels' output copied straight into
/// arkworks' field elements. The caller must check every element is below
/// the modulus before using them as field elements.
pub fn fr_slice_limbs_mut(xs: &mut [Fr]) -> Option<&mut [[u32; 8]]> {
    let n = xs.len();
    fr_slice_limbs(xs)?;
    // SAFETY: fr_slice_limbs checked that Fr is exactly its 8 limbs; the
    // borrow of `xs` is exclusive and lasts as long as the result.
    Some(unsafe { std::slice::from_raw_parts_mut(xs.as_mut_ptr() as *mut [u32; 8], n) })
}

/// Integer scalars as their limbs (what [`scalar_limbs`] gives each),
/// without a copy where the layout allows; `None` otherwise.
pub fn bigint_slice_limbs(xs: &[BigInt<4>]) -> Option<&[[u32; 8]]> {
    as_limbs(xs, &BigInt::new(PROBE), &limbs32(&PROBE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::UniformRand;
    use rand::SeedableRng;

    #[test]
    fn zero_copy_views_equal_the_conversions() {
        let mut r = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let xs: Vec<Fr> = (0..100).map(|_| Fr::rand(&mut r)).collect();
        let ints: Vec<BigInt<4>> = xs.iter().map(|x| x.into_bigint()).collect();
        // On the little-endian targets zkaccel builds for, both views exist.
        let v = fr_slice_limbs(&xs).expect("arkworks' Fr layout is its limbs");
        let w = bigint_slice_limbs(&ints).expect("BigInt's layout is its limbs");
        for i in 0..xs.len() {
            assert_eq!(v[i], fr_limbs(&xs[i]));
            assert_eq!(w[i], scalar_limbs(&ints[i]));
        }
        assert!(fr_slice_limbs(&[]).unwrap().is_empty());
    }
}
