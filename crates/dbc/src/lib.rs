//! Double-base chains for elliptic-curve scalar multiplication.
//!
//! A double-base chain (DBC) writes `n = sum ±2^{a_i} 3^{b_i}` with both exponents
//! non-increasing from the leading term down, so `n * P` costs `a_1` doublings,
//! `b_1` triplings and `l - 1` additions (the paper's Algorithm 1). This crate
//! computes such chains, following Wen, Jiang, Yang, Su, Liu, "An Efficient
//! Implementation of Zero-knowledge Proof Based on Acceleration of Scalar
//! Multiplication" (Chinese Journal of Computers, 2025):
//!
//! | constructor                    | what it computes                                          | source                     |
//! |--------------------------------|-----------------------------------------------------------|----------------------------|
//! | [`Dbc::optimal`]               | the cheapest chain under a [`CostModel`]                  | Yu, Al Musa, Li 2020; Alg. 2 |
//! | [`Dbc::optimal_with_leading`]  | the shortest chain with a given leading term              | same DP, one cell          |
//! | [`Dbc::shortest_with_leading`] | Eom's greedy chain for a given leading term               | Eom et al. 2021            |
//! | [`Dbc::eom`]                   | the cheapest greedy chain over all admissible leading terms | the paper's "Eom-DBC"    |
//! | [`Dbc::suboptimal`]            | δ leading terms in [`MinCost`] order, NAF as the floor    | the paper's Algorithm 3    |
//! | [`Recoding`]                   | binary, NAF, wNAF, costed the same way                    |                            |
//!
//! Inputs are non-negative integers of up to [`MAX_BITS`] bits given as
//! little-endian limbs or arkworks `BigInt<N>` (anything implementing [`Limbs`]);
//! 0 (the empty chain) and 1 are valid. Every function returns a `Result`
//! instead of panicking.
//!
//! **The δ convention.** `delta` counts the admissible leading terms tried, as
//! in the paper's text and Algorithm 3. The paper's authors' program tries
//! `delta + 1` (its loop breaks when the count *exceeds* δ), so their
//! "1-suboptimal" row corresponds to our `suboptimal(n, 2)`; `dbc stats`
//! reports both conventions side by side.
//!
//! ```
//! use zkaccel_dbc::{CostModel, Dbc};
//! let n = [0x1234_5678_9abc_def0u64, 0x0fed_cba9_8765_4321];
//! let best = Dbc::optimal(&n).unwrap();
//! let fast = Dbc::suboptimal(&n, 1).unwrap();
//! assert!(best.represents(&n) && fast.represents(&n) && best.is_valid());
//! assert!(best.cost(&CostModel::default()) <= fast.cost(&CostModel::default()));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod chain;
pub mod cli;
pub mod eom;
mod mincost;
mod optimal;
mod recoding;
pub mod stats;
mod tables;
#[doc(hidden)]
pub mod uint;

pub use chain::{CostModel, Dbc, DbcError, Limbs, Sign, Term, MAX_BITS};
pub use mincost::{MinCost, MinCostEntry};
pub use recoding::{Recoding, RecodingKind};

use chain::Input;
use eom::{admissible_a, greedy, max_admissible_b, EOM_WINDOW, SUBOPTIMAL_WINDOW};
use optimal::Leading;
use recoding::{naf_chain, naf_cost, naf_of_limbs};
use uint::{pow3_table, Uint};

impl Dbc {
    /// The cheapest chain of `n` under the paper's cost model (D = 7, T = 12.6, A = 15).
    pub fn optimal<N: Limbs + ?Sized>(n: &N) -> Result<Dbc, DbcError> {
        Dbc::optimal_with(n, &CostModel::default())
    }

    /// The cheapest chain of `n` under `model` (any finite, positive costs).
    pub fn optimal_with<N: Limbs + ?Sized>(n: &N, model: &CostModel) -> Result<Dbc, DbcError> {
        let input = checked(n, model)?;
        if input.bits == 0 {
            return Ok(Dbc::default());
        }
        let chain = with_limbs!(input.bits, run_optimal(&input.limbs, model, Leading::Best));
        Ok(chain.expect("every n > 0 has a chain with a leading term in (n/2, 2n]"))
    }

