//! The proving key as the prover reads it: [`ProvingKeyRef`] (points
//! wherever the caller keeps them), [`ResidentKey`] (the G1 queries kept on
//! the GPU) and [`PreparedProvingKey`] (precomputed shifted bases).

use crate::backend;
use crate::error::Groth16Error;
use crate::pairing::{AccelPairing, ResidentBases};
use ark_groth16::{ProvingKey, VerifyingKey};
use zkaccel_cpu::{BaseSlice, PreparedBases};

/// A proving key by reference: ark-groth16's [`ProvingKey`] with its point
/// vectors borrowed, so the points can lie where the caller keeps them
/// (zkaccel-circom proves from a snarkjs zkey's points in place, in the
/// memory-mapped file, as slices where a section is aligned for arkworks'
/// `Affine` and as [`PackedBases`](zkaccel_cpu::PackedBases) where it is
/// not). `ProvingKeyRef::from(&pk)` borrows an arkworks key.
pub struct ProvingKeyRef<'a, E: AccelPairing> {
    /// The verifying key (`alpha_g1`, `beta_g2`, `gamma_g2`, `delta_g2`,
    /// `gamma_abc_g1`).
    pub vk: &'a VerifyingKey<E>,
    /// `beta` in G1.
    pub beta_g1: E::G1Affine,
    /// `delta` in G1.
    pub delta_g1: E::G1Affine,
    /// The A query (one point per variable).
    pub a_query: BaseSlice<'a, E::G1Config>,
    /// The B query in G1.
    pub b_g1_query: BaseSlice<'a, E::G1Config>,
    /// The B query in G2.
    pub b_g2_query: BaseSlice<'a, E::G2Config>,
    /// The H query.
    pub h_query: BaseSlice<'a, E::G1Config>,
    /// The L query (one point per witness variable).
    pub l_query: BaseSlice<'a, E::G1Config>,
    /// The G1 queries kept in GPU memory ([`ResidentKey`]), if any: the
    /// A, B1, L and H MSMs then run on them (on the GPU, whatever the
    /// backend), moving only their scalars.
    pub resident: Option<&'a ResidentKey<E>>,
    /// Precomputed shifted copies of every query's bases
    /// ([`PreparedProvingKey`]), if any: the five MSMs run on them on the
    /// CPU. Set by `ProvingKeyRef::from(&prepared_key)`.
    pub prepared: Option<&'a PreparedProvingKey<E>>,
    /// Told each time a proof has finished reading a query's bases, so that
    /// their owner can give the memory back until the next read
    /// (zkaccel-circom drops its mapped zkey's pages of that section: a
    /// proof's peak memory then holds the key's sections one at a time, not
    /// the whole file). `None` for keys held in plain vectors.
    pub release: Option<&'a dyn ReleaseQuery>,
}

/// One of a proving key's point vectors, as [`ReleaseQuery`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyQuery {
    /// The A query.
    A,
    /// The B query in G1.
    B1,
    /// The B query in G2.
    B2,
    /// The H query.
    H,
    /// The L query.
    L,
}

/// The owner of a key's points, told when the prover is done reading a
/// query ([`ProvingKeyRef::release`]). The prover may read the same query
/// again later (the next proof, or another proof on another thread at the
/// same time), and must then find the same points: an implementation may
/// drop only what it can restore unchanged on the next read, as the pages
/// of a read-only file mapping are.
pub trait ReleaseQuery: Sync {
    /// `query`'s bases are not being read by this proof any more.
    fn release(&self, query: KeyQuery);
}

impl<E: AccelPairing> ProvingKeyRef<'_, E> {
    /// Tells the key's owner, where it has one, that this proof has read
    /// `q`'s bases ([`ProvingKeyRef::release`]).
    pub(super) fn done_with(&self, q: KeyQuery) {
        if let Some(owner) = self.release {
            owner.release(q);
        }
    }
}

impl<E: AccelPairing> Clone for ProvingKeyRef<'_, E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E: AccelPairing> Copy for ProvingKeyRef<'_, E> {}

impl<'a, E: AccelPairing> From<&'a ProvingKey<E>> for ProvingKeyRef<'a, E> {
    fn from(pk: &'a ProvingKey<E>) -> Self {
        ProvingKeyRef {
            vk: &pk.vk,
            beta_g1: pk.beta_g1,
            delta_g1: pk.delta_g1,
            a_query: BaseSlice::Affine(E::g1_bases(&pk.a_query)),
            b_g1_query: BaseSlice::Affine(E::g1_bases(&pk.b_g1_query)),
            b_g2_query: BaseSlice::Affine(E::g2_bases(&pk.b_g2_query)),
            h_query: BaseSlice::Affine(E::g1_bases(&pk.h_query)),
            l_query: BaseSlice::Affine(E::g1_bases(&pk.l_query)),
            resident: None,
            prepared: None,
            release: None,
        }
    }
}

impl<'a, E: AccelPairing> From<&'a PreparedProvingKey<E>> for ProvingKeyRef<'a, E> {
    fn from(ppk: &'a PreparedProvingKey<E>) -> Self {
        ProvingKeyRef {
            prepared: Some(ppk),
            ..ProvingKeyRef::from(&ppk.pk)
        }
    }
}

