//! snarkjs `.zkey` files (Groth16): read into arkworks' [`ProvingKey`] plus
//! the constraint matrices A and B, and written from them.
//!
//! Sections: 1 protocol (1 = Groth16; 2 plonk and 10 fflonk are refused),
//! 2 header (`n8q, q, n8r, r, nVars, nPublic, domainSize`, then alpha1,
//! beta1, beta2, gamma2, delta1, delta2), 3 IC (`nPublic + 1` G1), 4 the
//! coefficients of A and B (`u32` count, then `matrix, constraint, signal:
//! u32` and the value times `R^2`), 5 A, 6 B1 (`nVars` G1 each), 7 B2
//! (`nVars` G2), 8 C (the L query, `nVars - nPublic - 1` G1), 9 H
//! (`domainSize` G1: the Lagrange basis on the odd `2n`-th roots, so the key
//! is for [`zkaccel_groth16::Qap::Circom`]), 10 the ceremony's
//! contributions (not read). Every length and section size is checked; the
//! points are decoded in parallel straight into arkworks' types.

use crate::binfile::{BinFile, BinWriter, Cursor};
use crate::curve::{fr_to_le, CircomCurve, Curve};
use crate::error::{CircomError, FileKind};
use ark_ff::{BigInt, Field, PrimeField};
use ark_groth16::{ProvingKey, VerifyingKey};
use ark_relations::gr1cs::Matrix;
use rayon::prelude::*;
use zkaccel_groth16::Qap;

const MAGIC: &[u8; 4] = b"zkey";
/// snarkjs' protocol ids in section 1.
const GROTH16: u32 = 1;

/// How much to trust a key's points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZkeyOptions {
    /// Check that every point is on its curve and in the prime-order
    /// subgroup (a few seconds at a million points; see SECURITY.md). Off,
    /// coordinates are still checked to be below the modulus.
    pub check_points: bool,
}

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

/// A decoded Groth16 zkey: arkworks' key, and the circuit's A and B
/// matrices as ark-circom gives them (the constraints only; the rows
/// snarkjs adds for the public inputs are checked and dropped, since the
/// witness map puts the inputs there itself).
pub struct Zkey<E: CircomCurve> {
    /// The header.
    pub header: ZkeyHeader,
    /// The proving key, with its verifying key.
    pub pk: ProvingKey<E>,
    /// A and B, `num_constraints` rows each (C is not in a zkey: the
    /// circom witness map takes `C z = A z * B z`).
    pub matrices: [Matrix<E::ScalarField>; 2],
    /// Number of constraints (without the public-input rows).
    pub num_constraints: usize,
}

impl<E: CircomCurve> core::fmt::Debug for Zkey<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Zkey")
            .field("header", &self.header)
            .field("num_constraints", &self.num_constraints)
            .finish_non_exhaustive()
    }
}

impl<E: CircomCurve> Zkey<E> {
    /// Number of instance variables: the public signals plus the leading
    /// one.
    pub fn num_inputs(&self) -> usize {
        self.header.n_public + 1
    }
}

/// Reads the curve named by a zkey's header, to choose the type to decode
/// it as.
pub fn zkey_curve(bytes: &[u8]) -> Result<Curve, CircomError> {
    let file = BinFile::parse(bytes, FileKind::Zkey, MAGIC, 1)?;
    protocol(&file)?;
    let mut h = file.section(2, "Groth16 header")?;
    let n8q = h.u32()? as usize;
    let q = h.bytes(n8q)?;
    Curve::from_q(q).ok_or_else(|| CircomError::Unsupported {
        file: FileKind::Zkey,
        msg: "the header's base-field modulus is neither bn128's nor bls12381's".into(),
    })
}

