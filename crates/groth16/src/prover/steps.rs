//! One proof from constraint matrices, step by step ([`Job::prove`]): the
//! key checked against the witness, the constraint evaluations (the witness
//! map's first half), the quotient and the H MSM, the L, A and B MSMs in G1
//! and the B MSM in G2 (the G1 work on the GPU beside the CPU's where the
//! backend has one), and the proof's three points.

use super::key::{check_len, KeyQuery, PreparedProvingKey, ProvingKeyRef, ResidentKey};
use super::parts::{ProofPart, ProofSums};
use super::timings::{timed, ProofTimings};
use crate::clock::Stopwatch;
use crate::error::Groth16Error;
use crate::matrix::ConstraintMatrix;
use crate::pairing::{AccelPairing, PairingQuotientMsmFn, QuotientOffloadFn, ResidentBases};
use crate::reduction::{Evaluated, MapError, Qap};
use ark_ec::short_weierstrass::Affine;
use ark_ec::CurveGroup;
use ark_ff::Zero;
use ark_groth16::Proof;
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::SynthesisError;
use zkaccel_cpu::{BaseSlice, PreparedBases, SharedScalars};
// The H query length from which the quotient and the H MSM run fused on the
// GPU (where the backend offers it): the GPU's MSM threshold.
use zkaccel_core::GPU_MIN_TERMS as FUSED_MIN_TERMS;

/// What the backend runs instead of zkaccel's CPU code: the G1 MSMs, the
/// witness map's quotient, and the quotient fused with the H MSM.
pub(crate) struct Offloads<E: AccelPairing> {
    pub(crate) g1: Option<Box<dyn zkaccel_cpu::MsmProvider<E::G1Config>>>,
    pub(crate) ntt: Option<Box<QuotientOffloadFn<E::ScalarField>>>,
    pub(crate) quotient_msm: Option<Box<PairingQuotientMsmFn<E>>>,
}

impl<E: AccelPairing> Offloads<E> {
    /// Everything on the CPU.
    pub(crate) fn none() -> Self {
        Offloads {
            g1: None,
            ntt: None,
            quotient_msm: None,
        }
    }
}

/// A proof's constraints and assignment as matrices, with no circuit
/// synthesis: what ark-groth16's `create_proof_with_reduction_and_matrices`
/// takes, for [`Groth16::prove_witness`](crate::Groth16::prove_witness).
#[derive(Debug)]
pub struct MatrixWitness<'a, F, M> {
    /// The reduction the key was made for ([`Qap::Libsnark`] for
    /// ark-groth16's keys, [`Qap::Circom`] or [`Qap::Snarkjs`] for circom's).
    pub qap: Qap,
    /// A, B, C, each with at least `num_constraints` rows (for the circom
    /// reductions C may be absent or empty, as in ark-circom's matrices: it
    /// is taken as `A z * B z`).
    pub matrices: &'a [M],
    /// The instance's length, the leading one included.
    pub num_inputs: usize,
    /// The constraints.
    pub num_constraints: usize,
    /// The instance (with the leading one) followed by the witness.
    pub full_assignment: &'a [F],
}

impl<F, M> Clone for MatrixWitness<'_, F, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<F, M> Copy for MatrixWitness<'_, F, M> {}

/// The G1 queries, for picking a query's bases in each of their forms.
#[derive(Clone, Copy)]
enum Query {
    A,
    B1,
    L,
    H,
}

/// The five MSMs' sums (A, B1 and L without the key's constant terms).
struct Sums<E: AccelPairing> {
    h: E::G1,
    l: E::G1,
    a: E::G1,
    b1: E::G1,
    b2: E::G2,
}

/// One proof: the key, the witness and where the work runs.
pub(super) struct Job<'a, E: AccelPairing, M> {
    pub(super) key: ProvingKeyRef<'a, E>,
    pub(super) witness: MatrixWitness<'a, E::ScalarField, M>,
    pub(super) offloads: &'a Offloads<E>,
}

fn map_error(e: MapError) -> Groth16Error {
    match e {
        MapError::Synthesis(e) => Groth16Error::from(e),
        MapError::Offload(e) => Groth16Error::Ntt(e),
    }
}

