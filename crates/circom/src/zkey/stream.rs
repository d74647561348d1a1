//! [`ZkeyStream`]: a zkey decoded from its bytes as they arrive (a
//! download, a `fetch` body, a pipe), in file order, with no seek and
//! without ever holding the whole file.
//!
//! The point sections (5 to 9, nearly all of a key) are decoded chunk by
//! chunk into the key's vectors as their bytes come in, by the same decoder
//! as [`read_zkey`](super::read_zkey)'s; the other sections (the headers,
//! IC, the coefficients and the contributions) are kept as bytes in a small
//! container of their own, which [`ZkeyStream::finish`] hands to the same
//! loader as the file readers, with the decoded points beside it. So a key
//! read this way is the key [`read_zkey`](super::read_zkey) reads from the
//! same bytes, its checks and messages included; the peak is the decoded
//! key, the coefficients' bytes and one chunk, instead of the file beside
//! its decoded key. Sections 1 and 2 (snarkjs writes them first) are
//! checked as soon as they are whole, so a foreign file fails at its first
//! chunk.

use super::header::{self, ZkeyHeader, MAGIC};
use super::points::{g1, g2, points_of, PointDecoder};
use super::{load, points_in_section, ProverKey, ZkeyOptions};
use crate::binfile::{fault, file_header, Cursor as BinCursor, SeekFile};
use crate::curve::{CircomCurve, Curve};
use crate::error::{CircomError, FileKind};
use std::io::Cursor;
use std::sync::atomic::AtomicUsize;

/// The point sections a stream decodes as they arrive: id and name.
const POINT_SECTIONS: [(u32, &str); 5] = [
    (5, "PointsA"),
    (6, "PointsB1"),
    (7, "PointsB2"),
    (8, "PointsC"),
    (9, "PointsH"),
];

/// Points a section's vector is first given room for; it grows with the
/// points that arrive.
const FIRST_RESERVE: usize = 1 << 16;

/// The streamed point sections, for the loader: each query's points and
/// the byte length its section claimed.
pub(super) struct StreamedPoints<E: CircomCurve> {
    /// Sections 5, 6, 8 and 9 (index `id - 5`; 7 unused).
    g1: [Option<(u64, Vec<E::G1Affine>)>; 5],
    /// Section 7.
    g2: Option<(u64, Vec<E::G2Affine>)>,
}

impl<E: CircomCurve> StreamedPoints<E> {
    /// Section `id`'s points (G1) as `count` points; `None` if the stream
    /// did not decode that section (IC, section 3, is kept as bytes).
    pub(super) fn take_g1(
        &mut self,
        id: u32,
        what: &str,
        count: usize,
    ) -> Option<Result<Vec<E::G1Affine>, CircomError>> {
        let k = id.checked_sub(5)? as usize;
        let (len, v) = self.g1.get_mut(k)?.take()?;
        Some(counted(len, v, what, count, 2 * E::N8Q))
    }

    /// Section 7's points (G2), as [`StreamedPoints::take_g1`].
    pub(super) fn take_g2(
        &mut self,
        what: &str,
        count: usize,
    ) -> Option<Result<Vec<E::G2Affine>, CircomError>> {
        let (len, v) = self.g2.take()?;
        Some(counted(len, v, what, count, 4 * E::N8Q))
    }
}

/// The error of a point section whose length is not `count` points (the
/// file readers' message).
fn count_error(what: &str, count: usize, size: usize, len: u64) -> CircomError {
    let n = count as u64 * size as u64;
    let msg = fault::length(&points_of(count, what, size), len, n);
    fault::section(FileKind::Zkey, what, msg)
}

/// The error of every push, and of the end, after a rejected chunk.
fn rejected(pos: u64) -> CircomError {
    CircomError::format(
        FileKind::Zkey,
        format!("an earlier chunk of this stream was rejected (at byte {pos})"),
    )
}

fn counted<T>(
    len: u64,
    v: Vec<T>,
    what: &str,
    count: usize,
    size: usize,
) -> Result<Vec<T>, CircomError> {
    if count.checked_mul(size).map(|n| n as u64) != Some(len) || v.len() != count {
        return Err(count_error(what, count, size, len));
    }
    Ok(v)
}

/// Where the stream is.
enum Place {
    /// In the 12-byte file header.
    FileHeader,
    /// In the 12-byte header of section `i`.
    SectionHeader,
    /// In the body of a section: how many bytes are left of it.
    Body {
        /// The section's id.
        id: u32,
        /// Its length.
        len: u64,
        /// Bytes of it not yet seen.
        left: u64,
        /// Where it goes.
        sink: Sink,
    },
    /// After the last section.
    End,
    /// A chunk was rejected; nothing more is read.
    Failed,
}

