#!/usr/bin/env bash
# Builds, on a machine without a GPU, every program the GPU checks run
# (release, --features cuda) and packs them into .gpu/ (git-ignored) for a
# machine that has a GPU but no Rust tool chain (the workplace's device
# machine): the device and NTT test binaries of zkaccel-cuda, the unit tests
# of zkaccel-groth16, zkaccel-circom's fixture tests, the criterion bench `cuda`, and the
# examples gpu_profile, prove and prove_loaded, and zkaccel-prover.
# Then, on the GPU machine: scripts/gpu-run.sh (which reads .gpu/).
#
#   scripts/gpu-pack.sh        # needs scripts/setup-cuda.sh's tool chain
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-cuda.sh >/dev/null
# shellcheck disable=SC1091
source .cuda/env.sh
pkgs=(-p zkaccel -p zkaccel-cuda -p zkaccel-groth16 -p zkaccel-circom --features zkaccel/cuda)
tests=(--test device --test ntt --test circom --lib)
progs=(--bench cuda --example gpu_profile --example prove --example prove_loaded
    --bin zkaccel-prover)
cargo test --release "${pkgs[@]}" "${tests[@]}" --no-run
cargo build --release "${pkgs[@]}" "${progs[@]}"

# The test binaries by name, from cargo's own list of what it built.
list=$(cargo test --release "${pkgs[@]}" "${tests[@]}" --no-run --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["name"], m["executable"])')
bench=$(cargo build --release "${pkgs[@]}" --bench cuda --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "cuda":
        print(m["executable"])')

rm -rf .gpu && mkdir -p .gpu/bin
while read -r name exe; do
    cp "$exe" ".gpu/bin/test-$name"
done <<<"$list"
cp "$bench" .gpu/bin/bench-cuda
rm -f .gpu/bin/test-zkaccel .gpu/bin/test-zkaccel_circom
for e in gpu_profile prove prove_loaded; do cp "target/release/examples/$e" ".gpu/bin/$e"; done
cp target/release/zkaccel-prover .gpu/bin/
strip .gpu/bin/*
git rev-parse HEAD >.gpu/commit
pwd >.gpu/root
git diff --stat >>.gpu/commit || true
ls -la .gpu/bin
# One archive: the binaries share most of their code, which xz's window
# finds (about 140 MB in, 5 MB out), so they fit the device tool's 64 MiB.
tar -C .gpu -cf - bin | xz -T2 -9 >.gpu/bin.tar.xz
rm -rf .gpu/bin
du -sh .gpu
