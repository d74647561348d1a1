# Shell helpers shared by .ci/run and the measuring scripts (sourced, not run).

# The machine a figure comes from: the CPU model, the CPU flags that pick
# zkaccel's kernels, the kernel forced by ZKACCEL_KERNEL if any, the commit
# and the cores.
machine_info() {
    grep -m1 'model name' /proc/cpuinfo || true
    echo "kernel-relevant CPU flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'adx|bmi2|avx2|avx512f|avx512ifma' | tr '\n' ' ')"
    echo "ZKACCEL_KERNEL=${ZKACCEL_KERNEL:-(unset: the best this CPU runs)}; commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(nproc) cores"
}

# `compare ARGS... --json` (target/release/examples/compare, built by the
# caller); fails, printing the JSON, when zkaccel's result differs from
# arkworks'.
compare_json() {
    local json
    json=$(./target/release/examples/compare "$@" --json)
    if ! grep -q '"results_equal": true' <<<"$json"; then
        echo "zkaccel's result differs from arkworks': $json" >&2
        return 1
    fi
    echo "$json"
}

# One number of compare's JSON: `json_field zkaccel_ms "$json"`.
json_field() { sed -E "s/.*\"$1\": ([0-9.]+).*/\1/" <<<"$2"; }

# The median of the arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
