//! Big-endian bytes to field elements and back, and the square root and
//! quadratic-residue test exactly as libsecp256k1 defines them.

use ark_ff::{BigInteger, Field, PrimeField};
use ark_secp256k1::{Fq, Fr};
use zkaccel_cpu::AdxOps;

use crate::fe::{bigint_from_be, Fe};

/// The coordinate the 32 big-endian bytes encode, or `None` at or above p
/// (libsecp256k1's `secp256k1_fe_set_b32` refuses those too).
pub(crate) fn fq_from_be(bytes: &[u8; 32]) -> Option<Fq> {
    Fq::from_bigint(bigint_from_be(bytes))
}

/// The scalar the 32 big-endian bytes encode, or `None` at or above n.
pub(crate) fn fr_from_be(bytes: &[u8; 32]) -> Option<Fr> {
    Fr::from_bigint(bigint_from_be(bytes))
}

/// A field element as 32 big-endian bytes.
pub(crate) fn fq_to_be(x: &Fq) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&x.into_bigint().to_bytes_be());
    out
}

/// A scalar as 32 big-endian bytes.
pub(crate) fn fr_to_be(x: &Fr) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&x.into_bigint().to_bytes_be());
    out
}

/// `a^((p+1)/4)` when that is a square root of `a` (p = 3 mod 4), the root
/// `secp256k1_fe_sqrt` returns; `None` when `a` is not a square. Which of
/// the two roots matters: the generator map negates it by another rule.
pub(crate) fn sqrt(a: &Fq) -> Option<Fq> {
    fe_sqrt(&Fe::from_fq(a)).map(Fe::to_fq)
}

/// `a^((p+1)/4)`, a square root of `a` when there is one, and what
/// `secp256k1_fe_sqrt` leaves in its output either way.
pub(crate) fn sqrt_power(a: &Fq) -> Fq {
    power_chain(&Fe::from_fq(a)).to_fq()
}

/// [`sqrt`] on the specialised field: the root that is itself a square.
pub(crate) fn fe_sqrt(a: &Fe) -> Option<Fe> {
    root_if_square(power_chain(a), a)
}

/// `r`, the chain's output for `a`, when it is a square root of `a`.
fn root_if_square(r: Fe, a: &Fe) -> Option<Fe> {
    r.square().equals(a).then_some(r)
}

/// The kernel the per-proof scalar arithmetic runs on: zkaccel-ff's
/// full-width assembly where the CPU has BMI2/ADX, its portable kernel
/// elsewhere (what `ZKACCEL_KERNEL` selects for the MSM too).
#[derive(Clone, Copy)]
pub(crate) enum FieldKernel {
    Asm(AdxOps),
    Portable,
}

impl FieldKernel {
    /// The fastest kernel this CPU runs.
    pub(crate) fn detect() -> Self {
        AdxOps::new().map_or(FieldKernel::Portable, FieldKernel::Asm)
    }
}

/// `a^((p+1)/4)`'s addition chain: the exponent's bits are 223 ones, a
/// zero, 22 ones, four zeros, two ones and two zeros, so `a^(2^k - 1)` for
/// k = 2, 3, 6, 9, 11, 22, 44, 88, 176, 220, 223 (each from two earlier
/// ones), then the blocks shifted into place: 253 squarings and 13
/// multiplications, where the binary method takes about 250 of each. Each
/// step is `t[from]^(2^squarings) * t[times]` appended to the table `t`
/// (`t[0] = a`; zkaccel-ff's `ChainStep`), so the same list runs on [`Fe`]
/// and in the IFMA lanes.
const SQRT_CHAIN: [(u8, u16, Option<u8>); 14] = [
    (0, 1, Some(0)),   // x2
    (1, 1, Some(0)),   // x3
    (2, 3, Some(2)),   // x6
    (3, 3, Some(2)),   // x9
    (4, 2, Some(1)),   // x11
    (5, 11, Some(5)),  // x22
    (6, 22, Some(6)),  // x44
    (7, 44, Some(7)),  // x88
    (8, 88, Some(8)),  // x176
    (9, 44, Some(7)),  // x220
    (10, 3, Some(2)),  // x223
    (11, 23, Some(6)), // 223 ones | 0 + 22 ones
    (12, 6, Some(1)),  // | 0000 + 11
    (13, 2, None),     // | 00
];

