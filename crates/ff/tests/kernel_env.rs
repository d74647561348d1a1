//! `ZKACCEL_KERNEL` caps the kernel tokens. The setting is read once per
//! process, so each case runs this test binary again as a child with the
//! variable set, and the child checks the tokens.

use zkaccel_ff::{adx_supported, kernel_in_use, kernel_setting, Adx, Asm, KernelLevel};

/// The level of the scalar assembly this target and CPU run: the BMI2/ADX
/// kernel, the aarch64 one (every aarch64 CPU), or none.
fn asm_level() -> KernelLevel {
    if adx_supported() {
        KernelLevel::Adx
    } else if cfg!(target_arch = "aarch64") {
        KernelLevel::Arm64
    } else {
        KernelLevel::Portable
    }
}

const CHILD: &str = "ZKACCEL_KERNEL_TEST_CHILD";

fn ifma_token() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ff::ifma::Ifma::detect().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn ifma_hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ff::ifma::ifma_supported()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn avx2_token() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ff::avx2::Avx2::detect().is_some()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// What the AVX2 token needs besides the environment.
fn avx2_hardware() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        zkaccel_ff::avx2::avx2_supported() && adx_supported()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Runs the test `name` of this binary in a child with `ZKACCEL_KERNEL=value`.
fn in_child(name: &str, value: &str) {
    let out = zkaccel_testkit::process::this_test_binary()
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("ZKACCEL_KERNEL", value)
        .env(CHILD, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "child {name} with ZKACCEL_KERNEL={value}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The child's half: `Some(value)` when running as the child.
fn child() -> Option<String> {
    std::env::var_os(CHILD)?;
    Some(std::env::var("ZKACCEL_KERNEL").unwrap())
}

#[test]
fn portable_turns_off_both_tokens() {
    match child() {
        None => in_child("portable_turns_off_both_tokens", "portable"),
        Some(_) => {
            assert_eq!(kernel_setting(), Ok(Some(KernelLevel::Portable)));
            assert!(Adx::detect().is_none());
            assert!(Asm::detect().is_none());
            assert!(!avx2_token());
            assert!(!ifma_token());
            assert_eq!(kernel_in_use(), KernelLevel::Portable);
        }
    }
}

#[test]
fn adx_turns_off_the_ifma_token_only() {
    match child() {
        None => in_child("adx_turns_off_the_ifma_token_only", "adx"),
        Some(_) => {
            assert_eq!(Adx::detect().is_some(), adx_supported());
            assert_eq!(
                Asm::detect().is_some(),
                asm_level() != KernelLevel::Portable
            );
            assert!(!avx2_token());
            assert!(!ifma_token());
            assert_eq!(kernel_in_use(), asm_level());
        }
    }
}

#[test]
fn arm64_keeps_the_aarch64_kernel_only() {
    match child() {
        None => in_child("arm64_keeps_the_aarch64_kernel_only", "arm64"),
        Some(_) => {
            assert_eq!(kernel_setting(), Ok(Some(KernelLevel::Arm64)));
            // On x86-64 the cap is below the BMI2/ADX kernel: portable.
            assert!(Adx::detect().is_none());
            assert_eq!(Asm::detect().is_some(), cfg!(target_arch = "aarch64"));
            assert!(!avx2_token());
            assert!(!ifma_token());
            let want = if cfg!(target_arch = "aarch64") {
                KernelLevel::Arm64
            } else {
                KernelLevel::Portable
            };
            assert_eq!(kernel_in_use(), want);
        }
    }
}

#[test]
fn avx2_turns_off_the_ifma_token_only() {
    match child() {
        None => in_child("avx2_turns_off_the_ifma_token_only", "avx2"),
        Some(_) => {
            assert_eq!(Adx::detect().is_some(), adx_supported());
            assert_eq!(avx2_token(), avx2_hardware());
            assert!(!ifma_token());
            let want = if avx2_hardware() {
                KernelLevel::Avx2
            } else {
                asm_level()
            };
            assert_eq!(kernel_in_use(), want);
        }
    }
}

#[test]
fn ifma_or_an_unknown_value_caps_nothing() {
    for value in ["ifma", "auto", "avx9000"] {
        match child() {
            None => in_child("ifma_or_an_unknown_value_caps_nothing", value),
            Some(v) => {
                if v == value {
                    assert_eq!(Adx::detect().is_some(), adx_supported());
                    assert_eq!(avx2_token(), avx2_hardware());
                    assert_eq!(ifma_token(), ifma_hardware());
                    assert_eq!(kernel_setting().is_err(), v == "avx9000");
                    if v == "avx9000" {
                        assert!(zkaccel_ff::kernel_summary().contains("avx9000"));
                    }
                }
            }
        }
    }
}
