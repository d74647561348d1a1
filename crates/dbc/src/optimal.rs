//! The optimal chain: Yu, Al Musa and Li's dynamic programme (EUROCRYPT 2020),
//! the paper's Lemma 1 and Algorithm 2.
//!
//! # The recurrence, as implemented
//! For a cell `(a, b)` let `M = 2^a 3^b` and `v = n mod M`. A chain *strictly
//! below* `(a, b)` has all its terms at `(a', b') <= (a, b)`, `(a', b') != (a, b)`;
//! its value lies in `(-M, M)`, so if it is the low part of a chain of `n` its
//! value is `v` or `v - M`. `P(a, b)` / `N(a, b)` is the shortest such chain of
//! value `v` / `v - M` (the paper's `w_n` and its negative twin). A chain strictly
//! below `(a, b)` lies entirely at or below `(a-1, b)` ("X", top unit `M/2`) or at
//! or below `(a, b-1)` ("Y", top unit `M/3`), and in each case it is an optional
//! top term `±unit` plus a chain strictly below that cell. Enumerating which of
//! these values is possible for each `d = floor(6v / M)` gives, with `+` meaning
//! "one more term":
//!
//! | d    | P(a, b)                                   | N(a, b)                                    |
//! |------|-------------------------------------------|--------------------------------------------|
//! | 0, 1 | XP, +XN, YP, +YN                          | +XN                                        |
//! | 2    | XP, +XN, +YP                              | +XN, +YN                                   |
//! | 3    | +XP, +YP                                  | XN, +XP, +YN                               |
//! | 4, 5 | +XP                                       | XN, +XP, YN, +YP                           |
//!
//! This is Lemma 1 with every valid option kept (the lemma's proof shows some
//! are never needed; keeping them costs nothing and makes completeness evident).
//! `d` is `floor(q_b / 2^a) mod 6` with `q_b = floor(6n / 3^b)`, computed for a
//! whole row with one pass over the bits of `q_b` (no division per cell).
//!
//! # Which leading terms are tried
//! A chain of `n` with leading term `M` is `M + (chain strictly below)`, of
//! value `n - M`, which must be `v` (when `M <= n < 2M`: use `P`) or `v - M`
//! (when `n < M`: use `N`). Every leading term `M > n/2` is possible, but an
//! optimal chain never needs `M > 3n`, and never `M > 2n` when `D <= A + T`:
//! if `M > 2n` the second term is `-M/2` or `-M/3`. `M - M/2` is the single term
//! `M/2`, which saves `A + D`. `M - M/3` is the single term `2M/3`, changing
//! the cost by `D - A - T` (no worse when `D <= A + T`), and since the rest
//! of that chain is strictly below `M/3`, `n > 2M/3 - M/3`, so `M < 3n`.
//! The grid therefore covers `M <= 2n` or `M <= 3n` according to the model,
//! and the result is optimal for every model with positive costs (checked
//! against an exhaustive search in `tests/exhaustive.rs`). The `3n` grid is a
//! proven-safe superset: the exhaustive search found no input below `2^12`, even
//! under models with `D` far above `A + T`, whose optimum needs `M > 2n`.
//!
//! # Cost
//! About `log2(n) * log3(n) / 2` cells (21,000 for 256 bits). Each option is
//! "predecessor length + a penalty that depends on `d`" (0, 1, or impossible),
//! so a cell is 8 additions and 6 minimums with no data-dependent branch; the
//! grid keeps each cell's two lengths and its `d` (5 bytes, no allocation per
//! cell), and the chain is rebuilt by re-deriving, cell by cell from the
//! leading term down, which option gave the stored length.

use crate::chain::{check_leading, checked, CostModel, Dbc, DbcError, Input, Limbs, Sign, Term};
use crate::uint::Uint;
use crate::with_limbs;

/// Length of an impossible sub-chain; sums with it stay at or above it.
const INF: u32 = 0x7FFF;

/// Penalties per `d` for `P`'s four options, in the order
/// `P(a-1,b)`, `N(a-1,b)`, `P(a,b-1)`, `N(a,b-1)`: 0 = no new term, 1 = one
/// new term (at the predecessor's cell, sign +), INF = ruled out.
const PEN_P: [[u32; 4]; 6] = [
    [0, 1, 0, 1],
    [0, 1, 0, 1],
    [0, 1, 1, INF],
    [1, INF, 1, INF],
    [1, INF, INF, INF],
    [1, INF, INF, INF],
];

/// The same for `N` (new terms have sign -).
const PEN_N: [[u32; 4]; 6] = [
    [INF, 1, INF, INF],
    [INF, 1, INF, INF],
    [INF, 1, INF, 1],
    [1, 0, INF, 1],
    [1, 0, 1, 0],
    [1, 0, 1, 0],
];

/// `r' = floor(x/2) mod 3` from `r = x mod 3` and `bit = x mod 2`:
/// `r' = 2 (r - bit) mod 3`, packed two bits per `(r, bit)` entry.
const NEXT_R3: u32 = {
    let mut t = 0u32;
    let mut i = 0;
    while i < 6 {
        let (r, bit) = (i / 2, i % 2);
        t |= (((2 * (r + 3 - bit)) % 3) as u32) << (2 * i);
        i += 1;
    }
    t
};

