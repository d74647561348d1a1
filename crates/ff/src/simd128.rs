//! Affine point additions by the chord rule, eight at a time in
//! WebAssembly's SIMD128 lanes, all inverses of a batch from one inversion
//! (Montgomery's trick): the MSM's bucket additions of four-limb curves
//! whose base field is below `2^254` (BN254 G1) in a module built with
//! `-C target-feature=+simd128` (the npm package's).
//!
//! Eight elements are two sets of four `i32x4` lanes, each element nine
//! limbs of 29 bits (limb `j` of element `4 s + i` is lane `i` of
//! `v[s][j]`). A product is Montgomery's with radix `R' = 2^261` by
//! columns: each column's 32 x 32 -> 64-bit limb products
//! (`u64x2.extmul`) summed without carries, its digit of the multiple of
//! `p` found from the sum, its carry passed on; the two sets interleaved
//! column by column, which hides each column's chain. That product runs
//! 1.24x the scalar 29-bit kernel's speed in node 20 and 1.46x in Chromium
//! 156 (`crates/ff/examples/wasm_lanes.rs`, benches/results/browser.md):
//! V8 turns each `extmul` into two unpacks and a `vpmuludq`, so the lanes
//! gain only the vector multiplier's second port.
//!
//! Values in the lanes are not reduced: every value below `64 p < 2^260`
//! and every product's result below `(a b) / R' + p` (the bounds are at
//! each step of [`add_affine_batch`]). Arkworks' elements (Montgomery form
//! with `R = 2^256`) enter as their limbs and leave fully reduced; where a
//! product must keep R form, one factor is shifted left by 5 bits in the
//! lanes first (times `R' / R`).

use crate::portable::{limbs29, neg_inv};
use crate::MontField;
use core::arch::wasm32::*;

const BITS: u32 = 29;
const MASK: u32 = (1 << BITS) - 1;
/// Limbs a value takes: `29 * 9 = 261` bits.
const L: usize = 9;

/// Eight values: two sets of four lanes of nine limbs.
type Oct = [[v128; L]; 2];

/// The modulus in the lanes' forms.
struct Consts {
    /// `p` in 64-bit words.
    words: [u64; 4],
    /// The 29-bit limbs of `p`, each in every lane.
    p: [v128; L],
    /// `-p^-1 mod 2^29` in every lane.
    inv: v128,
    /// The limbs of `4 p` (normalised), each in every lane: with [`Consts::p`]
    /// the offsets that keep a difference positive.
    p4: [v128; L],
}

impl Consts {
    fn of<F: MontField>() -> Self {
        let words: [u64; 4] = core::array::from_fn(|i| F::MODULUS.as_ref()[i]);
        let limbs = limbs29(&words, 0, L);
        let multiple = |k: u64| -> [v128; L] {
            let mut carry = 0u64;
            core::array::from_fn(|j| {
                let v = limbs[j] * k + carry;
                carry = v >> BITS;
                u32x4_splat((v & MASK as u64) as u32)
            })
        };
        Consts {
            words,
            p: multiple(1),
            inv: u32x4_splat((neg_inv(words[0]) & MASK as u64) as u32),
            p4: multiple(4),
        }
    }
}

/// Whether [`add_affine_batch`] takes elements of `F`: four limbs and a
/// modulus below `2^254` (the lanes' bounds need it).
pub fn fits<F: MontField>() -> bool {
    F::LIMBS == 4 && F::MODULUS.as_ref()[3] >> 62 == 0
}

/// The 4x4 transpose of 32-bit lanes: lane `i` of output `k` is lane `k`
/// of input `i`.
#[inline(always)]
fn transpose(r: [v128; 4]) -> [v128; 4] {
    let t0 = i32x4_shuffle::<0, 4, 1, 5>(r[0], r[1]);
    let t1 = i32x4_shuffle::<0, 4, 1, 5>(r[2], r[3]);
    let t2 = i32x4_shuffle::<2, 6, 3, 7>(r[0], r[1]);
    let t3 = i32x4_shuffle::<2, 6, 3, 7>(r[2], r[3]);
    [
        i32x4_shuffle::<0, 1, 4, 5>(t0, t1),
        i32x4_shuffle::<2, 3, 6, 7>(t0, t1),
        i32x4_shuffle::<0, 1, 4, 5>(t2, t3),
        i32x4_shuffle::<2, 3, 6, 7>(t2, t3),
    ]
}

/// Four values below `2^256` (64-bit words) into nine 29-bit limb vectors:
/// the words transposed into eight vectors of 32-bit words, each limb cut
/// from one or two of them.
#[inline(always)]
fn pack4(xs: [[u64; 4]; 4]) -> [v128; L] {
    let low = transpose(xs.map(|x| u64x2(x[0], x[1])));
    let high = transpose(xs.map(|x| u64x2(x[2], x[3])));
    let word = |w: usize| if w < 4 { low[w] } else { high[w - 4] };
    let mask = u32x4_splat(MASK);
    core::array::from_fn(|j| {
        let (w, off) = ((BITS as usize * j) / 32, (BITS as usize * j) % 32);
        let mut limb = u32x4_shr(word(w), off as u32);
        if off + BITS as usize > 32 && w + 1 < 8 {
            limb = v128_or(limb, i32x4_shl(word(w + 1), (32 - off) as u32));
        }
        v128_and(limb, mask)
    })
}

