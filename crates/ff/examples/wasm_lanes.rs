//! An experiment, not a kernel the package uses: BN254 Fq Montgomery
//! products several at a time in WebAssembly's SIMD128 lanes, against the
//! scalar 29-bit kernel the package runs (`MontField::mul_fast`), to decide
//! whether lanes are worth building into the MSM and the NTT.
//! `crates/wasm/js/bench/lanes.mjs` builds it, checks it and times it:
//! `cargo build --release -p zkaccel-ff --example wasm_lanes --target
//! wasm32-unknown-unknown` with `RUSTFLAGS="-C target-feature=+simd128"`.
//! Without SIMD128 (and natively) the library is empty.
//!
//! Every export `f(n, k)` runs the same eight independent chains
//! `x_j <- x_j y_j` (`j < 8`; `cols16` sixteen, `j < 16`) of `n` products each, with `x_j = 1 /
//! (0x123456789abcdef0 + j)` and `y_j = (0x0fedcba987654321 + 7 j)^2`, and
//! returns the low 64 bits of chain `k`'s result in canonical form. The
//! lanes' variants keep their values in limbs between products (below `2p`,
//! reduced once at the end); each product takes arkworks' Montgomery form to
//! arkworks' Montgomery form (the multiplier enters shifted so that the
//! lanes' larger radix cancels), so all variants agree.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod lanes {
    use ark_ff::{BigInt, Field, PrimeField};
    use core::arch::wasm32::*;
    use std::hint::black_box;
    use zkaccel_ff::MontField;

    type Fq = ark_bn254::Fq;

    /// The starts of chains `j < C`, in arkworks' Montgomery limbs.
    fn starts<const C: usize>() -> ([[u64; 4]; C], [[u64; 4]; C]) {
        let x = core::array::from_fn(|j| {
            let v = Fq::from(0x1234_5678_9abc_def0u64 + j as u64).inverse();
            v.unwrap_or(Fq::ONE).0 .0
        });
        let y = core::array::from_fn(|j| {
            Fq::from(0x0fed_cba9_8765_4321u64 + 7 * j as u64)
                .square()
                .0
                 .0
        });
        (black_box(x), black_box(y))
    }

    /// The canonical low limb of a value below `2p` in Montgomery limbs.
    fn canonical(mut r: [u64; 4]) -> u64 {
        let p = Fq::MODULUS.0;
        if r.iter().rev().cmp(p.iter().rev()) != core::cmp::Ordering::Less {
            let mut borrow = false;
            for (w, pw) in r.iter_mut().zip(p) {
                let (d, b1) = w.overflowing_sub(pw);
                let (d, b2) = d.overflowing_sub(borrow as u64);
                (*w, borrow) = (d, b1 | b2);
            }
        }
        Fq::new_unchecked(BigInt(r)).into_bigint().0[0]
    }

    /// `x 2^shift` (below `2^(bits count)`) in `count` limbs of `bits`.
    fn split(x: &[u64; 4], shift: usize, bits: usize) -> [u64; 11] {
        let mut out = [0u64; 11];
        let wide: [u64; 5] = if shift == 0 {
            [x[0], x[1], x[2], x[3], 0]
        } else {
            core::array::from_fn(|w| {
                let here = if w < 4 { x[w] << shift } else { 0 };
                let below = if w > 0 { x[w - 1] >> (64 - shift) } else { 0 };
                here | below
            })
        };
        for (k, limb) in out.iter_mut().enumerate() {
            let (w, off) = ((bits * k) / 64, (bits * k) % 64);
            let low = if w < 5 { wide[w] >> off } else { 0 };
            let high = if off + bits > 64 && w + 1 < 5 {
                wide[w + 1] << (64 - off)
            } else {
                0
            };
            *limb = (low | high) & ((1 << bits) - 1);
        }
        out
    }

    /// Limbs of `bits` back to four 64-bit words (the value below `2^256`).
    fn join(limbs: &[u64], bits: usize) -> [u64; 4] {
        let mut out = [0u64; 4];
        for (k, &limb) in limbs.iter().enumerate() {
            let (w, off) = ((bits * k) / 64, (bits * k) % 64);
            if w < 4 {
                out[w] |= limb << off;
            }
            if off + bits > 64 && w + 1 < 4 {
                out[w + 1] |= limb >> (64 - off);
            }
        }
        out
    }

    /// `-p^-1 mod 2^bits`.
    fn neg_inv(bits: u32) -> u64 {
        let p0 = Fq::MODULUS.0[0];
        let mut inv = 1u64;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inv)));
        }
        inv.wrapping_neg() & ((1 << bits) - 1)
    }

    const M29: u64 = (1 << 29) - 1;

    /// Four values as nine 29-bit limb vectors (lane `i` = value `i`).
    fn to_u32(x: [&[u64; 4]; 4], shift: usize) -> [v128; 9] {
        let l = x.map(|v| split(v, shift, 29));
        core::array::from_fn(|j| {
            u32x4(
                l[0][j] as u32,
                l[1][j] as u32,
                l[2][j] as u32,
                l[3][j] as u32,
            )
        })
    }

    fn lane_u32(v: v128, i: usize) -> u64 {
        (match i {
            0 => u32x4_extract_lane::<0>(v),
            1 => u32x4_extract_lane::<1>(v),
            2 => u32x4_extract_lane::<2>(v),
            _ => u32x4_extract_lane::<3>(v),
        }) as u64
    }

    /// Montgomery products (radix `2^261`) of four pairs, by rows (operand
    /// scanning): `a_i b`, then the multiple of `p` that clears column `i`,
    /// into eighteen column pairs (lanes 0-1 and 2-3), carried once a row.
    #[inline(always)]
    fn rows4(a: &[v128; 9], b: &[v128; 9], p: &[v128; 9], inv: v128) -> [v128; 9] {
        let (mask, mask32, z) = (u64x2_splat(M29), u32x4_splat(M29 as u32), u64x2_splat(0));
        let (mut lo, mut hi) = ([z; 19], [z; 19]);
        for i in 0..9 {
            for j in 0..9 {
                lo[i + j] = i64x2_add(lo[i + j], u64x2_extmul_low_u32x4(a[i], b[j]));
                hi[i + j] = i64x2_add(hi[i + j], u64x2_extmul_high_u32x4(a[i], b[j]));
            }
            let t = i32x4_shuffle::<0, 2, 4, 6>(lo[i], hi[i]);
            let m = v128_and(i32x4_mul(v128_and(t, mask32), inv), mask32);
            for j in 0..9 {
                lo[i + j] = i64x2_add(lo[i + j], u64x2_extmul_low_u32x4(m, p[j]));
                hi[i + j] = i64x2_add(hi[i + j], u64x2_extmul_high_u32x4(m, p[j]));
            }
            lo[i + 1] = i64x2_add(lo[i + 1], u64x2_shr(lo[i], 29));
            hi[i + 1] = i64x2_add(hi[i + 1], u64x2_shr(hi[i], 29));
        }
        core::array::from_fn(|k| {
            let (l, h) = (lo[9 + k], hi[9 + k]);
            if k < 8 {
                lo[10 + k] = i64x2_add(lo[10 + k], u64x2_shr(l, 29));
                hi[10 + k] = i64x2_add(hi[10 + k], u64x2_shr(h, 29));
            }
            i32x4_shuffle::<0, 2, 4, 6>(v128_and(l, mask), v128_and(h, mask))
        })
    }

    /// Montgomery products (radix `2^261`) of `S` sets of four pairs by
    /// columns (product scanning): each column summed whole, its digit of the
    /// multiple of `p` found, its carry passed on; the sets interleaved
    /// column by column.
    #[inline(always)]
    fn cols<const S: usize>(
        a: &[[v128; 9]; S],
        b: &[[v128; 9]; S],
        p: &[v128; 9],
        inv: v128,
    ) -> [[v128; 9]; S] {
        let (mask, mask32, z) = (u64x2_splat(M29), u32x4_splat(M29 as u32), u64x2_splat(0));
        let (mut clo, mut chi) = ([z; S], [z; S]);
        let mut m = [[z; 9]; S];
        let mut out = [[z; 9]; S];
        for c in 0..18usize {
            let (mut lo, mut hi) = (clo, chi);
            for i in c.saturating_sub(8)..=c.min(8) {
                for s in 0..S {
                    lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(a[s][i], b[s][c - i]));
                    hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(a[s][i], b[s][c - i]));
                }
            }
            for i in c.saturating_sub(8)..c.min(9) {
                for s in 0..S {
                    lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(m[s][i], p[c - i]));
                    hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(m[s][i], p[c - i]));
                }
            }
            for s in 0..S {
                if c < 9 {
                    let t = i32x4_shuffle::<0, 2, 4, 6>(lo[s], hi[s]);
                    m[s][c] = v128_and(i32x4_mul(v128_and(t, mask32), inv), mask32);
                    lo[s] = i64x2_add(lo[s], u64x2_extmul_low_u32x4(m[s][c], p[0]));
                    hi[s] = i64x2_add(hi[s], u64x2_extmul_high_u32x4(m[s][c], p[0]));
                } else {
                    out[s][c - 9] =
                        i32x4_shuffle::<0, 2, 4, 6>(v128_and(lo[s], mask), v128_and(hi[s], mask));
                }
                clo[s] = u64x2_shr(lo[s], 29);
                chi[s] = u64x2_shr(hi[s], 29);
            }
        }
        out
    }

    /// Two values as eleven 24-bit limbs held exactly in `f64` lanes.
    fn to_f64(x: [&[u64; 4]; 2], shift: usize) -> [v128; 11] {
        let l = x.map(|v| split(v, shift, 24));
        core::array::from_fn(|j| f64x2(l[0][j] as f64, l[1][j] as f64))
    }

    /// Montgomery products (radix `2^264`) of `S` sets of two pairs on
    /// 24-bit limbs in `f64` lanes, by columns: a column's 22 products of
    /// under `2^48` and its carry stay below `2^53`, so every sum is exact,
    /// and the digits come from `floor` by powers of two.
    #[inline(always)]
    fn cols_f64<const S: usize>(
        a: &[[v128; 11]; S],
        b: &[[v128; 11]; S],
        p: &[v128; 11],
        inv: v128,
    ) -> [[v128; 11]; S] {
        let (up, down, z) = (
            f64x2_splat(16_777_216.0),
            f64x2_splat(1.0 / 16_777_216.0),
            f64x2_splat(0.0),
        );
        let low = |t: v128| f64x2_sub(t, f64x2_mul(f64x2_floor(f64x2_mul(t, down)), up));
        let mut carry = [z; S];
        let mut m = [[z; 11]; S];
        let mut out = [[z; 11]; S];
        for c in 0..22usize {
            let mut t = carry;
            for i in c.saturating_sub(10)..=c.min(10) {
                for s in 0..S {
                    t[s] = f64x2_add(t[s], f64x2_mul(a[s][i], b[s][c - i]));
                }
            }
            for i in c.saturating_sub(10)..c.min(11) {
                for s in 0..S {
                    t[s] = f64x2_add(t[s], f64x2_mul(m[s][i], p[c - i]));
                }
            }
            for s in 0..S {
                if c < 11 {
                    m[s][c] = low(f64x2_mul(low(t[s]), inv));
                    carry[s] = f64x2_mul(f64x2_add(t[s], f64x2_mul(m[s][c], p[0])), down);
                } else {
                    let q = f64x2_floor(f64x2_mul(t[s], down));
                    out[s][c - 11] = f64x2_sub(t[s], f64x2_mul(q, up));
                    carry[s] = q;
                }
            }
        }
        out
    }

    /// The eight chains by the package's scalar kernel, one product after
    /// another.
    #[no_mangle]
    pub extern "C" fn scalar8(n: u32, k: u32) -> u64 {
        let (x, y) = starts::<8>();
        let (mut x, y) = (
            x.map(|v| Fq::new_unchecked(BigInt(v))),
            y.map(|v| Fq::new_unchecked(BigInt(v))),
        );
        for _ in 0..n {
            for j in 0..8 {
                x[j] = x[j].mul_fast(&y[j]);
            }
        }
        x[k as usize % 8].into_bigint().0[0]
    }

    /// The 29-bit lanes' chains `j < C` (`C = 4 S`) as sets of four, each
    /// set's product computed by `product`.
    fn u32_chains<const S: usize, const C: usize>(
        n: u32,
        k: u32,
        product: impl Fn(&[[v128; 9]; S], &[[v128; 9]; S], &[v128; 9], v128) -> [[v128; 9]; S],
    ) -> u64 {
        const { assert!(C == 4 * S, "C chains are S sets of four") };
        let (x, y) = starts::<C>();
        let p = Fq::MODULUS.0;
        let (pv, inv) = (to_u32([&p; 4], 0), u32x4_splat(neg_inv(29) as u32));
        let set = |v: &[[u64; 4]; C], s: usize, shift: usize| {
            to_u32(
                [&v[4 * s], &v[4 * s + 1], &v[4 * s + 2], &v[4 * s + 3]],
                shift,
            )
        };
        let mut a: [[v128; 9]; S] = core::array::from_fn(|s| set(&x, s, 0));
        // The multiplier times 2^5: Montgomery's 2^-261 then leaves 2^-256.
        let b: [[v128; 9]; S] = core::array::from_fn(|s| set(&y, s, 5));
        for _ in 0..n {
            a = product(&a, &b, &pv, inv);
        }
        let (s, i) = ((k as usize % C) / 4, k as usize % 4);
        let limbs: [u64; 9] = core::array::from_fn(|j| lane_u32(a[s][j], i));
        canonical(join(&limbs, 29))
    }

    /// Two sets of four lanes by rows, one set after the other.
    #[no_mangle]
    pub extern "C" fn rows4x2(n: u32, k: u32) -> u64 {
        u32_chains::<2, 8>(n, k, |a, b, p, inv| {
            [rows4(&a[0], &b[0], p, inv), rows4(&a[1], &b[1], p, inv)]
        })
    }

    /// Two sets of four lanes by columns, one set after the other.
    #[no_mangle]
    pub extern "C" fn cols4x2(n: u32, k: u32) -> u64 {
        u32_chains::<2, 8>(n, k, |a, b, p, inv| {
            let (u, v) = (
                cols::<1>(&[a[0]], &[b[0]], p, inv),
                cols::<1>(&[a[1]], &[b[1]], p, inv),
            );
            [u[0], v[0]]
        })
    }

    /// Two sets of four lanes by columns, interleaved column by column.
    #[no_mangle]
    pub extern "C" fn cols8(n: u32, k: u32) -> u64 {
        u32_chains::<2, 8>(n, k, cols::<2>)
    }

    /// Four sets of four lanes by columns, interleaved column by column:
    /// sixteen chains (`j < 16`, `k` up to 15), the form the package's
    /// lanes (`zkaccel_ff::simd128`) run.
    #[no_mangle]
    pub extern "C" fn cols16(n: u32, k: u32) -> u64 {
        u32_chains::<4, 16>(n, k, cols::<4>)
    }

    /// Four sets of two `f64` lanes by columns, interleaved.
    #[no_mangle]
    pub extern "C" fn f64x8(n: u32, k: u32) -> u64 {
        let (x, y) = starts::<8>();
        let p = Fq::MODULUS.0;
        let (pv, inv) = (to_f64([&p; 2], 0), f64x2_splat(neg_inv(24) as f64));
        let mut a: [[v128; 11]; 4] =
            core::array::from_fn(|s| to_f64([&x[2 * s], &x[2 * s + 1]], 0));
        // The multiplier times 2^8: Montgomery's 2^-264 then leaves 2^-256.
        let b: [[v128; 11]; 4] = core::array::from_fn(|s| to_f64([&y[2 * s], &y[2 * s + 1]], 8));
        for _ in 0..n {
            a = cols_f64::<4>(&a, &b, &pv, inv);
        }
        let (s, i) = ((k as usize % 8) / 2, k as usize % 2);
        let limbs: [u64; 11] = core::array::from_fn(|j| {
            (if i == 0 {
                f64x2_extract_lane::<0>(a[s][j])
            } else {
                f64x2_extract_lane::<1>(a[s][j])
            }) as u64
        });
        canonical(join(&limbs, 24))
    }
}
