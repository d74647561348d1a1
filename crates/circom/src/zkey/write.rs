//! [`write_zkey`]: a Groth16 zkey written from an arkworks key and the
//! circuit's A and B matrices, section by section as snarkjs writes them
//! (contributions left empty).

use super::coefficients::r_inverse;
use super::header::{ToBytesLeVec, GROTH16, MAGIC};
use crate::binfile::BinWriter;
use crate::curve::{fr_to_le, CircomCurve};
use crate::error::{CircomError, FileKind};
use ark_ff::{Field, PrimeField};
use ark_groth16::ProvingKey;
use zkaccel_groth16::{ConstraintMatrix, Qap};

/// Writes a Groth16 zkey that snarkjs and rapidsnark prove with, from an
/// arkworks key made for [`Qap::Circom`] (e.g. by
/// `ark_groth16::Groth16::<E, zkaccel_circom::CircomReduction>`'s setup)
/// and the circuit's A and B matrices (`num_constraints` rows each).
///
/// **Not for production**: the key's setup is the caller's (a key made by
/// arkworks' setup has a toxic waste the caller's RNG knew), and the
/// contributions section is empty, so `snarkjs zkey verify` rejects it.
/// For tests, benchmarks and exporting arkworks circuits to snarkjs.
pub fn write_zkey<E: CircomCurve, M: ConstraintMatrix<E::ScalarField>>(
    pk: &ProvingKey<E>,
    matrices: &[M],
    num_constraints: usize,
) -> Result<Vec<u8>, CircomError> {
    let sizes = check_key(pk, matrices, num_constraints)?;
    let mut w = BinWriter::new(MAGIC, 1, 10);
    w.section(1, &GROTH16.to_le_bytes());
    w.section(2, &header_section(pk, &sizes));
    w.section(3, &g1_section::<E>(&pk.vk.gamma_abc_g1));
    w.section(4, &coefficient_section::<E, M>(matrices, &sizes)?);
    w.section(5, &g1_section::<E>(&pk.a_query));
    w.section(6, &g1_section::<E>(&pk.b_g1_query));
    let mut b2 = Vec::new();
    pk.b_g2_query.iter().for_each(|p| E::g2_to_mont(p, &mut b2));
    w.section(7, &b2);
    w.section(8, &g1_section::<E>(&pk.l_query));
    w.section(9, &g1_section::<E>(&pk.h_query));
    // Contributions: an all-zero circuit hash and none.
    let mut mpc = vec![0u8; 64];
    mpc.extend_from_slice(&0u32.to_le_bytes());
    w.section(10, &mpc);
    Ok(w.buf)
}

/// The sizes of the key [`write_zkey`] writes.
struct Sizes {
    /// Instance variables: the public signals plus the leading one.
    n_inputs: usize,
    /// Signals (the key's A query's length).
    n_vars: usize,
    /// Constraints, without the public-input rows.
    num_constraints: usize,
    /// The evaluation domain's size.
    domain_size: usize,
}

/// Whether a key with `matrices` can be written as a zkey snarkjs proves
/// with (a bn128 key for [`Qap::Circom`], every query and matrix of the
/// length the others give); its sizes.
fn check_key<E: CircomCurve, M: ConstraintMatrix<E::ScalarField>>(
    pk: &ProvingKey<E>,
    matrices: &[M],
    num_constraints: usize,
) -> Result<Sizes, CircomError> {
    let n_inputs = pk.vk.gamma_abc_g1.len();
    let n_vars = pk.a_query.len();
    let mismatch = |m: String| CircomError::Mismatch(m);
    if zkaccel_groth16::snarkjs_root_exponent::<E::Fr>() != 1 {
        // arkworks' setup orders the domain by its own root of unity, snarkjs
        // by another on this curve: snarkjs would prove such a key wrongly.
        return Err(CircomError::Unsupported {
            file: FileKind::Zkey,
            msg: format!(
                "exporting {} keys: arkworks' setup and snarkjs use different roots of unity on this curve (only bn128 keys can be exported)",
                E::NAME
            ),
        });
    }
    if n_inputs == 0 || n_vars < n_inputs {
        return Err(mismatch(format!(
            "the key has {n_inputs} inputs and {n_vars} variables"
        )));
    }
    let domain_size = (num_constraints + n_inputs).next_power_of_two();
    if pk.h_query.len() != Qap::Circom.h_query_len(domain_size) {
        return Err(mismatch(format!(
            "the key's H query has {} points, a circom key for {num_constraints} constraints and {n_inputs} inputs has {domain_size}{}",
            pk.h_query.len(),
            if pk.h_query.len() + 1 == domain_size {
                " (this key was made for the libsnark reduction: set it up with CircomReduction)"
            } else {
                ""
            }
        )));
    }
    for (what, len, want) in [
        ("b_g1_query", pk.b_g1_query.len(), n_vars),
        ("b_g2_query", pk.b_g2_query.len(), n_vars),
        ("l_query", pk.l_query.len(), n_vars - n_inputs),
    ] {
        if len != want {
            return Err(mismatch(format!(
                "the key's {what} has {len} points, expected {want}"
            )));
        }
    }
    if matrices.len() < 2 || matrices[..2].iter().any(|m| m.num_rows() < num_constraints) {
        return Err(mismatch(format!(
            "A and B must have {num_constraints} rows each"
        )));
    }
    Ok(Sizes {
        n_inputs,
        n_vars,
        num_constraints,
        domain_size,
    })
}

