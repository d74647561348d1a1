#!/usr/bin/env bash
# The polynomial-commitment grid of docs/pcs.md, on one machine in one run:
#
#   scripts/bench-pcs.sh            ZKACCEL_PCS_VARS (default 12,14,16,18,20), ZKACCEL_BENCH_ROUNDS (5)
#
# 1. Linear codes (crates/pcs/grid, its own workspace: ark-poly-commit built with `parallel`,
#    as arkworks' benches run it): stock Ligero against NttLigero + Blake2sColHasher (commit,
#    open, check, check_strict), the stages of Ligero's commit, Brakedown with either column
#    hasher, and the column hash rates. Every commitment and proof is checked equal first.
# 2. Hyrax, multilinear KZG and ipa_pc (`compare pcs`, the main workspace's build:
#    ark-poly-commit without `parallel`, every MSM parallel): ark_bn254 against zkaccel's
#    curve types, commit, open, check (and ipa's batch check), byte-identical results and
#    accepting checks verified by compare first. ipa up to ZKACCEL_PCS_IPA_MAX_VARS (16).
# ZKACCEL_KERNEL=adx (or portable) runs the same grid on another field kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
VARS=${ZKACCEL_PCS_VARS:-12,14,16,18,20}
ROUNDS=${ZKACCEL_BENCH_ROUNDS:-5}
# ipa_pc opens in time linear in the degree with a serial loop: 2^16 takes seconds a round.
IPA_MAX=${ZKACCEL_PCS_IPA_MAX_VARS:-16}
cargo build --release --quiet --manifest-path crates/pcs/grid/Cargo.toml --target-dir target/pcs-grid
cargo build --release --quiet --example compare
machine_info
echo
echo "### Linear codes"
echo
target/pcs-grid/release/pcs-grid --vars "$VARS" --rounds "$ROUNDS"
echo
echo "### Hyrax, multilinear KZG and the inner-product argument (ipa_pc) over BN254, ms"
echo
echo "| scheme | variables | step | ark_bn254 | zkaccel curve types | speed-up |"
echo "|---|---:|---|---:|---:|---:|"
for nv in ${VARS//,/ }; do
    for scheme in hyrax mlkzg ipa; do
        if [ "$scheme" = hyrax ] && (( nv % 2 )); then continue; fi
        if [ "$scheme" = ipa ] && (( nv > IPA_MAX )); then continue; fi
        json=$(compare_json pcs --scheme "$scheme" --num-vars "$nv" --rounds "$ROUNDS")
        for step in commit open check batch_check; do
            p="${step}_"; [ "$step" = commit ] && p=""
            grep -q "\"${p}speedup\"" <<<"$json" || continue
            printf '| %s | %s | %s | %s | %s | %.2fx |\n' "$scheme" "$nv" "$step" \
                "$(json_field "${p}arkworks_ms" "$json")" "$(json_field "${p}zkaccel_ms" "$json")" \
                "$(json_field "${p}speedup" "$json")"
        done
    done
done
