// The npm package in headless Chromium (Debian's `chromium`, or
// ZKACCEL_CHROMIUM): a page served from a loopback port imports the
// package's browser entry (browser.js: the module fetched and compiled
// while it streams), proves circom fixtures from URLs (and from input.json
// with the circuit's wasm run by Chromium's engine), and posts what it
// got back to the test's server. The proofs must have snarkjs' public
// signals, verify, and with a fixed seed equal the node build's byte for
// byte (which node.test.mjs compares with the native prover); a truncated
// key must reject with an Error naming it. Without Chromium: SKIP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findChromium, runPage } from "../harness/chromium.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const fixtures = path.join(root, "crates/circom/tests/fixtures");
const pkgDir = path.resolve(root, process.env.ZKACCEL_NPM_PKG ?? "target/npm/zkaccel");
const nodePkg = await import(pathToFileURL(path.join(pkgDir, "node.js")).href);
const NAMES = ["poseidon", "poseidon_bls"];

const PAGE = `<!doctype html><meta charset="utf-8"><title>zkaccel</title>
<script type="module">
const post = (r) => fetch("/result", { method: "POST", body: JSON.stringify(r) });
try {
  const { groth16, Prover, kernel } = await import("/pkg/browser.js");
  const out = { kernel: await kernel(), proofs: {} };
  for (const name of ${JSON.stringify(NAMES)}) {
    const f = (file) => "/fixtures/" + name + "/" + file;
    const vkey = await (await fetch(f("vkey.json"))).json();
    const fresh = await groth16.prove(f("circuit.zkey"), f("witness.wtns"));
    const prover = await Prover.create(f("circuit.zkey"));
    const seeded = await prover.prove(f("witness.wtns"), { testSeed: 42 });
    prover.free();
    const input = await (await fetch(f("input.json"))).json();
    const full = await groth16.fullProve(input, f("circuit.wasm"), f("circuit.zkey"));
    // The key as a fetch Response and as its body (a ReadableStream),
    // decoded as it downloads, on 2 workers and on the page's thread.
    const response = await groth16.prove(await fetch(f("circuit.zkey")), f("witness.wtns"), { testSeed: 42 });
    const body = await groth16.prove((await fetch(f("circuit.zkey"))).body, f("witness.wtns"), { testSeed: 42, workers: 0 });
    out.proofs[name] = {
      fresh, seeded, full, response, body,
      verified: await groth16.verify(vkey, fresh.publicSignals, fresh.proof),
      fullVerified: await groth16.verify(vkey, full.publicSignals, full.proof),
    };
  }
  const zkey = new Uint8Array(await (await fetch("/fixtures/poseidon/circuit.zkey")).arrayBuffer());
  try {
    await groth16.prove(zkey.subarray(0, 1000), "/fixtures/poseidon/witness.wtns");
    out.truncated = "accepted";
  } catch (e) {
    out.truncated = (e instanceof Error ? "Error: " : "not an Error: ") + e.message;
  }
  try {
    await Prover.create("/fixtures/none/circuit.zkey");
    out.missing = "accepted";
  } catch (e) {
    out.missing = (e instanceof Error ? "Error: " : "not an Error: ") + e.message;
  }
  await post(out);
} catch (e) {
  await post({ failed: String(e && e.stack || e) });
}
</script>`;

test("in headless Chromium: proofs from URLs, snarkjs' signals, the node build's bytes", async (t) => {
  const browser = findChromium();
  if (!browser) {
    process.stderr.write("!! SKIP (npm package test): no chromium (Debian's chromium, or ZKACCEL_CHROMIUM): the browser entry is not tested\n");
    return t.skip("no chromium");
  }
  const got = await runPage(browser, PAGE, [["/pkg/", pkgDir], ["/fixtures/", fixtures]], 120_000);
  assert.equal(typeof got, "object", got);
  assert.equal(got.failed, undefined, got.failed);
  assert.match(got.kernel, /portable/);
  for (const name of NAMES) {
    const p = got.proofs[name];
    const pub = JSON.parse(await readFile(path.join(fixtures, name, "public.json"), "utf8"));
    assert.deepEqual(p.fresh.publicSignals, pub, name);
    assert.equal(p.verified, true, name);
    // fullProve: the witness computed by Chromium's own WebAssembly engine.
    assert.deepEqual(p.full.publicSignals, pub, `${name}: fullProve`);
    assert.equal(p.fullVerified, true, `${name}: fullProve`);
    const zkey = path.join(fixtures, name, "circuit.zkey");
    const wtns = path.join(fixtures, name, "witness.wtns");
    const inNode = await nodePkg.groth16.prove(zkey, wtns, { testSeed: 42 });
    assert.equal(JSON.stringify(p.seeded), JSON.stringify(inNode), `${name}: Chromium and node differ`);
    assert.equal(JSON.stringify(p.response), JSON.stringify(inNode), `${name}: the key as a Response`);
    assert.equal(JSON.stringify(p.body), JSON.stringify(inNode), `${name}: the key as a ReadableStream`);
    assert.notDeepEqual(p.fresh.proof, p.seeded.proof);
  }
  assert.match(got.truncated, /^Error: zkey: /, got.truncated);
  assert.match(got.missing, /^Error: zkey: .*HTTP 404/, got.missing);
});
