//! Eom et al.'s construction of a short chain for a given leading term
//! (Discrete Applied Mathematics 294, 2021), the paper's `getShortestDBC`, and
//! the "Eom-DBC": the cheapest such chain over all admissible leading terms.
//!
//! Starting from the leading term, each step picks the term `2^α 3^β` closest
//! to the remainder among `β` in `[β_prev - w, β_prev]` (for each `β` the two
//! powers of two around the remainder, capped so the exponents stay
//! non-increasing and distinct), subtracts it, and continues with the new
//! remainder. The paper's authors use `w = 4` for Eom-DBC and `w = 6` inside the
//! suboptimal search; both are exposed. Unlike their program, the choice of the
//! closest term is made with exact integer arithmetic rather than `f64`.
//!
//! This is a greedy construction: the chain is short, not always the shortest
//! with that leading term (the optimal DP gives that, see
//! [`Dbc::optimal_with_leading`](crate::Dbc::optimal_with_leading)). If the window
//! holds no term that shrinks the remainder, the step looks at every lower
//! power of three; if even that cannot shrink it (a remainder stranded below
//! the lattice), the construction reports failure and callers skip that
//! leading term.
//!
//! Admissible leading terms are those of Eom et al.'s bound used in the
//! paper's Algorithm 3: `2^a 3^b` in `[B1, B2]`, `B1 = 9n / (7 sqrt 2)`,
//! `B2 = 16 sqrt 2 n / 21`; for each `b` at most one `a` qualifies.

use crate::chain::{check_leading, checked, CostModel, Dbc, DbcError, Input, Limbs, Sign, Term};
use crate::recoding::naf_chain;
use crate::uint::{pow3, pow3_table, Pow3, Uint};
use crate::with_limbs;

/// The window the paper's authors use for Eom-DBC.
pub const EOM_WINDOW: u32 = 4;
/// The window the paper's authors use inside the δ-suboptimal search.
pub const SUBOPTIMAL_WINDOW: u32 = 6;

/// `log2(9 / (7 sqrt 2))`.
const LOG2_B1_FACTOR: f64 = -0.137_429_920_615_291_83;
/// `log2(16 sqrt 2 / 21)`.
const LOG2_B2_FACTOR: f64 = 0.107_682_577_221_239_9;

/// The `a` for which `2^a 3^b` lies in `[B1, B2]`, if any (`log2n = log2(n)`).
#[inline]
pub(crate) fn admissible_a(log2n: f64, b: u32) -> Option<u32> {
    let base = log2n - b as f64 * LOG2_3;
    let lo = (base + LOG2_B1_FACTOR).ceil();
    let hi = (base + LOG2_B2_FACTOR).floor();
    (lo == hi && lo >= 0.0).then_some(lo as u32)
}

pub(crate) use crate::uint::LOG2_3;

/// The largest `b` for which some `2^a 3^b` can be admissible.
#[inline]
pub(crate) fn max_admissible_b(log2n: f64) -> u32 {
    ((log2n + LOG2_B2_FACTOR) / LOG2_3).floor().max(0.0) as u32
}

/// Appends the greedy chain of `n` with leading term `2^a 3^b` to `out`
/// (which must be empty). Returns `false` only if no chain of `n` has that
/// leading term.
///
/// A term with `α = 0` is taken only if the remainder after it is reachable by
/// distinct powers of three (`|t'| <= (3^β - 1) / 2`). When no term shrinks the
/// remainder all the same, the greedy backs up term by term and finishes with the exact DP restricted to
/// the cells below the last kept term ([`crate::optimal`], `Leading::Below`),
/// at the first point where the remainder can be finished at all. Failures
/// happen near the end of a chain, so these sub-grids are tiny.
///
/// Requires `2^a 3^b` to fit in `L` limbs with one bit to spare.
pub(crate) fn greedy<const L: usize>(
    n: &Uint<L>,
    a: u32,
    b: u32,
    window: u32,
    table: &[Pow3],
    out: &mut Vec<Term>,
) -> bool {
    let Some(p) = pow3::<L>(table, b) else {
        return false;
    };
    let lead = p.shl(a);
    out.push(Term {
        sign: Sign::Plus,
        a,
        b,
    });
    let (mut t, ge) = n.abs_diff(&lead);
    let mut sign = if ge { Sign::Plus } else { Sign::Minus };
    let (mut pa, mut pb) = (a, b);
    // Remainder (magnitude, sign) after each term, for backing up.
    let mut rests: Vec<(Uint<L>, Sign)> = Vec::new();
    while !t.is_zero() {
        rests.push((t, sign));
        let lowest = pb.saturating_sub(window);
        let mut pick = closest(&t, pa, pb, lowest, table);
        if pick.is_none() && lowest > 0 {
            pick = closest(&t, pa, pb, 0, table);
        }
        let Some((alpha, beta, term)) = pick else {
            return finish_exactly(out, &rests, table);
        };
        out.push(Term {
            sign,
            a: alpha,
            b: beta,
        });
        let (rest, ge) = t.abs_diff(&term);
        if !ge {
            sign = sign.flip();
        }
        t = rest;
        (pa, pb) = (alpha, beta);
    }
    true
}

