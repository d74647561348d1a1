//! [`Groth16`]: ark-groth16's keys and proofs, zkaccel's MSM and NTT.

use crate::clock::Stopwatch;
use ark_ec::CurveGroup;
use ark_ff::{UniformRand, Zero};
use ark_groth16::{PreparedVerifyingKey, Proof, ProvingKey, VerifyingKey};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, OptimizationGoal, SynthesisError,
    SynthesisMode, R1CS_PREDICATE_LABEL,
};
use ark_snark::{CircuitSpecificSetupSNARK, SNARK};
use ark_std::rand::{CryptoRng, RngCore};
use core::marker::PhantomData;
use std::time::Duration;

use crate::backend::{self, Auto, BackendChoice};
use crate::error::Groth16Error;
use crate::matrix::ConstraintMatrix;
use crate::pairing::{AccelPairing, ResidentBases};
use crate::reduction::{NttReduction, Qap};
use ark_ec::short_weierstrass::Affine;
use zkaccel_cpu::{BaseSlice, PreparedBases};

/// Groth16 with ark-groth16's own key, proof and verifying-key types, proving
/// with zkaccel's MSM (A, B in G1 and G2, C's L and H terms) and NTT (the
/// witness map through [`NttReduction`]).
///
/// With the same RNG, proofs are byte-identical to
/// `ark_groth16::Groth16::<E>::prove`'s; setup and verification are
/// ark-groth16's. `B` picks the backend ([`crate::backend`]).
pub struct Groth16<E: AccelPairing, B: BackendChoice = Auto> {
    _p: PhantomData<(E, B)>,
}

/// Wall-clock time of each prover phase (for reports; not used by the
/// prover itself). All zero on `wasm32-unknown-unknown`, which has no clock
/// ([`crate::clock::Stopwatch`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProofTimings {
    /// Circuit synthesis and matrix construction.
    pub synthesis: Duration,
    /// R1CS-to-QAP witness map (the seven NTTs and the constraint sums;
    /// where the GPU runs the quotient fused with the H MSM, the constraint
    /// sums only, the NTTs counting in `msm_h`).
    pub witness_map: Duration,
    /// MSM of the A query (G1).
    pub msm_a: Duration,
    /// MSM of the B query in G1.
    pub msm_b_g1: Duration,
    /// MSM of the B query in G2.
    pub msm_b_g2: Duration,
    /// MSM of the L query (G1).
    pub msm_l: Duration,
    /// MSM of the H query (G1; with the GPU's fused quotient, the quotient's
    /// transforms too).
    pub msm_h: Duration,
    /// The whole proof.
    pub total: Duration,
    /// Whether the quotient's transforms ran fused with the H MSM on the GPU
    /// (then counted in `msm_h`, not in `witness_map`).
    pub quotient_in_msm_h: bool,
    /// Whether the G1 MSMs ran on the GPU beside the CPU's work (A, B1 and L
    /// during the witness map, H during the G2 MSM): the phases then
    /// overlap and add up to more than `total`.
    pub overlapped: bool,
}

/// Runs `f`, adding its wall-clock time to `slot`.
fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Stopwatch::start();
    let r = f();
    *slot += t.elapsed();
    r
}

/// The H query length from which the quotient and the H MSM run fused on the
/// GPU (where the backend offers it): zkaccel-cuda's `GPU_MIN_TERMS`, below
/// which its MSM runs on the CPU.
const FUSED_MIN_TERMS: usize = 1024;

/// What the backend runs instead of zkaccel's CPU code: the G1 MSMs, the
/// witness map's quotient, and the quotient fused with the H MSM.
struct Offloads<E: AccelPairing> {
    g1: Option<Box<dyn zkaccel_cpu::MsmProvider<E::G1Config>>>,
    ntt: Option<Box<crate::pairing::QuotientOffloadFn<E::ScalarField>>>,
    quotient_msm: Option<Box<crate::pairing::PairingQuotientMsmFn<E>>>,
}

impl<E: AccelPairing> Offloads<E> {
    /// Everything on the CPU.
    fn none() -> Self {
        Offloads {
            g1: None,
            ntt: None,
            quotient_msm: None,
        }
    }
}

/// A proving key by reference: ark-groth16's [`ProvingKey`] with its point
/// vectors borrowed, so the points can lie where the caller keeps them
/// (zkaccel-circom proves from a snarkjs zkey's points in place, in the
/// memory-mapped file, as slices where a section is aligned for arkworks'
/// `Affine` and as [`PackedBases`](zkaccel_cpu::PackedBases) where it is
/// not). `ProvingKeyRef::from(&pk)` borrows an arkworks key.
pub struct ProvingKeyRef<'a, E: AccelPairing> {
    /// The verifying key (`alpha_g1`, `beta_g2`, `gamma_g2`, `delta_g2`,
    /// `gamma_abc_g1`).
    pub vk: &'a VerifyingKey<E>,
    /// `beta` in G1.
    pub beta_g1: E::G1Affine,
    /// `delta` in G1.
    pub delta_g1: E::G1Affine,
    /// The A query (one point per variable).
    pub a_query: BaseSlice<'a, E::G1Config>,
    /// The B query in G1.
    pub b_g1_query: BaseSlice<'a, E::G1Config>,
    /// The B query in G2.
    pub b_g2_query: BaseSlice<'a, E::G2Config>,
    /// The H query.
    pub h_query: BaseSlice<'a, E::G1Config>,
    /// The L query (one point per witness variable).
    pub l_query: BaseSlice<'a, E::G1Config>,
    /// The G1 queries kept in GPU memory ([`ResidentKey`]), if any: the
    /// A, B1, L and H MSMs then run on them (on the GPU, whatever the
    /// backend), moving only their scalars.
    pub resident: Option<&'a ResidentKey<E>>,
}

