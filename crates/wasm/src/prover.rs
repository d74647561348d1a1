//! [`KeyProver`]: a snarkjs zkey decoded once, of either curve, and the
//! proofs, public signals and checks the JavaScript API returns, as plain
//! Rust (tested natively; `lib.rs` only binds it).

use ark_bls12_381::Bls12_381;
use ark_bn254::Bn254;
use rand::SeedableRng;
use zkaccel_circom::{
    proof_json, public_json, read_proof_json, read_public_json, read_vkey_json, read_wtns,
    vkey_json, zkey_curve, zkey_curve_prefix, CircomCurve, CircomError, CircomProver, Curve,
    FileKind, ZkeyOptions, ZkeyStream,
};
use zkaccel_groth16::{Backend, ProofPart, ProofSums};

/// Where a proof's randomness (`r`, `s`) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Randomness {
    /// The operating system's generator (in JavaScript engines,
    /// `crypto.getRandomValues`): what every real proof uses.
    Os,
    /// ChaCha20 seeded with this number, as `zkaccel-prover --test-seed`
    /// draws it: reproducible proofs for tests, which are NOT
    /// zero-knowledge (anyone who knows the seed can test guesses of the
    /// witness).
    Seed(u64),
}

/// A proof as snarkjs writes it: `proof.json` and `public.json`, text for
/// text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofFiles {
    /// `proof.json` (`pi_a`, `pi_b`, `pi_c`, `protocol`, `curve`).
    pub proof: String,
    /// `public.json` (the public signals as decimal strings).
    pub public: String,
}

/// A zkey decoded once: BN254 (`bn128`) or BLS12-381 (`bls12381`), as its
/// header says.
pub enum KeyProver {
    /// A `bn128` key.
    Bn254(Box<CircomProver<Bn254>>),
    /// A `bls12381` key.
    Bls12_381(Box<CircomProver<Bls12_381>>),
}

impl KeyProver {
    /// Decodes a snarkjs Groth16 zkey from its bytes. Every coordinate and
    /// coefficient is range-checked; errors name the section and the point
    /// at fault.
    pub fn new(zkey: &[u8]) -> Result<Self, CircomError> {
        let opts = ZkeyOptions::default();
        // One thread here: the CPU backend (there is no GPU in a browser).
        let b = Backend::Cpu;
        Ok(match zkey_curve(zkey)? {
            Curve::Bn254 => {
                KeyProver::Bn254(Box::new(CircomProver::from_zkey_bytes(zkey, b, opts)?))
            }
            Curve::Bls12_381 => {
                KeyProver::Bls12_381(Box::new(CircomProver::from_zkey_bytes(zkey, b, opts)?))
            }
        })
    }

