//! `compare pcs`: ark-poly-commit 0.6, unmodified, over
//! `zkaccel::curves::bn254` against the same scheme over `ark_bn254`, on the
//! same polynomial, key and RNG. Only the group type differs, so the
//! difference is zkaccel's MSM behind `VariableBaseMSM::msm_bigint`.
//!
//! Schemes: `hyrax` (2^(N/2) Pedersen commitments of 2^(N/2) terms, N even),
//! `mlkzg` (multilinear KZG: one MSM of 2^N terms to commit, N shrinking
//! ones to open), `kzg10` (degree 2^N - 1) and `ipa` (ark-poly-commit's
//! `ipa_pc`, the Bulletproofs-style inner-product argument, degree 2^N - 1,
//! BLAKE2s; its batch check verifies four polynomials at two points). Each
//! is timed at commit, open and check (and batch check). Keys are set up
//! once with arkworks' types and moved to zkaccel's as bytes (the encodings
//! are identical); commitments and proofs are compared byte for byte and
//! every check must accept before anything is timed.

use ark_bn254::Fr;
use ark_ec::pairing::Pairing;
use ark_ff::UniformRand;
use ark_poly::Polynomial;
use ark_poly::{DenseMultilinearExtension, DenseUVPolynomial, MultilinearExtension};
use ark_poly_commit::hyrax::{HyraxCommitterKey, HyraxPC, HyraxVerifierKey};
use ark_poly_commit::ipa_pc::{
    CommitterKey as IpaCommitterKey, InnerProductArgPC, VerifierKey as IpaVerifierKey,
};
use ark_poly_commit::kzg10::{
    Powers, UniversalParams as KzgParams, VerifierKey as KzgVerifierKey, KZG10,
};
use ark_poly_commit::multilinear_pc::{
    data_structures::{CommitterKey, VerifierKey as MlVerifierKey},
    MultilinearPC,
};
use ark_poly_commit::{Evaluations, LabeledPolynomial, PolynomialCommitment, QuerySet};
use ark_serialize::CanonicalSerialize;
use blake2::Blake2s256;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::borrow::Cow;
use std::hint::black_box;
use zkaccel::curves::bn254;

struct Args {
    scheme: String,
    num_vars: usize,
    rounds: usize,
    json: bool,
}

fn parse(rest: &[String]) -> Result<Args, String> {
    let f = crate::flags::Flags::parse(rest, &["--scheme", "--num-vars", "--rounds"], &["--json"])?;
    let a = Args {
        scheme: f.str("--scheme", "mlkzg"),
        num_vars: f.num("--num-vars", 16)?,
        rounds: f.num("--rounds", 5)?,
        json: f.has("--json"),
    };
    if a.rounds == 0 || a.num_vars == 0 || a.num_vars > 24 {
        return Err("--rounds at least 1, --num-vars from 1 to 24".into());
    }
    if a.scheme == "hyrax" && a.num_vars % 2 == 1 {
        return Err("hyrax needs an even --num-vars (ark-poly-commit's Hyrax)".into());
    }
    Ok(a)
}

fn bytes<T: CanonicalSerialize>(t: &T) -> Vec<u8> {
    let mut v = Vec::new();
    t.serialize_compressed(&mut v)
        .expect("serializing to a Vec");
    v
}

/// One step of a scheme (commit, open, check, batch check) as a closure
/// over a fixed key and input returning the serialized commitment / proof
/// (or the verdict as one byte).
type Step<'a> = Box<dyn FnMut() -> Vec<u8> + 'a>;

/// A scheme's steps, named, in the order they are timed.
type Steps<'a> = Vec<(&'static str, Step<'a>)>;

type Poly = DenseMultilinearExtension<Fr>;
type UniPoly = ark_poly::univariate::DensePolynomial<Fr>;

