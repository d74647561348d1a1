//! Verification of secp256k1-zkp's range proofs, a batch of them as one
//! multi-scalar multiplication.
//!
//! The proof of `m` values of `nbits` bits each (`n = nbits·m`, a power of
//! two) is `193 + ip(n)` bytes:
//!
//! | bytes | what |
//! |---|---|
//! | 0..32 | `-τx` (a scalar) |
//! | 32..64 | `-μ` |
//! | 64 | sign bits of A, S, T1, T2 (bit set: y is not a square) |
//! | 65..193 | the x of A, S, T1, T2 |
//! | 193..225 | `t = <l, r>` |
//! | 225.. | the inner product: `a1 a2 b1 b2` (one each when `n = 1`), the sign bits of the `L_j`, `R_j` (`(2·lg + 7)/8` bytes), their x in the order `L0 R0 L1 R1 ...` |
//!
//! with `lg = log2(n) - 1` rounds of the inner-product argument (it stops at
//! two scalars a side), so `ip(n) = 32·(5 + 2·lg) + (2·lg + 7)/8` (96 when
//! `n = 1`): 675 bytes for one 64-bit value.
//!
//! Every check the C verifier makes is made here, in its terms: the x of a
//! point is read modulo p (the C code ignores the overflow of
//! `secp256k1_fe_set_b32` there), the point is the one whose y is a square,
//! negated when its sign bit is set, and an x with no point is refused;
//! `-τx`, `-μ`, `t` and the four scalars must be below the group order and
//! not zero; every Fiat-Shamir challenge (`y`, `z`, `x`, the weight of
//! equation (61), `x` of the inner product and each round's `x_j`) must be
//! below the order and not zero. The two verification equations of every
//! proof, weighted by the same hash-derived randomizers the C code uses,
//! then add up to one multi-scalar multiplication that must give the point
//! at infinity.

use crate::commitment::value_generator;
use crate::fe::Fe;
use crate::field::{fe_sqrt_many, fq_to_be, fr_from_be, fr_to_be, is_quad, FieldKernel};
use crate::hash::sha256;
use crate::{Commitment, Error, Generators};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, Field, One, Zero};
use ark_secp256k1::{Affine, Config, Fr, Projective};
use sha2::{Digest, Sha256};
use zkaccel_cpu::{FieldOps, PortableOps, PreparedBases};

/// The longest proof the C library accepts
/// (`SECP256K1_BULLETPROOF_MAX_PROOF`: 1,319 bytes).
pub const MAX_PROOF_LEN: usize = 160 + 36 * 32 + 7;

/// The largest bit width (`MAX_NBITS`).
pub const MAX_NBITS: usize = 64;

/// Length in bytes of the range proof of `m` values of `nbits` bits, or
/// `None` where there is no such proof (`nbits` not a power of two up to
/// 64, `m` zero or not a power of two, or a proof longer than
/// [`MAX_PROOF_LEN`]).
pub fn proof_len(nbits: usize, m: usize) -> Option<usize> {
    if !nbits.is_power_of_two() || nbits > MAX_NBITS || !m.is_power_of_two() {
        return None;
    }
    let n = nbits.checked_mul(m)?;
    let len = 64 + 128 + 1 + inner_product_len(n);
    (len <= MAX_PROOF_LEN).then_some(len)
}

/// `secp256k1_bulletproof_innerproduct_proof_length` for a power of two.
fn inner_product_len(n: usize) -> usize {
    if n < 2 {
        32 * (1 + 2 * n)
    } else {
        let lg = rounds(n);
        32 * (1 + 2 * lg + 4) + (2 * lg).div_ceil(8)
    }
}

/// For `m` values of `nbits` bits under `gens`: `n = nbits·m` and the
/// proof's length, or why there is no such proof (the checks the prover
/// and the verifier share).
pub(crate) fn shape(
    gens: &Generators,
    nbits: usize,
    m: usize,
) -> Result<(usize, usize), ProofError> {
    if !nbits.is_power_of_two() || nbits > MAX_NBITS {
        return Err(ProofError::Bits(nbits));
    }
    if !m.is_power_of_two() {
        return Err(ProofError::Commitments(m));
    }
    let n = nbits * m;
    let have = gens.g().len().min(gens.h().len());
    if have < n {
        return Err(ProofError::TooFewGenerators {
            needed: 2 * n,
            have: 2 * have,
        });
    }
    let len = proof_len(nbits, m).ok_or(ProofError::Commitments(m))?;
    Ok((n, len))
}

