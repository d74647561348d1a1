//! Eight field elements at a time with AVX-512 IFMA (`vpmadd52luq` /
//! `vpmadd52huq`).
//!
//! A [`Lanes`] value holds eight elements of a prime field, one per 64-bit
//! lane, as `L` limbs of 52 bits: five (260 bits) for four-limb fields such
//! as BN254's, eight (416 bits) for six-limb ones such as BLS12-381's Fq.
//! Each lane holds the same Montgomery-form integer arkworks stores (`x * R
//! mod p`, `R = 2^256` or `2^384`), only split differently, so packing and
//! unpacking are shifts. Values are kept lazily reduced in `[0, 2p)`;
//! [`unpack`] reduces fully.
//!
//! Multiplication is Montgomery's with `R' = 2^(52 L)` (`L` 52-bit digits):
//! `mul(a, b) = a * b / R' mod p`. Data stays in arkworks' form when the
//! other factor is given in the "R' form" `w * R' mod p` ([`to_r260`],
//! [`to_rprime`]): `mul(x R, w R') = x w R`. Two R'-form values multiply to
//! an R'-form value, so twiddle chains stay in R' form.
//!
//! Bounds: for `a < 2p`, `b < 2p` and `4p < R'`, the Montgomery loop returns
//! `a * b / R' + m * p / R' < 4p^2 / R' + p < 2p`: no final subtraction is
//! needed, and every limb is normalised to 52 bits before it can be read by
//! the next multiplication (IFMA reads only 52 bits of each operand). The
//! loop adds at most four 52-bit values to a limb per digit, so the limbs
//! stay below `4 L 2^52 <= 2^57` before the final normalisation.
//!
//! On the reference machine (Ice Lake server, 2.3 GHz) one lane
//! multiplication costs about 3.4 ns against 16 ns for the BMI2/ADX kernel
//! and 19 ns for arkworks' `Fp` multiplication (throughput, 4096 independent
//! products).
//!
//! Every function is `unsafe` with the same contract: the CPU supports
//! AVX-512F and AVX-512IFMA ([`Ifma::detect`]), and the field fits the lane
//! width: four limbs with [`MontField::ADX_MUL`] in five 52-bit limbs, six
//! limbs with [`MontField::ADX_MUL6`] in eight ([`lanes_fit`]). Callers hold
//! an [`Ifma`] token as the proof.

use core::arch::x86_64::*;

// The token and the detection live in the selection layer; re-exported
// here, where callers have always found them.
pub use crate::kernel::{ifma_supported, Ifma};
use crate::MontField;

const MASK52: u64 = (1 << 52) - 1;

/// Eight field elements, limb-major: `0[k]` holds limb `k` (52 bits) of the
/// eight elements; `L` limbs (five for four-limb fields, the default; eight
/// for six-limb fields).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub struct Lanes<const L: usize = 5>(pub [__m512i; L]);

/// The 52-bit limb count of the lanes that hold `F`: 5 for four-limb fields
/// with [`MontField::ADX_MUL`], 8 for six-limb fields with
/// [`MontField::ADX_MUL6`], `None` for other fields.
pub fn lanes_fit<F: MontField>() -> Option<usize> {
    if F::ADX_MUL {
        Some(5)
    } else if F::ADX_MUL6 {
        Some(8)
    } else {
        None
    }
}

/// `52 L - 64 N`: the bits `R'` has above arkworks' `R` (4 for BN254, 32
/// for BLS12-381's Fq).
const fn rprime_shift<F: MontField, const L: usize>() -> u32 {
    (52 * L - 64 * F::LIMBS) as u32
}

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

/// The modulus of a field in the lane representation (`L` 52-bit limbs).
#[derive(Clone, Copy, Debug)]
pub struct Consts<const L: usize = 5> {
    p: [u64; L],
    p2: [u64; L],
    /// `-p^-1 mod 2^52`.
    pinv: u64,
}

impl<const L: usize> Consts<L> {
    /// The constants of `F`, a field that fits `L` limbs ([`lanes_fit`]).
    pub fn of<F: MontField>() -> Self {
        let modulus = F::MODULUS;
        let mut p = [0u64; 8];
        p[..F::LIMBS].copy_from_slice(modulus.as_ref());
        // 2p, one bit longer (the carry lands in limb LIMBS).
        let mut twice = [0u64; 8];
        let mut carry = 0u64;
        for (t, &w) in twice.iter_mut().zip(&p) {
            *t = (w << 1) | carry;
            carry = w >> 63;
        }
        Consts {
            p: split52(&p),
            p2: split52(&twice),
            pinv: crate::limbs::neg_inv(p[0]) & MASK52,
        }
    }
}

