#!/usr/bin/env bash
# A circom-compiled benchmark circuit: circomlib's SHA-256 of BLOCKS 512-bit blocks
# (about 30k constraints a block: 2 -> domain 2^16, 8 -> 2^18, 33 -> 2^20), compiled
# by circom 2 (npm's circom2, WebAssembly) into DIR/circuit.r1cs, its witness computed
# by circom's own WebAssembly witness generator into DIR/witness.wtns, and a key from
# `zkaccel-prover test-setup` (arkworks' setup from a fixed seed, no powers-of-tau
# ceremony: a 2^20 `powersoftau prepare phase2` in snarkjs takes hours) in
# DIR/circuit.zkey and DIR/vkey.json. A benchmark key, NOT for production.
#
#   scripts/circom-sha256.sh BLOCKS DIR
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
blocks=${1:?blocks}
dir=$(realpath -m "${2:?out dir}")
((blocks >= 2)) || { echo "BLOCKS must be at least 2" >&2; exit 2; }
./scripts/circom-fixtures.sh --install >/dev/null
cargo build --release --quiet -p zkaccel-circom --bin zkaccel-prover
TOOLS=$ROOT/.tools/node
# circomlib pads the message with a 1 bit and its 64-bit length: 512 (B - 1) - 64 bits
# make B blocks.
nbits=$((512 * (blocks - 1) - 64))
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/sha.circom" <<C
pragma circom 2.0.0;
include "circomlib/circuits/sha256/sha256.circom";
template Main(n) {
    signal input in[n]; signal output out[256];
    component s = Sha256(n);
    for (var i = 0; i < n; i++) { s.in[i] <== in[i]; }
    for (var i = 0; i < 256; i++) { out[i] <== s.out[i]; }
}
component main = Main($nbits);
C
# A fixed message: bit i is 1 when i mod 3 is 0.
awk -v n="$nbits" 'BEGIN { printf "{\"in\": ["; for (i = 0; i < n; i++) printf "%s\"%d\"", (i ? "," : ""), (i % 3 == 0); print "]}" }' >"$work/input.json"
rel=$(realpath --relative-to="$TOOLS" "$work")
(cd "$TOOLS" && node --max-old-space-size=16384 node_modules/circom2/cli.js "$rel/sha.circom" --r1cs --wasm --prime bn128 -l node_modules -o "$rel" >/dev/null)
node "$work/sha_js/generate_witness.js" "$work/sha_js/sha.wasm" "$work/input.json" "$dir/witness.wtns"
cp "$work/sha.r1cs" "$dir/circuit.r1cs"
cp "$work/input.json" "$dir/input.json"
"$ROOT/target/release/zkaccel-prover" test-setup "$dir/circuit.r1cs" "$dir"
