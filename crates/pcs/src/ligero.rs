//! [`NttLigero`]: multilinear Ligero whose Reed-Solomon encoding runs on
//! zkaccel's NTT.

use ark_crypto_primitives::crh::{CRHScheme, TwoToOneCRHScheme};
use ark_crypto_primitives::merkle_tree::Config;
use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, MultilinearExtension, Polynomial};
use ark_poly_commit::linear_codes::{LigeroPCParams, LinCodeParametersInfo, LinearEncode};
use ark_poly_commit::Error;
use ark_std::marker::PhantomData;
use ark_std::rand::RngCore;
use zkaccel_ntt::NttDomain;

/// Multilinear Ligero ([Ligero], as ark-poly-commit's `MultilinearLigero`)
/// with the Reed-Solomon encoding of each row on zkaccel's NTT.
///
/// Use it where stock code names `MultilinearLigero`:
/// `LinearCodePCS<NttLigero<F, C, P, H>, F, P, C, H>`. The parameters type
/// is ark-poly-commit's own `LigeroPCParams` and the default setup is the
/// stock one (security parameter 128, rate 1/2, well-formedness check on),
/// so keys, commitments and proofs are interchangeable with stock
/// Ligero's, byte for byte.
///
/// The fast kernels apply to BN254 and BLS12-381 `Fr`
/// ([`zkaccel_ntt::FAST_FIELDS`]); other FFT fields run zkaccel's transform
/// with arkworks' field operators.
///
/// [Ligero]: https://eprint.iacr.org/2022/1608.pdf
pub struct NttLigero<F, C, P, H> {
    _phantom: PhantomData<(F, C, P, H)>,
}

/// Reed-Solomon encoding as Ligero does it: `msg` read as the coefficients
/// of a polynomial, evaluated over the smallest power-of-two subgroup with
/// at least `msg.len() * rho_inv` elements (ark-poly's radix-2 domain, so
/// the same values as stock `reed_solomon`).
///
/// An error, where stock code panics, when the field has no such subgroup.
pub fn reed_solomon<F: FftField>(msg: &[F], rho_inv: usize) -> Result<Vec<F>, Error> {
    let too_big = || {
        Error::InvalidParameters(format!(
            "Reed-Solomon encoding of {} elements at rate 1/{rho_inv}: the field has no \
             power-of-two subgroup that large (2-adicity {})",
            msg.len(),
            F::TWO_ADICITY
        ))
    };
    let len = msg.len().checked_mul(rho_inv).ok_or_else(too_big)?;
    let domain = NttDomain::<F>::new(len).ok_or_else(too_big)?;
    let mut v = Vec::with_capacity(domain.size());
    v.extend_from_slice(msg);
    domain.fft_in_place(&mut v);
    Ok(v)
}

/// The tensor of a point: for `values` = (z_1, .., z_k), the 2^k products
/// `prod_i (z_i or 1 - z_i)`, bit i of the index choosing `z_i` (the order
/// ark-poly-commit's multilinear Ligero uses).
pub fn tensor<F: PrimeField>(values: &[F]) -> Vec<F> {
    let mut layer = Vec::with_capacity(1 << values.len());
    layer.push(F::one());
    for z in values {
        let one_minus = F::one() - z;
        let len = layer.len();
        for j in 0..len {
            let v = layer[j];
            layer.push(v * z);
            layer[j] = v * one_minus;
        }
    }
    layer
}

impl<F, C, P, H> LinearEncode<F, C, P, H> for NttLigero<F, C, P, H>
where
    F: PrimeField + FftField,
    C: Config,
    P: MultilinearExtension<F>,
    <P as Polynomial<F>>::Point: Into<Vec<F>>,
    H: CRHScheme,
{
    type LinCodePCParams = LigeroPCParams<F, C, H>;

    fn setup<R: RngCore>(
        _max_degree: usize,
        _num_vars: Option<usize>,
        _rng: &mut R,
        leaf_hash_param: <<C as Config>::LeafHash as CRHScheme>::Parameters,
        two_to_one_hash_param: <<C as Config>::TwoToOneHash as TwoToOneCRHScheme>::Parameters,
        col_hash_params: H::Parameters,
    ) -> Self::LinCodePCParams {
        LigeroPCParams::new(
            128,
            2,
            true,
            leaf_hash_param,
            two_to_one_hash_param,
            col_hash_params,
        )
    }

    fn encode(msg: &[F], param: &Self::LinCodePCParams) -> Result<Vec<F>, Error> {
        // distance() is (rho_inv - 1, rho_inv) for Ligero's parameters.
        reed_solomon(msg, param.distance().1)
    }

    fn poly_to_vec(polynomial: &P) -> Vec<F> {
        polynomial.to_evaluations()
    }

    fn point_to_vec(point: <P as Polynomial<F>>::Point) -> Vec<F> {
        point
    }

    fn tensor(
        point: &<P as Polynomial<F>>::Point,
        left_len: usize,
        _right_len: usize,
    ) -> (Vec<F>, Vec<F>) {
        let point: Vec<F> = point.clone();
        let split = ark_std::log2(left_len) as usize;
        // A point with fewer coordinates than the matrix needs is the
        // caller's error; stock code panics on it too, so split safely and
        // let the transcript check fail instead.
        let split = split.min(point.len());
        (tensor(&point[..split]), tensor(&point[split..]))
    }
}
