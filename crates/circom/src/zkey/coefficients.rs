//! A zkey's section 4, the coefficients of A and B, and both of its
//! readers: [`KeyMatrix`], a key's matrix decoded into compressed rows
//! ([`coefficients`], from any reader) or read where it lies in a mapped
//! zkey's coefficient section ([`mapped_coefficients`]); [`read_matrices`]
//! takes the second where it applies and the first otherwise.
//!
//! Section 4 is a list of `(matrix, constraint, signal, value)` entries of
//! 44 bytes (on both curves), the value stored as the integer `v R^2`.
//! snarkjs writes them in constraint order (A's and B's entries of a
//! constraint side by side), `write_zkey` all of A and then all of B: in
//! both, each matrix's entries come in nondecreasing constraint order. A
//! mapped key with that order keeps the entries where they are and only
//! indexes them: for each matrix and row, the range of entries that holds
//! the row's entries ([`mapped_coefficients`]). That costs one parallel pass
//! over the section and 8 bytes a row, instead of writing 36 bytes an entry
//! into new arrays; the witness map then reads each row from the file's
//! pages, skipping the other matrix's entries where they are interleaved.

use super::header::ZkeyHeader;
use super::points::CHUNK_BYTES;
use crate::binfile::{Section, SeekFile};
use crate::curve::{fr_to_le, CircomCurve};
use crate::error::{CircomError, FileKind};
use crate::points::ZkeyMap;
use ark_ff::{Field, PrimeField, Zero};
use rayon::prelude::*;
use std::io::{Read, Seek};
use std::sync::atomic::{AtomicUsize, Ordering};
use zkaccel_groth16::{ConstraintMatrix, CsrMatrix};

/// One of a key's matrices (A or B), `num_constraints` rows: decoded
/// compressed rows (a key read from a reader or bytes, or a file whose
/// entries are not in row order), or, from [`map_zkey`](crate::map_zkey),
/// the entries where they lie in the mapped file's coefficient section,
/// indexed by row (8 bytes a row; the witness map reads each row's entries
/// there). Either way a [`ConstraintMatrix`] with the same rows;
/// [`KeyMatrix::to_csr`] gives the decoded form.
#[derive(Clone)]
pub struct KeyMatrix<E: CircomCurve>(Inner<E>);

#[derive(Clone)]
enum Inner<E: CircomCurve> {
    Decoded(CsrMatrix<E::Fr>),
    Mapped(Mapped<E>),
}

/// A matrix's rows as ranges of section 4's entries in a mapped file.
#[derive(Clone)]
struct Mapped<E: CircomCurve> {
    map: ZkeyMap,
    /// Byte offset of the section's first entry.
    data: usize,
    /// 0 for A, 1 for B: entries of the other matrix inside a row's range
    /// are skipped.
    matrix: u32,
    /// Row `r`'s entries lie in entries `starts[r]..ends[r]` (empty where
    /// `ends[r] <= starts[r]`).
    starts: Vec<u32>,
    ends: Vec<u32>,
    /// This matrix's entries in the rows kept.
    entries: usize,
    /// The largest signal index of the matrix's entries.
    max_signal: Option<usize>,
    /// The stored form of the value 1 (`R^2`), whose terms need no
    /// multiplication.
    one: [u8; 32],
    /// `R^-1`: a stored value read as a Montgomery form is `v R`.
    r_inv: E::Fr,
}

/// Bytes of one entry: matrix, constraint, signal (u32 each), value.
const ENTRY: usize = 12 + 32;

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// An entry's `(matrix, constraint, signal)`.
fn entry_ids(b: &[u8]) -> (u32, usize, usize) {
    (u32_at(b, 0), u32_at(b, 4) as usize, u32_at(b, 8) as usize)
}

/// Whether an entry's indices are in range for the header.
fn ids_in_range((m, row, signal): (u32, usize, usize), h: &ZkeyHeader) -> bool {
    m <= 1 && row < h.domain_size && signal < h.n_vars
}

