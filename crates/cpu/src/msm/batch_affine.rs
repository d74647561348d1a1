//! Affine buckets with batched inversions (Montgomery's trick) for the wide
//! windows of Pippenger's bucket method.

use super::*;

/// One window with affine buckets: additions are gathered in batches in which
/// every bucket appears at most once, and each batch shares one inversion
/// (Montgomery's trick: 3M per element), so an addition costs about
/// 5M + 1S plus its share of the inversion, against 8M + 2S in XYZZ. An
/// addition whose bucket is already in the current batch goes to that
/// bucket's XYZZ overflow instead of waiting, so a window whose digits fall
/// in a few buckets (the top window of a full-width scalar) costs no more
/// than the XYZZ method.
pub(crate) fn window_batch_affine<
    P: SWCurveConfig,
    S: Bases<P>,
    O: FieldOps<P::BaseField> + Copy,
>(
    bases: S,
    digit: impl Fn(usize) -> i32,
    c: u32,
    mut ops: O,
) -> Projective<P> {
    let nb = 1usize << (c - 1);
    let batch_size = (nb / 2).clamp(MIN_BATCH, MAX_BATCH);
    let mut buckets = vec![Affine::<P>::identity(); nb];
    let mut overflow = vec![Xyzz::<P>::zero(); nb];
    let mut busy = vec![false; nb];
    let mut batch: Vec<(usize, Affine<P>)> = Vec::with_capacity(batch_size + 1);
    // Additions whose bucket was busy, retried after the next flush (at
    // most `batch_size` wait; beyond that they go to the XYZZ overflow).
    let mut pending: Vec<(usize, Affine<P>)> = Vec::new();
    let mut retry: Vec<(usize, Affine<P>)> = Vec::new();
    let mut slots = Slots {
        buckets: &mut buckets,
        overflow: &mut overflow,
        busy: &mut busy,
        batch: &mut batch,
    };
    for i in 0..bases.len() {
        let d = digit(i);
        if d == 0 {
            continue;
        }
        let b = bases.get(i);
        if b.is_zero() {
            continue;
        }
        let (k, q) = if d > 0 {
            ((d - 1) as usize, b)
        } else {
            ((-d - 1) as usize, -b)
        };
        if !slots.place(k, q, &mut ops) {
            if pending.len() < batch_size {
                pending.push((k, q));
            } else {
                slots.overflow[k].add_affine(&q, &mut ops);
            }
        }
        if slots.batch.len() >= batch_size {
            slots.flush_and_retry(&mut pending, &mut retry, ops);
        }
    }
    // Two more rounds for the waiting additions, then the overflow (a
    // window whose digits fall in few buckets would otherwise need one
    // round, and one inversion, per addition).
    for _ in 0..2 {
        slots.flush_and_retry(&mut pending, &mut retry, ops);
    }
    flush(slots.buckets, slots.busy, slots.batch, ops);
    for (k, q) in pending {
        slots.overflow[k].add_affine(&q, &mut ops);
    }
    let both: Vec<(Affine<P>, Xyzz<P>)> = buckets.into_iter().zip(overflow).collect();
    running_sums(&both, ops, |r, (a, x)| {
        let mut ops = ops;
        r.add_affine(a, &mut ops);
        r.add(x, &mut ops);
    })
}

/// Bounds of the batch (additions per batched inversion) of
/// [`window_batch_affine`]: half the window's buckets, within these. One
/// inversion costs about as much as 50 batched additions (6 us against
/// 0.1 us with the ADX kernel, 0.04 us on AVX-512 IFMA lanes).
pub(super) const MIN_BATCH: usize = 128;
pub(super) const MAX_BATCH: usize = 2048;

/// The affine buckets of one window and the batch being gathered.
pub(super) struct Slots<'a, P: SWCurveConfig> {
    buckets: &'a mut [Affine<P>],
    overflow: &'a mut [Xyzz<P>],
    busy: &'a mut [bool],
    batch: &'a mut Vec<(usize, Affine<P>)>,
}