/// `d = x mod 6` from `(x mod 3, x mod 2)`, three bits per entry.
const D_OF: u32 = {
    let mut t = 0u32;
    let mut i = 0;
    while i < 6 {
        let (r, bit) = (i / 2, i % 2);
        // The d in 0..6 with d = bit (mod 2) and d = r (mod 3).
        let d = (3 * bit + 4 * r) % 6;
        t |= (d as u32) << (3 * i);
        i += 1;
    }
    t
};

/// Which leading terms the grid must contain.
#[derive(Clone, Copy)]
pub(crate) enum Leading {
    /// The cheapest over all leading terms that can be optimal.
    Best,
    /// Exactly this leading term (the caller checked `2^a 3^b > n/2`).
    Exactly(u32, u32),
    /// No leading term: the shortest chain strictly below `(a, b)` of value `n`
    /// (`P`) or `n - 2^a 3^b` (`N`, when the flag is set); needs `n < 2^a 3^b`.
    Below(u32, u32, bool),
}

/// Lengths and `d` of every cell, row by row.
struct Grid {
    row_start: Vec<usize>,
    len_p: Vec<u16>,
    len_n: Vec<u16>,
    d: Vec<u8>,
}

impl Grid {
    #[inline]
    fn lens(&self, a: u32, b: u32) -> (u32, u32) {
        let i = self.row_start[b as usize] + a as usize;
        (self.len_p[i] as u32, self.len_n[i] as u32)
    }

    /// The terms below cell `(a, b)` in state `from_n`, largest first: at each
    /// cell, the first option (in table order) that gives the stored length.
    fn walk(&self, mut a: u32, mut b: u32, mut from_n: bool, out: &mut Vec<Term>) {
        while a + b > 0 {
            let i = self.row_start[b as usize] + a as usize;
            let d = self.d[i] as usize;
            let (target, pen, sign) = if from_n {
                (self.len_n[i] as u32, &PEN_N[d], Sign::Minus)
            } else {
                (self.len_p[i] as u32, &PEN_P[d], Sign::Plus)
            };
            let (xp, xn) = if a > 0 {
                self.lens(a - 1, b)
            } else {
                (INF, INF)
            };
            let (yp, yn) = if b > 0 {
                self.lens(a, b - 1)
            } else {
                (INF, INF)
            };
            let options = [
                (xp, a.wrapping_sub(1), b, false),
                (xn, a.wrapping_sub(1), b, true),
                (yp, a, b.wrapping_sub(1), false),
                (yn, a, b.wrapping_sub(1), true),
            ];
            let k = (0..4)
                .find(|&k| pen[k] < INF && options[k].0 < INF && options[k].0 + pen[k] == target)
                .expect("a stored length always comes from one of its options");
            let (_, pa, pb, pn) = options[k];
            if pen[k] == 1 {
                out.push(Term { sign, a: pa, b: pb });
            }
            (a, b, from_n) = (pa, pb, pn);
        }
        debug_assert!(!from_n, "N(0, 0) is impossible");
    }
}

/// The best leading term found so far: `(cost, a, b, uses N, sub-chain
/// length)`.
type Candidate = Option<(f64, u32, u32, bool, u32)>;

/// The cheapest chain of `n > 0` (limbs in the size class `L`) under `model`
/// whose leading term is chosen as `leading` says; `None` if there is none.
pub(crate) fn optimal<const L: usize>(
    limbs: &[u64],
    model: &CostModel,
    leading: Leading,
) -> Option<Dbc> {
    let n = Uint::<L>::from_limbs(limbs);
    debug_assert!(!n.is_zero());
    // Cells with floor(6n / M) >= thr, i.e. M <= 6n / thr (2n or 3n).
    let thr: u64 = if model.leading_bound_is_2n() { 3 } else { 2 };
    let max_b = match leading {
        Leading::Best => u32::MAX,
        Leading::Exactly(_, b) | Leading::Below(_, b, _) => b,
    };
    let cells_estimate = (n.bits() as usize + 4) * (n.bits() as usize * 2 / 3 + 4) / 2;
    let mut grid = Grid {
        row_start: Vec::new(),
        len_p: Vec::with_capacity(cells_estimate),
        len_n: Vec::with_capacity(cells_estimate),
        d: Vec::with_capacity(cells_estimate),
    };
    let mut best: Candidate = None;
    let mut q = n.mul_small(6); // q_b = floor(6n / 3^b)
    let mut b = 0u32;
    while b <= max_b {
        let row_max = row_max(&q, leading, thr);
        if row_max < 0 {
            break;
        }
        let row_len = row_max as usize + 1;
        let start = grid.len_p.len();
        let prev = grid.row_start.last().copied();
        grid.row_start.push(start);
        grid.fill_row(&q, b, row_len, start, prev);
        grid.leading_candidates(&q, b, row_len, start, leading, model, &mut best);
        q = q.div3();
        b += 1;
    }
    grid.chain(leading, best)
}

