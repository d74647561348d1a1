//! Twiddle tables, computed once per (field, size, direction) and shared by
//! every domain and thread of the process.
//!
//! arkworks' `EvaluationDomain` must be `Copy`, so a domain cannot own its
//! tables; they live in a process-wide cache instead, keyed by the field's
//! `TypeId`. A transform of size `n` up to `2^WHOLE_MAX_LOG` uses the table
//! of size `n` (`n - 1` elements per direction); a four-step transform of
//! size `n = n1 * n2` above it needs the tables for `n1` and `n2` only
//! (about `2 * sqrt(n)` elements per direction).

use ark_ff::FftField;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Twiddles of an in-cache radix-4 decimation-in-frequency transform of size
/// `m = 2^k`, stored in the order the butterflies read them: for each radix-4
/// stage of block length `L = m, m/4, m/16, ...` (while `L >= 4`), the
/// triples `(w^j, w^2j, w^3j)` for `j < L/4` with `w = w_L`. A final radix-2
/// stage (odd `k`) needs no twiddles. `omega4` is `w_m^(m/4)` (the same
/// fourth root of unity for every stage).
pub(crate) struct StageTwiddles<F> {
    pub(crate) table: Vec<F>,
    pub(crate) omega4: F,
}

type Cache = Mutex<HashMap<(TypeId, u32, bool), Arc<dyn Any + Send + Sync>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl<F: FftField> StageTwiddles<F> {
    /// The table for size `2^log_m`, built (not cached).
    pub(crate) fn compute(log_m: u32, inverse: bool) -> Self {
        let m = 1usize << log_m;
        let mut w = F::get_root_of_unity(m as u64).expect("size checked by the domain");
        if inverse {
            w = w.inverse().expect("roots of unity are non-zero");
        }
        // m - 1 entries (3 (m/4 + m/16 + ... + 1) for a power of 4, fewer
        // otherwise), in one allocation: the first stage's triples from a
        // power chain, each later stage's taken from the first (w_L^j is
        // w_m^(j m/L), the first stage's triple j m/L); no other buffer.
        let mut table = Vec::with_capacity(m);
        let mut cur = F::one();
        for _ in 0..m / 4 {
            let sq = cur.square();
            table.push(cur);
            table.push(sq);
            table.push(sq * cur);
            cur *= w;
        }
        // w_m^(m/4), or one when m < 4 (the chain did not run).
        let omega4 = cur;
        let mut len = m / 4;
        while len >= 4 {
            let stride = m / len;
            for j in 0..len / 4 {
                for k in 0..3 {
                    table.push(table[3 * j * stride + k]);
                }
            }
            len /= 4;
        }
        StageTwiddles { table, omega4 }
    }

    /// The shared table for size `2^log_m` (built on first use).
    pub(crate) fn get(log_m: u32, inverse: bool) -> Arc<Self> {
        cached::<Self>(log_m, inverse, || Self::compute(log_m, inverse))
    }
}

/// The process-wide value of type `T` for (size, direction), built by `build`
/// on first use. `T` names the table kind and its field.
pub(crate) fn cached<T: Any + Send + Sync>(
    log_m: u32,
    inverse: bool,
    build: impl FnOnce() -> T,
) -> Arc<T> {
    let key = (TypeId::of::<T>(), log_m, inverse);
    let entry = {
        let map = cache().lock().unwrap_or_else(|e| e.into_inner());
        map.get(&key).cloned()
    };
    if let Some(any) = entry {
        if let Ok(t) = any.downcast::<T>() {
            return t;
        }
    }
    // Build outside the lock: a concurrent builder only wastes work.
    let built = Arc::new(build());
    let mut map = cache().lock().unwrap_or_else(|e| e.into_inner());
    let stored = map.entry(key).or_insert_with(|| built.clone()).clone();
    stored.downcast::<T>().unwrap_or(built)
}
