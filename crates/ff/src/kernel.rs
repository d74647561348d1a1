//! Which kernel family zkaccel uses, and the environment switch that caps it.
//!
//! zkaccel picks its field kernels at run time: the AVX-512 IFMA lanes where
//! the CPU has them, else the BMI2/ADX assembly with the AVX2 lanes (the
//! NTT), else the BMI2/ADX assembly alone, else portable Rust. So that one
//! machine can measure every path its users' CPUs take, the environment
//! variable [`KERNEL_ENV`] (`ZKACCEL_KERNEL`) caps the choice:
//!
//! | `ZKACCEL_KERNEL` | [`Adx::detect`](crate::Adx::detect) | `Avx2::detect` | `Ifma::detect` |
//! |---|---|---|---|
//! | unset, `auto` or `ifma` | the CPU's answer | the CPU's answer | the CPU's answer |
//! | `avx2` | the CPU's answer | the CPU's answer | `None` |
//! | `adx` | the CPU's answer | `None` | `None` |
//! | `portable` | `None` | `None` | `None` |
//!
//! It is read once per process, on the first detection. It can only lower
//! the level: asking for `ifma` on a CPU without it changes nothing. An
//! unknown value caps nothing and is reported by [`kernel_setting`] (print
//! [`kernel_summary`] next to a measurement to see what ran).

use std::sync::OnceLock;

/// The environment variable that caps the kernels: `portable`, `adx`,
/// `ifma` or `auto`.
pub const KERNEL_ENV: &str = "ZKACCEL_KERNEL";

/// A kernel family, from the most portable to the widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelLevel {
    /// Portable branch-free Rust (every CPU; on x86-64 without BMI2/ADX, on
    /// aarch64 and wasm32).
    Portable,
    /// The x86-64 BMI2/ADX assembly multiplication.
    Adx,
    /// The ADX kernel plus the AVX2 lanes (four field elements per vector)
    /// for the NTT.
    Avx2,
    /// The ADX kernel plus the AVX-512 IFMA lanes (eight field elements
    /// per vector).
    Ifma,
}

impl KernelLevel {
    /// The name `ZKACCEL_KERNEL` takes for this level.
    pub fn name(self) -> &'static str {
        match self {
            KernelLevel::Portable => "portable",
            KernelLevel::Adx => "adx",
            KernelLevel::Avx2 => "avx2",
            KernelLevel::Ifma => "ifma",
        }
    }

    /// Parses a `ZKACCEL_KERNEL` value (`auto` is no cap: `Ok(None)`).
    pub fn parse(value: &str) -> Result<Option<KernelLevel>, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "portable" => Ok(Some(KernelLevel::Portable)),
            "adx" => Ok(Some(KernelLevel::Adx)),
            "avx2" => Ok(Some(KernelLevel::Avx2)),
            "ifma" => Ok(Some(KernelLevel::Ifma)),
            other => Err(format!(
                "{KERNEL_ENV}={other:?} is not one of portable, adx, avx2, ifma, auto: ignored"
            )),
        }
    }
}

impl std::fmt::Display for KernelLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The parsed `ZKACCEL_KERNEL`, read once per process and borrowed by every
/// detection (no copy on the tokens' path).
fn setting() -> &'static Result<Option<KernelLevel>, String> {
    static SETTING: OnceLock<Result<Option<KernelLevel>, String>> = OnceLock::new();
    SETTING.get_or_init(|| match std::env::var_os(KERNEL_ENV) {
        None => Ok(None),
        Some(v) => KernelLevel::parse(&v.to_string_lossy()),
    })
}

/// What `ZKACCEL_KERNEL` asked for: `Ok(None)` when unset or `auto`,
/// `Ok(Some(level))` for a cap, `Err(message)` for a value that is not
/// understood (and therefore ignored). Read once per process.
pub fn kernel_setting() -> Result<Option<KernelLevel>, String> {
    setting().clone()
}

/// The cap `ZKACCEL_KERNEL` sets, if any (an unknown value caps nothing).
fn cap() -> Option<KernelLevel> {
    setting().as_ref().ok().copied().flatten()
}

/// Whether the environment allows kernels of `level` (no cap, or a cap at
/// `level` or above).
pub(crate) fn allowed(level: KernelLevel) -> bool {
    cap().is_none_or(|cap| level <= cap)
}

/// What this CPU supports, ignoring `ZKACCEL_KERNEL`.
pub fn kernel_supported() -> KernelLevel {
    #[cfg(target_arch = "x86_64")]
    if crate::ifma::ifma_supported() && crate::adx_supported() {
        return KernelLevel::Ifma;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::avx2::avx2_supported() && crate::adx_supported() {
        return KernelLevel::Avx2;
    }
    if crate::adx_supported() {
        KernelLevel::Adx
    } else {
        KernelLevel::Portable
    }
}

/// The kernels zkaccel uses in this process: what the CPU supports, capped
/// by `ZKACCEL_KERNEL`.
pub fn kernel_in_use() -> KernelLevel {
    let cpu = kernel_supported();
    cap().map_or(cpu, |cap| cpu.min(cap))
}

/// One line for benchmark and `--timings` output, e.g. `kernels: adx (CPU
/// supports ifma; ZKACCEL_KERNEL=adx)`.
pub fn kernel_summary() -> String {
    let (used, cpu) = (kernel_in_use(), kernel_supported());
    match setting() {
        Ok(None) => format!("kernels: {used} (CPU supports {cpu})"),
        Ok(Some(cap)) => format!("kernels: {used} (CPU supports {cpu}; {KERNEL_ENV}={cap})"),
        Err(e) => format!("kernels: {used} (CPU supports {cpu}; {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_level_and_rejects_the_rest() {
        assert_eq!(KernelLevel::parse("auto"), Ok(None));
        assert_eq!(KernelLevel::parse(""), Ok(None));
        assert_eq!(
            KernelLevel::parse("Portable"),
            Ok(Some(KernelLevel::Portable))
        );
        assert_eq!(KernelLevel::parse(" adx "), Ok(Some(KernelLevel::Adx)));
        assert_eq!(KernelLevel::parse("IFMA"), Ok(Some(KernelLevel::Ifma)));
        assert_eq!(KernelLevel::parse("AVX2"), Ok(Some(KernelLevel::Avx2)));
        let e = KernelLevel::parse("sse2").unwrap_err();
        assert!(e.contains("ZKACCEL_KERNEL") && e.contains("sse2"), "{e}");
    }

    #[test]
    fn levels_are_ordered_by_width() {
        assert!(KernelLevel::Portable < KernelLevel::Adx);
        assert!(KernelLevel::Adx < KernelLevel::Avx2);
        assert!(KernelLevel::Avx2 < KernelLevel::Ifma);
        for l in [
            KernelLevel::Portable,
            KernelLevel::Adx,
            KernelLevel::Avx2,
            KernelLevel::Ifma,
        ] {
            assert_eq!(KernelLevel::parse(l.name()), Ok(Some(l)));
        }
    }
}
