//! Shared by the circom tests: an independent reference of the circom
//! reduction (naive O(n^2) transforms, none of zkaccel's or ark-poly's
//! code), and the fixtures.
#![allow(dead_code)]

use ark_ff::{BigInteger, Field, PrimeField};
use ark_groth16::r1cs_to_qap::{evaluate_constraint, LibsnarkReduction, R1CSToQAP};
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{ConstraintSystemRef, Matrix, SynthesisError};
use std::io::Write;

pub mod service;

/// `sum_i v_i x^i` at `x = offset * root^k` for every `k < v.len()` (a
/// naive DFT: Horner's rule at each point, the points in parallel).
fn dft<F: Field>(v: &[F], root: F, offset: F) -> Vec<F> {
    use rayon::prelude::*;
    (0..v.len() as u64)
        .into_par_iter()
        .map(|k| {
            let x = offset * root.pow([k]);
            v.iter().rev().fold(F::zero(), |acc, c| acc * x + c)
        })
        .collect()
}

/// A primitive `n`-th root of unity: arkworks' (`SNARKJS = false`) or
/// snarkjs' (`nqr^t` squared down, `nqr` the smallest quadratic non-residue
/// by Euler's criterion).
fn root<F: PrimeField, const SNARKJS: bool>(n: usize) -> F {
    if !SNARKJS {
        return F::get_root_of_unity(n as u64).unwrap();
    }
    let minus_one = -F::one();
    let half: Vec<u64> = {
        let mut r = F::MODULUS;
        r.sub_with_borrow(&F::BigInt::from(1u64));
        r.div2();
        r.as_ref().to_vec()
    };
    let mut nqr = F::from(2u64);
    while nqr.pow(&half) != minus_one {
        nqr += F::one();
    }
    let mut w = nqr.pow(F::TRACE);
    for _ in 0..(F::TWO_ADICITY - n.trailing_zeros()) {
        w.square_in_place();
    }
    w
}

/// Coefficients of the polynomial with evaluations `v` on the `n`-th roots.
fn interpolate<F: PrimeField, const SNARKJS: bool>(v: &[F]) -> Vec<F> {
    let n = v.len();
    let w = root::<F, SNARKJS>(n);
    let n_inv = F::from(n as u64).inverse().unwrap();
    dft(v, w.inverse().unwrap(), F::one())
        .into_iter()
        .map(|x| x * n_inv)
        .collect()
}

/// The circom reduction written from its definition: `A z * B z - C z` (C z =
/// A z * B z) at the odd 2n-th roots of unity, and the H query's scalars as
/// the odd coefficients of the inverse transform over 2n points of
/// `delta^-1 t^i`, `i < 2n - 1`; on arkworks' roots of unity, or on
/// snarkjs' (`SNARKJS`).
pub struct Naive<const SNARKJS: bool>;
/// On arkworks' roots: ark-circom's reduction.
pub type NaiveCircom = Naive<false>;
/// On snarkjs' roots.
pub type NaiveSnarkjs = Naive<true>;

impl<const SNARKJS: bool> R1CSToQAP for Naive<SNARKJS> {
    #[allow(clippy::type_complexity)]
    fn instance_map_with_evaluation<F: PrimeField, D: EvaluationDomain<F>>(
        cs: ConstraintSystemRef<F>,
        t: &F,
    ) -> Result<(Vec<F>, Vec<F>, Vec<F>, F, usize, usize), SynthesisError> {
        LibsnarkReduction::instance_map_with_evaluation::<F, D>(cs, t)
    }

