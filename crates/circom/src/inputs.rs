//! [`CircomProver`] from `input.json`: the circuit's wasm witness calculator
//! held by the prover, its witness proved without a `.wtns` in between
//! (feature `witness`).

use crate::curve::CircomCurve;
use crate::error::CircomError;
use crate::prover::{CircomProof, CircomProver};
use ark_std::rand::RngCore;
use zkaccel_groth16::clock::Stopwatch;
use zkaccel_witness::{Inputs, WitnessCalculator};

impl<E: CircomCurve> CircomProver<E> {
    /// Holds `calc` (the circuit's `circuit.wasm`, compiled) for
    /// [`CircomProver::prove_inputs`], after checking it against the key:
    /// the same prime as the key's scalar field and as many signals as the
    /// key's `nVars` (a wasm of another circuit, or another curve, is
    /// refused here rather than as a proof that does not verify).
    pub fn with_calculator(mut self, calc: WitnessCalculator) -> Result<Self, CircomError> {
        if !calc.is_field::<E::ScalarField>() {
            return Err(CircomError::Mismatch(format!(
                "the wasm computes in another prime than the zkey's scalar field ({}): a circuit compiled for another curve",
                E::NAME
            )));
        }
        let n = self.zkey().header.n_vars;
        if calc.witness_size() != n {
            return Err(CircomError::Mismatch(format!(
                "the wasm's witness has {} signals, the zkey {n}: the wasm and the zkey are of different circuits",
                calc.witness_size()
            )));
        }
        self.calculator = Some(calc);
        Ok(self)
    }

    /// The witness calculator given to [`CircomProver::with_calculator`].
    pub fn calculator(&self) -> Option<&WitnessCalculator> {
        self.calculator.as_ref()
    }

    /// The witness for `inputs`, from the held calculator.
    pub fn calculate_witness(&self, inputs: &Inputs) -> Result<Vec<E::ScalarField>, CircomError> {
        let calc = self.calculator.as_ref().ok_or_else(|| {
            CircomError::Mismatch("no witness calculator: give one with with_calculator".into())
        })?;
        Ok(calc.calculate::<E::ScalarField>(inputs)?)
    }

    /// A proof from the circuit's inputs: the witness computed in-process
    /// (its time in [`CircomProof::witness_time`]), then proved as
    /// [`CircomProver::prove`] proves it.
    pub fn prove_inputs<R: RngCore>(
        &self,
        inputs: &Inputs,
        rng: &mut R,
    ) -> Result<CircomProof<E>, CircomError> {
        let t = Stopwatch::start();
        let witness = self.calculate_witness(inputs)?;
        let witness_time = t.elapsed();
        let mut out = self.prove(&witness, rng)?;
        out.witness_time = witness_time;
        Ok(out)
    }
}