/// A proving key's four G1 queries (A and B1 without their first point, L,
/// H) uploaded once to the GPU and kept there across proofs: each proof's
/// A, B1, L and H MSMs then move only their scalars, and the H MSM runs on
/// the quotient where the device computed it. Give it to the prover through
/// [`ProvingKeyRef::resident`]. Built by [`ResidentKey::upload`] (BN254
/// with the feature `cuda` and a GPU); freed when dropped.
pub struct ResidentKey<E: AccelPairing> {
    pub(super) a: Box<dyn ResidentBases<E>>,
    pub(super) b_g1: Box<dyn ResidentBases<E>>,
    pub(super) l: Box<dyn ResidentBases<E>>,
    pub(super) h: Box<dyn ResidentBases<E>>,
    pub(super) device: String,
}

impl<E: AccelPairing> std::fmt::Debug for ResidentKey<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResidentKey")
            .field("device", &self.device)
            .field("a", &self.a.len())
            .field("b_g1", &self.b_g1.len())
            .field("l", &self.l.len())
            .field("h", &self.h.len())
            .finish()
    }
}

impl<E: AccelPairing> ResidentKey<E> {
    /// Uploads `pk`'s G1 queries to the GPU that `backend` resolves to
    /// (as a proof would resolve it): `Ok(None)` where that is the CPU or
    /// zkaccel has no GPU kernels for this curve; an error where the GPU is
    /// asked for ([`Backend::Cuda`](crate::Backend::Cuda)) and unusable, or
    /// the upload fails (out of device memory, say).
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    pub fn upload(
        pk: ProvingKeyRef<'_, E>,
        backend: crate::Backend,
    ) -> Result<Option<Self>, Groth16Error> {
        let resolved = backend::resolve(backend)
            .map_err(|cause| Groth16Error::BackendUnavailable { backend, cause })?;
        match resolved {
            backend::Resolved::Cpu => Ok(None),
            #[cfg(feature = "cuda")]
            backend::Resolved::Cuda(ctx) => {
                let up = |q: BaseSlice<'_, E::G1Config>| {
                    E::cuda_resident(ctx.clone(), &q.to_affine()).transpose()
                };
                let (Some(a), Some(b_g1), Some(l), Some(h)) = (
                    up(pk.a_query.skip(1))?,
                    up(pk.b_g1_query.skip(1))?,
                    up(pk.l_query)?,
                    up(pk.h_query)?,
                ) else {
                    return Ok(None);
                };
                Ok(Some(ResidentKey {
                    a,
                    b_g1,
                    l,
                    h,
                    device: ctx.name().to_string(),
                }))
            }
        }
    }

    /// The device's name.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Checks that the queries were uploaded from a key of these lengths.
    pub(super) fn check(&self, pk: &ProvingKeyRef<'_, E>) -> Result<(), Groth16Error> {
        let skip1 = |n: usize| n.saturating_sub(1);
        check_len("resident a_query", skip1(pk.a_query.len()), self.a.len())?;
        check_len(
            "resident b_g1_query",
            skip1(pk.b_g1_query.len()),
            self.b_g1.len(),
        )?;
        check_len("resident l_query", pk.l_query.len(), self.l.len())?;
        check_len("resident h_query", pk.h_query.len(), self.h.len())
    }
}

pub(super) fn check_len(
    what: &'static str,
    expected: usize,
    got: usize,
) -> Result<(), Groth16Error> {
    if expected == got {
        Ok(())
    } else {
        Err(Groth16Error::KeyMismatch {
            what,
            expected,
            got,
        })
    }
}

/// A proving key with precomputed shifted copies of the bases of its five
/// MSMs ([`PreparedBases`]): built once, reused for many proofs, with the
/// same proofs as the plain key. The copies cost memory
/// ([`PreparedProvingKey::extra_memory_bytes`]: about 16 copies of every
/// query at BN254 sizes) and about one doubling per scalar bit per base to
/// build.
pub struct PreparedProvingKey<E: AccelPairing> {
    pub(super) pk: ProvingKey<E>,
    pub(super) a: PreparedBases<E::G1Config>,
    pub(super) b_g1: PreparedBases<E::G1Config>,
    pub(super) b_g2: PreparedBases<E::G2Config>,
    pub(super) l: PreparedBases<E::G1Config>,
    pub(super) h: PreparedBases<E::G1Config>,
}

impl<E: AccelPairing> PreparedProvingKey<E> {
    /// Precomputes the shifted bases of `pk`'s A, B (G1 and G2), L and H
    /// queries.
    pub fn new(pk: ProvingKey<E>) -> Self {
        let g1 = |q: &[E::G1Affine]| PreparedBases::new(E::g1_bases(q));
        Self {
            a: g1(pk.a_query.get(1..).unwrap_or(&[])),
            b_g1: g1(pk.b_g1_query.get(1..).unwrap_or(&[])),
            b_g2: PreparedBases::new(E::g2_bases(pk.b_g2_query.get(1..).unwrap_or(&[]))),
            l: g1(&pk.l_query),
            h: g1(&pk.h_query),
            pk,
        }
    }

    /// The underlying ark-groth16 key.
    pub fn proving_key(&self) -> &ProvingKey<E> {
        &self.pk
    }

    /// Memory of the precomputed copies beyond the key itself, in bytes.
    pub fn extra_memory_bytes(&self) -> usize {
        self.a.memory_bytes()
            + self.b_g1.memory_bytes()
            + self.b_g2.memory_bytes()
            + self.l.memory_bytes()
            + self.h.memory_bytes()
    }
}
