// Runs a wasm32-wasip1 program under node's WASI (node 20+), passing its
// arguments and exit code through: node scripts/wasm-run.mjs prog.wasm [ARGS...]
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";
import { argv, exit } from "node:process";

const [path, ...args] = argv.slice(2);
if (!path) {
  console.error("usage: node scripts/wasm-run.mjs program.wasm [ARGS...]");
  exit(2);
}
const wasi = new WASI({ version: "preview1", args: [path, ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(path));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
