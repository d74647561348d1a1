//! Launch geometry shared by the GPU runtime and the host emulation, so both
//! run the kernels in the same sequence with the same grids.

/// Threads per block of every kernel.
pub const BLOCK: u32 = 128;

/// Device bytes per MSM term: base (64), scalar (32), product (96), and the
/// first reduction round's output (48).
pub const BYTES_PER_TERM: usize = 64 + 32 + 96 + 48;

/// How many MSM terms one chunk may hold when `free` bytes of device memory
/// are free: 80% of them (the rest for the driver and the tables), at most
/// `u32::MAX / 2` (the kernels index with 32 bits). Zero means not even one.
pub fn terms_per_chunk(free: usize) -> usize {
    (free / 10 * 8 / BYTES_PER_TERM).min(u32::MAX as usize / 2)
}

/// A one-dimensional launch: `grid` blocks of `block` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchPlan {
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
}

impl LaunchPlan {
    /// Enough blocks of [`BLOCK`] threads for `n` threads (at least one block).
    pub fn for_threads(n: u32) -> LaunchPlan {
        LaunchPlan {
            grid: n.div_ceil(BLOCK).max(1),
            block: BLOCK,
        }
    }

    /// Whether the grid has at least `n` threads.
    pub fn covers(&self, n: u32) -> bool {
        self.grid as u64 * self.block as u64 >= n as u64
    }
}

/// One round of the pairwise reduction: `inputs` points in, `outputs =
/// ceil(inputs / 2)` out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    /// Points in.
    pub inputs: u32,
    /// Points out.
    pub outputs: u32,
}

/// The rounds that sum `n` points down to one: `ceil(log2 n)` of them.
#[derive(Clone, Debug)]
pub struct ReductionRounds {
    n: u32,
}

impl ReductionRounds {
    /// The rounds for `n` points.
    pub fn new(n: u32) -> Self {
        ReductionRounds { n }
    }
}

impl Iterator for ReductionRounds {
    type Item = Round;
    fn next(&mut self) -> Option<Round> {
        if self.n <= 1 {
            return None;
        }
        let r = Round {
            inputs: self.n,
            outputs: self.n.div_ceil(2),
        };
        self.n = r.outputs;
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_halve_down_to_one() {
        assert_eq!(ReductionRounds::new(0).count(), 0);
        assert_eq!(ReductionRounds::new(1).count(), 0);
        for n in 2..2000u32 {
            let rounds: Vec<Round> = ReductionRounds::new(n).collect();
            assert_eq!(
                rounds.len() as u32,
                32 - (n - 1).leading_zeros(),
                "ceil(log2 {n})"
            );
            assert_eq!(rounds[0].inputs, n);
            assert_eq!(rounds.last().unwrap().outputs, 1);
            for w in rounds.windows(2) {
                assert_eq!(w[0].outputs, w[1].inputs);
            }
        }
    }

    #[test]
    fn plans_cover_every_thread() {
        for n in [0u32, 1, 127, 128, 129, 1 << 20, u32::MAX] {
            let p = LaunchPlan::for_threads(n);
            assert!(p.covers(n) && p.grid >= 1);
            assert!(p.grid as u64 * p.block as u64 - n as u64 <= BLOCK as u64);
        }
    }

    #[test]
    fn chunks_fit_in_free_memory() {
        assert_eq!(terms_per_chunk(0), 0);
        assert_eq!(terms_per_chunk(BYTES_PER_TERM), 0);
        let free = 80usize << 30; // an 80 GiB device
        let n = terms_per_chunk(free);
        assert!(n * BYTES_PER_TERM <= free / 10 * 8 && n > (1 << 28));
        assert_eq!(terms_per_chunk(usize::MAX), u32::MAX as usize / 2);
    }
}
