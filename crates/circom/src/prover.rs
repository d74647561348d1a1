//! [`CircomProver`]: a decoded zkey kept across many proofs.

use crate::curve::CircomCurve;
use crate::error::CircomError;
use crate::points::ZkeyMap;
use crate::zkey::{map_zkey, read_zkey, read_zkey_from, ProverKey, Zkey, ZkeyOptions};
use ark_ff::{One, UniformRand};
use ark_groth16::{PreparedVerifyingKey, Proof};
use ark_std::rand::RngCore;
use std::time::Duration;
use zkaccel_groth16::clock::Stopwatch;
use zkaccel_groth16::{
    backend::{Auto, BackendChoice, Cpu, Cuda},
    Backend, Groth16, MatrixWitness, ProofPart, ProofSums, ProofTimings, Qap, ResidentKey,
};

/// A proof with its public signals and the time of each phase.
#[derive(Clone, Debug)]
pub struct CircomProof<E: CircomCurve> {
    /// The Groth16 proof.
    pub proof: Proof<E>,
    /// The public signals (`witness[1..=nPublic]`, as `public.json`).
    pub public: Vec<E::ScalarField>,
    /// The time of each phase (no synthesis: `timings.synthesis` is zero).
    pub timings: ProofTimings,
    /// How long computing the witness took ([`CircomProver::prove_inputs`];
    /// zero when the witness was given).
    pub witness_time: Duration,
}

/// Proves circom circuits with a snarkjs zkey decoded once.
///
/// ```no_run
/// use zkaccel_circom::{CircomProver, read_wtns};
/// use zkaccel_groth16::Backend;
/// let prover = CircomProver::<ark_bn254::Bn254>::from_zkey_file("circuit.zkey", Backend::Auto)?;
/// let witness = read_wtns(&std::fs::read("witness.wtns").unwrap())?;
/// let out = prover.prove(&witness, &mut rand::rngs::OsRng)?;
/// assert!(prover.verify(&out.proof, &out.public)?);
/// # Ok::<(), zkaccel_circom::CircomError>(())
/// ```
pub struct CircomProver<E: CircomCurve> {
    // Dropped before the key (its device memory is freed first; it holds
    // no borrow of the key).
    resident: Option<ResidentKey<E>>,
    resident_error: Option<String>,
    zkey: ProverKey<E>,
    pvk: PreparedVerifyingKey<E>,
    backend: Backend,
    load_time: Duration,
    #[cfg(feature = "witness")]
    pub(crate) calculator: Option<zkaccel_witness::WitnessCalculator>,
}

impl<E: CircomCurve> CircomProver<E> {
    /// Decodes a zkey from its bytes (see [`read_zkey`]).
    pub fn from_zkey_bytes(
        bytes: &[u8],
        backend: Backend,
        opts: ZkeyOptions,
    ) -> Result<Self, CircomError> {
        let start = Stopwatch::start();
        let zkey = read_zkey::<E>(bytes, opts)?;
        Ok(Self::from_parts(zkey, backend, start.elapsed()))
    }

    /// Maps the zkey at `path` and proves from its points and coefficients
    /// where they lie in the file ([`map_zkey`]: every one is still
    /// checked; the sections the layout allows are not copied), with default
    /// options.
    /// The file must not change while the prover lives ([`ZkeyMap`]);
    /// [`CircomProver::from_zkey_reader`] decodes a copy instead. The load
    /// time covers mapping, checking and decoding.
    pub fn from_zkey_file(
        path: impl AsRef<std::path::Path>,
        backend: Backend,
    ) -> Result<Self, CircomError> {
        let path = path.as_ref();
        let io = |e| CircomError::io(path.display().to_string(), e);
        let start = Stopwatch::start();
        let map = ZkeyMap::new(&std::fs::File::open(path).map_err(io)?).map_err(io)?;
        Self::from_zkey_map(&map, backend, ZkeyOptions::default())
            .map(|p| p.with_load_time(start.elapsed()))
    }

