//! The range-proof prover, in secp256k1-zkp's format: its proofs verify
//! under the C library's verifier and under [`crate::RangeVerifier`].
//!
//! The protocol is that of Bünz et al. (Bulletproofs, section 4) as the C
//! library lays it out: `A = α·G + <a_L, G_i> + <a_R, H_i>`, `S` likewise
//! with random `s_L`, `s_R`, the challenges `y`, `z`, `x` from the
//! transcript the verifier replays, `T1`, `T2` committing to `t(X)`'s
//! coefficients, and the inner-product argument on `l(x)`, `r(x)` with
//! `H'_i = y^-i·H_i` and `u = x_ip·G`, folding even and odd halves
//! (`a' = a_even·x + a_odd·x^-1`) until two scalars a side remain.
//!
//! The random values come from the caller's RNG, not from the C library's
//! nonce derivation, so a proof is not byte-identical to the C prover's
//! and cannot be rewound with Grin's rewind nonce.

use crate::commitment::value_generator;
use crate::field::{fq_to_be, fr_to_be};
use crate::hash::sha256;
use crate::rangeproof::{shape, update_commit, Signed};
use crate::{Blinding, Commitment, Generators, ProofError};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{AdditiveGroup, Field, One, UniformRand};
use ark_secp256k1::{Affine, Fr, Projective};
use rand::{CryptoRng, RngCore};

/// Why a proof could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProveError {
    /// The shape is not one the format has (bit width, value count) or the
    /// generators are too few; the same errors the verifier gives.
    Shape(ProofError),
    /// A value does not fit in `nbits` bits (index of the value).
    ValueTooLarge(usize),
    /// Not as many blinding factors as values.
    Blindings {
        /// Values given.
        values: usize,
        /// Blinding factors given.
        blindings: usize,
    },
    /// A commitment to value 0 with blinding 0 (the point at infinity), or
    /// a challenge of zero (probability about 2^-128).
    Degenerate,
}

impl core::fmt::Display for ProveError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ProveError::Shape(e) => write!(f, "range proof: cannot prove: {e}"),
            ProveError::ValueTooLarge(i) => {
                write!(f, "range proof: value {i} does not fit the bit width")
            }
            ProveError::Blindings { values, blindings } => {
                write!(
                    f,
                    "range proof: {values} values but {blindings} blinding factors"
                )
            }
            ProveError::Degenerate => write!(f, "range proof: degenerate commitment or challenge"),
        }
    }
}

impl std::error::Error for ProveError {}

fn challenge(commit: &[u8; 32]) -> Result<Fr, ProveError> {
    crate::rangeproof::nonzero_scalar(commit).ok_or(ProveError::Degenerate)
}

fn msm(bases: &[Affine], scalars: &[Fr]) -> Projective {
    // Equal lengths by construction: the MSM cannot refuse them.
    zkaccel_cpu::msm(bases, scalars).unwrap_or_default()
}

/// Points in the proof's encoding: a bit per point (set when y is not a
/// square), then each x.
fn serialize_points(out: &mut Vec<u8>, points: &[Signed]) {
    let start = out.len();
    out.resize(start + points.len().div_ceil(8), 0);
    for (i, p) in points.iter().enumerate() {
        if p.y_not_square {
            out[start + i / 8] |= 1 << (i % 8);
        }
    }
    for p in points {
        out.extend_from_slice(&fq_to_be(&p.point.x));
    }
}

fn inner(a: &[Fr], b: &[Fr]) -> Fr {
    a.iter().zip(b).map(|(x, y)| *x * y).sum()
}

/// `n` and the proof's length, or why there is no such proof.
fn check_shape(
    gens: &Generators,
    values: &[u64],
    blindings: &[Blinding],
    nbits: usize,
) -> Result<(usize, usize), ProveError> {
    let m = values.len();
    if blindings.len() != m {
        return Err(ProveError::Blindings {
            values: m,
            blindings: blindings.len(),
        });
    }
    let shape = shape(gens, nbits, m).map_err(ProveError::Shape)?;
    if let Some(i) = values.iter().position(|&v| nbits < 64 && v >> nbits != 0) {
        return Err(ProveError::ValueTooLarge(i));
    }
    Ok(shape)
}

