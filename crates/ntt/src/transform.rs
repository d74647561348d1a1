//! The transform: in-cache radix-4 decimation-in-frequency kernels, composed
//! over the whole array up to `2^WHOLE_MAX_LOG` elements and by the
//! four-step (Bailey) split above, in place.
//!
//! **Whole array** (`2^LEAF_LOG < n <= 2^WHOLE_MAX_LOG`): the first radix-4
//! stages run over the whole array, their butterflies split between the
//! threads, until blocks of at most `2^LEAF_LOG` elements remain; each block
//! finishes in cache; then the bit reversal (below). The stage table of size
//! `n` (`n - 1` twiddles) is built once and cached.
//!
//! **Four-step**, above: view the input as `n1` rows of `n2`
//! (`x[j1*n2 + j2]`). With output index `k = k1 + n1*k2`:
//!
//! ```text
//! X[k1 + n1*k2] = sum_j2 w_n2^(j2*k2) * w_n^(j2*k1) * sum_j1 x[j1*n2 + j2] * w_n1^(j1*k1)
//! ```
//!
//! 1. **Columns** (one task per block of 16 adjacent columns): gather the
//!    columns into a buffer that stays in L2 (16 adjacent elements per row
//!    read: whole cache lines), applying the coset powers on the way; a
//!    size-`n1` DIF transform per column; the twiddles `w_n^(j2*k1)`; scatter
//!    back. Column `j2` now holds `Y[k1]` at row `bitrev(k1)`.
//! 2. **Rows**: row `r` of `x` is `Y[k1 = bitrev(r)]` over all `j2`: a
//!    contiguous size-`n2` DIF transform in place (inverse scaling fused).
//!    Element `(r, q)` is now `X[bitrev(r) + n1*bitrev(q)]`, which is
//!    `X[bitrev_n(i)]` for flat index `i = r*n2 + q`.
//! 3. **Reorder**: a blocked, parallel in-place bit reversal (tiles of 16 x 16
//!    elements swapped with their partner tiles), the only pass over the
//!    whole array that does no arithmetic.
//!
//! The four-step costs two multiplications per element more (the twiddles
//! `w_n^(j2*k1)` and the power chains that make them) but only `n1 + n2`
//! twiddles; each task holds a buffer of `16 * n1` elements (512 KiB at
//! 2^20 for BN254).

use ark_ff::FftField;

use crate::arith::Arith;
use crate::job::{scale_after, scale_before, Job};
use crate::stages::{
    bitrev, bitrev_permute, bitrev_permute_blocked, dif_stages, for_each_chunk,
    for_each_quarter_span, threads, Shared, BOOKKEEPING,
};
use crate::twiddles::StageTwiddles;

/// Transforms up to this size run as one in-cache kernel (2^12 BN254 elements
/// are 128 KiB: well inside L2).
pub(crate) const LEAF_LOG: u32 = 12;

/// Transforms up to this size (and above [`LEAF_LOG`]) run as one radix-4
/// transform of the whole array with the full stage table (`n - 1`
/// twiddles per direction: 32 MiB at 2^20 for BN254, as much as the data):
/// the first stages over the whole array, split between the threads, then
/// in-cache blocks of at most `2^LEAF_LOG`. That saves the four-step
/// split's two multiplications per element (its twiddles `w_n^(j2*k1)` and
/// their power chains), a sixth of the total at 2^20; above this size the
/// four-step keeps the tables at `2 sqrt(n)` elements.
pub(crate) const WHOLE_MAX_LOG: u32 = 20;

/// Butterflies per task in the whole-array stages.
const SPAN: usize = 512;

