#!/usr/bin/env bash
# zkaccel-circom against ark-circom 0.6 on the same snarkjs files, in one process
# (peers/ark-circom: outside the workspace, since ark-circom always builds its wasmer
# witness runtime). For every BN254 fixture in crates/circom/tests/fixtures and every
# exported arkworks SHA-256 circuit asked for, it checks that both loaders decode the
# same key and matrices and that ark-circom's CircomReduction, zkaccel's drop-in
# CircomReduction and CircomProver give byte-identical proofs, then times key loading
# and proving interleaved (medians) and prints a Markdown table.
#
#   scripts/ark-circom-peer.sh                      fixtures, and SHA-256 of 2 blocks
#   ZKACCEL_PEER_SHA_BLOCKS="2 4" scripts/ark-circom-peer.sh
#   ZKACCEL_PEER_ROUNDS=7 ZKACCEL_PEER_PROVE_ROUNDS=5 scripts/ark-circom-peer.sh
#
# Exit status: 0 all equal, 1 a mismatch, 2 a build or file error. The first build
# takes several minutes (wasmer).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=$PWD/target/peers
cargo build --release --quiet --manifest-path peers/ark-circom/Cargo.toml --target-dir "$TARGET"
cargo build --release --quiet -p zkaccel-circom --bin zkaccel-prover
PEER=$TARGET/release/ark-circom-peer

pairs=()
for d in crates/circom/tests/fixtures/*/; do
    # ark-circom reads BN254 keys only.
    if grep -q '"curve": "bn128"' "$d/vkey.json"; then
        pairs+=("${d%/}/circuit.zkey" "${d%/}/witness.wtns")
    fi
done
for b in ${ZKACCEL_PEER_SHA_BLOCKS-2}; do
    dir=$TARGET/sha256-$b
    if [ ! -f "$dir/circuit.zkey" ]; then
        ./target/release/zkaccel-prover export-example sha256 "$b" "$dir"
    fi
    pairs+=("$dir/circuit.zkey" "$dir/witness.wtns")
done
"$PEER" --rounds "${ZKACCEL_PEER_ROUNDS:-5}" --prove-rounds "${ZKACCEL_PEER_PROVE_ROUNDS:-5}" "${pairs[@]}"
