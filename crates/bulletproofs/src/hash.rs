//! SHA-256 and HMAC-SHA256 over byte strings given in parts: the
//! transcript, the generators' derivation and the RFC 6979 stream all hash
//! this way, as secp256k1-zkp does.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// SHA-256 of the parts, concatenated.
pub(crate) fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// HMAC-SHA256 under a 32-byte key of the parts, concatenated.
pub(crate) fn hmac_sha256(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length; a 32-byte key cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}