    /// The shortest chain of `n` whose leading term is exactly `2^a 3^b`
    /// (computed by the optimal DP restricted to that cell). The leading term
    /// must satisfy `n/2 < 2^a 3^b <= 4n`, where short chains live.
    pub fn optimal_with_leading<N: Limbs + ?Sized>(n: &N, a: u32, b: u32) -> Result<Dbc, DbcError> {
        let input = Input::new(n)?;
        check_leading(&input, a, b)?;
        let chain = with_limbs!(
            input.bits,
            run_optimal(&input.limbs, &CostModel::default(), Leading::Exactly(a, b))
        );
        chain.ok_or(DbcError::LeadingTermOutOfRange { a, b })
    }

    /// Eom et al.'s greedy chain of `n` with leading term `2^a 3^b`
    /// (`n/2 < 2^a 3^b <= 4n`), window [`EOM_WINDOW`]. It is short, not always
    /// the shortest (see [`eom`]); if the greedy gets stuck, the exact
    /// [`Dbc::optimal_with_leading`] answers instead.
    pub fn shortest_with_leading<N: Limbs + ?Sized>(
        n: &N,
        a: u32,
        b: u32,
    ) -> Result<Dbc, DbcError> {
        let input = Input::new(n)?;
        check_leading(&input, a, b)?;
        let terms = with_limbs!(input.bits, run_greedy(&input.limbs, a, b, EOM_WINDOW));
        match terms {
            Some(t) => Ok(Dbc::from_terms(t)),
            None => Dbc::optimal_with_leading(n, a, b),
        }
    }

    /// The paper's "Eom-DBC" under the default model.
    pub fn eom<N: Limbs + ?Sized>(n: &N) -> Result<Dbc, DbcError> {
        Dbc::eom_with(n, &CostModel::default())
    }

    /// The cheapest of Eom's greedy chains (window [`EOM_WINDOW`]) over every
    /// admissible leading term (`2^a 3^b` in `[B1, B2]`). Small inputs with no
    /// admissible leading term get the NAF chain.
    pub fn eom_with<N: Limbs + ?Sized>(n: &N, model: &CostModel) -> Result<Dbc, DbcError> {
        let input = checked(n, model)?;
        if input.bits == 0 {
            return Ok(Dbc::default());
        }
        Ok(with_limbs!(input.bits, run_eom(&input.limbs, model)))
    }

    /// The paper's δ-suboptimal chain under the default model and the
    /// [`MinCost`] table for `n`'s bit length.
    pub fn suboptimal<N: Limbs + ?Sized>(n: &N, delta: u32) -> Result<Dbc, DbcError> {
        Dbc::suboptimal_with(n, delta, None, &CostModel::default())
    }

    /// The paper's Algorithm 3: start from the NAF chain, walk `table` (by
    /// default [`MinCost::for_bits`] of `n`'s bit length), build Eom's greedy
    /// chain (window [`SUBOPTIMAL_WINDOW`]) for each of the first `delta`
    /// admissible leading terms, and keep the cheapest under `model`. Never
    /// costs more than the NAF; `delta = 0` is an error.
    pub fn suboptimal_with<N: Limbs + ?Sized>(
        n: &N,
        delta: u32,
        table: Option<&MinCost>,
        model: &CostModel,
    ) -> Result<Dbc, DbcError> {
        if delta == 0 {
            return Err(DbcError::ZeroDelta);
        }
        let input = checked(n, model)?;
        if input.bits == 0 {
            return Ok(Dbc::default());
        }
        let table = match table {
            Some(t) => t,
            None => MinCost::cached(input.bits),
        };
        Ok(with_limbs!(
            input.bits,
            run_suboptimal(&input.limbs, delta, table, model)
        ))
    }

    /// The NAF of `n` as a chain (all `b = 0`).
    pub fn naf<N: Limbs + ?Sized>(n: &N) -> Result<Dbc, DbcError> {
        let input = Input::new(n)?;
        Ok(with_limbs!(input.bits, naf_of_limbs(&input.limbs)))
    }
}

