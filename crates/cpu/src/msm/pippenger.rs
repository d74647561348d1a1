//! Pippenger's bucket method: signed-digit windows, window sizing, XYZZ buckets
//! and the running-sum reduction (the narrow windows'; the wide ones are in
//! `batch_affine.rs`).

use super::bases::Bases;
use super::batch_affine::{running_sums, window_batch_affine};
use crate::field_ops::{DetectOps, FieldOps, Plain};
use crate::formulas::{double, FormulaSet};
use crate::parallel::{
    for_each_indexed, map_indices, map_ranges, parallel_threads, PARALLEL_CONVERT,
};
use crate::xyzz::Xyzz;
use crate::CurveMul;
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ff::{BigInteger, Zero};

/// The bit length of the bitwise OR of all scalars, which is that of the
/// widest one: one branch-free pass over the limbs, in parallel chunks for
/// long inputs (`Auto` reads it before the bucket method: at 2^20 a pass
/// over the scalars costs a few milliseconds).
pub(crate) fn max_bits<B: BigInteger>(scalars: &[B]) -> u32 {
    let or = |part: &[B]| -> B {
        let mut acc = B::default();
        for k in part {
            for (a, l) in acc.as_mut().iter_mut().zip(k.as_ref()) {
                *a |= *l;
            }
        }
        acc
    };
    let acc = if scalars.len() < PARALLEL_CONVERT {
        or(scalars)
    } else {
        let parts = map_ranges(
            scalars.len(),
            scalars.len().div_ceil(PARALLEL_CONVERT),
            |r| or(&scalars[r]),
        );
        or(&parts)
    };
    acc.num_bits()
}

/// The window `c` minimising the total work `windows * (n + 2^c)` point
/// additions, whatever the parallelism (the GPU bucket MSM's choice; the
/// CPU's windows count their cost by [`window_cost`] instead).
pub fn min_work_window(n: usize, bits: u32) -> u32 {
    (1..=20u32)
        .min_by_key(|&c| (bits + 1).div_ceil(c) as u64 * (n as u64 + (1u64 << c)))
        .unwrap_or(1)
}

/// How a batch-affine window adds its points: what sets how wide a window
/// may grow before its bucket walk stops being cheap ([`window_cost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BucketAdds {
    /// In bulk on vector lanes ([`FieldOps::has_affine_batch`]: the AVX-512
    /// IFMA lanes, eight additions a vector; WebAssembly's SIMD128 lanes).
    /// An addition is cheap, so a wide window's cache misses weigh: walks
    /// are discounted up to [`BATCH_AFFINE_WALK_MAX_WINDOW`] bits (in
    /// WebAssembly, less, up to [`BATCH_AFFINE_WALK_MAX_WINDOW_WASM`] bits).
    Lanes,
    /// One at a time on a scalar kernel (the ADX or aarch64 assembly, the
    /// portable kernels, arkworks' operators): an addition costs two to
    /// three times a lane's, so wider windows, with fewer of them to run,
    /// pay: walks are discounted up to
    /// [`BATCH_AFFINE_WALK_MAX_WINDOW_SCALAR`] bits.
    Scalar,
}

impl BucketAdds {
    /// How `ops` adds a batch-affine window's points. Points over an
    /// extension field (G2) count as [`BucketAdds::Lanes`] whatever the
    /// kernel: their buckets are twice as large, and the wider windows were
    /// measured on G1 only (on the dense 2^18 circom proof a 16-bit G2
    /// window raised the peak memory).
    pub fn of<F: ark_ff::Field, O: FieldOps<F>>(ops: &O) -> Self {
        if ops.has_affine_batch() || F::extension_degree() > 1 {
            BucketAdds::Lanes
        } else {
            BucketAdds::Scalar
        }
    }

    /// How the curve's arithmetic on this CPU ([`CurveMul::Ops`], as the
    /// MSM detects it) adds them.
    pub fn detect<P: CurveMul>() -> Self {
        match P::Ops::detect() {
            Some(ops) => BucketAdds::of(&ops),
            None => BucketAdds::of(&P::Ops::fallback()),
        }
    }