    /// A prover on a mapped zkey ([`map_zkey`]); the prover keeps the map
    /// for as long as it lives.
    pub fn from_zkey_map(
        map: &ZkeyMap,
        backend: Backend,
        opts: ZkeyOptions,
    ) -> Result<Self, CircomError> {
        let start = Stopwatch::start();
        let key = map_zkey::<E>(map, opts)?;
        Ok(Self::from_key(key, backend, start.elapsed()))
    }

    /// Reads and decodes a zkey from a seekable reader ([`read_zkey_from`]).
    pub fn from_zkey_reader(
        reader: impl std::io::Read + std::io::Seek + Send,
        backend: Backend,
        opts: ZkeyOptions,
    ) -> Result<Self, CircomError> {
        let start = Stopwatch::start();
        let zkey = read_zkey_from::<E>(reader, opts)?;
        Ok(Self::from_parts(zkey, backend, start.elapsed()))
    }

    /// Reads a zkey from `reader` (to its end; a seekable reader is better
    /// given to [`CircomProver::from_zkey_reader`], which holds no copy).
    pub fn from_zkey(
        mut reader: impl std::io::Read,
        backend: Backend,
    ) -> Result<Self, CircomError> {
        let start = Stopwatch::start();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| CircomError::io("zkey", e))?;
        let zkey = read_zkey::<E>(&bytes, ZkeyOptions::default())?;
        Ok(Self::from_parts(zkey, backend, start.elapsed()))
    }

    /// A prover over an already decoded key.
    pub fn from_parts(zkey: Zkey<E>, backend: Backend, load_time: Duration) -> Self {
        Self::from_key(zkey.into(), backend, load_time)
    }

    /// A prover over a key read by [`map_zkey`] (or converted from a
    /// [`Zkey`]). Where the backend resolves to a GPU (BN254, feature
    /// `cuda`), the key's G1 queries are uploaded to it now and stay there
    /// for every proof ([`ResidentKey`]); if that fails (too little device
    /// memory, say), proofs take the backend's per-proof path and
    /// [`CircomProver::resident_error`] says why (also logged, level
    /// warn).
    pub fn from_key(zkey: ProverKey<E>, backend: Backend, load_time: Duration) -> Self {
        let pvk = ark_groth16::prepare_verifying_key(&zkey.vk);
        let (resident, resident_error) = match backend {
            Backend::Cpu => (None, None),
            _ => match ResidentKey::upload(zkey.proving_key(), backend) {
                Ok(r) => (r, None),
                Err(e) => {
                    log::warn!("the key's G1 queries stay on the host: {e}");
                    (None, Some(e.to_string()))
                }
            },
        };
        CircomProver {
            resident,
            resident_error,
            zkey,
            pvk,
            backend,
            load_time,
            #[cfg(feature = "witness")]
            calculator: None,
        }
    }

    /// Whether the key's G1 queries are kept on a GPU across proofs, and
    /// which.
    pub fn resident_device(&self) -> Option<&str> {
        self.resident.as_ref().map(|r| r.device())
    }

    /// Why the key's G1 queries could not be kept on the GPU the backend
    /// resolved to, if they could not.
    pub fn resident_error(&self) -> Option<&str> {
        self.resident_error.as_deref()
    }

    fn with_load_time(mut self, load_time: Duration) -> Self {
        self.load_time = load_time;
        self
    }

    /// The key.
    pub fn zkey(&self) -> &ProverKey<E> {
        &self.zkey
    }

    /// How long reading and decoding the key took.
    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    /// Checks a witness against the key: its length is `nVars` and its
    /// first value the constant one (circom's wire 0).
    pub fn check_witness(&self, witness: &[E::ScalarField]) -> Result<(), CircomError> {
        let n = self.zkey.header.n_vars;
        if witness.len() != n {
            return Err(CircomError::Mismatch(format!(
                "invalid witness length: the zkey has {n} signals, the witness {}",
                witness.len()
            )));
        }
        if !witness[0].is_one() {
            return Err(CircomError::Mismatch(
                "witness[0] is not 1 (circom's constant signal): not a circom witness".into(),
            ));
        }
        Ok(())
    }

    /// A proof with randomness from `rng` (two scalars, as snarkjs and
    /// ark-groth16 draw them).
    pub fn prove<R: RngCore>(
        &self,
        witness: &[E::ScalarField],
        rng: &mut R,
    ) -> Result<CircomProof<E>, CircomError> {
        let r = E::ScalarField::rand(rng);
        let s = E::ScalarField::rand(rng);
        self.prove_with(witness, r, s)
    }

    /// A proof with the prover randomness `r`, `s`: byte-identical to
    /// ark-groth16's with ark-circom's `CircomReduction` for the same key,
    /// matrices and `r`, `s` on BN254 (on BLS12-381 the key's domain is
    /// ordered by snarkjs' roots of unity, see [`zkaccel_groth16::Qap::Snarkjs`]).
    pub fn prove_with(
        &self,
        witness: &[E::ScalarField],
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<CircomProof<E>, CircomError> {
        self.check_witness(witness)?;
        let z = &self.zkey;
        let res = self.resident.as_ref();
        let (proof, timings) = match self.backend {
            Backend::Cpu => prove_on::<E, Cpu>(z, res, witness, r, s),
            Backend::Cuda => prove_on::<E, Cuda>(z, res, witness, r, s),
            Backend::Auto => prove_on::<E, Auto>(z, res, witness, r, s),
        }?;
        Ok(CircomProof {
            proof,
            public: witness[1..z.num_inputs()].to_vec(),
            timings,
            witness_time: Duration::ZERO,
        })
    }

    /// One share of a proof's work ([`ProofPart`]) on the CPU: for provers
    /// in separate processes, each with its own copy of the key (the npm
    /// package's workers). [`CircomProver::assemble`] finishes the proof
    /// from every share's sums ([`ProofSums::merge`]).
    pub fn prove_part(
        &self,
        witness: &[E::ScalarField],
        part: ProofPart,
    ) -> Result<ProofSums<E>, CircomError> {
        self.check_witness(witness)?;
        let z = &self.zkey;
        Groth16::<E, Cpu>::prove_part(z.proving_key(), self.matrix_witness(witness), part)
            .map_err(CircomError::from)
    }

    /// The witness map's quotient of `witness` alone ([`Groth16::quotient`]):
    /// the H MSM's scalars, one per term of the key's H query, so that one
    /// process computes it and several share its MSM
    /// ([`CircomProver::h_part`]).
    pub fn quotient(&self, witness: &[E::ScalarField]) -> Result<Vec<E::ScalarField>, CircomError> {
        self.check_witness(witness)?;
        Groth16::<E, Cpu>::quotient(self.zkey.proving_key(), self.matrix_witness(witness))
            .map_err(CircomError::from)
    }

    /// The witness map's constraint evaluations of `witness` that `which`
    /// selects (A z, B z, C z), each on the quotient's coset
    /// ([`Groth16::quotient_columns`]): [`CircomProver::quotient`] split
    /// between two processes.
    pub fn quotient_columns(
        &self,
        witness: &[E::ScalarField],
        which: [bool; 3],
    ) -> Result<[Option<Vec<E::ScalarField>>; 3], CircomError> {
        self.check_witness(witness)?;
        Groth16::<E, Cpu>::quotient_columns(
            self.zkey.proving_key(),
            self.matrix_witness(witness),
            which,
        )
        .map_err(CircomError::from)
    }

    /// [`CircomProver::quotient`] from the three columns of
    /// [`CircomProver::quotient_columns`] ([`Groth16::quotient_from_columns`]).
    pub fn quotient_from_columns(
        &self,
        witness: &[E::ScalarField],
        columns: [Vec<E::ScalarField>; 3],
    ) -> Result<Vec<E::ScalarField>, CircomError> {
        self.check_witness(witness)?;
        Groth16::<E, Cpu>::quotient_from_columns(
            self.zkey.proving_key(),
            self.matrix_witness(witness),
            columns,
        )
        .map_err(CircomError::from)
    }

    /// The H MSM over the H query's terms `start..start + scalars.len()`
    /// ([`Groth16::h_part`]): `scalars` are those terms of
    /// [`CircomProver::quotient`]; a share's sums, for
    /// [`CircomProver::assemble`]. A range past the query is an error.
    pub fn h_part(
        &self,
        start: usize,
        scalars: &[E::ScalarField],
    ) -> Result<ProofSums<E>, CircomError> {
        Groth16::<E, Cpu>::h_part(self.zkey.proving_key(), start, scalars)
            .map_err(CircomError::from)
    }

    /// The proof from every share's sums of `witness`, with randomness
    /// drawn from `rng` as [`CircomProver::prove`] draws it: for the same
    /// `rng` state, the proof [`CircomProver::prove`] gives, byte for byte.
    /// Its timings are zero (the shares ran elsewhere).
    pub fn assemble<R: RngCore>(
        &self,
        witness: &[E::ScalarField],
        sums: ProofSums<E>,
        rng: &mut R,
    ) -> Result<CircomProof<E>, CircomError> {
        self.check_witness(witness)?;
        let r = E::ScalarField::rand(rng);
        let s = E::ScalarField::rand(rng);
        let z = &self.zkey;
        let proof = Groth16::<E, Cpu>::assemble_sums(
            z.proving_key(),
            self.matrix_witness(witness),
            sums,
            r,
            s,
        )?;
        Ok(CircomProof {
            proof,
            public: witness[1..z.num_inputs()].to_vec(),
            timings: ProofTimings::default(),
            witness_time: Duration::ZERO,
        })
    }

    fn matrix_witness<'a>(
        &'a self,
        witness: &'a [E::ScalarField],
    ) -> MatrixWitness<'a, E::ScalarField, crate::zkey::KeyMatrix<E>> {
        let z = &self.zkey;
        MatrixWitness {
            qap: Qap::Snarkjs,
            matrices: &z.matrices,
            num_inputs: z.num_inputs(),
            num_constraints: z.num_constraints,
            full_assignment: witness,
        }
    }

    /// Whether `proof` verifies for `public` under the key's own verifying
    /// key (a pairing check: milliseconds).
    pub fn verify(&self, proof: &Proof<E>, public: &[E::ScalarField]) -> Result<bool, CircomError> {
        verify_prepared(&self.pvk, proof, public)
    }
}

