//! Jacobian point formulas: doubling, tripling, mixed and full addition.
//!
//! Points are arkworks' `Projective<P>`, which is Jacobian (`x = X/Z^2`,
//! `y = Y/Z^3`, infinity at `Z = 0`). Each formula exists for `a = 0` (BN254,
//! BLS12-381, secp256k1), `a = -3` (NIST curves) and any `a`, selected by
//! [`FormulaSet`]; costs are in field multiplications M and squarings S, from
//! the Explicit-Formulas Database (EFD, hyperelliptic.org/EFD, "g1p/shortw-jacobian"),
//! with multiplications by small constants done as additions (not counted).
//! A multiplication by a generic `a` is counted as one M.
//!
//! | formula | a = 0 | a = -3 | any a |
//! |---|---|---|---|
//! | doubling | dbl-2009-l: 2M + 5S | dbl-2001-b: 3M + 5S | dbl-2007-bl: 2M + 8S (1M is the `a` product) |
//! | tripling | tpl-2007-bl, `a = 0`: 5M + 9S | tpl-2007-bl with `3(X-ZZ)(X+ZZ)`: 6M + 9S | tpl-2007-bl: 6M + 10S |
//! | mixed addition (`Z2 = 1`) | madd-2007-bl: 7M + 4S | same | same |
//! | addition | add-2007-bl: 11M + 5S | same | same |
//!
//! Every field multiplication and squaring goes through a [`FieldOps`], so
//! the same code runs plain ([`Plain`], compiled away) or counted
//! ([`Counting`]), and tests can check a scalar multiplication's exact cost.
//! Exceptional inputs are handled: infinity on either side, `P + P` (falls
//! back to doubling) and `P + (-P)` (infinity).

use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::{AdditiveGroup, Field, Fp2, Fp2Config, Zero};
use zkaccel_ff::MontField;

/// How field multiplications and squarings are performed (and counted).
///
/// Additions default to arkworks' operators; [`AdxOps`] and [`PortableOps`]
/// replace them (and the multiplications) with zkaccel-ff's branch-free
/// kernels, in assembly and in portable Rust.
pub trait FieldOps<F: Field> {
    /// `a * b`.
    fn mul(&mut self, a: &F, b: &F) -> F;
    /// `a^2`.
    fn sqr(&mut self, a: &F) -> F;
    /// `a + b`.
    #[inline(always)]
    fn add(&mut self, a: &F, b: &F) -> F {
        *a + b
    }
    /// `a - b`.
    #[inline(always)]
    fn sub(&mut self, a: &F, b: &F) -> F {
        *a - b
    }
    /// `2a`.
    #[inline(always)]
    fn double(&mut self, a: &F) -> F {
        a.double()
    }
    /// `a == b`.
    #[inline(always)]
    fn equal(&mut self, a: &F, b: &F) -> bool {
        a == b
    }
    /// `a == 0`.
    #[inline(always)]
    fn is_zero(&mut self, a: &F) -> bool {
        a.is_zero()
    }
    /// Whether [`FieldOps::add_affine_batch`] has a bulk kernel here.
    #[inline(always)]
    fn has_affine_batch(&self) -> bool {
        false
    }
    /// `(px[i], py[i]) += (qx[i], qy[i])` for every `i`, affine points by the
    /// chord rule with one shared inversion, where every `px[i] != qx[i]`
    /// and no point is the identity. The default is [`chord_batch`] on these
    /// operations.
    fn add_affine_batch(&mut self, px: &mut [F], py: &mut [F], qx: &[F], qy: &[F])
    where
        Self: Sized,
    {
        chord_batch(self, px, py, qx, qy)
    }
}