    /// The widest window whose walk [`window_cost`] discounts.
    fn widest_discounted(self) -> u32 {
        match self {
            BucketAdds::Lanes => BATCH_AFFINE_WALK_MAX_WINDOW,
            BucketAdds::Scalar => BATCH_AFFINE_WALK_MAX_WINDOW_SCALAR,
        }
    }
}

/// The cost of one window of `n` terms with `2^(c-1)` buckets on the CPU,
/// in point additions: every term added once, plus the bucket walk. XYZZ
/// windows (below [`BATCH_AFFINE_MIN_WINDOW`]) walk their buckets twice by
/// running sums, `2^c` additions. Batch-affine windows reduce theirs by
/// batched row and column sums that skip empty buckets, and a term whose
/// bucket is still empty is a copy, not an addition: where each bucket gets
/// at least four terms (`n >= 2^(c+1)`) and the window has at most 2^12
/// buckets on vector lanes ([`BATCH_AFFINE_WALK_MAX_WINDOW`]; 2^15 on a
/// scalar kernel, [`BATCH_AFFINE_WALK_MAX_WINDOW_SCALAR`]), the walk costs
/// about a fifth of `2^c` ([`BATCH_AFFINE_WALK_DISCOUNT`]). Sparser windows
/// spend their time in small batches, one inversion each, and wider ones in
/// cache misses, so both keep the full count; in WebAssembly the lanes'
/// windows of 14 and 15 bits count half of `2^c`
/// ([`BATCH_AFFINE_WIDE_WALK_DISCOUNT_WASM`]). The constants are fitted to
/// single-thread and two-thread timings on BN254 (IFMA and ADX) and
/// BLS12-381 G1 from 300 to 2^20 terms (docs/msm.md, "Where Auto's
/// thresholds come from"). Counting every walk as `2^c` held windows two
/// to four bits too narrow where a window has many buckets for its terms:
/// a 1,024-term BN254 MSM (2,048 terms after the GLV split, the shape of
/// Hyrax's row commitments) took 1.33x as long on one thread.
pub fn window_cost(n: usize, c: u32, adds: BucketAdds) -> u64 {
    let walk = 1u64 << c;
    let dense = (n as u64) >= 2u64 << c;
    let discount = if !dense || c < BATCH_AFFINE_WALK_MIN_WINDOW {
        1
    } else if c <= adds.widest_discounted() {
        BATCH_AFFINE_WALK_DISCOUNT
    } else if adds == BucketAdds::Lanes
        && cfg!(target_arch = "wasm32")
        && c <= BATCH_AFFINE_WALK_MAX_WINDOW_WASM
    {
        BATCH_AFFINE_WIDE_WALK_DISCOUNT_WASM
    } else {
        1
    };
    n as u64 + walk / discount
}

/// The narrowest window whose walk [`window_cost`] discounts: 2^9 buckets
/// (at 2^8, batches of 128 additions among 256 buckets conflict often and
/// the window measured no faster than XYZZ on two threads).
pub const BATCH_AFFINE_WALK_MIN_WINDOW: u32 = 10;

/// The widest window whose walk [`window_cost`] discounts on vector lanes
/// ([`BucketAdds::Lanes`]): 2^12 buckets.
pub const BATCH_AFFINE_WALK_MAX_WINDOW: u32 = 13;

/// The widest window whose walk [`window_cost`] counts at
/// 1/[`BATCH_AFFINE_WIDE_WALK_DISCOUNT_WASM`] for [`BucketAdds::Lanes`] in
/// WebAssembly, above [`BATCH_AFFINE_WALK_MAX_WINDOW`]: 2^14 buckets. There
/// (BN254 G1 on the SIMD128 lanes, G2 on the 29-bit scalar kernel, one
/// thread an instance) an addition costs about three times an IFMA lane's,
/// and each window streams every term's point, so fewer, wider windows pay
/// once a 15-bit window's buckets get enough terms. One thread of node 20
/// on an Intel Xeon (wasm32-wasip1, random full-width terms, 5 rounds,
/// medians), ms with 13-, 14- and 15-bit windows: G1 60,000 terms 651, 662,
/// 711; 65,536 terms 702, 704, 688; 100,000 terms 1,056, 1,044, 977; 2^17
/// terms 1,350, 1,324, 1,229; G2 2^16 terms 2,484, 2,475, 2,477; 2^17 terms
/// 5,337, 4,812, 4,500 (docs/msm.md, "Window size"). The rule picks 13 bits
/// up to about 82,000 full-width terms and 15 from there.
pub const BATCH_AFFINE_WALK_MAX_WINDOW_WASM: u32 = 15;

