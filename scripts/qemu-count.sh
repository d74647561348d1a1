#!/usr/bin/env bash
# Instruction counts of one Pippenger MSM on aarch64, under qemu-aarch64:
# arkworks' field operators against zkaccel-ff's portable kernels, the same
# algorithm on both (crates/cpu/examples/ops_loop.rs), one thread.
#
#   scripts/qemu-count.sh [LOG_N] [CURVE...]     (defaults: 10, bn254 bls12-381)
#
# Debian's qemu-user has no TCG plugins, so the count is the number of
# translation blocks executed with one instruction per block (-singlestep)
# and no block chaining (-d exec,nochain logs every block): slow (about a
# million instructions a second) but exact for the guest. The inputs'
# construction is counted separately (OPS "none") and subtracted.
# Instruction counts do not show branch mispredictions, which is where the
# branch-free kernels gain most on real CPUs: time them on the machine too.
set -euo pipefail
cd "$(dirname "$0")/.."
LOG_N=${1:-10}
shift || true
CURVES=("$@")
[ ${#CURVES[@]} -eq 0 ] && CURVES=(bn254 bls12-381)
TARGET=aarch64-unknown-linux-gnu
for tool in aarch64-linux-gnu-gcc qemu-aarch64; do
    command -v "$tool" >/dev/null || { echo "qemu-count: $tool not found (scripts/aarch64-check.sh installs it)" >&2; exit 1; }
done
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
cargo build --quiet --release --target "$TARGET" -p zkaccel-cpu --example ops_loop
BIN=target/$TARGET/release/examples/ops_loop

count() { # curve ops -> instructions executed
    RAYON_NUM_THREADS=1 qemu-aarch64 -L /usr/aarch64-linux-gnu -singlestep -d exec,nochain \
        -D /dev/stderr "$BIN" "$1" "$2" "$LOG_N" 2>&1 >/dev/null | grep -c '^Trace'
}

echo "$(qemu-aarch64 --version | head -1); 2^$LOG_N terms, one thread"
echo "| curve (G1) | arkworks' operators | portable kernels | portable / operators |"
echo "|---|---:|---:|---:|"
for curve in "${CURVES[@]}"; do
    base=$(count "$curve" none)
    plain=$(( $(count "$curve" plain) - base ))
    port=$(( $(count "$curve" portable) - base ))
    ratio=$(awk -v a="$port" -v b="$plain" 'BEGIN { printf "%.3f", a / b }')
    echo "| $curve | $plain | $port | $ratio |"
done
