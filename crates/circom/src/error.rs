//! [`CircomError`]: why a file was not read, or a proof not made.

use core::fmt;
use zkaccel_groth16::Groth16Error;

/// The kinds of file this crate reads and writes, named in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A snarkjs proving key (`.zkey`).
    Zkey,
    /// A witness (`.wtns`).
    Wtns,
    /// A circom constraint system (`.r1cs`).
    R1cs,
    /// A JSON file of snarkjs (`proof.json`, `public.json`, `vkey.json`).
    Json,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::Zkey => "zkey",
            FileKind::Wtns => "wtns",
            FileKind::R1cs => "r1cs",
            FileKind::Json => "json",
        })
    }
}

/// Errors of the circom path. Every malformed or mismatched input is one of
/// these, with a message naming the file, section, field or index at fault;
/// none panics and none yields a proof that fails later without a word.
#[derive(Debug)]
#[non_exhaustive]
pub enum CircomError {
    /// Reading or writing a file failed.
    Io {
        /// What was being read or written (a path, or a description).
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is malformed: truncated, a bad magic or version, a section
    /// missing, duplicated or of the wrong size, a value out of range.
    Format {
        /// Which kind of file.
        file: FileKind,
        /// What is wrong, and where (section, field, index).
        msg: String,
    },
    /// A well-formed file this crate does not prove with: another protocol
    /// (plonk, fflonk), another curve, custom gates.
    Unsupported {
        /// Which kind of file.
        file: FileKind,
        /// What it holds.
        msg: String,
    },
    /// Two inputs disagree: a witness of another length or prime than the
    /// key's, a key of another curve than requested.
    Mismatch(String),
    /// The witness violates a constraint of the `.r1cs` (0-based index).
    Unsatisfied {
        /// The first violated constraint.
        constraint: usize,
    },
    /// The proof made does not verify against the key's own verifying key
    /// (a witness that violates the circuit, or a corrupted key).
    ProofRejected,
    /// The Groth16 prover failed.
    Prove(Groth16Error),
    /// The witness calculator failed: a bad `input.json` or wasm, a failed
    /// check in the circuit (feature `witness`).
    #[cfg(feature = "witness")]
    Witness(zkaccel_witness::WitnessError),
    /// circom's native witness generator (`--witness-bin`) failed: it could
    /// not be started, or it exited with an error (its own message).
    Generator(String),
}

impl CircomError {
    pub(crate) fn format(file: FileKind, msg: impl std::fmt::Display) -> Self {
        CircomError::Format {
            file,
            msg: msg.to_string(),
        }
    }

    pub(crate) fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        CircomError::Io {
            what: what.into(),
            source,
        }
    }
}

impl fmt::Display for CircomError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CircomError::Io { what, source } => write!(f, "{what}: {source}"),
            CircomError::Format { file, msg } => write!(f, "malformed {file} file: {msg}"),
            CircomError::Unsupported { file, msg } => write!(f, "unsupported {file} file: {msg}"),
            CircomError::Mismatch(msg) => f.write_str(msg),
            CircomError::Unsatisfied { constraint } => write!(
                f,
                "the witness does not satisfy constraint {constraint} of the r1cs (0-based)"
            ),
            CircomError::ProofRejected => f.write_str(
                "the proof does not verify against the key's verifying key: the witness does not satisfy the circuit, or the key is corrupted (check with --r1cs)",
            ),
            CircomError::Prove(e) => write!(f, "proving: {e}"),
            #[cfg(feature = "witness")]
            CircomError::Witness(e) => write!(f, "witness: {e}"),
            CircomError::Generator(msg) => write!(f, "witness generator: {msg}"),
        }
    }
}

impl std::error::Error for CircomError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CircomError::Io { source, .. } => Some(source),
            CircomError::Prove(e) => Some(e),
            #[cfg(feature = "witness")]
            CircomError::Witness(e) => Some(e),
            _ => None,
        }
    }
}

impl From<Groth16Error> for CircomError {
    fn from(e: Groth16Error) -> Self {
        CircomError::Prove(e)
    }
}

#[cfg(feature = "witness")]
impl From<zkaccel_witness::WitnessError> for CircomError {
    fn from(e: zkaccel_witness::WitnessError) -> Self {
        CircomError::Witness(e)
    }
}
