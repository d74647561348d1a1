#!/usr/bin/env bash
# Installs circom's JavaScript tool chain from npm into .tools/node (git-ignored):
# snarkjs, circom2 (circom 2 compiled to WebAssembly) and circomlib, at pinned versions.
#
#   scripts/circom-fixtures.sh --install   only install; prints the snarkjs command
#   scripts/circom-fixtures.sh             install, then regenerate the committed fixtures
#                                          in crates/circom/tests/fixtures/ (a few minutes)
#   scripts/circom-fixtures.sh NAME ...    only those fixtures
#   scripts/circom-fixtures.sh --wasm-only only recompile each fixture's circuit.wasm (the
#                                          keys, witnesses and proofs stay as committed)
#   scripts/circom-fixtures.sh --cpp       build circom's C++ witness generator of each bn128
#                                          fixture into target/circom-cpp/NAME/NAME (needs g++,
#                                          make, GMP, nlohmann-json and nasm: Debian's libgmp-dev,
#                                          nlohmann-json3-dev, nasm, installed with apt-get if
#                                          missing); prints the folder, for ZKACCEL_CIRCOM_CPP
#                                          (the --witness-bin tests); exit 3 if it cannot
#
# Each fixture folder holds what a circom user has (circuit.r1cs, circuit.zkey,
# circuit.wasm, witness.wtns, input.json), what snarkjs writes from them (vkey.json,
# proof.json, public.json), and nothing else. witness.wtns is `snarkjs wtns calculate`'s. The ceremony is a throwaway one with fixed entropy:
# the keys are for tests only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/.tools/node
SNARKJS_VERSION=0.7.6
CIRCOM2_VERSION=0.2.23
CIRCOMLIB_VERSION=2.0.5

install() {
    if [ -x "$TOOLS/node_modules/.bin/snarkjs" ] && [ -x "$TOOLS/node_modules/.bin/circom2" ] &&
        grep -q "\"version\": \"$SNARKJS_VERSION\"" "$TOOLS/node_modules/snarkjs/package.json" 2>/dev/null; then
        return 0
    fi
    command -v npm >/dev/null || { echo "npm is not installed (apt-get install nodejs npm)" >&2; return 1; }
    mkdir -p "$TOOLS"
    (cd "$TOOLS" && [ -f package.json ] || echo '{"name":"zkaccel-circom-tools","private":true}' > "$TOOLS/package.json")
    (cd "$TOOLS" && npm install --no-audit --no-fund --loglevel=error \
        "snarkjs@$SNARKJS_VERSION" "circom2@$CIRCOM2_VERSION" "circomlib@$CIRCOMLIB_VERSION")
}

