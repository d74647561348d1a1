#!/usr/bin/env bash
# Witnesses and input-to-proof, whole processes, interleaved, medians:
#
#   scripts/bench-witness.sh [CIRCUIT ...]      CIRCUIT: sha256:BLOCKS or poseidon:N
#                                               (default sha256:2 sha256:8 poseidon:120 poseidon:480:
#                                               about 2^16 and 2^18 constraints each)
#
# Witness: `zkaccel-prover wtns calculate` against `snarkjs wtns calculate` and, where
# ZKACCEL_CIRCOM_CPP=1 builds it (scripts/circom-circuit.sh), circom's C++ generator; every
# .wtns checked equal to the others' before its time counts.
# Input to proof: `zkaccel-prover fullprove` against `snarkjs groth16 fullprove` and, with
# RAPIDSNARK=/path/to/rapidsnark/prover and the C++ generator, that generator followed by
# rapidsnark's `prover` (one shell command: what a rapidsnark user runs), and zkaccel-prover with
# that generator (`fullprove --witness-bin`); every proof checked
# with `zkaccel-prover verify`. The circuits and keys come from scripts/circom-circuit.sh
# (benchmark keys from a fixed seed, NOT for production) into target/bench-witness/.
# zkaccel-prover's compiled-module cache is warm (a first run fills it before the timed ones:
# the C++ generator is compiled before its runs too). ZKACCEL_BENCH_ROUNDS (default 5) rounds,
# the order rotating each round; wall time and peak
# RSS from /usr/bin/time. ZKACCEL_BENCH_SNARKJS_PROVE=0 leaves snarkjs' fullprove out (it
# takes minutes at 2^18).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source scripts/lib.sh
ROUNDS=${ZKACCEL_BENCH_ROUNDS:-5}
OUT=$ROOT/target/bench-witness
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package: time)" >&2; exit 2; }
SNARKJS=$(./scripts/circom-fixtures.sh --install | tail -1)
cargo build --release --quiet -p zkaccel-circom --bin zkaccel-prover
ZK=$ROOT/target/release/zkaccel-prover
machine_info
echo "node $(node --version); snarkjs $("$SNARKJS" --version 2>/dev/null | head -1 || true)"
[ -n "${RAPIDSNARK:-}" ] && echo "rapidsnark: $RAPIDSNARK"
echo

# One timed run of a shell command: appends "seconds peak_kib" to FILE.
timed() { # file command
    local file=$1
    shift
    /usr/bin/time -f "%e %M" -o "$file.one" sh -c "$*" >"$file.log" 2>&1 ||
        { echo "failed: $* ($(tail -3 "$file.log"))" >&2; exit 1; }
    cat "$file.one" >>"$file"
}

