//! The four-step transform on AVX-512 IFMA: eight independent columns (or
//! rows) per vector.
//!
//! The four-step split already makes the work "many equal transforms with the
//! same twiddles": the column pass runs `n2` transforms of size `n1`, the row
//! pass `n1` of size `n2`. Here each pass takes them eight at a time, one per
//! 64-bit lane, so every butterfly is a vertical vector operation (no
//! shuffles) and every stage twiddle is a broadcast. This is the CPU
//! counterpart of the FPGA design's parallel butterfly units: eight
//! Montgomery multipliers (zkaccel-ff's [`ifma`](zkaccel_ff::ifma) module,
//! radix 2^52) fed in lockstep.
//!
//! Data moves between arkworks' layout and the lanes once per pass: the gather
//! packs eight elements into five 52-bit limb vectors, the scatter reduces
//! fully and unpacks, so the values written back are arkworks' own. Inside a
//! pass values are lazily reduced in `[0, 2p)`.
//!
//! Same algorithm, order of operations and outputs as the scalar four-step in
//! `four_step` (column DIFs with coset powers fused into the gather, the
//! inter-pass twiddles, row DIFs with the inverse scaling fused, one blocked
//! bit reversal); only the arithmetic is vectorised.

use core::marker::PhantomData;
use std::sync::Arc;

use zkaccel_ff::ifma::{self, Consts, Ifma, Lanes};
use zkaccel_ff::MontField;

use crate::job::Job;
use crate::stages::{bitrev, bitrev_permute_blocked, dif_stages, threads, Shared, BOOKKEEPING};
use crate::twiddles::{cached, StageTwiddles};

/// Transforms taken together (the lanes of one vector).
const LANES: usize = 8;

/// [`StageTwiddles`] in the form the lane multiplication takes (R' form,
/// 52-bit limbs), cached like them.
pub(crate) struct LaneTwiddles<F> {
    table: Vec<[u64; 5]>,
    omega4: [u64; 5],
    _field: PhantomData<fn() -> F>,
}

impl<F: MontField> LaneTwiddles<F> {
    fn get(log_m: u32, inverse: bool) -> Arc<Self> {
        cached::<Self>(log_m, inverse, || {
            let st = StageTwiddles::<F>::get(log_m, inverse);
            LaneTwiddles {
                table: st.table.iter().map(ifma::to_r260).collect(),
                omega4: ifma::to_r260(&st.omega4),
                _field: PhantomData,
            }
        })
    }
}

/// The lane version of the scalar kernels' `dif`: radix-4 decimation in
/// frequency of eight transforms at once, output in bit-reversed order.
///
/// # Safety
/// AVX-512F and AVX-512IFMA available; `c` belongs to the field of `tw`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn dif<F>(row: &mut [Lanes], tw: &LaneTwiddles<F>, c: &Consts) {
    // SAFETY (whole body): the features are enabled for this function (the
    // closures inherit them).
    unsafe {
        let w4 = ifma::splat(&tw.omega4);
        dif_stages(
            row,
            &tw.table,
            |[x0, x1, x2, x3], t| {
                for j in 0..x0.len() {
                    let (a0, a1, a2, a3) = (&x0[j], &x1[j], &x2[j], &x3[j]);
                    let s02 = ifma::add(a0, a2, c);
                    let s13 = ifma::add(a1, a3, c);
                    let d02 = ifma::sub(a0, a2, c);
                    let d13 = ifma::mul(&ifma::sub(a1, a3, c), &w4, c);
                    let (y0, y1) = (ifma::add(&s02, &s13, c), ifma::sub(&s02, &s13, c));
                    let (y2, y3) = (ifma::add(&d02, &d13, c), ifma::sub(&d02, &d13, c));
                    x0[j] = y0;
                    if j == 0 {
                        x1[0] = y1;
                        x2[0] = y2;
                        x3[0] = y3;
                    } else {
                        let w = &t[3 * j..3 * j + 3];
                        x1[j] = ifma::mul(&y1, &ifma::splat(&w[1]), c);
                        x2[j] = ifma::mul(&y2, &ifma::splat(&w[0]), c);
                        x3[j] = ifma::mul(&y3, &ifma::splat(&w[2]), c);
                    }
                }
            },
            |a, b| {
                let (x, y) = (*a, *b);
                *a = ifma::add(&x, &y, c);
                *b = ifma::sub(&x, &y, c);
            },
        );
    }
}

