//! The R1CS-to-QAP reductions on zkaccel's NTT: [`NttReduction`]
//! (ark-groth16's libsnark reduction) and [`CircomReduction`] (the one snarkjs,
//! rapidsnark and ark-circom use, which snarkjs keys are made for).

use crate::matrix::ConstraintMatrix;
use ark_ff::PrimeField;
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError};
use zkaccel_ntt::{Direction, NttDomain, QuotientForm};

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
        .map_err(MapError::into_synthesis)
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

/// Which R1CS-to-QAP reduction a proving key was made for. It fixes the
/// witness map (what `h` is) and the length of the key's H query; a proof
/// made with the other one does not verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Qap {
    /// ark-groth16's default ([`LibsnarkReduction`], [`NttReduction`]): `h`'s
    /// coefficients, `(A z * B z - C z) / Z` interpolated from the coset of the
    /// field's generator; the H query has `n - 1` points.
    Libsnark,
    /// snarkjs, rapidsnark and ark-circom ([`CircomReduction`]): `A z * B z -
    /// C z` evaluated at the `n` odd `2n`-th roots of unity (the coset of the
    /// `2n`-th root), with `C z` taken as `A z * B z` row by row; no division
    /// (the key's H query, the Lagrange basis on those points, absorbs `Z`);
    /// the H query has `n` points.
    Circom,
    /// [`Qap::Circom`] on snarkjs' roots of unity, for keys made by snarkjs.
    /// snarkjs (ffjavascript) takes `nqr^t` as its primitive `2^s`-th root,
    /// `nqr` the field's smallest quadratic non-residue, where arkworks takes
    /// its generator to the same power: the same root on BN254 (both 5), a
    /// different one on BLS12-381 (5 and 7), which orders the domain, and so
    /// `h` and the key's H points, differently. Computed as [`Qap::Circom`]
    /// between two permutations (none on BN254).
    Snarkjs,
}

impl Qap {
    /// The form of `h` this reduction's keys take.
    pub fn quotient_form(self) -> QuotientForm {
        match self {
            Qap::Libsnark => QuotientForm::Coefficients,
            Qap::Circom | Qap::Snarkjs => QuotientForm::CosetEvaluations,
        }
    }

    /// The number of H-query points a key made for this reduction has, for
    /// an evaluation domain of `domain_size` elements.
    pub fn h_query_len(self, domain_size: usize) -> usize {
        match self {
            Qap::Libsnark => domain_size.saturating_sub(1),
            Qap::Circom | Qap::Snarkjs => domain_size,
        }
    }
}

/// The R1CS-to-QAP reduction of snarkjs, rapidsnark and ark-circom, with its
/// six transforms run by zkaccel's NTT: a drop-in for ark-circom 0.6's
/// `CircomReduction` (same name, same results), so that
/// `ark_groth16::Groth16::<Bn254, CircomReduction>` proves with snarkjs keys.
///
/// The witness map evaluates `A z * B z - C z` at the odd `2n`-th roots of
/// unity ([`Qap::Circom`]): interpolate `A z`, `B z` and `C z = A z * B z`
/// on the domain, evaluate each on the coset of the `2n`-th root, combine.
/// The setup side (instance map) is [`LibsnarkReduction`]'s; the H query's
/// scalars are the Lagrange basis on the odd roots, as snarkjs computes them.
pub struct CircomReduction;

impl R1CSToQAP for CircomReduction {
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
        evaluations::<F, Matrix<F>>(
            Qap::Circom,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            false,
        )
        .and_then(|e| e.quotient(None))
        .map_err(MapError::into_synthesis)
    }

    /// `delta^-1` times the Lagrange basis on the `n` odd `2n`-th roots of
    /// unity, evaluated at `t`: the odd coefficients of the inverse transform
    /// of `t^0, ..., t^(2 max_power)` over the domain of size `2n`.
    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        _zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        let len = 2 * max_power + 1;
        let domain = NttDomain::<F>::new(len).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        let mut powers = Vec::with_capacity(domain.size());
        let mut p = delta_inverse;
        for _ in 0..len {
            powers.push(p);
            p *= t;
        }
        domain.ifft_in_place(&mut powers);
        Ok(powers.into_iter().skip(1).step_by(2).collect())
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
    /// The offloaded transforms (the GPU), with their error.
    Offload(zkaccel_ntt::NttError),
}