/// Eight elements into the lanes (lanes past `xs`' end take `pad`).
#[inline(always)]
fn pack<F: MontField>(xs: &[F], pad: &[u64; 4]) -> Oct {
    let word = |e: usize| xs.get(e).map_or(*pad, |x| x.mont_words::<4>());
    core::array::from_fn(|s| pack4(core::array::from_fn(|i| word(4 * s + i))))
}

/// Four values below `2^256` from nine 29-bit limb vectors to 64-bit
/// words: [`pack4`] backwards.
#[inline(always)]
fn unpack4(v: &[v128; L]) -> [[u64; 4]; 4] {
    let words: [v128; 8] = core::array::from_fn(|w| {
        let mut acc = u32x4_splat(0);
        for (j, &limb) in v.iter().enumerate() {
            let (at, from) = (BITS as usize * j, 32 * w);
            if at >= from && at < from + 32 {
                acc = v128_or(acc, i32x4_shl(limb, (at - from) as u32));
            } else if at < from && at + BITS as usize > from {
                acc = v128_or(acc, u32x4_shr(limb, (from - at) as u32));
            }
        }
        acc
    });
    let low = transpose([words[0], words[1], words[2], words[3]]);
    let high = transpose([words[4], words[5], words[6], words[7]]);
    core::array::from_fn(|i| {
        [
            u64x2_extract_lane::<0>(low[i]),
            u64x2_extract_lane::<1>(low[i]),
            u64x2_extract_lane::<0>(high[i]),
            u64x2_extract_lane::<1>(high[i]),
        ]
    })
}

/// The eight values of `v` (each below `4 p`), fully reduced, in 64-bit
/// words.
fn unpack(v: &Oct, c: &Consts) -> [[u64; 4]; 8] {
    let (a, b) = (unpack4(&v[0]), unpack4(&v[1]));
    core::array::from_fn(|e| {
        let mut w = if e < 4 { a[e] } else { b[e - 4] };
        // Subtract p while it fits: usually once or not at all, where three
        // branch-free subtractions (`portable::reduce_once`) cost 3-4% of a
        // dense proof.
        while !less(&w, &c.words) {
            let mut borrow = false;
            for (x, &p) in w.iter_mut().zip(&c.words) {
                let (d, b1) = x.overflowing_sub(p);
                let (d, b2) = d.overflowing_sub(borrow as u64);
                (*x, borrow) = (d, b1 | b2);
            }
        }
        w
    })
}

/// `a < b` on 64-bit words, most significant last.
fn less(a: &[u64; 4], b: &[u64; 4]) -> bool {
    for i in (0..4).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

/// `a - b + k p` with `off` the limbs of `k p` (`b < k p`), normalised.
#[inline(always)]
fn sub(a: &Oct, b: &Oct, off: &[v128; L]) -> Oct {
    let mask = u32x4_splat(MASK);
    core::array::from_fn(|s| {
        let mut d: [v128; L] =
            core::array::from_fn(|j| i32x4_sub(i32x4_add(a[s][j], off[j]), b[s][j]));
        for j in 0..L - 1 {
            let carry = i32x4_shr(d[j], BITS);
            d[j] = v128_and(d[j], mask);
            d[j + 1] = i32x4_add(d[j + 1], carry);
        }
        d
    })
}

/// `x 2^5` for `x < 2^256`.
#[inline(always)]
fn shl5(x: &Oct) -> Oct {
    let mask = u32x4_splat(MASK);
    core::array::from_fn(|s| {
        core::array::from_fn(|j| {
            let up = v128_and(i32x4_shl(x[s][j], 5), mask);
            if j == 0 {
                up
            } else {
                v128_or(up, u32x4_shr(x[s][j - 1], BITS - 5))
            }
        })
    })
}

/// `a b / 2^261 mod p`, below `a b / 2^261 + p`, by columns, the two sets
/// interleaved.
#[inline(always)]
fn mul(a: &Oct, b: &Oct, c: &Consts) -> Oct {
    let (mask, mask32, z) = (u64x2_splat(MASK as u64), u32x4_splat(MASK), u64x2_splat(0));
    let (mut carry_lo, mut carry_hi) = ([z; 2], [z; 2]);
    let mut m = [[z; L]; 2];
    let mut out = [[z; L]; 2];
    for col in 0..2 * L {
        let (mut lo, mut hi) = (carry_lo, carry_hi);
        for i in col.saturating_sub(L - 1)..=col.min(L - 1) {
            for s in 0..2 {
                lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(a[s][i], b[s][col - i]));
                hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(a[s][i], b[s][col - i]));
            }
        }
        for i in col.saturating_sub(L - 1)..col.min(L) {
            for s in 0..2 {
                lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(m[s][i], c.p[col - i]));
                hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(m[s][i], c.p[col - i]));
            }
        }
        for s in 0..2 {
            if col < L {
                // The digit that clears this column's low 29 bits.
                let t = i32x4_shuffle::<0, 2, 4, 6>(lo[s], hi[s]);
                m[s][col] = v128_and(i32x4_mul(v128_and(t, mask32), c.inv), mask32);
                lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(m[s][col], c.p[0]));
                hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(m[s][col], c.p[0]));
            } else {
                out[s][col - L] =
                    i32x4_shuffle::<0, 2, 4, 6>(v128_and(lo[s], mask), v128_and(hi[s], mask));
            }
            carry_lo[s] = u64x2_shr(lo[s], BITS);
            carry_hi[s] = u64x2_shr(hi[s], BITS);
        }
    }
    out
}

