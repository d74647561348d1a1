//! The BMI2/ADX kernel in x86-64 assembly: Montgomery multiplication with
//! `mulx`/`adcx`/`adox` for four-limb and six-limb moduli, modular addition
//! and subtraction with carry chains and `cmov`, and the radix-4 NTT
//! butterfly with lazy sums (`dif4_lazy`).
//!
//! Two independent carry chains (CF for the high halves, OF for the low
//! halves of each `mulx`) let the CPU overlap the partial products, which
//! compilers do not emit from portable code. The algorithm is the CIOS loop
//! of the portable kernel's `mul_no_carry` ([`crate::portable`]) with the
//! "no-carry" shortcut, so it is only valid for moduli whose top limb
//! leaves a spare bit (below 2^255 for four limbs), which the caller
//! checks; results are fully reduced, identical to arkworks'.
//!
//! The instruction sequences were generated from the loop below (register
//! rotation over N + 1 accumulators):
//! ```text
//! for i in 0..N:   t += a * b[i]          (mulx, low halves on OF, high on CF)
//!                  m  = t0 * inv mod 2^64
//!                  t  = (t + m * p) >> 64 (same two chains; t0 becomes 0)
//! result = t - p if t >= p else t          (sub/sbb, then cmovae)
//! ```
//!
//! Two stay generated: `scripts/mont_mul_asm.py` prints the bodies of
//! [`mont_mul_6`] (argument `6`) and [`mont_mul_4_full`] (`full`), and
//! `scripts/check-asm.sh` (run by CI) fails when this file's differ from
//! them. The other sequences are maintained by hand.

use core::arch::asm;