/// Rounds of the inner-product argument for `n` (a power of two): it halves
/// the vectors until two scalars a side remain.
fn rounds(n: usize) -> usize {
    if n < 2 {
        0
    } else {
        n.trailing_zeros() as usize - 1
    }
}

/// One proof to verify: its bytes, the commitments to its `m` values, and
/// the extra data the prover bound into it.
///
/// `extra: None` and `extra: Some(&[])` are different proofs: the C code
/// hashes the extra data (even empty) whenever the pointer is not null.
#[derive(Clone, Copy, Debug)]
pub struct ProofInput<'a> {
    /// The proof's bytes.
    pub proof: &'a [u8],
    /// The commitments to the values, in the proof's order.
    pub commitments: &'a [Commitment],
    /// The extra data, or `None`.
    pub extra: Option<&'a [u8]>,
}

/// Why a range proof was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofError {
    /// A proof of the wrong length for its value count and bit width.
    Length {
        /// The length a proof of that shape has.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// The bit width is not a power of two up to 64.
    Bits(usize),
    /// No commitment, or a count that is not a power of two (the C code's
    /// inner product assumes one and does not check).
    Commitments(usize),
    /// More values than the generators cover (`2·nbits·m` generators are
    /// needed).
    TooFewGenerators {
        /// Generators needed.
        needed: usize,
        /// Generators held.
        have: usize,
    },
    /// A point's x coordinate with no curve point (`"A"`, `"S"`, `"T1"`,
    /// `"T2"`, `"L"`, `"R"`; `round` is the inner-product round of an `L` or
    /// `R`).
    Point {
        /// Which point.
        name: &'static str,
        /// The round, for `L` and `R`.
        round: usize,
    },
    /// A scalar of the proof at or above the group order, or zero (`"-tau_x"`,
    /// `"-mu"`, `"t"`, `"a1"`, `"a2"`, `"b1"`, `"b2"`).
    Scalar(&'static str),
    /// A Fiat-Shamir challenge at or above the order, or zero (probability
    /// about 2^-128 for an honest proof; the C code refuses the proof).
    Challenge(&'static str),
    /// With two values a side and no rounds (`n = 2` or `1`) the scalars are
    /// revealed, and their inner product is not `t`.
    InnerProduct,
    /// The verification equation does not hold.
    Equation,
    /// An empty batch.
    EmptyBatch,
}

impl core::fmt::Display for ProofError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ProofError::Length { expected, got } => {
                write!(f, "range proof: {got} bytes, expected {expected}")
            }
            ProofError::Bits(b) => {
                write!(f, "range proof: {b} bits is not a power of two up to 64")
            }
            ProofError::Commitments(m) => {
                write!(f, "range proof: {m} commitments, expected a power of two")
            }
            ProofError::TooFewGenerators { needed, have } => {
                write!(f, "range proof: needs {needed} generators, {have} held")
            }
            ProofError::Point { name, round } => match *name {
                "L" | "R" => write!(f, "range proof: {name}{round} is not on the curve"),
                _ => write!(f, "range proof: {name} is not on the curve"),
            },
            ProofError::Scalar(s) => {
                write!(f, "range proof: {s} is zero or not below the group order")
            }
            ProofError::Challenge(c) => {
                write!(
                    f,
                    "range proof: challenge {c} is zero or not below the group order"
                )
            }
            ProofError::InnerProduct => write!(f, "range proof: revealed scalars do not give t"),
            ProofError::Equation => write!(f, "range proof: the verification equation fails"),
            ProofError::EmptyBatch => write!(f, "range proof: empty batch"),
        }
    }
}

impl std::error::Error for ProofError {}

impl core::fmt::Debug for RangeVerifier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "RangeVerifier({} generators, {:?})",
            2 * self.fixed_len,
            self.prepared
        )
    }
}