/// [`FieldOps::add_affine_batch`] one addition at a time on `ops`, with
/// arkworks' batch inversion.
pub fn chord_batch<F: Field, O: FieldOps<F>>(
    ops: &mut O,
    px: &mut [F],
    py: &mut [F],
    qx: &[F],
    qy: &[F],
) {
    let mut inv: Vec<F> = px.iter().zip(qx).map(|(p, q)| ops.sub(q, p)).collect();
    ark_ff::batch_inversion(&mut inv);
    for i in 0..inv.len() {
        let dy = ops.sub(&qy[i], &py[i]);
        let lambda = ops.mul(&dy, &inv[i]);
        let ll = ops.sqr(&lambda);
        let t = ops.sub(&ll, &px[i]);
        let x3 = ops.sub(&t, &qx[i]);
        let dx = ops.sub(&px[i], &x3);
        let t = ops.mul(&lambda, &dx);
        let y3 = ops.sub(&t, &py[i]);
        px[i] = x3;
        py[i] = y3;
    }
}

/// Field arithmetic on zkaccel-ff's kernels: the BMI2/ADX Montgomery
/// multiplication and branch-free modular addition on arkworks' own limbs
/// (identical results, no mispredicted reductions).
///
/// A value exists only on CPUs with BMI2 and ADX ([`AdxOps::new`]); fields
/// the assembly does not cover take zkaccel-ff's portable kernels.
///
/// On CPUs with AVX-512 IFMA it also adds affine points in bulk
/// ([`FieldOps::add_affine_batch`], eight additions per vector with
/// zkaccel-ff's `ifma` lanes): the bucket accumulation of the Pippenger MSM.
#[derive(Clone, Copy, Debug)]
pub struct AdxOps(Kernels);

/// zkaccel-ff's kernel tokens behind [`AdxOps`] and [`AdxFp2Ops`]: the
/// BMI2/ADX one, and the AVX-512 IFMA one where the CPU has it and it is
/// wanted.
#[derive(Clone, Copy, Debug)]
struct Kernels {
    adx: zkaccel_ff::Adx,
    #[cfg(target_arch = "x86_64")]
    lanes: Option<zkaccel_ff::ifma::Ifma>,
}

impl Kernels {
    /// `Some` on CPUs with BMI2 and ADX; the IFMA token only if `lanes`
    /// (x86-64 only: elsewhere `Adx::detect` is `None`).
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn detect(lanes: bool) -> Option<Self> {
        zkaccel_ff::Adx::detect().map(|adx| Kernels {
            adx,
            #[cfg(target_arch = "x86_64")]
            lanes: zkaccel_ff::ifma::Ifma::detect().filter(|_| lanes),
        })
    }

