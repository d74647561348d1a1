//! `compare pcs`: ark-poly-commit 0.6, unmodified, over
//! `zkaccel::curves::bn254` against the same scheme over `ark_bn254`, on the
//! same polynomial, key and RNG. Only the group type differs, so the
//! difference is zkaccel's MSM behind `VariableBaseMSM::msm_bigint`.
//!
//! Schemes: `hyrax` (2^(N/2) Pedersen commitments of 2^(N/2) terms, N even),
//! `mlkzg` (multilinear KZG: one MSM of 2^N terms to commit, N shrinking
//! ones to open) and `kzg10` (degree 2^N - 1). Keys are set up once with
//! arkworks' types and moved to zkaccel's as bytes (the encodings are
//! identical).

use ark_bn254::Fr;
use ark_ec::pairing::Pairing;
use ark_ff::UniformRand;
use ark_poly::{DenseMultilinearExtension, DenseUVPolynomial, MultilinearExtension};
use ark_poly_commit::hyrax::{HyraxCommitterKey, HyraxPC};
use ark_poly_commit::kzg10::{Powers, UniversalParams as KzgParams, KZG10};
use ark_poly_commit::multilinear_pc::{data_structures::CommitterKey, MultilinearPC};
use ark_poly_commit::{LabeledPolynomial, PolynomialCommitment};
use ark_serialize::CanonicalSerialize;
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

/// One scheme's commit and open, as closures over a fixed key and input
/// returning the serialized commitment / proof.
type Step<'a> = Box<dyn FnMut() -> Vec<u8> + 'a>;

type Poly = DenseMultilinearExtension<Fr>;

fn hyrax_steps<'a, G: ark_ec::AffineRepr<ScalarField = Fr>>(
    ck: &'a HyraxCommitterKey<G>,
    poly: &'a LabeledPolynomial<Fr, Poly>,
    point: &'a [Fr],
) -> (Step<'a>, Step<'a>) {
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
    let open = move || {
        let mut r = ChaCha20Rng::seed_from_u64(8);
        let pf = HyraxPC::<G, Poly>::open(
            ck,
            [poly],
            &com,
            &point,
            &mut crate::pcs_support::sponge(),
            &st,
            Some(&mut r),
        )
        .expect("open");
        bytes(&pf)
    };
    (Box::new(commit), Box::new(open))
}

fn mlkzg_steps<'a, E: Pairing<ScalarField = Fr>>(
    ck: &'a CommitterKey<E>,
    poly: &'a Poly,
    point: &'a [Fr],
) -> (Step<'a>, Step<'a>) {
    (
        Box::new(move || bytes(&MultilinearPC::<E>::commit(ck, poly))),
        Box::new(move || bytes(&MultilinearPC::<E>::open(ck, poly, point))),
    )
}

fn kzg10_steps<'a, E: Pairing<ScalarField = Fr>>(
    powers: &'a Powers<'a, E>,
    poly: &'a ark_poly::univariate::DensePolynomial<Fr>,
    point: Fr,
) -> (Step<'a>, Step<'a>) {
    type P = ark_poly::univariate::DensePolynomial<Fr>;
    // Without hiding the randomness is empty: made once, outside the timed
    // step.
    let (_, rand) = KZG10::<E, P>::commit(powers, poly, None, None).expect("commit");
    (
        Box::new(move || {
            bytes(
                &KZG10::<E, P>::commit(powers, poly, None, None)
                    .expect("commit")
                    .0,
            )
        }),
        Box::new(move || bytes(&KZG10::<E, P>::open(powers, poly, point, &rand).expect("open"))),
    )
}

