//! The device the pipelines run on: memory, copies, kernel launches and
//! synchronisation, behind one small trait with two implementations:
//!
//! - [`cust::CustDevice`] (feature `cuda`): a GPU through the CUDA driver,
//!   the kernels loaded from the embedded PTX;
//! - [`host::HostDevice`] (feature `emulation`): the same kernels compiled
//!   for the host by g++ (`host/emulation.cpp` includes `kernels/zkaccel.cu`),
//!   device memory in host memory, each launch a simulated grid.
//!
//! Every pipeline in [`crate::pipeline`] is written once against
//! [`Device`], so the tests that run the emulated device run the GPU's
//! launch sequence, byte for byte the same arguments.

use crate::error::CudaError;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::Range;

#[cfg(feature = "cuda")]
pub(crate) mod cust;
#[cfg(feature = "emulation")]
pub(crate) mod host;

/// A launch's geometry: `x * y` blocks of `block` threads (`blockIdx.y`
/// picks a vector of a batch in the NTT kernels; 1 elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub x: u32,
    pub y: u32,
    pub block: u32,
}

impl Grid {
    /// Enough blocks of [`crate::plan::BLOCK`] threads for `n` threads.
    pub fn threads(n: u32) -> Grid {
        let p = crate::plan::LaunchPlan::for_threads(n);
        Grid {
            x: p.grid,
            y: 1,
            block: p.block,
        }
    }

    /// `x` blocks of `block` threads.
    pub fn blocks(x: u32, block: u32) -> Grid {
        Grid { x, y: 1, block }
    }

    /// The same grid once per vector of a batch of `y`.
    pub fn batch(self, y: u32) -> Grid {
        Grid { y, ..self }
    }
}

/// What a device does for the pipelines. Addresses are the device's own
/// (`CUdeviceptr`, or a host address for the emulation); copies to the host
/// happen after the work queued before them.
pub(crate) trait Device: Send {
    /// The device's name.
    fn name(&self) -> &str;
    /// The device's memory, in bytes.
    fn total_memory(&self) -> usize;
    /// Free device memory, in bytes.
    fn free_memory(&self) -> Result<usize, CudaError>;
    /// `bytes` of uninitialised device memory (at least one byte is
    /// allocated); [`CudaError::OutOfMemory`] when they are not free.
    fn alloc(&self, bytes: usize) -> Result<u64, CudaError>;
    /// Frees an allocation.
    ///
    /// # Safety
    /// `addr` came from [`Device::alloc`] on this device, is freed once, and
    /// no queued work uses it.
    unsafe fn free(&self, addr: u64);
    /// Copies `src` to `dst`, after the queued work; returns when done.
    ///
    /// # Safety
    /// `dst` is valid for `src.len()` bytes.
    unsafe fn upload(&self, src: &[u8], dst: u64) -> Result<(), CudaError>;
    /// Copies from `src` into `dst`, after the queued work; returns when done.
    ///
    /// # Safety
    /// `src` is valid for `dst.len()` bytes.
    unsafe fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), CudaError>;
    /// Queues a copy of `bytes` bytes from `src` to `dst` on the device.
    ///
    /// # Safety
    /// Both ranges are valid and disjoint.
    unsafe fn copy(&self, src: u64, dst: u64, bytes: usize) -> Result<(), CudaError>;
    /// Queues the kernel `name` over `grid`; `args[i]` points to the `i`-th
    /// argument's value (the convention of `cuLaunchKernel`).
    ///
    /// # Safety
    /// The arguments match the kernel's parameters in number, type and
    /// order, and every buffer they address is valid for what the kernel
    /// reads and writes over this grid.
    unsafe fn launch(&self, name: &str, grid: Grid, args: &[*mut c_void]) -> Result<(), CudaError>;
    /// Waits for the queued work.
    fn synchronize(&self) -> Result<(), CudaError>;
    /// Makes the device current on the calling thread (the driver's calls
    /// need it; a no-op for the emulation).
    fn make_current(&self) -> Result<(), CudaError>;
}

/// Types that cross to the device as their bytes: plain numbers and
/// arrays of them, `#[repr(C)]`, no padding, no pointers, every bit
/// pattern valid.
///
/// # Safety
/// Implementors must have exactly these properties.
pub(crate) unsafe trait ByteCopy: Copy + Send + Sync + 'static {}

// SAFETY: a number; every bit pattern is valid.
unsafe impl ByteCopy for u32 {}
// SAFETY: an array of numbers.
unsafe impl ByteCopy for [u32; 8] {}
// SAFETY: arrays of u32 (crate::layout), no padding.
unsafe impl ByteCopy for crate::layout::DeviceAffine {}
// SAFETY: as above.
unsafe impl ByteCopy for crate::layout::DeviceJacobian {}
// SAFETY: as above.
unsafe impl ByteCopy for crate::layout::DeviceXyzz {}
// SAFETY: four u32 (crate::bucket), no padding.
unsafe impl ByteCopy for crate::bucket::BucketParams {}
// SAFETY: numbers and arrays of them; the padding-free layout is asserted
// in crate::tables and in the C++ header.
unsafe impl ByteCopy for crate::tables::DbcTables {}

fn bytes_of<T: ByteCopy>(data: &[T]) -> &[u8] {
    // SAFETY: ByteCopy types have no padding, so every byte is initialised.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), std::mem::size_of_val(data)) }
}

fn bytes_of_mut<T: ByteCopy>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: as above, and any bytes written make a valid T.
    unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast(), std::mem::size_of_val(data)) }
}

