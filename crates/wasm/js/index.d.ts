/** A key or witness: its bytes, or a file name (node) or URL (browsers). */
export type Source = Uint8Array | ArrayBuffer | ArrayBufferView | string;

/** A key: a Source, or its bytes as they arrive (a fetch Response, a
 * ReadableStream, an async iterable of chunks), decoded chunk by chunk. */
export type KeySource = Source | Response | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** A Groth16 proof as snarkjs returns it. */
export interface Groth16Proof {
  pi_a: [string, string, string];
  pi_b: [[string, string], [string, string], [string, string]];
  pi_c: [string, string, string];
  protocol: "groth16";
  curve: "bn128" | "bls12381";
}

/** What `prove` resolves to: snarkjs' `{proof, publicSignals}`. */
export interface ProofOutput {
  proof: Groth16Proof;
  publicSignals: string[];
}

export interface ProverOptions {
  /** Workers (each with its own copy of the key; two share each proof).
   * Default 2, or 1 on a one-core machine; 0 proves on the calling thread. */
  workers?: number;
}

export interface ProveOptions {
  /** Randomness from this seed: reproducible proofs that are NOT
   * zero-knowledge. For tests only. */
  testSeed?: number | bigint;
}

/** A snarkjs Groth16 key decoded once, to prove many witnesses. */
export class Prover {
  /** Decodes a zkey as it arrives (never the whole file beside the
   * decoded key); rejects with an Error naming the fault. */
  static create(zkey: KeySource, options?: ProverOptions): Promise<Prover>;
  /** Proves a witness (.wtns bytes); rejects on a witness of another
   * circuit or one that violates the circuit. */
  prove(wtns: Source, options?: ProveOptions): Promise<ProofOutput>;
  /** "bn128" or "bls12381". */
  readonly curve: string;
  /** The signals a witness of this key has. */
  readonly nVars: number;
  /** The public signals of a proof of this key. */
  readonly nPublic: number;
  /** How many workers prove (0: the calling thread). */
  readonly workers: number;
  /** The verification key, as snarkjs exports vkey.json. */
  vkey(): Promise<object>;
  /** Ends the workers (or frees the decoded key) now. */
  free(): void;
}

/** circom 2's witness calculator (circuit.wasm) compiled by this engine. */
export class WitnessCalculator {
  /** Compiles the circuit's wasm; rejects if it is not circom 2's calculator. */
  static create(wasm: Uint8Array | ArrayBuffer): Promise<WitnessCalculator>;
  /** The witness of input.json's object, as the .wtns bytes snarkjs writes. */
  calculateWtns(input: object): Promise<Uint8Array>;
  /** The values a witness has. */
  readonly witnessSize: number;
  /** The circuit's prime. */
  readonly prime: bigint;
}

export const wtns: {
  /** snarkjs' wtns.calculate(input, wasm): the .wtns bytes. */
  calculate(input: object, wasm: Source | WitnessCalculator): Promise<Uint8Array>;
};

export const groth16: {
  /** snarkjs' groth16.fullProve(input, wasm, zkey): witness, then proof. */
  fullProve(input: object, wasm: Source | WitnessCalculator, zkey: KeySource, options?: ProveOptions & ProverOptions): Promise<ProofOutput>;
  /** snarkjs' groth16.prove(zkey, wtns). */
  prove(zkey: KeySource, wtns: Source, options?: ProveOptions & ProverOptions): Promise<ProofOutput>;
  /** snarkjs' groth16.verify(vkey, publicSignals, proof). */
  verify(vkey: object | string, publicSignals: string[] | string, proof: Groth16Proof | string): Promise<boolean>;
};

/** Which field kernels the WebAssembly module runs. */
export function kernel(): Promise<string>;
