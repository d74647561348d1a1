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
