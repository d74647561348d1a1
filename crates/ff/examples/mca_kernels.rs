//! The field kernels as stand-alone functions, for static analysis of the
//! code the compiler emits (`scripts/aarch64-mca.sh` builds this for
//! aarch64 with `--emit asm` and feeds each function's body to llvm-mca).
//!
//! Each `zkaccel_mca_*` function is one kernel call as a caller sees it:
//! operands loaded from memory, the product, the result stored. Three
//! versions of each: the target's assembly (`mul_adx`, `add_asm`,
//! `sub_asm`: aarch64's kernel there, BMI2/ADX on x86-64), zkaccel's
//! portable Rust (`mul_fast`, `sub_fast`) and arkworks' operators.
//!
//! Run natively, `main` checks that the three versions agree on a few
//! values (on x86-64 only where the CPU has BMI2/ADX) and prints the
//! symbol names.

use ark_ff::{AdditiveGroup, UniformRand};
use rand::SeedableRng;
use zkaccel_ff::MontField;

type Fq4 = ark_bn254::Fq;
type Fq6 = ark_bls12_381::Fq;

macro_rules! mul_fns {
    ($f:ty, $asm:ident, $portable:ident, $ark:ident) => {
        /// One product with the target's assembly kernel.
        ///
        /// # Safety
        /// On x86-64 the CPU must support BMI2 and ADX.
        #[no_mangle]
        #[inline(never)]
        pub unsafe extern "C" fn $asm(out: &mut $f, a: &$f, b: &$f) {
            // SAFETY: the field has a spare bit (a kernel covers it); the
            // CPU requirement is the caller's.
            *out = unsafe { a.mul_adx(b) };
        }
        /// One product with zkaccel's portable kernel.
        #[no_mangle]
        #[inline(never)]
        pub extern "C" fn $portable(out: &mut $f, a: &$f, b: &$f) {
            *out = a.mul_fast(b);
        }
        /// One product with arkworks' operator.
        #[no_mangle]
        #[inline(never)]
        pub extern "C" fn $ark(out: &mut $f, a: &$f, b: &$f) {
            *out = *a * b;
        }
    };
}

mul_fns!(
    Fq4,
    zkaccel_mca_mul4_asm,
    zkaccel_mca_mul4_portable,
    zkaccel_mca_mul4_arkworks
);
mul_fns!(
    Fq6,
    zkaccel_mca_mul6_asm,
    zkaccel_mca_mul6_portable,
    zkaccel_mca_mul6_arkworks
);

/// One affine addition of the batch-affine MSM as its field work: the
/// chord rule with the inverse of `qx - px` shared through the batch
/// inversion, whose forward and backward passes cost three products per
/// element (`state = [running product, running inverse]`). Six products and
/// six subtractions; `p = [px, py]` becomes the sum. A macro, so that each
/// version's operations inline (a generic function's closures stayed calls).
macro_rules! chord {
    ($p:ident, $q:ident, $state:ident, $mul:expr, $sub:expr) => {{
        let (mul, sub) = ($mul, $sub);
        let dx = sub(&$q[0], &$p[0]);
        // Batch inversion: the forward product, then this element's inverse
        // and the running inverse for the next one.
        let before = $state[0];
        $state[0] = mul(&$state[0], &dx);
        let inv = mul(&before, &$state[1]);
        $state[1] = mul(&$state[1], &dx);
        let dy = sub(&$q[1], &$p[1]);
        let lambda = mul(&dy, &inv);
        let ll = mul(&lambda, &lambda);
        let x3 = sub(&sub(&ll, &$p[0]), &$q[0]);
        let y3 = sub(&mul(&lambda, &sub(&$p[0], &x3)), &$p[1]);
        *$p = [x3, y3];
    }};
}

