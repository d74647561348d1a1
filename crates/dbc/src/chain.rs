//! The chain type, its terms, the cost model and the input conversions.

use crate::uint::{limbs_for_bits, MAX_LIMBS};
use core::fmt;
use num_bigint::{BigInt, BigUint, Sign as BigSign};
use std::borrow::Cow;

/// Largest input accepted by every algorithm in this crate, in bits.
pub const MAX_BITS: u32 = 1024;

/// What can go wrong when computing a chain or a recoding.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DbcError {
    /// The input has more than [`MAX_BITS`] significant bits.
    TooLarge {
        /// Significant bits of the input.
        bits: u32,
        /// The limit, [`MAX_BITS`].
        max: u32,
    },
    /// `delta` must be at least 1 (it counts the leading terms tried).
    ZeroDelta,
    /// The wNAF window must be in `2..=16`.
    BadWindow(u32),
    /// No chain of `n` has the requested leading term `2^a 3^b`: a chain's leading
    /// term `M` always satisfies `n/2 < M < 2n` (and `M = 1` for `n = 1`).
    LeadingTermOutOfRange {
        /// Requested power of two.
        a: u32,
        /// Requested power of three.
        b: u32,
    },
    /// A cost model needs finite, strictly positive costs.
    BadCostModel,
}

impl fmt::Display for DbcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DbcError::TooLarge { bits, max } => {
                write!(f, "input has {bits} bits; at most {max} are supported")
            }
            DbcError::ZeroDelta => write!(f, "delta must be at least 1"),
            DbcError::BadWindow(w) => write!(f, "wNAF window {w} is outside 2..=16"),
            DbcError::LeadingTermOutOfRange { a, b } => write!(
                f,
                "no chain of this number has leading term 2^{a}*3^{b} (it must lie strictly between n/2 and 2n)"
            ),
            DbcError::BadCostModel => write!(f, "costs must be finite and strictly positive"),
        }
    }
}

impl std::error::Error for DbcError {}

/// A non-negative integer given as little-endian `u64` limbs.
///
/// Implemented for `u64`, `u128`, limb slices, arrays and vectors, arkworks'
/// `BigInt<N>` and `num_bigint::BigUint`. High zero limbs are ignored, so a
/// field element's `into_bigint()` is accepted whatever its limb count.
pub trait Limbs {
    /// The limbs, least significant first.
    fn le_limbs(&self) -> Cow<'_, [u64]>;
}

impl Limbs for u64 {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Owned(vec![*self])
    }
}
impl Limbs for u128 {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Owned(vec![*self as u64, (*self >> 64) as u64])
    }
}
impl Limbs for [u64] {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Borrowed(self)
    }
}
impl<const N: usize> Limbs for [u64; N] {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Borrowed(&self[..])
    }
}
impl Limbs for Vec<u64> {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Borrowed(&self[..])
    }
}
impl<const N: usize> Limbs for ark_ff::BigInt<N> {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Borrowed(&self.0[..])
    }
}
impl Limbs for BigUint {
    fn le_limbs(&self) -> Cow<'_, [u64]> {
        Cow::Owned(self.to_u64_digits())
    }
}

/// Checked view of an input: its significant limbs and bit length.
pub(crate) struct Input<'a> {
    pub(crate) limbs: Cow<'a, [u64]>,
    pub(crate) bits: u32,
}

impl<'a> Input<'a> {
    pub(crate) fn new<N: Limbs + ?Sized>(n: &'a N) -> Result<Self, DbcError> {
        let limbs = n.le_limbs();
        let used = limbs.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
        let bits = if used == 0 {
            0
        } else {
            let top = limbs[used - 1];
            // Saturate rather than overflow on absurdly long inputs.
            (used as u64 * 64 - top.leading_zeros() as u64).min(u32::MAX as u64) as u32
        };
        if bits > MAX_BITS {
            return Err(DbcError::TooLarge {
                bits,
                max: MAX_BITS,
            });
        }
        debug_assert!(limbs_for_bits(bits) <= MAX_LIMBS);
        let limbs = match limbs {
            Cow::Borrowed(s) => Cow::Borrowed(&s[..used]),
            Cow::Owned(mut v) => {
                v.truncate(used);
                Cow::Owned(v)
            }
        };
        Ok(Input { limbs, bits })
    }
}

