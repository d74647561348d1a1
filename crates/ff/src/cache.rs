//! Cache hints for scattered reads: [`prefetch`].

/// Asks the CPU to bring `*x` into its caches (both ends, for values that
/// straddle a cache line) ahead of a use; no effect off x86-64. For
/// scattered reads whose addresses are known early, such as the MSM's
/// buckets.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (x as *const T).cast::<i8>();
        // SAFETY: a prefetch never faults (SSE, part of x86-64); both
        // addresses lie in `*x`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.add(core::mem::size_of::<T>().saturating_sub(1)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
