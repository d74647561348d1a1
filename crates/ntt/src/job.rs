//! What a transform computes ([`Job`]: size, direction, coset powers
//! before, scaling after) and the scalings before and after the transform
//! that the kernels without their own fused form run ([`scale_before`],
//! [`scale_after`]).

use ark_ff::FftField;

use crate::arith::Arith;
use crate::stages::for_each_chunk;

/// Elements per task of the parallel coset and inverse scaling.
const SCALE_SPAN: usize = 4096;

/// `x[i] *= s * o^i` after the transform (inverse and coset inverse).
#[derive(Clone, Copy)]
pub(crate) struct PostScale<F> {
    pub(crate) factor: F,
    pub(crate) offset: F,
}

/// What to compute: `x[i] *= pre^i` first (coset forward), the transform with
/// `root` (forward or inverse), then the optional post-scaling.
pub(crate) struct Job<F> {
    pub(crate) log_n: u32,
    pub(crate) inverse: bool,
    pub(crate) pre: Option<F>,
    pub(crate) post: Option<PostScale<F>>,
}

/// The coset powers `x[i] *= g^i` of a coset forward job, in parallel spans
/// (one span, on this thread, up to [`SCALE_SPAN`] elements).
pub(crate) fn scale_before<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    if let Some(g) = job.pre {
        distribute_par::<F, A>(ar, data, F::one(), g);
    }
}

/// The inverse scaling `x[i] *= s * o^i` of an inverse job, as
/// [`scale_before`].
pub(crate) fn scale_after<F: FftField, A: Arith<F>>(ar: &A, data: &mut [A::E], job: &Job<F>) {
    if let Some(p) = job.post {
        if p.offset.is_one() {
            for_each_chunk(data, SCALE_SPAN, |_, span| {
                span.iter_mut().for_each(|v| *v = ar.scale(v, &p.factor))
            });
        } else {
            distribute_par::<F, A>(ar, data, p.factor, p.offset);
        }
    }
}

/// `x[i] *= base * step^i`.
fn distribute<F: FftField, A: Arith<F>>(ar: &A, x: &mut [A::E], base: F, step: F) {
    let mut cur = base;
    for v in x.iter_mut() {
        *v = ar.scale(v, &cur);
        cur = ar.mul(&cur, &step);
    }
}

/// [`distribute`] in parallel spans (each starts from its own power).
fn distribute_par<F: FftField, A: Arith<F>>(ar: &A, x: &mut [A::E], base: F, step: F) {
    for_each_chunk(x, SCALE_SPAN, |c, span| {
        let start = ar.mul(&base, &step.pow([(c * SCALE_SPAN) as u64]));
        distribute::<F, A>(ar, span, start, step);
    });
}
