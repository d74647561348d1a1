//! Values shared by the field kernel tests.

use ark_ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// `n` random elements (seeded), then the edge values 0, 1, p - 1, p - 2
/// and 1/2.
pub fn random_and_edge_values<F: Field>(n: usize, seed: u64) -> Vec<F> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut vals: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
    vals.extend([
        F::zero(),
        F::one(),
        -F::one(),
        -F::one().double(),
        F::from(2u64).inverse().unwrap(),
    ]);
    vals
}
