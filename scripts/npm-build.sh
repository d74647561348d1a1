#!/usr/bin/env bash
# Builds the npm package `zkaccel` (crates/wasm) into target/npm/zkaccel:
# zkaccel-wasm compiled for wasm32-unknown-unknown (release), its bindings
# made by the wasm-bindgen command of the same version as the crate's
# wasm-bindgen (installed from crates.io into target/tools the first time:
# about a minute), and the package's JavaScript (crates/wasm/js). Prints the
# package's folder on its last line.
#
#   scripts/npm-build.sh            build (release)
#   ZKACCEL_NPM_PROFILE=dev scripts/npm-build.sh   an unoptimised module (faster to build)
#
# Needs rustup (the wasm32-unknown-unknown standard library); exit 3 with a
# SKIP line when the target or the command cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=$ROOT/target/npm/zkaccel
TOOLS=$ROOT/target/tools
skip() { echo "!! SKIP (npm package): $*" >&2; exit 3; }

# The wasm-bindgen version the crate pins (`wasm-bindgen = "=X"`).
version=$(sed -nE 's/^wasm-bindgen = "=([0-9.]+)"/\1/p' crates/wasm/Cargo.toml)
[ -n "$version" ] || { echo "crates/wasm/Cargo.toml pins no wasm-bindgen version" >&2; exit 1; }
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown >&2 || skip "rustup could not install wasm32-unknown-unknown"
fi
bindgen=$TOOLS/bin/wasm-bindgen
if ! [ -x "$bindgen" ] || [ "$("$bindgen" --version)" != "wasm-bindgen $version" ]; then
    echo "-- installing wasm-bindgen-cli $version from crates.io into target/tools" >&2
    # Its own lock file first; where the registry lacks a version that file
    # pins (a mirror behind crates.io), the newest compatible versions.
    # `--debug`: on 2 cores the install takes 66 s against 138 s in release,
    # a run on the 4.8 MB module 2.3 s against 0.5, and the two builds'
    # output is the same byte for byte (every CI run installs it afresh).
    install() { cargo install --quiet --debug --root "$TOOLS" --version "=$version" wasm-bindgen-cli --bin wasm-bindgen "$@" >&2; }
    install --locked || install || skip "cargo could not install wasm-bindgen-cli $version"
fi

profile=${ZKACCEL_NPM_PROFILE:-release}
dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
echo "-- zkaccel-wasm for wasm32-unknown-unknown ($profile), warnings denied" >&2
RUSTFLAGS="-D warnings -C target-feature=+simd128" cargo build --quiet -p zkaccel-wasm --target wasm32-unknown-unknown --profile "$profile" >&2

rm -rf "$OUT"
mkdir -p "$OUT/wasm"
"$bindgen" --target web --out-dir "$OUT/wasm" --out-name zkaccel_wasm \
    "target/wasm32-unknown-unknown/$dir/zkaccel_wasm.wasm"
cp crates/wasm/js/{api.js,pool.js,worker.js,worker-node.js,worker-browser.js,witness.js,node.js,browser.js,index.d.ts,package.json} "$OUT/"
# The package's version is the crate's.
crate_version=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print([p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "zkaccel-wasm"][0])')
python3 - "$OUT/package.json" "$crate_version" <<'PY'
import json, sys
path, version = sys.argv[1:]
pkg = json.load(open(path))
pkg["version"] = version
json.dump(pkg, open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
echo "-- $(du -h "$OUT/wasm/zkaccel_wasm_bg.wasm" | cut -f1) of WebAssembly" >&2
echo "$OUT"
