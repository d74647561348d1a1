//! [`CustDevice`]: a GPU through `cust` 0.3 (feature `cuda`): one context,
//! the embedded PTX loaded as a module, one stream; large copies staged
//! through pinned host buffers ([`Staging`]) and freed device memory kept
//! for reuse ([`Pool`]).
//!
//! Both can be turned off for a measurement, each by an environment
//! variable read when the device is opened: `ZKACCEL_CUDA_STAGING=0`
//! (copies straight from and to pageable memory, as the driver stages
//! them) and `ZKACCEL_CUDA_POOL=0` (every free returns its memory to the
//! driver).

use super::{Device, Grid};
use crate::error::CudaError;
use cust::context::{Context, CurrentContext};
use cust::event::{Event, EventFlags};
use cust::memory::{
    AsyncCopyDestination, CopyDestination, DevicePointer, DeviceSlice, LockedBuffer,
};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::CudaFlags;
use rayon::prelude::*;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// The PTX built from `kernels/zkaccel.cu` (PTX ISA 8.0, compute_80).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/zkaccel.ptx"));

/// A GPU with zkaccel's kernels loaded.
// Fields drop in declaration order: the module and the stream go before the
// context they live in (destroying the context first made every later
// unload and free crash: seen on an H100, the first GPU run).
// The pool's cached blocks are freed by Drop, with the context current;
// the staging buffers and events drop before the context too.
pub(crate) struct CustDevice {
    pool: Mutex<Pool>,
    staging: Mutex<Option<Staging>>,
    staging_on: bool,
    module: Module,
    stream: Stream,
    name: String,
    total_memory: usize,
    ctx: Context,
}

/// Whether the environment variable `var` turns a default-on feature off
/// (`0`, `off`, `false`, `no`).
fn env_off(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "off" | "false" | "no"
        )
    })
}

/// Bytes of one pinned staging buffer (two are used in turn).
const STAGE_BYTES: usize = 8 << 20;

/// Copies below this size go straight from and to pageable memory: the
/// driver's own staging is as fast there, and small copies are frequent.
const STAGE_MIN: usize = 1 << 20;

/// Two pinned (page-locked) host buffers that large copies go through in
/// chunks: while the device copies one chunk (DMA at the bus's speed, which
/// pinned memory allows), the host threads fill or drain the other: the
/// driver's own copies from pageable memory go through its staging one
/// chunk at a time, several times slower (docs/cuda.md).
struct Staging {
    bufs: [LockedBuffer<u8>; 2],
    /// Recorded after the last copy into or out of `bufs[i]`.
    done: [Event; 2],
    /// Whether `done[i]` has been recorded.
    recorded: [bool; 2],
}

impl Staging {
    fn new() -> Result<Staging, CudaError> {
        // SAFETY: plain bytes; every byte a copy reads was written first.
        let buf = || unsafe { LockedBuffer::<u8>::uninitialized(STAGE_BYTES) };
        let event = || Event::new(EventFlags::DISABLE_TIMING);
        Ok(Staging {
            bufs: [buf()?, buf()?],
            done: [event()?, event()?],
            recorded: [false; 2],
        })
    }

    /// Waits until the device is done with buffer `i`.
    fn wait(&mut self, i: usize) -> Result<(), CudaError> {
        if self.recorded[i] {
            self.done[i].synchronize()?;
            self.recorded[i] = false;
        }
        Ok(())
    }
}

/// `dst.copy_from_slice(src)` by a few threads of the staging pool (a
/// memory copy of megabytes is worth splitting: one core copies about 10
/// GB/s). The pool is the device's own, so a copy never waits behind the
/// work a prover keeps the global pool busy with meanwhile (the witness
/// map, beside the GPU's MSMs); without it, the global pool.
fn parallel_copy(src: &[u8], dst: &mut [u8]) {
    const PIECE: usize = 256 << 10;
    fn pieces(src: &[u8], dst: &mut [u8]) {
        dst.par_chunks_mut(PIECE)
            .zip(src.par_chunks(PIECE))
            .for_each(|(d, s)| d.copy_from_slice(s))
    }
    match copy_pool() {
        Some(pool) => pool.install(|| pieces(src, dst)),
        None => pieces(src, dst),
    }
}

