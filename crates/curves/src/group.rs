//! [`Affine`] and [`Projective`]: arkworks' short-Weierstrass points with
//! zkaccel's MSM and scalar multiplication.
//!
//! Both are `#[repr(transparent)]` newtypes over `ark_ec::short_weierstrass`'s
//! types, written once for every curve configuration `P`. Everything
//! delegates to the arkworks type (arithmetic, equality, hashing,
//! serialization byte for byte, subgroup checks, randomness), except:
//!
//! - `VariableBaseMSM::{msm_unchecked, msm_bigint, msm_u1 .. msm_u64}` (and
//!   `msm`, arkworks' default over `msm_unchecked`)
//!   run on the GPU for BN254 G1 where the [`crate::backend`] chooses it,
//!   else [`zkaccel_cpu::msm_bigint_with`] with `Auto` (arkworks' own
//!   `msm_bigint` is a trait default that no curve configuration can
//!   override, which is why these types exist);
//! - `Projective * Fr`, `Affine * Fr`, `mul_bigint` and `MulAssign` run
//!   [`zkaccel_cpu::mul`] with `Auto`.
//!
//! Where zkaccel refuses (an MSM beyond the memory budget even in chunks, a
//! scalar over 1024 bits), the arkworks implementation runs instead, so
//! the results are always arkworks' results.

use ark_ec::scalar_mul::variable_base::VariableBaseMSM;
use ark_ec::scalar_mul::ScalarMul;
use ark_ec::short_weierstrass as sw;
use ark_ec::{AdditiveGroup, AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{PrimeField, Zero};
use ark_serialize::{
    CanonicalDeserialize, CanonicalSerialize, Compress, Read, SerializationError, Valid, Validate,
    Write,
};
use ark_std::rand::distributions::{Distribution, Standard};
use ark_std::rand::Rng;
use core::borrow::Borrow;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::{Add, AddAssign, Deref, DerefMut, Mul, MulAssign, Neg, Sub, SubAssign};
use zeroize::Zeroize;
use zkaccel_cpu::{CurveMul, MsmAlgorithm, MsmProvider, ScalarMulMethod};

/// A point in affine coordinates: `ark_ec::short_weierstrass::Affine<P>`
/// with zkaccel's scalar multiplication. Dereferences to the arkworks
/// point (fields `x`, `y` and its inherent methods).
#[repr(transparent)]
pub struct Affine<P: Route>(pub sw::Affine<P>);

/// A point in Jacobian coordinates: `ark_ec::short_weierstrass::Projective<P>`
/// with zkaccel's MSM and scalar multiplication. Dereferences to the
/// arkworks point.
#[repr(transparent)]
pub struct Projective<P: Route>(pub sw::Projective<P>);

/// `bases` as arkworks' points, without copying.
pub fn inner_slice<P: Route>(bases: &[Affine<P>]) -> &[sw::Affine<P>] {
    // SAFETY: `Affine<P>` is `#[repr(transparent)]` over `sw::Affine<P>`, so
    // the two slices have the same layout, length and lifetime.
    unsafe { core::slice::from_raw_parts(bases.as_ptr().cast(), bases.len()) }
}

/// arkworks' points as zkaccel's, without copying.
pub fn outer_slice<P: Route>(bases: &[sw::Affine<P>]) -> &[Affine<P>] {
    // SAFETY: as in `inner_slice`, the other way round.
    unsafe { core::slice::from_raw_parts(bases.as_ptr().cast(), bases.len()) }
}

/// A curve configuration zkaccel's types accept: zkaccel-cpu's
/// [`CurveMul`], plus the GPU's MSM where zkaccel-cuda has kernels for the
/// curve (BN254 G1) and the [`crate::backend`] asks for it.
pub trait Route: CurveMul {
    /// The GPU's MSM provider for this curve, or `None` for the CPU. Where
    /// it returns an error, the CPU gives the result.
    fn gpu() -> Option<&'static dyn MsmProvider<Self>> {
        None
    }
}

impl Route for ark_bn254::g1::Config {
    fn gpu() -> Option<&'static dyn MsmProvider<Self>> {
        crate::backend::gpu_g1().map(|g| g as &dyn MsmProvider<Self>)
    }
}
impl Route for ark_bn254::g2::Config {}
impl Route for ark_bls12_381::g1::Config {}
impl Route for ark_bls12_381::g2::Config {}

