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

/// `circuit` synthesized in `mode` (the setup's optimization goal), with
/// its R1CS matrices A, B, C.
#[allow(clippy::type_complexity)]
fn synthesize<F: ark_ff::PrimeField, C: ConstraintSynthesizer<F>>(
    circuit: C,
    mode: SynthesisMode,
) -> Result<
    (
        ark_relations::gr1cs::ConstraintSystemRef<F>,
        Vec<ark_relations::gr1cs::Matrix<F>>,
    ),
    CircomError,
> {
    let synth = |e| CircomError::Prove(zkaccel_groth16::Groth16Error::Synthesis(e));
    let cs = ConstraintSystem::<F>::new_ref();
    cs.set_optimization_goal(OptimizationGoal::Constraints);
    cs.set_mode(mode);
    circuit.generate_constraints(cs.clone()).map_err(synth)?;
    cs.finalize();
    let mut matrices = cs.to_matrices().map_err(synth)?;
    let m = matrices
        .remove(R1CS_PREDICATE_LABEL)
        .ok_or_else(|| CircomError::Mismatch("the circuit has no R1CS constraints".into()))?;
    Ok((cs, m))
}

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
    let (cs, m) = synthesize(
        circuit,
        SynthesisMode::Prove {
            construct_matrices: true,
            generate_lc_assignments: false,
        },
    )?;
    let instance = cs.instance_assignment().map_err(synth)?;
    let witness = cs.witness_assignment().map_err(synth)?;
    let zkey = write_zkey(&pk, &m, cs.num_constraints())?;
    let full = [&instance[..], &witness[..]].concat();
    Ok(Exported {
        zkey,
        wtns: write_wtns(&full),
        public: instance[1..].to_vec(),
        pk,
    })
}

/// A circom `.r1cs` as an arkworks circuit: wire 0 is arkworks' constant
/// one, wires `1..=nPublic` its instance variables and the rest its witness
/// variables, in order, so arkworks' variable `i` is circom's wire `i` and a
/// `.wtns` is its full assignment. Without a witness it synthesizes in
/// setup mode (for [`setup_r1cs`]).
#[derive(Clone, Copy)]
pub struct R1csCircuit<'a, F: ark_ff::PrimeField> {
    /// The constraint system.
    pub r1cs: &'a crate::R1cs<F>,
    /// The values of every wire (a `.wtns`), if proving.
    pub witness: Option<&'a [F]>,
}

impl<F: ark_ff::PrimeField> ConstraintSynthesizer<F> for R1csCircuit<'_, F> {
    fn generate_constraints(
        self,
        cs: ark_relations::gr1cs::ConstraintSystemRef<F>,
    ) -> Result<(), ark_relations::gr1cs::SynthesisError> {
        use ark_relations::gr1cs::{LinearCombination, SynthesisError, Variable};
        let r = self.r1cs;
        if self.witness.is_some_and(|w| w.len() != r.n_wires) {
            return Err(SynthesisError::AssignmentMissing);
        }
        let value = |i: usize| {
            move || {
                self.witness
                    .map(|w| w[i])
                    .ok_or(SynthesisError::AssignmentMissing)
            }
        };
        let mut vars = Vec::with_capacity(r.n_wires);
        vars.push(Variable::One);
        for i in 1..=r.n_public() {
            vars.push(cs.new_input_variable(value(i))?);
        }
        for i in r.n_public() + 1..r.n_wires {
            vars.push(cs.new_witness_variable(value(i))?);
        }
        let lc = |terms: &[(usize, F)]| -> LinearCombination<F> {
            let mut l = LinearCombination(terms.iter().map(|&(w, c)| (c, vars[w])).collect());
            l.compactify();
            l
        };
        for [a, b, c] in &r.constraints {
            cs.enforce_r1cs_constraint(|| lc(a), || lc(b), || lc(c))?;
        }
        Ok(())
    }
}

/// A test key for a circom `.r1cs` (BN254): arkworks' Groth16 setup with the
/// circom reduction over [`R1csCircuit`], written as a `.zkey` that snarkjs,
/// rapidsnark and zkaccel prove with, and its proving key.
///
/// **Not for production**: no powers-of-tau ceremony, the secrets come from
/// `rng`, whoever knows them can forge proofs. For benchmarks of circuits
/// too large for a quick snarkjs ceremony (a 2^20 `powersoftau prepare
/// phase2` takes hours).
pub fn setup_r1cs<E, R>(
    r1cs: &crate::R1cs<E::ScalarField>,
    rng: &mut R,
) -> Result<(ProvingKey<E>, Vec<u8>), CircomError>
where
    E: CircomCurve,
    R: RngCore + CryptoRng,
{
    let synth = |e: ark_relations::gr1cs::SynthesisError| {
        CircomError::Prove(zkaccel_groth16::Groth16Error::Synthesis(e))
    };
    let circuit = R1csCircuit {
        r1cs,
        witness: None,
    };
    let (pk, _) = <ark_groth16::Groth16<E, CircomReduction> as SNARK<E::ScalarField>>::circuit_specific_setup(circuit, rng)
        .map_err(synth)?;
    let (cs, m) = synthesize(circuit, SynthesisMode::Setup)?;
    let zkey = write_zkey(&pk, &m, cs.num_constraints())?;
    Ok((pk, zkey))
}
