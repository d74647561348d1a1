//! The AVX2 lane arithmetic (the NTT's butterflies) against arkworks'
//! operators: random values, the edge values 0, 1, p - 1, p - 2, 1/2, the
//! same values plus p (lanes hold values below 2p), a value whose lower
//! limbs are all at their maximum, and long chains of butterflies whose
//! outputs feed the next. Prints that it was skipped on CPUs without AVX2,
//! BMI2 and ADX.
#![cfg(target_arch = "x86_64")]

use ark_ff::{BigInt, BigInteger, PrimeField};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use zkaccel_ff::avx2::{self, Avx2, Consts, Lanes, Twiddles, L};
use zkaccel_ff::MontField;

mod common;

/// A lane input: the element and the integer the lane holds (its
/// Montgomery form, or that plus p).
#[derive(Clone, Copy)]
struct Input<F> {
    value: F,
    limbs: [u64; L],
}

/// `x` (little-endian 64-bit words, below 2^261) as nine 29-bit limbs,
/// written here independently of the library's splitter.
fn limbs29(x: &[u64]) -> [u64; L] {
    let bit = |i: usize| (x.get(i / 64).copied().unwrap_or(0) >> (i % 64)) & 1;
    core::array::from_fn(|k| {
        let width = if k + 1 < L { 29 } else { 64 };
        (0..width).fold(0u64, |acc, b| {
            let i = 29 * k + b;
            if i < 320 {
                acc | (bit(i) << b)
            } else {
                acc
            }
        })
    })
}

fn mont<F: MontField>(x: &F) -> BigInt<4> {
    BigInt::<4>(x.mont_limbs())
}

fn inputs<F: MontField>(seed: u64) -> Vec<Input<F>> {
    let vals: Vec<F> = common::random_and_edge_values(120, seed);
    let mut p = BigInt::<4>([0; 4]);
    p.0.copy_from_slice(&F::MODULUS.as_ref()[..4]);
    let mut out = Vec::new();
    for (i, v) in vals.iter().enumerate() {
        let m = mont(v);
        out.push(Input {
            value: *v,
            limbs: limbs29(&m.0),
        });
        // Every third value also as its Montgomery integer plus p.
        if i % 3 == 0 || i >= 120 {
            let mut up = m;
            assert!(!up.add_with_carry(&p), "below 2^256");
            out.push(Input {
                value: *v,
                limbs: limbs29(&up.0),
            });
        }
    }
    // Lower limbs all 2^29 - 1, the top limb one below 2p's: below 2p.
    let mut twice = p;
    twice.mul2();
    let mut top = limbs29(&twice.0);
    top[..L - 1].iter_mut().for_each(|l| *l = (1 << 29) - 1);
    top[L - 1] -= 1;
    let mut words = [0u64; 4];
    for (k, &l) in top.iter().enumerate() {
        for b in 0..29 {
            let i = 29 * k + b;
            if i < 256 {
                words[i / 64] |= ((l >> b) & 1) << (i % 64);
            }
        }
    }
    let mut reduced = BigInt::<4>(words);
    while reduced >= p {
        reduced.sub_with_borrow(&p);
    }
    out.push(Input {
        value: F::from_mont_limbs(reduced.0),
        limbs: top,
    });
    out.resize(out.len().div_ceil(4) * 4, out[0]);
    out
}

fn lanes<F>(_: Avx2, xs: &[Input<F>]) -> Lanes {
    // SAFETY: the token proves the CPU features.
    unsafe { avx2::from_limbs(core::array::from_fn(|l| &xs[l].limbs)) }
}

fn unpack<F: MontField>(_: Avx2, v: &Lanes, c: &Consts) -> [F; 4] {
    // SAFETY: as above; `v` is an output of the lane functions (or an
    // input below 2p).
    unsafe { avx2::unpack(v, c) }
}

/// The butterfly by arkworks' operators.
fn reference<F: MontField>(x: [F; 4], w4: F, w: [F; 3]) -> [F; 4] {
    zkaccel_ff::dif4_with(
        [&x[0], &x[1], &x[2], &x[3]],
        &w4,
        [&w[0], &w[1], &w[2]],
        |a, b| *a + b,
        |a, b| *a - b,
        |a, b| *a * b,
    )
}

