//! The four-step (Bailey) transform, in place, for sizes above
//! `2^WHOLE_MAX_LOG`: view the input as `n1` rows of `n2`
//! (`x[j1*n2 + j2]`). With output index `k = k1 + n1*k2`:
//!
//! ```text
//! X[k1 + n1*k2] = sum_j2 w_n2^(j2*k2) * w_n^(j2*k1) * sum_j1 x[j1*n2 + j2] * w_n1^(j1*k1)
//! ```
//!
//! 1. **Columns** (one task per block of 16 adjacent columns,
//!    [`ColumnPass`]): gather the columns into a buffer that stays in L2
//!    (16 adjacent elements per row read: whole cache lines), applying the
//!    coset powers on the way; a size-`n1` DIF transform per column; the
//!    twiddles `w_n^(j2*k1)`; scatter back. Column `j2` now holds `Y[k1]`
//!    at row `bitrev(k1)`.
//! 2. **Rows** ([`row_pass`]): row `r` of `x` is `Y[k1 = bitrev(r)]` over
//!    all `j2`: a contiguous size-`n2` DIF transform in place (inverse
//!    scaling fused). Element `(r, q)` is now `X[bitrev(r) + n1*bitrev(q)]`,
//!    which is `X[bitrev_n(i)]` for flat index `i = r*n2 + q`.
//! 3. **Reorder**: a blocked, parallel in-place bit reversal (tiles of 16 x 16
//!    elements swapped with their partner tiles), the only pass over the
//!    whole array that does no arithmetic.
//!
//! The four-step costs two multiplications per element more (the twiddles
//! `w_n^(j2*k1)` and the power chains that make them) than the whole-array
//! transform (`radix4`) but only `n1 + n2` twiddles; each task holds a
//! buffer of `16 * n1` elements (512 KiB at 2^20 for BN254). The rows and
//! columns are the scalar in-cache kernel's ([`dif`]); the IFMA lanes run
//! the same steps eight columns (rows) at a time (`ifma`).

use ark_ff::FftField;

use crate::arith::Arith;
use crate::job::Job;
use crate::radix4::dif;
use crate::stages::{bitrev, bitrev_permute_blocked, for_each_chunk, threads, Shared, BOOKKEEPING};
use crate::twiddles::StageTwiddles;

/// Columns transformed together by one task of the column pass (16 BN254
/// elements are 512 bytes: eight whole cache lines per row read).
const COLUMN_BLOCK: usize = 16;

/// Runs `job` on `data` (length `2^job.log_n`, natural order in and out)
/// with the four-step split: the column pass, the row pass, the bit
/// reversal.
pub(crate) fn run<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    let n = data.len();
    let k1 = job.log_n / 2;
    let k2 = job.log_n - k1;
    let (n1, n2) = (1usize << k1, 1usize << k2);
    let tw1 = StageTwiddles::<F>::get(k1, job.inverse);
    let tw2 = StageTwiddles::<F>::get(k2, job.inverse);
    let mut root = F::get_root_of_unity(n as u64).expect("size checked by the domain");
    if job.inverse {
        root = root.inverse().expect("roots of unity are non-zero");
    }

    // 1. columns, COLUMN_BLOCK at a time.
    let columns = ColumnPass {
        ar,
        ptr: Shared(data.as_mut_ptr()),
        k1,
        n1,
        n2,
        pre: job.pre,
        coset_step: job.pre.map(|g| g.pow([n2 as u64])),
        tw1: &tw1,
        root,
    };
    columns.run();

    // 2. rows; inverse scaling s * o^k for k = bitrev(r) + n1*bitrev(q).
    row_pass(ar, data, job, (k1, k2), &tw2);

    // 3. x[i] <-> x[bitrev(i)].
    bitrev_permute_blocked(data);
}

