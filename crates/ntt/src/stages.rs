//! The building blocks every transform kernel shares (scalar, four-step,
//! AVX2 and IFMA lanes): the stage loop of a radix-4
//! decimation-in-frequency transform ([`dif_stages`]) and the quarters of a
//! block it works on ([`quarters`], [`for_each_quarter_span`]), the bit
//! reversal ([`bitrev`], [`bitrev_permute_blocked`]), parallel chunks
//! ([`for_each_chunk`], [`threads`]), the pointer tasks share
//! ([`Shared`]) and the memory estimates' [`BOOKKEEPING`]. Generic over the element and twiddle types; no
//! arithmetic of its own.

/// Tiles of the bit-reversal pass are `2^TILE_BITS` square.
const TILE_BITS: u32 = 4;

/// Heap bytes the kernels' memory estimates add for bookkeeping (vector
/// headers, the twiddle cache's entries).
pub(crate) const BOOKKEEPING: usize = 4096;

/// A pointer shared by tasks that touch disjoint elements of one slice.
#[derive(Clone, Copy)]
pub(crate) struct Shared<E>(pub(crate) *mut E);
// SAFETY: only used by tasks that access pairwise disjoint elements (argued
// at each use), and `E: Send`.
unsafe impl<E: Send> Send for Shared<E> {}
// SAFETY: as above.
unsafe impl<E: Send> Sync for Shared<E> {}

impl<E> Shared<E> {
    /// # Safety
    /// `i` in bounds, and no other task accesses element `i` meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn at(self, i: usize) -> *mut E {
        // SAFETY: forwarded.
        unsafe { self.0.add(i) }
    }
}

/// The low `bits` bits of `i` in reverse order.
#[inline(always)]
pub(crate) fn bitrev(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

/// In-place bit-reversal permutation of a power-of-two slice, one swap at a
/// time (the small slices of [`bitrev_permute_blocked`] and the in-cache
/// transforms).
pub(crate) fn bitrev_permute<E>(x: &mut [E]) {
    let bits = x.len().trailing_zeros();
    for i in 0..x.len() {
        let j = bitrev(i, bits);
        if i < j {
            x.swap(i, j);
        }
    }
}

/// In-place bit-reversal permutation of a power-of-two slice, by tiles: for
/// `i = (hi, mid, lo)` with `TILE_BITS`-bit `hi` and `lo`, `bitrev(i) =
/// (bitrev(lo), bitrev(mid), bitrev(hi))`, so the `2^TILE_BITS` x
/// `2^TILE_BITS` elements sharing `mid` swap with those sharing
/// `bitrev(mid)`: runs of contiguous elements on both sides.
pub(crate) fn bitrev_permute_blocked<E: Copy + Send + Sync>(x: &mut [E]) {
    let m = x.len().trailing_zeros();
    if m < 2 * TILE_BITS + 2 {
        bitrev_permute(x);
        return;
    }
    let t = TILE_BITS;
    let mid_bits = m - 2 * t;
    let ptr = Shared(x.as_mut_ptr());
    let task = |mid: usize| {
        let rmid = bitrev(mid, mid_bits);
        if rmid < mid {
            return; // handled by the task of `rmid`
        }
        for hi in 0..1usize << t {
            for lo in 0..1usize << t {
                let i = (hi << (mid_bits + t)) | (mid << t) | lo;
                let j = (bitrev(lo, t) << (mid_bits + t)) | (rmid << t) | bitrev(hi, t);
                if mid != rmid || i < j {
                    // SAFETY: indices with middle bits `mid` or `rmid` are
                    // touched only by this task (pairs {mid, rmid} are disjoint).
                    unsafe { core::ptr::swap(ptr.at(i), ptr.at(j)) };
                }
            }
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..1usize << mid_bits).into_par_iter().for_each(task);
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..1usize << mid_bits).for_each(task);
    }
}

/// Runs `f(index, chunk)` on consecutive chunks, in parallel when enabled.
pub(crate) fn for_each_chunk<E: Send>(
    data: &mut [E],
    size: usize,
    f: impl Fn(usize, &mut [E]) + Sync,
) {
    if data.len() <= size {
        // One chunk (or none): no task to hand to the pool.
        if !data.is_empty() {
            f(0, data);
        }
        return;
    }
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        data.par_chunks_mut(size)
            .enumerate()
            .for_each(|(i, c)| f(i, c));
    }
    #[cfg(not(feature = "parallel"))]
    {
        data.chunks_mut(size).enumerate().for_each(|(i, c)| f(i, c));
    }
}

/// The threads that run parallel tasks (one without the `parallel`
/// feature): what the memory estimates count per-thread buffers by.
pub(crate) fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// The stages of an in-place radix-4 decimation-in-frequency transform of
/// `row` with the stage table `table` (the order of
/// [`StageTwiddles`](crate::twiddles::StageTwiddles)), for
/// any element and twiddle representation: for each stage of block length
/// `len = row.len(), row.len() / 4, ...` while `len >= 4`, `radix4(x, t)`
/// on the four quarters `x` of every block, `t` the stage's `3 len / 4`
/// twiddles; then, when `log2(row.len())` is odd, `radix2(a, b)` on every
/// pair (a final radix-2 stage without twiddles).
#[inline(always)]
pub(crate) fn dif_stages<E, T>(
    row: &mut [E],
    table: &[T],
    mut radix4: impl FnMut([&mut [E]; 4], &[T]),
    mut radix2: impl FnMut(&mut E, &mut E),
) {
    let mut len = row.len();
    let mut off = 0;
    while len >= 4 {
        let q = len / 4;
        let t = &table[off..off + 3 * q];
        for block in row.chunks_exact_mut(len) {
            radix4(quarters(block), t);
        }
        off += 3 * q;
        len /= 4;
    }
    if len == 2 {
        for pair in row.chunks_exact_mut(2) {
            let (a, b) = pair.split_at_mut(1);
            radix2(&mut a[0], &mut b[0]);
        }
    }
}

/// The four quarters of `block` (its length a multiple of four).
#[inline(always)]
pub(crate) fn quarters<E>(block: &mut [E]) -> [&mut [E]; 4] {
    let q = block.len() / 4;
    let (x01, x23) = block.split_at_mut(2 * q);
    let (x0, x1) = x01.split_at_mut(q);
    let (x2, x3) = x23.split_at_mut(q);
    [x0, x1, x2, x3]
}

/// Splits `block` into its four quarters and runs `f([x0, x1, x2, x3], j0)`
/// on the aligned spans `j0 .. j0 + span` of all four, in parallel when
/// enabled: one radix-4 stage's butterflies over a block.
pub(crate) fn for_each_quarter_span<E: Send>(
    block: &mut [E],
    span: usize,
    f: impl Fn([&mut [E]; 4], usize) + Sync,
) {
    let [x0, x1, x2, x3] = quarters(block);
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        x0.par_chunks_mut(span)
            .zip(x1.par_chunks_mut(span))
            .zip(x2.par_chunks_mut(span))
            .zip(x3.par_chunks_mut(span))
            .enumerate()
            .for_each(|(c, (((a, b), d), e))| f([a, b, d, e], c * span));
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = span;
        f([x0, x1, x2, x3], 0);
    }
}
