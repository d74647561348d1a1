//! Single-base recodings, costed like chains: binary, NAF and width-w NAF.
//!
//! A recoding `n = sum d_i 2^{e_i}` with `k` non-zero digits and top position `e`
//! costs `(k - 1) A + e D`; width-`w` NAF adds the precomputation of the odd
//! multiples `3P, ..., (2^{w-1} - 1)P` (one doubling and `2^{w-2} - 1`
//! additions, for `w >= 3`), so its cost is comparable with a chain's.

use crate::chain::{CostModel, Dbc, DbcError, Input, Limbs, Sign, Term};
use crate::uint::Uint;
use crate::with_limbs;
use num_bigint::BigInt;

/// Which recoding a [`Recoding`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecodingKind {
    /// Digits in `{0, 1}`.
    Binary,
    /// Non-adjacent form: digits in `{-1, 0, 1}`, no two adjacent non-zero.
    Naf,
    /// Width-`w` NAF: odd digits `|d| < 2^{w-1}`, at least `w - 1` zeros between them.
    Wnaf(u32),
}

/// A signed-digit recoding of a non-negative integer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recoding {
    kind: RecodingKind,
    /// `(digit, position)`, highest position first, zero digits omitted.
    digits: Vec<(i32, u32)>,
}

impl Recoding {
    /// The binary expansion.
    pub fn binary<N: Limbs + ?Sized>(n: &N) -> Result<Recoding, DbcError> {
        let input = Input::new(n)?;
        let mut digits = Vec::new();
        for pos in (0..input.bits).rev() {
            if (input.limbs[(pos / 64) as usize] >> (pos % 64)) & 1 == 1 {
                digits.push((1, pos));
            }
        }
        Ok(Recoding {
            kind: RecodingKind::Binary,
            digits,
        })
    }

    /// The non-adjacent form.
    pub fn naf<N: Limbs + ?Sized>(n: &N) -> Result<Recoding, DbcError> {
        let input = Input::new(n)?;
        let chain = with_limbs!(input.bits, naf_of_limbs(&input.limbs));
        let digits = chain
            .terms()
            .iter()
            .map(|t| (t.sign.as_i8() as i32, t.a))
            .collect();
        Ok(Recoding {
            kind: RecodingKind::Naf,
            digits,
        })
    }

    /// The width-`w` NAF, `2 <= w <= 16` (`w = 2` is the NAF).
    pub fn wnaf<N: Limbs + ?Sized>(n: &N, w: u32) -> Result<Recoding, DbcError> {
        if !(2..=16).contains(&w) {
            return Err(DbcError::BadWindow(w));
        }
        let input = Input::new(n)?;
        let mut digits = with_limbs!(input.bits, wnaf_digits(&input.limbs, w));
        digits.reverse();
        Ok(Recoding {
            kind: RecodingKind::Wnaf(w),
            digits,
        })
    }

    /// Which recoding this is.
    pub fn kind(&self) -> RecodingKind {
        self.kind
    }

    /// Non-zero digits `(digit, position)`, highest position first.
    pub fn digits(&self) -> &[(i32, u32)] {
        &self.digits
    }

    /// Number of non-zero digits.
    pub fn hamming_weight(&self) -> usize {
        self.digits.len()
    }

    /// `(k - 1) A + e D` plus, for wNAF with `w >= 3`, `D + (2^{w-2} - 1) A`.
    pub fn cost(&self, model: &CostModel) -> f64 {
        let Some(&(_, top)) = self.digits.first() else {
            return 0.0;
        };
        let base = model.chain_cost(self.digits.len(), top, 0);
        match self.kind {
            RecodingKind::Wnaf(w) if w >= 3 => {
                base + model.double + ((1u64 << (w - 2)) - 1) as f64 * model.add
            }
            _ => base,
        }
    }

    /// The integer it represents.
    pub fn value(&self) -> BigInt {
        self.digits
            .iter()
            .map(|&(d, e)| BigInt::from(d) << e as usize)
            .sum()
    }

    /// The same recoding as a chain (`b = 0` throughout), if every digit is `±1`.
    pub fn to_dbc(&self) -> Option<Dbc> {
        self.digits
            .iter()
            .map(|&(d, e)| match d {
                1 => Some(Term {
                    sign: Sign::Plus,
                    a: e,
                    b: 0,
                }),
                -1 => Some(Term {
                    sign: Sign::Minus,
                    a: e,
                    b: 0,
                }),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(Dbc::from_terms)
    }
}

/// NAF of `n` as bit masks of its `+1` and `-1` digits: with `h = n >> 1` and
/// `t = n + h = floor(3n / 2)`, the digits differ from binary exactly where
/// `h` and `t` differ (`c = h ^ t`); `t & c` are the `+1`s and `h & c` the `-1`s.
#[inline]
fn naf_masks<const L: usize>(n: &Uint<L>) -> (Uint<L>, Uint<L>) {
    let h = n.shr(1);
    let t = n.wrapping_add(&h);
    let c = h.xor(&t);
    (t.and(&c), h.and(&c))
}

pub(crate) fn naf_of_limbs<const L: usize>(limbs: &[u64]) -> Dbc {
    naf_chain(&Uint::<L>::from_limbs(limbs))
}

/// NAF chain of `n` (`b = 0` throughout), largest term first.
pub(crate) fn naf_chain<const L: usize>(n: &Uint<L>) -> Dbc {
    let (plus, minus) = naf_masks(n);
    let mut terms = Vec::with_capacity((plus.count_ones() + minus.count_ones()) as usize);
    for pos in (0..plus.bits().max(minus.bits())).rev() {
        if plus.bit(pos) {
            terms.push(Term {
                sign: Sign::Plus,
                a: pos,
                b: 0,
            });
        } else if minus.bit(pos) {
            terms.push(Term {
                sign: Sign::Minus,
                a: pos,
                b: 0,
            });
        }
    }
    Dbc::from_terms(terms)
}

/// Cost of the NAF chain of `n` without building it.
#[inline]
pub(crate) fn naf_cost<const L: usize>(n: &Uint<L>, model: &CostModel) -> f64 {
    let (plus, minus) = naf_masks(n);
    let weight = (plus.count_ones() + minus.count_ones()) as usize;
    // The top NAF digit is always +1.
    model.chain_cost(weight, plus.bits().saturating_sub(1), 0)
}

/// Width-w NAF digits, lowest position first.
fn wnaf_digits<const L: usize>(limbs: &[u64], w: u32) -> Vec<(i32, u32)> {
    let mut k = Uint::<L>::from_limbs(limbs);
    let modulus = 1i64 << w;
    let mut out = Vec::new();
    let mut pos = 0u32;
    while !k.is_zero() {
        if k.0[0] & 1 == 1 {
            let mut d = (k.0[0] & (modulus as u64 - 1)) as i64;
            if d >= modulus / 2 {
                d -= modulus;
            }
            k = if d >= 0 {
                k.wrapping_sub(&Uint::from_u64(d as u64))
            } else {
                k.wrapping_add(&Uint::from_u64((-d) as u64))
            };
            out.push((d as i32, pos));
        }
        k = k.shr(1);
        pos += 1;
    }
    out
}

impl Dbc {
    /// The NAF of `n` as a chain (all `b = 0`).
    pub fn naf<N: Limbs + ?Sized>(n: &N) -> Result<Dbc, DbcError> {
        let input = Input::new(n)?;
        Ok(with_limbs!(input.bits, naf_of_limbs(&input.limbs)))
    }
}
