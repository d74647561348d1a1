//! The whole-array transform with AVX2: four sub-transforms per vector.
//!
//! After the first radix-4 stage of a decimation-in-frequency transform of
//! size `n`, the four quarters `x[l q .. (l + 1) q]` (`q = n / 4`) are
//! independent transforms of size `q` with the same twiddles. This path runs
//! the first stage four butterflies at a time (lane = butterfly, a twiddle
//! per lane), transposes each group of four vectors so that vector `v` holds
//! element `v` of the four quarters (lane = quarter), and runs the quarters'
//! remaining stages in lockstep: every butterfly a vertical vector operation,
//! every twiddle a broadcast. Elements are nine 29-bit limbs per lane
//! (zkaccel-ff's [`avx2`](zkaccel_ff::avx2) module, four Montgomery
//! multiplications per `vpmuludq` sequence). As in the scalar whole-array
//! transform, the first lane stages run over the whole lane array (split
//! between the threads) until blocks of `2^LEAF_LOG` vectors remain, which
//! finish in cache. The lanes are unpacked (fully reduced: arkworks' values)
//! into the quarters, then the scalar transform's blocked bit reversal and
//! scaling.
//!
//! Same outputs as the scalar transform. The price is memory: the lane copy
//! of the data (72 bytes per element, allocated per call) and a stage table
//! of `n` twiddles in 29-bit limbs (72 bytes each, cached), which is why the
//! path stops at `2^MAX_LOG`.

use core::marker::PhantomData;
use core::mem::MaybeUninit;
use std::sync::Arc;

use zkaccel_ff::avx2::{self, Avx2, Consts, Lanes, Twiddles, L};
use zkaccel_ff::MontField;

use crate::arith::AdxArith;
use crate::job::{scale_after, scale_before, Job};
use crate::stages::{self, Shared, BOOKKEEPING};
use crate::twiddles::{cached, StageTwiddles};

/// Lane blocks up to this many vectors (2^10 x 288 bytes: 288 KiB, inside
/// L2) finish their stages in cache (2^9 and 2^11 measured no faster at
/// 2^16 and 2^18).
const LEAF_LOG: u32 = 10;

/// Butterflies per task in the whole-lane-array stages.
const SPAN: usize = 64;

/// Smallest transform this path takes (at 2^13 the scalar kernel is as
/// fast and needs no lane copy).
const MIN_LOG: u32 = 14;

/// Largest transform this path takes: from 2^19 the lane copy (2.25 times
/// the data) and its table no longer fit the last-level cache, and the
/// scalar kernel is faster.
const MAX_LOG: u32 = 18;

/// [`StageTwiddles`] of size `n` in R' form, cached like it: the first
/// stage's triples as lane vectors (lane = butterfly, four butterflies per
/// entry), the other stages' (the table of size `n / 4`) as limbs to
/// broadcast. 72 bytes per twiddle either way.
struct LaneTwiddles<F> {
    first: Vec<[Lanes; 3]>,
    table: Vec<[u64; L]>,
    omega4: [u64; L],
    _field: PhantomData<fn() -> F>,
}

impl<F: MontField> LaneTwiddles<F> {
    fn get(_token: Avx2, log_n: u32, inverse: bool) -> Arc<Self> {
        cached::<Self>(log_n, inverse, || {
            let st = StageTwiddles::<F>::compute(log_n, inverse);
            let q = 1usize << (log_n - 2);
            let r = rprime_table(&st.table);
            let omega4 = avx2::to_rprime(&st.omega4);
            // At most 144 bytes per twiddle at once (working_memory).
            drop(st);
            let first = r[..3 * q]
                .chunks_exact(12)
                .map(|t| {
                    core::array::from_fn(|k| {
                        // SAFETY: AVX2 (the token).
                        unsafe { avx2::from_limbs([&t[k], &t[3 + k], &t[6 + k], &t[9 + k]]) }
                    })
                })
                .collect();
            LaneTwiddles {
                first,
                table: r[3 * q..].to_vec(),
                omega4,
                _field: PhantomData,
            }
        })
    }
}

