//! The iden3 binary container shared by `.zkey`, `.wtns` and `.r1cs`: a
//! four-byte magic, a `u32` version, a `u32` section count, then sections,
//! each a `u32` id, a `u64` byte length and the bytes (all little-endian).

use crate::error::{CircomError, FileKind};
use core::ops::Range;
use std::io::{Read, Seek, SeekFrom};

/// The messages of the container's faults, one set for every reader (the
/// whole file's [`BinFile`], the seekable [`SeekFile`] and the zkey's
/// stream), so that all name a fault alike.
pub(crate) mod fault {
    use crate::error::{CircomError, FileKind};

    /// An error about section `name`: `section {name}: {msg}`.
    pub(crate) fn section(kind: FileKind, name: &str, msg: impl core::fmt::Display) -> CircomError {
        CircomError::format(kind, format!("section {name}: {msg}"))
    }

    /// `n` bytes needed at `pos`, `has` there.
    pub(crate) fn short(n: u64, pos: u64, has: u64) -> String {
        format!("needs {n} bytes at offset {pos}, has {has} (truncated?)")
    }

    /// A file shorter than its 12-byte header (`has` bytes).
    pub(crate) fn short_file_header(kind: FileKind, has: u64) -> CircomError {
        section(kind, "file header", short(12, 0, has))
    }

    /// The file ends inside section `i`'s 12-byte header, which starts at
    /// `pos`.
    pub(crate) fn short_section_header(kind: FileKind, i: u32, pos: u64, end: u64) -> CircomError {
        CircomError::format(
            kind,
            format!("section {i}'s header needs 12 bytes at offset {pos}, the file ends at {end} (truncated?)"),
        )
    }

    /// Section `i` (id `id`) claims `len` bytes from `start`, past the
    /// file's end.
    pub(crate) fn past_end(
        kind: FileKind,
        i: u32,
        id: u32,
        len: u64,
        start: u64,
        end: u64,
    ) -> CircomError {
        CircomError::format(
            kind,
            format!("section {i} (id {id}) claims {len} bytes at offset {start}, but the file ends at {end} (truncated?)"),
        )
    }

    /// `extra` bytes after the last of `count` sections.
    pub(crate) fn trailing(kind: FileKind, extra: u64, count: u32) -> CircomError {
        CircomError::format(
            kind,
            format!("{extra} bytes after the last of {count} sections"),
        )
    }

    /// Section `id` (`name`), which must appear once, appears again.
    pub(crate) fn repeated(kind: FileKind, id: u32, name: &str) -> CircomError {
        CircomError::format(
            kind,
            format!("section {id} ({name}) appears more than once"),
        )
    }

    /// `what` takes `n` bytes where `left` are.
    pub(crate) fn length(what: &str, left: u64, n: u64) -> String {
        format!("{what}: {left} bytes where {n} are expected")
    }
}

/// The container's first 12 bytes: the magic and version checked as
/// snarkjs checks them; the section count.
pub(crate) fn file_header(
    c: &mut Cursor<'_>,
    kind: FileKind,
    magic: &[u8; 4],
    max_version: u32,
) -> Result<u32, CircomError> {
    let err = |m: String| CircomError::format(kind, m);
    let m = c.bytes(4)?;
    if m != magic {
        return Err(err(format!(
            "magic is {:?}, expected {:?} (not a {kind} file)",
            String::from_utf8_lossy(m),
            String::from_utf8_lossy(magic)
        )));
    }
    let version = c.u32()?;
    if version == 0 || version > max_version {
        return Err(err(format!(
            "version {version} is not supported (1..={max_version})"
        )));
    }
    c.u32()
}

