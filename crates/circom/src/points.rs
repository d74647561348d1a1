//! Where a key's points lie: decoded into vectors, or in place in the
//! memory-mapped zkey.
//!
//! snarkjs writes a point as its coordinates' Montgomery forms, little-endian
//! limbs with the radix `2^(8 N8Q)`: on BN254 and BLS12-381 that is, byte for
//! byte, arkworks 0.6's `Affine` in memory (two base-field elements, no flag:
//! both curves mark infinity by `(0, 0)`, as snarkjs does). So a section of
//! points can be used where it lies in a mapped file, without a copy; this
//! is what makes loading a key cost what reading its pages costs. Whether
//! the layouts agree is checked at run time on sample points
//! ([`same_layout`]), not assumed, and a section is used in place only where
//! its start is aligned for the type. snarkjs' 12-byte section headers leave
//! every other section 4 bytes off an 8-byte boundary: those sections are
//! read where they lie too, a point at a time from its bytes
//! ([`PackedBases`]), which the MSM takes as well as a slice.
//!
//! This is the crate's only `unsafe` code: mapping the file, viewing a
//! point's bytes, and viewing checked bytes as points.
#![allow(unsafe_code)]

use ark_ec::short_weierstrass::{Affine, SWCurveConfig};
use std::sync::Arc;
use zkaccel_cpu::{BaseSlice, Bases, MontBytes, PackedBases};

/// A read-only memory map of a zkey file.
///
/// The map is `MAP_PRIVATE`, but a page not yet read still reflects the
/// file: another process that writes or truncates the file while a prover
/// holds the map changes the points under it (a wrong proof, which
/// `zkaccel-prover` catches by verifying before it writes) or makes a read
/// fault (`SIGBUS`). rapidsnark maps its key the same way. Use the reader
/// constructors where the key file may change while it is in use.
#[derive(Clone)]
pub struct ZkeyMap(Arc<memmap2::Mmap>);

impl ZkeyMap {
    /// Maps the whole file read-only.
    pub fn new(file: &std::fs::File) -> std::io::Result<Self> {
        // SAFETY: the map is read-only and private; what another process
        // may do to the file is the caller's contract, documented above
        // (the bytes are only read as integers, every one of which is a
        // valid value of the types built from them).
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(ZkeyMap(Arc::new(map)))
    }

    /// A map of a copy of `bytes` (for tests of the mapped readers).
    #[cfg(test)]
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        let mut m = memmap2::MmapMut::map_anon(bytes.len().max(1)).expect("an anonymous map");
        m[..bytes.len()].copy_from_slice(bytes);
        ZkeyMap(Arc::new(m.make_read_only().expect("read-only")))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Drops this process's page mappings of the whole pages inside
    /// `start..start + len` (bytes decoded into a copy and no longer read):
    /// the peak memory then counts the copy, not both. A later read of the
    /// range faults the file's bytes back in. Does nothing off Unix.
    pub(crate) fn release(&self, start: usize, len: usize) {
        #[cfg(not(unix))]
        let _ = (start, len);
        #[cfg(unix)]
        {
            const PAGE: usize = 4096;
            let base = self.0.as_ptr() as usize;
            let first = (base + start).next_multiple_of(PAGE) - base;
            let end = (base + start + len) / PAGE * PAGE - base;
            if end > first {
                // SAFETY: the map is private and never written, so its pages
                // hold the file's bytes; after MADV_DONTNEED a read maps the
                // file's page again, with the same bytes (under the contract
                // of `ZkeyMap`: the file does not change). No reference sees
                // different contents. An error only leaves the pages mapped.
                let _ = unsafe {
                    self.0.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        first,
                        end - first,
                    )
                };
            }
        }
    }
}

impl core::fmt::Debug for ZkeyMap {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ZkeyMap({} bytes)", self.0.len())
    }
}

/// A key's points: owned, or `len` points of type `T` at byte `start` of a
/// mapped file, aligned for `T` (`Mapped`) or not (`Packed`, read a point at
/// a time through [`PackedBases`]).
pub(crate) enum Points<T> {
    Owned(Vec<T>),
    Mapped {
        map: ZkeyMap,
        start: usize,
        len: usize,
    },
    Packed {
        map: ZkeyMap,
        start: usize,
        len: usize,
    },
}

impl<T> Points<T> {
    /// The points as the MSM takes them; `cast` is the identity from `T` to
    /// zkaccel's point type ([`zkaccel_groth16::AccelPairing::g1_bases`]).
    pub(crate) fn bases<P: SWCurveConfig>(&self, cast: fn(&[T]) -> &[Affine<P>]) -> BaseSlice<'_, P>
    where
        P::BaseField: MontBytes,
    {
        match self {
            Points::Packed { map, start, len } => {
                let n = len * PackedBases::<P>::POINT_BYTES;
                // `in_place` made this variant only where `packed_reads`
                // passed for `T` (`InPlace::packed`) and the range is in the map.
                BaseSlice::Packed(
                    PackedBases::new(&map.bytes()[*start..*start + n])
                        .expect("a whole number of points"),
                )
            }
            _ => BaseSlice::Affine(cast(self.as_slice())),
        }
    }

