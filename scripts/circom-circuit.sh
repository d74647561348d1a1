#!/usr/bin/env bash
# circom-compiled benchmark circuits, compiled by circom 2 (npm's circom2, WebAssembly):
#
#   scripts/circom-circuit.sh sha256 BLOCKS DIR    circomlib's SHA-256 of BLOCKS 512-bit blocks
#                                                  (mostly bits: about 30k constraints a block;
#                                                  2 -> domain 2^16, 8 -> 2^18, 33 -> 2^20)
#   scripts/circom-circuit.sh poseidon N DIR       a chain of N circomlib Poseidon(2) hashes (a
#                                                  dense witness: 517 constraints a hash;
#                                                  120 -> 2^16, 480 -> 2^18, 1000 -> 2^19)
#
# Into DIR: circuit.r1cs, circuit.wasm (circom's WebAssembly witness calculator), input.json,
# witness.wtns (computed by circom's own generate_witness.js), and a key from
# `zkaccel-prover test-setup` (arkworks' setup from a fixed seed, no powers-of-tau
# ceremony: a 2^20 `powersoftau prepare phase2` in snarkjs takes hours) in
# DIR/circuit.zkey and DIR/vkey.json. A benchmark key, NOT for production.
# ZKACCEL_PROVER_BIN names the zkaccel-prover whose test-setup makes the key (default: the
# release build, built first). With ZKACCEL_CIRCOM_CPP=1 also circom's C++ witness generator, built into DIR/circuit_cpp/
# (needs g++, make, GMP, nlohmann-json and nasm: Debian's libgmp-dev, nlohmann-json3-dev, nasm).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
kind=${1:?sha256 or poseidon}
size=${2:?size}
dir=$(realpath -m "${3:?out dir}")
./scripts/circom-fixtures.sh --install >/dev/null
# ZKACCEL_PROVER_BIN: a zkaccel-prover already built (only its test-setup
# runs here); else the release one is built.
if [ -z "${ZKACCEL_PROVER_BIN:-}" ]; then
    cargo build --release --quiet -p zkaccel-circom --bin zkaccel-prover
    ZKACCEL_PROVER_BIN=$ROOT/target/release/zkaccel-prover
fi
TOOLS=$ROOT/.tools/node
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $kind in
sha256)
    ((size >= 2)) || { echo "BLOCKS must be at least 2" >&2; exit 2; }
    # circomlib pads the message with a 1 bit and its 64-bit length: 512 (B - 1) - 64 bits
    # make B blocks.
    nbits=$((512 * (size - 1) - 64))
    cat >"$work/circuit.circom" <<C
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
    ;;
poseidon)
    ((size >= 1)) || { echo "N must be at least 1" >&2; exit 2; }
    cat >"$work/circuit.circom" <<C
pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
// h = H(...H(H(x, y), y)..., y), N times: every signal a full field element.
template Main(n) {
    signal input x; signal input y; signal output h;
    component p[n]; signal s[n + 1];
    s[0] <== x;
    for (var i = 0; i < n; i++) {
        p[i] = Poseidon(2); p[i].inputs[0] <== s[i]; p[i].inputs[1] <== y; s[i + 1] <== p[i].out;
    }
    h <== s[n];
}
component main {public [y]} = Main($size);
C
    echo '{"x": "12345678901234567890", "y": "0x2a"}' >"$work/input.json"
    ;;
*) echo "unknown circuit $kind (sha256 or poseidon)" >&2; exit 2 ;;
esac
rel=$(realpath --relative-to="$TOOLS" "$work")
(cd "$TOOLS" && node --max-old-space-size=16384 node_modules/circom2/cli.js "$rel/circuit.circom" --r1cs --wasm --prime bn128 -l node_modules -o "$rel" >/dev/null)
node "$work/circuit_js/generate_witness.js" "$work/circuit_js/circuit.wasm" "$work/input.json" "$dir/witness.wtns" >/dev/null
cp "$work/circuit.r1cs" "$dir/circuit.r1cs"
cp "$work/input.json" "$dir/input.json"
cp "$work/circuit_js/circuit.wasm" "$dir/circuit.wasm"
if [ "${ZKACCEL_CIRCOM_CPP:-0}" = 1 ]; then
    (cd "$TOOLS" && node --max-old-space-size=16384 node_modules/circom2/cli.js "$rel/circuit.circom" --c --prime bn128 -l node_modules -o "$rel" >/dev/null)
    make -s -C "$work/circuit_cpp" >/dev/null 2>&1 || make -C "$work/circuit_cpp" >&2
    rm -rf "$dir/circuit_cpp" && mkdir -p "$dir/circuit_cpp"
    cp "$work/circuit_cpp/circuit" "$work/circuit_cpp/circuit.dat" "$dir/circuit_cpp/"
fi
"$ZKACCEL_PROVER_BIN" test-setup "$dir/circuit.r1cs" "$dir"