/// [`SQRT_CHAIN`] on [`Fe`], whose reduction is specialised to p (timings
/// at [`fe_sqrt_many`]), one element or several side by side.
fn power_chain<E: Chain>(a: &E) -> E {
    let mut t = [*a; SQRT_CHAIN.len() + 1];
    for (i, &(from, squarings, times)) in SQRT_CHAIN.iter().enumerate() {
        let mut v = t[usize::from(from)].square_n(usize::from(squarings));
        if let Some(m) = times {
            v = v.mul(&t[usize::from(m)]);
        }
        t[i + 1] = v;
    }
    t[SQRT_CHAIN.len()]
}

/// What [`power_chain`] runs on: one element, or several side by side (a
/// product's carry chain is serial, so independent chains fill the
/// multiplier's idle cycles).
trait Chain: Copy {
    fn square_n(&self, n: usize) -> Self;
    fn mul(&self, other: &Self) -> Self;
}

impl Chain for Fe {
    #[inline(always)]
    fn square_n(&self, n: usize) -> Self {
        Fe::square_n(self, n)
    }
    #[inline(always)]
    fn mul(&self, other: &Self) -> Self {
        Fe::mul(self, other)
    }
}

impl<const N: usize> Chain for [Fe; N] {
    #[inline(always)]
    fn square_n(&self, n: usize) -> Self {
        let mut t = *self;
        for _ in 0..n {
            t = t.map(|x| x.square());
        }
        t
    }
    #[inline(always)]
    fn mul(&self, other: &Self) -> Self {
        std::array::from_fn(|i| self[i].mul(&other[i]))
    }
}

/// [`fe_sqrt`] of every element: in the AVX-512 IFMA lanes, sixteen at a
/// time, where the CPU has them (and `ZKACCEL_KERNEL` allows them), but
/// for a last few that four chains side by side on [`Fe`] take faster;
/// elsewhere all on [`Fe`]. (A pass of the lanes takes as long for one
/// element as for sixteen: 14-16 µs, against 3 µs a root on [`Fe`], in a
/// one-off timing loop on a 2-core Xeon family 6 model 207, best of 200.)
pub(crate) fn fe_sqrt_many(a: &[Fe]) -> Vec<Option<Fe>> {
    /// Below this many, the elements left after the full passes go to
    /// [`Fe`].
    #[cfg(target_arch = "x86_64")]
    const LANES_FROM: usize = 6;
    #[cfg(target_arch = "x86_64")]
    if let Some(ifma) = zkaccel_ff::ifma::Ifma::detect() {
        let tail = a.len() % 16;
        let lanes = if tail < LANES_FROM {
            a.len() - tail
        } else {
            a.len()
        };
        let steps = SQRT_CHAIN.map(|(from, squarings, times)| zkaccel_ff::ifma::ChainStep {
            from,
            squarings,
            times,
        });
        let mut roots: Vec<Fq> = a[..lanes].iter().map(|x| x.to_fq()).collect();
        if ifma.pow_chain(&mut roots, &steps) {
            let mut out: Vec<Option<Fe>> = roots
                .iter()
                .zip(a)
                .map(|(r, x)| root_if_square(Fe::from_fq(r), x))
                .collect();
            out.extend(fe_sqrt_many_scalar(&a[lanes..]));
            return out;
        }
    }
    fe_sqrt_many_scalar(a)
}

/// [`fe_sqrt_many`] on [`Fe`], four chains side by side.
fn fe_sqrt_many_scalar(a: &[Fe]) -> Vec<Option<Fe>> {
    // Four chains: 3.7 µs a root against 5.3 µs one at a time, and 8 µs
    // on the generic Montgomery assembly (2-core Xeon, medians of 41).
    const LANES: usize = 4;
    let mut out = Vec::with_capacity(a.len());
    let mut chunks = a.chunks_exact(LANES);
    for chunk in &mut chunks {
        let lanes: [Fe; LANES] = std::array::from_fn(|i| chunk[i]);
        let roots = power_chain(&lanes);
        out.extend(roots.iter().zip(chunk).map(|(r, x)| root_if_square(*r, x)));
    }
    out.extend(chunks.remainder().iter().map(fe_sqrt));
    out
}

