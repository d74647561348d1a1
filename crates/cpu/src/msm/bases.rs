//! Where an MSM reads its bases: a slice of arkworks points, or points
//! stored as bytes at any alignment ([`PackedBases`]).
//!
//! A Groth16 key memory-mapped from a snarkjs `.zkey` holds its points as
//! their coordinates' Montgomery limbs, byte for byte arkworks' `Affine`,
//! but snarkjs' 12-byte section headers leave every other section 4 bytes
//! off the 8-byte alignment a `&[Affine<P>]` needs. Copying such a section
//! into a vector costs a write of every point into fresh memory (64 MiB at
//! 2^20 G1 points); reading each point from its bytes costs a few unaligned
//! loads more per bucket addition. The MSM is generic over [`Bases`] so
//! that both run the same code.

use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use ark_ec::AffineRepr;
use ark_ff::fields::{Fp, FpConfig, MontBackend, MontConfig, QuadExtConfig, QuadExtField};
use ark_ff::{BigInt, Zero};
use core::marker::PhantomData;
use core::ops::Range;
use std::borrow::Cow;

/// Read access to `len()` affine points, by index. Implemented by
/// `&[Affine<P>]` and [`PackedBases`]; [`msm_bases`](super::msm_bases)
/// takes either.
pub trait Bases<P: SWCurveConfig>: Copy + Send + Sync {
    /// Number of points.
    fn len(&self) -> usize;

    /// Whether there are no points.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `i` (`i < len()`; panics otherwise, like slice indexing).
    fn get(&self, i: usize) -> Affine<P>;

    /// The points in `range` (within `0..len()`).
    fn range(&self, range: Range<usize>) -> Self;
}

impl<P: SWCurveConfig> Bases<P> for &[Affine<P>] {
    #[inline(always)]
    fn len(&self) -> usize {
        <[Affine<P>]>::len(self)
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Affine<P> {
        self[i]
    }

    #[inline(always)]
    fn range(&self, range: Range<usize>) -> Self {
        &self[range]
    }
}

/// A field element that can be read from its Montgomery form's
/// little-endian limbs (arkworks' in-memory layout of `Fp` and `Fp2`,
/// which is also snarkjs' file layout of a coordinate).
pub trait MontBytes: Sized {
    /// Bytes of one element.
    const BYTES: usize;

    /// The element whose Montgomery form is `bytes` (`BYTES` bytes; not
    /// reduced or checked: the caller has checked the values are below the
    /// modulus).
    fn from_mont_bytes(bytes: &[u8]) -> Self;

    /// Appends the element's Montgomery form, `BYTES` bytes.
    fn write_mont_bytes(&self, out: &mut Vec<u8>);
}

impl<T: MontConfig<N>, const N: usize> MontBytes for Fp<MontBackend<T, N>, N> {
    const BYTES: usize = 8 * N;

    #[inline(always)]
    fn from_mont_bytes(bytes: &[u8]) -> Self {
        // Two limbs per 16-byte load, so that the compiler moves them in
        // 16-byte units: the point is read back soon in 16-byte units, and
        // 8-byte stores read as one 16-byte load stall store forwarding
        // (measured 14% of a 2^20 MSM on a Zen CPU with 8-byte limb loads).
        let mut limbs = [0u64; N];
        for (pair, b) in limbs.chunks_mut(2).zip(bytes.chunks(16)) {
            if let ([lo, hi], Ok(b)) = (&mut *pair, <[u8; 16]>::try_from(b)) {
                let v = u128::from_le_bytes(b);
                (*lo, *hi) = (v as u64, (v >> 64) as u64);
            } else {
                pair[0] = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
            }
        }
        debug_assert!(BigInt(limbs) < <MontBackend<T, N> as FpConfig<N>>::MODULUS);
        Fp::new_unchecked(BigInt(limbs))
    }

    fn write_mont_bytes(&self, out: &mut Vec<u8>) {
        out.extend(self.0 .0.iter().flat_map(|l| l.to_le_bytes()));
    }
}

impl<C: QuadExtConfig> MontBytes for QuadExtField<C>
where
    C::BaseField: MontBytes,
{
    const BYTES: usize = 2 * <C::BaseField as MontBytes>::BYTES;

    #[inline(always)]
    fn from_mont_bytes(bytes: &[u8]) -> Self {
        let half = <C::BaseField as MontBytes>::BYTES;
        QuadExtField::new(
            C::BaseField::from_mont_bytes(&bytes[..half]),
            C::BaseField::from_mont_bytes(&bytes[half..2 * half]),
        )
    }

    fn write_mont_bytes(&self, out: &mut Vec<u8>) {
        self.c0.write_mont_bytes(out);
        self.c1.write_mont_bytes(out);
    }
}

/// Points stored as bytes: each point `x` then `y`, each coordinate its
/// Montgomery form's little-endian limbs ([`MontBytes`]), `(0, 0)` for the
/// point at infinity (snarkjs' zkey layout), at any alignment.
///
/// The coordinates are not checked when read: whoever builds the view
/// checks them once (below the modulus; on the curve and in the subgroup
/// where the source is not trusted), as for any other bases.
pub struct PackedBases<'a, P> {
    bytes: &'a [u8],
    _curve: PhantomData<fn() -> P>,
}

