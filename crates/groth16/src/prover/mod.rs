//! [`Groth16`]: ark-groth16's keys and proofs, zkaccel's MSM and NTT. The
//! entry points are here; the key's forms in `key.rs`, the timings in
//! `timings.rs`, the proof's steps in `steps.rs`.

mod key;
mod parts;
mod steps;
mod timings;

pub use key::{KeyQuery, PreparedProvingKey, ProvingKeyRef, ReleaseQuery, ResidentKey};
pub use parts::{ProofPart, ProofSums};
pub use steps::MatrixWitness;
pub use timings::ProofTimings;

use crate::backend::{self, Auto, BackendChoice};
use crate::clock::Stopwatch;
use crate::error::Groth16Error;
use crate::matrix::ConstraintMatrix;
use crate::pairing::AccelPairing;
use crate::reduction::{NttReduction, Qap};
use ark_ff::UniformRand;
use ark_groth16::{PreparedVerifyingKey, Proof, ProvingKey, VerifyingKey};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, OptimizationGoal, SynthesisMode,
    R1CS_PREDICATE_LABEL,
};
use ark_snark::{CircuitSpecificSetupSNARK, SNARK};
use ark_std::rand::{CryptoRng, RngCore};
use core::marker::PhantomData;
use std::time::Duration;
use steps::{Job, Offloads};
use timings::timed;

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
        let resolved =
            backend::resolve(B::BACKEND).map_err(|cause| Groth16Error::BackendUnavailable {
                backend: B::BACKEND,
                cause,
            })?;
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
        let key = match prepared {
            Some(ppk) => ProvingKeyRef::from(ppk),
            None => ProvingKeyRef::from(pk),
        };
        let witness = MatrixWitness {
            qap: Qap::Libsnark,
            matrices,
            num_inputs: cs.num_instance_variables(),
            num_constraints: cs.num_constraints(),
            full_assignment: &full,
        };
        let (proof, mut t) = Self::prove_witness_with(key, witness, r, s, offloads)?;
        t.synthesis = synthesis;
        t.total = start.elapsed();
        Ok((proof, t))
    }

    /// A proof from the constraint matrices and the full assignment, with no
    /// circuit synthesis (as ark-groth16's
    /// `create_proof_with_reduction_and_matrices`), on a key made for the
    /// witness's reduction ([`Qap::Libsnark`] for ark-groth16's keys,
    /// [`Qap::Circom`] for snarkjs keys); with the prover randomness `r`,
    /// `s`, and the time of each phase. The key is borrowed
    /// ([`ProvingKeyRef`]: from an ark-groth16 key, a
    /// [`PreparedProvingKey`], or points wherever the caller keeps them,
    /// with queries resident on the GPU where it has them).
    ///
    /// The result is byte-identical to ark-groth16's
    /// `create_proof_with_reduction_and_matrices` with [`NttReduction`]
    /// (libsnark) or [`crate::CircomReduction`] (circom) for the same `r`,
    /// `s`. Errors, never a panic: a key of another length
    /// ([`Groth16Error::KeyMismatch`]), a variable index outside the
    /// assignment or too few matrices or rows ([`Groth16Error::Synthesis`]),
    /// and, where C is given, an unsatisfied constraint.
    pub fn prove_witness<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Self::prove_witness_with(key, witness, r, s, &Self::offloads()?)
    }

    /// One share of [`Groth16::prove_witness`]'s work ([`ProofPart`]), on
    /// the CPU: its sums, for [`Groth16::assemble_sums`] to finish the proof
    /// once every share is in. The shares need nothing of each other, so
    /// separate processes with their own copies of the key (the npm
    /// package's workers) compute them at once. The key and witness are
    /// checked as [`Groth16::prove_witness`] checks them.
    pub fn prove_part<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
        part: ProofPart,
    ) -> Result<ProofSums<E>, Groth16Error> {
        on_cpu(key, witness, |job| job.sums(part))
    }

    /// The witness map's quotient alone: the H MSM's scalars, one per term
    /// of the key's H query, on the CPU. With [`Groth16::h_part`] it splits
    /// the quotient share ([`ProofPart::QuotientH`]) so that one process
    /// computes the quotient and several share its MSM. The key and witness
    /// are checked as [`Groth16::prove_witness`] checks them.
    pub fn quotient<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
    ) -> Result<Vec<E::ScalarField>, Groth16Error> {
        on_cpu(key, witness, |job| job.quotient_scalars())
    }

    /// [`Groth16::quotient`] in two steps, for two processes: the witness
    /// map's constraint evaluations A z, B z, C z (those `which` selects) on
    /// the quotient's coset, each after two of the quotient's NTTs; `None`
    /// for the others. Each process computes some; one of them finishes
    /// the quotient from all three ([`Groth16::quotient_from_columns`]).
    pub fn quotient_columns<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
        which: [bool; 3],
    ) -> Result<[Option<Vec<E::ScalarField>>; 3], Groth16Error> {
        on_cpu(key, witness, |job| job.quotient_columns(which))
    }

    /// [`Groth16::quotient`] from the three columns of
    /// [`Groth16::quotient_columns`] (A, B, C in that order). A column of
    /// another length than the domain's is [`Groth16Error::KeyMismatch`];
    /// columns of another witness give a proof that does not verify.
    pub fn quotient_from_columns<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
        columns: [Vec<E::ScalarField>; 3],
    ) -> Result<Vec<E::ScalarField>, Groth16Error> {
        on_cpu(key, witness, |job| job.quotient_from_columns(columns))
    }

    /// The H MSM over the H query's terms `start..start + scalars.len()`,
    /// `scalars` being those terms of [`Groth16::quotient`]: a share's sums,
    /// as [`ProofPart::QuotientH`] over the same range gives them. A range
    /// past the query's end is [`Groth16Error::Sums`]; scalars of another
    /// witness give a proof that does not verify.
    pub fn h_part(
        key: ProvingKeyRef<'_, E>,
        start: usize,
        scalars: &[E::ScalarField],
    ) -> Result<ProofSums<E>, Groth16Error> {
        steps::h_range(key, start, scalars)
    }

    /// The proof from every share's sums ([`ProofSums::merge`]) with the
    /// randomness `r`, `s`: the proof [`Groth16::prove_witness`] gives for
    /// the same key, witness, `r` and `s`, byte for byte. A missing sum is
    /// [`Groth16Error::Sums`]. The witness is the one the shares proved (its
    /// lengths are checked against the key again).
    pub fn assemble_sums<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
        sums: ProofSums<E>,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<Proof<E>, Groth16Error> {
        on_cpu(key, witness, |job| job.assemble_sums(sums, r, s))
    }

    fn prove_witness_with<M: ConstraintMatrix<E::ScalarField>>(
        key: ProvingKeyRef<'_, E>,
        witness: MatrixWitness<'_, E::ScalarField, M>,
        r: E::ScalarField,
        s: E::ScalarField,
        offloads: &Offloads<E>,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        Job {
            key,
            witness,
            offloads,
        }
        .prove(r, s)
    }

    /// [`Groth16::prove_witness`] on an ark-groth16 key, the witness given
    /// field by field.
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

    /// [`Groth16::prove_witness`], the witness given field by field.
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
        let witness = MatrixWitness {
            qap,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
        };
        Self::prove_witness(pk, witness, r, s)
    }

    /// [`Groth16::prove_witness`] on a [`PreparedProvingKey`], the witness
    /// given field by field.
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
        Self::create_proof_with_key_ref(
            ppk.into(),
            qap,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            r,
            s,
        )
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

