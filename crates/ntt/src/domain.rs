//! [`NttDomain`]: an arkworks `EvaluationDomain` running zkaccel's transform.

use ark_ff::FftField;
use ark_poly::{
    domain::{radix2::Elements, DomainCoeff},
    EvaluationDomain, Radix2EvaluationDomain,
};
use ark_serialize::{
    CanonicalDeserialize, CanonicalSerialize, Compress, SerializationError, Valid, Validate,
};
use ark_std::io::{Read, Write};
use core::fmt;

use crate::arith::{AdxArith, Arith, Generic, Portable};
use crate::field::MontField;
use crate::job::{Job, PostScale};
use crate::transform;

/// Which arithmetic runs the transform of field elements.
///
/// [`Kernel::Auto`] is what [`EvaluationDomain`] methods use; the others exist
/// so that tests and benchmarks can run each path on the same inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// The fastest kernel this CPU and field allow: [`Kernel::Ifma`], else
    /// [`Kernel::Avx2`], else [`Kernel::Adx`], else [`Kernel::Portable`].
    Auto,
    /// The fastest kernel that keeps no copy of the data: [`Kernel::Auto`]
    /// without the AVX2 lanes ([`Kernel::Ifma`], else [`Kernel::Adx`], else
    /// [`Kernel::Portable`]). The AVX2 lanes work on a lane copy of the
    /// data with a lane table (up to 144 bytes per element besides the
    /// data); Groth16's witness map, whose transforms set a one-shot proof's
    /// peak memory, runs this kernel (docs/ntt.md has the measurements).
    Lean,
    /// Eight transforms per AVX-512 IFMA vector in both passes of the
    /// four-step split (sizes `2^9` and up; the BMI2/ADX kernel, or the
    /// portable one, below), for fields of four limbs below 2^255; an error
    /// on CPUs without AVX-512F and AVX-512IFMA.
    Ifma,
    /// Four transforms per AVX2 vector after the first radix-4 stage of the
    /// whole-array transform (sizes `2^14` to `2^18`; the BMI2/ADX kernel
    /// elsewhere), for fields of four limbs between 2^250 and 2^255; an
    /// error on CPUs without AVX2, BMI2 and ADX.
    Avx2,
    /// The BMI2/ADX assembly multiplication (x86-64 with BMI2 and ADX, fields
    /// of four limbs below 2^255); an error where unavailable.
    Adx,
    /// Branch-free limb arithmetic in portable Rust.
    Portable,
    /// arkworks' own field operators (the path taken for non-field
    /// coefficient types such as group elements).
    Generic,
}

/// Transform direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Coefficients to evaluations (`fft`, or `coset_fft` on a coset domain).
    Forward,
    /// Evaluations to coefficients (`ifft`, or `coset_ifft` on a coset domain).
    Inverse,
}

/// Errors of the explicit (non-`EvaluationDomain`) transform API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NttError {
    /// A vector's length differs from the domain size.
    LengthMismatch {
        /// The domain size.
        expected: usize,
        /// The offending vector's length.
        got: usize,
    },
    /// The requested kernel cannot run on this CPU or for this field.
    KernelUnavailable(Kernel),
    /// A provider other than the CPU (the GPU) failed; `cause` is its own
    /// error (also [`Error::source`](std::error::Error::source)).
    Backend {
        /// The provider's name ([`NttProvider::name`](crate::NttProvider::name)).
        backend: &'static str,
        /// What went wrong, as the backend reported it.
        cause: zkaccel_core::BackendCause,
    },
}

impl fmt::Display for NttError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NttError::LengthMismatch { expected, got } => write!(
                f,
                "vector of length {got} given to an NTT domain of size {expected}"
            ),
            NttError::KernelUnavailable(k) => write!(
                f,
                "NTT kernel {k:?} is not available for this field on this CPU"
            ),
            NttError::Backend { backend, cause } => {
                write!(f, "the {backend} NTT failed: {cause}")
            }
        }
    }
}

impl std::error::Error for NttError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NttError::Backend { cause, .. } => Some(cause.get()),
            _ => None,
        }
    }
}

/// A power-of-two multiplicative subgroup (or a coset of one) whose FFTs run
/// on zkaccel's four-step transform.
///
/// Parameters, sizes, padding rules, cosets, elements, vanishing and
/// Lagrange polynomials are exactly those of ark-poly's
/// [`Radix2EvaluationDomain`] (the domain wraps one); only the transforms
/// differ, and they return the same values. Any code generic over
/// `EvaluationDomain` can use it.
///
/// Fast paths apply when the coefficients are the field itself; other
/// coefficient types (group elements, ...) run the same algorithm with their
/// own operators.
#[derive(Copy, Clone, Hash, Eq, PartialEq)]
pub struct NttDomain<F: FftField> {
    inner: Radix2EvaluationDomain<F>,
}

