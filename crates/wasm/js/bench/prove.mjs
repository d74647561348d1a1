// zkaccel's npm package against snarkjs' groth16.prove in the same node
// process, on the same zkey and wtns bytes, interleaved (A B A B), medians;
// every proof checked by snarkjs' verifier before the timed rounds.
//
//   node crates/wasm/js/bench/prove.mjs SNARKJS_BIN ZKEY WTNS VKEY [ROUNDS]
//
// Both sides are timed one-shot (key decoded, proof made, from bytes in
// memory), and zkaccel also with its key decoded once (Prover), in its
// default pool of workers and on the calling thread (workers: 0). snarkjs
// runs once on one thread (singleThread) and once with its default worker
// threads (one per core).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { machine } from "./machine.mjs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [snarkjsBin, zkeyPath, wtnsPath, vkeyPath, roundsArg] = process.argv.slice(2);
if (!vkeyPath) {
  console.error("usage: node prove.mjs SNARKJS_BIN ZKEY WTNS VKEY [ROUNDS]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 7);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const pkg = path.resolve(root, process.env.ZKACCEL_NPM_PKG ?? "target/npm/zkaccel");
const zk = await import(pathToFileURL(path.join(pkg, "node.js")).href);
const snarkjs = createRequire(path.join(path.resolve(path.dirname(snarkjsBin), ".."), "noop.js"))("snarkjs");

const zkey = new Uint8Array(await readFile(zkeyPath));
const wtns = new Uint8Array(await readFile(wtnsPath));
const vkey = JSON.parse(await readFile(vkeyPath, "utf8"));
const mem = (b) => ({ type: "mem", data: b });

console.log(`node ${process.version}; ${machine()}`);
// Cold start, apart: the module's compilation (the first call), then a
// key's decoding (in the pool's two workers at once, and on this thread).
let t0 = performance.now();
const kernels = await zk.kernel();
const compileMs = performance.now() - t0;
console.log(`zkaccel kernels: ${kernels}; zkey ${zkey.length} bytes, wtns ${wtns.length} bytes`);
t0 = performance.now();
(await zk.Prover.create(zkey)).free();
const decodePool = performance.now() - t0;
t0 = performance.now();
(await zk.Prover.create(zkey, { workers: 0 })).free();
const decodeHere = performance.now() - t0;
console.log(`cold start: module compiled in ${compileMs.toFixed(1)} ms; key decoded in ${decodePool.toFixed(1)} ms (2 workers started, each decoding) / ${decodeHere.toFixed(1)} ms (this thread)`);

const sides = {
  "zkaccel one-shot": () => zk.groth16.prove(zkey, wtns),
  "snarkjs 1 thread": () => snarkjs.groth16.prove(mem(zkey), mem(wtns), undefined, { singleThread: true }),
  "snarkjs workers": () => snarkjs.groth16.prove(mem(zkey), mem(wtns)),
};
const prover = await zk.Prover.create(zkey);
sides["zkaccel key decoded once"] = () => prover.prove(wtns);
const alone = await zk.Prover.create(zkey, { workers: 0 });
sides["zkaccel 1 thread, decoded once"] = () => alone.prove(wtns);

for (const [name, f] of Object.entries(sides)) {
  const { proof, publicSignals } = await f();
  if (!(await snarkjs.groth16.verify(vkey, publicSignals, proof))) throw new Error(`${name}: snarkjs rejects its proof`);
}
const times = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, f] of Object.entries(sides)) {
    const t = performance.now();
    await f();
    times[name].push(performance.now() - t);
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
for (const [k, v] of Object.entries(m)) console.log(`${k.padEnd(26)} median ${v.toFixed(1)} ms (min ${Math.min(...times[k]).toFixed(1)}, max ${Math.max(...times[k]).toFixed(1)}, ${rounds} rounds)`);
console.log(`snarkjs 1 thread / zkaccel 1 thread, decoded once: ${(m["snarkjs 1 thread"] / m["zkaccel 1 thread, decoded once"]).toFixed(2)}x`);
console.log(`snarkjs workers / zkaccel one-shot: ${(m["snarkjs workers"] / m["zkaccel one-shot"]).toFixed(2)}x`);
console.log(`snarkjs workers / zkaccel key decoded once: ${(m["snarkjs workers"] / m["zkaccel key decoded once"]).toFixed(2)}x`);
prover.free();
alone.free();
process.exit(0);
