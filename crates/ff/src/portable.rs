//! The portable kernel: branch-free modular arithmetic on Montgomery-form
//! limbs in plain Rust, for every CPU (the only kernel off x86-64, and the
//! fallback of the others for the fields they do not cover).
//!
//! [`MontField`](crate::MontField)'s `add_fast`, `sub_fast`, `mul_fast` and
//! `eq_fast` are these functions on the limbs `ark_ff::Fp` stores: results
//! are bit-for-bit arkworks' own, computed with masks instead of the
//! data-dependent branches that arkworks' reductions take. Also here:
//! [`dif4_with`], the radix-4 butterfly from any element type's own
//! operations (for kernels without a fused form).

#[inline(always)]
fn adc(a: u64, b: u64, carry: &mut u64) -> u64 {
    let t = a as u128 + b as u128 + *carry as u128;
    *carry = (t >> 64) as u64;
    t as u64
}

#[inline(always)]
fn sbb(a: u64, b: u64, borrow: &mut u64) -> u64 {
    let t = (a as u128).wrapping_sub(b as u128 + *borrow as u128);
    *borrow = (t >> 127) as u64;
    t as u64
}

/// `acc + a b + carry` as `(low, high)` limbs: the product through `u128`,
/// which is one `mul`/`umulh` pair (or `mulx`) on 64-bit CPUs.
#[inline(always)]
fn mac(acc: u64, a: u64, b: u64, carry: &mut u64) -> u64 {
    let t = acc as u128 + (a as u128) * (b as u128) + *carry as u128;
    *carry = (t >> 64) as u64;
    t as u64
}

/// `x - p` if `x >= p` (or if `high` is set, meaning `x` overflowed the limbs),
/// else `x`; selected with a mask.
#[inline(always)]
fn reduce_once<const N: usize>(x: [u64; N], high: u64, p: &[u64; N]) -> [u64; N] {
    let mut borrow = 0u64;
    let mut d = [0u64; N];
    for i in 0..N {
        d[i] = sbb(x[i], p[i], &mut borrow);
    }
    // Keep `d` when there was no borrow or when the sum carried out.
    let keep_d = (borrow ^ 1) | high;
    let mask = 0u64.wrapping_sub(keep_d);
    let mut out = [0u64; N];
    for i in 0..N {
        out[i] = (d[i] & mask) | (x[i] & !mask);
    }
    out
}

/// `-p^-1 mod 2^64` for an odd `p0` (the modulus' low limb), by Newton's
/// iteration: the vector kernels' constants, and the tests' moduli.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn neg_inv(p0: u64) -> u64 {
    let mut inv = 1u64;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// `a == b`, as an OR of the limbs' XORs (no early exit, no `memcmp`).
#[inline(always)]
pub(crate) fn eq<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    let mut d = 0u64;
    for i in 0..N {
        d |= a[i] ^ b[i];
    }
    d == 0
}

/// `a + b mod p` for `a, b < p`: the sum, then `p` subtracted unless that
/// borrows (selected with a mask).
#[inline(always)]
pub(crate) fn add<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let mut carry = 0u64;
    let mut s = [0u64; N];
    for i in 0..N {
        s[i] = adc(a[i], b[i], &mut carry);
    }
    reduce_once(s, carry, p)
}

/// `a - b mod p` for `a, b < p`: the difference, then `p` added back under
/// a mask when it borrowed.
#[inline(always)]
pub(crate) fn sub<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let mut borrow = 0u64;
    let mut d = [0u64; N];
    for i in 0..N {
        d[i] = sbb(a[i], b[i], &mut borrow);
    }
    // Add the modulus back when the subtraction borrowed.
    let mask = 0u64.wrapping_sub(borrow);
    let mut carry = 0u64;
    for i in 0..N {
        d[i] = adc(d[i], p[i] & mask, &mut carry);
    }
    d
}