fn hyrax_steps<'a, G: ark_ec::AffineRepr<ScalarField = Fr>>(
    ck: &'a HyraxCommitterKey<G>,
    vk: &'a HyraxVerifierKey<G>,
    poly: &'a LabeledPolynomial<Fr, Poly>,
    point: &'a [Fr],
) -> Steps<'a> {
    let commit = move || {
        let mut r = ChaCha20Rng::seed_from_u64(7);
        let (com, _) = HyraxPC::<G, Poly>::commit(ck, [poly], Some(&mut r)).expect("commit");
        bytes(&com[0].commitment().row_coms)
    };
    // The opening needs the commitment's state (its blinding factors):
    // made once here, outside the timed step.
    let mut r = ChaCha20Rng::seed_from_u64(7);
    let (com, st) = HyraxPC::<G, Poly>::commit(ck, [poly], Some(&mut r)).expect("commit");
    let point = point.to_vec();
    let prove = {
        let (com, st, point) = (com.clone(), st.clone(), point.clone());
        move || {
            let mut r = ChaCha20Rng::seed_from_u64(8);
            HyraxPC::<G, Poly>::open(
                ck,
                [poly],
                &com,
                &point,
                &mut crate::pcs_support::sponge(),
                &st,
                Some(&mut r),
            )
            .expect("open")
        }
    };
    let proof = prove();
    let value = poly.polynomial().evaluate(&point);
    let check = move || {
        let ok = HyraxPC::<G, Poly>::check(
            vk,
            &com,
            &point,
            [value],
            &proof,
            &mut crate::pcs_support::sponge(),
            None,
        )
        .expect("check");
        vec![ok as u8]
    };
    vec![
        ("commit", Box::new(commit)),
        ("open", Box::new(move || bytes(&prove()))),
        ("check", Box::new(check)),
    ]
}

fn mlkzg_steps<'a, E: Pairing<ScalarField = Fr>>(
    ck: &'a CommitterKey<E>,
    vk: &'a MlVerifierKey<E>,
    poly: &'a Poly,
    point: &'a [Fr],
) -> Steps<'a> {
    let com = MultilinearPC::<E>::commit(ck, poly);
    let proof = MultilinearPC::<E>::open(ck, poly, point);
    let value = poly.evaluate(&point.to_vec());
    vec![
        (
            "commit",
            Box::new(move || bytes(&MultilinearPC::<E>::commit(ck, poly))),
        ),
        (
            "open",
            Box::new(move || bytes(&MultilinearPC::<E>::open(ck, poly, point))),
        ),
        (
            "check",
            Box::new(move || vec![MultilinearPC::<E>::check(vk, &com, point, value, &proof) as u8]),
        ),
    ]
}

fn kzg10_steps<'a, E: Pairing<ScalarField = Fr>>(
    powers: &'a Powers<'a, E>,
    vk: &'a KzgVerifierKey<E>,
    poly: &'a UniPoly,
    point: Fr,
) -> Steps<'a> {
    type P = UniPoly;
    // Without hiding the randomness is empty: made once, outside the timed
    // step.
    let (com, rand) = KZG10::<E, P>::commit(powers, poly, None, None).expect("commit");
    let proof = KZG10::<E, P>::open(powers, poly, point, &rand).expect("open");
    let value = poly.evaluate(&point);
    vec![
        (
            "commit",
            Box::new(move || {
                bytes(
                    &KZG10::<E, P>::commit(powers, poly, None, None)
                        .expect("commit")
                        .0,
                )
            }),
        ),
        (
            "open",
            Box::new(move || {
                bytes(&KZG10::<E, P>::open(powers, poly, point, &rand).expect("open"))
            }),
        ),
        (
            "check",
            Box::new(move || {
                vec![KZG10::<E, P>::check(vk, &com, point, value, &proof).expect("check") as u8]
            }),
        ),
    ]
}

