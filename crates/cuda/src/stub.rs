//! Without the feature `cuda`: the same API, and [`CudaContext::new`]
//! always answers [`CudaError::NotCompiled`].

use crate::error::CudaError;
use crate::layout::{DeviceAffine, DeviceJacobian, DeviceXyzz};
use std::convert::Infallible;

/// Device-resident bases; none can exist without the feature `cuda`.
pub(crate) struct BasesBuffer(Infallible);

/// A CUDA device; none can exist in a build without the feature `cuda`.
#[derive(Debug)]
pub struct CudaContext {
    never: Infallible,
}

impl CudaContext {
    /// Always `Err(CudaError::NotCompiled)`.
    pub fn new(_ordinal: u32) -> Result<CudaContext, CudaError> {
        Err(CudaError::NotCompiled)
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> u32 {
        match self.never {}
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        match self.never {}
    }

    /// The device's memory, in bytes.
    pub fn total_memory(&self) -> usize {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn dbc_msm(
        &self,
        _bases: &[DeviceAffine],
        _scalars: &[[u32; 8]],
        _montgomery: bool,
        _delta: u32,
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn bucket_msm(
        &self,
        _bases: &[DeviceAffine],
        _scalars: &[[u32; 8]],
        _montgomery: bool,
    ) -> Result<ark_bn254::G1Projective, CudaError> {
        match self.never {}
    }

    pub(crate) fn upload_bases(&self, _bases: &[DeviceAffine]) -> Result<BasesBuffer, CudaError> {
        match self.never {}
    }

    pub(crate) fn free_bases(&self, bases: BasesBuffer) {
        match bases.0 {}
    }

    pub(crate) fn bucket_msm_resident(
        &self,
        _bases: &BasesBuffer,
        _scalars: &[[u32; 8]],
        _montgomery: bool,
    ) -> Result<ark_bn254::G1Projective, CudaError> {
        match self.never {}
    }

    pub(crate) fn quotient_msm(
        &self,
        _abc: [Vec<ark_bn254::Fr>; 3],
        _job: &crate::ntt::QuotientJob,
        _bases: &BasesBuffer,
    ) -> Result<ark_bn254::G1Projective, CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn quotient(
        &self,
        _abc: [Vec<ark_bn254::Fr>; 3],
        _job: &crate::ntt::QuotientJob,
    ) -> Result<Vec<ark_bn254::Fr>, CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn ntt(
        &self,
        _data: &mut [ark_bn254::Fr],
        _job: &crate::ntt::NttJob,
    ) -> Result<(), CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn ntt_batch(
        &self,
        _batch: &mut [&mut [ark_bn254::Fr]],
        _job: &crate::ntt::NttJob,
    ) -> Result<(), CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn fq_mul(&self, _a: &[[u32; 8]], _b: &[[u32; 8]]) -> Result<Vec<[u32; 8]>, CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn g1_add(
        &self,
        _a: &[DeviceJacobian],
        _b: &[DeviceJacobian],
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn g1_dbl_tpl(
        &self,
        _a: &[DeviceJacobian],
    ) -> Result<(Vec<DeviceJacobian>, Vec<DeviceJacobian>), CudaError> {
        match self.never {}
    }

    /// See the `cuda` build.
    pub fn xyzz_add_affine(
        &self,
        _a: &[DeviceXyzz],
        _b: &[DeviceAffine],
    ) -> Result<Vec<DeviceXyzz>, CudaError> {
        match self.never {}
    }
}
