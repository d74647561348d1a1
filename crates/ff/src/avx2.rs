//! Four field elements at a time with AVX2 (`vpmuludq`), for the NTT on CPUs
//! without AVX-512 IFMA.
//!
//! A [`Lanes`] value holds four elements of a four-limb field below 2^255
//! (BN254's, BLS12-381's scalar field), one per 64-bit lane of a 256-bit
//! vector, as nine limbs of 29 bits (261 bits). `vpmuludq` multiplies the
//! low 32 bits of each lane into a 64-bit product, so a limb product lands
//! whole in one lane and the Montgomery loop accumulates a column without
//! carrying. Each lane holds the Montgomery-form integer arkworks stores
//! (`x * R mod p`, `R = 2^256`), only split differently.
//!
//! Multiplication is Montgomery's with `R' = 2^261`: [`mul`]`(a, b) = a b /
//! R' mod p`, so data stays in arkworks' form when the other factor, a
//! twiddle, is in "R' form" `w * R' mod p` ([`to_rprime`]), as in the
//! [`ifma`](crate::ifma) lanes.
//!
//! # Value bounds
//!
//! Limbs are unsigned; a value is *normalised* when limbs 0..8 are below
//! 2^29 (the top limb takes the rest). The radix-4 butterfly [`dif4`]
//! leaves its sums and differences unnormalised (no carries between limbs)
//! and feeds them to the multiplication, which accepts a left operand with
//! limbs below 2^31.5 and value below `16p`, and a normalised right operand
//! below `p` (a twiddle), and returns a normalised value below `1.25p`:
//!
//! - the loop adds to a column at most nine limb products `a_j b_i < 2^60.5`
//!   and nine `m_i p_j < 2^58`, plus a carry below 2^35: below 2^64;
//! - the result is `(a b + m p) / R' < 16p * p / 2^261 + p < 1.25p` for
//!   `p < 2^255`.
//!
//! Differences add a multiple of `p` whose limbs are raised by borrowing
//! from the next ([`Consts`]), so no limb goes negative. The one output of
//! a butterfly that is not multiplied (the sum of all four inputs, below
//! `8p`) is reduced with a quotient estimated from its top
//! limb. Memory therefore holds normalised values below `2p`; [`unpack`]
//! reduces fully.
//!
//! Every function is `unsafe` with the same contract: the CPU supports AVX2
//! ([`Avx2::detect`]) and the constants belong to a field that fits the
//! lanes ([`Consts::of`] returned `Some`). Callers hold an [`Avx2`] token
//! as the proof of the first.

use core::arch::x86_64::*;

// The token and the detection live in the selection layer; re-exported
// here, where callers have always found them.
pub use crate::kernel::{avx2_supported, Avx2};
use crate::MontField;

/// Limbs per element.
pub const L: usize = 9;
/// Bits per limb.
const BITS: u32 = 29;
const MASK: u64 = (1 << BITS) - 1;

/// Four field elements, limb-major: `0[k]` holds limb `k` of the four.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub struct Lanes(pub [__m256i; L]);

/// A field's constants in the lane representation.
#[derive(Clone, Copy, Debug)]
pub struct Consts {
    /// `4p` with limbs 0..8 at least `2^29 - 1` (one borrowed from each next
    /// limb): subtracting a normalised value below `2p` leaves every limb
    /// non-negative.
    p4_up: [u64; L],
    /// `6p` with limbs 0..8 at least `2^30 - 2`: room for two normalised
    /// subtrahends below `2p` each.
    p6_up2: [u64; L],
    /// `8p` with limbs 0..8 at least `2^30 - 2`: room for two normalised
    /// subtrahends whose sum is below `4p`.
    p8_up2: [u64; L],
    /// `floor(2^32 / (p_8 + 1))` for the top limb `p_8` of `p`: the quotient
    /// estimate of [`reduce_sum`].
    top_inv: u64,
    /// `p`'s limbs (normalised) in all four lanes.
    pv: [__m256i; L],
    /// `-p^-1 mod 2^29` in all four lanes.
    pinv_v: __m256i,
    /// `2^29 - 1` in all four lanes.
    mask_v: __m256i,
}