impl<E: AccelPairing> Clone for ProvingKeyRef<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E: AccelPairing> Copy for ProvingKeyRef<'_, E> {}

impl<'a, E: AccelPairing> From<&'a ProvingKey<E>> for ProvingKeyRef<'a, E> {
    fn from(pk: &'a ProvingKey<E>) -> Self {
        ProvingKeyRef {
            vk: &pk.vk,
            beta_g1: pk.beta_g1,
            delta_g1: pk.delta_g1,
            a_query: BaseSlice::Affine(E::g1_bases(&pk.a_query)),
            b_g1_query: BaseSlice::Affine(E::g1_bases(&pk.b_g1_query)),
            b_g2_query: BaseSlice::Affine(E::g2_bases(&pk.b_g2_query)),
            h_query: BaseSlice::Affine(E::g1_bases(&pk.h_query)),
            l_query: BaseSlice::Affine(E::g1_bases(&pk.l_query)),
            resident: None,
        }
    }
}

/// A proving key's four G1 queries (A and B1 without their first point, L,
/// H) uploaded once to the GPU and kept there across proofs: each proof's
/// A, B1, L and H MSMs then move only their scalars, and the H MSM runs on
/// the quotient where the device computed it. Give it to the prover through
/// [`ProvingKeyRef::resident`]. Built by [`ResidentKey::upload`] (BN254
/// with the feature `cuda` and a GPU); freed when dropped.
pub struct ResidentKey<E: AccelPairing> {
    a: Box<dyn ResidentBases<E>>,
    b_g1: Box<dyn ResidentBases<E>>,
    l: Box<dyn ResidentBases<E>>,
    h: Box<dyn ResidentBases<E>>,
    device: String,
}

impl<E: AccelPairing> std::fmt::Debug for ResidentKey<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResidentKey")
            .field("device", &self.device)
            .field("a", &self.a.len())
            .field("b_g1", &self.b_g1.len())
            .field("l", &self.l.len())
            .field("h", &self.h.len())
            .finish()
    }
}

impl<E: AccelPairing> ResidentKey<E> {
    /// Uploads `pk`'s G1 queries to the GPU that `backend` resolves to
    /// (as a proof would resolve it): `Ok(None)` where that is the CPU or
    /// zkaccel has no GPU kernels for this curve; an error where the GPU is
    /// asked for ([`Backend::Cuda`](crate::Backend::Cuda)) and unusable, or
    /// the upload fails (out of device memory, say).
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    pub fn upload(
        pk: ProvingKeyRef<'_, E>,
        backend: crate::Backend,
    ) -> Result<Option<Self>, Groth16Error> {
        let resolved = backend::resolve(backend).map_err(Groth16Error::BackendUnavailable)?;
        match resolved {
            backend::Resolved::Cpu => Ok(None),
            #[cfg(feature = "cuda")]
            backend::Resolved::Cuda(ctx) => {
                let up = |q: BaseSlice<'_, E::G1Config>| {
                    E::cuda_resident(ctx.clone(), &q.to_affine()).transpose()
                };
                let (Some(a), Some(b_g1), Some(l), Some(h)) = (
                    up(pk.a_query.skip(1))?,
                    up(pk.b_g1_query.skip(1))?,
                    up(pk.l_query)?,
                    up(pk.h_query)?,
                ) else {
                    return Ok(None);
                };
                Ok(Some(ResidentKey {
                    a,
                    b_g1,
                    l,
                    h,
                    device: ctx.name().to_string(),
                }))
            }
        }
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Checks that the queries were uploaded from a key of these lengths.
    fn check(&self, pk: &ProvingKeyRef<'_, E>) -> Result<(), Groth16Error> {
        let skip1 = |n: usize| n.saturating_sub(1);
        check_len("resident a_query", skip1(pk.a_query.len()), self.a.len())?;
        check_len(
            "resident b_g1_query",
            skip1(pk.b_g1_query.len()),
            self.b_g1.len(),
        )?;
        check_len("resident l_query", pk.l_query.len(), self.l.len())?;
        check_len("resident h_query", pk.h_query.len(), self.h.len())
    }
}

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), Groth16Error> {
    if expected == got {
        Ok(())
    } else {
        Err(Groth16Error::KeyMismatch {
            what,
            expected,
            got,
        })
    }
}

impl<E: AccelPairing, B: BackendChoice> Groth16<E, B> {
    /// Synthesises `circuit` in proving mode.
    fn synthesize<C: ConstraintSynthesizer<E::ScalarField>>(
        circuit: C,
    ) -> Result<ConstraintSystemRef<E::ScalarField>, Groth16Error> {
        let cs = ConstraintSystem::new_ref();
        cs.set_optimization_goal(OptimizationGoal::Constraints);
        cs.set_mode(SynthesisMode::Prove {
            construct_matrices: true,
            generate_lc_assignments: false,
        });
        circuit.generate_constraints(cs.clone())?;
        cs.finalize();
        // Satisfiability is checked in the witness map, where the constraint
        // sums are computed anyway.
        Ok(cs)
    }

