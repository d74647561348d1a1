//! Fixed powers by addition chains in the AVX-512 IFMA lanes, sixteen
//! elements at a time (two vectors of eight side by side, so that one's
//! multiplication fills the other's latency): the square roots of a batch
//! of compressed points (`x^((p+1)/4)`), which a caller describes as a
//! [`ChainStep`] list and runs through the safe [`Ifma::pow_chain`].
//!
//! The lanes hold the elements in the `R'` form (`x 2^260 mod p`), closed
//! under the lanes' multiplication (`mul(a R', b R') = a b R'`); the result
//! is brought back to arkworks' form by one product with `R` itself.

use crate::ifma::{from_limbs, lanes_fit, mul_inline, split52, to_rprime, unpack, Consts, Lanes};
use crate::kernel::Ifma;
use crate::MontField;
use core::arch::x86_64::_mm512_setzero_si512;

/// One step of an addition chain: the value `t[from]^(2^squarings)`, times
/// `t[times]` where given, appended to the chain's table. `t[0]` is the
/// input; the chain's result is its last step's value. For example
/// `x^(2^k - 1)` from `x^(2^m - 1)` (entry `a`) and `x^(2^(k-m) - 1)`
/// (entry `b`) is `ChainStep { from: a, squarings: k - m, times: Some(b) }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainStep {
    /// The table entry squared.
    pub from: u8,
    /// How many times it is squared.
    pub squarings: u16,
    /// The table entry the squares are then multiplied by, if any.
    pub times: Option<u8>,
}

/// The longest chain [`Ifma::pow_chain`] runs (table entries, the input
/// included).
pub const MAX_CHAIN: usize = 32;

/// Elements a pass of the lanes takes (two vectors of eight).
const PASS: usize = 16;

impl Ifma {
    /// Every element of `xs` replaced by its power the chain `steps`
    /// computes ([`ChainStep`]), sixteen at a time in the lanes. `false`,
    /// touching nothing, for fields the lanes do not fit in five 52-bit
    /// limbs (only four-limb fields: BN254's, secp256k1's, P-256's) and for
    /// chains that are empty, longer than [`MAX_CHAIN`] entries or that
    /// name an entry not yet made.
    pub fn pow_chain<F: MontField>(self, xs: &mut [F], steps: &[ChainStep]) -> bool {
        let valid = !steps.is_empty()
            && steps.len() < MAX_CHAIN
            && steps.iter().enumerate().all(|(i, s)| {
                usize::from(s.from) <= i && s.times.is_none_or(|m| usize::from(m) <= i)
            });
        if !valid || lanes_fit::<F>() != Some(5) || F::LIMBS != 4 {
            return false;
        }
        let c = Consts::<5>::of::<F>();
        for pass in xs.chunks_mut(PASS) {
            // SAFETY: `self` proves AVX-512F and IFMA; the field fits five
            // limbs (checked above); the chain's indices are checked.
            unsafe { pow_pass(pass, steps, &c) };
        }
        true
    }
}