/// The number of constraints, from the largest row index: snarkjs appends
/// one row per public signal and the leading one, `A[nConstraints + s] =
/// 1 * signal s` for `s = 0..=nPublic`, the last of them the largest row.
/// Errors if there is no row, or the count disagrees with the header.
fn constraints_of(max_row: Option<usize>, h: &ZkeyHeader) -> Result<usize, String> {
    let n_public = h.n_public;
    let max_row =
        max_row.ok_or("no coefficients (a snarkjs key has at least the public-input rows)")?;
    let num_constraints = max_row.checked_sub(n_public).ok_or_else(|| {
        format!("the largest constraint index {max_row} is below nPublic = {n_public}")
    })?;
    // Checked: on 32-bit targets (wasm32) the row count can overflow.
    let expected_domain = max_row
        .checked_add(1)
        .and_then(usize::checked_next_power_of_two)
        .ok_or_else(|| format!("the largest constraint index {max_row} is out of range"))?;
    if expected_domain != h.domain_size {
        return Err(format!(
            "{num_constraints} constraints and {} inputs need a domain of {expected_domain}, the header says {}",
            n_public + 1,
            h.domain_size,
        ));
    }
    Ok(num_constraints)
}

/// The messages of both section-4 readers (the read and the mapped path
/// must name a bad entry alike).
mod msg {
    use crate::zkey::header::ZkeyHeader;

    /// Entry `i`'s indices are out of range.
    pub(super) fn bad_ids(
        i: usize,
        (m, row, signal): (u32, usize, usize),
        h: &ZkeyHeader,
    ) -> String {
        format!(
            "coefficient {i} (matrix {m}, constraint {row}, signal {signal}): matrix not 0 or 1, constraint not below domainSize = {}, or signal not below nVars = {}",
            h.domain_size, h.n_vars
        )
    }

    /// Entry `i`'s value is not below r.
    pub(super) fn bad_value(i: usize, (m, row, signal): (u32, usize, usize)) -> String {
        format!(
            "coefficient {i} (matrix {m}, constraint {row}, signal {signal}): value not below r"
        )
    }

    /// Entry `i` lies in a public-input row but is not that row's one term.
    pub(super) fn public_row(
        i: usize,
        (m, row, signal): (u32, usize, usize),
        num_constraints: usize,
    ) -> String {
        format!(
            "coefficient {i}: row {row} is a public-input row, which must hold exactly A = 1 * signal {} (found matrix {m}, signal {signal})",
            row - num_constraints
        )
    }

    /// Public-input row `num_constraints + s` has no entry.
    pub(super) fn missing_public_row(num_constraints: usize, s: usize) -> String {
        format!(
            "the public-input row {} (signal {s}) is missing",
            num_constraints + s
        )
    }
}

impl<E: CircomCurve> Mapped<E> {
    /// Row `row`'s entries of this matrix: `(stored value bytes, signal)`.
    fn entries_of(&self, row: usize) -> impl Iterator<Item = (&[u8], usize)> + '_ {
        let (s, e) = (self.starts[row] as usize, self.ends[row] as usize);
        let bytes = match e > s {
            true => &self.map.bytes()[self.data + s * ENTRY..self.data + e * ENTRY],
            false => &[][..],
        };
        bytes
            .chunks_exact(ENTRY)
            .filter(|b| u32_at(b, 0) == self.matrix)
            .map(|b| (&b[12..], u32_at(b, 8) as usize))
    }

    /// The value a stored form stands for (checked below r when the key was
    /// loaded; zero if the file changed under the map since, which the
    /// proof's self-check then rejects).
    fn value(&self, stored: &[u8]) -> E::Fr {
        E::fr_from_mont(stored).map_or(E::Fr::zero(), |v| v * self.r_inv)
    }
}