/// The input, after checking it and the cost model.
fn checked<'a, N: Limbs + ?Sized>(n: &'a N, model: &CostModel) -> Result<Input<'a>, DbcError> {
    if !model.is_valid() {
        return Err(DbcError::BadCostModel);
    }
    Input::new(n)
}

/// Accepts leading terms with `n/2 < 2^a 3^b <= 4n` (and `n > 0`).
fn check_leading(input: &Input<'_>, a: u32, b: u32) -> Result<(), DbcError> {
    let err = DbcError::LeadingTermOutOfRange { a, b };
    if input.bits == 0 {
        return Err(err);
    }
    // 2^a 3^b has about a + 1.585 b bits; reject far-off terms before exact checks.
    let approx = a as f64 + b as f64 * eom::LOG2_3;
    if approx > input.bits as f64 + 3.0 || approx + 2.0 < input.bits as f64 {
        return Err(err);
    }
    // Exact check in a size class with room for 4n (and so for M).
    let ok = with_limbs!(input.bits + 2, leading_in_range(&input.limbs, a, b));
    if ok {
        Ok(())
    } else {
        Err(err)
    }
}

fn leading_in_range<const L: usize>(limbs: &[u64], a: u32, b: u32) -> bool {
    let n = Uint::<L>::from_limbs(limbs);
    let Some(p) = uint::pow3::<L>(pow3_table(), b) else {
        return false;
    };
    if p.bits() + a > 64 * L as u32 - 2 {
        return false;
    }
    let m = p.shl(a);
    m.shl(1) > n && m <= n.shl(2)
}

fn run_optimal<const L: usize>(limbs: &[u64], model: &CostModel, leading: Leading) -> Option<Dbc> {
    optimal::optimal::<L>(limbs, model, leading)
}

fn run_greedy<const L: usize>(limbs: &[u64], a: u32, b: u32, window: u32) -> Option<Vec<Term>> {
    let n = Uint::<L>::from_limbs(limbs);
    let mut out = Vec::new();
    greedy(&n, a, b, window, pow3_table(), &mut out).then_some(out)
}

fn run_eom<const L: usize>(limbs: &[u64], model: &CostModel) -> Dbc {
    let n = Uint::<L>::from_limbs(limbs);
    let log2n = n.log2();
    let table = pow3_table();
    let mut best: Option<(f64, Vec<Term>)> = None;
    let mut buf = Vec::with_capacity(128);
    for b in 0..=max_admissible_b(log2n) {
        let Some(a) = admissible_a(log2n, b) else {
            continue;
        };
        buf.clear();
        if greedy(&n, a, b, EOM_WINDOW, table, &mut buf) {
            let cost = model.chain_cost(buf.len(), a, b);
            if best.as_ref().is_none_or(|x| cost < x.0) {
                best = Some((cost, buf.clone()));
            }
        }
    }
    match best {
        Some((_, terms)) => Dbc::from_terms(terms),
        None => naf_chain(&n),
    }
}

fn run_suboptimal<const L: usize>(
    limbs: &[u64],
    delta: u32,
    order: &MinCost,
    model: &CostModel,
) -> Dbc {
    let n = Uint::<L>::from_limbs(limbs);
    let log2n = n.log2();
    let table = pow3_table();
    let mut best_cost = naf_cost(&n, model);
    let mut best: Option<Vec<Term>> = None;
    let mut buf = Vec::with_capacity(128);
    let mut tried = 0u32;
    for &b in order.order() {
        let Some(a) = admissible_a(log2n, b as u32) else {
            continue;
        };
        buf.clear();
        if greedy(&n, a, b as u32, SUBOPTIMAL_WINDOW, table, &mut buf) {
            let cost = model.chain_cost(buf.len(), a, b as u32);
            if cost < best_cost {
                best_cost = cost;
                best = Some(buf.clone());
            }
        }
        tried += 1;
        if tried == delta {
            break;
        }
    }
    match best {
        Some(terms) => Dbc::from_terms(terms),
        None => naf_chain(&n),
    }
}
