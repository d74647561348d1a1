//! Eight field elements at a time with AVX-512 IFMA (`vpmadd52luq` /
//! `vpmadd52huq`).
//!
//! A [`Lanes`] value holds eight elements of a 4-limb prime field, one per
//! 64-bit lane, as five limbs of 52 bits (radix 2^52, 260 bits). Each lane
//! holds the same Montgomery-form integer arkworks stores (`x * 2^256 mod p`),
//! only split differently, so packing and unpacking are shifts. Values are
//! kept lazily reduced in `[0, 2p)`; [`unpack`] reduces fully.
//!
//! Multiplication is Montgomery's with `R' = 2^260` (five 52-bit digits):
//! `mul(a, b) = a * b * 2^-260 mod p`. Data stays in arkworks' form when the
//! other factor is given in the "R' form" `w * 2^260 mod p`
//! ([`to_r260`]): `mul(x * 2^256, w * 2^260) = x * w * 2^256`. Two R'-form
//! values multiply to an R'-form value, so twiddle chains stay in R' form.
//!
//! Bounds: for `a < 2p`, `b < 2p` and `p < 2^256`, the Montgomery loop
//! returns `a * b / 2^260 + m * p / 2^260 < 4p^2 / 2^260 + p < 2p`: no final
//! subtraction is needed, and every limb is normalised to 52 bits before it
//! can be read by the next multiplication (IFMA reads only 52 bits of each
//! operand).
//!
//! On the reference machine (Ice Lake server, 2.3 GHz) one lane
//! multiplication costs about 3.4 ns against 16 ns for the BMI2/ADX kernel
//! and 19 ns for arkworks' `Fp` multiplication (throughput, 4096 independent
//! products).
//!
//! Every function is `unsafe` with the same contract: the CPU supports
//! AVX-512F and AVX-512IFMA ([`Ifma::detect`]), and the field has four limbs
//! ([`MontField::ADX_MUL`]). Callers hold an [`Ifma`] token as the proof.

use core::arch::x86_64::*;

use crate::MontField;

const MASK52: u64 = (1 << 52) - 1;

/// Eight field elements, limb-major: `0[k]` holds limb `k` (52 bits) of the
/// eight elements.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Lanes(pub [__m512i; 5]);

/// Whether this CPU has AVX-512F and AVX-512IFMA (whatever `ZKACCEL_KERNEL`
/// says: [`Ifma::detect`] honours it).
pub fn ifma_supported() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma")
}

/// Proof that this CPU supports AVX-512F and AVX-512IFMA.
#[derive(Clone, Copy, Debug)]
pub struct Ifma(());

impl Ifma {
    /// `Some` on CPUs with AVX-512F and AVX-512IFMA, unless
    /// `ZKACCEL_KERNEL` is `adx` or `portable` ([`crate::KERNEL_ENV`]).
    pub fn detect() -> Option<Self> {
        (ifma_supported() && crate::kernel::allowed(crate::KernelLevel::Ifma)).then_some(Ifma(()))
    }

    /// [`add_affine_batch`] as a safe call: `false`, touching nothing, for
    /// fields without [`MontField::ADX_MUL`] or slices of unequal lengths.
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
        if !F::ADX_MUL || py.len() != n || qx.len() != n || qy.len() != n {
            return false;
        }
        // SAFETY: `self` proves the CPU features; four limbs; equal lengths.
        unsafe { add_affine_batch(px, py, qx, qy, &Consts::of::<F>()) };
        true
    }

    /// [`add_affine_batch_fp2`] as a safe call: `false`, touching nothing,
    /// unless `P::Fp` has four limbs, the non-residue is -1 and the slices
    /// have equal lengths.
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
        if !P::Fp::ADX_MUL
            || P::NONRESIDUE != -P::Fp::one()
            || py.len() != n
            || qx.len() != n
            || qy.len() != n
        {
            return false;
        }
        // SAFETY: `self` proves the CPU features; the checks above.
        unsafe { add_affine_batch_fp2(px, py, qx, qy) };
        true
    }
}

/// The modulus of a field in the lane representation.
#[derive(Clone, Copy, Debug)]
pub struct Consts {
    p: [u64; 5],
    p2: [u64; 5],
    /// `-p^-1 mod 2^52`.
    pinv: u64,
}