impl<E: CircomCurve> KeyMatrix<E> {
    /// Whether the rows are read in place from a mapped zkey.
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Inner::Mapped(_))
    }

    /// The matrix in compressed rows (a copy where it is mapped).
    pub fn to_csr(&self) -> CsrMatrix<E::Fr> {
        match &self.0 {
            Inner::Decoded(m) => m.clone(),
            Inner::Mapped(m) => {
                let mut starts = Vec::with_capacity(m.starts.len() + 1);
                let mut columns = Vec::with_capacity(m.entries);
                let mut values = Vec::with_capacity(m.entries);
                starts.push(0);
                for row in 0..m.starts.len() {
                    for (stored, signal) in m.entries_of(row) {
                        columns.push(signal as u32);
                        values.push(m.value(stored));
                    }
                    starts.push(columns.len());
                }
                CsrMatrix::from_parts(starts, columns, values)
                    .expect("row starts built in order over the columns")
            }
        }
    }

    /// The matrix decoded into compressed rows.
    pub fn into_csr(self) -> CsrMatrix<E::Fr> {
        match self.0 {
            Inner::Decoded(m) => m,
            mapped => KeyMatrix(mapped).to_csr(),
        }
    }

    /// Number of stored entries.
    pub fn num_entries(&self) -> usize {
        match &self.0 {
            Inner::Decoded(m) => m.num_entries(),
            Inner::Mapped(m) => m.entries,
        }
    }
}

impl<E: CircomCurve> From<CsrMatrix<E::Fr>> for KeyMatrix<E> {
    fn from(m: CsrMatrix<E::Fr>) -> Self {
        KeyMatrix(Inner::Decoded(m))
    }
}

impl<E: CircomCurve> PartialEq for KeyMatrix<E> {
    /// Equal rows, however each is held.
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Inner::Decoded(a), Inner::Decoded(b)) => a == b,
            _ => self.to_csr() == other.to_csr(),
        }
    }
}

impl<E: CircomCurve> core::fmt::Debug for KeyMatrix<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyMatrix")
            .field("rows", &self.num_rows())
            .field("entries", &self.num_entries())
            .field("mapped", &self.is_mapped())
            .finish()
    }
}

impl<E: CircomCurve> ConstraintMatrix<E::Fr> for KeyMatrix<E> {
    fn num_rows(&self) -> usize {
        match &self.0 {
            Inner::Decoded(m) => m.num_rows(),
            Inner::Mapped(m) => m.starts.len(),
        }
    }

    fn indices_below(&self, rows: usize, num_vars: usize) -> bool {
        match &self.0 {
            Inner::Decoded(m) => m.indices_below(rows, num_vars),
            // The largest index of all rows: never true where an index of
            // the first `rows` is out of range.
            Inner::Mapped(m) => m.max_signal.is_none_or(|s| s < num_vars),
        }
    }

    fn row_times(&self, row: usize, z: &[E::Fr]) -> E::Fr {
        match &self.0 {
            Inner::Decoded(m) => m.row_times(row, z),
            Inner::Mapped(m) => {
                // Terms with the value 1 are added; the others are summed
                // as (v R) z and the sum multiplied by R^-1 once.
                let (mut ones, mut scaled) = (E::Fr::zero(), E::Fr::zero());
                let mut any_scaled = false;
                for (stored, signal) in m.entries_of(row) {
                    if stored == m.one {
                        ones += z[signal];
                    } else {
                        let v_r = E::fr_from_mont(stored).unwrap_or_else(E::Fr::zero);
                        scaled += v_r * z[signal];
                        any_scaled = true;
                    }
                }
                match any_scaled {
                    true => ones + scaled * m.r_inv,
                    false => ones,
                }
            }
        }
    }

    fn for_each_in_row(&self, row: usize, mut f: impl FnMut(E::Fr, usize)) {
        match &self.0 {
            Inner::Decoded(m) => m.for_each_in_row(row, f),
            Inner::Mapped(m) => m
                .entries_of(row)
                .for_each(|(stored, signal)| f(m.value(stored), signal)),
        }
    }
}