    /// A proof with the prover randomness `r`, `s` (as ark-groth16's
    /// `create_proof_with_reduction`), and the time of each phase.
    pub fn create_proof<C: ConstraintSynthesizer<E::ScalarField>>(
        pk: &ProvingKey<E>,
        circuit: C,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Self::create_proof_from(pk, None, circuit, r, s)
    }

    /// [`Groth16::create_proof`] on a [`PreparedProvingKey`]: the same proof,
    /// with the MSMs on precomputed shifted bases.
    pub fn create_proof_prepared<C: ConstraintSynthesizer<E::ScalarField>>(
        ppk: &PreparedProvingKey<E>,
        circuit: C,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Self::create_proof_from(&ppk.pk, Some(ppk), circuit, r, s)
    }

    /// [`SNARK::prove`] on a [`PreparedProvingKey`], with the time of each
    /// phase: the same randomness draws, the same proof.
    pub fn prove_prepared<C: ConstraintSynthesizer<E::ScalarField>, R: RngCore>(
        ppk: &PreparedProvingKey<E>,
        circuit: C,
        rng: &mut R,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        let r = E::ScalarField::rand(rng);
        let s = E::ScalarField::rand(rng);
        Self::create_proof_prepared(ppk, circuit, r, s)
    }

    fn create_proof_from<C: ConstraintSynthesizer<E::ScalarField>>(
        pk: &ProvingKey<E>,
        prepared: Option<&PreparedProvingKey<E>>,
        circuit: C,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        let offloads = Self::offloads()?;
        Self::prove_with_offloads(pk, prepared, circuit, r, s, &offloads)
    }

    /// The backend's offloads for one proof.
    fn offloads() -> Result<Offloads<E>, Groth16Error> {
        let resolved = backend::resolve(B::BACKEND).map_err(Groth16Error::BackendUnavailable)?;
        Ok(match &resolved {
            backend::Resolved::Cpu => Offloads::none(),
            #[cfg(feature = "cuda")]
            backend::Resolved::Cuda(ctx) => Offloads {
                // The GPU's G1 MSM where the backend and the curve have one,
                g1: E::cuda_g1(ctx.clone()),
                // its NTT for the witness map,
                ntt: E::cuda_ntt(ctx.clone()),
                // and both, with h kept on the device.
                quotient_msm: E::cuda_quotient_msm(ctx.clone()),
            },
        })
    }

    fn prove_with_offloads<C: ConstraintSynthesizer<E::ScalarField>>(
        pk: &ProvingKey<E>,
        prepared: Option<&PreparedProvingKey<E>>,
        circuit: C,
        r: E::ScalarField,
        s: E::ScalarField,
        offloads: &Offloads<E>,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        let start = Stopwatch::start();
        let mut synthesis = Duration::ZERO;
        let cs = timed(&mut synthesis, || Self::synthesize(circuit))?;
        let matrices = &cs.to_matrices()?[R1CS_PREDICATE_LABEL];
        let full = [cs.instance_assignment()?, cs.witness_assignment()?].concat();
        let (proof, mut t) = Self::prove_matrices(
            pk.into(),
            prepared,
            Qap::Libsnark,
            matrices,
            cs.num_instance_variables(),
            cs.num_constraints(),
            &full,
            r,
            s,
            offloads,
        )?;
        t.synthesis = synthesis;
        t.total = start.elapsed();
        Ok((proof, t))
    }

    /// A proof from the constraint matrices and the full assignment, with no
    /// circuit synthesis (as ark-groth16's
    /// `create_proof_with_reduction_and_matrices`), for a key made for the
    /// reduction `qap` ([`Qap::Libsnark`] for ark-groth16's keys,
    /// [`Qap::Circom`] for snarkjs keys); with the prover randomness `r`,
    /// `s`, and the time of each phase.
    ///
    /// `matrices` are A, B, C (for [`Qap::Circom`], C may be absent or
    /// empty, as in ark-circom's matrices: it is taken as `A z * B z`); each
    /// has at least `num_constraints` rows. `full_assignment` is the
    /// instance (with the leading one) followed by the witness, its first
    /// `num_inputs` values the instance.
    ///
    /// The result is byte-identical to ark-groth16's
    /// `create_proof_with_reduction_and_matrices` with [`NttReduction`]
    /// (libsnark) or [`crate::CircomReduction`] (circom) for the same `r`,
    /// `s`. Errors, never a panic: a key of another length
    /// ([`Groth16Error::KeyMismatch`]), a variable index outside the
    /// assignment or too few matrices or rows ([`Groth16Error::Synthesis`]),
    /// and, where C is given, an unsatisfied constraint.
    #[allow(clippy::too_many_arguments)]
    pub fn create_proof_with_matrices<M: ConstraintMatrix<E::ScalarField>>(
        pk: &ProvingKey<E>,
        qap: Qap,
        matrices: &[M],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[E::ScalarField],
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Self::create_proof_with_key_ref(
            pk.into(),
            qap,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            r,
            s,
        )
    }