/// The last column of row `b` (`q` is its `floor(6n / 3^b)`): the grid's
/// bound for the best leading term, the given column otherwise; negative
/// when the row is empty.
fn row_max<const L: usize>(q: &Uint<L>, leading: Leading, thr: u64) -> i64 {
    match leading {
        Leading::Exactly(a, _) | Leading::Below(a, _, _) => a as i64,
        Leading::Best => {
            let mut a = q.bits() as i64 - 2;
            while a >= 0 && q.shr_saturating_u64(a as u32) < thr {
                a -= 1;
            }
            a
        }
    }
}

impl Grid {
    /// Row `b`'s cells `0..row_len` from the row above (`prev`) and the
    /// cell to the left: the recurrence of the module docs, branch-free.
    #[inline]
    fn fill_row<const L: usize>(
        &mut self,
        q: &Uint<L>,
        b: u32,
        row_len: usize,
        start: usize,
        prev: Option<usize>,
    ) {
        // r = floor(q / 2^a) mod 3, starting from q mod 3 (2^64 = 1 mod 3).
        let mut r = q.0.iter().map(|&x| (x % 3) as u32).sum::<u32>() % 3;
        for a in 0..row_len {
            let bit = if a < 64 * L {
                ((q.0[a / 64] >> (a % 64)) & 1) as u32
            } else {
                0
            };
            let idx = 2 * r + bit;
            let d = ((D_OF >> (3 * idx)) & 7) as usize;
            r = (NEXT_R3 >> (2 * idx)) & 3;

            let (xp, xn) = if a > 0 {
                (
                    self.len_p[start + a - 1] as u32,
                    self.len_n[start + a - 1] as u32,
                )
            } else {
                (INF, INF)
            };
            let (yp, yn) = match prev {
                Some(p) => (self.len_p[p + a] as u32, self.len_n[p + a] as u32),
                None => (INF, INF),
            };
            let (pp, pn) = (&PEN_P[d], &PEN_N[d]);
            // The row-above terms do not depend on this row: off the critical path.
            let lp_y = (yp + pp[2]).min(yn + pp[3]);
            let ln_y = (yp + pn[2]).min(yn + pn[3]);
            let mut lp = (xp + pp[0]).min(xn + pp[1]).min(lp_y).min(INF);
            let ln = (xp + pn[0]).min(xn + pn[1]).min(ln_y).min(INF);
            if a == 0 && b == 0 {
                // Only the empty chain is strictly below (0, 0); n mod 1 = 0.
                lp = 0;
            }
            self.len_p.push(lp as u16);
            self.len_n.push(ln as u16);
            self.d.push(d as u8);
        }
    }

    /// Row `b`'s leading-term candidates into `best`: s = floor(6n / M) < 6
    /// means n < M (use N), 6..=11 means M <= n < 2M (use P). Only the last
    /// few columns qualify.
    #[allow(clippy::too_many_arguments)]
    fn leading_candidates<const L: usize>(
        &self,
        q: &Uint<L>,
        b: u32,
        row_len: usize,
        start: usize,
        leading: Leading,
        model: &CostModel,
        best: &mut Candidate,
    ) {
        let first = match leading {
            Leading::Best => row_len.saturating_sub(4),
            Leading::Exactly(_, eb) if b == eb => row_len - 1,
            Leading::Exactly(..) | Leading::Below(..) => row_len,
        };
        for a in first..row_len {
            let s = q.shr_saturating_u64(a as u32);
            if s >= 12 {
                continue;
            }
            let (len, from_n) = if s < 6 {
                (self.len_n[start + a] as u32, true)
            } else {
                (self.len_p[start + a] as u32, false)
            };
            if len < INF {
                let cost = model.chain_cost(len as usize + 1, a as u32, b);
                if best.is_none_or(|x| cost < x.0) {
                    *best = Some((cost, a as u32, b, from_n, len));
                }
            }
        }
    }

    /// The chain the filled grid gives: below the given cell
    /// ([`Leading::Below`]), or from the best leading term found.
    fn chain(&self, leading: Leading, best: Candidate) -> Option<Dbc> {
        if let Leading::Below(a, b, from_n) = leading {
            let (lp, ln) = self.lens(a, b);
            let len = if from_n { ln } else { lp };
            if len >= INF {
                return None;
            }
            let mut terms = Vec::with_capacity(len as usize);
            self.walk(a, b, from_n, &mut terms);
            return Some(Dbc::from_terms(terms));
        }
        let (_, a, b, from_n, len) = best?;
        let mut terms = Vec::with_capacity(len as usize + 1);
        terms.push(Term {
            sign: Sign::Plus,
            a,
            b,
        });
        self.walk(a, b, from_n, &mut terms);
        debug_assert_eq!(terms.len(), len as usize + 1);
        Some(Dbc::from_terms(terms))
    }
}

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
}

fn run_optimal<const L: usize>(limbs: &[u64], model: &CostModel, leading: Leading) -> Option<Dbc> {
    optimal::<L>(limbs, model, leading)
}