/// `x` as `L` limbs of 52 bits ([`crate::limbs::split`]).
#[inline(always)]
fn split52<const L: usize>(x: &[u64; 8]) -> [u64; L] {
    crate::limbs::split::<L, 52>(x)
}

/// `L` normalised 52-bit limbs as 64-bit limbs (the first `M`).
#[inline(always)]
fn join52<const L: usize, const M: usize>(y: &[u64; L]) -> [u64; M] {
    crate::limbs::join::<L, M, 52>(y)
}

/// `x * 2^260 mod p` for the Montgomery-form element `x` of a four-limb
/// field (that is, the element's value times `2^260`, the form [`mul`]'s
/// second factor takes), as 52-bit limbs.
pub fn to_r260<F: MontField>(x: &F) -> [u64; 5] {
    to_rprime::<F, 5>(x)
}

/// `x * R' mod p` (`R' = 2^(52 L)`) for the Montgomery-form element `x` of a
/// field that fits `L` limbs ([`lanes_fit`]), as 52-bit limbs: the form of
/// [`mul`]'s second factor that keeps the first in arkworks' form.
pub fn to_rprime<F: MontField, const L: usize>(x: &F) -> [u64; L] {
    // x R -> x R': times 2^(52 L - 64 N).
    let y = *x * F::from(1u64 << rprime_shift::<F, L>());
    split52(&y.mont_words::<8>())
}

/// The same 52-bit limbs in all eight lanes.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn splat<const L: usize>(limbs: &[u64; L]) -> Lanes<L> {
    Lanes(core::array::from_fn(|k| _mm512_set1_epi64(limbs[k] as i64)))
}

/// Eight elements (arkworks' Montgomery form, fully reduced) as lanes of
/// `L` limbs (`ifma::pack::<F, 5>` for a four-limb field).
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn pack<F: MontField, const L: usize>(xs: [&F; 8]) -> Lanes<L> {
    // SAFETY: same features.
    unsafe { from_limbs(&xs.map(|x| split52(&x.mont_words::<8>()))) }
}

/// Eight values given as 52-bit limbs (as [`to_r260`] returns them), one
/// per lane.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f")]
pub unsafe fn from_limbs<const L: usize>(values: &[[u64; L]; 8]) -> Lanes<L> {
    let limbs: [[u64; 8]; L] = core::array::from_fn(|k| core::array::from_fn(|l| values[l][k]));
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
pub unsafe fn unpack<F: MontField, const L: usize>(v: &Lanes<L>, c: &Consts<L>) -> [F; 8] {
    // SAFETY: same features.
    let r = unsafe { sub_if_ge(v, &c.p) };
    let mut limbs = [[0u64; 8]; L];
    for k in 0..L {
        // SAFETY: 64-byte rows; unaligned stores.
        unsafe { _mm512_storeu_si512(limbs[k].as_mut_ptr().cast(), r.0[k]) };
    }
    let mut out = [F::ZERO; 8];
    for (l, o) in out.iter_mut().enumerate() {
        let mut y = [0u64; L];
        for k in 0..L {
            y[k] = limbs[k][l];
        }
        *o = F::from_mont_words(join52::<L, 8>(&y));
    }
    out
}

/// Propagates the carries of limbs holding signed values (arithmetic shifts);
/// the top limb keeps the sign.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn normalise_signed<const L: usize>(t: &mut [__m512i; L]) {
    let mask = _mm512_set1_epi64(MASK52 as i64);
    for j in 0..L - 1 {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srai_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
    }
}

