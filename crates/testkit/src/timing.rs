//! Interleaved timing: every contender once per round, medians.

use std::time::Instant;

/// Medians (ms) over `rounds` of running `a` and `b`, alternating which runs
/// first, so load on a noisy machine falls on both contenders alike.
pub fn interleaved(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (f64, f64) {
    let m = interleaved_all(rounds, &mut [&mut a, &mut b]);
    (m[0], m[1])
}

/// Medians (ms) over `rounds` of running every contender once per round;
/// each round starts at a different contender (round `r` at `r mod k`), so
/// load falls on all of them alike.
pub fn interleaved_all(rounds: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    let k = fs.len();
    let mut times = vec![Vec::with_capacity(rounds); k];
    for r in 0..rounds {
        for j in 0..k {
            let i = (r + j) % k;
            let t = Instant::now();
            fs[i]();
            times[i].push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.into_iter().map(median).collect()
}

/// The median of `v` (upper median for even lengths).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
