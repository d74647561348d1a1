// A worker of the package's pool (a Web Worker in browsers, a
// worker_thread in node): its own WebAssembly instance of the module the
// main thread compiled, the key decoded once into it, then shares of
// proofs (Prover.provePart) and their assembly on request. Messages:
//   {op: "init", module, zkey}                      -> {ok, curve, nVars, nPublic, hTerms}
//   {id, op: "prove", wtns, seed?}                  -> {id, out: [proof, public]}
//   {id, op: "part", wtns, kind, start, end}        -> {id, out: {sums: Uint8Array, ms}}
//   {id, op: "assemble", wtns, shares, seed?}       -> {id, out: [proof, public]}
//   {id, op: "vkey"}                                -> {id, out: vkey.json}
// A failure answers {id, error: message}.
import { initSync, Prover } from "./wasm/zkaccel_wasm.js";

const isNode = typeof process === "object" && typeof process.versions?.node === "string";
const port = isNode ? (await import("node:worker_threads")).parentPort : self;
const post = (m) => port.postMessage(m);
let prover;

function handle(m) {
  switch (m.op) {
    case "init": {
      initSync({ module: m.module });
      prover = new Prover(m.zkey);
      return { ok: true, curve: prover.curve, nVars: prover.nVars, nPublic: prover.nPublic, hTerms: prover.hTerms };
    }
    case "prove":
      return m.seed === undefined ? prover.prove(m.wtns) : prover.proveWithTestSeed(m.wtns, m.seed);
    case "part": {
      // Timed here, for the pool's plan of the next proof.
      const t0 = performance.now();
      const sums = prover.provePart(m.wtns, m.kind, m.start ?? 0, m.end ?? 0);
      return { sums, ms: performance.now() - t0 };
    }
    case "assemble":
      return m.seed === undefined ? prover.assemble(m.wtns, m.shares) : prover.assembleWithTestSeed(m.wtns, m.shares, m.seed);
    case "vkey":
      return prover.vkeyJson();
    default:
      throw new Error(`unknown request ${m.op}`);
  }
}

const onMessage = (m) => {
  try {
    const out = handle(m);
    post(m.op === "init" ? out : { id: m.id, out });
  } catch (e) {
    post({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
};
if (isNode) port.on("message", onMessage);
else port.onmessage = (e) => onMessage(e.data);
