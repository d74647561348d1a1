#!/usr/bin/env bash
# The CUDA stage of .ci/run (no GPU needed):
#   1. scripts/setup-cuda.sh (nvcc, CUDA 12.4's ptxas, libcuda1);
#   2. clippy and the build of zkaccel-cuda with --features cuda (PTX from nvcc);
#   3. ptxas -v on the shipped PTX for sm_80, sm_89 and sm_90, with the
#      current ptxas and with CUDA 12.4's: both must accept it, no kernel may
#      spill; registers per kernel are printed;
#   4. the tests with the feature on (no GPU: CudaContext::new must answer
#      NoDevice, CudaMsm must fall back to the CPU with the right result; GPU
#      tests print SKIPPED), and the prove example with --backend auto, which
#      must prove, verify and say which backend it took.
# If a package registry is unreachable, the stage is skipped with a loud
# message; any build, ptxas or test failure fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

set +e
./scripts/setup-cuda.sh
rc=$?
set -e
if [ "$rc" -eq 75 ]; then
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    echo "!! CUDA stage SKIPPED: a package registry (PyPI or Debian) is"
    echo "!! unreachable, so the CUDA tool chain could not be installed."
    echo "!! Nothing about the CUDA build was checked in this run."
    echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    exit 0
elif [ "$rc" -ne 0 ]; then
    echo "cuda-checks: scripts/setup-cuda.sh failed ($rc)" >&2
    exit "$rc"
fi
# shellcheck disable=SC1091
source .cuda/env.sh

# One feature set for clippy and every cargo call below, resolved over the
# whole workspace as the test command resolves it: the packages that do not
# depend on zkaccel-cuda (and every registry crate, num-traits included:
# zkaccel-testkit asks for the `libm` feature cust turns on) keep their
# feature sets, so their artifacts from the test command are reused and only
# zkaccel-cuda and the crates above it are rebuilt. Selecting packages with
# -p instead resolves fewer features (rand, serde, ...) and rebuilt
# everything, arkworks included. `zkaccel/cuda` turns the GPU backend on in
# every crate that has it.
ws=(--workspace --features zkaccel/cuda)
# Every crate's unit tests (those that do not depend on zkaccel-cuda are
# already built; zkaccel-groth16's include the Backend::Cuda proof) and
# zkaccel-cuda's integration tests (`--test ntt` takes zkaccel-ntt's too,
# also built); zkaccel-curves' backend test runs below. zkaccel-groth16's
# integration suite is not rebuilt with the feature: the prove example
# below proves and verifies through it.
tests=(--lib --test bucket --test device --test emulation --test ntt)

echo "== clippy, the workspace --features zkaccel/cuda"
cargo clippy "${ws[@]}" --all-targets -- -D warnings

echo "== build (tests and the prove example), the same features"
cargo test "${ws[@]}" "${tests[@]}" --test backend --no-run
cargo build "${ws[@]}" --profile test --example prove

PTX=$(ls -t target/debug/build/zkaccel-cuda-*/out/zkaccel.ptx | head -1)
echo "== ptxas on the shipped PTX: $PTX ($(grep -m1 '^\.version' "$PTX"), $(grep -m1 '^\.target' "$PTX"))"
status=0
# The six assemblies run side by side (each is one thread, about 15 s),
# then their logs are read in order.
logs=$(mktemp -d)
i=0
for ptxas in "$CUDA_PATH/bin/ptxas" "$ZKACCEL_PTXAS_OLD"; do
    i=$((i + 1))
    for arch in sm_80 sm_89 sm_90; do
        key=$i-$arch
        ("$ptxas" -arch="$arch" -v "$PTX" -o /dev/null >"$logs/$key.log" 2>&1
            echo $? >"$logs/$key.rc") &
    done
done
wait
i=0
for ptxas in "$CUDA_PATH/bin/ptxas" "$ZKACCEL_PTXAS_OLD"; do
    i=$((i + 1))
    version=$("$ptxas" --version | grep -o 'release [0-9.]*')
    for arch in sm_80 sm_89 sm_90; do
        key=$i-$arch
        log=$logs/$key.log
        if [ "$(cat "$logs/$key.rc")" -ne 0 ]; then
            echo "ptxas ($version) rejected the PTX for $arch:" >&2
            cat "$log" >&2
            status=1
            continue
        fi
        # One line per kernel: name, registers, stack, spills, and the
        # occupancy the registers allow with 128-thread blocks (64K registers
        # per SM, allocated per warp in units of 256; at most 64 resident
        # warps per SM on sm_80/sm_90, 48 on sm_89).
        awk -v arch="$arch" -v ver="$version" '
            BEGIN { maxw = (arch == "sm_89") ? 48 : 64 }
            /Compiling entry function/ { match($0, /\047[^\047]+\047/); fn = substr($0, RSTART + 1, RLENGTH - 2) }
            /bytes stack frame/ { stack = $1; st = $5; ld = $9 }
            /Used [0-9]+ registers/ {
                match($0, /Used [0-9]+ registers/); regs = substr($0, RSTART + 5, RLENGTH - 15)
                per_warp = int((regs * 32 + 255) / 256) * 256
                warps = int(int(65536 / per_warp) / 4) * 4
                if (warps > maxw) { warps = maxw }
                printf "  ptxas %-13s %-6s %-24s %4s registers, %4s bytes stack, spills %s/%s, occupancy %3d%%\n", ver, arch, fn, regs, stack, st, ld, 100 * warps / maxw
                if (st != 0 || ld != 0) { bad = 1 }
            }
            END { exit bad }' "$log" || { echo "spills in the $arch code (ptxas $version)" >&2; status=1; }
    done
done
rm -rf "$logs"
if [ "$status" -ne 0 ]; then
    exit "$status"
fi

echo "== tests, --features zkaccel/cuda"
cargo test "${ws[@]}" "${tests[@]}"
# zkaccel-curves' backend choice: without a GPU set_backend(Cuda) is refused
# with the reason and the test says the GPU part was skipped.
cargo test "${ws[@]}" --test backend -- --nocapture

echo "== the prove example with --features cuda --backend auto (no GPU: falls back and says so)"
out=$(target/debug/examples/prove \
    --circuit mimc --size 1024 --rounds 1 --backend auto 2>&1)
echo "$out" | grep -E "backend auto ->|speed-up|byte-identical"
echo "$out" | grep -q "zkaccel_groth16::backend\] backend auto -> " || { echo "no backend log line" >&2; exit 1; }
echo "$out" | grep -q "proofs byte-identical: true; both verify with ark-groth16: true" \
    || { echo "the proof under --features cuda is wrong" >&2; exit 1; }