/// Threads of [`parallel_copy`]: four, enough for the bus.
fn copy_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .thread_name(|i| format!("zkaccel-cuda-copy-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Device memory freed by the pipelines, kept for their next allocations
/// (a pipeline allocates and frees some twenty buffers per MSM, the same
/// sizes call after call; `cuMemAlloc` and `cuMemFree` cost far more than
/// a lookup, and `cuMemFree` waits for the device). Bounded: at most a
/// quarter of the device's memory is kept, and an allocation that fails
/// gives everything kept back to the driver and tries once more.
struct Pool {
    on: bool,
    /// Every allocation made here that is in use, with its size.
    live: HashMap<u64, usize>,
    /// Freed allocations kept for reuse.
    kept: Vec<(u64, usize)>,
    kept_bytes: usize,
    limit: usize,
}

impl Pool {
    /// A kept block for `bytes`: the smallest at least that large and at
    /// most a quarter larger.
    fn take(&mut self, bytes: usize) -> Option<u64> {
        let slack = bytes / 4 + 4096;
        let (i, _) = self
            .kept
            .iter()
            .enumerate()
            .filter(|(_, &(_, size))| size >= bytes && size <= bytes + slack)
            .min_by_key(|(_, &(_, size))| size)?;
        let (addr, size) = self.kept.swap_remove(i);
        self.kept_bytes -= size;
        self.live.insert(addr, size);
        Some(addr)
    }

    /// Gives every kept block back to the driver.
    fn release(&mut self) {
        for (addr, _) in self.kept.drain(..) {
            // SAFETY: allocated by cuda_malloc on this device, in use by
            // no queued work (Device::free's contract), freed once.
            let _ = unsafe { cust::memory::cuda_free(DevicePointer::<u8>::from_raw(addr)) };
        }
        self.kept_bytes = 0;
    }
}

impl CustDevice {
    /// Initialises the driver, opens device `ordinal` and loads the kernels.
    /// `Err(CudaError::NoDevice)` where there is no GPU (no panic, no abort).
    pub fn open(ordinal: u32) -> Result<CustDevice, CudaError> {
        cust::init(CudaFlags::empty())?;
        let count = cust::device::Device::num_devices()?;
        if count == 0 {
            return Err(CudaError::NoDevice);
        }
        if ordinal >= count {
            return Err(CudaError::InvalidDevice { ordinal, count });
        }
        let device = cust::device::Device::get_device(ordinal)?;
        let ctx = Context::new(device)?;
        CurrentContext::set_current(&ctx)?;
        let module = Module::from_ptx(PTX, &[])?;
        // A blocking stream: it orders after the synchronous copies made on
        // the legacy default stream, so a kernel never reads a buffer whose
        // upload is still in flight, and a download waits for the kernels.
        let stream = Stream::new(StreamFlags::DEFAULT, None)?;
        let total_memory = device.total_memory()?;
        Ok(CustDevice {
            pool: Mutex::new(Pool {
                on: !env_off("ZKACCEL_CUDA_POOL"),
                live: HashMap::new(),
                kept: Vec::new(),
                kept_bytes: 0,
                limit: total_memory / 4,
            }),
            staging: Mutex::new(None),
            staging_on: !env_off("ZKACCEL_CUDA_STAGING"),
            name: device.name()?,
            total_memory,
            module,
            stream,
            ctx,
        })
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        // A panic while the lock was held cannot leave the pool's lists
        // inconsistent (each update is one push or remove).
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The staging buffers, made on first use; `None` where staging is off
    /// or the pinned memory could not be had (copies then go straight).
    fn staging(&self) -> Option<std::sync::MutexGuard<'_, Option<Staging>>> {
        if !self.staging_on {
            return None;
        }
        let mut g = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        if g.is_none() {
            match Staging::new() {
                Ok(s) => *g = Some(s),
                Err(e) => {
                    log::warn!("no pinned staging buffers ({e}); copies go straight");
                    return None;
                }
            }
        }
        Some(g)
    }

    fn cuda_alloc(&self, bytes: usize) -> Result<u64, cust::error::CudaError> {
        // SAFETY: the memory is returned uninitialised; Device::alloc says so.
        unsafe { cust::memory::cuda_malloc::<u8>(bytes) }.map(|p| p.as_raw())
    }
}

impl Drop for CustDevice {
    fn drop(&mut self) {
        // Kept blocks go back to the driver while the context lives.
        if CurrentContext::set_current(&self.ctx).is_ok() && self.stream.synchronize().is_ok() {
            self.pool().release();
        }
    }
}

/// `bytes` bytes at `addr` as cust's slice type.
///
/// # Safety
/// The range is device memory of this context.
unsafe fn bytes_at(addr: u64, bytes: usize) -> DeviceSlice<u8> {
    // SAFETY: by the caller.
    unsafe { DeviceSlice::from_raw_parts(DevicePointer::from_raw(addr), bytes) }
}

impl Device for CustDevice {
    fn name(&self) -> &str {
        &self.name
    }

    fn total_memory(&self) -> usize {
        self.total_memory
    }

    fn free_memory(&self) -> Result<usize, CudaError> {
        // What the pool keeps is free for the pipelines.
        Ok(cust::memory::mem_get_info()?.0 + self.pool().kept_bytes)
    }

    fn alloc(&self, bytes: usize) -> Result<u64, CudaError> {
        let bytes = bytes.max(1);
        let mut pool = self.pool();
        if let Some(addr) = pool.take(bytes) {
            return Ok(addr);
        }
        let addr = match self.cuda_alloc(bytes) {
            Err(cust::error::CudaError::OutOfMemory) if pool.kept_bytes > 0 => {
                pool.release();
                self.cuda_alloc(bytes)
            }
            r => r,
        };
        match addr {
            Ok(addr) => {
                pool.live.insert(addr, bytes);
                Ok(addr)
            }
            Err(cust::error::CudaError::OutOfMemory) => {
                drop(pool);
                Err(CudaError::OutOfMemory {
                    requested: bytes,
                    free: self.free_memory().unwrap_or(0),
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    unsafe fn free(&self, addr: u64) {
        let mut pool = self.pool();
        let size = pool.live.remove(&addr).unwrap_or(0);
        if pool.on && size > 0 && pool.kept_bytes + size <= pool.limit {
            pool.kept.push((addr, size));
            pool.kept_bytes += size;
            return;
        }
        // SAFETY: by the caller. A failure here (a context already lost)
        // leaves nothing else to do.
        let _ = unsafe { cust::memory::cuda_free(DevicePointer::<u8>::from_raw(addr)) };
    }

    unsafe fn upload(&self, src: &[u8], dst: u64) -> Result<(), CudaError> {
        if src.is_empty() {
            return Ok(());
        }
        let staging = if src.len() >= STAGE_MIN {
            self.staging()
        } else {
            None
        };
        let Some(mut guard) = staging else {
            // SAFETY: by the caller.
            unsafe { bytes_at(dst, src.len()) }.copy_from(src)?;
            return Ok(());
        };
        let st = guard.as_mut().expect("made by staging()");
        // Chunk k goes through buffer k % 2: filled by the host's threads
        // while the device copies chunk k - 1 out of the other buffer.
        for (k, chunk) in src.chunks(STAGE_BYTES).enumerate() {
            let i = k % 2;
            st.wait(i)?;
            parallel_copy(chunk, &mut st.bufs[i].as_mut_slice()[..chunk.len()]);
            let at = dst + (k * STAGE_BYTES) as u64;
            // SAFETY: by the caller, dst is valid for src.len() bytes; the
            // pinned source is not touched again before done[i] fires.
            unsafe {
                bytes_at(at, chunk.len())
                    .async_copy_from(&st.bufs[i].as_slice()[..chunk.len()], &self.stream)?
            };
            st.done[i].record(&self.stream)?;
            st.recorded[i] = true;
        }
        st.wait(0)?;
        st.wait(1)?;
        Ok(())
    }

    unsafe fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), CudaError> {
        self.stream.synchronize()?;
        if dst.is_empty() {
            return Ok(());
        }
        let staging = if dst.len() >= STAGE_MIN {
            self.staging()
        } else {
            None
        };
        let Some(mut guard) = staging else {
            // SAFETY: by the caller.
            unsafe { bytes_at(src, dst.len()) }.copy_to(dst)?;
            return Ok(());
        };
        let st = guard.as_mut().expect("made by staging()");
        // The device copies chunk k into buffer k % 2 while the host's
        // threads drain chunk k - 1 from the other.
        let mut pending: Option<(usize, &mut [u8])> = None;
        for (k, out) in dst.chunks_mut(STAGE_BYTES).enumerate() {
            let i = k % 2;
            let at = src + (k * STAGE_BYTES) as u64;
            let len = out.len();
            // SAFETY: by the caller, src is valid for dst.len() bytes; the
            // buffer was drained (below) before it is written again.
            unsafe {
                bytes_at(at, len)
                    .async_copy_to(&mut st.bufs[i].as_mut_slice()[..len], &self.stream)?
            };
            st.done[i].record(&self.stream)?;
            st.recorded[i] = true;
            if let Some((j, prev)) = pending.take() {
                st.wait(j)?;
                parallel_copy(&st.bufs[j].as_slice()[..prev.len()], prev);
            }
            pending = Some((i, out));
        }
        if let Some((j, prev)) = pending {
            st.wait(j)?;
            parallel_copy(&st.bufs[j].as_slice()[..prev.len()], prev);
        }
        Ok(())
    }

    unsafe fn copy(&self, src: u64, dst: u64, bytes: usize) -> Result<(), CudaError> {
        if bytes > 0 {
            // SAFETY: by the caller; queued on the stream after the kernels
            // that write the source.
            unsafe { bytes_at(dst, bytes).async_copy_from(&bytes_at(src, bytes), &self.stream)? };
        }
        Ok(())
    }

    unsafe fn launch(&self, name: &str, grid: Grid, args: &[*mut c_void]) -> Result<(), CudaError> {
        let f = self.module.get_function(name)?;
        // SAFETY: by the caller (arguments match the kernel's parameters).
        unsafe {
            self.stream
                .launch(&f, (grid.x, grid.y), grid.block, 0, args)?;
        }
        Ok(())
    }

    fn synchronize(&self) -> Result<(), CudaError> {
        self.stream.synchronize()?;
        Ok(())
    }

    fn make_current(&self) -> Result<(), CudaError> {
        CurrentContext::set_current(&self.ctx)?;
        Ok(())
    }
}