/// `a * b * 2^(-64 N) mod p` for `a, b < p`, where `inv = -p^-1 mod 2^64`:
/// CIOS with the "no-carry" shortcut, valid only when the top limb of `p`
/// leaves a spare bit (arkworks' `CAN_USE_NO_CARRY_MUL_OPT`, which the
/// caller checks).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
#[inline(always)]
pub(crate) fn mul_no_carry<const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let mut r = [0u64; N];
    for i in 0..N {
        let mut carry1 = 0u64;
        r[0] = mac(r[0], a[0], b[i], &mut carry1);
        let k = r[0].wrapping_mul(inv);
        let mut carry2 = 0u64;
        mac(r[0], k, p[0], &mut carry2);
        for j in 1..N {
            r[j] = mac(r[j], a[j], b[i], &mut carry1);
            r[j - 1] = mac(r[j], k, p[j], &mut carry2);
        }
        r[N - 1] = carry1.wrapping_add(carry2);
    }
    reduce_once(r, 0, p)
}

/// `a * b * 2^(-64 N) mod p` (see [`mul_no_carry`]'s conditions) by the
/// target's best form: [`mul_by_29_bit_limbs`] on WebAssembly,
/// [`mul_no_carry`] elsewhere.
#[inline(always)]
pub(crate) fn mul<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N], inv: u64) -> [u64; N] {
    #[cfg(target_arch = "wasm32")]
    {
        mul_by_29_bit_limbs(a, b, p, inv)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        mul_no_carry(a, b, p, inv)
    }
}

/// [`mul_no_carry`] where the multiplier is 32 bits wide: the same CIOS
/// loop on 32-bit words of the same limbs (`2N` words, each 64-bit limb
/// little end first), every word product and sum in one `u64` (at most
/// `(2^32-1)^2 + 2 (2^32-1) = 2^64 - 1`, so nothing carries out). Both give
/// `a b 2^(-64 N) mod p`, bit for bit: `2N` rounds of `2^-32` are the
/// same `R`, and `-p^-1 mod 2^32` is the low half of `inv`. The no-carry
/// condition on `p`'s top 64-bit limb is the same condition on its top
/// 32-bit word (the same bits). WebAssembly's kernel for the limb counts
/// [`mul_by_29_bit_limbs`] does not unroll (other than four and six): it
/// has a 64x64->64-bit multiply but no high half, so a 64-bit limb product
/// costs four multiplies and the carries between them, where a word product
/// costs one.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline(always)]
pub(crate) fn mul_no_carry_by_words<const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    const LOW: u64 = 0xffff_ffff;
    // Scratch arrays of the largest word count (8 limbs); the loops run to
    // `2N`, a constant after monomorphisation, and are unrolled.
    const MAX_WORDS: usize = 16;
    const { assert!(2 * N <= MAX_WORDS) };
    let m = 2 * N;
    let word = |x: &[u64; N], j: usize| (x[j / 2] >> (32 * (j % 2))) & LOW;
    let (mut aw, mut pw) = ([0u64; MAX_WORDS], [0u64; MAX_WORDS]);
    for j in 0..m {
        aw[j] = word(a, j);
        pw[j] = word(p, j);
    }
    let inv = inv & LOW;
    let mut r = [0u64; MAX_WORDS];
    for i in 0..m {
        let bi = word(b, i);
        let t = r[0] + aw[0] * bi;
        let mut c1 = t >> 32;
        let k = ((t & LOW) * inv) & LOW;
        let mut c2 = ((t & LOW) + k * pw[0]) >> 32;
        for j in 1..m {
            let t = r[j] + aw[j] * bi + c1;
            c1 = t >> 32;
            let u = (t & LOW) + k * pw[j] + c2;
            c2 = u >> 32;
            r[j - 1] = u & LOW;
        }
        // Below 2^32 by the no-carry condition.
        r[m - 1] = c1 + c2;
    }
    let mut out = [0u64; N];
    for (l, limb) in out.iter_mut().enumerate() {
        *limb = r[2 * l] | (r[2 * l + 1] << 32);
    }
    reduce_once(out, 0, p)
}

/// Bits per limb of [`mul_by_29_bit_limbs`].
const BITS29: u32 = 29;
const MASK29: u64 = (1 << BITS29) - 1;
/// The most 29-bit limbs [`mul_by_29_bit_limbs`] unrolls (six 64-bit limbs).
const MAX_LIMBS29: usize = 14;