fn protocol(file: &BinFile<'_>) -> Result<(), CircomError> {
    let mut s = file.section(1, "protocol")?;
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

/// Decodes `count` points of `size` bytes from a section, in parallel.
fn points<T: Send>(
    c: &mut Cursor<'_>,
    count: usize,
    size: usize,
    what: &str,
    decode: impl Fn(&[u8]) -> Option<T> + Sync + Send,
    valid: Option<fn(&T) -> bool>,
) -> Result<Vec<T>, CircomError> {
    let bytes = count
        .checked_mul(size)
        .ok_or_else(|| c.err(format!("{count} {what} points overflow")))?;
    let data = c.rest_exactly(bytes, &format!("{count} {what} points of {size} bytes"))?;
    let out: Vec<Option<T>> = data
        .par_chunks_exact(size)
        .map(|b| decode(b).filter(|p| valid.is_none_or(|v| v(p))))
        .collect();
    if let Some(i) = out.iter().position(Option::is_none) {
        let why = if valid.is_some() {
            "a coordinate not below the modulus, or not on the curve or not in the subgroup"
        } else {
            "a coordinate not below the modulus"
        };
        return Err(c.err(format!("{what} point {i}: {why}")));
    }
    Ok(out.into_iter().flatten().collect())
}

/// One point of the header, `what` of group `group`: decoded and, where
/// `valid` is given, checked.
fn point<T>(
    c: &mut Cursor<'_>,
    size: usize,
    what: &str,
    group: &str,
    decode: impl Fn(&[u8]) -> Option<T>,
    valid: Option<fn(&T) -> bool>,
) -> Result<T, CircomError> {
    let b = c.bytes(size)?;
    decode(b)
        .filter(|p| valid.is_none_or(|v| v(p)))
        .ok_or_else(|| c.err(format!("{what} is not a valid {group} point")))
}

/// Reads a Groth16 zkey of curve `E` from its bytes.
pub fn read_zkey<E: CircomCurve>(bytes: &[u8], opts: ZkeyOptions) -> Result<Zkey<E>, CircomError> {
    let file = BinFile::parse(bytes, FileKind::Zkey, MAGIC, 1)?;
    protocol(&file)?;

    // Header.
    let mut h = file.section(2, "Groth16 header")?;
    let n8q = h.u32()? as usize;
    let q = h.bytes(n8q)?.to_vec();
    let curve = Curve::from_q(&q).ok_or_else(|| CircomError::Unsupported {
        file: FileKind::Zkey,
        msg: "the header's base-field modulus is neither bn128's nor bls12381's".into(),
    })?;
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
    if n_vars < n_public + 1 {
        return Err(h.err(format!(
            "nVars = {n_vars} is less than nPublic + 1 = {}",
            n_public + 1
        )));
    }
    let two_adicity = <E::Fr as ark_ff::FftField>::TWO_ADICITY;
    if !domain_size.is_power_of_two() || domain_size.trailing_zeros() >= two_adicity {
        return Err(h.err(format!(
            "domainSize = {domain_size} is not a power of two below 2^{two_adicity}"
        )));
    }
    let g1_size = 2 * E::N8Q;
    let g2_size = 4 * E::N8Q;
    let check = opts.check_points;
    let v1 = check.then_some(E::g1_valid as fn(&E::G1Affine) -> bool);
    let v2 = check.then_some(E::g2_valid as fn(&E::G2Affine) -> bool);
    let alpha_g1 = point(&mut h, g1_size, "alpha1", "G1", E::g1_from_mont, v1)?;
    let beta_g1 = point(&mut h, g1_size, "beta1", "G1", E::g1_from_mont, v1)?;
    let beta_g2 = point(&mut h, g2_size, "beta2", "G2", E::g2_from_mont, v2)?;
    let gamma_g2 = point(&mut h, g2_size, "gamma2", "G2", E::g2_from_mont, v2)?;
    let delta_g1 = point(&mut h, g1_size, "delta1", "G1", E::g1_from_mont, v1)?;
    let delta_g2 = point(&mut h, g2_size, "delta2", "G2", E::g2_from_mont, v2)?;
    h.finish()?;

    let header = ZkeyHeader {
        curve,
        n_vars,
        n_public,
        domain_size,
    };
    let g1 = |id: u32, name: &'static str, count: usize| -> Result<Vec<E::G1Affine>, CircomError> {
        let mut c = file.section(id, name)?;
        points(&mut c, count, g1_size, name, E::g1_from_mont, v1)
    };
    // The sections are independent: decode them side by side.
    let ((ic, (a, b1)), ((b2, l), (hq, coefs))) = rayon::join(
        || {
            rayon::join(
                || g1(3, "IC", n_public + 1),
                || rayon::join(|| g1(5, "PointsA", n_vars), || g1(6, "PointsB1", n_vars)),
            )
        },
        || {
            rayon::join(
                || {
                    rayon::join(
                        || {
                            let mut c = file.section(7, "PointsB2")?;
                            points(&mut c, n_vars, g2_size, "PointsB2", E::g2_from_mont, v2)
                        },
                        || g1(8, "PointsC", n_vars - n_public - 1),
                    )
                },
                || {
                    rayon::join(
                        || g1(9, "PointsH", domain_size),
                        || coefficients::<E>(&file, &header),
                    )
                },
            )
        },
    );
    let (matrices, num_constraints) = coefs?;
    let pk = ProvingKey {
        vk: VerifyingKey {
            alpha_g1,
            beta_g2,
            gamma_g2,
            delta_g2,
            gamma_abc_g1: ic?,
        },
        beta_g1,
        delta_g1,
        a_query: a?,
        b_g1_query: b1?,
        b_g2_query: b2?,
        h_query: hq?,
        l_query: l?,
    };
    Ok(Zkey {
        header,
        pk,
        matrices,
        num_constraints,
    })
}