/// Section 4: A and B, `num_constraints` rows each, and that number. From
/// a mapped file, read where they lie where each matrix's entries are in
/// row order ([`mapped_coefficients`]); otherwise, or without a map,
/// decoded into compressed rows ([`coefficients`]).
#[allow(clippy::type_complexity)]
pub(super) fn read_matrices<E: CircomCurve, R: Read + Seek + Send>(
    file: &mut SeekFile<R>,
    map: Option<&ZkeyMap>,
    header: &ZkeyHeader,
) -> Result<([KeyMatrix<E>; 2], usize), CircomError> {
    let mapped = match map {
        Some(map) => {
            let (c, count) = open_coefficients::<E, _>(file)?;
            let start = c.file_range().0 as usize;
            mapped_coefficients::<E>(map, start, count, header, |m| c.err(m))?
        }
        None => None,
    };
    match mapped {
        Some(m) => Ok(m),
        None => {
            let (m, n) = coefficients::<E, _>(file, header)?;
            Ok((m.map(KeyMatrix::from), n))
        }
    }
}

/// `n` copies of `x`, written in parallel: both threads take the
/// first-touch page faults (`vec![x; n]` leaves them all to one thread, or,
/// for zeros, to the first writer).
fn filled<T: Copy + Send + Sync>(n: usize, x: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.par_extend(rayon::iter::repeat_n(x, n));
    v
}

/// `R^-1` in the scalar field (`R = 2^256`, the Montgomery radix).
pub(super) fn r_inverse<F: PrimeField>() -> F {
    F::from(2u64)
        .pow([256u64])
        .inverse()
        .expect("2 is invertible in an odd prime field")
}

