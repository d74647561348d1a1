//! Exporting arkworks circuits to snarkjs and rapidsnark: a key set up for
//! the circom reduction, its `.zkey`, and the circuit's `.wtns`.

use crate::curve::CircomCurve;
use crate::error::CircomError;
use crate::wtns::write_wtns;
use crate::zkey::write_zkey;
use ark_groth16::ProvingKey;
use ark_relations::gr1cs::{
    ConstraintSynthesizer, ConstraintSystem, OptimizationGoal, SynthesisMode, R1CS_PREDICATE_LABEL,
};
use ark_snark::SNARK;
use ark_std::rand::{CryptoRng, RngCore};
use zkaccel_groth16::CircomReduction;

/// An arkworks circuit in snarkjs' files.
pub struct Exported<E: CircomCurve> {
    /// The key (arkworks' types; made for the circom reduction).
    pub pk: ProvingKey<E>,
    /// The `.zkey` bytes.
    pub zkey: Vec<u8>,
    /// The `.wtns` bytes: the full assignment (the one, the instance, the
    /// witness).
    pub wtns: Vec<u8>,
    /// The public signals.
    pub public: Vec<E::ScalarField>,
}

/// Sets up `circuit` with arkworks' Groth16 setup and the circom reduction,
/// and writes its key and its assignment as snarkjs files.
///
/// **Not for production**: the setup's secrets come from `rng`, whoever
/// controls it can forge proofs. For tests, benchmarks and running arkworks
/// circuits through snarkjs or rapidsnark.
pub fn export_circuit<E, C, R>(circuit: C, rng: &mut R) -> Result<Exported<E>, CircomError>
where
    E: CircomCurve,
    C: ConstraintSynthesizer<E::ScalarField> + Clone,
    R: RngCore + CryptoRng,
{
    let synth = |e: ark_relations::gr1cs::SynthesisError| {
        CircomError::Prove(zkaccel_groth16::Groth16Error::Synthesis(e))
    };
    let (pk, _) = <ark_groth16::Groth16<E, CircomReduction> as SNARK<E::ScalarField>>::circuit_specific_setup(
        circuit.clone(),
        rng,
    )
    .map_err(synth)?;
    let cs = ConstraintSystem::<E::ScalarField>::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(SynthesisMode::Prove {
        construct_matrices: true,
        generate_lc_assignments: false,
    });
    circuit.generate_constraints(cs.clone()).map_err(synth)?;
    cs.finalize();
    let matrices = cs.to_matrices().map_err(synth)?;
    let m = matrices
        .get(R1CS_PREDICATE_LABEL)
        .ok_or_else(|| CircomError::Mismatch("the circuit has no R1CS constraints".into()))?;
    let instance = cs.instance_assignment().map_err(synth)?;
    let witness = cs.witness_assignment().map_err(synth)?;
    let zkey = write_zkey(&pk, m, cs.num_constraints())?;
    let full = [&instance[..], &witness[..]].concat();
    Ok(Exported {
        zkey,
        wtns: write_wtns(&full),
        public: instance[1..].to_vec(),
        pk,
    })
}
