// zkaccel's npm package against snarkjs' browser build (build/snarkjs.min.js)
// in headless Chromium (Debian's chromium or ZKACCEL_CHROMIUM), on a page
// served from a loopback port: the same zkey and wtns bytes, interleaved
// rounds, medians; every way's proof checked by snarkjs' verifier in the
// page before the timed rounds. zkaccel proves with its key decoded once
// (Prover) in its pool of two Web Workers; snarkjs with its own Web Workers
// (one per core). The cold start (module compile, key decode) is timed apart.
//
//   node crates/wasm/js/bench/chromium.mjs SNARKJS_BIN ZKEY WTNS VKEY [ROUNDS]
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, runPage } from "../harness/chromium.mjs";
import { machine } from "./machine.mjs";

const [snarkjsBin, zkey, wtns, vkey, roundsArg] = process.argv.slice(2);
if (!vkey) {
  console.error("usage: node chromium.mjs SNARKJS_BIN ZKEY WTNS VKEY [ROUNDS]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);
// ZKACCEL_BENCH_ONLY=zkaccel: zkaccel's side alone (its proof still checked
// by snarkjs' verifier), to read the page's memory without snarkjs' in it.
const only = process.env.ZKACCEL_BENCH_ONLY === "zkaccel";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const pkg = path.resolve(root, process.env.ZKACCEL_NPM_PKG ?? "target/npm/zkaccel");
const snarkjsBuild = path.join(path.resolve(path.dirname(snarkjsBin), ".."), "snarkjs", "build");
const snarkjsVersion = JSON.parse(readFileSync(path.join(snarkjsBuild, "..", "package.json"), "utf8")).version;
const browser = findChromium();
if (!browser) {
  console.error("!! SKIP (prove benchmark in Chromium): no chromium (Debian's chromium, or ZKACCEL_CHROMIUM)");
  process.exit(3);
}
const files = new Map([["circuit.zkey", path.resolve(zkey)], ["witness.wtns", path.resolve(wtns)], ["vkey.json", path.resolve(vkey)]]);
const dirs = new Set([...files.values()].map(path.dirname));
if (dirs.size !== 1 || [...files].some(([name, f]) => path.basename(f) !== name)) {
  console.error("ZKEY, WTNS and VKEY must be circuit.zkey, witness.wtns and vkey.json of one folder");
  process.exit(2);
}

const page = `<!doctype html><meta charset="utf-8">
<script src="/snarkjs/snarkjs.min.js"></script>
<script type="module">
const post = (r) => fetch("/result", { method: "POST", body: JSON.stringify(r) });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
try {
  const get = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
  const [zkey, wtns] = [await get("/c/circuit.zkey"), await get("/c/witness.wtns")];
  const vkey = await (await fetch("/c/vkey.json")).json();
  let t0 = performance.now();
  const zk = await import("/pkg/browser.js");
  const kernels = await zk.kernel();
  const compileMs = performance.now() - t0;
  t0 = performance.now();
  const prover = await zk.Prover.create(zkey);
  const decodeMs = performance.now() - t0;
  const mem = (b) => ({ type: "mem", data: b });
  const sides = {
    "zkaccel, key decoded once (2 workers)": () => prover.prove(wtns),
    ["snarkjs ${snarkjsVersion} workers (" + navigator.hardwareConcurrency + ")"]: () => snarkjs.groth16.prove(mem(zkey), mem(wtns)),
  };
  if (${only}) delete sides[Object.keys(sides)[1]];
  for (const [side, run] of Object.entries(sides)) {
    const { proof, publicSignals } = await run();
    if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(side + ": snarkjs' verifier rejects its proof");
  }
  const times = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));
  for (let r = 0; r < ${rounds}; r++) {
    for (const [side, run] of Object.entries(sides)) {
      const t = performance.now();
      await run();
      times[side].push(performance.now() - t);
    }
  }
  prover.free();
  await post({ engine: navigator.userAgent.match(/Chrom[a-z]*\\/[0-9.]+/)?.[0], kernels, compileMs, decodeMs,
    times, medians: Object.fromEntries(Object.entries(times).map(([s, ts]) => [s, median(ts)])) });
} catch (e) {
  await post({ failed: String(e && e.stack || e) });
}
</script>`;

console.log(`${machine()}; ${rounds} interleaved rounds, medians`);
const got = await runPage(browser, page, [["/pkg/", pkg], ["/snarkjs/", snarkjsBuild], ["/c/", [...dirs][0]]], 1_800_000);
if (got.failed) {
  console.error(got.failed);
  process.exit(1);
}
console.log(`${got.engine}; zkaccel kernels: ${got.kernels}`);
console.log(`cold start: module compiled in ${got.compileMs.toFixed(1)} ms (with browser.js' import), key decoded in ${got.decodeMs.toFixed(1)} ms (2 workers started, each decoding)`);
const [[zkSide, zkMs], [sjSide, sjMs] = []] = Object.entries(got.medians);
for (const [side, ts] of Object.entries(got.times)) console.log(`${side}: rounds ${ts.map((t) => t.toFixed(0)).join(", ")} ms`);
console.log(`${zkSide} | ${zkMs.toFixed(0)} ms`);
if (sjSide) console.log(`${sjSide} | ${sjMs.toFixed(0)} ms | ${(sjMs / zkMs).toFixed(2)}x zkaccel's time`);