impl<F: FftField> fmt::Debug for NttDomain<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "zkaccel NTT domain of size {}", self.inner.size)
    }
}

impl<F: FftField> NttDomain<F> {
    fn job(&self, direction: Direction) -> Job<F> {
        let offset = self.inner.offset;
        match direction {
            Direction::Forward => Job {
                log_n: self.inner.log_size_of_group,
                inverse: false,
                pre: (!offset.is_one()).then_some(offset),
                post: None,
            },
            Direction::Inverse => Job {
                log_n: self.inner.log_size_of_group,
                inverse: true,
                pre: None,
                post: Some(PostScale {
                    factor: self.inner.size_inv,
                    offset: self.inner.offset_inv,
                }),
            },
        }
    }

    /// Heap bytes one transform of this domain allocates besides the data
    /// it transforms (an upper estimate, for field coefficients): the
    /// twiddle tables, built on first use and then cached for the process,
    /// and per-thread column buffers. Up to 2^20 elements the scalar
    /// kernels use one table as large as the data (32 MiB at 2^20 for
    /// BN254, per direction), which saves two multiplications per element;
    /// above, the four-step split's tables and buffers grow as
    /// `sqrt(size)` (about 2.2 MiB at 2^22 on 2 threads, against 128 MiB of
    /// data). On CPUs with AVX2, [`Kernel::Avx2`] (from 2^14 to 2^18)
    /// adds a lane copy of the data and a lane table, 144 bytes per element
    /// at most (36 MiB at 2^18); the estimate counts it wherever it can
    /// run. The transforms run in place; the allocating
    /// `EvaluationDomain` methods (`fft`, `ifft`, ...) add one copy of the
    /// data, as in arkworks.
    pub fn working_memory(&self) -> usize {
        // The AVX2 lane transform (mid sizes) on CPUs with AVX2 (counted
        // with IFMA too: `Kernel::Avx2` may be asked for).
        #[cfg(target_arch = "x86_64")]
        let avx2 = zkaccel_ff::avx2::Avx2::detect().is_some();
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        self.working_memory_with(avx2)
    }

    /// [`NttDomain::working_memory`] for [`Kernel::Lean`] (and
    /// [`NttDomain::transform_lean`]): the same tables and buffers without
    /// the AVX2 lane copy and lane table.
    pub fn working_memory_lean(&self) -> usize {
        self.working_memory_with(false)
    }

    /// The estimate with the AVX2 lane transform counted or not.
    fn working_memory_with(&self, avx2: bool) -> usize {
        let size = core::mem::size_of::<F>();
        // The lane path runs for four-limb fields on CPUs with AVX-512 IFMA.
        #[cfg(target_arch = "x86_64")]
        let lanes = size == 32 && zkaccel_ff::ifma::Ifma::detect().is_some();
        #[cfg(not(target_arch = "x86_64"))]
        let lanes = false;
        crate::transform::working_memory(self.inner.log_size_of_group, size, lanes, avx2)
    }

    /// The ark-poly domain with the same parameters.
    pub fn as_radix2(&self) -> &Radix2EvaluationDomain<F> {
        &self.inner
    }

    /// Wraps an ark-poly radix-2 domain (same size, generator and offset).
    pub fn from_radix2(inner: Radix2EvaluationDomain<F>) -> Self {
        Self { inner }
    }
}

impl<F: MontField> NttDomain<F> {
    /// Transforms every vector of `batch` in place (natural order in and
    /// out), in place. On a coset
    /// domain the coset variants are computed.
    ///
    /// Every vector must have exactly `self.size()` elements.
    pub fn transform_batch(
        &self,
        batch: &mut [Vec<F>],
        direction: Direction,
        kernel: Kernel,
    ) -> Result<(), NttError> {
        let expected = self.size();
        if let Some(v) = batch.iter().find(|v| v.len() != expected) {
            return Err(NttError::LengthMismatch {
                expected,
                got: v.len(),
            });
        }
        let job = self.job(direction);
        let adx = AdxArith::new().filter(|_| F::ADX_MUL);
        let lanes = lanes_available::<F>();
        let avx2 = avx2_available::<F>();
        match (kernel, adx) {
            (Kernel::Ifma, _) if !lanes => return Err(NttError::KernelUnavailable(kernel)),
            (Kernel::Avx2, _) if !avx2 => return Err(NttError::KernelUnavailable(kernel)),
            (Kernel::Adx, None) => return Err(NttError::KernelUnavailable(kernel)),
            (Kernel::Ifma, _) => run_field_lanes(batch, &job),
            (Kernel::Auto | Kernel::Lean, _) if lanes => run_field_lanes(batch, &job),
            (Kernel::Avx2 | Kernel::Auto, Some(adx)) if avx2 => run_field_avx2(&adx, batch, &job),
            (Kernel::Adx | Kernel::Auto | Kernel::Lean, Some(adx)) => {
                run_batch::<F, AdxArith>(&adx, batch, &job)
            }
            (Kernel::Generic, _) => run_batch::<F, Generic<F>>(&Generic::new(), batch, &job),
            _ => run_batch::<F, Portable>(&Portable, batch, &job),
        }
        Ok(())
    }

