//! The scalar radix-4 decimation-in-frequency kernel ([`dif`]: in cache,
//! any [`Arith`]) and the transforms made of it alone, in place:
//!
//! **In cache** (`n <= 2^LEAF_LOG`, [`run_leaf`]): the radix-4 stages, then
//! the bit reversal.
//!
//! **Whole array** (`2^LEAF_LOG < n <= 2^WHOLE_MAX_LOG`, [`run_whole`]):
//! the first radix-4 stages run over the whole array, their butterflies
//! split between the threads, until blocks of at most `2^LEAF_LOG` elements
//! remain; each block finishes in cache; then the blocked bit reversal. The
//! stage table of size `n` (`n - 1` twiddles) is built once and cached.
//!
//! Larger transforms take the four-step split (`four_step`), whose rows and
//! columns are in-cache [`dif`]s.

use ark_ff::FftField;

use crate::arith::Arith;
use crate::job::{scale_after, scale_before, Job};
use crate::stages::{
    bitrev_permute, bitrev_permute_blocked, dif_stages, for_each_chunk, for_each_quarter_span,
    BOOKKEEPING,
};
use crate::twiddles::StageTwiddles;

/// Transforms up to this size run as one in-cache kernel (2^12 BN254 elements
/// are 128 KiB: well inside L2).
pub(crate) const LEAF_LOG: u32 = 12;

/// Butterflies per task in the whole-array stages.
const SPAN: usize = 512;

/// A transform of at most `2^LEAF_LOG` elements, in cache: coset powers,
/// the radix-4 stages, the bit reversal, the inverse scaling.
pub(crate) fn run_leaf<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    scale_before(ar, data, job);
    if data.len() > 1 {
        let tw = StageTwiddles::<F>::get(job.log_n, job.inverse);
        dif::<F, A>(ar, data, &tw.table, tw.omega4);
        bitrev_permute(data);
    }
    scale_after(ar, data, job);
}

/// The whole-array transform (up to
/// [`WHOLE_MAX_LOG`](crate::transform::WHOLE_MAX_LOG)): coset powers, radix-4
/// stages over the whole array until the blocks have at most `2^LEAF_LOG`
/// elements, each block's remaining stages in cache, the bit reversal, the
/// inverse scaling.
pub(crate) fn run_whole<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    scale_before(ar, data, job);
    let tw = StageTwiddles::<F>::get(job.log_n, job.inverse);
    let (mut len, mut off) = (data.len(), 0);
    while len > 1 << LEAF_LOG {
        let q = len / 4;
        for block in data.chunks_exact_mut(len) {
            radix4_stage::<F, A>(ar, block, &tw.table[off..off + 3 * q], tw.omega4);
        }
        off += 3 * q;
        len /= 4;
    }
    // The rest of the table is the table of size `len` (every stage's root
    // is the same power of the two-adic root).
    for_each_chunk(data, len, |_, block| {
        dif::<F, A>(ar, block, &tw.table[off..], tw.omega4)
    });
    bitrev_permute_blocked(data);
    scale_after(ar, data, job);
}

/// Upper estimate of the heap bytes [`run_leaf`] or [`run_whole`] allocates
/// besides its data for `2^log_n` elements of a field of `field` bytes: the
/// stage table of size `n` (built in place on first use, cached afterwards;
/// `n - 1` twiddles in one allocation of `n`) and a little bookkeeping.
pub(crate) fn working_memory(log_n: u32, field: usize) -> usize {
    (1usize << log_n) * field + BOOKKEEPING
}

/// Radix-4 decimation-in-frequency transform of `row` in place (a final
/// radix-2 stage when `log2(len)` is odd); output in bit-reversed order.
///
/// One radix-4 step fuses two radix-2 stages: for `a_i = x[j + i*q]`,
/// ```text
/// x[j]      = (a0 + a2) + (a1 + a3)
/// x[j + q]  = ((a0 + a2) - (a1 + a3)) * w^2j
/// x[j + 2q] = ((a0 - a2) + w4*(a1 - a3)) * w^j
/// x[j + 3q] = ((a0 - a2) - w4*(a1 - a3)) * w^3j
/// ```
/// the same four multiplications as two radix-2 stages, with half the loads
/// and stores.
pub(crate) fn dif<F: FftField, A: Arith<F>>(ar: &A, row: &mut [A::E], table: &[F], w4: F) {
    dif_stages(
        row,
        table,
        |x, t| radix4_span(ar, x, 0, t, w4),
        |a, b| {
            let (x, y) = (*a, *b);
            *a = ar.add(&x, &y);
            *b = ar.sub(&x, &y);
        },
    );
}

/// The radix-4 butterflies `j0 .. j0 + x[0].len()` of one stage (see
/// [`dif`]): `x[i][k]` is element `j0 + k + i*q` of the block, `t` the
/// stage's twiddle triples.
#[inline(always)]
fn radix4_span<F: FftField, A: Arith<F>>(ar: &A, x: [&mut [A::E]; 4], j0: usize, t: &[F], w4: F) {
    let [x0, x1, x2, x3] = x;
    let mut k0 = 0;
    if j0 == 0 && !x0.is_empty() {
        // j = 0: no twiddles.
        let (a0, a1, a2, a3) = (x0[0], x1[0], x2[0], x3[0]);
        let s02 = ar.add(&a0, &a2);
        let s13 = ar.add(&a1, &a3);
        let d02 = ar.sub(&a0, &a2);
        let d13 = ar.scale(&ar.sub(&a1, &a3), &w4);
        x0[0] = ar.add(&s02, &s13);
        x1[0] = ar.sub(&s02, &s13);
        x2[0] = ar.add(&d02, &d13);
        x3[0] = ar.sub(&d02, &d13);
        k0 = 1;
    }
    for k in k0..x0.len() {
        let j = j0 + k;
        let w = &t[3 * j..3 * j + 3];
        let y = ar.radix4([&x0[k], &x1[k], &x2[k], &x3[k]], &w4, [&w[0], &w[1], &w[2]]);
        [x0[k], x1[k], x2[k], x3[k]] = y;
    }
}

/// One radix-4 stage over a whole block of length `4q` (`t`: its twiddle
/// triples), the butterflies split between the threads in spans of
/// [`SPAN`].
fn radix4_stage<F: FftField, A: Arith<F>>(ar: &A, block: &mut [A::E], t: &[F], w4: F) {
    for_each_quarter_span(block, SPAN, |x, j0| radix4_span(ar, x, j0, t, w4));
}