/// KZG10's committer powers up to degree `d` (ark-poly-commit's `trim` is
/// private to its tests).
fn kzg_powers<E: Pairing>(pp: &KzgParams<E>, d: usize) -> Powers<'static, E> {
    Powers {
        powers_of_g: Cow::Owned(pp.powers_of_g[..=d].to_vec()),
        powers_of_gamma_g: Cow::Owned((0..=d).map(|i| pp.powers_of_gamma_g[&i]).collect()),
    }
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
    let upoly = ark_poly::univariate::DensePolynomial::<Fr>::rand((1 << nv) - 1, &mut rng);
    let (hy_a, hy_z, ml_a, ml_z, kz_a, kz_z);
    let (mut ours, mut theirs): ((Step, Step), (Step, Step));
    match a.scheme.as_str() {
        "hyrax" => {
            let pp = HyraxPC::<ark_bn254::G1Affine, Poly>::setup(1, Some(nv), &mut rng)
                .map_err(|e| format!("{e:?}"))?;
            hy_a = HyraxPC::<ark_bn254::G1Affine, Poly>::trim(&pp, 1, 1, None)
                .map_err(|e| format!("{e:?}"))?
                .0;
            hy_z = crate::pcs_support::convert::<_, HyraxCommitterKey<bn254::G1Affine>>(&hy_a)?;
            theirs = hyrax_steps(&hy_a, &labeled, &point);
            ours = hyrax_steps(&hy_z, &labeled, &point);
        }
        "mlkzg" => {
            let params = MultilinearPC::<ark_bn254::Bn254>::setup(nv, &mut rng);
            ml_a = MultilinearPC::<ark_bn254::Bn254>::trim(&params, nv).0;
            ml_z = crate::pcs_support::convert::<_, CommitterKey<bn254::Bn254>>(&ml_a)?;
            theirs = mlkzg_steps(&ml_a, &mlpoly, &point);
            ours = mlkzg_steps(&ml_z, &mlpoly, &point);
        }
        "kzg10" => {
            type P = ark_poly::univariate::DensePolynomial<Fr>;
            let d = (1usize << nv) - 1;
            let pp = KZG10::<ark_bn254::Bn254, P>::setup(d, false, &mut rng)
                .map_err(|e| format!("{e:?}"))?;
            let pz: KzgParams<bn254::Bn254> = crate::pcs_support::convert(&pp)?;
            kz_a = kzg_powers(&pp, d);
            kz_z = kzg_powers(&pz, d);
            theirs = kzg10_steps(&kz_a, &upoly, point[0]);
            ours = kzg10_steps(&kz_z, &upoly, point[0]);
        }
        s => return Err(format!("unknown scheme {s:?} (hyrax, mlkzg, kzg10)")),
    }
    let equal = (ours.0)() == (theirs.0)() && (ours.1)() == (theirs.1)();
    let (cz, ca) = crate::timing::interleaved(
        a.rounds,
        || {
            black_box((ours.0)());
        },
        || {
            black_box((theirs.0)());
        },
    );
    let (oz, oa) = crate::timing::interleaved(
        a.rounds,
        || {
            black_box((ours.1)());
        },
        || {
            black_box((theirs.1)());
        },
    );
    Ok(if a.json {
        format!(
            "{{\"workload\": \"pcs\", \"params\": {{\"scheme\": \"{}\", \"num_vars\": {nv}, \"rounds\": {}}}, \"zkaccel_ms\": {cz:.4}, \"arkworks_ms\": {ca:.4}, \"speedup\": {:.4}, \"open_zkaccel_ms\": {oz:.4}, \"open_arkworks_ms\": {oa:.4}, \"open_speedup\": {:.4}, \"results_equal\": {equal}}}\n",
            a.scheme, a.rounds, ca / cz, oa / oz
        )
    } else {
        format!(
            "pcs {} over BN254, {nv} variables ({} interleaved rounds; ark-poly-commit 0.6 unmodified)\n  commit  zkaccel curves {:>10.2} ms   ark_bn254 {:>10.2} ms   speedup {:.3}x\n  open    zkaccel curves {:>10.2} ms   ark_bn254 {:>10.2} ms   speedup {:.3}x\n  commitments and proofs byte-identical to arkworks': {equal}\n",
            a.scheme, a.rounds, cz, ca, ca / cz, oz, oa, oa / oz
        )
    })
}
