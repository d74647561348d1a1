#!/usr/bin/env bash
# zkaccel's MSM (`Auto`) beside gnark-crypto's MultiExp and arkworks', on
# the same machine in one run, alternating the two processes.
#
#   scripts/gnark-msm.sh bls12-381-g1 16 [pairs]
#
# Curves: bn254-g1, bn254-g2, bls12-381-g1, bls12-381-g2. Each of `pairs`
# (default 5) rounds runs gnark (peers/gnark-msm: 3 timed calls,
# their median) and then `compare msm` (3 interleaved rounds of zkaccel and
# arkworks, medians, the result checked equal to arkworks'); the table gives
# the medians over the pairs. gnark-crypto comes from the Go module proxy
# (the version is pinned in peers/gnark-msm/go.mod); its inputs are
# its own random bases and scalars of the same size and width (an MSM's
# time does not depend on the values). Set ZKACCEL_KERNEL to time zkaccel's
# fallback kernels (adx, portable).
set -euo pipefail
cd "$(dirname "$0")/.."
curve=${1:?usage: scripts/gnark-msm.sh CURVE LOG_N [PAIRS]}
log_n=${2:?usage: scripts/gnark-msm.sh CURVE LOG_N [PAIRS]}
pairs=${3:-5}
case $curve in
bn254-g1 | bn254-g2 | bls12-381-g1 | bls12-381-g2) ;;
*) echo "gnark-msm.sh: unknown curve $curve (bn254-g1, bn254-g2, bls12-381-g1, bls12-381-g2)" >&2; exit 2 ;;
esac
gcurve=${curve%-g?}
group=${curve##*-}

bin=target/peers/gnark-msm
mkdir -p target/peers
(cd peers/gnark-msm && go build -o "../../$bin" .)
cargo build --release --quiet --example compare

grep -m1 'model name' /proc/cpuinfo || true
echo "kernel-relevant CPU flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'adx|bmi2|avx2|avx512f|avx512ifma' | tr '\n' ' ')"
echo "ZKACCEL_KERNEL=${ZKACCEL_KERNEL:-(unset: the best this CPU runs)}; commit $(git rev-parse --short HEAD)"

gn=() zk=() ark=()
for ((i = 0; i < pairs; i++)); do
    gn+=("$("$bin" -curve "$gcurve" -group "$group" -log-n "$log_n" -rounds 3)")
    json=$(./target/release/examples/compare msm --curve "$curve" --log-n "$log_n" --rounds 3 --json)
    if ! grep -q '"results_equal": true' <<<"$json"; then
        echo "zkaccel's MSM differs from arkworks': $json" >&2
        exit 1
    fi
    zk+=("$(sed -E 's/.*"zkaccel_ms": ([0-9.]+).*/\1/' <<<"$json")")
    ark+=("$(sed -E 's/.*"arkworks_ms": ([0-9.]+).*/\1/' <<<"$json")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
g=$(median "${gn[@]}") z=$(median "${zk[@]}") a=$(median "${ark[@]}")
echo "msm on $curve, 2^$log_n full-width scalars ($pairs alternating pairs, medians)"
awk -v g="$g" -v z="$z" -v a="$a" 'BEGIN {
    printf "  zkaccel Auto      %9.2f ms\n", z
    printf "  gnark-crypto      %9.2f ms   its time / zkaccel'"'"'s: %.2fx\n", g, g / z
    printf "  arkworks 0.6      %9.2f ms   its time / zkaccel'"'"'s: %.2fx\n", a, a / z
}'