/// [`Ifma::pow_chain`] on at most [`PASS`] elements (padded with ones).
///
/// # Safety
/// AVX-512F and IFMA; `F` fits five limbs; `steps` checked as
/// [`Ifma::pow_chain`] checks them.
#[target_feature(enable = "avx512f,avx512ifma")]
unsafe fn pow_pass<F: MontField>(xs: &mut [F], steps: &[ChainStep], c: &Consts<5>) {
    let one = to_rprime::<F, 5>(&F::ONE);
    let mut limbs = [one; PASS];
    for (l, x) in limbs.iter_mut().zip(xs.iter()) {
        *l = to_rprime::<F, 5>(x);
    }
    let halves: [&[[u64; 5]; 8]; 2] = [
        limbs[..8].try_into().expect("eight"),
        limbs[8..].try_into().expect("eight"),
    ];
    // SAFETY (whole body): the caller's features.
    unsafe {
        let zero = Lanes([_mm512_setzero_si512(); 5]);
        let mut t = [[zero; 2]; MAX_CHAIN];
        t[0] = halves.map(|h| from_limbs(h));
        for (i, s) in steps.iter().enumerate() {
            let mut v = t[usize::from(s.from)];
            for _ in 0..s.squarings {
                v = [mul_inline(&v[0], &v[0], c), mul_inline(&v[1], &v[1], c)];
            }
            if let Some(m) = s.times {
                let w = &t[usize::from(m)];
                v = [mul_inline(&v[0], &w[0], c), mul_inline(&v[1], &w[1], c)];
            }
            t[i + 1] = v;
        }
        // y R' times R (arkworks' one) over R': y R, arkworks' form.
        let r = from_limbs(&[split52(&F::ONE.mont_words::<8>()); 8]);
        let y = t[steps.len()];
        let out = [
            unpack::<F, 5>(&mul_inline(&y[0], &r, c), c),
            unpack::<F, 5>(&mul_inline(&y[1], &r, c), c),
        ];
        for (x, o) in xs.iter_mut().zip(out.iter().flatten()) {
            *x = *o;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{Field, UniformRand};

    /// The chain on arkworks' own operations: the reference.
    fn naive<F: Field>(x: F, steps: &[ChainStep]) -> F {
        let mut t = vec![x];
        for s in steps {
            let mut v = t[usize::from(s.from)];
            for _ in 0..s.squarings {
                v.square_in_place();
            }
            if let Some(m) = s.times {
                v *= t[usize::from(m)];
            }
            t.push(v);
        }
        *t.last().unwrap()
    }

    /// The token, or `None` after saying on stderr that `test` is skipped.
    fn lanes_or_skip(test: &str) -> Option<Ifma> {
        let ifma = Ifma::detect();
        if ifma.is_none() {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: {test} (no AVX-512 IFMA, or ZKACCEL_KERNEL caps it)"
            );
        }
        ifma
    }

    fn step(from: u8, squarings: u16, times: Option<u8>) -> ChainStep {
        ChainStep {
            from,
            squarings,
            times,
        }
    }

    fn check<F: MontField + UniformRand>(ifma: Ifma, name: &str) {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(13);
        // x^(2^k - 1) doublings, a product of two earlier entries, a bare
        // squaring at the end, an entry used twice.
        let steps = [
            step(0, 1, Some(0)),
            step(1, 2, Some(1)),
            step(2, 5, Some(0)),
            step(3, 0, Some(2)),
            step(4, 3, None),
            step(5, 1, Some(5)),
        ];
        for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 33] {
            let mut xs: Vec<F> = (0..len).map(|_| F::rand(&mut rng)).collect();
            if len > 2 {
                xs[0] = F::ZERO;
                xs[1] = F::ONE;
                xs[2] = -F::ONE;
            }
            let want: Vec<F> = xs.iter().map(|x| naive(*x, &steps)).collect();
            assert!(ifma.pow_chain(&mut xs, &steps), "{name}");
            assert_eq!(xs, want, "{name}, {len} elements");
        }
        // p - 1 to a large power: (p - 1)^(2^40) = 1.
        let mut xs = vec![-F::ONE; 3];
        assert!(ifma.pow_chain(&mut xs, &[step(0, 40, None)]));
        assert_eq!(xs, vec![F::ONE; 3]);
    }

    #[test]
    fn chains_equal_arkworks_powers() {
        let Some(ifma) = lanes_or_skip("ifma_chain tests") else {
            return;
        };
        check::<ark_secp256k1::Fq>(ifma, "secp256k1 Fq");
        check::<ark_bn254::Fq>(ifma, "BN254 Fq");
        check::<ark_bn254::Fr>(ifma, "BN254 Fr");
    }

    #[test]
    fn bad_chains_and_fields_are_refused_untouched() {
        let Some(ifma) = lanes_or_skip("ifma_chain refusals") else {
            return;
        };
        let x = ark_bn254::Fq::from(5u64);
        let mut xs = vec![x; 3];
        assert!(!ifma.pow_chain(&mut xs, &[]));
        assert!(!ifma.pow_chain(&mut xs, &[step(1, 1, None)]));
        assert!(!ifma.pow_chain(&mut xs, &[step(0, 1, Some(1))]));
        let long = vec![step(0, 1, None); MAX_CHAIN];
        assert!(!ifma.pow_chain(&mut xs, &long));
        assert_eq!(xs, vec![x; 3]);
        // A six-limb field.
        let y = ark_bls12_381::Fq::from(5u64);
        let mut ys = vec![y; 3];
        assert!(!ifma.pow_chain(&mut ys, &[step(0, 1, None)]));
        assert_eq!(ys, vec![y; 3]);
    }
}