/// Section 4 opened at its first entry, its length checked against the
/// number of entries it starts with; and that number.
fn open_coefficients<E: CircomCurve, R: Read + Seek>(
    file: &mut SeekFile<R>,
) -> Result<(Section<'_, R>, usize), CircomError> {
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

/// Disjoint pieces `v[lo..hi]` of `v`, one per range, for ranges in
/// increasing order that do not overlap (`hi <= lo`: an empty piece).
fn carve(mut v: &mut [u32], ranges: impl Iterator<Item = (usize, usize)>) -> Vec<&mut [u32]> {
    let mut at = 0;
    ranges
        .map(|(lo, hi)| {
            if hi <= lo {
                return &mut [][..];
            }
            let (_, tail) = std::mem::take(&mut v).split_at_mut(lo - at);
            let (mine, rest) = tail.split_at_mut(hi - lo);
            (v, at) = (rest, hi);
            mine
        })
        .collect()
}

/// Entries per task in [`mapped_coefficients`] (small in unit tests, so
/// that small sections cross many task boundaries).
const COEF_TASK: usize = if cfg!(test) { 1 << 4 } else { 1 << 15 };

/// What one task of [`mapped_coefficients`] saw of its entries.
#[derive(Clone, Copy, Default)]
struct Summary {
    /// Each matrix's first and last row here (`None`: no entry).
    first: [Option<usize>; 2],
    last: [Option<usize>; 2],
    /// Entries of each matrix.
    count: [usize; 2],
    /// Each matrix's largest signal.
    max_signal: [Option<usize>; 2],
    /// Each matrix's entries are in nondecreasing row order here.
    sorted: bool,
    /// The first entry with an index out of range, and with a value not
    /// below r.
    bad_ids: Option<usize>,
    bad_value: Option<usize>,
}

/// Section 4 of a mapped key, indexed in place (see the [module
/// docs](self)): `count` entries at byte `start` of `map`. `None` where a
/// matrix's entries are not in nondecreasing row order (the caller then
/// decodes them with the general reader). Checks and messages as the
/// general reader's: indices in range, values below r, and the public-input
/// rows snarkjs appends (`A[n + s] = 1 * signal s`), which are then left out.
#[allow(clippy::type_complexity)]
fn mapped_coefficients<E: CircomCurve>(
    map: &ZkeyMap,
    start: usize,
    count: usize,
    header: &ZkeyHeader,
    err: impl Fn(String) -> CircomError,
) -> Result<Option<([KeyMatrix<E>; 2], usize)>, CircomError> {
    debug_assert_eq!(12 + E::N8R, ENTRY);
    let data = &map.bytes()[start..start + count * ENTRY];
    let n_public = header.n_public;
    let ids = |i: usize| entry_ids(&data[i * ENTRY..]);
    // Pass 1: indices and values in range; rows, counts and order per task.
    let tasks = summarize_tasks::<E>(data, header);
    if let Some(i) = tasks.iter().find_map(|t| t.bad_ids) {
        return Err(err(msg::bad_ids(i, ids(i), header)));
    }
    if let Some(i) = tasks.iter().find_map(|t| t.bad_value) {
        return Err(err(msg::bad_value(i, ids(i))));
    }
    let Some(max_row) = max_row_in_order(&tasks) else {
        return Ok(None);
    };
    let num_constraints = constraints_of(max_row, header).map_err(&err)?;

    // Pass 2: the row ranges, over all rows (the public-input rows too).
    let ranges = row_ranges(data, count, &tasks, num_constraints + n_public + 1);

    // The public-input rows: A[n + s] holds exactly `1 * signal s`; B has
    // none.
    let r_inv = r_inverse::<E::Fr>();
    let mut one = Vec::with_capacity(32);
    fr_to_le(
        &(r_inv * r_inv).inverse().expect("R is invertible"),
        &mut one,
    );
    let one: [u8; 32] = one.try_into().expect("32 bytes");
    check_public_rows(data, &ranges, &one, num_constraints, n_public, &err)?;

    let RowRanges {
        starts: [sa, sb],
        ends: [ea, eb],
    } = ranges;
    let matrix = |m: usize, mut starts: Vec<u32>, mut ends: Vec<u32>| {
        starts.truncate(num_constraints);
        ends.truncate(num_constraints);
        let public = if m == 0 { n_public + 1 } else { 0 };
        KeyMatrix(Inner::Mapped(Mapped {
            map: map.clone(),
            data: start,
            matrix: m as u32,
            starts,
            ends,
            entries: tasks.iter().map(|t| t.count[m]).sum::<usize>() - public,
            max_signal: tasks.iter().filter_map(|t| t.max_signal[m]).max(),
            one,
            r_inv,
        }))
    };
    Ok(Some((
        [matrix(0, sa, ea), matrix(1, sb, eb)],
        num_constraints,
    )))
}

/// Pass 1 of [`mapped_coefficients`]: indices and values in range; rows,
/// counts and order per task (of [`COEF_TASK`] entries of `data`, the
/// tasks in parallel).
fn summarize_tasks<E: CircomCurve>(data: &[u8], header: &ZkeyHeader) -> Vec<Summary> {
    data.par_chunks(COEF_TASK * ENTRY)
        .enumerate()
        .map(|(t, chunk)| {
            let mut s = Summary {
                sorted: true,
                ..Summary::default()
            };
            for (k, b) in chunk.chunks_exact(ENTRY).enumerate() {
                let (m, row, signal) = entry_ids(b);
                if !ids_in_range((m, row, signal), header) {
                    s.bad_ids = Some(t * COEF_TASK + k);
                    break;
                }
                if s.bad_value.is_none() && E::fr_from_mont(&b[12..]).is_none() {
                    s.bad_value = Some(t * COEF_TASK + k);
                }
                let m = m as usize;
                s.sorted &= s.last[m].is_none_or(|l| l <= row);
                s.first[m].get_or_insert(row);
                s.last[m] = Some(row);
                s.count[m] += 1;
                s.max_signal[m] = s.max_signal[m].max(Some(signal));
            }
            s
        })
        .collect()
}

/// Where each matrix's entries are in nondecreasing row order over all the
/// tasks, the largest row of any entry (`Some(None)`: no entry); `None`
/// where they are not.
fn max_row_in_order(tasks: &[Summary]) -> Option<Option<usize>> {
    let mut last: [Option<usize>; 2] = [None; 2];
    for t in tasks {
        if !t.sorted {
            return None;
        }
        for (m, last) in last.iter_mut().enumerate() {
            if let (Some(l), Some(f)) = (*last, t.first[m]) {
                if f < l {
                    return None;
                }
            }
            *last = t.last[m].or(*last);
        }
    }
    Some(last.into_iter().flatten().max())
}

/// Both matrices' rows as ranges of section 4's entries: row `r` of matrix
/// `m` lies in entries `starts[m][r]..ends[m][r]` (empty where the end is
/// not above the start), the other matrix's entries among them skipped.
struct RowRanges {
    starts: [Vec<u32>; 2],
    ends: [Vec<u32>; 2],
}

impl RowRanges {
    /// The indices of matrix `m`'s entries of row `row` in `data`.
    fn entries<'a>(
        &'a self,
        data: &'a [u8],
        m: usize,
        row: usize,
    ) -> impl Iterator<Item = usize> + 'a {
        let (s, e) = (self.starts[m][row] as usize, self.ends[m][row] as usize);
        (s..e.max(s)).filter(move |&i| u32_at(&data[i * ENTRY..], 0) as usize == m)
    }
}

