//! [`CurveMul`]: what zkaccel needs of a curve (field arithmetic, GLV),
//! its implementations for arkworks' curves, and the `k * P` entry points
//! ([`mul`], [`mul_scalar`]) that pick a [`ScalarMulMethod`].

use crate::field_ops::{DetectOps, FieldOps, Plain};
use crate::msm::{GlvScalars, GlvTerms};
use crate::scalar_mul::{run_chain, to_affine, unscale, wnaf_mul};
use crate::{glv, scalar_mul, AdxFp2Ops, AdxOps, DbcError, FormulaSet, Limbs};
use ark_ec::short_weierstrass::{Projective, SWCurveConfig};
use ark_ff::{PrimeField, Zero};
use core::fmt;
use zkaccel_dbc::Dbc;

/// How to compute `k * P`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarMulMethod {
    /// The fastest measured method for the curve (see [`CurveMul::auto`]).
    Auto,
    /// The paper's Algorithm 1 over `Dbc::suboptimal(k, delta)` under the cost
    /// model of the formulas in use (S = 0.8 M).
    Dbc {
        /// Leading terms tried by the chain search (at least 1).
        delta: u32,
    },
    /// Non-adjacent form, left to right, mixed additions of `±P`.
    Naf,
    /// Width-`w` NAF (`2..=16`) over an affine table of odd multiples.
    Wnaf(u32),
    /// GLV split with interleaved wNAF (curves with an endomorphism, see
    /// [`CurveMul::glv`]); for points in the prime-order subgroup, as arkworks'
    /// own GLV.
    Glv,
    /// GLV split with one joint binary-ternary double-base chain for both
    /// halves over `P, φ(P), P ± φ(P)`, sharing every doubling and tripling
    /// (`a = 0` curves with an endomorphism; with other formulas it runs
    /// `Glv`). Subgroup points only, as `Glv`.
    GlvDbc,
}

/// Why a scalar multiplication was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MulError {
    /// The scalar or a parameter was refused by the chain or recoding code.
    Scalar(DbcError),
    /// The curve has no GLV endomorphism configured ([`CurveMul::glv`]).
    GlvUnavailable,
    /// These formulas are wrong for this curve's `a` (e.g. `a = 0` formulas on P-256).
    FormulasInvalid(FormulaSet),
}

impl fmt::Display for MulError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MulError::Scalar(e) => write!(f, "scalar: {e}"),
            MulError::GlvUnavailable => write!(f, "this curve has no GLV endomorphism configured"),
            MulError::FormulasInvalid(s) => write!(
                f,
                "the {s:?} formulas do not hold for this curve's coefficient a"
            ),
        }
    }
}

impl std::error::Error for MulError {}

impl From<DbcError> for MulError {
    fn from(e: DbcError) -> Self {
        MulError::Scalar(e)
    }
}

/// Per-curve choices for scalar multiplication and MSM. Every
/// `SWCurveConfig` can implement it with one line
/// (`impl CurveMul for MyConfig { type Ops = Plain; }`); the curves of
/// arkworks 0.6 that have a GLV endomorphism are wired here.
pub trait CurveMul: SWCurveConfig {
    /// `k * P` by GLV with window `w`, if the curve has an endomorphism;
    /// `P` must be in the prime-order subgroup.
    fn glv<O: FieldOps<Self::BaseField>>(
        _p: &Projective<Self>,
        _k: Self::ScalarField,
        _w: u32,
        _set: FormulaSet,
        _ops: &mut O,
    ) -> Option<Projective<Self>> {
        None
    }

    /// `k * P` by [`ScalarMulMethod::GlvDbc`], where it applies.
    fn glv_dbc<O: FieldOps<Self::BaseField>>(
        _p: &Projective<Self>,
        _k: Self::ScalarField,
        _set: FormulaSet,
        _ops: &mut O,
    ) -> Option<Projective<Self>> {
        None
    }

    /// The GLV split of an MSM's terms where it applies: the curve has an
    /// endomorphism `φ(x, y) = (βx, y)` and every point is in the
    /// prime-order subgroup (cofactor 1), so splitting changes no result.
    /// `None` elsewhere (arkworks' MSM has no GLV, and on other curves a
    /// point outside the subgroup would give a different sum). zkaccel's
    /// own curves split with a 256-bit Babai rounding; another
    /// implementation builds its split with [`GlvTerms::new`].
    fn msm_glv_split<B: ark_ff::BigInteger, S: crate::msm::Bases<Self>>(
        _bases: S,
        _scalars: &[B],
    ) -> Option<GlvTerms<Self>> {
        None
    }

