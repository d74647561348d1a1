// A worker of the package's pool (a Web Worker in browsers, a
// worker_thread in node): its own WebAssembly instance of the module the
// main thread compiled, the key decoded once into it, then shares of
// proofs (Prover.provePart, Prover.quotient, Prover.hPart) and their
// assembly on request. The entries are
// worker-node.js and worker-browser.js, which hand `serve` their port; no
// module of a worker awaits at its top level, since node (20-24) aborts the
// whole process when a worker is terminated while such a module is still
// being evaluated (nodejs/node#42501, #60755), as a pool whose other
// worker rejected the key does at once. The key arrives in chunks, each
// decoded as it comes (ProverStream), so the instance never holds the
// whole file beside its decoded key. Messages:
//   {op: "init", module}                            -> {ok}
//   {id, op: "chunk", bytes}                        -> {id, out: null}
//   {id, op: "end"}                                 -> {id, out: {curve, nVars, nPublic, hTerms}}
//   {id, op: "prove", wtns, seed?}                  -> {id, out: [proof, public]}
//   {id, op: "part", wtns, kind, start, end}        -> {id, out: {sums: Uint8Array, ms}}
//   {id, op: "quotient", wtns}                      -> {id, out: {scalars: Uint8Array, ms}}
//   {id, op: "h", start, scalars}                   -> {id, out: {sums: Uint8Array, ms}}
//   {id, op: "columns", wtns, mask}                 -> {id, out: {columns: Uint8Array, ms}}
//   {id, op: "hold", wtns, mask}                    -> {id, out: {ms}}
//   {id, op: "finish", wtns, others}                -> {id, out: {scalars: Uint8Array, ms}}
//   {id, op: "assemble", wtns, shares, seed?}       -> {id, out: [proof, public]}
//   {id, op: "vkey"}                                -> {id, out: vkey.json}
// "hold" keeps the quotient's columns in the instance until "finish"
// completes the quotient from them and another worker's "columns". A
// failure answers {id, error: message}.
import { initSync, ProverStream } from "./wasm/zkaccel_wasm.js";

let prover;
let stream;
let held;

function handle(m) {
  switch (m.op) {
    case "init":
      initSync({ module: m.module });
      return { ok: true };
    case "chunk":
      (stream ??= new ProverStream()).push(m.bytes);
      return null;
    case "end": {
      const s = stream ?? new ProverStream();
      stream = undefined;
      prover = s.finish();
      return { curve: prover.curve, nVars: prover.nVars, nPublic: prover.nPublic, hTerms: prover.hTerms };
    }
    case "prove":
      return m.seed === undefined ? prover.prove(m.wtns) : prover.proveWithTestSeed(m.wtns, m.seed);
    // Shares, timed here for the pool's plan of the next proof.
    case "part":
      return timed("sums", () => prover.provePart(m.wtns, m.kind, m.start ?? 0, m.end ?? 0));
    case "quotient":
      return timed("scalars", () => prover.quotient(m.wtns));
    case "h":
      return timed("sums", () => prover.hPart(m.start, m.scalars));
    case "columns":
      return timed("columns", () => {
        const c = prover.quotientColumns(m.wtns, m.mask);
        try {
          return c.bytes();
        } finally {
          c.free();
        }
      });
    case "hold":
      held?.free();
      held = undefined;
      return timed("held", () => {
        held = prover.quotientColumns(m.wtns, m.mask);
        return true;
      });
    case "finish": {
      const columns = held;
      held = undefined;
      if (!columns) throw new Error("no quotient columns held to finish");
      return timed("scalars", () => prover.quotientFrom(m.wtns, columns, m.others));
    }
    case "assemble":
      return m.seed === undefined ? prover.assemble(m.wtns, m.shares) : prover.assembleWithTestSeed(m.wtns, m.shares, m.seed);
    case "vkey":
      return prover.vkeyJson();
    default:
      throw new Error(`unknown request ${m.op}`);
  }
}

function timed(name, f) {
  const t0 = performance.now();
  const bytes = f();
  return { [name]: bytes, ms: performance.now() - t0 };
}

/** Answers each request `listen` delivers through `post(message,
 * transfer)`; the quotient's scalars and columns are transferred, not
 * copied. */
export function serve(post, listen) {
  listen((m) => {
    try {
      const out = handle(m);
      if (m.op === "init") post(out);
      else post({ id: m.id, out }, [out?.scalars?.buffer, out?.columns?.buffer].filter(Boolean));
    } catch (e) {
      post({ id: m.id, error: e instanceof Error ? e.message : String(e) });
    }
  });
}