    /// Transforms one vector in place; see [`NttDomain::transform_batch`].
    pub fn transform(
        &self,
        data: &mut Vec<F>,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<(), NttError> {
        self.transform_batch(core::slice::from_mut(data), direction, kernel)
    }

    /// The fast path for field coefficients, on `kernel` (`Auto` or `Lean`,
    /// which always have a kernel).
    fn run_field(&self, data: &mut Vec<F>, direction: Direction, kernel: Kernel) {
        self.transform(data, direction, kernel)
            .expect("the length is the domain size and Auto and Lean always have a kernel");
    }
}

/// Whether [`Kernel::Ifma`] can run for `F` on this CPU (never off x86-64).
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(clippy::extra_unused_type_parameters)
)]
fn lanes_available<F: MontField>() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        F::ADX_MUL && zkaccel_ff::ifma::Ifma::detect().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether [`Kernel::Avx2`] can run for `F` on this CPU (never off x86-64).
#[cfg_attr(
    not(target_arch = "x86_64"),
    allow(clippy::extra_unused_type_parameters)
)]
fn avx2_available<F: MontField>() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ff::avx2::fits::<F>() && zkaccel_ff::avx2::Avx2::detect().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`Kernel::Avx2`]: the lane whole-array transform where it applies, the
/// ADX kernel for the other sizes. Callers check [`avx2_available`].
fn run_field_avx2<F: MontField>(adx: &AdxArith, batch: &mut [Vec<F>], job: &Job<F>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = zkaccel_ff::avx2::Avx2::detect() {
        if crate::avx2::applies::<F>(job.log_n) {
            for v in batch.iter_mut() {
                crate::avx2::transform(token, adx, v, job);
            }
            return;
        }
    }
    run_batch::<F, AdxArith>(adx, batch, job)
}

/// [`Kernel::Ifma`]: the lane four-step where it applies, the best scalar
/// kernel for the other sizes. Callers check [`lanes_available`].
fn run_field_lanes<F: MontField>(batch: &mut [Vec<F>], job: &Job<F>) {
    #[cfg(target_arch = "x86_64")]
    if let Some(token) = zkaccel_ff::ifma::Ifma::detect() {
        if job.log_n >= LANES_MIN_LOG && crate::ifma::applies::<F>(job.log_n) {
            for v in batch.iter_mut() {
                crate::ifma::four_step(token, v, job);
            }
            return;
        }
    }
    match AdxArith::new().filter(|_| F::ADX_MUL) {
        Some(adx) => run_batch::<F, AdxArith>(&adx, batch, job),
        None => run_batch::<F, Portable>(&Portable, batch, job),
    }
}

impl<F: FftField> NttDomain<F> {
    /// `fft_in_place` (`Forward`) or `ifft_in_place` (`Inverse`), coset
    /// variants on a coset domain, with [`Kernel::Lean`] in place of
    /// [`Kernel::Auto`]: the same results, without the AVX2 lanes' copy of
    /// the data. Pads with zeros (or truncates, as arkworks does) to the
    /// domain size first.
    pub fn transform_lean<T: DomainCoeff<F>>(&self, data: &mut Vec<T>, direction: Direction) {
        self.run_any(data, direction, Kernel::Lean);
    }

    /// Pads with zeros (or truncates, as arkworks does) to the domain size,
    /// then runs the transform for any coefficient type: the limb-arithmetic
    /// kernels when `T` is the field and the field is one zkaccel knows
    /// ([`FAST_FIELDS`]), arkworks' operators otherwise. `kernel` is
    /// [`Kernel::Auto`] or [`Kernel::Lean`].
    fn run_any<T: DomainCoeff<F>>(&self, data: &mut Vec<T>, direction: Direction, kernel: Kernel) {
        data.resize(self.size(), T::zero());
        macro_rules! fast {
            ($field:ty) => {
                if typeid::of::<T>() == typeid::of::<$field>()
                    && typeid::of::<F>() == typeid::of::<$field>()
                {
                    // SAFETY: `T`, `F` and `$field` are the same type.
                    let data = unsafe { &mut *(data as *mut Vec<T>).cast::<Vec<$field>>() };
                    // SAFETY: as above.
                    let inner = unsafe {
                        *(&self.inner as *const Radix2EvaluationDomain<F>)
                            .cast::<Radix2EvaluationDomain<$field>>()
                    };
                    NttDomain::from_radix2(inner).run_field(data, direction, kernel);
                    return;
                }
            };
        }
        fast!(ark_bn254::Fr);
        fast!(ark_bls12_381::Fr);
        let job = self.job(direction);
        run_batch::<F, Generic<T>>(&Generic::new(), core::slice::from_mut(data), &job);
    }
}