/// The rows whose range bounds one task of [`row_ranges`] writes, per
/// matrix: its starts are those of rows `.0..(.1)`, its ends those of
/// rows `.2..(.3)`.
type Owned = [(usize, usize, usize, usize); 2];

/// Pass 2 of [`mapped_coefficients`]: the row ranges of the `count`
/// entries of `data`, over all `rows` rows (the public-input rows too).
/// Row r's range starts at the first entry with a row >= r and ends
/// after the last entry with a row <= r. The task that holds that entry
/// writes it: task t owns the starts of rows (L, its last row], L being
/// the last row before it, and the ends of rows [its first row, the next
/// task's first row), so every task writes its own disjoint slices.
fn row_ranges(data: &[u8], count: usize, tasks: &[Summary], rows: usize) -> RowRanges {
    let mut starts = [0, 1].map(|_| filled(rows, count as u32));
    let mut ends = [0, 1].map(|_| filled(rows, 0u32));
    let mut next_first: [Option<usize>; 2] = [None; 2];
    let mut owned: Vec<Owned> = vec![[(0usize, 0usize, 0usize, 0usize); 2]; tasks.len()];
    for (t, s) in tasks.iter().enumerate().rev() {
        for m in 0..2 {
            if let (Some(f), Some(l)) = (s.first[m], s.last[m]) {
                owned[t][m] = (0, l + 1, f, next_first[m].unwrap_or(rows));
                next_first[m] = Some(f);
            }
        }
    }
    let mut prev_last: [Option<usize>; 2] = [None; 2];
    for (t, s) in tasks.iter().enumerate() {
        for m in 0..2 {
            if let Some(l) = s.last[m] {
                owned[t][m].0 = prev_last[m].map_or(0, |p| p + 1);
                prev_last[m] = Some(l);
            }
        }
    }
    let [s0, s1] = &mut starts;
    let [e0, e1] = &mut ends;
    let piece = |v, m: usize, ends: bool| {
        let range = |o: &Owned| match ends {
            false => (o[m].0, o[m].1),
            true => (o[m].2, o[m].3),
        };
        carve(v, owned.iter().map(range))
    };
    let parts: Vec<[(&mut [u32], &mut [u32]); 2]> = piece(s0, 0, false)
        .into_iter()
        .zip(piece(e0, 0, true))
        .zip(piece(s1, 1, false).into_iter().zip(piece(e1, 1, true)))
        .map(|(a, b)| [a, b])
        .collect();
    data.par_chunks(COEF_TASK * ENTRY)
        .zip(parts.into_par_iter())
        .zip(owned.par_iter())
        .enumerate()
        .for_each(|(t, ((chunk, mut out), o))| task_ranges(t, chunk, &mut out, o));
    RowRanges { starts, ends }
}

