// The package's workers: each its own WebAssembly instance (no
// SharedArrayBuffer: no cross-origin isolation needed) holding a decoded
// copy of one key. With two workers, a proof's shares run on both at once
// and the first worker assembles the proof from them; with one, it proves
// alone. The main thread only sends bytes and waits. The shares: the
// witness map's quotient (Prover.quotient: the H MSM's scalars), the H MSM
// over a range of its terms (Prover.hPart), B in G2, and L, A and B in G1
// (Prover.provePart). Worker 1 computes the quotient once and sends its
// scalars back, or, where L, A and B1 are cheap (bits), worker 0 computes
// C's column of it first (Prover.quotientColumns) and worker 1 finishes it
// (Prover.quotientFrom). H's first k terms stay on worker 1, the rest go
// to worker 0 after L, A and B1; B2 goes to either. k, B2's place and the
// split are planned from the shares' times in the proofs before (plan());
// the first proof's, from times estimated from the witness (estimate():
// how many of its values are not 0 or 1), so a one-shot groth16.prove is
// split too.
// `spawn()` (from node.js or browser.js) makes a worker: {post(message,
// transfer), listen(onMessage, onError), terminate, busy(bool)}.

export class Pool {
  #workers;
  #pending = new Map();
  #next = 0;
  #dead = null;
  #hTerms;
  #times = null;

  constructor(workers, hTerms) {
    this.#workers = workers;
    this.#hTerms = hTerms;
    for (const w of workers) {
      w.listen(
        (m) => this.#answer(w, m),
        (e) => this.#fail(new Error(`a prover worker failed: ${e?.message ?? e}`)),
      );
    }
  }

  /** A pool of `n` workers, each decoding the key into its own instance
   * of `module` from `chunks` (an async iterable of Uint8Array, the key in
   * file order) as they arrive; rejects (every worker ended, the source
   * closed) if any fails. */
  static async create(n, spawn, module, chunks) {
    const workers = [];
    let pool = null;
    try {
      for (let i = 0; i < n; i++) workers.push(spawn());
      await Promise.all(workers.map((w) => init(w, module)));
      pool = new Pool(workers, 0);
      // Each worker its own copy, made here and transferred: a structured
      // clone would serialise it on this thread and deserialise it in the
      // worker (about 70 ms each way for a 125 MiB key in node 20), where a
      // copy is one memcpy; the caller's bytes stay theirs.
      await feed(chunks, (bytes) => Promise.all(workers.map((_, i) => {
        const copy = new Uint8Array(bytes);
        return pool.call(i, { op: "chunk", bytes: copy }, [copy.buffer]);
      })));
      const infos = await Promise.all(workers.map((_, i) => pool.call(i, { op: "end" })));
      pool.#hTerms = infos[0].hTerms;
      return { pool, info: infos[0] };
    } catch (e) {
      // The pool (its pending calls rejected) or, before it, the workers.
      if (pool) pool.terminate();
      else for (const w of workers) w.terminate();
      // Where `feed` failed it closed the source already; closing again is
      // a no-op. Where a worker failed to start, the source is untouched.
      close(chunks);
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

  /** Sends `msg` to worker `i` (`transfer`: buffers it takes over);
   * resolves with its answer. */
  call(i, msg, transfer = []) {
    if (this.#dead) return Promise.reject(this.#dead);
    if (!this.#workers.length) return Promise.reject(new Error("this Prover was freed"));
    const id = this.#next++;
    const worker = this.#workers[i];
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, worker });
      worker.busy(true);
      worker.post({ ...msg, id }, transfer);
    });
  }