    /// [`Groth16::create_proof_with_matrices`] on a borrowed key
    /// ([`ProvingKeyRef`]: the points wherever the caller keeps them).
    #[allow(clippy::too_many_arguments)]
    pub fn create_proof_with_key_ref<M: ConstraintMatrix<E::ScalarField>>(
        pk: ProvingKeyRef<'_, E>,
        qap: Qap,
        matrices: &[M],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[E::ScalarField],
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Self::prove_matrices(
            pk,
            None,
            qap,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            r,
            s,
            &Self::offloads()?,
        )
    }

    /// [`Groth16::create_proof_with_matrices`] on a [`PreparedProvingKey`].
    #[allow(clippy::too_many_arguments)]
    pub fn create_proof_with_matrices_prepared<M: ConstraintMatrix<E::ScalarField>>(
        ppk: &PreparedProvingKey<E>,
        qap: Qap,
        matrices: &[M],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[E::ScalarField],
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Self::prove_matrices(
            (&ppk.pk).into(),
            Some(ppk),
            qap,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            r,
            s,
            &Self::offloads()?,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn prove_matrices<M: ConstraintMatrix<E::ScalarField>>(
        pk: ProvingKeyRef<'_, E>,
        prepared: Option<&PreparedProvingKey<E>>,
        qap: Qap,
        matrices: &[M],
        num_inputs: usize,
        num_constraints: usize,
        full: &[E::ScalarField],
        r: E::ScalarField,
        s: E::ScalarField,
        offloads: &Offloads<E>,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        let gpu_g1 = &offloads.g1;
        let start = Stopwatch::start();
        let mut t = ProofTimings::default();

        // The key must be this circuit's: every query length is fixed by it.
        let num_vars = full.len();
        let witness_len = num_vars
            .checked_sub(num_inputs)
            .ok_or(Groth16Error::KeyMismatch {
                what: "full assignment (shorter than the instance)",
                expected: num_inputs,
                got: num_vars,
            })?;
        if num_inputs == 0 {
            return Err(Groth16Error::KeyMismatch {
                what: "instance (the leading one)",
                expected: 1,
                got: 0,
            });
        }
        check_len("a_query", num_vars, pk.a_query.len())?;
        check_len("b_g1_query", num_vars, pk.b_g1_query.len())?;
        check_len("b_g2_query", num_vars, pk.b_g2_query.len())?;
        check_len("l_query", witness_len, pk.l_query.len())?;
        check_len("vk.gamma_abc_g1", num_inputs, pk.vk.gamma_abc_g1.len())?;
        let domain_size = num_constraints
            .checked_add(num_inputs)
            .and_then(usize::checked_next_power_of_two)
            .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        check_len("h_query", qap.h_query_len(domain_size), pk.h_query.len())?;

        if let Some(res) = pk.resident {
            res.check(&pk)?;
        }

        let map_error = |e| match e {
            crate::reduction::MapError::Synthesis(e) => Groth16Error::from(e),
            crate::reduction::MapError::Offload(e) => Groth16Error::Ntt(e),
        };
        let evaluate = || {
            crate::reduction::evaluations::<E::ScalarField, M>(
                qap,
                matrices,
                num_inputs,
                num_constraints,
                full,
                true,
            )
            .map_err(map_error)
        };
        let assignment = &full[1..];
        let witness = &full[num_inputs..];
        let resident = pk.resident;

        // Each G1 MSM on the key's resident bases, on its prepared copies,
        // on the backend's MSM, or on the CPU.
        let g1 = |bases: BaseSlice<'_, E::G1Config>,
                  on_device: Option<&dyn ResidentBases<E>>,
                  prep: Option<&PreparedBases<E::G1Config>>,
                  scalars: &[E::ScalarField]|
         -> Result<E::G1, Groth16Error> {
            Ok(match (on_device, prep, gpu_g1) {
                (Some(d), _, _) => d.msm(scalars)?,
                (None, Some(p), _) => E::g1_result(p.msm(scalars)?),
                (None, None, Some(gpu)) => E::g1_result(gpu.msm(&bases.to_affine(), scalars)?),
                (None, None, None) => E::g1_result(bases.msm(scalars)?),
            })
        };
        let g2 = |bases: BaseSlice<'_, E::G2Config>, scalars: &[E::ScalarField]| {
            match prepared {
                Some(p) => p.b_g2.msm(scalars),
                None => bases.msm(scalars),
            }
            .map(E::g2_result)
        };
        let prep = |f: fn(&PreparedProvingKey<E>) -> &PreparedBases<E::G1Config>| prepared.map(f);
        let dev = |f: fn(&ResidentKey<E>) -> &dyn ResidentBases<E>| resident.map(f);

        // The quotient and the H MSM: together where the device keeps h
        // (resident bases, or the backend's fused job on libsnark and
        // circom keys with the H query large enough for the GPU, no
        // prepared bases on the CPU), else h first, then its MSM.
        let quotient_and_h = |evaluated: crate::reduction::Evaluated<E::ScalarField>,
                              t: &mut ProofTimings|
         -> Result<E::G1, Groth16Error> {
            let form = evaluated.offload_form();
            let fused_backend = offloads
                .quotient_msm
                .as_deref()
                .zip(pk.h_query.as_affine())
                .filter(|_| prepared.is_none() && pk.h_query.len() >= FUSED_MIN_TERMS);
            match (evaluated, form, resident, fused_backend) {
                (
                    crate::reduction::Evaluated::OnDomain {
                        domain, coset, abc, ..
                    },
                    Some(form),
                    Some(res),
                    _,
                ) => {
                    t.quotient_in_msm_h = true;
                    timed(&mut t.msm_h, || {
                        res.h.quotient_msm(&domain, &coset, abc, form)
                    })
                    .map_err(Groth16Error::from)
                }
                (
                    crate::reduction::Evaluated::OnDomain {
                        domain, coset, abc, ..
                    },
                    Some(form),
                    None,
                    Some((quotient_msm, h_query)),
                ) => {
                    t.quotient_in_msm_h = true;
                    timed(&mut t.msm_h, || {
                        quotient_msm(&domain, &coset, abc, h_query, form)
                    })
                    .map_err(Groth16Error::from)
                }
                (evaluated, ..) => {
                    let h = timed(&mut t.witness_map, || {
                        evaluated.quotient(offloads.ntt.as_deref())
                    })
                    .map_err(map_error)?;
                    timed(&mut t.msm_h, || {
                        g1(
                            pk.h_query,
                            dev(|r| &*r.h),
                            prep(|p| &p.h),
                            &h[..pk.h_query.len()],
                        )
                    })
                }
            }
        };
        // L, A and B1 (their sums without the key's constant terms).
        let l_a_b1 = |t: &mut ProofTimings| -> Result<[E::G1; 3], Groth16Error> {
            let l = timed(&mut t.msm_l, || {
                g1(pk.l_query, dev(|r| &*r.l), prep(|p| &p.l), witness)
            })?;
            let a = timed(&mut t.msm_a, || {
                g1(
                    pk.a_query.skip(1),
                    dev(|r| &*r.a),
                    prep(|p| &p.a),
                    assignment,
                )
            })?;
            let b1 = if r.is_zero() {
                E::G1::zero()
            } else {
                timed(&mut t.msm_b_g1, || {
                    g1(
                        pk.b_g1_query.skip(1),
                        dev(|r| &*r.b_g1),
                        prep(|p| &p.b_g1),
                        assignment,
                    )
                })?
            };
            Ok([l, a, b1])
        };
        let b2 =
            |t: &mut ProofTimings| timed(&mut t.msm_b_g2, || g2(pk.b_g2_query.skip(1), assignment));

        // With the G1 MSMs on the GPU, the device works beside the CPU: L,
        // A and B1 during the witness map's constraint sums, H (with the
        // quotient) during the G2 MSM. Otherwise one after the other.
        let g1_on_gpu = prepared.is_none() && (resident.is_some() || gpu_g1.is_some());
        let (h_acc, [l_aux_acc, a_acc, b1_acc], b2_acc) = if g1_on_gpu {
            t.overlapped = true;
            let (mut t_gpu, mut t_h) = (ProofTimings::default(), ProofTimings::default());
            fn join<T>(j: std::thread::ScopedJoinHandle<'_, T>) -> T {
                j.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
            }
            let (lab, h, b2_acc) = std::thread::scope(|scope| {
                let lab = scope.spawn(|| l_a_b1(&mut t_gpu));
                let evaluated = timed(&mut t.witness_map, evaluate);
                let t_h = &mut t_h;
                let h = evaluated.map(|e| scope.spawn(move || quotient_and_h(e, t_h)));
                let b2_acc = b2(&mut t);
                (join(lab), h.and_then(join), b2_acc)
            });
            t.witness_map += t_h.witness_map;
            t.msm_h = t_h.msm_h;
            t.quotient_in_msm_h = t_h.quotient_in_msm_h;
            (t.msm_l, t.msm_a, t.msm_b_g1) = (t_gpu.msm_l, t_gpu.msm_a, t_gpu.msm_b_g1);
            (h?, lab?, b2_acc?)
        } else {
            let evaluated = timed(&mut t.witness_map, evaluate)?;
            let h = quotient_and_h(evaluated, &mut t)?;
            let lab = l_a_b1(&mut t)?;
            (h, lab, b2(&mut t)?)
        };

        // The first point of a query (the instance's leading one).
        fn first<P: zkaccel_cpu::CurveMul>(
            q: BaseSlice<'_, P>,
            what: &'static str,
        ) -> Result<Affine<P>, Groth16Error>
        where
            P::BaseField: zkaccel_cpu::MontBytes,
        {
            q.get(0).ok_or(Groth16Error::KeyMismatch {
                what,
                expected: 1,
                got: 0,
            })
        }
        let r_s_delta_g1 = pk.delta_g1 * (r * s);
        let g_a = {
            let a0 = E::g1_result(first(pk.a_query, "a_query")?.into());
            pk.delta_g1 * r + a0 + a_acc + pk.vk.alpha_g1
        };
        let s_g_a = g_a * s;
        let g1_b = if r.is_zero() {
            E::G1::zero()
        } else {
            let b0 = E::g1_result(first(pk.b_g1_query, "b_g1_query")?.into());
            pk.delta_g1 * s + b0 + b1_acc + pk.beta_g1
        };
        let g2_b = {
            let b0 = E::g2_result(first(pk.b_g2_query, "b_g2_query")?.into());
            pk.vk.delta_g2 * s + b0 + b2_acc + pk.vk.beta_g2
        };
        let r_g1_b = g1_b * r;

        let g_c = s_g_a + r_g1_b - r_s_delta_g1 + l_aux_acc + h_acc;
        t.total = start.elapsed();
        Ok((
            Proof {
                a: g_a.into_affine(),
                b: g2_b.into_affine(),
                c: g_c.into_affine(),
            },
            t,
        ))
    }

    /// [`SNARK::prove`] with the time of each phase.
    pub fn prove_with_timings<C: ConstraintSynthesizer<E::ScalarField>, R: RngCore>(
        pk: &ProvingKey<E>,
        circuit: C,
        rng: &mut R,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        // Same draws, in the same order, as ark-groth16's prover.
        let r = E::ScalarField::rand(rng);
        let s = E::ScalarField::rand(rng);
        Self::create_proof(pk, circuit, r, s)
    }
}

/// A proving key with precomputed shifted copies of the bases of its five
/// MSMs ([`PreparedBases`]): built once, reused for many proofs, with the
/// same proofs as the plain key. The copies cost memory
/// ([`PreparedProvingKey::extra_memory_bytes`]: about 16 copies of every
/// query at BN254 sizes) and about one doubling per scalar bit per base to
/// build.
pub struct PreparedProvingKey<E: AccelPairing> {
    pk: ProvingKey<E>,
    a: PreparedBases<E::G1Config>,
    b_g1: PreparedBases<E::G1Config>,
    b_g2: PreparedBases<E::G2Config>,
    l: PreparedBases<E::G1Config>,
    h: PreparedBases<E::G1Config>,
}

impl<E: AccelPairing> PreparedProvingKey<E> {
    /// Precomputes the shifted bases of `pk`'s A, B (G1 and G2), L and H
    /// queries.
    pub fn new(pk: ProvingKey<E>) -> Self {
        let g1 = |q: &[E::G1Affine]| PreparedBases::new(E::g1_bases(q));
        Self {
            a: g1(pk.a_query.get(1..).unwrap_or(&[])),
            b_g1: g1(pk.b_g1_query.get(1..).unwrap_or(&[])),
            b_g2: PreparedBases::new(E::g2_bases(pk.b_g2_query.get(1..).unwrap_or(&[]))),
            l: g1(&pk.l_query),
            h: g1(&pk.h_query),
            pk,
        }
    }

