// The npm package in node (node:test), on the committed circom fixtures:
// every proof has snarkjs' public signals and is accepted by snarkjs'
// verifier (its npm module), with a fixed seed it equals the native
// zkaccel-prover's byte for byte, and bad input rejects with an Error that
// names the problem. Run by scripts/npm-check.sh:
//
//   ZKACCEL_NPM_PKG=target/npm/zkaccel   the built package (scripts/npm-build.sh)
//   ZKACCEL_SNARKJS=.../bin/snarkjs      snarkjs (scripts/circom-fixtures.sh --install)
//   ZKACCEL_PROVER=target/debug/zkaccel-prover   the native prover
//
// Without snarkjs or the native prover those checks say SKIP on stderr.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { readdirSync, createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../../..");
const fixtures = path.join(root, "crates/circom/tests/fixtures");
const pkgDir = path.resolve(root, process.env.ZKACCEL_NPM_PKG ?? "target/npm/zkaccel");
const { groth16, Prover, kernel, wtns, WitnessCalculator } = await import(pathToFileURL(path.join(pkgDir, "node.js")).href);

const FIXTURES = ["poseidon", "poseidon_bls", "arrays", "merkle", "nopublic"];
const file = (name, f) => path.join(fixtures, name, f);
const bytes = (name, f) => readFile(file(name, f));
const json = async (name, f) => JSON.parse(await readFile(file(name, f), "utf8"));

function skip(what) {
  process.stderr.write(`!! SKIP (npm package test): ${what}\n`);
}

// snarkjs' own verifier, from the install the circom tests use.
let snarkjs = null;
if (process.env.ZKACCEL_SNARKJS) {
  const modules = path.resolve(path.dirname(process.env.ZKACCEL_SNARKJS), "..");
  snarkjs = createRequire(path.join(modules, "noop.js"))("snarkjs");
}
const native = process.env.ZKACCEL_PROVER;
// snarkjs keeps its curves (and their worker threads) in globals: end them,
// or node never exits.
after(async () => {
  for (const c of ["curve_bn128", "curve_bls12381"]) await globalThis[c]?.terminate();
});

test("the module runs the portable field kernels", async () => {
  const k = await kernel();
  assert.match(k, /portable/, k);
});