/// Columns transformed together by one task of the column pass (16 BN254
/// elements are 512 bytes: eight whole cache lines per row read).
const COLUMN_BLOCK: usize = 16;

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
fn dif<F: FftField, A: Arith<F>>(ar: &A, row: &mut [A::E], table: &[F], w4: F) {
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

/// Upper estimate of the heap bytes one transform of `2^log_n` elements of
/// a field of `field` bytes allocates besides its data, asked of each
/// kernel that may run: the scalar kernels' ([`whole_working_memory`] up
/// to [`WHOLE_MAX_LOG`], [`four_step_working_memory`] above); with `lanes`
/// (the AVX-512 IFMA four-step may run, from 2^9) the larger of that, the
/// IFMA four-step's and the whole array's (small sizes without the lane
/// path run as one leaf); with `avx2` (the AVX2 lane transform may run for
/// the sizes it takes, four-limb fields) the larger of the above and its
/// needs.
pub(crate) fn working_memory(log_n: u32, field: usize, lanes: bool, avx2: bool) -> usize {
    let whole = whole_working_memory(log_n, field);
    let scalar = if log_n <= WHOLE_MAX_LOG {
        whole
    } else {
        four_step_working_memory(log_n, field)
    };
    #[cfg(target_arch = "x86_64")]
    {
        let mut bytes = scalar;
        if lanes {
            bytes = bytes
                .max(crate::ifma::working_memory(log_n, field))
                .max(whole);
        }
        if avx2 {
            bytes = bytes.max(crate::avx2::working_memory(log_n, field).unwrap_or(0));
        }
        bytes
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (lanes, avx2);
        scalar
    }
}

/// Upper estimate of the heap bytes the in-cache and whole-array transforms
/// of `2^log_n` elements of `field` bytes allocate: the stage table of size
/// `n` (built in place on first use, cached afterwards; `n - 1` twiddles in
/// one allocation of `n`) and a little bookkeeping.
fn whole_working_memory(log_n: u32, field: usize) -> usize {
    (1usize << log_n) * field + BOOKKEEPING
}

/// Upper estimate of the heap bytes the scalar four-step transform of
/// `2^log_n` elements of `field` bytes allocates besides its data: the
/// stage tables of its two sizes, one column block per thread, the inverse
/// scaling's powers and a little bookkeeping.
fn four_step_working_memory(log_n: u32, field: usize) -> usize {
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

/// Runs `job` on `data` (length `2^job.log_n`), natural order in and out.
pub(crate) fn run<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    let n = data.len();
    debug_assert_eq!(n, 1usize << job.log_n);
    if job.log_n <= LEAF_LOG {
        run_leaf::<F, A>(ar, data, job);
    } else if job.log_n <= WHOLE_MAX_LOG {
        run_whole::<F, A>(ar, data, job);
    } else {
        run_four_step::<F, A>(ar, data, job);
    }
}

/// The whole-array transform ([`WHOLE_MAX_LOG`]): coset powers, radix-4
/// stages over the whole array until the blocks have at most `2^LEAF_LOG`
/// elements, each block's remaining stages in cache, the bit reversal, the
/// inverse scaling.
fn run_whole<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
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

fn run_leaf<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    scale_before(ar, data, job);
    if data.len() > 1 {
        let tw = StageTwiddles::<F>::get(job.log_n, job.inverse);
        dif::<F, A>(ar, data, &tw.table, tw.omega4);
        bitrev_permute(data);
    }
    scale_after(ar, data, job);
}