    /// The underlying ark-groth16 key.
    pub fn proving_key(&self) -> &ProvingKey<E> {
        &self.pk
    }

    /// Memory of the precomputed copies beyond the key itself, in bytes.
    pub fn extra_memory_bytes(&self) -> usize {
        self.a.memory_bytes()
            + self.b_g1.memory_bytes()
            + self.b_g2.memory_bytes()
            + self.l.memory_bytes()
            + self.h.memory_bytes()
    }
}

impl<E: AccelPairing, B: BackendChoice> SNARK<E::ScalarField> for Groth16<E, B> {
    type ProvingKey = ProvingKey<E>;
    type VerifyingKey = VerifyingKey<E>;
    type Proof = Proof<E>;
    type ProcessedVerifyingKey = PreparedVerifyingKey<E>;
    type Error = Groth16Error;

    /// ark-groth16's setup (with [`NttReduction`], whose setup maps are
    /// LibsnarkReduction's: the keys are the same).
    fn circuit_specific_setup<C: ConstraintSynthesizer<E::ScalarField>, R: RngCore + CryptoRng>(
        circuit: C,
        rng: &mut R,
    ) -> Result<(ProvingKey<E>, VerifyingKey<E>), Groth16Error> {
        Ok(<ark_groth16::Groth16<E, NttReduction> as SNARK<
            E::ScalarField,
        >>::circuit_specific_setup(circuit, rng)?)
    }

