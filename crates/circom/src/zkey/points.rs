//! A zkey's points, through one decoder ([`PointDecoder`]): the six of the
//! header (section 2) and the point sections, 3 IC (`nPublic + 1` G1), 5 A
//! and 6 B1 (`nVars` G1 each), 7 B2 (`nVars` G2), 8 C (the L query,
//! `nVars - nPublic - 1` G1) and 9 H (`domainSize` G1).
//!
//! A point is snarkjs' Montgomery form of its coordinates, checked below the
//! modulus and, with [`ZkeyOptions::check_points`](super::ZkeyOptions::check_points),
//! on the curve and in the subgroup. A section is read from a reader in
//! chunks, each decoded in parallel straight into the result
//! ([`streamed_points`]); from a mapped file it is checked and used where it
//! lies, as [`crate::points`] views it, or decoded from the mapped bytes
//! ([`section_points`]). Which section holds which query is the loader's
//! ([`super`]).

use crate::binfile::{Cursor, Section, SeekFile};
use crate::curve::CircomCurve;
use crate::error::CircomError;
use crate::points::{in_place, packed_reads, same_layout, InPlace, Points, ZkeyMap};
use ark_ec::{AffineRepr, CurveGroup};
use rayon::prelude::*;
use std::io::{Read, Seek};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes read and decoded at a time from a large section: small enough to
/// stay in cache beside its decoded points, large enough to feed every
/// thread.
pub(super) const CHUNK_BYTES: usize = 4 << 20;

/// How one group's points are read from a zkey: decoded from snarkjs'
/// encoding and, where asked, checked on the curve and in the subgroup.
/// The one decoder of the header's points, the streamed sections and the
/// mapped ones, so that all check and name a bad point alike.
pub(super) struct PointDecoder<T, D> {
    /// The group, `"G1"` or `"G2"`, as the header's messages name it.
    group: &'static str,
    /// Bytes of one point.
    size: usize,
    /// Stands in for a point that does not decode, which is then an error.
    zero: T,
    /// The point from its bytes; `None` where a coordinate is not below the
    /// modulus.
    decode: D,
    /// On the curve and in the prime-order subgroup (only with
    /// [`ZkeyOptions::check_points`](super::ZkeyOptions::check_points)).
    valid: Option<fn(&T) -> bool>,
}

/// `E`'s G1 points (`2 N8Q` bytes each); `check`: also on the curve and in
/// the subgroup.
pub(super) fn g1<E: CircomCurve>(
    check: bool,
) -> PointDecoder<E::G1Affine, impl Fn(&[u8]) -> Option<E::G1Affine> + Sync> {
    PointDecoder {
        group: "G1",
        size: 2 * E::N8Q,
        zero: E::G1Affine::zero(),
        decode: E::g1_from_mont,
        valid: check.then_some(E::g1_valid as fn(&E::G1Affine) -> bool),
    }
}

/// `E`'s G2 points (`4 N8Q` bytes each); `check`: also on the curve and in
/// the subgroup.
pub(super) fn g2<E: CircomCurve>(
    check: bool,
) -> PointDecoder<E::G2Affine, impl Fn(&[u8]) -> Option<E::G2Affine> + Sync> {
    PointDecoder {
        group: "G2",
        size: 4 * E::N8Q,
        zero: E::G2Affine::zero(),
        decode: E::g2_from_mont,
        valid: check.then_some(E::g2_valid as fn(&E::G2Affine) -> bool),
    }
}

impl<T: Copy + Send + Sync, D: Fn(&[u8]) -> Option<T> + Sync> PointDecoder<T, D> {
    /// The point of `b`, decoded and, where asked, checked; `None` if it
    /// fails either.
    fn point(&self, b: &[u8]) -> Option<T> {
        (self.decode)(b).filter(|p| self.valid.is_none_or(|v| v(p)))
    }