/// `sum k_i P_i` over the first `min(len)` terms (arkworks' rule for
/// `msm_bigint`): on the GPU where [`Route`] takes it, else zkaccel-cpu's
/// `Auto`, else (beyond the memory budget) arkworks' own bucket method.
fn route_msm<P: Route>(
    bases: &[Affine<P>],
    scalars: &[<P::ScalarField as PrimeField>::BigInt],
) -> Projective<P> {
    let n = bases.len().min(scalars.len());
    let (bases, scalars) = (inner_slice(&bases[..n]), &scalars[..n]);
    let gpu = P::gpu().and_then(|g| match g.msm_bigint(bases, scalars) {
        Ok(p) => Some(p),
        Err(e) => {
            // The CPU gives the result; the first failure is said at warn,
            // later ones at debug (a lost device would say it per MSM).
            static SAID: std::sync::Once = std::sync::Once::new();
            let mut first = false;
            SAID.call_once(|| first = true);
            if first {
                log::warn!("the GPU MSM failed ({e}); the CPU computes it (and later ones: debug)");
            } else {
                log::debug!("the GPU MSM failed ({e}); the CPU computes it");
            }
            None
        }
    });
    let out = gpu.unwrap_or_else(|| {
        zkaccel_cpu::msm_bigint_with(bases, scalars, MsmAlgorithm::Auto)
            .unwrap_or_else(|_| <sw::Projective<P> as VariableBaseMSM>::msm_bigint(bases, scalars))
    });
    Projective(out)
}

/// [`route_msm`] for small unsigned scalars.
fn route_small<P: Route, T: Copy + Into<u64>>(bases: &[Affine<P>], scalars: &[T]) -> Projective<P> {
    let ints: Vec<<P::ScalarField as PrimeField>::BigInt> =
        scalars.iter().map(|&k| k.into().into()).collect();
    route_msm(bases, &ints)
}

/// `k p` for little-endian limbs `k` on zkaccel's `Auto`; arkworks'
/// multiplication where zkaccel refuses (over 1024 bits).
fn route_mul<P: Route>(p: &sw::Projective<P>, k: &[u64]) -> sw::Projective<P> {
    zkaccel_cpu::mul(p, k, ScalarMulMethod::Auto).unwrap_or_else(|_| P::mul_projective(p, k))
}

/// The trait impls that do not depend on which of the two types it is.
macro_rules! common {
    ($t:ident, $inner:ident) => {
        impl<P: Route> Clone for $t<P> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<P: Route> Copy for $t<P> {}
        impl<P: Route> PartialEq for $t<P> {
            fn eq(&self, other: &Self) -> bool {
                self.0 == other.0
            }
        }
        impl<P: Route> Eq for $t<P> {}
        impl<P: Route> Hash for $t<P> {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.0.hash(state)
            }
        }
        impl<P: Route> fmt::Debug for $t<P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }
        impl<P: Route> fmt::Display for $t<P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
        impl<P: Route> Default for $t<P> {
            fn default() -> Self {
                $t(Default::default())
            }
        }
        impl<P: Route> Zeroize for $t<P> {
            fn zeroize(&mut self) {
                self.0.zeroize()
            }
        }
        impl<P: Route> Deref for $t<P> {
            type Target = sw::$inner<P>;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }
        impl<P: Route> DerefMut for $t<P> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }
        impl<P: Route> From<sw::$inner<P>> for $t<P> {
            fn from(p: sw::$inner<P>) -> Self {
                $t(p)
            }
        }
        impl<P: Route> From<$t<P>> for sw::$inner<P> {
            fn from(p: $t<P>) -> Self {
                p.0
            }
        }
        impl<P: Route> Distribution<$t<P>> for Standard {
            fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> $t<P> {
                $t(Standard.sample(rng))
            }
        }
        impl<P: Route> CanonicalSerialize for $t<P> {
            fn serialize_with_mode<W: Write>(
                &self,
                writer: W,
                compress: Compress,
            ) -> Result<(), SerializationError> {
                self.0.serialize_with_mode(writer, compress)
            }
            fn serialized_size(&self, compress: Compress) -> usize {
                self.0.serialized_size(compress)
            }
        }
        impl<P: Route> Valid for $t<P> {
            fn check(&self) -> Result<(), SerializationError> {
                self.0.check()
            }
            fn batch_check<'a>(
                batch: impl Iterator<Item = &'a Self> + Send,
            ) -> Result<(), SerializationError>
            where
                Self: 'a,
            {
                sw::$inner::<P>::batch_check(batch.map(|p| &p.0))
            }
        }
        impl<P: Route> CanonicalDeserialize for $t<P> {
            fn deserialize_with_mode<R: Read>(
                reader: R,
                compress: Compress,
                validate: Validate,
            ) -> Result<Self, SerializationError> {
                sw::$inner::<P>::deserialize_with_mode(reader, compress, validate).map($t)
            }
        }
        impl<P: Route, T: Borrow<P::ScalarField>> Mul<T> for $t<P> {
            type Output = Projective<P>;
            fn mul(self, k: T) -> Projective<P> {
                let p: sw::Projective<P> = self.0.into();
                Projective(route_mul(&p, k.borrow().into_bigint().as_ref()))
            }
        }
    };
}

