//! zkaccel's Groth16 against ark-groth16 on real circuits: same keys, same
//! RNG, byte-identical proofs; errors instead of bad proofs. Many proofs at
//! once from several threads in `concurrency`. `caller_pool` and
//! `memory_budget` each need a process of their own (a thread count, a peak
//! resident size): their tests run this binary again as a child that runs
//! only them ([`in_own_process!`]).

/// At the top of a test that needs a process of its own: in the parent,
/// runs this test alone in a child process with the variables given set
/// (`in_own_process!(test_fn, VAR => "value", ...)`), fails unless it
/// passed, and returns; in the child, does nothing, so the test body runs.
/// The test's name comes from its module path, as libtest names it.
macro_rules! in_own_process {
    ($test:ident $(, $var:expr => $value:expr)* $(,)?) => {
        if !crate::is_child() {
            let path = concat!(module_path!(), "::", stringify!($test));
            // libtest's names leave out the crate (this binary's name).
            let name = path.split_once("::").map_or(path, |(_, test)| test);
            return crate::in_child(name, &[$(($var, $value)),*]);
        }
    };
}

#[cfg(feature = "parallel")]
mod caller_pool;
mod concurrency;
mod memory_budget;
mod witness_map_memory;

use ark_bn254::{Bn254, Fr};
use ark_ec::pairing::Pairing;
use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::GeneralEvaluationDomain;
use ark_r1cs_std::{alloc::AllocVar, eq::EqGadget, fields::fp::FpVar};
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, ConstraintSystemRef, SynthesisError,
    R1CS_PREDICATE_LABEL,
};
use ark_serialize::CanonicalSerialize;
use ark_snark::SNARK;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use zkaccel_groth16::circuits::{MerkleMembership, MimcChain, Sha256Circuit};
use zkaccel_groth16::{
    backend, Groth16, Groth16Error, NttReduction, PreparedProvingKey, BACKEND_ENV,
};

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v).unwrap();
    v
}

/// Setup once, prove with stock ark-groth16, ark-groth16 + NttReduction and
/// zkaccel from the same seed: all three proofs byte-identical and valid.
fn same_proofs<E: zkaccel_groth16::AccelPairing, C>(
    circuit: C,
    public: &[E::ScalarField],
    prepared: bool,
) where
    C: ConstraintSynthesizer<E::ScalarField> + Clone,
{
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    let (pk, vk) =
        ark_groth16::Groth16::<E>::circuit_specific_setup(circuit.clone(), &mut rng).unwrap();
    let stock =
        ark_groth16::Groth16::<E>::prove(&pk, circuit.clone(), &mut ChaCha20Rng::seed_from_u64(5))
            .unwrap();
    let ntt_only = ark_groth16::Groth16::<E, NttReduction>::prove(
        &pk,
        circuit.clone(),
        &mut ChaCha20Rng::seed_from_u64(5),
    )
    .unwrap();
    let ours =
        Groth16::<E, backend::Cpu>::prove(&pk, circuit.clone(), &mut ChaCha20Rng::seed_from_u64(5))
            .unwrap();
    assert_eq!(
        bytes(&ntt_only),
        bytes(&stock),
        "NttReduction proof differs"
    );
    assert_eq!(bytes(&ours), bytes(&stock), "zkaccel proof differs");
    if prepared {
        let ppk = PreparedProvingKey::new(pk.clone());
        assert!(ppk.extra_memory_bytes() > 0);
        let (p, _) = Groth16::<E, backend::Cpu>::prove_prepared(
            &ppk,
            circuit.clone(),
            &mut ChaCha20Rng::seed_from_u64(5),
        )
        .unwrap();
        assert_eq!(bytes(&p), bytes(&stock), "prepared-key proof differs");
    }
    assert!(ark_groth16::Groth16::<E>::verify(&vk, public, &ours).unwrap());
    assert!(Groth16::<E>::verify(&vk, public, &ours).unwrap());
    // A wrong public input is rejected (the check can fail).
    let mut wrong = public.to_vec();
    wrong[0] += E::ScalarField::from(1u64);
    assert!(!Groth16::<E>::verify(&vk, &wrong, &ours).unwrap());
}

