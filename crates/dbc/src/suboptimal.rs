//! The paper's δ-suboptimal chain (its Algorithm 3): from the NAF chain as
//! the floor, Eom's greedy chain for each of the first δ admissible leading
//! terms in [`MinCost`] order, the cheapest kept.

use crate::chain::{checked, CostModel, Dbc, DbcError, Limbs, Term};
use crate::eom::{admissible_a, greedy, SUBOPTIMAL_WINDOW};
use crate::mincost::MinCost;
use crate::recoding::{naf_chain, naf_cost};
use crate::uint::{pow3_table, Uint};
use crate::with_limbs;

impl Dbc {
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