/// Section 2: the moduli, the sizes, and the key's points alpha1, beta1,
/// beta2, gamma2, delta1, delta2.
fn header_section<E: CircomCurve>(pk: &ProvingKey<E>, sizes: &Sizes) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&(E::N8Q as u32).to_le_bytes());
    h.extend_from_slice(&E::q_le());
    h.extend_from_slice(&(E::N8R as u32).to_le_bytes());
    h.extend_from_slice(&<E::Fr as PrimeField>::MODULUS.to_bytes_le_vec());
    for v in [sizes.n_vars, sizes.n_inputs - 1, sizes.domain_size] {
        h.extend_from_slice(&(v as u32).to_le_bytes());
    }
    E::g1_to_mont(&pk.vk.alpha_g1, &mut h);
    E::g1_to_mont(&pk.beta_g1, &mut h);
    E::g2_to_mont(&pk.vk.beta_g2, &mut h);
    E::g2_to_mont(&pk.vk.gamma_g2, &mut h);
    E::g1_to_mont(&pk.delta_g1, &mut h);
    E::g2_to_mont(&pk.vk.delta_g2, &mut h);
    h
}

/// A section of G1 points.
fn g1_section<E: CircomCurve>(ps: &[E::G1Affine]) -> Vec<u8> {
    let mut v = Vec::with_capacity(ps.len() * 2 * E::N8Q);
    ps.iter().for_each(|p| E::g1_to_mont(p, &mut v));
    v
}

/// Section 4: the entries of A and B in the constraint rows, matrix by
/// matrix, then the public-input rows snarkjs appends (`A[n + s] = 1 *
/// signal s`); each value stored as the integer `v R^2`.
fn coefficient_section<E: CircomCurve, M: ConstraintMatrix<E::ScalarField>>(
    matrices: &[M],
    sizes: &Sizes,
) -> Result<Vec<u8>, CircomError> {
    let Sizes {
        n_inputs,
        n_vars,
        num_constraints,
        ..
    } = *sizes;
    let r_inv = r_inverse::<E::Fr>();
    let r2 = (r_inv * r_inv).inverse().expect("nonzero");
    let mut coefs = Vec::new();
    let mut count = 0u32;
    let mut push = |m: u32, row: usize, signal: usize, v: E::Fr| {
        coefs.extend_from_slice(&m.to_le_bytes());
        coefs.extend_from_slice(&(row as u32).to_le_bytes());
        coefs.extend_from_slice(&(signal as u32).to_le_bytes());
        fr_to_le(&(v * r2), &mut coefs);
        count += 1;
    };
    for (m, matrix) in matrices[..2].iter().enumerate() {
        for row in 0..num_constraints {
            let mut bad = None;
            matrix.for_each_in_row(row, |v, signal| {
                if signal >= n_vars {
                    bad.get_or_insert(signal);
                } else {
                    push(m as u32, row, signal, v);
                }
            });
            if let Some(signal) = bad {
                return Err(CircomError::Mismatch(format!(
                    "matrix {m} row {row} names signal {signal}, the key has {n_vars}"
                )));
            }
        }
    }
    for s in 0..n_inputs {
        push(0, num_constraints + s, s, E::Fr::ONE);
    }
    let mut body = count.to_le_bytes().to_vec();
    body.extend_from_slice(&coefs);
    Ok(body)
}
