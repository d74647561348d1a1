//! The selection layer: which kernel family zkaccel uses, the environment
//! switch that caps it, and the CPU-feature tokens that prove a kernel may
//! run ([`Adx`], `Arm64`, `Avx2`, `Ifma`; [`Asm`] names the target's
//! assembly token).
//!
//! This module imports none of the kernel modules; they depend on it (each
//! kernel's safe entry points are methods of its token, defined beside the
//! kernel: [`Adx`]'s in the crate root, `Avx2`'s in
//! `avx2`, `Ifma`'s in `ifma`).
//!
//! zkaccel picks its field kernels at run time: the AVX-512 IFMA lanes where
//! the CPU has them, else the BMI2/ADX assembly with the AVX2 lanes (the
//! NTT), else the BMI2/ADX assembly alone, else portable Rust; on aarch64
//! the aarch64 assembly (`Arm64`), else portable Rust. So that one
//! machine can measure every path its users' CPUs take, the environment
//! variable [`KERNEL_ENV`] (`ZKACCEL_KERNEL`) caps the choice:
//!
//! | `ZKACCEL_KERNEL` | `Arm64::detect` (aarch64) | [`Adx::detect`] | `Avx2::detect` | `Ifma::detect` |
//! |---|---|---|---|---|
//! | unset, `auto` or `ifma` | `Some` | the CPU's answer | the CPU's answer | the CPU's answer |
//! | `avx2` | `Some` | the CPU's answer | the CPU's answer | `None` |
//! | `adx` | `Some` | the CPU's answer | `None` | `None` |
//! | `arm64` | `Some` | `None` | `None` | `None` |
//! | `portable` | `None` | `None` | `None` | `None` |
//!
//! (The levels are ordered, and a cap keeps the levels at or below it:
//! `arm64` sits between `portable` and `adx`, so on x86-64 it means the
//! portable kernels, and on aarch64 `adx` and above change nothing.)
//!
//! It is read once per process, on the first detection. It can only lower
//! the level: asking for `ifma` on a CPU without it changes nothing. An
//! unknown value caps nothing and is reported by [`kernel_setting`] (print
//! [`kernel_summary`] next to a measurement to see what ran).

use std::sync::OnceLock;

/// The environment variable that caps the kernels: `portable`, `arm64`,
/// `adx`, `avx2`, `ifma` or `auto`.
pub const KERNEL_ENV: &str = "ZKACCEL_KERNEL";

/// A kernel family, from the most portable to the widest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelLevel {
    /// Portable branch-free Rust (every CPU; on x86-64 without BMI2/ADX, on
    /// wasm32, on aarch64 under `ZKACCEL_KERNEL=portable`).
    Portable,
    /// The aarch64 assembly: `mul`/`umulh` products on `adds`/`adcs`
    /// chains (every aarch64 CPU; module `arm64`).
    Arm64,
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
            KernelLevel::Arm64 => "arm64",
            KernelLevel::Adx => "adx",
            KernelLevel::Avx2 => "avx2",
            KernelLevel::Ifma => "ifma",
        }
    }

    /// Parses a `ZKACCEL_KERNEL` value (`auto` is no cap: `Ok(None)`).
    pub fn parse(value: &str) -> Result<Option<KernelLevel>, ParseKernelError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(None),
            "portable" => Ok(Some(KernelLevel::Portable)),
            "arm64" => Ok(Some(KernelLevel::Arm64)),
            "adx" => Ok(Some(KernelLevel::Adx)),
            "avx2" => Ok(Some(KernelLevel::Avx2)),
            "ifma" => Ok(Some(KernelLevel::Ifma)),
            _ => Err(ParseKernelError {
                given: value.to_string(),
            }),
        }
    }
}

/// A `ZKACCEL_KERNEL` value that is not `portable`, `arm64`, `adx`,
/// `avx2`, `ifma` or `auto` (the kernels then run uncapped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseKernelError {
    /// The value as given.
    pub given: String,
}

impl std::fmt::Display for ParseKernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{KERNEL_ENV}={:?} is not one of portable, arm64, adx, avx2, ifma, auto: ignored",
            self.given
        )
    }
}

impl std::error::Error for ParseKernelError {}

impl std::fmt::Display for KernelLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The parsed `ZKACCEL_KERNEL`, read once per process and borrowed by every
/// detection (no copy on the tokens' path).
fn setting() -> &'static Result<Option<KernelLevel>, ParseKernelError> {
    static SETTING: OnceLock<Result<Option<KernelLevel>, ParseKernelError>> = OnceLock::new();
    SETTING.get_or_init(|| match std::env::var_os(KERNEL_ENV) {
        None => Ok(None),
        Some(v) => KernelLevel::parse(&v.to_string_lossy()),
    })
}

/// What `ZKACCEL_KERNEL` asked for: `Ok(None)` when unset or `auto`,
/// `Ok(Some(level))` for a cap, the parse error for a value that is not
/// understood (and therefore ignored). Read once per process.
pub fn kernel_setting() -> Result<Option<KernelLevel>, ParseKernelError> {
    setting().clone()
}

/// The cap `ZKACCEL_KERNEL` sets, if any (an unknown value caps nothing).
fn cap() -> Option<KernelLevel> {
    setting().as_ref().ok().copied().flatten()
}

/// Whether the environment allows kernels of `level` (no cap, or a cap at
/// `level` or above).
fn allowed(level: KernelLevel) -> bool {
    cap().is_none_or(|cap| level <= cap)
}

