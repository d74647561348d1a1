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
#[cfg(any(not(target_arch = "wasm32"), debug_assertions))]
#[inline(always)]
fn mac(acc: u64, a: u64, b: u64, carry: &mut u64) -> u64 {
    let t = acc as u128 + (a as u128) * (b as u128) + *carry as u128;
    *carry = (t >> 64) as u64;
    t as u64
}

/// [`mac`] on WebAssembly, which has no 64x64->128-bit multiply: there a
/// `u128` product is a call to compiler-rt's `__multi3` (a 128x128-bit
/// product: more multiplies than needed, and a call per limb product), so
/// the product is [`mul_wide`]'s four 32x32->64-bit multiplies, inline.
/// Optimised builds only: unoptimised, the inlined halves give functions
/// more locals than V8 compiles ("local count too large").
#[cfg(all(target_arch = "wasm32", not(debug_assertions)))]
#[inline(always)]
fn mac(acc: u64, a: u64, b: u64, carry: &mut u64) -> u64 {
    mac_by_halves(acc, a, b, carry)
}

/// The body of WebAssembly's [`mac`], on every target so that its tests
/// run natively.
#[cfg_attr(any(not(target_arch = "wasm32"), debug_assertions), allow(dead_code))]
#[inline(always)]
fn mac_by_halves(acc: u64, a: u64, b: u64, carry: &mut u64) -> u64 {
    let (lo, hi) = mul_wide(a, b);
    let (s, c1) = lo.overflowing_add(acc);
    let (s, c2) = s.overflowing_add(*carry);
    // a b + acc + carry < 2^128: the high limb takes both carries.
    *carry = hi + c1 as u64 + c2 as u64;
    s
}

/// `a b` as `(low, high)` 64-bit limbs from four 32x32->64-bit products
/// (schoolbook on 32-bit halves; the middle sum cannot overflow: three
/// terms below 2^32 each).
#[cfg_attr(any(not(target_arch = "wasm32"), debug_assertions), allow(dead_code))]
#[inline(always)]
fn mul_wide(a: u64, b: u64) -> (u64, u64) {
    const LOW: u64 = 0xffff_ffff;
    let (a0, a1) = (a & LOW, a >> 32);
    let (b0, b1) = (b & LOW, b >> 32);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 32) + (p01 & LOW) + (p10 & LOW);
    let lo = (p00 & LOW) | (mid << 32);
    let hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    (lo, hi)
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
    use super::{mac_by_halves, mul_wide};

    /// Edge limbs: 0, 1, the 32-bit boundaries, the top bit, all ones.
    const EDGES: [u64; 9] = [
        0,
        1,
        2,
        0xffff_ffff,
        0x1_0000_0000,
        0x1_0000_0001,
        1 << 63,
        u64::MAX - 1,
        u64::MAX,
    ];

    fn values() -> Vec<u64> {
        // EDGES, then 2,000 values of a xorshift sequence.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut v = EDGES.to_vec();
        v.extend((0..2000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }));
        v
    }

    #[test]
    fn products_by_halves_equal_u128_products() {
        let v = values();
        for (i, &a) in v.iter().enumerate() {
            for &b in v.iter().skip(i % 7).step_by(37).chain(&EDGES) {
                let want = a as u128 * b as u128;
                assert_eq!(
                    mul_wide(a, b),
                    (want as u64, (want >> 64) as u64),
                    "{a:#x} {b:#x}"
                );
            }
        }
    }

    #[test]
    fn mac_by_halves_equals_the_u128_sum() {
        let v = values();
        for (i, &a) in v.iter().enumerate() {
            let acc = v[(i * 31 + 5) % v.len()];
            let c = v[(i * 17 + 3) % v.len()];
            for &b in v.iter().step_by(53).chain(&EDGES) {
                let want = acc as u128 + a as u128 * b as u128 + c as u128;
                let mut carry = c;
                let lo = mac_by_halves(acc, a, b, &mut carry);
                assert_eq!(
                    (lo, carry),
                    (want as u64, (want >> 64) as u64),
                    "{acc:#x} + {a:#x} {b:#x} + {c:#x}"
                );
            }
        }
        // The largest sum: (2^64-1)^2 + 2 (2^64-1) = 2^128 - 1.
        let mut carry = u64::MAX;
        assert_eq!(
            mac_by_halves(u64::MAX, u64::MAX, u64::MAX, &mut carry),
            u64::MAX
        );
        assert_eq!(carry, u64::MAX);
    }
}