/// What becomes of a section's bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sink {
    /// Copied into the kept container.
    Keep,
    /// Decoded as points: the index in [`POINT_SECTIONS`].
    Points(usize),
}

/// A snarkjs Groth16 zkey of curve `E` read from its bytes in order, a
/// chunk at a time ([`ZkeyStream::push`]), then decoded
/// ([`ZkeyStream::finish`]): the same key, checks and messages as
/// [`read_zkey`](super::read_zkey) on the whole file, without the whole
/// file in memory (the module's docs say what is held). Chunks may split
/// the file anywhere.
///
/// ```no_run
/// use zkaccel_circom::{ZkeyOptions, ZkeyStream};
/// use std::io::Read;
/// let mut file = std::fs::File::open("circuit.zkey").unwrap();
/// let mut stream = ZkeyStream::<ark_bn254::Bn254>::new(ZkeyOptions::default());
/// let mut buf = vec![0u8; 1 << 20];
/// loop {
///     let n = file.read(&mut buf).unwrap();
///     if n == 0 {
///         break;
///     }
///     stream.push(&buf[..n])?;
/// }
/// let key = stream.finish()?;
/// # Ok::<(), zkaccel_circom::CircomError>(())
/// ```
pub struct ZkeyStream<E: CircomCurve> {
    opts: ZkeyOptions,
    place: Place,
    /// Bytes of the header in progress (file or section).
    head: Vec<u8>,
    /// Bytes pushed so far.
    pos: u64,
    /// The section count of the file header.
    count: u32,
    /// Sections begun so far.
    begun: u32,
    /// The container of the kept sections: the file's 12-byte header (its
    /// count patched when read), then each kept section whole.
    kept: Vec<u8>,
    kept_count: u32,
    /// The decoded points (a section's slot filled when it begins: each
    /// may appear once).
    points: StreamedPoints<E>,
    /// The bytes of a point split between chunks.
    partial: Vec<u8>,
    /// The header, once section 2 is whole.
    header: Option<ZkeyHeader>,
    /// Bytes after the last section (an error at the end).
    trailing: u64,
}

impl<E: CircomCurve> ZkeyStream<E> {
    /// An empty stream; `opts` as [`read_zkey`](super::read_zkey) takes them
    /// (`decode_unaligned` has no effect: every point is decoded).
    pub fn new(opts: ZkeyOptions) -> Self {
        ZkeyStream {
            opts,
            place: Place::FileHeader,
            head: Vec::with_capacity(12),
            pos: 0,
            count: 0,
            begun: 0,
            kept: Vec::new(),
            kept_count: 0,
            points: StreamedPoints {
                g1: Default::default(),
                g2: None,
            },
            partial: Vec::new(),
            header: None,
            trailing: 0,
        }
    }

    /// Bytes pushed so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The next bytes of the file. A malformed file is an error as soon as
    /// the bytes that show it arrive (a bad magic, another protocol or
    /// curve, a point not on the curve, a duplicated section, a point
    /// section of another length than the header's); after an error every
    /// push and [`ZkeyStream::finish`] fail.
    pub fn push(&mut self, mut bytes: &[u8]) -> Result<(), CircomError> {
        while !bytes.is_empty() {
            let used = match self.step(bytes) {
                Ok(n) => n,
                Err(e) => {
                    self.place = Place::Failed;
                    return Err(e);
                }
            };
            self.pos += used as u64;
            bytes = &bytes[used..];
        }
        Ok(())
    }

    /// Takes what the current place needs from `bytes`; returns how many
    /// bytes it took (at least one).
    fn step(&mut self, bytes: &[u8]) -> Result<usize, CircomError> {
        match &mut self.place {
            Place::FileHeader | Place::SectionHeader => {
                let n = (12 - self.head.len()).min(bytes.len());
                self.head.extend_from_slice(&bytes[..n]);
                if self.head.len() == 12 {
                    self.header_done()?;
                }
                Ok(n)
            }
            Place::Body { left, sink, .. } => {
                let n = (*left).min(bytes.len() as u64) as usize;
                *left -= n as u64;
                let (sink, done) = (*sink, *left == 0);
                match sink {
                    Sink::Keep => self.kept.extend_from_slice(&bytes[..n]),
                    Sink::Points(k) => self.decode(k, &bytes[..n])?,
                }
                if done {
                    self.section_done()?;
                }
                Ok(n)
            }
            Place::End => {
                self.trailing += bytes.len() as u64;
                Ok(bytes.len())
            }
            Place::Failed => Err(rejected(self.pos)),
        }
    }

