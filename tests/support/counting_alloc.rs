//! A global allocator that counts live heap bytes and their peak, for the
//! tests that check a stated working memory against what is really
//! allocated. Included with `#[path]` by `crates/cpu/tests/memory.rs` and
//! `crates/ntt/tests/memory.rs` (each its own test process).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

/// Counts live heap bytes and their peak since the last reset.
struct Counting;
pub static LIVE: AtomicUsize = AtomicUsize::new(0);
pub static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), SeqCst) + layout.size();
            PEAK.fetch_max(now, SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), SeqCst);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap bytes allocated by `f` beyond what was live before it.
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(SeqCst);
    PEAK.store(before, SeqCst);
    let out = f();
    (out, PEAK.load(SeqCst).saturating_sub(before))
}