/// Whether `F` fits the lanes: four limbs, a modulus below 2^255
/// ([`MontField::ADX_MUL`]) and above 2^250 (its top limb gives the
/// quotient estimate of the butterfly's reduction).
pub fn fits<F: MontField>() -> bool {
    F::ADX_MUL && F::MODULUS.as_ref()[3] >> 58 != 0
}

impl Consts {
    /// The constants of `F`, or `None` when `F` does not fit the lanes
    /// ([`fits`]).
    pub fn of<F: MontField>() -> Option<Self> {
        if !fits::<F>() {
            return None;
        }
        let mut p = [0u64; 8];
        p[..4].copy_from_slice(&F::MODULUS.as_ref()[..4]);
        let times = |k: u64| {
            let mut out = [0u64; 8];
            let mut carry = 0u128;
            for (o, &w) in out.iter_mut().zip(&p) {
                let t = w as u128 * k as u128 + carry;
                *o = t as u64;
                carry = t >> 64;
            }
            out
        };
        let pl = split(&p);
        let pinv = crate::portable::neg_inv(p[0]) & MASK;
        // SAFETY: SSE2 (part of x86-64) sets 64-bit lanes.
        let v = |x: u64| unsafe { _mm256_set_epi64x(x as i64, x as i64, x as i64, x as i64) };
        Some(Consts {
            pv: pl.map(v),
            pinv_v: v(pinv),
            mask_v: v(MASK),
            p4_up: borrow_up(split(&times(4)), 1),
            p6_up2: borrow_up(split(&times(6)), 2),
            p8_up2: borrow_up(split(&times(8)), 2),
            top_inv: (1u64 << 32) / (pl[L - 1] + 1),
        })
    }
}

/// The same value with `b * 2^29` added to each limb below the top and `b`
/// taken from the next.
fn borrow_up(mut x: [u64; L], b: u64) -> [u64; L] {
    for k in 0..L - 1 {
        x[k] += b << BITS;
        x[k + 1] -= b;
    }
    x
}

/// `x` as nine 29-bit limbs ([`crate::limbs::split`]).
#[inline(always)]
fn split(x: &[u64; 8]) -> [u64; L] {
    crate::limbs::split::<L, BITS>(x)
}

/// `x * R' mod p` (`R' = 2^261`) for the Montgomery-form element `x`, as
/// nine 29-bit limbs: the form of [`mul`]'s right factor that keeps the left
/// one in arkworks' form.
pub fn to_rprime<F: MontField>(x: &F) -> [u64; L] {
    to_rprime_by(x, &rprime_ratio())
}

/// `R' / R = 2^(261 - 256)` as an element of `F`, for [`to_rprime_by`].
pub fn rprime_ratio<F: MontField>() -> F {
    F::from(1u64 << (BITS as usize * L - 256))
}

/// [`to_rprime`] with the ratio [`rprime_ratio`] computed once by the
/// caller (converting it costs a product of its own: a table of `n`
/// twiddles paid it `n` times).
pub fn to_rprime_by<F: MontField>(x: &F, ratio: &F) -> [u64; L] {
    // x R -> x R': times 2^(261 - 256).
    let y = *x * ratio;
    split(&y.mont_words::<8>())
}

/// The same limbs in all four lanes.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn splat(limbs: &[u64; L]) -> Lanes {
    // SAFETY: same features.
    Lanes(unsafe { broadcast(limbs) })
}

/// Four elements (arkworks' Montgomery form, fully reduced) as lanes.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn pack<F: MontField>(xs: [&F; 4]) -> Lanes {
    let v = xs.map(|x| split(&x.mont_words::<8>()));
    // SAFETY: same features.
    unsafe { from_limbs(v.each_ref()) }
}