/// Sign of a chain term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sign {
    /// `+2^a 3^b`
    Plus,
    /// `-2^a 3^b`
    Minus,
}

impl Sign {
    /// `1` or `-1`.
    pub fn as_i8(self) -> i8 {
        match self {
            Sign::Plus => 1,
            Sign::Minus => -1,
        }
    }
    /// The other sign.
    pub fn flip(self) -> Sign {
        match self {
            Sign::Plus => Sign::Minus,
            Sign::Minus => Sign::Plus,
        }
    }
}

/// One term `sign * 2^a * 3^b` of a double-base chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// The term's sign.
    pub sign: Sign,
    /// Power of two.
    pub a: u32,
    /// Power of three.
    pub b: u32,
}

/// Theoretical cost of a scalar multiplication, in units of one field
/// multiplication M: a chain with `l` terms and leading term `2^a 3^b` costs
/// `(l - 1) * add + a * double + b * triple` (the paper's `E(w_n)`).
///
/// The default is the paper's model: D = 7, T = 12.6, A = 15 (Bernstein's
/// explicit formulas, S = 0.8M). A curve's own formulas give their own model
/// (for `a = 0` Jacobian formulas with S = 0.8M: D = 6, T = 13, A = 10.2 for a
/// mixed addition), and the chain searches minimise whatever model they get.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Cost of one point doubling.
    pub double: f64,
    /// Cost of one point tripling.
    pub triple: f64,
    /// Cost of one point addition.
    pub add: f64,
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel::PAPER
    }
}

impl CostModel {
    /// The paper's model (D = 7, T = 12.6, A = 15).
    pub const PAPER: CostModel = CostModel {
        double: 7.0,
        triple: 12.6,
        add: 15.0,
    };

    /// A model with the given costs; errors unless all are finite and positive.
    pub fn new(double: f64, triple: f64, add: f64) -> Result<Self, DbcError> {
        let ok = |x: f64| x.is_finite() && x > 0.0;
        if ok(double) && ok(triple) && ok(add) {
            Ok(CostModel {
                double,
                triple,
                add,
            })
        } else {
            Err(DbcError::BadCostModel)
        }
    }

    /// Cost of `terms` terms with leading exponents `(a, b)`; zero terms cost 0.
    #[inline]
    pub fn chain_cost(&self, terms: usize, a: u32, b: u32) -> f64 {
        if terms == 0 {
            return 0.0;
        }
        (terms - 1) as f64 * self.add + a as f64 * self.double + b as f64 * self.triple
    }

    /// Whether leading terms up to `2n` suffice for optimality (see `optimal.rs`).
    pub(crate) fn leading_bound_is_2n(&self) -> bool {
        self.double <= self.add + self.triple
    }

    pub(crate) fn is_valid(&self) -> bool {
        CostModel::new(self.double, self.triple, self.add).is_ok()
    }
}

/// A double-base chain `n = sum of sign_i 2^{a_i} 3^{b_i}`.
///
/// Terms are stored from the largest down; both exponents are non-increasing
/// and no two terms share the same `(a, b)` (the canonical definition of Yu,
/// Al Musa and Li, which every algorithm here produces). The empty chain
/// represents zero.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dbc {
    terms: Vec<Term>,
}

impl Dbc {
    /// Wraps `terms` (largest first) without checking; see [`Dbc::is_valid`].
    pub fn from_terms(terms: Vec<Term>) -> Dbc {
        Dbc { terms }
    }

    /// The terms, largest first.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// Number of terms `l`.
    pub fn hamming_weight(&self) -> usize {
        self.terms.len()
    }