/// `len` values of `T` on a device: an address and a length, what a
/// kernel receives (as a pointer).
pub(crate) struct Slice<T> {
    addr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T> Clone for Slice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slice<T> {}

impl<T: ByteCopy> Slice<T> {
    /// Values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The values `range` of this slice.
    pub fn index(&self, range: Range<usize>) -> Slice<T> {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "device slice index {range:?} out of 0..{}",
            self.len
        );
        Slice {
            addr: self.addr + (range.start * std::mem::size_of::<T>()) as u64,
            len: range.end - range.start,
            _t: PhantomData,
        }
    }

    /// Copies `src` (as many values as the slice holds) in; waits.
    pub fn upload(&self, dev: &dyn Device, src: &[T]) -> Result<(), CudaError> {
        assert_eq!(src.len(), self.len, "upload of another length");
        // SAFETY: the slice is valid for len values.
        unsafe { dev.upload(bytes_of(src), self.addr) }
    }

    /// Copies the values out into `dst` (as many), after the queued work.
    pub fn download(&self, dev: &dyn Device, dst: &mut [T]) -> Result<(), CudaError> {
        assert_eq!(dst.len(), self.len, "download of another length");
        // SAFETY: the slice is valid for len values.
        unsafe { dev.download(self.addr, bytes_of_mut(dst)) }
    }

    /// The values as a vector, after the queued work.
    pub fn to_vec(self, dev: &dyn Device) -> Result<Vec<T>, CudaError>
    where
        T: Default,
    {
        let mut v = vec![T::default(); self.len];
        self.download(dev, &mut v)?;
        Ok(v)
    }

    /// Queues a copy of `src` (as many values) into this slice.
    pub fn copy_from(&self, dev: &dyn Device, src: Slice<T>) -> Result<(), CudaError> {
        assert_eq!(src.len, self.len, "copy of another length");
        // SAFETY: both slices are valid for len values; the pipelines
        // copy between distinct buffers.
        unsafe { dev.copy(src.addr, self.addr, self.len * std::mem::size_of::<T>()) }
    }
}

/// An allocation of `len` values of `T` that is not tied to a borrow of
/// the device (tables, cached powers, resident bases): freed explicitly
/// by [`RawBuf::free`], on the device it came from.
pub(crate) struct RawBuf<T> {
    slice: Slice<T>,
}

impl<T: ByteCopy> RawBuf<T> {
    /// `len` values, uninitialised.
    pub fn alloc(dev: &dyn Device, len: usize) -> Result<RawBuf<T>, CudaError> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(CudaError::OutOfMemory {
                requested: usize::MAX,
                free: 0,
            })?;
        Ok(RawBuf {
            slice: Slice {
                addr: dev.alloc(bytes)?,
                len,
                _t: PhantomData,
            },
        })
    }

    /// A copy of `data`.
    pub fn upload(dev: &dyn Device, data: &[T]) -> Result<RawBuf<T>, CudaError> {
        let b = RawBuf::alloc(dev, data.len())?;
        match b.slice.upload(dev, data) {
            Ok(()) => Ok(b),
            Err(e) => {
                // SAFETY: just allocated here; nothing queued uses it.
                unsafe { b.free(dev) };
                Err(e)
            }
        }
    }

    /// The whole allocation.
    pub fn slice(&self) -> Slice<T> {
        self.slice
    }

    /// Values.
    pub fn len(&self) -> usize {
        self.slice.len
    }

    /// Frees the allocation.
    ///
    /// # Safety
    /// `dev` is the device it came from, and no queued work uses it.
    pub unsafe fn free(self, dev: &dyn Device) {
        // SAFETY: by the caller.
        unsafe { dev.free(self.slice.addr) }
    }
}

/// An allocation freed when it goes out of scope (with the device borrowed
/// for as long). Freed buffers must not be in use by queued work: the
/// pipelines keep theirs until they have synchronised.
pub(crate) struct Buf<'d, T: ByteCopy> {
    dev: &'d dyn Device,
    raw: Option<RawBuf<T>>,
}

impl<'d, T: ByteCopy> Buf<'d, T> {
    /// `len` values that a kernel writes before anything reads them.
    pub fn alloc(dev: &'d dyn Device, len: usize) -> Result<Buf<'d, T>, CudaError> {
        Ok(Buf {
            dev,
            raw: Some(RawBuf::alloc(dev, len)?),
        })
    }

    /// A copy of `data`.
    pub fn upload(dev: &'d dyn Device, data: &[T]) -> Result<Buf<'d, T>, CudaError> {
        Ok(Buf {
            dev,
            raw: Some(RawBuf::upload(dev, data)?),
        })
    }

    /// The whole buffer.
    pub fn slice(&self) -> Slice<T> {
        self.raw.as_ref().expect("present until drop").slice
    }

    /// The values `range`.
    pub fn index(&self, range: Range<usize>) -> Slice<T> {
        self.slice().index(range)
    }
}

impl<T: ByteCopy> Drop for Buf<'_, T> {
    fn drop(&mut self) {
        if let Some(raw) = self.raw.take() {
            // SAFETY: allocated on self.dev; the pipelines drop buffers only
            // after the work that uses them has finished.
            unsafe { raw.free(self.dev) }
        }
    }
}

/// A kernel argument as the kernel receives it: a [`Slice`] is its
/// address (a pointer parameter), other values themselves.
pub(crate) trait KernelArg {
    /// The value the kernel's parameter holds.
    type Raw: Copy;
    /// That value.
    fn raw(self) -> Self::Raw;
}

impl<T> KernelArg for Slice<T> {
    type Raw = u64;
    fn raw(self) -> u64 {
        self.addr
    }
}

macro_rules! plain_args {
    ($($t:ty),*) => {$(
        impl KernelArg for $t {
            type Raw = $t;
            fn raw(self) -> $t {
                self
            }
        }
    )*};
}
plain_args!(u32, [u32; 8], crate::bucket::BucketParams);
