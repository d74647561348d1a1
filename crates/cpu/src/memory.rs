//! What the operating system says about this process's memory (Linux:
//! `/proc` and cgroup v2; `None` elsewhere). The MSM's default budget
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
/// the room left under a cgroup v2 limit (containers).
pub fn available() -> Option<usize> {
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
