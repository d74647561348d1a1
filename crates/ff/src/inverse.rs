//! Modular inversion by Bernstein and Yang's safegcd ("Fast constant-time
//! gcd computation and modular inversion", 2019) in its variable-time form:
//! 62 division steps at a time on the low words only, their 2x2 transition
//! matrix then applied to the full-width numbers, the way libsecp256k1's
//! `modinv64_var` organises it. Numbers are signed, in 62-bit limbs.
//!
//! arkworks inverts by the binary extended Euclidean algorithm, 6.3 µs for
//! a 256-bit prime on the 2-core Xeon of docs/msm.md, against 1.8 µs here;
//! the batch-affine MSM does one inversion per flush of at least 128 bucket
//! additions, which made arkworks' inversion about an eighth of a
//! 1,000-point MSM (docs/msm.md, "Inversion").
//!
//! Variable time: for public data only (the MSM's points).

use ark_ff::PrimeField;

/// The low 62 bits.
const M62: u64 = u64::MAX >> 2;

/// Signed 62-bit limbs for moduli of up to 512 bits: nine limbs hold
/// values in (-2^513, 2^513).
const LIMBS: usize = 9;

/// A number as signed 62-bit limbs, least significant first: limbs below
/// the top one in [0, 2^62) once carried, the top one signed.
type S62 = [i64; LIMBS];

/// `x^-1` in `F`, or `None` for zero; the same value as arkworks'
/// `Field::inverse`, 3.5-5x faster (variable time: for public data).
pub fn inverse<F: PrimeField>(x: &F) -> Option<F> {
    let xi = x.into_bigint();
    let p = F::MODULUS;
    let (xs, ps) = (xi.as_ref(), p.as_ref());
    let mut out = F::BigInt::default();
    if !inverse_limbs(xs, ps, out.as_mut()) {
        return None;
    }
    F::from_bigint(out)
}

/// Every non-zero element of `v` replaced by its inverse, zeros left as
/// they are (arkworks' `batch_inversion`): Montgomery's trick, three
/// products an element and one [`inverse`].
pub fn batch_inverse<F: PrimeField>(v: &mut [F]) {
    let mut prefix = Vec::with_capacity(v.len());
    let mut acc = F::one();
    for x in v.iter() {
        prefix.push(acc);
        if !x.is_zero() {
            acc *= x;
        }
    }
    // A product of non-zero elements (or one): never zero.
    let Some(mut inv) = inverse(&acc) else {
        return;
    };
    for (x, pre) in v.iter_mut().zip(prefix).rev() {
        if !x.is_zero() {
            let this = inv * pre;
            inv *= *x;
            *x = this;
        }
    }
}

/// `x^-1 mod p` for an odd prime `p` and `x < p` (little-endian 64-bit
/// words, all of one length up to 8) into `out`; false when `x` is zero.
fn inverse_limbs(x: &[u64], p: &[u64], out: &mut [u64]) -> bool {
    debug_assert!(x.len() == p.len() && out.len() == p.len() && p.len() <= 8 && p[0] & 1 == 1);
    if x.iter().all(|&w| w == 0) {
        return false;
    }
    // Limbs for values in (-2p, 2p) with a sign: 64n + 2 bits.
    let len = (64 * p.len() + 2) / 62 + 1;
    let pm = to_s62(p, len);
    // p^-1 mod 2^62, from -p^-1 mod 2^64.
    let inv62 = crate::portable::neg_inv(p[0]).wrapping_neg() & M62;
    // Invariants: d·x = f and e·x = g (mod p); f odd; d, e in (-2p, p).
    let (mut d, mut e) = ([0i64; LIMBS], [0i64; LIMBS]);
    e[0] = 1;
    let (mut f, mut g) = (pm, to_s62(x, len));
    let mut eta = -1i64;
    loop {
        let (next, t) = divsteps_62(eta, f[0] as u64, g[0] as u64);
        eta = next;
        update_de(&mut d, &mut e, &t, &pm, inv62, len);
        update_fg(&mut f, &mut g, &t, len);
        if g[..len].iter().all(|&w| w == 0) {
            break;
        }
    }
    // f is now the gcd up to sign: ±1 for a prime p and x below it.
    let negative = f[len - 1] < 0;
    if negative {
        negate(&mut d, len);
    }
    normalize(&mut d, &pm, len);
    from_s62(&d, len, out);
    true
}

