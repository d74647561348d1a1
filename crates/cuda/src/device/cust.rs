//! [`CustDevice`]: a GPU through `cust` 0.3 (feature `cuda`): one context,
//! the embedded PTX loaded as a module, one stream.

use super::{Device, Grid};
use crate::error::CudaError;
use cust::context::{Context, CurrentContext};
use cust::memory::{AsyncCopyDestination, CopyDestination, DevicePointer, DeviceSlice};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};
use cust::CudaFlags;
use std::ffi::c_void;

/// The PTX built from `kernels/zkaccel.cu` (PTX ISA 8.0, compute_80).
pub const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/zkaccel.ptx"));

/// A GPU with zkaccel's kernels loaded.
// Fields drop in declaration order: the module and the stream go before the
// context they live in (destroying the context first made every later
// unload and free crash: seen on an H100, the first GPU run).
pub(crate) struct CustDevice {
    module: Module,
    stream: Stream,
    name: String,
    total_memory: usize,
    ctx: Context,
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
        Ok(CustDevice {
            name: device.name()?,
            total_memory: device.total_memory()?,
            module,
            stream,
            ctx,
        })
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
        Ok(cust::memory::mem_get_info()?.0)
    }

    fn alloc(&self, bytes: usize) -> Result<u64, CudaError> {
        // SAFETY: the memory is returned uninitialised; Device::alloc says so.
        match unsafe { cust::memory::cuda_malloc::<u8>(bytes.max(1)) } {
            Ok(p) => Ok(p.as_raw()),
            Err(cust::error::CudaError::OutOfMemory) => Err(CudaError::OutOfMemory {
                requested: bytes,
                free: self.free_memory().unwrap_or(0),
            }),
            Err(e) => Err(e.into()),
        }
    }

    unsafe fn free(&self, addr: u64) {
        // SAFETY: by the caller. A failure here (a context already lost)
        // leaves nothing else to do.
        let _ = unsafe { cust::memory::cuda_free(DevicePointer::<u8>::from_raw(addr)) };
    }

    unsafe fn upload(&self, src: &[u8], dst: u64) -> Result<(), CudaError> {
        if !src.is_empty() {
            // SAFETY: by the caller.
            unsafe { bytes_at(dst, src.len()) }.copy_from(src)?;
        }
        Ok(())
    }

    unsafe fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), CudaError> {
        self.stream.synchronize()?;
        if !dst.is_empty() {
            // SAFETY: by the caller.
            unsafe { bytes_at(src, dst.len()) }.copy_to(dst)?;
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