impl Consts {
    /// The constants of `F` (a field with [`MontField::ADX_MUL`]).
    pub fn of<F: MontField>() -> Self {
        let p = F::MODULUS;
        let p4: [u64; 4] = core::array::from_fn(|i| p.as_ref().get(i).copied().unwrap_or(0));
        let mut twice = [0u64; 4];
        let mut carry = 0u64;
        for i in 0..4 {
            twice[i] = (p4[i] << 1) | carry;
            carry = p4[i] >> 63;
        }
        // Newton's iteration for p^-1 mod 2^64 (p is odd).
        let mut inv = 1u64;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p4[0].wrapping_mul(inv)));
        }
        Consts {
            p: split52(&p4, 0),
            p2: split52(&twice, carry),
            pinv: inv.wrapping_neg() & MASK52,
        }
    }
}

/// 256 bits (plus bit 256 in `top`) as five 52-bit limbs.
fn split52(x: &[u64; 4], top: u64) -> [u64; 5] {
    [
        x[0] & MASK52,
        ((x[0] >> 52) | (x[1] << 12)) & MASK52,
        ((x[1] >> 40) | (x[2] << 24)) & MASK52,
        ((x[2] >> 28) | (x[3] << 36)) & MASK52,
        (x[3] >> 16) | (top << 48),
    ]
}

/// Five normalised 52-bit limbs of a value below 2^256 as four 64-bit limbs.
fn join52(y: &[u64; 5]) -> [u64; 4] {
    [
        y[0] | (y[1] << 52),
        (y[1] >> 12) | (y[2] << 40),
        (y[2] >> 24) | (y[3] << 28),
        (y[3] >> 36) | (y[4] << 16),
    ]
}

/// `x * 2^260 mod p` for the Montgomery-form element `x` (that is, the
/// element's value times `2^260`, the form [`mul`]'s second factor takes),
/// as 52-bit limbs.
pub fn to_r260<F: MontField>(x: &F) -> [u64; 5] {
    // x * 2^256 -> x * 2^260: four doublings.
    let mut y = *x;
    for _ in 0..4 {
        y.double_in_place();
    }
    split52(&y.mont_limbs(), 0)
}

/// The same 52-bit limbs in all eight lanes.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn splat(limbs: &[u64; 5]) -> Lanes {
    Lanes(core::array::from_fn(|k| _mm512_set1_epi64(limbs[k] as i64)))
}

/// Eight elements (arkworks' Montgomery form, fully reduced) as lanes.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn pack<F: MontField>(xs: [&F; 8]) -> Lanes {
    // SAFETY: same features.
    unsafe { from_limbs(&xs.map(|x| split52(&x.mont_limbs(), 0))) }
}

/// Eight values given as 52-bit limbs (as [`to_r260`] returns them), one
/// per lane.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn from_limbs(values: &[[u64; 5]; 8]) -> Lanes {
    let limbs: [[u64; 8]; 5] = core::array::from_fn(|k| core::array::from_fn(|l| values[l][k]));
    // SAFETY: each row is 8 u64 = 64 bytes; unaligned loads.
    Lanes(core::array::from_fn(|k| unsafe {
        _mm512_loadu_si512(limbs[k].as_ptr().cast())
    }))
}

/// The eight elements of `v`, fully reduced (equal to arkworks' values).
///
/// # Safety
/// See the [module docs](self); `v` must come from this module's functions.
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn unpack<F: MontField>(v: &Lanes, c: &Consts) -> [F; 8] {
    let r = sub_if_ge(v, &c.p);
    let mut limbs = [[0u64; 8]; 5];
    for k in 0..5 {
        // SAFETY: 64-byte rows; unaligned stores.
        unsafe { _mm512_storeu_si512(limbs[k].as_mut_ptr().cast(), r.0[k]) };
    }
    core::array::from_fn(|l| {
        F::from_mont_limbs(join52(&[
            limbs[0][l],
            limbs[1][l],
            limbs[2][l],
            limbs[3][l],
            limbs[4][l],
        ]))
    })
}

/// Propagates the carries of limbs holding signed values (arithmetic shifts);
/// the top limb keeps the sign.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn normalise_signed(t: &mut [__m512i; 5]) {
    let mask = _mm512_set1_epi64(MASK52 as i64);
    for j in 0..4 {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
}

/// `t` if `t < m`, else `t - m`, for normalised `t < 2m`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn sub_if_ge(t: &Lanes, m: &[u64; 5]) -> Lanes {
    let mut d: [__m512i; 5] =
        core::array::from_fn(|k| _mm512_sub_epi64(t.0[k], _mm512_set1_epi64(m[k] as i64)));
    // SAFETY: same features.
    unsafe { normalise_signed(&mut d) };
    let negative = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
    Lanes(core::array::from_fn(|k| {
        _mm512_mask_blend_epi64(negative, d[k], t.0[k])
    }))
}

