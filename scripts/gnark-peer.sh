#!/usr/bin/env bash
# zkaccel beside gnark-crypto and arkworks, on the same machine in one run,
# alternating the processes:
#
#   scripts/gnark-peer.sh msm CURVE LOG_N [PAIRS]   zkaccel's MSM (`Auto`), gnark's MultiExp
#   scripts/gnark-peer.sh ntt LOG_N [PAIRS]         BN254 Fr NTT: NttDomain, gnark's FFT
#
# Curves: bn254-g1, bn254-g2, bls12-381-g1, bls12-381-g2. Each of `pairs`
# (default 5) rounds runs gnark (peers/gnark: 3 timed calls, their median)
# and then `compare msm` or `compare ntt` (3 interleaved rounds of zkaccel
# and arkworks, medians, the result checked equal to arkworks'); the table
# gives the medians over the pairs. gnark-crypto comes from the Go module
# proxy (the version is pinned in peers/gnark/go.mod); its inputs are its
# own random values of the same size and width (neither an MSM's nor an
# NTT's time depends on the values). gnark's NTT is timed natural order in
# and out, as ark-poly's and zkaccel's are (its FFT then a bit reversal),
# and its FFT alone is shown beside. Set ZKACCEL_KERNEL to time zkaccel's
# fallback kernels (avx2, adx, portable): gnark-crypto then runs without
# the same instructions, through Go's GODEBUG switches its CPU detection
# (golang.org/x/sys/cpu) honours: AVX-512 off for avx2 and adx (its FFT
# multiplies vectors with AVX-512 IFMA where the CPU has it), ADX and BMI2
# off too for portable. avx2 is what a CPU without AVX-512 IFMA runs (the
# AVX2 lane NTT for mid sizes); adx turns those lanes off as well. The Go runtime may warn that it does not know "avx512"; the
# switch is for x/sys/cpu, which does.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
usage="usage: scripts/gnark-peer.sh msm CURVE LOG_N [PAIRS] | ntt LOG_N [PAIRS]"
op=${1:?$usage}
shift
case $op in
msm)
    curve=${1:?$usage}
    log_n=${2:?$usage}
    pairs=${3:-5}
    case $curve in
    bn254-g1 | bn254-g2 | bls12-381-g1 | bls12-381-g2) ;;
    *) echo "gnark-peer.sh: unknown curve $curve (bn254-g1, bn254-g2, bls12-381-g1, bls12-381-g2)" >&2; exit 2 ;;
    esac
    gcurve=${curve%-g?}
    group=${curve##*-}
    peer_args=(-op msm -curve "$gcurve" -group "$group")
    compare_args=(msm --curve "$curve")
    what="msm on $curve, 2^$log_n full-width scalars"
    ;;
ntt)
    log_n=${1:?$usage}
    pairs=${2:-5}
    peer_args=(-op ntt)
    compare_args=(ntt)
    what="ntt on BN254 Fr, 2^$log_n, natural order in and out"
    ;;
*) echo "$usage" >&2; exit 2 ;;
esac

bin=target/peers/gnark
mkdir -p target/peers
(cd peers/gnark && go build -o "../../$bin" .)
cargo build --release --quiet --example compare

machine_info
case ${ZKACCEL_KERNEL:-} in
avx2 | adx) peer_godebug=cpu.avx512=off,cpu.avx512ifma=off ;;
portable) peer_godebug=cpu.avx512=off,cpu.avx512ifma=off,cpu.adx=off,cpu.bmi2=off ;;
*) peer_godebug=${GODEBUG-} ;;
esac
echo "gnark-crypto: GODEBUG=${peer_godebug:-(unset: every instruction set its CPU detection finds)}"

gn=() gn_alone=() zk=() ark=()
for ((i = 0; i < pairs; i++)); do
    read -r g g_alone <<<"$(GODEBUG=$peer_godebug "$bin" "${peer_args[@]}" -log-n "$log_n" -rounds 3 2> >(grep -v "unknown cpu feature" >&2))"
    gn+=("$g")
    gn_alone+=("${g_alone:-}")
    json=$(compare_json "${compare_args[@]}" --log-n "$log_n" --rounds 3)
    zk+=("$(json_field zkaccel_ms "$json")")
    ark+=("$(json_field arkworks_ms "$json")")
done
g=$(median "${gn[@]}") z=$(median "${zk[@]}") a=$(median "${ark[@]}")
echo "$what ($pairs alternating pairs, medians)"
awk -v g="$g" -v z="$z" -v a="$a" 'BEGIN {
    printf "  zkaccel           %9.2f ms\n", z
    printf "  gnark-crypto      %9.2f ms   its time / zkaccel'"'"'s: %.2fx\n", g, g / z
    printf "  arkworks 0.6      %9.2f ms   its time / zkaccel'"'"'s: %.2fx\n", a, a / z
}'
if [ "$op" = ntt ]; then
    ga=$(median "${gn_alone[@]}")
    awk -v g="$ga" -v z="$z" 'BEGIN {
        printf "  gnark FFT alone   %9.2f ms   (bit-reversed output) / zkaccel'"'"'s: %.2fx\n", g, g / z
    }'
fi