/// `a * b * 2^-256 mod p`, where `pinv = [p0, p1, p2, p3, -p^-1 mod 2^64]`.
///
/// # Safety
/// The CPU must support BMI2 and ADX (`is_x86_feature_detected!`), and
/// `p < 2^255`, `a, b < p`.
#[inline(always)]
pub(crate) unsafe fn mont_mul_4(a: &[u64; 4], b: &[u64; 4], pinv: &[u64; 5]) -> [u64; 4] {
    let (r0, r1, r2, r4): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2/ADX; the asm reads 4 limbs through
    // `a` and `b` and 5 through `p`, and touches no other memory.
    unsafe {
        asm!(
            "xor {zero:e}, {zero:e}",
            "xor {r0:e}, {r0:e}",
            "xor {r1:e}, {r1:e}",
            "xor {r2:e}, {r2:e}",
            "xor {r3:e}, {r3:e}",
            "mov rdx, qword ptr [{b} + 0]",
            "xor {r4:e}, {r4:e}",
            "mulx {hi}, {lo}, qword ptr [{a}]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "adox {r4}, {zero}",
            "mov rdx, {r0}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p}]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "adox {r4}, {zero}",
            "mov rdx, qword ptr [{b} + 8]",
            "xor {r0:e}, {r0:e}",
            "mulx {hi}, {lo}, qword ptr [{a}]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "adox {r0}, {zero}",
            "mov rdx, {r1}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p}]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "adox {r0}, {zero}",
            "mov rdx, qword ptr [{b} + 16]",
            "xor {r1:e}, {r1:e}",
            "mulx {hi}, {lo}, qword ptr [{a}]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "adox {r1}, {zero}",
            "mov rdx, {r2}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p}]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "adox {r1}, {zero}",
            "mov rdx, qword ptr [{b} + 24]",
            "xor {r2:e}, {r2:e}",
            "mulx {hi}, {lo}, qword ptr [{a}]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "adox {r2}, {zero}",
            "mov rdx, {r3}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p}]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "adox {r2}, {zero}",
            "mov {lo}, {r4}",
            "sub {lo}, qword ptr [{p}]",
            "mov {hi}, {r0}",
            "sbb {hi}, qword ptr [{p} + 8]",
            "mov rdx, {r1}",
            "sbb rdx, qword ptr [{p} + 16]",
            "mov {r3}, {r2}",
            "sbb {r3}, qword ptr [{p} + 24]",
            "cmovae {r4}, {lo}",
            "cmovae {r0}, {hi}",
            "cmovae {r1}, rdx",
            "cmovae {r2}, {r3}",
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            p = in(reg) pinv.as_ptr(),
            r0 = out(reg) r0,
            r1 = out(reg) r1,
            r2 = out(reg) r2,
            r3 = out(reg) _,
            r4 = out(reg) r4,
            lo = out(reg) _,
            hi = out(reg) _,
            zero = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r4, r0, r1, r2]
}

/// `a * b * 2^-256 mod p` for any odd four-limb modulus, the top bit
/// included (secp256k1's and P-256's base fields), where `pinv = [p0, p1,
/// p2, p3, -p^-1 mod 2^64]`: the CIOS loop of [`mont_mul_4`] with the
/// running sum one word and one bit longer (`t < 2p < 2^257`: a sixth
/// accumulator takes the carries out of the top limb, which a spare bit
/// rules out in [`mont_mul_4`]), and the final subtraction borrowing from
/// that bit. 13 registers; printed by `scripts/mont_mul_asm.py full`.
///
/// # Safety
/// The CPU must support BMI2 and ADX, and `a, b < p`.
#[inline(always)]
pub(crate) unsafe fn mont_mul_4_full(a: &[u64; 4], b: &[u64; 4], pinv: &[u64; 5]) -> [u64; 4] {
    let (r0, r1, r4, r5): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2/ADX; the asm reads 4 limbs through
    // `a` and `b` and 5 through `p`, and touches no other memory.
    unsafe {
        asm!(
            "xor {zero:e}, {zero:e}",
            "xor {r0:e}, {r0:e}",
            "xor {r1:e}, {r1:e}",
            "xor {r2:e}, {r2:e}",
            "xor {r3:e}, {r3:e}",
            "xor {r4:e}, {r4:e}",
            "mov rdx, qword ptr [{b} + 0]",
            "xor {r5:e}, {r5:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "adcx {r5}, {zero}",
            "adox {r4}, {zero}",
            "adox {r5}, {zero}",
            "mov rdx, {r0}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "adcx {r5}, {zero}",
            "adox {r4}, {zero}",
            "adox {r5}, {zero}",
            "mov rdx, qword ptr [{b} + 8]",
            "xor {r0:e}, {r0:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "adcx {r0}, {zero}",
            "adox {r5}, {zero}",
            "adox {r0}, {zero}",
            "mov rdx, {r1}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "adcx {r0}, {zero}",
            "adox {r5}, {zero}",
            "adox {r0}, {zero}",
            "mov rdx, qword ptr [{b} + 16]",
            "xor {r1:e}, {r1:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r5}, {lo}",
            "adcx {r0}, {hi}",
            "adcx {r1}, {zero}",
            "adox {r0}, {zero}",
            "adox {r1}, {zero}",
            "mov rdx, {r2}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r5}, {lo}",
            "adcx {r0}, {hi}",
            "adcx {r1}, {zero}",
            "adox {r0}, {zero}",
            "adox {r1}, {zero}",
            "mov rdx, qword ptr [{b} + 24]",
            "xor {r2:e}, {r2:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r5}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "adcx {r2}, {zero}",
            "adox {r1}, {zero}",
            "adox {r2}, {zero}",
            "mov rdx, {r3}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r5}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "adcx {r2}, {zero}",
            "adox {r1}, {zero}",
            "adox {r2}, {zero}",
            "mov {lo}, {r4}",
            "sub {lo}, qword ptr [{p} + 0]",
            "mov {hi}, {r5}",
            "sbb {hi}, qword ptr [{p} + 8]",
            "mov rdx, {r0}",
            "sbb rdx, qword ptr [{p} + 16]",
            "mov {zero}, {r1}",
            "sbb {zero}, qword ptr [{p} + 24]",
            "sbb {r2}, 0",
            "cmovae {r4}, {lo}",
            "cmovae {r5}, {hi}",
            "cmovae {r0}, rdx",
            "cmovae {r1}, {zero}",
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            p = in(reg) pinv.as_ptr(),
            r0 = out(reg) r0,
            r1 = out(reg) r1,
            r2 = out(reg) _,
            r3 = out(reg) _,
            r4 = out(reg) r4,
            r5 = out(reg) r5,
            lo = out(reg) _,
            hi = out(reg) _,
            zero = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r4, r5, r0, r1]
}

/// `a + b mod p` for any odd four-limb modulus (the sum may carry out of
/// 256 bits when the top bit of `p` is set): the sum, then `p` subtracted
/// from the 257-bit sum unless that borrows.
///
/// # Safety
/// `a, b < p` (no CPU feature beyond x86-64 is needed).
#[inline(always)]
pub(crate) unsafe fn add_4_full(a: &[u64; 4], b: &[u64; 4], p: &[u64; 5]) -> [u64; 4] {
    let (mut t0, mut t1, mut t2, mut t3) = (a[0], a[1], a[2], a[3]);
    // SAFETY: reads 4 limbs through `b` and 4 through `p`.
    unsafe {
        asm!(
            "xor {c:e}, {c:e}",
            "add {t0}, qword ptr [{b}]",
            "adc {t1}, qword ptr [{b} + 8]",
            "adc {t2}, qword ptr [{b} + 16]",
            "adc {t3}, qword ptr [{b} + 24]",
            "adc {c}, 0",
            "mov {u0}, {t0}",
            "sub {u0}, qword ptr [{p}]",
            "mov {u1}, {t1}",
            "sbb {u1}, qword ptr [{p} + 8]",
            "mov {u2}, {t2}",
            "sbb {u2}, qword ptr [{p} + 16]",
            "mov {u3}, {t3}",
            "sbb {u3}, qword ptr [{p} + 24]",
            "sbb {c}, 0",
            "cmovae {t0}, {u0}",
            "cmovae {t1}, {u1}",
            "cmovae {t2}, {u2}",
            "cmovae {t3}, {u3}",
            b = in(reg) b.as_ptr(),
            p = in(reg) p.as_ptr(),
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            u0 = out(reg) _,
            u1 = out(reg) _,
            u2 = out(reg) _,
            u3 = out(reg) _,
            c = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// `a * b * 2^-384 mod p` for six-limb moduli (BLS12-381 and BLS12-377 Fq),
/// where `pinv = [p0, .., p5, -p^-1 mod 2^64]`: the loop above with six
/// limbs, printed by `scripts/mont_mul_asm.py 6`. It needs 13 registers, all
/// that Rust's inline assembly can allocate here, so it keeps no zero
/// register (`mov reg, 0` closes the OF chain without touching the flags)
/// and borrows the pointer registers for the final subtraction.
///
/// # Safety
/// The CPU must support BMI2 and ADX, the top limb of `p` must leave a spare
/// bit (arkworks' `CAN_USE_NO_CARRY_MUL_OPT`), and `a, b < p`.
#[inline(always)]
pub(crate) unsafe fn mont_mul_6(a: &[u64; 6], b: &[u64; 6], pinv: &[u64; 7]) -> [u64; 6] {
    let (r0, r1, r2, r3, r4, r6): (u64, u64, u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2/ADX; the asm reads 6 limbs through
    // `a` and `b` and 7 through `pinv`, and touches no other memory.
    unsafe {
        asm!(
            "xor {r0:e}, {r0:e}",
            "xor {r1:e}, {r1:e}",
            "xor {r2:e}, {r2:e}",
            "xor {r3:e}, {r3:e}",
            "xor {r4:e}, {r4:e}",
            "xor {r5:e}, {r5:e}",
            "xor {r6:e}, {r6:e}",
            "mov rdx, qword ptr [{b} + 0]",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 32]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 40]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mov {lo:e}, 0",
            "adox {r6}, {lo}",
            "mov rdx, {r0}",
            "imul rdx, qword ptr [{p} + 48]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 32]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 40]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mov {lo:e}, 0",
            "adox {r6}, {lo}",
            "xor {r0:e}, {r0:e}",
            "mov rdx, qword ptr [{b} + 8]",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 32]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 40]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mov {lo:e}, 0",
            "adox {r0}, {lo}",
            "mov rdx, {r1}",
            "imul rdx, qword ptr [{p} + 48]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 32]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 40]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mov {lo:e}, 0",
            "adox {r0}, {lo}",
            "xor {r1:e}, {r1:e}",
            "mov rdx, qword ptr [{b} + 16]",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 32]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 40]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mov {lo:e}, 0",
            "adox {r1}, {lo}",
            "mov rdx, {r2}",
            "imul rdx, qword ptr [{p} + 48]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 32]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 40]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mov {lo:e}, 0",
            "adox {r1}, {lo}",
            "xor {r2:e}, {r2:e}",
            "mov rdx, qword ptr [{b} + 24]",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 32]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 40]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mov {lo:e}, 0",
            "adox {r2}, {lo}",
            "mov rdx, {r3}",
            "imul rdx, qword ptr [{p} + 48]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 32]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 40]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mov {lo:e}, 0",
            "adox {r2}, {lo}",
            "xor {r3:e}, {r3:e}",
            "mov rdx, qword ptr [{b} + 32]",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 32]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 40]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mov {lo:e}, 0",
            "adox {r3}, {lo}",
            "mov rdx, {r4}",
            "imul rdx, qword ptr [{p} + 48]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r4}, {lo}",
            "adcx {r5}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 32]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 40]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mov {lo:e}, 0",
            "adox {r3}, {lo}",
            "xor {r4:e}, {r4:e}",
            "mov rdx, qword ptr [{b} + 40]",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 24]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 32]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 40]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mov {lo:e}, 0",
            "adox {r4}, {lo}",
            "mov rdx, {r5}",
            "imul rdx, qword ptr [{p} + 48]",
            "xor {lo:e}, {lo:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r5}, {lo}",
            "adcx {r6}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r6}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 32]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 40]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mov {lo:e}, 0",
            "adox {r4}, {lo}",
            "mov {lo}, {r6}",
            "sub {lo}, qword ptr [{p} + 0]",
            "mov {hi}, {r0}",
            "sbb {hi}, qword ptr [{p} + 8]",
            "mov rdx, {r1}",
            "sbb rdx, qword ptr [{p} + 16]",
            "mov {a}, {r2}",
            "sbb {a}, qword ptr [{p} + 24]",
            "mov {b}, {r3}",
            "sbb {b}, qword ptr [{p} + 32]",
            "mov {r5}, {r4}",
            "sbb {r5}, qword ptr [{p} + 40]",
            "cmovae {r6}, {lo}",
            "cmovae {r0}, {hi}",
            "cmovae {r1}, rdx",
            "cmovae {r2}, {a}",
            "cmovae {r3}, {b}",
            "cmovae {r4}, {r5}",
            a = inout(reg) a.as_ptr() => _,
            b = inout(reg) b.as_ptr() => _,
            p = in(reg) pinv.as_ptr(),
            r0 = out(reg) r0,
            r1 = out(reg) r1,
            r2 = out(reg) r2,
            r3 = out(reg) r3,
            r4 = out(reg) r4,
            r5 = out(reg) _,
            r6 = out(reg) r6,
            lo = out(reg) _,
            hi = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r6, r0, r1, r2, r3, r4]
}

