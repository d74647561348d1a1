//! circom's constraint systems (`.r1cs`, version 1): section 1 the header
//! (`n8, prime, nWires, nPubOut, nPubIn, nPrvIn, nLabels: u64,
//! mConstraints`), section 2 the constraints (for each, A, B and C as a
//! `u32` count of `(wire: u32, coefficient)` pairs, coefficients plain
//! little-endian), section 3 the wire-to-label map (not read). Files with
//! custom gates (sections 4 and 5, PLONK only) are refused.

use crate::binfile::BinFile;
use crate::curve::fr_from_le;
use crate::error::{CircomError, FileKind};
use ark_ff::{BigInt, BigInteger, PrimeField};
use rayon::prelude::*;

const MAGIC: &[u8; 4] = b"r1cs";

/// A linear combination: `(wire, coefficient)` pairs.
pub type Lc<F> = Vec<(usize, F)>;

/// A circom constraint system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct R1cs<F> {
    /// Number of wires, the leading one included.
    pub n_wires: usize,
    /// Public outputs.
    pub n_pub_out: usize,
    /// Public inputs.
    pub n_pub_in: usize,
    /// Private inputs.
    pub n_prv_in: usize,
    /// The constraints `A z * B z = C z`.
    pub constraints: Vec<[Lc<F>; 3]>,
}

impl<F: PrimeField> R1cs<F> {
    /// Number of public signals (outputs and public inputs).
    pub fn n_public(&self) -> usize {
        self.n_pub_out + self.n_pub_in
    }

    /// Checks that `witness` satisfies every constraint; the error names the
    /// first (0-based) that it violates.
    pub fn check_witness(&self, witness: &[F]) -> Result<(), CircomError> {
        if witness.len() != self.n_wires {
            return Err(CircomError::Mismatch(format!(
                "the witness has {} values, the r1cs {} wires",
                witness.len(),
                self.n_wires
            )));
        }
        let eval = |lc: &Lc<F>| lc.iter().map(|&(w, c)| c * witness[w]).sum::<F>();
        let bad = self
            .constraints
            .par_iter()
            .position_first(|[a, b, c]| eval(a) * eval(b) != eval(c));
        match bad {
            Some(constraint) => Err(CircomError::Unsatisfied { constraint }),
            None => Ok(()),
        }
    }
}

/// Reads a `.r1cs` file of the field `F`; every wire index is checked below
/// `nWires`, every coefficient below the prime.
pub fn read_r1cs<F: PrimeField<BigInt = BigInt<4>>>(bytes: &[u8]) -> Result<R1cs<F>, CircomError> {
    let file = BinFile::parse(bytes, FileKind::R1cs, MAGIC, 1)?;
    if file.has(4) || file.has(5) {
        return Err(CircomError::Unsupported {
            file: FileKind::R1cs,
            msg: "custom gates (a PLONK circuit); Groth16 needs plain constraints".into(),
        });
    }
    let mut h = file.section(1, "header")?;
    let n8 = h.u32()? as usize;
    if n8 != 32 {
        return Err(CircomError::Mismatch(format!(
            "the r1cs has {n8}-byte values; this field's are 32 bytes"
        )));
    }
    if h.bytes(n8)? != F::MODULUS.to_bytes_le() {
        return Err(CircomError::Mismatch(
            "the r1cs is for another prime than the key's scalar field".into(),
        ));
    }
    let n_wires = h.u32()? as usize;
    let n_pub_out = h.u32()? as usize;
    let n_pub_in = h.u32()? as usize;
    let n_prv_in = h.u32()? as usize;
    let _labels = h.u64()?;
    let m = h.u32()? as usize;
    h.finish()?;
    if n_wires < 1 + n_pub_out + n_pub_in + n_prv_in {
        return Err(h.err(format!(
            "nWires = {n_wires} is less than 1 + the {} inputs and outputs",
            n_pub_out + n_pub_in + n_prv_in
        )));
    }
    let mut c = file.section(2, "constraints")?;
    // Each constraint takes at least its three 4-byte counts, so the
    // section's length bounds what a header may make us reserve.
    let mut constraints = Vec::with_capacity(m.min(c.left() / 12));
    for i in 0..m {
        let mut lc3: [Lc<F>; 3] = Default::default();
        for (k, lc) in lc3.iter_mut().enumerate() {
            let n = c.u32()? as usize;
            for t in 0..n {
                let wire = c.u32()? as usize;
                let v = fr_from_le::<F>(c.bytes(n8)?);
                match v {
                    Some(v) if wire < n_wires => lc.push((wire, v)),
                    _ => {
                        return Err(c.err(format!(
                            "constraint {i}, {} term {t}: wire {wire} not below nWires = {n_wires}, or coefficient not below the prime",
                            ["A", "B", "C"][k]
                        )))
                    }
                }
            }
        }
        constraints.push(lc3);
    }
    c.finish()?;
    Ok(R1cs {
        n_wires,
        n_pub_out,
        n_pub_in,
        n_prv_in,
        constraints,
    })
}
