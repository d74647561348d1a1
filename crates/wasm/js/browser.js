// The package in a browser (or a bundler): the module fetched beside this
// file and compiled while it streams, once, for this thread and for the
// Web Workers (each its own instance: no SharedArrayBuffer).
import init, * as raw from "./wasm/zkaccel_wasm.js";
import { makeApi } from "./api.js";

const wasmUrl = new URL("./wasm/zkaccel_wasm_bg.wasm", import.meta.url);
let compiled;
function module() {
  compiled ??= WebAssembly.compileStreaming(fetch(wasmUrl)).catch(async () => {
    // A server that does not send application/wasm: compile the bytes.
    const r = await fetch(wasmUrl);
    if (!r.ok) throw new Error(`${wasmUrl}: HTTP ${r.status}`);
    return WebAssembly.compile(await r.arrayBuffer());
  });
  return compiled;
}

let ready;
async function bindings() {
  ready ??= module().then((m) => init({ module_or_path: m })).then(() => raw);
  return ready;
}

async function load(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

function spawn() {
  const w = new Worker(new URL("./worker-browser.js", import.meta.url), { type: "module" });
  let closed = false;
  let onMessage = () => {};
  let onError = () => {};
  w.onmessage = (e) => onMessage(e.data);
  w.onerror = (e) => closed || onError(new Error(e.message || "the worker failed to load"));
  return {
    post: (m, transfer = []) => w.postMessage(m, transfer),
    listen(message, error) {
      onMessage = message;
      onError = error;
    },
    terminate() {
      closed = true;
      w.terminate();
    },
    busy() {},
  };
}

const cores = () => (typeof navigator === "object" && navigator.hardwareConcurrency) || 1;
// A key's Response: its body is decoded as it downloads.
const open = (url) => fetch(url);
const api = makeApi(bindings, load, { module, spawn, cores, open });
export const { Prover, groth16, wtns, WitnessCalculator, kernel } = api;
export default api;