/// The column pass of one transform: what its tasks share. The array is
/// `n1 = 2^k1` rows of `n2`, reached through `ptr`.
struct ColumnPass<'a, F: FftField, A: Arith<F>> {
    ar: &'a A,
    ptr: Shared<A::E>,
    k1: u32,
    n1: usize,
    n2: usize,
    /// The coset generator `g` of a coset forward job.
    pre: Option<F>,
    /// `g^n2`: the step of each column's coset powers from row to row.
    coset_step: Option<F>,
    /// The stage table of size `n1`.
    tw1: &'a StageTwiddles<F>,
    /// The `n`-th root of unity of the transform's direction.
    root: F,
}

impl<F: FftField, A: Arith<F>> ColumnPass<'_, F, A> {
    /// Every block of [`COLUMN_BLOCK`] columns, in parallel when enabled,
    /// with one reusable buffer per worker.
    fn run(&self) {
        let (n1, n2) = (self.n1, self.n2);
        // SAFETY: block `b` touches columns `b * COLUMN_BLOCK ..` up to the
        // next block's only, and the blocks are disjoint.
        let column_task = |buf: &mut Vec<A::E>, block: usize| unsafe { self.block(buf, block) };
        let blocks = n2.div_ceil(COLUMN_BLOCK);
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            (0..blocks).into_par_iter().for_each_init(
                || Vec::with_capacity(COLUMN_BLOCK * n1),
                |buf, block| column_task(buf, block),
            );
        }
        #[cfg(not(feature = "parallel"))]
        {
            let mut buf = Vec::with_capacity(COLUMN_BLOCK * n1);
            (0..blocks).for_each(|block| column_task(&mut buf, block));
        }
    }

    /// One task: the columns `c0 .. c0 + width` of block `block` gathered
    /// into `buf` (column-major), each transformed and multiplied by its
    /// twiddles, scattered back.
    ///
    /// # Safety
    /// No other task touches these columns meanwhile.
    unsafe fn block(&self, buf: &mut Vec<A::E>, block: usize) {
        let (ar, n1) = (self.ar, self.n1);
        let c0 = block * COLUMN_BLOCK;
        let width = COLUMN_BLOCK.min(self.n2 - c0);
        // SAFETY: forwarded (these columns are this task's).
        unsafe { self.gather(buf, c0, width) };
        for (b, col) in buf.chunks_exact_mut(n1).enumerate() {
            dif::<F, A>(ar, col, &self.tw1.table, self.tw1.omega4);
            self.twiddle(col, c0 + b);
        }
        // SAFETY: as above.
        unsafe { self.scatter(buf, c0, width) };
    }

    /// Gathers columns `c0 .. c0 + width` into `buf`, a row of the block at
    /// a time (whole cache lines): `buf[b*n1 + j1] = x[j1*n2 + c0 + b]`
    /// (`* g^(j1*n2 + c0 + b)` on a coset).
    ///
    /// # Safety
    /// No other task touches these columns meanwhile.
    unsafe fn gather(&self, buf: &mut Vec<A::E>, c0: usize, width: usize) {
        let (ar, ptr, n1, n2) = (self.ar, self.ptr, self.n1, self.n2);
        if buf.len() != width * n1 {
            buf.clear();
            // SAFETY: element c0 lies in this task's first column.
            buf.resize(width * n1, unsafe { *ptr.at(c0) });
        }
        let mut cur = [F::one(); COLUMN_BLOCK];
        if let Some(g) = self.pre {
            let mut c = g.pow([c0 as u64]);
            for v in cur.iter_mut().take(width) {
                *v = c;
                c = ar.mul(&c, &g);
            }
        }
        for j1 in 0..n1 {
            for b in 0..width {
                // SAFETY: columns c0..c0 + width belong to this task alone.
                let v = unsafe { *ptr.at(j1 * n2 + c0 + b) };
                buf[b * n1 + j1] = match &self.coset_step {
                    Some(step) => {
                        let out = ar.scale(&v, &cur[b]);
                        cur[b] = ar.mul(&cur[b], step);
                        out
                    }
                    None => v,
                };
            }
        }
    }

    /// Multiplies column `j2` (transformed: `Y[k1]` at row `bitrev(k1)`) by
    /// the twiddles `w_n^(j2*k1)`.
    fn twiddle(&self, col: &mut [A::E], j2: usize) {
        let (ar, k1) = (self.ar, self.k1);
        if j2 != 0 {
            // Two interleaved power chains (w^k, w^(k+1)) halve the
            // latency-bound part.
            let w = self.root.pow([j2 as u64]);
            let w2 = ar.mul(&w, &w);
            let (mut even, mut odd) = (F::one(), w);
            for k in (0..self.n1).step_by(2) {
                let (p0, p1) = (bitrev(k, k1), bitrev(k + 1, k1));
                if k != 0 {
                    col[p0] = ar.scale(&col[p0], &even);
                }
                col[p1] = ar.scale(&col[p1], &odd);
                even = ar.mul(&even, &w2);
                odd = ar.mul(&odd, &w2);
            }
        }
    }

    /// Scatters `buf` back into columns `c0 .. c0 + width` (the inverse of
    /// [`ColumnPass::gather`] without the powers).
    ///
    /// # Safety
    /// No other task touches these columns meanwhile.
    unsafe fn scatter(&self, buf: &[A::E], c0: usize, width: usize) {
        let (ptr, n1, n2) = (self.ptr, self.n1, self.n2);
        for j1 in 0..n1 {
            for b in 0..width {
                // SAFETY: as for the gather.
                unsafe { *ptr.at(j1 * n2 + c0 + b) = buf[b * n1 + j1] };
            }
        }
    }
}