/// `R^-2` in the scalar field (`R = 2^256`): the coefficients are stored
/// times `R^2`.
fn r2_inverse<F: PrimeField>() -> F {
    F::from(2u64)
        .pow([512u64])
        .inverse()
        .expect("2 is invertible in an odd prime field")
}

/// Section 4: the A and B coefficients, decoded in parallel; the
/// public-input rows snarkjs appends are checked and dropped.
#[allow(clippy::type_complexity)]
fn coefficients<E: CircomCurve>(
    file: &BinFile<'_>,
    header: &ZkeyHeader,
) -> Result<([Matrix<E::ScalarField>; 2], usize), CircomError> {
    let mut c = file.section(4, "Coefs")?;
    let count = c.u32()? as usize;
    let entry = 12 + E::N8R;
    let data = c.rest_exactly(
        count * entry,
        &format!("{count} coefficients of {entry} bytes"),
    )?;
    let r2_inv = r2_inverse::<E::Fr>();
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let decoded: Vec<Option<(u32, u32, u32, E::Fr)>> = data
        .par_chunks_exact(entry)
        .map(|b| {
            let (m, row, signal) = (u32_at(b, 0), u32_at(b, 4), u32_at(b, 8));
            let v = crate::curve::fr_from_le::<E::Fr>(&b[12..])? * r2_inv;
            (m <= 1 && (row as usize) < header.domain_size && (signal as usize) < header.n_vars)
                .then_some((m, row, signal, v))
        })
        .collect();
    if let Some(i) = decoded.iter().position(Option::is_none) {
        let b = &data[i * entry..(i + 1) * entry];
        return Err(c.err(format!(
            "coefficient {i} (matrix {}, constraint {}, signal {}): matrix not 0 or 1, constraint not below domainSize = {}, signal not below nVars = {}, or value not below r",
            u32_at(b, 0),
            u32_at(b, 4),
            u32_at(b, 8),
            header.domain_size,
            header.n_vars
        )));
    }
    let decoded: Vec<(u32, u32, u32, E::Fr)> = decoded.into_iter().flatten().collect();

    // snarkjs appends one row per public signal and the leading one:
    // A[nConstraints + s] = 1 * signal s, for s = 0..=nPublic. The last of
    // them is the largest row index.
    let n_public = header.n_public;
    let max_row = decoded.iter().map(|e| e.1 as usize).max().ok_or_else(|| {
        c.err("no coefficients (a snarkjs key has at least the public-input rows)")
    })?;
    let num_constraints = max_row.checked_sub(n_public).ok_or_else(|| {
        c.err(format!(
            "the largest constraint index {max_row} is below nPublic = {n_public}"
        ))
    })?;
    let expected_domain = (num_constraints + n_public + 1).next_power_of_two();
    if expected_domain != header.domain_size {
        return Err(c.err(format!(
            "{num_constraints} constraints and {} inputs need a domain of {expected_domain}, the header says {}",
            n_public + 1,
            header.domain_size
        )));
    }
    let mut a: Matrix<E::Fr> = vec![Vec::new(); num_constraints];
    let mut b: Matrix<E::Fr> = vec![Vec::new(); num_constraints];
    let mut input_rows = vec![false; n_public + 1];
    for (i, &(m, row, signal, v)) in decoded.iter().enumerate() {
        let row = row as usize;
        if row < num_constraints {
            let target = if m == 0 { &mut a } else { &mut b };
            target[row].push((v, signal as usize));
        } else {
            let s = row - num_constraints;
            if m != 0 || signal as usize != s || v != E::Fr::ONE || input_rows[s] {
                return Err(c.err(format!(
                    "coefficient {i}: row {row} is a public-input row, which must hold exactly A = 1 * signal {s} (found matrix {m}, signal {signal})"
                )));
            }
            input_rows[s] = true;
        }
    }
    if let Some(s) = input_rows.iter().position(|&seen| !seen) {
        return Err(c.err(format!(
            "the public-input row {} (signal {s}) is missing",
            num_constraints + s
        )));
    }
    Ok(([a, b], num_constraints))
}