/// `a + b` in `[0, 2p)`.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn add(a: &Lanes, b: &Lanes, c: &Consts) -> Lanes {
    // a + b - 2p, normalised; add 2p back where it went negative.
    let mut d: [__m512i; 5] = core::array::from_fn(|k| {
        _mm512_sub_epi64(
            _mm512_add_epi64(a.0[k], b.0[k]),
            _mm512_set1_epi64(c.p2[k] as i64),
        )
    });
    // SAFETY: same features.
    unsafe { add_back_if_negative(&mut d, &c.p2) };
    Lanes(d)
}

/// `a - b` in `[0, 2p)`.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn sub(a: &Lanes, b: &Lanes, c: &Consts) -> Lanes {
    let mut d: [__m512i; 5] = core::array::from_fn(|k| _mm512_sub_epi64(a.0[k], b.0[k]));
    // SAFETY: same features.
    unsafe { add_back_if_negative(&mut d, &c.p2) };
    Lanes(d)
}

/// Normalises the signed limbs `d` (a value in `(-m, m)`), then adds `m`
/// where the value is negative.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn add_back_if_negative(d: &mut [__m512i; 5], m: &[u64; 5]) {
    // SAFETY: same features.
    unsafe { normalise_signed(d) };
    let negative = _mm512_cmplt_epi64_mask(d[4], _mm512_setzero_si512());
    for k in 0..5 {
        d[k] = _mm512_mask_add_epi64(d[k], negative, d[k], _mm512_set1_epi64(m[k] as i64));
    }
    // SAFETY: same features.
    unsafe { normalise_signed(d) };
}