/// ark-poly-commit's `ipa_pc` (the Bulletproofs-style inner-product
/// argument) over `G`, with BLAKE2s as its digest: commit, open and check
/// one polynomial; batch check four polynomials opened at two points.
fn ipa_steps<'a, G>(
    ck: &'a IpaCommitterKey<G>,
    vk: &'a IpaVerifierKey<G>,
    polys: &'a [LabeledPolynomial<Fr, UniPoly>],
    point: Fr,
) -> Steps<'a>
where
    G: ark_ec::AffineRepr<ScalarField = Fr>,
    G::Group: ark_ec::VariableBaseMSM<MulBase = G>,
{
    type Ipa<G> = InnerProductArgPC<G, Blake2s256, UniPoly>;
    let (com, st) = Ipa::<G>::commit(ck, &polys[..1], None).expect("commit");
    let sponge = crate::pcs_support::sponge;
    let open = {
        let (com, st) = (com.clone(), st.clone());
        move || {
            Ipa::<G>::open(ck, &polys[..1], &com, &point, &mut sponge(), &st, None).expect("open")
        }
    };
    let proof = open();
    let value = polys[0].polynomial().evaluate(&point);
    // Four polynomials, each queried at `point` and at `point + 1`.
    let (coms, sts) = Ipa::<G>::commit(ck, polys, None).expect("commit");
    let mut queries = QuerySet::new();
    let mut evals = Evaluations::new();
    for (j, x) in [point, point + Fr::from(1u64)].into_iter().enumerate() {
        for p in polys {
            queries.insert((p.label().clone(), (format!("x{j}"), x)));
            evals.insert((p.label().clone(), x), p.polynomial().evaluate(&x));
        }
    }
    let batch = Ipa::<G>::batch_open(ck, polys, &coms, &queries, &mut sponge(), &sts, None)
        .expect("batch open");
    let check_com = com.clone();
    vec![
        (
            "commit",
            Box::new(move || {
                let (c, _) = Ipa::<G>::commit(ck, &polys[..1], None).expect("commit");
                bytes(c[0].commitment())
            }),
        ),
        ("open", Box::new(move || bytes(&open()))),
        (
            "check",
            Box::new(move || {
                let ok =
                    Ipa::<G>::check(vk, &check_com, &point, [value], &proof, &mut sponge(), None);
                vec![ok.expect("check") as u8]
            }),
        ),
        (
            "batch_check",
            Box::new(move || {
                let mut r = ChaCha20Rng::seed_from_u64(9);
                let ok = Ipa::<G>::batch_check(
                    vk,
                    &coms,
                    &queries,
                    &evals,
                    &batch,
                    &mut sponge(),
                    &mut r,
                );
                vec![ok.expect("batch check") as u8]
            }),
        ),
    ]
}

/// KZG10's committer powers up to degree `d` and its verifier key
/// (ark-poly-commit's `trim` is private to its tests).
fn kzg_keys<E: Pairing>(pp: &KzgParams<E>, d: usize) -> (Powers<'static, E>, KzgVerifierKey<E>) {
    let powers = Powers {
        powers_of_g: Cow::Owned(pp.powers_of_g[..=d].to_vec()),
        powers_of_gamma_g: Cow::Owned((0..=d).map(|i| pp.powers_of_gamma_g[&i]).collect()),
    };
    let vk = KzgVerifierKey {
        g: pp.powers_of_g[0],
        gamma_g: pp.powers_of_gamma_g[&0],
        h: pp.h,
        beta_h: pp.beta_h,
        prepared_h: pp.prepared_h.clone(),
        prepared_beta_h: pp.prepared_beta_h.clone(),
    };
    (powers, vk)
}

