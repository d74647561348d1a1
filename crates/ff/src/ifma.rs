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
//! A lane multiplication is `L^2` 52x52-bit multiply-adds for eight
//! products at once, against `16` 64x64-bit products and their carry
//! chains for one with the BMI2/ADX kernel; the throughput measured on an
//! Ice Lake server is in docs/ntt.md.
//!
//! Every function is `unsafe` with the same contract: the CPU supports
//! AVX-512F and AVX-512IFMA ([`Ifma::detect`]), and the field fits the lane
//! width: four limbs in five 52-bit limbs (a spare bit or not: the bounds
//! above need only `4p < 2^260`, so secp256k1's and P-256's base fields fit
//! too), six limbs with [`MontField::ADX_MUL6`] in eight ([`lanes_fit`]).
//! Callers hold an [`Ifma`] token as the proof.

use core::arch::x86_64::*;

// The token and the detection live in the selection layer; re-exported
// here, where callers have always found them.
pub use crate::ifma_chain::{ChainStep, MAX_CHAIN};
pub use crate::ifma_chords::{add_affine_batch, add_affine_batch_fp2};
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
/// ([`MontField::ADX_MUL`] or [`MontField::ADX_MUL_FULL`]: any modulus below
/// 2^256, so `4p < 2^260`), 8 for six-limb fields with
/// [`MontField::ADX_MUL6`], `None` for other fields.
pub fn lanes_fit<F: MontField>() -> Option<usize> {
    if F::ADX_MUL || F::ADX_MUL_FULL {
        Some(5)
    } else if F::ADX_MUL6 {
        Some(8)
    } else {
        None
    }
}

/// `52 L - 64 N`: the bits `R'` has above arkworks' `R` (4 for BN254, 32
/// for BLS12-381's Fq).
pub(crate) const fn rprime_shift<F: MontField, const L: usize>() -> u32 {
    (52 * L - 64 * F::LIMBS) as u32
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
            pinv: crate::portable::neg_inv(p[0]) & MASK52,
        }
    }
}

/// `x` as `L` limbs of 52 bits ([`crate::limbs::split`]).
#[inline(always)]
pub(crate) fn split52<const L: usize>(x: &[u64; 8]) -> [u64; L] {
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
    if L == 5 && F::LIMBS == 4 {
        // SAFETY: same features.
        let limbs = unsafe { pack4(xs.map(|x| x.mont_words::<4>())) };
        return Lanes(core::array::from_fn(|k| limbs[k]));
    }
    // SAFETY: same features.
    unsafe { from_limbs(&xs.map(|x| split52(&x.mont_words::<8>()))) }
}

/// The two index vectors of a step of the 8x4 transpose in [`pack4`] and
/// [`unpack4`]: lanes `(0, 4, 8, 12, 1, 5, 9, 13)` and `(2, 6, 10, 14, 3,
/// 7, 11, 15)` of a vector pair.
#[inline]
#[target_feature(enable = "avx512f")]
fn interleave4() -> (__m512i, __m512i) {
    (
        _mm512_setr_epi64(0, 4, 8, 12, 1, 5, 9, 13),
        _mm512_setr_epi64(2, 6, 10, 14, 3, 7, 11, 15),
    )
}

/// The index vectors that take the low (`0..4`) and the high (`4..8`) four
/// lanes of each of a vector pair.
#[inline]
#[target_feature(enable = "avx512f")]
fn halves() -> (__m512i, __m512i) {
    (
        _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11),
        _mm512_setr_epi64(4, 5, 6, 7, 12, 13, 14, 15),
    )
}