common!(Affine, Affine);
common!(Projective, Projective);

impl<P: Route> Affine<P> {
    /// The point `(x, y)`, checked to be on the curve and in the prime-order
    /// subgroup (panics otherwise, like arkworks' `Affine::new`).
    pub fn new(x: P::BaseField, y: P::BaseField) -> Self {
        Affine(sw::Affine::new(x, y))
    }

    /// The point `(x, y)`, unchecked (arkworks' `Affine::new_unchecked`).
    pub const fn new_unchecked(x: P::BaseField, y: P::BaseField) -> Self {
        Affine(sw::Affine::new_unchecked(x, y))
    }

    /// The point at infinity.
    pub const fn identity() -> Self {
        Affine(sw::Affine::identity())
    }
}

impl<P: Route> Projective<P> {
    /// The Jacobian point `(x, y, z)`, checked to be on the curve (panics
    /// otherwise, like arkworks' `Projective::new`).
    pub fn new(x: P::BaseField, y: P::BaseField, z: P::BaseField) -> Self {
        Projective(sw::Projective::new(x, y, z))
    }

    /// The Jacobian point `(x, y, z)`, unchecked.
    pub const fn new_unchecked(x: P::BaseField, y: P::BaseField, z: P::BaseField) -> Self {
        Projective(sw::Projective::new_unchecked(x, y, z))
    }
}

impl<P: Route> Borrow<sw::Affine<P>> for Affine<P> {
    fn borrow(&self) -> &sw::Affine<P> {
        &self.0
    }
}

impl<P: Route> PartialEq<Projective<P>> for Affine<P> {
    fn eq(&self, other: &Projective<P>) -> bool {
        self.0 == other.0
    }
}

impl<P: Route> PartialEq<Affine<P>> for Projective<P> {
    fn eq(&self, other: &Affine<P>) -> bool {
        self.0 == other.0
    }
}

impl<P: Route> From<Projective<P>> for Affine<P> {
    fn from(p: Projective<P>) -> Self {
        Affine(p.0.into())
    }
}

impl<P: Route> From<Affine<P>> for Projective<P> {
    fn from(p: Affine<P>) -> Self {
        Projective(p.0.into())
    }
}

impl<P: Route> Neg for Affine<P> {
    type Output = Self;
    fn neg(self) -> Self {
        Affine(-self.0)
    }
}

impl<P: Route> Neg for Projective<P> {
    type Output = Self;
    fn neg(self) -> Self {
        Projective(-self.0)
    }
}

impl<P: Route, T: Borrow<Affine<P>>> Add<T> for Affine<P> {
    type Output = Projective<P>;
    fn add(self, other: T) -> Projective<P> {
        Projective(self.0 + other.borrow().0)
    }
}

impl<P: Route, T: Borrow<Affine<P>>> Sub<T> for Affine<P> {
    type Output = Projective<P>;
    fn sub(self, other: T) -> Projective<P> {
        Projective(self.0 - other.borrow().0)
    }
}

impl<P: Route> Add<Projective<P>> for Affine<P> {
    type Output = Projective<P>;
    fn add(self, other: Projective<P>) -> Projective<P> {
        Projective(self.0 + other.0)
    }
}

impl<'a, P: Route> Add<&'a Projective<P>> for Affine<P> {
    type Output = Projective<P>;
    fn add(self, other: &'a Projective<P>) -> Projective<P> {
        Projective(self.0 + other.0)
    }
}