/// Task `t`'s part of [`row_ranges`]: from its entries `chunk`, the starts
/// and ends it owns (`o`), written into its slices `out` (per matrix, the
/// starts and the ends).
fn task_ranges(t: usize, chunk: &[u8], out: &mut [(&mut [u32], &mut [u32]); 2], o: &Owned) {
    // Per matrix: the next row whose start is due, and the previous
    // entry (row, index).
    let mut due = [o[0].0, o[1].0];
    let mut prev: [Option<(usize, usize)>; 2] = [None; 2];
    for (k, b) in chunk.chunks_exact(ENTRY).enumerate() {
        let (m, row, _) = entry_ids(b);
        let (m, g) = (m as usize, t * COEF_TASK + k);
        let (slo, _, elo, _) = o[m];
        let (st, en) = &mut out[m];
        while due[m] <= row {
            st[due[m] - slo] = g as u32;
            due[m] += 1;
        }
        if let Some((pr, pg)) = prev[m] {
            for r in pr..row {
                en[r - elo] = pg as u32 + 1;
            }
        }
        prev[m] = Some((row, g));
    }
    for m in 0..2 {
        if let Some((pr, pg)) = prev[m] {
            let (_, _, elo, ehi) = o[m];
            for r in pr..ehi {
                out[m].1[r - elo] = pg as u32 + 1;
            }
        }
    }
}