/// The fields whose `EvaluationDomain` transforms take the limb-arithmetic
/// kernels (other fields run the same algorithm with arkworks' operators; the
/// explicit [`NttDomain::transform`] API takes any [`MontField`]).
pub const FAST_FIELDS: &[&str] = &["ark_bn254::Fr", "ark_bls12_381::Fr"];

fn run_batch<F: FftField, A: Arith<F>>(ar: &A, batch: &mut [Vec<A::E>], job: &Job<F>) {
    for v in batch.iter_mut() {
        transform::run::<F, A>(ar, v, job);
    }
}

impl<F: FftField> EvaluationDomain<F> for NttDomain<F> {
    type Elements = Elements<F>;

    fn new(num_coeffs: usize) -> Option<Self> {
        // Refuses the sizes ark-poly would overflow on (below).
        Self::compute_size_of_domain(num_coeffs)?;
        Radix2EvaluationDomain::new(num_coeffs).map(Self::from_radix2)
    }

    fn get_coset(&self, offset: F) -> Option<Self> {
        self.inner.get_coset(offset).map(Self::from_radix2)
    }

    fn compute_size_of_domain(num_coeffs: usize) -> Option<usize> {
        // ark-poly 0.6 overflows in `next_power_of_two` (a panic in debug
        // builds) above 2^63; no field has that much two-adicity anyway.
        num_coeffs.checked_next_power_of_two()?;
        Radix2EvaluationDomain::<F>::compute_size_of_domain(num_coeffs)
    }

    fn size(&self) -> usize {
        self.inner.size()
    }

    fn log_size_of_group(&self) -> u64 {
        self.inner.log_size_of_group()
    }

    fn size_inv(&self) -> F {
        self.inner.size_inv
    }

    fn group_gen(&self) -> F {
        self.inner.group_gen
    }

    fn group_gen_inv(&self) -> F {
        self.inner.group_gen_inv
    }

    fn coset_offset(&self) -> F {
        self.inner.offset
    }

    fn coset_offset_inv(&self) -> F {
        self.inner.offset_inv
    }

    fn coset_offset_pow_size(&self) -> F {
        self.inner.offset_pow_size
    }

    /// Pads with zeros (or truncates, as arkworks does) to the domain size,
    /// then evaluates.
    fn fft_in_place<T: DomainCoeff<F>>(&self, coeffs: &mut Vec<T>) {
        self.run_any(coeffs, Direction::Forward, Kernel::Auto);
    }

    /// Pads with zeros (or truncates, as arkworks does) to the domain size,
    /// then interpolates.
    fn ifft_in_place<T: DomainCoeff<F>>(&self, evals: &mut Vec<T>) {
        self.run_any(evals, Direction::Inverse, Kernel::Auto);
    }

    fn elements(&self) -> Elements<F> {
        self.inner.elements()
    }
}

impl<F: FftField> CanonicalSerialize for NttDomain<F> {
    fn serialize_with_mode<W: Write>(
        &self,
        writer: W,
        compress: Compress,
    ) -> Result<(), SerializationError> {
        self.inner.serialize_with_mode(writer, compress)
    }

    fn serialized_size(&self, compress: Compress) -> usize {
        self.inner.serialized_size(compress)
    }
}

impl<F: FftField> Valid for NttDomain<F> {
    fn check(&self) -> Result<(), SerializationError> {
        self.inner.check()
    }
}

impl<F: FftField> CanonicalDeserialize for NttDomain<F> {
    fn deserialize_with_mode<R: Read>(
        reader: R,
        compress: Compress,
        validate: Validate,
    ) -> Result<Self, SerializationError> {
        Radix2EvaluationDomain::deserialize_with_mode(reader, compress, validate)
            .map(Self::from_radix2)
    }
}

/// The smallest transform the lane four-step takes: from 2^9 it beats the
/// in-cache ADX kernel, at 2^8 its packing and transposes cost more than
/// the eight-wide arithmetic saves (the crossover is docs/ntt.md's).
#[cfg(target_arch = "x86_64")]
const LANES_MIN_LOG: u32 = 9;