impl<P: Route> Sub<Projective<P>> for Affine<P> {
    type Output = Projective<P>;
    fn sub(self, other: Projective<P>) -> Projective<P> {
        Projective(self.0 - other.0)
    }
}

impl<'a, P: Route> Sub<&'a Projective<P>> for Affine<P> {
    type Output = Projective<P>;
    fn sub(self, other: &'a Projective<P>) -> Projective<P> {
        Projective(self.0 - other.0)
    }
}

impl<P: Route, T: Borrow<Affine<P>>> AddAssign<T> for Projective<P> {
    fn add_assign(&mut self, other: T) {
        self.0 += other.borrow().0
    }
}

impl<P: Route, T: Borrow<Affine<P>>> SubAssign<T> for Projective<P> {
    fn sub_assign(&mut self, other: T) {
        self.0 -= other.borrow().0
    }
}

impl<P: Route, T: Borrow<Affine<P>>> Add<T> for Projective<P> {
    type Output = Self;
    fn add(mut self, other: T) -> Self {
        self += other;
        self
    }
}

impl<P: Route, T: Borrow<Affine<P>>> Sub<T> for Projective<P> {
    type Output = Self;
    fn sub(mut self, other: T) -> Self {
        self -= other;
        self
    }
}

/// `Projective op Projective` for owned, shared and mutable right-hand
/// sides, as `AdditiveGroup` asks.
macro_rules! group_ops {
    ($($rhs:ty),*) => {$(
        impl<'a, P: Route> Add<$rhs> for Projective<P> {
            type Output = Self;
            fn add(self, other: $rhs) -> Self {
                Projective(self.0 + &other.0)
            }
        }
        impl<'a, P: Route> Sub<$rhs> for Projective<P> {
            type Output = Self;
            fn sub(self, other: $rhs) -> Self {
                Projective(self.0 - &other.0)
            }
        }
        impl<'a, P: Route> AddAssign<$rhs> for Projective<P> {
            fn add_assign(&mut self, other: $rhs) {
                self.0 += &other.0
            }
        }
        impl<'a, P: Route> SubAssign<$rhs> for Projective<P> {
            fn sub_assign(&mut self, other: $rhs) {
                self.0 -= &other.0
            }
        }
    )*};
}

group_ops!(Projective<P>, &'a Projective<P>, &'a mut Projective<P>);

impl<P: Route, T: Borrow<P::ScalarField>> MulAssign<T> for Projective<P> {
    fn mul_assign(&mut self, k: T) {
        self.0 = route_mul(&self.0, k.borrow().into_bigint().as_ref());
    }
}

impl<P: Route> core::iter::Sum<Self> for Projective<P> {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        Projective(iter.map(|p| p.0).sum())
    }
}

impl<'a, P: Route> core::iter::Sum<&'a Self> for Projective<P> {
    fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
        Projective(iter.map(|p| p.0).sum())
    }
}

impl<P: Route, T: Borrow<Affine<P>>> core::iter::Sum<T> for Projective<P> {
    fn sum<I: Iterator<Item = T>>(iter: I) -> Self {
        Projective(iter.map(|p| p.borrow().0).sum())
    }
}

impl<P: Route> Zero for Projective<P> {
    fn zero() -> Self {
        Projective(sw::Projective::zero())
    }
    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
}

impl<P: Route> AdditiveGroup for Projective<P> {
    type Scalar = P::ScalarField;
    const ZERO: Self = Projective(sw::Projective::<P>::ZERO);

    fn double_in_place(&mut self) -> &mut Self {
        self.0.double_in_place();
        self
    }
}

impl<P: Route> PrimeGroup for Projective<P> {
    type ScalarField = P::ScalarField;

    fn generator() -> Self {
        Projective(sw::Projective::generator())
    }

    fn mul_bigint(&self, k: impl AsRef<[u64]>) -> Self {
        Projective(route_mul(&self.0, k.as_ref()))
    }
}

impl<P: Route> CurveGroup for Projective<P> {
    type Config = P;
    type BaseField = P::BaseField;
    type Affine = Affine<P>;
    type FullGroup = Affine<P>;

    fn normalize_batch(v: &[Self]) -> Vec<Affine<P>> {
        let inner: Vec<sw::Projective<P>> = v.iter().map(|p| p.0).collect();
        sw::Projective::normalize_batch(&inner)
            .into_iter()
            .map(Affine)
            .collect()
    }
}

