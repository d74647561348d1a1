//! Real circuits for tests, benchmarks and the `prove` example:
//! [`Sha256Circuit`] (ark-crypto-primitives' SHA-256 gadget over a
//! multi-block message), [`MerkleMembership`] (a depth-`d` path) and
//! [`MimcChain`] (a hash chain whose length sets the constraint count).
//!
//! The MiMC-style permutation `x -> (x + c_i)^5` with fixed round constants
//! shapes the constraint systems like real hash circuits do (three
//! multiplications per round); its constants are not a vetted parameter set,
//! so do not use it as a hash outside benchmarks.

use ark_crypto_primitives::crh::sha256::{constraints::Sha256Gadget, Sha256};
use ark_crypto_primitives::crh::CRHScheme;
use ark_ff::{PrimeField, ToConstraintField};
use ark_r1cs_std::{
    alloc::AllocVar, boolean::Boolean, eq::EqGadget, fields::fp::FpVar, fields::FieldVar,
    select::CondSelectGadget, uint8::UInt8,
};
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystemRef, SynthesisError};
use core::marker::PhantomData;

/// Round constant `i` of the MiMC-style permutation.
fn round_constant<F: PrimeField>(i: usize) -> F {
    let k = F::from(i as u64 + 1);
    k * k * k + F::from(0x6d69_6d63u64)
}

/// `rounds` rounds of `x -> (x + c_i)^5` on a native field element.
pub fn mimc<F: PrimeField>(mut x: F, rounds: usize) -> F {
    for i in 0..rounds {
        let t = x + round_constant::<F>(i);
        let t2 = t.square();
        x = t2.square() * t;
    }
    x
}

/// The same permutation in constraints (three per round).
fn mimc_var<F: PrimeField>(mut x: FpVar<F>, rounds: usize) -> Result<FpVar<F>, SynthesisError> {
    for i in 0..rounds {
        let t = x + round_constant::<F>(i);
        let t4 = t.square()?.square()?;
        x = t4 * &t;
    }
    Ok(x)
}

/// A hash chain: the prover knows `x0` such that `mimc(x0, rounds)` is the
/// public output. `3 * rounds` constraints.
#[derive(Clone, Debug)]
pub struct MimcChain<F: PrimeField> {
    x0: F,
    rounds: usize,
}

impl<F: PrimeField> MimcChain<F> {
    /// A chain of `rounds` rounds from the secret `x0`.
    pub fn new(x0: F, rounds: usize) -> Self {
        Self { x0, rounds }
    }

    /// The longest chain with at most `constraints` constraints (three per
    /// round plus one for the output; at least one round).
    pub fn with_constraints(x0: F, constraints: usize) -> Self {
        Self::new(x0, (constraints.saturating_sub(1) / 3).max(1))
    }

    /// The public inputs: the chain's output.
    pub fn public_inputs(&self) -> Vec<F> {
        vec![mimc(self.x0, self.rounds)]
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for MimcChain<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let out = FpVar::new_input(cs.clone(), || Ok(mimc(self.x0, self.rounds)))?;
        let x = FpVar::new_witness(cs, || Ok(self.x0))?;
        mimc_var(x, self.rounds)?.enforce_equal(&out)
    }
}

/// Rounds of each permutation inside the Merkle compression function.
const MERKLE_ROUNDS: usize = 16;

/// `H(l, r) = P(l + P(r))` with the MiMC-style permutation `P`.
pub fn merkle_compress<F: PrimeField>(l: F, r: F) -> F {
    mimc(l + mimc(r, MERKLE_ROUNDS), MERKLE_ROUNDS)
}

/// Membership of a leaf in a Merkle tree of depth `siblings.len()`: the
/// prover knows the leaf, its position and the siblings along its path; the
/// root is public.
#[derive(Clone, Debug)]
pub struct MerkleMembership<F: PrimeField> {
    leaf: F,
    index: u64,
    siblings: Vec<F>,
}

