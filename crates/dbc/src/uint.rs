//! Fixed-capacity unsigned integers for the chain algorithms' hot loops.
//!
//! Every algorithm in this crate is generic over the limb count `L` and is
//! instantiated once per size class (see [`with_limbs!`](crate::with_limbs)),
//! so a 256-bit input is handled with 5-limb arithmetic and no heap allocation,
//! while 1024-bit inputs still work. `L` always leaves at least four bits of
//! headroom above the input, which the algorithms rely on for `6n`, `3n` and
//! `2 * 2^a 3^b` (see `limbs_for_bits`).

// Carry and shift loops index the input and output limbs at related
// positions; a range loop says that more plainly than zipped iterators.
#![allow(clippy::needless_range_loop)]

use core::cmp::Ordering;

/// Little-endian limbs, `L` of them; all arithmetic wraps modulo `2^(64 L)`,
/// and callers keep values inside the headroom documented above.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Uint<const L: usize>(pub(crate) [u64; L]);

/// The largest limb count any size class uses (1024-bit inputs plus headroom).
pub(crate) const MAX_LIMBS: usize = 17;

/// Headroom bits kept above the input (for `6n` and one extra doubling).
pub(crate) const HEADROOM_BITS: u32 = 4;

/// Limb count of the size class that handles `bits`-bit inputs.
pub(crate) fn limbs_for_bits(bits: u32) -> usize {
    (bits + HEADROOM_BITS).div_ceil(64).max(1) as usize
}

impl<const L: usize> Uint<L> {
    /// Copies `limbs` (little-endian); the caller guarantees it fits.
    #[inline]
    pub(crate) fn from_limbs(limbs: &[u64]) -> Self {
        let mut out = [0u64; L];
        let n = limbs.len().min(L);
        out[..n].copy_from_slice(&limbs[..n]);
        debug_assert!(limbs[n..].iter().all(|&x| x == 0));
        Uint(out)
    }

    #[inline]
    pub(crate) fn from_u64(x: u64) -> Self {
        let mut out = [0u64; L];
        out[0] = x;
        Uint(out)
    }

    #[inline]
    pub(crate) fn is_zero(&self) -> bool {
        self.0.iter().all(|&x| x == 0)
    }

    /// Bit length (0 for zero).
    #[inline]
    pub(crate) fn bits(&self) -> u32 {
        for i in (0..L).rev() {
            if self.0[i] != 0 {
                return 64 * i as u32 + 64 - self.0[i].leading_zeros();
            }
        }
        0
    }