    /// The scalar half of [`CurveMul::msm_glv_split`], for MSMs over several
    /// base sets that share their scalars ([`SharedScalars`](crate::msm::SharedScalars)):
    /// the `2n` half-width magnitudes and signs, and `β` of the endomorphism
    /// `φ(x, y) = (βx, y)` from which each base set's `βx` follows. `None`
    /// by default and wherever `msm_glv_split` is (shared scalars are then
    /// not split, which changes no result).
    fn msm_glv_scalars<B: ark_ff::BigInteger>(_scalars: &[B]) -> Option<GlvScalars<Self>> {
        None
    }

    /// The field arithmetic of this curve's MSM: zkaccel-ff's assembly
    /// kernels where they cover the base field ([`AdxOps`] for BN254's Fq,
    /// [`AdxFp2Ops`] for its Fq2), its portable kernels where only they do
    /// ([`PortableOps`](crate::PortableOps), [`PortableFp2Ops`](crate::PortableFp2Ops)), arkworks' operators ([`Plain`])
    /// elsewhere. Used when the CPU supports it ([`DetectOps::detect`]), its
    /// [`DetectOps::Fallback`] otherwise.
    type Ops: FieldOps<Self::BaseField> + DetectOps<Fallback: FieldOps<Self::BaseField>>;

    /// Whether `Auto` may use GLV on this curve although its cofactor is not 1:
    /// set where arkworks' own `mul_projective` already reduces the scalar
    /// mod r and runs GLV (so it assumes subgroup points too), which keeps
    /// `Accel<P>` exactly as arkworks on every input.
    const AUTO_GLV: bool = false;

    /// What `Auto` runs for a `bits`-bit scalar: GLV when the curve has it and
    /// either every point is in the prime-order subgroup (cofactor 1) or
    /// [`CurveMul::AUTO_GLV`] says arkworks does the same; else wNAF with the
    /// window that minimises its cost for that length.
    fn auto(bits: u32) -> ScalarMulMethod {
        let glv = Self::glv(
            &Projective::<Self>::zero(),
            Self::ScalarField::zero(),
            4,
            FormulaSet::Generic,
            &mut Plain,
        )
        .is_some();
        if glv && (Self::COFACTOR == [1] || Self::AUTO_GLV) {
            ScalarMulMethod::Glv
        } else {
            ScalarMulMethod::Wnaf(wnaf_window(bits))
        }
    }
}

/// The wNAF window minimising `bits/(w+1)` additions plus `2^{w-2}` table
/// entries (the table's additions and its share of the batch inversion).
pub fn wnaf_window(bits: u32) -> u32 {
    (2..=8)
        .min_by_key(|&w| {
            let adds = (bits as u64 * 1000) / (w as u64 + 1);
            let table = (1u64 << (w - 2)) * 1000 * 2; // full additions + normalisation, in madd units
            adds + table
        })
        .unwrap_or(4)
}

