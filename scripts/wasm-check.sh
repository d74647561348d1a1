#!/usr/bin/env bash
# zkaccel on WebAssembly (CI's wasm stage): the facade builds for
# wasm32-wasip1 with no warning (dead code that x86-only builds never see),
# the prover crate for wasm32-unknown-unknown (browsers), and a Groth16
# proof made by zkaccel's prover compiled to wasm32-wasip1 runs under node's
# WASI (scripts/wasm-run.mjs): byte-identical to stock ark-groth16's, and it
# verifies (crates/groth16/examples/wasm_prove.rs). There the field
# kernels are the portable ones and rayon runs on the calling thread. The
# wasip1 builds enable SIMD128 (as the npm package's does), so BN254 G1's
# and G2's bucket additions run in its lanes (zkaccel_ff::simd128), and
# crates/cpu/examples/wasm_chords.rs checks those lanes against arkworks;
# the wasm32-unknown-unknown check is built without, for the scalar path.
# ZKACCEL_WASM_ROUNDS (default 64) sizes the MiMC chain.
#
# Needs rustup (for the two targets' standard libraries) and node 20+ (as
# the circom fixtures do); without them it says SKIP and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { echo "!! SKIP (wasm stage): $*"; exit 0; }

command -v node >/dev/null || skip "node is not installed (Debian: nodejs)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || skip "node $node_major is older than 20 (node:wasi preview1)"
installed=$(rustup target list --installed 2>/dev/null || true)
for t in wasm32-wasip1 wasm32-unknown-unknown; do
    if ! grep -qx "$t" <<<"$installed"; then
        rustup target add "$t" || skip "rustup could not install the $t standard library"
    fi
done

simd="-D warnings -C target-feature=+simd128"
echo "-- the facade for wasm32-wasip1 with SIMD128, warnings denied"
RUSTFLAGS="$simd" cargo build --quiet -p zkaccel --target wasm32-wasip1
echo "-- zkaccel-groth16 for wasm32-unknown-unknown (a browser) without SIMD128, warnings denied"
RUSTFLAGS="-D warnings" cargo check --quiet -p zkaccel-groth16 --target wasm32-unknown-unknown
echo "-- the SIMD128 lanes' chord additions and MSMs against arkworks (wasm32-wasip1 under node's WASI)"
# In release: its MSMs (G1 of 100,000 terms, G2 of 3,000) take minutes in
# a debug build, seconds in release after a one-minute build.
RUSTFLAGS="$simd" cargo build --quiet --release -p zkaccel-cpu --example wasm_chords --target wasm32-wasip1
node --no-warnings scripts/wasm-run.mjs target/wasm32-wasip1/release/examples/wasm_chords.wasm
echo "-- a proof in WebAssembly (wasm32-wasip1 under node's WASI)"
RUSTFLAGS="$simd" cargo build --quiet -p zkaccel-groth16 --example wasm_prove --target wasm32-wasip1
node --no-warnings scripts/wasm-run.mjs target/wasm32-wasip1/debug/examples/wasm_prove.wasm \
    "${ZKACCEL_WASM_ROUNDS:-64}"