/// The four elements of `v` (normalised, below `2p`: what this module's
/// functions return), fully reduced: arkworks' values.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn unpack<F: MontField>(v: &Lanes, c: &Consts) -> [F; 4] {
    let mut d: [__m256i; L] = core::array::from_fn(|k| _mm256_sub_epi64(v.0[k], c.pv[k]));
    // SAFETY: same features.
    let neg = unsafe {
        normalise_signed(&mut d);
        _mm256_cmpgt_epi64(_mm256_setzero_si256(), d[L - 1])
    };
    let mut limbs = [[0u64; 4]; L];
    for k in 0..L {
        let r = _mm256_blendv_epi8(d[k], v.0[k], neg);
        // SAFETY: 32 bytes into a [u64; 4]; unaligned store.
        unsafe { _mm256_storeu_si256(limbs[k].as_mut_ptr().cast(), r) };
    }
    core::array::from_fn(|l| {
        let y: [u64; L] = core::array::from_fn(|k| limbs[k][l]);
        F::from_mont_limbs(crate::limbs::join::<L, 4, BITS>(&y))
    })
}

/// Propagates the carries of limbs holding signed values below 2^62 in
/// magnitude; the top limb keeps the sign. AVX2 has no 64-bit arithmetic
/// shift: `x >> 29` (arithmetic) is `((x + 2^62) >> 29) - 2^33` (logical).
///
/// The helpers below are `inline(always)` without a `target_feature`
/// attribute (the two cannot be combined), and loop instead of building
/// arrays with closures, so that their intrinsics are inlined into the
/// AVX2 functions that call them: a closure would be compiled without the
/// feature, and every intrinsic in it become a call.
#[inline(always)]
unsafe fn normalise_signed(t: &mut [__m256i; L]) {
    // SAFETY (whole body): the callers have AVX2 enabled.
    unsafe {
        let mask = _mm256_set1_epi64x(MASK as i64);
        let bias = _mm256_set1_epi64x(1 << 62);
        let unbias = _mm256_set1_epi64x(1 << (62 - BITS));
        for j in 0..L - 1 {
            let carry = _mm256_sub_epi64(
                _mm256_srli_epi64::<{ BITS as i32 }>(_mm256_add_epi64(t[j], bias)),
                unbias,
            );
            t[j + 1] = _mm256_add_epi64(t[j + 1], carry);
            t[j] = _mm256_and_si256(t[j], mask);
        }
    }
}

/// `a + b` limb by limb (no carries).
#[inline(always)]
unsafe fn add_limbs(a: &Lanes, b: &Lanes) -> Lanes {
    // SAFETY (whole body): the callers have AVX2 enabled.
    unsafe {
        let mut out = [_mm256_setzero_si256(); L];
        for k in 0..L {
            out[k] = _mm256_add_epi64(a.0[k], b.0[k]);
        }
        Lanes(out)
    }
}

/// `a + m - b` limb by limb (no carries; `m` a raised multiple of `p`).
#[inline(always)]
unsafe fn sub_limbs(a: &Lanes, b: &Lanes, m: &[u64; L]) -> Lanes {
    // SAFETY (whole body): the callers have AVX2 enabled.
    unsafe {
        let mut out = [_mm256_setzero_si256(); L];
        for k in 0..L {
            out[k] = _mm256_sub_epi64(
                _mm256_add_epi64(a.0[k], _mm256_set1_epi64x(m[k] as i64)),
                b.0[k],
            );
        }
        Lanes(out)
    }
}

/// The limbs in all four lanes.
#[inline(always)]
unsafe fn broadcast(limbs: &[u64; L]) -> [__m256i; L] {
    // SAFETY (whole body): the callers have AVX2 enabled.
    unsafe {
        let mut out = [_mm256_setzero_si256(); L];
        for k in 0..L {
            out[k] = _mm256_set1_epi64x(limbs[k] as i64);
        }
        out
    }
}