/// The range proofs' verifier: the generators and the two Pedersen
/// generators (`H` for values, `G` for blindings), with the precomputed
/// copies that make their part of the verification cheap (about 0.5 MB
/// for Grin's 256 generators, made once in [`RangeVerifier::new`]).
#[derive(Clone)]
pub struct RangeVerifier {
    gens: Generators,
    value_gen: Signed,
    /// `n` of the `G_i` and `n` of the `H_i` (the lesser count), then the
    /// blinding and value generators, with shifted copies
    /// ([`PreparedBases`]): their scalars are multiplied without doublings.
    prepared: PreparedBases<Config>,
    fixed_len: usize,
}

/// 32 bytes as a scalar: `None` at or above the order or zero.
pub(crate) fn nonzero_scalar(bytes: &[u8]) -> Option<Fr> {
    let b: &[u8; 32] = bytes.try_into().ok()?;
    fr_from_be(b).filter(|s| !s.is_zero())
}

/// A point and whether its y is not a square mod p (its sign bit in the
/// proof's encoding).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Signed {
    pub(crate) point: Affine,
    pub(crate) y_not_square: bool,
}

impl Signed {
    /// A point, its y's character computed (a Legendre symbol: the prover
    /// and fixed generators; parsed points carry their sign bit).
    pub(crate) fn new(point: Affine) -> Self {
        Signed {
            point,
            y_not_square: !is_quad(&point.y),
        }
    }
}

/// `secp256k1_bulletproof_update_commit`: the transcript absorbs two
/// points (their y's "not a square" bits, then both x).
pub(crate) fn update_commit(commit: &mut [u8; 32], l: &Signed, r: &Signed) {
    let parity = (u8::from(l.y_not_square) << 1) | u8::from(r.y_not_square);
    *commit = sha256(&[
        commit,
        &[parity],
        &fq_to_be(&l.point.x),
        &fq_to_be(&r.point.x),
    ]);
}

/// `secp256k1_bulletproof_deserialize_point` for every point of each block
/// `(data, n)` of `n` points (sign bits first, then the x's): x is read
/// modulo p as the C code reads it, y is the root that is a square, negated
/// where the sign bit is set; `None` for an x with no point. The square
/// roots of all the blocks are taken together (sixteen at a time in the
/// IFMA lanes: [`fe_sqrt_many`]).
fn points_in<const N: usize>(blocks: [(&[u8], usize); N]) -> [Vec<Option<Signed>>; N] {
    let x_at = |data: &[u8], n: usize, i: usize| {
        let at = n.div_ceil(8) + 32 * i;
        Fe::from_be(&data[at..at + 32])
    };
    let xs: Vec<Fe> = blocks
        .iter()
        .flat_map(|&(data, n)| (0..n).map(move |i| x_at(data, n, i)))
        .collect();
    let rhs: Vec<Fe> = xs.iter().map(|x| x.square().mul(x).add_u64(7)).collect();
    let mut roots = fe_sqrt_many(&rhs).into_iter().zip(xs);
    blocks.map(|(data, n)| {
        (0..n)
            .map(|i| {
                let (y, x) = roots.next().expect("a root for every x");
                let negated = data[i / 8] >> (i % 8) & 1 == 1;
                let y = y?;
                let y = if negated { y.neg() } else { y };
                Some(Signed {
                    point: Affine::new_unchecked(x.to_fq(), y.to_fq()),
                    y_not_square: negated,
                })
            })
            .collect()
    })
}

/// A proof read and its transcript replayed: everything but the batch
/// randomizer.
struct Parsed {
    n: usize,
    nbits: usize,
    lg: usize,
    a: Affine,
    s: Affine,
    t1: Affine,
    t2: Affine,
    commitments: Vec<Affine>,
    y: Fr,
    z: Fr,
    x: Fr,
    rho: Fr,
    t: Fr,
    /// `-μ + ρ·(-τx)`: the blinding generator's offset.
    p_offs: Fr,
    /// The transcript after `-τx || -μ` (what the inner product continues).
    commit: [u8; 32],
    a_sc: Vec<Fr>,
    b_sc: Vec<Fr>,
    x_ip: Fr,
    /// The rounds' challenges, and the L and R points.
    xs: Vec<Fr>,
    lr: Vec<Affine>,
    /// The dot product given (`t`, read again by the inner product) minus
    /// `<a, b>`.
    dot_gap: Fr,
}

