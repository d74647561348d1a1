//! Affine point additions by the chord rule, eight per AVX-512 IFMA vector,
//! all inverses of a batch from one inversion (Montgomery's trick): the
//! MSM's bucket additions on BN254 and BLS12-381 G1 and G2. Point formulas
//! in the field crate because they run on its lanes ([`crate::ifma`]) and
//! are `unsafe` code behind the [`Ifma`] token, which only this crate holds;
//! zkaccel-cpu calls them through `Ifma::add_affine_batch` (and `_fp2`).

use crate::ifma::{
    add, lanes_fit, mul_inline, pack, rprime_shift, splat, split52, sub, unpack, Consts, Lanes,
};
use crate::kernel::Ifma;
use crate::MontField;

/// The chord additions as safe calls on the token (the token itself and
/// its detection belong to the selection layer, the crate's `kernel`
/// module).
impl Ifma {
    /// [`add_affine_batch`] as a safe call: `false`, touching nothing, for
    /// fields no lane width fits ([`lanes_fit`]) or slices of unequal
    /// lengths.
    /// The points' contract (`px[i] != qx[i]`, no identity) is the
    /// caller's: breaking it gives wrong points, never undefined behaviour.
    pub fn add_affine_batch<F: MontField>(
        self,
        px: &mut [F],
        py: &mut [F],
        qx: &[F],
        qy: &[F],
    ) -> bool {
        let n = px.len();
        if py.len() != n || qx.len() != n || qy.len() != n {
            return false;
        }
        match lanes_fit::<F>() {
            // SAFETY: `self` proves the CPU features; the field fits five
            // (eight) limbs; equal lengths.
            Some(5) => unsafe { add_affine_batch(px, py, qx, qy, &Consts::<5>::of::<F>()) },
            // SAFETY: as above.
            Some(8) => unsafe { add_affine_batch(px, py, qx, qy, &Consts::<8>::of::<F>()) },
            _ => return false,
        }
        true
    }

    /// [`add_affine_batch_fp2`] as a safe call: `false`, touching nothing,
    /// unless `P::Fp` fits the lanes ([`lanes_fit`]: BN254's and
    /// BLS12-381's Fq), the non-residue is -1 and the slices have equal
    /// lengths.
    pub fn add_affine_batch_fp2<P: ark_ff::Fp2Config>(
        self,
        px: &mut [ark_ff::Fp2<P>],
        py: &mut [ark_ff::Fp2<P>],
        qx: &[ark_ff::Fp2<P>],
        qy: &[ark_ff::Fp2<P>],
    ) -> bool
    where
        P::Fp: MontField,
    {
        use ark_ff::One;
        let n = px.len();
        if P::NONRESIDUE != -P::Fp::one() || py.len() != n || qx.len() != n || qy.len() != n {
            return false;
        }
        match lanes_fit::<P::Fp>() {
            // SAFETY: `self` proves the CPU features; the checks above.
            Some(5) => unsafe { add_affine_batch_fp2::<P, 5>(px, py, qx, qy) },
            // SAFETY: as above.
            Some(8) => unsafe { add_affine_batch_fp2::<P, 8>(px, py, qx, qy) },
            _ => return false,
        }
        true
    }
}

/// The operations [`chords`] needs, on eight elements of a field `F` at a
/// time: the base field ([`Base`], one [`Lanes`]) or its quadratic extension
/// with non-residue -1 ([`Quadratic`], two). Products of two arkworks-form
/// values carry a factor `R / R'` (see the [module docs](crate::ifma)), the same
/// for every component, which [`chords`] accounts for.
trait Arith8<const L: usize> {
    type F: ark_ff::Field;
    type V: Copy;
    unsafe fn pack(&self, xs: [&Self::F; 8]) -> Self::V;
    unsafe fn unpack(&self, v: &Self::V) -> [Self::F; 8];
    unsafe fn sub(&self, a: &Self::V, b: &Self::V) -> Self::V;
    unsafe fn mul(&self, a: &Self::V, b: &Self::V) -> Self::V;
    /// Every component times the integer constant `k` (52-bit limbs).
    unsafe fn mul_int(&self, a: &Self::V, k: &Lanes<L>) -> Self::V;
    /// Every non-zero element inverted (zeros left as they are), by
    /// zkaccel-ff's safegcd inversion.
    fn invert_all(&self, v: &mut [Self::F; 8]);
}

/// [`Arith8`] for a prime field that fits `L` limbs.
struct Base<F, const L: usize> {
    c: Consts<L>,
    _f: core::marker::PhantomData<F>,
}