    fn prove<C: ConstraintSynthesizer<E::ScalarField>, R: RngCore + CryptoRng>(
        pk: &ProvingKey<E>,
        circuit: C,
        rng: &mut R,
    ) -> Result<Proof<E>, Groth16Error> {
        Self::prove_with_timings(pk, circuit, rng).map(|(p, _)| p)
    }

    fn process_vk(vk: &VerifyingKey<E>) -> Result<PreparedVerifyingKey<E>, Groth16Error> {
        Ok(ark_groth16::prepare_verifying_key(vk))
    }

    /// ark-groth16's verifier, after checking the number of public inputs
    /// (ark-groth16 0.6 ignores extra inputs silently).
    fn verify_with_processed_vk(
        pvk: &PreparedVerifyingKey<E>,
        public_input: &[E::ScalarField],
        proof: &Proof<E>,
    ) -> Result<bool, Groth16Error> {
        let expected = pvk.vk.gamma_abc_g1.len().saturating_sub(1);
        if public_input.len() != expected {
            return Err(Groth16Error::PublicInputCount {
                expected,
                got: public_input.len(),
            });
        }
        Ok(ark_groth16::Groth16::<E>::verify_proof(
            pvk,
            proof,
            public_input,
        )?)
    }
}

impl<E: AccelPairing, B: BackendChoice> CircuitSpecificSetupSNARK<E::ScalarField>
    for Groth16<E, B>
{
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Cpu;
    use crate::circuits::MimcChain;
    use ark_bn254::{Bn254, Fr};
    use ark_serialize::CanonicalSerialize;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use zkaccel_ntt::{NttDomain, QuotientForm};

    fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
        let mut v = Vec::new();
        t.serialize_compressed(&mut v).unwrap();
        v
    }

