// circom 2's WebAssembly witness calculator run by the host's own engine
// (the browser's or node's): input.json's signals in, the witness out as
// the .wtns bytes `snarkjs wtns calculate` writes. The same protocol as
// circom's witness_calculator.js and zkaccel-witness: signals addressed by
// the FNV-1a 64 hash of their names, values through the module's shared
// read-write memory, 32-bit words little-endian.

const ERRORS = {
  1: "Signal not found.",
  2: "Too many signals set.",
  3: "Signal already set.",
  4: "Assert Failed.",
  5: "Not enough memory.",
  6: "Input signal array access exceeds the size.",
  7: "Out of bounds array access.",
};

/** The FNV-1a 64 hash of a name's UTF-16 units, as [high, low] i32 halves. */
export function fnv1aHalves(name) {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < name.length; i++) {
    h ^= BigInt(name.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return [Number(BigInt.asIntN(32, h >> 32n)), Number(BigInt.asIntN(32, h & 0xffffffffn))];
}

/** A value of input.json as JavaScript's BigInt reads it; why not, else. */
function bigint(v, where) {
  if (typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? 1n : 0n;
  if ((typeof v === "number" && Number.isInteger(v)) || (typeof v === "string" && v.trim() !== "")) {
    try {
      return BigInt(v);
    } catch {}
  }
  throw new Error(`input ${where}: ${JSON.stringify(v)} is not an integer`);
}

/** input.json's signals in file order: [qualified name, BigInt values]. */
export function flattenInputs(input) {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new Error("input: expected a JSON object of signals");
  }
  const out = [];
  const walk = (name, v) => {
    if (Array.isArray(v) && v.some((x) => x !== null && typeof x === "object" && !Array.isArray(x))) {
      v.forEach((x, i) => walk(`${name}[${i}]`, x));
    } else if (Array.isArray(v)) {
      const flat = v.flat(Infinity);
      out.push([name, flat.map((x, i) => bigint(x, `${name}[${i}]`))]);
    } else if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) walk(`${name}.${k}`, v[k]);
    } else {
      out.push([name, [bigint(v, name)]]);
    }
  };
  for (const k of Object.keys(input)) walk(k, input[k]);
  return out;
}

/** A compiled circuit.wasm, instantiated afresh for each witness. */
export class WitnessCalculator {
  #module;
  constructor(module, info) {
    this.#module = module;
    Object.assign(this, info);
  }

  /** Compiles the circuit's wasm (bytes) and reads its version, prime and sizes. */
  static async create(wasm) {
    let module;
    try {
      module = await WebAssembly.compile(wasm);
    } catch (e) {
      throw new Error(`circuit wasm: not a WebAssembly module (${e.message})`);
    }
    const { ex } = await instantiate(module);
    for (const f of ["getVersion", "getFieldNumLen32", "getRawPrime", "getWitnessSize", "init", "getInputSignalSize", "setInputSignal", "getWitness", "readSharedRWMemory", "writeSharedRWMemory"]) {
      if (typeof ex[f] !== "function") throw new Error(`circuit wasm: no export ${f}: not circom 2's witness calculator`);
    }
    const version = ex.getVersion();
    if (version !== 2) throw new Error(`circuit wasm: circom version ${version}: only circom 2's calculator is supported`);
    const n32 = ex.getFieldNumLen32();
    ex.getRawPrime();
    let prime = 0n;
    for (let j = n32 - 1; j >= 0; j--) prime = (prime << 32n) | BigInt(ex.readSharedRWMemory(j) >>> 0);
    return new WitnessCalculator(module, { n32, prime, witnessSize: ex.getWitnessSize() });
  }

  /** The witness of `input` (an object, as JSON.parse gives input.json) as .wtns bytes. */
  async calculateWtns(input) {
    const signals = flattenInputs(input);
    const { ex, failure } = await instantiate(this.#module);
    const n32 = this.n32;
    const call = (f, ...args) => {
      try {
        return f(...args);
      } catch (e) {
        throw new Error(`witness: ${failure.message ?? `the circuit trapped: ${e.message}`}`);
      }
    };
    call(ex.init, 1);
    let set = 0;
    for (const [name, values] of signals) {
      const [msb, lsb] = fnv1aHalves(name);
      const size = call(ex.getInputSignalSize, msb, lsb);
      if (size <= 0) throw new Error(`witness: the circuit has no input signal ${name}`);
      if (values.length !== size) throw new Error(`witness: input ${name} has ${values.length} values, the circuit takes ${size}`);
      values.forEach((v, i) => {
        const r = ((v % this.prime) + this.prime) % this.prime;
        for (let j = 0; j < n32; j++) ex.writeSharedRWMemory(j, Number((r >> BigInt(32 * j)) & 0xffffffffn));
        call(ex.setInputSignal, msb, lsb, i);
        set++;
      });
    }
    if (typeof ex.getInputSize === "function" && set < ex.getInputSize()) {
      throw new Error(`witness: ${set} input values set, the circuit takes ${ex.getInputSize()}`);
    }
    const n8 = 4 * n32;
    const out = new Uint8Array(32 + n8 + 12 + n8 * this.witnessSize);
    const view = new DataView(out.buffer);
    out.set([0x77, 0x74, 0x6e, 0x73]); // "wtns"
    view.setUint32(4, 2, true); // version
    view.setUint32(8, 2, true); // sections
    view.setUint32(12, 1, true); // header section
    view.setBigUint64(16, BigInt(n8 + 8), true);
    view.setUint32(24, n8, true);
    for (let j = 0; j < n32; j++) view.setUint32(28 + 4 * j, Number((this.prime >> BigInt(32 * j)) & 0xffffffffn), true);
    view.setUint32(28 + n8, this.witnessSize, true);
    let at = 28 + n8 + 4;
    view.setUint32(at, 2, true); // witness section
    view.setBigUint64(at + 4, BigInt(n8 * this.witnessSize), true);
    at += 12;
    for (let i = 0; i < this.witnessSize; i++) {
      call(ex.getWitness, i);
      for (let j = 0; j < n32; j++, at += 4) view.setUint32(at, ex.readSharedRWMemory(j) >>> 0, true);
    }
    return out;
  }
}

/** An instance with circom's runtime imports; `failure.message` holds the
 * circuit's own error once it has stopped through exceptionHandler. */
async function instantiate(module) {
  const failure = {};
  const lines = [];
  let ex;
  const text = () => {
    let s = "";
    for (let c = ex.getMessageChar(); c !== 0; c = ex.getMessageChar()) s += String.fromCharCode(c);
    return s;
  };
  const runtime = {
    exceptionHandler(code) {
      failure.message = [ERRORS[code] ?? "Unknown error.", ...lines.map((l) => l.trimEnd())].join(" ");
      throw new Error(failure.message);
    },
    printErrorMessage() {
      lines.push(text());
    },
    writeBufferMessage() {
      text(); // the circuit's log() output: not printed by a library
    },
    showSharedRWMemory() {},
  };
  const instance = await WebAssembly.instantiate(module, { runtime });
  ex = instance.exports;
  return { ex, failure };
}
