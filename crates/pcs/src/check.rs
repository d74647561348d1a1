//! [`check_paths`]: the Merkle check that ark-poly-commit 0.6's
//! `LinearCodePCS::check` leaves out.
//!
//! Stock `check` calls `Path::verify` on every opened column and propagates
//! its error, but drops the `bool` it returns (`Ok(false)`: the path does
//! not lead to the committed root). So the opened columns are not bound to
//! the commitment: a proof with any column's path or digest changed still
//! verifies (the tests show one). [`check_paths`] does that check; call it
//! before `check` (or use [`check_strict`]), whichever encoder was used.

use ark_crypto_primitives::crh::CRHScheme;
use ark_crypto_primitives::merkle_tree::{Config, Path};
use ark_ff::PrimeField;
use ark_poly::Polynomial;
use ark_poly_commit::linear_codes::{LinCodeParametersInfo, LinearCodePCS, LinearEncode};
use ark_poly_commit::{Error, LabeledCommitment, PolynomialCommitment};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use ark_std::borrow::Borrow;
use ark_std::rand::RngCore;

/// One opening as stock code serializes it (`LinCodePCProof`: its fields
/// are crate-private in ark-poly-commit, its encoding is not).
struct Opening<F: PrimeField, C: Config> {
    paths: Vec<Path<C>>,
    columns: Vec<Vec<F>>,
}

fn reencode<T: CanonicalSerialize>(t: &T) -> Result<Vec<u8>, Error> {
    let mut v = Vec::with_capacity(t.uncompressed_size());
    t.serialize_uncompressed(&mut v)
        .map_err(|_| Error::TranscriptError)?;
    Ok(v)
}

/// The openings of a `LinearCodePCS` proof (one per commitment).
fn openings<F: PrimeField, C: Config, T: CanonicalSerialize>(
    proof: &T,
) -> Result<Vec<Opening<F, C>>, Error> {
    let bytes = reencode(proof)?;
    let r = &mut &bytes[..];
    let (c, v) = (Compress::No, Validate::No);
    let bad = |_| Error::InvalidCommitment;
    let n = u64::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
    let mut out = Vec::new();
    for _ in 0..n {
        let paths = Vec::<Path<C>>::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
        let _v = Vec::<F>::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
        let columns = Vec::<Vec<F>>::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
        let _wf = Option::<Vec<F>>::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
        out.push(Opening { paths, columns });
    }
    Ok(out)
}

/// The root and the number of encoded columns of a commitment.
fn root<C: Config, Com: CanonicalSerialize>(com: &Com) -> Result<(usize, C::InnerDigest), Error> {
    let bytes = reencode(com)?;
    let r = &mut &bytes[..];
    let (c, v) = (Compress::No, Validate::No);
    let bad = |_| Error::InvalidCommitment;
    let _rows = u64::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
    let _cols = u64::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
    let ext = u64::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
    let root = C::InnerDigest::deserialize_with_mode(&mut *r, c, v).map_err(bad)?;
    Ok((ext as usize, root))
}

/// Whether every opened column of `proof` hashes to a leaf whose Merkle
/// path (of the tree's full height) leads to its commitment's root.
///
/// `commitments` and the proof's openings are taken in the same order, as
/// `LinearCodePCS::check` takes them. `Err(InvalidCommitment)` when a
/// path does not lead to the root, has the wrong length, or the proof
/// holds a different number of openings, paths or columns; what stock
/// `check` verifies (the column indices, the code's linear checks, the
/// value) is left to it.
pub fn check_paths<'a, F, C, H, P, Com, T>(
    vk: &P,
    commitments: impl IntoIterator<Item = &'a LabeledCommitment<Com>>,
    proof: &T,
) -> Result<(), Error>
where
    F: PrimeField,
    C: Config + 'a,
    H: CRHScheme,
    H::Output: Into<C::Leaf>,
    C::Leaf: Sized,
    Vec<F>: Borrow<H::Input>,
    P: LinCodeParametersInfo<C, H>,
    Com: ark_poly_commit::PCCommitment + CanonicalSerialize + 'a,
    T: CanonicalSerialize,
{
    let openings = openings::<F, C, T>(proof)?;
    let commitments: Vec<_> = commitments.into_iter().collect();
    if openings.len() != commitments.len() {
        return Err(Error::InvalidCommitment);
    }
    for (com, opening) in commitments.into_iter().zip(&openings) {
        let (n_ext_cols, root) = root::<C, Com>(com.commitment())?;
        // The tree has n_ext_cols leaves padded to a power of two; a path
        // holds the leaf's sibling plus one node per level below the root.
        let height = n_ext_cols.next_power_of_two().trailing_zeros() as usize;
        if opening.paths.len() != opening.columns.len() {
            return Err(Error::InvalidCommitment);
        }
        for (path, column) in opening.paths.iter().zip(&opening.columns) {
            if path.auth_path.len() != height.saturating_sub(1) {
                return Err(Error::InvalidCommitment);
            }
            let leaf: C::Leaf = H::evaluate(vk.col_hash_params(), column.clone())
                .map_err(|_| Error::HashingError)?
                .into();
            let ok = path
                .verify(
                    vk.leaf_hash_param(),
                    vk.two_to_one_hash_param(),
                    &root,
                    leaf,
                )
                .map_err(|_| Error::InvalidCommitment)?;
            if !ok {
                return Err(Error::InvalidCommitment);
            }
        }
    }
    Ok(())
}

/// `LinearCodePCS::<L, ..>::check` preceded by [`check_paths`]: what a
/// verifier of ark-poly-commit 0.6's linear-code schemes should call.
#[allow(clippy::too_many_arguments)]
pub fn check_strict<'a, L, F, P, C, H>(
    vk: &L::LinCodePCParams,
    commitments: impl IntoIterator<
        Item = &'a LabeledCommitment<
            <LinearCodePCS<L, F, P, C, H> as PolynomialCommitment<F, P>>::Commitment,
        >,
    >,
    point: &'a P::Point,
    values: impl IntoIterator<Item = F>,
    proof: &<LinearCodePCS<L, F, P, C, H> as PolynomialCommitment<F, P>>::Proof,
    sponge: &mut impl ark_crypto_primitives::sponge::CryptographicSponge,
    rng: Option<&mut dyn RngCore>,
) -> Result<bool, Error>
where
    L: LinearEncode<F, C, P, H>,
    F: PrimeField + ark_crypto_primitives::sponge::Absorb,
    P: Polynomial<F>,
    C: Config + 'static,
    Vec<F>: Borrow<<H as CRHScheme>::Input>,
    H::Output: Into<C::Leaf> + Send,
    C::Leaf: Sized + Clone + Default + Send + AsRef<C::Leaf>,
    H: CRHScheme + 'static,
{
    let commitments: Vec<_> = commitments.into_iter().collect();
    check_paths::<F, C, H, _, _, _>(vk, commitments.iter().copied(), proof)?;
    LinearCodePCS::<L, F, P, C, H>::check(vk, commitments, point, values, proof, sponge, rng)
}