/// Writes a Groth16 zkey that snarkjs and rapidsnark prove with, from an
/// arkworks key made for [`Qap::Circom`] (e.g. by
/// `ark_groth16::Groth16::<E, zkaccel_circom::CircomReduction>`'s setup)
/// and the circuit's A and B matrices (`num_constraints` rows each).
///
/// **Not for production**: the key's setup is the caller's (a key made by
/// arkworks' setup has a toxic waste the caller's RNG knew), and the
/// contributions section is empty, so `snarkjs zkey verify` rejects it.
/// For tests, benchmarks and exporting arkworks circuits to snarkjs.
pub fn write_zkey<E: CircomCurve>(
    pk: &ProvingKey<E>,
    matrices: &[Matrix<E::ScalarField>],
    num_constraints: usize,
) -> Result<Vec<u8>, CircomError> {
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
    if matrices.len() < 2 || matrices[..2].iter().any(|m| m.len() < num_constraints) {
        return Err(mismatch(format!(
            "A and B must have {num_constraints} rows each"
        )));
    }

    let mut w = BinWriter::new(MAGIC, 1, 10);
    w.section(1, &GROTH16.to_le_bytes());

    let mut h = Vec::new();
    h.extend_from_slice(&(E::N8Q as u32).to_le_bytes());
    h.extend_from_slice(&E::q_le());
    h.extend_from_slice(&(E::N8R as u32).to_le_bytes());
    h.extend_from_slice(&<E::Fr as PrimeField>::MODULUS.to_bytes_le_vec());
    for v in [n_vars, n_inputs - 1, domain_size] {
        h.extend_from_slice(&(v as u32).to_le_bytes());
    }
    E::g1_to_mont(&pk.vk.alpha_g1, &mut h);
    E::g1_to_mont(&pk.beta_g1, &mut h);
    E::g2_to_mont(&pk.vk.beta_g2, &mut h);
    E::g2_to_mont(&pk.vk.gamma_g2, &mut h);
    E::g1_to_mont(&pk.delta_g1, &mut h);
    E::g2_to_mont(&pk.vk.delta_g2, &mut h);
    w.section(2, &h);

    let g1s = |ps: &[E::G1Affine]| {
        let mut v = Vec::with_capacity(ps.len() * 2 * E::N8Q);
        ps.iter().for_each(|p| E::g1_to_mont(p, &mut v));
        v
    };
    w.section(3, &g1s(&pk.vk.gamma_abc_g1));

    let r2 = r2_inverse::<E::Fr>().inverse().expect("nonzero");
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
        for (row, lc) in matrix[..num_constraints].iter().enumerate() {
            for &(v, signal) in lc {
                if signal >= n_vars {
                    return Err(mismatch(format!(
                        "matrix {m} row {row} names signal {signal}, the key has {n_vars}"
                    )));
                }
                push(m as u32, row, signal, v);
            }
        }
    }
    for s in 0..n_inputs {
        push(0, num_constraints + s, s, E::Fr::ONE);
    }
    let mut body = count.to_le_bytes().to_vec();
    body.extend_from_slice(&coefs);
    w.section(4, &body);

    w.section(5, &g1s(&pk.a_query));
    w.section(6, &g1s(&pk.b_g1_query));
    let mut b2 = Vec::new();
    pk.b_g2_query.iter().for_each(|p| E::g2_to_mont(p, &mut b2));
    w.section(7, &b2);
    w.section(8, &g1s(&pk.l_query));
    w.section(9, &g1s(&pk.h_query));
    // Contributions: an all-zero circuit hash and none.
    let mut mpc = vec![0u8; 64];
    mpc.extend_from_slice(&0u32.to_le_bytes());
    w.section(10, &mpc);
    Ok(w.buf)
}

/// Little-endian bytes of a modulus.
trait ToBytesLeVec {
    fn to_bytes_le_vec(&self) -> Vec<u8>;
}

impl ToBytesLeVec for BigInt<4> {
    fn to_bytes_le_vec(&self) -> Vec<u8> {
        ark_ff::BigInteger::to_bytes_le(self)
    }
}