    #[inline]
    pub(crate) fn bit(&self, i: u32) -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        w < L && (self.0[w] >> b) & 1 == 1
    }

    /// `self << k`, truncated to `L` limbs.
    #[inline]
    pub(crate) fn shl(&self, k: u32) -> Self {
        let (w, b) = ((k / 64) as usize, k % 64);
        let mut out = [0u64; L];
        if w >= L {
            return Uint(out);
        }
        if b == 0 {
            out[w..].copy_from_slice(&self.0[..L - w]);
        } else {
            out[w] = self.0[0] << b;
            for i in w + 1..L {
                out[i] = (self.0[i - w] << b) | (self.0[i - w - 1] >> (64 - b));
            }
        }
        Uint(out)
    }

    /// `self >> k`.
    #[inline]
    pub(crate) fn shr(&self, k: u32) -> Self {
        let (w, b) = ((k / 64) as usize, k % 64);
        let mut out = [0u64; L];
        if w >= L {
            return Uint(out);
        }
        if b == 0 {
            out[..L - w].copy_from_slice(&self.0[w..]);
        } else {
            for i in 0..L - w {
                let hi = if i + w + 1 < L {
                    self.0[i + w + 1] << (64 - b)
                } else {
                    0
                };
                out[i] = (self.0[i + w] >> b) | hi;
            }
        }
        Uint(out)
    }

    /// `min(floor(self / 2^k), u64::MAX)`.
    #[inline]
    pub(crate) fn shr_saturating_u64(&self, k: u32) -> u64 {
        if self.bits() > k + 64 {
            return u64::MAX;
        }
        self.shr(k).0[0]
    }

    #[inline]
    pub(crate) fn wrapping_add(&self, o: &Self) -> Self {
        let mut out = [0u64; L];
        let mut carry = false;
        for i in 0..L {
            let (s1, c1) = self.0[i].overflowing_add(o.0[i]);
            let (s2, c2) = s1.overflowing_add(carry as u64);
            out[i] = s2;
            carry = c1 | c2;
        }
        Uint(out)
    }

    #[inline]
    pub(crate) fn wrapping_sub(&self, o: &Self) -> Self {
        let mut out = [0u64; L];
        let mut borrow = false;
        for i in 0..L {
            let (d1, b1) = self.0[i].overflowing_sub(o.0[i]);
            let (d2, b2) = d1.overflowing_sub(borrow as u64);
            out[i] = d2;
            borrow = b1 | b2;
        }
        Uint(out)
    }

    /// `|self - o|` and whether `self >= o`.
    #[inline]
    pub(crate) fn abs_diff(&self, o: &Self) -> (Self, bool) {
        if *self >= *o {
            (self.wrapping_sub(o), true)
        } else {
            (o.wrapping_sub(self), false)
        }
    }

    /// `self * m` (wrapping).
    #[inline]
    pub(crate) fn mul_small(&self, m: u64) -> Self {
        let mut out = [0u64; L];
        let mut carry = 0u128;
        for i in 0..L {
            let t = self.0[i] as u128 * m as u128 + carry;
            out[i] = t as u64;
            carry = t >> 64;
        }
        Uint(out)
    }

    /// `floor(self / 3)`.
    #[inline]
    pub(crate) fn div3(&self) -> Self {
        let mut out = [0u64; L];
        let mut rem = 0u128;
        for i in (0..L).rev() {
            let cur = (rem << 64) | self.0[i] as u128;
            out[i] = (cur / 3) as u64;
            rem = cur % 3;
        }
        Uint(out)
    }

    #[inline]
    pub(crate) fn count_ones(&self) -> u32 {
        self.0.iter().map(|x| x.count_ones()).sum()
    }

    #[inline]
    pub(crate) fn and(&self, o: &Self) -> Self {
        let mut out = self.0;
        for (x, y) in out.iter_mut().zip(o.0.iter()) {
            *x &= *y;
        }
        Uint(out)
    }

    #[inline]
    pub(crate) fn xor(&self, o: &Self) -> Self {
        let mut out = self.0;
        for (x, y) in out.iter_mut().zip(o.0.iter()) {
            *x ^= *y;
        }
        Uint(out)
    }

    /// The top 63 bits, normalised to `[2^62, 2^63)` (0 for zero): the value
    /// is about `mantissa * 2^(bits - 63)`.
    #[inline]
    pub(crate) fn mantissa(&self) -> u64 {
        let bits = self.bits();
        if bits == 0 {
            return 0;
        }
        if bits <= 63 {
            return self.0[0] << (63 - bits);
        }
        // The 63 bits below the top one's position, from at most two limbs.
        let lo = bits - 63; // position of the lowest kept bit
        let (w, s) = ((lo / 64) as usize, lo % 64);
        let low = self.0[w] >> s;
        let high = if s > 1 && w + 1 < L {
            self.0[w + 1] << (64 - s)
        } else {
            0
        };
        (low | high) & (u64::MAX >> 1)
    }

    /// `log2(self)` as a float (`-inf` for zero); exact to about 1e-15 relative.
    pub(crate) fn log2(&self) -> f64 {
        let bits = self.bits();
        if bits <= 64 {
            return (self.0[0] as f64).log2();
        }
        let top = self.shr(bits - 64).0[0];
        (top as f64).log2() + (bits - 64) as f64
    }
}

impl<const L: usize> PartialOrd for Uint<L> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const L: usize> Ord for Uint<L> {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..L).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        Ordering::Equal
    }
}