/// Lanes `x * step^l` for `l = 0..8`, in R' form.
fn lane_powers<F: MontField>(x: F, step: F) -> [[u64; 5]; LANES] {
    let mut cur = x;
    core::array::from_fn(|_| {
        let out = ifma::to_r260(&cur);
        cur *= step;
        out
    })
}

/// The column pass for columns `c0..c0 + 8`: gather (with the coset powers),
/// DIF of size `n1`, the inter-pass twiddles `w_n^(j2 * k1)`, scatter.
///
/// # Safety
/// AVX-512F and AVX-512IFMA available; `ptr` points to `n1 * n2` elements of
/// which this call alone touches columns `c0..c0 + 8`.
#[target_feature(enable = "avx512f,avx512ifma")]
#[allow(clippy::too_many_arguments)]
unsafe fn column_block<F: MontField>(
    ptr: Shared<F>,
    (k1, n2): (u32, usize),
    c0: usize,
    buf: &mut Vec<Lanes>,
    tw: &LaneTwiddles<F>,
    c: &Consts,
    coset: Option<(F, F)>,
    root: F,
) {
    let n1 = 1usize << k1;
    // SAFETY (whole body): features enabled; every element index below lies
    // in columns c0..c0 + 8 of the n1 x n2 array.
    unsafe {
        buf.clear();
        buf.reserve_exact(n1);
        let mut cur = coset.map(|(g, step)| {
            (
                ifma::from_limbs(&lane_powers(g.pow([c0 as u64]), g)),
                ifma::splat(&ifma::to_r260(&step)),
            )
        });
        for j1 in 0..n1 {
            let row = j1 * n2 + c0;
            let mut v = ifma::pack::<F, 5>(core::array::from_fn(|l| &*ptr.at(row + l)));
            if let Some((cur, step)) = &mut cur {
                v = ifma::mul(&v, cur, c);
                *cur = ifma::mul(cur, step, c);
            }
            buf.push(v);
        }
        dif(buf, tw, c);
        // Column j2 = c0 + l: element at row bitrev(k) times w^(j2 k), with
        // two interleaved power chains (w^k, w^(k+1)).
        let w = ifma::from_limbs(&lane_powers(root.pow([c0 as u64]), root));
        let w2 = ifma::mul(&w, &w, c);
        let (mut even, mut odd) = (ifma::splat(&ifma::to_r260(&F::one())), w);
        for k in (0..n1).step_by(2) {
            let (p0, p1) = (bitrev(k, k1), bitrev(k + 1, k1));
            if k != 0 {
                buf[p0] = ifma::mul(&buf[p0], &even, c);
            }
            buf[p1] = ifma::mul(&buf[p1], &odd, c);
            even = ifma::mul(&even, &w2, c);
            odd = ifma::mul(&odd, &w2, c);
        }
        for (j1, v) in buf.iter().enumerate() {
            let out: [F; LANES] = ifma::unpack(v, c);
            let row = j1 * n2 + c0;
            for (l, x) in out.into_iter().enumerate() {
                *ptr.at(row + l) = x;
            }
        }
    }
}

/// The post-scaling of the row pass: `x[i] *= factor * offset^i`.
struct RowScale<F> {
    factor: F,
    offset: F,
    /// `(offset^n1)^q` for `q < n2`, R' form (empty when `offset` is one).
    powers: Vec<[u64; 5]>,
}

/// The row pass for rows `r0..r0 + 8`: gather, DIF of size `n2`, the
/// optional post-scaling, scatter.
///
/// # Safety
/// As for [`column_block`], for rows `r0..r0 + 8`.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn row_block<F: MontField>(
    ptr: Shared<F>,
    (k1, k2): (u32, u32),
    r0: usize,
    buf: &mut Vec<Lanes>,
    tw: &LaneTwiddles<F>,
    c: &Consts,
    post: Option<&RowScale<F>>,
) {
    let n2 = 1usize << k2;
    // SAFETY (whole body): features enabled; every element index below lies
    // in rows r0..r0 + 8.
    unsafe {
        buf.clear();
        buf.reserve_exact(n2);
        for q in 0..n2 {
            buf.push(ifma::pack::<F, 5>(core::array::from_fn(|l| {
                &*ptr.at((r0 + l) * n2 + q)
            })));
        }
        dif(buf, tw, c);
        match post {
            None => {}
            Some(p) if p.offset.is_one() => {
                let f = ifma::splat(&ifma::to_r260(&p.factor));
                buf.iter_mut().for_each(|v| *v = ifma::mul(v, &f, c));
            }
            Some(p) => {
                // Row r holds k = bitrev(r) + n1 * bitrev(q).
                let base: [[u64; 5]; LANES] = core::array::from_fn(|l| {
                    let e = bitrev(r0 + l, k1) as u64;
                    ifma::to_r260(&(p.factor * p.offset.pow([e])))
                });
                let base = ifma::from_limbs(&base);
                for (q, v) in buf.iter_mut().enumerate() {
                    let f = ifma::mul(&base, &ifma::splat(&p.powers[bitrev(q, k2)]), c);
                    *v = ifma::mul(v, &f, c);
                }
            }
        }
        for (q, v) in buf.iter().enumerate() {
            let out: [F; LANES] = ifma::unpack(v, c);
            for (l, x) in out.into_iter().enumerate() {
                *ptr.at((r0 + l) * n2 + q) = x;
            }
        }
    }
}

