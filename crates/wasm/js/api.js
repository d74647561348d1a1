// The package's API over the wasm-bindgen bindings, the same in node and in
// browsers: snarkjs' `groth16.prove` / `groth16.verify` shapes, and a
// Prover that decodes a key once, as it arrives. `load(source)` turns an
// argument into bytes (node: a path; browsers: a URL); `bindings()` gives
// the module initialised on this thread; `env` the worker pool's needs:
// `module()` (the compiled WebAssembly.Module), `spawn()` (a worker),
// `cores`, and `open(source)`, a key's chunks (node: a file's read stream;
// browsers: a fetch Response) (node.js and browser.js, the two entry
// points, supply them).
import { Pool, feed } from "./pool.js";
import { WitnessCalculator } from "./witness.js";

function asBytes(x, what) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError(`${what}: expected a Uint8Array, an ArrayBuffer or a file name, got ${typeof x}`);
}

// The size of the chunks a key is sent and decoded in.
const CHUNK = 1 << 20;

// The source's bytes in chunks of CHUNK (the last shorter), each copied
// into a buffer of its own as it arrives: a fetch body's chunks are often
// 16-64 KiB, and a source may reuse its buffer once it has yielded it.
async function* rechunk(chunks) {
  let buf = new Uint8Array(CHUNK);
  let n = 0;
  for await (const c of chunks) {
    let b = asBytes(c, "zkey chunk");
    while (b.length > 0) {
      const k = Math.min(CHUNK - n, b.length);
      buf.set(b.subarray(0, k), n);
      n += k;
      b = b.subarray(k);
      if (n === CHUNK) {
        yield buf;
        buf = new Uint8Array(CHUNK);
        n = 0;
      }
    }
  }
  if (n > 0) yield buf.subarray(0, n);
}

// A stream reader's chunks (without relying on a ReadableStream's async
// iteration, which older engines lack).
async function* readerChunks(reader) {
  for (;;) {
    const r = await reader.read();
    if (r.done) return;
    yield r.value;
  }
}

function asText(x, what) {
  if (typeof x === "string") return x;
  if (x !== null && typeof x === "object") return JSON.stringify(x);
  throw new TypeError(`${what}: expected an object or its JSON text, got ${typeof x}`);
}

function output([proof, publicSignals]) {
  return { proof: JSON.parse(proof), publicSignals: JSON.parse(publicSignals) };
}

// A Rust error arrives as an Error whose message is the error's text; keep
// it, and say which argument it was about.
function rethrow(e, what) {
  if (e instanceof Error) {
    e.message = `${what}: ${e.message}`;
    throw e;
  }
  throw new Error(`${what}: ${String(e)}`);
}