for (const name of FIXTURES) {
  test(`${name}: snarkjs' public signals, accepted by snarkjs' verifier`, async () => {
    const zkey = await bytes(name, "circuit.zkey");
    const { proof, publicSignals } = await groth16.prove(zkey, await bytes(name, "witness.wtns"));
    assert.deepEqual(publicSignals, await json(name, "public.json"));
    const vkey = await json(name, "vkey.json");
    assert.equal(await groth16.verify(vkey, publicSignals, proof), true);
    if (snarkjs) {
      assert.equal(await snarkjs.groth16.verify(vkey, publicSignals, proof), true, "snarkjs rejects the proof");
    } else {
      skip(`${name}: snarkjs not installed (ZKACCEL_SNARKJS): checked with this package's verifier only`);
    }
  });

  test(`${name}: with a fixed seed, the native zkaccel-prover's proof byte for byte`, async (t) => {
    if (!native) {
      skip(`${name}: no native prover (ZKACCEL_PROVER): not compared byte for byte`);
      return t.skip("no native prover (ZKACCEL_PROVER)");
    }
    const dir = await mkdtemp(path.join(tmpdir(), "zkaccel-npm-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const [p, s] = [path.join(dir, "proof.json"), path.join(dir, "public.json")];
    const zkey = file(name, "circuit.zkey");
    const wtns = file(name, "witness.wtns");
    execFileSync(native, ["--test-seed", "42", zkey, wtns, p, s], { stdio: ["ignore", "ignore", "inherit"] });
    // A file name is read by the package itself (node: fs).
    const out = await groth16.prove(zkey, wtns, { testSeed: 42 });
    assert.equal(JSON.stringify(out.proof, null, 1), await readFile(p, "utf8"));
    // The signals' values (snarkjs writes an empty list as "[\n]", which
    // JSON.stringify does not).
    assert.deepEqual(out.publicSignals, JSON.parse(await readFile(s, "utf8")));
  });
}

for (const name of FIXTURES) {
  test(`${name}: the witness from circuit.wasm in node's engine is snarkjs' .wtns byte for byte`, async () => {
    const input = await json(name, "input.json");
    const w = await wtns.calculate(input, await bytes(name, "circuit.wasm"));
    assert.deepEqual(Buffer.from(w), await bytes(name, "witness.wtns"));
    const { proof, publicSignals } = await groth16.fullProve(input, file(name, "circuit.wasm"), file(name, "circuit.zkey"));
    assert.deepEqual(publicSignals, await json(name, "public.json"));
    assert.equal(await groth16.verify(await json(name, "vkey.json"), publicSignals, proof), true);
  });
}

test("input names and hashes as circom's calculator forms them", async () => {
  const { flattenInputs, fnv1aHalves } = await import(pathToFileURL(path.join(pkgDir, "witness.js")).href);
  // The published FNV-1a 64 test vectors (draft-eastlake-fnv).
  const h = (s) => {
    const [m, l] = fnv1aHalves(s);
    return ((BigInt(m >>> 0) << 32n) | BigInt(l >>> 0)).toString(16);
  };
  assert.equal(h(""), "cbf29ce484222325");
  assert.equal(h("a"), "af63dc4c8601ec8c");
  assert.equal(h("foobar"), "85944171f73967e8");
  // Buses (circom 2.2): objects and arrays of objects qualify the names.
  const got = flattenInputs({ m: [[1, 2], ["3", "0x4"]], s: { x: true }, b: [{ y: 1 }, { y: "-2" }] });
  assert.deepEqual(got, [["m", [1n, 2n, 3n, 4n]], ["s.x", [1n]], ["b[0].y", [1n]], ["b[1].y", [-2n]]]);
  assert.throws(() => flattenInputs({ a: [1, null] }), /input a\[1\]: null is not an integer/);
  assert.throws(() => flattenInputs({ a: "" }), /input a: "" is not an integer/);
});

test("a WitnessCalculator is compiled once and reused; input orders and forms as snarkjs reads them", async () => {
  const calc = await WitnessCalculator.create(await bytes("arrays", "circuit.wasm"));
  const expected = await bytes("arrays", "witness.wtns");
  // The fixture mixes strings, numbers, hex and a negative value.
  const input = await json("arrays", "input.json");
  for (let i = 0; i < 3; i++) assert.deepEqual(Buffer.from(await calc.calculateWtns(input)), expected);
  // The same values written otherwise: BigInt, booleans for 0/1, the negative one as p - 6.
  const p = calc.prime;
  const other = { a: [[1n, 2, "3"], ["4", 5n, (p - 6n).toString()]], k: true };
  assert.deepEqual(Buffer.from(await calc.calculateWtns(other)), expected);
});

test("bad inputs to the witness reject with an Error naming the signal", async () => {
  const wasm = await bytes("arrays", "circuit.wasm");
  const zkey = await bytes("arrays", "circuit.zkey");
  const input = await json("arrays", "input.json");
  await assert.rejects(wtns.calculate({ ...input, nope: "1" }, wasm), /no input signal nope/);
  await assert.rejects(wtns.calculate({ ...input, k: ["1", "2"] }, wasm), /input k has 2 values, the circuit takes 1/);
  await assert.rejects(wtns.calculate({ a: input.a }, wasm), /input values set/);
  await assert.rejects(wtns.calculate({ ...input, k: "1.5" }, wasm), /input k: "1.5" is not an integer/);
  await assert.rejects(wtns.calculate([1, 2], wasm), /JSON object of signals/);
  // A circuit's own assert (merkle's bits must be 0 or 1): circom's message.
  const merkle = { ...(await json("merkle", "input.json")), bits: ["2", "1", "1", "0"] };
  await assert.rejects(wtns.calculate(merkle, await bytes("merkle", "circuit.wasm")), /^Error: witness: Assert Failed\. Error in template/);
  await assert.rejects(wtns.calculate(input, new Uint8Array([0, 97, 115, 109, 9])), /not a WebAssembly module/);
  // Another circuit's wasm: its witness does not fit this key.
  await assert.rejects(groth16.fullProve(await json("poseidon", "input.json"), await bytes("poseidon", "circuit.wasm"), zkey), /witness length/);
  // Another curve's circuit: its prime is not the key's.
  await assert.rejects(groth16.fullProve(await json("poseidon_bls", "input.json"), await bytes("poseidon_bls", "circuit.wasm"), await bytes("poseidon", "circuit.zkey")), /prime|witness/);
});

test("a Prover decodes once and proves many times", async () => {
  const zkey = await bytes("poseidon", "circuit.zkey");
  const kept = Buffer.from(zkey);
  const prover = await Prover.create(zkey, { workers: 2 });
  // The workers were sent copies: the caller's bytes are still there.
  assert.equal(prover.workers, 2);
  assert.ok(zkey.equals(kept), "Prover.create changed or detached the caller's zkey bytes");
  const wtns = await bytes("poseidon", "witness.wtns");
  assert.equal(prover.curve, "bn128");
  assert.equal(prover.nPublic, (await json("poseidon", "public.json")).length);
  assert.deepEqual(await prover.vkey(), await json("poseidon", "vkey.json"));
  const a = await prover.prove(wtns, { testSeed: 1 });
  const b = await prover.prove(wtns, { testSeed: 1 });
  const c = await prover.prove(wtns);
  const d = await prover.prove(wtns);
  assert.deepEqual(a, b);
  assert.notDeepEqual(c.proof, d.proof, "two proofs with fresh randomness are equal");
  const vkey = await prover.vkey();
  for (const o of [a, c, d]) assert.equal(await groth16.verify(vkey, o.publicSignals, o.proof), true);
  prover.free();
  await assert.rejects(prover.prove(wtns), /freed/);
});

test("0, 1 and 2 workers give the same proof; the pool's answers are the calling thread's", async () => {
  for (const name of ["poseidon", "poseidon_bls"]) {
    const zkey = await bytes(name, "circuit.zkey");
    const wtns = await bytes(name, "witness.wtns");
    const outs = [];
    for (const workers of [0, 1, 2]) {
      const prover = await Prover.create(zkey, { workers });
      assert.equal(prover.workers, workers);
      assert.equal(prover.curve, name.endsWith("_bls") ? "bls12381" : "bn128");
      outs.push(await prover.prove(wtns, { testSeed: 5 }));
      assert.deepEqual(await prover.vkey(), await json(name, "vkey.json"));
      prover.free();
    }
    assert.deepEqual(outs[1], outs[0], `${name}: 1 worker`);
    assert.deepEqual(outs[2], outs[0], `${name}: 2 workers`);
    // Later proofs of the pool split H by its plan: the same proof each time.
    const prover = await Prover.create(zkey, { workers: 2 });
    for (let i = 0; i < 4; i++) assert.deepEqual(await prover.prove(wtns, { testSeed: 5 }), outs[0], `${name}: proof ${i}`);
    prover.free();
  }
});

test("every kind of plan gives the same proof: the quotient whole or split, H at any k, B2 on either side", async () => {
  const { testing } = await import(pathToFileURL(path.join(pkgDir, "pool.js")).href);
  for (const name of ["poseidon_bls", "arrays"]) {
    const zkey = await bytes(name, "circuit.zkey");
    const wtns = await bytes(name, "witness.wtns");
    const alone = await Prover.create(zkey, { workers: 0 });
    const want = await alone.prove(wtns, { testSeed: 8 });
    alone.free();
    const prover = await Prover.create(zkey, { workers: 2 });
    try {
      for (const split of [false, true]) {
        for (const b2OnFirst of [false, true]) {
          for (const at of [0, 0.4, 1]) {
            testing.plan = (_, n) => ({ k: Math.round(at * n), b2OnFirst, split });
            const got = await prover.prove(wtns, { testSeed: 8 });
            assert.deepEqual(got, want, `${name}: ${JSON.stringify({ split, b2OnFirst, at })}`);
          }
        }
      }
      // A bad witness on a split plan: rejected, and the pool still proves.
      testing.plan = (_, n) => ({ k: n >> 1, b2OnFirst: false, split: true });
      await assert.rejects(prover.prove(wtns.subarray(0, wtns.length - 32)), Error);
      assert.deepEqual(await prover.prove(wtns, { testSeed: 8 }), want, `${name}: after a rejection`);
    } finally {
      testing.plan = null;
      prover.free();
    }
  }
});

test("the pool's plan: H split to even the two workers' times, B2 where it finishes first", async () => {
  const { plan } = await import(pathToFileURL(path.join(pkgDir, "pool.js")).href);
  const n = 1 << 16;
  // Before any proof: H whole on worker 1 with B2 and the quotient.
  assert.deepEqual(plan(null, n), { k: n, b2OnFirst: true, split: false });
  // Bits (cheap L, A, B1 and B2): the quotient split (C's column on worker
  // 0, then L, A, B1 and B2 there, done before worker 1 finishes the
  // quotient at 2q/3), and H halved.
  const bits = plan({ q: 380, h: 800, l: 60, b2: 50 }, n);
  assert.deepEqual(bits, { k: Math.round(0.5 * n), b2OnFirst: false, split: true });
  // Dense: B2 beside the quotient, H split so that both end together:
  // q + b2 + x h = l + (1 - x) h.
  // (Split, the same time: the plan found first is kept.)
  const dense = plan({ q: 400, h: 600, l: 1600, b2: 1200 }, n);
  assert.deepEqual(dense, { k: Math.round(((1600 + 600 - 400 - 1200) / 1200) * n), b2OnFirst: true, split: false });
  // L, A and B1 alone outlast all the rest: H stays whole on worker 1.
  assert.deepEqual(plan({ q: 100, h: 100, l: 5000, b2: 100 }, n), { k: n, b2OnFirst: true, split: false });
  // Every plan's k is a term count in 0..n.
  for (const t of [{ q: 0, h: 0, l: 0, b2: 0 }, { q: 1, h: 1e9, l: 0, b2: 0 }, { q: 0, h: 1, l: 1e9, b2: 1e9 }]) {
    const { k } = plan(t, n);
    assert.ok(Number.isInteger(k) && k >= 0 && k <= n, `${JSON.stringify(t)}: k = ${k}`);
  }
});

test("the first proof's plan: witness counts read from the .wtns, bits split H, a dense witness keeps most of it on one side", async () => {
  const { witnessCounts, estimate, plan } = await import(pathToFileURL(path.join(pkgDir, "pool.js")).href);
  // The counts against snarkjs' own JSON export of the same witness
  // (witness.json is not committed: the values from the .wtns through
  // BigInt here, a second reading of the format).
  for (const name of FIXTURES) {
    const w = await bytes(name, "witness.wtns");
    const n8 = w.readUInt32LE(24);
    const count = w.readUInt32LE(28 + n8);
    const values = 28 + n8 + 4 + 12;
    let dense = 0;
    let ones = 0;
    for (let i = 0; i < count; i++) {
      let v = 0n;
      for (let b = n8 - 1; b >= 0; b--) v = (v << 8n) | BigInt(w[values + i * n8 + b]);
      if (v === 1n) ones++;
      else if (v !== 0n) dense++;
    }
    assert.deepEqual(witnessCounts(new Uint8Array(w)), { dense, ones }, name);
  }
  // Not a wtns, or cut short: no counts (the workers reject it themselves).
  const w = new Uint8Array(await bytes("arrays", "witness.wtns"));
  for (const bad of [new Uint8Array(0), w.subarray(0, 11), w.subarray(0, w.length - 1), await bytes("arrays", "circuit.zkey")]) {
    assert.equal(witnessCounts(bad), null);
  }
  const n = 1 << 16;
  // All bits: the quotient split, both workers take about half of H.
  const bits = plan(estimate(n, { dense: 0, ones: 25000 }), n);
  assert.ok(bits.split && bits.k > 0.45 * n && bits.k < 0.6 * n, `bits: ${JSON.stringify(bits)}`);
  // Dense: L, A, B1 and B2 outweigh the rest; most of H stays on the
  // quotient's worker, with B2.
  const dense = plan(estimate(n, { dense: 62000, ones: 0 }), n);
  assert.ok(dense.b2OnFirst && dense.k > 0.65 * n && dense.k < 0.75 * n, `dense: ${JSON.stringify(dense)}`);
  // Unknown counts: every value taken as dense.
  assert.deepEqual(estimate(n, null), estimate(n, { dense: n, ones: 0 }));
});

// The process's threads (Linux): a worker is a thread of its own.
const threads = () => readdirSync("/proc/self/task").length;
async function settle(limit) {
  for (let i = 0; i < 100 && threads() > limit; i++) await new Promise((r) => setTimeout(r, 20));
  return threads();
}

test("no worker is left running: after free, a rejected key, a rejected witness", async (t) => {
  if (process.platform !== "linux") return t.skip("counts threads in /proc");
  const zkey = await bytes("poseidon", "circuit.zkey");
  const wtns = await bytes("poseidon", "witness.wtns");
  // Warm: the first proof starts node's own helper threads.
  (await Prover.create(zkey, { workers: 2 })).free();
  // The count once the warm-up's workers have gone (it stops falling).
  let before = threads();
  for (let same = 0; same < 10; ) {
    await new Promise((r) => setTimeout(r, 20));
    const now = threads();
    same = now === before ? same + 1 : 0;
    before = now;
  }
  const p = await Prover.create(zkey, { workers: 2 });
  assert.ok(threads() >= before + 2, `${threads()} threads with 2 workers, ${before} before`);
  p.free();
  assert.ok((await settle(before)) <= before, "workers left after free()");
  // A rejected key ends the pool's other worker while it may still be
  // starting (node aborted the process when that worker's module awaited
  // at its top level): many times, to give the race its chances.
  for (let i = 0; i < 20; i++) {
    await assert.rejects(Prover.create(zkey.subarray(0, 500), { workers: 2 }), /^Error: zkey: /);
  }
  assert.ok((await settle(before)) <= before, "workers left after a rejected key");
  const broken = Uint8Array.from(wtns);
  broken[broken.length - 32] ^= 1;
  await assert.rejects(groth16.prove(zkey, broken), /does not verify/);
  assert.ok((await settle(before)) <= before, "workers left after a rejected witness");
  await assert.rejects(Prover.create(zkey, { workers: -1 }), TypeError);
});

test("a key streamed (file name, ReadableStream, async iterable, bytes) proves as its bytes, with 0 and 2 workers", async () => {
  for (const name of ["poseidon", "poseidon_bls"]) {
    const zkey = await bytes(name, "circuit.zkey");
    const wtns = await bytes(name, "witness.wtns");
    const want = await groth16.prove(zkey, wtns, { testSeed: 9, workers: 0 });
    async function* pieces(size) {
      for (let at = 0; at < zkey.length; at += size) yield zkey.subarray(at, at + size);
    }
    const sources = {
      "file name": () => file(name, "circuit.zkey"),
      ReadableStream: () => Readable.toWeb(createReadStream(file(name, "circuit.zkey"), { highWaterMark: 4096 })),
      "async iterable of 1000 bytes": () => pieces(1000),
      "async iterable of 300 KB": () => pieces(300_000),
    };
    for (const [what, source] of Object.entries(sources)) {
      for (const workers of [0, 2]) {
        const got = await groth16.prove(source(), wtns, { testSeed: 9, workers });
        assert.deepEqual(got, want, `${name}: ${what}, ${workers} workers`);
      }
    }
  }
});

test("a truncated or foreign key stream rejects naming the fault, and the source is closed", async () => {
  const zkey = await bytes("poseidon", "circuit.zkey");
  const wtns = await bytes("poseidon", "witness.wtns");
  for (const workers of [0, 2]) {
    // A foreign file: rejected at its first chunk; the source is not read to
    // its end.
    let read = 0;
    let closed = false;
    async function* foreign() {
      try {
        for (let i = 0; i < 1000; i++) {
          read++;
          yield new Uint8Array(1 << 20);
        }
      } finally {
        closed = true;
      }
    }
    await assert.rejects(Prover.create(foreign(), { workers }), (e) => e instanceof Error && /^zkey: .*magic/.test(e.message));
    // Closed without waiting for it: settled within a few ticks.
    for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 2));
    assert.ok(closed && read < 5, `${workers} workers: ${read} chunks read, closed ${closed}`);
    // Truncated inside a point section.
    async function* cut() {
      yield zkey.subarray(0, zkey.length - 1000);
    }
    await assert.rejects(groth16.prove(cut(), wtns, { workers }), (e) => e instanceof Error && /zkey: .*truncated/.test(e.message));
    // A source that fails while the workers decode its first chunk: a
    // rejection (not an unhandled one, which would end node).
    async function* failing() {
      yield zkey.subarray(0, 1 << 20);
      await new Promise((r) => setTimeout(r, 1));
      throw new Error("the source broke");
    }
    await assert.rejects(Prover.create(failing(), { workers }), /^Error: zkey: the source broke/);
  }
  // A source that reuses one buffer for every chunk it yields.
  async function* reused() {
    const buf = new Uint8Array(7000);
    for (let at = 0; at < zkey.length; at += buf.length) {
      const piece = zkey.subarray(at, at + buf.length);
      buf.set(piece);
      yield buf.subarray(0, piece.length);
    }
  }
  const wtnsBytes = await bytes("poseidon", "witness.wtns");
  const want = await groth16.prove(zkey, wtnsBytes, { testSeed: 4, workers: 0 });
  for (const workers of [0, 2]) {
    assert.deepEqual(await groth16.prove(reused(), wtnsBytes, { testSeed: 4, workers }), want, `${workers} workers`);
  }
  await assert.rejects(Prover.create(42), TypeError);
});