impl<F: PrimeField> MerkleMembership<F> {
    /// A path of the given depth (at most 63) with pseudo-random leaf and
    /// siblings derived from `seed`.
    pub fn random(depth: usize, seed: u64) -> Self {
        let depth = depth.min(63);
        let leaf = mimc(F::from(seed), 4);
        let siblings = (0..depth)
            .map(|i| mimc(F::from(seed ^ ((i as u64 + 1) << 32)), 4))
            .collect();
        let index = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) & ((1u64 << depth) - 1);
        Self {
            leaf,
            index,
            siblings,
        }
    }

    /// The root the path leads to (the public input).
    pub fn root(&self) -> F {
        let mut cur = self.leaf;
        for (level, s) in self.siblings.iter().enumerate() {
            cur = if (self.index >> level) & 1 == 1 {
                merkle_compress(*s, cur)
            } else {
                merkle_compress(cur, *s)
            };
        }
        cur
    }

    /// The public inputs: the root.
    pub fn public_inputs(&self) -> Vec<F> {
        vec![self.root()]
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for MerkleMembership<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let root = FpVar::new_input(cs.clone(), || Ok(self.root()))?;
        let mut cur = FpVar::new_witness(cs.clone(), || Ok(self.leaf))?;
        for (level, s) in self.siblings.iter().enumerate() {
            let sibling = FpVar::new_witness(cs.clone(), || Ok(*s))?;
            let is_right = Boolean::new_witness(cs.clone(), || Ok((self.index >> level) & 1 == 1))?;
            let left = FpVar::conditionally_select(&is_right, &sibling, &cur)?;
            let right = FpVar::conditionally_select(&is_right, &cur, &sibling)?;
            let inner = mimc_var(right, MERKLE_ROUNDS)?;
            cur = mimc_var(left + inner, MERKLE_ROUNDS)?;
        }
        cur.enforce_equal(&root)
    }
}

/// SHA-256 of a secret message of `blocks` 64-byte blocks (after padding);
/// the digest is public (packed into field elements). About 27k constraints
/// per block with ark-crypto-primitives' gadget.
#[derive(Clone, Debug)]
pub struct Sha256Circuit<F: PrimeField> {
    message: Vec<u8>,
    _f: PhantomData<F>,
}

impl<F: PrimeField> Sha256Circuit<F> {
    /// A pseudo-random message filling exactly `blocks` blocks (at least 1)
    /// once padded: `64 * blocks - 9` bytes.
    pub fn new(blocks: usize, seed: u64) -> Self {
        let len = 64 * blocks.max(1) - 9;
        let mut x = seed;
        let message = (0..len)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 56) as u8
            })
            .collect();
        Self {
            message,
            _f: PhantomData,
        }
    }

    /// A circuit over the given message.
    pub fn from_message(message: Vec<u8>) -> Self {
        Self {
            message,
            _f: PhantomData,
        }
    }

    /// The message's SHA-256 digest.
    pub fn digest(&self) -> Vec<u8> {
        Sha256::evaluate(&(), self.message.clone()).expect("SHA-256 of bytes cannot fail")
    }

    /// The public inputs: the digest packed as `UInt8::new_input_vec` packs
    /// it.
    pub fn public_inputs(&self) -> Vec<F> {
        self.digest()[..]
            .to_field_elements()
            .expect("bytes always pack into field elements")
    }
}

impl<F: PrimeField> ConstraintSynthesizer<F> for Sha256Circuit<F> {
    fn generate_constraints(self, cs: ConstraintSystemRef<F>) -> Result<(), SynthesisError> {
        let digest = self.digest();
        let expected = UInt8::new_input_vec(cs.clone(), &digest)?;
        let message = UInt8::new_witness_vec(cs, &self.message)?;
        let got = Sha256Gadget::digest(&message)?;
        got.0.enforce_equal(&expected)
    }
}
