#!/usr/bin/env bash
# Installs the CUDA tool chain zkaccel-cuda needs, from package registries only,
# into the git-ignored folder .cuda/ (no GPU needed):
#   - nvcc (with nvvm, crt and runtime headers) from PyPI: builds the PTX;
#   - CUDA 12.4's ptxas from PyPI (nvidia-cuda-nvcc-cu12==12.4.131): checks that
#     the PTX loads on drivers of CUDA 12.4 and later;
#   - libcuda1 (the driver library) from Debian's non-free component (with
#     contrib for its dependencies), so that
#     `cust` links and the no-device path runs for real.
# Idempotent: a second run reuses what is there. Prints what it installed and
# the environment to export (also written to .cuda/env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD/.cuda"
NVCC_VERSION="${ZKACCEL_NVCC_VERSION:-13.5.37}"
PTXAS_OLD_VERSION="12.4.131"
mkdir -p "$ROOT"

# A download that still fails after three tries exits with 75 (EX_TEMPFAIL):
# .ci/run reads that as "registry unreachable" and skips the CUDA stage
# loudly; any other failure is a real one.
retry() {
    local n=0
    until "$@"; do
        n=$((n + 1))
        if [ "$n" -ge 3 ]; then
            echo "setup-cuda: giving up on: $*" >&2
            exit 75
        fi
        echo "setup-cuda: retrying ($n) $*" >&2
        sleep $((5 * n))
    done
}

# 1. nvcc, nvvm, crt, runtime headers (PyPI).
if [ ! -x "$ROOT/pypi/nvidia/cu13/bin/nvcc" ]; then
    echo "setup-cuda: installing nvcc $NVCC_VERSION from PyPI"
    rm -rf "$ROOT/pypi"
    retry python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$ROOT/pypi" \
        "nvidia-cuda-nvcc==$NVCC_VERSION" "nvidia-nvvm==$NVCC_VERSION" \
        "nvidia-cuda-crt==$NVCC_VERSION" "nvidia-cuda-runtime==$NVCC_VERSION"
fi

# 2. CUDA 12.4's ptxas (PyPI), to check the PTX for older drivers.
if [ ! -x "$ROOT/cu124/nvidia/cuda_nvcc/bin/ptxas" ]; then
    echo "setup-cuda: installing ptxas $PTXAS_OLD_VERSION from PyPI"
    rm -rf "$ROOT/cu124"
    retry python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$ROOT/cu124" "nvidia-cuda-nvcc-cu12==$PTXAS_OLD_VERSION"
fi

# 3. libcuda1 (Debian non-free).
if ! ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 >/dev/null 2>&1; then
    echo "setup-cuda: installing libcuda1 from Debian (contrib, non-free)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    # libcuda1 is in non-free; its dependency nvidia-support is in contrib.
    $SUDO tee /etc/apt/sources.list.d/zkaccel-non-free.sources >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: contrib non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    retry $SUDO apt-get update -qq
    retry $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libcuda1 >/dev/null
fi

# 4. The layout cust's build expects: CUDA_PATH/include/cuda.h and
#    CUDA_LIBRARY_PATH/lib64/libcuda.so.
CU="$ROOT/pypi/nvidia/cu13"
mkdir -p "$ROOT/driver/lib64"
ln -sf /usr/lib/x86_64-linux-gnu/libcuda.so.1 "$ROOT/driver/lib64/libcuda.so"
test -f "$CU/include/cuda.h" || { echo "setup-cuda: cuda.h missing under $CU/include" >&2; exit 1; }

cat > "$ROOT/env.sh" <<ENV
export CUDA_PATH="$CU"
export CUDA_LIBRARY_PATH="$ROOT/driver"
export ZKACCEL_NVCC="$CU/bin/nvcc"
export ZKACCEL_PTXAS_OLD="$ROOT/cu124/nvidia/cuda_nvcc/bin/ptxas"
export PATH="$CU/bin:\$PATH"
export LD_LIBRARY_PATH="$ROOT/driver/lib64:$CU/lib:\${LD_LIBRARY_PATH:-}"
ENV

echo "setup-cuda: installed"
echo "  nvcc:        $("$CU/bin/nvcc" --version | tail -2 | head -1)"
echo "  ptxas (new): $("$CU/bin/ptxas" --version | tail -2 | head -1)"
echo "  ptxas (old): $("$ROOT/cu124/nvidia/cuda_nvcc/bin/ptxas" --version | tail -2 | head -1)"
echo "  libcuda:     $(readlink -f /usr/lib/x86_64-linux-gnu/libcuda.so.1)"
echo "  environment: source .cuda/env.sh"