test("snarkjs' proof verifies; a changed signal or another circuit's proof does not", async () => {
  const vkey = await json("arrays", "vkey.json");
  const proof = await json("arrays", "proof.json");
  const pub = await json("arrays", "public.json");
  assert.equal(await groth16.verify(vkey, pub, proof), true);
  const changed = [...pub];
  changed[changed.length - 1] = "2";
  assert.equal(await groth16.verify(vkey, changed, proof), false);
  assert.equal(await groth16.verify(vkey, pub, await json("merkle", "proof.json")), false);
});

/** A copy of a zkey whose header (section 2) says nPublic = `n`: after
 * n8q, q, n8r, r and nVars. */
function withNPublic(zkey, n) {
  const out = Uint8Array.from(zkey);
  const view = new DataView(out.buffer);
  let at = 12;
  while (view.getUint32(at, true) !== 2) at += 12 + Number(view.getBigUint64(at + 4, true));
  at += 12;
  at += 4 + view.getUint32(at, true);
  at += 4 + view.getUint32(at, true);
  view.setUint32(at + 4, n, true);
  return out;
}

test("bad input rejects with an Error naming the problem, and the module still proves", async () => {
  const zkey = await bytes("poseidon", "circuit.zkey");
  const wtns = await bytes("poseidon", "witness.wtns");
  for (const len of [0, 3, 100, zkey.length >> 1, zkey.length - 1]) {
    await assert.rejects(groth16.prove(zkey.subarray(0, len), wtns), (e) => e instanceof Error && /zkey/.test(e.message));
  }
  await assert.rejects(groth16.prove(wtns, wtns), /zkey/);
  // nPublic = 2^32 - 1 in the header: nPublic + 1 overflows a wasm32 usize.
  await assert.rejects(groth16.prove(withNPublic(zkey, 0xffffffff), wtns), /nPublic \+ 1 = 4294967296/);
  await assert.rejects(groth16.prove(zkey, await bytes("arrays", "witness.wtns")), /witness length/);
  await assert.rejects(groth16.prove(zkey, wtns.subarray(0, wtns.length - 1)), /wtns/);
  await assert.rejects(groth16.prove(zkey, 42), TypeError);
  const broken = Uint8Array.from(wtns);
  broken[broken.length - 32] ^= 1;
  await assert.rejects(groth16.prove(zkey, broken), /does not verify/);
  await assert.rejects(groth16.verify("{", "[]", "{}"), /verify/);
  await assert.rejects(groth16.verify(await json("arrays", "vkey.json"), ["1"], await json("arrays", "proof.json")), /public signals/);
  // No error poisoned the instance.
  const { publicSignals } = await groth16.prove(zkey, wtns);
  assert.deepEqual(publicSignals, await json("poseidon", "public.json"));
});
