//! The `.wtns` file (version 2) as circom's calculator writes it: section 1
//! `n8`, the prime, the value count; section 2 the values, little-endian.

/// A `.wtns` file of `body` (values of `prime.len()` bytes each, already in
/// order) for the field of `prime` (little-endian).
pub(crate) fn wtns_bytes(prime: &[u8], body: &[u8]) -> Vec<u8> {
    let n8 = prime.len();
    let mut out = Vec::with_capacity(body.len() + n8 + 44);
    out.extend_from_slice(b"wtns");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    let mut section = |id: u32, parts: &[&[u8]]| {
        out.extend_from_slice(&id.to_le_bytes());
        let len: usize = parts.iter().map(|p| p.len()).sum();
        out.extend_from_slice(&(len as u64).to_le_bytes());
        parts.iter().for_each(|p| out.extend_from_slice(p));
    };
    let count = (body.len() / n8.max(1)) as u32;
    section(
        1,
        &[&(n8 as u32).to_le_bytes(), prime, &count.to_le_bytes()],
    );
    section(2, &[body]);
    out
}