impl<P: Route> AffineRepr for Affine<P> {
    type Config = P;
    type ScalarField = P::ScalarField;
    type BaseField = P::BaseField;
    type Group = Projective<P>;

    const GENERATOR: Self = Affine(P::GENERATOR);
    const ZERO: Self = Affine(sw::Affine::identity());

    fn xy(&self) -> Option<(P::BaseField, P::BaseField)> {
        self.0.xy()
    }

    fn zero() -> Self {
        Self::ZERO
    }

    fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    fn generator() -> Self {
        Self::GENERATOR
    }

    fn from_random_bytes(bytes: &[u8]) -> Option<Self> {
        sw::Affine::from_random_bytes(bytes).map(Affine)
    }

    fn mul_bigint(&self, k: impl AsRef<[u64]>) -> Projective<P> {
        Projective(route_mul(&self.0.into(), k.as_ref()))
    }

    fn clear_cofactor(&self) -> Self {
        Affine(self.0.clear_cofactor())
    }

    fn mul_by_cofactor_to_group(&self) -> Projective<P> {
        Projective(self.0.mul_by_cofactor_to_group())
    }
}

impl<P: Route> ScalarMul for Projective<P> {
    type MulBase = Affine<P>;
    const NEGATION_IS_CHEAP: bool = true;

    fn batch_convert_to_mul_base(bases: &[Self]) -> Vec<Affine<P>> {
        Self::normalize_batch(bases)
    }
}

/// arkworks' XYZZ bucket, fed with zkaccel's points (arkworks' own
/// algorithms, `ChunkedPippenger` and `HashMapPippenger`, use it).
impl<P: Route> From<Affine<P>> for sw::Bucket<P> {
    fn from(p: Affine<P>) -> Self {
        sw::Bucket::from(p.0)
    }
}

impl<'a, P: Route> AddAssign<&'a Affine<P>> for sw::Bucket<P> {
    fn add_assign(&mut self, p: &'a Affine<P>) {
        *self += &p.0
    }
}

impl<'a, P: Route> SubAssign<&'a Affine<P>> for sw::Bucket<P> {
    fn sub_assign(&mut self, p: &'a Affine<P>) {
        *self -= &p.0
    }
}

impl<P: Route> From<sw::Bucket<P>> for Projective<P> {
    fn from(b: sw::Bucket<P>) -> Self {
        Projective(b.into())
    }
}

impl<'a, P: Route> AddAssign<&'a sw::Bucket<P>> for Projective<P> {
    fn add_assign(&mut self, b: &'a sw::Bucket<P>) {
        self.0 += b
    }
}

impl<P: Route> VariableBaseMSM for Projective<P> {
    type Bucket = sw::Bucket<P>;
    const ZERO_BUCKET: Self::Bucket = sw::Bucket::<P>::ZERO;

    fn msm_unchecked(bases: &[Affine<P>], scalars: &[P::ScalarField]) -> Self {
        let n = bases.len().min(scalars.len());
        let (bases, scalars) = (inner_slice(&bases[..n]), &scalars[..n]);
        let gpu = P::gpu().and_then(|g| g.msm(bases, scalars).ok());
        let out = gpu.unwrap_or_else(|| {
            zkaccel_cpu::msm_with(bases, scalars, MsmAlgorithm::Auto).unwrap_or_else(|_| {
                <sw::Projective<P> as VariableBaseMSM>::msm_unchecked(bases, scalars)
            })
        });
        Projective(out)
    }

    fn msm_bigint(bases: &[Affine<P>], scalars: &[<P::ScalarField as PrimeField>::BigInt]) -> Self {
        route_msm(bases, scalars)
    }

    fn msm_u1(bases: &[Affine<P>], scalars: &[bool]) -> Self {
        route_small(bases, scalars)
    }

    fn msm_u8(bases: &[Affine<P>], scalars: &[u8]) -> Self {
        route_small(bases, scalars)
    }

    fn msm_u16(bases: &[Affine<P>], scalars: &[u16]) -> Self {
        route_small(bases, scalars)
    }

    fn msm_u32(bases: &[Affine<P>], scalars: &[u32]) -> Self {
        route_small(bases, scalars)
    }

    fn msm_u64(bases: &[Affine<P>], scalars: &[u64]) -> Self {
        route_small(bases, scalars)
    }
}
