//! [`CircomProver`] as a circuit of the proving service
//! (`zkaccel-prover serve`, crate zkaccel-service): a request body becomes
//! a witness (from `input.json` through the circuit's wasm or circom's C++
//! generator, or a `.wtns` file), the witness a proof, and the proof is verified against the key
//! before snarkjs' `{proof, publicSignals}` JSON is returned.

use crate::{
    native_witness_of, proof_json, public_json, read_wtns, CircomCurve, CircomError, CircomProver,
};
use std::time::Instant;
use zkaccel_service::{Body, ErrorKind, JobError, Proved};
use zkaccel_witness::{Inputs, WitnessError};

/// A served circuit: its prover (with its witness calculator, if it was
/// given one) and its name, for messages.
pub struct ServedCircuit<E: CircomCurve> {
    name: String,
    prover: CircomProver<E>,
    /// circom's C++ witness generator, used for `input.json` bodies instead
    /// of the wasm calculator.
    witness_bin: Option<std::path::PathBuf>,
}

impl<E: CircomCurve> ServedCircuit<E> {
    /// Serves `prover` under `name`.
    pub fn new(name: impl Into<String>, prover: CircomProver<E>) -> Self {
        ServedCircuit {
            name: name.into(),
            prover,
            witness_bin: None,
        }
    }

    /// Computes the witnesses of `input.json` bodies with circom's C++
    /// generator `bin` (`circom --c`, built; as rapidsnark's proverServer
    /// and `fullprove --witness-bin` do) instead of the wasm calculator. The
    /// body is checked as JSON of numbers first (400); a generator that
    /// fails afterwards (a failed assertion, a missing signal: it does not
    /// say which) is a 422 with what it printed.
    pub fn with_witness_bin(mut self, bin: impl Into<std::path::PathBuf>) -> Self {
        self.witness_bin = Some(bin.into());
        self
    }

    fn witness(&self, body: &Body) -> Result<Vec<E::ScalarField>, JobError> {
        let bad = |m: String| JobError::new(ErrorKind::BadRequest, m);
        let w = match body {
            Body::Wtns(bytes) => read_wtns::<E::ScalarField>(bytes)
                .map_err(|e| bad(format!("the .wtns body: {e}")))?,
            Body::Inputs(bytes) => {
                let text = std::str::from_utf8(bytes)
                    .map_err(|e| bad(format!("input.json is not UTF-8: {e}")))?;
                let inputs = Inputs::from_json(text).map_err(|e| witness_error(&self.name, e))?;
                match &self.witness_bin {
                    Some(bin) => native_witness_of::<E::ScalarField>(bin, bytes).map_err(|e| {
                        JobError::new(ErrorKind::Unsatisfied, format!("{}: {e}", self.name))
                    })?,
                    None => self
                        .prover
                        .calculate_witness(&inputs)
                        .map_err(|e| circom_error(&self.name, e))?,
                }
            }
        };
        self.prover
            .check_witness(&w)
            .map_err(|e| bad(format!("{}: {e}", self.name)))?;
        Ok(w)
    }
}

/// How a witness failure is answered: the request's fault (400), the
/// circuit's assertion (422), the time limit (504), or ours (500).
fn witness_error(name: &str, e: WitnessError) -> JobError {
    let kind = match &e {
        WitnessError::Json(_)
        | WitnessError::UnknownSignal { .. }
        | WitnessError::WrongCount { .. }
        | WitnessError::NotANumber { .. }
        | WitnessError::MissingInputs { .. } => ErrorKind::BadRequest,
        WitnessError::TimeLimit => ErrorKind::Deadline,
        WitnessError::Circuit { .. } => ErrorKind::Unsatisfied,
        _ => ErrorKind::Internal,
    };
    JobError::new(kind, format!("{name}: {e}"))
}

fn circom_error(name: &str, e: CircomError) -> JobError {
    match e {
        CircomError::Witness(w) => witness_error(name, w),
        e => JobError::new(ErrorKind::Internal, format!("{name}: {e}")),
    }
}

impl<E: CircomCurve> zkaccel_service::Circuit for ServedCircuit<E> {
    fn prove(&self, body: &Body) -> Result<Proved, JobError> {
        let t = Instant::now();
        let witness = self.witness(body)?;
        let witness_time = matches!(body, Body::Inputs(_)).then(|| t.elapsed());
        let t = Instant::now();
        let out = self
            .prover
            .prove(&witness, &mut rand::rngs::OsRng)
            .map_err(|e| circom_error(&self.name, e))?;
        let prove = t.elapsed();
        let t = Instant::now();
        let ok = self
            .prover
            .verify(&out.proof, &out.public)
            .map_err(|e| circom_error(&self.name, e))?;
        if !ok {
            return Err(JobError::new(
                ErrorKind::Unsatisfied,
                format!(
                    "{}: the proof does not verify: the witness does not satisfy the circuit's constraints",
                    self.name
                ),
            ));
        }
        let verify = t.elapsed();
        let json = format!(
            r#"{{"proof":{},"publicSignals":{}}}"#,
            proof_json(&out.proof),
            public_json::<E>(&out.public)
        );
        Ok(Proved {
            json,
            witness: witness_time,
            prove,
            verify,
        })
    }

    fn takes_inputs(&self) -> bool {
        self.prover.calculator().is_some() || self.witness_bin.is_some()
    }
}