    /// The leading term's exponents `(a, b)`, or `None` for the empty chain.
    pub fn leading(&self) -> Option<(u32, u32)> {
        self.terms.first().map(|t| (t.a, t.b))
    }

    /// `(l - 1) A + a D + b T` under `model` (0 for the empty chain).
    pub fn cost(&self, model: &CostModel) -> f64 {
        match self.leading() {
            None => 0.0,
            Some((a, b)) => model.chain_cost(self.terms.len(), a, b),
        }
    }

    /// The integer the chain represents: the plain sum of its terms (so it is
    /// also the reference value for chains that are not valid).
    pub fn value(&self) -> BigInt {
        let mut acc = BigInt::from(0u8);
        for t in &self.terms {
            let m = (BigInt::from(1u8) << t.a as usize) * BigInt::from(3u8).pow(t.b);
            match t.sign {
                Sign::Plus => acc += m,
                Sign::Minus => acc -= m,
            }
        }
        acc
    }

    /// Whether the chain evaluates to `n`.
    pub fn represents<N: Limbs + ?Sized>(&self, n: &N) -> bool {
        let limbs = n.le_limbs();
        let words: Vec<u32> = limbs
            .iter()
            .flat_map(|l| [*l as u32, (*l >> 32) as u32])
            .collect();
        self.value() == BigInt::from_biguint(BigSign::Plus, BigUint::from_slice(&words))
    }

    /// Exponents strictly decrease term by term in the product order
    /// (`a_{i+1} <= a_i`, `b_{i+1} <= b_i`, not both equal).
    pub fn is_valid(&self) -> bool {
        self.terms
            .windows(2)
            .all(|w| w[1].a <= w[0].a && w[1].b <= w[0].b && (w[1].a, w[1].b) != (w[0].a, w[0].b))
    }
}

impl fmt::Display for Dbc {
    /// `2^139*3^73 - 2^137*3^72 + ...`; `0` for the empty chain.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return write!(f, "0");
        }
        for (i, t) in self.terms.iter().enumerate() {
            let s = match (i, t.sign) {
                (0, Sign::Plus) => "",
                (0, Sign::Minus) => "-",
                (_, Sign::Plus) => " + ",
                (_, Sign::Minus) => " - ",
            };
            write!(f, "{s}2^{}*3^{}", t.a, t.b)?;
        }
        Ok(())
    }
}

// The input, after checking it and the cost model.
pub(crate) fn checked<'a, N: Limbs + ?Sized>(
    n: &'a N,
    model: &CostModel,
) -> Result<Input<'a>, DbcError> {
    if !model.is_valid() {
        return Err(DbcError::BadCostModel);
    }
    Input::new(n)
}

/// Accepts leading terms with `n/2 < 2^a 3^b <= 4n` (and `n > 0`).
pub(crate) fn check_leading(input: &Input<'_>, a: u32, b: u32) -> Result<(), DbcError> {
    let err = DbcError::LeadingTermOutOfRange { a, b };
    if input.bits == 0 {
        return Err(err);
    }
    // 2^a 3^b has about a + 1.585 b bits; reject far-off terms before exact checks.
    let approx = a as f64 + b as f64 * crate::uint::LOG2_3;
    if approx > input.bits as f64 + 3.0 || approx + 2.0 < input.bits as f64 {
        return Err(err);
    }
    // Exact check in a size class with room for 4n (and so for M).
    let ok = crate::with_limbs!(input.bits + 2, leading_in_range(&input.limbs, a, b));
    if ok {
        Ok(())
    } else {
        Err(err)
    }
}

fn leading_in_range<const L: usize>(limbs: &[u64], a: u32, b: u32) -> bool {
    let n = crate::uint::Uint::<L>::from_limbs(limbs);
    let Some(p) = crate::uint::pow3::<L>(crate::uint::pow3_table(), b) else {
        return false;
    };
    if p.bits() + a > 64 * L as u32 - 2 {
        return false;
    }
    let m = p.shl(a);
    m.shl(1) > n && m <= n.shl(2)
}