    /// snarkjs' name of the key's curve (`bn128`, `bls12381`).
    pub fn curve(&self) -> &'static str {
        match self {
            KeyProver::Bn254(_) => Bn254::NAME,
            KeyProver::Bls12_381(_) => Bls12_381::NAME,
        }
    }

    /// The number of signals a witness must have (the key's `nVars`).
    pub fn n_vars(&self) -> usize {
        match self {
            KeyProver::Bn254(p) => p.zkey().header.n_vars,
            KeyProver::Bls12_381(p) => p.zkey().header.n_vars,
        }
    }

    /// The number of terms of the key's H query (its domain size): the
    /// range a pool splits [`ProofPart::QuotientH`] shares over.
    pub fn h_terms(&self) -> usize {
        match self {
            KeyProver::Bn254(p) => p.zkey().header.domain_size,
            KeyProver::Bls12_381(p) => p.zkey().header.domain_size,
        }
    }

    /// The number of public signals (`nPublic`).
    pub fn n_public(&self) -> usize {
        match self {
            KeyProver::Bn254(p) => p.zkey().header.n_public,
            KeyProver::Bls12_381(p) => p.zkey().header.n_public,
        }
    }

    /// The key's verification key as snarkjs' `vkey.json`
    /// (`snarkjs zkey export verificationkey`).
    pub fn vkey_json(&self) -> String {
        match self {
            KeyProver::Bn254(p) => vkey_json(&p.zkey().vk),
            KeyProver::Bls12_381(p) => vkey_json(&p.zkey().vk),
        }
    }

    /// A proof from a `.wtns` file's bytes. The witness is checked against
    /// the key (length, `witness[0] = 1`, the key's prime) and the proof
    /// against the key's own verification key before it is returned: a
    /// witness that violates the circuit is an error
    /// ([`CircomError::ProofRejected`]), never a proof that does not verify.
    pub fn prove_wtns(&self, wtns: &[u8], rng: Randomness) -> Result<ProofFiles, CircomError> {
        match self {
            KeyProver::Bn254(p) => prove_one(p, wtns, rng),
            KeyProver::Bls12_381(p) => prove_one(p, wtns, rng),
        }
    }

    /// One share of the proof of a `.wtns` ([`ProofPart`]): its sums as
    /// bytes ([`crate::sums`]), for [`KeyProver::assemble_wtns`] on another
    /// copy of the same key.
    pub fn prove_part_wtns(&self, wtns: &[u8], part: ProofPart) -> Result<Vec<u8>, CircomError> {
        match self {
            KeyProver::Bn254(p) => part_one(p, wtns, part),
            KeyProver::Bls12_381(p) => part_one(p, wtns, part),
        }
    }

    /// The witness map's quotient of a `.wtns`, as bytes
    /// ([`crate::sums::scalars_to_bytes`]): the H MSM's scalars, for
    /// [`KeyProver::h_part`] on this or another copy of the same key.
    pub fn quotient_wtns(&self, wtns: &[u8]) -> Result<Vec<u8>, CircomError> {
        match self {
            KeyProver::Bn254(p) => quotient_one(p, wtns),
            KeyProver::Bls12_381(p) => quotient_one(p, wtns),
        }
    }

    /// The quotient's columns of a `.wtns` that `mask` selects (bit 0 A z,
    /// bit 1 B z, bit 2 C z), each on the quotient's coset: half of
    /// [`KeyProver::quotient_wtns`]'s work for one worker, the rest
    /// ([`QuotientColumns::to_bytes`]) from another, finished by
    /// [`KeyProver::quotient_from`]. A mask outside 0..8 is an error.
    pub fn quotient_columns(&self, wtns: &[u8], mask: u32) -> Result<QuotientColumns, CircomError> {
        if mask >= 8 {
            return Err(CircomError::Mismatch(format!(
                "quotient column mask {mask}: the columns are bits 0 (A), 1 (B) and 2 (C)"
            )));
        }
        let which = [mask & 1 != 0, mask & 2 != 0, mask & 4 != 0];
        Ok(match self {
            KeyProver::Bn254(p) => {
                QuotientColumns::Bn254(p.quotient_columns(&read_wtns(wtns)?, which)?)
            }
            KeyProver::Bls12_381(p) => {
                QuotientColumns::Bls12_381(p.quotient_columns(&read_wtns(wtns)?, which)?)
            }
        })
    }

    /// The quotient of a `.wtns` as bytes ([`KeyProver::quotient_wtns`]'s)
    /// from `held` (its columns computed here) and `others`: the bytes of
    /// the columns `held` lacks, in order A, B, C
    /// ([`QuotientColumns::to_bytes`] on another worker). Columns of
    /// another curve, length or count are errors.
    pub fn quotient_from(
        &self,
        wtns: &[u8],
        held: QuotientColumns,
        others: &[u8],
    ) -> Result<Vec<u8>, CircomError> {
        match (self, held) {
            (KeyProver::Bn254(p), QuotientColumns::Bn254(c)) => {
                quotient_from_one(p, wtns, c, others)
            }
            (KeyProver::Bls12_381(p), QuotientColumns::Bls12_381(c)) => {
                quotient_from_one(p, wtns, c, others)
            }
            _ => Err(CircomError::Mismatch(
                "quotient columns of another curve than the key's".into(),
            )),
        }
    }

    /// A share's sums as bytes ([`crate::sums`]): the H MSM over the H
    /// query's terms from `start` on, one per scalar of `scalars` (bytes of
    /// [`KeyProver::quotient_wtns`], those terms of it). Malformed scalars
    /// or a range past the query are errors.
    pub fn h_part(&self, start: usize, scalars: &[u8]) -> Result<Vec<u8>, CircomError> {
        match self {
            KeyProver::Bn254(p) => h_part_one(p, start, scalars),
            KeyProver::Bls12_381(p) => h_part_one(p, start, scalars),
        }
    }

    /// The proof of a `.wtns` from the sums of its shares (each the bytes
    /// of [`KeyProver::prove_part_wtns`]), checked against the key's
    /// verification key as [`KeyProver::prove_wtns`] checks it; with the
    /// same randomness, the same proof as [`KeyProver::prove_wtns`].
    pub fn assemble_wtns(
        &self,
        wtns: &[u8],
        shares: &[&[u8]],
        rng: Randomness,
    ) -> Result<ProofFiles, CircomError> {
        match self {
            KeyProver::Bn254(p) => assemble_one(p, wtns, shares, rng),
            KeyProver::Bls12_381(p) => assemble_one(p, wtns, shares, rng),
        }
    }
}