impl<P> Clone for PackedBases<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for PackedBases<'_, P> {}

impl<P> core::fmt::Debug for PackedBases<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PackedBases({} bytes)", self.bytes.len())
    }
}

impl<'a, P: SWCurveConfig> PackedBases<'a, P>
where
    P::BaseField: MontBytes,
{
    /// Bytes of one point.
    pub const POINT_BYTES: usize = 2 * <P::BaseField as MontBytes>::BYTES;

    /// The points in `bytes`: `None` unless its length is a whole number of
    /// points.
    pub fn new(bytes: &'a [u8]) -> Option<Self> {
        bytes
            .len()
            .is_multiple_of(Self::POINT_BYTES)
            .then_some(PackedBases {
                bytes,
                _curve: PhantomData,
            })
    }

    /// The underlying bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Appends `points` to `out` as this view reads them (the point at
    /// infinity as `(0, 0)`).
    pub fn encode(points: &[Affine<P>], out: &mut Vec<u8>) {
        out.reserve(points.len() * Self::POINT_BYTES);
        for p in points {
            match p.xy() {
                Some((x, y)) => {
                    x.write_mont_bytes(out);
                    y.write_mont_bytes(out);
                }
                None => out.resize(out.len() + Self::POINT_BYTES, 0),
            }
        }
    }
}

impl<P: SWCurveConfig> Bases<P> for PackedBases<'_, P>
where
    P::BaseField: MontBytes,
{
    #[inline(always)]
    fn len(&self) -> usize {
        self.bytes.len() / Self::POINT_BYTES
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Affine<P> {
        let c = <P::BaseField as MontBytes>::BYTES;
        let b = &self.bytes[i * 2 * c..(i + 1) * 2 * c];
        let x = P::BaseField::from_mont_bytes(&b[..c]);
        let y = P::BaseField::from_mont_bytes(&b[c..]);
        if x.is_zero() && y.is_zero() {
            Affine::identity()
        } else {
            Affine::new_unchecked(x, y)
        }
    }

    #[inline(always)]
    fn range(&self, range: Range<usize>) -> Self {
        let s = Self::POINT_BYTES;
        PackedBases {
            bytes: &self.bytes[range.start * s..range.end * s],
            _curve: PhantomData,
        }
    }
}

/// A query's bases as a prover holds them: a slice, or points in bytes
/// ([`PackedBases`]). [`msm_bases`](super::msm_bases) runs on either;
/// code that needs a slice (the GPU, precomputation) takes
/// [`BaseSlice::to_affine`].
pub enum BaseSlice<'a, P: SWCurveConfig> {
    /// Points in a slice.
    Affine(&'a [Affine<P>]),
    /// Points in bytes, at any alignment.
    Packed(PackedBases<'a, P>),
}

impl<P: SWCurveConfig> Clone for BaseSlice<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: SWCurveConfig> Copy for BaseSlice<'_, P> {}

impl<P: SWCurveConfig> core::fmt::Debug for BaseSlice<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BaseSlice::Affine(s) => write!(f, "BaseSlice::Affine({} points)", s.len()),
            BaseSlice::Packed(p) => write!(f, "BaseSlice::{p:?}"),
        }
    }
}

impl<'a, P: SWCurveConfig> From<&'a [Affine<P>]> for BaseSlice<'a, P> {
    fn from(s: &'a [Affine<P>]) -> Self {
        BaseSlice::Affine(s)
    }
}

