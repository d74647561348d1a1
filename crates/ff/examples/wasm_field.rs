//! Field multiplication as plain WebAssembly exports, for the field
//! benchmark of the npm package (`crates/wasm/js/bench/field.mjs`), which
//! runs them beside snarkjs' own wasm field (wasmcurves) in the same engine.
//!
//! Built as a `cdylib` with no imports:
//! `cargo build --release -p zkaccel-ff --example wasm_field --target wasm32-unknown-unknown`.
//! Each export runs a chain of `n` dependent products `x <- x y` on BN254's
//! base field Fq or scalar field Fr (`x`, `y` fixed nonzero elements), and
//! returns the low limb of the result in canonical form, so that the two
//! kernels' chains can be compared (they must agree).

use ark_ff::PrimeField;
use std::hint::black_box;
use zkaccel_ff::MontField;

fn chain<F: PrimeField>(n: u32, mul: impl Fn(&F, &F) -> F) -> u64 {
    let mut x = black_box(
        F::from(0x1234_5678_9abc_def0u64)
            .inverse()
            .unwrap_or(F::ONE),
    );
    let y = black_box(F::from(0x0fed_cba9_8765_4321u64).square());
    for _ in 0..n {
        x = mul(&x, &y);
    }
    x.into_bigint().as_ref()[0]
}

/// `n` products on Fq by zkaccel's kernel ([`MontField::mul_fast`]).
#[no_mangle]
pub extern "C" fn zkaccel_fq_mul(n: u32) -> u64 {
    chain::<ark_bn254::Fq>(n, MontField::mul_fast)
}

/// `n` products on Fq by arkworks' own `Fp` multiplication.
#[no_mangle]
pub extern "C" fn arkworks_fq_mul(n: u32) -> u64 {
    chain::<ark_bn254::Fq>(n, |a, b| *a * b)
}

/// `n` products on Fr by zkaccel's kernel.
#[no_mangle]
pub extern "C" fn zkaccel_fr_mul(n: u32) -> u64 {
    chain::<ark_bn254::Fr>(n, MontField::mul_fast)
}

/// `n` products on Fr by arkworks' own multiplication.
#[no_mangle]
pub extern "C" fn arkworks_fr_mul(n: u32) -> u64 {
    chain::<ark_bn254::Fr>(n, |a, b| *a * b)
}