/// `l(X) = l0 + s_L X` and `r(X) = r0 + r1 X` at the challenges: `l0 =
/// a_L - z`, `r0 = y^i (a_R + z) + z^(2+c) 2^k`, `r1 = y^i s_R`.
fn polynomials(a_l: &[Fr], a_r: &[Fr], s_r: &[Fr], nbits: usize, y: Fr, z: Fr) -> [Vec<Fr>; 3] {
    let n = a_l.len();
    let mut l0 = Vec::with_capacity(n);
    let mut r0 = Vec::with_capacity(n);
    let mut r1 = Vec::with_capacity(n);
    let mut y_i = Fr::one();
    let mut z_c = z.square();
    let mut two_k = Fr::one();
    for i in 0..n {
        if i > 0 && i % nbits == 0 {
            z_c *= z;
            two_k = Fr::one();
        }
        l0.push(a_l[i] - z);
        r0.push(y_i * (a_r[i] + z) + z_c * two_k);
        r1.push(y_i * s_r[i]);
        y_i *= y;
        two_k = two_k.double();
    }
    [l0, r0, r1]
}

/// A proof that each of `values` lies in `[0, 2^nbits)`, with the
/// commitments `values[c]·H + blindings[c]·G` it is about (Grin's
/// generators when `gens` is [`Generators::grin`]).
pub fn prove<R: RngCore + CryptoRng>(
    gens: &Generators,
    values: &[u64],
    blindings: &[Blinding],
    nbits: usize,
    extra: Option<&[u8]>,
    rng: &mut R,
) -> Result<(Vec<u8>, Vec<Commitment>), ProveError> {
    let (n, len) = check_shape(gens, values, blindings, nbits)?;
    let (g_i, h_i) = (&gens.g()[..n], &gens.h()[..n]);
    let value_gen = value_generator();
    let blind_gen = Affine::generator();
    let commitments = values
        .iter()
        .zip(blindings)
        .map(|(v, b)| Commitment::commit(*v, b).map_err(|_| ProveError::Degenerate))
        .collect::<Result<Vec<_>, _>>()?;

    let mut commit = [0u8; 32];
    let value_signed = Signed::new(value_gen);
    for v in &commitments {
        update_commit(&mut commit, &Signed::new(v.point()), &value_signed);
    }
    if let Some(extra) = extra {
        commit = sha256(&[&commit, extra]);
    }

    // Bits, and the random masks.
    let a_l: Vec<Fr> = (0..n)
        .map(|i| Fr::from((values[i / nbits] >> (i % nbits)) & 1))
        .collect();
    let a_r: Vec<Fr> = a_l.iter().map(|b| *b - Fr::one()).collect();
    let s_l: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
    let s_r: Vec<Fr> = (0..n).map(|_| Fr::rand(rng)).collect();
    let (alpha, rho_s, tau1, tau2) = (Fr::rand(rng), Fr::rand(rng), Fr::rand(rng), Fr::rand(rng));
    let gh: Vec<Affine> = g_i.iter().chain(h_i).copied().chain([blind_gen]).collect();
    let with =
        |l: &[Fr], r: &[Fr], b: Fr| -> Vec<Fr> { l.iter().chain(r).copied().chain([b]).collect() };
    let a = msm(&gh, &with(&a_l, &a_r, alpha)).into_affine();
    let s = msm(&gh, &with(&s_l, &s_r, rho_s)).into_affine();
    if a.is_zero() || s.is_zero() {
        return Err(ProveError::Degenerate);
    }
    let (a_s, s_s) = (Signed::new(a), Signed::new(s));
    update_commit(&mut commit, &a_s, &s_s);
    let y = challenge(&commit)?;
    update_commit(&mut commit, &a_s, &s_s);
    let z = challenge(&commit)?;

    let [l0, r0, r1] = polynomials(&a_l, &a_r, &s_r, nbits, y, z);
    let t1 = inner(&l0, &r1) + inner(&s_l, &r0);
    let t2 = inner(&s_l, &r1);
    let big_t1 = (value_gen * t1 + blind_gen * tau1).into_affine();
    let big_t2 = (value_gen * t2 + blind_gen * tau2).into_affine();
    if big_t1.is_zero() || big_t2.is_zero() {
        return Err(ProveError::Degenerate);
    }
    let (t1_s, t2_s) = (Signed::new(big_t1), Signed::new(big_t2));
    update_commit(&mut commit, &t1_s, &t2_s);
    let x = challenge(&commit)?;

    let mut z_pow = z.square();
    let mut tau_x = tau2 * x.square() + tau1 * x;
    for b in blindings {
        tau_x += z_pow * b.0;
        z_pow *= z;
    }
    let mu = alpha + rho_s * x;
    let l: Vec<Fr> = l0.iter().zip(&s_l).map(|(a, b)| *a + *b * x).collect();
    let r: Vec<Fr> = r0.iter().zip(&r1).map(|(a, b)| *a + *b * x).collect();
    let t = inner(&l, &r);

    let mut proof = Vec::with_capacity(len);
    proof.extend_from_slice(&fr_to_be(&-tau_x));
    proof.extend_from_slice(&fr_to_be(&-mu));
    serialize_points(&mut proof, &[a_s, s_s, t1_s, t2_s]);
    commit = sha256(&[&commit, &proof[..64]]);
    proof.extend_from_slice(&fr_to_be(&t));
    let y_inv = y.inverse().ok_or(ProveError::Degenerate)?;
    inner_product(&mut proof, commit, l, r, g_i, h_i, y_inv, blind_gen)?;
    debug_assert_eq!(proof.len(), len);
    Ok((proof, commitments))
}