impl<P: SWCurveConfig> Slots<'_, P> {
    /// Schedules `buckets[k] += q` (finite `q`): `false` if bucket `k` is
    /// already in the batch.
    fn place<O: FieldOps<P::BaseField>>(&mut self, k: usize, q: Affine<P>, ops: &mut O) -> bool {
        if self.busy[k] {
            return false;
        }
        if self.buckets[k].is_zero() {
            self.buckets[k] = q;
        } else if ops.has_affine_batch() && ops.equal(&self.buckets[k].x, &q.x) {
            // A doubling or `P + (-P)`: the bulk kernel adds chords only.
            self.overflow[k].add_affine(&q, ops);
        } else {
            self.busy[k] = true;
            self.batch.push((k, q));
        }
        true
    }

    /// Flushes the batch, then places the waiting additions again; those
    /// whose bucket is taken once more go back to `pending`.
    fn flush_and_retry<O: FieldOps<P::BaseField> + Copy>(
        &mut self,
        pending: &mut Vec<(usize, Affine<P>)>,
        retry: &mut Vec<(usize, Affine<P>)>,
        mut ops: O,
    ) {
        flush(self.buckets, self.busy, self.batch, ops);
        core::mem::swap(pending, retry);
        for (k, q) in retry.drain(..) {
            if !self.place(k, q, &mut ops) {
                pending.push((k, q));
            }
        }
    }
}

/// Applies `buckets[k] += q` for every `(k, q)` in `batch` (distinct `k`, both
/// points finite) with one shared inversion, then empties the batch.
pub(super) fn flush<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    buckets: &mut [Affine<P>],
    busy: &mut [bool],
    batch: &mut Vec<(usize, Affine<P>)>,
    mut ops: O,
) {
    if batch.is_empty() {
        return;
    }
    if ops.has_affine_batch() {
        // The bulk kernel (no equal x in the batch: see the caller).
        let (mut px, mut py): (Vec<_>, Vec<_>) = batch
            .iter()
            .map(|(k, _)| (buckets[*k].x, buckets[*k].y))
            .unzip();
        let (qx, qy): (Vec<_>, Vec<_>) = batch.iter().map(|(_, q)| (q.x, q.y)).unzip();
        ops.add_affine_batch(&mut px, &mut py, &qx, &qy);
        for ((k, _), (x, y)) in batch.drain(..).zip(px.into_iter().zip(py)) {
            buckets[k] = Affine::new_unchecked(x, y);
            busy[k] = false;
        }
        return;
    }
    flush_generic(buckets, busy, batch, ops)
}

/// [`flush`] by the chord and tangent rule on `ops`, one addition at a time
/// but for the shared inversion: doublings and `P + (-P)` allowed.
fn flush_generic<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    buckets: &mut [Affine<P>],
    busy: &mut [bool],
    batch: &mut Vec<(usize, Affine<P>)>,
    mut ops: O,
) {
    use ark_ff::{AdditiveGroup, Field};
    if batch.is_empty() {
        return;
    }
    // Denominators: x_q - x_p, or 2 y_p for a doubling; zero for P + (-P).
    let mut den: Vec<P::BaseField> = batch
        .iter()
        .map(|(k, q)| {
            let p = &buckets[*k];
            if !ops.equal(&p.x, &q.x) {
                ops.sub(&q.x, &p.x)
            } else if ops.equal(&p.y, &q.y) {
                ops.double(&p.y)
            } else {
                P::BaseField::ZERO
            }
        })
        .collect();
    // Montgomery's trick (windows already run in parallel, and a batch is
    // small) over two interleaved chains, the batch's first and second
    // halves: one chain alone waits on every product's latency, two keep the
    // multiplier busy. Prefix products, one inversion, then back.
    let m = den.len();
    let h = m / 2;
    let mut prefix = Vec::with_capacity(m);
    prefix.resize(m, P::BaseField::ONE);
    let (mut acc0, mut acc1) = (P::BaseField::ONE, P::BaseField::ONE);
    for i in 0..h {
        prefix[i] = acc0;
        if !ops.is_zero(&den[i]) {
            acc0 = ops.mul(&acc0, &den[i]);
        }
        prefix[h + i] = acc1;
        if !ops.is_zero(&den[h + i]) {
            acc1 = ops.mul(&acc1, &den[h + i]);
        }
    }
    // The second chain's odd last element, if any.
    for i in 2 * h..m {
        prefix[i] = acc1;
        if !ops.is_zero(&den[i]) {
            acc1 = ops.mul(&acc1, &den[i]);
        }
    }
    let inv = ops
        .mul(&acc0, &acc1)
        .inverse()
        .expect("a product of non-zero elements");
    let (mut inv0, mut inv1) = (ops.mul(&inv, &acc1), ops.mul(&inv, &acc0));
    let mut back = |d: &mut P::BaseField, pre: &P::BaseField, inv: &mut P::BaseField| {
        if !ops.is_zero(d) {
            let this = ops.mul(inv, pre);
            *inv = ops.mul(inv, d);
            *d = this;
        }
    };
    for i in (2 * h..m).rev() {
        back(&mut den[i], &prefix[i], &mut inv1);
    }
    for i in (0..h).rev() {
        let (lo, hi) = den.split_at_mut(h);
        back(&mut lo[i], &prefix[i], &mut inv0);
        back(&mut hi[i], &prefix[h + i], &mut inv1);
    }
    // Then the additions, in pairs (one from each half) where both are
    // chords, their operations interleaved for the same reason.
    for i in 0..m - h {
        let (k1, q1) = batch[h + i];
        let p1 = buckets[k1];
        busy[k1] = false;
        if i < h {
            let (k0, q0) = batch[i];
            let p0 = buckets[k0];
            busy[k0] = false;
            let chord = |p: &Affine<P>, q: &Affine<P>, inv: &P::BaseField, ops: &mut O| {
                !ops.is_zero(inv) && !ops.equal(&p.x, &q.x)
            };
            if chord(&p0, &q0, &den[i], &mut ops) && chord(&p1, &q1, &den[h + i], &mut ops) {
                let (r0, r1) = chord_pair(&mut ops, (&p0, &q0, &den[i]), (&p1, &q1, &den[h + i]));
                buckets[k0] = r0;
                buckets[k1] = r1;
                continue;
            }
            buckets[k0] = add_one(&mut ops, &p0, &q0, &den[i]);
        }
        buckets[k1] = add_one(&mut ops, &p1, &q1, &den[h + i]);
    }
    batch.clear();
}

