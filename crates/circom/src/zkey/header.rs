//! A zkey's sections 1 and 2: the protocol (1 = Groth16; 2 plonk and 10
//! fflonk are refused) and the Groth16 header (`n8q, q, n8r, r, nVars,
//! nPublic, domainSize`, then alpha1, beta1, beta2, gamma2, delta1, delta2),
//! read into [`ZkeyHeader`] and [`HeaderPoints`]; with the file's magic and
//! protocol id, which the writer uses too.

use super::points::{g1, g2};
use crate::binfile::{Cursor, SeekFile};
use crate::curve::{CircomCurve, Curve};
use crate::error::{CircomError, FileKind};
use ark_ff::{BigInt, PrimeField};
use std::io::{Read, Seek};

/// The container's magic.
pub(super) const MAGIC: &[u8; 4] = b"zkey";
/// snarkjs' protocol ids in section 1.
pub(super) const GROTH16: u32 = 1;

/// The numbers of a Groth16 zkey's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZkeyHeader {
    /// The curve (from the base field's modulus).
    pub curve: Curve,
    /// Number of signals (wires), the leading one included.
    pub n_vars: usize,
    /// Number of public signals (outputs and public inputs), the leading
    /// one excluded.
    pub n_public: usize,
    /// The evaluation domain's size.
    pub domain_size: usize,
}

/// The points of section 2, in the order the file holds them.
pub(super) struct HeaderPoints<E: CircomCurve> {
    /// `alpha` in G1.
    pub(super) alpha_g1: E::G1Affine,
    /// `beta` in G1.
    pub(super) beta_g1: E::G1Affine,
    /// `beta` in G2.
    pub(super) beta_g2: E::G2Affine,
    /// `gamma` in G2.
    pub(super) gamma_g2: E::G2Affine,
    /// `delta` in G1.
    pub(super) delta_g1: E::G1Affine,
    /// `delta` in G2.
    pub(super) delta_g2: E::G2Affine,
}

/// Section 1: Groth16, or an error naming the protocol.
pub(super) fn protocol<R: Read + Seek>(file: &mut SeekFile<R>) -> Result<(), CircomError> {
    let b = file.read_whole(1, "protocol")?;
    let mut s = Cursor::new(&b, FileKind::Zkey, "protocol");
    let p = s.u32()?;
    s.finish()?;
    let name = match p {
        GROTH16 => return Ok(()),
        2 => "plonk",
        10 => "fflonk",
        _ => "unknown",
    };
    Err(CircomError::Unsupported {
        file: FileKind::Zkey,
        msg: format!("protocol {p} ({name}); only Groth16 (1) is proved here"),
    })
}

/// Section 2's first numbers: `n8q`, and the curve its base-field modulus
/// names.
fn base_field(h: &mut Cursor<'_>) -> Result<(usize, Curve), CircomError> {
    let n8q = h.u32()? as usize;
    let q = h.bytes(n8q)?;
    let curve = Curve::from_q(q).ok_or_else(|| CircomError::Unsupported {
        file: FileKind::Zkey,
        msg: "the header's base-field modulus is neither bn128's nor bls12381's".into(),
    })?;
    Ok((n8q, curve))
}

/// The curve that section 2 names (what
/// [`zkey_curve_from`](super::zkey_curve_from) reads: section 1, and
/// section 2 up to its base-field modulus).
pub(super) fn read_curve<R: Read + Seek>(file: &mut SeekFile<R>) -> Result<Curve, CircomError> {
    protocol(file)?;
    let hb = file.read_whole(2, "Groth16 header")?;
    let mut h = Cursor::new(&hb, FileKind::Zkey, "Groth16 header");
    base_field(&mut h).map(|(_, curve)| curve)
}

/// Section 2 for a prover of curve `E`: the numbers checked against `E`
/// and each other, the points decoded and, with `check`, checked on the
/// curve and in the subgroup.
pub(super) fn read_header<E: CircomCurve, R: Read + Seek>(
    file: &mut SeekFile<R>,
    check: bool,
) -> Result<(ZkeyHeader, HeaderPoints<E>), CircomError> {
    let hb = file.read_whole(2, "Groth16 header")?;
    let mut h = Cursor::new(&hb, FileKind::Zkey, "Groth16 header");
    let (n8q, curve) = base_field(&mut h)?;
    if curve.name() != E::NAME || n8q != E::N8Q {
        return Err(CircomError::Mismatch(format!(
            "the zkey is for {}, the prover for {}",
            curve.name(),
            E::NAME
        )));
    }
    let n8r = h.u32()? as usize;
    if n8r != E::N8R {
        return Err(h.err(format!("n8r is {n8r}, {} has {}", E::NAME, E::N8R)));
    }
    let r = h.bytes(n8r)?;
    if r != <E::Fr as PrimeField>::MODULUS.to_bytes_le_vec() {
        return Err(h.err(format!("the scalar modulus r is not {}'s", E::NAME)));
    }
    let n_vars = h.u32()? as usize;
    let n_public = h.u32()? as usize;
    let domain_size = h.u32()? as usize;
    // Checked: on 32-bit targets (wasm32) nPublic + 1 can overflow.
    if n_public.checked_add(1).is_none_or(|inputs| inputs > n_vars) {
        return Err(h.err(format!(
            "nVars = {n_vars} is less than nPublic + 1 = {}",
            n_public as u64 + 1
        )));
    }
    let two_adicity = <E::Fr as ark_ff::FftField>::TWO_ADICITY;
    if !domain_size.is_power_of_two() || domain_size.trailing_zeros() >= two_adicity {
        return Err(h.err(format!(
            "domainSize = {domain_size} is not a power of two below 2^{two_adicity}"
        )));
    }
    let (p1, p2) = (g1::<E>(check), g2::<E>(check));
    let points = HeaderPoints {
        alpha_g1: p1.header_point(&mut h, "alpha1")?,
        beta_g1: p1.header_point(&mut h, "beta1")?,
        beta_g2: p2.header_point(&mut h, "beta2")?,
        gamma_g2: p2.header_point(&mut h, "gamma2")?,
        delta_g1: p1.header_point(&mut h, "delta1")?,
        delta_g2: p2.header_point(&mut h, "delta2")?,
    };
    h.finish()?;
    let header = ZkeyHeader {
        curve,
        n_vars,
        n_public,
        domain_size,
    };
    Ok((header, points))
}

/// Little-endian bytes of a modulus.
pub(super) trait ToBytesLeVec {
    /// The bytes, least significant first.
    fn to_bytes_le_vec(&self) -> Vec<u8>;
}

impl ToBytesLeVec for BigInt<4> {
    fn to_bytes_le_vec(&self) -> Vec<u8> {
        ark_ff::BigInteger::to_bytes_le(self)
    }
}