    /// What a point that fails to decode (or, when checked, to validate) is
    /// reported as.
    fn why_bad(&self) -> &'static str {
        if self.valid.is_some() {
            "a coordinate not below the modulus, or not on the curve or not in the subgroup"
        } else {
            "a coordinate not below the modulus"
        }
    }

    /// The message for point `i` of section `what`, which does not decode.
    pub(super) fn bad_point(&self, what: &str, i: usize) -> String {
        format!("{what} point {i}: {}", self.why_bad())
    }

    /// Bytes of one point.
    pub(super) fn size(&self) -> usize {
        self.size
    }

    /// One point of the header, `what`: decoded and, where asked, checked.
    pub(super) fn header_point(&self, c: &mut Cursor<'_>, what: &str) -> Result<T, CircomError> {
        let b = c.bytes(self.size)?;
        self.point(b).ok_or_else(|| {
            c.err(format!(
                "{what} is not a valid {group} point",
                group = self.group
            ))
        })
    }

    /// The points of `bytes`, decoded in parallel onto the end of `out`
    /// (the threads that decode also first touch `out`'s pages); the index
    /// of a point that does not decode, counted from `first`, is lowered
    /// into `bad` and `zero` stands in for it.
    pub(super) fn extend_decoded(
        &self,
        out: &mut Vec<T>,
        bytes: &[u8],
        first: usize,
        bad: &AtomicUsize,
    ) {
        out.par_extend(bytes.par_chunks_exact(self.size).enumerate().map(|(i, b)| {
            self.point(b).unwrap_or_else(|| {
                bad.fetch_min(first + i, Ordering::Relaxed);
                self.zero
            })
        }));
    }
}

/// Decodes section `id`, `count` points, in chunks, each decoded in
/// parallel straight into the result (no copy of the section, no
/// intermediate vector; the threads that decode also first touch the
/// result's pages) while the next chunk is read. A point that does not
/// decode is an error that names its index in the section.
fn streamed_points<T, D, R>(
    file: &mut SeekFile<R>,
    id: u32,
    what: &'static str,
    count: usize,
    dec: &PointDecoder<T, D>,
) -> Result<Vec<T>, CircomError>
where
    T: Copy + Send + Sync,
    D: Fn(&[u8]) -> Option<T> + Sync,
    R: Read + Seek + Send,
{
    let size = dec.size;
    let mut s = file.open(id, what)?;
    expect_points(&s, what, count, size)?;
    let mut out = Vec::with_capacity(count);
    let bad = AtomicUsize::new(usize::MAX);
    s.for_each_chunk(count, size, CHUNK_BYTES / size, |done, chunk| {
        dec.extend_decoded(&mut out, chunk, done, &bad);
        match bad.load(Ordering::Relaxed) {
            usize::MAX => Ok(()),
            i => Err(dec.bad_point(what, i)),
        }
    })?;
    Ok(out)
}

/// Checks that the rest of section `s` is `count` points of `size` bytes;
/// returns their byte length.
fn expect_points<R: Read + Seek>(
    s: &Section<'_, R>,
    what: &str,
    count: usize,
    size: usize,
) -> Result<usize, CircomError> {
    let bytes = count
        .checked_mul(size)
        .ok_or_else(|| s.err(format!("{count} {what} points overflow")))?;
    s.expect_rest(bytes as u64, &points_of(count, what, size))?;
    Ok(bytes)
}

/// What a point section of `count` points of `size` bytes holds, as its
/// length error names it (the file readers' and the stream's).
pub(super) fn points_of(count: usize, what: &str, size: usize) -> String {
    format!("{count} {what} points of {size} bytes")
}

/// Section `id`'s points: where `map` holds the file, checked and used in
/// place as `how` allows ([`in_place`]), else decoded from the mapped bytes
/// in parallel; without a map, read in chunks ([`streamed_points`]).
pub(super) fn section_points<T, D, R>(
    file: &mut SeekFile<R>,
    map: Option<&ZkeyMap>,
    how: InPlace,
    id: u32,
    what: &'static str,
    count: usize,
    dec: &PointDecoder<T, D>,
) -> Result<Points<T>, CircomError>
where
    T: Copy + Send + Sync,
    D: Fn(&[u8]) -> Option<T> + Sync,
    R: Read + Seek + Send,
{
    let Some(map) = map else {
        return streamed_points(file, id, what, count, dec).map(Points::Owned);
    };
    let size = dec.size;
    let s = file.open(id, what)?;
    let len = expect_points(&s, what, count, size)?;
    let start = s.file_range().0 as usize;
    let bytes = &map.bytes()[start..start + len];
    let bad = |i: usize| s.err(dec.bad_point(what, i));
    if let Some(p) = in_place::<T>(map, start, count, size, how) {
        // Every point checked (in parallel; this also reads the pages in),
        // then the pages dropped until a proof reads them: the process holds
        // the sections a proof is reading, not the whole file
        // ([`ProverKey`](super::ProverKey)'s `ReleaseQuery`).
        let first_bad = bytes
            .par_chunks_exact(size)
            .position_first(|b| dec.point(b).is_none());
        map.release(start, len);
        return match first_bad {
            Some(i) => Err(bad(i)),
            None => Ok(p),
        };
    }
    let first_bad = AtomicUsize::new(usize::MAX);
    let mut out = Vec::with_capacity(count);
    dec.extend_decoded(&mut out, bytes, 0, &first_bad);
    map.release(start, len);
    match first_bad.into_inner() {
        usize::MAX => Ok(Points::Owned(out)),
        i => Err(bad(i)),
    }
}

