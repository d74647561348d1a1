#!/usr/bin/env bash
# The generated parts of the BMI2/ADX assembly are what their generator
# prints (CI): scripts/mont_mul_asm.py regenerates the instruction strings
# of `mont_mul_6` and `mont_mul_4_full` (and the order of their result
# limbs) into a copy of src/adx.rs in a temporary file, which must equal
# the committed file; scripts/mont_mul_arm64.py prints the whole of
# src/arm64.rs (the aarch64 kernels), which must equal the committed file.
# Exits 1 with the diff otherwise.
#
#     crates/ff/scripts/check-asm.sh        (from any directory)
#
# After changing the generator, rewrite the file in place with
#     python3 crates/ff/scripts/mont_mul_asm.py splice crates/ff/src/adx.rs crates/ff/src/adx.rs
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp "${TMPDIR:-/tmp}/adx.rs.XXXXXX")
trap 'rm -f "$tmp"' EXIT
python3 scripts/mont_mul_asm.py splice src/adx.rs "$tmp"
if ! diff -u --label "crates/ff/src/adx.rs (committed)" --label "crates/ff/src/adx.rs (generated)" src/adx.rs "$tmp"; then
    echo "!! check-asm: crates/ff/src/adx.rs differs from what scripts/mont_mul_asm.py generates" >&2
    exit 1
fi
echo "check-asm: crates/ff/src/adx.rs matches scripts/mont_mul_asm.py (mont_mul_6, mont_mul_4_full)"
python3 scripts/mont_mul_arm64.py > "$tmp"
if ! diff -u --label "crates/ff/src/arm64.rs (committed)" --label "crates/ff/src/arm64.rs (generated)" src/arm64.rs "$tmp"; then
    echo "!! check-asm: crates/ff/src/arm64.rs differs from what scripts/mont_mul_arm64.py generates" >&2
    exit 1
fi
echo "check-asm: crates/ff/src/arm64.rs matches scripts/mont_mul_arm64.py"
