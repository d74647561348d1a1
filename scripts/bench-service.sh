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
# 2. latency, open loop, at 50%, 80% and 90% of each setting's own capacity (the better
#    local one, redis:2, cpp:2, proverServer; requests due at a fixed rate for
#    ZKACCEL_BENCH_SECONDS, default 20; latency counted from when each was due), p50/p90/p99.
# 3. Scale-out over Redis (redis-server from scripts/redis-server.sh): `serve --redis` and 1 or 2
#    `worker` processes (one proof each, the cores split between them), capacity as in 1,
#    alternating. On one machine this shows the path's cost, not a scale-out: two workers on
#    2 cores are what `--workers 2` is in one process.
# 4. With RAPIDSNARK_SERVER=/path/to/proverServer (rapidsnark's server, built by you: see
#    docs/service.md) and the circuit's C++ generator: its capacity in the same alternation,
#    one request at a time (scripts/rapidsnark-server-load.py: it cannot take two), every
#    proof verified.
# 5. With RAPIDSNARK=/path/to/rapidsnark/prover and circom's C++ generator
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

PARTS=${ZKACCEL_BENCH_PARTS:-local redis rapidsnark}
CORES=$(nproc)
PID= EXTRA=()
# Stops what start* started (proverServer dies of the signal: its status is not an error).
stop() {
    if [ -n "$PID" ]; then kill -TERM "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true; fi
    for p in "${EXTRA[@]}"; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
    PID= EXTRA=()
}
trap stop EXIT
# Starts the service on a free port; sets URL.
start() { # dir workers [serve's options]
    local log=$1/serve.log
    "$ZK" serve --circuit "c=$1/circuit.zkey,$1/circuit.wasm" --listen 127.0.0.1:0 --workers "$2" \
        --queue 256 "${@:3}" >"$log" 2>&1 &
    PID=$!
    for _ in $(seq 600); do
        grep -q "listening on" "$log" 2>/dev/null && break
        sleep 0.1
    done
    URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
    [ -n "$URL" ] || { echo "the service did not start: $(cat "$log")" >&2; exit 1; }
}
# Waits for a line matching $2 in file $1.
await_line() { for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return; sleep 0.1; done; echo "no '$2' in $1: $(cat "$1")" >&2; exit 1; }
# redis-server on a free port, N worker processes of CORES/N threads each, and a
# `serve --redis` front end; sets URL.
start_redis() { # dir workers
    local port
    port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
    "$REDIS_BIN" --port "$port" --bind 127.0.0.1 --save "" --appendonly no >"$1/redis.log" 2>&1 &
    EXTRA+=($!)
    await_line "$1/redis.log" "Ready to accept"
    for ((k = 0; k < $2; k++)); do
        "$ZK" worker --redis "redis://127.0.0.1:$port" --circuit "c=$1/circuit.zkey,$1/circuit.wasm" \
            --workers 1 --threads $((CORES / $2 > 0 ? CORES / $2 : 1)) >"$1/worker-$k.log" 2>&1 &
        EXTRA+=($!)
        await_line "$1/worker-$k.log" "worker consuming"
    done
    "$ZK" serve --redis "redis://127.0.0.1:$port" --circuit c --listen 127.0.0.1:0 --queue 256 >"$1/front.log" 2>&1 &
    PID=$!
    await_line "$1/front.log" "listening on"
    URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$1/front.log")
}
# Starts setting KIND:N (local:N = one process with --workers N; cpp:N = the same with
# circom's C++ generator for the witness (--witness-bin), as proverServer; redis:N = N worker
# processes behind `serve --redis`; rapidsnark:1 = proverServer); sets MODE.
start_setting() { # dir setting
    local n=${2#*:}
    MODE=${2%%:*}
    case $MODE in
    local) start "$1" "$n" ;;
    cpp) start "$1" "$n" --witness-bin "c=$1/circuit_cpp/circuit" ;;
    redis) start_redis "$1" "$n" ;;
    rapidsnark) start_rapidsnark "$1" ;;
    esac
}
# rapidsnark's proverServer in a scratch folder: the key as build/../circuit.zkey, the
# circuit's C++ generator as ./build/circuit (where proverServer runs it from); sets URL.
start_rapidsnark() { # dir
    local w=$1/rs-server port
    rm -rf "$w" && mkdir -p "$w/build"
    ln -s "$1/circuit.zkey" "$w/circuit.zkey"
    ln -s "$1/circuit_cpp/circuit" "$w/build/circuit"
    ln -s "$1/circuit_cpp/circuit.dat" "$w/build/circuit.dat"
    port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
    (cd "$w" && exec "$RAPIDSNARK_SERVER" "$port" circuit.zkey >server.log 2>&1) &
    PID=$!
    URL=http://127.0.0.1:$port
    for _ in $(seq 600); do curl -sf "$URL/status" >/dev/null 2>&1 && return; sleep 0.1; done
    echo "proverServer did not start: $(tail -5 "$w/server.log")" >&2
    exit 1
}
# A capacity run in the current MODE: JSON with proofs_per_second and invalid.
capacity_run() { # dir requests
    if [ "$MODE" != rapidsnark ]; then
        load "$1" --clients 4 --requests "$2"
        return
    fi
    local out=$1/rs-server/proofs r bad=0
    r=$(python3 scripts/rapidsnark-server-load.py "$URL" circuit "$1/input.json" "$2" "$out")
    for ((k = 0; k < $2; k++)); do
        "$ZK" verify "$1/vkey.json" "$out/public-$k.json" "$out/proof-$k.json" >/dev/null 2>&1 || bad=$((bad + 1))
    done
    python3 -c "import json,sys; r=json.loads(sys.argv[1]); r['invalid']=$bad+r['failed']; print(json.dumps(r))" "$r"
}
# The median of ROUNDS capacity runs per setting, the settings alternating (forward, then
# backward); prints "setting: median (runs)".
capacities() { # dir settings...
    local dir=$1
    shift
    local -A runs=()
    for ((i = 0; i < ROUNDS; i++)); do
        local order=("$@")
        [ $((i % 2)) = 1 ] && order=($(printf '%s\n' "$@" | tac))
        for setting in "${order[@]}"; do
            start_setting "$dir" "$setting"
            capacity_run "$dir" 4 >/dev/null # warm-up, untimed
            r=$(capacity_run "$dir" "$REQUESTS")
            stop
            [ "$(field invalid "$r")" = 0 ] || { echo "$setting: invalid proofs: $r" >&2; exit 1; }
            runs[$setting]="${runs[$setting]:-} $(field proofs_per_second "$r")"
        done
    done
    for setting in "$@"; do echo "$setting: $(median ${runs[$setting]}) (${runs[$setting]# })"; done
}
# Latency, open loop, at 50/80/90% of `capacity` in setting `setting` (requests due at a
# fixed rate for SECONDS_AT; latency from when each was due).
latency() { # dir setting capacity
    local dir=$1 setting=$2 capacity=$3 pct rate n r
    start_setting "$dir" "$setting"
    capacity_run "$dir" 4 >/dev/null # warm-up, untimed
    echo "| $setting | load | rate | proofs/s | p50 | p90 | p99 | p99/p50 | 503s |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
    for pct in 50 80 90; do
        rate=$(python3 -c "print(round($capacity * $pct / 100, 3))")
        n=$(python3 -c "print(max(10, int($rate * $SECONDS_AT)))")
        r=$(latency_run "$dir" "$rate" "$n")
        [ "$(field invalid "$r")" = 0 ] || { echo "$setting: invalid proofs: $r" >&2; exit 1; }
        python3 - "$r" "$pct" "$rate" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
print(f"| | {sys.argv[2]}% | {sys.argv[3]}/s | {r['proofs_per_second']:.2f} | {r['p50_ms']:.0f} ms | "
      f"{r['p90_ms']:.0f} ms | {r['p99_ms']:.0f} ms | {r['p99_ms'] / r['p50_ms']:.2f} | {r.get('rejected_503', 0)} |")
EOF
    done
    stop
}
# One open-loop run in the current MODE: JSON with the latencies and invalid.
latency_run() { # dir rate requests
    if [ "$MODE" != rapidsnark ]; then
        load "$1" --clients 32 --rate "$2" --requests "$3" --duration $((SECONDS_AT + 30))
        return
    fi
    local out=$1/rs-server/proofs r bad=0
    r=$(python3 scripts/rapidsnark-server-load.py "$URL" circuit "$1/input.json" "$3" "$out" "$2")
    for ((k = 0; k < $3; k++)); do
        "$ZK" verify "$1/vkey.json" "$out/public-$k.json" "$out/proof-$k.json" >/dev/null 2>&1 || bad=$((bad + 1))
    done
    python3 -c "import json,sys; r=json.loads(sys.argv[1]); r['invalid']=$bad+r['failed']; print(json.dumps(r))" "$r"
}
REDIS_BIN=
if [[ " $PARTS " == *" redis "* ]]; then
    REDIS_BIN=$(scripts/redis-server.sh | tail -1) || REDIS_BIN=
