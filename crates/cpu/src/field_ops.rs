//! Field arithmetic for the curve formulas and the MSM: the [`FieldOps`]
//! trait and its implementations, apart from the point formulas that use
//! them ([`crate::formulas`]).
//!
//! | type | arithmetic | where |
//! |---|---|---|
//! | [`AdxOps`], [`AdxFp2Ops`] | zkaccel-ff's assembly for the target (`zkaccel_ff::Asm`): the BMI2/ADX kernels (four- and six-limb moduli with a spare bit, full-width four-limb ones) and the AVX-512 IFMA lanes for the bucket additions of BN254 and BLS12-381 (G1 and G2) on x86-64, the aarch64 kernels (four- and six-limb moduli with a spare bit) on aarch64 | BN254, BLS12-381 and secp256k1 on x86-64 with BMI2/ADX; BN254 and BLS12-381 on aarch64 |
//! | [`PortableOps`], [`PortableFp2Ops`] | zkaccel-ff's branch-free kernels in plain Rust | every CPU: the fallback of the above, and P-256 |
//! | [`Plain`] | arkworks' operators | any field; a user's own curve |
//! | [`Counting`] | arkworks' operators, counted | tests of the formulas' costs |
//!
//! [`DetectOps`] picks, at run time, the first of a curve's arithmetic the
//! CPU runs, or its fallback.

use ark_ff::{AdditiveGroup, Field, Fp2, Fp2Config};
use zkaccel_ff::MontField;

/// `a^-1` in a quadratic extension: its conjugate over its norm, the norm
/// inverted in the base field by zkaccel-ff's safegcd.
fn fp2_inverse<P: Fp2Config>(a: &Fp2<P>) -> Option<Fp2<P>> {
    let n = zkaccel_ff::inverse(&a.norm())?;
    let mut c = *a;
    c.conjugate_in_place();
    c.mul_assign_by_basefield(&n);
    Some(c)
}

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
    /// `a^-1`, `None` for zero: arkworks' inversion by default; the
    /// prime-field kernels ([`AdxOps`], [`PortableOps`] and their `Fp2`
    /// forms) use zkaccel-ff's safegcd inversion, 3.5-5x faster
    /// ([`zkaccel_ff::inverse`]).
    #[inline(always)]
    fn inverse(&mut self, a: &F) -> Option<F> {
        a.inverse()
    }
    /// Whether [`FieldOps::add_affine_batch`] has a bulk kernel here.
    #[inline(always)]
    fn has_affine_batch(&self) -> bool {
        false
    }
    /// `(px[i], py[i]) += (qx[i], qy[i])` for every `i`, affine points by the
    /// chord rule with one shared inversion, where every `px[i] != qx[i]`
    /// and no point is the identity. The default is `chord_batch` on these
    /// operations.
    fn add_affine_batch(&mut self, px: &mut [F], py: &mut [F], qx: &[F], qy: &[F])
    where
        Self: Sized,
    {
        chord_batch(self, px, py, qx, qy)
    }
}

/// Every element of `v` inverted (zeros left as they are) by Montgomery's
/// trick on `ops`: three products an element and one [`FieldOps::inverse`].
pub fn batch_inverse<F: Field, O: FieldOps<F>>(ops: &mut O, v: &mut [F]) {
    let mut prefix = Vec::with_capacity(v.len());
    let mut acc = F::one();
    for x in v.iter() {
        prefix.push(acc);
        if !ops.is_zero(x) {
            acc = ops.mul(&acc, x);
        }
    }
    // A product of non-zero elements (or one): never zero.
    let Some(mut inv) = ops.inverse(&acc) else {
        return;
    };
    for (x, pre) in v.iter_mut().zip(prefix).rev() {
        if !ops.is_zero(x) {
            let this = ops.mul(&inv, &pre);
            inv = ops.mul(&inv, x);
            *x = this;
        }
    }
}