/// How G1's and G2's sections may be used in place ([`InPlace`]): viewed
/// where `E`'s affine points are, in memory, snarkjs' encoding of them;
/// read through [`zkaccel_cpu::PackedBases`] where it reads that encoding
/// as the same points, unless `decode_unaligned`
/// ([`ZkeyOptions::decode_unaligned`](super::ZkeyOptions::decode_unaligned))
/// or `ZKACCEL_ZKEY_PACKED=0` (both checked on the generators, their
/// doubles and negatives, and infinity).
pub(super) fn in_place_for<E: CircomCurve>(decode_unaligned: bool) -> (InPlace, InPlace) {
    fn samples<A: AffineRepr>() -> [A; 4] {
        let g = A::generator();
        [g, (g + g).into_affine(), -g, A::zero()]
    }
    let packed =
        !decode_unaligned && std::env::var("ZKACCEL_ZKEY_PACKED").map_or(true, |v| v != "0");
    let (s1, s2) = (samples::<E::G1Affine>(), samples::<E::G2Affine>());
    let (n1, n2) = (2 * E::N8Q, 4 * E::N8Q);
    (
        InPlace {
            view: same_layout(&s1, E::g1_to_mont, n1),
            packed: packed && packed_reads(&s1, E::g1_to_mont, n1, E::g1_bases),
        },
        InPlace {
            view: same_layout(&s2, E::g2_to_mont, n2),
            packed: packed && packed_reads(&s2, E::g2_to_mont, n2, E::g2_bases),
        },
    )
}

#[cfg(test)]
mod tests {
    //! Sections longer than one chunk ([`CHUNK_BYTES`]), whose errors must
    //! name the index in the section, not in the chunk.
    use super::*;
    use crate::binfile::BinWriter;
    use crate::error::FileKind;
    use ark_bn254::{Bn254, G1Affine};

    /// A container holding section `id` with `body`, opened for reading.
    fn container(id: u32, body: &[u8]) -> SeekFile<std::io::Cursor<Vec<u8>>> {
        let mut w = BinWriter::new(b"zkey", 1, 1);
        w.section(id, body);
        SeekFile::scan(std::io::Cursor::new(w.buf), FileKind::Zkey, b"zkey", 1).unwrap()
    }

    #[test]
    fn points_past_the_first_chunk_are_named_by_their_index() {
        let per_chunk = CHUNK_BYTES / 64;
        let count = 2 * per_chunk + 3;
        // All at infinity (zero coordinates), but one: its x is the modulus.
        let mut body = vec![0u8; count * 64];
        let dec = g1::<Bn254>(false);
        assert_eq!((dec.size, dec.zero), (64, G1Affine::identity()));
        let read = |b: &[u8]| streamed_points(&mut container(5, b), 5, "PointsA", count, &dec);
        let ok = read(&body).unwrap();
        assert_eq!(ok.len(), count);
        assert!(ok.iter().all(|p| p.is_zero()));
        for bad in [per_chunk - 1, per_chunk, 2 * per_chunk + 2] {
            let mut b = body.clone();
            b[bad * 64..bad * 64 + 32].copy_from_slice(&Bn254::q_le());
            let e = read(&b).unwrap_err().to_string();
            assert!(e.contains(&format!("PointsA point {bad}:")), "{e}");
        }
        // The first bad point is named when two chunks hold one each.
        body[(per_chunk + 5) * 64..(per_chunk + 5) * 64 + 32].copy_from_slice(&Bn254::q_le());
        body[7 * 64 + 32..8 * 64].copy_from_slice(&Bn254::q_le());
        let e = read(&body).unwrap_err().to_string();
        assert!(e.contains("PointsA point 7:"), "{e}");
    }
}