/// The row pass: each row of `n2 = 2^k2` elements transformed in place
/// (the stage table `tw2`), then the inverse scaling `s * o^k` of an
/// inverse job for `k = bitrev(r) + n1*bitrev(q)`.
fn row_pass<F: FftField, A: Arith<F>>(
    ar: &A,
    data: &mut [A::E],
    job: &Job<F>,
    (k1, k2): (u32, u32),
    tw2: &StageTwiddles<F>,
) {
    let (n1, n2) = (1usize << k1, 1usize << k2);
    let post = job.post.map(|p| {
        let step = p.offset.pow([n1 as u64]);
        let mut powers = Vec::with_capacity(n2);
        let mut cur = F::one();
        for _ in 0..n2 {
            powers.push(cur);
            cur *= step;
        }
        (p, powers)
    });
    for_each_chunk(data, n2, |r, row| {
        dif::<F, A>(ar, row, &tw2.table, tw2.omega4);
        if let Some((p, powers)) = &post {
            if p.offset.is_one() {
                row.iter_mut().for_each(|v| *v = ar.scale(v, &p.factor));
            } else {
                let base = ar.mul(&p.factor, &p.offset.pow([bitrev(r, k1) as u64]));
                for (q, v) in row.iter_mut().enumerate() {
                    let f = ar.mul(&base, &powers[bitrev(q, k2)]);
                    *v = ar.scale(v, &f);
                }
            }
        }
    });
}

/// Upper estimate of the heap bytes [`run`] allocates besides its data for
/// `2^log_n` elements of a field of `field` bytes: the stage tables of its
/// two sizes, one column block per thread, the inverse scaling's powers and
/// a little bookkeeping.
pub(crate) fn working_memory(log_n: u32, field: usize) -> usize {
    // A table of size m holds m - 1 twiddles in one allocation of m.
    let table = |k: u32| (1usize << k) * field;
    let k1 = log_n / 2;
    let k2 = log_n - k1;
    table(k1)
        + table(k2)
        + threads() * COLUMN_BLOCK * (1usize << k1) * field
        + (1usize << k2) * field
        + BOOKKEEPING
}