impl MapError {
    /// As arkworks' error (where no offload was given, so only
    /// [`MapError::Synthesis`] can occur).
    fn into_synthesis(self) -> SynthesisError {
        match self {
            MapError::Synthesis(e) => e,
            MapError::Offload(_) => SynthesisError::Unsatisfiable,
        }
    }
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
    match NttDomain::<F>::new(num_constraints + num_inputs) {
        Some(_) => evaluations::<F, Matrix<F>>(
            Qap::Libsnark,
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
            check,
        )?
        .quotient(offload),
        // Beyond the field's two-adicity: LibsnarkReduction with the
        // caller's domain type (a mixed-radix domain where it has one).
        None => Ok(LibsnarkReduction::witness_map_from_matrices::<F, D>(
            matrices,
            num_inputs,
            num_constraints,
            full_assignment,
        )?),
    }
}

/// The witness map's first half: the constraint evaluations on the domain.
pub(crate) enum Evaluated<F: PrimeField> {
    /// `A z`, `B z`, `C z` on `domain`; `h` follows on `coset`.
    OnDomain {
        /// The evaluation domain.
        domain: NttDomain<F>,
        /// Its coset: by the field's generator ([`Qap::Libsnark`]) or by the
        /// `2n`-th root of unity ([`Qap::Circom`]).
        coset: NttDomain<F>,
        /// The three evaluations.
        abc: [Vec<F>; 3],
        /// Which quotient follows.
        qap: Qap,
    },
}

impl<F: PrimeField> Evaluated<F> {
    /// The form in which an offloaded quotient job (the GPU's) computes
    /// exactly the `h` this key wants: `None` where the key orders its
    /// domain by another root of unity than arkworks' (snarkjs keys on
    /// BLS12-381), whose permutations only the CPU path applies.
    pub(crate) fn offload_form(&self) -> Option<QuotientForm> {
        let Evaluated::OnDomain { qap, .. } = self;
        (*qap != Qap::Snarkjs || snarkjs_root_exponent::<F>() == 1).then(|| qap.quotient_form())
    }

    /// `h` as the key's reduction defines it ([`Qap`]): for
    /// [`Qap::Libsnark`] its coefficients, from the seven transforms; for
    /// [`Qap::Circom`] its evaluations on the odd `2n`-th roots, from six;
    /// on `offload` (the GPU) where it computes that form
    /// ([`Evaluated::offload_form`]), else on zkaccel's CPU NTT.
    pub(crate) fn quotient(self, offload: Option<NttOffload<'_, F>>) -> Result<Vec<F>, MapError> {
        if let (Some(form), Some(run)) = (self.offload_form(), offload) {
            let Evaluated::OnDomain {
                domain, coset, abc, ..
            } = self;
            let n = domain.size();
            let h = run(&domain, &coset, abc, form).map_err(MapError::Offload)?;
            if h.len() != n {
                return Err(MapError::Offload(zkaccel_ntt::NttError::LengthMismatch {
                    expected: n,
                    got: h.len(),
                }));
            }
            return Ok(h);
        }
        let Evaluated::OnDomain {
            domain,
            coset,
            mut abc,
            qap,
        } = self;
        let m = root_exponent::<F>(qap);
        for v in abc.iter_mut() {
            to_arkworks_order(m, v);
        }
        onto_coset(&domain, &coset, &mut abc);
        finish_quotient(&domain, &coset, qap, abc)
    }

    /// The columns of `which` (A z, B z, C z) on the coset, each as
    /// [`Evaluated::quotient`] transforms it; `None` for the others. With
    /// the rest from elsewhere (another process), [`finish_quotient`] gives
    /// the quotient.
    pub(crate) fn columns_on_coset(self, which: [bool; 3]) -> [Option<Vec<F>>; 3] {
        let Evaluated::OnDomain {
            domain,
            coset,
            abc,
            qap,
        } = self;
        let m = root_exponent::<F>(qap);
        let mut out = [None, None, None];
        for ((o, mut v), keep) in out.iter_mut().zip(abc).zip(which) {
            if keep {
                to_arkworks_order(m, &mut v);
                domain.transform_lean(&mut v, Direction::Inverse);
                coset.transform_lean(&mut v, Direction::Forward);
                *o = Some(v);
            }
        }
        out
    }
}

/// The power `m` of arkworks' root of unity that is the key's: snarkjs'
/// for [`Qap::Snarkjs`] ([`snarkjs_root_exponent`]), 1 for the others.
fn root_exponent<F: PrimeField>(qap: Qap) -> u64 {
    match qap {
        Qap::Snarkjs => snarkjs_root_exponent::<F>(),
        _ => 1,
    }
}

