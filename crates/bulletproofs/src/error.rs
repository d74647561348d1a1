//! What can be wrong with the bytes a caller hands in.

use core::fmt;

/// Why an encoding or a request was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A byte string of the wrong length.
    Length {
        /// What was being read ("commitment", "blinding factor", ...).
        what: &'static str,
        /// The length that encoding has.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A commitment's first byte is neither `0x08` nor `0x09`.
    CommitmentPrefix(u8),
    /// A coordinate at or above the field's modulus p.
    CoordinateNotInField,
    /// An x coordinate with no point on the curve.
    NotOnCurve,
    /// A scalar (a blinding factor) at or above the group order n.
    ScalarNotInGroup,
    /// The point at infinity where a commitment or a generator is needed
    /// (`0·H + 0·G`, for instance); it has no encoding.
    Infinity,
    /// A hash fell at or above the field's modulus while deriving a
    /// generator (probability about 2^-128; the C library aborts there).
    HashNotInField,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Length {
                what,
                expected,
                got,
            } => {
                write!(f, "{what}: expected {expected} bytes, got {got}")
            }
            Error::CommitmentPrefix(b) => {
                write!(f, "commitment: first byte {b:#04x}, expected 0x08 or 0x09")
            }
            Error::CoordinateNotInField => write!(f, "x coordinate at or above the field modulus"),
            Error::NotOnCurve => write!(f, "x coordinate of no secp256k1 point"),
            Error::ScalarNotInGroup => write!(f, "scalar at or above the group order"),
            Error::Infinity => write!(f, "the point at infinity has no encoding"),
            Error::HashNotInField => {
                write!(
                    f,
                    "generator derivation: hash at or above the field modulus"
                )
            }
        }
    }
}

impl std::error::Error for Error {}