/// The 29-bit limbs of `x 2^shift` (`x` in `N` 64-bit limbs, little end
/// first; `shift < 29`), `count` of them, the top ones zero past its bits.
#[inline(always)]
pub(crate) fn limbs29<const N: usize>(
    x: &[u64; N],
    shift: usize,
    count: usize,
) -> [u64; MAX_LIMBS29] {
    let mut out = [0u64; MAX_LIMBS29];
    for (k, limb) in out.iter_mut().enumerate().take(count) {
        // Bits [29k - shift, 29k - shift + 29) of x.
        let start = BITS29 as usize * k;
        let v = if start < shift {
            x[0] << (shift - start)
        } else {
            let (word, off) = ((start - shift) / 64, (start - shift) % 64);
            let low = if word < N { x[word] >> off } else { 0 };
            let high = if off + BITS29 as usize > 64 && word + 1 < N {
                x[word + 1] << (64 - off)
            } else {
                0
            };
            low | high
        };
        *limb = v & MASK29;
    }
    out
}

/// `a * b * 2^(-64 N) mod p` (see [`mul_no_carry`]'s conditions) on limbs
/// of 29 bits, each in a `u64`, with lazy carries: WebAssembly's kernel.
///
/// WebAssembly multiplies 64 by 64 bits but keeps only the low half. On
/// 32-bit words (as [`mul_no_carry_by_words`]) every word product fills
/// its `u64`, so each one is followed by its carry (a shift and a mask
/// on the critical path). A product of two 29-bit limbs takes 58 bits, so
/// a `u64` column holds 64 of them: here the `L = ceil(64 N / 29)` limbs'
/// products and the reduction's are summed into columns without carries,
/// and only the column that a Montgomery round retires is carried (into
/// the next), one carry a round instead of one a product. (The approach
/// of the ZPrize 2022 WebAssembly MSM entries; more multiplies, 2 L^2
/// against 8 N^2, but no carry chains between them.)
///
/// Montgomery's radix here is `2^(29 L)` (`2^261` for four limbs, not
/// arkworks' `2^256`): `a` enters as `a 2^s` with `s = 29 L - 64 N`, so
/// the result, `a 2^s b 2^(-29 L)`, is arkworks' `a b 2^(-64 N)`, the same
/// bits once reduced. Bounds: `a 2^s < 2^(29 L)`; the reduced sum
/// `(a 2^s b + m p) / 2^(29 L) < 2 p`, so one conditional subtraction; a
/// column holds at most `2 L` products of under `2^58` and a carry, under
/// `2^64` for `L <= 31`.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline(always)]
pub(crate) fn mul_by_29_bit_limbs<const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let l = (64 * N).div_ceil(BITS29 as usize);
    let shift = BITS29 as usize * l - 64 * N;
    let (aw, bw, pw) = (limbs29(a, shift, l), limbs29(b, 0, l), limbs29(p, 0, l));
    // -p^-1 mod 2^29, the low bits of -p^-1 mod 2^64 (the fallback below
    // takes the whole of it).
    let inv29 = inv & MASK29;
    // Columns: t[c] sums the products of weight 2^(29 c).
    let mut t = [0u64; 2 * MAX_LIMBS29];
    // The rounds written out, so that every index is a constant and the
    // columns live in locals (a loop kept by the compiler would keep them
    // in linear memory, which WebAssembly engines do not promote).
    macro_rules! rounds {
        ($($i:literal)*) => {{
            $(round29(&mut t, $i, l, aw[$i], &bw, &pw, inv29);)*
        }};
    }
    match l {
        9 => rounds!(0 1 2 3 4 5 6 7 8),
        14 => rounds!(0 1 2 3 4 5 6 7 8 9 10 11 12 13),
        _ => return mul_no_carry_by_words(a, b, p, inv),
    }
    // Columns l..2l to 29-bit limbs (the value is under 2 p < 2^(64 N)).
    let mut carry = 0u64;
    for limb in t.iter_mut().skip(l).take(l) {
        let v = *limb + carry;
        *limb = v & MASK29;
        carry = v >> BITS29;
    }
    let mut out = [0u64; N];
    for (w, word) in out.iter_mut().enumerate() {
        for (k, &limb) in t[l..].iter().enumerate().take(l) {
            let (at, from) = (BITS29 as usize * k, 64 * w);
            if at >= from && at < from + 64 {
                *word |= limb << (at - from);
            } else if at < from && at + BITS29 as usize > from {
                *word |= limb >> (from - at);
            }
        }
    }
    reduce_once(out, 0, p)
}

