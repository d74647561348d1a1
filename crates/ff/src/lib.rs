//! Branch-free Montgomery arithmetic on the limbs of arkworks prime fields,
//! shared by zkaccel's NTT and MSM.
//!
//! The FPGA design computes every butterfly with a Montgomery multiplier and
//! modular adders that never stall. The CPU analogue of "never stall" is
//! "never mispredict": arkworks' `Fp` addition and subtraction decide whether
//! to reduce with a data-dependent branch, and on random field elements that
//! branch goes the wrong way half of the time (about 15 ns for an add + sub
//! pair on this project's reference machine, as much as half a multiplication).
//! The functions here compute the same results with masks instead of branches,
//! directly on the Montgomery-form limbs that `ark_ff::Fp` stores, so the
//! values stay bit-for-bit interchangeable with arkworks' own.
//!
//! [`MontField`] is implemented for every `Fp<MontBackend<C, N>, N>`, which
//! covers every prime field arkworks ships (BN254, BLS12-381, BLS12-377,
//! Pallas/Vesta, ...).

#![warn(missing_docs)]
// Limb loops index several arrays in step; iterators would obscure them.
#![allow(clippy::needless_range_loop)]

#[cfg(target_arch = "x86_64")]
mod adx;
#[cfg(target_arch = "x86_64")]
pub mod avx2;
#[cfg(target_arch = "x86_64")]
pub mod ifma;
mod kernel;
#[cfg(target_arch = "x86_64")]
mod limbs;

pub use kernel::{
    adx_supported, kernel_in_use, kernel_setting, kernel_summary, kernel_supported, Adx,
    KernelLevel, KERNEL_ENV,
};

use ark_ff::{
    fields::models::fp::{Fp, MontBackend, MontConfig},
    FftField, PrimeField,
};

/// Asks the CPU to bring `*x` into its caches (both ends, for values that
/// straddle a cache line) ahead of a use; no effect off x86-64. For
/// scattered reads whose addresses are known early, such as the MSM's
/// buckets.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = (x as *const T).cast::<i8>();
        // SAFETY: a prefetch never faults (SSE, part of x86-64); both
        // addresses lie in `*x`.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.add(core::mem::size_of::<T>().saturating_sub(1)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// A prime field whose elements are stored as Montgomery-form limbs that
