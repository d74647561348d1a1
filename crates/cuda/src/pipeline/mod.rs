//! The GPU pipelines, each written once over [`Device`]: the bucket MSM
//! (count, prefix sum and segments on the device, scatter, segment and
//! bucket sums, window slices), the per-thread DBC MSM and its pairwise
//! reduction, the NTT and its batches, Groth16's quotient (alone and with
//! its MSM, `h` kept on the device), and the one-operation-per-thread
//! formula kernels. The GPU and the host emulation run exactly these
//! launch sequences; [`crate::CudaContext`] locks a [`Gpu`] and calls them.
//!
//! | file | pipeline |
//! |---|---|
//! | `mod.rs` | [`Gpu`] (a device and its cached tables), per-step profiling, buffers kept until the device is done |
//! | `bucket.rs` | the bucket MSM: geometry, counting sort into buckets, segment and bucket sums, window sums; the device prefix sum and segments |
//! | `dbc.rs` | the paper's per-thread DBC MSM and the pairwise reduction rounds |
//! | `ntt.rs` | the NTT and its batches, the powers tables, Groth16's quotient alone and fused with its MSM |
//! | `formulas.rs` | one field or point operation per thread (test hooks) |

use crate::device::{Buf, Device, RawBuf};
use crate::error::CudaError;
use crate::layout::{DeviceJacobian, DeviceXyzz};
use crate::tables::DbcTables;
use std::collections::HashMap;

mod bucket;
mod dbc;
#[cfg(feature = "emulation")]
mod formulas;
mod ntt;

/// A device and what lives on it between calls: the chain tables and the
/// NTT's powers tables.
pub(crate) struct Gpu {
    dev: Box<dyn Device>,
    tables: Option<RawBuf<DbcTables>>,
    /// `base^i` for `i < count`, by `(count, base's limbs)`: the NTT's
    /// twiddles and coset powers, kept for the next transform of the domain.
    powers: HashMap<(u32, [u32; 8]), RawBuf<[u32; 8]>>,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // Free what lives on the device before the device goes, with
        // nothing queued that could still read it.
        let ok = self.dev.make_current().is_ok() && self.dev.synchronize().is_ok();
        let dev = &*self.dev;
        for (_, b) in self.powers.drain() {
            if ok {
                // SAFETY: allocated on dev; the queue is empty.
                unsafe { b.free(dev) };
            }
        }
        if let (true, Some(t)) = (ok, self.tables.take()) {
            // SAFETY: as above.
            unsafe { t.free(dev) };
        }
    }
}

/// Per-step timings of the pipelines, logged (level info, target
/// `zkaccel_cuda::profile`) when the environment variable
/// `ZKACCEL_CUDA_PROFILE` is set: each lap waits for the device, so
/// profiling serialises the steps it measures.
pub(crate) struct Laps<'a> {
    dev: &'a dyn Device,
    what: &'static str,
    start: Option<std::time::Instant>,
    last: std::time::Duration,
    laps: Vec<(&'static str, f64)>,
}

impl<'a> Laps<'a> {
    fn new(dev: &'a dyn Device, what: &'static str) -> Laps<'a> {
        let on = std::env::var_os("ZKACCEL_CUDA_PROFILE").is_some();
        Laps {
            dev,
            what,
            start: on.then(std::time::Instant::now),
            last: std::time::Duration::ZERO,
            laps: Vec::new(),
        }
    }

    fn lap(&mut self, name: &'static str) -> Result<(), CudaError> {
        if let Some(t) = self.start {
            self.dev.synchronize()?;
            let now = t.elapsed();
            self.laps
                .push((name, (now - self.last).as_secs_f64() * 1e3));
            self.last = now;
        }
        Ok(())
    }
}

impl Drop for Laps<'_> {
    fn drop(&mut self) {
        if self.start.is_some() {
            let steps: Vec<String> = self
                .laps
                .iter()
                .map(|(n, ms)| format!("{n} {ms:.3}"))
                .collect();
            log::info!(
                target: "zkaccel_cuda::profile",
                "{} on {}: total {:.3} ms: {}",
                self.what,
                self.dev.name(),
                self.last.as_secs_f64() * 1e3,
                steps.join(", ")
            );
        }
    }
}

/// Buffers the queued work may still use: freed only once the device has
/// finished it ([`Keep::release`]).
struct Keep<'d> {
    dev: &'d dyn Device,
    u32s: Vec<Buf<'d, u32>>,
    points: Vec<Buf<'d, DeviceXyzz>>,
    jacobians: Vec<Buf<'d, DeviceJacobian>>,
}

impl<'d> Keep<'d> {
    fn new(dev: &'d dyn Device) -> Keep<'d> {
        Keep {
            dev,
            u32s: Vec::new(),
            points: Vec::new(),
            jacobians: Vec::new(),
        }
    }

    /// Waits for the device, then frees everything kept.
    fn release(self) -> Result<(), CudaError> {
        self.dev.synchronize()
        // the buffers drop here, the queue empty
    }
}

impl Drop for Keep<'_> {
    fn drop(&mut self) {
        if !(self.u32s.is_empty() && self.points.is_empty() && self.jacobians.is_empty()) {
            // An error path: wait before the buffers are freed.
            let _ = self.dev.synchronize();
        }
    }
}

impl Gpu {
    /// The device with the chain tables uploaded.
    pub fn new(dev: Box<dyn Device>) -> Result<Gpu, CudaError> {
        let tables = RawBuf::upload(&*dev, std::slice::from_ref(&*DbcTables::new()))?;
        Ok(Gpu {
            dev,
            tables: Some(tables),
            powers: HashMap::new(),
        })
    }

    /// The device.
    pub fn dev(&self) -> &dyn Device {
        &*self.dev
    }

    /// Free device memory.
    fn free(&self) -> Result<usize, CudaError> {
        self.dev.free_memory()
    }
}
