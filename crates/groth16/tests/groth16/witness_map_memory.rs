//! The witness map keeps no lane copy of its vectors: on a CPU with AVX2
//! and no IFMA (here `ZKACCEL_KERNEL=avx2`, which a CPU with IFMA obeys
//! too) its six transforms run `Kernel::Lean`, not `Auto`'s AVX2 lanes,
//! whose lane copies of the data (72 bytes per element, two transforms at a
//! time) and lane tables raised a one-shot proof's peak by 40-100 MiB
//! (docs/ntt.md). Peak resident memory while the map runs, in a child
//! process of its own, against a bound from the map's own vectors and
//! `NttDomain::working_memory_lean`. At 2^16 on a 2-core Xeon the peak grew
//! 6.3 MiB against a bound of 14.0 MiB; with the lanes put back into
//! `Kernel::Lean` it grew 25.4 MiB and the test failed.
//!
//! `ZKACCEL_TEST_WITNESS_MAP_LOG_N` (default 16) sets the size. Linux only:
//! where `/proc/self/status` is missing the test says it was skipped.

use ark_bn254::Fr;
use ark_groth16::r1cs_to_qap::R1CSToQAP;
use ark_poly::EvaluationDomain;
use ark_relations::gr1cs::{ConstraintSynthesizer, ConstraintSystem, R1CS_PREDICATE_LABEL};
use std::io::Write;
use zkaccel_cpu::memory::{peak_rss, reset_peak_rss, rss};
use zkaccel_groth16::circuits::MimcChain;
use zkaccel_groth16::CircomReduction;
use zkaccel_ntt::NttDomain;

#[test]
fn witness_map_peak_without_lane_copies() {
    in_own_process!(witness_map_peak_without_lane_copies, "ZKACCEL_KERNEL" => "avx2");
    let log_n: u32 =
        std::env::var("ZKACCEL_TEST_WITNESS_MAP_LOG_N").map_or(16, |s| s.parse().unwrap());
    if peak_rss().is_none() || !reset_peak_rss() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: the witness map's peak memory (no /proc/self/status or clear_refs: Linux only)"
        );
        return;
    }
    let n = 1usize << log_n;
    let cs = ConstraintSystem::<Fr>::new_ref();
    MimcChain::<Fr>::with_constraints(Fr::from(7u64), n - 2)
        .generate_constraints(cs.clone())
        .unwrap();
    cs.finalize();
    let matrices = cs.to_matrices().unwrap()[R1CS_PREDICATE_LABEL].clone();
    let full = [
        cs.instance_assignment().unwrap(),
        cs.witness_assignment().unwrap(),
    ]
    .concat();
    let (inputs, constraints) = (cs.num_instance_variables(), cs.num_constraints());
    drop(cs);
    let domain = NttDomain::<Fr>::new(constraints + inputs).unwrap();
    assert_eq!(domain.size(), n, "the chain fills the domain");
    // Circom's map runs on the domain and on a coset of the same size.
    let coset = domain.get_coset(Fr::from(5u64)).unwrap();
    // Warm rayon's pool (thread stacks) outside the measured region.
    let _ = CircomReduction::witness_map_from_matrices::<Fr, NttDomain<Fr>>(
        &matrices, inputs, 8, &full,
    );
    let before = rss().unwrap();
    assert!(reset_peak_rss());
    let h = CircomReduction::witness_map_from_matrices::<Fr, NttDomain<Fr>>(
        &matrices,
        inputs,
        constraints,
        &full,
    )
    .unwrap();
    let grown = peak_rss().unwrap().saturating_sub(before);
    assert_eq!(h.len(), n);
    // a, b, c and h (one field element each per point), the tables of
    // both domains, and one more vector of slack (allocator rounding, the
    // matrices' evaluation).
    let vector = n * core::mem::size_of::<Fr>();
    let bound = 5 * vector + domain.working_memory_lean() + coset.working_memory_lean();
    eprintln!(
        "2^{log_n} witness map ({}): peak grew {} KiB, bound {} KiB",
        zkaccel_ntt::field::kernel_summary(),
        grown >> 10,
        bound >> 10
    );
    assert!(
        grown <= bound,
        "2^{log_n}: the witness map's peak grew {grown} bytes, over {bound}"
    );
}
