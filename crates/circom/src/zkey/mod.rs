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
//! contributions (not read). Every length and section size is checked.
//! The file is read a section at a time, the large sections in chunks of a
//! few megabytes, each chunk decoded in parallel straight into arkworks'
//! types; A and B become compressed rows ([`CsrMatrix`]). So a key is
//! never in memory twice: at 2^20 constraints the prover's peak is that of
//! rapidsnark, which uses its mapped key in place.

mod header;
mod points;

pub use header::ZkeyHeader;

use crate::binfile::{BinWriter, SeekFile};
use crate::coefs::{constraints_of, entry_ids, ids_in_range, mapped_coefficients, msg, KeyMatrix};
use crate::curve::{fr_to_le, CircomCurve, Curve};
use crate::error::{CircomError, FileKind};
use crate::points::{Points, PointsKind, ZkeyMap};
use ark_ff::{Field, PrimeField};
use ark_groth16::{ProvingKey, VerifyingKey};
use header::{ToBytesLeVec, GROTH16, MAGIC};
use points::{section_points, CHUNK_BYTES};
use rayon::prelude::*;
use std::io::{Read, Seek};
use std::sync::atomic::{AtomicUsize, Ordering};
use zkaccel_cpu::BaseSlice;
use zkaccel_groth16::{ConstraintMatrix, CsrMatrix, ProvingKeyRef, Qap};

/// How much to trust a key's points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZkeyOptions {
    /// Check that every point is on its curve and in the prime-order
    /// subgroup (a few seconds at a million points; see SECURITY.md). Off,
    /// coordinates are still checked to be below the modulus.
    pub check_points: bool,
    /// In a mapped key ([`map_zkey`]), decode the point sections that are
    /// not aligned for arkworks' points (every other section of a snarkjs
    /// file) into vectors, instead of reading them where they lie
    /// ([`zkaccel_cpu::PackedBases`]). Off by default; the environment
    /// variable `ZKACCEL_ZKEY_PACKED=0` turns it on too, so that one binary
    /// can measure both.
    pub decode_unaligned: bool,
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
    /// A and B, `num_constraints` rows each, in compressed rows (C is not
    /// in a zkey: the circom witness map takes `C z = A z * B z`).
    /// [`CsrMatrix::to_rows`] gives arkworks' form.
    pub matrices: [CsrMatrix<E::ScalarField>; 2],
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

/// A Groth16 zkey as the prover keeps it: [`Zkey`]'s parts, with each query's
/// points decoded into a vector or, from [`map_zkey`], used in place in the
/// mapped file where the layout allows (see [`ProverKey::points_in_place`]).
pub struct ProverKey<E: CircomCurve> {
    /// The header.
    pub header: ZkeyHeader,
    /// The verifying key.
    pub vk: VerifyingKey<E>,
    /// `beta` in G1.
    pub beta_g1: E::G1Affine,
    /// `delta` in G1.
    pub delta_g1: E::G1Affine,
    a_query: Points<E::G1Affine>,
    b_g1_query: Points<E::G1Affine>,
    b_g2_query: Points<E::G2Affine>,
    h_query: Points<E::G1Affine>,
    l_query: Points<E::G1Affine>,
    /// A and B: decoded compressed rows, or (from [`map_zkey`], where the
    /// file's entries are in row order) indexed where they lie.
    pub matrices: [KeyMatrix<E>; 2],
    /// Number of constraints (without the public-input rows).
    pub num_constraints: usize,
}

impl<E: CircomCurve> core::fmt::Debug for ProverKey<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ProverKey")
            .field("header", &self.header)
            .field("num_constraints", &self.num_constraints)
            .field("points_in_place", &self.points_in_place())
            .finish_non_exhaustive()
    }
}

impl<E: CircomCurve> ProverKey<E> {
    /// Number of instance variables: the public signals plus the leading
    /// one.
    pub fn num_inputs(&self) -> usize {
        self.header.n_public + 1
    }

