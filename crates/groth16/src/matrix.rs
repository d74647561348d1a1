//! Constraint matrices for the witness map: arkworks' row lists
//! ([`Matrix`], a `Vec` of `(coefficient, variable)` per row) and a compact
//! compressed-row form ([`CsrMatrix`]) for keys read from files.
//!
//! A circom key at 2^20 constraints holds about three million A and B
//! coefficients. As arkworks' `Matrix` they cost 40 bytes each plus a `Vec`
//! (24 bytes and an allocation) per row, about 250 MB; as a [`CsrMatrix`]
//! 36 bytes each plus 8 per row, about 125 MB. The prover reads either
//! through [`ConstraintMatrix`].

use ark_ff::Field;
use ark_relations::gr1cs::Matrix;

/// What the witness map needs from a constraint matrix: its rows' inner
/// products with the assignment. Implemented for arkworks' [`Matrix`] and
/// for [`CsrMatrix`].
pub trait ConstraintMatrix<F: Field>: Sync {
    /// Number of rows.
    fn num_rows(&self) -> usize;

    /// Whether every variable index in the first `rows` rows is below
    /// `num_vars` (checked before evaluating, so that no index is trusted).
    fn indices_below(&self, rows: usize, num_vars: usize) -> bool;

    /// Row `row` times the assignment `z`: `sum c_j z[j]`. `row` is below
    /// [`ConstraintMatrix::num_rows`] and its indices below `z.len()`.
    fn row_times(&self, row: usize, z: &[F]) -> F;

    /// Calls `f(coefficient, variable)` for each entry of row `row`, in order.
    fn for_each_in_row(&self, row: usize, f: impl FnMut(F, usize));
}

impl<F: Field> ConstraintMatrix<F> for Matrix<F> {
    fn num_rows(&self) -> usize {
        self.len()
    }

    fn indices_below(&self, rows: usize, num_vars: usize) -> bool {
        self[..rows.min(self.len())]
            .iter()
            .flatten()
            .all(|&(_, j)| j < num_vars)
    }

    fn row_times(&self, row: usize, z: &[F]) -> F {
        self[row].iter().map(|&(c, j)| term(c, z[j])).sum()
    }

    fn for_each_in_row(&self, row: usize, mut f: impl FnMut(F, usize)) {
        self[row].iter().for_each(|&(c, j)| f(c, j));
    }
}

/// `c * x`, with the multiplication skipped for `c = 1` (most coefficients
/// of circom and arkworks circuits), as arkworks' `evaluate_constraint`.
#[inline]
fn term<F: Field>(c: F, x: F) -> F {
    if c.is_one() {
        x
    } else {
        c * x
    }
}

/// A sparse matrix in compressed-row form: row `i`'s entries are
/// `columns[row_starts[i]..row_starts[i + 1]]` with the coefficients at the
/// same positions of `values`. Variable indices are `u32` (circom's files
/// store them so).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsrMatrix<F> {
    row_starts: Vec<usize>,
    columns: Vec<u32>,
    values: Vec<F>,
}

/// Why parts do not make a [`CsrMatrix`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MatrixError {
    /// `columns` and `values` differ in length.
    LengthMismatch {
        /// Column indices given.
        columns: usize,
        /// Values given.
        values: usize,
    },
    /// `row_starts` is empty or does not start with 0.
    RowStartsNotFromZero,
    /// `row_starts` decreases at a row.
    RowStartsDecrease {
        /// The row whose start is larger than the next one's.
        row: usize,
        /// Its start.
        start: usize,
        /// The next row's start.
        next: usize,
    },
    /// `row_starts` does not end at the number of entries.
    RowStartsEnd {
        /// Its last value, if any.
        last: Option<usize>,
        /// The entries.
        entries: usize,
    },
    /// A variable index does not fit in a `u32`.
    IndexTooLarge {
        /// The row holding it.
        row: usize,
        /// The index.
        index: usize,
    },
}

impl core::fmt::Display for MatrixError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MatrixError::LengthMismatch { columns, values } => {
                write!(f, "{columns} column indices but {values} values")
            }
            MatrixError::RowStartsNotFromZero => write!(f, "row_starts must start with 0"),
            MatrixError::RowStartsDecrease { row, start, next } => {
                write!(f, "row_starts decreases at row {row} ({start} then {next})")
            }
            MatrixError::RowStartsEnd { last, entries } => write!(
                f,
                "row_starts ends at {last:?}, the matrix has {entries} entries"
            ),
            MatrixError::IndexTooLarge { row, index } => {
                write!(f, "row {row}: variable index {index} does not fit in a u32")
            }
        }
    }
}

impl std::error::Error for MatrixError {}

impl<F: Field> CsrMatrix<F> {
    /// A matrix from its parts. Errors name the first inconsistency:
    /// `row_starts` empty, not starting at 0, decreasing, or not ending at
    /// the number of entries; `columns` and `values` of different lengths.
    pub fn from_parts(
        row_starts: Vec<usize>,
        columns: Vec<u32>,
        values: Vec<F>,
    ) -> Result<Self, MatrixError> {
        if columns.len() != values.len() {
            return Err(MatrixError::LengthMismatch {
                columns: columns.len(),
                values: values.len(),
            });
        }
        if row_starts.first() != Some(&0) {
            return Err(MatrixError::RowStartsNotFromZero);
        }
        if let Some(i) = row_starts.windows(2).position(|w| w[0] > w[1]) {
            return Err(MatrixError::RowStartsDecrease {
                row: i,
                start: row_starts[i],
                next: row_starts[i + 1],
            });
        }
        if row_starts.last() != Some(&columns.len()) {
            return Err(MatrixError::RowStartsEnd {
                last: row_starts.last().copied(),
                entries: columns.len(),
            });
        }
        Ok(CsrMatrix {
            row_starts,
            columns,
            values,
        })
    }