/// Some of the quotient's three columns on its coset
/// ([`KeyProver::quotient_columns`]), held by the worker that computed them.
pub enum QuotientColumns {
    /// A `bn128` key's.
    Bn254([Option<Vec<ark_bn254::Fr>>; 3]),
    /// A `bls12381` key's.
    Bls12_381([Option<Vec<ark_bls12_381::Fr>>; 3]),
}

impl QuotientColumns {
    /// The columns held, in order A, B, C, as bytes
    /// ([`crate::sums::scalars_to_bytes`]), for
    /// [`KeyProver::quotient_from`] on another copy of the key.
    pub fn to_bytes(&self) -> Vec<u8> {
        fn all<F: ark_ff::PrimeField>(c: &[Option<Vec<F>>; 3]) -> Vec<u8> {
            let held: Vec<F> = c.iter().flatten().flatten().copied().collect();
            crate::sums::scalars_to_bytes(&held)
        }
        match self {
            QuotientColumns::Bn254(c) => all(c),
            QuotientColumns::Bls12_381(c) => all(c),
        }
    }
}

/// A zkey arriving in chunks (a `fetch` body, a file read in pieces),
/// decoded as it comes ([`ZkeyStream`]): its first bytes name the curve,
/// then every chunk goes to that curve's stream, the point sections
/// decoded straight into the key, so the whole file is never held beside
/// its decoded form. [`KeyStream::finish`] gives the [`KeyProver`] that
/// [`KeyProver::new`] gives for the same bytes, or its error.
pub enum KeyStream {
    /// The first bytes, until they name the curve.
    Prefix(Vec<u8>),
    /// A `bn128` key.
    Bn254(Box<ZkeyStream<Bn254>>),
    /// A `bls12381` key.
    Bls12_381(Box<ZkeyStream<Bls12_381>>),
    /// A chunk was rejected.
    Failed,
}

impl Default for KeyStream {
    fn default() -> Self {
        KeyStream::Prefix(Vec::new())
    }
}

