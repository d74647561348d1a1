//! One field or point operation per thread, by the formula kernels: the
//! hooks the tests hold each kernel formula to arkworks with.

use super::Gpu;
use crate::device::{Buf, ByteCopy, Device, Grid, Slice};
use crate::error::CudaError;
use crate::kernels as k;
use crate::layout::{DeviceAffine, DeviceJacobian, DeviceXyzz};

impl Gpu {
    /// `kernel(a, b, out, n)` over the first `n = min(len a, len b)` pairs.
    fn per_thread<A: ByteCopy, B: ByteCopy, O: ByteCopy + Default>(
        &self,
        a: &[A],
        b: &[B],
        kernel: PairKernel<A, B, O>,
    ) -> Result<Vec<O>, CudaError> {
        let dev = self.dev();
        let n = a.len().min(b.len());
        let (da, db) = (Buf::upload(dev, &a[..n])?, Buf::upload(dev, &b[..n])?);
        let out = Buf::<O>::alloc(dev, n)?;
        // SAFETY: n values in each buffer; thread i writes out[i].
        unsafe {
            kernel(
                dev,
                Grid::threads(n as u32),
                da.slice(),
                db.slice(),
                out.slice(),
                n as u32,
            )?
        };
        out.slice().to_vec(dev)
    }

    /// `a_i * b_i` in Fq (Montgomery limbs), one per thread.
    pub fn fq_mul(&self, a: &[[u32; 8]], b: &[[u32; 8]]) -> Result<Vec<[u32; 8]>, CudaError> {
        self.per_thread(a, b, k::zk_fq_mul)
    }

    /// `a_i + b_i` (Jacobian, add-2007-bl).
    pub fn g1_add(
        &self,
        a: &[DeviceJacobian],
        b: &[DeviceJacobian],
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        self.per_thread(a, b, k::zk_g1_add)
    }

    /// `a_i + b_i` (XYZZ plus affine, madd-2008-s).
    pub fn xyzz_add_affine(
        &self,
        a: &[DeviceXyzz],
        b: &[DeviceAffine],
    ) -> Result<Vec<DeviceXyzz>, CudaError> {
        self.per_thread(a, b, k::zk_g1_xyzz_madd)
    }

    /// `(2 a_i, 3 a_i)`.
    pub fn g1_dbl_tpl(
        &self,
        a: &[DeviceJacobian],
    ) -> Result<(Vec<DeviceJacobian>, Vec<DeviceJacobian>), CudaError> {
        let dev = self.dev();
        let n = a.len();
        let da = Buf::upload(dev, a)?;
        let (d2, d3) = (Buf::alloc(dev, n)?, Buf::alloc(dev, n)?);
        // SAFETY: n points in each buffer; thread i writes d2[i] and d3[i].
        unsafe {
            k::zk_g1_dbl_tpl(
                dev,
                Grid::threads(n as u32),
                da.slice(),
                d2.slice(),
                d3.slice(),
                n as u32,
            )?
        };
        Ok((d2.slice().to_vec(dev)?, d3.slice().to_vec(dev)?))
    }
}

/// A kernel of one operation per thread on two inputs: `(a, b, out, n)`.
type PairKernel<A, B, O> =
    unsafe fn(&dyn Device, Grid, Slice<A>, Slice<B>, Slice<O>, u32) -> Result<(), CudaError>;
