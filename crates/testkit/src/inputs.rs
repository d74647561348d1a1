//! Inputs: distinct bases made cheaply, random bases and scalars.

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

/// `n` random affine points (each a random multiple of the generator).
pub fn random_bases<P: SWCurveConfig>(n: usize, rng: &mut impl rand::Rng) -> Vec<Affine<P>> {
    let proj: Vec<Projective<P>> = (0..n).map(|_| Projective::<P>::rand(rng)).collect();
    Projective::normalize_batch(&proj)
}

/// `n` random scalars.
pub fn random_scalars<F: UniformRand>(n: usize, rng: &mut impl rand::Rng) -> Vec<F> {
    (0..n).map(|_| F::rand(rng)).collect()
}
