//! [`AccelPairing`]: the pairings whose groups zkaccel's MSM can run.

use ark_ec::pairing::Pairing;
use ark_ec::short_weierstrass::{Affine, Projective};
use zkaccel_cpu::{CurveMul, MontBytes};

use zkaccel_ntt::{NttDomain, QuotientForm};

/// The witness map's transforms run elsewhere (the GPU): `(domain, coset,
/// [a, b, c], form)`, the evaluations of `a`, `b`, `c` on `domain`, to `h`
/// in `form`: the coefficients of `h = (a b - c) / Z` (interpolate each,
/// evaluate on the coset, combine, interpolate from the coset), or circom's
/// `a b - c` on the coset; the data kept on the device between the
/// transforms.
pub type QuotientOffloadFn<F> = dyn Fn(
        &NttDomain<F>,
        &NttDomain<F>,
        [Vec<F>; 3],
        QuotientForm,
    ) -> Result<Vec<F>, zkaccel_ntt::NttError>
    + Send
    + Sync;

/// Groth16's quotient and the H MSM run together elsewhere (the GPU), with
/// `h` kept there between the two: `(domain, coset, [a, b, c], h_query,
/// form)`, the evaluations of `a`, `b`, `c` on `domain` as for
/// [`QuotientOffloadFn`], to `sum_i h_i H_i` over the first
/// `h_query.len()` values of `h`.
pub type QuotientMsmFn<F, G1Affine, G1> = dyn Fn(
        &NttDomain<F>,
        &NttDomain<F>,
        [Vec<F>; 3],
        &[G1Affine],
        QuotientForm,
    ) -> Result<G1, zkaccel_cpu::MsmError>
    + Send
    + Sync;

/// G1 bases held on an accelerator across proofs (one query of a proving
/// key, uploaded once by [`crate::ResidentKey::upload`]): each MSM moves
/// only its scalars.
pub trait ResidentBases<E: AccelPairing>: Send + Sync {
    /// How many bases.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `sum_i scalars[i] * bases[i]` over the first `scalars.len()` bases
    /// (at most [`ResidentBases::len`]).
    fn msm(&self, scalars: &[E::ScalarField]) -> Result<E::G1, zkaccel_cpu::MsmError>;
    /// Groth16's quotient in `form` from the evaluations `abc` on `domain`
    /// (as [`QuotientOffloadFn`]) and `sum_i h_i B_i` over these bases, `h`
    /// kept on the device between the two.
    fn quotient_msm(
        &self,
        domain: &NttDomain<E::ScalarField>,
        coset: &NttDomain<E::ScalarField>,
        abc: [Vec<E::ScalarField>; 3],
        form: QuotientForm,
    ) -> Result<E::G1, zkaccel_cpu::MsmError>;
}

/// [`QuotientMsmFn`] for a pairing's types.
pub type PairingQuotientMsmFn<E> = QuotientMsmFn<
    <E as Pairing>::ScalarField,
    Affine<<E as AccelPairing>::G1Config>,
    <E as Pairing>::G1,
>;

/// A pairing-friendly curve whose G1 and G2 are short-Weierstrass groups
/// zkaccel accelerates. The conversions are identities (the arkworks types
/// are the same); they exist because Rust cannot yet state that equality as
/// a bound.
pub trait AccelPairing: Pairing {
    /// The G1 curve configuration.
    type G1Config: CurveMul<ScalarField = Self::ScalarField, BaseField: MontBytes>;
    /// The G2 curve configuration.
    type G2Config: CurveMul<ScalarField = Self::ScalarField, BaseField: MontBytes>;
    /// G1 bases as zkaccel's type.
    fn g1_bases(b: &[Self::G1Affine]) -> &[Affine<Self::G1Config>];
    /// A zkaccel G1 result as arkworks' type.
    fn g1_result(p: Projective<Self::G1Config>) -> Self::G1;
    /// A zkaccel G1 point as arkworks' type.
    fn g1_affine(p: Affine<Self::G1Config>) -> Self::G1Affine;
    /// G2 bases as zkaccel's type.
    fn g2_bases(b: &[Self::G2Affine]) -> &[Affine<Self::G2Config>];
    /// A zkaccel G2 result as arkworks' type.
    fn g2_result(p: Projective<Self::G2Config>) -> Self::G2;
    /// A zkaccel G2 point as arkworks' type.
    fn g2_affine(p: Affine<Self::G2Config>) -> Self::G2Affine;
    /// The GPU's NTT for this pairing's scalar field, where zkaccel-cuda has
    /// kernels for it (BN254 Fr); `None` keeps the CPU.
    #[cfg(feature = "cuda")]
    fn cuda_ntt(
        _ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
    ) -> Option<Box<QuotientOffloadFn<Self::ScalarField>>> {
        None
    }
    /// The GPU's G1 MSM for this pairing, where zkaccel-cuda has kernels for
    /// its G1 (BN254); `None` keeps the CPU.
    #[cfg(feature = "cuda")]
    fn cuda_g1(
        _ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
    ) -> Option<Box<dyn zkaccel_cpu::MsmProvider<Self::G1Config>>> {
        None
    }
    /// The GPU's quotient and H MSM with `h` kept on the device, where
    /// zkaccel-cuda has kernels for both (BN254); `None` runs them apart.
    #[cfg(feature = "cuda")]
    fn cuda_quotient_msm(
        _ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
    ) -> Option<Box<PairingQuotientMsmFn<Self>>> {
        None
    }
    /// `bases` uploaded to the GPU for MSMs across proofs, where
    /// zkaccel-cuda has kernels for this G1 (BN254): `None` elsewhere,
    /// `Some(Err(..))` when the upload fails.
    #[cfg(feature = "cuda")]
    fn cuda_resident(
        _ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
        _bases: &[Affine<Self::G1Config>],
    ) -> Option<Result<Box<dyn ResidentBases<Self>>, zkaccel_cpu::MsmError>> {
        None
    }
}

