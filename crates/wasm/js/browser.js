// The package in a browser (or a bundler): the module fetched beside this
// file and compiled while it streams (WebAssembly.instantiateStreaming).
import init, * as raw from "./wasm/zkaccel_wasm.js";
import { makeApi } from "./api.js";

let ready;
async function bindings() {
  ready ??= init({ module_or_path: new URL("./wasm/zkaccel_wasm_bg.wasm", import.meta.url) }).then(() => raw);
  return ready;
}

async function load(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

const api = makeApi(bindings, load);
export const { Prover, groth16, wtns, WitnessCalculator, kernel } = api;
export default api;
