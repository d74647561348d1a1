//! A proof's share of sums ([`ProofSums`]) as bytes, to cross from one
//! worker's WebAssembly instance to another's: for each of `h`, `l`, `a`,
//! `b1` (G1) and `b2` (G2) a byte, 0 (absent) or 1, then the point in
//! affine form, arkworks' uncompressed encoding; a present `h` is followed
//! by its terms' range, start and end as 8 bytes each (little-endian).
//! Reading checks every point on its curve and in its subgroup, the range
//! and the length. [`split_shares`] cuts a list of shares, each preceded
//! by its length, into the shares.
//!
//! The quotient's scalars cross the same way ([`scalars_to_bytes`]): each
//! field element in arkworks' uncompressed encoding (little-endian, below
//! the modulus), one after another.

use ark_ec::CurveGroup;
use ark_ff::PrimeField;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use zkaccel_circom::CircomCurve;
use zkaccel_groth16::ProofSums;

fn put<P: CanonicalSerialize>(out: &mut Vec<u8>, p: Option<P>) {
    match p {
        None => out.push(0),
        Some(p) => {
            out.push(1);
            p.serialize_uncompressed(&mut *out)
                .expect("writing to a Vec does not fail");
        }
    }
}

fn get<P: CanonicalDeserialize>(r: &mut &[u8], what: &str) -> Result<Option<P>, String> {
    let (&flag, rest) = r.split_first().ok_or(format!("{what}: truncated"))?;
    *r = rest;
    match flag {
        0 => Ok(None),
        1 => P::deserialize_uncompressed(&mut *r)
            .map(Some)
            .map_err(|e| format!("{what}: {e}")),
        f => Err(format!("{what}: flag {f}, not 0 or 1")),
    }
}

/// The bytes of a share.
pub fn to_bytes<E: CircomCurve>(s: &ProofSums<E>) -> Vec<u8> {
    let mut out = Vec::new();
    put(&mut out, s.h.map(|p| p.into_affine()));
    if s.h.is_some() {
        for t in [s.h_terms.0, s.h_terms.1] {
            out.extend_from_slice(&(t as u64).to_le_bytes());
        }
    }
    for p in [s.l, s.a, s.b1] {
        put(&mut out, p.map(|p| p.into_affine()));
    }
    put(&mut out, s.b2.map(|p| p.into_affine()));
    out
}

/// A share from its bytes; an error names the sum at fault.
pub fn from_bytes<E: CircomCurve>(mut b: &[u8]) -> Result<ProofSums<E>, String> {
    let r = &mut b;
    let g1 = |r: &mut &[u8], what| get::<E::G1Affine>(r, what).map(|p| p.map(Into::into));
    let h = g1(r, "h")?;
    let mut h_terms = (0, 0);
    if h.is_some() {
        let mut term = |what| -> Result<usize, String> {
            let (b, rest) = r
                .split_first_chunk::<8>()
                .ok_or(format!("h: its range's {what} truncated"))?;
            *r = rest;
            usize::try_from(u64::from_le_bytes(*b))
                .map_err(|_| format!("h: its range's {what} is too large"))
        };
        h_terms = (term("start")?, term("end")?);
        if h_terms.0 > h_terms.1 {
            return Err(format!(
                "h: its range {}..{} ends before it starts",
                h_terms.0, h_terms.1
            ));
        }
    }
    let sums = ProofSums {
        h,
        h_terms,
        l: g1(r, "l")?,
        a: g1(r, "a")?,
        b1: g1(r, "b1")?,
        b2: get::<E::G2Affine>(r, "b2")?.map(Into::into),
    };
    match r.len() {
        0 => Ok(sums),
        n => Err(format!("{n} bytes after the sums")),
    }
}

/// The shares of a list where each is preceded by its length as 4 bytes
/// (little-endian); an error names the share at fault.
pub fn split_shares(mut b: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let i = out.len();
        let (len, rest) = b
            .split_first_chunk::<4>()
            .ok_or(format!("share {i}: its length truncated"))?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            return Err(format!(
                "share {i}: {len} bytes announced, {} left",
                rest.len()
            ));
        }
        let (share, rest) = rest.split_at(len);
        out.push(share);
        b = rest;
    }
    Ok(out)
}

/// Field elements as bytes, each in arkworks' uncompressed encoding.
pub fn scalars_to_bytes<F: PrimeField>(scalars: &[F]) -> Vec<u8> {
    let mut out = Vec::with_capacity(scalars.len() * F::ZERO.uncompressed_size());
    for s in scalars {
        s.serialize_uncompressed(&mut out)
            .expect("writing to a Vec does not fail");
    }
    out
}

/// Field elements from [`scalars_to_bytes`]' bytes; an error names the
/// first element at fault (a value at or above the modulus) or the length.
pub fn scalars_from_bytes<F: PrimeField>(b: &[u8]) -> Result<Vec<F>, String> {
    let size = F::ZERO.uncompressed_size();
    if !b.len().is_multiple_of(size) {
        return Err(format!(
            "{} bytes of scalars: not a whole number of {size}-byte elements",
            b.len()
        ));
    }
    b.chunks_exact(size)
        .enumerate()
        .map(|(i, mut c)| {
            F::deserialize_uncompressed(&mut c)
                .map_err(|e| format!("scalar {i}: {e} (not below the field's modulus)"))
        })
        .collect()
}
