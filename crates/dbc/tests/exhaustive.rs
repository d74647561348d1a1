//! `Dbc::optimal` against an exhaustive search written independently of it.
//!
//! A chain evaluated from its leading term down is a walk that starts at 1 and
//! applies x2 (cost D), x3 (cost T) and ±1 (cost A, never twice in a row, since
//! terms are distinct). The cheapest walk to `n` is the optimal chain's cost;
//! Dijkstra over values in `[-V, V]` finds it for every `n` at once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zkaccel_dbc::{CostModel, Dbc, Recoding};

const LIMIT: u64 = 1 << 12;

/// Cheapest walk cost to every value in `0..limit`, over values bounded by `bound`.
fn exhaustive(model: &CostModel, limit: u64, bound: i64) -> Vec<f64> {
    // State index: (value + bound) * 2 + (last step was ±1).
    let idx = |v: i64, added: bool| ((v + bound) as usize) * 2 + added as usize;
    let mut dist = vec![f64::INFINITY; (2 * bound as usize + 1) * 2];
    // Costs are scaled to integers (tenths of M) so the heap orders exactly.
    let scale = |c: f64| (c * 1000.0).round() as u64;
    let (d, t, a) = (scale(model.double), scale(model.triple), scale(model.add));
    let mut heap = BinaryHeap::new();
    let mut best = vec![u64::MAX; (2 * bound as usize + 1) * 2];
    best[idx(1, true)] = 0;
    heap.push(Reverse((0u64, 1i64, true)));
    while let Some(Reverse((c, v, added))) = heap.pop() {
        if c > best[idx(v, added)] {
            continue;
        }
        let mut relax = |nv: i64, nadded: bool, nc: u64| {
            if nv.abs() <= bound && nc < best[idx(nv, nadded)] {
                best[idx(nv, nadded)] = nc;
                heap.push(Reverse((nc, nv, nadded)));
            }
        };
        relax(2 * v, false, c + d);
        relax(3 * v, false, c + t);
        if !added {
            relax(v + 1, true, c + a);
            relax(v - 1, true, c + a);
        }
    }
    for (i, b) in best.iter().enumerate() {
        if *b != u64::MAX {
            dist[i] = *b as f64 / 1000.0;
        }
    }
    (0..limit)
        .map(|n| {
            let n = n as i64;
            if n == 0 {
                0.0
            } else {
                dist[idx(n, false)].min(dist[idx(n, true)])
            }
        })
        .collect()
}

fn models() -> [(&'static str, CostModel); 5] {
    [
        ("paper", CostModel::default()),
        ("a=0 Jacobian", CostModel::new(6.0, 13.0, 10.2).unwrap()),
        // D > A + T: the only case where leading terms above 2n can win.
        (
            "expensive doubling",
            CostModel::new(20.0, 3.0, 2.0).unwrap(),
        ),
        ("x1", CostModel::new(100.0, 1.0, 1.0).unwrap()),
        ("x2", CostModel::new(10.0, 1.0, 5.0).unwrap()),
    ]
}

#[test]
fn the_search_bound_is_wide_enough() {
    // Widening the value bound must not find anything cheaper.
    for (_, m) in models() {
        let narrow = exhaustive(&m, 1 << 10, 1 << 14);
        let wide = exhaustive(&m, 1 << 10, 1 << 17);
        assert_eq!(narrow, wide);
    }
}

#[test]
fn optimal_matches_exhaustive_search_below_2_pow_12() {
    for (name, model) in models() {
        let reference = exhaustive(&model, LIMIT, 1 << 16);
        for n in 0..LIMIT {
            let chain = Dbc::optimal_with(&n, &model).unwrap();
            assert!(
                chain.is_valid() && chain.represents(&n),
                "{name}: n = {n}: {chain}"
            );
            let got = chain.cost(&model);
            assert!(
                (got - reference[n as usize]).abs() < 1e-6,
                "{name}: n = {n}: optimal {got} ({chain}), exhaustive {}",
                reference[n as usize]
            );
        }
    }
}

#[test]
fn cost_ordering_holds_below_2_pow_12() {
    for (name, model) in models() {
        for n in 0..LIMIT {
            let opt = Dbc::optimal_with(&n, &model).unwrap().cost(&model);
            let eom = Dbc::eom_with(&n, &model).unwrap();
            let naf = Recoding::naf(&n).unwrap().cost(&model);
            assert!(eom.is_valid() && eom.represents(&n), "{name}: eom n = {n}");
            assert!(opt <= eom.cost(&model) + 1e-9, "{name}: n = {n}");
            assert!(opt <= naf + 1e-9, "{name}: optimal above NAF at n = {n}");
            let mut prev = f64::INFINITY;
            for delta in [1, 2, 3, 10, 20] {
                let s = Dbc::suboptimal_with(&n, delta, None, &model).unwrap();
                assert!(
                    s.is_valid() && s.represents(&n),
                    "{name}: n = {n} delta = {delta}"
                );
                let c = s.cost(&model);
                assert!(
                    opt <= c + 1e-9 && c <= naf + 1e-9,
                    "{name}: n = {n} delta = {delta}"
                );
                assert!(
                    c <= prev + 1e-9,
                    "{name}: n = {n}: delta {delta} costs more than fewer"
                );
                prev = c;
            }
        }
    }
}
