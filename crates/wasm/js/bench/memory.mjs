// One key's proofs in the package's pool, alone in a node process: the
// time to decode the key (two workers, each its own instance and copy),
// each proof's time, and the process's peak resident memory (the workers
// are threads of it), each proof checked by the package's verifier. For
// the large circuits, where what matters is that a proof fits in wasm32's
// 4 GiB per instance.
//
//   node crates/wasm/js/bench/memory.mjs ZKEY WTNS VKEY [PROOFS]
//
// ZKACCEL_BENCH_KEY_AS=path: the key given as its file name (read in
// chunks, each decoded as it arrives) instead of its bytes read first.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { machine } from "./machine.mjs";

const [zkeyPath, wtnsPath, vkeyPath, proofsArg] = process.argv.slice(2);
if (!vkeyPath) {
  console.error("usage: node memory.mjs ZKEY WTNS VKEY [PROOFS]");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const pkg = path.resolve(root, process.env.ZKACCEL_NPM_PKG ?? "target/npm/zkaccel");
const zk = await import(pathToFileURL(path.join(pkg, "node.js")).href);
const asPath = process.env.ZKACCEL_BENCH_KEY_AS === "path";
const zkey = asPath ? zkeyPath : new Uint8Array(await readFile(zkeyPath));
const wtns = new Uint8Array(await readFile(wtnsPath));
const vkey = JSON.parse(await readFile(vkeyPath, "utf8"));
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
console.log(`node ${process.version}; ${machine()}; zkey ${asPath ? "streamed from its file" : `${(zkey.length / 2 ** 20).toFixed(0)} MiB of bytes`}, wtns ${(wtns.length / 2 ** 20).toFixed(1)} MiB`);
let t0 = performance.now();
const prover = await zk.Prover.create(zkey);
console.log(`key decoded in ${(performance.now() - t0).toFixed(0)} ms (${prover.workers} workers); peak RSS so far ${mib(process.resourceUsage().maxRSS)}`);
for (let i = 0; i < Number(proofsArg ?? 2); i++) {
  t0 = performance.now();
  const { proof, publicSignals } = await prover.prove(wtns);
  const ms = performance.now() - t0;
  if (!(await zk.groth16.verify(vkey, publicSignals, proof))) throw new Error(`proof ${i} does not verify`);
  console.log(`proof ${i}: ${ms.toFixed(0)} ms, verified; peak RSS ${mib(process.resourceUsage().maxRSS)}`);
}
prover.free();
