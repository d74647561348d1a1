#!/usr/bin/env bash
# The Bulletproofs verification multiproduct on secp256k1: zkaccel's MSM
# (`Auto`) and arkworks' at the term counts a verifier meets, with
# libsecp256k1's own `bench_ecmult` as the anchor.
#
#   scripts/secp256k1-multiproduct.sh [ROUNDS]
#
# Term counts: those of the Bulletproofs verifier that shipped (secp256k1-zkp's
# bulletproofs module, as Grin builds it), one `secp256k1_ecmult_multi_var` call of
# 2n + 2 + P (2 lg + 4 + m) terms for P proofs of m 64-bit values each, n = 64 m,
# lg = log2(n) - 1: the 2n vector generators and two fixed points (the blinding
# and value generators) shared by the batch; per proof 2 lg inner-product points
# L and R, A, S, T1, T2 and the m commitments. 145 (one proof), 276 (two values
# aggregated), 536 (four), 1090 (a batch of 64 single proofs). The seed's note
# says 141 and 270 (and gives 2N + 2 log2 N + 6 for N bits, which is 146 and
# 276), before the implementation's final form. zkaccel and arkworks run
# interleaved in one process (`compare msm --terms`, ROUNDS rounds, default
# 15, medians, the result checked equal to arkworks'), with every core and
# again with one thread (RAYON_NUM_THREADS=1), since libsecp256k1 is
# single-threaded.
#
# libsecp256k1 comes from Debian's source pool (the upstream 0.5.0 release
# tarball, its SHA-256 checked), built with its own CMake defaults (x86-64
# assembly, ECMULT_WINDOW_SIZE 15, -O2) into target/peers/. Its
# `bench_ecmult` prints the time per point of `secp256k1_ecmult_multi_var`
# (its own Strauss/Pippenger choice) at n = i * 2^p points, i = 9..16,
# each with G as one more term; the time at our term counts is read off
# the two sizes around them, interpolated per point, times the terms.
# Run it on an idle machine: the libsecp256k1 run takes a minute or two.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
rounds=${1:-15}
terms=(145 276 536 1090)

version=0.5.0
sha256=13b70138be52d7a23bdf0ea39ed79799a30eb855f2ed82c028357f6432cd536b
dir=target/peers/libsecp256k1-$version
bench=$dir/build/src/bench_ecmult
if [ ! -x "$bench" ]; then
    mkdir -p target/peers
    tarball=target/peers/libsecp256k1_$version.orig.tar.xz
    curl -fsSL -o "$tarball" "http://deb.debian.org/debian/pool/main/libs/libsecp256k1/libsecp256k1_$version.orig.tar.xz"
    echo "$sha256  $tarball" | sha256sum -c --quiet
    tar xJf "$tarball" -C target/peers
    log=target/peers/libsecp256k1-build.log
    if ! { cmake -S "$dir" -B "$dir/build" -DSECP256K1_BUILD_BENCHMARK=ON -DSECP256K1_BUILD_TESTS=OFF \
        -DSECP256K1_BUILD_EXHAUSTIVE_TESTS=OFF -DSECP256K1_BUILD_CTIME_TESTS=OFF &&
        cmake --build "$dir/build" --target bench_ecmult; } >"$log" 2>&1; then
        cat "$log" >&2
        echo "secp256k1-multiproduct.sh: building libsecp256k1's bench_ecmult failed" >&2
        exit 1
    fi
fi
cargo build --release --quiet --example compare

machine_info

# libsecp256k1: microseconds per point (the Avg column) by total points.
table=$(mktemp)
trap 'rm -f "$table"' EXIT
"$bench" | awk -F, '/^ecmult_multi_[0-9]+p_g/ {
    n = $1; sub(/^ecmult_multi_/, "", n); sub(/p_g.*/, "", n)
    gsub(/ /, "", $3); print n + 1, $3 }' >"$table"

secp_ms() {
    awk -v t="$1" '{ n[NR] = $1; us[NR] = $2 }
        END {
            for (i = 1; i < NR; i++) if (n[i] <= t && t <= n[i + 1]) {
                per = us[i] + (us[i + 1] - us[i]) * (t - n[i]) / (n[i + 1] - n[i])
                printf "%.3f %d-%d", per * t / 1000, n[i], n[i + 1]; exit
            }
            print "nan none"
        }' "$table"
}

echo "secp256k1 multiproduct, full-width scalars; zkaccel and arkworks: $rounds interleaved rounds, medians"
printf '| terms | threads | zkaccel Auto | arkworks | arkworks / zkaccel | libsecp256k1 (1 thread) | libsecp256k1 / zkaccel |\n'
printf '|---:|---|---:|---:|---:|---:|---:|\n'
for t in "${terms[@]}"; do
    read -r lib sizes <<<"$(secp_ms "$t")"
    # RAYON_NUM_THREADS=0 is rayon's default: every core.
    for threads in 0 1; do
        json=$(RAYON_NUM_THREADS=$threads compare_json msm --curve secp256k1 --terms "$t" --rounds "$rounds")
        z=$(json_field zkaccel_ms "$json") a=$(json_field arkworks_ms "$json")
        [ "$threads" = 0 ] && threads=all
        awk -v t="$t" -v th="$threads" -v z="$z" -v a="$a" -v l="$lib" -v s="$sizes" 'BEGIN {
            printf "| %d | %s | %.3f ms | %.3f ms | %.2fx | %.3f ms (from %s) | %.2fx |\n", t, th, z, a, a / z, l, s, l / z }'
    done
done