    fn witness_map_from_matrices<F: PrimeField, D: EvaluationDomain<F>>(
        matrices: &[Matrix<F>],
        num_inputs: usize,
        num_constraints: usize,
        full: &[F],
    ) -> Result<Vec<F>, SynthesisError> {
        let n = (num_constraints + num_inputs).next_power_of_two();
        let mut a = vec![F::zero(); n];
        let mut b = vec![F::zero(); n];
        for i in 0..num_constraints {
            a[i] = evaluate_constraint(&matrices[0][i], full);
            b[i] = evaluate_constraint(&matrices[1][i], full);
        }
        a[num_constraints..num_constraints + num_inputs].copy_from_slice(&full[..num_inputs]);
        let c: Vec<F> = (0..n)
            .map(|i| {
                if i < num_constraints {
                    a[i] * b[i]
                } else {
                    F::zero()
                }
            })
            .collect();
        let w = root::<F, SNARKJS>(n);
        let g = root::<F, SNARKJS>(2 * n);
        let odd = |v: &[F]| dft(&interpolate::<F, SNARKJS>(v), w, g);
        let (a, b, c) = (odd(&a), odd(&b), odd(&c));
        Ok((0..n).map(|i| a[i] * b[i] - c[i]).collect())
    }

    fn h_query_scalars<F: PrimeField, D: EvaluationDomain<F>>(
        max_power: usize,
        t: F,
        _zt: F,
        delta_inverse: F,
    ) -> Result<Vec<F>, SynthesisError> {
        let m = (2 * max_power + 1).next_power_of_two();
        let mut p = vec![F::zero(); m];
        let mut x = delta_inverse;
        for v in p.iter_mut().take(2 * max_power + 1) {
            *v = x;
            x *= t;
        }
        Ok(interpolate::<F, SNARKJS>(&p)
            .into_iter()
            .skip(1)
            .step_by(2)
            .collect())
    }
}

/// The committed fixtures (scripts/circom-fixtures.sh): name and curve.
pub const FIXTURES: [(&str, &str); 5] = [
    ("poseidon", "bn128"),
    ("merkle", "bn128"),
    ("nopublic", "bn128"),
    ("poseidon_bls", "bls12381"),
    ("arrays", "bn128"),
];

/// Every point checked on its curve and in its subgroup.
pub const CHECKED: zkaccel_circom::ZkeyOptions = zkaccel_circom::ZkeyOptions {
    check_points: true,
    decode_unaligned: false,
};

/// A mapped key's unaligned point sections decoded instead of read in place.
pub const DECODE_UNALIGNED: zkaccel_circom::ZkeyOptions = zkaccel_circom::ZkeyOptions {
    check_points: false,
    decode_unaligned: true,
};

/// The sections of an iden3 container (zkey, wtns, r1cs: magic, version,
/// section count, then a `u32` type and a `u64` length before each body),
/// as (type, body's byte range), in file order; read here, not by the code
/// under test.
pub fn sections(file: &[u8]) -> Vec<(u32, std::ops::Range<usize>)> {
    let count = u32::from_le_bytes(file[8..12].try_into().unwrap());
    let mut pos = 12;
    (0..count)
        .map(|_| {
            let id = u32::from_le_bytes(file[pos..pos + 4].try_into().unwrap());
            let len = u64::from_le_bytes(file[pos + 4..pos + 12].try_into().unwrap()) as usize;
            pos += 12 + len;
            (id, pos - len..pos)
        })
        .collect()
}

/// A fixture file's path.
pub fn fixture(name: &str, file: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .join(file)
}

/// A fixture file's bytes.
pub fn read(name: &str, file: &str) -> Vec<u8> {
    std::fs::read(fixture(name, file)).unwrap()
}

/// snarkjs' command where ZKACCEL_SNARKJS names it
/// (`scripts/circom-fixtures.sh --install` prints it).
pub fn snarkjs() -> Option<String> {
    std::env::var("ZKACCEL_SNARKJS")
        .ok()
        .filter(|s| !s.is_empty())
}

/// Says on stderr (shown by cargo) that a check was skipped and why.
pub fn skip(what: &str) {
    let _ = writeln!(std::io::stderr(), "SKIP: {what}");
}

/// `bytes` written to a fresh temporary file and mapped (the file is
/// removed at once: the map keeps its pages).
pub fn mapped(bytes: &[u8], tag: &str) -> zkaccel_circom::ZkeyMap {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "zkaccel-mapped-{tag}-{}-{}.zkey",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, bytes).unwrap();
    let map = zkaccel_circom::ZkeyMap::new(&std::fs::File::open(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).unwrap();
    map
}
