#!/usr/bin/env bash
# Instruction counts of one Pippenger MSM on aarch64, under qemu-aarch64:
# arkworks' field operators, zkaccel-ff's portable kernels and its aarch64
# assembly, the same algorithm on all three
# (crates/cpu/examples/ops_loop.rs), one thread.
#
#   scripts/qemu-count.sh [LOG_N] [CURVE...]     (defaults: 10, bn254 bls12-381)
#   QEMU_COUNT=singlestep scripts/qemu-count.sh ...   (the slow exact method)
#
# Debian's qemu-user has no TCG plugins, so the count comes from qemu's
# logs. By default: every translation block is logged once as translated
# (-d in_asm: its instructions) and every time it runs (-d exec, with
# block chaining off so that no run goes unlogged); the count is the sum,
# over the runs, of the instructions of the block as last translated at
# that address. QEMU_COUNT=singlestep instead translates one instruction
# per block (-singlestep) and counts the runs: about a million
# instructions a second, several times slower. Both are exact for the
# guest's user-space instructions to within noise: single-stepping itself
# varies by a few dozen instructions from run to run (the thread pool's
# idle loop), and the block method sees up to about 0.03% fewer (at 2^5
# terms; the cause is not pinned down). `QEMU_COUNT=both` prints both and
# fails if they differ by more than 0.1%. The
# inputs' construction is counted separately (OPS "none") and subtracted.
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

count_singlestep() { # curve ops -> instructions executed
    RAYON_NUM_THREADS=1 qemu-aarch64 -L /usr/aarch64-linux-gnu -singlestep -d exec,nochain \
        -D /dev/stderr "$BIN" "$1" "$2" "$LOG_N" 2>&1 >/dev/null | grep -c '^Trace'
}

count_blocks() { # curve ops -> instructions executed
    RAYON_NUM_THREADS=1 qemu-aarch64 -L /usr/aarch64-linux-gnu -d in_asm,exec,nochain \
        -D /dev/stderr "$BIN" "$1" "$2" "$LOG_N" 2>&1 >/dev/null | awk '
            # A translated block: "IN:", then one line per instruction
            # ("0x<pc>:  <word>  <mnemonic> ..."), then an empty line.
            /^IN:/ { inblk = 1; pc = ""; n = 0; next }
            inblk && /^0x[0-9a-f]+:/ {
                if (pc == "") { pc = $1; sub(/^0x0*/, "", pc); sub(/:$/, "", pc) }
                n++; next
            }
            inblk && NF == 0 { size[pc] = n; inblk = 0; next }
            # A run: "Trace <cpu>: <host> [<flags>/<guest pc>/...]".
            /^Trace / {
                split($4, f, "/"); a = f[2]; sub(/^0*/, "", a)
                if (!(a in size)) { missing++ }
                total += size[a]
            }
            END {
                if (missing) { print "qemu-count: " missing " runs of untranslated blocks" > "/dev/stderr"; exit 1 }
                printf "%.0f\n", total
            }'
}

count() { # curve ops -> instructions executed
    case "${QEMU_COUNT:-blocks}" in
        singlestep) count_singlestep "$@" ;;
        blocks) count_blocks "$@" ;;
        both)
            local a b
            a=$(count_blocks "$@"); b=$(count_singlestep "$@")
            echo "qemu-count: $1 $2: blocks $a, singlestep $b" >&2
            awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b / 1000) }' \
                || { echo "qemu-count: the two methods differ by more than 0.1%" >&2; exit 1; }
            echo "$a" ;;
        *) echo "qemu-count: QEMU_COUNT=$QEMU_COUNT is not blocks, singlestep or both" >&2; exit 2 ;;
    esac
}

echo "$(qemu-aarch64 --version | head -1); 2^$LOG_N terms, one thread; method ${QEMU_COUNT:-blocks}"
echo "| curve (G1) | arkworks' operators | portable kernels | aarch64 assembly | portable / operators | assembly / operators | assembly / portable |"
echo "|---|---:|---:|---:|---:|---:|---:|"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
for curve in "${CURVES[@]}"; do
    base=$(count "$curve" none)
    plain=$(( $(count "$curve" plain) - base ))
    port=$(( $(count "$curve" portable) - base ))
    asm=$(( $(count "$curve" asm) - base ))
    echo "| $curve | $plain | $port | $asm | $(ratio "$port" "$plain") | $(ratio "$asm" "$plain") | $(ratio "$asm" "$port") |"
done
