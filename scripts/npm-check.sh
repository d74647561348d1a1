#!/usr/bin/env bash
# CI's npm stage: builds the npm package `zkaccel` (scripts/npm-build.sh)
# and runs its tests in node (crates/wasm/js/test, node:test): the circom
# fixtures' proofs accepted by snarkjs' verifier (ZKACCEL_SNARKJS, from
# scripts/circom-fixtures.sh --install), equal byte for byte to the native
# zkaccel-prover's with a fixed seed (ZKACCEL_PROVER, default
# target/debug/zkaccel-prover, which the test command builds), bad input
# rejected; and in headless Chromium (Debian's, installed here if missing),
# a page on a loopback port proving through the browser entry. A loud SKIP,
# exit 0, where node 20+ or the wasm tool chain cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { echo "!! SKIP (npm stage): $*"; exit 0; }

command -v node >/dev/null || skip "node is not installed (Debian: nodejs)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || skip "node $node_major is older than 20"
set +e
pkg=$(./scripts/npm-build.sh | tail -1)
rc=$?
set -e
[ "$rc" -eq 3 ] && skip "the package could not be built (see above)"
[ "$rc" -eq 0 ] || exit "$rc"

export ZKACCEL_NPM_PKG="$pkg"
if [ -z "${ZKACCEL_PROVER:-}" ] && [ -x target/debug/zkaccel-prover ]; then
    export ZKACCEL_PROVER=$PWD/target/debug/zkaccel-prover
fi
[ -n "${ZKACCEL_PROVER:-}" ] || echo "!! SKIP (npm stage): no native zkaccel-prover (target/debug or ZKACCEL_PROVER): proofs not compared byte for byte"
[ -n "${ZKACCEL_SNARKJS:-}" ] || echo "!! SKIP (npm stage): no snarkjs (ZKACCEL_SNARKJS): proofs checked with the package's verifier only"
# Headless Chromium from Debian's packages (no browser downloaded by npm),
# for the browser test; without it that test says SKIP.
if [ -z "${ZKACCEL_CHROMIUM:-}" ] && ! command -v chromium >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
    apt_install() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
    apt_install || { $sudo apt-get update -qq && apt_install; } ||
        echo "!! SKIP (npm stage): Debian's chromium could not be installed: the package is not tested in a browser"
fi
command -v chromium >/dev/null && echo "-- $(chromium --version 2>/dev/null)"
echo "-- node $(node --version): the package's tests"
node --test --test-reporter=spec crates/wasm/js/test/
