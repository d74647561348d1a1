//! `NttDomain` on arbitrary sizes and vectors: a domain exists exactly when
//! ark-poly's does (sizes beyond the two-adicity give `None`), every
//! transform equals ark-poly's `Radix2EvaluationDomain` (forward, inverse,
//! coset, any length up to the domain size, zero-padded as arkworks pads),
//! round trips are exact, every kernel agrees, and a batch with a wrong
//! length is refused.
#![no_main]

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use libfuzzer_sys::fuzz_target;
use zkaccel_ntt::{Direction, Kernel, NttDomain, NttError};

#[derive(Debug, arbitrary::Arbitrary)]
struct Input {
    /// Asked-for domain size (anything; only checked against ark-poly).
    any_size: u64,
    /// Coefficients (their length, up to 2^12, sets the transform size).
    coeffs: Vec<[u8; 32]>,
    /// Extra zero padding: the domain is for `coeffs.len() + pad` elements
    /// (up to 2^14 in all, so the four-step split is reached).
    pad: u16,
    coset: Option<u64>,
    kernel: u8,
    batch: u8,
}

fuzz_target!(|input: Input| {
    let size = input.any_size as usize;
    if size > 1 << 63 {
        // ark-poly itself overflows here (a panic with debug assertions);
        // ours must just say no.
        assert!(NttDomain::<Fr>::new(size).is_none());
        assert!(NttDomain::<Fr>::compute_size_of_domain(size).is_none());
    } else {
        assert_eq!(
            NttDomain::<Fr>::new(size).map(|d| d.size()),
            Radix2EvaluationDomain::<Fr>::new(size).map(|d| d.size()),
            "domain size for {size}"
        );
        assert_eq!(
            NttDomain::<Fr>::compute_size_of_domain(size),
            Radix2EvaluationDomain::<Fr>::compute_size_of_domain(size)
        );
    }

    let coeffs: Vec<Fr> = input
        .coeffs
        .iter()
        .take(1 << 12)
        .map(|b| Fr::from_le_bytes_mod_order(b))
        .collect();
    let len = coeffs.len() + usize::from(input.pad % (1 << 14));
    let (Some(mut ours), Some(mut theirs)) = (
        NttDomain::<Fr>::new(len),
        Radix2EvaluationDomain::<Fr>::new(len),
    ) else {
        panic!("a domain of {len} elements must exist");
    };
    if let Some(c) = input.coset {
        let offset = Fr::GENERATOR * Fr::from(c | 1);
        ours = ours.get_coset(offset).expect("non-zero offset");
        theirs = theirs.get_coset(offset).expect("non-zero offset");
    }
    // The EvaluationDomain interface, arbitrary length (padded).
    let evals = ours.fft(&coeffs);
    assert_eq!(evals, theirs.fft(&coeffs), "fft");
    let back = ours.ifft(&evals);
    assert_eq!(back, theirs.ifft(&evals), "ifft");
    let mut padded = coeffs.clone();
    padded.resize(ours.size(), Fr::from(0u64));
    assert_eq!(back, padded, "round trip");

    // The batched interface with each kernel.
    let kernel = [Kernel::Auto, Kernel::Portable, Kernel::Generic][usize::from(input.kernel % 3)];
    let k = 1 + usize::from(input.batch % 3);
    let mut batch: Vec<Vec<Fr>> = (0..k)
        .map(|i| padded.iter().map(|x| *x + Fr::from(i as u64)).collect())
        .collect();
    let want: Vec<Vec<Fr>> = batch.iter().map(|v| theirs.fft(v)).collect();
    ours.transform_batch(&mut batch, Direction::Forward, kernel)
        .unwrap();
    assert_eq!(batch, want, "batched forward, {kernel:?}");
    ours.transform_batch(&mut batch, Direction::Inverse, kernel)
        .unwrap();
    for (i, v) in batch.iter().enumerate() {
        assert!(
            v.iter()
                .zip(&padded)
                .all(|(a, b)| *a == *b + Fr::from(i as u64)),
            "batched round trip"
        );
    }
    batch[k - 1].push(Fr::from(1u64));
    assert!(matches!(
        ours.transform_batch(&mut batch, Direction::Forward, kernel),
        Err(NttError::LengthMismatch { .. })
    ));
});