macro_rules! glv_curves {
    ($($config:ty => $auto_glv:expr, $ops:ty);*) => {$(
        impl CurveMul for $config {
            const AUTO_GLV: bool = $auto_glv;

            type Ops = $ops;

            fn msm_glv_split<B: ark_ff::BigInteger, S: crate::msm::Bases<Self>>(
                bases: S,
                scalars: &[B],
            ) -> Option<GlvTerms<Self>> {
                if <Self as ark_ec::CurveConfig>::COFACTOR != [1] {
                    return None;
                }
                static SPLIT: std::sync::OnceLock<glv::GlvSplit> = std::sync::OnceLock::new();
                SPLIT
                    .get_or_init(glv::GlvSplit::new::<$config>)
                    .split_terms(bases, scalars)
            }

            fn msm_glv_scalars<B: ark_ff::BigInteger>(scalars: &[B]) -> Option<GlvScalars<Self>> {
                if <Self as ark_ec::CurveConfig>::COFACTOR != [1] {
                    return None;
                }
                // arkworks' endomorphism is x -> ENDO_COEFFS[0] x (tested).
                let beta = <$config as ark_ec::scalar_mul::glv::GLVConfig>::ENDO_COEFFS[0];
                static SPLIT: std::sync::OnceLock<glv::GlvSplit> = std::sync::OnceLock::new();
                let (negate, split) = SPLIT
                    .get_or_init(glv::GlvSplit::new::<$config>)
                    .split_scalars(scalars)?;
                GlvScalars::new(beta, negate, split)
            }

            fn glv<O: FieldOps<Self::BaseField>>(
                p: &Projective<Self>,
                k: Self::ScalarField,
                w: u32,
                set: FormulaSet,
                ops: &mut O,
            ) -> Option<Projective<Self>> {
                // arkworks 0.6 implements this curve's endomorphism as
                // x -> ENDO_COEFFS[0] x (checked against arkworks in the tests).
                let beta = <$config as ark_ec::scalar_mul::glv::GLVConfig>::ENDO_COEFFS[0];
                Some(scalar_mul::glv_mul(p, k, w, set, Some(beta), ops))
            }

            fn glv_dbc<O: FieldOps<Self::BaseField>>(
                p: &Projective<Self>,
                k: Self::ScalarField,
                set: FormulaSet,
                ops: &mut O,
            ) -> Option<Projective<Self>> {
                let beta = <$config as ark_ec::scalar_mul::glv::GLVConfig>::ENDO_COEFFS[0];
                scalar_mul::glv_dbc_mul(p, k, set, Some(beta), ops)
            }
        }
    )*};
}

// `true` where arkworks 0.6 overrides `mul_projective` with GLV; the
// bucket method on zkaccel-ff's assembly, which covers these base fields
// (BN254's Fq: four limbs, below 2^255; BLS12-381's: six limbs with a spare
// bit; and their Fp2 for G2). secp256k1 (below) takes its full-width
// four-limb kernels (the modulus uses the top bit: 1.22x the portable
// kernels in its MSM), P-256 the portable ones (the same speed there:
// arkworks' multiplication, which they call for full-width moduli, folds
// P-256's special limbs as constants).
glv_curves!(
    ark_bn254::g1::Config => true, AdxOps;
    ark_bn254::g2::Config => false, AdxFp2Ops;
    ark_bls12_381::g1::Config => true, AdxOps;
    ark_bls12_381::g2::Config => false, AdxFp2Ops
);
impl CurveMul for ark_secp256k1::Config {
    type Ops = AdxOps;

    /// The GLV split with zkaccel's own constants (`glv::secp256k1`):
    /// arkworks 0.6 has no endomorphism for this curve. Cofactor 1.
    fn msm_glv_split<B: ark_ff::BigInteger, S: crate::msm::Bases<Self>>(
        bases: S,
        scalars: &[B],
    ) -> Option<GlvTerms<Self>> {
        static SPLIT: std::sync::OnceLock<glv::GlvSplit> = std::sync::OnceLock::new();
        SPLIT.get_or_init(glv::secp256k1::split).split_terms_by(
            bases,
            scalars,
            glv::secp256k1::endomorphism,
        )
    }

    fn msm_glv_scalars<B: ark_ff::BigInteger>(scalars: &[B]) -> Option<GlvScalars<Self>> {
        static SPLIT: std::sync::OnceLock<glv::GlvSplit> = std::sync::OnceLock::new();
        let (negate, split) = SPLIT
            .get_or_init(glv::secp256k1::split)
            .split_scalars(scalars)?;
        GlvScalars::new(glv::secp256k1::BETA, negate, split)
    }
}
impl CurveMul for ark_secp256r1::Config {
    type Ops = crate::PortableOps;
}

/// `k * P` for any integer `k` (little-endian limbs or an arkworks `BigInt`)
/// by `method`, with the fastest formulas valid for the curve.
pub fn mul<P: CurveMul, K: Limbs + ?Sized>(
    p: &Projective<P>,
    k: &K,
    method: ScalarMulMethod,
) -> Result<Projective<P>, MulError> {
    mul_with(p, k, method, FormulaSet::for_curve::<P>(), &mut Plain)
}

/// [`mul`] with a chosen formula set and field-operation counter.
pub fn mul_with<P: CurveMul, K: Limbs + ?Sized, O: FieldOps<P::BaseField>>(
    p: &Projective<P>,
    k: &K,
    method: ScalarMulMethod,
    set: FormulaSet,
    ops: &mut O,
) -> Result<Projective<P>, MulError> {
    mul_inner(p, &k.le_limbs(), None, method, set, ops)
}

