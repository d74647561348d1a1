#!/usr/bin/env bash
# Bulletproofs range-proof verification (docs/bulletproofs.md), zkaccel
# against the C verifier that shipped (Grin's secp256k1-zkp, the sources
# grin_secp256k1zkp bundles), on one and on two threads:
#
#   scripts/bench-bulletproofs.sh [ROUNDS]      (default 11)
#
# The C library is built as its best configuration on x86-64: the 64-bit
# field (5x52) and scalar (4x64), its x86-64 assembly and the GLV
# endomorphism, at -O3 (the crate's own build uses the 32-bit field and
# scalar and no assembly). Flags go through cc's CFLAGS, which come after
# the build script's definitions. ZKACCEL_BP_SHAPES overrides the shapes
# (values a proof x proofs a batch).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ROUNDS=${1:-11}
SHAPES=${ZKACCEL_BP_SHAPES:-1x1,2x1,8x1,1x16,1x64,1x256}
if [ "$(uname -m)" = x86_64 ]; then
    export CFLAGS_x86_64_unknown_linux_gnu="-O3 -UUSE_FIELD_10X26 -DUSE_FIELD_5X52 -UUSE_SCALAR_8X32 -DUSE_SCALAR_4X64 -DHAVE___INT128=1 -DUSE_ASM_X86_64=1"
    C_BUILD="5x52 field, 4x64 scalar, x86-64 assembly, endomorphism, -O3"
else
    C_BUILD="the crate's own flags (10x26 field, 8x32 scalar, no assembly)"
fi
cargo build --release --quiet --manifest-path crates/bulletproofs/bench/Cargo.toml --target-dir target/bp-bench
machine_info
echo "C library: grin_secp256k1zkp's bundled secp256k1-zkp, $C_BUILD"
for threads in 1 2; do
    echo
    RAYON_NUM_THREADS=$threads target/bp-bench/release/bp-bench --rounds "$ROUNDS" --shapes "$SHAPES"
done
