// The SIMD128 experiment (crates/ff/examples/wasm_lanes.rs): BN254 Fq
// Montgomery products several at a time in WebAssembly's SIMD128 lanes
// (29-bit limbs in i32x4 lanes multiplied by u64x2.extmul, by rows or by
// columns, four, eight or sixteen products at once; 24-bit limbs in f64x2
// lanes) against the package's scalar 29-bit kernel, on eight independent
// chains of N products each (sixteen for the sixteen at once), in node
// and, with --chromium, in headless Chromium on a page from a loopback
// port. Every variant's chains of 0, 1, 7 and N products are checked
// against BigInt arithmetic first. Interleaved rounds, medians; ns a
// product.
//
//   RUSTFLAGS="-C target-feature=+simd128" cargo build --release -p zkaccel-ff \
//       --example wasm_lanes --target wasm32-unknown-unknown --target-dir target/simd128
//   node crates/wasm/js/bench/lanes.mjs [--chromium] [LANES_WASM] [N] [ROUNDS]
//
// LANES_WASM defaults to the build above.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, runPage } from "../harness/chromium.mjs";
import { machine } from "./machine.mjs";

const args = process.argv.slice(2);
const inChromium = args[0] === "--chromium";
const [wasmArg, nArg, roundsArg] = inChromium ? args.slice(1) : args;
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const wasmPath = path.resolve(wasmArg || path.join(root, "target/simd128/wasm32-unknown-unknown/release/examples/wasm_lanes.wasm"));
const n = Number(nArg ?? 200_000);
const rounds = Number(roundsArg ?? 7);

// Runs in either engine (stringified into the page): checks, then times.
const measure = async (bytes, n, rounds) => {
  const Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
  const pow = (b, e) => {
    let r = 1n;
    for (b %= Q; e > 0n; e >>= 1n, b = (b * b) % Q) if (e & 1n) r = (r * b) % Q;
    return r;
  };
  const expected = (j, k) => {
    const x = pow(0x123456789abcdef0n + BigInt(j), Q - 2n);
    const y = (0x0fedcba987654321n + 7n * BigInt(j)) ** 2n;
    return ((x * pow(y, BigInt(k))) % Q) & 0xffffffffffffffffn;
  };
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const sides = ["scalar8", "rows4x2", "cols4x2", "cols8", "cols16", "f64x8"];
  const chains = (side) => (side === "cols16" ? 16 : 8);
  for (const side of sides) {
    for (const k of [0, 1, 7, n]) {
      for (let j = 0; j < chains(side); j++) {
        const got = BigInt.asUintN(64, instance.exports[side](k, j));
        if (got !== expected(j, k)) throw new Error(`${side}: chain ${j} of ${k} products gave ${got}, BigInt says ${expected(j, k)}`);
      }
    }
  }
  const times = Object.fromEntries(sides.map((s) => [s, []]));
  for (let r = 0; r < rounds; r++) {
    for (const side of sides) {
      const t0 = performance.now();
      instance.exports[side](n, 0);
      times[side].push(((performance.now() - t0) * 1e6) / (chains(side) * n));
    }
  }
  return sides.map((s) => [s, [...times[s]].sort((a, b) => a - b)[rounds >> 1]]);
};

const print = (engine, rows) => {
  const base = rows[0][1];
  for (const [side, ns] of rows) console.log(`${engine} | ${side} | ${ns.toFixed(1)} ns | ${(base / ns).toFixed(2)}x the scalar kernel's speed`);
};

let bytes;
try {
  bytes = readFileSync(wasmPath);
} catch {
  console.error(`no ${wasmPath}: build it first (see this file's head)`);
  process.exit(2);
}
console.log(`${machine()}; eight (cols16: sixteen) chains of ${n} products, ${rounds} interleaved rounds, medians, all checked against BigInt`);
if (!inChromium) {
  print(`node ${process.version}`, await measure(bytes, n, rounds));
} else {
  const browser = findChromium();
  if (!browser) {
    console.error("!! SKIP (lanes benchmark in Chromium): no chromium (Debian's chromium, or ZKACCEL_CHROMIUM)");
    process.exit(3);
  }
  const page = `<!doctype html><meta charset="utf-8"><script type="module">
const post = (r) => fetch("/result", { method: "POST", body: JSON.stringify(r) });
try {
  const measure = ${measure.toString()};
  const bytes = await (await fetch("/zk/${path.basename(wasmPath)}")).arrayBuffer();
  const rows = await measure(bytes, ${n}, ${rounds});
  await post({ engine: navigator.userAgent.match(/Chrom[a-z]*\\/[0-9.]+/)?.[0] ?? navigator.userAgent, rows });
} catch (e) {
  await post({ failed: String(e && e.stack || e) });
}
</script>`;
  const got = await runPage(browser, page, [["/zk/", path.dirname(wasmPath)]], 600_000);
  if (got.failed) throw new Error(got.failed);
  print(got.engine, got.rows);
}