/// Every twiddle of `table` in R' form ([`avx2::to_rprime`]), split between
/// the threads with `parallel`: the table is built once per size and
/// direction, but a one-shot prover pays it on every run (at 2^17, 20-25 ms
/// of a first transform that then takes 12-15 ms, one element at a time).
fn rprime_table<F: MontField>(table: &[F]) -> Vec<[u64; L]> {
    let ratio = avx2::rprime_ratio::<F>();
    let one = |x: &F| avx2::to_rprime_by(x, &ratio);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        table.par_iter().with_min_len(1 << 12).map(one).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        table.iter().map(one).collect()
    }
}

/// Whether this path takes transforms of `2^log_n` elements of `F`.
pub(crate) fn applies<F: MontField>(log_n: u32) -> bool {
    takes(log_n) && avx2::fits::<F>()
}

/// Whether this path takes transforms of `2^log_n` elements (of a field
/// that fits the lanes).
fn takes(log_n: u32) -> bool {
    (MIN_LOG..=MAX_LOG).contains(&log_n)
}

/// Upper estimate of the heap bytes [`transform`] allocates besides its
/// data for `2^log_n` elements of a field of `field` bytes, `None` where it
/// does not run (other sizes, fields other than four-limb ones): the stage
/// table of size `n` in 29-bit limbs (72 bytes per twiddle, cached), built
/// from a scalar table of the same size that is dropped afterwards, and
/// the lane copy of the data (72 bytes per element).
pub(crate) fn working_memory(log_n: u32, field: usize) -> Option<usize> {
    if field != 32 || !takes(log_n) {
        return None;
    }
    let n = 1usize << log_n;
    let lane = 72 * n;
    Some((lane + n * field).max(2 * lane) + BOOKKEEPING)
}

/// Lane radix-4 butterflies `j0 .. j0 + x[0].len()` of one stage.
///
/// # Safety
/// AVX2 available; `c` belongs to the field of `t`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn span(x: [&mut [Lanes]; 4], j0: usize, t: &[[u64; L]], w4: &Lanes, c: &Consts) {
    let [x0, x1, x2, x3] = x;
    for k in 0..x0.len() {
        let j = j0 + k;
        let w = if j == 0 {
            Twiddles::One
        } else {
            Twiddles::Same([&t[3 * j], &t[3 * j + 1], &t[3 * j + 2]])
        };
        // SAFETY: features enabled; values from this module's functions.
        unsafe { avx2::dif4([&mut x0[k], &mut x1[k], &mut x2[k], &mut x3[k]], w4, w, c) };
    }
}

/// The lane version of the scalar kernels' `dif`: radix-4 stages in place,
/// a final radix-2 stage when `log2(len)` is odd; `table` the stage table of
/// size `row.len()`.
///
/// # Safety
/// AVX2 available; `c` belongs to the field of `table`.
#[target_feature(enable = "avx2")]
unsafe fn dif(row: &mut [Lanes], table: &[[u64; L]], w4: &Lanes, c: &Consts) {
    stages::dif_stages(
        row,
        table,
        // SAFETY: same features and constants.
        |x, t| unsafe { span(x, 0, t, w4, c) },
        // SAFETY: same features.
        |a, b| unsafe { avx2::dif2(a, b, c) },
    );
}

