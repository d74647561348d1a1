//! The iden3 binary container shared by `.zkey`, `.wtns` and `.r1cs`: a
//! four-byte magic, a `u32` version, a `u32` section count, then sections,
//! each a `u32` id, a `u64` byte length and the bytes (all little-endian).

use crate::error::{CircomError, FileKind};
use core::ops::Range;

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
        let err = |m: String| CircomError::format(kind, m);
        let mut c = Cursor::new(data, kind, "file header");
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
        let count = c.u32()?;
        let mut sections = Vec::new();
        for i in 0..count {
            let id = c.u32()?;
            let len = c.u64()?;
            let start = c.pos;
            let len = usize::try_from(len)
                .ok()
                .filter(|&l| l <= data.len() - start)
                .ok_or_else(|| {
                    err(format!(
                        "section {i} (id {id}) claims {len} bytes at offset {start}, but the file ends at {} (truncated?)",
                        data.len()
                    ))
                })?;
            sections.push((id, start..start + len));
            c.pos = start + len;
        }
        if c.pos != data.len() {
            return Err(err(format!(
                "{} bytes after the last of {count} sections",
                data.len() - c.pos
            )));
        }
        Ok(BinFile {
            kind,
            data,
            sections,
        })
    }

    /// The bytes of the one section `id` (missing or duplicated is an error).
    pub(crate) fn section(&self, id: u32, name: &'static str) -> Result<Cursor<'a>, CircomError> {
        let mut found = self.sections.iter().filter(|(i, _)| *i == id);
        let (_, range) = found.next().ok_or_else(|| {
            CircomError::format(self.kind, format!("section {id} ({name}) is missing"))
        })?;
        if found.next().is_some() {
            return Err(CircomError::format(
                self.kind,
                format!("section {id} ({name}) appears more than once"),
            ));
        }
        Ok(Cursor::new(&self.data[range.clone()], self.kind, name))
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
    fn new(data: &'a [u8], kind: FileKind, name: &'static str) -> Self {
        Cursor {
            data,
            pos: 0,
            kind,
            name,
        }
    }

    /// An error about this section.
    pub(crate) fn err(&self, msg: impl core::fmt::Display) -> CircomError {
        CircomError::format(self.kind, format!("section {}: {msg}", self.name))
    }

    /// The next `n` bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], CircomError> {
        if self.data.len() - self.pos < n {
            return Err(self.err(format!(
                "needs {n} bytes at offset {}, has {} (truncated?)",
                self.pos,
                self.data.len() - self.pos
            )));
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
            return Err(self.err(format!("{what}: {left} bytes where {n} are expected")));
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