    /// Offloads whose fused quotient and H MSM run on the CPU (the GPU's
    /// contract, without a GPU), counting their calls.
    fn cpu_fused(calls: Arc<AtomicUsize>) -> Offloads<Bn254> {
        Offloads {
            g1: None,
            ntt: None,
            quotient_msm: Some(Box::new(move |domain, coset, abc, bases, form| {
                calls.fetch_add(1, Ordering::Relaxed);
                let h = cpu_quotient(domain, coset, abc, form)?;
                zkaccel_cpu::msm(bases, &h[..bases.len()])
            })),
        }
    }

    /// `h` in `form` on the CPU (what an offloaded job must return).
    fn cpu_quotient(
        domain: &NttDomain<Fr>,
        coset: &NttDomain<Fr>,
        abc: [Vec<Fr>; 3],
        form: QuotientForm,
    ) -> Result<Vec<Fr>, zkaccel_cpu::MsmError> {
        crate::reduction::Evaluated::OnDomain {
            domain: *domain,
            coset: *coset,
            abc,
            qap: match form {
                QuotientForm::Coefficients => Qap::Libsnark,
                QuotientForm::CosetEvaluations => Qap::Circom,
            },
        }
        .quotient(None)
        .map_err(|e| zkaccel_cpu::MsmError::Backend {
            backend: "test",
            cause: zkaccel_cpu::BackendCause::msg(format!("{e:?}")),
        })
    }

    /// Resident bases on the CPU (the GPU's contract, without a GPU),
    /// counting their calls.
    struct CpuResident {
        bases: Vec<ark_bn254::G1Affine>,
        calls: Arc<AtomicUsize>,
    }