# What building circom's C++ generators needs, from Debian's packages (as root or with
# sudo); exits 3 with a loud SKIP line when it cannot be had.
cpp_tools() {
    local need=()
    command -v g++ >/dev/null || need+=(g++)
    command -v make >/dev/null || need+=(make)
    command -v nasm >/dev/null || need+=(nasm)
    [ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
    [ -f /usr/include/gmp.h ] || [ -f /usr/include/x86_64-linux-gnu/gmp.h ] || need+=(libgmp-dev)
    [ ${#need[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "!! SKIP: circom's C++ generators: not root and no sudo to install ${need[*]}" >&2; exit 3; }
        sudo="sudo -n"
    fi
    apt_install() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
    apt_install || { $sudo apt-get update -qq && apt_install; } ||
        { echo "!! SKIP: circom's C++ generators: apt-get could not install ${need[*]}" >&2; exit 3; }
}

install
SNARKJS="$TOOLS/node_modules/.bin/snarkjs"
[ "${1:-}" = --cpp ] && cpp_tools
if [ "${1:-}" = "--install" ]; then
    echo "$SNARKJS"
    exit 0
fi

OUT=$ROOT/crates/circom/tests/fixtures
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$TOOLS"   # circom2's WebAssembly sees this folder and its parents
mkdir -p "$WORK/src"

# name  curve  ptau-power  circuit  input
write_circuit() { cat > "$WORK/src/$1.circom"; }
write_circuit poseidon <<'C'
pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
// A Poseidon hash of a public and a private input (the Semaphore shape).
template Main() {
    signal input a; signal input b; signal output h;
    component p = Poseidon(2); p.inputs[0] <== a; p.inputs[1] <== b; h <== p.out;
}
component main {public [a]} = Main();
C
write_circuit merkle <<'C'
pragma circom 2.0.0;
include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/mux1.circom";
// Membership in a Poseidon Merkle tree of depth 4; the root is the public output.
template Merkle(depth) {
    signal input leaf; signal input path[depth]; signal input bits[depth]; signal output root;
    component h[depth]; component m[depth][2];
    signal node[depth + 1];
    node[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        bits[i] * (bits[i] - 1) === 0;
        m[i][0] = Mux1(); m[i][1] = Mux1();
        m[i][0].c[0] <== node[i]; m[i][0].c[1] <== path[i]; m[i][0].s <== bits[i];
        m[i][1].c[0] <== path[i]; m[i][1].c[1] <== node[i]; m[i][1].s <== bits[i];
        h[i] = Poseidon(2); h[i].inputs[0] <== m[i][0].out; h[i].inputs[1] <== m[i][1].out;
        node[i + 1] <== h[i].out;
    }
    root <== node[depth];
}
component main = Merkle(4);
C
write_circuit nopublic <<'C'
pragma circom 2.0.0;
// No public signal at all: nPublic = 0.
template Main() {
    signal input a; signal input b; signal c; signal d;
    c <== a * b; d <== c * c;
}
component main = Main();
C
write_circuit arrays <<'C'
pragma circom 2.0.0;
// Inputs as arrays of arrays; a check the input can fail (k must be a bit); a log line.
template Main(n, m) {
    signal input a[n][m]; signal input k; signal output s;
    signal acc[n * m + 1];
    acc[0] <== k;
    for (var i = 0; i < n; i++) {
        for (var j = 0; j < m; j++) {
            acc[i * m + j + 1] <== acc[i * m + j] * a[i][j] + 1;
        }
    }
    k * (k - 1) === 0;
    s <== acc[n * m];
    log("s =", s);
}
component main {public [k]} = Main(2, 3);
C
cp "$WORK/src/poseidon.circom" "$WORK/src/poseidon_bls.circom"

echo '{"a": "1", "b": "2"}' > "$WORK/src/poseidon.json"
cp "$WORK/src/poseidon.json" "$WORK/src/poseidon_bls.json"
echo '{"leaf": "7", "path": ["1", "2", "3", "4"], "bits": ["0", "1", "1", "0"]}' > "$WORK/src/merkle.json"
echo '{"a": "3", "b": "11"}' > "$WORK/src/nopublic.json"
echo '{"a": [["1", "2", "3"], [4, "0x5", "-6"]], "k": "1"}' > "$WORK/src/arrays.json"

ceremony() { # curve power -> $WORK/<curve>.ptau
    local c=$1 p=$2
    [ -f "$WORK/$c.ptau" ] && return 0
    "$SNARKJS" powersoftau new "$c" "$p" "$WORK/$c.0.ptau" >/dev/null
    "$SNARKJS" powersoftau contribute "$WORK/$c.0.ptau" "$WORK/$c.1.ptau" --name=zkaccel-test -e="zkaccel fixtures $c" >/dev/null
    "$SNARKJS" powersoftau prepare phase2 "$WORK/$c.1.ptau" "$WORK/$c.ptau" >/dev/null
}

compile() { # name prime -> circuit.r1cs in $WORK/src, circuit.wasm in the fixture
    local src
    src=$(realpath --relative-to="$TOOLS" "$WORK/src")
    node node_modules/circom2/cli.js "$src/$1.circom" --r1cs --wasm --prime "$2" -l node_modules -o "$src" >/dev/null
    cp "$WORK/src/${1}_js/$1.wasm" "$OUT/$1/circuit.wasm"
}

fixture() { # name curve power
    local name=$1 curve=$2 power=$3 prime=bn128 dir
    [ "$curve" = bls12381 ] && prime=bls12381
    dir=$OUT/$name
    echo "== $name ($curve)"
    rm -rf "$dir" && mkdir -p "$dir"
    compile "$name" "$prime"
    "$SNARKJS" wtns calculate "$dir/circuit.wasm" "$WORK/src/$name.json" "$dir/witness.wtns" >/dev/null
    cp "$WORK/src/$name.r1cs" "$dir/circuit.r1cs"
    cp "$WORK/src/$name.json" "$dir/input.json"
    ceremony "$curve" "$power"
    "$SNARKJS" groth16 setup "$dir/circuit.r1cs" "$WORK/$curve.ptau" "$WORK/$name.0.zkey" >/dev/null
    "$SNARKJS" zkey contribute "$WORK/$name.0.zkey" "$dir/circuit.zkey" --name=zkaccel-test -e="zkaccel fixtures $name" >/dev/null
    "$SNARKJS" zkey export verificationkey "$dir/circuit.zkey" "$dir/vkey.json" >/dev/null
    "$SNARKJS" groth16 prove "$dir/circuit.zkey" "$dir/witness.wtns" "$dir/proof.json" "$dir/public.json"
    "$SNARKJS" groth16 verify "$dir/vkey.json" "$dir/public.json" "$dir/proof.json" >/dev/null
}

ALL="poseidon:bn128:12 merkle:bn128:12 nopublic:bn128:12 arrays:bn128:12 poseidon_bls:bls12381:10"
for spec in $ALL; do
    IFS=: read -r name curve power <<< "$spec"
    if [ "${1:-}" = --cpp ]; then
        [ "$curve" = bn128 ] || continue   # circom's C++ generator: bn128 only
        src=$(realpath --relative-to="$TOOLS" "$WORK/src")
        node node_modules/circom2/cli.js "$src/$name.circom" --c -l node_modules -o "$src" >/dev/null
        make -s -C "$WORK/src/${name}_cpp" >/dev/null 2>&1 || make -C "$WORK/src/${name}_cpp" >&2
        mkdir -p "$ROOT/target/circom-cpp/$name"
        cp "$WORK/src/${name}_cpp/$name" "$WORK/src/${name}_cpp/$name.dat" "$ROOT/target/circom-cpp/$name/"
    elif [ "${1:-}" = --wasm-only ]; then
        prime=bn128; [ "$curve" = bls12381 ] && prime=bls12381
        [ -d "$OUT/$name" ] && compile "$name" "$prime"
    elif [ $# -eq 0 ] || [[ " $* " == *" $name "* ]]; then
        fixture "$name" "$curve" "$power"
    fi
done
if [ "${1:-}" = --cpp ]; then
    echo "$ROOT/target/circom-cpp"
    exit 0
fi
du -sh "$OUT"