impl RangeVerifier {
    /// A verifier with these generators and Grin's Pedersen generators
    /// ([`crate::VALUE_GENERATOR`] for values, the curve's generator for
    /// blindings).
    pub fn new(gens: Generators) -> Self {
        let value_gen = Signed::new(value_generator());
        let n = gens.g().len().min(gens.h().len());
        let fixed: Vec<Affine> = gens.g()[..n]
            .iter()
            .chain(&gens.h()[..n])
            .copied()
            .chain([Affine::generator(), value_gen.point])
            .collect();
        RangeVerifier {
            prepared: PreparedBases::new(&fixed),
            fixed_len: n,
            gens,
            value_gen,
        }
    }

    /// Grin's verifier: [`Generators::grin`] (enough for one or two 64-bit
    /// values a proof).
    pub fn grin() -> Result<Self, Error> {
        Ok(Self::new(Generators::grin()?))
    }

    /// The generators.
    pub fn generators(&self) -> &Generators {
        &self.gens
    }

    /// Verifies one proof that each committed value lies in `[0, 2^nbits)`
    /// (`secp256k1_bulletproof_rangeproof_verify` with no minimum values).
    pub fn verify(
        &self,
        proof: &[u8],
        commitments: &[Commitment],
        nbits: usize,
        extra: Option<&[u8]>,
    ) -> Result<(), ProofError> {
        self.verify_batch(
            &[ProofInput {
                proof,
                commitments,
                extra,
            }],
            nbits,
        )
    }

