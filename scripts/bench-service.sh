#!/usr/bin/env bash
# The proving service's capacity and latency on this machine (docs/service.md):
#
#   scripts/bench-service.sh [KIND:SIZE ...]     default: sha256:2 poseidon:120 (about 2^16
#                                                 constraints each; scripts/circom-circuit.sh)
#
# For each circuit, `zkaccel-prover serve` (loopback, key and wasm loaded once) is driven by
# zkaccel-load with input.json bodies (the witness in the service), every proof verified:
# 1. capacity, closed loop (4 clients, ZKACCEL_BENCH_REQUESTS proofs, default 40) with
#    --workers 1 (one proof on all cores) and --workers 2 (two proofs, the cores split), the
#    two alternating for ZKACCEL_BENCH_ROUNDS rounds (default 3); the median of each;
# 2. latency, open loop, at 50%, 80% and 90% of the better setting's capacity (requests due
#    at a fixed rate for ZKACCEL_BENCH_SECONDS, default 20; latency counted from when each
#    was due), p50/p90/p99.
# 3. With RAPIDSNARK=/path/to/rapidsnark/prover and circom's C++ generator
#    (ZKACCEL_CIRCOM_CPP=1 scripts/circom-circuit.sh), rapidsnark's one-shot path run back to
#    back (generator, then `prover`: key loaded per proof) for its proofs per second. That is
#    NOT rapidsnark's proverServer (it needs pistache and a per-circuit build; see
#    docs/service.md): the figure says what a rapidsnark user without a server gets.
# Benchmark keys from a fixed seed: NOT for production.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh
ROUNDS=${ZKACCEL_BENCH_ROUNDS:-3}
REQUESTS=${ZKACCEL_BENCH_REQUESTS:-40}
SECONDS_AT=${ZKACCEL_BENCH_SECONDS:-20}
OUT=$ROOT/target/bench-witness
cargo build --release --quiet -p zkaccel-circom --bin zkaccel-prover --bin zkaccel-load
ZK=$ROOT/target/release/zkaccel-prover
LOAD=$ROOT/target/release/zkaccel-load
machine_info
echo

PID=
stop() { [ -n "$PID" ] && kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; PID=; }
trap stop EXIT
# Starts the service on a free port; sets URL.
start() { # dir workers
    local log=$1/serve.log
    "$ZK" serve --circuit "c=$1/circuit.zkey,$1/circuit.wasm" --listen 127.0.0.1:0 --workers "$2" \
        --queue 256 >"$log" 2>&1 &
    PID=$!
    for _ in $(seq 600); do
        grep -q "listening on" "$log" 2>/dev/null && break
        sleep 0.1
    done
    URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
    [ -n "$URL" ] || { echo "the service did not start: $(cat "$log")" >&2; exit 1; }
}
load() { # dir args...
    local dir=$1
    shift
    "$LOAD" --url "$URL/v1/prove/c" --body "$dir/input.json" --vkey "$dir/vkey.json" --json "$@"
}
field() { python3 -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$2" "$1"; }

for c in ${@:-sha256:2 poseidon:120}; do
    kind=${c%%:*} size=${c#*:}
    dir=$OUT/$kind-$size
    [ -f "$dir/circuit.zkey" ] || scripts/circom-circuit.sh "$kind" "$size" "$dir" >/dev/null
    "$ZK" export-vkey "$dir/circuit.zkey" "$dir/vkey.json"
    echo "== $kind $size: $("$ZK" info "$dir/circuit.zkey" | sed -n 1p)"
    declare -A cap=()
    for w in 1 2; do cap[$w]=; done
    for ((i = 0; i < ROUNDS; i++)); do
        for w in $([ $((i % 2)) = 0 ] && echo 1 2 || echo 2 1); do
            start "$dir" "$w"
            load "$dir" --clients 2 --requests 4 >/dev/null # warm-up, untimed
            r=$(load "$dir" --clients 4 --requests "$REQUESTS")
            stop
            [ "$(field invalid "$r")" = 0 ] || { echo "invalid proofs: $r" >&2; exit 1; }
            cap[$w]="${cap[$w]} $(field proofs_per_second "$r")"
        done
    done
    c1=$(median ${cap[1]}) c2=$(median ${cap[2]})
    echo "capacity, closed loop (4 clients, $REQUESTS proofs, median of $ROUNDS): --workers 1: $c1 proofs/s (${cap[1]# }); --workers 2: $c2 proofs/s (${cap[2]# })"
    best=1 capacity=$c1
    if python3 -c "import sys; sys.exit(0 if $c2 > $c1 else 1)"; then best=2 capacity=$c2; fi
    start "$dir" "$best"
    load "$dir" --clients 2 --requests 4 >/dev/null
    echo "| load (--workers $best) | rate | proofs/s | p50 | p90 | p99 | p99/p50 | 503s |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    for pct in 50 80 90; do
        rate=$(python3 -c "print(round($capacity * $pct / 100, 3))")
        n=$(python3 -c "print(max(10, int($rate * $SECONDS_AT)))")
        r=$(load "$dir" --clients 32 --rate "$rate" --requests "$n" --duration $((SECONDS_AT + 30)))
        [ "$(field invalid "$r")" = 0 ] || { echo "invalid proofs: $r" >&2; exit 1; }
        python3 - "$r" "$pct" "$rate" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
print(f"| {sys.argv[2]}% | {sys.argv[3]}/s | {r['proofs_per_second']:.2f} | {r['p50_ms']:.0f} ms | "
      f"{r['p90_ms']:.0f} ms | {r['p99_ms']:.0f} ms | {r['p99_ms'] / r['p50_ms']:.2f} | {r['rejected_503']} |")
EOF
    done
    stop
    cpp=$dir/circuit_cpp/circuit
    if [ -n "${RAPIDSNARK:-}" ] && [ -x "$cpp" ]; then
        n=10
        t0=$(date +%s.%N)
        for ((k = 0; k < n; k++)); do
            "$cpp" "$dir/input.json" "$dir/rs-svc.wtns" >/dev/null
            "$RAPIDSNARK" "$dir/circuit.zkey" "$dir/rs-svc.wtns" "$dir/rs-svc.proof.json" "$dir/rs-svc.public.json" >/dev/null
        done
        t1=$(date +%s.%N)
        "$ZK" verify "$dir/vkey.json" "$dir/rs-svc.public.json" "$dir/rs-svc.proof.json" >/dev/null
        echo "rapidsnark one-shot (C++ generator + prover, key loaded per proof, $n back to back): $(python3 -c "print(round($n / ($t1 - $t0), 2))") proofs/s"
    fi
    echo
done