/// `v` (on a domain whose root is arkworks' to the power `m`,
/// [`root_exponent`]) in arkworks' domain order: its i-th point is
/// arkworks' (m i mod n)-th. Unchanged for m = 1.
fn to_arkworks_order<F: PrimeField>(m: u64, v: &mut Vec<F>) {
    if m != 1 {
        let n = v.len();
        let mm = (m % n as u64) as u128;
        let mut p = vec![F::zero(); n];
        for (i, x) in v.iter().enumerate() {
            p[(mm * i as u128 % n as u128) as usize] = *x;
        }
        *v = p;
    }
}

/// The quotient from A z, B z and C z on `coset` of `domain` (in
/// arkworks' order, as [`Evaluated::columns_on_coset`] gives them), in the
/// form `qap` defines ([`Evaluated::quotient`]). Every column must have the
/// domain's size ([`SynthesisError::Unsatisfiable`] otherwise: no column
/// of another witness is accepted).
pub(crate) fn finish_quotient<F: PrimeField>(
    domain: &NttDomain<F>,
    coset: &NttDomain<F>,
    qap: Qap,
    abc: [Vec<F>; 3],
) -> Result<Vec<F>, MapError> {
    let n = domain.size();
    if abc.iter().any(|v| v.len() != n) {
        return Err(SynthesisError::Unsatisfiable.into());
    }
    let [mut ab, b, c] = abc;
    if qap != Qap::Libsnark {
        par_update(&mut ab, |i, a| *a * b[i] - c[i]);
        let m = root_exponent::<F>(qap);
        if m != 1 {
            // snarkjs' k-th odd root g^m w^(m k) is arkworks' coset point
            // g w^j with 2j + 1 = m (2k + 1) mod 2n.
            let two_n = 2 * n as u128;
            let m2 = m as u128 % two_n;
            let h = (0..n)
                .map(|k| ab[((m2 * (2 * k as u128 + 1) % two_n - 1) / 2) as usize])
                .collect();
            return Ok(h);
        }
        return Ok(ab);
    }
    let z_inv = domain
        .evaluate_vanishing_polynomial(F::GENERATOR)
        .inverse()
        .ok_or(SynthesisError::DivisionByZero)?;
    // h on the coset: (a * b - c) / Z(g), then back to coefficients.
    par_update(&mut ab, |i, a| (*a * b[i] - c[i]) * z_inv);
    drop((b, c));
    coset.transform_lean(&mut ab, Direction::Inverse);
    Ok(ab)
}

/// The witness map's domain for `num_constraints` and `num_inputs`, and
/// the coset its quotient is evaluated on for `qap`: by the field's
/// generator ([`Qap::Libsnark`]), by the `2n`-th root of unity (the
/// circom reductions).
pub(crate) fn domains<F: PrimeField>(
    qap: Qap,
    num_constraints: usize,
    num_inputs: usize,
) -> Result<(NttDomain<F>, NttDomain<F>), SynthesisError> {
    let size = num_constraints
        .checked_add(num_inputs)
        .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
    let domain = NttDomain::<F>::new(size).ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
    let n = domain.size();
    let offset = match qap {
        Qap::Libsnark => F::GENERATOR,
        // The 2n-th root of unity: its coset is the odd 2n-th roots.
        Qap::Circom | Qap::Snarkjs => NttDomain::<F>::new(2 * n)
            .ok_or(SynthesisError::PolynomialDegreeTooLarge)?
            .group_gen(),
    };
    let coset = domain
        .get_coset(offset)
        .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
    Ok((domain, coset))
}