    /// Verifies a batch as one multi-scalar multiplication
    /// (`secp256k1_bulletproof_rangeproof_verify_multi`). The proofs may
    /// aggregate different numbers of values. An error says why the batch
    /// fails; [`RangeVerifier::find_invalid`] says which proofs do.
    pub fn verify_batch(&self, proofs: &[ProofInput<'_>], nbits: usize) -> Result<(), ProofError> {
        if proofs.is_empty() {
            return Err(ProofError::EmptyBatch);
        }
        let kernel = FieldKernel::detect();
        let parsed = parse_all(proofs, |p| self.parse(p, nbits))?;
        let randomizers = randomizers(proofs, &parsed)?;
        let indices: Vec<usize> = (0..parsed.len()).collect();
        let terms = map_all(&indices, |&i| {
            Self::proof_terms(kernel, &parsed[i], randomizers[i])
        });
        let sum = self.batch_sum(terms)?;
        if sum.is_zero() {
            Ok(())
        } else {
            Err(ProofError::Equation)
        }
    }

    /// The indices of the proofs of a batch that fail on their own, found
    /// by bisection: a half that verifies as a batch is not searched
    /// further. Empty when the whole batch verifies.
    pub fn find_invalid(&self, proofs: &[ProofInput<'_>], nbits: usize) -> Vec<usize> {
        let mut bad = Vec::new();
        let mut stack = vec![(0, proofs.len())];
        while let Some((lo, hi)) = stack.pop() {
            if lo >= hi || self.verify_batch(&proofs[lo..hi], nbits).is_ok() {
                continue;
            }
            if hi - lo == 1 {
                bad.push(lo);
            } else {
                let mid = lo + (hi - lo) / 2;
                stack.push((mid, hi));
                stack.push((lo, mid));
            }
        }
        bad
    }

    fn parse(&self, input: &ProofInput<'_>, nbits: usize) -> Result<Parsed, ProofError> {
        let m = input.commitments.len();
        let (n, expected) = shape(&self.gens, nbits, m)?;
        let proof = input.proof;
        if proof.len() != expected {
            return Err(ProofError::Length {
                expected,
                got: proof.len(),
            });
        }

        let mut commit = [0u8; 32];
        for v in input.commitments {
            let v = Signed {
                point: v.point(),
                y_not_square: !v.y_is_square(),
            };
            update_commit(&mut commit, &v, &self.value_gen);
        }
        let commitments: Vec<Affine> = input.commitments.iter().map(|c| c.point()).collect();
        if let Some(extra) = input.extra {
            commit = sha256(&[&commit, extra]);
        }
        // A, S, T1 and T2, and the inner product's L and R: their square
        // roots in one batch.
        let (k, lg) = (n.min(2), rounds(n));
        let lr_data = &proof[193 + 32 + 64 * k..];
        let [head, lr_points] = points_in([(&proof[64..193], 4), (lr_data, 2 * lg)]);
        let point = |i: usize, name| head[i].ok_or(ProofError::Point { name, round: 0 });
        let (a, s) = (point(0, "A")?, point(1, "S")?);
        update_commit(&mut commit, &a, &s);
        let y = nonzero_scalar(&commit).ok_or(ProofError::Challenge("y"))?;
        update_commit(&mut commit, &a, &s);
        let z = nonzero_scalar(&commit).ok_or(ProofError::Challenge("z"))?;
        let (t1, t2) = (point(2, "T1")?, point(3, "T2")?);
        update_commit(&mut commit, &t1, &t2);
        let x = nonzero_scalar(&commit).ok_or(ProofError::Challenge("x"))?;
        commit = sha256(&[&commit, &proof[..64]]);
        let rho = nonzero_scalar(&sha256(&[&commit])).ok_or(ProofError::Challenge("rho"))?;
        let taux = nonzero_scalar(&proof[..32]).ok_or(ProofError::Scalar("-tau_x"))?;
        let mu = nonzero_scalar(&proof[32..64]).ok_or(ProofError::Scalar("-mu"))?;
        let t = nonzero_scalar(&proof[193..225]).ok_or(ProofError::Scalar("t"))?;
        let p_offs = mu + taux * rho;

        // The inner product: t again, then the revealed scalars.
        let ip = &proof[193..];
        let ip_commit = sha256(&[&commit, &ip[..32]]);
        let (a_sc, b_sc) = revealed_scalars(ip, k)?;
        let dot_gap = t - a_sc.iter().zip(&b_sc).map(|(a, b)| *a * b).sum::<Fr>();
        let x_ip = nonzero_scalar(&ip_commit).ok_or(ProofError::Challenge("x (inner product)"))?;
        if n <= 2 && !dot_gap.is_zero() {
            return Err(ProofError::InnerProduct);
        }
        let (xs, lr) = rounds_of(ip_commit, lr_data, lg, &lr_points)?;
        Ok(Parsed {
            n,
            nbits,
            lg,
            a: a.point,
            s: s.point,
            t1: t1.point,
            t2: t2.point,
            commitments,
            y,
            z,
            x,
            rho,
            t,
            p_offs,
            commit,
            a_sc,
            b_sc,
            x_ip,
            xs,
            lr,
            dot_gap,
        })
    }

    /// One proof's terms: its share of the fixed bases' scalars (`G_i`,
    /// `H_i` for `i < n`, the blinding and value generators) and its own
    /// points with theirs, all weighted by its randomizer `r`.
    fn proof_terms(kernel: FieldKernel, p: &Parsed, r: Fr) -> ProofTerms {
        match kernel {
            FieldKernel::Asm(mut k) => Self::proof_terms_on(&mut k, p, r),
            FieldKernel::Portable => Self::proof_terms_on(&mut PortableOps, p, r),
        }
    }

    fn proof_terms_on<O: FieldOps<Fr>>(k: &mut O, p: &Parsed, r: Fr) -> ProofTerms {
        // Inverses of y, y - 1 and every round's x, in one inversion.
        let y_minus_1 = p.y - Fr::one();
        let mut inv: Vec<Fr> = [p.y, y_minus_1]
            .into_iter()
            .chain(p.xs.iter().copied())
            .collect();
        zkaccel_cpu::batch_inverse(k, &mut inv);
        let (y_inv, x_inv) = (inv[0], &inv[2..]);
        // prod_j x_j^(+1 if bit j of i is set, else -1), i < 2^lg.
        let half = 1usize << p.lg;
        let mut signs = vec![x_inv.iter().product::<Fr>(); half];
        for (j, xj) in p.xs.iter().enumerate() {
            let sq = k.sqr(xj);
            for i in 0..1usize << j {
                signs[i + (1 << j)] = k.mul(&signs[i], &sq);
            }
        }
        let groups = p.a_sc.len();
        // The G_i and H_i scalars, with r folded into a, b and z once:
        // G_i: -(r a_g s_i + r z); H_i: r z + (r z^(2+c) 2^k - r b_g / s_i) y^-i.
        let ra: Vec<Fr> = p.a_sc.iter().map(|a| r * a).collect();
        let rb: Vec<Fr> = p.b_sc.iter().map(|b| r * b).collect();
        let rz = r * p.z;
        let mut g = Vec::with_capacity(p.n);
        let mut h = Vec::with_capacity(p.n);
        let mut y_inv_i = Fr::one();
        let mut rz_c = rz * p.z; // r z^(2+c) for value c
        let mut rz_c_2k = rz_c; // times 2^k
        for i in 0..p.n {
            let group = (i >> p.lg).min(groups - 1);
            let low = i & (half - 1);
            if i > 0 && i % p.nbits == 0 {
                rz_c *= p.z;
                rz_c_2k = rz_c;
            }
            g.push(-(k.mul(&ra[group], &signs[low]) + rz));
            let b_term = k.mul(&rb[group], &signs[(half - 1) ^ low]);
            h.push(rz + k.mul(&(rz_c_2k - b_term), &y_inv_i));
            y_inv_i = k.mul(&y_inv_i, &y_inv);
            rz_c_2k.double_in_place();
        }
        let blind = r * (p.x_ip * p.dot_gap + p.p_offs);
        // (z - z^2) * sum_{i<n} y^i - sum_c z^(3+c) (2^nbits - 1) - t, the
        // sum of powers as (y^n - 1) / (y - 1) (n is a power of two).
        let y_sum = if y_minus_1.is_zero() {
            Fr::from(p.n as u64)
        } else {
            let mut y_n = p.y;
            for _ in 0..p.n.trailing_zeros() {
                y_n.square_in_place();
            }
            (y_n - Fr::one()) * inv[1]
        };
        let ones = Fr::from(((1u128 << p.nbits) - 1) as u64);
        let mut z_sum = Fr::zero();
        let mut zc = p.z.square() * p.z;
        for _ in &p.commitments {
            z_sum += zc;
            zc *= p.z;
        }
        let rrho = r * p.rho;
        let value = rrho * ((p.z - p.z.square()) * y_sum - z_sum * ones - p.t);
        let mut bases = vec![p.a, p.s, p.t1, p.t2];
        let mut scalars = vec![r, r * p.x, rrho * p.x, rrho * p.x.square()];
        let mut zc = p.z.square();
        for v in &p.commitments {
            bases.push(*v);
            scalars.push(rrho * zc);
            zc *= p.z;
        }
        for (j, xj) in p.xs.iter().enumerate() {
            bases.extend([p.lr[2 * j], p.lr[2 * j + 1]]);
            scalars.extend([r * xj.square(), r * x_inv[j].square()]);
        }
        ProofTerms {
            g,
            h,
            blind,
            value,
            bases,
            scalars,
        }
    }

    /// The batch's sum: the fixed bases' scalars added up over the proofs
    /// and multiplied on the prepared copies, the proofs' own points by
    /// zkaccel's MSM, the two side by side.
    fn batch_sum(&self, terms: Vec<ProofTerms>) -> Result<Projective, ProofError> {
        let n = self.fixed_len;
        // [G_0..G_n, H_0..H_n, G, H]: every proof's n is at most the
        // generators' (checked in `parse`).
        let mut fixed = vec![Fr::zero(); 2 * n + 2];
        let mut bases = Vec::new();
        let mut scalars = Vec::new();
        for t in terms {
            for (acc, v) in fixed[..t.g.len()].iter_mut().zip(&t.g) {
                *acc += v;
            }
            for (acc, v) in fixed[n..n + t.h.len()].iter_mut().zip(&t.h) {
                *acc += v;
            }
            fixed[2 * n] += t.blind;
            fixed[2 * n + 1] += t.value;
            bases.extend(t.bases);
            scalars.extend(t.scalars);
        }
        let (a, b) = join(
            || self.prepared.msm(&fixed),
            || zkaccel_cpu::msm(&bases, &scalars),
        );
        Ok(a.map_err(|_| ProofError::Equation)? + b.map_err(|_| ProofError::Equation)?)
    }
}

/// One proof's share of the batch's multi-scalar multiplication.
struct ProofTerms {
    g: Vec<Fr>,
    h: Vec<Fr>,
    blind: Fr,
    value: Fr,
    bases: Vec<Affine>,
    scalars: Vec<Fr>,
}

/// `a()` and `b()`, side by side with the `parallel` feature.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (a(), b())
    }
}

