#!/usr/bin/env bash
# zkaccel on aarch64 (CI's aarch64 stage), cross-built on x86-64:
#   1. clippy for aarch64-unknown-linux-gnu, warnings denied, on the CPU
#      crates and their tests (dead code that x86-only builds never see);
#   2. the CPU crates' tests (zkaccel-core, -ff, -dbc, -cpu, -ntt and
#      zkaccel-groth16's proofs) cross-built and run under qemu-aarch64 at
#      reduced sizes. There the field kernels are the portable ones.
#
#   scripts/aarch64-check.sh          CI's stage: reduced sizes, profile `cross`
#   scripts/aarch64-check.sh --full   every test at its default size (on demand;
#                                     about half an hour of building and more of
#                                     running under qemu on 2 cores)
#
# Installs what it needs if it is missing: the target's standard library
# (rustup), Debian's gcc-aarch64-linux-gnu and qemu-user (apt-get, as root or
# through sudo). If it cannot, it says SKIP and exits 0; any build, lint or
# test failure fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { echo "!! SKIP (aarch64 stage): $*"; exit 0; }

TARGET=aarch64-unknown-linux-gnu
full=0
[ "${1:-}" = "--full" ] && full=1

if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    rustup target add "$TARGET" || skip "rustup could not install the $TARGET standard library"
fi
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
    packages=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user)
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || skip "not root and no sudo: cannot install ${packages[*]}"
        SUDO="sudo -n"
    fi
    apt_install() { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; }
    # From the package lists there are; where they are stale, after refreshing them.
    apt_install || { $SUDO apt-get update -qq && apt_install; } || skip "apt-get could not install ${packages[*]}"
fi
echo "cross linker: $(aarch64-linux-gnu-gcc --version | head -1)"
echo "emulator: $(qemu-aarch64 --version | head -1)"

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
# Tests that start a child (a command line tool, or the test binary again)
# start it through the same emulator (zkaccel_testkit::process).
export ZKACCEL_TEST_RUNNER="$CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER"
crates=(-p zkaccel-core -p zkaccel-ff -p zkaccel-dbc -p zkaccel-cpu -p zkaccel-ntt)

echo "-- clippy for $TARGET, warnings denied"
cargo clippy --quiet --target "$TARGET" "${crates[@]}" -p zkaccel-groth16 --all-targets -- -D warnings

if [ "$full" = 1 ]; then
    echo "-- every test of the CPU crates and zkaccel-groth16 under qemu, default sizes"
    cargo test --target "$TARGET" "${crates[@]}" -p zkaccel-groth16
    exit 0
fi

# Reduced sizes: under qemu the code runs 5-20 times slower than natively,
# and the `cross` profile (opt-level 1, no debug info, not incremental)
# trades run time for a build several times shorter than the test profile's.
export PROPTEST_CASES=${PROPTEST_CASES:-8}
export ZKACCEL_TEST_CASES=${ZKACCEL_TEST_CASES:-4}
export ZKACCEL_TEST_MSM_MAX=${ZKACCEL_TEST_MSM_MAX:-512}
export ZKACCEL_TEST_NTT_LOG_MAX=${ZKACCEL_TEST_NTT_LOG_MAX:-14}
export ZKACCEL_TEST_MINCOST_SAMPLES=${ZKACCEL_TEST_MINCOST_SAMPLES:-4}
# Table 4 needs enough samples for its 1% bound (500 hold it; a few seconds).
export ZKACCEL_TEST_TABLE4_SAMPLES=${ZKACCEL_TEST_TABLE4_SAMPLES:-500}
export ZKACCEL_TEST_CONCURRENT_PROOFS=${ZKACCEL_TEST_CONCURRENT_PROOFS:-4}
# The memory-budget proof at 2^12 constraints instead of 2^20.
export ZKACCEL_TEST_RSS_LOG_N=${ZKACCEL_TEST_RSS_LOG_N:-12}
# One cargo invocation: a second one for zkaccel-groth16 alone resolves
# other features and rebuilds every arkworks crate (two minutes of CI).
echo "-- the CPU crates' tests and zkaccel-groth16's proofs (byte-identical to ark-groth16's, verified) under qemu-aarch64 (profile cross, reduced sizes)"
cargo test --profile cross --target "$TARGET" "${crates[@]}" -p zkaccel-groth16