#[test]
fn mimc_chain_bn254() {
    let c = MimcChain::<Fr>::new(Fr::from(3u64), 700);
    same_proofs::<Bn254, _>(c.clone(), &c.public_inputs(), true);
}

#[test]
fn merkle_depth_16_bn254() {
    let c = MerkleMembership::<Fr>::random(16, 7);
    same_proofs::<Bn254, _>(c.clone(), &c.public_inputs(), true);
}

#[test]
fn sha256_one_block_bn254() {
    let c = Sha256Circuit::<Fr>::new(1, 3);
    same_proofs::<Bn254, _>(c.clone(), &c.public_inputs(), false);
}

#[test]
fn mimc_chain_bls12_381() {
    type F = ark_bls12_381::Fr;
    let c = MimcChain::<F>::new(F::from(9u64), 300);
    same_proofs::<ark_bls12_381::Bls12_381, _>(c.clone(), &c.public_inputs(), true);
}

/// The witness map alone: NttReduction's h equals LibsnarkReduction's.
#[test]
fn ntt_reduction_h_equals_libsnark() {
    for c in [
        MimcChain::<Fr>::new(Fr::from(5u64), 1),
        MimcChain::<Fr>::new(Fr::from(5u64), 1500),
    ] {
        let cs = ConstraintSystem::<Fr>::new_ref();
        c.generate_constraints(cs.clone()).unwrap();
        cs.finalize();
        let matrices = &cs.to_matrices().unwrap()[R1CS_PREDICATE_LABEL];
        let full = [
            cs.instance_assignment().unwrap(),
            cs.witness_assignment().unwrap(),
        ]
        .concat();
        let (ni, nc) = (cs.num_instance_variables(), cs.num_constraints());
        type D = GeneralEvaluationDomain<Fr>;
        let want =
            LibsnarkReduction::witness_map_from_matrices::<Fr, D>(matrices, ni, nc, &full).unwrap();
        let got =
            NttReduction::witness_map_from_matrices::<Fr, D>(matrices, ni, nc, &full).unwrap();
        assert_eq!(got, want);
    }
}

/// `x * x == 3` with `x = 1`: unsatisfied.
#[derive(Clone)]
struct Unsatisfied;

impl<F: PrimeField> ConstraintSynthesizer<F> for Unsatisfied {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let three = FpVar::new_input(cs.clone(), || Ok(F::from(3u64)))?;
        let x = FpVar::new_witness(cs, || Ok(F::from(1u64)))?;
        (&x * &x).enforce_equal(&three)
    }
}

#[test]
fn unsatisfied_circuit_is_an_error() {
    // Setup only needs the constraint shape, so the key is this circuit's.
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let (pk, _) = Groth16::<Bn254>::circuit_specific_setup(Unsatisfied, &mut rng).unwrap();
    let err = Groth16::<Bn254>::prove(&pk, Unsatisfied, &mut rng).unwrap_err();
    assert!(
        matches!(err, Groth16Error::Synthesis(SynthesisError::Unsatisfiable)),
        "{err}"
    );
}

#[test]
fn key_from_another_circuit_is_an_error() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let (pk, _) = Groth16::<Bn254>::circuit_specific_setup(
        MimcChain::<Fr>::new(Fr::from(3u64), 10),
        &mut rng,
    )
    .unwrap();
    let other = MimcChain::<Fr>::new(Fr::from(3u64), 11);
    let err = Groth16::<Bn254>::prove(&pk, other, &mut rng).unwrap_err();
    assert!(matches!(err, Groth16Error::KeyMismatch { .. }), "{err}");
    assert!(
        err.to_string().contains("does not match the circuit"),
        "{err}"
    );
}

#[test]
fn wrong_number_of_public_inputs_is_an_error() {
    let c = MimcChain::<Fr>::new(Fr::from(3u64), 10);
    let public = c.public_inputs();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut rng).unwrap();
    let proof = Groth16::<Bn254>::prove(&pk, c, &mut rng).unwrap();
    assert!(Groth16::<Bn254>::verify(&vk, &public, &proof).unwrap());
    for inputs in [vec![], [public.clone(), public.clone()].concat()] {
        let err = Groth16::<Bn254>::verify(&vk, &inputs, &proof).unwrap_err();
        assert!(
            matches!(err, Groth16Error::PublicInputCount { expected: 1, got } if got == inputs.len()),
            "{err}"
        );
    }
}