    /// Drops this process's pages of the points where they lie in the
    /// mapped file (`point_bytes` each there); the next read maps the same
    /// bytes again ([`ZkeyMap::release`]). Nothing for owned points.
    pub(crate) fn release(&self, point_bytes: usize) {
        match self {
            Points::Mapped { map, start, len } | Points::Packed { map, start, len } => {
                map.release(*start, len * point_bytes)
            }
            Points::Owned(_) => {}
        }
    }

    fn as_slice(&self) -> &[T] {
        match self {
            Points::Owned(v) => v,
            Points::Packed { .. } => unreachable!("`bases` reads packed points"),
            // SAFETY: `in_place` made this variant only after checking that
            // the range lies in the map, that its start is aligned for `T`
            // and that `T`'s memory is exactly the file's encoding
            // (`same_layout`: no padding, and every byte pattern of the
            // coordinates' integer limbs is a valid `T`); each coordinate was
            // also checked to be below the modulus. The map lives as long as
            // `self` (it is shared by `Arc`) and is never written.
            Points::Mapped { map, start, len } => unsafe {
                std::slice::from_raw_parts(map.bytes().as_ptr().add(*start).cast::<T>(), *len)
            },
        }
    }
}

/// Where a [`Points`] lies, whatever its point type.
pub(crate) trait PointsKind {
    /// Whether the points lie in the mapped file.
    fn is_mapped(&self) -> bool;
    /// Whether they lie there unaligned (read through [`PackedBases`]).
    fn is_packed(&self) -> bool;
}

impl<T> PointsKind for Points<T> {
    fn is_mapped(&self) -> bool {
        !matches!(self, Points::Owned(_))
    }

    fn is_packed(&self) -> bool {
        matches!(self, Points::Packed { .. })
    }
}

impl<T: Clone> Points<T> {
    /// The points in a vector (a copy where they lie in the map); `cast` and
    /// `back` are the identities between `T` and zkaccel's point type.
    pub(crate) fn into_vec<P: SWCurveConfig>(
        self,
        cast: fn(&[T]) -> &[Affine<P>],
        back: fn(Affine<P>) -> T,
    ) -> Vec<T>
    where
        P::BaseField: MontBytes,
    {
        match self {
            Points::Owned(v) => v,
            Points::Mapped { .. } => self.as_slice().to_vec(),
            Points::Packed { .. } => self.bases(cast).iter().map(back).collect(),
        }
    }
}

/// How a point type's sections may be used where they lie in a mapped file.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct InPlace {
    /// Viewed as a slice of the type, where a section is aligned for it:
    /// the type's memory is the file's encoding ([`same_layout`]).
    pub(crate) view: bool,
    /// Read a point at a time through [`PackedBases`] otherwise: it reads
    /// the encoding as the same points ([`packed_reads`]), and the caller
    /// allows it.
    pub(crate) packed: bool,
}

/// `count` points of `size` bytes at byte `start` of `map`, in place as
/// `how` allows: viewed as `T`s where the start is aligned for `T`, else
/// read through [`PackedBases`]; `None` where neither applies. The caller
/// checks every point's encoding.
pub(crate) fn in_place<T>(
    map: &ZkeyMap,
    start: usize,
    count: usize,
    size: usize,
    how: InPlace,
) -> Option<Points<T>> {
    let end = count.checked_mul(size)?.checked_add(start)?;
    if size != core::mem::size_of::<T>() || end > map.bytes().len() {
        return None;
    }
    let aligned =
        (map.bytes().as_ptr() as usize + start).is_multiple_of(core::mem::align_of::<T>());
    let (map, len) = (map.clone(), count);
    if how.view && aligned {
        Some(Points::Mapped { map, start, len })
    } else if how.packed {
        Some(Points::Packed { map, start, len })
    } else {
        None
    }
}

/// Whether [`PackedBases`] reads each of `samples`, encoded by `encode` in
/// `size` bytes (at an odd offset, so unaligned), as the same point.
pub(crate) fn packed_reads<T, P: SWCurveConfig>(
    samples: &[T],
    encode: impl Fn(&T, &mut Vec<u8>),
    size: usize,
    cast: fn(&[T]) -> &[Affine<P>],
) -> bool
where
    P::BaseField: MontBytes,
{
    size == PackedBases::<P>::POINT_BYTES
        && samples.iter().all(|p| {
            let mut bytes = vec![0u8];
            encode(p, &mut bytes);
            PackedBases::<P>::new(&bytes[1..])
                .is_some_and(|b| b.len() == 1 && b.get(0) == cast(core::slice::from_ref(p))[0])
        })
}

/// Whether `T`'s memory is the `size`-byte encoding `encode` writes, on each
/// of `samples` (points with distinct coordinates, and infinity).
pub(crate) fn same_layout<T>(
    samples: &[T],
    encode: impl Fn(&T, &mut Vec<u8>),
    size: usize,
) -> bool {
    // The coordinates alone take `size` bytes, so a type of that size has no
    // padding: all its bytes are initialised and may be read.
    if core::mem::size_of::<T>() != size || cfg!(target_endian = "big") {
        return false;
    }
    samples.iter().all(|p| {
        let mut want = Vec::with_capacity(size);
        encode(p, &mut want);
        // SAFETY: `p` is a valid `T` of `size` bytes without padding (above).
        let have = unsafe { std::slice::from_raw_parts((p as *const T).cast::<u8>(), size) };
        want == have
    })
}