/// How much cheaper [`window_cost`] counts the walk of a [`BucketAdds::Lanes`]
/// window wider than [`BATCH_AFFINE_WALK_MAX_WINDOW`], up to
/// [`BATCH_AFFINE_WALK_MAX_WINDOW_WASM`], in WebAssembly: half of `2^c`
/// (the narrower windows' fifth would pick 14-bit windows from 2^15 terms,
/// which ran 1-3% slower than 13-bit ones up to 2^16).
pub const BATCH_AFFINE_WIDE_WALK_DISCOUNT_WASM: u64 = 2;

/// The widest window whose walk [`window_cost`] discounts on a scalar
/// kernel ([`BucketAdds::Scalar`]): 2^15 buckets. On a 2-core AMD Zen 3
/// (ADX assembly), full-width BN254 terms ran 8-14% faster at 2^17 (16-bit
/// windows instead of 13) and about 6% at 2^16 (15 instead of 13); the
/// portable kernels 2-8% (docs/msm.md).
pub const BATCH_AFFINE_WALK_MAX_WINDOW_SCALAR: u32 = 16;

/// How much cheaper [`window_cost`] counts a batch-affine window's bucket
/// walk than a running-sum walk.
pub const BATCH_AFFINE_WALK_DISCOUNT: u64 = 5;

/// The widest window worth trying for scalars of `bits` bits: one wider
/// than the scalars (plus the sign) adds only empty buckets; 20 bits at
/// most.
fn widest_window(bits: u32) -> u32 {
    (bits + 1).clamp(1, 20)
}

/// The window `c` for `n` terms of `bits` bits: among the three sizes on
/// either side of the one minimising the total work `windows *`
/// [`window_cost`], the one with the shortest critical path
/// `ceil(windows / threads) * window_cost`: windows run in parallel, so 16
/// windows on 2 threads beat 15 (2^20 full width) and 6 beat 5 (64-bit
/// scalars at 2^16).
pub fn pippenger_window(n: usize, bits: u32, adds: BucketAdds) -> u32 {
    let windows = |c: u32| (bits + 1).div_ceil(c) as u64;
    let cost = |c: u32| window_cost(n, c, adds);
    let widest = widest_window(bits);
    let work = (1..=widest)
        .min_by_key(|&c| windows(c) * cost(c))
        .unwrap_or(1);
    let threads = parallel_threads().max(1) as u64;
    (work.saturating_sub(3).max(1)..=(work + 3).min(widest))
        .min_by_key(|&c| (windows(c).div_ceil(threads) * cost(c), windows(c) * cost(c)))
        .unwrap_or(work)
}

/// Pippenger's plan for `n` terms of `bits` bits: the window `c` and the
/// number of point ranges run as separate bucket methods and summed. Where
/// the scalars are narrow, the windows alone leave threads idle or force
/// small windows (8-bit scalars: two 6-bit windows over all points on two
/// threads); splitting the points lets each thread run one wide window
/// over its own range (arkworks does the same for 8- and 16-bit scalars).
/// The plan minimises the critical path `ceil(windows * parts / threads) *
/// window_cost(n / parts, c)`, ties by total work; ranges get at least
/// [`MIN_RANGE_TERMS`] terms; without a gain it is [`pippenger_window`]
/// with one range. Point ranges are costed with the lanes' bound on the
/// discounted windows whatever `adds` says: the wider windows were measured
/// paying on all the points (2^17 full-width BN254 terms on a scalar
/// kernel: 16-bit windows on one range 0.86x the time of 13-bit ones, 15-bit
/// windows on two ranges no faster); on ranges the evidence is one run of
/// the dense 2^18 proof's 2^19 GLV halves, faster on two ranges of 15 bits
/// (docs/msm.md, "Window size"), too little to change them.
pub fn pippenger_plan(n: usize, bits: u32, adds: BucketAdds) -> (u32, usize) {
    let single = (pippenger_window(n, bits, adds), 1usize);
    let threads = parallel_threads().max(1);
    let cost = |(c, parts): (u32, usize)| {
        let windows = (bits + 1).div_ceil(c) as u64 * parts as u64;
        let adds = if parts > 1 { BucketAdds::Lanes } else { adds };
        let per = window_cost(n.div_ceil(parts), c, adds);
        (windows.div_ceil(threads as u64) * per, windows * per)
    };
    // `min_by_key` keeps the first of equal plans: the single range.
    core::iter::once(single)
        .chain(
            (2..=threads.min(n / MIN_RANGE_TERMS))
                .flat_map(|parts| (1..=widest_window(bits)).map(move |c| (c, parts))),
        )
        .min_by_key(|&plan| cost(plan))
        .unwrap_or(single)
}