#[test]
fn circuit_sizes_are_what_the_docs_say() {
    let count = |c: &dyn Fn(ConstraintSystemRef<Fr>)| {
        let cs = ConstraintSystem::<Fr>::new_ref();
        c(cs.clone());
        cs.num_constraints()
    };
    let mimc = count(&|cs| {
        MimcChain::<Fr>::new(Fr::from(1u64), 1000)
            .generate_constraints(cs)
            .unwrap()
    });
    assert_eq!(mimc, 3000 + 1);
    let sha = count(&|cs| {
        Sha256Circuit::<Fr>::new(2, 1)
            .generate_constraints(cs)
            .unwrap()
    });
    assert!(sha > 40_000 && sha < 90_000, "{sha}");
    let _ = <Bn254 as Pairing>::ScalarField::from(1u64);
}

// ---- Tests that need a process of their own (a setting read once per
// process, a thread count, a peak resident size) run this test binary again
// as a child that runs only them.

/// Set in a child started by [`in_child`].
const CHILD: &str = "ZKACCEL_TEST_CHILD";

/// Whether this process is a child started by [`in_child`].
fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` (its full path, e.g. `memory_budget::proof`) alone
/// in a child process with the variables `envs` set, and fails unless it
/// passed. What the child wrote to stderr (its SKIPPED lines and figures) is
/// written to this process's stderr, where cargo shows it.
fn in_child(name: &str, envs: &[(&str, &str)]) {
    let out = zkaccel_testkit::process::this_test_binary()
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .envs(envs.iter().copied())
        .env(CHILD, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let errors = String::from_utf8_lossy(&out.stderr);
    {
        use std::io::Write;
        let _ = std::io::stderr().write_all(errors.as_bytes());
    }
    assert!(
        out.status.success() && text.contains("1 passed"),
        "child {name} with {envs:?}: {text}{errors}"
    );
}

// ---- ZKACCEL_BACKEND: what `Backend::Auto` resolves to. The variable is
// read once per process, so each case runs in a child with it set.

/// An Auto proof of a small circuit, and stock ark-groth16's for the same
/// key and seed.
fn auto_proof() -> (
    Result<ark_groth16::Proof<Bn254>, Groth16Error>,
    ark_groth16::Proof<Bn254>,
) {
    let c = MimcChain::<Fr>::new(Fr::from(3u64), 200);
    let (pk, _) =
        Groth16::<Bn254>::circuit_specific_setup(c.clone(), &mut ChaCha20Rng::seed_from_u64(1))
            .unwrap();
    let stock =
        ark_groth16::Groth16::<Bn254>::prove(&pk, c.clone(), &mut ChaCha20Rng::seed_from_u64(2))
            .unwrap();
    let auto = Groth16::<Bn254, backend::Auto>::prove(&pk, c, &mut ChaCha20Rng::seed_from_u64(2));
    (auto, stock)
}

#[test]
fn cpu_forces_auto_onto_the_cpu() {
    in_own_process!(cpu_forces_auto_onto_the_cpu, BACKEND_ENV => "cpu");
    let (auto, stock) = auto_proof();
    assert_eq!(auto.unwrap(), stock);
}

#[test]
fn cuda_makes_auto_fail_without_a_gpu() {
    in_own_process!(cuda_makes_auto_fail_without_a_gpu, BACKEND_ENV => "cuda");
    let (auto, stock) = auto_proof();
    match auto {
        // No GPU (or no `cuda` feature): Auto must not fall back silently.
        Err(Groth16Error::BackendUnavailable { .. }) => {}
        // A GPU: the proof is stock's.
        Ok(p) => assert_eq!(p, stock),
        Err(e) => panic!("expected a GPU proof or BackendUnavailable, got {e}"),
    }
}

#[test]
fn an_unknown_value_is_ignored() {
    in_own_process!(an_unknown_value_is_ignored, BACKEND_ENV => "tpu");
    let (auto, stock) = auto_proof();
    assert_eq!(auto.unwrap(), stock);
}