/// A value with limbs below 2^31.5 and value below `16p`, reduced to a
/// normalised value below `1.04p`: the quotient `k = floor(t_8 (2^32 /
/// (p_8 + 1)) / 2^32)` from the top limb alone is at most `floor(t / p)`
/// (the lower limbs only add) and at least `t / p - 1.04`, and `t - k p`
/// is normalised with signed carries.
#[inline(always)]
unsafe fn reduce_sum(t: &Lanes, c: &Consts) -> Lanes {
    // SAFETY (whole body): the callers have AVX2 enabled.
    unsafe {
        let top_inv = _mm256_set1_epi64x(c.top_inv as i64);
        let k = _mm256_srli_epi64::<32>(mul32_mem(t.0[L - 1], &top_inv));
        let mut d = [_mm256_setzero_si256(); L];
        for j in 0..L {
            d[j] = _mm256_sub_epi64(t.0[j], mul32_mem(k, &c.pv[j]));
        }
        normalise_signed(&mut d);
        Lanes(d)
    }
}

/// `a * b / R' mod p`: `a` with limbs below 2^31.5 and value below `16p`,
/// `b` normalised below `p`; returns a normalised value below `1.25p` (see
/// the [module docs](self)).
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn mul(a: &Lanes, b: &Lanes, c: &Consts) -> Lanes {
    // SAFETY: same features.
    unsafe { mul_inline(a, b, c) }
}

/// [`mul`]'s body, inlined into callers with the feature enabled.
///
/// Operand scanning without shifting the window: step `i` adds `a b_i` and
/// `m_i p` at digit `i` (`m_i = t_i (-p^-1) mod 2^29` makes digit `i`
/// divisible by 2^29), and digit `i`'s excess moves up to digit `i + 1`;
/// after nine steps the result is digits 9..18. Each step is one assembly
/// block over the nine digits it touches, held in registers: `a`'s limbs
/// and the modulus are read from memory at constant offsets of one base
/// register each. Written with intrinsics, LLVM spilled the digits and
/// computed an address per memory operand: 640 instructions per product
/// against about 390 here.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn mul_inline(a: &Lanes, b: &Lanes, c: &Consts) -> Lanes {
    // SAFETY (whole body): the caller has AVX2 enabled; the assembly reads
    // 32 bytes at the offsets 0..288 of `a` and of `c.pv`, and `c.pinv_v`,
    // `c.mask_v` (all 32-byte values), and writes only its register
    // operands.
    unsafe {
        let z = _mm256_setzero_si256();
        let mut t = [z; 2 * L];
        let (ap, pp) = (a.0.as_ptr(), c.pv.as_ptr());
        let (pinv, mask) = (&c.pinv_v, &c.mask_v);
        macro_rules! step {
            ($i:expr) => {
                core::arch::asm!(
                    "vpmuludq {x}, {bi}, [{a}]",
                    "vpaddq {t0}, {t0}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 32]",
                    "vpaddq {t1}, {t1}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 64]",
                    "vpaddq {t2}, {t2}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 96]",
                    "vpaddq {t3}, {t3}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 128]",
                    "vpaddq {t4}, {t4}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 160]",
                    "vpaddq {t5}, {t5}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 192]",
                    "vpaddq {t6}, {t6}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 224]",
                    "vpaddq {t7}, {t7}, {x}",
                    "vpmuludq {x}, {bi}, [{a} + 256]",
                    "vpaddq {t8}, {t8}, {x}",
                    "vpmuludq {m}, {t0}, [{pinv}]",
                    "vpand {m}, {m}, [{mask}]",
                    "vpmuludq {x}, {m}, [{p}]",
                    "vpaddq {t0}, {t0}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 32]",
                    "vpaddq {t1}, {t1}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 64]",
                    "vpaddq {t2}, {t2}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 96]",
                    "vpaddq {t3}, {t3}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 128]",
                    "vpaddq {t4}, {t4}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 160]",
                    "vpaddq {t5}, {t5}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 192]",
                    "vpaddq {t6}, {t6}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 224]",
                    "vpaddq {t7}, {t7}, {x}",
                    "vpmuludq {x}, {m}, [{p} + 256]",
                    "vpaddq {t8}, {t8}, {x}",
                    "vpsrlq {t0}, {t0}, 29",
                    "vpaddq {t1}, {t1}, {t0}",
                    bi = in(ymm_reg) b.0[$i],
                    a = in(reg) ap,
                    p = in(reg) pp,
                    pinv = in(reg) pinv,
                    mask = in(reg) mask,
                    t0 = inout(ymm_reg) t[$i] => _,
                    t1 = inout(ymm_reg) t[$i + 1],
                    t2 = inout(ymm_reg) t[$i + 2],
                    t3 = inout(ymm_reg) t[$i + 3],
                    t4 = inout(ymm_reg) t[$i + 4],
                    t5 = inout(ymm_reg) t[$i + 5],
                    t6 = inout(ymm_reg) t[$i + 6],
                    t7 = inout(ymm_reg) t[$i + 7],
                    t8 = inout(ymm_reg) t[$i + 8],
                    x = out(ymm_reg) _,
                    m = out(ymm_reg) _,
                    options(pure, readonly, nostack, preserves_flags),
                );
            };
        }
        step!(0);
        step!(1);
        step!(2);
        step!(3);
        step!(4);
        step!(5);
        step!(6);
        step!(7);
        step!(8);
        let mask = c.mask_v;
        let mut out = [z; L];
        for j in L..2 * L - 1 {
            t[j + 1] = _mm256_add_epi64(t[j + 1], _mm256_srli_epi64::<{ BITS as i32 }>(t[j]));
            out[j - L] = _mm256_and_si256(t[j], mask);
        }
        out[L - 1] = t[2 * L - 1];
        Lanes(out)
    }
}