impl<E: AccelPairing, M: ConstraintMatrix<E::ScalarField>> Job<'_, E, M> {
    /// The proof with the randomness `r`, `s`, and the time of each phase.
    pub(super) fn prove(
        &self,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<(Proof<E>, ProofTimings), Groth16Error> {
        let start = Stopwatch::start();
        let mut t = ProofTimings::default();
        self.check_key()?;
        let sums = if self.g1_on_gpu() {
            self.msms_beside_the_cpu(r, &mut t)?
        } else {
            self.msms_in_turn(r, &mut t)?
        };
        let proof = self.assemble(sums, r, s)?;
        t.total = start.elapsed();
        Ok((proof, t))
    }

    /// One share's sums ([`ProofPart`]), on the CPU's timeline.
    pub(super) fn sums(&self, part: ProofPart) -> Result<ProofSums<E>, Groth16Error> {
        self.check_key()?;
        let mut t = ProofTimings::default();
        Ok(match part {
            ProofPart::QuotientH { start, end } => {
                let len = self.key.h_query.len();
                let end = end.min(len);
                let start = start.min(end);
                if (start, end) == (0, len) {
                    let h = self.quotient_and_h(self.evaluate()?, &mut t)?;
                    ProofSums {
                        h: Some(h),
                        h_terms: (start, end),
                        ..ProofSums::default()
                    }
                } else {
                    // A range: the quotient, then the MSM over the key's own
                    // bases of the range (prepared or resident copies are
                    // of the whole query).
                    let h = self.quotient_scalars()?;
                    h_range(self.key, start, &h[start..end])?
                }
            }
            ProofPart::B2 => ProofSums {
                b2: Some(self.b2(&mut t)?),
                ..ProofSums::default()
            },
            ProofPart::LAB1 => {
                // B1 is computed for any nonzero r; the one stands for the
                // r the assembly draws later (B1 is unused when it is zero).
                let one = <E::ScalarField as ark_ff::One>::one();
                let [l, a, b1] = self.l_a_b1(one, &mut t)?;
                ProofSums {
                    l: Some(l),
                    a: Some(a),
                    b1: Some(b1),
                    ..ProofSums::default()
                }
            }
        })
    }

    /// The witness map's quotient, as the H MSM's scalars: one per term of
    /// the H query, on the CPU.
    pub(super) fn quotient_scalars(&self) -> Result<Vec<E::ScalarField>, Groth16Error> {
        self.check_key()?;
        let mut h = self.evaluate()?.quotient(None).map_err(map_error)?;
        h.truncate(self.key.h_query.len());
        Ok(h)
    }

    /// The constraint evaluations of `which` (A z, B z, C z) on the
    /// quotient's coset; `None` for the others.
    pub(super) fn quotient_columns(
        &self,
        which: [bool; 3],
    ) -> Result<[Option<Vec<E::ScalarField>>; 3], Groth16Error> {
        self.check_key()?;
        Ok(self.evaluate()?.columns_on_coset(which))
    }

    /// The quotient ([`Job::quotient_scalars`]) from the three columns of
    /// [`Job::quotient_columns`], each of the domain's size.
    pub(super) fn quotient_from_columns(
        &self,
        columns: [Vec<E::ScalarField>; 3],
    ) -> Result<Vec<E::ScalarField>, Groth16Error> {
        self.check_key()?;
        let w = &self.witness;
        let (domain, coset) = crate::reduction::domains(w.qap, w.num_constraints, w.num_inputs)?;
        for (what, v) in [
            "quotient column A",
            "quotient column B",
            "quotient column C",
        ]
        .into_iter()
        .zip(&columns)
        {
            check_len(what, domain.size(), v.len())?;
        }
        let mut h = crate::reduction::finish_quotient(&domain, &coset, w.qap, columns)
            .map_err(map_error)?;
        h.truncate(self.key.h_query.len());
        Ok(h)
    }

    /// The proof from all five sums ([`Job::assemble`]).
    pub(super) fn assemble_sums(
        &self,
        sums: ProofSums<E>,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<Proof<E>, Groth16Error> {
        self.check_key()?;
        let missing = |what| Groth16Error::Sums {
            what,
            problem: "missing",
        };
        if sums.h.is_some() && sums.h_terms != (0, self.key.h_query.len()) {
            return Err(Groth16Error::Sums {
                what: "h",
                problem: "over part of the H query",
            });
        }
        let sums = Sums {
            h: sums.h.ok_or(missing("h"))?,
            l: sums.l.ok_or(missing("l"))?,
            a: sums.a.ok_or(missing("a"))?,
            b1: sums.b1.ok_or(missing("b1"))?,
            b2: sums.b2.ok_or(missing("b2"))?,
        };
        self.assemble(sums, r, s)
    }

    /// The key must be this circuit's: every query length is fixed by it.
    fn check_key(&self) -> Result<(), Groth16Error> {
        let (pk, w) = (&self.key, &self.witness);
        let num_vars = w.full_assignment.len();
        let witness_len = num_vars
            .checked_sub(w.num_inputs)
            .ok_or(Groth16Error::KeyMismatch {
                what: "full assignment (shorter than the instance)",
                expected: w.num_inputs,
                got: num_vars,
            })?;
        if w.num_inputs == 0 {
            return Err(Groth16Error::KeyMismatch {
                what: "instance (the leading one)",
                expected: 1,
                got: 0,
            });
        }
        check_len("a_query", num_vars, pk.a_query.len())?;
        check_len("b_g1_query", num_vars, pk.b_g1_query.len())?;
        check_len("b_g2_query", num_vars, pk.b_g2_query.len())?;
        check_len("l_query", witness_len, pk.l_query.len())?;
        check_len("vk.gamma_abc_g1", w.num_inputs, pk.vk.gamma_abc_g1.len())?;
        let domain_size = w
            .num_constraints
            .checked_add(w.num_inputs)
            .and_then(usize::checked_next_power_of_two)
            .ok_or(SynthesisError::PolynomialDegreeTooLarge)?;
        check_len("h_query", w.qap.h_query_len(domain_size), pk.h_query.len())?;
        if let Some(res) = pk.resident {
            res.check(pk)?;
        }
        Ok(())
    }

    /// Whether the G1 MSMs run on the GPU (resident queries, or the
    /// backend's MSM), so the device can work beside the CPU.
    fn g1_on_gpu(&self) -> bool {
        self.key.prepared.is_none() && (self.key.resident.is_some() || self.offloads.g1.is_some())
    }

    /// The witness map's first half: `A z`, `B z`, `C z` on the domain.
    fn evaluate(&self) -> Result<Evaluated<E::ScalarField>, Groth16Error> {
        let w = &self.witness;
        crate::reduction::evaluations::<E::ScalarField, M>(
            w.qap,
            w.matrices,
            w.num_inputs,
            w.num_constraints,
            w.full_assignment,
            true,
        )
        .map_err(map_error)
    }

    /// The full assignment without the leading one: the scalars of A, B1
    /// and B2, and from `num_inputs - 1` on, L's.
    fn assignment(&self) -> &[E::ScalarField] {
        &self.witness.full_assignment[1..]
    }

    /// The key's own bases of `q` (A and B1 without the leading one's).
    fn bases(&self, q: Query) -> BaseSlice<'_, E::G1Config> {
        let pk = &self.key;
        match q {
            Query::A => pk.a_query.skip(1),
            Query::B1 => pk.b_g1_query.skip(1),
            Query::L => pk.l_query,
            Query::H => pk.h_query,
        }
    }

    /// A G1 MSM over `q`: on the key's resident bases, on its prepared
    /// copies, on the backend's MSM, or on the CPU.
    fn g1(&self, q: Query, scalars: &[E::ScalarField]) -> Result<E::G1, Groth16Error> {
        let pk = &self.key;
        type Pick<E> = (
            fn(&ResidentKey<E>) -> &dyn ResidentBases<E>,
            fn(&PreparedProvingKey<E>) -> &PreparedBases<<E as AccelPairing>::G1Config>,
        );
        let (resident, prepared): Pick<E> = match q {
            Query::A => (|r| &*r.a, |p| &p.a),
            Query::B1 => (|r| &*r.b_g1, |p| &p.b_g1),
            Query::L => (|r| &*r.l, |p| &p.l),
            Query::H => (|r| &*r.h, |p| &p.h),
        };
        let bases = self.bases(q);
        Ok(match (pk.resident, pk.prepared, &self.offloads.g1) {
            (Some(r), _, _) => resident(r).msm(scalars)?,
            (None, Some(p), _) => E::g1_result(prepared(p).msm(scalars)?),
            (None, None, Some(gpu)) => E::g1_result(gpu.msm(&bases.to_affine(), scalars)?),
            (None, None, None) => E::g1_result(bases.msm(scalars)?),
        })
    }

    /// The quotient and the H MSM: together where the device keeps `h`
    /// (resident bases, or the backend's fused job with the H query large
    /// enough for the GPU and no prepared bases), else `h` first, then its
    /// MSM.
    fn quotient_and_h(
        &self,
        evaluated: Evaluated<E::ScalarField>,
        t: &mut ProofTimings,
    ) -> Result<E::G1, Groth16Error> {
        let pk = &self.key;
        let form = evaluated.offload_form();
        let fused_backend = self
            .offloads
            .quotient_msm
            .as_deref()
            .zip(pk.h_query.as_affine())
            .filter(|_| pk.prepared.is_none() && pk.h_query.len() >= FUSED_MIN_TERMS);
        match (evaluated, form, pk.resident, fused_backend) {
            (
                Evaluated::OnDomain {
                    domain, coset, abc, ..
                },
                Some(form),
                Some(res),
                _,
            ) => {
                t.quotient_in_msm_h = true;
                timed(&mut t.msm_h, || {
                    res.h.quotient_msm(&domain, &coset, abc, form)
                })
                .map_err(Groth16Error::from)
            }
            (
                Evaluated::OnDomain {
                    domain, coset, abc, ..
                },
                Some(form),
                None,
                Some((quotient_msm, h_query)),
            ) => {
                t.quotient_in_msm_h = true;
                let sum = timed(&mut t.msm_h, || {
                    quotient_msm(&domain, &coset, abc, h_query, form)
                });
                self.key.done_with(KeyQuery::H);
                sum.map_err(Groth16Error::from)
            }
            (evaluated, ..) => {
                let h = timed(&mut t.witness_map, || {
                    evaluated.quotient(self.offloads.ntt.as_deref())
                })
                .map_err(map_error)?;
                let sum = timed(&mut t.msm_h, || self.g1(Query::H, &h[..pk.h_query.len()]));
                self.key.done_with(KeyQuery::H);
                sum
            }
        }
    }

    /// The L, A and B1 sums: on the key's resident or prepared bases or the
    /// backend's MSM where it has them ([`g1`](Self::g1)); on the CPU's own
    /// bases with their scalars recoded once ([`SharedScalars`]: the three
    /// share them, L's being the assignment's witness part), which counts
    /// in `msm_l`, the first.
    fn l_a_b1(&self, r: E::ScalarField, t: &mut ProofTimings) -> Result<[E::G1; 3], Groth16Error> {
        let pk = &self.key;
        let assignment = self.assignment();
        let cpu = pk.resident.is_none() && pk.prepared.is_none() && self.offloads.g1.is_none();
        let shared = cpu.then(|| timed(&mut t.msm_l, || SharedScalars::new(assignment)));
        // The sum over `q` of `assignment[offset..]`.
        let sum = |q: Query, offset: usize| match &shared {
            Some(s) => s
                .msm_slice(self.bases(q), offset)
                .map(E::g1_result)
                .map_err(Groth16Error::from),
            None => self.g1(q, &assignment[offset..]),
        };
        // L's scalars: the full assignment from `num_inputs` on, which is
        // `assignment` (from index 1) from `num_inputs - 1` on.
        let l = timed(&mut t.msm_l, || sum(Query::L, self.witness.num_inputs - 1))?;
        self.key.done_with(KeyQuery::L);
        let a = timed(&mut t.msm_a, || sum(Query::A, 0))?;
        self.key.done_with(KeyQuery::A);
        let b1 = if r.is_zero() {
            E::G1::zero()
        } else {
            timed(&mut t.msm_b_g1, || sum(Query::B1, 0))?
        };
        self.key.done_with(KeyQuery::B1);
        Ok([l, a, b1])
    }

    /// The B sum in G2 (on the CPU: prepared copies or the key's bases).
    fn b2(&self, t: &mut ProofTimings) -> Result<E::G2, Groth16Error> {
        let bases = self.key.b_g2_query.skip(1);
        let assignment = self.assignment();
        let sum = timed(&mut t.msm_b_g2, || match self.key.prepared {
            Some(p) => p.b_g2.msm(assignment),
            None => bases.msm(assignment),
        });
        self.key.done_with(KeyQuery::B2);
        sum.map(E::g2_result).map_err(Groth16Error::from)
    }

    /// The MSMs one after the other on the CPU's timeline: the witness map,
    /// the quotient with H, B2, then L, A and B1 (B2 before the three: with
    /// glibc's allocator the G2 MSM's buffers then reuse freed heap, and
    /// the dense proof's peak memory fell 7-9 MiB).
    fn msms_in_turn(
        &self,
        r: E::ScalarField,
        t: &mut ProofTimings,
    ) -> Result<Sums<E>, Groth16Error> {
        let evaluated = timed(&mut t.witness_map, || self.evaluate())?;
        let h = self.quotient_and_h(evaluated, t)?;
        let b2 = self.b2(t)?;
        let [l, a, b1] = self.l_a_b1(r, t)?;
        Ok(Sums { h, l, a, b1, b2 })
    }

    /// The G1 MSMs on the GPU beside the CPU's work: L, A and B1 on a
    /// thread of their own while the CPU sums the constraints, then the
    /// quotient with H on another while it runs the G2 MSM.
    fn msms_beside_the_cpu(
        &self,
        r: E::ScalarField,
        t: &mut ProofTimings,
    ) -> Result<Sums<E>, Groth16Error> {
        fn join<T>(j: std::thread::ScopedJoinHandle<'_, T>) -> T {
            j.join().unwrap_or_else(|p| std::panic::resume_unwind(p))
        }
        t.overlapped = true;
        let (mut t_gpu, mut t_h) = (ProofTimings::default(), ProofTimings::default());
        let (lab, h, b2) = std::thread::scope(|scope| {
            let lab = scope.spawn(|| self.l_a_b1(r, &mut t_gpu));
            let evaluated = timed(&mut t.witness_map, || self.evaluate());
            let t_h = &mut t_h;
            let h = evaluated.map(|e| scope.spawn(move || self.quotient_and_h(e, t_h)));
            let b2 = self.b2(t);
            (join(lab), h.and_then(join), b2)
        });
        t.witness_map += t_h.witness_map;
        t.msm_h = t_h.msm_h;
        t.quotient_in_msm_h = t_h.quotient_in_msm_h;
        (t.msm_l, t.msm_a, t.msm_b_g1) = (t_gpu.msm_l, t_gpu.msm_a, t_gpu.msm_b_g1);
        let [l, a, b1] = lab?;
        Ok(Sums {
            h: h?,
            l,
            a,
            b1,
            b2: b2?,
        })
    }

    /// The proof's points from the sums, the key's constant terms and the
    /// randomness (ark-groth16's formulas).
    fn assemble(
        &self,
        sums: Sums<E>,
        r: E::ScalarField,
        s: E::ScalarField,
    ) -> Result<Proof<E>, Groth16Error> {
        let pk = &self.key;
        let r_s_delta_g1 = pk.delta_g1 * (r * s);
        let a0 = E::g1_result(first(pk.a_query, "a_query")?.into());
        let g_a = pk.delta_g1 * r + a0 + sums.a + pk.vk.alpha_g1;
        let s_g_a = g_a * s;
        let g1_b = if r.is_zero() {
            E::G1::zero()
        } else {
            let b0 = E::g1_result(first(pk.b_g1_query, "b_g1_query")?.into());
            pk.delta_g1 * s + b0 + sums.b1 + pk.beta_g1
        };
        let b0 = E::g2_result(first(pk.b_g2_query, "b_g2_query")?.into());
        let g2_b = pk.vk.delta_g2 * s + b0 + sums.b2 + pk.vk.beta_g2;
        let r_g1_b = g1_b * r;
        let g_c = s_g_a + r_g1_b - r_s_delta_g1 + sums.l + sums.h;
        Ok(Proof {
            a: g_a.into_affine(),
            b: g2_b.into_affine(),
            c: g_c.into_affine(),
        })
    }
}

