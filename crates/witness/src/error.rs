//! [`WitnessError`]: why a calculator was not made, or a witness not
//! computed.

use core::fmt;

/// Errors of the witness calculator. Every bad wasm, bad input and failed
/// circuit check is one of these, with a message naming the file, signal
/// or value at fault, in the words snarkjs uses where it has words; none
/// panics and none yields a witness that differs from snarkjs' without a
/// word.
#[derive(Debug)]
#[non_exhaustive]
pub enum WitnessError {
    /// Reading a file failed.
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The module is not a circom 2 witness calculator: not WebAssembly,
    /// truncated, an export or import circom's calculator has missing or of
    /// another type, a field size this crate does not read.
    Wasm {
        /// The module's path, when it was read from a file.
        path: Option<String>,
        /// What is wrong with it.
        msg: String,
    },
    /// `input.json` is not valid JSON, or holds a value that is not a number
    /// (or an array of numbers, or an object of them).
    Json(String),
    /// An input signal the circuit does not have.
    UnknownSignal {
        /// Its name, as qualified from `input.json` (`a`, `s.x`, `b[1].y`).
        signal: String,
    },
    /// The wrong number of values for an input signal.
    WrongCount {
        /// The signal.
        signal: String,
        /// How many values the circuit takes.
        expected: usize,
        /// How many `input.json` gives.
        given: usize,
    },
    /// A value that is not a number.
    NotANumber {
        /// The signal.
        signal: String,
        /// The value's index among the signal's values (row-major, as
        /// circom flattens arrays).
        index: usize,
        /// The value, as written in `input.json`.
        value: String,
    },
    /// Some of the circuit's inputs are not in `input.json`.
    MissingInputs {
        /// How many values were set.
        set: usize,
        /// How many the circuit takes.
        expected: usize,
    },
    /// The circuit stopped: a failed `assert` or `===`, a signal set twice,
    /// an array index out of range, or a trap of the module.
    Circuit {
        /// What circom's runtime says (for a failed assertion: "Assert
        /// Failed." and the template and line, as the wasm reports them).
        message: String,
    },
    /// The calculation ran past the calculator's time limit
    /// ([`CalculatorOptions::time_limit`](crate::CalculatorOptions::time_limit))
    /// and was stopped.
    TimeLimit,
    /// The witness is for another field than the one asked for, or the
    /// module's witness has another size than a key's.
    Mismatch(String),
}

impl fmt::Display for WitnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WitnessError::Io { path, source } => write!(f, "{path}: {source}"),
            WitnessError::Wasm { path: Some(p), msg } => {
                write!(f, "{p}: not a circom witness calculator: {msg}")
            }
            WitnessError::Wasm { path: None, msg } => {
                write!(f, "not a circom witness calculator: {msg}")
            }
            WitnessError::Json(msg) => write!(f, "input: {msg}"),
            WitnessError::UnknownSignal { signal } => {
                write!(f, "input signal `{signal}` not found in the circuit")
            }
            WitnessError::WrongCount {
                signal,
                expected,
                given,
            } => {
                let what = if given < expected {
                    "not enough"
                } else {
                    "too many"
                };
                write!(
                    f,
                    "{what} values for input signal `{signal}`: the circuit takes {expected}, the input gives {given}"
                )
            }
            WitnessError::NotANumber {
                signal,
                index,
                value,
            } => write!(
                f,
                "input signal `{signal}`, value {index}: {value} is not an integer"
            ),
            WitnessError::MissingInputs { set, expected } => write!(
                f,
                "not all inputs have been set: only {set} out of {expected} values"
            ),
            WitnessError::Circuit { message } => write!(f, "the circuit failed: {message}"),
            WitnessError::TimeLimit => f.write_str("the calculation ran past its time limit"),
            WitnessError::Mismatch(msg) => f.write_str(msg),
        }
    }
}

/// A bad module, its path not known here.
pub(crate) fn wasm_error(msg: impl Into<String>) -> WitnessError {
    WitnessError::Wasm {
        path: None,
        msg: msg.into(),
    }
}

impl std::error::Error for WitnessError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WitnessError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
