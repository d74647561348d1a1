//! A proof's share of sums ([`ProofSums`]) as bytes, to cross from one
//! worker's WebAssembly instance to another's: for each of `h`, `l`, `a`,
//! `b1` (G1) and `b2` (G2) a byte, 0 (absent) or 1, then the point in
//! affine form, arkworks' uncompressed encoding. Reading checks every
//! point on its curve and in its subgroup, and the length.

use ark_ec::CurveGroup;
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
    for p in [s.h, s.l, s.a, s.b1] {
        put(&mut out, p.map(|p| p.into_affine()));
    }
    put(&mut out, s.b2.map(|p| p.into_affine()));
    out
}

/// A share from its bytes; an error names the sum at fault.
pub fn from_bytes<E: CircomCurve>(mut b: &[u8]) -> Result<ProofSums<E>, String> {
    let r = &mut b;
    let g1 = |r: &mut &[u8], what| get::<E::G1Affine>(r, what).map(|p| p.map(Into::into));
    let sums = ProofSums {
        h: g1(r, "h")?,
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