/// `k * P` for a scalar-field element `k` (its canonical integer), as
/// arkworks' `P * k`; usable from code generic over the curve.
pub fn mul_scalar<P: CurveMul>(
    p: &Projective<P>,
    k: &P::ScalarField,
    method: ScalarMulMethod,
) -> Result<Projective<P>, MulError> {
    mul_scalar_with(p, k, method, FormulaSet::for_curve::<P>(), &mut Plain)
}

/// [`mul_scalar`] with a chosen formula set and field-operation counter.
pub fn mul_scalar_with<P: CurveMul, O: FieldOps<P::BaseField>>(
    p: &Projective<P>,
    k: &P::ScalarField,
    method: ScalarMulMethod,
    set: FormulaSet,
    ops: &mut O,
) -> Result<Projective<P>, MulError> {
    mul_inner(p, k.into_bigint().as_ref(), Some(*k), method, set, ops)
}

/// The shared body: `limbs` is the integer `k`; `field` is `k mod r` when the
/// caller already has it (the GLV methods need it).
fn mul_inner<P: CurveMul, O: FieldOps<P::BaseField>>(
    p: &Projective<P>,
    limbs: &[u64],
    field: Option<P::ScalarField>,
    method: ScalarMulMethod,
    set: FormulaSet,
    ops: &mut O,
) -> Result<Projective<P>, MulError> {
    if !set.is_valid_for::<P>() {
        return Err(MulError::FormulasInvalid(set));
    }
    let bits = bit_len(limbs);
    let method = match method {
        ScalarMulMethod::Auto => P::auto(bits),
        m => m,
    };
    if bits == 0 || p.z.is_zero() {
        return Ok(Projective::zero());
    }
    let field =
        || field.unwrap_or_else(|| P::ScalarField::from_le_bytes_mod_order(&le_bytes(limbs)));
    match method {
        ScalarMulMethod::Dbc { delta } => {
            let chain = Dbc::suboptimal_with(limbs, delta, None, &set.cost_model(0.8))?;
            Ok(chain_mul(p, &chain, set, ops))
        }
        ScalarMulMethod::Naf => Ok(chain_mul(p, &Dbc::naf(limbs)?, set, ops)),
        ScalarMulMethod::Wnaf(w) => Ok(wnaf_mul(p, limbs, w, set, ops)?),
        ScalarMulMethod::Glv => {
            P::glv(p, field(), glv_window(), set, ops).ok_or(MulError::GlvUnavailable)
        }
        ScalarMulMethod::GlvDbc => {
            let k = field();
            P::glv_dbc(p, k, set, ops)
                .or_else(|| P::glv(p, k, glv_window(), set, ops))
                .ok_or(MulError::GlvUnavailable)
        }
        ScalarMulMethod::Auto => unreachable!("resolved above"),
    }
}

/// Algorithm 1 from a Jacobian base. With `a = 0` formulas, `(X, Y, Z)` is the
/// affine point `(X, Y)` of the curve scaled by `Z` (doubling, tripling and
/// addition never read `b`), so no inversion is needed: run there and scale
/// the result's `Z` back. Otherwise the base is normalised (one inversion).
fn chain_mul<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &Projective<P>,
    chain: &Dbc,
    set: FormulaSet,
    ops: &mut O,
) -> Projective<P> {
    if set != FormulaSet::AZero {
        return run_chain(&to_affine(p), chain, set, ops);
    }
    let base = ark_ec::short_weierstrass::Affine::new_unchecked(p.x, p.y);
    let acc: Projective<P> = run_chain(&base, chain, set, ops);
    unscale(acc, &p.z, ops)
}

/// Window of the wNAF halves in GLV (about 128-bit scalars).
///
/// Chosen by instruction count on BN254 G1 (callgrind, per multiplication:
/// w = 3: 592k, 4: 576k, 5: 603k, 6: 696k; arkworks' GLV: 754k).
fn glv_window() -> u32 {
    4
}

fn bit_len(limbs: &[u64]) -> u32 {
    limbs
        .iter()
        .rposition(|&x| x != 0)
        .map_or(0, |i| 64 * i as u32 + 64 - limbs[i].leading_zeros())
}

fn le_bytes(limbs: &[u64]) -> Vec<u8> {
    limbs.iter().flat_map(|l| l.to_le_bytes()).collect()
}
