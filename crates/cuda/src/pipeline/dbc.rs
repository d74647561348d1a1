//! The paper's GPU MSM on the device (one thread per term: its scalar's
//! δ-suboptimal double-base chain and the scalar multiplication), and the
//! pairwise reduction rounds that sum its terms (and the bucket method's
//! window slices).

use super::{Gpu, Keep, Laps};
use crate::device::{Buf, Grid};
use crate::error::CudaError;
use crate::kernels as k;
use crate::layout::{DeviceAffine, DeviceJacobian};
use crate::plan::{terms_per_chunk, ReductionRounds, Round, BYTES_PER_TERM};
#[cfg(feature = "emulation")]
use ark_bn254::G1Projective;
#[cfg(feature = "emulation")]
use ark_ff::Zero;

impl Gpu {
    /// `sum k_i P_i` by the paper's per-thread DBC method; `scalars` are
    /// integers, or Fr Montgomery limbs when `montgomery`. Inputs larger
    /// than the free device memory run in chunks: one partial sum each.
    pub fn dbc_msm(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        delta: u32,
    ) -> Result<Vec<DeviceJacobian>, CudaError> {
        assert_eq!(bases.len(), scalars.len(), "checked by the caller");
        let free = self.free()?;
        let chunk = terms_per_chunk(free);
        if chunk == 0 && !bases.is_empty() {
            return Err(CudaError::OutOfMemory {
                requested: BYTES_PER_TERM,
                free,
            });
        }
        let mut partial = Vec::new();
        for (b, s) in bases.chunks(chunk.max(1)).zip(scalars.chunks(chunk.max(1))) {
            partial.push(self.dbc_chunk(b, s, montgomery, delta)?);
        }
        Ok(partial)
    }

    fn dbc_chunk(
        &self,
        bases: &[DeviceAffine],
        scalars: &[[u32; 8]],
        montgomery: bool,
        delta: u32,
    ) -> Result<DeviceJacobian, CudaError> {
        let dev = self.dev();
        let n = bases.len() as u32;
        let mut laps = Laps::new(dev, "dbc msm");
        let d_bases = Buf::upload(dev, bases)?;
        let d_scalars = Buf::upload(dev, scalars)?;
        laps.lap("upload")?;
        let terms = Buf::<DeviceJacobian>::alloc(dev, n as usize)?;
        let all = Grid::threads(n);
        let tables = self.tables.as_ref().expect("present until drop").slice();
        // SAFETY: n scalars, n bases, n outputs (thread i writes out[i]);
        // the tables live as long as the device.
        unsafe {
            if montgomery {
                k::zk_fr_from_montgomery(dev, all, d_scalars.slice(), n)?;
            }
            k::zk_dbc_msm_terms(
                dev,
                all,
                d_bases.slice(),
                d_scalars.slice(),
                terms.slice(),
                n,
                delta,
                tables,
            )?;
        }
        laps.lap("chains and terms")?;
        let sum = self.reduce_rounds(terms, ReductionRounds::new(n))?;
        laps.lap("tree reduction")?;
        let mut out = [DeviceJacobian::default()];
        sum.index(0..1).download(dev, &mut out)?;
        drop((d_bases, d_scalars));
        Ok(out[0])
    }

    /// `zk_reduce_pairs` over `points`, one launch per round (`out[i] =
    /// in[2i] + in[2i + 1]`); the last round's output, once the device is
    /// done.
    pub(super) fn reduce_rounds<'d>(
        &'d self,
        points: Buf<'d, DeviceJacobian>,
        rounds: impl Iterator<Item = Round>,
    ) -> Result<Buf<'d, DeviceJacobian>, CudaError> {
        let dev = self.dev();
        let mut keep = Keep::new(dev);
        let mut cur = points;
        for round in rounds {
            let next = Buf::<DeviceJacobian>::alloc(dev, round.outputs as usize)?;
            // SAFETY: `cur` holds round.inputs points, `next` round.outputs;
            // thread i writes next[i] only.
            unsafe {
                k::zk_reduce_pairs(
                    dev,
                    Grid::threads(round.outputs),
                    cur.slice(),
                    next.slice(),
                    round.inputs,
                )?;
            }
            keep.jacobians.push(std::mem::replace(&mut cur, next));
        }
        keep.release()?;
        Ok(cur)
    }

    /// The sum of `points` by the reduction kernel, round by round.
    #[cfg(feature = "emulation")]
    pub fn reduce(&self, points: &[DeviceJacobian]) -> Result<DeviceJacobian, CudaError> {
        if points.is_empty() {
            return Ok(DeviceJacobian::from_ark(&G1Projective::zero()));
        }
        let d = Buf::upload(self.dev(), points)?;
        let sum = self.reduce_rounds(d, ReductionRounds::new(points.len() as u32))?;
        Ok(sum.index(0..1).to_vec(self.dev())?[0])
    }
}