/// 62 division steps on the low words `f0` (odd) and `g0`: the new `eta`
/// and the matrix `[u v; q r]` with `2^62 [f'; g'] = [u v; q r] [f; g]`.
/// Steps that only halve `g` are taken in bulk by counting its trailing
/// zeros; otherwise a multiple of `f` cancelling up to 4 or 6 low bits of
/// `g` is added at once.
fn divsteps_62(mut eta: i64, f0: u64, g0: u64) -> (i64, [i64; 4]) {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut i: u32 = 62;
    loop {
        let zeros = (g | (u64::MAX << i)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= i64::from(zeros);
        i -= zeros;
        if i == 0 {
            break;
        }
        // f and g are odd here.
        let w = if eta < 0 {
            eta = -eta;
            (f, g) = (g, f.wrapping_neg());
            (u, q) = (q, u.wrapping_neg());
            (v, r) = (r, v.wrapping_neg());
            let limit = (eta as u32).saturating_add(1).min(i);
            let m = (u64::MAX >> (64 - limit)) & 63;
            // -g / f mod 2^6: f (f^2 - 2) is -1/f there.
            f.wrapping_mul(g)
                .wrapping_mul(f.wrapping_mul(f).wrapping_sub(2))
                & m
        } else {
            let limit = (eta as u32).saturating_add(1).min(i);
            let m = (u64::MAX >> (64 - limit)) & 15;
            // 1/f mod 2^4.
            let f_inv = f.wrapping_add((f.wrapping_add(1) & 4) << 1);
            f_inv.wrapping_neg().wrapping_mul(g) & m
        };
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    (eta, [u as i64, v as i64, q as i64, r as i64])
}

/// `[d; e] = [u v; q r] [d; e] / 2^62 (mod p)`, keeping both in (-2p, p):
/// the multiple of p added makes the low 62 bits zero, and the sign terms
/// keep negative inputs from drifting down.
fn update_de(d: &mut S62, e: &mut S62, t: &[i64; 4], p: &S62, inv62: u64, len: usize) {
    let [u, v, q, r] = *t;
    let (sd, se) = (d[len - 1] >> 63, e[len - 1] >> 63);
    let mut md = (u & sd) + (v & se);
    let mut me = (q & sd) + (r & se);
    let w = |a: i64, b: i64| i128::from(a) * i128::from(b);
    let mut cd = w(u, d[0]) + w(v, e[0]);
    let mut ce = w(q, d[0]) + w(r, e[0]);
    md -= (inv62.wrapping_mul(cd as u64).wrapping_add(md as u64) & M62) as i64;
    me -= (inv62.wrapping_mul(ce as u64).wrapping_add(me as u64) & M62) as i64;
    cd += w(p[0], md);
    ce += w(p[0], me);
    debug_assert!(cd as u64 & M62 == 0 && ce as u64 & M62 == 0);
    cd >>= 62;
    ce >>= 62;
    for i in 1..len {
        cd += w(u, d[i]) + w(v, e[i]) + w(p[i], md);
        ce += w(q, d[i]) + w(r, e[i]) + w(p[i], me);
        d[i - 1] = (cd as u64 & M62) as i64;
        e[i - 1] = (ce as u64 & M62) as i64;
        cd >>= 62;
        ce >>= 62;
    }
    d[len - 1] = cd as i64;
    e[len - 1] = ce as i64;
}

/// `[f; g] = [u v; q r] [f; g] / 2^62` (exact: the division steps made the
/// low 62 bits zero).
fn update_fg(f: &mut S62, g: &mut S62, t: &[i64; 4], len: usize) {
    let [u, v, q, r] = *t;
    let w = |a: i64, b: i64| i128::from(a) * i128::from(b);
    let mut cf = w(u, f[0]) + w(v, g[0]);
    let mut cg = w(q, f[0]) + w(r, g[0]);
    debug_assert!(cf as u64 & M62 == 0 && cg as u64 & M62 == 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..len {
        cf += w(u, f[i]) + w(v, g[i]);
        cg += w(q, f[i]) + w(r, g[i]);
        f[i - 1] = (cf as u64 & M62) as i64;
        g[i - 1] = (cg as u64 & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = cf as i64;
    g[len - 1] = cg as i64;
}

/// Every limb below the top one into [0, 2^62), the carries upwards.
fn carry(a: &mut S62, len: usize) {
    for i in 0..len - 1 {
        let c = a[i] >> 62;
        a[i] = (a[i] as u64 & M62) as i64;
        a[i + 1] += c;
    }
}

/// `a = -a`.
fn negate(a: &mut S62, len: usize) {
    for limb in &mut a[..len] {
        *limb = -*limb;
    }
    carry(a, len);
}

/// `a` from (-2p, 2p) into [0, p).
fn normalize(a: &mut S62, p: &S62, len: usize) {
    carry(a, len);
    while a[len - 1] < 0 {
        for i in 0..len {
            a[i] += p[i];
        }
        carry(a, len);
    }
    loop {
        let mut b = *a;
        for i in 0..len {
            b[i] -= p[i];
        }
        carry(&mut b, len);
        if b[len - 1] < 0 {
            break;
        }
        *a = b;
    }
}

/// 64-bit words as `len` signed 62-bit limbs.
fn to_s62(x: &[u64], len: usize) -> S62 {
    let mut out = [0i64; LIMBS];
    for (i, limb) in out.iter_mut().enumerate().take(len) {
        let (w, s) = (62 * i / 64, 62 * i % 64);
        let mut bits = x.get(w).map_or(0, |&lo| lo >> s);
        if s > 2 {
            bits |= x.get(w + 1).map_or(0, |&hi| hi << (64 - s));
        }
        *limb = (bits & M62) as i64;
    }
    out
}

/// A carried, non-negative value below 2^(64 out.len()) as 64-bit words.
fn from_s62(a: &S62, len: usize, out: &mut [u64]) {
    out.fill(0);
    for (i, &limb) in a.iter().enumerate().take(len) {
        let (w, s) = (62 * i / 64, 62 * i % 64);
        let bits = limb as u64;
        if let Some(o) = out.get_mut(w) {
            *o |= bits << s;
        }
        if s > 2 {
            if let Some(o) = out.get_mut(w + 1) {
                *o |= bits >> (64 - s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Agreement with arkworks' inversion on edge and random elements.
    fn agrees<F: PrimeField>(name: &str) {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
        let mut xs: Vec<F> = vec![
            F::one(),
            F::from(2u64),
            F::from(3u64),
            -F::one(),
            -F::from(2u64),
        ];
        // 2^k and 2^k - 1 for k across the width, and (p-1)/2.
        let two = F::from(2u64);
        for k in [1u64, 61, 62, 63, 64, 124, 126, 128, 200, 250, 254, 255, 380] {
            let pk = two.pow([k]);
            xs.extend([pk, pk - F::one(), -pk]);
        }
        xs.push(F::from_bigint(F::MODULUS_MINUS_ONE_DIV_TWO).expect("below p"));
        xs.extend((0..500).map(|_| F::rand(&mut rng)));
        for x in &xs {
            assert_eq!(inverse(x), x.inverse(), "{name}: x = {x}");
            assert_eq!(inverse(x).map(|y| y * x), Some(F::one()), "{name}");
        }
        assert_eq!(inverse(&F::zero()), None, "{name}: zero");
        // Batches with zeros among them, of every length up to 9.
        for len in 0..=9 {
            let mut v: Vec<F> = xs[..len].to_vec();
            for i in (0..len).step_by(3) {
                v[i] = F::zero();
            }
            let mut want = v.clone();
            ark_ff::batch_inversion(&mut want);
            batch_inverse(&mut v);
            assert_eq!(v, want, "{name}: a batch of {len}");
        }
    }

    #[test]
    fn agrees_with_arkworks_on_every_field() {
        agrees::<ark_bn254::Fq>("BN254 Fq");
        agrees::<ark_bn254::Fr>("BN254 Fr");
        agrees::<ark_secp256k1::Fq>("secp256k1 Fq");
        agrees::<ark_secp256k1::Fr>("secp256k1 Fr");
        agrees::<ark_secp256r1::Fq>("P-256 Fq");
        agrees::<ark_bls12_381::Fq>("BLS12-381 Fq");
        agrees::<ark_bls12_381::Fr>("BLS12-381 Fr");
        agrees::<ark_bls12_377::Fq>("BLS12-377 Fq");
    }

    #[test]
    fn limbs_round_trip() {
        let x = [u64::MAX, 0x0123_4567_89ab_cdef, 1 << 63, 7, u64::MAX, 0];
        let mut out = [0u64; 6];
        let len = (64 * 6 + 2) / 62 + 1;
        from_s62(&to_s62(&x, len), len, &mut out);
        assert_eq!(out, x);
        let inv = |a: u64| crate::portable::neg_inv(a).wrapping_neg();
        assert_eq!(inv(3).wrapping_mul(3), 1);
        assert_eq!(inv(u64::MAX).wrapping_mul(u64::MAX), 1);
    }
}
