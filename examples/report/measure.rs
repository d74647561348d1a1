//! The workloads of the report: each runs zkaccel and arkworks 0.6 on the
//! same inputs, checks the results equal (an error otherwise: no ratio is
//! ever reported from a run whose results differ), then times both
//! interleaved and returns the medians.

use crate::timing::interleaved;
use ark_bn254::{Bn254, Fr, G1Affine, G1Projective};
use ark_ec::short_weierstrass::Projective;
use ark_ec::{PrimeGroup, VariableBaseMSM};
use ark_ff::UniformRand;
use ark_groth16::ProvingKey;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem};
use ark_serialize::CanonicalSerialize;
use ark_snark::SNARK;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::cpu::{mul_scalar_with, CurveMul, FormulaSet, Plain, ScalarMulMethod};
use zkaccel::groth16::{backend, Groth16};
use zkaccel::ntt::NttDomain;

/// Medians (ms) of one comparison.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    pub ours: f64,
    pub theirs: f64,
}

impl Pair {
    pub fn speedup(&self) -> f64 {
        self.theirs / self.ours
    }
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// `count` scalar multiplications by zkaccel's `method` and by arkworks'
/// `Projective * Fr`, on the same random points and scalars; ms per op.
pub fn scalar_mul<P: CurveMul>(
    method: ScalarMulMethod,
    count: usize,
    rounds: usize,
) -> Result<Pair, String> {
    let mut r = rng(1);
    let inputs: Vec<(Projective<P>, P::ScalarField)> = (0..count)
        .map(|_| {
            (
                Projective::<P>::generator() * P::ScalarField::rand(&mut r),
                P::ScalarField::rand(&mut r),
            )
        })
        .collect();
    let set = FormulaSet::for_curve::<P>();
    for (p, k) in &inputs {
        let ours = mul_scalar_with(p, k, method, set, &mut Plain).map_err(|e| e.to_string())?;
        if ours != *p * k {
            return Err(format!(
                "scalar multiplication ({method:?}) differs from arkworks"
            ));
        }
    }
    let (a, b) = interleaved(
        rounds,
        || {
            for (p, k) in &inputs {
                black_box(
                    mul_scalar_with(black_box(p), black_box(k), method, set, &mut Plain).ok(),
                );
            }
        },
        || {
            for (p, k) in &inputs {
                let _ = black_box(*black_box(p) * black_box(k));
            }
        },
    );
    Ok(Pair {
        ours: a / count as f64,
        theirs: b / count as f64,
    })
}

/// Random BN254 G1 bases (a random progression, normalised at once).
pub fn bases(n: usize) -> Vec<G1Affine> {
    crate::inputs::progression(n, &mut rng(2))
}

/// The MSM inputs of the grid.
#[derive(Clone, Copy, Debug)]
pub enum Density {
    /// Every scalar random, full width.
    Dense,
    /// ceil(sqrt(n)) random scalars, the rest zero (the paper's Table 9a).
    Sqrt,
    /// ceil(n/1000) random scalars (Table 9c).
    PerMille,
}

impl Density {
    pub fn label(self) -> &'static str {
        match self {
            Density::Dense => "dense",
            Density::Sqrt => "sqrt(n) non-zero",
            Density::PerMille => "n/1000 non-zero",
        }
    }
}

/// BN254 G1 MSM, zkaccel's `msm` (Auto) against arkworks' `VariableBaseMSM::msm`.
pub fn msm(bases: &[G1Affine], density: Density, rounds: usize) -> Result<Pair, String> {
    let n = bases.len();
    let mut r = rng(3);
    let nonzero = match density {
        Density::Dense => n,
        Density::Sqrt => (n as f64).sqrt().ceil() as usize,
        Density::PerMille => n.div_ceil(1000),
    };
    let mut scalars = vec![Fr::from(0u64); n];
    if nonzero == n {
        scalars.iter_mut().for_each(|s| *s = Fr::rand(&mut r));
    } else {
        for _ in 0..nonzero {
            let i = r.gen_range(0..n);
            scalars[i] = Fr::rand(&mut r);
        }
    }
    let want = G1Projective::msm(bases, &scalars).map_err(|e| format!("arkworks msm: {e:?}"))?;
    if zkaccel::cpu::msm(bases, &scalars).map_err(|e| e.to_string())? != want {
        return Err(format!(
            "MSM ({}, n = {n}) differs from arkworks",
            density.label()
        ));
    }
    let (a, b) = interleaved(
        rounds,
        || {
            black_box(zkaccel::cpu::msm(black_box(bases), black_box(&scalars)).ok());
        },
        || {
            black_box(G1Projective::msm(black_box(bases), black_box(&scalars)).ok());
        },
    );
    Ok(Pair { ours: a, theirs: b })
}