impl<'a, P: SWCurveConfig> BaseSlice<'a, P>
where
    P::BaseField: MontBytes,
{
    /// Number of points.
    pub fn len(&self) -> usize {
        match self {
            BaseSlice::Affine(s) => s.len(),
            BaseSlice::Packed(p) => p.len(),
        }
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `i`, if `i < len()`.
    pub fn get(&self, i: usize) -> Option<Affine<P>> {
        (i < self.len()).then(|| match self {
            BaseSlice::Affine(s) => s[i],
            BaseSlice::Packed(p) => p.get(i),
        })
    }

    /// The points from `start` on (empty if `start >= len()`).
    pub fn skip(&self, start: usize) -> Self {
        let r = start.min(self.len())..self.len();
        match self {
            BaseSlice::Affine(s) => BaseSlice::Affine(&s[r]),
            BaseSlice::Packed(p) => BaseSlice::Packed(p.range(r)),
        }
    }

    /// The points of `range` (clamped to `0..len()`).
    pub fn range(&self, range: core::ops::Range<usize>) -> Self {
        let end = range.end.min(self.len());
        let r = range.start.min(end)..end;
        match self {
            BaseSlice::Affine(s) => BaseSlice::Affine(&s[r]),
            BaseSlice::Packed(p) => BaseSlice::Packed(p.range(r)),
        }
    }

    /// The slice, if the points are one.
    pub fn as_affine(&self) -> Option<&'a [Affine<P>]> {
        match self {
            BaseSlice::Affine(s) => Some(s),
            BaseSlice::Packed(_) => None,
        }
    }

    /// The points, in order (each packed one decoded as it is reached).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Affine<P>> + 'a {
        let this = *self;
        (0..self.len()).map(move |i| match this {
            BaseSlice::Affine(s) => s[i],
            BaseSlice::Packed(p) => p.get(i),
        })
    }

    /// The points as a slice: borrowed where they are one, else decoded
    /// (in parallel with the feature `parallel`: one decode per point, a
    /// key's whole query at a time).
    pub fn to_affine(&self) -> Cow<'a, [Affine<P>]> {
        match self {
            BaseSlice::Affine(s) => Cow::Borrowed(s),
            #[cfg(feature = "parallel")]
            BaseSlice::Packed(p) => {
                use rayon::prelude::*;
                Cow::Owned((0..p.len()).into_par_iter().map(|i| p.get(i)).collect())
            }
            #[cfg(not(feature = "parallel"))]
            BaseSlice::Packed(_) => Cow::Owned(self.iter().collect()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ec::{AffineRepr, CurveGroup};
    use ark_ff::{One, UniformRand};
    use rand::SeedableRng;

    type G1 = ark_bn254::g1::Config;
    type G2 = ark_bn254::g2::Config;

    #[test]
    fn montgomery_bytes_are_arkworks_limbs() {
        // One in Montgomery form is R mod p, arkworks' `R` constant.
        let mut one = Vec::new();
        for l in ark_bn254::FqConfig::R.0 {
            one.extend(l.to_le_bytes());
        }
        assert_eq!(ark_bn254::Fq::from_mont_bytes(&one), ark_bn254::Fq::one());
        let mut w = Vec::new();
        ark_bn254::Fq::one().write_mont_bytes(&mut w);
        assert_eq!(w, one);
        // Fp2: c0 then c1.
        let x = ark_bn254::Fq2::new(ark_bn254::Fq::one(), ark_bn254::Fq::from(0u64));
        let mut w = Vec::new();
        x.write_mont_bytes(&mut w);
        assert_eq!(&w[..32], &one[..]);
        assert!(w[32..].iter().all(|&b| b == 0));
    }

    fn round_trip<P: SWCurveConfig>(points: &[Affine<P>])
    where
        P::BaseField: MontBytes,
    {
        for offset in [0usize, 1, 4] {
            let mut bytes = vec![0xa5; offset];
            PackedBases::<P>::encode(points, &mut bytes);
            let b = PackedBases::<P>::new(&bytes[offset..]).unwrap();
            assert_eq!(b.len(), points.len());
            let read: Vec<_> = (0..b.len()).map(|i| b.get(i)).collect();
            assert_eq!(read, points, "offset {offset}");
            let s = BaseSlice::Packed(b);
            assert_eq!(s.get(points.len()), None);
            assert!(s.skip(points.len() + 3).is_empty());
            assert_eq!(s.skip(1).get(0), points.get(1).copied());
            assert_eq!(s.to_affine().as_ref(), points);
            assert_eq!(s.iter().collect::<Vec<_>>(), points);
            // Ranges, packed and as a slice, clamped to the points.
            let affine = BaseSlice::Affine(points);
            let n = points.len();
            for (start, end) in [
                (0, n),
                (1, n),
                (0, n / 2),
                (n / 2, n + 4),
                (n + 1, n + 2),
                (3, 1),
            ] {
                let end_c = end.min(n);
                let want = &points[start.min(end_c)..end_c];
                assert_eq!(
                    s.range(start..end).to_affine().as_ref(),
                    want,
                    "{start}..{end}"
                );
                assert_eq!(
                    affine.range(start..end).to_affine().as_ref(),
                    want,
                    "{start}..{end}"
                );
            }
            if !points.is_empty() {
                let cut = &bytes[offset..bytes.len() - 1];
                assert!(PackedBases::<P>::new(cut).is_none(), "a part of a point");
            }
        }
    }

    #[test]
    fn packed_points_round_trip_at_any_alignment() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let g1: Vec<Affine<G1>> = (0..5)
            .map(|_| ark_bn254::G1Projective::rand(&mut rng).into_affine())
            .collect();
        let g = Affine::<G1>::generator();
        round_trip(&[g, -g, Affine::identity(), g1[0], g1[1]]);
        round_trip::<G1>(&[]);
        let g2 = Affine::<G2>::generator();
        round_trip(&[g2, Affine::identity(), -g2]);
        round_trip(&[
            ark_bls12_381::G1Affine::generator(),
            ark_bls12_381::G1Affine::identity(),
        ]);
    }
}