/// The one section-table entry that `is_it` picks: missing or duplicated
/// is an error naming section `id`.
fn the_one<'t, T>(
    kind: FileKind,
    table: &'t [T],
    is_it: impl Fn(&T) -> bool,
    id: u32,
    name: &str,
) -> Result<&'t T, CircomError> {
    let mut found = table.iter().filter(|s| is_it(s));
    let first = found
        .next()
        .ok_or_else(|| CircomError::format(kind, format!("section {id} ({name}) is missing")))?;
    if found.next().is_some() {
        return Err(fault::repeated(kind, id, name));
    }
    Ok(first)
}

/// A parsed container over the file's bytes: the sections' ranges, checked
/// to lie inside the file and to cover it exactly.
pub(crate) struct BinFile<'a> {
    kind: FileKind,
    data: &'a [u8],
    sections: Vec<(u32, Range<usize>)>,
}

impl<'a> BinFile<'a> {
    /// Parses the container; `magic` and `max_version` as snarkjs checks.
    pub(crate) fn parse(
        data: &'a [u8],
        kind: FileKind,
        magic: &[u8; 4],
        max_version: u32,
    ) -> Result<Self, CircomError> {
        let mut c = Cursor::new(data, kind, "file header");
        let count = file_header(&mut c, kind, magic, max_version)?;
        let mut sections = Vec::new();
        let end = data.len() as u64;
        for i in 0..count {
            let id = c.u32()?;
            let len = c.u64()?;
            let start = c.pos;
            let len = usize::try_from(len)
                .ok()
                .filter(|&l| l <= data.len() - start)
                .ok_or_else(|| fault::past_end(kind, i, id, len, start as u64, end))?;
            sections.push((id, start..start + len));
            c.pos = start + len;
        }
        if c.pos != data.len() {
            return Err(fault::trailing(kind, (data.len() - c.pos) as u64, count));
        }
        Ok(BinFile {
            kind,
            data,
            sections,
        })
    }

    /// The bytes of the one section `id` (missing or duplicated is an error).
    pub(crate) fn section(&self, id: u32, name: &'static str) -> Result<Cursor<'a>, CircomError> {
        let range = the_one(self.kind, &self.sections, |s| s.0 == id, id, name)?
            .1
            .clone();
        Ok(Cursor::new(&self.data[range], self.kind, name))
    }

    /// Whether section `id` is present.
    pub(crate) fn has(&self, id: u32) -> bool {
        self.sections.iter().any(|(i, _)| *i == id)
    }
}

/// A bounds-checked reader over one section; errors name the section and
/// offset.
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    kind: FileKind,
    name: &'static str,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(data: &'a [u8], kind: FileKind, name: &'static str) -> Self {
        Cursor {
            data,
            pos: 0,
            kind,
            name,
        }
    }

    /// An error about this section.
    pub(crate) fn err(&self, msg: impl core::fmt::Display) -> CircomError {
        fault::section(self.kind, self.name, msg)
    }

    /// How many bytes of the section are still unread.
    pub(crate) fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The next `n` bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], CircomError> {
        if self.data.len() - self.pos < n {
            let has = self.data.len() - self.pos;
            return Err(self.err(fault::short(n as u64, self.pos as u64, has as u64)));
        }
        let b = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(b)
    }

    /// The next little-endian `u32`.
    pub(crate) fn u32(&mut self) -> Result<u32, CircomError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The next little-endian `u64`.
    pub(crate) fn u64(&mut self) -> Result<u64, CircomError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// The rest of the section, which must be exactly `n` bytes.
    pub(crate) fn rest_exactly(&mut self, n: usize, what: &str) -> Result<&'a [u8], CircomError> {
        let left = self.data.len() - self.pos;
        if left != n {
            return Err(self.err(fault::length(what, left as u64, n as u64)));
        }
        self.bytes(n)
    }

    /// Checks that the section was read to its end.
    pub(crate) fn finish(&self) -> Result<(), CircomError> {
        if self.pos != self.data.len() {
            return Err(self.err(format!(
                "{} bytes left unread (the section is longer than its fields)",
                self.data.len() - self.pos
            )));
        }
        Ok(())
    }
}