/// The constraint evaluations of the witness map for `qap` (see
/// [`witness_map`] for `check`; for [`Qap::Circom`], `C z` is `A z * B z`,
/// and `check` applies only where the C matrix is given in full).
///
/// The domain must fit the field's two-adicity
/// ([`SynthesisError::PolynomialDegreeTooLarge`] otherwise). Every
/// variable index in the matrices must be below `full_assignment.len()`
/// ([`SynthesisError::AssignmentMissing`] otherwise: no index is trusted).
pub(crate) fn evaluations<F: PrimeField, M: ConstraintMatrix<F>>(
    qap: Qap,
    matrices: &[M],
    num_inputs: usize,
    num_constraints: usize,
    full_assignment: &[F],
    check: bool,
) -> Result<Evaluated<F>, MapError> {
    let circom = qap != Qap::Libsnark;
    let needed = if circom { 2 } else { 3 };
    if matrices.len() < needed
        || matrices[..needed]
            .iter()
            .any(|m| m.num_rows() < num_constraints)
    {
        return Err(SynthesisError::ArityMismatch.into());
    }
    if num_inputs > full_assignment.len() {
        return Err(SynthesisError::AssignmentMissing.into());
    }
    let (domain, coset) = domains::<F>(qap, num_constraints, num_inputs)?;
    let n = domain.size();

    // Every index in range, so that evaluation cannot panic on bad matrices.
    let vars = full_assignment.len();
    let in_range = |m: &M| m.indices_below(num_constraints, vars);
    let used = if circom && !c_given(matrices, num_constraints) {
        2
    } else {
        3
    };
    if !matrices[..used].iter().all(in_range) {
        return Err(SynthesisError::AssignmentMissing.into());
    }

    // The constraint evaluations: A z, B z, and C z (or A z * B z).
    let eval = |m: usize| -> Vec<F> {
        let mut v = vec![F::zero(); n];
        par_update(&mut v[..num_constraints], |i, _| {
            matrices[m].row_times(i, full_assignment)
        });
        v
    };
    let mut a = eval(0);
    a[num_constraints..num_constraints + num_inputs]
        .copy_from_slice(&full_assignment[..num_inputs]);
    let b = eval(1);
    let c = if circom {
        if check && used == 3 {
            let c = eval(2);
            if !satisfied(&[&a, &b, &c], num_constraints) {
                return Err(SynthesisError::Unsatisfiable.into());
            }
        }
        let mut c = vec![F::zero(); n];
        par_update(&mut c[..num_constraints], |i, _| a[i] * b[i]);
        c
    } else {
        let c = eval(2);
        if check && !satisfied(&[&a, &b, &c], num_constraints) {
            return Err(SynthesisError::Unsatisfiable.into());
        }
        c
    };
    Ok(Evaluated::OnDomain {
        domain,
        coset,
        abc: [a, b, c],
        qap,
    })
}

/// `m` with `nqr^t = w^m` (mod `2^s`): snarkjs' primitive `2^s`-th root of
/// unity (`nqr` the smallest quadratic non-residue, `t` the odd part of `r -
/// 1`) as a power of arkworks' (`F::TWO_ADIC_ROOT_OF_UNITY`). Odd; 1 on
/// BN254. The discrete logarithm in a group of order `2^s`, bit by bit.
pub fn snarkjs_root_exponent<F: PrimeField>() -> u64 {
    use ark_ff::LegendreSymbol;
    let s = F::TWO_ADICITY;
    let mut nqr = F::from(2u64);
    while nqr.legendre() != LegendreSymbol::QuadraticNonResidue {
        nqr += F::one();
    }
    let target = nqr.pow(F::TRACE);
    let w = F::TWO_ADIC_ROOT_OF_UNITY;
    let w_inv = w.inverse().expect("a root of unity is invertible");
    // Find m bit by bit: (target * w^-m)^(2^(s-1-i)) = 1 fixes bit i.
    let mut m = 0u64;
    let mut rest = target; // target * w^-m
    let mut w_inv_2i = w_inv; // w^-(2^i)
    for i in 0..s {
        let mut x = rest;
        for _ in 0..(s - 1 - i) {
            x.square_in_place();
        }
        if !x.is_one() {
            m |= 1 << i;
            rest *= w_inv_2i;
        }
        w_inv_2i.square_in_place();
    }
    m
}

/// Whether the C matrix is there with a row for every constraint (circom
/// keys carry only A and B).
fn c_given<F: PrimeField, M: ConstraintMatrix<F>>(matrices: &[M], num_constraints: usize) -> bool {
    matrices
        .get(2)
        .is_some_and(|c| c.num_rows() >= num_constraints)
}

