#!/usr/bin/env bash
# zkaccel-prover against rapidsnark's `prover` command on the same .zkey and .wtns, whole
# processes (key load, witness read, proof, JSON out), interleaved, medians.
#
#   RAPIDSNARK=/path/to/rapidsnark/prover scripts/bench-circom.sh [BLOCKS ...]
#
# BLOCKS (default: 1 6 24) are SHA-256 blocks of zkaccel's arkworks SHA-256 circuit,
# exported as a snarkjs zkey and wtns by `zkaccel-prover export-example` (about 41k
# constraints a block: 1 -> domain 2^16, 6 -> 2^18, 24 -> 2^20). The key comes from
# arkworks' setup with a fixed seed instead of a powers-of-tau ceremony (a 2^20 ceremony
# in snarkjs takes hours): a benchmark key, NOT for production; rapidsnark, snarkjs and
# zkaccel all accept it. rapidsnark is not built by this project: build it from its
# public repository (iden3/rapidsnark, `make host`) and point RAPIDSNARK at its
# `prover`. Without RAPIDSNARK only zkaccel-prover is timed.
#
# ZKACCEL_BENCH_CIRCUIT=circom takes circomlib's SHA-256 compiled by circom 2 instead
# (scripts/circom-circuit.sh sha256: BLOCKS 2 -> 2^16, 8 -> 2^18, 33 -> 2^20; the witness from
# circom's own generator, the key from `zkaccel-prover test-setup`).
#
# Every proof is checked with `zkaccel-prover verify` against the key's vkey before its
# time counts (and with snarkjs too when ZKACCEL_SNARKJS names it). Wall time and peak
# RSS come from /usr/bin/time. ZKACCEL_BENCH_ROUNDS (default 5) rounds; the order of the
# two provers alternates each round. ZKACCEL_KERNEL=adx or portable measures zkaccel's
# fallback kernels on a CPU with AVX-512 IFMA.
#
# With the key loaded once: RAPIDSNARK_LOADED names a program that takes "circuit.zkey
# witness.wtns proof.json public.json ROUNDS", loads the key once, proves ROUNDS times and
# prints "median prove X ms" (for rapidsnark, a few lines of C++ over its library's
# groth16_prover_create and groth16_prover_prove; not built here). zkaccel's side is the
# example prove_loaded, which has that interface. ZKACCEL_BENCH_ROUNDS processes of each,
# alternating, ZKACCEL_LOADED_ROUNDS (default 3) proofs a process; the median of the
# processes' medians. Proofs checked as above.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ZKACCEL_BENCH_ROUNDS:-5}
OUT=$PWD/target/bench-circom
mkdir -p "$OUT"
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package: time)" >&2; exit 2; }
cargo build --release --quiet -p zkaccel-circom --bin zkaccel-prover
cargo build --release --quiet --example prove_loaded
ZK=$PWD/target/release/zkaccel-prover
ZK_LOADED=$PWD/target/release/examples/prove_loaded
LOADED_ROUNDS=${ZKACCEL_LOADED_ROUNDS:-3}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'adx|bmi2|avx2|avx512f|avx512ifma' | tr '\n' ' ')
echo "CPU: $cpu | flags: $flags| $(nproc) threads | $(free -g | awk '/Mem:/{print $2}') GiB"
[ -n "${RAPIDSNARK:-}" ] && echo "rapidsnark: $RAPIDSNARK"
echo

# The proof a run wrote must verify (zkaccel-prover verify; snarkjs too with ZKACCEL_SNARKJS).
check_proof() { # name dir
    local name=$1 dir=$2
    "$ZK" verify "$dir/vkey.json" "$dir/$name.public.json" "$dir/$name.proof.json" >/dev/null ||
        { echo "$name wrote a proof that does not verify" >&2; exit 1; }
    if [ -n "${ZKACCEL_SNARKJS:-}" ]; then
        "$ZKACCEL_SNARKJS" groth16 verify "$dir/vkey.json" "$dir/$name.public.json" \
            "$dir/$name.proof.json" >/dev/null || { echo "snarkjs rejects $name's proof" >&2; exit 1; }
    fi
}

# One timed run: prints "seconds peak_kib"; the proof is checked before the time is used.
run() { # name zkey wtns dir cmd...
    local name=$1 zkey=$2 wtns=$3 dir=$4
    shift 4
    rm -f "$dir/$name.proof.json" "$dir/$name.public.json"
    /usr/bin/time -f "%e %M" -o "$dir/$name.time" "$@" "$zkey" "$wtns" \
        "$dir/$name.proof.json" "$dir/$name.public.json" >/dev/null 2>"$dir/$name.log" ||
        { echo "$name failed: $(tail -3 "$dir/$name.log")" >&2; exit 1; }
    check_proof "$name" "$dir"
    cat "$dir/$name.time"
}