/// Entry point for `compare pcs ...`.
pub fn main(rest: &[String]) -> Result<String, String> {
    let a = parse(rest)?;
    let nv = a.num_vars;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let point: Vec<Fr> = (0..nv).map(|_| Fr::rand(&mut rng)).collect();
    // Keys and inputs live here, the steps borrow them.
    let mlpoly = Poly::rand(nv, &mut rng);
    let labeled = LabeledPolynomial::new("p".into(), mlpoly.clone(), None, None);
    let upoly = UniPoly::rand((1 << nv) - 1, &mut rng);
    let upolys: Vec<_> = (0..4)
        .map(|i| {
            LabeledPolynomial::new(
                format!("p{i}"),
                UniPoly::rand((1 << nv) - 1, &mut rng),
                None,
                None,
            )
        })
        .collect();
    let (hy_a, hy_z, hy_v, hy_vz, ml_a, ml_z, ml_v, ml_vz, kz_a, kz_z, ipa_a, ipa_z, ipa_v, ipa_vz);
    let (mut ours, mut theirs): (Steps, Steps);
    let err = |e: ark_poly_commit::Error| format!("{e:?}");
    match a.scheme.as_str() {
        "hyrax" => {
            type H = HyraxPC<ark_bn254::G1Affine, Poly>;
            let pp = H::setup(1, Some(nv), &mut rng).map_err(err)?;
            (hy_a, hy_v) = H::trim(&pp, 1, 1, None).map_err(err)?;
            hy_z = crate::pcs_support::convert::<_, HyraxCommitterKey<bn254::G1Affine>>(&hy_a)?;
            hy_vz = crate::pcs_support::convert::<_, HyraxVerifierKey<bn254::G1Affine>>(&hy_v)?;
            theirs = hyrax_steps(&hy_a, &hy_v, &labeled, &point);
            ours = hyrax_steps(&hy_z, &hy_vz, &labeled, &point);
        }
        "mlkzg" => {
            let params = MultilinearPC::<ark_bn254::Bn254>::setup(nv, &mut rng);
            (ml_a, ml_v) = MultilinearPC::<ark_bn254::Bn254>::trim(&params, nv);
            ml_z = crate::pcs_support::convert::<_, CommitterKey<bn254::Bn254>>(&ml_a)?;
            ml_vz = crate::pcs_support::convert::<_, MlVerifierKey<bn254::Bn254>>(&ml_v)?;
            theirs = mlkzg_steps(&ml_a, &ml_v, &mlpoly, &point);
            ours = mlkzg_steps(&ml_z, &ml_vz, &mlpoly, &point);
        }
        "kzg10" => {
            let d = (1usize << nv) - 1;
            let pp = KZG10::<ark_bn254::Bn254, UniPoly>::setup(d, false, &mut rng).map_err(err)?;
            let pz: KzgParams<bn254::Bn254> = crate::pcs_support::convert(&pp)?;
            kz_a = kzg_keys(&pp, d);
            kz_z = kzg_keys(&pz, d);
            theirs = kzg10_steps(&kz_a.0, &kz_a.1, &upoly, point[0]);
            ours = kzg10_steps(&kz_z.0, &kz_z.1, &upoly, point[0]);
        }
        "ipa" => {
            type I = InnerProductArgPC<ark_bn254::G1Affine, Blake2s256, UniPoly>;
            let d = (1usize << nv) - 1;
            let pp = I::setup(d, None, &mut rng).map_err(err)?;
            (ipa_a, ipa_v) = I::trim(&pp, d, 0, None).map_err(err)?;
            ipa_z = crate::pcs_support::convert::<_, IpaCommitterKey<bn254::G1Affine>>(&ipa_a)?;
            ipa_vz = crate::pcs_support::convert::<_, IpaVerifierKey<bn254::G1Affine>>(&ipa_v)?;
            theirs = ipa_steps(&ipa_a, &ipa_v, &upolys, point[0]);
            ours = ipa_steps(&ipa_z, &ipa_vz, &upolys, point[0]);
        }
        s => return Err(format!("unknown scheme {s:?} (hyrax, mlkzg, kzg10, ipa)")),
    }
    // Results first: the same bytes from both types, and every check true.
    let mut equal = true;
    for ((name, o), (_, t)) in ours.iter_mut().zip(theirs.iter_mut()) {
        let (x, y) = (o(), t());
        equal &= x == y;
        if name.contains("check") && x != [1] {
            return Err(format!("{} {name} rejected a valid proof", a.scheme));
        }
    }
    let mut times = Vec::new();
    for ((name, o), (_, t)) in ours.iter_mut().zip(theirs.iter_mut()) {
        let (z, k) = crate::timing::interleaved(
            a.rounds,
            || {
                black_box(o());
            },
            || {
                black_box(t());
            },
        );
        times.push((*name, z, k));
    }
    Ok(if a.json {
        // commit's fields keep their historical names (zkaccel_ms, ...).
        let mut fields = String::new();
        for (name, z, k) in &times {
            let p = if *name == "commit" {
                String::new()
            } else {
                format!("{name}_")
            };
            fields += &format!(
                "\"{p}zkaccel_ms\": {z:.4}, \"{p}arkworks_ms\": {k:.4}, \"{p}speedup\": {:.4}, ",
                k / z
            );
        }
        format!(
            "{{\"workload\": \"pcs\", \"params\": {{\"scheme\": \"{}\", \"num_vars\": {nv}, \"rounds\": {}}}, {fields}\"results_equal\": {equal}}}\n",
            a.scheme, a.rounds
        )
    } else {
        let mut out = format!(
            "pcs {} over BN254, {nv} variables ({} interleaved rounds; ark-poly-commit 0.6 unmodified)\n",
            a.scheme, a.rounds
        );
        for (name, z, k) in &times {
            out += &format!(
                "  {name:<12} zkaccel curves {z:>10.2} ms   ark_bn254 {k:>10.2} ms   speedup {:.3}x\n",
                k / z
            );
        }
        out + &format!("  commitments and proofs byte-identical to arkworks': {equal}\n")
    })
}