    /// A whole 12-byte header: the file's (magic, version, count) or a
    /// section's (id, length).
    fn header_done(&mut self) -> Result<(), CircomError> {
        let head = std::mem::take(&mut self.head);
        if matches!(self.place, Place::FileHeader) {
            let mut c = BinCursor::new(&head, FileKind::Zkey, "file header");
            self.count = file_header(&mut c, FileKind::Zkey, MAGIC, 1)?;
            self.kept.extend_from_slice(&head);
            self.place = self.next_section();
            return Ok(());
        }
        let mut c = BinCursor::new(&head, FileKind::Zkey, "section header");
        let (id, len) = (c.u32()?, c.u64()?);
        self.begun += 1;
        let sink = match POINT_SECTIONS.iter().position(|s| s.0 == id) {
            Some(k) => {
                self.begin_points(k, len)?;
                Sink::Points(k)
            }
            None => {
                self.kept.extend_from_slice(&head);
                self.kept_count += 1;
                Sink::Keep
            }
        };
        self.place = Place::Body {
            id,
            len,
            left: len,
            sink,
        };
        if len == 0 {
            self.section_done()?;
        }
        Ok(())
    }

    /// The place after a section: the next one's header, or the end.
    fn next_section(&self) -> Place {
        if self.begun < self.count {
            Place::SectionHeader
        } else {
            Place::End
        }
    }

    /// Point section `k` of `len` bytes begins: once only, of the length
    /// the header gives where it came first, its vector reserved.
    fn begin_points(&mut self, k: usize, len: u64) -> Result<(), CircomError> {
        let (id, what) = POINT_SECTIONS[k];
        let begun = if id == 7 {
            self.points.g2.is_some()
        } else {
            self.points.g1[k].is_some()
        };
        if begun {
            return Err(fault::repeated(FileKind::Zkey, id, what));
        }
        let size = if id == 7 { 4 * E::N8Q } else { 2 * E::N8Q };
        // With the header (snarkjs writes it first), the length must be the
        // count it gives. Either way the vector starts small and grows with
        // the points that arrive (`feed`): a claimed length is not yet data,
        // and a short file must not reserve what its header claims.
        let count = match self.header {
            Some(h) => {
                let count = points_in_section(&h, id);
                if count as u64 * size as u64 != len {
                    return Err(count_error(what, count, size, len));
                }
                count
            }
            None => (len / size as u64) as usize,
        };
        let first = count.min(FIRST_RESERVE);
        if id == 7 {
            self.points.g2 = Some((len, Vec::with_capacity(first)));
        } else {
            self.points.g1[k] = Some((len, Vec::with_capacity(first)));
        }
        Ok(())
    }

    /// The bytes of point section `k`, decoded onto its vector.
    fn decode(&mut self, k: usize, bytes: &[u8]) -> Result<(), CircomError> {
        let check = self.opts.check_points;
        let what = POINT_SECTIONS[k].1;
        let partial = &mut self.partial;
        if POINT_SECTIONS[k].0 == 7 {
            let (len, v) = self.points.g2.as_mut().expect("begun before its bytes");
            feed(&g2::<E>(check), v, *len, partial, bytes, what)
        } else {
            let (len, v) = self.points.g1[k].as_mut().expect("begun before its bytes");
            feed(&g1::<E>(check), v, *len, partial, bytes, what)
        }
    }

    /// A section's last byte arrived: sections 1 and 2 are checked now.
    fn section_done(&mut self) -> Result<(), CircomError> {
        let Place::Body { id, sink, .. } = self.place else {
            unreachable!("called at the end of a body");
        };
        if let Sink::Points(_) = sink {
            // A split point at the end is a length error, found by the
            // loader's count check; its bytes are not carried over.
            self.partial.clear();
        }
        self.place = self.next_section();
        match id {
            1 => header::protocol(&mut self.kept_file()?)?,
            2 if self.header.is_none() => {
                let check = self.opts.check_points;
                let (h, _) = header::read_header::<E, _>(&mut self.kept_file()?, check)?;
                self.header = Some(h);
            }
            _ => {}
        }
        Ok(())
    }

    /// The kept sections so far as a container (its section count set to
    /// theirs).
    fn kept_container(&mut self) -> &[u8] {
        self.kept[8..12].copy_from_slice(&self.kept_count.to_le_bytes());
        &self.kept
    }

    /// [`ZkeyStream::kept_container`] read as a file.
    fn kept_file(&mut self) -> Result<SeekFile<Cursor<&[u8]>>, CircomError> {
        SeekFile::scan(Cursor::new(self.kept_container()), FileKind::Zkey, MAGIC, 1)
    }