/// The batch-affine addition's field work on the target's assembly.
///
/// # Safety
/// On x86-64 the CPU must support BMI2 and ADX.
#[no_mangle]
#[inline(never)]
pub unsafe extern "C" fn zkaccel_mca_chord4_asm(p: &mut [Fq4; 2], q: &[Fq4; 2], s: &mut [Fq4; 2]) {
    #[inline(always)]
    fn mul(a: &Fq4, b: &Fq4) -> Fq4 {
        // SAFETY: BN254's Fq has a spare bit; the CPU requirement is the
        // caller's (of the whole function).
        unsafe { a.mul_adx(b) }
    }
    #[inline(always)]
    fn sub(a: &Fq4, b: &Fq4) -> Fq4 {
        // SAFETY: BN254's Fq has a spare bit.
        unsafe { a.sub_asm(b) }
    }
    chord!(p, q, s, mul, sub);
}

/// The batch-affine addition's field work on zkaccel's portable kernels.
#[no_mangle]
#[inline(never)]
pub extern "C" fn zkaccel_mca_chord4_portable(p: &mut [Fq4; 2], q: &[Fq4; 2], s: &mut [Fq4; 2]) {
    chord!(p, q, s, Fq4::mul_fast, Fq4::sub_fast);
}

/// The batch-affine addition's field work on arkworks' operators.
#[no_mangle]
#[inline(never)]
pub extern "C" fn zkaccel_mca_chord4_arkworks(p: &mut [Fq4; 2], q: &[Fq4; 2], s: &mut [Fq4; 2]) {
    fn mul(a: &Fq4, b: &Fq4) -> Fq4 {
        *a * b
    }
    fn sub(a: &Fq4, b: &Fq4) -> Fq4 {
        *a - b
    }
    chord!(p, q, s, mul, sub);
}

fn main() {
    let asm_runs = zkaccel_ff::adx_supported() || cfg!(target_arch = "aarch64");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    for _ in 0..100 {
        let (a, b) = (Fq4::rand(&mut rng), Fq4::rand(&mut rng));
        let (c, d) = (Fq6::rand(&mut rng), Fq6::rand(&mut rng));
        let (mut x, mut y) = (Fq4::ZERO, Fq4::ZERO);
        zkaccel_mca_mul4_portable(&mut x, &a, &b);
        zkaccel_mca_mul4_arkworks(&mut y, &a, &b);
        assert_eq!(x, y);
        let (mut u, mut v) = (Fq6::ZERO, Fq6::ZERO);
        zkaccel_mca_mul6_portable(&mut u, &c, &d);
        zkaccel_mca_mul6_arkworks(&mut v, &c, &d);
        assert_eq!(u, v);
        let q = [Fq4::rand(&mut rng), Fq4::rand(&mut rng)];
        let p = [Fq4::rand(&mut rng), Fq4::rand(&mut rng)];
        let s = [Fq4::rand(&mut rng), Fq4::rand(&mut rng)];
        let (mut p1, mut s1, mut p2, mut s2) = (p, s, p, s);
        zkaccel_mca_chord4_portable(&mut p1, &q, &mut s1);
        zkaccel_mca_chord4_arkworks(&mut p2, &q, &mut s2);
        assert_eq!((p1, s1), (p2, s2));
        if asm_runs {
            // SAFETY: checked just above (BMI2/ADX on x86-64, or aarch64).
            unsafe {
                zkaccel_mca_mul4_asm(&mut x, &a, &b);
                zkaccel_mca_mul6_asm(&mut u, &c, &d);
                let (mut p3, mut s3) = (p, s);
                zkaccel_mca_chord4_asm(&mut p3, &q, &mut s3);
                assert_eq!((p3, s3), (p2, s2));
            }
            assert_eq!((x, u), (y, v));
        }
    }
    println!(
        "mca_kernels: the three versions agree{} ({})",
        if asm_runs {
            ""
        } else {
            " (assembly not run: no BMI2/ADX)"
        },
        zkaccel_ff::kernel_summary()
    );
}
