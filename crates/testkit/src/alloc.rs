//! A global allocator that counts live heap bytes and their peak, for the
//! tests that check a stated working memory against what is really
//! allocated. A test process installs it with
//!
//! ```text
//! #[global_allocator]
//! static ALLOC: zkaccel_testkit::alloc::Counting = zkaccel_testkit::alloc::Counting;
//! ```
//!
//! and measures with [`peak_during`] (the counters are process-wide: tests
//! that measure should hold one lock).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// The system allocator, counting live heap bytes and their peak since the
/// last [`peak_during`].
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), SeqCst) + layout.size();
            PEAK.fetch_max(now, SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: allocated by alloc above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), SeqCst);
    }
}

/// Peak heap bytes allocated by `f` beyond what was live before it (zero
/// unless [`Counting`] is the process's global allocator).
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(SeqCst);
    PEAK.store(before, SeqCst);
    let out = f();
    (out, PEAK.load(SeqCst).saturating_sub(before))
}
