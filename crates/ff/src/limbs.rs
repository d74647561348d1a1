//! Integers as limbs of fewer than 64 bits, for the vector lanes
//! ([`ifma`](crate::ifma): 52-bit limbs, [`avx2`](crate::avx2): 29-bit
//! limbs).

/// The integer with 64-bit limbs `x` (little-endian) as `L` limbs of
/// `BITS` bits; the last limb takes every bit left. `BITS` is a constant so
/// that every limb's position is.
#[inline(always)]
pub(crate) fn split<const L: usize, const BITS: u32>(x: &[u64; 8]) -> [u64; L] {
    let mask = (1u64 << BITS) - 1;
    core::array::from_fn(|k| {
        let at = BITS as usize * k;
        let (w, sh) = (at / 64, at % 64);
        let mut v = x[w] >> sh;
        if sh > 0 && w + 1 < 8 {
            v |= x[w + 1] << (64 - sh);
        }
        if k + 1 < L {
            v & mask
        } else {
            v
        }
    })
}

/// `L` normalised limbs of `BITS` bits as 64-bit limbs (the first `M`).
#[inline(always)]
pub(crate) fn join<const L: usize, const M: usize, const BITS: u32>(y: &[u64; L]) -> [u64; M] {
    let mut out = [0u64; M];
    for (k, &limb) in y.iter().enumerate() {
        let at = BITS as usize * k;
        let (w, sh) = (at / 64, at % 64);
        if w < M {
            out[w] |= limb << sh;
        }
        if sh > 0 && w + 1 < M {
            out[w + 1] |= limb >> (64 - sh);
        }
    }
    out
}