    /// The proving key, borrowed (zkaccel-groth16's view of it).
    pub fn proving_key(&self) -> ProvingKeyRef<'_, E> {
        ProvingKeyRef {
            vk: &self.vk,
            beta_g1: self.beta_g1,
            delta_g1: self.delta_g1,
            a_query: self.a_query.bases(E::g1_bases),
            b_g1_query: self.b_g1_query.bases(E::g1_bases),
            b_g2_query: self.b_g2_query.bases(E::g2_bases),
            h_query: self.h_query.bases(E::g1_bases),
            l_query: self.l_query.bases(E::g1_bases),
            resident: None,
            prepared: None,
        }
    }

    /// An owned arkworks [`ProvingKey`] (a copy of the points).
    pub fn to_proving_key(&self) -> ProvingKey<E> {
        let k = self.proving_key();
        let g1 = |q: BaseSlice<'_, E::G1Config>| q.iter().map(E::g1_affine).collect();
        let g2 = |q: BaseSlice<'_, E::G2Config>| q.iter().map(E::g2_affine).collect();
        ProvingKey {
            vk: self.vk.clone(),
            beta_g1: self.beta_g1,
            delta_g1: self.delta_g1,
            a_query: g1(k.a_query),
            b_g1_query: g1(k.b_g1_query),
            b_g2_query: g2(k.b_g2_query),
            h_query: g1(k.h_query),
            l_query: g1(k.l_query),
        }
    }

    /// The queries whose points are used where they lie in the mapped file
    /// (of `A`, `B1`, `B2`, `C`, `H`): none for a key decoded from a reader
    /// or bytes.
    pub fn points_in_place(&self) -> Vec<&'static str> {
        self.queries(|p| p.is_mapped())
    }

    /// Of [`points_in_place`](Self::points_in_place), those whose section is
    /// not aligned for arkworks' points, read a point at a time from their
    /// bytes ([`zkaccel_cpu::PackedBases`]; every other section of a snarkjs
    /// file).
    pub fn points_unaligned(&self) -> Vec<&'static str> {
        self.queries(|p| p.is_packed())
    }

    fn queries(&self, pick: impl Fn(&dyn PointsKind) -> bool) -> Vec<&'static str> {
        [
            ("A", pick(&self.a_query)),
            ("B1", pick(&self.b_g1_query)),
            ("B2", pick(&self.b_g2_query)),
            ("C", pick(&self.l_query)),
            ("H", pick(&self.h_query)),
        ]
        .into_iter()
        .filter_map(|(name, yes)| yes.then_some(name))
        .collect()
    }

    /// The decoded [`Zkey`] (copies the points that lie in the map).
    pub fn into_zkey(self) -> Zkey<E> {
        let pk = ProvingKey {
            vk: self.vk,
            beta_g1: self.beta_g1,
            delta_g1: self.delta_g1,
            a_query: self.a_query.into_vec(E::g1_bases, E::g1_affine),
            b_g1_query: self.b_g1_query.into_vec(E::g1_bases, E::g1_affine),
            b_g2_query: self.b_g2_query.into_vec(E::g2_bases, E::g2_affine),
            h_query: self.h_query.into_vec(E::g1_bases, E::g1_affine),
            l_query: self.l_query.into_vec(E::g1_bases, E::g1_affine),
        };
        Zkey {
            header: self.header,
            pk,
            matrices: self.matrices.map(KeyMatrix::into_csr),
            num_constraints: self.num_constraints,
        }
    }
}

impl<E: CircomCurve> From<Zkey<E>> for ProverKey<E> {
    fn from(z: Zkey<E>) -> Self {
        let pk = z.pk;
        ProverKey {
            header: z.header,
            vk: pk.vk,
            beta_g1: pk.beta_g1,
            delta_g1: pk.delta_g1,
            a_query: Points::Owned(pk.a_query),
            b_g1_query: Points::Owned(pk.b_g1_query),
            b_g2_query: Points::Owned(pk.b_g2_query),
            h_query: Points::Owned(pk.h_query),
            l_query: Points::Owned(pk.l_query),
            matrices: z.matrices.map(KeyMatrix::from),
            num_constraints: z.num_constraints,
        }
    }
}

/// Reads the curve named by a zkey's header, to choose the type to decode
/// it as.
pub fn zkey_curve(bytes: &[u8]) -> Result<Curve, CircomError> {
    zkey_curve_from(std::io::Cursor::new(bytes))
}

/// [`zkey_curve`] from a seekable reader (reads the header only).
pub fn zkey_curve_from(reader: impl Read + Seek) -> Result<Curve, CircomError> {
    let mut file = SeekFile::scan(reader, FileKind::Zkey, MAGIC, 1)?;
    header::read_curve(&mut file)
}