/// `vpmuludq` with its second operand in memory: the 64-bit products of the
/// low 32 bits of each lane of `a` and `*b`.
///
/// Assembly for two reasons: `_mm256_mul_epu32` is plain IR (a 64-bit
/// multiplication of operands masked to 32 bits), and once LLVM hoists the
/// masks of loop-invariant operands out of a loop it emits a full 64-bit
/// lane product (three `vpmuludq` and shifts); and with sixteen vector
/// registers, operands read once per step are best read from memory,
/// leaving the registers to the running digits.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn mul32_mem(a: __m256i, b: &__m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: an AVX2 instruction reading 32 bytes at `b` (a reference; VEX
    // encoding needs no alignment); the callers have the feature.
    unsafe {
        core::arch::asm!(
            "vpmuludq {o}, {a}, ymmword ptr [{b}]",
            o = lateout(ymm_reg) out,
            a = in(ymm_reg) a,
            b = in(reg) b,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// The twiddles `(w0, w1, w2)` of a lane butterfly ([`dif4`]), in R' form
/// ([`to_rprime`]).
#[derive(Clone, Copy, Debug)]
pub enum Twiddles<'a> {
    /// All three are one (no products).
    One,
    /// The same three in every lane.
    Same([&'a [u64; L]; 3]),
    /// Three per lane ([`from_limbs`]).
    PerLane([&'a Lanes; 3]),
}

/// Four values given as nine 29-bit limbs each (as [`to_rprime`] returns
/// them), one per lane.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn from_limbs(v: [&[u64; L]; 4]) -> Lanes {
    let mut out = [_mm256_setzero_si256(); L];
    for k in 0..L {
        out[k] = _mm256_set_epi64x(
            v[3][k] as i64,
            v[2][k] as i64,
            v[1][k] as i64,
            v[0][k] as i64,
        );
    }
    Lanes(out)
}

/// The 4 x 4 transpose of four vectors' lanes, limb by limb, written to
/// `out` (four slots): lane `l` of `out[v]` is lane `v` of `x[l]`.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn transpose_into(x: &[Lanes; 4], out: &mut [core::mem::MaybeUninit<Lanes>]) {
    let out = &mut out[..4];
    for k in 0..L {
        let (r0, r1, r2, r3) = (x[0].0[k], x[1].0[k], x[2].0[k], x[3].0[k]);
        let t0 = _mm256_unpacklo_epi64(r0, r1);
        let t1 = _mm256_unpackhi_epi64(r0, r1);
        let t2 = _mm256_unpacklo_epi64(r2, r3);
        let t3 = _mm256_unpackhi_epi64(r2, r3);
        let rows = [
            _mm256_permute2x128_si256::<0x20>(t0, t2),
            _mm256_permute2x128_si256::<0x20>(t1, t3),
            _mm256_permute2x128_si256::<0x31>(t0, t2),
            _mm256_permute2x128_si256::<0x31>(t1, t3),
        ];
        for (slot, r) in out.iter_mut().zip(rows) {
            // SAFETY: limb k of a Lanes slot, 32-byte aligned (Lanes is).
            unsafe {
                _mm256_store_si256(slot.as_mut_ptr().cast::<__m256i>().add(k), r);
            }
        }
    }
}

/// One radix-4 decimation-in-frequency butterfly on four vectors in place
/// (the scalar kernels' [`crate::dif4_with`] formula): with `s = x0 + x2`,
/// `t = x1 + x3`, `d = x0 - x2`, `e = (x1 - x3) w4`, writes `[s + t, (s -
/// t) w1, (d + e) w0, (d - e) w2]` (without products for
/// [`Twiddles::One`]). Inputs normalised below `2p`; outputs too.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn dif4(x: [&mut Lanes; 4], w4: &Lanes, w: Twiddles<'_>, c: &Consts) {
    // SAFETY (whole body): same features; bounds in the module docs: every
    // multiplication's left operand has limbs below 2^31.4 and value below
    // 12p.
    unsafe {
        let [x0, x1, x2, x3] = x;
        // e = (x1 - x3 + 4p) w4: limbs < 2^29 + 2^30, value < 6p.
        let e = mul_inline(&sub_limbs(x1, x3, &c.p4_up), w4, c);
        let (s, t) = (add_limbs(x0, x2), add_limbs(x1, x3));
        // s - t + 8p: limbs < 2^30 + 2^30 + 2^29, value < 12p.
        let st = sub_limbs(&s, &t, &c.p8_up2);
        // d + e = x0 - x2 + 4p + e: limbs < 2^31, value < 8p.
        let de = add_limbs(&sub_limbs(x0, x2, &c.p4_up), &e);
        // d - e = x0 - (x2 + e) + 6p: limbs < 2^31, value < 8p.
        let dme = sub_limbs(x0, &add_limbs(x2, &e), &c.p6_up2);
        // s + t: limbs < 2^31, value < 8p.
        *x0 = reduce_sum(&add_limbs(&s, &t), c);
        match w {
            Twiddles::One => {
                *x1 = reduce_sum(&st, c);
                *x2 = reduce_sum(&de, c);
                *x3 = reduce_sum(&dme, c);
            }
            Twiddles::Same([w0, w1, w2]) => {
                *x1 = mul_inline(&st, &Lanes(broadcast(w1)), c);
                *x2 = mul_inline(&de, &Lanes(broadcast(w0)), c);
                *x3 = mul_inline(&dme, &Lanes(broadcast(w2)), c);
            }
            Twiddles::PerLane([w0, w1, w2]) => {
                *x1 = mul_inline(&st, w1, c);
                *x2 = mul_inline(&de, w0, c);
                *x3 = mul_inline(&dme, w2, c);
            }
        }
    }
}

/// One radix-2 butterfly without a twiddle in place: `[a + b, a - b]`,
/// inputs and outputs normalised below `2p`.
///
/// # Safety
/// See the [module docs](self).
#[inline]
#[target_feature(enable = "avx2")]
pub unsafe fn dif2(a: &mut Lanes, b: &mut Lanes, c: &Consts) {
    // SAFETY: same features; sums below 4p, limbs below 2^30.
    unsafe {
        let (x, y) = (*a, *b);
        *a = reduce_sum(&add_limbs(&x, &y), c);
        *b = reduce_sum(&sub_limbs(&x, &y, &c.p4_up), c);
    }
}