export function makeApi(bindings, load, env) {
  const bytesOf = async (x, what) => asBytes(typeof x === "string" ? await load(x) : x, what);

  // A key as chunks in file order: bytes sliced, a file name / URL
  // streamed (env.open), a fetch Response's body or a ReadableStream read
  // as it arrives, or any async iterable of bytes. `cancel()` stops the
  // source at once, even during a read (a download is aborted); before
  // the first read, it cancels a stream or response the caller gave.
  function keyChunks(source) {
    let reader = null;
    let cancelled = false;
    const isResponse = (x) => typeof Response !== "undefined" && x instanceof Response;
    const isStream = (x) => typeof ReadableStream !== "undefined" && x instanceof ReadableStream;
    async function* chunks() {
      let x = typeof source === "string" ? await env.open(source) : source;
      if (isResponse(x)) {
        if (!x.ok) {
          x.body?.cancel().catch(() => {});
          throw new Error(`${x.url}: HTTP ${x.status}`);
        }
        x = x.body;
      }
      if (isStream(x)) {
        reader = x.getReader();
        if (cancelled) reader.cancel().catch(() => {});
        try {
          yield* rechunk(readerChunks(reader));
        } finally {
          reader.cancel().catch(() => {});
        }
      } else if (x !== null && typeof x === "object" && Symbol.asyncIterator in x) {
        yield* rechunk(x);
      } else {
        const b = asBytes(x, "zkey");
        for (let at = 0; at < b.length; at += CHUNK) yield b.subarray(at, at + CHUNK);
      }
    }
    const it = chunks();
    return {
      [Symbol.asyncIterator]: () => it,
      cancel() {
        cancelled = true;
        if (reader) {
          reader.cancel().catch(() => {});
        } else if (isStream(source) && !source.locked) {
          source.cancel().catch(() => {});
        } else if (isResponse(source) && source.body && !source.body.locked) {
          source.body.cancel().catch(() => {});
        }
      },
    };
  }

  /** A snarkjs Groth16 key decoded once, to prove many witnesses: in a
   * pool of workers (each with its own copy of the key; two share each
   * proof), or on the calling thread with `workers: 0`. */
  class Prover {
    #inner;
    #pool;
    #info;
    constructor(inner, pool, info) {
      this.#inner = inner;
      this.#pool = pool;
      this.#info = info;
    }

    /** Decodes a zkey as it arrives: bytes, a file name (node) or URL
     * (browsers), a fetch Response, a ReadableStream or an async iterable
     * of bytes; each chunk is decoded while the next is read, so the whole
     * file is never held beside the decoded key. `options.workers`: how
     * many workers (default 2, or 1 on a one-core machine; at most 2 are
     * used); 0 proves on the calling thread, which it then blocks. */
    static async create(zkey, options = {}) {
      const n = Math.min(2, options.workers ?? Math.min(2, env.cores()));
      if (!Number.isInteger(n) || n < 0) throw new TypeError(`workers: expected a count, got ${options.workers}`);
      if (zkey === null || !["string", "object"].includes(typeof zkey)) {
        throw new TypeError(`zkey: expected bytes, a file name or URL, a Response or a stream, got ${typeof zkey}`);
      }
      try {
        if (n > 0) {
          const { pool, info } = await Pool.create(n, env.spawn, await env.module(), keyChunks(zkey));
          return new Prover(null, pool, info);
        }
        const m = await bindings();
        const stream = new m.ProverStream();
        try {
          await feed(keyChunks(zkey), (b) => stream.push(b));
        } catch (e) {
          stream.free();
          throw e;
        }
        const inner = stream.finish();
        return new Prover(inner, null, { curve: inner.curve, nVars: inner.nVars, nPublic: inner.nPublic });
      } catch (e) {
        rethrow(e, "zkey");
      }
    }

    #live() {
      if (!this.#inner && !this.#pool) throw new Error("this Prover was freed");
      return this.#inner;
    }

    /** `{proof, publicSignals}` as snarkjs' groth16.prove returns them. */
    async prove(wtns, options = {}) {
      const b = await bytesOf(wtns, "wtns");
      const seed = options.testSeed === undefined ? undefined : BigInt(options.testSeed);
      const p = this.#live();
      try {
        if (this.#pool) return output(await this.#pool.prove(b, seed));
        return output(seed === undefined ? p.prove(b) : p.proveWithTestSeed(b, seed));
      } catch (e) {
        rethrow(e, "prove");
      }
    }

    /** snarkjs' name of the key's curve: "bn128" or "bls12381". */
    get curve() {
      this.#live();
      return this.#info.curve;
    }

    /** The signals a witness has (the key's nVars). */
    get nVars() {
      this.#live();
      return this.#info.nVars;
    }

    /** The public signals a proof has (the key's nPublic). */
    get nPublic() {
      this.#live();
      return this.#info.nPublic;
    }

    /** How many workers prove (0: the calling thread). */
    get workers() {
      return this.#pool ? this.#pool.size : 0;
    }

    /** The verification key, as snarkjs exports vkey.json (an object). */
    async vkey() {
      const p = this.#live();
      return JSON.parse(this.#pool ? await this.#pool.call(0, { op: "vkey" }) : p.vkeyJson());
    }

    /** Ends the workers (or frees the key's memory) now. */
    free() {
      if (this.#inner) this.#inner.free();
      if (this.#pool) this.#pool.terminate();
      this.#inner = undefined;
      this.#pool = undefined;
    }
  }

  async function calculator(wasm) {
    if (wasm instanceof WitnessCalculator) return wasm;
    return WitnessCalculator.create(await bytesOf(wasm, "circuit wasm"));
  }

  const wtns = {
    /** snarkjs' wtns.calculate: input.json's object and the circuit's
     * wasm (bytes, a file name / URL, or a WitnessCalculator) in, the .wtns
     * bytes out, computed by this engine's WebAssembly. */
    async calculate(input, wasm) {
      return (await calculator(wasm)).calculateWtns(input);
    },
  };

  const groth16 = {
    /** snarkjs' groth16.fullProve(input, wasm, zkey): the witness from the
     * circuit's wasm, then the proof. */
    async fullProve(input, wasm, zkey, options = {}) {
      const w = await wtns.calculate(input, wasm);
      return groth16.prove(zkey, w, options);
    },

    /** snarkjs' groth16.prove(zkey, wtns): the key decoded, one proof. */
    async prove(zkey, wtns, options = {}) {
      const prover = await Prover.create(zkey, options);
      try {
        return await prover.prove(wtns, options);
      } finally {
        prover.free();
      }
    },

    /** snarkjs' groth16.verify(vkey, publicSignals, proof): true or false;
     * malformed input rejects. */
    async verify(vkey, publicSignals, proof) {
      const m = await bindings();
      const args = [asText(vkey, "vkey"), asText(publicSignals, "publicSignals"), asText(proof, "proof")];
      try {
        return m.verify(...args);
      } catch (e) {
        rethrow(e, "verify");
      }
    },
  };

  /** Which field kernels the module runs. */
  async function kernel() {
    return (await bindings()).kernel();
  }

  return { Prover, groth16, wtns, WitnessCalculator, kernel };
}
