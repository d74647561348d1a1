//! [`Backend`]: where a prover's MSMs and NTTs run, the one selector that
//! zkaccel-groth16, zkaccel-circom and zkaccel-curves share, and the
//! environment variable that forces it ([`BACKEND_ENV`]), read here and
//! nowhere else.

use core::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// Where a prover's MSMs and NTTs run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// zkaccel's CPU MSM and NTT.
    Cpu,
    /// The GPU (a build with the feature `cuda`), for the curves zkaccel's
    /// kernels cover (BN254); asking for it where no GPU can be used is an
    /// error naming the reason.
    Cuda,
    /// The GPU when one is usable, the CPU otherwise, logged once per
    /// process; [`BACKEND_ENV`] forces the choice.
    Auto,
}

/// The environment variable that forces what [`Backend::Auto`] resolves
/// to: `cpu`, `cuda` (or `gpu`) or `auto`. Read once per process
/// ([`backend_from_env`]); an explicit `Cpu` or `Cuda` ignores it.
pub const BACKEND_ENV: &str = "ZKACCEL_BACKEND";

/// A backend name that is not `cpu`, `cuda`, `gpu` or `auto`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseBackendError {
    /// The name as given.
    pub given: String,
}

impl fmt::Display for ParseBackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not one of cpu, cuda, auto", self.given)
    }
}

impl std::error::Error for ParseBackendError {}

impl FromStr for Backend {
    type Err = ParseBackendError;

    /// `cpu`, `cuda` (or `gpu`), `auto`, in any case, spaces around ignored.
    fn from_str(s: &str) -> Result<Backend, ParseBackendError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(Backend::Cpu),
            "cuda" | "gpu" => Ok(Backend::Cuda),
            "auto" => Ok(Backend::Auto),
            _ => Err(ParseBackendError {
                given: s.to_string(),
            }),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
            Backend::Auto => "auto",
        })
    }
}

/// What [`BACKEND_ENV`] asks [`Backend::Auto`] for, read once per process:
/// `Ok(None)` when it is unset, empty or `auto`; `Ok(Some(Cpu | Cuda))`;
/// the parse error for any other value (the callers log it and ignore it).
pub fn backend_from_env() -> &'static Result<Option<Backend>, ParseBackendError> {
    static SETTING: OnceLock<Result<Option<Backend>, ParseBackendError>> = OnceLock::new();
    SETTING.get_or_init(|| parse_setting(std::env::var_os(BACKEND_ENV)))
}

fn parse_setting(v: Option<std::ffi::OsString>) -> Result<Option<Backend>, ParseBackendError> {
    let Some(v) = v else { return Ok(None) };
    let v = v.to_string_lossy();
    if v.trim().is_empty() {
        return Ok(None);
    }
    match v.parse()? {
        Backend::Auto => Ok(None),
        b => Ok(Some(b)),
    }
}

/// Below this many non-zero terms a GPU MSM loses to the CPU's (a GPU call
/// has a fixed cost of launches and transfers that a small MSM does not
/// repay; the crossover is docs/cuda.md's): zkaccel-cuda's `Auto` keeps
/// smaller MSMs on the CPU, and the Groth16 prover runs its quotient and H
/// MSM fused on the GPU only from this many H bases.
pub const GPU_MIN_TERMS: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print() {
        for b in [Backend::Cpu, Backend::Cuda, Backend::Auto] {
            assert_eq!(b.to_string().parse::<Backend>(), Ok(b));
        }
        assert_eq!(" GPU ".parse::<Backend>(), Ok(Backend::Cuda));
        let e = "fpga".parse::<Backend>().unwrap_err();
        assert_eq!(e.given, "fpga");
        assert!(e.to_string().contains("fpga"));
    }

    #[test]
    fn the_setting_forces_auto_or_is_an_error() {
        let s = |v: &str| parse_setting(Some(v.into()));
        assert_eq!(parse_setting(None), Ok(None));
        assert_eq!(s(""), Ok(None));
        assert_eq!(s("auto"), Ok(None));
        assert_eq!(s("cpu"), Ok(Some(Backend::Cpu)));
        assert_eq!(s("Cuda"), Ok(Some(Backend::Cuda)));
        assert!(s("tpu").is_err());
    }
}