macro_rules! accel_pairing {
    ($pairing:ty, $g1:ty, $g2:ty $(, $gpu:item)*) => {
        impl AccelPairing for $pairing {
            $($gpu)*
            type G1Config = $g1;
            type G2Config = $g2;
            fn g1_bases(b: &[Self::G1Affine]) -> &[Affine<$g1>] {
                b
            }
            fn g1_result(p: Projective<$g1>) -> Self::G1 {
                p
            }
            fn g1_affine(p: Affine<$g1>) -> Self::G1Affine {
                p
            }
            fn g2_bases(b: &[Self::G2Affine]) -> &[Affine<$g2>] {
                b
            }
            fn g2_result(p: Projective<$g2>) -> Self::G2 {
                p
            }
            fn g2_affine(p: Affine<$g2>) -> Self::G2Affine {
                p
            }
        }
    };
}

accel_pairing!(
    ark_bn254::Bn254,
    ark_bn254::g1::Config,
    ark_bn254::g2::Config,
    #[cfg(feature = "cuda")]
    fn cuda_g1(
        ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
    ) -> Option<Box<dyn zkaccel_cpu::MsmProvider<ark_bn254::g1::Config>>> {
        Some(Box::new(zkaccel_cuda::CudaMsm::with_context(ctx)))
    },
    #[cfg(feature = "cuda")]
    fn cuda_ntt(
        ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
    ) -> Option<Box<QuotientOffloadFn<ark_bn254::Fr>>> {
        let p = zkaccel_cuda::CudaNtt::with_context(ctx);
        Some(Box::new(move |d, c, abc, form| {
            p.quotient_in(d, c, abc, form)
        }))
    },
    #[cfg(feature = "cuda")]
    fn cuda_quotient_msm(
        ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
    ) -> Option<Box<PairingQuotientMsmFn<Self>>> {
        let m = zkaccel_cuda::CudaMsm::with_context(ctx);
        Some(Box::new(move |d, c, abc, bases, form| {
            m.quotient_msm_in(d, c, abc, bases, form)
        }))
    },
    #[cfg(feature = "cuda")]
    fn cuda_resident(
        ctx: std::sync::Arc<zkaccel_cuda::CudaContext>,
        bases: &[ark_bn254::G1Affine],
    ) -> Option<Result<Box<dyn ResidentBases<Self>>, zkaccel_cpu::MsmError>> {
        let m = zkaccel_cuda::CudaMsm::with_context(ctx);
        Some(
            m.upload(bases)
                .map(|b| Box::new(GpuBases { msm: m, bases: b }) as Box<dyn ResidentBases<Self>>),
        )
    }
);

/// BN254 G1 bases on the GPU ([`AccelPairing::cuda_resident`]).
#[cfg(feature = "cuda")]
struct GpuBases {
    msm: zkaccel_cuda::CudaMsm,
    bases: zkaccel_cuda::DeviceBases,
}

#[cfg(feature = "cuda")]
impl ResidentBases<ark_bn254::Bn254> for GpuBases {
    fn len(&self) -> usize {
        self.bases.len()
    }
    fn msm(
        &self,
        scalars: &[ark_bn254::Fr],
    ) -> Result<ark_bn254::G1Projective, zkaccel_cpu::MsmError> {
        self.msm.msm_resident(&self.bases, scalars)
    }
    fn quotient_msm(
        &self,
        domain: &NttDomain<ark_bn254::Fr>,
        coset: &NttDomain<ark_bn254::Fr>,
        abc: [Vec<ark_bn254::Fr>; 3],
        form: QuotientForm,
    ) -> Result<ark_bn254::G1Projective, zkaccel_cpu::MsmError> {
        self.bases.quotient_msm_in(domain, coset, abc, form)
    }
}
accel_pairing!(
    ark_bls12_381::Bls12_381,
    ark_bls12_381::g1::Config,
    ark_bls12_381::g2::Config
);