  /** A proof ([proof.json, public.json]): shares on both workers, or
   * all on one. */
  async prove(wtns, seed) {
    if (this.#workers.length < 2) return this.call(0, { op: "prove", wtns, seed });
    const n = this.#hTerms;
    const times = this.#times ?? estimate(n, witnessCounts(wtns));
    const { k, b2OnFirst, split } = (testing.plan ?? plan)(times, n);
    // Each worker runs its calls in the order they are sent. Worker 1: the
    // quotient (or, split, A and B's columns, then the quotient once C's
    // is in), (B2,) then H's first k terms; worker 0: (C's column,) L, A
    // and B1, (B2,) then the other terms. H's shares are sent once the
    // quotient is in.
    const seen = {};
    const time = (name) => (out) => {
      seen[name] = (seen[name] ?? 0) + out.ms;
      return out;
    };
    let quotient;
    if (split) {
      const held = this.call(1, { op: "hold", wtns, mask: 3 }).then(time("held"));
      const c = this.call(0, { op: "columns", wtns, mask: 4 }).then(time("c"));
      quotient = Promise.all([held, c]).then(([, { columns }]) =>
        this.call(1, { op: "finish", wtns, others: columns }, [columns.buffer]).then(time("finish")));
    } else {
      quotient = this.call(1, { op: "quotient", wtns }).then(time("q"));
    }
    const lab1 = this.call(0, { op: "part", wtns, kind: LAB1 }).then(time("l"));
    // Split, B2 on worker 1 waits for the quotient's finish.
    const b2 = (split && b2OnFirst ? quotient : Promise.resolve())
      .then(() => this.call(b2OnFirst ? 1 : 0, { op: "part", wtns, kind: B2 }))
      .then(time("b2"));
    // Rejections are observed at once (the pool reports the first); the
    // rest wait for the quotient.
    for (const p of [lab1, b2]) p.catch(() => {});
    const q = await quotient;
    const size = n > 0 ? q.scalars.length / n : 0;
    const h = (i, start, end) => {
      const scalars = q.scalars.slice(start * size, end * size);
      return this.call(i, { op: "h", start, scalars }, [scalars.buffer]).then(time("h"));
    };
    const hs = k < n ? [h(1, 0, k), h(0, k, n)] : [h(1, 0, n)];
    const done = await Promise.all([lab1, b2, ...hs]);
    // Split: the whole quotient's time taken as A and B's share, the
    // finish, and half of C's (each worker evaluated all three columns).
    seen.q ??= seen.held + seen.finish + seen.c / 2;
    this.#times = learn(this.#times, { q: seen.q, h: seen.h, l: seen.l, b2: seen.b2 });
    return this.call(0, { op: "assemble", wtns, shares: lengthPrefixed(done.map((d) => d.sums)), seed });
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

function init(w, module) {
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
    w.post({ op: "init", module });
  });
}

/** Calls `send(chunk)` on each chunk of `chunks` in turn, reading the next
 * one while `send` runs. On a failure (of `send` or of the source) the
 * source is closed without waiting for a read in flight: `chunks.cancel()`
 * where it has one (a stream's reader cancelled at once), and the
 * iterator's `return()`. */
export async function feed(chunks, send) {
  const it = chunks[Symbol.asyncIterator]();
  // Each read ahead is observed at once: a source that fails while `send`
  // waits must not be an unhandled rejection (node ends the process).
  const ahead = () => {
    const p = it.next();
    p.catch(() => {});
    return p;
  };
  let next = ahead();
  try {
    for (;;) {
      const r = await next;
      if (r.done) return;
      next = ahead();
      await send(r.value);
    }
  } catch (e) {
    close(chunks, it);
    throw e;
  }
}

/** Closes a key's source (see `feed`), never throwing or waiting. */
export function close(chunks, it = chunks[Symbol.asyncIterator]()) {
  try {
    chunks.cancel?.();
    it.return?.()?.catch?.(() => {});
  } catch {
    // Closing is best effort; the caller's error is what is reported.
  }
}

// provePart's kinds (0, the quotient with H over a range, is not used:
// the quotient is computed once, by "quotient").
const B2 = 1;
const LAB1 = 2;

/** For the package's tests: `plan`, where set, replaces plan() (to prove
 * with each kind of plan and compare the proofs). */
export const testing = { plan: null };

/**
 * Where the next proof's shares go, from the times (ms) of the shares
 * before (`t`: the quotient q, the whole H MSM h, L-A-B1 l, B2 b2; null
 * before the first proof): whether the quotient is split (A and B's
 * columns on worker 1, C's on worker 0 first), H's first k of n terms on
 * worker 1 after the quotient, the rest on worker 0 after L, A and B1 (and
 * not before the quotient is in), B2 on the side where the later of the
 * two finishes soonest. Modelled with C's column a third of the quotient:
 * worker 1: Q (+ b2) + x h, worker 0: max((q/3 when split) + l (+ b2), Q)
 * + (1 - x) h, where Q, when the quotient is in, is q whole or 2q/3 split.
 */
export function plan(t, n) {
  if (!t) return { k: n, b2OnFirst: true, split: false };
  let best = null;
  for (const split of [false, true]) {
    for (const b2OnFirst of [true, false]) {
      const ready = split ? (2 * t.q) / 3 : t.q;
      const one = ready + (b2OnFirst ? t.b2 : 0);
      const zero = Math.max((split ? t.q / 3 : 0) + t.l + (b2OnFirst ? 0 : t.b2), ready);
      const x = t.h > 0 ? Math.min(1, Math.max(0, (zero + t.h - one) / (2 * t.h))) : 1;
      const c = Math.max(one + x * t.h, zero + (1 - x) * t.h);
      // A tie keeps the plan found first (whole, then B2 on worker 1).
      if (!best || c < best.c - 1e-9 * Math.abs(c)) best = { c, x, b2OnFirst, split };
    }
  }
  return { k: Math.round(best.x * n), b2OnFirst: best.b2OnFirst, split: best.split };
}

// estimate()'s costs, in units of one H term's share of the H MSM (a
// dense scalar), fitted to the shares' times on the circom fixtures of
// 2^16 (one instance in node, benches/results/browser.md): the quotient
// per H term; L, A and B1 (three G1 MSMs over the witness) and B2 (one in
// G2) per witness value that is neither 0 nor 1, and per value 1 (a point
// added once); a 0 costs nothing.
const COST = { quotient: 0.5, lab1Dense: 2.3, lab1One: 0.27, b2Dense: 1.34, b2One: 0.19 };

/** The shares' times plan() takes, estimated before any proof from the H
 * term count `n` and the witness' counts ({dense, ones}, from
 * witnessCounts; all values dense when unknown): relative, not ms. */
export function estimate(n, counts) {
  const { dense, ones } = counts ?? { dense: n, ones: 0 };
  return {
    q: COST.quotient * n,
    h: n,
    l: COST.lab1Dense * dense + COST.lab1One * ones,
    b2: COST.b2Dense * dense + COST.b2One * ones,
  };
}

/** How many of a .wtns' values are 1 and how many are neither 0 nor 1
 * ({dense, ones}); null where the bytes are not a wtns file (the workers
 * then reject it with the reason). */
export function witnessCounts(wtns) {
  try {
    const b = wtns instanceof Uint8Array ? wtns : new Uint8Array(wtns);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    if (b.length < 12 || String.fromCharCode(...b.subarray(0, 4)) !== "wtns") return null;
    let at = 12;
    let n8 = 0;
    let count = 0;
    let values = -1;
    for (let s = view.getUint32(8, true); s > 0 && at + 12 <= b.length; s--) {
      const id = view.getUint32(at, true);
      const size = Number(view.getBigUint64(at + 4, true));
      if (id === 1 && at + 16 <= b.length) {
        n8 = view.getUint32(at + 12, true);
        if (at + 20 + n8 <= b.length) count = view.getUint32(at + 16 + n8, true);
      }
      if (id === 2) values = at + 12;
      at += 12 + size;
    }
    if (values < 0 || n8 === 0 || n8 % 4 !== 0 || values + count * n8 > b.length) return null;
    let dense = 0;
    let ones = 0;
    for (let i = 0, o = values; i < count; i++, o += n8) {
      let high = 0;
      for (let w = 4; w < n8 && high === 0; w += 4) high = view.getUint32(o + w, true);
      const low = view.getUint32(o, true);
      if (high !== 0 || low > 1) dense++;
      else if (low === 1) ones++;
    }
    return { dense, ones };
  } catch {
    return null;
  }
}

/** The times after a proof (`seen`: each share's ms, H's summed over its
 * ranges), averaged with the times before. */
function learn(t, seen) {
  if (!t) return seen;
  const avg = (a, b) => (a + b) / 2;
  return { q: avg(t.q, seen.q), h: avg(t.h, seen.h), l: avg(t.l, seen.l), b2: avg(t.b2, seen.b2) };
}

/** Byte arrays as one, each preceded by its length (4 bytes,
 * little-endian): Prover.assemble's list of shares. */
function lengthPrefixed(parts) {
  const out = new Uint8Array(parts.reduce((s, p) => s + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of parts) {
    view.setUint32(at, p.length, true);
    out.set(p, at + 4);
    at += 4 + p.length;
  }
  return out;
}