/// [`FieldOps::add_affine_batch`] one addition at a time on `ops`, with
/// one batched inversion.
pub fn chord_batch<F: Field, O: FieldOps<F>>(
    ops: &mut O,
    px: &mut [F],
    py: &mut [F],
    qx: &[F],
    qy: &[F],
) {
    let mut inv: Vec<F> = px.iter().zip(qx).map(|(p, q)| ops.sub(q, p)).collect();
    batch_inverse(ops, &mut inv);
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
/// A value exists only where the target's assembly runs ([`AdxOps::new`]:
/// x86-64 CPUs with BMI2 and ADX, every aarch64 CPU, unless
/// `ZKACCEL_KERNEL` caps it); fields the assembly does not cover take
/// zkaccel-ff's portable kernels.
///
/// On CPUs with AVX-512 IFMA it also adds affine points in bulk
/// ([`FieldOps::add_affine_batch`], eight additions per vector with
/// zkaccel-ff's `ifma` lanes: five 52-bit limbs for four-limb fields, eight
/// for six-limb ones): the bucket accumulation of the Pippenger MSM.
#[derive(Clone, Copy, Debug)]
pub struct AdxOps(Kernels);

/// zkaccel-ff's kernel tokens behind [`AdxOps`] and [`AdxFp2Ops`]: the
/// target's assembly one (BMI2/ADX on x86-64, aarch64's), and the AVX-512
/// IFMA one where the CPU has it and it is wanted.
#[derive(Clone, Copy, Debug)]
struct Kernels {
    adx: zkaccel_ff::Asm,
    #[cfg(target_arch = "x86_64")]
    lanes: Option<zkaccel_ff::ifma::Ifma>,
}

impl Kernels {
    /// `Some` where the target's assembly runs (x86-64 with BMI2 and ADX,
    /// aarch64); the IFMA token only if `lanes` (x86-64 only).
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn detect(lanes: bool) -> Option<Self> {
        zkaccel_ff::Asm::detect().map(|adx| Kernels {
            adx,
            #[cfg(target_arch = "x86_64")]
            lanes: zkaccel_ff::ifma::Ifma::detect().filter(|_| lanes),
        })
    }

    /// Whether the IFMA token is held and the lanes take `F`
    /// (zkaccel-ff's `ifma::lanes_fit`).
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(clippy::extra_unused_type_parameters)
    )]
    fn has_lanes_for<F: MontField>(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            self.lanes.is_some() && zkaccel_ff::ifma::lanes_fit::<F>().is_some()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

impl AdxOps {
    /// `Some` where the target's assembly runs: x86-64 CPUs with BMI2 and
    /// ADX, aarch64 (unless `ZKACCEL_KERNEL` caps it).
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
    fn inverse(&mut self, a: &F) -> Option<F> {
        zkaccel_ff::inverse(a)
    }
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
        self.0.has_lanes_for::<F>()
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
/// non-residue is -1 (BN254's and BLS12-381's Fq2: G2's bucket
/// accumulation), eight per vector pair.
#[derive(Clone, Copy, Debug)]
pub struct AdxFp2Ops(Kernels);

impl AdxFp2Ops {
    /// `Some` where the target's assembly runs (as [`AdxOps::new`]).
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
    fn inverse(&mut self, a: &Fp2<P>) -> Option<Fp2<P>> {
        fp2_inverse(a)
    }
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
        self.0.has_lanes_for::<P::Fp>() && P::NONRESIDUE == -P::Fp::ONE
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
/// BMI2/ADX (wasm32, older x86-64) or under `ZKACCEL_KERNEL=portable`
/// (aarch64 included), and P-256's MSM arithmetic (the full-width
/// assembly is no faster there). The multiplication is zkaccel-ff's on
/// four-limb moduli with a spare top bit (BN254) and arkworks' elsewhere,
/// whichever is faster per field (`docs/msm.md`); on WebAssembly
/// zkaccel-ff's on every modulus with a spare top bit (its 29-bit limbs).
#[derive(Clone, Copy, Debug, Default)]
pub struct PortableOps;

impl<F: MontField> FieldOps<F> for PortableOps {
    #[inline(always)]
    fn inverse(&mut self, a: &F) -> Option<F> {
        zkaccel_ff::inverse(a)
    }
    #[inline(always)]
    fn mul(&mut self, a: &F, b: &F) -> F {
        Kernel::mul(*self, a, b)
    }
    #[inline(always)]
    fn sqr(&mut self, a: &F) -> F {
        // arkworks' dedicated squaring where the modulus has a spare top bit
        // (fewer limb products: 6% faster in the BN254 MSM than
        // `mul_fast(a, a)`); for full-width moduli its squaring takes a
        // general path and the multiplication above is faster. Not on
        // WebAssembly, where arkworks' limb products are library calls and
        // the kernel's 29-bit-limb product is faster as a square too
        // (`docs/browser.md`).
        if F::SPARE_BIT && !cfg!(target_arch = "wasm32") {
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
    /// On WebAssembly built with SIMD128 (the npm package), the bucket
    /// additions of BN254 G1 sixteen at a time in its lanes
    /// (`zkaccel_ff::simd128`, compiled for that target only).
    #[inline(always)]
    fn has_affine_batch(&self) -> bool {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return zkaccel_ff::simd128::fits::<F>();
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        false
    }
    fn add_affine_batch(&mut self, px: &mut [F], py: &mut [F], qx: &[F], qy: &[F]) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        if zkaccel_ff::simd128::add_affine_batch(px, py, qx, qy) {
            return;
        }
        chord_batch(self, px, py, qx, qy)
    }
}

/// [`PortableOps`] for quadratic extensions `Fp2` (G2 of BN254 and
/// BLS12-381): arkworks' `Fp2` multiplication and squaring (one reduction
/// for a sum of products, where [`AdxFp2Ops`]' Karatsuba on the portable
/// kernels reduces three products: faster in the G2 MSM, `docs/msm.md`;
/// on WebAssembly that Karatsuba instead, the faster there), with
/// branch-free component-wise additions and subtractions.
#[derive(Clone, Copy, Debug, Default)]
pub struct PortableFp2Ops;

impl<P: Fp2Config> FieldOps<Fp2<P>> for PortableFp2Ops
where
    P::Fp: MontField,
{
    #[inline(always)]
    fn inverse(&mut self, a: &Fp2<P>) -> Option<Fp2<P>> {
        fp2_inverse(a)
    }
    #[inline(always)]
    fn mul(&mut self, a: &Fp2<P>, b: &Fp2<P>) -> Fp2<P> {
        if cfg!(target_arch = "wasm32") {
            // Three of the kernel's products beat arkworks' sum of
            // products, whose limb products are library calls there.
            fp2_mul(PortableOps, a, b)
        } else {
            *a * b
        }
    }
    #[inline(always)]
    fn sqr(&mut self, a: &Fp2<P>) -> Fp2<P> {
        if cfg!(target_arch = "wasm32") {
            fp2_sqr(PortableOps, a)
        } else {
            a.square()
        }
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
    /// On WebAssembly built with SIMD128 (the npm package), the bucket
    /// additions of BN254 G2 sixteen at a time in its lanes
    /// (`zkaccel_ff::simd128::add_affine_batch_fp2`).
    #[inline(always)]
    fn has_affine_batch(&self) -> bool {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return zkaccel_ff::simd128::fits_fp2::<P>();
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        false
    }
    fn add_affine_batch(
        &mut self,
        px: &mut [Fp2<P>],
        py: &mut [Fp2<P>],
        qx: &[Fp2<P>],
        qy: &[Fp2<P>],
    ) {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        if zkaccel_ff::simd128::add_affine_batch_fp2(px, py, qx, qy) {
            return;
        }
        chord_batch(self, px, py, qx, qy)
    }
}

/// A base-field kernel family of zkaccel-ff: the target's assembly token
/// or the portable Rust. The `Fp2` formulas below are written once over it.
trait Kernel: Copy {
    fn mul<F: MontField>(self, a: &F, b: &F) -> F;
    fn add<F: MontField>(self, a: &F, b: &F) -> F;
    fn sub<F: MontField>(self, a: &F, b: &F) -> F;
}

impl Kernel for zkaccel_ff::Asm {
    #[inline(always)]
    fn mul<F: MontField>(self, a: &F, b: &F) -> F {
        zkaccel_ff::Asm::mul(self, a, b)
    }
    #[inline(always)]
    fn add<F: MontField>(self, a: &F, b: &F) -> F {
        zkaccel_ff::Asm::add(self, a, b)
    }
    #[inline(always)]
    fn sub<F: MontField>(self, a: &F, b: &F) -> F {
        zkaccel_ff::Asm::sub(self, a, b)
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
        //   always pays for the masked one);
        // - on WebAssembly every field: `mul_fast`'s 29-bit limbs where the
        //   modulus has a spare bit, against arkworks' library calls for
        //   its limb products (`mul_fast` calls arkworks' for the others).
        if F::LIMBS <= 4 || cfg!(target_arch = "wasm32") {
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

#[cfg(test)]
mod tests {
    use super::{fp2_mul, fp2_sqr, PortableOps};
    use ark_ff::{Field, Fp2, Fp2Config, One, UniformRand, Zero};
    use rand::SeedableRng;
    use zkaccel_ff::MontField;

    /// The `Fp2` Karatsuba on the portable kernel (what `PortableFp2Ops`
    /// runs on WebAssembly) against arkworks' `Fp2` on 0, 1, -1, `u`, `p-1`
    /// in each coordinate and random values.
    fn karatsuba_agrees<P: Fp2Config>()
    where
        P::Fp: MontField,
    {
        let one = P::Fp::one();
        let mut xs: Vec<Fp2<P>> = vec![
            Fp2::zero(),
            Fp2::one(),
            -Fp2::<P>::one(),
            Fp2::new(P::Fp::zero(), one),
            Fp2::new(-one, -one),
            Fp2::new(-one, P::Fp::zero()),
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        xs.extend((0..200).map(|_| Fp2::<P>::rand(&mut rng)));
        for a in &xs {
            assert_eq!(fp2_sqr(PortableOps, a), a.square(), "{a}^2");
            for b in xs.iter().step_by(7) {
                assert_eq!(fp2_mul(PortableOps, a, b), *a * b, "{a} * {b}");
            }
        }
    }

    #[test]
    fn portable_karatsuba_equals_arkworks_fp2() {
        karatsuba_agrees::<ark_bn254::Fq2Config>();
        karatsuba_agrees::<ark_bls12_381::Fq2Config>();
    }
}
