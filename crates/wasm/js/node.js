// The package in node: the module compiled from its file on first use.
import { readFile } from "node:fs/promises";
import { initSync } from "./wasm/zkaccel_wasm.js";
import * as raw from "./wasm/zkaccel_wasm.js";
import { makeApi } from "./api.js";

let ready;
async function bindings() {
  ready ??= readFile(new URL("./wasm/zkaccel_wasm_bg.wasm", import.meta.url)).then((module) => {
    initSync({ module });
    return raw;
  });
  return ready;
}

const api = makeApi(bindings, (path) => readFile(path));
export const { Prover, groth16, wtns, WitnessCalculator, kernel } = api;
export default api;