/// The whole-array transform of `data` with the lanes ([`applies`] holds).
pub(crate) fn transform<F: MontField>(token: Avx2, adx: &AdxArith, data: &mut [F], job: &Job<F>) {
    let c = Consts::of::<F>().expect("checked by applies");
    let n = data.len();
    let q = n / 4;
    scale_before(adx, data, job);
    let tw = LaneTwiddles::<F>::get(token, job.log_n, job.inverse);
    // SAFETY (every lane call below): AVX2 (the token); constants of F.
    let w4 = unsafe { avx2::splat(&tw.omega4) };

    // The first stage, four butterflies j0..j0 + 4 per group (lane = j);
    // transposed on the way out so that vector j holds element j of each
    // quarter (lane = quarter).
    let mut lanes: Vec<Lanes> = Vec::with_capacity(q);
    let spare = &mut lanes.spare_capacity_mut()[..q];
    let src = Shared(data.as_mut_ptr());
    stages::for_each_chunk(spare, 4 * SPAN, |i, chunk| {
        for (g, out) in chunk.chunks_exact_mut(4).enumerate() {
            let j0 = i * 4 * SPAN + 4 * g;
            // SAFETY: AVX2; reads only, of elements j0 + v + l q < n (v < 4).
            unsafe { first_group(src, q, j0, &tw.first[j0 / 4], &w4, &c, out) };
        }
    });
    // SAFETY: every one of the q slots was written above (q is a multiple
    // of 4 * SPAN or one chunk of a multiple of 4).
    unsafe { lanes.set_len(q) };

    let (mut len, mut off) = (q, 0);
    while len > 1 << LEAF_LOG {
        let s = len / 4;
        let t = &tw.table[off..off + 3 * s];
        for block in lanes.chunks_exact_mut(len) {
            stage(block, t, &w4, &c);
        }
        off += 3 * s;
        len /= 4;
    }
    let tail = &tw.table[off..];
    stages::for_each_chunk(&mut lanes, len, |_, block| {
        // SAFETY: as above.
        unsafe { dif(block, tail, &w4, &c) }
    });

    // Unpack lane l of vector v into element l q + v.
    let dst = Shared(data.as_mut_ptr());
    stages::for_each_chunk(&mut lanes, SPAN * 16, |i, chunk| {
        for (k, v) in chunk.iter().enumerate() {
            let at = i * SPAN * 16 + k;
            // SAFETY: AVX2; element at + l q is written by this task only.
            let out = unsafe { avx2::unpack::<F>(v, &c) };
            for (l, y) in out.into_iter().enumerate() {
                // SAFETY: as above; at + l q < n.
                unsafe { *dst.at(at + l * q) = y };
            }
        }
    });
    stages::bitrev_permute_blocked(data);
    scale_after(adx, data, job);
}

/// The first stage's butterflies `j0 .. j0 + 4` (lane = `j - j0`),
/// transposed into `out`: `out[v]` holds element `j0 + v` of each quarter.
///
/// # Safety
/// AVX2 available; elements `j0 + v + l q` (`v, l < 4`) of `src` are in
/// bounds and not written meanwhile; `w` holds the twiddles of
/// `j0 .. j0 + 4`.
#[target_feature(enable = "avx2")]
unsafe fn first_group<F: MontField>(
    src: Shared<F>,
    q: usize,
    j0: usize,
    w: &[Lanes; 3],
    w4: &Lanes,
    c: &Consts,
    out: &mut [MaybeUninit<Lanes>],
) {
    // SAFETY (whole body): as the caller promises.
    unsafe {
        let at = |l: usize, v: usize| &*src.at(l * q + j0 + v);
        let mut y0 = avx2::pack::<F>([at(0, 0), at(0, 1), at(0, 2), at(0, 3)]);
        let mut y1 = avx2::pack::<F>([at(1, 0), at(1, 1), at(1, 2), at(1, 3)]);
        let mut y2 = avx2::pack::<F>([at(2, 0), at(2, 1), at(2, 2), at(2, 3)]);
        let mut y3 = avx2::pack::<F>([at(3, 0), at(3, 1), at(3, 2), at(3, 3)]);
        let w = Twiddles::PerLane([&w[0], &w[1], &w[2]]);
        avx2::dif4([&mut y0, &mut y1, &mut y2, &mut y3], w4, w, c);
        avx2::transpose_into(&[y0, y1, y2, y3], out);
    }
}

/// One lane radix-4 stage over a block of length `4s`, the butterflies split
/// between the threads in spans of [`SPAN`].
fn stage(block: &mut [Lanes], t: &[[u64; L]], w4: &Lanes, c: &Consts) {
    stages::for_each_quarter_span(block, SPAN, |x, j0| {
        // SAFETY: AVX2 (the caller holds the token); constants of the
        // table's field.
        unsafe { span(x, j0, t, w4, c) }
    });
}
