//! [`HostDevice`] (feature `emulation`): the kernels of `kernels/zkaccel.cu`
//! compiled for the host by g++ (`host/emulation.cpp`), "device" memory in
//! host memory, each launch run at once over a simulated grid (blocks
//! spread over the host's cores, atomics real; a block whose threads share
//! memory runs whole in one host thread, as the kernels' `ZK_BLOCK_FOR`
//! allows). Slow (32-bit limbs, an emulated carry flag): a test device.

use super::{Device, Grid};
use crate::error::CudaError;
use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod ffi {
    use std::ffi::c_void;
    extern "C" {
        /// The index of the kernel `name` (`len` bytes), or -1.
        pub fn zk_emu_kernel(name: *const u8, len: usize) -> i32;
        /// Blocks `[block_begin, block_end)` (flattened: `x + grid_x * y`)
        /// of kernel `kernel` over a `grid_x x grid_y` grid of `block`
        /// threads; `args` as for `cuLaunchKernel`.
        pub fn zk_emu_run(
            kernel: i32,
            block_begin: u32,
            block_end: u32,
            grid_x: u32,
            grid_y: u32,
            block: u32,
            args: *const *mut c_void,
        );
    }
}

/// Alignment of every emulated allocation (as cudaMalloc's 256 bytes
/// would be overkill for the host, 64 covers every kernel type).
const ALIGN: usize = 64;

/// The emulated device.
pub(crate) struct HostDevice {
    memory: usize,
    used: AtomicUsize,
    live: Mutex<HashMap<u64, Layout>>,
}

impl HostDevice {
    /// A device of `memory` bytes: allocations beyond it fail as a full GPU
    /// would, so the pipelines' chunking and out-of-memory paths run too.
    pub fn new(memory: usize) -> HostDevice {
        HostDevice {
            memory,
            used: AtomicUsize::new(0),
            live: Mutex::new(HashMap::new()),
        }
    }
}

impl Drop for HostDevice {
    fn drop(&mut self) {
        let live = self.live.get_mut().unwrap_or_else(|e| e.into_inner());
        for (addr, layout) in live.drain() {
            // SAFETY: allocated by alloc below with this layout, not freed.
            unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
        }
    }
}

/// The launch arguments, shared by the host threads of one simulated grid.
#[derive(Clone, Copy)]
struct Args(*const *mut c_void);
// SAFETY: the values they point to live on the launching thread's stack for
// the whole (synchronous) launch and are only read.
unsafe impl Send for Args {}
// SAFETY: as above.
unsafe impl Sync for Args {}

impl Device for HostDevice {
    fn name(&self) -> &str {
        "host emulation"
    }

    fn total_memory(&self) -> usize {
        self.memory
    }

    fn free_memory(&self) -> Result<usize, CudaError> {
        Ok(self
            .memory
            .saturating_sub(self.used.load(Ordering::Relaxed)))
    }

    fn alloc(&self, bytes: usize) -> Result<u64, CudaError> {
        let size = bytes.max(1).next_multiple_of(ALIGN);
        let oom = || CudaError::OutOfMemory {
            requested: bytes,
            free: self.free_memory().unwrap_or(0),
        };
        let prev = self.used.fetch_add(size, Ordering::Relaxed);
        if prev.checked_add(size).is_none_or(|u| u > self.memory) {
            self.used.fetch_sub(size, Ordering::Relaxed);
            return Err(oom());
        }
        let layout = Layout::from_size_align(size, ALIGN).map_err(|_| oom())?;
        // SAFETY: the layout's size is not zero.
        let p = unsafe { std::alloc::alloc(layout) };
        if p.is_null() {
            self.used.fetch_sub(size, Ordering::Relaxed);
            return Err(oom());
        }
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        live.insert(p as u64, layout);
        Ok(p as u64)
    }

    unsafe fn free(&self, addr: u64) {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(layout) = live.remove(&addr) {
            self.used.fetch_sub(layout.size(), Ordering::Relaxed);
            // SAFETY: allocated by alloc with this layout; freed once (it
            // has just left the map).
            unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
        }
    }