/// `3^b` with its bit length and its top bits, for the greedy's fast choice.
pub(crate) struct Pow3 {
    pub(crate) limbs: [u64; MAX_LIMBS],
    pub(crate) bits: u32,
    /// The top 63 bits, normalised to `[2^62, 2^63)`.
    pub(crate) mant: u64,
}

/// Table of `3^b` for every `b` whose power fits in [`MAX_LIMBS`] limbs,
/// computed once per process and shared by all size classes.
pub(crate) fn pow3_table() -> &'static [Pow3] {
    use std::sync::OnceLock;
    static TABLE: OnceLock<Vec<Pow3>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut out = Vec::new();
        let mut p = Uint::<MAX_LIMBS>::from_u64(1);
        // Stop before the next multiplication could overflow the capacity.
        while p.bits() + 2 <= 64 * MAX_LIMBS as u32 {
            out.push(Pow3 {
                limbs: p.0,
                bits: p.bits(),
                mant: p.mantissa(),
            });
            p = p.mul_small(3);
        }
        out
    })
}

/// `3^b` in the size class `L`, or `None` if it does not fit in `L` limbs.
#[inline]
pub(crate) fn pow3<const L: usize>(table: &[Pow3], b: u32) -> Option<Uint<L>> {
    let p = table.get(b as usize)?;
    if p.bits > 64 * L as u32 {
        return None;
    }
    let mut out = [0u64; L];
    out.copy_from_slice(&p.limbs[..L]);
    Some(Uint(out))
}

/// log2(3).
pub(crate) const LOG2_3: f64 = 1.584_962_500_721_156_3;

/// Runs `$f::<L>($args...)` with `L` the limb count for `$bits`-bit inputs.
#[macro_export]
#[doc(hidden)]
macro_rules! with_limbs {
    ($bits:expr, $f:ident ( $($arg:expr),* $(,)? )) => {{
        match $crate::uint::limbs_for_bits($bits) {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*),
            11 => $f::<11>($($arg),*),
            12 => $f::<12>($($arg),*),
            13 => $f::<13>($($arg),*),
            14 => $f::<14>($($arg),*),
            15 => $f::<15>($($arg),*),
            16 => $f::<16>($($arg),*),
            _ => $f::<17>($($arg),*),
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn big<const L: usize>(x: &Uint<L>) -> BigUint {
        BigUint::from_slice(
            &x.0.iter()
                .flat_map(|l| [*l as u32, (*l >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn ops_match_biguint() {
        let a = Uint::<4>([0x1234_5678_9abc_def0, u64::MAX, 7, 0]);
        let b = Uint::<4>([5, 0x8000_0000_0000_0000, 1, 0]);
        assert_eq!(big(&a.wrapping_add(&b)), big(&a) + big(&b));
        assert_eq!(big(&a.wrapping_sub(&b)), big(&a) - big(&b));
        assert_eq!(big(&a.div3()), big(&a) / 3u32);
        assert_eq!(big(&a.mul_small(3)), big(&a) * 3u32);
        for k in [0, 1, 63, 64, 65, 100] {
            assert_eq!(big(&b.shl(k)), (big(&b) << k) % (BigUint::from(1u8) << 256));
            assert_eq!(big(&a.shr(k)), big(&a) >> k);
        }
        assert_eq!(a.bits() as u64, big(&a).bits());
        assert!(a > b);
        assert_eq!(a.shr_saturating_u64(130), 1);
        assert_eq!(a.shr_saturating_u64(0), u64::MAX);
    }

    #[test]
    fn pow3_table_is_exact() {
        let t = pow3_table();
        let mut p = BigUint::from(1u8);
        for (b, e) in t.iter().enumerate() {
            assert_eq!(big(&Uint::<MAX_LIMBS>(e.limbs)), p, "3^{b}");
            assert_eq!(e.bits as u64, p.bits());
            let top = if p.bits() >= 63 {
                &p >> (p.bits() - 63)
            } else {
                &p << (63 - p.bits())
            };
            assert_eq!(BigUint::from(e.mant), top, "mantissa of 3^{b}");
            p *= 3u8;
        }
        assert!(t.len() > 640, "1024-bit inputs need 3^646");
    }
}
