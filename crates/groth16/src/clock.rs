//! [`Stopwatch`]: the wall clock behind [`crate::ProofTimings`], on every
//! target.
//!
//! `std::time::Instant::now` panics on `wasm32-unknown-unknown` (a browser
//! runtime: "time not implemented on this platform"), where stock
//! ark-groth16 proves. A proof must not fail for want of a clock, so there
//! the stopwatch reads zero; everywhere else it is `Instant`.

use std::time::Duration;

/// Whether this target has no clock (`wasm32-unknown-unknown`).
const NO_CLOCK: bool = cfg!(all(target_arch = "wasm32", target_os = "unknown"));

/// A started wall-clock timer; [`Stopwatch::elapsed`] is always zero on
/// targets without a clock (`wasm32-unknown-unknown`).
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch(Option<std::time::Instant>);

impl Stopwatch {
    /// Starts the stopwatch (reads the clock where there is one).
    pub fn start() -> Self {
        Stopwatch((!NO_CLOCK).then(std::time::Instant::now))
    }

    /// Time since [`Stopwatch::start`]; zero without a clock.
    pub fn elapsed(&self) -> Duration {
        self.0.map_or(Duration::ZERO, |t| t.elapsed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_where_there_is_a_clock() {
        let s = Stopwatch::start();
        std::thread::sleep(Duration::from_millis(2));
        let expected = if NO_CLOCK {
            Duration::ZERO
        } else {
            Duration::from_millis(2)
        };
        assert!(s.elapsed() >= expected);
    }
}