/// Reads a Groth16 zkey of curve `E` from its bytes.
pub fn read_zkey<E: CircomCurve>(bytes: &[u8], opts: ZkeyOptions) -> Result<Zkey<E>, CircomError> {
    read_zkey_from(std::io::Cursor::new(bytes), opts)
}

/// Reads a Groth16 zkey of curve `E` from a seekable reader, such as a
/// [`std::fs::File`]: a section at a time, the large ones in chunks of a
/// few megabytes, so the key is never in memory twice (its bytes beside
/// its decoded points); the next chunk is read while one is decoded
/// (hence `Send`). Errors name the section and the point or coefficient at
/// fault.
pub fn read_zkey_from<E: CircomCurve>(
    reader: impl Read + Seek + Send,
    opts: ZkeyOptions,
) -> Result<Zkey<E>, CircomError> {
    let file = SeekFile::scan(reader, FileKind::Zkey, MAGIC, 1)?;
    load::<E, _>(file, None, opts).map(ProverKey::into_zkey)
}

/// Reads a Groth16 zkey of curve `E` from a mapped file ([`ZkeyMap`]): every
/// point is checked as [`read_zkey`] checks it, and each query whose
/// section is aligned for arkworks' point type is then used where it lies
/// (no copy: the load costs reading the pages; see
/// [`ProverKey::points_in_place`]); the other sections are decoded in
/// parallel. The coefficients are checked as [`read_zkey`] checks them and,
/// where each matrix's entries are in row order (as snarkjs writes them),
/// read where they lie too ([`KeyMatrix`]).
pub fn map_zkey<E: CircomCurve>(
    map: &ZkeyMap,
    opts: ZkeyOptions,
) -> Result<ProverKey<E>, CircomError> {
    let file = SeekFile::scan(std::io::Cursor::new(map.bytes()), FileKind::Zkey, MAGIC, 1)?;
    load::<E, _>(file, Some(map), opts)
}

/// The zkey reader behind [`read_zkey_from`] (no map: every point decoded)
/// and [`map_zkey`].
fn load<E: CircomCurve, R: Read + Seek + Send>(
    mut file: SeekFile<R>,
    map: Option<&ZkeyMap>,
    opts: ZkeyOptions,
) -> Result<ProverKey<E>, CircomError> {
    header::protocol(&mut file)?;
    let (header, hp) = header::read_header::<E, _>(&mut file, opts.check_points)?;
    let q = query_points::<E, _>(&mut file, map, opts, &header)?;
    let mapped = match map {
        Some(map) => {
            let (c, count) = open_coefficients::<E, _>(&mut file)?;
            let start = c.file_range().0 as usize;
            mapped_coefficients::<E>(map, start, count, &header, |m| c.err(m))?
        }
        None => None,
    };
    let (matrices, num_constraints) = match mapped {
        Some(m) => m,
        None => {
            let (m, n) = coefficients::<E, _>(&mut file, &header)?;
            (m.map(KeyMatrix::from), n)
        }
    };
    Ok(ProverKey {
        header,
        vk: VerifyingKey {
            alpha_g1: hp.alpha_g1,
            beta_g2: hp.beta_g2,
            gamma_g2: hp.gamma_g2,
            delta_g2: hp.delta_g2,
            gamma_abc_g1: q.gamma_abc_g1,
        },
        beta_g1: hp.beta_g1,
        delta_g1: hp.delta_g1,
        a_query: q.a_query,
        b_g1_query: q.b_g1_query,
        b_g2_query: q.b_g2_query,
        h_query: q.h_query,
        l_query: q.l_query,
        matrices,
        num_constraints,
    })
}

/// The point sections' contents: IC, and each query where it lies or
/// decoded.
struct Queries<E: CircomCurve> {
    gamma_abc_g1: Vec<E::G1Affine>,
    a_query: Points<E::G1Affine>,
    b_g1_query: Points<E::G1Affine>,
    b_g2_query: Points<E::G2Affine>,
    h_query: Points<E::G1Affine>,
    l_query: Points<E::G1Affine>,
}