/// `f` on a job whose work all runs on the CPU (the shares' functions:
/// another process may hold the rest of the proof).
fn on_cpu<E: AccelPairing, M: ConstraintMatrix<E::ScalarField>, R>(
    key: ProvingKeyRef<'_, E>,
    witness: MatrixWitness<'_, E::ScalarField, M>,
    f: impl FnOnce(&Job<'_, E, M>) -> R,
) -> R {
    let offloads = Offloads::none();
    f(&Job {
        key,
        witness,
        offloads: &offloads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Cpu;
    use crate::circuits::MimcChain;
    use crate::pairing::ResidentBases;
    use ark_bn254::{Bn254, Fr};
    use ark_serialize::CanonicalSerialize;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use zkaccel_core::GPU_MIN_TERMS as FUSED_MIN_TERMS;
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

    /// A circuit synthesized once: what [`MatrixWitness`] borrows.
    struct Synthesized {
        matrices: Vec<ark_relations::gr1cs::Matrix<Fr>>,
        full: Vec<Fr>,
        num_inputs: usize,
        num_constraints: usize,
    }

    impl Synthesized {
        fn new(c: MimcChain<Fr>) -> Self {
            let cs = Groth16::<Bn254, Cpu>::synthesize(c).unwrap();
            let matrices = cs.to_matrices().unwrap()[R1CS_PREDICATE_LABEL].clone();
            let full = [
                cs.instance_assignment().unwrap(),
                cs.witness_assignment().unwrap(),
            ]
            .concat();
            Synthesized {
                matrices,
                full,
                num_inputs: cs.num_instance_variables(),
                num_constraints: cs.num_constraints(),
            }
        }

        fn witness(&self, qap: Qap) -> MatrixWitness<'_, Fr, ark_relations::gr1cs::Matrix<Fr>> {
            MatrixWitness {
                qap,
                matrices: &self.matrices,
                num_inputs: self.num_inputs,
                num_constraints: self.num_constraints,
                full_assignment: &self.full,
            }
        }
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
        let synthesized = Synthesized::new(c.clone());
        let prove = |key: ProvingKeyRef<'_, Bn254>, qap| {
            let witness = synthesized.witness(qap);
            Groth16::<Bn254, Cpu>::prove_witness_with(key, witness, r, s, &Offloads::none())
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

    /// A MiMC chain from `x` of `rounds` rounds, its ark-groth16 key (set up
    /// from `seed`), its synthesis, and the generator after the setup.
    fn chain_with_key(
        x: u64,
        rounds: usize,
        seed: u64,
    ) -> (MimcChain<Fr>, ProvingKey<Bn254>, Synthesized, ChaCha20Rng) {
        let c = MimcChain::<Fr>::new(Fr::from(x), rounds);
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let (pk, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng).unwrap();
        let synthesized = Synthesized::new(c.clone());
        (c, pk, synthesized, rng)
    }

    /// Two shares of a proof's work, assembled, give stock ark-groth16's proof.
    #[test]
    fn shares_assembled_give_stock_proofs() {
        let (c, pk, synthesized, mut rng) = chain_with_key(5, 300, 12);
        let witness = synthesized.witness(Qap::Libsnark);
        let key = || ProvingKeyRef::from(&pk);
        let part = |p| Groth16::<Bn254, Cpu>::prove_part(key(), witness, p).unwrap();
        let (q, b2, l) = (
            part(ProofPart::QUOTIENT_H),
            part(ProofPart::B2),
            part(ProofPart::LAB1),
        );
        let n = pk.h_query.len();
        assert!(q.h.is_some() && q.h_terms == (0, n) && q.b2.is_none() && q.l.is_none());
        assert!(b2.b2.is_some() && b2.h.is_none() && b2.l.is_none());
        assert!(l.l.is_some() && l.a.is_some() && l.b1.is_some() && l.h.is_none());
        // The H MSM split at k: 0..k and k..n (one range empty at the ends,
        // and a range past the query clamped to it).
        let range = |start, end| part(ProofPart::QuotientH { start, end });
        let splits: Vec<ProofSums<Bn254>> = [0, 1, n / 3, n - 1, n]
            .into_iter()
            .map(|k| range(0, k).merge(range(k, n + 5)).unwrap())
            .collect();
        let q_b2 = q.merge(b2).unwrap();
        // r = 0 leaves B1 out of the proof: the shares still make it.
        for (r, s) in [
            (Fr::from(7u64), Fr::from(11u64)),
            (Fr::from(0u64), Fr::from(2u64)),
        ] {
            let stock =
                ark_groth16::Groth16::<Bn254>::create_proof_with_reduction(c.clone(), &pk, r, s)
                    .unwrap();
            let mut all = vec![
                q_b2.merge(l).unwrap(),
                l.merge(b2).unwrap().merge(q).unwrap(),
            ];
            all.extend(
                splits
                    .iter()
                    .map(|h| h.merge(b2).unwrap().merge(l).unwrap()),
            );
            for sums in all {
                let ours =
                    Groth16::<Bn254, Cpu>::assemble_sums(key(), witness, sums, r, s).unwrap();
                assert_eq!(bytes(&ours), bytes(&stock), "r = {r}");
            }
        }
        let (r, s) = (Fr::from(1u64), Fr::from(1u64));
        let err = Groth16::<Bn254, Cpu>::assemble_sums(key(), witness, q_b2, r, s).unwrap_err();
        assert!(
            matches!(
                err,
                Groth16Error::Sums {
                    what: "l",
                    problem: "missing"
                }
            ),
            "{err}"
        );
        let stock =
            ark_groth16::Groth16::<Bn254>::create_proof_with_reduction(c.clone(), &pk, r, s)
                .unwrap();
        let assemble = |sums| Groth16::<Bn254, Cpu>::assemble_sums(key(), witness, sums, r, s);
        check_h_ranges(&part, &assemble, &stock, n);
        let err = q.merge(q).unwrap_err();
        assert!(matches!(err, Groth16Error::Sums { what: "h", .. }), "{err}");
        let err = l.merge(l).unwrap_err();
        assert!(err.to_string().contains("in both shares"), "{err}");
        // A key of another circuit: the lengths are checked as for a proof.
        let other = MimcChain::<Fr>::new(Fr::from(5u64), 200);
        let (pk2, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(other, &mut rng).unwrap();
        let bad = Groth16::<Bn254, Cpu>::prove_part((&pk2).into(), witness, ProofPart::LAB1);
        assert!(matches!(bad, Err(Groth16Error::KeyMismatch { .. })));
    }

    /// The quotient computed once and its H MSM split between shares
    /// ([`Groth16::quotient`], [`Groth16::h_part`]) give stock ark-groth16's
    /// proof; a range past the query is an error.
    #[test]
    fn quotient_once_with_h_parts_gives_stock_proofs() {
        let (c, pk, synthesized, mut rng) = chain_with_key(3, 250, 13);
        let witness = synthesized.witness(Qap::Libsnark);
        let key = || ProvingKeyRef::from(&pk);
        let part = |p| Groth16::<Bn254, Cpu>::prove_part(key(), witness, p).unwrap();
        let rest = part(ProofPart::B2).merge(part(ProofPart::LAB1)).unwrap();
        let q = Groth16::<Bn254, Cpu>::quotient(key(), witness).unwrap();
        let n = pk.h_query.len();
        assert_eq!(q.len(), n);
        // The same quotient from its columns computed apart (the circom
        // reductions' on snarkjs keys, BN254 and BLS12-381, in the wasm
        // crate's tests).
        {
            let (w, qap) = (witness, Qap::Libsnark);
            let cols = |which| Groth16::<Bn254, Cpu>::quotient_columns(key(), w, which).unwrap();
            let [a, _, c] = cols([true, false, true]);
            let [none, b, none2] = cols([false, true, false]);
            assert!(none.is_none() && none2.is_none());
            let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
            let whole = Groth16::<Bn254, Cpu>::quotient(key(), w).unwrap();
            let from = |abc| Groth16::<Bn254, Cpu>::quotient_from_columns(key(), w, abc);
            assert_eq!(
                from([a.clone(), b.clone(), c.clone()]).unwrap(),
                whole,
                "{qap:?}"
            );
            // A column cut short, or columns in another order.
            let err = from([a.clone(), b[1..].to_vec(), c.clone()]).unwrap_err();
            assert!(err.to_string().contains("quotient column B"), "{err}");
            assert_ne!(from([c, b, a]).unwrap(), whole, "{qap:?}");
        }
        let h = |start: usize, end: usize| {
            Groth16::<Bn254, Cpu>::h_part(key(), start, &q[start..end]).unwrap()
        };
        let (r, s) = (Fr::from(5u64), Fr::from(9u64));
        let stock =
            ark_groth16::Groth16::<Bn254>::create_proof_with_reduction(c.clone(), &pk, r, s)
                .unwrap();
        for k in [0, 1, n / 2, n - 1, n] {
            // Each range's sum is the quotient share's over the same range.
            let ranged = part(ProofPart::QuotientH { start: k, end: n });
            assert_eq!(h(k, n), ranged, "k = {k}");
            let sums = h(0, k).merge(h(k, n)).unwrap().merge(rest).unwrap();
            let ours = Groth16::<Bn254, Cpu>::assemble_sums(key(), witness, sums, r, s).unwrap();
            assert_eq!(bytes(&ours), bytes(&stock), "k = {k}");
        }
        // Past the end, or overflowing: errors, not a clamp.
        for (start, len) in [(1, n), (n + 1, 0), (usize::MAX, 1)] {
            let scalars = vec![Fr::from(1u64); len];
            let err = Groth16::<Bn254, Cpu>::h_part(key(), start, &scalars).unwrap_err();
            assert!(err.to_string().contains("past the H query"), "{err}");
        }
        // Another circuit's key: the lengths are checked.
        let other = MimcChain::<Fr>::new(Fr::from(5u64), 200);
        let (pk2, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(other, &mut rng).unwrap();
        let bad = Groth16::<Bn254, Cpu>::quotient((&pk2).into(), witness);
        assert!(matches!(bad, Err(Groth16Error::KeyMismatch { .. })));
    }

    /// [`shares_assembled_give_stock_proofs`]' H ranges, on `part` (a share
    /// of the test's proof) and `assemble` (its proof from sums, whose stock
    /// ark-groth16 proof is `stock`), `n` H terms: H over part of the query,
    /// over overlapping or gapped ranges, is an error; ranges that tile the
    /// query in another order make the proof through `merge_all`.
    fn check_h_ranges(
        part: &dyn Fn(ProofPart) -> ProofSums<Bn254>,
        assemble: &dyn Fn(ProofSums<Bn254>) -> Result<Proof<Bn254>, Groth16Error>,
        stock: &Proof<Bn254>,
        n: usize,
    ) {
        let range = |start, end| part(ProofPart::QuotientH { start, end });
        let rest = part(ProofPart::B2).merge(part(ProofPart::LAB1)).unwrap();
        let err = assemble(range(0, n / 2).merge(rest).unwrap()).unwrap_err();
        assert!(err.to_string().contains("part of the H query"), "{err}");
        for (x, y) in [((0, n / 2), (n / 3, n)), ((0, n / 3), (n / 2, n))] {
            let err = range(x.0, x.1).merge(range(y.0, y.1)).unwrap_err();
            assert!(err.to_string().contains("overlap or leave a gap"), "{err}");
        }
        // A pairwise merge of non-adjacent ranges fails; merge_all takes
        // them in range order.
        let (k1, k2) = (n / 3, 2 * n / 3);
        let (h0, h1, h2) = (range(0, k1), range(k1, k2), range(k2, n));
        assert!(h0.merge(h2).is_err());
        let (b2, l) = (part(ProofPart::B2), part(ProofPart::LAB1));
        let mixed = ProofSums::merge_all([h2, l, h0, b2, h1]).unwrap();
        assert_eq!(bytes(&assemble(mixed).unwrap()), bytes(stock));
        let err = ProofSums::merge_all([h0, h1, range(k1, n), b2, l]).unwrap_err();
        assert!(err.to_string().contains("overlap or leave a gap"), "{err}");
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
            Err(Groth16Error::BackendUnavailable { cause: why, .. }) => {
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

    /// Records the queries the prover says it is done with.
    #[derive(Default)]
    struct Released(std::sync::Mutex<Vec<KeyQuery>>);

    impl ReleaseQuery for Released {
        fn release(&self, query: KeyQuery) {
            self.0.lock().unwrap().push(query);
        }
    }

    impl Released {
        fn take(&self) -> Vec<KeyQuery> {
            std::mem::take(&mut self.0.lock().unwrap())
        }
    }

    /// The key's owner hears of each query once its MSM is done: a whole
    /// proof and each share name their own queries, once each, in the order
    /// they ran; the proof is still stock ark-groth16's.
    #[test]
    fn release_is_told_each_query_after_its_msm() {
        use KeyQuery::*;
        let c = MimcChain::<Fr>::new(Fr::from(5u64), 200);
        let mut rng = ChaCha20Rng::seed_from_u64(21);
        let (r, s) = (Fr::from(3u64), Fr::from(4u64));
        let (pk, _) =
            ark_groth16::Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng).unwrap();
        let stock =
            ark_groth16::Groth16::<Bn254>::create_proof_with_reduction(c.clone(), &pk, r, s)
                .unwrap();
        let synthesized = Synthesized::new(c);
        let witness = synthesized.witness(Qap::Libsnark);
        let owner = Released::default();
        let mut key = ProvingKeyRef::from(&pk);
        key.release = Some(&owner);
        let (ours, _) =
            Groth16::<Bn254, Cpu>::prove_witness_with(key, witness, r, s, &Offloads::none())
                .unwrap();
        assert_eq!(bytes(&ours), bytes(&stock));
        assert_eq!(owner.take(), [H, B2, L, A, B1]);
        let part = |p| Groth16::<Bn254, Cpu>::prove_part(key, witness, p).unwrap();
        part(ProofPart::QUOTIENT_H);
        assert_eq!(owner.take(), [H]);
        part(ProofPart::QuotientH { start: 1, end: 9 });
        assert_eq!(owner.take(), [H]);
        part(ProofPart::B2);
        assert_eq!(owner.take(), [B2]);
        part(ProofPart::LAB1);
        assert_eq!(owner.take(), [L, A, B1]);
        // Without an owner nothing is told (and nothing breaks).
        let (plain, _) = Groth16::<Bn254, Cpu>::prove_witness_with(
            ProvingKeyRef::from(&pk),
            witness,
            r,
            s,
            &Offloads::none(),
        )
        .unwrap();
        assert_eq!(bytes(&plain), bytes(&stock));
        assert!(owner.take().is_empty());
    }
}
