// The package's workers: each its own WebAssembly instance (no
// SharedArrayBuffer: no cross-origin isolation needed) holding a decoded
// copy of one key. With two workers, a proof's two shares (the witness map
// with H and G2's B; L, A and B in G1) run at once and the first worker
// assembles the proof from both; with one, it proves alone. The main
// thread only sends bytes and waits. `spawn()` (from node.js or
// browser.js) makes a worker: {post, listen(onMessage, onError),
// terminate, busy(bool)}.

export class Pool {
  #workers;
  #pending = new Map();
  #next = 0;
  #dead = null;

  constructor(workers) {
    this.#workers = workers;
    for (const w of workers) {
      w.listen(
        (m) => this.#answer(w, m),
        (e) => this.#fail(new Error(`a prover worker failed: ${e?.message ?? e}`)),
      );
    }
  }

  /** A pool of `n` workers, each with `zkey` decoded into its own
   * instance of `module`; rejects (every worker ended) if any fails. */
  static async create(n, spawn, module, zkey) {
    const workers = [];
    try {
      for (let i = 0; i < n; i++) workers.push(spawn());
      const infos = await Promise.all(workers.map((w) => init(w, module, zkey)));
      return { pool: new Pool(workers), info: infos[0] };
    } catch (e) {
      for (const w of workers) w.terminate();
      throw e;
    }
  }

  get size() {
    return this.#workers.length;
  }

  #answer(w, m) {
    const p = this.#pending.get(m.id);
    if (!p) return;
    this.#pending.delete(m.id);
    if (![...this.#pending.values()].some((q) => q.worker === w)) w.busy(false);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.out);
  }

  #fail(e) {
    this.#dead ??= e;
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
    this.terminate();
  }

  /** Sends `msg` to worker `i`; resolves with its answer. */
  call(i, msg) {
    if (this.#dead) return Promise.reject(this.#dead);
    if (!this.#workers.length) return Promise.reject(new Error("this Prover was freed"));
    const id = this.#next++;
    const worker = this.#workers[i];
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, worker });
      worker.busy(true);
      worker.post({ ...msg, id });
    });
  }

  /** A proof ([proof.json, public.json]): shares on both workers, or
   * all on one. */
  async prove(wtns, seed) {
    if (this.#workers.length < 2) return this.call(0, { op: "prove", wtns, seed });
    const [a, b] = await Promise.all([
      this.call(1, { op: "part", wtns, part: 0 }),
      this.call(0, { op: "part", wtns, part: 1 }),
    ]);
    return this.call(0, { op: "assemble", wtns, a, b, seed });
  }

  /** Ends every worker; pending calls reject. */
  terminate() {
    const workers = this.#workers;
    this.#workers = [];
    for (const w of workers) w.terminate();
    const e = this.#dead ?? new Error("this Prover was freed");
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
  }
}

function init(w, module, zkey) {
  return new Promise((resolve, reject) => {
    w.busy(true);
    w.listen(
      (m) => {
        w.busy(false);
        if (m.error !== undefined) reject(new Error(m.error));
        else resolve(m);
      },
      (e) => reject(new Error(`a prover worker failed to start: ${e?.message ?? e}`)),
    );
    w.post({ op: "init", module, zkey });
  });
}