/// The fewest terms of a point range in [`pippenger_plan`].
pub const MIN_RANGE_TERMS: usize = 1 << 11;

/// Signed digits of `k` in base `2^c`: `k = sum d_j 2^(jc)`, `d_j` in
/// `[-2^(c-1), 2^(c-1))`, `windows` of them (the last absorbs the carry).
pub(crate) fn signed_digits<B: BigInteger>(k: &B, c: u32, windows: usize, out: &mut [i32]) {
    let limbs = k.as_ref();
    // Bits [start, start + c) of k, c <= 20.
    let window = |start: u32| -> i64 {
        let (w, b) = ((start / 64) as usize, start % 64);
        let lo = limbs.get(w).map_or(0, |l| l >> b);
        let hi = if b + c > 64 {
            limbs.get(w + 1).map_or(0, |l| l << (64 - b))
        } else {
            0
        };
        ((lo | hi) & ((1u64 << c) - 1)) as i64
    };
    let half = 1i64 << (c - 1);
    let mut carry = 0i64;
    for (j, d) in out.iter_mut().enumerate().take(windows) {
        let v = window(j as u32 * c) + carry;
        if v >= half && j + 1 < windows {
            *d = (v - (half << 1)) as i32;
            carry = 1;
        } else {
            *d = v as i32;
            carry = 0;
        }
    }
}

/// The signed digits of every scalar, window-major: `out[j * n + i]` is
/// window `j` of scalar `i`. Chunks of scalars run in parallel, each writing
/// its own columns of every row in place (no second copy of the digits).
pub(super) fn window_major_digits<B: BigInteger>(
    scalars: &[B],
    c: u32,
    windows: usize,
) -> Vec<i32> {
    let n = scalars.len();
    let mut out = vec![0i32; n * windows];
    if n == 0 {
        return out;
    }
    // columns[p][j]: window j's digits of the scalars of chunk p.
    let chunks = n.div_ceil(DIGIT_CHUNK);
    let mut columns: Vec<Vec<&mut [i32]>> =
        (0..chunks).map(|_| Vec::with_capacity(windows)).collect();
    for row in out.chunks_mut(n) {
        for (p, part) in row.chunks_mut(DIGIT_CHUNK).enumerate() {
            columns[p].push(part);
        }
    }
    let fill = |p: usize, rows: &mut Vec<&mut [i32]>| {
        let mut one = vec![0i32; windows];
        for (t, k) in scalars[p * DIGIT_CHUNK..]
            .iter()
            .take(DIGIT_CHUNK)
            .enumerate()
        {
            signed_digits(k, c, windows, &mut one);
            for (row, &d) in rows.iter_mut().zip(&one) {
                row[t] = d;
            }
        }
    };
    for_each_indexed(&mut columns, fill);
    drop(columns);
    out
}

/// Scalars per task of [`window_major_digits`].
pub(super) const DIGIT_CHUNK: usize = 4096;

/// Bucket method; see the module docs. Runs on the curve's
/// [`CurveMul::Ops`] (zkaccel-ff's assembly on BN254) where the CPU supports
/// it, on arkworks' field operators otherwise.
pub fn pippenger<P: CurveMul, B: BigInteger>(bases: &[Affine<P>], scalars: &[B]) -> Projective<P> {
    pippenger_known_bits(bases, scalars, max_bits(scalars))
}

/// [`pippenger`] for scalars of at most `bits` bits (`Auto` knows the width
/// already).
pub(super) fn pippenger_known_bits<P: CurveMul, S: Bases<P>, B: BigInteger>(
    bases: S,
    scalars: &[B],
    bits: u32,
) -> Projective<P> {
    match P::Ops::detect() {
        Some(ops) => pippenger_bits(bases, scalars, bits, ops),
        None => pippenger_bits(bases, scalars, bits, P::Ops::fallback()),
    }
}