/// Sections 3 (IC) and 5 to 9 (the queries A, B1, B2, C, H), their lengths
/// from the header; with `map`, each used in place where
/// [`points::in_place_for`] allows.
fn query_points<E: CircomCurve, R: Read + Seek + Send>(
    file: &mut SeekFile<R>,
    map: Option<&ZkeyMap>,
    opts: ZkeyOptions,
    header: &ZkeyHeader,
) -> Result<Queries<E>, CircomError> {
    let (n_vars, n_public) = (header.n_vars, header.n_public);
    let check = opts.check_points;
    let (dec_g1, dec_g2) = (points::g1::<E>(check), points::g2::<E>(check));
    let (how_g1, how_g2) = map.map_or_else(Default::default, |_| {
        points::in_place_for::<E>(opts.decode_unaligned)
    });
    let mut g1 = |id: u32, name: &'static str, count: usize| {
        section_points(file, map, how_g1, id, name, count, &dec_g1)
    };
    let gamma_abc_g1 = g1(3, "IC", n_public + 1)?.into_vec(E::g1_bases, E::g1_affine);
    let a_query = g1(5, "PointsA", n_vars)?;
    let b_g1_query = g1(6, "PointsB1", n_vars)?;
    let l_query = g1(8, "PointsC", n_vars - n_public - 1)?;
    // H first among the domain-sized parts: its length, checked against
    // the file's, bounds domainSize before the coefficients use it.
    let h_query = g1(9, "PointsH", header.domain_size)?;
    let b_g2_query = section_points(file, map, how_g2, 7, "PointsB2", n_vars, &dec_g2)?;
    Ok(Queries {
        gamma_abc_g1,
        a_query,
        b_g1_query,
        b_g2_query,
        h_query,
        l_query,
    })
}

/// `n` copies of `x`, written in parallel: both threads take the
/// first-touch page faults (`vec![x; n]` leaves them all to one thread, or,
/// for zeros, to the first writer).
pub(crate) fn filled<T: Copy + Send + Sync>(n: usize, x: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.par_extend(rayon::iter::repeat_n(x, n));
    v
}

/// `R^-1` in the scalar field (`R = 2^256`, the Montgomery radix).
pub(crate) fn r_inverse<F: PrimeField>() -> F {
    F::from(2u64)
        .pow([256u64])
        .inverse()
        .expect("2 is invertible in an odd prime field")
}

/// Section 4 opened at its first entry, its length checked against the
/// number of entries it starts with; and that number.
fn open_coefficients<E: CircomCurve, R: Read + Seek>(
    file: &mut SeekFile<R>,
) -> Result<(crate::binfile::Section<'_, R>, usize), CircomError> {
    let mut c = file.open(4, "Coefs")?;
    let count = c.u32()? as usize;
    let entry = 12 + E::N8R;
    c.expect_rest(
        (count as u64) * entry as u64,
        &format!("{count} coefficients of {entry} bytes"),
    )?;
    Ok((c, count))
}

