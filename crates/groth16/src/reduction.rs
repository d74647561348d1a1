//! [`NttReduction`]: ark-groth16's R1CS-to-QAP reduction with zkaccel's NTT.

use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{evaluate_constraint, LibsnarkReduction, R1CSToQAP};
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError};
use zkaccel_ntt::NttDomain;

/// The libsnark R1CS-to-QAP reduction (the one ark-groth16 uses by default),
/// with the seven transforms of the witness map run by zkaccel's NTT.
///
/// The results are identical to [`LibsnarkReduction`]'s, so keys and proofs
/// are interchangeable: `ark_groth16::Groth16::<E, NttReduction>` is a drop-in
/// for `ark_groth16::Groth16::<E>`. The setup-side maps (instance map, `h`
/// query scalars) are LibsnarkReduction's own.
///
/// The domain type ark-groth16 passes in (`GeneralEvaluationDomain`) is
/// replaced by [`NttDomain`], which has the same size and generator for every
/// size up to the field's two-adicity; beyond it, the call is forwarded to
/// `LibsnarkReduction` with the caller's domain type.
pub struct NttReduction;

impl R1CSToQAP for NttReduction {
    #[allow(clippy::type_complexity)]
    fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
        cs: ConstraintSystemRef<F>,
        t: &F,
    ) -> Result<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize), SynthesisError> {
        LibsnarkReduction::instance_map_with_evaluation::<F, D>(cs, t)
    }

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full_assignment: &[F],
    ) -> Result<Vec<F>, SynthesisError> {
        witness_map::<F, D>(
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            false,
            None,
        )
        .map_err(|e| match e {
            MapError::Synthesis(e) => e,
            // No offload was given.
            MapError::Offload(_) => SynthesisError::Unsatisfiable,
        })
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        LibsnarkReduction::h_query_scalars::<F, D>(max_power, t, zt, delta_inverse)
    }
}

/// The quotient computed elsewhere than zkaccel's CPU NTT (the GPU), as
/// [`crate::pairing::QuotientOffloadFn`] describes.
pub(crate) type NttOffload<'a, F> = &'a crate::pairing::QuotientOffloadFn<F>;

/// Why the witness map failed.
#[derive(Debug)]
pub(crate) enum MapError {
    /// The circuit or its matrices.
    Synthesis(SynthesisError),
    /// The offloaded transforms (the GPU), with their message.
    Offload(String),
}

impl From<SynthesisError> for MapError {
    fn from(e: SynthesisError) -> Self {
        MapError::Synthesis(e)
    }
}

/// The witness map; with `check`, a constraint with `(Az)_i (Bz)_i != (Cz)_i`
/// is [`SynthesisError::Unsatisfiable`] (the sums are computed anyway, so the
/// check costs one multiplication per constraint, where arkworks'
/// `is_satisfied` re-evaluates every linear combination).
pub(crate) fn witness_map<F: PrimeField, D: EvaluationDomain<F>>(
    matrices: &[Matrix<F>],
    num_inputs: usize,
    num_constraints: usize,
    full_assignment: &[F],
    check: bool,
    offload: Option<NttOffload<'_, F>>,
) -> Result<Vec<F>, MapError> {
    evaluations::<F, D>(
        matrices,
        num_inputs,
        num_constraints,
        full_assignment,
        check,
    )?
    .quotient(offload)
}

/// The witness map's first half: the constraint evaluations on the domain,
/// or, for domains beyond the field's two-adicity, `h` itself from
/// [`LibsnarkReduction`].
pub(crate) enum Evaluated<F: PrimeField> {
    /// `h`'s coefficients.
    Quotient(Vec<F>),
    /// `A z`, `B z`, `C z` on `domain`; `h` follows on `coset`.
    OnDomain {
        /// The evaluation domain.
        domain: NttDomain<F>,
        /// Its coset by the field's generator.
        coset: NttDomain<F>,
        /// The three evaluations.
        abc: [Vec<F>; 3],
    },
}

impl<F: PrimeField> Evaluated<F> {
    /// `h`'s coefficients: the seven transforms on zkaccel's CPU NTT, or
    /// `offload`'s.
    pub(crate) fn quotient(self, offload: Option<NttOffload<'_, F>>) -> Result<Vec<F>, MapError> {
        let (domain, coset, mut abc) = match self {
            Evaluated::Quotient(h) => return Ok(h),
            Evaluated::OnDomain { domain, coset, abc } => (domain, coset, abc),
        };
        let n = domain.size();
        if let Some(run) = offload {
            let h = run(&domain, &coset, abc).map_err(MapError::Offload)?;
            if h.len() != n {
                return Err(MapError::Offload(format!(
                    "the offloaded quotient has {} coefficients, expected {n}",
                    h.len()
                )));
            }
            return Ok(h);
        }
        for v in abc.iter_mut() {
            domain.ifft_in_place(v);
        }
        for v in abc.iter_mut() {
            coset.fft_in_place(v);
        }
        let [mut ab, b, c] = abc;
        let z_inv = domain
            .evaluate_vanishing_polynomial(F::GENERATOR)
            .inverse()
            .ok_or(SynthesisError::DivisionByZero)?;
        // h on the coset: (a * b - c) / Z(g), then back to coefficients.
        par_update(&mut ab, |i, a| (*a * b[i] - c[i]) * z_inv);
        drop((b, c));
        coset.ifft_in_place(&mut ab);
        Ok(ab)
    }
}