/// [`pippenger`] with the given field arithmetic.
pub fn pippenger_with<P: SWCurveConfig, B: BigInteger, O>(
    bases: &[Affine<P>],
    scalars: &[B],
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    pippenger_bits(bases, scalars, max_bits(scalars), ops)
}

/// [`pippenger_with`] for scalars of at most `bits` bits (`Auto` knows the
/// width already).
pub(super) fn pippenger_bits<P: SWCurveConfig, S: Bases<P>, B: BigInteger, O>(
    bases: S,
    scalars: &[B],
    bits: u32,
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    if bases.is_empty() || bits == 0 {
        return Projective::zero();
    }
    let (c, parts) = pippenger_plan(bases.len(), bits, BucketAdds::of(&ops));
    if parts == 1 {
        return pippenger_windows(bases, scalars, bits, c, ops);
    }
    map_ranges(bases.len(), parts, |range| {
        pippenger_windows(bases.range(range.clone()), &scalars[range], bits, c, ops)
    })
    .into_iter()
    .sum()
}

/// The bucket method over all `bases` with window `c`, windows in parallel.
pub(super) fn pippenger_windows<P: SWCurveConfig, S: Bases<P>, B: BigInteger, O>(
    bases: S,
    scalars: &[B],
    bits: u32,
    c: u32,
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    let windows = ((bits + 1).div_ceil(c)) as usize;
    // digits[j * n + i]: window j, scalar i (each window reads its own
    // contiguous row), computed in parallel over chunks of scalars.
    let n = bases.len();
    let digits = window_major_digits(scalars, c, windows);
    pippenger_digit_rows(bases, |j| &digits[j * n..(j + 1) * n], c, windows, ops)
}

/// The bucket method over `bases` given each window's digits: `row(j)` is
/// window `j`'s digit of every base (`bases.len()` of them), in
/// `[-2^(c-1), 2^(c-1)]`. Windows run in parallel and are summed by Horner.
pub(super) fn pippenger_digit_rows<'d, P: SWCurveConfig, S: Bases<P>, O>(
    bases: S,
    row: impl Fn(usize) -> &'d [i32] + Sync + Send,
    c: u32,
    windows: usize,
    ops: O,
) -> Projective<P>
where
    O: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    let set = FormulaSet::for_curve::<P>();
    let batch_affine = c >= BATCH_AFFINE_MIN_WINDOW;
    let window_sum = |j: usize| -> Projective<P> {
        let row = row(j);
        debug_assert_eq!(row.len(), bases.len());
        let digit = |i: usize| row[i];
        if batch_affine {
            window_batch_affine(bases, digit, c, ops)
        } else {
            window_xyzz(bases, digit, c, ops)
        }
    };
    let sums = map_indices(windows, window_sum);
    // Horner over the windows: result = sum_j 2^(jc) W_j.
    let mut result = Projective::<P>::zero();
    for w in sums.iter().rev() {
        for _ in 0..c {
            double(&mut result, set, &mut Plain);
        }
        result += w;
    }
    result
}

/// From this window size up, buckets are accumulated in affine form with
/// batched inversions; below it there are too few buckets for batches.
pub const BATCH_AFFINE_MIN_WINDOW: u32 = 9;

/// One window with XYZZ buckets (8M + 2S per point).
pub(crate) fn window_xyzz<P: SWCurveConfig, S: Bases<P>, O: FieldOps<P::BaseField> + Copy>(
    bases: S,
    digit: impl Fn(usize) -> i32,
    c: u32,
    mut ops: O,
) -> Projective<P> {
    let mut buckets = vec![Xyzz::<P>::zero(); 1 << (c - 1)];
    for i in 0..bases.len() {
        let d = digit(i);
        if d > 0 {
            buckets[(d - 1) as usize].add_affine(&bases.get(i), &mut ops);
        } else if d < 0 {
            buckets[(-d - 1) as usize].add_affine(&-bases.get(i), &mut ops);
        }
    }
    let (sum, _) = running_sums(buckets.iter(), ops, |r, b| r.add(b, &mut { ops }));
    sum.to_projective(&mut { ops })
}
