// The package in node: the module compiled from its file once, for this
// thread and for the workers (worker_threads, each its own instance).
import { readFile } from "node:fs/promises";
import { createReadStream } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { initSync } from "./wasm/zkaccel_wasm.js";
import * as raw from "./wasm/zkaccel_wasm.js";
import { makeApi } from "./api.js";

let compiled;
const module = () => (compiled ??= readFile(new URL("./wasm/zkaccel_wasm_bg.wasm", import.meta.url)).then((b) => WebAssembly.compile(b)));

let ready;
async function bindings() {
  ready ??= module().then((module) => {
    initSync({ module });
    return raw;
  });
  return ready;
}

// A worker that keeps node running only while it has work (an idle pool
// does not hold the process open).
function spawn() {
  const w = new Worker(new URL("./worker-node.js", import.meta.url));
  w.unref();
  let closed = false;
  let onMessage = () => {};
  let onError = () => {};
  w.on("message", (m) => onMessage(m));
  w.on("error", (e) => closed || onError(e));
  w.on("exit", (code) => closed || onError(new Error(`the worker exited (code ${code})`)));
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
    busy: (b) => (b ? w.ref() : w.unref()),
  };
}

// A key file read in 1 MiB chunks, each decoded while the next is read.
const open = (path) => createReadStream(path, { highWaterMark: 1 << 20 });
const api = makeApi(bindings, (path) => readFile(path), { module, spawn, cores: availableParallelism, open });
export const { Prover, groth16, wtns, WitnessCalculator, kernel } = api;
export default api;