/// One Montgomery round of [`mul_by_29_bit_limbs`]: `a_i b` into the
/// columns from `i`, then the multiple of `p` that clears column `i`'s low
/// 29 bits, whose carry joins column `i + 1`.
#[inline(always)]
fn round29(
    t: &mut [u64; 2 * MAX_LIMBS29],
    i: usize,
    l: usize,
    ai: u64,
    bw: &[u64; MAX_LIMBS29],
    pw: &[u64; MAX_LIMBS29],
    inv: u64,
) {
    for j in 0..l {
        t[i + j] += ai * bw[j];
    }
    let m = ((t[i] & MASK29) * inv) & MASK29;
    for j in 0..l {
        t[i + j] += m * pw[j];
    }
    t[i + 1] += t[i] >> BITS29;
}

/// The radix-4 decimation-in-frequency butterfly of [`Adx::dif4`](crate::Adx::dif4) from an
/// element type's own operations (`scale` multiplies an element by a
/// twiddle): with `s = x0 + x2`, `t = x1 + x3`, `d = x0 - x2` and
/// `e = (x1 - x3) w4`, returns `[s + t, (s - t) w1, (d + e) w0, (d - e) w2]`
/// for `w = [w0, w1, w2]`. For kernels without a fused form, and for
/// elements that are not field elements (an NTT over group elements).
#[inline(always)]
pub fn dif4_with<E, W>(
    x: [&E; 4],
    w4: &W,
    w: [&W; 3],
    add: impl Fn(&E, &E) -> E,
    sub: impl Fn(&E, &E) -> E,
    scale: impl Fn(&E, &W) -> E,
) -> [E; 4] {
    let (s, t) = (add(x[0], x[2]), add(x[1], x[3]));
    let d = sub(x[0], x[2]);
    let e = scale(&sub(x[1], x[3]), w4);
    [
        add(&s, &t),
        scale(&sub(&s, &t), w[1]),
        scale(&add(&d, &e), w[0]),
        scale(&sub(&d, &e), w[2]),
    ]
}

#[cfg(test)]
mod tests {
    use super::{mul_by_29_bit_limbs, mul_no_carry, mul_no_carry_by_words, MASK29};
    use ark_ff::{AdditiveGroup, BigInt, Field, MontConfig, PrimeField, UniformRand};
    use rand::SeedableRng;