    impl ResidentBases<Bn254> for CpuResident {
        fn len(&self) -> usize {
            self.bases.len()
        }
        fn msm(&self, k: &[Fr]) -> Result<ark_bn254::G1Projective, zkaccel_cpu::MsmError> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            zkaccel_cpu::msm(&self.bases[..k.len()], k)
        }
        fn quotient_msm(
            &self,
            domain: &NttDomain<Fr>,
            coset: &NttDomain<Fr>,
            abc: [Vec<Fr>; 3],
            form: QuotientForm,
        ) -> Result<ark_bn254::G1Projective, zkaccel_cpu::MsmError> {
            self.calls.fetch_add(100, Ordering::Relaxed);
            let h = cpu_quotient(domain, coset, abc, form)?;
            zkaccel_cpu::msm(&self.bases, &h[..self.bases.len()])
        }
    }

    fn cpu_resident(pk: &ProvingKey<Bn254>, calls: &Arc<AtomicUsize>) -> ResidentKey<Bn254> {
        let q = |b: &[ark_bn254::G1Affine]| -> Box<dyn ResidentBases<Bn254>> {
            Box::new(CpuResident {
                bases: b.to_vec(),
                calls: calls.clone(),
            })
        };
        ResidentKey {
            a: q(&pk.a_query[1..]),
            b_g1: q(&pk.b_g1_query[1..]),
            l: q(&pk.l_query),
            h: q(&pk.h_query),
            device: "cpu stand-in".into(),
        }
    }

    /// A key's resident queries (a CPU stand-in for the GPU's) give stock
    /// ark-groth16's proof, every G1 MSM and the fused quotient running on
    /// them, beside the CPU's work (overlapped); a resident key of another
    /// key's lengths is refused.
    #[test]
    fn resident_queries_give_stock_proofs() {
        let c = MimcChain::<Fr>::new(Fr::from(5u64), 700);
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let (r, s) = (Fr::from(3u64), Fr::from(4u64));
        let cs = Groth16::<Bn254, Cpu>::synthesize(c.clone()).unwrap();
        let m = &cs.to_matrices().unwrap()[R1CS_PREDICATE_LABEL];
        let full = [
            cs.instance_assignment().unwrap(),
            cs.witness_assignment().unwrap(),
        ]
        .concat();
        let prove = |key: ProvingKeyRef<'_, Bn254>, qap| {
            Groth16::<Bn254, Cpu>::prove_matrices(
                key,
                None,
                qap,
                m,
                cs.num_instance_variables(),
                cs.num_constraints(),
                &full,
                r,
                s,
                &Offloads::none(),
            )
        };
        // Both reductions: libsnark's (h's coefficients) and circom's (h on
        // the odd roots), each with a key made for it.
        type Circom = crate::CircomReduction;
        let keys = [
            (
                Qap::Libsnark,
                ark_groth16::Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng)
                    .unwrap()
                    .0,
            ),
            (
                Qap::Circom,
                ark_groth16::Groth16::<Bn254, Circom>::circuit_specific_setup(c.clone(), &mut rng)
                    .unwrap()
                    .0,
            ),
        ];
        for (qap, pk) in &keys {
            let stock = match qap {
                Qap::Libsnark => {
                    ark_groth16::Groth16::<Bn254>::create_proof_with_reduction(c.clone(), pk, r, s)
                }
                _ => ark_groth16::Groth16::<Bn254, Circom>::create_proof_with_reduction(
                    c.clone(),
                    pk,
                    r,
                    s,
                ),
            }
            .unwrap();
            let calls = Arc::new(AtomicUsize::new(0));
            let res = cpu_resident(pk, &calls);
            let mut key = ProvingKeyRef::from(pk);
            key.resident = Some(&res);
            let (ours, t) = prove(key, *qap).unwrap();
            assert_eq!(bytes(&ours), bytes(&stock), "{qap:?}");
            // L, A, B1 once each, and the quotient with H once.
            assert_eq!(calls.load(Ordering::Relaxed), 103, "{qap:?}");
            assert!(t.overlapped && t.quotient_in_msm_h, "{qap:?}");
        }
        let (pk, calls) = (&keys[0].1, Arc::new(AtomicUsize::new(0)));
        let mut key = ProvingKeyRef::from(pk);
        // Queries of another key: an error naming the query.
        let other = MimcChain::<Fr>::new(Fr::from(5u64), 600);
        let (pk2, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(other, &mut rng).unwrap();
        let wrong = cpu_resident(&pk2, &calls);
        key.resident = Some(&wrong);
        let err = prove(key, Qap::Libsnark).expect_err("another key's resident queries");
        assert!(err.to_string().contains("resident"), "{err}");
    }

    /// The prover's fused path (h handed with the H query to the offload)
    /// gives stock ark-groth16's proof; below FUSED_MIN_TERMS it is not
    /// taken; a failing offload is an error, not a wrong proof.
    #[test]
    fn fused_quotient_msm_gives_stock_proofs() {
        for (len, fused) in [(1500usize, true), (300, false)] {
            let c = MimcChain::<Fr>::new(Fr::from(5u64), len);
            let mut rng = ChaCha20Rng::seed_from_u64(3);
            let (pk, _) =
                ark_groth16::Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng).unwrap();
            assert_eq!(pk.h_query.len() >= FUSED_MIN_TERMS, fused, "{len}");
            let (r, s) = (Fr::from(7u64), Fr::from(11u64));
            let stock =
                ark_groth16::Groth16::<Bn254>::create_proof_with_reduction(c.clone(), &pk, r, s)
                    .unwrap();
            let calls = Arc::new(AtomicUsize::new(0));
            let (ours, timings) = Groth16::<Bn254, Cpu>::prove_with_offloads(
                &pk,
                None,
                c.clone(),
                r,
                s,
                &cpu_fused(calls.clone()),
            )
            .unwrap();
            assert_eq!(bytes(&ours), bytes(&stock), "{len} constraints");
            assert_eq!(calls.load(Ordering::Relaxed), fused as usize, "{len}");
            assert_eq!(timings.quotient_in_msm_h, fused);
        }
        let c = MimcChain::<Fr>::new(Fr::from(5u64), 1500);
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let (pk, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng).unwrap();
        let failing = Offloads::<Bn254> {
            g1: None,
            ntt: None,
            quotient_msm: Some(Box::new(|_, _, _, _, _| {
                Err(zkaccel_cpu::MsmError::Backend {
                    backend: "test",
                    cause: zkaccel_cpu::BackendCause::new(std::io::Error::other("no device")),
                })
            })),
        };
        let r = Groth16::<Bn254, Cpu>::prove_with_offloads(
            &pk,
            None,
            c,
            Fr::from(1u64),
            Fr::from(2u64),
            &failing,
        );
        let err = r.expect_err("a failing offload must not give a proof");
        assert!(
            matches!(
                err,
                Groth16Error::Msm(zkaccel_cpu::MsmError::Backend { .. })
            ),
            "{err}"
        );
        // The backend's own error is reachable, typed, through the sources.
        let io = std::error::Error::source(&err)
            .and_then(std::error::Error::source)
            .and_then(|e| e.downcast_ref::<std::io::Error>());
        assert_eq!(io.map(|e| e.to_string()).as_deref(), Some("no device"));
    }

    /// `Backend::Cuda` either proves, giving stock ark-groth16's proof, or
    /// answers `BackendUnavailable` (without the feature `cuda`, or without
    /// a GPU); never a wrong proof. A unit test so that CI's CUDA stage runs
    /// it with the feature on without building the integration suite again.
    #[test]
    fn cuda_backend_proves_or_reports_unavailable() {
        let c = MimcChain::<Fr>::new(Fr::from(3u64), 3000);
        let mut rng = ChaCha20Rng::seed_from_u64(4);
        let (pk, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng).unwrap();
        let stock = {
            let mut r = ChaCha20Rng::seed_from_u64(5);
            ark_groth16::Groth16::<Bn254>::prove(&pk, c.clone(), &mut r).unwrap()
        };
        match Groth16::<Bn254, crate::backend::Cuda>::prove(
            &pk,
            c,
            &mut ChaCha20Rng::seed_from_u64(5),
        ) {
            Err(Groth16Error::BackendUnavailable(why)) => {
                // Past the harness's capture, so the skip shows in every run.
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "SKIPPED CUDA proving: {why}");
            }
            // With the feature `cuda` on a machine with a GPU: G1 MSMs and
            // the witness map's NTTs ran there, and the proof must be stock's.
            Ok(proof) => assert_eq!(proof, stock, "the GPU proof differs from ark-groth16's"),
            other => panic!("expected a proof or BackendUnavailable, got {other:?}"),
        }
    }
}