/// Backs up from a stuck greedy: for the last kept term `j` down to the
/// leading one, tries to finish the remainder after it exactly below it.
fn finish_exactly<const L: usize>(
    out: &mut Vec<Term>,
    rests: &[(Uint<L>, Sign)],
    table: &[Pow3],
) -> bool {
    for j in (0..rests.len()).rev() {
        let Term { a, b, .. } = out[j];
        let (t, sign) = rests[j];
        // Below (a, b) the value must be t (use P on t) or -t (use N on M - t).
        let Some(m) = pow3::<L>(table, b).map(|p| p.shl(a)) else {
            continue;
        };
        if t >= m {
            continue; // nothing strictly below (a, b) reaches t
        }
        let (residue, from_n) = match sign {
            Sign::Plus => (t, false),
            Sign::Minus => (m.wrapping_sub(&t), true),
        };
        if let Some(tail) = crate::optimal::optimal::<L>(
            &residue.0,
            &crate::chain::CostModel::default(),
            crate::optimal::Leading::Below(a, b, from_n),
        ) {
            // P's chain has value t, N's chain value residue - M = -t.
            out.truncate(j + 1);
            out.extend(tail.terms().iter().copied());
            return true;
        }
    }
    false
}

/// The term `2^α 3^β` closest to `t` with `lowest <= β <= pb`, `α <= pa`,
/// `(α, β) != (pa, pb)`, provided it is strictly closer to `t` than 0 is
/// (`|t - term| < t`), which guarantees the greedy terminates.
///
/// Distances are compared on 63-bit mantissas (`t` and each `3^β` are
/// normalised to `[2^62, 2^63)` and aligned at `t`'s scale), so a candidate
/// costs a few `u64` operations; only the chosen term is formed exactly, and
/// the exact remainder is checked to have shrunk. The choice can differ from
/// an exact one only between candidates whose distances agree to about
/// `2^-60` of `t`, which changes nothing but the tie-break.
#[inline]
fn closest<const L: usize>(
    t: &Uint<L>,
    pa: u32,
    pb: u32,
    lowest: u32,
    table: &[Pow3],
) -> Option<(u32, u32, Uint<L>)> {
    let tbits = t.bits();
    let tm = t.mantissa();
    // Value of a term with mantissa m and bit length e at the scale 2^(tbits - 63).
    let at_scale = |m: u64, e: u32| -> u64 {
        if e > tbits {
            m << 1 // only ever e = tbits + 1, which fits: m < 2^63
        } else {
            let shift = tbits - e;
            if shift >= 64 {
                0
            } else {
                m >> shift
            }
        }
    };
    let mut best: Option<(u64, u32, u32)> = None; // (distance, α, β)
    for beta in (lowest..=pb).rev() {
        let amax = if beta == pb {
            if pa == 0 {
                continue;
            }
            pa - 1
        } else {
            pa
        };
        let Some(p) = table.get(beta as usize) else {
            continue;
        };
        let (alpha, dist) = if p.bits > tbits + 1 {
            continue; // 3^β > 2t: no α makes progress
        } else if p.bits == tbits + 1 || (p.bits == tbits && p.mant > tm) {
            // 3^β alone overshoots t: only α = 0 is worth a look.
            (0, at_scale(p.mant, p.bits) - tm)
        } else {
            // lo = 2^a0 3^β <= t < 2 lo.
            let (a0, lo) = if p.mant > tm {
                (tbits - p.bits - 1, p.mant >> 1)
            } else {
                (tbits - p.bits, p.mant)
            };
            if a0 >= amax {
                (amax, tm - at_scale(p.mant, p.bits + amax))
            } else {
                let (dlo, dhi) = (tm - lo, 2 * lo - tm);
                if dlo <= dhi {
                    (a0, dlo)
                } else {
                    (a0 + 1, dhi)
                }
            }
        };
        // With α = 0 only powers of three remain below, which reach exactly
        // |t'| <= (3^β - 1) / 2 (balanced ternary): never step there otherwise.
        if alpha == 0 && beta > 0 && dist > at_scale(p.mant, p.bits) / 2 {
            continue;
        }
        if best.is_none_or(|b| dist < b.0) {
            best = Some((dist, alpha, beta));
        }
    }
    let (dist, alpha, beta) = best?;
    if dist >= tm {
        return None;
    }
    let term = pow3::<L>(table, beta)?.shl(alpha);
    // Exact confirmation that the remainder shrinks (|t - term| < t <=> term < 2t).
    (term < t.shl(1)).then_some((alpha, beta, term))
}

impl Dbc {
    /// Eom et al.'s greedy chain of `n` with leading term `2^a 3^b`
    /// (`n/2 < 2^a 3^b <= 4n`), window [`EOM_WINDOW`]. It is short, not always
    /// the shortest (see [`crate::eom`]); if the greedy gets stuck, the exact
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