/// `t` if `t < m`, else `t - m`, for normalised `t < 2m`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn sub_if_ge<const L: usize>(t: &Lanes<L>, m: &[u64; L]) -> Lanes<L> {
    let mut d: [__m512i; L] =
        core::array::from_fn(|k| _mm512_sub_epi64(t.0[k], _mm512_set1_epi64(m[k] as i64)));
    // SAFETY: same features.
    unsafe { normalise_signed(&mut d) };
    let negative = _mm512_cmplt_epi64_mask(d[L - 1], _mm512_setzero_si512());
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
pub unsafe fn add<const L: usize>(a: &Lanes<L>, b: &Lanes<L>, c: &Consts<L>) -> Lanes<L> {
    // a + b - 2p, normalised; add 2p back where it went negative.
    let mut d: [__m512i; L] = core::array::from_fn(|k| {
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
pub unsafe fn sub<const L: usize>(a: &Lanes<L>, b: &Lanes<L>, c: &Consts<L>) -> Lanes<L> {
    let mut d: [__m512i; L] = core::array::from_fn(|k| _mm512_sub_epi64(a.0[k], b.0[k]));
    // SAFETY: same features.
    unsafe { add_back_if_negative(&mut d, &c.p2) };
    Lanes(d)
}

/// Normalises the signed limbs `d` (a value in `(-m, m)`), then adds `m`
/// where the value is negative.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn add_back_if_negative<const L: usize>(d: &mut [__m512i; L], m: &[u64; L]) {
    // SAFETY: same features.
    unsafe { normalise_signed(d) };
    let negative = _mm512_cmplt_epi64_mask(d[L - 1], _mm512_setzero_si512());
    for k in 0..L {
        d[k] = _mm512_mask_add_epi64(d[k], negative, d[k], _mm512_set1_epi64(m[k] as i64));
    }
    // SAFETY: same features.
    unsafe { normalise_signed(d) };
}

/// `a * b / R' mod p` (`R' = 2^(52 L)`), in `[0, 2p)` for `a, b < 2p`.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
pub unsafe fn mul<const L: usize>(a: &Lanes<L>, b: &Lanes<L>, c: &Consts<L>) -> Lanes<L> {
    // SAFETY: same features.
    unsafe { mul_inline(a, b, c) }
}

/// [`mul`]'s body, always inlined: the callers with the features enabled
/// (the batch additions' arithmetic) get it inline whatever the inliner
/// thinks of its size, which a `#[target_feature]` function cannot ask for.
///
/// # Safety
/// As for [`mul`]; only called from functions with the features enabled.
#[inline(always)]
unsafe fn mul_inline<const L: usize>(a: &Lanes<L>, b: &Lanes<L>, c: &Consts<L>) -> Lanes<L> {
    const { assert!(L >= 2 && L <= 8, "lanes of 2 to 8 limbs") };
    // SAFETY (whole body): the caller has the features enabled.
    unsafe {
        let z = _mm512_setzero_si512();
        let p: [__m512i; L] = core::array::from_fn(|k| _mm512_set1_epi64(c.p[k] as i64));
        let pinv = _mm512_set1_epi64(c.pinv as i64);
        // t[j] accumulates digit j of the running sum without carrying: each
        // iteration adds at most four 52-bit values per limb, so the limbs
        // stay below 4 L 2^52 <= 2^57. Digits L + 1 and up stay zero (the
        // array has room for the largest L, 8).
        let mut t = [z; 9];
        for i in 0..L {
            let bi = b.0[i];
            for j in 0..L {
                t[j] = _mm512_madd52lo_epu64(t[j], a.0[j], bi);
                t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.0[j], bi);
            }
            // m = t0 * (-p^-1) mod 2^52 makes t + m p divisible by 2^52.
            let m = _mm512_madd52lo_epu64(z, t[0], pinv);
            for j in 0..L {
                t[j] = _mm512_madd52lo_epu64(t[j], m, p[j]);
                t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, p[j]);
            }
            // Shift down one digit, carrying digit 0's excess into digit 1.
            let carry = _mm512_srli_epi64(t[0], 52);
            t = core::array::from_fn(|j| match j {
                0 => _mm512_add_epi64(t[1], carry),
                j if j < L => t[j + 1],
                _ => z,
            });
        }
        let mask = _mm512_set1_epi64(MASK52 as i64);
        for j in 0..L - 1 {
            t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
            t[j] = _mm512_and_si512(t[j], mask);
        }
        Lanes(core::array::from_fn(|j| t[j]))
    }
}

/// The operations [`chords`] needs, on eight elements of a field `F` at a
/// time: the base field ([`Base`], one [`Lanes`]) or its quadratic extension
/// with non-residue -1 ([`Quadratic`], two). Products of two arkworks-form
/// values carry a factor `R / R'` (see the [module docs](self)), the same
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
/// See the [module docs](self) (`F` fits `L` limbs: [`lanes_fit`]); all
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
        ark_ff::batch_inversion(&mut tops);
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