    /// arkworks' row lists in compressed-row form. Errors if a variable
    /// index does not fit in a `u32`.
    pub fn from_rows(m: &Matrix<F>) -> Result<Self, MatrixError> {
        let mut row_starts = Vec::with_capacity(m.len() + 1);
        row_starts.push(0);
        let total = m.iter().map(Vec::len).sum();
        let mut columns = Vec::with_capacity(total);
        let mut values = Vec::with_capacity(total);
        for (i, row) in m.iter().enumerate() {
            for &(c, j) in row {
                let j = u32::try_from(j)
                    .map_err(|_| MatrixError::IndexTooLarge { row: i, index: j })?;
                columns.push(j);
                values.push(c);
            }
            row_starts.push(columns.len());
        }
        Ok(CsrMatrix {
            row_starts,
            columns,
            values,
        })
    }

    /// arkworks' row lists (for ark-groth16's and ark-circom's functions).
    pub fn to_rows(&self) -> Matrix<F> {
        (0..self.num_rows())
            .map(|i| {
                let (cols, vals) = self.row(i);
                vals.iter()
                    .zip(cols)
                    .map(|(&c, &j)| (c, j as usize))
                    .collect()
            })
            .collect()
    }

    /// Row `i`: its variable indices and coefficients. Panics if `i` is not
    /// below [`ConstraintMatrix::num_rows`].
    pub fn row(&self, i: usize) -> (&[u32], &[F]) {
        let r = self.row_starts[i]..self.row_starts[i + 1];
        (&self.columns[r.clone()], &self.values[r])
    }

    /// Number of stored entries.
    pub fn num_entries(&self) -> usize {
        self.columns.len()
    }
}

impl<F: Field> ConstraintMatrix<F> for CsrMatrix<F> {
    fn num_rows(&self) -> usize {
        self.row_starts.len() - 1
    }

    fn indices_below(&self, rows: usize, num_vars: usize) -> bool {
        let end = self.row_starts[rows.min(self.num_rows())];
        self.columns[..end].iter().all(|&j| (j as usize) < num_vars)
    }

    fn row_times(&self, row: usize, z: &[F]) -> F {
        let (cols, vals) = self.row(row);
        vals.iter()
            .zip(cols)
            .map(|(&c, &j)| term(c, z[j as usize]))
            .sum()
    }

    fn for_each_in_row(&self, row: usize, mut f: impl FnMut(F, usize)) {
        let (cols, vals) = self.row(row);
        vals.iter().zip(cols).for_each(|(&c, &j)| f(c, j as usize));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::{One, UniformRand};
    use rand::SeedableRng;

    fn random_rows(rows: usize, vars: usize, seed: u64) -> Matrix<Fr> {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        use rand::Rng;
        (0..rows)
            .map(|_| {
                (0..rng.gen_range(0..5))
                    .map(|_| {
                        let c = if rng.gen_bool(0.5) {
                            Fr::one()
                        } else {
                            Fr::rand(&mut rng)
                        };
                        (c, rng.gen_range(0..vars))
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn csr_rows_equal_arkworks_rows() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
        for (rows, vars) in [(0, 1), (1, 1), (7, 3), (300, 50)] {
            let m = random_rows(rows, vars, rows as u64);
            let csr = CsrMatrix::from_rows(&m).unwrap();
            assert_eq!(csr.to_rows(), m);
            assert_eq!(ConstraintMatrix::num_rows(&csr), rows);
            let z: Vec<Fr> = (0..vars).map(|_| Fr::rand(&mut rng)).collect();
            for i in 0..rows {
                // The plain sum, written out here.
                let want: Fr = m[i].iter().map(|&(c, j)| c * z[j]).sum();
                assert_eq!(csr.row_times(i, &z), want);
                assert_eq!(m.row_times(i, &z), want);
            }
            assert!(csr.indices_below(rows, vars));
            assert_eq!(
                csr.indices_below(rows, vars.saturating_sub(1)),
                m.indices_below(rows, vars.saturating_sub(1))
            );
        }
    }

    #[test]
    fn bad_parts_are_errors() {
        let v = |n| vec![Fr::one(); n];
        let err = |r, c, n| CsrMatrix::from_parts(r, c, v(n)).unwrap_err();
        assert_eq!(err(vec![], vec![], 0), MatrixError::RowStartsNotFromZero);
        assert_eq!(
            err(vec![1, 1], vec![0], 1),
            MatrixError::RowStartsNotFromZero
        );
        assert_eq!(
            err(vec![0, 2, 1], vec![0, 0], 2),
            MatrixError::RowStartsDecrease {
                row: 1,
                start: 2,
                next: 1
            }
        );
        assert_eq!(
            err(vec![0, 1], vec![0, 0], 2),
            MatrixError::RowStartsEnd {
                last: Some(1),
                entries: 2
            }
        );
        assert_eq!(
            err(vec![0, 2], vec![0, 0], 1),
            MatrixError::LengthMismatch {
                columns: 2,
                values: 1
            }
        );
        assert!(err(vec![0, 2, 1], vec![0, 0], 2)
            .to_string()
            .contains("decreases at row 1"));
        let ok = CsrMatrix::from_parts(vec![0, 0, 2], vec![3, 1], v(2)).unwrap();
        assert_eq!(
            ok.to_rows(),
            vec![vec![], vec![(Fr::one(), 3), (Fr::one(), 1)]]
        );
        assert!(!ok.indices_below(2, 3));
        assert!(ok.indices_below(1, 0));
    }
}