row() { # label file
    local t m
    t=$(cut -d' ' -f1 "$2" | median_stdin)
    m=$(cut -d' ' -f2 "$2" | median_stdin)
    printf '| %s | %s s | %d MiB |' "$1" "$t" $((m / 1024))
}
median_stdin() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "| circuit | command | wall (median) | peak RSS | its time / zkaccel's |"
echo "|---|---|---:|---:|---:|"
for spec in "${@:-sha256:2 sha256:8 poseidon:120 poseidon:480}"; do
    for c in $spec; do
        kind=${c%%:*} size=${c#*:}
        dir=$OUT/$kind-$size
        [ -f "$dir/circuit.zkey" ] || scripts/circom-circuit.sh "$kind" "$size" "$dir" >/dev/null
        "$ZK" export-vkey "$dir/circuit.zkey" "$dir/vkey.json"
        info=$("$ZK" info "$dir/circuit.zkey" | sed -n 1p)
        echo "== $kind $size: $info"
        cpp=$dir/circuit_cpp/circuit
        [ -x "$cpp" ] || cpp=
        # Witnesses, checked equal.
        "$ZK" wtns calculate "$dir/circuit.wasm" "$dir/input.json" "$dir/zk.wtns"
        cmp -s "$dir/zk.wtns" "$dir/witness.wtns" || { echo "zkaccel's witness differs from circom's" >&2; exit 1; }
        "$SNARKJS" wtns calculate "$dir/circuit.wasm" "$dir/input.json" "$dir/sj.wtns" >/dev/null
        cmp -s "$dir/sj.wtns" "$dir/witness.wtns" || { echo "snarkjs' witness differs from circom's" >&2; exit 1; }
        if [ -n "$cpp" ]; then
            "$cpp" "$dir/input.json" "$dir/cpp.wtns" >/dev/null
            cmp -s "$dir/cpp.wtns" "$dir/witness.wtns" || { echo "the C++ generator's witness differs" >&2; exit 1; }
        fi
        rm -f "$dir"/w-*.times "$dir"/p-*.times
        for ((i = 0; i < ROUNDS; i++)); do
            cmds=(zk sj cpp)
            for ((k = 0; k < 3; k++)); do
                case ${cmds[$(((i + k) % 3))]} in
                zk) timed "$dir/w-zk.times" "$ZK wtns calculate $dir/circuit.wasm $dir/input.json $dir/t.wtns" ;;
                sj) timed "$dir/w-sj.times" "$SNARKJS wtns calculate $dir/circuit.wasm $dir/input.json $dir/t.wtns" ;;
                cpp) [ -n "$cpp" ] && timed "$dir/w-cpp.times" "$cpp $dir/input.json $dir/t.wtns" ;;
                esac
            done
        done
        zk=$(cut -d' ' -f1 "$dir/w-zk.times" | median_stdin)
        sj=$(cut -d' ' -f1 "$dir/w-sj.times" | median_stdin)
        { row "witness, zkaccel-prover wtns calculate" "$dir/w-zk.times"; echo " 1.00x |"; } | sed "s/^/| $kind $size /"
        { row "witness, snarkjs wtns calculate" "$dir/w-sj.times"; awk -v a="$sj" -v b="$zk" 'BEGIN { printf " %.2fx |\n", a / b }'; } | sed "s/^/| $kind $size /"
        if [ -n "$cpp" ]; then
            cp_=$(cut -d' ' -f1 "$dir/w-cpp.times" | median_stdin)
            { row "witness, circom C++ generator" "$dir/w-cpp.times"; awk -v a="$cp_" -v b="$zk" 'BEGIN { printf " %.2fx |\n", a / b }'; } | sed "s/^/| $kind $size /"
        fi
        # Input to proof, every proof verified.
        check() { "$ZK" verify "$dir/vkey.json" "$dir/$1.public.json" "$dir/$1.proof.json" >/dev/null || { echo "$1's proof does not verify" >&2; exit 1; }; }
        for ((i = 0; i < ROUNDS; i++)); do
            cmds=(zk zn sj rs)
            for ((k = 0; k < 4; k++)); do
                case ${cmds[$(((i + k) % 4))]} in
                zk) timed "$dir/p-zk.times" "$ZK fullprove $dir/input.json $dir/circuit.wasm $dir/circuit.zkey $dir/zk.proof.json $dir/zk.public.json" && check zk ;;
                zn) [ -n "$cpp" ] && timed "$dir/p-zn.times" "$ZK fullprove --witness-bin $cpp $dir/input.json $dir/circuit.zkey $dir/zn.proof.json $dir/zn.public.json" && check zn ;;
                sj) [ "${ZKACCEL_BENCH_SNARKJS_PROVE:-1}" = 1 ] && timed "$dir/p-sj.times" "$SNARKJS groth16 fullprove $dir/input.json $dir/circuit.wasm $dir/circuit.zkey $dir/sj.proof.json $dir/sj.public.json" && check sj ;;
                rs) [ -n "$cpp" ] && [ -n "${RAPIDSNARK:-}" ] && timed "$dir/p-rs.times" "$cpp $dir/input.json $dir/rs.wtns && $RAPIDSNARK $dir/circuit.zkey $dir/rs.wtns $dir/rs.proof.json $dir/rs.public.json" && check rs ;;
                esac
            done
        done
        zk=$(cut -d' ' -f1 "$dir/p-zk.times" | median_stdin)
        { row "input to proof, zkaccel-prover fullprove" "$dir/p-zk.times"; echo " 1.00x |"; } | sed "s/^/| $kind $size /"
        for peer in zn:"zkaccel-prover fullprove --witness-bin (circom's C++ generator)" sj:"snarkjs groth16 fullprove" rs:"circom C++ generator + rapidsnark prover"; do
            f=$dir/p-${peer%%:*}.times
            [ -s "$f" ] || continue
            t=$(cut -d' ' -f1 "$f" | median_stdin)
            { row "input to proof, ${peer#*:}" "$f"; awk -v a="$t" -v b="$zk" 'BEGIN { printf " %.2fx |\n", a / b }'; } | sed "s/^/| $kind $size /"
        done
        "$ZK" fullprove --timings "$dir/input.json" "$dir/circuit.wasm" "$dir/circuit.zkey" "$dir/zk.proof.json" "$dir/zk.public.json" 2>&1 | grep '^timings' | sed "s/^/$kind $size: /"
    done
done
