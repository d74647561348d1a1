// The package's API over the wasm-bindgen bindings, the same in node and in
// browsers: snarkjs' `groth16.prove` / `groth16.verify` shapes, and a
// Prover that decodes a key once. `load(source)` turns an argument into
// bytes (node: a path; browsers: a URL); `bindings()` gives the module
// initialised on this thread; `env` the worker pool's needs: `module()`
// (the compiled WebAssembly.Module), `spawn()` (a worker) and `cores`
// (node.js and browser.js, the two entry points, supply them).
import { Pool } from "./pool.js";
import { WitnessCalculator } from "./witness.js";

function asBytes(x, what) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  throw new TypeError(`${what}: expected a Uint8Array, an ArrayBuffer or a file name, got ${typeof x}`);
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

    /** Decodes a zkey (bytes, or a file name / URL). `options.workers`:
     * how many workers (default 2, or 1 on a one-core machine; at most 2
     * are used); 0 proves on the calling thread, which it then blocks. */
    static async create(zkey, options = {}) {
      const b = await bytesOf(zkey, "zkey");
      const n = Math.min(2, options.workers ?? Math.min(2, env.cores()));
      if (!Number.isInteger(n) || n < 0) throw new TypeError(`workers: expected a count, got ${options.workers}`);
      try {
        if (n > 0) {
          const { pool, info } = await Pool.create(n, env.spawn, await env.module(), b);
          return new Prover(null, pool, info);
        }
        const m = await bindings();
        const inner = new m.Prover(b);
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