/// zkaccel may operate on directly.
///
/// Every method must return exactly what the arkworks operator returns; the
/// test suite checks this against `ark_ff` on random and edge-case inputs.
pub trait MontField: PrimeField + FftField {
    /// `self + other`, without data-dependent branches.
    fn add_fast(&self, other: &Self) -> Self;
    /// `self - other`, without data-dependent branches.
    fn sub_fast(&self, other: &Self) -> Self;
    /// `self * other` (Montgomery CIOS), without data-dependent branches.
    fn mul_fast(&self, other: &Self) -> Self;
    /// `self == other`, inlined as an OR of the limbs' XORs (arkworks'
    /// derived comparison calls `memcmp` for six limbs: 10% of a BLS12-381
    /// MSM's time went there).
    fn eq_fast(&self, other: &Self) -> bool;
    /// Whether the four-limb assembly kernels may be used for this field
    /// ([`MontField::mul_adx`], [`MontField::add_asm`],
    /// [`MontField::sub_asm`], the IFMA lanes): four limbs and a modulus
    /// below 2^255 (BN254, BLS12-381 Fr).
    const ADX_MUL: bool;
    /// Whether [`MontField::mul_adx`] may be used for this field with the
    /// six-limb kernel: six limbs and a modulus whose top limb leaves a
    /// spare bit (BLS12-381 and BLS12-377 Fq); [`MontField::add_asm`] and
    /// [`MontField::sub_asm`] then take their six-limb kernels too.
    const ADX_MUL6: bool;
    /// Whether [`MontField::mul_adx`] may be used for this field with the
    /// full-width four-limb kernel: four limbs and a modulus that uses the
    /// top bit (secp256k1's and P-256's base fields), where the CIOS loop
    /// carries one more word; [`MontField::add_asm`] then takes a sum that
    /// may carry out of 256 bits, and [`MontField::sub_asm`] the four-limb
    /// subtraction (valid for every modulus).
    const ADX_MUL_FULL: bool;
    /// The number of 64-bit limbs.
    const LIMBS: usize;
    /// Whether the modulus leaves the top bit of its top limb free
    /// (arkworks' `CAN_USE_NO_CARRY_MUL_OPT`): then
    /// [`MontField::mul_fast`] runs its own branch-free multiplication, and
    /// arkworks' squaring its fast "no-carry" path; otherwise both are
    /// arkworks' general ones.
    const SPARE_BIT: bool;
    /// `self * other` with the BMI2/ADX assembly kernel (the four-limb,
    /// full-width four-limb or six-limb one).
    ///
    /// # Safety
    /// `Self::ADX_MUL`, `Self::ADX_MUL_FULL` or `Self::ADX_MUL6` must hold
    /// and the CPU must support BMI2 and ADX ([`adx_supported`]).
    unsafe fn mul_adx(&self, other: &Self) -> Self;
    /// `self + other` in x86-64 assembly (carry chain and `cmov`).
    ///
    /// # Safety
    /// `Self::ADX_MUL`, `Self::ADX_MUL_FULL` or `Self::ADX_MUL6` must hold
    /// (no CPU feature beyond x86-64 is needed).
    unsafe fn add_asm(&self, other: &Self) -> Self;
    /// `self - other` in x86-64 assembly (borrow chain, then the modulus
    /// added back under a mask or `cmov`).
    ///
    /// # Safety
    /// `Self::ADX_MUL`, `Self::ADX_MUL_FULL` or `Self::ADX_MUL6` must hold
    /// (no CPU feature beyond x86-64 is needed).
    unsafe fn sub_asm(&self, other: &Self) -> Self;
    /// Whether [`Adx::dif4`] leaves its sums unreduced for this field
    /// ([`MontField::dif4_lazy`]): [`MontField::ADX_MUL`] and a modulus
    /// below `2^256 / 5` (BN254's two fields; not BLS12-381 Fr, whose
    /// modulus is above `2^254`).
    const LAZY_SUMS: bool;
    /// One radix-4 decimation-in-frequency butterfly ([`Adx::dif4`]) with
    /// the sums left unreduced between the products (x86-64 assembly).
    ///
    /// # Safety
    /// `Self::LAZY_SUMS` must hold and the CPU must support BMI2 and ADX.
    unsafe fn dif4_lazy(x: [&Self; 4], w4: &Self, w: [&Self; 3]) -> [Self; 4];
    /// The first four Montgomery-form limbs as arkworks stores them (the
    /// whole element when `Self::ADX_MUL` holds).
    #[inline(always)]
    fn mont_limbs(&self) -> [u64; 4] {
        self.mont_words()
    }
    /// The element whose first four Montgomery-form limbs are `limbs` (the
    /// others zero), without reduction: `limbs` must encode a value below
    /// the modulus.
    #[inline(always)]
    fn from_mont_limbs(limbs: [u64; 4]) -> Self {
        Self::from_mont_words(limbs)
    }
    /// The first `M` Montgomery-form limbs as arkworks stores them (zero
    /// past [`MontField::LIMBS`]): any limb count, for kernels written over
    /// several (the IFMA lanes of four- and six-limb fields).
    fn mont_words<const M: usize>(&self) -> [u64; M];
    /// The element whose Montgomery-form limbs are the first
    /// [`MontField::LIMBS`] of `words` (the rest must be zero), without
    /// reduction: they must encode a value below the modulus.
    fn from_mont_words<const M: usize>(words: [u64; M]) -> Self;
}

/// The modulus limbs and `-p^-1 mod 2^64`, as the assembly kernels read
/// them (constants in static memory, not rebuilt per call).
#[cfg(target_arch = "x86_64")]
struct AsmConsts<C, const N: usize>(core::marker::PhantomData<C>);