/// A container behind a seekable reader (a file, or bytes in a
/// `std::io::Cursor`): the section table is read first, every section
/// checked to lie inside the file, and sections are then read one at a
/// time, in bounded chunks where they are large, so that a key is never
/// held whole in memory beside its decoded form.
pub(crate) struct SeekFile<R> {
    reader: R,
    kind: FileKind,
    /// Id, start offset and length of each section, in file order.
    sections: Vec<(u32, u64, u64)>,
}

impl<R: Read + Seek> SeekFile<R> {
    /// Reads the container's header and section table (the same checks
    /// and messages as [`BinFile::parse`]).
    pub(crate) fn scan(
        mut reader: R,
        kind: FileKind,
        magic: &[u8; 4],
        max_version: u32,
    ) -> Result<Self, CircomError> {
        let io = |e| CircomError::io(format!("{kind} file"), e);
        let file_len = reader.seek(SeekFrom::End(0)).map_err(io)?;
        reader.seek(SeekFrom::Start(0)).map_err(io)?;
        let mut head = [0u8; 12];
        if file_len < 12 {
            return Err(fault::short_file_header(kind, file_len));
        }
        reader.read_exact(&mut head).map_err(io)?;
        let count = file_header(
            &mut Cursor::new(&head, kind, "file header"),
            kind,
            magic,
            max_version,
        )?;
        let mut sections = Vec::new();
        let mut pos = 12u64;
        for i in 0..count {
            if file_len - pos < 12 {
                return Err(fault::short_section_header(kind, i, pos, file_len));
            }
            let mut sh = [0u8; 12];
            reader.read_exact(&mut sh).map_err(io)?;
            let mut c = Cursor::new(&sh, kind, "section header");
            let (id, len) = (c.u32()?, c.u64()?);
            let start = pos + 12;
            if len > file_len - start {
                return Err(fault::past_end(kind, i, id, len, start, file_len));
            }
            sections.push((id, start, len));
            pos = start + len;
            reader.seek(SeekFrom::Start(pos)).map_err(io)?;
        }
        if pos != file_len {
            return Err(fault::trailing(kind, file_len - pos, count));
        }
        Ok(SeekFile {
            reader,
            kind,
            sections,
        })
    }

    /// The one section `id`, positioned at its start (missing or duplicated
    /// is an error).
    pub(crate) fn open(
        &mut self,
        id: u32,
        name: &'static str,
    ) -> Result<Section<'_, R>, CircomError> {
        let &(_, start, len) = the_one(self.kind, &self.sections, |s| s.0 == id, id, name)?;
        let mut s = Section {
            reader: &mut self.reader,
            kind: self.kind,
            name,
            start,
            len,
            pos: 0,
        };
        s.seek_to(0)?;
        Ok(s)
    }

    /// Section `id` read whole (for the small ones: headers, IC).
    pub(crate) fn read_whole(
        &mut self,
        id: u32,
        name: &'static str,
    ) -> Result<Vec<u8>, CircomError> {
        let mut s = self.open(id, name)?;
        let len = usize::try_from(s.len).map_err(|_| s.err("too large for this machine"))?;
        let mut v = vec![0u8; len];
        s.read(&mut v)?;
        Ok(v)
    }
}

/// One section of a [`SeekFile`], read in order from a position.
pub(crate) struct Section<'f, R> {
    reader: &'f mut R,
    kind: FileKind,
    name: &'static str,
    start: u64,
    len: u64,
    pos: u64,
}

