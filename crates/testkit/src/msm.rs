//! The MSM edge cases every backend must get right, and the check that a
//! backend equals arkworks on them: empty input, one term, zero scalars,
//! one and r - 1, a base repeated, P beside -P (with equal scalars: the
//! terms cancel), points at infinity, and zeros and ones mixed among
//! random scalars.

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::{AffineRepr, VariableBaseMSM};
use ark_ff::{One, UniformRand, Zero};

/// One MSM input with a name for the failure message.
pub struct MsmCase<P: SWCurveConfig> {
    /// What the input exercises.
    pub name: &'static str,
    /// The bases.
    pub bases: Vec<Affine<P>>,
    /// As many scalars.
    pub scalars: Vec<P::ScalarField>,
}

/// The edge cases, built around `n >= 4` random terms (`n` even keeps
/// every P beside its -P).
pub fn edge_cases<P: SWCurveConfig>(n: usize, rng: &mut impl rand::Rng) -> Vec<MsmCase<P>> {
    assert!(n >= 4, "room for every case");
    let b = crate::inputs::random_bases::<P>(n, rng);
    let s: Vec<P::ScalarField> = crate::inputs::random_scalars(n, rng);
    let (zero, one) = (P::ScalarField::zero(), P::ScalarField::one());
    let case = |name, bases, scalars| MsmCase {
        name,
        bases,
        scalars,
    };
    let mut plus_minus = b.clone();
    for i in (0..n - 1).step_by(2) {
        plus_minus[i + 1] = -plus_minus[i];
    }
    let mut pair_scalars = s.clone();
    for i in (0..n - 1).step_by(2) {
        pair_scalars[i + 1] = pair_scalars[i];
    }
    let mut with_infinity = b.clone();
    for i in (0..n).step_by(3) {
        with_infinity[i] = Affine::zero();
    }
    let mut mixed = s.clone();
    for i in (0..n).step_by(3) {
        mixed[i] = if i % 2 == 0 { zero } else { one };
    }
    let mut one_zero = s.clone();
    one_zero[1] = zero;
    vec![
        case("empty", vec![], vec![]),
        case("one term", b[..1].to_vec(), s[..1].to_vec()),
        case("one term, zero scalar", b[..1].to_vec(), vec![zero]),
        case(
            "one term at infinity",
            vec![Affine::zero()],
            s[..1].to_vec(),
        ),
        case("random", b.clone(), s.clone()),
        case("all scalars zero", b.clone(), vec![zero; n]),
        case("all scalars one", b.clone(), vec![one; n]),
        case("all scalars r - 1", b.clone(), vec![-one; n]),
        case("one zero scalar", b.clone(), one_zero),
        case("one base repeated", vec![b[0]; n], s.clone()),
        case(
            "one base repeated, scalars r - 1",
            vec![b[0]; n],
            vec![-one; n],
        ),
        case("P beside -P", plus_minus.clone(), s.clone()),
        case(
            "P beside -P, equal scalars (cancel)",
            plus_minus,
            pair_scalars,
        ),
        case(
            "points at infinity among the bases",
            with_infinity,
            s.clone(),
        ),
        case("all bases at infinity", vec![Affine::zero(); n], s),
        case("zeros and ones among the scalars", b, mixed),
    ]
}

/// arkworks' own MSM, the reference.
pub fn arkworks_msm<P: SWCurveConfig>(
    bases: &[Affine<P>],
    scalars: &[P::ScalarField],
) -> Projective<P> {
    Projective::<P>::msm(bases, scalars).expect("as many scalars as bases")
}

/// Asserts that `msm` equals arkworks' MSM on every case, naming the case
/// (and `what`, the backend) on failure.
pub fn assert_matches_arkworks<P: SWCurveConfig>(
    what: &str,
    cases: &[MsmCase<P>],
    mut msm: impl FnMut(&[Affine<P>], &[P::ScalarField]) -> Projective<P>,
) {
    for c in cases {
        assert_eq!(
            msm(&c.bases, &c.scalars),
            arkworks_msm(&c.bases, &c.scalars),
            "{what}: {}",
            c.name
        );
    }
}

/// Random scalars of at most `bits` bits (`bits` in 1..=64).
pub fn small_scalars<F: From<u64>>(n: usize, bits: u32, rng: &mut impl rand::Rng) -> Vec<F> {
    assert!((1..=64).contains(&bits));
    (0..n)
        .map(|_| F::from(u64::rand(rng) >> (64 - bits)))
        .collect()
}

/// `ZKACCEL_TEST_MSM_MAX`, the largest MSM the tests run, if set. CI's
/// aarch64 stage sets it: under qemu the arkworks references dominate the
/// run, and the MSM logic above the field kernels is the same as natively.
/// A size over it is skipped with a line on stderr, never counted as run.
pub fn msm_max() -> Option<usize> {
    std::env::var("ZKACCEL_TEST_MSM_MAX").ok().map(|s| {
        s.parse()
            .unwrap_or_else(|_| panic!("ZKACCEL_TEST_MSM_MAX={s:?} is not a number of terms"))
    })
}

/// Whether `n` terms are over `ZKACCEL_TEST_MSM_MAX`; if so, says on stderr
/// (where cargo shows it) that `what` did not run.
pub fn over_msm_max(n: usize, what: &str) -> bool {
    use std::io::Write;
    let Some(cap) = msm_max().filter(|&cap| n > cap) else {
        return false;
    };
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {what} (over ZKACCEL_TEST_MSM_MAX = {cap})"
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_cases_are_what_they_say() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let cases = edge_cases::<ark_bn254::g1::Config>(10, &mut rng);
        let get = |name: &str| cases.iter().find(|c| c.name == name).expect(name);
        for c in &cases {
            assert_eq!(c.bases.len(), c.scalars.len(), "{}", c.name);
        }
        assert!(get("empty").bases.is_empty());
        let cancel = get("P beside -P, equal scalars (cancel)");
        assert!(arkworks_msm(&cancel.bases, &cancel.scalars).is_zero());
        assert!(cancel.bases[0] == -cancel.bases[1] && !cancel.bases[0].is_zero());
        let zero = get("all scalars zero");
        assert!(arkworks_msm(&zero.bases, &zero.scalars).is_zero());
        let inf = get("points at infinity among the bases");
        assert!(inf.bases[0].is_zero() && inf.bases[3].is_zero() && !inf.bases[1].is_zero());
        // The random case is not trivially zero.
        let r = get("random");
        assert!(!arkworks_msm(&r.bases, &r.scalars).is_zero());
    }
}