/// Section 4: the A and B coefficients, read twice in chunks (once to
/// check the indices and count each row's entries, once to place them)
/// into compressed rows; the public-input rows snarkjs appends are checked
/// and dropped.
#[allow(clippy::type_complexity)]
fn coefficients<E: CircomCurve, R: Read + Seek + Send>(
    file: &mut SeekFile<R>,
    header: &ZkeyHeader,
) -> Result<([CsrMatrix<E::ScalarField>; 2], usize), CircomError> {
    let (mut c, count) = open_coefficients::<E, _>(file)?;
    let entry = 12 + E::N8R;
    let data_start = c.position();
    let per_chunk = CHUNK_BYTES / entry;
    let (domain_size, n_public) = (header.domain_size, header.n_public);

    // Pass 1: every index in range, the entries of each row counted.
    let mut counts = [vec![0u32; domain_size], vec![0u32; domain_size]];
    let mut max_row = None::<usize>;
    c.for_each_chunk(count, entry, per_chunk, |first, chunk| {
        for (i, b) in (first..).zip(chunk.chunks_exact(entry)) {
            let (m, row, signal) = entry_ids(b);
            if !ids_in_range((m, row, signal), header) {
                return Err(msg::bad_ids(i, (m, row, signal), header));
            }
            counts[m as usize][row] += 1;
            max_row = max_row.max(Some(row));
        }
        Ok(())
    })?;

    let num_constraints = constraints_of(max_row, header).map_err(|m| c.err(m))?;
    // Row starts of the constraint rows; `counts` becomes each row's fill.
    let starts = counts.each_mut().map(|cnt| {
        let mut starts = Vec::with_capacity(num_constraints + 1);
        let mut at = 0usize;
        starts.push(0);
        for n in &mut cnt[..num_constraints] {
            at += *n as usize;
            starts.push(at);
            *n = 0;
        }
        starts
    });
    let zero = <E::Fr as ark_ff::Zero>::zero();
    let mut columns = starts.each_ref().map(|s| filled(s[num_constraints], 0u32));
    let mut values = starts.each_ref().map(|s| filled(s[num_constraints], zero));

    // Pass 2: the values, placed in their rows in file order. A value `v`
    // is stored as the integer `c = v R^2`; read as a Montgomery form, `c`
    // is the element `c R^-1 = v R`, so one multiplication by `R^-1` gives
    // `v` (in parallel, into a buffer reused by every chunk).
    let r_inv = r_inverse::<E::Fr>();
    let mut input_rows = vec![false; n_public + 1];
    let mut vals = Vec::with_capacity(per_chunk.min(count));
    c.seek_to(data_start)?;
    c.for_each_chunk(count, entry, per_chunk, |first, chunk| {
        let bad = AtomicUsize::new(usize::MAX);
        vals.clear();
        vals.par_extend(chunk.par_chunks_exact(entry).enumerate().map(|(i, b)| {
            E::fr_from_mont(&b[12..]).map_or_else(
                || {
                    bad.fetch_min(i, Ordering::Relaxed);
                    zero
                },
                |v| v * r_inv,
            )
        }));
        let bad = bad.into_inner();
        for (k, (b, &v)) in chunk.chunks_exact(entry).zip(&vals).enumerate() {
            let (m, row, signal) = entry_ids(b);
            let i = first + k;
            if k == bad {
                return Err(msg::bad_value(i, (m, row, signal)));
            }
            if row < num_constraints {
                let m = m as usize;
                let at = starts[m][row] + counts[m][row] as usize;
                counts[m][row] += 1;
                columns[m][at] = signal as u32;
                values[m][at] = v;
            } else {
                let s = row - num_constraints;
                if m != 0 || signal != s || v != E::Fr::ONE || input_rows[s] {
                    return Err(msg::public_row(i, (m, row, signal), num_constraints));
                }
                input_rows[s] = true;
            }
        }
        Ok(())
    })?;
    if let Some(s) = input_rows.iter().position(|&seen| !seen) {
        return Err(c.err(msg::missing_public_row(num_constraints, s)));
    }
    let [sa, sb] = starts;
    let [ca, cb] = columns;
    let [va, vb] = values;
    let csr = |s, c, v| {
        CsrMatrix::from_parts(s, c, v).map_err(|e| CircomError::format(FileKind::Zkey, e))
    };
    Ok(([csr(sa, ca, va)?, csr(sb, cb, vb)?], num_constraints))
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
pub fn write_zkey<E: CircomCurve, M: ConstraintMatrix<E::ScalarField>>(
    pk: &ProvingKey<E>,
    matrices: &[M],
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
    if matrices.len() < 2 || matrices[..2].iter().any(|m| m.num_rows() < num_constraints) {
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
                return Err(mismatch(format!(
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

#[cfg(test)]
mod tests {
    //! A coefficient section longer than one chunk ([`CHUNK_BYTES`]), whose
    //! errors must name the index in the section, not in the chunk.
    use super::*;
    use crate::binfile::BinWriter;
    use crate::coefs::COEF_TASK;
    use ark_bn254::{Bn254, Fr};

    /// A container holding section `id` with `body`, opened for reading.
    fn container(id: u32, body: &[u8]) -> SeekFile<std::io::Cursor<Vec<u8>>> {
        let mut w = BinWriter::new(MAGIC, 1, 1);
        w.section(id, body);
        SeekFile::scan(std::io::Cursor::new(w.buf), FileKind::Zkey, MAGIC, 1).unwrap()
    }

    /// Section 4's body (count, then entries) holding `entries`
    /// (matrix, row, signal, value); entry `bad`'s value is not below r.
    fn body_of(entries: &[(u32, u32, u32, Fr)], bad: Option<usize>) -> Vec<u8> {
        // The file holds the integer v R^2; fr_to_le writes a plain integer.
        let r2 = Fr::from(2u64).pow([512u64]);
        let mut b = (entries.len() as u32).to_le_bytes().to_vec();
        for (i, &(m, row, s, v)) in entries.iter().enumerate() {
            for x in [m, row, s] {
                b.extend_from_slice(&x.to_le_bytes());
            }
            match bad == Some(i) {
                true => b.extend_from_slice(&[0xff; 32]),
                false => fr_to_le(&(v * r2), &mut b),
            }
        }
        b
    }

    /// The mapped reader on section 4's body `b`: `None` where it leaves
    /// the section to the general reader; its matrices decoded to compare.
    #[allow(clippy::type_complexity)]
    fn mapped_csr(
        b: &[u8],
        header: &ZkeyHeader,
    ) -> Result<Option<([CsrMatrix<Fr>; 2], usize)>, CircomError> {
        let count = u32::from_le_bytes(b[..4].try_into().unwrap()) as usize;
        let map = ZkeyMap::from_bytes(b);
        let err = |m: String| CircomError::format(FileKind::Zkey, m);
        let read = mapped_coefficients::<Bn254>(&map, 4, count, header, err)?;
        Ok(read.map(|([a, b], n)| {
            assert!(a.is_mapped() && b.is_mapped());
            ([a.into_csr(), b.into_csr()], n)
        }))
    }

    #[test]
    fn coefficients_past_the_first_chunk_are_placed_and_named() {
        // Constraint r: A = (r + 1) * signal 1, B = 2 * signal 2 on even
        // rows; then the public row A[n] = 1 * signal 0 (no public input).
        let n = CHUNK_BYTES / 44 + 1000;
        let mut entries = Vec::new();
        for r in 0..n {
            entries.push((0u32, r as u32, 1u32, Fr::from(r as u64 + 1)));
            if r % 2 == 0 {
                entries.push((1, r as u32, 2, Fr::from(2u64)));
            }
        }
        entries.push((0, n as u32, 0, Fr::from(1u64)));
        let header = ZkeyHeader {
            curve: Curve::Bn254,
            n_vars: 3,
            n_public: 0,
            domain_size: (n + 1).next_power_of_two(),
        };
        let body = |bad: Option<usize>| body_of(&entries, bad);
        let general = |b: &[u8]| coefficients::<Bn254, _>(&mut container(4, b), &header);
        let sorted = |b: &[u8]| mapped_csr(b, &header);
        for read in [
            &general as &dyn Fn(&[u8]) -> Result<_, CircomError>,
            &|b: &[u8]| sorted(b).map(|o| o.expect("a sorted section")),
        ] {
            let ([a, b], constraints) = read(&body(None)).unwrap();
            assert_eq!(constraints, n);
            let (ra, rb) = (a.to_rows(), b.to_rows());
            assert_eq!(ra.len(), n);
            for r in [
                0,
                1,
                CHUNK_BYTES / 44,
                COEF_TASK - 1,
                COEF_TASK,
                COEF_TASK + 1,
                n - 1,
            ] {
                assert_eq!(ra[r], vec![(Fr::from(r as u64 + 1), 1)], "A row {r}");
                let want = if r % 2 == 0 {
                    vec![(Fr::from(2u64), 2)]
                } else {
                    vec![]
                };
                assert_eq!(rb[r], want, "B row {r}");
            }
            let bad = entries.len() - 7;
            let e = read(&body(Some(bad))).unwrap_err().to_string();
            assert!(
                e.contains(&format!("coefficient {bad} (")) && e.contains("not below r"),
                "{e}"
            );
        }
        // All of A, then all of B (write_zkey's order): sorted too, the
        // same matrices.
        let mut by_matrix = entries.clone();
        by_matrix.sort_by_key(|e| e.0);
        let want = general(&body(None)).unwrap();
        assert_eq!(
            sorted(&body_of(&by_matrix, None)).unwrap(),
            Some(want.clone())
        );
        // Two rows of A swapped across tasks: not sorted, left to the
        // general reader, which places them.
        let mut swapped = entries.clone();
        let i = swapped.iter().position(|e| e.0 == 0 && e.1 == 6).unwrap();
        let j = swapped
            .iter()
            .rposition(|e| e.0 == 0 && e.1 as usize == n - 10)
            .unwrap();
        swapped.swap(i, j);
        assert_eq!(sorted(&body_of(&swapped, None)).unwrap(), None);
        assert_eq!(general(&body_of(&swapped, None)).unwrap(), want);
        // A public-input row that is not `1 * signal s`, and a missing one.
        let mut public = entries.clone();
        public.last_mut().unwrap().3 = Fr::from(2u64);
        let e = sorted(&body_of(&public, None)).unwrap_err().to_string();
        assert!(e.contains("public-input row"), "{e}");
        public.pop();
        let e = sorted(&body_of(&public, None)).unwrap_err().to_string();
        assert!(e.contains("public-input row"), "{e}");
    }
}