    /// The word kernel and the 29-bit-limb kernel against the limb kernel
    /// (its `u128` products) on a field's edge values (0, 1, 2, p - 2,
    /// p - 1, the Montgomery form of 1, full limbs) and 2,000 random pairs,
    /// as raw Montgomery limbs.
    fn words_equal_limbs<C: MontConfig<N>, const N: usize>() {
        let (p, inv) = (C::MODULUS.0, C::INV);
        let one = BigInt::<N>::from(1u64);
        let mut pm1 = p;
        pm1[0] -= 1;
        let mut pm2 = p;
        pm2[0] -= 2;
        // Every limb but the top one at its maximum, under a top limb of
        // zero and of p's top limb less one (every 29-bit limb full too).
        let mut low_full = [u64::MAX; N];
        low_full[N - 1] = 0;
        let mut all_full = [u64::MAX; N];
        all_full[N - 1] = p[N - 1] - 1;
        let edges = [
            [0u64; N],
            one.0,
            BigInt::<N>::from(2u64).0,
            pm2,
            pm1,
            C::R.0,
            low_full,
            all_full,
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(N as u64);
        let random = (0..2000).map(|_| {
            let x = ark_ff::Fp::<ark_ff::MontBackend<C, N>, N>::rand(&mut rng);
            x.0 .0
        });
        let values: Vec<[u64; N]> = edges.iter().copied().chain(random).collect();
        for (i, a) in values.iter().enumerate() {
            for b in values.iter().skip(i % 5).step_by(97).chain(&edges) {
                let want = mul_no_carry(a, b, &p, inv);
                assert_eq!(
                    mul_no_carry_by_words(a, b, &p, inv),
                    want,
                    "{a:x?} * {b:x?}"
                );
                assert_eq!(mul_by_29_bit_limbs(a, b, &p, inv), want, "{a:x?} * {b:x?}");
            }
        }
    }

    /// The limb counts the 29-bit kernel does not unroll (two, three and
    /// five limbs here) take the word kernel with the whole `inv`: odd
    /// moduli (Montgomery's product needs no prime) whose `-p^-1` has bits
    /// set above bit 29, against the `u128` kernel.
    fn fallback_agrees<const N: usize>(seed: u64) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let below = |p: &[u64; N], rng: &mut rand_chacha::ChaCha8Rng| {
            let mut x = [0u64; N];
            x.iter_mut().for_each(|l| *l = rand::RngCore::next_u64(rng));
            x[N - 1] %= p[N - 1];
            x
        };
        let mut tried = 0;
        while tried < 20 {
            let mut p = [0u64; N];
            p.iter_mut()
                .for_each(|l| *l = rand::RngCore::next_u64(&mut rng));
            p[0] |= 1;
            p[N - 1] = (p[N - 1] >> 2) | 1 << 60;
            let inv = super::neg_inv(p[0]);
            if inv & !MASK29 & 0xffff_ffff == 0 {
                continue;
            }
            tried += 1;
            let mut pm1 = p;
            pm1[0] -= 1;
            let mut values = vec![[0u64; N], pm1];
            values.extend((0..50).map(|_| below(&p, &mut rng)));
            for a in &values {
                for b in &values {
                    assert_eq!(
                        mul_by_29_bit_limbs(a, b, &p, inv),
                        mul_no_carry(a, b, &p, inv),
                        "{a:x?} * {b:x?} mod {p:x?}"
                    );
                }
            }
        }
    }

    #[test]
    fn limb_counts_not_unrolled_take_the_word_kernel() {
        fallback_agrees::<2>(2);
        fallback_agrees::<3>(3);
        fallback_agrees::<5>(5);
    }

    #[test]
    fn word_products_equal_limb_products_on_every_spare_bit_field() {
        words_equal_limbs::<ark_bn254::FqConfig, 4>();
        words_equal_limbs::<ark_bn254::FrConfig, 4>();
        words_equal_limbs::<ark_bls12_381::FqConfig, 6>();
        words_equal_limbs::<ark_bls12_381::FrConfig, 4>();
        words_equal_limbs::<ark_bls12_377::FqConfig, 6>();
        words_equal_limbs::<ark_bls12_377::FrConfig, 4>();
    }

    #[test]
    fn word_products_equal_arkworks_products() {
        // Not through the limb kernel: arkworks' own multiplication.
        type Fq = ark_bn254::Fq;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut xs: Vec<Fq> = vec![Fq::ZERO, Fq::ONE, -Fq::ONE, Fq::from(2u64)];
        xs.extend((0..500).map(|_| Fq::rand(&mut rng)));
        let (p, inv) = (
            <ark_bn254::FqConfig as MontConfig<4>>::MODULUS.0,
            <ark_bn254::FqConfig as MontConfig<4>>::INV,
        );
        for a in &xs {
            for b in xs.iter().step_by(11) {
                for got in [
                    mul_no_carry_by_words(&a.0 .0, &b.0 .0, &p, inv),
                    mul_by_29_bit_limbs(&a.0 .0, &b.0 .0, &p, inv),
                ] {
                    let got = Fq::new_unchecked(BigInt(got));
                    assert_eq!(got, *a * b, "{a} * {b}");
                    assert_eq!(got.into_bigint(), (*a * b).into_bigint());
                }
            }
        }
    }
}