# One process with the key loaded once: prints its median milliseconds a proof.
loaded() { # name dir cmd...
    local name=$1 dir=$2
    shift 2
    rm -f "$dir/$name.proof.json" "$dir/$name.public.json"
    "$@" "$dir/circuit.zkey" "$dir/witness.wtns" "$dir/$name.proof.json" "$dir/$name.public.json" \
        "$LOADED_ROUNDS" >"$dir/$name.log" 2>&1 ||
        { echo "$name failed: $(tail -3 "$dir/$name.log")" >&2; exit 1; }
    check_proof "$name" "$dir"
    sed -n 's/^median prove \([0-9.]*\) ms$/\1/p' "$dir/$name.log"
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

printf '| circuit | domain | zkaccel-prover | peak RSS | rapidsnark prover | peak RSS | rapidsnark / zkaccel |\n'
printf '|---|---:|---:|---:|---:|---:|---:|\n'
DEFAULT_BLOCKS="1 6 24"
loaded_rows=()
[ "${ZKACCEL_BENCH_CIRCUIT:-arkworks}" = circom ] && DEFAULT_BLOCKS="2 8 33"
for blocks in "${@:-$DEFAULT_BLOCKS}"; do
    for b in $blocks; do
        if [ "${ZKACCEL_BENCH_CIRCUIT:-arkworks}" = circom ]; then
            name="circomlib SHA-256, $b blocks"
            dir=$OUT/circom-sha256-$b
            [ -f "$dir/circuit.zkey" ] || scripts/circom-circuit.sh sha256 "$b" "$dir" 2>/dev/null
        else
            name="SHA-256, $b blocks"
            dir=$OUT/sha256-$b
            [ -f "$dir/circuit.zkey" ] || "$ZK" export-example sha256 "$b" "$dir" 2>/dev/null
        fi
        "$ZK" export-vkey "$dir/circuit.zkey" "$dir/vkey.json"
        info=$("$ZK" info "$dir/circuit.zkey")
        echo "$name: $info" | head -1 >&2
        log2=$(echo "$info" | sed -n 's/.*domain 2^\([0-9]*\).*/\1/p')
        kernels=$(echo "$info" | tail -1)
        : >"$dir/zk.times"
        : >"$dir/rs.times"
        for ((i = 0; i < ROUNDS; i++)); do
            if ((i % 2 == 0)); then
                run zk "$dir/circuit.zkey" "$dir/witness.wtns" "$dir" "$ZK" >>"$dir/zk.times"
                [ -n "${RAPIDSNARK:-}" ] && run rs "$dir/circuit.zkey" "$dir/witness.wtns" "$dir" "$RAPIDSNARK" >>"$dir/rs.times"
            else
                [ -n "${RAPIDSNARK:-}" ] && run rs "$dir/circuit.zkey" "$dir/witness.wtns" "$dir" "$RAPIDSNARK" >>"$dir/rs.times"
                run zk "$dir/circuit.zkey" "$dir/witness.wtns" "$dir" "$ZK" >>"$dir/zk.times"
            fi
        done
        zt=$(cut -d' ' -f1 "$dir/zk.times" | median)
        zm=$(cut -d' ' -f2 "$dir/zk.times" | median)
        if [ -s "$dir/rs.times" ]; then
            rt=$(cut -d' ' -f1 "$dir/rs.times" | median)
            rm_=$(cut -d' ' -f2 "$dir/rs.times" | median)
            printf '| %s | 2^%s | %s s | %d MiB | %s s | %d MiB | %.2fx |\n' \
                "$name" "$log2" "$zt" $((zm / 1024)) "$rt" $((rm_ / 1024)) "$(awk -v a="$rt" -v b="$zt" 'BEGIN { print a / b }')"
        else
            printf '| %s | 2^%s | %s s | %d MiB | - | - | - |\n' "$name" "$log2" "$zt" $((zm / 1024))
        fi
        if [ -n "${RAPIDSNARK_LOADED:-}" ]; then
            : >"$dir/zkl.times"
            : >"$dir/rsl.times"
            for ((i = 0; i < ROUNDS; i++)); do
                if ((i % 2 == 0)); then
                    loaded zkl "$dir" "$ZK_LOADED" >>"$dir/zkl.times"
                    loaded rsl "$dir" "$RAPIDSNARK_LOADED" >>"$dir/rsl.times"
                else
                    loaded rsl "$dir" "$RAPIDSNARK_LOADED" >>"$dir/rsl.times"
                    loaded zkl "$dir" "$ZK_LOADED" >>"$dir/zkl.times"
                fi
            done
            zl=$(median <"$dir/zkl.times")
            rl=$(median <"$dir/rsl.times")
            loaded_rows+=("$(printf '| %s | 2^%s | %s ms | %s ms | %.2fx |' "$name" "$log2" "$zl" "$rl" \
                "$(awk -v a="$rl" -v b="$zl" 'BEGIN { print a / b }')")")
        fi
    done
done
if [ ${#loaded_rows[@]} -gt 0 ]; then
    echo
    echo "Key loaded once, per proof ($LOADED_ROUNDS proofs a process, $ROUNDS processes each):"
    printf '| circuit | domain | zkaccel prove_loaded | rapidsnark, key loaded | rapidsnark / zkaccel |\n'
    printf '|---|---:|---:|---:|---:|\n'
    printf '%s\n' "${loaded_rows[@]}"
fi
echo
echo "zkaccel $kernels"