    /// The key, once every byte is in: the same as
    /// [`read_zkey`](super::read_zkey) of the whole file, or its error (a
    /// truncated file names the section it ends in).
    pub fn finish(mut self) -> Result<ProverKey<E>, CircomError> {
        let (pos, kind) = (self.pos, FileKind::Zkey);
        match self.place {
            Place::FileHeader => return Err(fault::short_file_header(kind, pos)),
            Place::SectionHeader => {
                let at = pos - self.head.len() as u64;
                return Err(fault::short_section_header(kind, self.begun, at, pos));
            }
            Place::Body { id, len, left, .. } => {
                let start = pos - (len - left);
                return Err(fault::past_end(kind, self.begun - 1, id, len, start, pos));
            }
            Place::Failed => return Err(rejected(pos)),
            Place::End => {}
        }
        if self.trailing > 0 {
            return Err(fault::trailing(kind, self.trailing, self.count));
        }
        self.kept_container();
        let kept = std::mem::take(&mut self.kept);
        let file = SeekFile::scan(Cursor::new(kept), FileKind::Zkey, MAGIC, 1)?;
        load::<E, _>(file, None, self.opts, Some(self.points))
    }
}

/// `bytes` of a point section (of `len` bytes) decoded onto `out`, a point
/// split between chunks completed from `partial`; a point that does not
/// decode is an error naming its index in the section. `out` grows with
/// the points that arrive, at most doubling and never past the section's
/// point count, so a vector holds at most twice the points decoded so far
/// and ends exactly full.
fn feed<T, D>(
    dec: &PointDecoder<T, D>,
    out: &mut Vec<T>,
    len: u64,
    partial: &mut Vec<u8>,
    mut bytes: &[u8],
    what: &str,
) -> Result<(), CircomError>
where
    T: Copy + Send + Sync,
    D: Fn(&[u8]) -> Option<T> + Sync,
{
    let size = dec.size();
    let need = out.len() + (partial.len() + bytes.len()) / size;
    if need > out.capacity() {
        let cap = usize::try_from(len / size as u64).unwrap_or(usize::MAX);
        let target = need.max(2 * out.capacity()).min(cap.max(need));
        out.try_reserve_exact(target - out.len()).map_err(|_| {
            let msg = format!("{len} bytes of points do not fit in memory");
            fault::section(FileKind::Zkey, what, msg)
        })?;
    }
    let bad = AtomicUsize::new(usize::MAX);
    if !partial.is_empty() {
        let n = (size - partial.len()).min(bytes.len());
        partial.extend_from_slice(&bytes[..n]);
        bytes = &bytes[n..];
        if partial.len() < size {
            return Ok(());
        }
        dec.extend_decoded(out, partial, out.len(), &bad);
        partial.clear();
    }
    let whole = bytes.len() / size * size;
    dec.extend_decoded(out, &bytes[..whole], out.len(), &bad);
    partial.extend_from_slice(&bytes[whole..]);
    match bad.load(std::sync::atomic::Ordering::Relaxed) {
        usize::MAX => Ok(()),
        i => Err(fault::section(FileKind::Zkey, what, dec.bad_point(what, i))),
    }
}

/// The curve a zkey names, from the file's first bytes: `Ok(None)` while
/// they do not yet reach section 2's base-field modulus (snarkjs writes
/// sections 1 and 2 first, in a few hundred bytes). For a
/// [`ZkeyStream`] of the right curve before the rest arrives. A bad magic
/// or an unknown modulus is an error at once.
pub fn zkey_curve_prefix(bytes: &[u8]) -> Result<Option<Curve>, CircomError> {
    if bytes.len() < 12 {
        return Ok(None);
    }
    let mut c = BinCursor::new(&bytes[..12], FileKind::Zkey, "file header");
    let count = file_header(&mut c, FileKind::Zkey, MAGIC, 1)?;
    let mut pos = 12usize;
    for _ in 0..count {
        let Some(sh) = bytes.get(pos..pos + 12) else {
            return Ok(None);
        };
        let mut c = BinCursor::new(sh, FileKind::Zkey, "section header");
        let (id, len) = (c.u32()?, c.u64()?);
        pos += 12;
        if id == 2 {
            let body = &bytes[pos..];
            let Some(n8q) = body.get(..4) else {
                return Ok(None);
            };
            let n8q = u32::from_le_bytes(n8q.try_into().expect("4 bytes")) as usize;
            let Some(q) = body.get(4..).and_then(|b| b.get(..n8q)) else {
                return Ok(None);
            };
            return Curve::from_q(q)
                .map(Some)
                .ok_or_else(|| CircomError::Unsupported {
                    file: FileKind::Zkey,
                    msg: "the header's base-field modulus is neither bn128's nor bls12381's".into(),
                });
        }
        match usize::try_from(len).ok().and_then(|l| pos.checked_add(l)) {
            Some(end) if end <= bytes.len() => pos = end,
            _ => return Ok(None),
        }
    }
    Ok(None)
}