/// [`pack`] of eight four-limb values (`w[l]`, element `l`'s 64-bit limbs)
/// into five 52-bit limbs, in vector registers: the eight 256-bit loads
/// transposed to four vectors of one 64-bit limb each (`w_k`, lane `l`
/// element `l`'s limb `k`), then cut at bits 52, 104, 156 and 208. The
/// element-by-element form (split, then a transposition through memory)
/// stores limbs one by one and reloads them as vectors, which the store
/// buffer cannot forward: it took a twelfth of an IFMA proof's time.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn pack4(w: [[u64; 4]; 8]) -> [__m512i; 5] {
    // SAFETY: each `w[i]` is four u64 (32 bytes); unaligned loads.
    let pair = |i: usize| unsafe {
        let lo = _mm256_loadu_si256(w[i].as_ptr().cast());
        let hi = _mm256_loadu_si256(w[i + 1].as_ptr().cast());
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
    };
    // z01 = (x0 w0..w3, x1 w0..w3), and so on.
    let (z01, z23, z45, z67) = (pair(0), pair(2), pair(4), pair(6));
    let (lo, hi) = interleave4();
    // t0 = (x0..x3 w0, x0..x3 w1), t1 = (x0..x3 w2, x0..x3 w3); t2, t3 for x4..x7.
    let t0 = _mm512_permutex2var_epi64(z01, lo, z23);
    let t1 = _mm512_permutex2var_epi64(z01, hi, z23);
    let t2 = _mm512_permutex2var_epi64(z45, lo, z67);
    let t3 = _mm512_permutex2var_epi64(z45, hi, z67);
    let (first, second) = halves();
    let w0 = _mm512_permutex2var_epi64(t0, first, t2);
    let w1 = _mm512_permutex2var_epi64(t0, second, t2);
    let w2 = _mm512_permutex2var_epi64(t1, first, t3);
    let w3 = _mm512_permutex2var_epi64(t1, second, t3);
    let mask = _mm512_set1_epi64(MASK52 as i64);
    let cut = |a: __m512i, b: __m512i| _mm512_and_si512(_mm512_or_si512(a, b), mask);
    [
        _mm512_and_si512(w0, mask),
        cut(_mm512_srli_epi64::<52>(w0), _mm512_slli_epi64::<12>(w1)),
        cut(_mm512_srli_epi64::<40>(w1), _mm512_slli_epi64::<24>(w2)),
        cut(_mm512_srli_epi64::<28>(w2), _mm512_slli_epi64::<36>(w3)),
        _mm512_srli_epi64::<16>(w3),
    ]
}