/// `a^((p+1)/4)` by arkworks' binary method: the reference the chain is
/// tested against.
#[cfg(test)]
fn sqrt_power_binary(a: &Fq) -> Fq {
    let mut e = Fq::MODULUS;
    e.add_with_carry(&ark_ff::BigInt::from(1u64));
    e >>= 2;
    a.pow(e)
}

/// Whether `y` is a square mod p (`secp256k1_fe_is_quad_var`; zero counts
/// as one, although no curve point has y = 0).
pub(crate) fn is_quad(y: &Fq) -> bool {
    !y.legendre().is_qnr()
}

/// Whether the canonical integer of `t` is odd (`secp256k1_fe_is_odd`).
pub(crate) fn is_odd(t: &Fq) -> bool {
    t.into_bigint().is_odd()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_bounds() {
        let p_minus_1 = -Fq::from(1u64);
        let b = fq_to_be(&p_minus_1);
        assert_eq!(fq_from_be(&b), Some(p_minus_1));
        // p itself: FFFFFFFF...FFFFFFFE FFFFFC2F.
        let mut p = [0xffu8; 32];
        p[27] = 0xfe;
        p[30] = 0xfc;
        p[31] = 0x2f;
        assert_eq!(fq_from_be(&p), None);
        p[31] = 0x2e;
        assert_eq!(fq_from_be(&p), Some(p_minus_1));
        assert_eq!(fq_from_be(&[0u8; 32]), Some(Fq::from(0u64)));
        let n_minus_1 = -Fr::from(1u64);
        assert_eq!(fr_from_be(&fr_to_be(&n_minus_1)), Some(n_minus_1));
        assert_eq!(fr_from_be(&[0xff; 32]), None);
    }

    #[test]
    fn chain_equals_the_binary_method() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let mut inputs: Vec<Fq> = [0u64, 1, 2, 3, 7].iter().map(|&v| Fq::from(v)).collect();
        inputs.push(-Fq::from(1u64));
        inputs.push(-Fq::from(2u64));
        inputs.extend((0..200).map(|_| <Fq as ark_ff::UniformRand>::rand(&mut rng)));
        for a in &inputs {
            assert_eq!(sqrt_power(a), sqrt_power_binary(a), "a = {a}");
        }
        // Side by side: the same roots, for every remainder length.
        let fe: Vec<Fe> = inputs.iter().map(Fe::from_fq).collect();
        // Both paths where the CPU has the IFMA lanes (the lanes take
        // sixteen at a time; the scalar chains four).
        for len in [0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 14, 15, 16, 17, 33, fe.len()] {
            let one: Vec<Option<Fq>> = inputs[..len].iter().map(sqrt).collect();
            for (path, roots) in [
                ("default", fe_sqrt_many(&fe[..len])),
                ("scalar", fe_sqrt_many_scalar(&fe[..len])),
            ] {
                let many: Vec<Option<Fq>> = roots.into_iter().map(|r| r.map(Fe::to_fq)).collect();
                assert_eq!(many, one, "{path}, {len} elements");
            }
        }
    }

    #[test]
    fn sqrt_is_the_power_and_refuses_non_squares() {
        for v in [0u64, 1, 2, 4, 9, 7, 1234567] {
            let a = Fq::from(v);
            match sqrt(&a) {
                Some(r) => {
                    assert_eq!(r * r, a);
                    // The root is itself a square ((p+1)/4 is even).
                    assert!(is_quad(&r));
                }
                None => assert!(a.legendre().is_qnr(), "{v}"),
            }
        }
        // -1 is not a square mod p (p = 3 mod 4).
        assert_eq!(sqrt(&-Fq::from(1u64)), None);
        assert!(!is_quad(&-Fq::from(1u64)));
        assert!(is_odd(&Fq::from(3u64)) && !is_odd(&Fq::from(4u64)) && !is_odd(&-Fq::from(1u64)));
    }
}
