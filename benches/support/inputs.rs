//! Inputs shared by the root crate's benchmarks and examples, included by
//! each with `#[path = ".../benches/support/inputs.rs"] mod inputs;`.

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::UniformRand;

/// `n` distinct affine points `a + i b` (`a`, `b` random multiples of the
/// generator), normalised at once: `n` additions and one inversion, where
/// `n` independent random points would cost `n` scalar multiplications.
pub fn progression<P: SWCurveConfig>(n: usize, rng: &mut impl rand::Rng) -> Vec<Affine<P>> {
    let step = Projective::<P>::generator() * P::ScalarField::rand(rng);
    let mut cur = Projective::<P>::generator() * P::ScalarField::rand(rng);
    let proj: Vec<Projective<P>> = (0..n)
        .map(|_| {
            cur += step;
            cur
        })
        .collect();
    Projective::normalize_batch(&proj)
}
