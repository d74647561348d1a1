//! [`ProofPart`] and [`ProofSums`]: one proof's MSM work in shares that
//! separate processes compute (the npm package's workers, each with its
//! own copy of the key), summed into the proof by
//! [`Groth16::assemble_sums`](crate::Groth16::assemble_sums).

use crate::error::Groth16Error;
use crate::pairing::AccelPairing;

/// A share of one proof's work ([`Groth16::prove_part`](crate::Groth16::prove_part)).
/// The two shares need no result of each other, so they can run at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProofPart {
    /// The witness map, its quotient and the H MSM, then the B MSM in G2.
    QuotientHB2,
    /// The L, A and B MSMs in G1 (their scalars recoded once).
    LAB1,
}

impl ProofPart {
    /// Both shares, in the order a worker pool hands them out.
    pub const ALL: [ProofPart; 2] = [ProofPart::QuotientHB2, ProofPart::LAB1];
}

/// A proof's MSM sums before the key's constant terms and the randomness:
/// each [`ProofPart`] fills its own, [`ProofSums::merge`] puts shares
/// together, and [`Groth16::assemble_sums`](crate::Groth16::assemble_sums)
/// needs all five.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofSums<E: AccelPairing> {
    /// The H MSM over the quotient.
    pub h: Option<E::G1>,
    /// The L MSM over the witness part of the assignment.
    pub l: Option<E::G1>,
    /// The A MSM, without the leading one's base.
    pub a: Option<E::G1>,
    /// The B MSM in G1, without the leading one's base.
    pub b1: Option<E::G1>,
    /// The B MSM in G2, without the leading one's base.
    pub b2: Option<E::G2>,
}

impl<E: AccelPairing> Default for ProofSums<E> {
    fn default() -> Self {
        ProofSums {
            h: None,
            l: None,
            a: None,
            b1: None,
            b2: None,
        }
    }
}

impl<E: AccelPairing> ProofSums<E> {
    /// The sums of both shares: each slot from whichever has it. Two shares
    /// that both hold a slot are an error ([`Groth16Error::Sums`]): a share
    /// computed twice is a caller's bug that a merge must not hide.
    pub fn merge(self, other: Self) -> Result<Self, Groth16Error> {
        fn one<T>(
            a: Option<T>,
            b: Option<T>,
            what: &'static str,
        ) -> Result<Option<T>, Groth16Error> {
            match (a, b) {
                (Some(_), Some(_)) => Err(Groth16Error::Sums {
                    what,
                    problem: "in both shares",
                }),
                (a, b) => Ok(a.or(b)),
            }
        }
        Ok(ProofSums {
            h: one(self.h, other.h, "h")?,
            l: one(self.l, other.l, "l")?,
            a: one(self.a, other.a, "a")?,
            b1: one(self.b1, other.b1, "b1")?,
            b2: one(self.b2, other.b2, "b2")?,
        })
    }
}
