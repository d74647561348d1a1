// Field multiplication in WebAssembly: zkaccel's kernel and arkworks' own
// (crates/ff/examples/wasm_field.rs, compiled for wasm32-unknown-unknown)
// against snarkjs' wasm field, wasmcurves, built the way snarkjs'
// ffjavascript builds it (its ModuleBuilder, buildBn128; a loop calling
// f1m_mul / frm_mul in place added), in node and, with --chromium, in
// headless Chromium (Debian's chromium or ZKACCEL_CHROMIUM) on a page from
// a loopback port: the same modules' bytes in both engines
// (field-core.mjs). Interleaved rounds, medians; ns a product.
//
//   node crates/wasm/js/bench/field.mjs [--chromium] SNARKJS_BIN [FIELD_WASM] [N] [ROUNDS]
//
// FIELD_WASM defaults to
// target/wasm32-unknown-unknown/release/examples/wasm_field.wasm.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Q, R, x0, y0, mont, bytes, sides, measure } from "./field-core.mjs";
import { findChromium, runPage } from "../harness/chromium.mjs";
import { machine } from "./machine.mjs";

const args = process.argv.slice(2);
const inChromium = args[0] === "--chromium";
const [snarkjsBin, wasmArg, nArg, roundsArg] = inChromium ? args.slice(1) : args;
if (!snarkjsBin) {
  console.error("usage: node field.mjs [--chromium] SNARKJS_BIN [FIELD_WASM] [N] [ROUNDS]");
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const fieldWasm = path.resolve(wasmArg || path.join(root, "target/wasm32-unknown-unknown/release/examples/wasm_field.wasm"));
const n = Number(nArg ?? 1_000_000);
const rounds = Number(roundsArg ?? 9);

// wasmcurves and wasmbuilder as snarkjs resolves them (through ffjavascript).
const fromSnarkjs = createRequire(path.join(path.resolve(path.dirname(snarkjsBin), ".."), "snarkjs", "noop.js"));
const fromFf = createRequire(fromSnarkjs.resolve("ffjavascript"));
const { buildBn128 } = fromFf("wasmcurves");
const { ModuleBuilder } = fromFf("wasmbuilder");
const version = JSON.parse(readFileSync(path.join(path.dirname(fromFf.resolve("wasmcurves")), "package.json"), "utf8")).version;
const mb = new ModuleBuilder();
mb.setMemory(25);
buildBn128(mb);
const slots = {};
for (const [prefix, p] of [["f1m", Q], ["frm", R]]) {
  const px = mb.alloc(bytes(mont(x0(p), p)));
  const py = mb.alloc(bytes(mont(y0(p), p)));
  slots[prefix] = px;
  const f = mb.addFunction(`${prefix}_chain`);
  f.addParam("n", "i32");
  const c = f.getCodeBuilder();
  f.addCode(c.block(c.loop(
    c.br_if(1, c.i32_eqz(c.getLocal("n"))),
    c.call(`${prefix}_mul`, c.i32_const(px), c.i32_const(py), c.i32_const(px)),
    c.setLocal("n", c.i32_sub(c.getLocal("n"), c.i32_const(1))),
    c.br(0),
  )));
  mb.exportFunction(`${prefix}_chain`);
}
const wc = { code: mb.build(), slots, version };

console.log(`${machine()}; chains of ${n} products, ${rounds} interleaved rounds, medians`);
const print = (engine, rows) => {
  const base = Object.fromEntries(rows.filter((r) => r[1] === "zkaccel kernel").map((r) => [r[0], r[2]]));
  for (const [field, side, ns] of rows) {
    console.log(`${engine} | ${field} | ${side} | ${ns.toFixed(1)} ns | ${(ns / base[field]).toFixed(2)}x zkaccel's time`);
  }
};

if (!inChromium) {
  print(`node ${process.version}`, measure(await sides(readFileSync(fieldWasm), wc), n, rounds));
} else {
  const browser = findChromium();
  if (!browser) {
    console.error("!! SKIP (field benchmark in Chromium): no chromium (Debian's chromium, or ZKACCEL_CHROMIUM)");
    process.exit(3);
  }
  const page = `<!doctype html><meta charset="utf-8"><script type="module">
const post = (r) => fetch("/result", { method: "POST", body: JSON.stringify(r) });
try {
  const { sides, measure } = await import("/bench/field-core.mjs");
  const get = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
  const wc = { code: await get("/wc/wasmcurves.wasm"), slots: ${JSON.stringify(slots)}, version: ${JSON.stringify(version)} };
  const rows = measure(await sides(await get("/zk/" + ${JSON.stringify(path.basename(fieldWasm))}), wc), ${n}, ${rounds});
  await post({ engine: navigator.userAgent.match(/Chrom[a-z]*\\/[0-9.]+/)?.[0] ?? navigator.userAgent, rows });
} catch (e) {
  await post({ failed: String(e && e.stack || e) });
}
</script>`;
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(path.join(tmpdir(), "zkaccel-field-"));
  writeFileSync(path.join(dir, "wasmcurves.wasm"), wc.code);
  try {
    const got = await runPage(browser, page, [["/bench/", here], ["/wc/", dir], ["/zk/", path.dirname(fieldWasm)]], 600_000);
    if (got.failed) throw new Error(got.failed);
    print(got.engine, got.rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