    unsafe fn upload(&self, src: &[u8], dst: u64) -> Result<(), CudaError> {
        // SAFETY: by the caller; host memory on both sides, disjoint.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        Ok(())
    }

    unsafe fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), CudaError> {
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    unsafe fn copy(&self, src: u64, dst: u64, bytes: usize) -> Result<(), CudaError> {
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, bytes) };
        Ok(())
    }

    unsafe fn launch(&self, name: &str, grid: Grid, args: &[*mut c_void]) -> Result<(), CudaError> {
        // SAFETY: name is valid for len bytes.
        let kernel = unsafe { ffi::zk_emu_kernel(name.as_ptr(), name.len()) };
        if kernel < 0 {
            return Err(CudaError::Driver(format!(
                "the host emulation has no kernel named {name}"
            )));
        }
        let blocks = grid.x as u64 * grid.y as u64;
        let blocks = u32::try_from(blocks).map_err(|_| {
            CudaError::Driver(format!("{name}: {blocks} blocks exceed the emulated grid"))
        })?;
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(blocks as usize)
            .max(1) as u32;
        let per = blocks.div_ceil(threads);
        let a = Args(args.as_ptr());
        std::thread::scope(|s| {
            for t in 0..threads {
                let (lo, hi) = (t * per, ((t + 1) * per).min(blocks));
                if lo < hi {
                    s.spawn(move || {
                        let a = a;
                        // SAFETY: by the caller of launch: the arguments
                        // match the kernel and its buffers are valid; blocks
                        // write what their threads own (or use atomics).
                        unsafe { ffi::zk_emu_run(kernel, lo, hi, grid.x, grid.y, grid.block, a.0) }
                    });
                }
            }
        });
        Ok(())
    }

    fn synchronize(&self) -> Result<(), CudaError> {
        Ok(())
    }

    fn make_current(&self) -> Result<(), CudaError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{Buf, Grid};

    #[test]
    fn memory_is_bounded_and_given_back() {
        let dev = HostDevice::new(1 << 12);
        let a = dev.alloc(3000).unwrap();
        assert!(dev.free_memory().unwrap() <= (1 << 12) - 3000);
        assert!(matches!(
            dev.alloc(3000),
            Err(CudaError::OutOfMemory {
                requested: 3000,
                ..
            })
        ));
        // SAFETY: allocated above, nothing queued.
        unsafe { dev.free(a) };
        assert_eq!(dev.free_memory().unwrap(), 1 << 12);
        let b = dev.alloc(3000).unwrap();
        // SAFETY: as above.
        unsafe { dev.free(b) };
    }

    #[test]
    fn an_unknown_kernel_is_an_error() {
        let dev = HostDevice::new(1 << 12);
        // SAFETY: no kernel runs.
        let r = unsafe { dev.launch("zk_no_such_kernel", Grid::threads(1), &[]) };
        assert!(matches!(r, Err(CudaError::Driver(m)) if m.contains("zk_no_such_kernel")));
    }

    #[test]
    fn a_launch_runs_every_thread() {
        // zk_fr_from_montgomery over 3 blocks of 128 threads for 300
        // scalars: 1 in Montgomery form becomes the integer 1 in each.
        let dev = HostDevice::new(1 << 16);
        let n = 300u32;
        let one = crate::layout::fr_limbs(&ark_bn254::Fr::from(1u64));
        let d = Buf::upload(&dev, &vec![one; n as usize]).unwrap();
        // SAFETY: n scalars; thread i converts scalar i.
        unsafe { crate::kernels::zk_fr_from_montgomery(&dev, Grid::threads(n), d.slice(), n) }
            .unwrap();
        let got = d.slice().to_vec(&dev).unwrap();
        assert!(got.iter().all(|l| *l == [1, 0, 0, 0, 0, 0, 0, 0]));
    }
}