impl KeyStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next bytes of the file; a malformed file is an error as soon
    /// as the bytes that show it arrive, and every later call fails.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), CircomError> {
        let r = self.push_inner(chunk);
        if r.is_err() {
            *self = KeyStream::Failed;
        }
        r
    }

    /// [`KeyStream::push`]: once the prefix names the curve, that curve's
    /// stream with the prefix pushed.
    fn push_inner(&mut self, chunk: &[u8]) -> Result<(), CircomError> {
        let prefix = match self {
            KeyStream::Bn254(s) => return s.push(chunk),
            KeyStream::Bls12_381(s) => return s.push(chunk),
            KeyStream::Failed => return Err(rejected()),
            KeyStream::Prefix(p) => p,
        };
        prefix.extend_from_slice(chunk);
        let Some(curve) = zkey_curve_prefix(prefix)? else {
            return Ok(());
        };
        let prefix = std::mem::take(prefix);
        *self = match curve {
            Curve::Bn254 => KeyStream::Bn254(started(&prefix)?),
            Curve::Bls12_381 => KeyStream::Bls12_381(started(&prefix)?),
        };
        Ok(())
    }

    /// The decoded key, once every byte is in.
    pub fn finish(self) -> Result<KeyProver, CircomError> {
        let b = Backend::Cpu;
        let zero = std::time::Duration::ZERO;
        Ok(match self {
            // Too short to name a curve: the whole-file reader's error.
            KeyStream::Prefix(p) => KeyProver::new(&p)?,
            KeyStream::Bn254(s) => {
                KeyProver::Bn254(Box::new(CircomProver::from_key(s.finish()?, b, zero)))
            }
            KeyStream::Bls12_381(s) => {
                KeyProver::Bls12_381(Box::new(CircomProver::from_key(s.finish()?, b, zero)))
            }
            KeyStream::Failed => return Err(rejected()),
        })
    }
}

/// A stream of curve `E` with `prefix` pushed.
fn started<E: CircomCurve>(prefix: &[u8]) -> Result<Box<ZkeyStream<E>>, CircomError> {
    let mut s = ZkeyStream::new(ZkeyOptions::default());
    s.push(prefix)?;
    Ok(Box::new(s))
}

fn rejected() -> CircomError {
    CircomError::Format {
        file: FileKind::Zkey,
        msg: "an earlier chunk of this key was rejected".into(),
    }
}

fn part_one<E: CircomCurve>(
    prover: &CircomProver<E>,
    wtns: &[u8],
    part: ProofPart,
) -> Result<Vec<u8>, CircomError> {
    let witness = read_wtns::<E::ScalarField>(wtns)?;
    Ok(crate::sums::to_bytes(&prover.prove_part(&witness, part)?))
}

fn quotient_one<E: CircomCurve>(
    prover: &CircomProver<E>,
    wtns: &[u8],
) -> Result<Vec<u8>, CircomError> {
    let witness = read_wtns::<E::ScalarField>(wtns)?;
    Ok(crate::sums::scalars_to_bytes(&prover.quotient(&witness)?))
}

fn quotient_from_one<E: CircomCurve>(
    prover: &CircomProver<E>,
    wtns: &[u8],
    held: [Option<Vec<E::ScalarField>>; 3],
    others: &[u8],
) -> Result<Vec<u8>, CircomError> {
    let witness = read_wtns::<E::ScalarField>(wtns)?;
    let bad = |e: String| CircomError::Mismatch(format!("the quotient's other columns: {e}"));
    let rest = crate::sums::scalars_from_bytes::<E::ScalarField>(others).map_err(bad)?;
    let missing = held.iter().filter(|c| c.is_none()).count();
    // A column's length: a held one's, or (none held) a third of the rest.
    let n = match held.iter().flatten().next() {
        Some(c) => c.len(),
        None => rest.len() / 3,
    };
    if rest.len() != missing * n {
        return Err(bad(format!(
            "{} scalars, where {missing} columns of {n} were expected",
            rest.len()
        )));
    }
    // The missing columns from the rest, in order.
    let mut rest = rest.into_iter();
    let columns = held.map(|c| c.unwrap_or_else(|| rest.by_ref().take(n).collect()));
    Ok(crate::sums::scalars_to_bytes(
        &prover.quotient_from_columns(&witness, columns)?,
    ))
}

