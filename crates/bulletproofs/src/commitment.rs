//! Pedersen commitments `v·H + r·G` in secp256k1-zkp's 33-byte encoding.
//!
//! The encoding is not SEC1's: the first byte is `0x08` when y is a square
//! mod p and `0x09` when it is not (`secp256k1_pedersen_commitment_save`),
//! followed by x in 32 big-endian bytes. Parsing refuses any other first
//! byte, an x at or above p and an x of no curve point, as
//! `secp256k1_pedersen_commitment_parse` does.

use crate::field::{fq_from_be, fq_to_be, fr_from_be, fr_to_be, is_quad, sqrt};
use crate::Error;
use ark_ec::{AffineRepr, CurveGroup};
use ark_secp256k1::{Affine, Fq, Fr};

/// The value generator `H` of Grin's commitments (secp256k1-zkp's
/// `secp256k1_generator_const_h`, Grin's `GENERATOR_H`): x and y, 32
/// big-endian bytes each.
pub const VALUE_GENERATOR: [u8; 64] = [
    0x50, 0x92, 0x9b, 0x74, 0xc1, 0xa0, 0x49, 0x54, 0xb7, 0x8b, 0x4b, 0x60, 0x35, 0xe9, 0x7a, 0x5e,
    0x07, 0x8a, 0x5a, 0x0f, 0x28, 0xec, 0x96, 0xd5, 0x47, 0xbf, 0xee, 0x9a, 0xce, 0x80, 0x3a, 0xc0,
    0x31, 0xd3, 0xc6, 0x86, 0x39, 0x73, 0x92, 0x6e, 0x04, 0x9e, 0x63, 0x7c, 0xb1, 0xb5, 0xf4, 0x0a,
    0x36, 0xda, 0xc2, 0x8a, 0xf1, 0x76, 0x69, 0x68, 0xc3, 0x0c, 0x23, 0x13, 0xf3, 0xa3, 0x89, 0x04,
];

/// The point [`VALUE_GENERATOR`] encodes.
pub(crate) fn value_generator() -> Affine {
    let mut x = [0u8; 32];
    let mut y = [0u8; 32];
    x.copy_from_slice(&VALUE_GENERATOR[..32]);
    y.copy_from_slice(&VALUE_GENERATOR[32..]);
    // Both coordinates are below p and the point is on the curve (tests).
    Affine::new_unchecked(
        fq_from_be(&x).unwrap_or_default(),
        fq_from_be(&y).unwrap_or_default(),
    )
}

/// A blinding factor: a scalar below the group order, read from and
/// written as 32 big-endian bytes (what the C API takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blinding(pub Fr);

impl Blinding {
    /// The scalar the bytes encode; at or above the group order is an
    /// error, as in `secp256k1_pedersen_commit`.
    pub fn from_be_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let b: &[u8; 32] = bytes.try_into().map_err(|_| Error::Length {
            what: "blinding factor",
            expected: 32,
            got: bytes.len(),
        })?;
        fr_from_be(b).map(Blinding).ok_or(Error::ScalarNotInGroup)
    }

    /// The 32 big-endian bytes.
    pub fn to_be_bytes(&self) -> [u8; 32] {
        fr_to_be(&self.0)
    }
}

/// A Pedersen commitment: a curve point other than infinity, and whether
/// its y is a square (what the encoding's first byte says, and what the
/// proofs' transcript hashes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commitment {
    point: Affine,
    y_square: bool,
}

impl Commitment {
    /// `value·H + blind·G` ([`VALUE_GENERATOR`] and the curve's generator),
    /// Grin's `Secp256k1::commit`. The point at infinity (value and blinding
    /// both zero) is an error, as in the C library.
    pub fn commit(value: u64, blind: &Blinding) -> Result<Self, Error> {
        let p = value_generator() * Fr::from(value) + Affine::generator() * blind.0;
        Self::from_point(p.into_affine())
    }

    /// A commitment to an arbitrary point; infinity is refused.
    pub fn from_point(p: Affine) -> Result<Self, Error> {
        if p.is_zero() {
            Err(Error::Infinity)
        } else {
            Ok(Commitment {
                point: p,
                y_square: is_quad(&p.y),
            })
        }
    }

    /// The point.
    pub fn point(&self) -> Affine {
        self.point
    }

    /// Whether the point's y is a square mod p (first byte `0x08`).
    pub fn y_is_square(&self) -> bool {
        self.y_square
    }

    /// Parses the 33-byte encoding.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, Error> {
        let b: &[u8; 33] = bytes.try_into().map_err(|_| Error::Length {
            what: "commitment",
            expected: 33,
            got: bytes.len(),
        })?;
        if b[0] & 0xfe != 0x08 {
            return Err(Error::CommitmentPrefix(b[0]));
        }
        let mut xb = [0u8; 32];
        xb.copy_from_slice(&b[1..]);
        let x = fq_from_be(&xb).ok_or(Error::CoordinateNotInField)?;
        let y = sqrt(&(x * x * x + Fq::from(7u64))).ok_or(Error::NotOnCurve)?;
        // The power root is itself a square: `0x08` takes it, `0x09` its
        // negation (secp256k1_ge_set_xquad, then the sign bit).
        let negated = b[0] & 1 == 1;
        let y = if negated { -y } else { y };
        Ok(Commitment {
            point: Affine::new_unchecked(x, y),
            y_square: !negated,
        })
    }

    /// The 33-byte encoding.
    pub fn to_bytes(&self) -> [u8; 33] {
        let mut out = [0u8; 33];
        out[0] = if self.y_square { 0x08 } else { 0x09 };
        out[1..].copy_from_slice(&fq_to_be(&self.point.x));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_generator_is_on_the_curve_and_not_g() {
        let h = value_generator();
        assert!(h.is_on_curve() && h.is_in_correct_subgroup_assuming_on_curve());
        assert_ne!(h, Affine::generator());
    }

    #[test]
    fn zero_commitment_is_refused() {
        let zero = Blinding(Fr::from(0u64));
        assert_eq!(Commitment::commit(0, &zero), Err(Error::Infinity));
        assert!(Commitment::commit(1, &zero).is_ok());
    }

    #[test]
    fn parse_refuses_bad_bytes() {
        let c = Commitment::commit(5, &Blinding(Fr::from(9u64))).unwrap();
        let b = c.to_bytes();
        assert_eq!(Commitment::from_bytes(&b), Ok(c));
        assert!(matches!(
            Commitment::from_bytes(&b[..32]),
            Err(Error::Length { got: 32, .. })
        ));
        for prefix in [0x00, 0x02, 0x03, 0x04, 0x0a, 0x88, 0xff] {
            let mut bad = b;
            bad[0] = prefix;
            assert_eq!(
                Commitment::from_bytes(&bad),
                Err(Error::CommitmentPrefix(prefix))
            );
        }
        let mut big = [0xffu8; 33];
        big[0] = 0x08;
        assert_eq!(
            Commitment::from_bytes(&big),
            Err(Error::CoordinateNotInField)
        );
        // Flipping the sign byte negates the point.
        let mut neg = b;
        neg[0] ^= 1;
        assert_eq!(Commitment::from_bytes(&neg).unwrap().point(), -c.point());
        // About half the x have no point: find one among small values.
        let off = (1u8..=255)
            .map(|v| {
                let mut e = [0u8; 33];
                e[0] = 0x08;
                e[32] = v;
                e
            })
            .find(|e| Commitment::from_bytes(e).is_err())
            .unwrap();
        assert_eq!(Commitment::from_bytes(&off), Err(Error::NotOnCurve));
    }
}
