//! A key's A and B matrices: decoded into compressed rows, or read where
//! they lie in a mapped zkey's coefficient section.
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

use crate::curve::{fr_to_le, CircomCurve};
use crate::error::CircomError;
use crate::points::ZkeyMap;
use crate::zkey::{filled, r_inverse, ZkeyHeader};
use ark_ff::{Field, Zero};
use rayon::prelude::*;
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
pub(crate) fn entry_ids(b: &[u8]) -> (u32, usize, usize) {
    (u32_at(b, 0), u32_at(b, 4) as usize, u32_at(b, 8) as usize)
}

/// Whether an entry's indices are in range for the header.
pub(crate) fn ids_in_range((m, row, signal): (u32, usize, usize), h: &ZkeyHeader) -> bool {
    m <= 1 && row < h.domain_size && signal < h.n_vars
}

/// The number of constraints, from the largest row index: snarkjs appends
/// one row per public signal and the leading one, `A[nConstraints + s] =
/// 1 * signal s` for `s = 0..=nPublic`, the last of them the largest row.
/// Errors if there is no row, or the count disagrees with the header.
pub(crate) fn constraints_of(max_row: Option<usize>, h: &ZkeyHeader) -> Result<usize, String> {
    let n_public = h.n_public;
    let max_row =
        max_row.ok_or("no coefficients (a snarkjs key has at least the public-input rows)")?;
    let num_constraints = max_row.checked_sub(n_public).ok_or_else(|| {
        format!("the largest constraint index {max_row} is below nPublic = {n_public}")
    })?;
    let expected_domain = (num_constraints + n_public + 1).next_power_of_two();
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
pub(crate) mod msg {
    use crate::zkey::ZkeyHeader;

    /// Entry `i`'s indices are out of range.
    pub(crate) fn bad_ids(
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
    pub(crate) fn bad_value(i: usize, (m, row, signal): (u32, usize, usize)) -> String {
        format!(
            "coefficient {i} (matrix {m}, constraint {row}, signal {signal}): value not below r"
        )
    }

    /// Entry `i` lies in a public-input row but is not that row's one term.
    pub(crate) fn public_row(
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
    pub(crate) fn missing_public_row(num_constraints: usize, s: usize) -> String {
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
pub(crate) const COEF_TASK: usize = if cfg!(test) { 1 << 4 } else { 1 << 15 };

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
pub(crate) fn mapped_coefficients<E: CircomCurve>(
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
    let tasks: Vec<Summary> = data
        .par_chunks(COEF_TASK * ENTRY)
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
        .collect();
    if let Some(i) = tasks.iter().find_map(|t| t.bad_ids) {
        return Err(err(msg::bad_ids(i, ids(i), header)));
    }
    if let Some(i) = tasks.iter().find_map(|t| t.bad_value) {
        return Err(err(msg::bad_value(i, ids(i))));
    }
    let mut last: [Option<usize>; 2] = [None; 2];
    for t in &tasks {
        if !t.sorted {
            return Ok(None);
        }
        for (m, last) in last.iter_mut().enumerate() {
            if let (Some(l), Some(f)) = (*last, t.first[m]) {
                if f < l {
                    return Ok(None);
                }
            }
            *last = t.last[m].or(*last);
        }
    }
    let num_constraints = constraints_of(last.into_iter().flatten().max(), header).map_err(&err)?;
    let max_row = num_constraints + n_public;

    // Pass 2: the row ranges, over all rows (the public-input rows too).
    // Row r's range starts at the first entry with a row >= r and ends
    // after the last entry with a row <= r. The task that holds that entry
    // writes it: task t owns the starts of rows (L, its last row], L being
    // the last row before it, and the ends of rows [its first row, the next
    // task's first row), so every task writes its own disjoint slices.
    let rows = max_row + 1;
    let mut starts = [0, 1].map(|_| filled(rows, count as u32));
    let mut ends = [0, 1].map(|_| filled(rows, 0u32));
    let mut next_first: [Option<usize>; 2] = [None; 2];
    let mut owned = vec![[(0usize, 0usize, 0usize, 0usize); 2]; tasks.len()];
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
        let range = |o: &[(usize, usize, usize, usize); 2]| match ends {
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
        .for_each(|(t, ((chunk, mut out), o))| {
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
        });

    // The public-input rows: A[n + s] holds exactly `1 * signal s`; B has
    // none.
    let r_inv = r_inverse::<E::Fr>();
    let mut one = Vec::with_capacity(32);
    fr_to_le(
        &(r_inv * r_inv).inverse().expect("R is invertible"),
        &mut one,
    );
    let one: [u8; 32] = one.try_into().expect("32 bytes");
    let in_range = |m: usize, row: usize| {
        let (s, e) = (starts[m][row] as usize, ends[m][row] as usize);
        (s..e.max(s)).filter(move |&i| u32_at(&data[i * ENTRY..], 0) as usize == m)
    };
    let public_row = |i: usize| err(msg::public_row(i, ids(i), num_constraints));
    if let Some(i) = (num_constraints..rows).find_map(|r| in_range(1, r).next()) {
        return Err(public_row(i));
    }
    for s in 0..=n_public {
        let mut entries = in_range(0, num_constraints + s);
        let Some(i) = entries.next() else {
            return Err(err(msg::missing_public_row(num_constraints, s)));
        };
        let b = &data[i * ENTRY..(i + 1) * ENTRY];
        if u32_at(b, 8) as usize != s || b[12..] != one {
            return Err(public_row(i));
        }
        if let Some(i) = entries.next() {
            return Err(public_row(i));
        }
    }

    let [sa, sb] = starts;
    let [ea, eb] = ends;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::Curve;
    use ark_bn254::{Bn254, Fr};
    use ark_ff::UniformRand;
    use proptest::prelude::*;
    use rand::{Rng, SeedableRng};

    /// Section 4's body: the count, then `(matrix, row, signal, value)`
    /// entries, each value stored as the integer `v R^2`.
    fn section(entries: &[(u32, usize, usize, Fr)]) -> Vec<u8> {
        let r2 = Fr::from(2u64).pow([512u64]);
        let mut b = (entries.len() as u32).to_le_bytes().to_vec();
        for &(m, row, signal, v) in entries {
            for x in [m, row as u32, signal as u32] {
                b.extend_from_slice(&x.to_le_bytes());
            }
            fr_to_le(&(v * r2), &mut b);
        }
        b
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
}
