// The field benchmark's engine-neutral part (field.mjs runs it in node and
// in headless Chromium): chains of N dependent products x <- x y inside
// WebAssembly, one call a chain, on BN254's Fq and Fr, by zkaccel's kernel,
// arkworks' Fp (crates/ff/examples/wasm_field.rs) and wasmcurves (the module
// snarkjs builds, with a chain loop added; see field.mjs). Every side's
// chains of 0, 1, 7 and N products are checked against BigInt arithmetic
// (x y^N mod p) before the timed rounds.

export const Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583n;
export const R = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;
const mod = (a, p) => ((a % p) + p) % p;
const pow = (b, e, p) => {
  let r = 1n;
  b = mod(b, p);
  for (; e > 0n; e >>= 1n, b = (b * b) % p) if (e & 1n) r = (r * b) % p;
  return r;
};
const inv = (a, p) => pow(a, p - 2n, p);
/** The chain's start, as wasm_field.rs has it. */
export const x0 = (p) => inv(0x123456789abcdef0n, p);
/** The chain's multiplier, as wasm_field.rs has it. */
export const y0 = (p) => mod(0x0fedcba987654321n * 0x0fedcba987654321n, p);
/** `v 2^256 mod p`: the Montgomery form wasmcurves stores. */
export const mont = (v, p) => mod(v << 256n, p);
/** `v` as 32 little-endian bytes. */
export const bytes = (v) => Array.from({ length: 32 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const lowLimb = (v) => v & 0xffffffffffffffffn;
const expected = (p, k) => lowLimb((x0(p) * pow(y0(p), BigInt(k), p)) % p);

/**
 * The sides, from the two modules' bytes: `zkBytes` (wasm_field.wasm, no
 * imports) and `wc` = { code, slots: { f1m, frm }, version } (wasmcurves'
 * module, each field's chain value at its slot).
 */
export async function sides(zkBytes, wc) {
  const zk = (await WebAssembly.instantiate(zkBytes, {})).instance.exports;
  const memory = new WebAssembly.Memory({ initial: 25 });
  const instance = (await WebAssembly.instantiate(wc.code, { env: { memory } })).instance;
  const initial = new Uint8Array(memory.buffer).slice();
  const chain = (prefix, p) => {
    // Out of Montgomery form: times 2^-256, computed once, not per chain.
    const rInv = inv(1n << 256n, p);
    return (k) => {
      const at = wc.slots[prefix];
      // Each chain from the same start: the data segment's bytes restored.
      new Uint8Array(memory.buffer).set(initial.subarray(at, at + 32), at);
      instance.exports[`${prefix}_chain`](k);
      const limbs = new Uint8Array(memory.buffer, at, 32);
      let v = 0n;
      for (let i = 31; i >= 0; i--) v = (v << 8n) | BigInt(limbs[i]);
      return lowLimb((v * rInv) % p);
    };
  };
  return [
    ["Fq", Q, { "zkaccel kernel": zk.zkaccel_fq_mul, "arkworks Fp": zk.arkworks_fq_mul, [`wasmcurves ${wc.version} f1m_mul`]: chain("f1m", Q) }],
    ["Fr", R, { "zkaccel kernel": zk.zkaccel_fr_mul, "arkworks Fp": zk.arkworks_fr_mul, [`wasmcurves ${wc.version} frm_mul`]: chain("frm", R) }],
  ];
}

/**
 * Checks every side, then times `rounds` interleaved rounds of chains of
 * `n`; rows of [field, side, median ns a product]. Throws when a chain's
 * result is not BigInt's.
 */
export function measure(cases, n, rounds) {
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const rows = [];
  for (const [name, p, sidesOf] of cases) {
    for (const [side, run] of Object.entries(sidesOf)) {
      for (const k of [0, 1, 7, n]) {
        const got = BigInt.asUintN(64, BigInt(run(k)));
        if (got !== expected(p, k)) throw new Error(`${name} ${side}: a chain of ${k} gave ${got}, BigInt says ${expected(p, k)}`);
      }
    }
    const times = Object.fromEntries(Object.keys(sidesOf).map((s) => [s, []]));
    for (let r = 0; r < rounds; r++) {
      for (const [side, run] of Object.entries(sidesOf)) {
        const t0 = performance.now();
        run(n);
        times[side].push(((performance.now() - t0) * 1e6) / n);
      }
    }
    for (const [side, ts] of Object.entries(times)) rows.push([name, side, median(ts)]);
  }
  return rows;
}