fi
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
    settings=()
    if [[ " $PARTS " == *" local "* ]]; then settings+=(local:1 local:2); fi
    if [ -n "$REDIS_BIN" ]; then
        settings+=(redis:1 redis:2)
    elif [[ " $PARTS " == *" redis "* ]]; then
        echo "!! SKIP: no redis-server (scripts/redis-server.sh): the Redis figures are not measured"
    fi
    if [[ " $PARTS " == *" rapidsnark "* ]] && [ -n "${RAPIDSNARK_SERVER:-}" ] && [ -x "$dir/circuit_cpp/circuit" ]; then
        settings+=(cpp:2 rapidsnark:1)
    elif [[ " $PARTS " == *" rapidsnark "* ]]; then
        echo "!! SKIP: rapidsnark's proverServer not measured (RAPIDSNARK_SERVER=/path/to/proverServer and the circuit's C++ generator, ZKACCEL_CIRCOM_CPP=1 scripts/circom-circuit.sh, are needed)"
    fi
    echo "capacity, closed loop ($REQUESTS proofs, 4 clients; proverServer: 1, it proves one at a time), median of $ROUNDS, alternating:"
    caps=$(capacities "$dir" "${settings[@]}")
    echo "$caps"
    c1=$(echo "$caps" | sed -n 's/^local:1: \([^ ]*\).*/\1/p') c2=$(echo "$caps" | sed -n 's/^local:2: \([^ ]*\).*/\1/p')
    c1=${c1:-0} c2=${c2:-0}
    # Latency in each setting measured (the better of local:1 and local:2), at shares of its
    # own capacity.
    best=local:1 capacity=$c1
    if python3 -c "import sys; sys.exit(0 if $c2 > $c1 else 1)"; then best=local:2 capacity=$c2; fi
    for setting in "${settings[@]}"; do
        case $setting in local:*) [ "$setting" = "$best" ] || continue ;; redis:1) continue ;; esac
        cap=$(echo "$caps" | sed -n "s/^$setting: \([^ ]*\).*/\1/p")
        latency "$dir" "$setting" "$cap"
    done
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