/// A proof on the backend `B`. The key is snarkjs': its domain is ordered by
/// snarkjs' roots of unity ([`Qap::Snarkjs`]).
fn prove_on<E: CircomCurve, B: BackendChoice>(
    z: &ProverKey<E>,
    resident: Option<&ResidentKey<E>>,
    witness: &[E::ScalarField],
    r: E::ScalarField,
    s: E::ScalarField,
) -> Result<(Proof<E>, ProofTimings), zkaccel_groth16::Groth16Error> {
    let mut pk = z.proving_key();
    pk.resident = resident;
    Groth16::<E, B>::create_proof_with_key_ref(
        pk,
        Qap::Snarkjs,
        &z.matrices,
        z.num_inputs(),
        z.num_constraints,
        witness,
        r,
        s,
    )
}

/// Groth16 verification with the public-input count checked.
pub(crate) fn verify_prepared<E: CircomCurve>(
    pvk: &PreparedVerifyingKey<E>,
    proof: &Proof<E>,
    public: &[E::ScalarField],
) -> Result<bool, CircomError> {
    let expected = pvk.vk.gamma_abc_g1.len().saturating_sub(1);
    if public.len() != expected {
        return Err(CircomError::Mismatch(format!(
            "{} public signals, the verification key has {expected}",
            public.len()
        )));
    }
    ark_groth16::Groth16::<E>::verify_proof(pvk, proof, public)
        .map_err(|e| CircomError::Prove(e.into()))
}

/// Whether `proof` verifies for `public` under `vk`.
pub fn verify<E: CircomCurve>(
    vk: &ark_groth16::VerifyingKey<E>,
    proof: &Proof<E>,
    public: &[E::ScalarField],
) -> Result<bool, CircomError> {
    verify_prepared(&ark_groth16::prepare_verifying_key(vk), proof, public)
}