/// The inner-product argument for `<a, b> = t` (already written) over
/// `G_i` and `H'_i = y^-i·H_i`, with `u = x_ip·G`.
#[allow(clippy::too_many_arguments)]
fn inner_product(
    proof: &mut Vec<u8>,
    commit: [u8; 32],
    mut a: Vec<Fr>,
    mut b: Vec<Fr>,
    g_i: &[Affine],
    h_i: &[Affine],
    y_inv: Fr,
    blind_gen: Affine,
) -> Result<(), ProveError> {
    let n = a.len();
    if n <= 2 {
        for v in a.iter().chain(&b) {
            proof.extend_from_slice(&fr_to_be(v));
        }
        return Ok(());
    }
    let mut commit = sha256(&[&commit, &proof[proof.len() - 32..]]);
    let ux = challenge(&commit)?;
    let mut g: Vec<Affine> = g_i.to_vec();
    let mut y_pow = Fr::one();
    let tweaked: Vec<Projective> = h_i
        .iter()
        .map(|p| {
            let q = *p * y_pow;
            y_pow *= y_inv;
            q
        })
        .collect();
    let mut h = Projective::normalize_batch(&tweaked);
    let mut lr = Vec::new();
    while a.len() > 2 {
        let half = a.len() / 2;
        let even = |v: &[Fr]| v.iter().step_by(2).copied().collect::<Vec<_>>();
        let odd = |v: &[Fr]| v.iter().skip(1).step_by(2).copied().collect::<Vec<_>>();
        let even_p = |v: &[Affine]| v.iter().step_by(2).copied().collect::<Vec<_>>();
        let odd_p = |v: &[Affine]| v.iter().skip(1).step_by(2).copied().collect::<Vec<_>>();
        let (a_e, a_o, b_e, b_o) = (even(&a), odd(&a), even(&b), odd(&b));
        let (g_e, g_o, h_e, h_o) = (even_p(&g), odd_p(&g), even_p(&h), odd_p(&h));
        let cat = |p: &[Affine], q: &[Affine]| -> Vec<Affine> {
            p.iter().chain(q).copied().chain([blind_gen]).collect()
        };
        let cats = |p: &[Fr], q: &[Fr], c: Fr| -> Vec<Fr> {
            p.iter().chain(q).copied().chain([c]).collect()
        };
        let l_pt = msm(&cat(&g_o, &h_e), &cats(&a_e, &b_o, inner(&a_e, &b_o) * ux)).into_affine();
        let r_pt = msm(&cat(&g_e, &h_o), &cats(&a_o, &b_e, inner(&a_o, &b_e) * ux)).into_affine();
        if l_pt.is_zero() || r_pt.is_zero() {
            return Err(ProveError::Degenerate);
        }
        let (l_s, r_s) = (Signed::new(l_pt), Signed::new(r_pt));
        update_commit(&mut commit, &l_s, &r_s);
        let x = challenge(&commit)?;
        let x_inv = x.inverse().ok_or(ProveError::Degenerate)?;
        a = (0..half).map(|j| a_e[j] * x + a_o[j] * x_inv).collect();
        b = (0..half).map(|j| b_e[j] * x_inv + b_o[j] * x).collect();
        let fold = |p: &[Affine], q: &[Affine], sp: Fr, sq: Fr| -> Vec<Affine> {
            let v: Vec<Projective> = p.iter().zip(q).map(|(p, q)| *p * sp + *q * sq).collect();
            Projective::normalize_batch(&v)
        };
        g = fold(&g_e, &g_o, x_inv, x);
        h = fold(&h_e, &h_o, x, x_inv);
        lr.extend([l_s, r_s]);
    }
    for v in a.iter().chain(&b) {
        proof.extend_from_slice(&fr_to_be(v));
    }
    serialize_points(proof, &lr);
    Ok(())
}