/// The inner product's revealed scalars, `k` a side (`a1 a2 b1 b2`, or
/// `a1 b1`), after `t`: each below the order and not zero.
fn revealed_scalars(ip: &[u8], k: usize) -> Result<(Vec<Fr>, Vec<Fr>), ProofError> {
    let names = [["a1", "a2"], ["b1", "b2"]];
    let read = |side: usize| -> Result<Vec<Fr>, ProofError> {
        (0..k)
            .map(|j| {
                let at = 32 + 32 * (side * k + j);
                nonzero_scalar(&ip[at..at + 32]).ok_or(ProofError::Scalar(names[side][j]))
            })
            .collect()
    };
    Ok((read(0)?, read(1)?))
}

/// The inner product's rounds: each round's challenge, hashed from the
/// transcript, the sign bits and the raw x of its L and R, and the points
/// (`lr_points`, decoded from `lr_data` by [`points_in`]).
fn rounds_of(
    mut ip_commit: [u8; 32],
    lr_data: &[u8],
    lg: usize,
    lr_points: &[Option<Signed>],
) -> Result<(Vec<Fr>, Vec<Affine>), ProofError> {
    let bitvec = (2 * lg).div_ceil(8);
    let mut xs = Vec::with_capacity(lg);
    let mut lr = Vec::with_capacity(2 * lg);
    for j in 0..lg {
        let bit = |i: usize| lr_data[i / 8] >> (i % 8) & 1;
        let parity = 2 * bit(2 * j) + bit(2 * j + 1);
        let lx = &lr_data[bitvec + 64 * j..bitvec + 64 * j + 32];
        let rx = &lr_data[bitvec + 64 * j + 32..bitvec + 64 * j + 64];
        ip_commit = sha256(&[&ip_commit, &[parity], lx, rx]);
        xs.push(nonzero_scalar(&ip_commit).ok_or(ProofError::Challenge("x_j"))?);
        for (i, name) in [(2 * j, "L"), (2 * j + 1, "R")] {
            lr.push(
                lr_points[i]
                    .ok_or(ProofError::Point { name, round: j })?
                    .point,
            );
        }
    }
    Ok((xs, lr))
}

