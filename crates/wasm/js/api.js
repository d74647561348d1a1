// The package's API over the wasm-bindgen bindings, the same in node and in
// browsers: snarkjs' `groth16.prove` / `groth16.verify` shapes, and a
// Prover that decodes a key once. `load(source)` turns an argument into
// bytes (node: a path; browsers: a URL); `bindings()` gives the initialised
// module (node.js and browser.js, the two entry points, supply both).
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

export function makeApi(bindings, load) {
  const bytesOf = async (x, what) => asBytes(typeof x === "string" ? await load(x) : x, what);

  /** A snarkjs Groth16 key decoded once, to prove many witnesses. */
  class Prover {
    #inner;
    constructor(inner) {
      this.#inner = inner;
    }

    /** Decodes a zkey (bytes, or a file name / URL). */
    static async create(zkey) {
      const b = await bytesOf(zkey, "zkey");
      const m = await bindings();
      try {
        return new Prover(new m.Prover(b));
      } catch (e) {
        rethrow(e, "zkey");
      }
    }

    #live() {
      if (!this.#inner) throw new Error("this Prover was freed");
      return this.#inner;
    }

    /** `{proof, publicSignals}` as snarkjs' groth16.prove returns them. */
    async prove(wtns, options = {}) {
      const b = await bytesOf(wtns, "wtns");
      const p = this.#live();
      try {
        if (options.testSeed === undefined) return output(p.prove(b));
        return output(p.proveWithTestSeed(b, BigInt(options.testSeed)));
      } catch (e) {
        rethrow(e, "prove");
      }
    }

    /** snarkjs' name of the key's curve: "bn128" or "bls12381". */
    get curve() {
      return this.#live().curve;
    }

    /** The signals a witness has (the key's nVars). */
    get nVars() {
      return this.#live().nVars;
    }

    /** The public signals a proof has (the key's nPublic). */
    get nPublic() {
      return this.#live().nPublic;
    }

    /** The verification key, as snarkjs exports vkey.json (an object). */
    vkey() {
      return JSON.parse(this.#live().vkeyJson());
    }

    /** Frees the decoded key's WebAssembly memory now. */
    free() {
      if (this.#inner) this.#inner.free();
      this.#inner = undefined;
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
      const prover = await Prover.create(zkey);
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