/// What this CPU supports, ignoring `ZKACCEL_KERNEL`.
pub fn kernel_supported() -> KernelLevel {
    #[cfg(target_arch = "x86_64")]
    if ifma_supported() && adx_supported() {
        return KernelLevel::Ifma;
    }
    #[cfg(target_arch = "x86_64")]
    if avx2_supported() && adx_supported() {
        return KernelLevel::Avx2;
    }
    if adx_supported() {
        KernelLevel::Adx
    } else if cfg!(target_arch = "aarch64") {
        KernelLevel::Arm64
    } else {
        KernelLevel::Portable
    }
}

/// The kernels zkaccel uses in this process: what the CPU supports, capped
/// by `ZKACCEL_KERNEL`.
pub fn kernel_in_use() -> KernelLevel {
    let cpu = kernel_supported();
    match cap().map_or(cpu, |cap| cpu.min(cap)) {
        // A cap at `arm64` on another target leaves the portable kernels.
        KernelLevel::Arm64 if !cfg!(target_arch = "aarch64") => KernelLevel::Portable,
        level => level,
    }
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

/// Whether this CPU can run the BMI2/ADX multiplication kernel (whatever
/// `ZKACCEL_KERNEL` says: [`Adx::detect`] honours it).
pub fn adx_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU has AVX2 (whatever `ZKACCEL_KERNEL` says:
/// [`Avx2::detect`] honours it).
#[cfg(target_arch = "x86_64")]
pub fn avx2_supported() -> bool {
    std::is_x86_feature_detected!("avx2")
}

/// Whether this CPU has AVX-512F and AVX-512IFMA (whatever `ZKACCEL_KERNEL`
/// says: [`Ifma::detect`] honours it).
#[cfg(target_arch = "x86_64")]
pub fn ifma_supported() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma")
}

/// Proof that this CPU runs the BMI2/ADX kernel: the safe entry point to the
/// assembly. Fields the kernels do not cover (`!F::ADX_MUL`) take the
/// portable branch-free path inside each method, so every method is valid
/// for every [`MontField`](crate::MontField).
#[derive(Clone, Copy, Debug)]
pub struct Adx(());

impl Adx {
    /// `Some` on CPUs with BMI2 and ADX, unless `ZKACCEL_KERNEL=portable`
    /// ([`KERNEL_ENV`]).
    pub fn detect() -> Option<Self> {
        (adx_supported() && allowed(KernelLevel::Adx)).then_some(Adx(()))
    }
}

/// Proof that the aarch64 assembly kernels may run: the target is aarch64
/// (every aarch64 CPU has the instructions) and `ZKACCEL_KERNEL` allows
/// them. The safe entry point to module `arm64`, with the same methods as
/// [`Adx`]; fields the kernels do not cover take the portable path inside
/// each method.
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug)]
pub struct Arm64(());

#[cfg(target_arch = "aarch64")]
impl Arm64 {
    /// `Some` unless `ZKACCEL_KERNEL=portable` ([`KERNEL_ENV`]).
    pub fn detect() -> Option<Self> {
        allowed(KernelLevel::Arm64).then_some(Arm64(()))
    }
}

/// The assembly token of the target the code is built for, with the same
/// methods everywhere (`mul`, `add`, `sub`, `dif4`): [`Adx`] on x86-64
/// (and on targets without assembly, where its `detect` is `None`),
/// `Arm64` on aarch64. Callers that want "the assembly kernels, if any"
/// name this type.
#[cfg(not(target_arch = "aarch64"))]
pub type Asm = Adx;

/// The assembly token of the target the code is built for: `Arm64` on
/// aarch64, [`Adx`] elsewhere (same methods).
#[cfg(target_arch = "aarch64")]
pub type Asm = Arm64;

/// Proof that this CPU supports AVX2 and that `ZKACCEL_KERNEL` allows it.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// `Some` on CPUs with AVX2 and BMI2/ADX, unless `ZKACCEL_KERNEL` is
    /// `adx` or `portable` ([`KERNEL_ENV`]).
    pub fn detect() -> Option<Self> {
        (avx2_supported() && adx_supported() && allowed(KernelLevel::Avx2)).then_some(Avx2(()))
    }
}

/// Proof that this CPU supports AVX-512F and AVX-512IFMA.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Ifma(());

#[cfg(target_arch = "x86_64")]
impl Ifma {
    /// `Some` on CPUs with AVX-512F and AVX-512IFMA, unless
    /// `ZKACCEL_KERNEL` is `adx` or `portable` ([`KERNEL_ENV`]).
    pub fn detect() -> Option<Self> {
        (ifma_supported() && allowed(KernelLevel::Ifma)).then_some(Ifma(()))
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
        assert_eq!(e.given, "sse2");
        let msg = e.to_string();
        assert!(
            msg.contains("ZKACCEL_KERNEL") && msg.contains("sse2"),
            "{msg}"
        );
    }

    #[test]
    fn levels_are_ordered_by_width() {
        assert!(KernelLevel::Portable < KernelLevel::Arm64);
        assert!(KernelLevel::Arm64 < KernelLevel::Adx);
        assert!(KernelLevel::Adx < KernelLevel::Avx2);
        assert!(KernelLevel::Avx2 < KernelLevel::Ifma);
        for l in [
            KernelLevel::Portable,
            KernelLevel::Arm64,
            KernelLevel::Adx,
            KernelLevel::Avx2,
            KernelLevel::Ifma,
        ] {
            assert_eq!(KernelLevel::parse(l.name()), Ok(Some(l)));
        }
    }
}