/// The public-input rows of a mapped section 4 (`data`, indexed by
/// `ranges`): A[n + s] holds exactly `1 * signal s`, whose stored value is
/// `one`; B has none. Errors as the general reader's.
fn check_public_rows(
    data: &[u8],
    ranges: &RowRanges,
    one: &[u8; 32],
    num_constraints: usize,
    n_public: usize,
    err: &impl Fn(String) -> CircomError,
) -> Result<(), CircomError> {
    let rows = num_constraints + n_public + 1;
    let ids = |i: usize| entry_ids(&data[i * ENTRY..]);
    let public_row = |i: usize| err(msg::public_row(i, ids(i), num_constraints));
    if let Some(i) = (num_constraints..rows).find_map(|r| ranges.entries(data, 1, r).next()) {
        return Err(public_row(i));
    }
    for s in 0..=n_public {
        let mut entries = ranges.entries(data, 0, num_constraints + s);
        let Some(i) = entries.next() else {
            return Err(err(msg::missing_public_row(num_constraints, s)));
        };
        let b = &data[i * ENTRY..(i + 1) * ENTRY];
        if u32_at(b, 8) as usize != s || b[12..] != *one {
            return Err(public_row(i));
        }
        if let Some(i) = entries.next() {
            return Err(public_row(i));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binfile::BinWriter;
    use crate::curve::Curve;
    use crate::zkey::header::MAGIC;
    use ark_bn254::{Bn254, Fr};
    use ark_ff::UniformRand;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};

    /// Section 4's body: the count, then `(matrix, row, signal, value)`
    /// entries, each value stored as the integer `v R^2`.
    fn section(entries: &[(u32, usize, usize, Fr)]) -> Vec<u8> {
        let entries: Vec<_> = entries
            .iter()
            .map(|&(m, row, signal, v)| (m, row as u32, signal as u32, v))
            .collect();
        body_of(&entries, None)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any order in which each matrix's rows do not decrease (A's and
        /// B's entries interleaved at random, several entries a row, empty
        /// rows, values 1 and others): the indexed rows are the entries'
        /// rows, and row times z is the naive sum.
        #[test]
        fn indexed_rows_are_the_entries_rows(
            seed in any::<u64>(),
            n in 1usize..60,
            n_public in 0usize..3,
        ) {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let n_vars = n_public + 1 + rng.gen_range(0..8);
            let value = |rng: &mut rand_chacha::ChaCha8Rng| match rng.gen_range(0..3) {
                0 => Fr::from(1u64),
                1 => -Fr::from(1u64),
                _ => Fr::rand(rng),
            };
            // Each matrix's entries, in row order; the naive rows.
            let mut lists: [Vec<(u32, usize, usize, Fr)>; 2] = [vec![], vec![]];
            let mut want: [Vec<Vec<(Fr, usize)>>; 2] = [vec![], vec![]];
            for row in 0..n {
                for (m, (list, want)) in lists.iter_mut().zip(&mut want).enumerate() {
                    want.push(vec![]);
                    for _ in 0..rng.gen_range(0..4) {
                        let (signal, v) = (rng.gen_range(0..n_vars), value(&mut rng));
                        list.push((m as u32, row, signal, v));
                        want[row].push((v, signal));
                    }
                }
            }
            for s in 0..=n_public {
                lists[0].push((0, n + s, s, Fr::from(1u64)));
            }
            // A random merge of the two lists.
            let (mut a, mut b) = (lists[0].iter().peekable(), lists[1].iter().peekable());
            let mut entries = vec![];
            while a.peek().is_some() || b.peek().is_some() {
                let from_a = b.peek().is_none() || (a.peek().is_some() && rng.gen_bool(0.5));
                entries.push(*if from_a { a.next() } else { b.next() }.unwrap());
            }
            let header = ZkeyHeader {
                curve: Curve::Bn254,
                n_vars,
                n_public,
                domain_size: (n + n_public + 1).next_power_of_two(),
            };
            let bytes = section(&entries);
            let map = ZkeyMap::from_bytes(&bytes);
            let err = |m: String| CircomError::Mismatch(m);
            let read = mapped_coefficients::<Bn254>(&map, 4, entries.len(), &header, err);
            let (matrices, num_constraints) = read.unwrap().expect("rows in order");
            prop_assert_eq!(num_constraints, n);
            let z: Vec<Fr> = (0..n_vars).map(|_| Fr::rand(&mut rng)).collect();
            for m in 0..2 {
                let matrix = &matrices[m];
                prop_assert!(matrix.is_mapped());
                prop_assert_eq!(matrix.num_rows(), n);
                prop_assert_eq!(matrix.num_entries(), want[m].iter().map(Vec::len).sum::<usize>());
                prop_assert!(matrix.indices_below(n, n_vars));
                let rows = matrix.to_csr().to_rows();
                for (row, want) in want[m].iter().enumerate() {
                    let naive: Fr = want.iter().map(|&(v, j)| v * z[j]).sum();
                    prop_assert_eq!(matrix.row_times(row, &z), naive, "matrix {} row {}", m, row);
                    prop_assert_eq!(&rows[row], want, "matrix {} row {}", m, row);
                }
            }
        }
    }

    /// A row of A out of order (after a larger row) leaves the section to
    /// the general reader; so does a B row out of order.
    #[test]
    fn rows_out_of_order_are_left_to_the_general_reader() {
        let one = Fr::from(1u64);
        let header = ZkeyHeader {
            curve: Curve::Bn254,
            n_vars: 2,
            n_public: 0,
            domain_size: 4,
        };
        for entries in [
            vec![(0, 1, 1, one), (0, 0, 1, one), (0, 2, 0, one)],
            vec![
                (1, 1, 1, one),
                (0, 0, 1, one),
                (1, 0, 1, one),
                (0, 2, 0, one),
            ],
        ] {
            let bytes = section(&entries);
            let map = ZkeyMap::from_bytes(&bytes);
            let err = |m: String| CircomError::Mismatch(m);
            let read = mapped_coefficients::<Bn254>(&map, 4, entries.len(), &header, err);
            assert!(read.unwrap().is_none());
        }
    }

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

    /// A section longer than one chunk ([`CHUNK_BYTES`]) and many tasks
    /// ([`COEF_TASK`]): both readers place every row, and name a bad entry
    /// by its index in the section, not in the chunk.
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
