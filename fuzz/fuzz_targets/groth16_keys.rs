//! Proving keys and proofs from untrusted bytes, handed to zkaccel's prover
//! and to the verifier: in every ark-serialize mode (compressed or not,
//! validated or not) deserialization may fail, but nothing may panic, and
//! whatever key is accepted either gives a proof or a `Groth16Error`. A key
//! that deserializes to the genuine one must give the genuine proof.
//!
//! Unchecked mode (`Validate::No`) accepts points off the curve: the prover
//! then computes garbage without panicking, which is what the fuzzer checks;
//! SECURITY.md says to use validated mode for keys from elsewhere.
#![no_main]

use ark_bn254::{Bn254, Fr};
use ark_groth16::{Proof, ProvingKey, VerifyingKey};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use ark_snark::{CircuitSpecificSetupSNARK, SNARK};
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;
use std::sync::OnceLock;
use zkaccel_groth16::circuits::MimcChain;
use zkaccel_groth16::Groth16;

struct Fixture {
    circuit: MimcChain<Fr>,
    pk: ProvingKey<Bn254>,
    vk: VerifyingKey<Bn254>,
    proof: Proof<Bn254>,
}

const R: u64 = 3;
const S: u64 = 5;

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let circuit = MimcChain::<Fr>::new(Fr::from(7u64), 4);
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let (pk, vk) = Groth16::<Bn254>::setup(circuit.clone(), &mut rng).unwrap();
        let (proof, _) =
            Groth16::<Bn254>::create_proof(&pk, circuit.clone(), Fr::from(R), Fr::from(S)).unwrap();
        if std::env::var_os("ZKACCEL_FUZZ_WRITE_SEEDS").is_some() {
            write_seeds(&pk, &proof);
        }
        Fixture {
            circuit,
            pk,
            vk,
            proof,
        }
    })
}

/// The seed corpus: the genuine key and proof in both encodings, behind
/// the mode byte and the kind byte this target reads first.
fn write_seeds(pk: &ProvingKey<Bn254>, proof: &Proof<Bn254>) {
    let dir = std::path::Path::new("corpus/groth16_keys");
    std::fs::create_dir_all(dir).unwrap();
    for (mode, compress) in [(0u8, Compress::Yes), (1, Compress::No)] {
        for (kind, name) in [(0u8, "key"), (1, "proof")] {
            let mut bytes = vec![mode, kind];
            match kind {
                0 => pk.serialize_with_mode(&mut bytes, compress).unwrap(),
                _ => proof.serialize_with_mode(&mut bytes, compress).unwrap(),
            }
            let c = if mode == 0 {
                "compressed"
            } else {
                "uncompressed"
            };
            std::fs::write(dir.join(format!("seed-{name}-{c}")), bytes).unwrap();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let [mode, kind, bytes @ ..] = data else {
        return;
    };
    let compress = if mode & 1 == 0 {
        Compress::Yes
    } else {
        Compress::No
    };
    let validate = if mode & 2 == 0 {
        Validate::Yes
    } else {
        Validate::No
    };
    let public = f.circuit.public_inputs();
    if kind & 1 == 0 {
        let Ok(pk) = ProvingKey::<Bn254>::deserialize_with_mode(bytes, compress, validate) else {
            return;
        };
        let result =
            Groth16::<Bn254>::create_proof(&pk, f.circuit.clone(), Fr::from(R), Fr::from(S));
        if pk == f.pk {
            let (proof, _) = result.expect("the genuine key proves");
            assert_eq!(proof, f.proof, "same key, same randomness, same proof");
        } else if let Ok((proof, _)) = result {
            // Another key may still prove (garbage, if its points are off
            // the curve); the verifier must take it without a panic, and
            // under the genuine verifying key only the genuine proof (which
            // a change in an unused part of the key still gives) verifies.
            let _ = Groth16::<Bn254>::verify(&pk.vk, &public, &proof);
            if matches!(Groth16::<Bn254>::verify(&f.vk, &public, &proof), Ok(true)) {
                assert_eq!(proof, f.proof, "a tampered key gave another valid proof");
            }
        }
    } else {
        let Ok(proof) = Proof::<Bn254>::deserialize_with_mode(bytes, compress, validate) else {
            return;
        };
        let ok = Groth16::<Bn254>::verify(&f.vk, &public, &proof);
        if proof == f.proof {
            assert!(matches!(ok, Ok(true)), "the genuine proof verifies");
        } else if validate == Validate::Yes {
            assert!(!matches!(ok, Ok(true)), "a different valid proof verified");
        }
    }
});
