// Two builds of the npm package on the same zkey and wtns in one node
// process, alternated (A B A B), medians and the ratio: for measuring a
// change to the WebAssembly module against the build before it.
//
//   node crates/wasm/js/bench/ab.mjs PKG_A PKG_B ZKEY WTNS [ROUNDS]
//
// ZKACCEL_AB_ONE_SHOT=1: each round a one-shot groth16.prove (a new pool,
// its key decoded, one proof) instead of a proof from a key decoded once.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { machine } from "./machine.mjs";

const [a, b, zkeyPath, wtnsPath, roundsArg] = process.argv.slice(2);
if (!wtnsPath) {
  console.error("usage: node ab.mjs PKG_A PKG_B ZKEY WTNS [ROUNDS]");
  process.exit(2);
}
const rounds = Number(roundsArg ?? 7);
const oneShot = process.env.ZKACCEL_AB_ONE_SHOT === "1";
const load = (dir) => import(pathToFileURL(path.resolve(dir, "node.js")).href);
const [A, B] = [await load(a), await load(b)];
const zkey = new Uint8Array(await readFile(zkeyPath));
const wtns = new Uint8Array(await readFile(wtnsPath));
console.log(`node ${process.version}; ${machine()}; A ${a}, B ${b}`);
const [pa, pb] = [await A.Prover.create(zkey), await B.Prover.create(zkey)];
// Same seed, same proof: the two builds must agree before they are timed.
const [ra, rb] = [await pa.prove(wtns, { testSeed: 3 }), await pb.prove(wtns, { testSeed: 3 })];
if (JSON.stringify(ra) !== JSON.stringify(rb)) throw new Error("the two builds' proofs differ");
const t = { A: [], B: [] };
for (let r = 0; r < rounds; r++) {
  for (const [k, p] of [["A", pa], ["B", pb]]) {
    const s = performance.now();
    await (oneShot ? (k === "A" ? A : B).groth16.prove(zkey, wtns) : p.prove(wtns));
    t[k].push(performance.now() - s);
  }
}
const med = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
console.log(`A median ${med(t.A).toFixed(1)} ms, B median ${med(t.B).toFixed(1)} ms (${oneShot ? "one-shot groth16.prove" : "key decoded once"}, ${rounds} rounds); A / B = ${(med(t.A) / med(t.B)).toFixed(2)}x`);
