#!/usr/bin/env bash
# Runs the coverage-guided fuzz targets of fuzz/ (cargo-fuzz, libFuzzer).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 30); the targets default to all of them:
# dbc_cli dbc_chain msm ntt groth16_keys circom_files witness_inputs bulletproofs. Each run starts from the committed
# seeds in fuzz/corpus/<target> and writes what it finds to a scratch copy in
# fuzz/target/corpus/<target> (set ZKACCEL_FUZZ_SAVE=1 to grow the committed
# corpus instead; then minimise it with `cargo fuzz cmin`). Targets run side
# by side, ZKACCEL_FUZZ_JOBS at a time (default: the number of cores). A
# crash fails the run with a non-zero status and leaves the input in
# fuzz/artifacts/.
#
# cargo-fuzz is installed from crates.io into .tools/ on first use (a debug
# build of it: a tool that only starts cargo gains nothing from optimising,
# and compiles in about half the time). The pinned stable toolchain runs it
# with RUSTC_BOOTSTRAP=1 (the instrumentation flags are unstable); debug
# assertions and overflow checks are on (-a).
#
# ZKACCEL_FUZZ_QUICK=1 (what .ci/run sets when asked to fuzz) builds the targets without
# AddressSanitizer and with 16 code-generation units a crate instead of
# cargo-fuzz's one, and leaves out witness_inputs (the
# fuzz crate's feature `witness`): on 2 cores that build is the stage's
# longest part, wasmtime and Cranelift half of it, and a smoke run of
# seconds gains little from any of them. witness_inputs' committed seeds
# are replayed by zkaccel-witness's tests (tests/fixtures.rs) instead.
# Safe Rust is bounds-checked without the sanitizer, and the unsafe code
# there is (the kernels' inline assembly) is not instrumented by it
# anyway. The long runs keep all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(dbc_cli dbc_chain msm ntt groth16_keys circom_files witness_inputs bulletproofs)

tools=$root/.tools
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
    echo "== installing cargo-fuzz 0.13.2 into .tools/"
    cargo install cargo-fuzz --version 0.13.2 --locked --debug --root "$tools" --quiet
fi
export PATH="$tools/bin:$PATH" RUSTC_BOOTSTRAP=1

# The same flags for build and run: `cargo fuzz run` with other flags would
# build everything again.
flags=(-a)
if [ "${ZKACCEL_FUZZ_QUICK:-0}" = 1 ]; then
    # (Debug info stays: cargo-fuzz passes --config
    # profile.release.debug="line-tables-only", which no environment
    # setting overrides.)
    flags+=(--sanitizer none --codegen-units 16 --no-default-features)
    quick=()
    for t in "${targets[@]}"; do
        if [ "$t" = witness_inputs ]; then
            echo "-- witness_inputs left out (ZKACCEL_FUZZ_QUICK=1 builds without wasmtime; its seeds are replayed by zkaccel-witness's tests)"
        else
            quick+=("$t")
        fi
    done
    targets=("${quick[@]}")
fi

cd fuzz
echo "== building the fuzz targets (cargo fuzz build ${flags[*]})"
cargo fuzz build "${flags[@]}"
# One target's run: the committed corpus replayed, then SECONDS of fuzzing;
# its log in fuzz/target/fuzz-<target>.log, its exit status in .rc beside it.
run_target() {
    local t=$1 work dirs
    if [ "${ZKACCEL_FUZZ_SAVE:-0}" = 1 ]; then
        work=corpus/$t
        mkdir -p "$work"
        dirs=("$work")
    else
        work=target/corpus/$t
        rm -rf "$work"
        mkdir -p "$work" "corpus/$t"
        dirs=("$work" "corpus/$t")
    fi
    local rc=0
    cargo fuzz run "${flags[@]}" "$t" "${dirs[@]}" -- \
        -max_total_time="$secs" -rss_limit_mb=4096 -timeout=60 -print_final_stats=1 \
        >"target/fuzz-$t.log" 2>&1 || rc=$?
    echo "$rc" >"target/fuzz-$t.rc"
}

jobs_max=${ZKACCEL_FUZZ_JOBS:-$(nproc)}
echo "== fuzz ${targets[*]}: ${secs}s each, $jobs_max at a time"
for t in "${targets[@]}"; do
    rm -f "target/fuzz-$t.rc"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n || true
    done
    run_target "$t" &
done
wait
status=0
for t in "${targets[@]}"; do
    log=target/fuzz-$t.log
    if [ "$(cat "target/fuzz-$t.rc" 2>/dev/null || echo missing)" != 0 ]; then
        tail -n 60 "$log"
        echo "fuzz: $t FAILED (input in fuzz/artifacts/$t/, log in fuzz/$log)" >&2
        status=1
        continue
    fi
    # The last status line (execs, coverage, corpus) and the final counts.
    echo "-- $t: $(grep -E '^#[0-9]+' "$log" | tail -n 1)"
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tr '\n' ' '
    echo
done
[ "$status" = 0 ] || exit "$status"
echo "fuzz: all targets ran ${secs}s without a crash"