    /// Whether the IFMA token is held.
    fn has_lanes(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            self.lanes.is_some()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

impl AdxOps {
    /// `Some` on CPUs with BMI2 and ADX.
    pub fn new() -> Option<Self> {
        Kernels::detect(true).map(AdxOps)
    }

    /// [`AdxOps::new`] without the AVX-512 IFMA bulk additions (one addition
    /// at a time, as on CPUs without it); for tests and benchmarks.
    pub fn without_lanes() -> Option<Self> {
        Kernels::detect(false).map(AdxOps)
    }
}

impl<F: MontField> FieldOps<F> for AdxOps {
    #[inline(always)]
    fn mul(&mut self, a: &F, b: &F) -> F {
        self.0.adx.mul(a, b)
    }
    #[inline(always)]
    fn sqr(&mut self, a: &F) -> F {
        self.0.adx.mul(a, a)
    }
    #[inline(always)]
    fn add(&mut self, a: &F, b: &F) -> F {
        self.0.adx.add(a, b)
    }
    #[inline(always)]
    fn sub(&mut self, a: &F, b: &F) -> F {
        self.0.adx.sub(a, b)
    }
    #[inline(always)]
    fn double(&mut self, a: &F) -> F {
        self.0.adx.add(a, a)
    }
    #[inline(always)]
    fn equal(&mut self, a: &F, b: &F) -> bool {
        a.eq_fast(b)
    }
    #[inline(always)]
    fn is_zero(&mut self, a: &F) -> bool {
        a.eq_fast(&F::ZERO)
    }
    #[inline(always)]
    fn has_affine_batch(&self) -> bool {
        F::ADX_MUL && self.0.has_lanes()
    }
    fn add_affine_batch(&mut self, px: &mut [F], py: &mut [F], qx: &[F], qy: &[F]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(lanes) = self.0.lanes {
            if lanes.add_affine_batch(px, py, qx, qy) {
                return;
            }
        }
        chord_batch(self, px, py, qx, qy)
    }
}

/// [`AdxOps`] for quadratic extensions `Fp2` of a field the kernels cover
/// (G2 of BN254 and BLS12-381): Karatsuba multiplication (3 base multiplications; 2 for
/// squaring when the non-residue is -1), component-wise additions.
///
/// On CPUs with AVX-512 IFMA it also adds affine points in bulk where the
/// non-residue is -1 (BN254's Fq2: G2's bucket accumulation), eight per
/// vector pair.
#[derive(Clone, Copy, Debug)]
pub struct AdxFp2Ops(Kernels);

impl AdxFp2Ops {
    /// `Some` on CPUs with BMI2 and ADX.
    pub fn new() -> Option<Self> {
        Kernels::detect(true).map(AdxFp2Ops)
    }

    /// [`AdxFp2Ops::new`] without the AVX-512 IFMA bulk additions; for
    /// tests and benchmarks.
    pub fn without_lanes() -> Option<Self> {
        Kernels::detect(false).map(AdxFp2Ops)
    }
}

impl<P: Fp2Config> FieldOps<Fp2<P>> for AdxFp2Ops
where
    P::Fp: MontField,
{
    #[inline(always)]
    fn mul(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        fp2_mul(self.0.adx, a, b)
    }
    #[inline(always)]
    fn sqr(&mut self, a: &Fp2<P>) -> Fp2<P> {
        fp2_sqr(self.0.adx, a)
    }
    #[inline(always)]
    fn add(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        fp2_add(self.0.adx, a, b)
    }
    #[inline(always)]
    fn sub(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        fp2_sub(self.0.adx, a, b)
    }
    #[inline(always)]
    fn double(&mut self, a: &Fp2<P>) -> Fp2<P> {
        fp2_add(self.0.adx, a, a)
    }
    #[inline(always)]
    fn equal(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> bool {
        fp2_eq(a, b)
    }
    #[inline(always)]
    fn is_zero(&mut self, a: &Fp2<P>) -> bool {
        fp2_eq(a, &Fp2::ZERO)
    }
    #[inline(always)]
    fn has_affine_batch(&self) -> bool {
        P::Fp::ADX_MUL && self.0.has_lanes() && P::NONRESIDUE == -P::Fp::ONE
    }
    fn add_affine_batch(
        &mut self,
        px: &mut [Fp2<P>],
        py: &mut [Fp2<P>],
        qx: &[Fp2<P>],
        qy: &[Fp2<P>],
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some(lanes) = self.0.lanes {
            if lanes.add_affine_batch_fp2(px, py, qx, qy) {
                return;
            }
        }
        chord_batch(self, px, py, qx, qy)
    }
}

/// Field arithmetic on zkaccel-ff's portable kernels: branch-free Montgomery
/// multiplication ([`MontField::mul_fast`]) and modular addition and
/// subtraction on arkworks' own limbs, in plain Rust. Identical results to
/// arkworks' operators, without their data-dependent reductions (on random
/// field elements half of them mispredict).
///
/// Every CPU runs it: it is what [`AdxOps`] falls back to on CPUs without
/// BMI2/ADX (aarch64, wasm32, older x86-64) or under
/// `ZKACCEL_KERNEL=portable`, and the MSM arithmetic of the curves the
/// assembly does not cover (secp256k1's and P-256's full-width Fq). The
/// multiplication is zkaccel-ff's on four-limb moduli with a spare top bit
/// (BN254) and arkworks' elsewhere, where that measured faster (the
/// figures are in `docs/msm.md`).
#[derive(Clone, Copy, Debug, Default)]
pub struct PortableOps;

impl<F: MontField> FieldOps<F> for PortableOps {
    #[inline(always)]
    fn mul(&mut self, a: &F, b: &F) -> F {
        Kernel::mul(*self, a, b)
    }
    #[inline(always)]
    fn sqr(&mut self, a: &F) -> F {
        // arkworks' dedicated squaring where the modulus has a spare top bit
        // (fewer limb products: 6% faster in the BN254 MSM than
        // `mul_fast(a, a)`); for full-width moduli its squaring takes a
        // general path and the multiplication above is faster.
        if F::SPARE_BIT {
            a.square()
        } else {
            Kernel::mul(*self, a, a)
        }
    }
    #[inline(always)]
    fn add(&mut self, a: &F, b: &F) -> F {
        Kernel::add(*self, a, b)
    }
    #[inline(always)]
    fn sub(&mut self, a: &F, b: &F) -> F {
        Kernel::sub(*self, a, b)
    }
    #[inline(always)]
    fn double(&mut self, a: &F) -> F {
        Kernel::add(*self, a, a)
    }
    #[inline(always)]
    fn equal(&mut self, a: &F, b: &F) -> bool {
        a.eq_fast(b)
    }
    #[inline(always)]
    fn is_zero(&mut self, a: &F) -> bool {
        a.eq_fast(&F::ZERO)
    }
}

/// [`PortableOps`] for quadratic extensions `Fp2` (G2 of BN254 and
/// BLS12-381): arkworks' `Fp2` multiplication and squaring (one reduction
/// for a sum of products: faster in the G2 MSM than [`AdxFp2Ops`]'
/// Karatsuba on the portable kernels, 97 against 106 ms on BN254 G2 at
/// 2^14), with branch-free component-wise additions and subtractions.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortableFp2Ops;

impl<P: Fp2Config> FieldOps<Fp2<P>> for PortableFp2Ops
where
    P::Fp: MontField,
{
    #[inline(always)]
    fn mul(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        *a * b
    }
    #[inline(always)]
    fn sqr(&mut self, a: &Fp2<P>) -> Fp2<P> {
        a.square()
    }
    #[inline(always)]
    fn add(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        fp2_add(PortableOps, a, b)
    }
    #[inline(always)]
    fn sub(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        fp2_sub(PortableOps, a, b)
    }
    #[inline(always)]
    fn double(&mut self, a: &Fp2<P>) -> Fp2<P> {
        fp2_add(PortableOps, a, a)
    }
    #[inline(always)]
    fn equal(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> bool {
        fp2_eq(a, b)
    }
    #[inline(always)]
    fn is_zero(&mut self, a: &Fp2<P>) -> bool {
        fp2_eq(a, &Fp2::ZERO)
    }
}

/// A base-field kernel family of zkaccel-ff: the ADX assembly token or the
/// portable Rust. The `Fp2` formulas below are written once over it.
trait Kernel: Copy {
    fn mul<F: MontField>(self, a: &F, b: &F) -> F;
    fn add<F: MontField>(self, a: &F, b: &F) -> F;
    fn sub<F: MontField>(self, a: &F, b: &F) -> F;
}

impl Kernel for zkaccel_ff::Adx {
    #[inline(always)]
    fn mul<F: MontField>(self, a: &F, b: &F) -> F {
        zkaccel_ff::Adx::mul(self, a, b)
    }
    #[inline(always)]
    fn add<F: MontField>(self, a: &F, b: &F) -> F {
        zkaccel_ff::Adx::add(self, a, b)
    }
    #[inline(always)]
    fn sub<F: MontField>(self, a: &F, b: &F) -> F {
        zkaccel_ff::Adx::sub(self, a, b)
    }
}

impl Kernel for PortableOps {
    #[inline(always)]
    fn mul<F: MontField>(self, a: &F, b: &F) -> F {
        // Chosen by measurement (the MSM with each choice, same run):
        // - four limbs with a spare top bit (BN254): zkaccel-ff's branch-free
        //   multiplication, 9-10% faster than arkworks';
        // - four full-width limbs (secp256k1, P-256): `mul_fast` calls
        //   arkworks' general multiplication, and calling it that way is 16%
        //   faster in the secp256k1 MSM than writing `*a * b` here (the
        //   inlining differs);
        // - six limbs (BLS12-381): arkworks' multiplication, 7% faster there
        //   than `mul_fast` (probably because its final subtraction, rarely
        //   needed for a 381-bit modulus, predicts well, where `mul_fast`
        //   always pays for the masked one).
        if F::LIMBS <= 4 {
            a.mul_fast(b)
        } else {
            *a * b
        }
    }
    #[inline(always)]
    fn add<F: MontField>(self, a: &F, b: &F) -> F {
        a.add_fast(b)
    }
    #[inline(always)]
    fn sub<F: MontField>(self, a: &F, b: &F) -> F {
        a.sub_fast(b)
    }
}

/// `a * b` in `Fp2` by Karatsuba: 3 base multiplications.
#[inline(always)]
fn fp2_mul<K: Kernel, P: Fp2Config>(k: K, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P>
where
    P::Fp: MontField,
{
    let v0 = k.mul(&a.c0, &b.c0);
    let v1 = k.mul(&a.c1, &b.c1);
    let sa = k.add(&a.c0, &a.c1);
    let sb = k.add(&b.c0, &b.c1);
    let t = k.mul(&sa, &sb);
    let c1 = k.sub(&k.sub(&t, &v0), &v1);
    let mut bv1 = v1;
    P::mul_fp_by_nonresidue_in_place(&mut bv1);
    Fp2::new(k.add(&v0, &bv1), c1)
}

/// `a^2` in `Fp2`: 2 base multiplications when the non-residue is -1.
#[inline(always)]
fn fp2_sqr<K: Kernel, P: Fp2Config>(k: K, a: &Fp2<P>) -> Fp2<P>
where
    P::Fp: MontField,
{
    if P::NONRESIDUE == -P::Fp::ONE {
        // (a0 + a1 u)^2 with u^2 = -1: (a0 + a1)(a0 - a1) + 2 a0 a1 u.
        let s = k.add(&a.c0, &a.c1);
        let d = k.sub(&a.c0, &a.c1);
        let m = k.mul(&a.c0, &a.c1);
        Fp2::new(k.mul(&s, &d), k.add(&m, &m))
    } else {
        fp2_mul(k, a, a)
    }
}

/// `a == b` in `Fp2`, component-wise on the limbs (no `memcmp` call).
#[inline(always)]
fn fp2_eq<P: Fp2Config>(a: &Fp2<P>, b: &Fp2<P>) -> bool
where
    P::Fp: MontField,
{
    a.c0.eq_fast(&b.c0) & a.c1.eq_fast(&b.c1)
}

#[inline(always)]
fn fp2_add<K: Kernel, P: Fp2Config>(k: K, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P>
where
    P::Fp: MontField,
{
    Fp2::new(k.add(&a.c0, &b.c0), k.add(&a.c1, &b.c1))
}

#[inline(always)]
fn fp2_sub<K: Kernel, P: Fp2Config>(k: K, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P>
where
    P::Fp: MontField,
{
    Fp2::new(k.sub(&a.c0, &b.c0), k.sub(&a.c1, &b.c1))
}

/// Plain field arithmetic; a zero-sized type the optimiser removes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Plain;

/// Field arithmetic a curve's bulk routines (MSM) select at run time: this
/// one where the CPU runs it ([`DetectOps::detect`]), else its
/// [`DetectOps::Fallback`], which every CPU runs.
pub trait DetectOps: Copy + Send + Sync {
    /// What runs where [`DetectOps::detect`] finds nothing.
    type Fallback: Copy + Send + Sync;
    /// This arithmetic, if the CPU runs it.
    fn detect() -> Option<Self>;
    /// The arithmetic every CPU runs.
    fn fallback() -> Self::Fallback;
}

impl DetectOps for Plain {
    type Fallback = Plain;
    fn detect() -> Option<Self> {
        Some(Plain)
    }
    fn fallback() -> Plain {
        Plain
    }
}

impl DetectOps for PortableOps {
    type Fallback = PortableOps;
    fn detect() -> Option<Self> {
        Some(PortableOps)
    }
    fn fallback() -> PortableOps {
        PortableOps
    }
}

impl DetectOps for PortableFp2Ops {
    type Fallback = PortableFp2Ops;
    fn detect() -> Option<Self> {
        Some(PortableFp2Ops)
    }
    fn fallback() -> PortableFp2Ops {
        PortableFp2Ops
    }
}

/// Without BMI2/ADX (or under `ZKACCEL_KERNEL=portable`): the same
/// branch-free arithmetic in portable Rust.
impl DetectOps for AdxOps {
    type Fallback = PortableOps;
    fn detect() -> Option<Self> {
        Self::new()
    }
    fn fallback() -> PortableOps {
        PortableOps
    }
}

/// Without BMI2/ADX: [`PortableFp2Ops`].
impl DetectOps for AdxFp2Ops {
    type Fallback = PortableFp2Ops;
    fn detect() -> Option<Self> {
        Self::new()
    }
    fn fallback() -> PortableFp2Ops {
        PortableFp2Ops
    }
}

impl<F: Field> FieldOps<F> for Plain {
    #[inline(always)]
    fn mul(&mut self, a: &F, b: &F) -> F {
        *a * b
    }
    #[inline(always)]
    fn sqr(&mut self, a: &F) -> F {
        a.square()
    }
}

/// Field arithmetic that counts multiplications and squarings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counting {
    /// Multiplications so far.
    pub mul: u64,
    /// Squarings so far.
    pub sqr: u64,
}

impl<F: Field> FieldOps<F> for Counting {
    #[inline]
    fn mul(&mut self, a: &F, b: &F) -> F {
        self.mul += 1;
        *a * b
    }
    #[inline]
    fn sqr(&mut self, a: &F) -> F {
        self.sqr += 1;
        a.square()
    }
}

/// Which family of formulas to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormulaSet {
    /// Formulas for `a = 0`.
    AZero,
    /// Formulas for `a = -3`.
    AMinus3,
    /// Formulas valid for any `a` (what OpenSSL uses for a generic curve).
    Generic,
}

impl FormulaSet {
    /// The fastest set that is valid for the curve `P`.
    pub fn for_curve<P: SWCurveConfig>() -> FormulaSet {
        if P::COEFF_A.is_zero() {
            FormulaSet::AZero
        } else if P::COEFF_A == -P::BaseField::from(3u64) {
            FormulaSet::AMinus3
        } else {
            FormulaSet::Generic
        }
    }

    /// Whether this set computes correct results on the curve `P`.
    pub fn is_valid_for<P: SWCurveConfig>(self) -> bool {
        match self {
            FormulaSet::Generic => true,
            s => s == FormulaSet::for_curve::<P>(),
        }
    }

    /// `(M, S)` of one doubling.
    pub const fn double_cost(self) -> (u64, u64) {
        match self {
            FormulaSet::AZero => (2, 5),
            FormulaSet::AMinus3 => (3, 5),
            FormulaSet::Generic => (2, 8),
        }
    }

    /// `(M, S)` of one tripling.
    pub const fn triple_cost(self) -> (u64, u64) {
        match self {
            FormulaSet::AZero => (5, 9),
            FormulaSet::AMinus3 => (6, 9),
            FormulaSet::Generic => (6, 10),
        }
    }

    /// `(M, S)` of one mixed addition.
    pub const fn madd_cost(self) -> (u64, u64) {
        (7, 4)
    }

    /// `(M, S)` of one full addition.
    pub const fn add_cost(self) -> (u64, u64) {
        (11, 5)
    }

    /// The chain cost model of these formulas with `S = s_over_m * M`
    /// (D, T and A = mixed addition), for the double-base chain searches.
    pub fn cost_model(self, s_over_m: f64) -> zkaccel_dbc::CostModel {
        let c = |(m, s): (u64, u64)| m as f64 + s as f64 * s_over_m;
        zkaccel_dbc::CostModel {
            double: c(self.double_cost()),
            triple: c(self.triple_cost()),
            add: c(self.madd_cost()),
        }
    }
}

/// `2 x`, by addition.
#[inline(always)]
fn dbl_f<F: Field>(x: &F) -> F {
    x.double()
}

/// `p <- 2p`.
#[inline]
pub fn double<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if p.z.is_zero() {
        return;
    }
    match set {
        FormulaSet::AZero => {
            // dbl-2009-l
            let a = ops.sqr(&p.x);
            let b = ops.sqr(&p.y);
            let c = ops.sqr(&b);
            let xb = p.x + b;
            let d = dbl_f(&(ops.sqr(&xb) - a - c));
            let e = a.double() + a;
            let f = ops.sqr(&e);
            let z3 = dbl_f(&ops.mul(&p.y, &p.z));
            let x3 = f - d.double();
            let c8 = c.double().double().double();
            let y3 = ops.mul(&e, &(d - x3)) - c8;
            (p.x, p.y, p.z) = (x3, y3, z3);
        }
        FormulaSet::AMinus3 => {
            // dbl-2001-b
            let delta = ops.sqr(&p.z);
            let gamma = ops.sqr(&p.y);
            let beta = ops.mul(&p.x, &gamma);
            let t = ops.mul(&(p.x - delta), &(p.x + delta));
            let alpha = t.double() + t;
            let beta4 = beta.double().double();
            let x3 = ops.sqr(&alpha) - beta4.double();
            let yz = p.y + p.z;
            let z3 = ops.sqr(&yz) - gamma - delta;
            let g2 = ops.sqr(&gamma);
            let y3 = ops.mul(&alpha, &(beta4 - x3)) - g2.double().double().double();
            (p.x, p.y, p.z) = (x3, y3, z3);
        }
        FormulaSet::Generic => {
            // dbl-2007-bl
            let xx = ops.sqr(&p.x);
            let yy = ops.sqr(&p.y);
            let yyyy = ops.sqr(&yy);
            let zz = ops.sqr(&p.z);
            let xyy = p.x + yy;
            let s = dbl_f(&(ops.sqr(&xyy) - xx - yyyy));
            let zz2 = ops.sqr(&zz);
            let m = xx.double() + xx + ops.mul(&P::COEFF_A, &zz2);
            let t = ops.sqr(&m) - s.double();
            let y3 = ops.mul(&m, &(s - t)) - yyyy.double().double().double();
            let yz = p.y + p.z;
            let z3 = ops.sqr(&yz) - yy - zz;
            (p.x, p.y, p.z) = (t, y3, z3);
        }
    }
}

/// `p <- 3p` (tpl-2007-bl; the `a` term as in the table above).
#[inline]
pub fn triple<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if p.z.is_zero() {
        return;
    }
    let xx = ops.sqr(&p.x);
    let yy = ops.sqr(&p.y);
    let zz = ops.sqr(&p.z);
    let yyyy = ops.sqr(&yy);
    let m = match set {
        FormulaSet::AZero => xx.double() + xx,
        FormulaSet::AMinus3 => {
            let t = ops.mul(&(p.x - zz), &(p.x + zz));
            t.double() + t
        }
        FormulaSet::Generic => {
            let zz2 = ops.sqr(&zz);
            xx.double() + xx + ops.mul(&P::COEFF_A, &zz2)
        }
    };
    let mm = ops.sqr(&m);
    let xyy = p.x + yy;
    let t6 = ops.sqr(&xyy) - xx - yyyy;
    let e = t6.double().double() + t6.double() - mm;
    let ee = ops.sqr(&e);
    let t = yyyy.double().double().double().double();
    let me = m + e;
    let u = ops.sqr(&me) - mm - ee - t;
    let x_ee = ops.mul(&p.x, &ee);
    let yy_u = ops.mul(&yy, &u);
    let x3 = (x_ee - yy_u.double().double()).double().double();
    let inner = ops.mul(&u, &(t - u)) - ops.mul(&e, &ee);
    let y3 = ops.mul(&p.y, &inner).double().double().double();
    let ze = p.z + e;
    let z3 = ops.sqr(&ze) - zz - ee;
    (p.x, p.y, p.z) = (x3, y3, z3);
}

/// What [`madd_finite`] did.
pub(crate) enum Madd<F> {
    /// `p` now holds the sum; its new `Z` is the old one times this factor (`2H`).
    Added(F),
    /// `p = q`: nothing changed, the caller doubles.
    Same,
    /// `p = -q`: nothing changed, the sum is infinity.
    Opposite,
}

/// madd-2007-bl for finite `p` and the affine point `(qx, qy)` (7M + 4S when
/// the x-coordinates differ). Shared by [`add_affine`] and the inversion-free
/// tables, which need the `Z` ratio.
#[inline]
pub(crate) fn madd_finite<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    qx: &P::BaseField,
    qy: &P::BaseField,
    ops: &mut O,
) -> Madd<P::BaseField> {
    let z1z1 = ops.sqr(&p.z);
    let u2 = ops.mul(qx, &z1z1);
    let yz = ops.mul(qy, &p.z);
    let s2 = ops.mul(&yz, &z1z1);
    let h = u2 - p.x;
    let r = dbl_f(&(s2 - p.y));
    if h.is_zero() {
        return if r.is_zero() {
            Madd::Same
        } else {
            Madd::Opposite
        };
    }
    let hh = ops.sqr(&h);
    let i = hh.double().double();
    let j = ops.mul(&h, &i);
    let v = ops.mul(&p.x, &i);
    let x3 = ops.sqr(&r) - j - v.double();
    let y3 = ops.mul(&r, &(v - x3)) - ops.mul(&p.y, &j).double();
    let zh = p.z + h;
    let z3 = ops.sqr(&zh) - z1z1 - hh;
    (p.x, p.y, p.z) = (x3, y3, z3);
    Madd::Added(h.double())
}

/// `p <- p + q` with `q` affine (madd-2007-bl).
#[inline]
pub fn add_affine<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    q: &Affine<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if q.is_zero() {
        return;
    }
    if p.z.is_zero() {
        *p = Projective::new_unchecked(q.x, q.y, P::BaseField::ONE);
        return;
    }
    match madd_finite(p, &q.x, &q.y, ops) {
        Madd::Added(_) => {}
        Madd::Same => double(p, set, ops),
        Madd::Opposite => *p = Projective::zero(),
    }
}

/// `p <- p + q` (add-2007-bl).
#[inline]
pub fn add<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    p: &mut Projective<P>,
    q: &Projective<P>,
    set: FormulaSet,
    ops: &mut O,
) {
    if q.z.is_zero() {
        return;
    }
    if p.z.is_zero() {
        *p = *q;
        return;
    }
    let z1z1 = ops.sqr(&p.z);
    let z2z2 = ops.sqr(&q.z);
    let u1 = ops.mul(&p.x, &z2z2);
    let u2 = ops.mul(&q.x, &z1z1);
    let yz1 = ops.mul(&p.y, &q.z);
    let s1 = ops.mul(&yz1, &z2z2);
    let yz2 = ops.mul(&q.y, &p.z);
    let s2 = ops.mul(&yz2, &z1z1);
    let h = u2 - u1;
    let r = dbl_f(&(s2 - s1));
    if h.is_zero() {
        if r.is_zero() {
            double(p, set, ops);
        } else {
            *p = Projective::zero();
        }
        return;
    }
    let h2 = h.double();
    let i = ops.sqr(&h2);
    let j = ops.mul(&h, &i);
    let v = ops.mul(&u1, &i);
    let x3 = ops.sqr(&r) - j - v.double();
    let y3 = ops.mul(&r, &(v - x3)) - ops.mul(&s1, &j).double();
    let zz = p.z + q.z;
    let zz2 = ops.sqr(&zz) - z1z1 - z2z2;
    let z3 = ops.mul(&zz2, &h);
    (p.x, p.y, p.z) = (x3, y3, z3);
}
