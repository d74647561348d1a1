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
import { createServer } from "node:http";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { spawn, execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const fixtures = path.join(root, "crates/circom/tests/fixtures");
const pkgDir = path.resolve(root, process.env.ZKACCEL_NPM_PKG ?? "target/npm/zkaccel");
const nodePkg = await import(pathToFileURL(path.join(pkgDir, "node.js")).href);
const NAMES = ["poseidon", "poseidon_bls"];

function chromium() {
  for (const c of [process.env.ZKACCEL_CHROMIUM, "chromium", "chromium-browser"]) {
    if (!c) continue;
    try {
      execFileSync(c, ["--version"], { stdio: "ignore" });
      return c;
    } catch {}
  }
  return null;
}

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
    out.proofs[name] = {
      fresh, seeded, full,
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
  await post(out);
} catch (e) {
  await post({ failed: String(e && e.stack || e) });
}
</script>`;

const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

test("in headless Chromium: proofs from URLs, snarkjs' signals, the node build's bytes", async (t) => {
  const browser = chromium();
  if (!browser) {
    process.stderr.write("!! SKIP (npm package test): no chromium (Debian's chromium, or ZKACCEL_CHROMIUM): the browser entry is not tested\n");
    return t.skip("no chromium");
  }
  let deliver;
  const result = new Promise((r) => (deliver = r));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (req.method === "POST" && url.pathname === "/result") {
      let body = "";
      for await (const chunk of req) body += chunk;
      res.end("ok");
      return deliver(JSON.parse(body));
    }
    const served = [["/pkg/", pkgDir], ["/fixtures/", fixtures]];
    const hit = served.find(([prefix]) => url.pathname.startsWith(prefix));
    try {
      if (url.pathname === "/test.html") {
        res.setHeader("content-type", "text/html");
        return res.end(PAGE);
      }
      if (!hit || url.pathname.includes("..")) throw new Error("not found");
      const data = await readFile(path.join(hit[1], url.pathname.slice(hit[0].length)));
      res.setHeader("content-type", TYPES[path.extname(url.pathname)] ?? "application/octet-stream");
      res.end(data);
    } catch {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const profile = await mkdtemp(path.join(tmpdir(), "zkaccel-chromium-"));
  const args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
    `--user-data-dir=${profile}`, `http://127.0.0.1:${server.address().port}/test.html`];
  // Its own process group: Debian's chromium is a wrapper script, and the
  // browser's helper processes are killed with it.
  const child = spawn(browser, args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
  const gone = new Promise((r) => child.on("exit", r));
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((r) => child.on("exit", (code) => r(`chromium exited (${code}) before the page answered:\n${stderr.slice(-2000)}`)));
  const timeout = new Promise((r) => setTimeout(() => r("no answer from the page within 120 s"), 120_000).unref());
  try {
    const got = await Promise.race([result, exited, timeout]);
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
      assert.notDeepEqual(p.fresh.proof, p.seeded.proof);
    }
    assert.match(got.truncated, /^Error: zkey: /, got.truncated);
  } finally {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    await gone;
    server.close();
    await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
});