/// `p + q` for finite affine `p`, `q` given `inv`, the inverse of the
/// chord's or the tangent's denominator (zero for `P + (-P)` or a doubling
/// of a point with `y = 0`: the identity).
#[inline(always)]
fn add_one<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    ops: &mut O,
    p: &Affine<P>,
    q: &Affine<P>,
    inv: &P::BaseField,
) -> Affine<P> {
    if ops.is_zero(inv) {
        return Affine::identity();
    }
    let lambda = if !ops.equal(&p.x, &q.x) {
        let dy = ops.sub(&q.y, &p.y);
        ops.mul(&dy, inv)
    } else {
        let xx = ops.sqr(&p.x);
        let xx2 = ops.double(&xx);
        let xx3 = ops.add(&xx2, &xx);
        let num = ops.add(&xx3, &P::COEFF_A);
        ops.mul(&num, inv)
    };
    let ll = ops.sqr(&lambda);
    let t = ops.sub(&ll, &p.x);
    let x3 = ops.sub(&t, &q.x);
    let dx = ops.sub(&p.x, &x3);
    let t = ops.mul(&lambda, &dx);
    let y3 = ops.sub(&t, &p.y);
    Affine::new_unchecked(x3, y3)
}

/// Two chord additions `p0 + q0`, `p1 + q1` (`x` differ in each; `inv0`,
/// `inv1` the inverses of `x_q - x_p`), operation by operation in turn so
/// that the two chains' multiplications overlap.
#[inline(always)]
fn chord_pair<P: SWCurveConfig, O: FieldOps<P::BaseField>>(
    ops: &mut O,
    (p0, q0, inv0): (&Affine<P>, &Affine<P>, &P::BaseField),
    (p1, q1, inv1): (&Affine<P>, &Affine<P>, &P::BaseField),
) -> (Affine<P>, Affine<P>) {
    let dy0 = ops.sub(&q0.y, &p0.y);
    let dy1 = ops.sub(&q1.y, &p1.y);
    let l0 = ops.mul(&dy0, inv0);
    let l1 = ops.mul(&dy1, inv1);
    let ll0 = ops.sqr(&l0);
    let ll1 = ops.sqr(&l1);
    let t0 = ops.sub(&ll0, &p0.x);
    let t1 = ops.sub(&ll1, &p1.x);
    let x0 = ops.sub(&t0, &q0.x);
    let x1 = ops.sub(&t1, &q1.x);
    let dx0 = ops.sub(&p0.x, &x0);
    let dx1 = ops.sub(&p1.x, &x1);
    let m0 = ops.mul(&l0, &dx0);
    let m1 = ops.mul(&l1, &dx1);
    let y0 = ops.sub(&m0, &p0.y);
    let y1 = ops.sub(&m1, &p1.y);
    (Affine::new_unchecked(x0, y0), Affine::new_unchecked(x1, y1))
}