/// The inverse of [`pack4`] for normalised limbs (the top one below 2^48):
/// each element's four 64-bit limbs.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn unpack4(r: [__m512i; 5]) -> [[u64; 4]; 8] {
    let w0 = _mm512_or_si512(r[0], _mm512_slli_epi64::<52>(r[1]));
    let w1 = _mm512_or_si512(_mm512_srli_epi64::<12>(r[1]), _mm512_slli_epi64::<40>(r[2]));
    let w2 = _mm512_or_si512(_mm512_srli_epi64::<24>(r[2]), _mm512_slli_epi64::<28>(r[3]));
    let w3 = _mm512_or_si512(_mm512_srli_epi64::<36>(r[3]), _mm512_slli_epi64::<16>(r[4]));
    // pack4's permutations backwards.
    let (first, second) = halves();
    let t0 = _mm512_permutex2var_epi64(w0, first, w1);
    let t2 = _mm512_permutex2var_epi64(w0, second, w1);
    let t1 = _mm512_permutex2var_epi64(w2, first, w3);
    let t3 = _mm512_permutex2var_epi64(w2, second, w3);
    let (lo, hi) = interleave4();
    let z = [
        _mm512_permutex2var_epi64(t0, lo, t1),
        _mm512_permutex2var_epi64(t0, hi, t1),
        _mm512_permutex2var_epi64(t2, lo, t3),
        _mm512_permutex2var_epi64(t2, hi, t3),
    ];
    let mut out = [[0u64; 4]; 8];
    for (i, v) in z.iter().enumerate() {
        // SAFETY: `out[2 i..2 i + 2]` is 64 contiguous bytes; unaligned store.
        unsafe { _mm512_storeu_si512(out[2 * i].as_mut_ptr().cast(), *v) };
    }
    out
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
    if L == 5 && F::LIMBS == 4 {
        // SAFETY: same features; `r` is normalised and below p.
        let words = unsafe { unpack4(core::array::from_fn(|k| r.0[k])) };
        return words.map(F::from_mont_words::<4>);
    }
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
pub(crate) unsafe fn mul_inline<const L: usize>(
    a: &Lanes<L>,
    b: &Lanes<L>,
    c: &Consts<L>,
) -> Lanes<L> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::io::Write;

    /// The lanes as eight elements' limbs (`[lane][limb]`).
    fn lanes_of(v: &[__m512i; 5]) -> [[u64; 5]; 8] {
        let mut rows = [[0u64; 8]; 5];
        for (row, x) in rows.iter_mut().zip(v) {
            // SAFETY: 64-byte rows; unaligned store (SSE2 suffices).
            unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), *x) };
        }
        core::array::from_fn(|l| core::array::from_fn(|k| rows[k][l]))
    }

    /// [`pack4`] and [`unpack4`] against the element-by-element conversions
    /// (`split52`, `join52`) on random words and on the edges: zero, every
    /// bit set, each 64-bit limb at its maximum alone, single bits on both
    /// sides of each 52-bit cut; [`unpack4`] on limbs at their maximum.
    #[test]
    fn vector_pack_matches_split() {
        if !std::is_x86_feature_detected!("avx512f") {
            let _ = writeln!(
                std::io::stderr(),
                "SKIP vector_pack_matches_split: this CPU has no AVX-512F"
            );
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(52);
        let mut words: Vec<[u64; 4]> = vec![[0; 4], [u64::MAX; 4]];
        for k in 0..4 {
            let mut w = [0u64; 4];
            w[k] = u64::MAX;
            words.push(w);
        }
        for bit in [51, 52, 103, 104, 155, 156, 207, 208, 255] {
            let mut w = [0u64; 4];
            w[bit / 64] = 1 << (bit % 64);
            words.push(w);
        }
        words.extend((0..800).map(|_| rng.gen::<[u64; 4]>()));
        words.resize(words.len().div_ceil(8) * 8, [0; 4]);
        for group in words.chunks(8) {
            let w: [[u64; 4]; 8] = group.try_into().unwrap();
            // SAFETY: AVX-512F detected above.
            let packed = unsafe { pack4(w) };
            let got = lanes_of(&packed);
            for l in 0..8 {
                let mut wide = [0u64; 8];
                wide[..4].copy_from_slice(&w[l]);
                assert_eq!(got[l], split52::<5>(&wide), "pack of {:x?}", w[l]);
            }
            // Limbs normalised as `split52` leaves them: back to the words.
            // SAFETY: as above.
            assert_eq!(unsafe { unpack4(packed) }, w);
        }
        // Limbs at their maximum (2^52 - 1, the top 2^48 - 1) and random ones.
        let max = [MASK52, MASK52, MASK52, MASK52, (1 << 48) - 1];
        for round in 0..100 {
            let limbs: [[u64; 5]; 8] = core::array::from_fn(|l| {
                if round == 0 || l == round % 8 {
                    max
                } else {
                    core::array::from_fn(|k| rng.gen::<u64>() & max[k])
                }
            });
            let rows: [[u64; 8]; 5] =
                core::array::from_fn(|k| core::array::from_fn(|l| limbs[l][k]));
            // SAFETY: as above; 64-byte rows, unaligned loads.
            let v: [__m512i; 5] =
                core::array::from_fn(|k| unsafe { _mm512_loadu_si512(rows[k].as_ptr().cast()) });
            // SAFETY: as above.
            let got = unsafe { unpack4(v) };
            for l in 0..8 {
                let want = join52::<5, 8>(&limbs[l]);
                assert_eq!(want[4..], [0; 4]);
                assert_eq!(got[l][..], want[..4], "unpack of {:x?}", limbs[l]);
            }
        }
    }
}
