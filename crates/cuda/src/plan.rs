//! Launch geometry shared by the GPU runtime and the host emulation, so both
//! run the kernels in the same sequence with the same grids.

/// Threads per block of every kernel.
pub const BLOCK: u32 = 128;

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