/// `(px[i], py[i]) += (qx[i], qy[i])` for every `i`: affine points added by
/// the chord rule in the lanes, eight at a time, all inverses from one
/// batched inversion (Montgomery's trick over eight interleaved chains,
/// then one scalar batch inversion of the eight chain products). Every
/// `px[i] != qx[i]` and neither point is the identity (the caller routes
/// doublings and `P + (-P)` elsewhere; breaking this gives wrong points,
/// never undefined behaviour). Results are arkworks' values, fully
/// reduced. `false`, touching nothing, where [`fits`] does not hold or the
/// slices' lengths differ.
///
/// Six lane products an addition, as the scalar chord rule: three for the
/// inversion, `λ`, `λ^2` and `λ (x_p - x_3)`.
pub fn add_affine_batch<F: MontField>(px: &mut [F], py: &mut [F], qx: &[F], qy: &[F]) -> bool {
    let n = px.len();
    if !fits::<F>() || py.len() != n || qx.len() != n || qy.len() != n {
        return false;
    }
    if n == 0 {
        return true;
    }
    let c = Consts::of::<F>();
    let (zero, one) = ([0u64; 4], <F as ark_ff::Field>::ONE.mont_words::<4>());
    let groups = n.div_ceil(8);
    let (mut xs, mut dx) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
    let mut prefix: Vec<Oct> = Vec::with_capacity(groups);
    for t in 0..groups {
        let at = 8 * t..n.min(8 * t + 8);
        // Lanes past the end add (1, 0) to (0, 0), which keeps every
        // denominator non-zero.
        let (xp, xq) = (pack(&px[at.clone()], &zero), pack(&qx[at], &one));
        // d = x_q - x_p + p in (0, 2p), as R-form values d R.
        let d = sub(&xq, &xp, &c.p);
        // prefix_t = (d_0 ... d_t) R 2^(-5 t): each product of R-form
        // values divides by R' = R 2^5. Below 2p.
        let pre = match prefix.last() {
            Some(last) => mul(last, &d, &c),
            None => d,
        };
        prefix.push(pre);
        dx.push(d);
        xs.push((xp, xq));
    }
    // The eight chains' products as arkworks elements (D 2^(-5 T)), their
    // inverses (D^-1 2^(5 T), R form) start the way back:
    // inv_t = (d_0 ... d_t)^-1 2^(5 t) R throughout, and
    // inv_t prefix_(t-1) / R' = d_t^-1 R.
    let mut tops = unpack(&prefix[groups - 1], &c).map(F::from_mont_words::<4>);
    crate::batch_inverse(&mut tops);
    let mut inv = pack(&tops, &zero);
    for t in (0..groups).rev() {
        let d_inv = if t > 0 {
            let d_inv = mul(&inv, &prefix[t - 1], &c);
            inv = mul(&inv, &dx[t], &c);
            d_inv
        } else {
            inv
        };
        let at = 8 * t..n.min(8 * t + 8);
        let (xp, xq) = &xs[t];
        let yp = pack(&py[at.clone()], &zero);
        // (y_q - y_p) R in (0, 2p), then times 2^5 (below 64p): its product
        // with d^-1 R is λ R.
        let dy = shl5(&sub(&pack(&qy[at.clone()], &zero), &yp, &c.p));
        let lambda = mul(&dy, &d_inv, &c);
        // λ R' (below 64p), so that its products with R-form values are
        // R-form values.
        let lambda_r = shl5(&lambda);
        let x3 = sub(&sub(&mul(&lambda_r, &lambda, &c), xp, &c.p), xq, &c.p);
        let t3 = mul(&lambda_r, &sub(xp, &x3, &c.p4), &c);
        let y3 = sub(&t3, &yp, &c.p);
        let (x3, y3) = (unpack(&x3, &c), unpack(&y3, &c));
        for (l, i) in at.enumerate() {
            px[i] = F::from_mont_words(x3[l]);
            py[i] = F::from_mont_words(y3[l]);
        }
    }
    true
}