/// 64-bit scalars: zkaccel's `msm` (which detects the width) against
/// arkworks' dedicated `msm_u64`.
pub fn msm_u64(bases: &[G1Affine], rounds: usize) -> Result<Pair, String> {
    let mut r = rng(4);
    let small: Vec<u64> = (0..bases.len()).map(|_| r.gen()).collect();
    let scalars: Vec<Fr> = small.iter().map(|&k| Fr::from(k)).collect();
    let want = G1Projective::msm_u64(bases, &small);
    if zkaccel::cpu::msm(bases, &scalars).map_err(|e| e.to_string())? != want {
        return Err("64-bit MSM differs from arkworks".into());
    }
    let (a, b) = interleaved(
        rounds,
        || {
            black_box(zkaccel::cpu::msm(black_box(bases), black_box(&scalars)).ok());
        },
        || {
            let _ = black_box(G1Projective::msm_u64(black_box(bases), black_box(&small)));
        },
    );
    Ok(Pair { ours: a, theirs: b })
}

/// Forward NTT of 2^log_n BN254 Fr values: zkaccel's `NttDomain` against
/// ark-poly's `Radix2EvaluationDomain`.
pub fn ntt(log_n: u32, rounds: usize) -> Result<Pair, String> {
    let n = 1usize << log_n;
    let mut r = rng(5);
    let v: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut r)).collect();
    let ours = NttDomain::<Fr>::new(n).ok_or("no NTT domain")?;
    let theirs = Radix2EvaluationDomain::<Fr>::new(n).ok_or("no radix-2 domain")?;
    if ours.fft(&v) != theirs.fft(&v) {
        return Err(format!("NTT of 2^{log_n} differs from ark-poly"));
    }
    let (mut a_buf, mut b_buf) = (v.clone(), v.clone());
    let (a, b) = interleaved(
        rounds,
        || {
            a_buf.copy_from_slice(&v);
            ours.fft_in_place(black_box(&mut a_buf));
        },
        || {
            b_buf.copy_from_slice(&v);
            theirs.fft_in_place(black_box(&mut b_buf));
        },
    );
    Ok(Pair { ours: a, theirs: b })
}

/// A Groth16 workload: constraint count and the prove medians.
pub struct ProveRow {
    pub constraints: usize,
    pub pair: Pair,
}

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v)
        .expect("serialise into a Vec");
    v
}

/// Proves `circuit` with stock ark-groth16 and with zkaccel's prover (CPU
/// backend) on one key and seed; the proofs must be byte-identical and verify.
pub fn groth16<C>(circuit: C, public: &[Fr], rounds: usize) -> Result<ProveRow, String>
where
    C: ConstraintSynthesizer<Fr> + Clone,
{
    let cs = ConstraintSystem::<Fr>::new_ref();
    circuit
        .clone()
        .generate_constraints(cs.clone())
        .map_err(|e| e.to_string())?;
    let constraints = cs.num_constraints();
    let (pk, vk): (ProvingKey<Bn254>, _) =
        ark_groth16::Groth16::<Bn254>::circuit_specific_setup(circuit.clone(), &mut rng(6))
            .map_err(|e| e.to_string())?;
    let stock = ark_groth16::Groth16::<Bn254>::prove(&pk, circuit.clone(), &mut rng(7))
        .map_err(|e| e.to_string())?;
    let ours = Groth16::<Bn254, backend::Cpu>::prove(&pk, circuit.clone(), &mut rng(7))
        .map_err(|e| e.to_string())?;
    if bytes(&stock) != bytes(&ours) {
        return Err("zkaccel's proof differs from stock ark-groth16's".into());
    }
    if !ark_groth16::Groth16::<Bn254>::verify(&vk, public, &ours).map_err(|e| e.to_string())? {
        return Err("the proof does not verify".into());
    }
    let (a, b) = interleaved(
        rounds,
        || {
            black_box(
                Groth16::<Bn254, backend::Cpu>::prove(&pk, circuit.clone(), &mut rng(7)).ok(),
            );
        },
        || {
            black_box(ark_groth16::Groth16::<Bn254>::prove(&pk, circuit.clone(), &mut rng(7)).ok());
        },
    );
    Ok(ProveRow {
        constraints,
        pair: Pair { ours: a, theirs: b },
    })
}
