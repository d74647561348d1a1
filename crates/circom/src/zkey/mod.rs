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
//!
//! One file per concern: [`header`] (sections 1 and 2), [`points`] (the
//! point sections, streamed or mapped, and the header's points: one
//! decoder), [`coefficients`] (section 4, decoded or mapped:
//! [`KeyMatrix`]), [`write`](mod@write) ([`write_zkey`]); this module
//! holds the key types and the loader that reads the sections in turn.

mod coefficients;
mod header;
mod points;
mod stream;
mod write;

pub use coefficients::KeyMatrix;
pub use header::ZkeyHeader;
pub use stream::{zkey_curve_prefix, ZkeyStream};
pub use write::write_zkey;

use crate::binfile::SeekFile;
use crate::curve::{CircomCurve, Curve};
use crate::error::{CircomError, FileKind};
use crate::points::{Points, PointsKind, ZkeyMap};
use ark_groth16::{ProvingKey, VerifyingKey};
use header::MAGIC;
use points::section_points;
use std::io::{Read, Seek};
use zkaccel_cpu::BaseSlice;
use zkaccel_groth16::{CsrMatrix, KeyQuery, ProvingKeyRef, ReleaseQuery};

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

/// A proof's reads of a mapped key's sections, one at a time: once the
/// prover has read a query, its pages are dropped (the file's bytes stay
/// in the kernel's page cache, shared and reclaimable; the next read maps
/// them again). The peak memory of a proof then holds the section being
/// read beside the working buffers, where otherwise every section read so
/// far stays resident. Nothing happens for decoded (owned) points.
impl<E: CircomCurve> ReleaseQuery for ProverKey<E> {
    fn release(&self, query: KeyQuery) {
        let (g1, g2) = (2 * E::N8Q, 4 * E::N8Q);
        match query {
            KeyQuery::A => self.a_query.release(g1),
            KeyQuery::B1 => self.b_g1_query.release(g1),
            KeyQuery::B2 => self.b_g2_query.release(g2),
            KeyQuery::H => self.h_query.release(g1),
            KeyQuery::L => self.l_query.release(g1),
        }
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
            release: Some(self),
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
    load::<E, _>(file, None, opts, None).map(ProverKey::into_zkey)
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
    load::<E, _>(file, Some(map), opts, None)
}

/// The zkey reader behind [`read_zkey_from`] (no map: every point decoded),
/// [`map_zkey`] and [`ZkeyStream`] (`streamed`: the point sections already
/// decoded, the other sections in `file`).
fn load<E: CircomCurve, R: Read + Seek + Send>(
    mut file: SeekFile<R>,
    map: Option<&ZkeyMap>,
    opts: ZkeyOptions,
    streamed: Option<stream::StreamedPoints<E>>,
) -> Result<ProverKey<E>, CircomError> {
    header::protocol(&mut file)?;
    let (header, hp) = header::read_header::<E, _>(&mut file, opts.check_points)?;
    let q = query_points::<E, _>(&mut file, map, opts, &header, streamed)?;
    let (matrices, num_constraints) = coefficients::read_matrices::<E, _>(&mut file, map, &header)?;
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

/// How many points query section `id` (5 to 9: A, B1, B2, C, H) holds for
/// `header`: `nVars` for A, B1 and B2, `nVars - nPublic - 1` for C (the L
/// query), `domainSize` for H.
fn points_in_section(header: &ZkeyHeader, id: u32) -> usize {
    match id {
        5..=7 => header.n_vars,
        8 => header.n_vars - header.n_public - 1,
        _ => header.domain_size,
    }
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
/// [`points::in_place_for`] allows; those in `streamed` as decoded there.
fn query_points<E: CircomCurve, R: Read + Seek + Send>(
    file: &mut SeekFile<R>,
    map: Option<&ZkeyMap>,
    opts: ZkeyOptions,
    header: &ZkeyHeader,
    mut streamed: Option<stream::StreamedPoints<E>>,
) -> Result<Queries<E>, CircomError> {
    let n_public = header.n_public;
    let check = opts.check_points;
    let (dec_g1, dec_g2) = (points::g1::<E>(check), points::g2::<E>(check));
    let (how_g1, how_g2) = map.map_or_else(Default::default, |_| {
        points::in_place_for::<E>(opts.decode_unaligned)
    });
    let mut g1 = |id: u32, name: &'static str, count: usize| match streamed
        .as_mut()
        .and_then(|s| s.take_g1(id, name, count))
    {
        Some(points) => points.map(Points::Owned),
        None => section_points(file, map, how_g1, id, name, count, &dec_g1),
    };
    let count = |id| points_in_section(header, id);
    let gamma_abc_g1 = g1(3, "IC", n_public + 1)?.into_vec(E::g1_bases, E::g1_affine);
    let a_query = g1(5, "PointsA", count(5))?;
    let b_g1_query = g1(6, "PointsB1", count(6))?;
    let l_query = g1(8, "PointsC", count(8))?;
    // H first among the domain-sized parts: its length, checked against
    // the file's, bounds domainSize before the coefficients use it.
    let h_query = g1(9, "PointsH", count(9))?;
    let b_g2_query = match streamed
        .as_mut()
        .and_then(|s| s.take_g2("PointsB2", count(7)))
    {
        Some(points) => Points::Owned(points?),
        None => section_points(file, map, how_g2, 7, "PointsB2", count(7), &dec_g2)?,
    };
    Ok(Queries {
        gamma_abc_g1,
        a_query,
        b_g1_query,
        b_g2_query,
        h_query,
        l_query,
    })
}