/// The H MSM over the H query's terms `start..start + scalars.len()`, on
/// the key's own bases: a share's sums. A range past the query's end is
/// [`Groth16Error::Sums`].
pub(super) fn h_range<E: AccelPairing>(
    key: ProvingKeyRef<'_, E>,
    start: usize,
    scalars: &[E::ScalarField],
) -> Result<ProofSums<E>, Groth16Error> {
    let end = start
        .checked_add(scalars.len())
        .filter(|&end| end <= key.h_query.len())
        .ok_or(Groth16Error::Sums {
            what: "h",
            problem: "over terms past the H query's end",
        })?;
    let h = E::g1_result(key.h_query.range(start..end).msm(scalars)?);
    key.done_with(KeyQuery::H);
    Ok(ProofSums {
        h: Some(h),
        h_terms: (start, end),
        ..ProofSums::default()
    })
}

/// The first point of a query (the instance's leading one).
fn first<P: zkaccel_cpu::CurveMul>(
    q: BaseSlice<'_, P>,
    what: &'static str,
) -> Result<Affine<P>, Groth16Error>
where
    P::BaseField: zkaccel_cpu::MontBytes,
{
    q.get(0).ok_or(Groth16Error::KeyMismatch {
        what,
        expected: 1,
        got: 0,
    })
}