/// The constraint evaluations of the witness map (see [`witness_map`] for
/// `check`).
pub(crate) fn evaluations<F: PrimeField, D: EvaluationDomain<F>>(
    matrices: &[Matrix<F>],
    num_inputs: usize,
    num_constraints: usize,
    full_assignment: &[F],
    check: bool,
) -> Result<Evaluated<F>, MapError> {
    if matrices.len() < 3 {
        return Err(SynthesisError::ArityMismatch.into());
    }
    let Some(domain) = NttDomain::<F>::new(num_constraints + num_inputs) else {
        return Ok(Evaluated::Quotient(
            LibsnarkReduction::witness_map_from_matrices::<F, D>(
                matrices,
                num_inputs,
                num_constraints,
                full_assignment,
            )?,
        ));
    };
    let n = domain.size();
    let coset = domain
        .get_coset(F::GENERATOR)
        .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;

    // The three constraint evaluations: A z, B z, C z.
    let eval = |m: usize| -> Vec<F> {
        let mut v = vec![F::zero(); n];
        par_update(&mut v[..num_constraints], |i, _| {
            evaluate_constraint(&matrices[m][i], full_assignment)
        });
        v
    };
    let mut a = eval(0);
    a[num_constraints..num_constraints + num_inputs]
        .copy_from_slice(&full_assignment[..num_inputs]);
    let abc = [a, eval(1), eval(2)];
    if check && !satisfied(&abc, num_constraints) {
        return Err(SynthesisError::Unsatisfiable.into());
    }
    Ok(Evaluated::OnDomain { domain, coset, abc })
}

/// Whether `a_i * b_i == c_i` for every constraint.
fn satisfied<F: PrimeField>(abc: &[Vec<F>; 3], num_constraints: usize) -> bool {
    let ok = |i: usize| abc[0][i] * abc[1][i] == abc[2][i];
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..num_constraints).into_par_iter().all(ok)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..num_constraints).all(ok)
    }
}

/// `v[i] = f(i, &v[i])`, in parallel with the `parallel` feature.
fn par_update<F: Send + Sync>(v: &mut [F], f: impl Fn(usize, &F) -> F + Sync + Send) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        v.par_iter_mut().enumerate().for_each(|(i, o)| *o = f(i, o));
    }
    #[cfg(not(feature = "parallel"))]
    {
        v.iter_mut().enumerate().for_each(|(i, o)| *o = f(i, o));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuits::MimcChain;
    use ark_bn254::Fr;
    use ark_ff::Field;
    use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem, R1CS_PREDICATE_LABEL};

    /// The witness map's inputs for a small MiMC chain.
    fn inputs() -> (Vec<Matrix<Fr>>, usize, usize, Vec<Fr>) {
        let cs = ConstraintSystem::<Fr>::new_ref();
        MimcChain::<Fr>::new(Fr::from(7u64), 40)
            .generate_constraints(cs.clone())
            .unwrap();
        cs.finalize();
        let m = cs.to_matrices().unwrap()[R1CS_PREDICATE_LABEL].clone();
        let full = [
            cs.instance_assignment().unwrap(),
            cs.witness_assignment().unwrap(),
        ]
        .concat();
        (m, cs.num_instance_variables(), cs.num_constraints(), full)
    }

    #[test]
    fn an_offloaded_quotient_is_used_and_checked() {
        let (m, inputs, constraints, full) = inputs();
        let plain =
            witness_map::<Fr, NttDomain<Fr>>(&m, inputs, constraints, &full, true, None).unwrap();
        // A stand-in for the GPU: the same quotient on the CPU, by the
        // offload's contract.
        let cpu = |d: &NttDomain<Fr>, c: &NttDomain<Fr>, abc: [Vec<Fr>; 3]| {
            let e: Vec<Vec<Fr>> = abc.iter().map(|v| c.fft(&d.ifft(v))).collect();
            let z_inv = d
                .evaluate_vanishing_polynomial(c.coset_offset())
                .inverse()
                .unwrap();
            let h: Vec<Fr> = (0..d.size())
                .map(|i| (e[0][i] * e[1][i] - e[2][i]) * z_inv)
                .collect();
            Ok(c.ifft(&h))
        };
        let got =
            witness_map::<Fr, NttDomain<Fr>>(&m, inputs, constraints, &full, true, Some(&cpu))
                .unwrap();
        assert_eq!(got, plain);
        // An offload that fails, or returns the wrong length, is an error.
        let failing =
            |_: &NttDomain<Fr>, _: &NttDomain<Fr>, _: [Vec<Fr>; 3]| Err("no GPU".to_string());
        let short =
            |_: &NttDomain<Fr>, _: &NttDomain<Fr>, _: [Vec<Fr>; 3]| Ok(vec![Fr::from(1u64)]);
        for f in [&failing as &crate::pairing::QuotientOffloadFn<Fr>, &short] {
            let r = witness_map::<Fr, NttDomain<Fr>>(&m, inputs, constraints, &full, true, Some(f));
            assert!(matches!(r, Err(MapError::Offload(_))));
        }
    }
}