/// Whether `a_i * b_i == c_i` for every constraint.
fn satisfied<F: PrimeField>(abc: &[&Vec<F>; 3], num_constraints: usize) -> bool {
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

/// Each of `abc` interpolated on `domain` and evaluated on `coset` (an
/// inverse transform, then a forward one), the six transforms two at a time:
/// `a` and `b` back, then `a` forward beside `c` back, then `b` and `c`
/// forward. Two transforms side by side, each on one thread where there are
/// two, beat one transform split over both: the split stages wait on each
/// other, and on a 2-core Xeon (family 6 model 207) a 2^17 transform took
/// 12.9 ms on two threads against 21.4-21.9 ms each for two run at once on
/// one thread apiece (ADX; with the IFMA lanes 4.45 ms against 8.2 ms
/// each). With
/// more threads each transform still splits over the idle ones (rayon's
/// stealing); without `parallel` it is the plain sequence.
///
/// The transforms run [`Kernel::Lean`](zkaccel_ntt::Kernel::Lean): on CPUs
/// with AVX2 and no IFMA, the ADX kernel rather than `Auto`'s AVX2 lanes,
/// whose lane copies of the data and lane tables raised the peak of a
/// SHA-256 2^17 proof from 66 to 106 MiB (rapidsnark's: 85) and made the
/// one-shot proof 6% slower (2-core Xeon, family 6 model 207; loaded once
/// and proved many times, the lanes were 3% faster; docs/ntt.md).
fn onto_coset<F: PrimeField>(domain: &NttDomain<F>, coset: &NttDomain<F>, abc: &mut [Vec<F>; 3]) {
    let [a, b, c] = abc;
    let (back, forth) = (Direction::Inverse, Direction::Forward);
    join(
        || domain.transform_lean(a, back),
        || domain.transform_lean(b, back),
    );
    join(
        || coset.transform_lean(a, forth),
        || domain.transform_lean(c, back),
    );
    join(
        || coset.transform_lean(b, forth),
        || coset.transform_lean(c, forth),
    );
}

/// `rayon::join` with `parallel`, else one after the other.
fn join(x: impl FnOnce() + Send, y: impl FnOnce() + Send) {
    #[cfg(feature = "parallel")]
    rayon::join(x, y);
    #[cfg(not(feature = "parallel"))]
    {
        x();
        y();
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
        let cpu = |d: &NttDomain<Fr>, c: &NttDomain<Fr>, abc: [Vec<Fr>; 3], form| {
            assert_eq!(form, QuotientForm::Coefficients, "a libsnark key");
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
        let failing = |_: &NttDomain<Fr>, _: &NttDomain<Fr>, _: [Vec<Fr>; 3], _| {
            Err(zkaccel_ntt::NttError::Backend {
                backend: "test",
                cause: zkaccel_ntt::BackendCause::msg("no GPU"),
            })
        };
        let short =
            |_: &NttDomain<Fr>, _: &NttDomain<Fr>, _: [Vec<Fr>; 3], _| Ok(vec![Fr::from(1u64)]);
        for f in [&failing as &crate::pairing::QuotientOffloadFn<Fr>, &short] {
            let r = witness_map::<Fr, NttDomain<Fr>>(&m, inputs, constraints, &full, true, Some(f));
            assert!(matches!(r, Err(MapError::Offload(_))));
        }
    }

    /// circom's quotient through an offload (a CPU stand-in computing
    /// `a b - c` on the odd 2n-th roots, by the contract of
    /// `QuotientForm::CosetEvaluations`) equals the CPU path's, for both
    /// circom reductions on BN254 (whose snarkjs roots are arkworks').
    #[test]
    fn circom_quotients_are_offloaded_in_their_form() {
        let (m, inputs, constraints, full) = inputs();
        let coset_evals = |d: &NttDomain<Fr>, c: &NttDomain<Fr>, abc: [Vec<Fr>; 3], form| {
            assert_eq!(form, QuotientForm::CosetEvaluations, "a circom key");
            let e: Vec<Vec<Fr>> = abc.iter().map(|v| c.fft(&d.ifft(v))).collect();
            Ok((0..d.size()).map(|i| e[0][i] * e[1][i] - e[2][i]).collect())
        };
        for qap in [Qap::Circom, Qap::Snarkjs] {
            let eval = || evaluations::<Fr, Matrix<Fr>>(qap, &m, inputs, constraints, &full, true);
            let e = eval().unwrap();
            assert_eq!(e.offload_form(), Some(QuotientForm::CosetEvaluations));
            let plain = e.quotient(None).unwrap();
            let got = eval().unwrap().quotient(Some(&coset_evals)).unwrap();
            assert_eq!(got, plain, "{qap:?}");
            // A libsnark-shaped answer would differ: the test can fail.
            let wrong = |d: &NttDomain<Fr>, c: &NttDomain<Fr>, abc: [Vec<Fr>; 3], _| {
                let e: Vec<Vec<Fr>> = abc.iter().map(|v| c.fft(&d.ifft(v))).collect();
                Ok(c.ifft(
                    &(0..d.size())
                        .map(|i| e[0][i] * e[1][i] - e[2][i])
                        .collect::<Vec<_>>(),
                ))
            };
            assert_ne!(eval().unwrap().quotient(Some(&wrong)).unwrap(), plain);
        }
    }
}
