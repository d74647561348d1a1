//! Witness files (`.wtns`, version 2): section 1 `n8, prime, nWitness`,
//! section 2 the values, plain little-endian integers below the prime.

use crate::binfile::{BinFile, BinWriter};
use crate::curve::{fr_from_le, fr_to_le};
use crate::error::{CircomError, FileKind};
use ark_ff::{BigInt, BigInteger, PrimeField};
use rayon::prelude::*;

const MAGIC: &[u8; 4] = b"wtns";

/// Reads a witness of the field `F`: every value checked below the prime,
/// the prime checked to be `F`'s.
pub fn read_wtns<F: PrimeField<BigInt = BigInt<4>>>(bytes: &[u8]) -> Result<Vec<F>, CircomError> {
    let file = BinFile::parse(bytes, FileKind::Wtns, MAGIC, 2)?;
    let mut h = file.section(1, "header")?;
    let n8 = h.u32()? as usize;
    if n8 != 32 {
        return Err(CircomError::Mismatch(format!(
            "the witness has {n8}-byte values; this field's are 32 bytes"
        )));
    }
    let prime = h.bytes(n8)?;
    if prime != F::MODULUS.to_bytes_le() {
        return Err(CircomError::Mismatch(
            "the witness is for another prime than the key's scalar field (another curve?)".into(),
        ));
    }
    let n = h.u32()? as usize;
    h.finish()?;
    let mut d = file.section(2, "values")?;
    let data = d.rest_exactly(n * n8, &format!("{n} values of {n8} bytes"))?;
    let values: Vec<Option<F>> = data.par_chunks_exact(n8).map(fr_from_le).collect();
    if let Some(i) = values.iter().position(Option::is_none) {
        return Err(d.err(format!("value {i} is not below the prime")));
    }
    // Every value is there (checked above): an indexed parallel collect.
    Ok(values
        .into_par_iter()
        .map(Option::unwrap_or_default)
        .collect())
}

/// Writes a witness file snarkjs and rapidsnark read.
pub fn write_wtns<F: PrimeField<BigInt = BigInt<4>>>(values: &[F]) -> Vec<u8> {
    let mut w = BinWriter::new(MAGIC, 2, 2);
    let mut h = 32u32.to_le_bytes().to_vec();
    h.extend_from_slice(&F::MODULUS.to_bytes_le());
    h.extend_from_slice(&(values.len() as u32).to_le_bytes());
    w.section(1, &h);
    let mut body = Vec::with_capacity(values.len() * 32);
    values.iter().for_each(|v| fr_to_le(v, &mut body));
    w.section(2, &body);
    w.buf
}