impl<F: MontField, const L: usize> Arith8<L> for Base<F, L> {
    type F = F;
    type V = Lanes<L>;
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn pack(&self, xs: [&F; 8]) -> Lanes<L> {
        // SAFETY: same features.
        unsafe { pack(xs) }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn unpack(&self, v: &Lanes<L>) -> [F; 8] {
        // SAFETY: same features.
        unsafe { unpack(v, &self.c) }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn sub(&self, a: &Lanes<L>, b: &Lanes<L>) -> Lanes<L> {
        // SAFETY: same features.
        unsafe { sub(a, b, &self.c) }
    }
    #[inline(always)]
    unsafe fn mul(&self, a: &Lanes<L>, b: &Lanes<L>) -> Lanes<L> {
        // SAFETY: only called from `chords`, which has the features.
        unsafe { mul_inline(a, b, &self.c) }
    }
    #[inline(always)]
    unsafe fn mul_int(&self, a: &Lanes<L>, k: &Lanes<L>) -> Lanes<L> {
        // SAFETY: as above.
        unsafe { mul_inline(a, k, &self.c) }
    }
    fn invert_all(&self, v: &mut [F; 8]) {
        crate::inverse::batch_inverse(v);
    }
}

/// [`Arith8`] for `Fp2<P>` with non-residue -1 (BN254's and BLS12-381's
/// Fq2): Karatsuba products (three base multiplications).
struct Quadratic<P, const L: usize> {
    c: Consts<L>,
    _p: core::marker::PhantomData<P>,
}

impl<P: ark_ff::Fp2Config, const L: usize> Arith8<L> for Quadratic<P, L>
where
    P::Fp: MontField,
{
    type F = ark_ff::Fp2<P>;
    type V = (Lanes<L>, Lanes<L>);
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn pack(&self, xs: [&Self::F; 8]) -> Self::V {
        // SAFETY: same features.
        unsafe {
            (
                pack(core::array::from_fn(|l| &xs[l].c0)),
                pack(core::array::from_fn(|l| &xs[l].c1)),
            )
        }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn unpack(&self, v: &Self::V) -> [Self::F; 8] {
        // SAFETY: same features.
        let (c0, c1): ([P::Fp; 8], [P::Fp; 8]) =
            unsafe { (unpack(&v.0, &self.c), unpack(&v.1, &self.c)) };
        core::array::from_fn(|l| ark_ff::Fp2::new(c0[l], c1[l]))
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn sub(&self, a: &Self::V, b: &Self::V) -> Self::V {
        // SAFETY: same features.
        unsafe { (sub(&a.0, &b.0, &self.c), sub(&a.1, &b.1, &self.c)) }
    }
    #[inline(always)]
    unsafe fn mul(&self, a: &Self::V, b: &Self::V) -> Self::V {
        let c = &self.c;
        // SAFETY: only called from `chords`, which has the features.
        unsafe {
            let v0 = mul_inline(&a.0, &b.0, c);
            let v1 = mul_inline(&a.1, &b.1, c);
            let s = mul_inline(&add(&a.0, &a.1, c), &add(&b.0, &b.1, c), c);
            // (a0 + a1 u)(b0 + b1 u) with u^2 = -1.
            (sub(&v0, &v1, c), sub(&sub(&s, &v0, c), &v1, c))
        }
    }
    #[inline(always)]
    unsafe fn mul_int(&self, a: &Self::V, k: &Lanes<L>) -> Self::V {
        // SAFETY: only called from `chords`, which has the features.
        unsafe { (mul_inline(&a.0, k, &self.c), mul_inline(&a.1, k, &self.c)) }
    }
    fn invert_all(&self, v: &mut [Self::F; 8]) {
        // 1/x = conj(x) / norm(x), the norms inverted together.
        let mut norms: [P::Fp; 8] = core::array::from_fn(|l| v[l].norm());
        crate::inverse::batch_inverse(&mut norms);
        for (x, n) in v.iter_mut().zip(&norms) {
            x.conjugate_in_place();
            x.mul_assign_by_basefield(n);
        }
    }
}

/// `(px[i], py[i]) += (qx[i], qy[i])` for every `i`: affine points added by
/// the chord rule, all inverses from one batched inversion (Montgomery's
/// trick over eight interleaved product chains, then one scalar batch
/// inversion of the eight chain products). Every `px[i] != qx[i]` (no
/// doubling, no `P + (-P)`; the caller routes those elsewhere), and neither
/// point is the identity. Results are arkworks' values, fully reduced.
///
/// Seven lane multiplications per addition: three for the inversion, `λ`, a
/// conversion of `λ` to R' form, `λ^2` and `λ (x_p - x_3)`.
///
/// # Safety
/// See the [module docs](crate::ifma) (`F` fits `L` limbs: [`lanes_fit`]); all
/// slices have the same length.
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn add_affine_batch<F: MontField, const L: usize>(
    px: &mut [F],
    py: &mut [F],
    qx: &[F],
    qy: &[F],
    c: &Consts<L>,
) {
    let base = Base {
        c: *c,
        _f: core::marker::PhantomData::<F>,
    };
    // SAFETY: same features; forwarded contract.
    unsafe {
        chords(
            &base,
            px,
            py,
            qx,
            qy,
            rprime_shift::<F, L>(),
            &ratio_squared::<F, L>(),
        )
    }
}

/// [`add_affine_batch`] over `Fp2<P>` whose non-residue is -1 (BN254's and
/// BLS12-381's Fq2, the base fields of G2).
///
/// # Safety
/// As for [`add_affine_batch`], with `P::Fp` fitting `L` limbs and
/// `P::NONRESIDUE == -1`.
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn add_affine_batch_fp2<P: ark_ff::Fp2Config, const L: usize>(
    px: &mut [ark_ff::Fp2<P>],
    py: &mut [ark_ff::Fp2<P>],
    qx: &[ark_ff::Fp2<P>],
    qy: &[ark_ff::Fp2<P>],
) where
    P::Fp: MontField,
{
    let quad = Quadratic {
        c: Consts::<L>::of::<P::Fp>(),
        _p: core::marker::PhantomData::<P>,
    };
    // SAFETY: same features; forwarded contract.
    unsafe {
        chords(
            &quad,
            px,
            py,
            qx,
            qy,
            rprime_shift::<P::Fp, L>(),
            &ratio_squared::<P::Fp, L>(),
        )
    }
}

/// The stored form of `(R'/R)^2` in `F` (`R'/R = 2^shift`), as 52-bit
/// limbs: the factor that takes an arkworks-form value to R' form.
fn ratio_squared<F: MontField, const L: usize>() -> [u64; L] {
    let k = F::from(1u128 << (2 * rprime_shift::<F, L>()));
    split52(&k.mont_words::<8>())
}

/// The chord additions of [`add_affine_batch`] on any [`Arith8`]; `R' / R`
/// is `2^shift`, and `to_rp` holds [`ratio_squared`].
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn chords<A: Arith8<L>, const L: usize>(
    a: &A,
    px: &mut [A::F],
    py: &mut [A::F],
    qx: &[A::F],
    qy: &[A::F],
    shift: u32,
    to_rp: &[u64; L],
) {
    let n = px.len();
    debug_assert!(py.len() == n && qx.len() == n && qy.len() == n);
    if n == 0 {
        return;
    }
    let groups = n.div_ceil(8);
    let (zero, one) = (<A::F as ark_ff::Zero>::zero(), <A::F as ark_ff::One>::one());
    // Elements i..i + 8 of `s`; lanes past the end add (1, 0) to (0, 0),
    // which keeps every denominator non-zero.
    // SAFETY: the features are enabled for this function.
    let gather = |s: &[A::F], i: usize, pad: &A::F| unsafe {
        a.pack(core::array::from_fn(|l| s.get(i + l).unwrap_or(pad)))
    };
    let r_ratio = A::F::from(1u64 << shift);
    // SAFETY (whole body): the features are enabled for this function.
    unsafe {
        let mut dx = Vec::with_capacity(groups);
        let mut dy = Vec::with_capacity(groups);
        let mut prefix: Vec<A::V> = Vec::with_capacity(groups);
        for t in 0..groups {
            let i = 8 * t;
            let d = a.sub(&gather(qx, i, &one), &gather(px, i, &zero));
            dy.push(a.sub(&gather(qy, i, &zero), &gather(py, i, &zero)));
            // Stored prefix_t = (d_0 ... d_t) R / (R'/R)^t: each product of
            // two R-form values picks up a factor R / R'.
            let pre = match prefix.last() {
                Some(last) => a.mul(last, &d),
                None => d,
            };
            prefix.push(pre);
            dx.push(d);
        }
        // The eight chain products as arkworks values (d_0 ... d_T) /
        // (R'/R)^T; their inverses times R'/R start the way back, which
        // then yields every 1/d_t in R' form.
        let last = groups - 1;
        let mut tops: [A::F; 8] = a.unpack(&prefix[last]);
        a.invert_all(&mut tops);
        let tops = tops.map(|v| v * r_ratio);
        let mut inv = a.pack(each(&tops));
        // mul(x R, (R'/R)^2 R) = x R' (R' form).
        let to_rp = splat(to_rp);
        for t in (0..groups).rev() {
            let d_inv = if t > 0 {
                let d_inv = a.mul(&inv, &prefix[t - 1]);
                inv = a.mul(&inv, &dx[t]);
                d_inv
            } else {
                inv
            };
            let i = 8 * t;
            let (xp, xq, yp) = (
                gather(px, i, &zero),
                gather(qx, i, &one),
                gather(py, i, &zero),
            );
            let lambda = a.mul(&dy[t], &d_inv);
            let lambda_r = a.mul_int(&lambda, &to_rp);
            let x3 = a.sub(&a.sub(&a.mul(&lambda, &lambda_r), &xp), &xq);
            let y3 = a.sub(&a.mul(&lambda_r, &a.sub(&xp, &x3)), &yp);
            let (x3, y3) = (a.unpack(&x3), a.unpack(&y3));
            let m = 8.min(n - i);
            px[i..i + m].copy_from_slice(&x3[..m]);
            py[i..i + m].copy_from_slice(&y3[..m]);
        }
    }
}

/// References to the eight elements of `a`.
fn each<T>(a: &[T; 8]) -> [&T; 8] {
    core::array::from_fn(|l| &a[l])
}