fn run_four_step<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
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
    let coset_step = job.pre.map(|g| g.pow([n2 as u64]));
    let ptr = Shared(data.as_mut_ptr());

    // 1. columns, COLUMN_BLOCK at a time.
    let column_task = |buf: &mut Vec<A::E>, block: usize| {
        let c0 = block * COLUMN_BLOCK;
        let width = COLUMN_BLOCK.min(n2 - c0);
        if buf.len() != width * n1 {
            buf.clear();
            // SAFETY: element c0 lies in this task's first column.
            buf.resize(width * n1, unsafe { *ptr.at(c0) });
        }
        // Gather, a row of the block at a time (whole cache lines):
        // buf[b*n1 + j1] = x[j1*n2 + c0 + b] (* g^(j1*n2 + c0 + b)).
        let mut cur = [F::one(); COLUMN_BLOCK];
        if let Some(g) = job.pre {
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
                buf[b * n1 + j1] = match &coset_step {
                    Some(step) => {
                        let out = ar.scale(&v, &cur[b]);
                        cur[b] = ar.mul(&cur[b], step);
                        out
                    }
                    None => v,
                };
            }
        }
        for (b, col) in buf.chunks_exact_mut(n1).enumerate() {
            dif::<F, A>(ar, col, &tw1.table, tw1.omega4);
            let j2 = c0 + b;
            if j2 != 0 {
                // Two interleaved power chains (w^k, w^(k+1)) halve the
                // latency-bound part.
                let w = root.pow([j2 as u64]);
                let w2 = ar.mul(&w, &w);
                let (mut even, mut odd) = (F::one(), w);
                for k in (0..n1).step_by(2) {
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
        for j1 in 0..n1 {
            for b in 0..width {
                // SAFETY: as for the gather.
                unsafe { *ptr.at(j1 * n2 + c0 + b) = buf[b * n1 + j1] };
            }
        }
    };
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

    // 2. rows; inverse scaling s * o^k for k = bitrev(r) + n1*bitrev(q).
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

    // 3. x[i] <-> x[bitrev(i)].
    bitrev_permute_blocked(data);
}

#[cfg(test)]
mod tests {
    //! Both compositions at the sizes where `run` picks only one of them
    //! (the four-step runs above 2^WHOLE_MAX_LOG in use, too large to test
    //! every kernel there), against ark-poly, 2^13 to 2^17.
    use super::*;
    use crate::arith::{Adx, Generic, Portable};
    use crate::job::PostScale;
    use ark_bn254::Fr;
    use ark_ff::{FftField, UniformRand};
    use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
    use rand::SeedableRng;

    fn jobs(log_n: u32, coset: bool) -> [(Job<Fr>, Radix2EvaluationDomain<Fr>, bool); 2] {
        let mut d = Radix2EvaluationDomain::<Fr>::new(1 << log_n).unwrap();
        if coset {
            d = d.get_coset(Fr::GENERATOR).unwrap();
        }
        let forward = Job {
            log_n,
            inverse: false,
            pre: coset.then_some(d.offset),
            post: None,
        };
        let inverse = Job {
            log_n,
            inverse: true,
            pre: None,
            post: Some(PostScale {
                factor: d.size_inv,
                offset: d.offset_inv,
            }),
        };
        [(forward, d, false), (inverse, d, true)]
    }

    fn check<A: Arith<Fr, E = Fr>>(ar: &A, name: &str) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        // ZKACCEL_TEST_NTT_LOG_MAX (as in tests/ntt.rs) lowers the largest
        // size, for emulators; the smallest four-step size always runs.
        let log_max = std::env::var("ZKACCEL_TEST_NTT_LOG_MAX")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(17u32)
            .clamp(LEAF_LOG + 1, 17);
        for log_n in LEAF_LOG + 1..=log_max {
            let v: Vec<Fr> = (0..1usize << log_n).map(|_| Fr::rand(&mut rng)).collect();
            for coset in [false, true] {
                for (job, d, inverse) in jobs(log_n, coset) {
                    let want = if inverse { d.ifft(&v) } else { d.fft(&v) };
                    let mut four = v.clone();
                    run_four_step::<Fr, A>(ar, &mut four, &job);
                    assert_eq!(
                        four, want,
                        "{name} four-step 2^{log_n} coset={coset} inverse={inverse}"
                    );
                    let mut whole = v.clone();
                    run_whole::<Fr, A>(ar, &mut whole, &job);
                    assert_eq!(
                        whole, want,
                        "{name} whole 2^{log_n} coset={coset} inverse={inverse}"
                    );
                }
            }
        }
    }

    #[test]
    fn four_step_and_whole_array_agree_with_ark_poly() {
        match Adx::new() {
            Some(adx) => check(&adx, "adx"),
            None => {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "SKIPPED: the ADX kernel's four-step and whole-array transforms (no BMI2/ADX, or ZKACCEL_KERNEL=portable)"
                );
            }
        }
        check(&Portable, "portable");
        check(&Generic::<Fr>::new(), "generic");
    }
}