impl<R: Read + Seek> Section<'_, R> {
    /// An error about this section.
    pub(crate) fn err(&self, msg: impl core::fmt::Display) -> CircomError {
        fault::section(self.kind, self.name, msg)
    }

    fn io(&self, e: std::io::Error) -> CircomError {
        CircomError::io(format!("{} section {}", self.kind, self.name), e)
    }

    /// Bytes left after the position.
    pub(crate) fn remaining(&self) -> u64 {
        self.len - self.pos
    }

    /// The file offset of the position, and the bytes left after it (to
    /// use the rest of the section where it lies in a mapped file).
    pub(crate) fn file_range(&self) -> (u64, u64) {
        (self.start + self.pos, self.remaining())
    }

    /// The position inside the section.
    pub(crate) fn position(&self) -> u64 {
        self.pos
    }

    /// Moves to `pos` inside the section.
    pub(crate) fn seek_to(&mut self, pos: u64) -> Result<(), CircomError> {
        debug_assert!(pos <= self.len);
        self.reader
            .seek(SeekFrom::Start(self.start + pos))
            .map_err(|e| self.io(e))?;
        self.pos = pos;
        Ok(())
    }

    /// Fills `buf` with the next bytes.
    pub(crate) fn read(&mut self, buf: &mut [u8]) -> Result<(), CircomError> {
        let n = buf.len() as u64;
        if self.remaining() < n {
            return Err(self.err(fault::short(n, self.pos, self.remaining())));
        }
        self.reader.read_exact(buf).map_err(|e| self.io(e))?;
        self.pos += n;
        Ok(())
    }

    /// Reads the next `count` records of `size` bytes in chunks of at most
    /// `per_chunk` records and calls `f(first record's index, chunk)` on
    /// each, in order, while the next chunk is read on another thread (a
    /// read from the page cache is a single-threaded copy in the kernel,
    /// a sixth of a 2^20 key's load on 2 cores). Stops at the first error,
    /// `f`'s (a message about this section) before the read's.
    pub(crate) fn for_each_chunk(
        &mut self,
        count: usize,
        size: usize,
        per_chunk: usize,
        mut f: impl FnMut(usize, &[u8]) -> Result<(), String> + Send,
    ) -> Result<(), CircomError>
    where
        R: Send,
    {
        let per = per_chunk.max(1);
        let cap = per.min(count) * size;
        let (mut cur, mut next) = (vec![0u8; cap], vec![0u8; cap]);
        self.read(&mut cur[..per.min(count) * size])?;
        let mut done = 0;
        while done < count {
            let k = per.min(count - done);
            let k_next = per.min(count - done - k);
            let (read, used) = rayon::join(
                || match k_next {
                    0 => Ok(()),
                    _ => self.read(&mut next[..k_next * size]),
                },
                || f(done, &cur[..k * size]),
            );
            used.map_err(|msg| self.err(msg))?;
            read?;
            core::mem::swap(&mut cur, &mut next);
            done += k;
        }
        Ok(())
    }

    /// The next little-endian `u32`.
    pub(crate) fn u32(&mut self) -> Result<u32, CircomError> {
        let mut b = [0u8; 4];
        self.read(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Checks that the rest of the section is exactly `n` bytes.
    pub(crate) fn expect_rest(&self, n: u64, what: &str) -> Result<(), CircomError> {
        let left = self.remaining();
        if left != n {
            return Err(self.err(fault::length(what, left, n)));
        }
        Ok(())
    }
}

/// Writes a container: sections are appended whole.
pub(crate) struct BinWriter {
    pub(crate) buf: Vec<u8>,
}

impl BinWriter {
    /// The header for `sections` sections.
    pub(crate) fn new(magic: &[u8; 4], version: u32, sections: u32) -> Self {
        let mut buf = Vec::new();
        buf.extend_from_slice(magic);
        buf.extend_from_slice(&version.to_le_bytes());
        buf.extend_from_slice(&sections.to_le_bytes());
        BinWriter { buf }
    }

    /// Appends section `id` with `body`.
    pub(crate) fn section(&mut self, id: u32, body: &[u8]) {
        self.buf.extend_from_slice(&id.to_le_bytes());
        self.buf
            .extend_from_slice(&(body.len() as u64).to_le_bytes());
        self.buf.extend_from_slice(body);
    }
}
