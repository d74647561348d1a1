//! Affine point additions by the chord rule, sixteen at a time in
//! WebAssembly's SIMD128 lanes, all inverses of a batch from one inversion
//! (Montgomery's trick): the MSM's bucket additions of four-limb curves
//! whose base field is below `2^254` (BN254 G1, [`add_affine_batch`]) and
//! of their quadratic extensions with non-residue -1 (BN254 G2,
//! [`add_affine_batch_fp2`]) in a module built with
//! `-C target-feature=+simd128` (the npm package's).
//!
//! Sixteen elements are four sets of four `i32x4` lanes, each element nine
//! limbs of 29 bits (limb `j` of element `4 s + i` is lane `i` of
//! `v[s][j]`). A product is Montgomery's with radix `R' = 2^261` by
//! columns: each column's 32 x 32 -> 64-bit limb products
//! (`u64x2.extmul`) summed without carries, its digit of the multiple of
//! `p` found from the sum, its carry passed on; the four sets interleaved
//! column by column, which hides each column's chain. With two sets that
//! product ran 1.24x the scalar 29-bit kernel's speed in node 20 and 1.46x
//! in Chromium 156, with four 1.36-1.50x and 1.57x
//! (`crates/ff/examples/wasm_lanes.rs`, benches/results/browser.md); eight
//! sets run out of registers. V8 turns each `extmul` into two unpacks and
//! a `vpmuludq`, so the lanes gain only the vector multiplier's second
//! port and the overlap of independent chains. Dense proofs ran 1.10-1.14x
//! faster with four sets than with two.
//!
//! Values in the lanes are not reduced: every value below `64 p < 2^260`
//! and every product's result below `(a b) / R' + p` (the bounds are at
//! each step of [`add_affine_batch`]). Arkworks' elements (Montgomery form
//! with `R = 2^256`) enter as their limbs and leave fully reduced; where a
//! product must keep R form, one factor is shifted left by 5 bits in the
//! lanes first (times `R' / R`).

use crate::portable::{limbs29, neg_inv};
use crate::MontField;
use ark_ff::{Fp2, Fp2Config};
use core::arch::wasm32::*;

const BITS: u32 = 29;
const MASK: u32 = (1 << BITS) - 1;
/// Limbs a value takes: `29 * 9 = 261` bits.
const L: usize = 9;

/// Sets of four lanes a [`Group`] holds, interleaved in every product: four
/// sets ran products 1.03-1.26x faster than two in node 20 (three runs) and
/// 1.10x in Chromium 156 (`crates/ff/examples/wasm_lanes.rs`), where two
/// independent products of two sets one after the other gained nothing.
const SETS: usize = 4;
/// Values a [`Group`] holds.
const WIDTH: usize = 4 * SETS;

/// The indices of group `t` of a batch of `n` values: [`WIDTH`] of them, or
/// fewer in the last group.
fn group_at(t: usize, n: usize) -> core::ops::Range<usize> {
    WIDTH * t..n.min(WIDTH * t + WIDTH)
}

/// [`WIDTH`] values: [`SETS`] sets of four lanes of nine limbs.
type Group = [[v128; L]; SETS];

/// [`WIDTH`] `Fp2` values: their components' [`Group`]s.
type Group2 = [Group; 2];