#[cfg(target_arch = "x86_64")]
impl<C: MontConfig<N>, const N: usize> AsmConsts<C, N> {
    /// Four limbs, then the inverse (four-limb fields).
    const PINV: [u64; 5] = Self::limbs_then_inv();
    /// Six limbs, then the inverse (six-limb fields).
    const PINV6: [u64; 7] = Self::limbs_then_inv();
    /// `2p` (four-limb fields below 2^255; the lazy butterfly's reduction).
    const P2: [u64; 4] = {
        let mut out = [0u64; 4];
        let mut carry = 0u64;
        let mut i = 0;
        while i < 4 && i < N {
            let m = C::MODULUS.0[i];
            out[i] = (m << 1) | carry;
            carry = m >> 63;
            i += 1;
        }
        out
    };

    /// The first `L - 1` limbs of the modulus (zero beyond `N`), then
    /// `-p^-1 mod 2^64`.
    const fn limbs_then_inv<const L: usize>() -> [u64; L] {
        let mut out = [0u64; L];
        let mut i = 0;
        while i < N && i < L - 1 {
            out[i] = C::MODULUS.0[i];
            i += 1;
        }
        out[L - 1] = C::INV;
        out
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn limbs4<const N: usize>(x: &[u64; N]) -> &[u64; 4] {
    x[..].try_into().expect("ADX_MUL implies 4 limbs")
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn limbs6<const N: usize>(x: &[u64; N]) -> &[u64; 6] {
    x[..].try_into().expect("ADX_MUL6 implies 6 limbs")
}

/// The element with the six Montgomery-form limbs `r` (`N` is 6).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn from_limbs6<C: MontConfig<N>, const N: usize>(r: [u64; 6]) -> Fp<MontBackend<C, N>, N> {
    let mut out = [0u64; N];
    out.copy_from_slice(&r);
    Fp::new_unchecked(ark_ff::BigInt(out))
}

/// The token's safe entry points to the assembly (the token itself and its
/// detection belong to the selection layer, the crate's `kernel` module).
impl Adx {
    /// Whether an assembly kernel covers `F` (four limbs with or without a
    /// spare bit, six limbs with one); the others take the portable ones.
    #[inline(always)]
    fn covers<F: MontField>() -> bool {
        F::ADX_MUL || F::ADX_MUL6 || F::ADX_MUL_FULL
    }

    /// `a * b`.
    #[inline(always)]
    pub fn mul<F: MontField>(self, a: &F, b: &F) -> F {
        if Self::covers::<F>() {
            // SAFETY: a kernel covers F and `self` exists only where the CPU
            // supports BMI2 and ADX.
            unsafe { a.mul_adx(b) }
        } else {
            a.mul_fast(b)
        }
    }

    /// `a + b`.
    #[inline(always)]
    pub fn add<F: MontField>(self, a: &F, b: &F) -> F {
        if Self::covers::<F>() {
            // SAFETY: a kernel covers F (no CPU feature is needed).
            unsafe { a.add_asm(b) }
        } else {
            a.add_fast(b)
        }
    }

    /// `a - b`.
    #[inline(always)]
    pub fn sub<F: MontField>(self, a: &F, b: &F) -> F {
        if Self::covers::<F>() {
            // SAFETY: a kernel covers F (no CPU feature is needed).
            unsafe { a.sub_asm(b) }
        } else {
            a.sub_fast(b)
        }
    }

    /// One radix-4 decimation-in-frequency butterfly: with `s = x0 + x2`,
    /// `t = x1 + x3`, `d = x0 - x2` and `e = (x1 - x3) w4`, returns
    /// `[s + t, (s - t) w1, (d + e) w0, (d - e) w2]` for `w = [w0, w1,
    /// w2]`. For fields with [`MontField::LAZY_SUMS`] the sums stay
    /// unreduced between the four products (about half the additions'
    /// instructions); otherwise four modular additions, four subtractions
    /// and four products.
    #[inline(always)]
    pub fn dif4<F: MontField>(self, x: [&F; 4], w4: &F, w: [&F; 3]) -> [F; 4] {
        if F::LAZY_SUMS {
            // SAFETY: LAZY_SUMS holds and `self` exists only where the CPU
            // supports BMI2 and ADX.
            return unsafe { F::dif4_lazy(x, w4, w) };
        }
        dif4_with(
            x,
            w4,
            w,
            |a, b| self.add(a, b),
            |a, b| self.sub(a, b),
            |a, b| self.mul(a, b),
        )
    }
}

/// The radix-4 decimation-in-frequency butterfly of [`Adx::dif4`] from an
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

impl<C: MontConfig<N>, const N: usize> MontField for Fp<MontBackend<C, N>, N> {
    const ADX_MUL: bool = cfg!(target_arch = "x86_64") && N == 4 && C::MODULUS.0[N - 1] >> 63 == 0;
    const ADX_MUL6: bool = cfg!(target_arch = "x86_64") && N == 6 && C::CAN_USE_NO_CARRY_MUL_OPT;
    const ADX_MUL_FULL: bool =
        cfg!(target_arch = "x86_64") && N == 4 && C::MODULUS.0[N - 1] >> 63 == 1;
    const LIMBS: usize = N;
    const SPARE_BIT: bool = C::CAN_USE_NO_CARRY_MUL_OPT;
    // p < (2^64 - 1) / 5 * 2^192 < 2^256 / 5.
    const LAZY_SUMS: bool = Self::ADX_MUL && C::MODULUS.0[N - 1] < u64::MAX / 5;

    #[inline(always)]
    fn mont_words<const M: usize>(&self) -> [u64; M] {
        core::array::from_fn(|i| self.0 .0.get(i).copied().unwrap_or(0))
    }

    #[inline(always)]
    fn from_mont_words<const M: usize>(words: [u64; M]) -> Self {
        debug_assert!(words.iter().skip(N).all(|&w| w == 0));
        Fp::new_unchecked(ark_ff::BigInt(core::array::from_fn(|i| {
            words.get(i).copied().unwrap_or(0)
        })))
    }

    #[inline(always)]
    unsafe fn mul_adx(&self, other: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if N == 6 {
                let (a, b) = (limbs6(&self.0 .0), limbs6(&other.0 .0));
                // SAFETY: forwarded from the caller (ADX_MUL6, as N is 6,
                // and CPU support).
                return from_limbs6(unsafe { adx::mont_mul_6(a, b, &AsmConsts::<C, N>::PINV6) });
            }
            let (a, b) = (limbs4(&self.0 .0), limbs4(&other.0 .0));
            if Self::ADX_MUL_FULL {
                // SAFETY: forwarded from the caller (ADX_MUL_FULL and CPU
                // support).
                return Self::from_mont_limbs(unsafe {
                    adx::mont_mul_4_full(a, b, &AsmConsts::<C, N>::PINV)
                });
            }
            // SAFETY: forwarded from the caller (ADX_MUL and CPU support).
            Self::from_mont_limbs(unsafe { adx::mont_mul_4(a, b, &AsmConsts::<C, N>::PINV) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.mul_fast(other)
        }
    }

    #[inline(always)]
    unsafe fn add_asm(&self, other: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if N == 6 {
                let (a, b) = (limbs6(&self.0 .0), limbs6(&other.0 .0));
                // SAFETY: ADX_MUL6 (from the caller, as N is 6) gives
                // p < 2^383.
                return from_limbs6(unsafe { adx::add_6(a, b, &AsmConsts::<C, N>::PINV6) });
            }
            let (a, b) = (limbs4(&self.0 .0), limbs4(&other.0 .0));
            if Self::ADX_MUL_FULL {
                // SAFETY: ADX_MUL_FULL (from the caller) gives 4 limbs; the
                // kernel takes any modulus.
                return Self::from_mont_limbs(unsafe {
                    adx::add_4_full(a, b, &AsmConsts::<C, N>::PINV)
                });
            }
            // SAFETY: ADX_MUL (from the caller) gives 4 limbs and p < 2^255.
            Self::from_mont_limbs(unsafe { adx::add_4(a, b, &AsmConsts::<C, N>::PINV) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.add_fast(other)
        }
    }

    #[inline(always)]
    unsafe fn sub_asm(&self, other: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if N == 6 {
                let (a, b) = (limbs6(&self.0 .0), limbs6(&other.0 .0));
                // SAFETY: N is 6 and the inputs are reduced.
                return from_limbs6(unsafe { adx::sub_6(a, b, &AsmConsts::<C, N>::PINV6) });
            }
            let (a, b) = (limbs4(&self.0 .0), limbs4(&other.0 .0));
            // SAFETY: ADX_MUL or ADX_MUL_FULL (from the caller) gives 4
            // limbs; the kernel takes any modulus.
            Self::from_mont_limbs(unsafe { adx::sub_4(a, b, &AsmConsts::<C, N>::PINV) })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.sub_fast(other)
        }
    }

    #[inline(always)]
    unsafe fn dif4_lazy(x: [&Self; 4], w4: &Self, w: [&Self; 3]) -> [Self; 4] {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: forwarded from the caller (LAZY_SUMS: four limbs and
            // p < 2^256 / 5; CPU support); the inputs are field elements,
            // hence reduced.
            let y = unsafe {
                adx::dif4_lazy(
                    x.map(|v| limbs4(&v.0 .0)),
                    limbs4(&w4.0 .0),
                    w.map(|v| limbs4(&v.0 .0)),
                    &AsmConsts::<C, N>::PINV,
                    &AsmConsts::<C, N>::P2,
                )
            };
            y.map(Self::from_mont_limbs)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // Not reached (LAZY_SUMS is false off x86-64); the same values
            // with the portable operations.
            dif4_with(x, w4, w, Self::add_fast, Self::sub_fast, Self::mul_fast)
        }
    }

    #[inline(always)]
    fn eq_fast(&self, other: &Self) -> bool {
        let (a, b) = (&self.0 .0, &other.0 .0);
        let mut d = 0u64;
        for i in 0..N {
            d |= a[i] ^ b[i];
        }
        d == 0
    }

    #[inline(always)]
    fn add_fast(&self, other: &Self) -> Self {
        let (a, b) = (&self.0 .0, &other.0 .0);
        let mut carry = 0u64;
        let mut s = [0u64; N];
        for i in 0..N {
            s[i] = adc(a[i], b[i], &mut carry);
        }
        let limbs = reduce_once(s, carry, &C::MODULUS.0);
        Fp::new_unchecked(ark_ff::BigInt(limbs))
    }

    #[inline(always)]
    fn sub_fast(&self, other: &Self) -> Self {
        let (a, b) = (&self.0 .0, &other.0 .0);
        let mut borrow = 0u64;
        let mut d = [0u64; N];
        for i in 0..N {
            d[i] = sbb(a[i], b[i], &mut borrow);
        }
        // Add the modulus back when the subtraction borrowed.
        let mask = 0u64.wrapping_sub(borrow);
        let p = &C::MODULUS.0;
        let mut carry = 0u64;
        for i in 0..N {
            d[i] = adc(d[i], p[i] & mask, &mut carry);
        }
        Fp::new_unchecked(ark_ff::BigInt(d))
    }

    #[inline(always)]
    fn mul_fast(&self, other: &Self) -> Self {
        if !C::CAN_USE_NO_CARRY_MUL_OPT {
            // Moduli without a spare top bit take arkworks' general path.
            return *self * other;
        }
        // CIOS with the "no-carry" shortcut (valid when the top limb of the
        // modulus leaves room, which CAN_USE_NO_CARRY_MUL_OPT checks).
        let (a, b) = (&self.0 .0, &other.0 .0);
        let p = &C::MODULUS.0;
        let mut r = [0u64; N];
        for i in 0..N {
            let mut carry1 = 0u64;
            r[0] = mac(r[0], a[0], b[i], &mut carry1);
            let k = r[0].wrapping_mul(C::INV);
            let mut carry2 = 0u64;
            mac(r[0], k, p[0], &mut carry2);
            for j in 1..N {
                r[j] = mac(r[j], a[j], b[i], &mut carry1);
                r[j - 1] = mac(r[j], k, p[j], &mut carry2);
            }
            r[N - 1] = carry1.wrapping_add(carry2);
        }
        Fp::new_unchecked(ark_ff::BigInt(reduce_once(r, 0, p)))
    }
}