/// Runs `task(index, buffer)` for `index < count`, in parallel when enabled,
/// with one reusable buffer per worker.
fn for_each_block(count: usize, task: impl Fn(usize, &mut Vec<Lanes>) + Sync + Send) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..count)
            .into_par_iter()
            .for_each_init(Vec::new, |buf, i| task(i, buf));
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut buf = Vec::new();
        (0..count).for_each(|i| task(i, &mut buf));
    }
}

/// Whether [`four_step`] takes a transform of `2^log_n` elements of `F`:
/// four-limb fields, and both passes at least eight transforms wide.
pub(crate) fn applies<F: MontField>(log_n: u32) -> bool {
    F::ADX_MUL && log_n / 2 >= 3
}

/// Upper estimate of the heap bytes [`four_step`] allocates besides its data
/// for `2^log_n` elements of a field of `field` bytes: the scalar stage
/// tables of its two sizes (built on first use and cached), their
/// 52-bit-limb copies (40 bytes per 32-byte element, cached too), one
/// buffer of eight rows per thread (`8 * n2` lane elements), the row
/// pass's scaling powers and a little bookkeeping.
pub(crate) fn working_memory(log_n: u32, field: usize) -> usize {
    // A table of size m holds m - 1 twiddles in one allocation of m.
    let table = |k: u32| (1usize << k) * field;
    let k1 = log_n / 2;
    let k2 = log_n - k1;
    let lane = |bytes: usize| bytes * 5 / 4;
    table(k1)
        + table(k2)
        + lane(table(k1) + table(k2))
        + threads() * lane(8 * (1usize << k2) * field)
        + lane((1usize << k2) * field)
        + BOOKKEEPING
}

/// The four-step transform of `data` (length `2^job.log_n`, natural order in
/// and out) with eight transforms per vector. Callers check [`applies`].
pub(crate) fn four_step<F: MontField>(_token: Ifma, data: &mut [F], job: &Job<F>) {
    debug_assert!(applies::<F>(job.log_n) && data.len() == 1usize << job.log_n);
    let n = data.len();
    let k1 = job.log_n / 2;
    let k2 = job.log_n - k1;
    let (n1, n2) = (1usize << k1, 1usize << k2);
    let c = Consts::of::<F>();
    let tw1 = LaneTwiddles::<F>::get(k1, job.inverse);
    let tw2 = LaneTwiddles::<F>::get(k2, job.inverse);
    let mut root = F::get_root_of_unity(n as u64).expect("size checked by the domain");
    if job.inverse {
        root = root.inverse().expect("roots of unity are non-zero");
    }
    let coset = job.pre.map(|g| (g, g.pow([n2 as u64])));
    let ptr = Shared(data.as_mut_ptr());

    // SAFETY: `_token` proves the CPU features; block `b` touches columns
    // 8b..8b + 8 only, and the blocks are disjoint.
    for_each_block(n2 / LANES, |b, buf| unsafe {
        column_block(ptr, (k1, n2), b * LANES, buf, &tw1, &c, coset, root)
    });

    let post = job.post.map(|p| {
        let powers = if p.offset.is_one() {
            Vec::new()
        } else {
            let step = p.offset.pow([n1 as u64]);
            let mut cur = F::one();
            (0..n2)
                .map(|_| {
                    let out = ifma::to_r260(&cur);
                    cur *= step;
                    out
                })
                .collect()
        };
        RowScale {
            factor: p.factor,
            offset: p.offset,
            powers,
        }
    });
    // SAFETY: as above, for rows 8b..8b + 8.
    for_each_block(n1 / LANES, |b, buf| unsafe {
        row_block(ptr, (k1, k2), b * LANES, buf, &tw2, &c, post.as_ref())
    });

    bitrev_permute_blocked(data);
}