/// `a * b * 2^-260 mod p`, in `[0, 2p)` for `a, b < 2p`.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn mul(a: &Lanes, b: &Lanes, c: &Consts) -> Lanes {
    let z = _mm512_setzero_si512();
    let p: [__m512i; 5] = core::array::from_fn(|k| _mm512_set1_epi64(c.p[k] as i64));
    let pinv = _mm512_set1_epi64(c.pinv as i64);
    // t[j] accumulates digit j of the running sum without carrying: each
    // iteration adds at most four 52-bit values per limb, so the limbs stay
    // below 2^57.
    let mut t = [z; 6];
    for i in 0..5 {
        let bi = b.0[i];
        for j in 0..5 {
            t[j] = _mm512_madd52lo_epu64(t[j], a.0[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.0[j], bi);
        }
        // m = t0 * (-p^-1) mod 2^52 makes t + m p divisible by 2^52.
        let m = _mm512_madd52lo_epu64(z, t[0], pinv);
        for j in 0..5 {
            t[j] = _mm512_madd52lo_epu64(t[j], m, p[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p[j]);
        }
        let carry = _mm512_srli_epi64(t[0], 52);
        t = [_mm512_add_epi64(t[1], carry), t[2], t[3], t[4], t[5], z];
    }
    let mask = _mm512_set1_epi64(MASK52 as i64);
    for j in 0..4 {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
    Lanes([t[0], t[1], t[2], t[3], t[4]])
}

/// The operations [`chords`] needs, on eight elements of a field `F` at a
/// time: the base field ([`Base`], one [`Lanes`]) or its quadratic extension
/// with non-residue -1 ([`Quadratic`], two). Products of two arkworks-form
/// values carry a factor `2^256 / 2^260` (see the [module docs](self)), the
/// same for every component, which [`chords`] accounts for.
trait Arith8 {
    type F: ark_ff::Field;
    type V: Copy;
    unsafe fn pack(&self, xs: [&Self::F; 8]) -> Self::V;
    unsafe fn unpack(&self, v: &Self::V) -> [Self::F; 8];
    unsafe fn sub(&self, a: &Self::V, b: &Self::V) -> Self::V;
    unsafe fn mul(&self, a: &Self::V, b: &Self::V) -> Self::V;
    /// Every component times the integer constant `k` (52-bit limbs).
    unsafe fn mul_int(&self, a: &Self::V, k: &Lanes) -> Self::V;
}

/// [`Arith8`] for a four-limb prime field.
struct Base<F> {
    c: Consts,
    _f: core::marker::PhantomData<F>,
}

impl<F: MontField> Arith8 for Base<F> {
    type F = F;
    type V = Lanes;
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn pack(&self, xs: [&F; 8]) -> Lanes {
        // SAFETY: same features.
        unsafe { pack(xs) }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn unpack(&self, v: &Lanes) -> [F; 8] {
        // SAFETY: same features.
        unsafe { unpack(v, &self.c) }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn sub(&self, a: &Lanes, b: &Lanes) -> Lanes {
        // SAFETY: same features.
        unsafe { sub(a, b, &self.c) }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul(&self, a: &Lanes, b: &Lanes) -> Lanes {
        // SAFETY: same features.
        unsafe { mul(a, b, &self.c) }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul_int(&self, a: &Lanes, k: &Lanes) -> Lanes {
        // SAFETY: same features.
        unsafe { mul(a, k, &self.c) }
    }
}

/// [`Arith8`] for `Fp2<P>` with non-residue -1 (BN254's Fq2): Karatsuba
/// products (three base multiplications).
struct Quadratic<P> {
    c: Consts,
    _p: core::marker::PhantomData<P>,
}

impl<P: ark_ff::Fp2Config> Arith8 for Quadratic<P>
where
    P::Fp: MontField,
{
    type F = ark_ff::Fp2<P>;
    type V = (Lanes, Lanes);
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
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul(&self, a: &Self::V, b: &Self::V) -> Self::V {
        let c = &self.c;
        // SAFETY: same features.
        unsafe {
            let v0 = mul(&a.0, &b.0, c);
            let v1 = mul(&a.1, &b.1, c);
            let s = mul(&add(&a.0, &a.1, c), &add(&b.0, &b.1, c), c);
            // (a0 + a1 u)(b0 + b1 u) with u^2 = -1.
            (sub(&v0, &v1, c), sub(&sub(&s, &v0, c), &v1, c))
        }
    }
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn mul_int(&self, a: &Self::V, k: &Lanes) -> Self::V {
        // SAFETY: same features.
        unsafe { (mul(&a.0, k, &self.c), mul(&a.1, k, &self.c)) }
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
/// See the [module docs](self); all slices have the same length.
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn add_affine_batch<F: MontField>(
    px: &mut [F],
    py: &mut [F],
    qx: &[F],
    qy: &[F],
    c: &Consts,
) {
    let base = Base {
        c: *c,
        _f: core::marker::PhantomData::<F>,
    };
    // SAFETY: same features; forwarded contract.
    unsafe { chords(&base, px, py, qx, qy, &F::from(256u64).mont_limbs()) }
}

/// [`add_affine_batch`] over `Fp2<P>` whose non-residue is -1 (BN254's
/// Fq2, the base field of G2).
///
/// # Safety
/// As for [`add_affine_batch`], with `P::Fp` of four limbs and
/// `P::NONRESIDUE == -1`.
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn add_affine_batch_fp2<P: ark_ff::Fp2Config>(
    px: &mut [ark_ff::Fp2<P>],
    py: &mut [ark_ff::Fp2<P>],
    qx: &[ark_ff::Fp2<P>],
    qy: &[ark_ff::Fp2<P>],
) where
    P::Fp: MontField,
{
    let quad = Quadratic {
        c: Consts::of::<P::Fp>(),
        _p: core::marker::PhantomData::<P>,
    };
    // SAFETY: same features; forwarded contract.
    unsafe { chords(&quad, px, py, qx, qy, &P::Fp::from(256u64).mont_limbs()) }
}

/// The chord additions of [`add_affine_batch`] on any [`Arith8`];
/// `two_264` holds the limbs of `2^264 mod p` (the stored form of 256).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn chords<A: Arith8>(
    a: &A,
    px: &mut [A::F],
    py: &mut [A::F],
    qx: &[A::F],
    qy: &[A::F],
    two_264: &[u64; 4],
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
    // SAFETY (whole body): the features are enabled for this function.
    unsafe {
        let mut dx = Vec::with_capacity(groups);
        let mut dy = Vec::with_capacity(groups);
        let mut prefix: Vec<A::V> = Vec::with_capacity(groups);
        for t in 0..groups {
            let i = 8 * t;
            let d = a.sub(&gather(qx, i, &one), &gather(px, i, &zero));
            dy.push(a.sub(&gather(qy, i, &zero), &gather(py, i, &zero)));
            // Stored prefix_t = (d_0 ... d_t) R / 16^t: each product of two
            // R-form values picks up a factor 2^256 / 2^260.
            let pre = match prefix.last() {
                Some(last) => a.mul(last, &d),
                None => d,
            };
            prefix.push(pre);
            dx.push(d);
        }
        // The eight chain products as arkworks values (d_0 ... d_T) / 16^T;
        // their inverses times 16^(T+1) start the way back, which then
        // yields every 1/d_t in R' form.
        let last = groups - 1;
        let mut tops: [A::F; 8] = a.unpack(&prefix[last]);
        ark_ff::batch_inversion(&mut tops);
        let sixteen = A::F::from(16u64);
        let tops = tops.map(|v| v * sixteen);
        let mut inv = a.pack(each(&tops));
        // mul(x R, 2^264 mod p) = x R * 16 = x R' (R' form).
        let to_r260 = splat(&split52(two_264, 0));
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
            let lambda_r = a.mul_int(&lambda, &to_r260);
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
