//! What the operating system says about this process's memory (Linux:
//! `/proc` and cgroup v2; on wasm32, the room left in the 4 GiB linear
//! memory; `None` elsewhere). The MSM's default budget
//! ([`crate::msm::memory_budget`]) reads [`available`]; tests and examples
//! read the peak resident set to check memory claims.

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// A `kB` field (`VmRSS:`, `MemAvailable:`, ...) of a /proc file, in bytes.
fn kib_field(path: &str, field: &str) -> Option<usize> {
    let text = read(path)?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Bytes of memory this process could still use: `MemAvailable`, capped by
/// the room left under a cgroup v2 limit (containers). On wasm32 (no
/// `/proc`): what the linear memory can still grow by before 4 GiB.
pub fn available() -> Option<usize> {
    #[cfg(target_arch = "wasm32")]
    {
        Some(wasm32_room())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        linux_available()
    }
}

/// wasm32's linear memory: 65,536 pages of 64 KiB at most, less the pages
/// the module holds now (a 32-bit `usize` cannot say 4 GiB: capped).
#[cfg(target_arch = "wasm32")]
fn wasm32_room() -> usize {
    const PAGE: u64 = 64 << 10;
    const MAX_PAGES: u64 = 1 << 16;
    let pages = core::arch::wasm32::memory_size::<0>() as u64;
    let room = MAX_PAGES.saturating_sub(pages) * PAGE;
    usize::try_from(room).unwrap_or(usize::MAX)
}

#[cfg(not(target_arch = "wasm32"))]
fn linux_available() -> Option<usize> {
    let mut available = kib_field("/proc/meminfo", "MemAvailable:")?;
    let limit = read("/sys/fs/cgroup/memory.max").and_then(|s| s.trim().parse::<usize>().ok());
    let used = read("/sys/fs/cgroup/memory.current").and_then(|s| s.trim().parse::<usize>().ok());
    if let (Some(limit), Some(used)) = (limit, used) {
        available = available.min(limit.saturating_sub(used));
    }
    Some(available)
}

/// Resident set size now, in bytes (`VmRSS`).
pub fn rss() -> Option<usize> {
    kib_field("/proc/self/status", "VmRSS:")
}

/// Peak resident set size since the process started or since the last
/// successful [`reset_peak_rss`], in bytes (`VmHWM`).
pub fn peak_rss() -> Option<usize> {
    kib_field("/proc/self/status", "VmHWM:")
}

/// Resets the peak to the current RSS (Linux 4.0+: writes `5` to
/// `/proc/self/clear_refs`); `false` where that is not allowed, and then
/// [`peak_rss`] keeps counting from the start (an upper bound).
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
