//! zkaccel's Bulletproofs against the C library that shipped: Grin's
//! secp256k1-zkp (`grin_secp256k1zkp` on crates.io, its bundled C sources
//! built by the crate's build script). One test binary: the two modules
//! share its build.
//!
//! `ZKACCEL_BP_CASES` scales the random cases (default 2,000).

#[path = "oracle/c_lib.rs"]
mod c_lib;
#[path = "oracle/commitments.rs"]
mod commitments;
#[path = "oracle/rangeproof.rs"]
mod rangeproof;

fn cases() -> usize {
    std::env::var("ZKACCEL_BP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}
