//! [`PreparedBases`]: precomputed shifted copies of fixed bases.
//!
//! Pippenger with `t` windows of `c` bits adds every base once per window
//! into that window's buckets, reduces `t` bucket sets, and doubles `c`
//! times between windows. When the bases are fixed (a proving key), store
//! `2^(j c) P_i` for every window `j`: then the scalar's digit in window `j`
//! multiplies `2^(j c) P_i` directly, all windows share **one** set of
//! buckets, and there is one bucket reduction and no doubling. The window can
//! then be larger than plain Pippenger's (the reduction is paid once), so
//! fewer windows and fewer additions are needed; the price is `t` copies of
//! the bases in memory ([`PreparedBases::memory_bytes`]).

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{AdditiveGroup, BigInteger, PrimeField, Zero};

use crate::field_ops::{DetectOps, FieldOps};
use crate::msm::{
    check_lengths, msm_bigint_with, signed_digits, sum_affine_with, window_batch_affine,
    MsmAlgorithm, MsmError,
};
use crate::parallel::map_indices;
use crate::CurveMul;

/// Fixed bases with their shifted copies, for repeated MSMs over the same
/// bases (see the module docs).
pub struct PreparedBases<P: CurveMul> {
    /// `shifted[i * windows + j] = 2^(j c) * bases[i]`.
    shifted: Vec<Affine<P>>,
    n: usize,
    c: u32,
    windows: usize,
    bits: u32,
}

impl<P: CurveMul> Clone for PreparedBases<P> {
    fn clone(&self) -> Self {
        Self {
            shifted: self.shifted.clone(),
            ..*self
        }
    }
}

impl<P: CurveMul> core::fmt::Debug for PreparedBases<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "PreparedBases({} bases, window {}, {} copies, {} bytes)",
            self.n,
            self.c,
            self.windows,
            self.memory_bytes()
        )
    }
}

/// The window for `n` prepared bases of `bits`-bit scalars: minimises
/// `n * windows + 2^c` additions (one bucket reduction), capped so that the
/// buckets stay cache-sized.
pub fn prepared_window(n: usize, bits: u32) -> u32 {
    (1..=16u32)
        .min_by_key(|&c| {
            let windows = (bits + 1).div_ceil(c) as u64;
            windows * n as u64 + (1u64 << c)
        })
        .unwrap_or(1)
}

impl<P: CurveMul> PreparedBases<P> {
    /// Prepares `bases` for full-width scalars of the curve's scalar field,
    /// with the window from `prepared_window`. Costs about one doubling per
    /// scalar bit per base, once.
    pub fn new(bases: &[Affine<P>]) -> Self {
        let bits = P::ScalarField::MODULUS_BIT_SIZE;
        Self::with_window(bases, prepared_window(bases.len(), bits))
    }

    /// As [`PreparedBases::new`] with window `c` (clamped to 1..=20 bits).
    pub fn with_window(bases: &[Affine<P>], c: u32) -> Self {
        let c = c.clamp(1, 20);
        let bits = P::ScalarField::MODULUS_BIT_SIZE;
        let windows = (bits + 1).div_ceil(c) as usize;
        // Each base's copies in projective form, then one batch normalisation.
        let proj: Vec<Vec<Projective<P>>> = map_indices(bases.len(), |i| {
            let mut cur = bases[i].into_group();
            let mut out = Vec::with_capacity(windows);
            for _ in 0..windows {
                out.push(cur);
                for _ in 0..c {
                    cur.double_in_place();
                }
            }
            out
        });
        let flat: Vec<Projective<P>> = proj.into_iter().flatten().collect();
        let shifted = Projective::normalize_batch(&flat);
        Self {
            shifted,
            n: bases.len(),
            c,
            windows,
            bits,
        }
    }

    /// Number of bases.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no bases.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The window size in bits.
    pub fn window(&self) -> u32 {
        self.c
    }

    /// Copies stored per base (the number of windows).
    pub fn copies(&self) -> usize {
        self.windows
    }

    /// Heap memory of the shifted copies, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.shifted.capacity() * core::mem::size_of::<Affine<P>>()
    }

    /// `sum k_i P_i` over field scalars.
    pub fn msm(&self, scalars: &[P::ScalarField]) -> Result<Projective<P>, MsmError> {
        let ints = map_indices(scalars.len(), |i| scalars[i].into_bigint());
        self.msm_bigint(&ints)
    }

    /// `sum k_i P_i` over integer scalars. Integers wider than the scalar
    /// field take plain [`msm_bigint_with`] on the unshifted bases.
    pub fn msm_bigint(
        &self,
        scalars: &[<P::ScalarField as PrimeField>::BigInt],
    ) -> Result<Projective<P>, MsmError> {
        check_lengths(self.n, scalars.len())?;
        if scalars.iter().any(|k| k.num_bits() > self.bits) {
            let bases: Vec<Affine<P>> = self
                .shifted
                .iter()
                .step_by(self.windows.max(1))
                .copied()
                .collect();
            return msm_bigint_with(&bases, scalars, MsmAlgorithm::Auto);
        }
        Ok(match P::Ops::detect() {
            Some(ops) => self.sum(scalars, ops),
            None => self.sum(scalars, P::Ops::fallback()),
        })
    }

    fn sum<O: FieldOps<P::BaseField> + Copy + Send + Sync>(
        &self,
        scalars: &[<P::ScalarField as PrimeField>::BigInt],
        ops: O,
    ) -> Projective<P> {
        if self.n == 0 {
            return Projective::zero();
        }
        let (c, w) = (self.c, self.windows);
        // digits[i * w + j]: scalar i, window j, aligned with `shifted`.
        // Scalars equal to one keep zero digits: their bases are summed
        // directly (circuit witnesses are mostly bits, which would otherwise
        // all land in one bucket).
        let one = <P::ScalarField as PrimeField>::BigInt::from(1u64);
        let mut digits = vec![0i32; self.n * w];
        let mut ones = Vec::new();
        for (i, (k, d)) in scalars.iter().zip(digits.chunks_mut(w)).enumerate() {
            if *k == one {
                ones.push(i);
            } else if !k.is_zero() {
                signed_digits(k, c, w, d);
            }
        }
        let ones_sum = sum_affine_with(ones.len(), |t| self.shifted[ones[t] * w], ops);
        // Independent slices of the flat (base, window) list, each with its
        // own buckets: the bucket sum is linear, so the slices' sums add.
        let tasks = rayon_tasks();
        let per = (self.n * w).div_ceil(tasks).max(1);
        let parts = map_indices((self.n * w).div_ceil(per), |t| {
            let range = t * per..((t + 1) * per).min(self.n * w);
            let start = range.start;
            window_batch_affine(&self.shifted[range], |x| digits[start + x], c, ops)
        });
        ones_sum + parts.into_iter().sum::<Projective<P>>()
    }
}

/// How many independent slices to split a prepared MSM into.
fn rayon_tasks() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads().max(1)
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}