/// `f` on every proof, in parallel with the `parallel` feature; the first
/// error in the batch's order wins.
fn parse_all<'a, T: Send>(
    proofs: &'a [ProofInput<'a>],
    f: impl Fn(&ProofInput<'a>) -> Result<T, ProofError> + Sync + Send,
) -> Result<Vec<T>, ProofError> {
    map_all(proofs, f).into_iter().collect()
}

/// `f` on every item, in parallel with the `parallel` feature.
fn map_all<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// The C code's per-proof weights: SHA-256 of every proof's inner-product
/// bytes, transcript and offset, then hashed again once per proof.
fn randomizers(proofs: &[ProofInput<'_>], parsed: &[Parsed]) -> Result<Vec<Fr>, ProofError> {
    let mut h = Sha256::new();
    for (input, p) in proofs.iter().zip(parsed) {
        h.update(&input.proof[193..]);
        h.update(p.commit);
        h.update(fr_to_be(&p.p_offs));
    }
    let mut seed: [u8; 32] = h.finalize().into();
    parsed
        .iter()
        .map(|_| {
            seed = sha256(&[&seed]);
            nonzero_scalar(&seed).ok_or(ProofError::Challenge("batch weight"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_match_the_c_formula() {
        assert_eq!(proof_len(64, 1), Some(675));
        assert_eq!(proof_len(64, 2), Some(739));
        assert_eq!(proof_len(64, 8), Some(867));
        assert_eq!(proof_len(1, 1), Some(193 + 96));
        // n = 2: no rounds, no sign bytes.
        assert_eq!(proof_len(2, 1), Some(193 + 32 * 5));
        assert_eq!(proof_len(64, 3), None);
        assert_eq!(proof_len(48, 1), None);
        assert_eq!(proof_len(128, 1), None);
        assert_eq!(proof_len(64, 0), None);
        // 64 * 32 values: past the C library's longest proof.
        assert_eq!(proof_len(64, 1 << 20), None);
    }
}