/// The modulus in the lanes' forms.
struct Consts {
    /// `p` in 64-bit words.
    words: [u64; 4],
    /// The 29-bit limbs of `p`, each in every lane.
    p: [v128; L],
    /// `-p^-1 mod 2^29` in every lane.
    inv: v128,
    /// The limbs of `2 p`, `3 p` and `4 p` (normalised), each in every lane:
    /// with [`Consts::p`] the offsets that keep a difference positive.
    p2: [v128; L],
    p3: [v128; L],
    p4: [v128; L],
    /// `floor(2^72 / (w + 1))` for `p`'s top word `w`, at most
    /// `floor(2^264 / p)`, in every lane: [`reduce`]'s estimate of a
    /// quotient.
    recip: v128,
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
            p2: multiple(2),
            p3: multiple(3),
            p4: multiple(4),
            // At most 2^11 for a modulus from 2^253 ([`fits_fp2`]); capped
            // below 2^12 for the others, where it only weakens [`reduce`]
            // (times a 17-bit value it fits a lane).
            recip: u32x4_splat(((1u128 << 72) / (words[3] as u128 + 1)).min(4095) as u32),
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

/// [`WIDTH`] elements into the lanes (lanes past `xs`' end take `pad`).
#[inline(always)]
fn pack<F: MontField>(xs: &[F], pad: &[u64; 4]) -> Group {
    pack_by(xs, |x| x, pad)
}

/// [`WIDTH`] elements `part(&xs[e])` into the lanes (lanes past `xs`' end take
/// `pad`): a component of each `Fp2` element, or the element itself.
#[inline(always)]
fn pack_by<T, F: MontField>(xs: &[T], part: impl Fn(&T) -> &F, pad: &[u64; 4]) -> Group {
    let word = |e: usize| xs.get(e).map_or(*pad, |x| part(x).mont_words::<4>());
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

/// The [`WIDTH`] values of `v` (each below `4 p`), fully reduced, in 64-bit
/// words.
fn unpack(v: &Group, c: &Consts) -> [[u64; 4]; WIDTH] {
    let sets = v.map(|set| unpack4(&set));
    core::array::from_fn(|e| {
        let mut w = sets[e / 4][e % 4];
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

/// Limbs whose sums or differences left them outside 29 bits (each above
/// `-2^31` and below `2^31`), carried into 29-bit limbs; the value must be
/// non-negative.
#[inline(always)]
fn normalize(mut d: [v128; L]) -> [v128; L] {
    let mask = u32x4_splat(MASK);
    for j in 0..L - 1 {
        let carry = i32x4_shr(d[j], BITS);
        d[j] = v128_and(d[j], mask);
        d[j + 1] = i32x4_add(d[j + 1], carry);
    }
    d
}

/// `a - b + k p` with `off` the limbs of `k p` (`b < k p`), normalised.
#[inline(always)]
fn sub(a: &Group, b: &Group, off: &[v128; L]) -> Group {
    core::array::from_fn(|s| {
        normalize(core::array::from_fn(|j| {
            i32x4_sub(i32x4_add(a[s][j], off[j]), b[s][j])
        }))
    })
}

/// `k p - b` (`b < k p`, `off` the limbs of `k p`), normalised.
#[inline(always)]
fn neg(b: &Group, off: &[v128; L]) -> Group {
    core::array::from_fn(|s| normalize(core::array::from_fn(|j| i32x4_sub(off[j], b[s][j]))))
}

/// `a + b` (below `2^261`), normalised.
#[inline(always)]
fn add(a: &Group, b: &Group) -> Group {
    core::array::from_fn(|s| normalize(core::array::from_fn(|j| i32x4_add(a[s][j], b[s][j]))))
}

/// `v - q p` for `v < 8 p` and a modulus from `2^253`, with `q <= v / p`
/// estimated from `v`'s top 17 bits: the result is below `1.26 p` (the
/// estimate `floor(v / 2^244) Consts::recip / 2^20` falls short of `v / p`
/// by less than `1 + 2^17 2 / 2^20 + 2^244 / p`).
#[inline(always)]
fn reduce(v: &Group, c: &Consts) -> Group {
    let mask = u32x4_splat(MASK);
    core::array::from_fn(|s| {
        // Limb 8 holds bits 232 to 260.
        let q = u32x4_shr(i32x4_mul(u32x4_shr(v[s][L - 1], 12), c.recip), 20);
        let mut high = u32x4_splat(0);
        normalize(core::array::from_fn(|j| {
            // q p_j < 8 2^29 fits 32 bits: its low 29 bits here, the rest
            // from the next limb.
            let qp = i32x4_mul(q, c.p[j]);
            let d = i32x4_sub(i32x4_sub(v[s][j], v128_and(qp, mask)), high);
            high = u32x4_shr(qp, BITS);
            d
        }))
    })
}

/// `x 2^5` for `x < 2^256`.
#[inline(always)]
fn shl5(x: &Group) -> Group {
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

/// `a b / 2^261 mod p`, below `a b / 2^261 + p`, by columns, the sets
/// interleaved.
#[inline(always)]
fn mul(a: &Group, b: &Group, c: &Consts) -> Group {
    mul_sum([a], [b], c)
}

/// `(a_0 b_0 + ... ) / 2^261 mod p`, below `(a_0 b_0 + ...) / 2^261 + p`:
/// [`mul`] with the `K` products summed in each column and reduced once
/// (`K <= 2`: a column's sum stays below `27 * 2^58 < 2^64`).
#[inline(always)]
fn mul_sum<const K: usize>(a: [&Group; K], b: [&Group; K], c: &Consts) -> Group {
    let (mask, mask32, z) = (u64x2_splat(MASK as u64), u32x4_splat(MASK), u64x2_splat(0));
    let (mut carry_lo, mut carry_hi) = ([z; SETS], [z; SETS]);
    let mut m = [[z; L]; SETS];
    let mut out = [[z; L]; SETS];
    for col in 0..2 * L {
        let (mut lo, mut hi) = (carry_lo, carry_hi);
        for k in 0..K {
            for i in col.saturating_sub(L - 1)..=col.min(L - 1) {
                for s in 0..SETS {
                    lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(a[k][s][i], b[k][s][col - i]));
                    hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(a[k][s][i], b[k][s][col - i]));
                }
            }
        }
        for i in col.saturating_sub(L - 1)..col.min(L) {
            for s in 0..SETS {
                lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(m[s][i], c.p[col - i]));
                hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(m[s][i], c.p[col - i]));
            }
        }
        for s in 0..SETS {
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

/// The inverses `d_t^-1 R` of every group's denominators `d_t` (R-form
/// values below `4p`, none zero), below `2p`: Montgomery's trick over the
/// [`WIDTH`] lanes' chains, then one scalar batch inversion of the
/// [`WIDTH`] chain products. The prefix products `(d_0 ... d_t) R 2^(-5 t)`
/// (each product of R-form values divides by `R' = R 2^5`), the last one's values
/// as arkworks elements (`D 2^(-5 T)`) inverted (`D^-1 2^(5 T)`, R form),
/// then on the way back `inv_t = (d_0 ... d_t)^-1 2^(5 t) R` throughout,
/// and `inv_t prefix_(t-1) / R' = d_t^-1 R`.
fn inverses<F: MontField>(dens: &[Group], c: &Consts) -> Vec<Group> {
    let mut prefix: Vec<Group> = Vec::with_capacity(dens.len());
    for d in dens {
        let pre = match prefix.last() {
            Some(last) => mul(last, d, c),
            None => *d,
        };
        prefix.push(pre);
    }
    let Some(top) = prefix.last() else {
        return prefix;
    };
    let mut tops = unpack(top, c).map(F::from_mont_words::<4>);
    crate::batch_inverse(&mut tops);
    let mut inv = pack(&tops, &[0u64; 4]);
    // Each group's inverse replaces its prefix product, from the last.
    for t in (1..dens.len()).rev() {
        prefix[t] = mul(&inv, &prefix[t - 1], c);
        inv = mul(&inv, &dens[t], c);
    }
    prefix[0] = inv;
    prefix
}

/// `(px[i], py[i]) += (qx[i], qy[i])` for every `i`: affine points added by
/// the chord rule in the lanes, sixteen at a time, all inverses from one
/// batched inversion (Montgomery's trick over sixteen interleaved chains,
/// then one scalar batch inversion of the sixteen chain products). Every
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
    let groups = n.div_ceil(WIDTH);
    let (mut xs, mut dx) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
    for t in 0..groups {
        let at = group_at(t, n);
        // Lanes past the end add (1, 0) to (0, 0), which keeps every
        // denominator non-zero.
        let (xp, xq) = (pack(&px[at.clone()], &zero), pack(&qx[at], &one));
        // d = x_q - x_p + p in (0, 2p), as R-form values d R.
        dx.push(sub(&xq, &xp, &c.p));
        xs.push((xp, xq));
    }
    let inverses = inverses::<F>(&dx, &c);
    for t in 0..groups {
        let d_inv = &inverses[t];
        let at = group_at(t, n);
        let (xp, xq) = &xs[t];
        let yp = pack(&py[at.clone()], &zero);
        // (y_q - y_p) R in (0, 2p), then times 2^5 (below 64p): its product
        // with d^-1 R is λ R.
        let dy = shl5(&sub(&pack(&qy[at.clone()], &zero), &yp, &c.p));
        let lambda = mul(&dy, d_inv, &c);
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

/// Whether [`add_affine_batch_fp2`] takes elements of `Fp2<P>`: `P::Fp` as
/// [`fits`] wants it and from `2^253` (BN254's Fq, the base field of G2's
/// coordinates), and the non-residue -1.
pub fn fits_fp2<P: Fp2Config>() -> bool
where
    P::Fp: MontField,
{
    fits::<P::Fp>()
        && <P::Fp as ark_ff::PrimeField>::MODULUS.as_ref()[3] >> 61 != 0
        && P::NONRESIDUE == -<P::Fp as ark_ff::Field>::ONE
}

/// [`add_affine_batch`] over `Fp2<P>` ([`fits_fp2`]: BN254's G2), sixteen
/// additions at a time, each coordinate's two components in two
/// [`Group`]s.
/// `false`, touching nothing, where [`fits_fp2`] does not hold or the
/// slices' lengths differ; the points' contract is [`add_affine_batch`]'s.
///
/// The inverse of `d = x_q - x_p` is `conj(d) / N(d)` with the norm
/// `N(d) = d_0^2 + d_1^2` in the base field (non-zero where `d` is, -1 being
/// a non-residue), so Montgomery's trick runs over the norms, as in the
/// base field. Every sum of two products (`a_0 b_0 + a_1 b_1`) is reduced
/// once, its products summed by columns: 15 lane products' worth an addition
/// (norm 1.5, the trick 3, `dy conj(d)` 3, `λ` 2, `λ^2` 2.5,
/// `λ (x_p - x_3)` 3), where the scalar chord rule on Karatsuba's `Fp2`
/// takes 17 base products.
///
/// Bounds (with `p < 2^254`, the product of `32 a` and `b` is below
/// `a b / 2^256 + p < a b / (4p) + p`): `d, dy < 2p`; the norm
/// below `3p`; `N^-1 < 1.01p`; `w = dy conj(d) < 3p`; `λ < 1.76p`;
/// `λ^2 < 2.65p`; `x_p - x_3 < 6p`; `λ (x_p - x_3) < 6.64p`; `x_3` and
/// `y_3` below `8p` before their partial reduction (below `1.26p`, from an
/// estimate of the quotient by `p` from the top bits).
pub fn add_affine_batch_fp2<P: Fp2Config>(
    px: &mut [Fp2<P>],
    py: &mut [Fp2<P>],
    qx: &[Fp2<P>],
    qy: &[Fp2<P>],
) -> bool
where
    P::Fp: MontField,
{
    let n = px.len();
    if !fits_fp2::<P>() || py.len() != n || qx.len() != n || qy.len() != n {
        return false;
    }
    if n == 0 {
        return true;
    }
    let c = Consts::of::<P::Fp>();
    let (zero, one) = ([0u64; 4], <P::Fp as ark_ff::Field>::ONE.mont_words::<4>());
    // Both components of sixteen elements.
    let pack2 = |xs: &[Fp2<P>], pad0: &[u64; 4]| -> Group2 {
        [pack_by(xs, |x| &x.c0, pad0), pack_by(xs, |x| &x.c1, &zero)]
    };
    let groups = n.div_ceil(WIDTH);
    let (mut xs, mut ds) = (Vec::with_capacity(groups), Vec::with_capacity(groups));
    let mut norms: Vec<Group> = Vec::with_capacity(groups);
    for t in 0..groups {
        let at = group_at(t, n);
        // Lanes past the end add (1, 0) to (0, 0): d = 1, norm 1.
        let (xp, xq) = (pack2(&px[at.clone()], &zero), pack2(&qx[at], &one));
        let d = [sub(&xq[0], &xp[0], &c.p), sub(&xq[1], &xp[1], &c.p)];
        // N(d) R: each shifted factor 32 d R over R' = 32 R.
        norms.push(mul_sum([&shl5(&d[0]), &shl5(&d[1])], [&d[0], &d[1]], &c));
        ds.push(d);
        xs.push((xp, xq));
    }
    // Each group's N^-1 R, as the base field's denominators' inverses.
    let inverses = inverses::<P::Fp>(&norms, &c);
    for t in 0..groups {
        let ((xp, xq), d, norm_inv) = (&xs[t], &ds[t], &inverses[t]);
        let at = group_at(t, n);
        let (yp, yq) = (pack2(&py[at.clone()], &zero), pack2(&qy[at.clone()], &zero));
        let dy = [sub(&yq[0], &yp[0], &c.p), sub(&yq[1], &yp[1], &c.p)];
        // w = dy conj(d) = (dy0 d0 + dy1 d1) + (dy1 d0 - dy0 d1) u.
        let (dy0, dy1) = (shl5(&dy[0]), shl5(&dy[1]));
        let w0 = mul_sum([&dy0, &dy1], [&d[0], &d[1]], &c);
        let w1 = mul_sum([&dy1, &shl5(&neg(&dy[0], &c.p2))], [&d[0], &d[1]], &c);
        // λ = w / N(d).
        let ni = shl5(norm_inv);
        let l = [mul(&ni, &w0, &c), mul(&ni, &w1, &c)];
        // λ^2 = (l0^2 - l1^2) + 2 l0 l1 u.
        let (l0, nl1) = (shl5(&l[0]), shl5(&neg(&l[1], &c.p2)));
        let sq = [
            mul_sum([&l0, &nl1], [&l[0], &l[1]], &c),
            mul(&shl5(&add(&l[0], &l[0])), &l[1], &c),
        ];
        // x3 = λ^2 - x_p - x_q and x_p - x3 = 2 x_p + x_q - λ^2.
        let sum: Group2 = core::array::from_fn(|k| add(&xp[k], &xq[k]));
        let x3: Group2 = core::array::from_fn(|k| reduce(&sub(&sq[k], &sum[k], &c.p2), &c));
        let u: Group2 = core::array::from_fn(|k| sub(&add(&sum[k], &xp[k]), &sq[k], &c.p3));
        // y3 = λ (x_p - x3) - y_p = (l0 u0 - l1 u1) + (l0 u1 + l1 u0) u - y_p.
        let t3 = [
            mul_sum([&l0, &nl1], [&u[0], &u[1]], &c),
            mul_sum([&l0, &shl5(&l[1])], [&u[1], &u[0]], &c),
        ];
        let y3: Group2 = core::array::from_fn(|k| reduce(&sub(&t3[k], &yp[k], &c.p), &c));
        let (x0, x1) = (unpack(&x3[0], &c), unpack(&x3[1], &c));
        let (y0, y1) = (unpack(&y3[0], &c), unpack(&y3[1], &c));
        for (e, i) in at.enumerate() {
            px[i] = Fp2::new(P::Fp::from_mont_words(x0[e]), P::Fp::from_mont_words(x1[e]));
            py[i] = Fp2::new(P::Fp::from_mont_words(y0[e]), P::Fp::from_mont_words(y1[e]));
        }
    }
    true
}
