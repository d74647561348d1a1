//! [`ProofPart`] and [`ProofSums`]: one proof's MSM work in shares that
//! separate processes compute (the npm package's workers, each with its
//! own copy of the key), summed into the proof by
//! [`Groth16::assemble_sums`](crate::Groth16::assemble_sums).

use crate::error::Groth16Error;
use crate::pairing::AccelPairing;

/// A share of one proof's work ([`Groth16::prove_part`](crate::Groth16::prove_part)).
/// No share needs another's result, so they can run at once; a set of
/// shares makes the proof when each of L, A, B1 and B2 is computed once and
/// the `QuotientH` shares' ranges tile the H query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProofPart {
    /// The witness map and its quotient, then the H MSM over the H query's
    /// terms `start..end` (clamped to its length). Every `QuotientH` share
    /// computes the whole quotient; shares with ranges that tile the query
    /// split the H MSM between them.
    QuotientH {
        /// The first term.
        start: usize,
        /// One past the last term.
        end: usize,
    },
    /// The B MSM in G2.
    B2,
    /// The L, A and B MSMs in G1 (their scalars recoded once).
    LAB1,
}

impl ProofPart {
    /// The quotient and the whole H MSM.
    pub const QUOTIENT_H: ProofPart = ProofPart::QuotientH {
        start: 0,
        end: usize::MAX,
    };
    /// One proof's work in three shares.
    pub const ALL: [ProofPart; 3] = [ProofPart::QUOTIENT_H, ProofPart::B2, ProofPart::LAB1];
}

/// A proof's MSM sums before the key's constant terms and the randomness:
/// each [`ProofPart`] fills its own, [`ProofSums::merge`] puts shares
/// together, and [`Groth16::assemble_sums`](crate::Groth16::assemble_sums)
/// needs all five.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProofSums<E: AccelPairing> {
    /// The H MSM over the quotient, or over the terms `h_terms` of it.
    pub h: Option<E::G1>,
    /// The H query's terms `h` sums, as `(start, end)`; `(0, 0)` when `h`
    /// is absent.
    pub h_terms: (usize, usize),
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
            h_terms: (0, 0),
            l: None,
            a: None,
            b1: None,
            b2: None,
        }
    }
}

impl<E: AccelPairing> ProofSums<E> {
    /// The sums of any number of shares, in any order: [`ProofSums::merge`]
    /// over them with H's partial sums taken in the order of their ranges
    /// (a merge adds adjacent ranges only, so ranges that tile the query
    /// but come in another order still make the whole). The same errors as
    /// [`ProofSums::merge`].
    pub fn merge_all(shares: impl IntoIterator<Item = Self>) -> Result<Self, Groth16Error> {
        let mut shares: Vec<Self> = shares.into_iter().collect();
        shares.sort_by_key(|s| (s.h.is_some(), s.h_terms));
        shares
            .into_iter()
            .try_fold(ProofSums::default(), |sums, share| sums.merge(share))
    }

    /// The sums of both shares: each slot from whichever has it, and the H
    /// sums of two shares added where their terms are adjacent ranges. Two
    /// shares that both hold a slot, or H sums over ranges that overlap or
    /// leave a gap, are an error ([`Groth16Error::Sums`]): a share computed
    /// twice is a caller's bug that a merge must not hide.
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
        let (h, h_terms) = match (self.h, other.h) {
            (Some(x), Some(y)) => {
                let ((s0, e0), (s1, e1)) = (self.h_terms, other.h_terms);
                let terms = if e0 == s1 {
                    (s0, e1)
                } else if e1 == s0 {
                    (s1, e0)
                } else {
                    return Err(Groth16Error::Sums {
                        what: "h",
                        problem: "over term ranges that overlap or leave a gap",
                    });
                };
                (Some(x + y), terms)
            }
            (Some(x), None) => (Some(x), self.h_terms),
            (None, y) => (y, other.h_terms),
        };
        Ok(ProofSums {
            h,
            h_terms,
            l: one(self.l, other.l, "l")?,
            a: one(self.a, other.a, "a")?,
            b1: one(self.b1, other.b1, "b1")?,
            b2: one(self.b2, other.b2, "b2")?,
        })
    }
}
