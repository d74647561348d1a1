#!/usr/bin/env bash
# The GPU checks, on a machine with an NVIDIA GPU, from the programs
# scripts/gpu-pack.sh built into .gpu/bin (no Rust tool chain needed here):
#
#   scripts/gpu-run.sh [STEP ...]     # default: info tests profile circom prove bench
#
#   info     the GPU, driver and CPU
#   tests    zkaccel-cuda's device and NTT tests (every GPU result against
#            arkworks / ark-poly and the host emulation), its unit tests, the
#            GPU proofs of zkaccel-groth16's unit tests, and zkaccel-circom's
#            snarkjs fixtures proved with Backend::Auto (the GPU, the key's
#            G1 queries resident) against naive reductions
#   profile  examples/gpu_profile: MSM 2^16/2^20 (uploaded, resident), NTT,
#            quotient, each checked against arkworks, per-step device times
#   ab       gpu_profile at 2^20 with pinned staging and the memory pool
#            off (ZKACCEL_CUDA_STAGING=0 ZKACCEL_CUDA_POOL=0), then on
#   circom   a snarkjs key of ZKACCEL_GPU_CIRCOM_BLOCKS (default 24: domain
#            2^20) SHA-256 blocks from `zkaccel-prover export-example`, proved
#            with the key loaded once (examples/prove_loaded) on the GPU and
#            on the CPU, every proof verified; and zkaccel-prover --backend cuda
#   prove    examples/prove, SHA-256 of 16 blocks, GPU against stock arkworks
#   bench    the criterion bench `cuda` (shortened: 1 s warm-up, 3 s per cell;
#            ZKACCEL_GPU_BENCH_FILTER picks cells)
#
# Every step runs under a time limit; its output goes to $OUT/gpu-run.log
# (or target/gpu-run.log) and a summary of each step's status ends the run.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=$PWD/.gpu/bin
if [ -f .gpu/bin.tar.xz ]; then
    BIN=/tmp/zkaccel-gpu/bin
    rm -rf /tmp/zkaccel-gpu && mkdir -p /tmp/zkaccel-gpu
    xz -dc .gpu/bin.tar.xz | tar -C /tmp/zkaccel-gpu -xf -
fi
LOGDIR=${OUT:-$PWD/target}
mkdir -p "$LOGDIR"
LOG=$LOGDIR/gpu-run.log
: >"$LOG"
# Test fixtures are read from the build machine's source path
# (CARGO_MANIFEST_DIR): make it lead here.
root=$(cat .gpu/root 2>/dev/null || true)
if [ -n "$root" ] && [ ! -e "$root" ]; then
    mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
fi
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(info tests profile circom prove bench)
summary=()

# run NAME LIMIT_S CMD...: the command under a limit, output to the log and
# its last lines to the terminal.
run() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    echo "== $name: $*" | tee -a "$LOG"
    timeout --kill-after=5 "$limit" "$@" >>"$LOG" 2>&1
    local rc=$?
    summary+=("$(printf '%-34s rc=%-3s %4ss' "$name" "$rc" "$((SECONDS - t0))")")
    echo "== $name: rc=$rc in $((SECONDS - t0)) s" >>"$LOG"
    return $rc
}

for step in "${steps[@]}"; do
    case $step in
    info)
        {
            nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
            echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) | $(nproc) threads"
            echo "flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'adx|bmi2|avx2|avx512f|avx512ifma' | tr '\n' ' ')"
            cat .gpu/commit
        } 2>&1 | tee -a "$LOG"
        ;;
    tests)
        run "cuda device tests" 150 "$BIN/test-device" --test-threads 4
        run "cuda ntt tests" 90 "$BIN/test-ntt" --test-threads 4
        run "cuda unit tests" 60 "$BIN/test-zkaccel_cuda"
        run "groth16 unit tests (cuda)" 90 "$BIN/test-zkaccel_groth16" cuda --nocapture
        run "circom fixtures (Auto: the GPU)" 120 "$BIN/test-circom" fixtures --test-threads 2
        ;;
    ab)
        for v in 0 1; do
            ZKACCEL_CUDA_STAGING=$v ZKACCEL_CUDA_POOL=$v ZKACCEL_CUDA_PROFILE=1 RUST_LOG=info \
                run "gpu_profile 2^20, staging and pool = $v" 90 \
                "$BIN/gpu_profile" --msm 20 --quotient 20 --ntt 20 --reps 7
        done
        ;;
    profile)
        sizes=${ZKACCEL_GPU_PROFILE_LOGS:-16,20}
        ZKACCEL_CUDA_PROFILE=1 RUST_LOG=info run "gpu_profile" 120 \
            "$BIN/gpu_profile" --msm "$sizes" --quotient "$sizes" --ntt "$sizes" --reps 5
        ;;
    circom)
        blocks=${ZKACCEL_GPU_CIRCOM_BLOCKS:-24}
        dir=/tmp/zkaccel-circom-$blocks
        [ -f "$dir/circuit.zkey" ] ||
            run "export-example sha256 $blocks" 150 "$BIN/zkaccel-prover" export-example sha256 "$blocks" "$dir"
        RUST_LOG=info run "prove_loaded cuda (2^k, key resident)" 90 \
            "$BIN/prove_loaded" "$dir/circuit.zkey" "$dir/witness.wtns" "$dir/p.json" "$dir/pub.json" 5 cuda &&
            run "verify (cuda proof)" 20 "$BIN/zkaccel-prover" verify "$dir/vkey.json" "$dir/pub.json" "$dir/p.json"
        run "prove_loaded cpu" 90 \
            "$BIN/prove_loaded" "$dir/circuit.zkey" "$dir/witness.wtns" "$dir/pc.json" "$dir/pubc.json" 3 cpu
        ZKACCEL_CUDA_PROFILE=1 RUST_LOG=info run "zkaccel-prover --backend cuda --timings" 60 \
            "$BIN/zkaccel-prover" --backend cuda --timings "$dir/circuit.zkey" "$dir/witness.wtns" \
            "$dir/p2.json" "$dir/pub2.json"
        ;;
    prove)
        blocks=${ZKACCEL_GPU_PROVE_BLOCKS:-16}
        RUST_LOG=info run "prove sha256 $blocks blocks" 120 \
            "$BIN/prove" --circuit sha256 --size "$blocks" --backend cuda
        ;;
    bench)
        # ZKACCEL_GPU_BENCH_FILTER: a criterion filter (some cells only).
        run "bench cuda" 150 "$BIN/bench-cuda" --bench --warm-up-time 1 --measurement-time 3 \
            ${ZKACCEL_GPU_BENCH_FILTER:+"$ZKACCEL_GPU_BENCH_FILTER"}
        ;;
    *)
        echo "unknown step $step" >&2
        ;;
    esac
done

# The end of each step's output, then the summary (the caller sees the tail).
echo
grep -v "zkaccel_cuda::profile" "$LOG" |
    grep -E "^test result|FAILED|panicked|SKIPPED|error|median|prove [0-9]|load |total|speed-up|byte-identical|time: |msm|ntt|quotient|timings" | tail -100
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
