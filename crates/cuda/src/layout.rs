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

#[cfg(feature = "cuda")]
// SAFETY: plain arrays of u32, no pointers or padding.
unsafe impl cust::memory::DeviceCopy for DeviceAffine {}
#[cfg(feature = "cuda")]
// SAFETY: as above.
unsafe impl cust::memory::DeviceCopy for DeviceJacobian {}
#[cfg(feature = "cuda")]
// SAFETY: as above.
unsafe impl cust::memory::DeviceCopy for DeviceXyzz {}

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
    pub fn to_ark(&self) -> Option<G1Projective> {
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