/// `a + b mod p` for `a, b < p < 2^255` (the sum cannot carry out).
///
/// # Safety
/// `p < 2^255` and `a, b < p`. (No special CPU feature is needed.)
#[inline(always)]
pub(crate) unsafe fn add_4(a: &[u64; 4], b: &[u64; 4], p: &[u64; 5]) -> [u64; 4] {
    let (mut t0, mut t1, mut t2, mut t3) = (a[0], a[1], a[2], a[3]);
    // SAFETY: reads 4 limbs through `b` and 4 through `p`.
    unsafe {
        asm!(
            "add {t0}, qword ptr [{b}]",
            "adc {t1}, qword ptr [{b} + 8]",
            "adc {t2}, qword ptr [{b} + 16]",
            "adc {t3}, qword ptr [{b} + 24]",
            "mov {u0}, {t0}",
            "sub {u0}, qword ptr [{p}]",
            "mov {u1}, {t1}",
            "sbb {u1}, qword ptr [{p} + 8]",
            "mov {u2}, {t2}",
            "sbb {u2}, qword ptr [{p} + 16]",
            "mov {u3}, {t3}",
            "sbb {u3}, qword ptr [{p} + 24]",
            "cmovae {t0}, {u0}",
            "cmovae {t1}, {u1}",
            "cmovae {t2}, {u2}",
            "cmovae {t3}, {u3}",
            b = in(reg) b.as_ptr(),
            p = in(reg) p.as_ptr(),
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            u0 = out(reg) _,
            u1 = out(reg) _,
            u2 = out(reg) _,
            u3 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// `a - b mod p` for `a, b < p`.
///
/// # Safety
/// `a, b < p`. (No special CPU feature is needed.)
#[inline(always)]
pub(crate) unsafe fn sub_4(a: &[u64; 4], b: &[u64; 4], p: &[u64; 5]) -> [u64; 4] {
    let (mut t0, mut t1, mut t2, mut t3) = (a[0], a[1], a[2], a[3]);
    // SAFETY: reads 4 limbs through `b` and 4 through `p`.
    unsafe {
        asm!(
            "sub {t0}, qword ptr [{b}]",
            "sbb {t1}, qword ptr [{b} + 8]",
            "sbb {t2}, qword ptr [{b} + 16]",
            "sbb {t3}, qword ptr [{b} + 24]",
            // m = all ones if the subtraction borrowed
            "sbb {m}, {m}",
            // u = t + p (mod 2^256), the answer when it borrowed
            "mov {u0}, {t0}",
            "add {u0}, qword ptr [{p}]",
            "mov {u1}, {t1}",
            "adc {u1}, qword ptr [{p} + 8]",
            "mov {u2}, {t2}",
            "adc {u2}, qword ptr [{p} + 16]",
            "mov {u3}, {t3}",
            "adc {u3}, qword ptr [{p} + 24]",
            "test {m}, {m}",
            "cmovnz {t0}, {u0}",
            "cmovnz {t1}, {u1}",
            "cmovnz {t2}, {u2}",
            "cmovnz {t3}, {u3}",
            b = in(reg) b.as_ptr(),
            p = in(reg) p.as_ptr(),
            m = out(reg) _,
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            u0 = out(reg) _,
            u1 = out(reg) _,
            u2 = out(reg) _,
            u3 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// One radix-4 decimation-in-frequency butterfly with lazy sums, for
/// four-limb moduli with `5p < 2^256` (BN254's two fields): with `s = x0 +
/// x2`, `t = x1 + x3`, `d = x0 - x2` and `e = (x1 - x3) w4`, it returns
/// `[s + t, (s - t) w1, (d + e) w0, (d - e) w2]` reduced, where `w =
/// [w0, w1, w2]` (the NTT's twiddle triple `w^j, w^2j, w^3j`).
///
/// The sums and differences are left unreduced: `s, t, d` and `x1 - x3 + p`
/// lie below `2p`, `s - t + 2p` below `4p`, `d + e` and `d - e + p` below
/// `3p`, all below `2^256`. [`mont_mul_4`] takes a left operand below `4p`
/// and a reduced right one when `5p < 2^256`: each step of its loop keeps
/// the running sum below `a + p <= 5p` (so `(a + p) 2^64`, the largest
/// intermediate, fits its five words), and the result `(a b + m p) / 2^256
/// < 4p^2 / 2^256 + p < 2p` before its final subtraction, so it comes out
/// reduced. Only `s + t` needs reducing by hand (from below `4p`: `2p`,
/// then `p`, each subtracted unless it borrows). Against four modular
/// additions and four subtractions, that is about half the instructions
/// outside the multiplications.
///
/// # Safety
/// The CPU must support BMI2 and ADX; `p < 2^256 / 5` (`pinv` as for
/// [`mont_mul_4`], `p2 = 2p`); `x`, `w4` and `w` reduced.
#[inline(always)]
pub(crate) unsafe fn dif4_lazy(
    x: [&[u64; 4]; 4],
    w4: &[u64; 4],
    w: [&[u64; 4]; 3],
    pinv: &[u64; 5],
    p2: &[u64; 4],
) -> [[u64; 4]; 4] {
    let p: &[u64; 4] = pinv[..4].try_into().expect("five words");
    let s = add_nr(x[0], x[2]);
    let t = add_nr(x[1], x[3]);
    let d = sub_plus(x[0], x[2], p);
    // SAFETY (the four products): the caller's CPU and modulus; the left
    // operands lie below 2p, 4p, 3p and 3p (above), the right ones reduced.
    let e = unsafe { mont_mul_4(&sub_plus(x[1], x[3], p), w4, pinv) };
    let y0 = reduce_below_4p(add_nr(&s, &t), p, p2);
    let y1 = unsafe { mont_mul_4(&sub_plus(&s, &t, p2), w[1], pinv) };
    let y2 = unsafe { mont_mul_4(&add_nr(&d, &e), w[0], pinv) };
    let y3 = unsafe { mont_mul_4(&sub_plus(&d, &e, p), w[2], pinv) };
    [y0, y1, y2, y3]
}

/// `a + b` as 256-bit integers, without reduction (the caller keeps the sum
/// below 2^256).
#[inline(always)]
fn add_nr(a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let [mut t0, mut t1, mut t2, mut t3] = *a;
    // SAFETY: register arithmetic only.
    unsafe {
        asm!(
            "add {t0}, {b0}",
            "adc {t1}, {b1}",
            "adc {t2}, {b2}",
            "adc {t3}, {b3}",
            b0 = in(reg) b[0],
            b1 = in(reg) b[1],
            b2 = in(reg) b[2],
            b3 = in(reg) b[3],
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            options(pure, nomem, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// `a - b + k` as 256-bit integers for a multiple `k` of the modulus with
/// `b <= a + k` (the difference may borrow; adding `k` carries it back).
#[inline(always)]
fn sub_plus(a: &[u64; 4], b: &[u64; 4], k: &[u64; 4]) -> [u64; 4] {
    let [mut t0, mut t1, mut t2, mut t3] = *a;
    // SAFETY: reads the 4 limbs of `k`.
    unsafe {
        asm!(
            "sub {t0}, {b0}",
            "sbb {t1}, {b1}",
            "sbb {t2}, {b2}",
            "sbb {t3}, {b3}",
            "add {t0}, qword ptr [{k}]",
            "adc {t1}, qword ptr [{k} + 8]",
            "adc {t2}, qword ptr [{k} + 16]",
            "adc {t3}, qword ptr [{k} + 24]",
            b0 = in(reg) b[0],
            b1 = in(reg) b[1],
            b2 = in(reg) b[2],
            b3 = in(reg) b[3],
            k = in(reg) k.as_ptr(),
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// `a mod p` for `a < 4p < 2^256`: `2p` subtracted unless that borrows,
/// then `p` the same way.
#[inline(always)]
fn reduce_below_4p(a: [u64; 4], p: &[u64; 4], p2: &[u64; 4]) -> [u64; 4] {
    sub_unless_borrow(sub_unless_borrow(a, p2), p)
}

/// `a - k` if that does not borrow, else `a` (selected with `cmov`, no
/// branch).
#[inline(always)]
fn sub_unless_borrow(a: [u64; 4], k: &[u64; 4]) -> [u64; 4] {
    let [mut t0, mut t1, mut t2, mut t3] = a;
    // SAFETY: reads the 4 limbs of `k`.
    unsafe {
        asm!(
            "mov {u0}, {t0}",
            "sub {u0}, qword ptr [{k}]",
            "mov {u1}, {t1}",
            "sbb {u1}, qword ptr [{k} + 8]",
            "mov {u2}, {t2}",
            "sbb {u2}, qword ptr [{k} + 16]",
            "mov {u3}, {t3}",
            "sbb {u3}, qword ptr [{k} + 24]",
            "cmovae {t0}, {u0}",
            "cmovae {t1}, {u1}",
            "cmovae {t2}, {u2}",
            "cmovae {t3}, {u3}",
            k = in(reg) k.as_ptr(),
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            u0 = out(reg) _,
            u1 = out(reg) _,
            u2 = out(reg) _,
            u3 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3]
}

/// `a + b mod p` for six-limb `p < 2^383` and `a, b < p` (the sum cannot
/// carry out). The pointer register `b` doubles as the sixth scratch limb
/// once the sum is formed: 13 registers in all.
///
/// # Safety
/// `p < 2^383` and `a, b < p`. (No special CPU feature is needed.)
#[inline(always)]
pub(crate) unsafe fn add_6(a: &[u64; 6], b: &[u64; 6], p: &[u64; 7]) -> [u64; 6] {
    let [mut t0, mut t1, mut t2, mut t3, mut t4, mut t5] = *a;
    // SAFETY: reads 6 limbs through `b` and 6 through `p`.
    unsafe {
        asm!(
            "add {t0}, qword ptr [{b}]",
            "adc {t1}, qword ptr [{b} + 8]",
            "adc {t2}, qword ptr [{b} + 16]",
            "adc {t3}, qword ptr [{b} + 24]",
            "adc {t4}, qword ptr [{b} + 32]",
            "adc {t5}, qword ptr [{b} + 40]",
            "mov {u0}, {t0}",
            "sub {u0}, qword ptr [{p}]",
            "mov {u1}, {t1}",
            "sbb {u1}, qword ptr [{p} + 8]",
            "mov {u2}, {t2}",
            "sbb {u2}, qword ptr [{p} + 16]",
            "mov {u3}, {t3}",
            "sbb {u3}, qword ptr [{p} + 24]",
            "mov {u4}, {t4}",
            "sbb {u4}, qword ptr [{p} + 32]",
            "mov {b}, {t5}",
            "sbb {b}, qword ptr [{p} + 40]",
            "cmovae {t0}, {u0}",
            "cmovae {t1}, {u1}",
            "cmovae {t2}, {u2}",
            "cmovae {t3}, {u3}",
            "cmovae {t4}, {u4}",
            "cmovae {t5}, {b}",
            b = inout(reg) b.as_ptr() => _,
            p = in(reg) p.as_ptr(),
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            t4 = inout(reg) t4,
            t5 = inout(reg) t5,
            u0 = out(reg) _,
            u1 = out(reg) _,
            u2 = out(reg) _,
            u3 = out(reg) _,
            u4 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3, t4, t5]
}

/// `a - b mod p` for six-limb `a, b < p`: the difference, plus `p` masked
/// by the borrow (the pointer register `b` becomes the mask).
///
/// # Safety
/// `a, b < p`. (No special CPU feature is needed.)
#[inline(always)]
pub(crate) unsafe fn sub_6(a: &[u64; 6], b: &[u64; 6], p: &[u64; 7]) -> [u64; 6] {
    let [mut t0, mut t1, mut t2, mut t3, mut t4, mut t5] = *a;
    // SAFETY: reads 6 limbs through `b` and 6 through `p`.
    unsafe {
        asm!(
            "sub {t0}, qword ptr [{b}]",
            "sbb {t1}, qword ptr [{b} + 8]",
            "sbb {t2}, qword ptr [{b} + 16]",
            "sbb {t3}, qword ptr [{b} + 24]",
            "sbb {t4}, qword ptr [{b} + 32]",
            "sbb {t5}, qword ptr [{b} + 40]",
            // b = all ones if the subtraction borrowed, else zero
            "sbb {b}, {b}",
            "mov {u0}, qword ptr [{p}]",
            "and {u0}, {b}",
            "mov {u1}, qword ptr [{p} + 8]",
            "and {u1}, {b}",
            "mov {u2}, qword ptr [{p} + 16]",
            "and {u2}, {b}",
            "mov {u3}, qword ptr [{p} + 24]",
            "and {u3}, {b}",
            "mov {u4}, qword ptr [{p} + 32]",
            "and {u4}, {b}",
            "and {b}, qword ptr [{p} + 40]",
            "add {t0}, {u0}",
            "adc {t1}, {u1}",
            "adc {t2}, {u2}",
            "adc {t3}, {u3}",
            "adc {t4}, {u4}",
            "adc {t5}, {b}",
            b = inout(reg) b.as_ptr() => _,
            p = in(reg) p.as_ptr(),
            t0 = inout(reg) t0,
            t1 = inout(reg) t1,
            t2 = inout(reg) t2,
            t3 = inout(reg) t3,
            t4 = inout(reg) t4,
            t5 = inout(reg) t5,
            u0 = out(reg) _,
            u1 = out(reg) _,
            u2 = out(reg) _,
            u3 = out(reg) _,
            u4 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [t0, t1, t2, t3, t4, t5]
}