fn check<F: MontField>(token: Avx2, seed: u64) {
    let c = Consts::of::<F>().expect("the field fits the lanes");
    let ins = inputs::<F>(seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    // Any factor (BN254 Fq has no fourth root of unity).
    let w4 = F::get_root_of_unity(4).unwrap_or(ins[7].value);
    // SAFETY (every lane call): the token proves the features; values from
    // `inputs` are below 2p with normalised limbs, as the module requires.
    let w4l = unsafe { avx2::splat(&avx2::to_rprime(&w4)) };
    // pack and unpack, transpose.
    for (i, q) in ins.chunks(4).enumerate() {
        let v = lanes(token, q);
        let want: [F; 4] = core::array::from_fn(|l| q[l].value);
        assert_eq!(unpack::<F>(token, &v, &c), want, "round trip {i}");
        let packed = unsafe { avx2::pack(core::array::from_fn(|l| &q[l].value)) };
        assert_eq!(unpack::<F>(token, &packed, &c), want, "pack {i}");
    }
    let rows: Vec<Lanes> = ins.chunks(4).take(4).map(|q| lanes(token, q)).collect();
    let mut t = [core::mem::MaybeUninit::<Lanes>::uninit(); 4];
    unsafe { avx2::transpose_into(&[rows[0], rows[1], rows[2], rows[3]], &mut t) };
    for (v, slot) in t.iter().enumerate() {
        let got = unpack::<F>(token, unsafe { slot.assume_init_ref() }, &c);
        for (l, g) in got.iter().enumerate() {
            assert_eq!(*g, ins[4 * l + v].value, "transpose lane {l} of {v}");
        }
    }
    // Butterflies on random quadruples of inputs, with each twiddle form.
    for round in 0..400 {
        let pick: [[Input<F>; 4]; 4] =
            core::array::from_fn(|_| core::array::from_fn(|_| ins[rng.gen_range(0..ins.len())]));
        let ws: [[F; 3]; 4] = core::array::from_fn(|_| {
            core::array::from_fn(|_| ins[rng.gen_range(0..ins.len())].value)
        });
        let mut x: [Lanes; 4] = core::array::from_fn(|i| lanes(token, &pick[i]));
        let same = ws[0].map(|w| avx2::to_rprime(&w));
        let per: [Lanes; 3] = core::array::from_fn(|k| {
            let r: [[u64; L]; 4] = core::array::from_fn(|l| avx2::to_rprime(&ws[l][k]));
            unsafe { avx2::from_limbs(r.each_ref()) }
        });
        let form = round % 3;
        let twiddle = |l: usize| match form {
            0 => [F::one(); 3],
            1 => ws[0],
            _ => ws[l],
        };
        let tw = match form {
            0 => Twiddles::One,
            1 => Twiddles::Same(same.each_ref()),
            _ => Twiddles::PerLane(per.each_ref()),
        };
        let [x0, x1, x2, x3] = &mut x;
        unsafe { avx2::dif4([x0, x1, x2, x3], &w4l, tw, &c) };
        let got: [[F; 4]; 4] = core::array::from_fn(|i| unpack::<F>(token, &x[i], &c));
        for l in 0..4 {
            let want = reference(core::array::from_fn(|i| pick[i][l].value), w4, twiddle(l));
            for i in 0..4 {
                assert_eq!(
                    got[i][l], want[i],
                    "round {round} form {form} output {i} lane {l}"
                );
            }
        }
        // Radix-2.
        let (mut a, mut b) = (lanes(token, &pick[0]), lanes(token, &pick[1]));
        unsafe { avx2::dif2(&mut a, &mut b, &c) };
        let (ga, gb) = (unpack::<F>(token, &a, &c), unpack::<F>(token, &b, &c));
        for l in 0..4 {
            assert_eq!(
                ga[l],
                pick[0][l].value + pick[1][l].value,
                "dif2 sum {round}"
            );
            assert_eq!(
                gb[l],
                pick[0][l].value - pick[1][l].value,
                "dif2 difference {round}"
            );
        }
    }
    // Every quadruple of the integers 0, 1, p - 1, p, 2p - 1 (sums just
    // below a multiple of p test the quotient estimate's rounding).
    let edge: Vec<Input<F>> = {
        let mut p = BigInt::<4>([0; 4]);
        p.0.copy_from_slice(&F::MODULUS.as_ref()[..4]);
        let mut pm1 = p;
        pm1.sub_with_borrow(&BigInt::from(1u64));
        let mut twice_m1 = p;
        twice_m1.add_with_carry(&pm1);
        let minus_one = F::from_mont_limbs(pm1.0);
        [
            (F::zero(), BigInt::from(0u64)),
            (F::from_mont_limbs([1, 0, 0, 0]), BigInt::from(1u64)),
            (minus_one, pm1),
            (F::zero(), p),
            (minus_one, twice_m1),
        ]
        .map(|(value, m)| Input {
            value,
            limbs: limbs29(&m.0),
        })
        .to_vec()
    };
    let w = [ins[3].value, ins[5].value, -F::one()];
    let wr = w.map(|w| avx2::to_rprime(&w));
    for code in 0..625usize {
        let idx = [code % 5, code / 5 % 5, code / 25 % 5, code / 125];
        for one in [true, false] {
            let mut x: [Lanes; 4] = core::array::from_fn(|i| {
                lanes(
                    token,
                    &[
                        edge[idx[i]],
                        edge[(idx[i] + 1) % 5],
                        edge[(idx[i] + 2) % 5],
                        edge[(idx[i] + 3) % 5],
                    ],
                )
            });
            let tw = if one {
                Twiddles::One
            } else {
                Twiddles::Same(wr.each_ref())
            };
            let [x0, x1, x2, x3] = &mut x;
            unsafe { avx2::dif4([x0, x1, x2, x3], &w4l, tw, &c) };
            for l in 0..4 {
                let input = core::array::from_fn(|i| edge[(idx[i] + l) % 5].value);
                let want = reference(input, w4, if one { [F::one(); 3] } else { w });
                for i in 0..4 {
                    assert_eq!(
                        unpack::<F>(token, &x[i], &c)[l],
                        want[i],
                        "edge {idx:?} lane {l} output {i}"
                    );
                }
            }
        }
    }
    // Chains: the outputs (normalised, below 2p) are the next inputs.
    let start: [Input<F>; 16] = core::array::from_fn(|i| ins[ins.len() - 1 - i]);
    let mut x: [Lanes; 4] = core::array::from_fn(|i| lanes(token, &start[4 * i..4 * i + 4]));
    let mut want: [[F; 4]; 4] =
        core::array::from_fn(|i| core::array::from_fn(|l| start[4 * i + l].value));
    for step in 0..2000 {
        let w: [F; 3] = core::array::from_fn(|_| ins[rng.gen_range(0..ins.len())].value);
        let wr = w.map(|w| avx2::to_rprime(&w));
        let tw = if step % 5 == 0 {
            Twiddles::One
        } else {
            Twiddles::Same(wr.each_ref())
        };
        let [x0, x1, x2, x3] = &mut x;
        unsafe { avx2::dif4([x0, x1, x2, x3], &w4l, tw, &c) };
        let w = if step % 5 == 0 { [F::one(); 3] } else { w };
        for l in 0..4 {
            let out = reference(core::array::from_fn(|i| want[i][l]), w4, w);
            for (row, o) in want.iter_mut().zip(out) {
                row[l] = o;
            }
        }
        // Rotate the outputs so each position sees every kind of output.
        x.rotate_left(1);
        want.rotate_left(1);
        if step % 101 == 0 || step == 1999 {
            for i in 0..4 {
                assert_eq!(unpack::<F>(token, &x[i], &c), want[i], "chain step {step}");
            }
        }
    }
}

#[test]
fn butterflies_match_arkworks() {
    let Some(token) = Avx2::detect() else {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: butterflies_match_arkworks (this CPU lacks AVX2, BMI2 or ADX, or ZKACCEL_KERNEL caps it)"
        );
        return;
    };
    check::<ark_bn254::Fr>(token, 1);
    check::<ark_bn254::Fq>(token, 2);
    // A 255-bit modulus: the tightest bounds (products below 1.4p).
    check::<ark_bls12_381::Fr>(token, 3);
}

#[test]
fn fields_that_do_not_fit_are_refused() {
    assert!(Consts::of::<ark_bn254::Fr>().is_some());
    assert!(Consts::of::<ark_bls12_381::Fr>().is_some());
    // Six limbs; a four-limb modulus using the top bit.
    assert!(Consts::of::<ark_bls12_381::Fq>().is_none());
    assert!(Consts::of::<ark_secp256k1::Fq>().is_none());
    assert!(avx2::fits::<ark_bn254::Fr>() && avx2::fits::<ark_bls12_381::Fr>());
    assert!(!avx2::fits::<ark_bls12_381::Fq>() && !avx2::fits::<ark_secp256k1::Fq>());
    assert_eq!(ark_bls12_381::Fr::MODULUS_BIT_SIZE, 255);
}