fn h_part_one<E: CircomCurve>(
    prover: &CircomProver<E>,
    start: usize,
    scalars: &[u8],
) -> Result<Vec<u8>, CircomError> {
    let scalars = crate::sums::scalars_from_bytes::<E::ScalarField>(scalars).map_err(|e| {
        CircomError::Mismatch(format!("the quotient's scalars from term {start}: {e}"))
    })?;
    Ok(crate::sums::to_bytes(&prover.h_part(start, &scalars)?))
}

fn assemble_one<E: CircomCurve>(
    prover: &CircomProver<E>,
    wtns: &[u8],
    shares: &[&[u8]],
    rng: Randomness,
) -> Result<ProofFiles, CircomError> {
    let witness = read_wtns::<E::ScalarField>(wtns)?;
    let mut decoded = Vec::with_capacity(shares.len());
    for (i, bytes) in shares.iter().enumerate() {
        let share = crate::sums::from_bytes::<E>(bytes)
            .map_err(|e| CircomError::Mismatch(format!("share {i} of the proof's sums: {e}")))?;
        decoded.push(share);
    }
    let sums = ProofSums::merge_all(decoded)?;
    let out = match rng {
        Randomness::Os => prover.assemble(&witness, sums, &mut rand::rngs::OsRng)?,
        Randomness::Seed(seed) => prover.assemble(
            &witness,
            sums,
            &mut rand_chacha::ChaCha20Rng::seed_from_u64(seed),
        )?,
    };
    if !prover.verify(&out.proof, &out.public)? {
        return Err(CircomError::ProofRejected);
    }
    Ok(ProofFiles {
        proof: proof_json(&out.proof),
        public: public_json::<E>(&out.public),
    })
}

fn prove_one<E: CircomCurve>(
    prover: &CircomProver<E>,
    wtns: &[u8],
    rng: Randomness,
) -> Result<ProofFiles, CircomError> {
    let witness = read_wtns::<E::ScalarField>(wtns)?;
    let out = match rng {
        Randomness::Os => prover.prove(&witness, &mut rand::rngs::OsRng)?,
        Randomness::Seed(seed) => {
            prover.prove(&witness, &mut rand_chacha::ChaCha20Rng::seed_from_u64(seed))?
        }
    };
    if !prover.verify(&out.proof, &out.public)? {
        return Err(CircomError::ProofRejected);
    }
    Ok(ProofFiles {
        proof: proof_json(&out.proof),
        public: public_json::<E>(&out.public),
    })
}

/// Whether `proof` (snarkjs' `proof.json`) verifies for `public`
/// (`public.json`) under `vkey` (`vkey.json`), on the curve the key names.
/// Malformed JSON, points off the curve or outside the subgroup, values
/// at or above the modulus and a public-signal count other than the key's
/// are errors; a well-formed proof that fails the pairing check is
/// `Ok(false)`.
pub fn verify_json(vkey: &str, public: &str, proof: &str) -> Result<bool, CircomError> {
    match zkaccel_circom::json_curve(vkey).as_deref() {
        Some("bn128") | Some("bn254") => verify_on::<Bn254>(vkey, public, proof),
        Some("bls12381") | Some("bls12-381") => verify_on::<Bls12_381>(vkey, public, proof),
        other => Err(CircomError::Mismatch(format!(
            "verification key: curve {other:?} is not one this prover knows (bn128, bls12381)"
        ))),
    }
}

fn verify_on<E: CircomCurve>(vkey: &str, public: &str, proof: &str) -> Result<bool, CircomError> {
    let vk = read_vkey_json::<E>(vkey)?;
    let public = read_public_json::<E>(public)?;
    let proof = read_proof_json::<E>(proof)?;
    zkaccel_circom::verify(&vk, &proof, &public)
}
