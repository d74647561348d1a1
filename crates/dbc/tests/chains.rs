//! Every chain and recoding evaluates back to its input, is well formed, and
//! the costs are ordered as the algorithms promise; random inputs (proptest)
//! plus the edge cases. Reference values come from `num-bigint` arithmetic on
//! the terms, independent of the algorithms.

use num_bigint::{BigInt, BigUint};
use proptest::prelude::*;
use zkaccel_dbc::{CostModel, Dbc, DbcError, MinCost, Recoding, RecodingKind, Sign, MAX_BITS};

/// BN254's scalar field modulus r (a published constant).
const BN254_R: &str =
    "21888242871839275222246405745257275088548364400416034343698204186575808495617";

fn limbs(n: &BigUint) -> Vec<u64> {
    n.to_u64_digits()
}

fn as_int(n: &BigUint) -> BigInt {
    BigInt::from(n.clone())
}

/// All chain methods on `n`, checked for value and shape; returns their costs
/// (optimal, eom, suboptimal for delta 1..=4, naf) under `model`.
fn check_all(n: &BigUint, model: &CostModel) -> (f64, f64, Vec<f64>, f64) {
    let l = limbs(n);
    let want = as_int(n);
    let check = |name: &str, c: &Dbc| {
        assert!(c.is_valid(), "{name} not a valid chain for {n}: {c}");
        assert_eq!(c.value(), want, "{name} evaluates wrongly for {n}: {c}");
        if n.bits() > 0 {
            assert_eq!(
                c.terms()[0].sign,
                Sign::Plus,
                "{name}: leading term must be positive"
            );
        }
    };
    let opt = Dbc::optimal_with(&l, model).unwrap();
    check("optimal", &opt);
    let eom = Dbc::eom_with(&l, model).unwrap();
    check("eom", &eom);
    let naf_chain = Dbc::naf(&l).unwrap();
    check("naf", &naf_chain);
    let sub: Vec<f64> = (1..=4)
        .map(|d| {
            let c = Dbc::suboptimal_with(&l, d, None, model).unwrap();
            check("suboptimal", &c);
            c.cost(model)
        })
        .collect();
    (opt.cost(model), eom.cost(model), sub, naf_chain.cost(model))
}

fn check_ordering(n: &BigUint, model: &CostModel) {
    let (opt, eom, sub, naf) = check_all(n, model);
    let eps = 1e-9;
    assert!(opt <= eom + eps, "optimal {opt} > eom {eom} for {n}");
    assert!(opt <= naf + eps, "optimal {opt} > naf {naf} for {n}");
    for w in sub.windows(2) {
        assert!(
            w[1] <= w[0] + eps,
            "more candidates cost more for {n}: {sub:?}"
        );
    }
    for s in &sub {
        assert!(
            opt <= s + eps && *s <= naf + eps,
            "suboptimal {s} outside [{opt}, {naf}] for {n}"
        );
    }
    let naf_rec = Recoding::naf(&limbs(n)).unwrap().cost(model);
    assert!(
        (naf_rec - naf).abs() < eps,
        "NAF recoding and NAF chain disagree for {n}"
    );
}

fn edge_cases() -> Vec<BigUint> {
    let mut v: Vec<BigUint> = (0u32..=40).map(BigUint::from).collect();
    for k in [1u32, 2, 63, 64, 65, 127, 128, 255, 256, 383, 511] {
        let p = BigUint::from(1u8) << k;
        v.push(&p - 1u8);
        v.push(p.clone());
        v.push(p + 1u8);
    }
    for k in [1u32, 2, 40, 80, 161] {
        let p = BigUint::from(3u8).pow(k);
        v.push(&p - 1u8);
        v.push(p.clone());
        v.push(p + 1u8);
    }
    let r: BigUint = BN254_R.parse().unwrap();
    v.push(&r - 1u8);
    v.push(&r - 2u8);
    v.push((&r - 1u8) / 2u8);
    v
}

#[test]
fn edge_cases_all_methods() {
    for n in edge_cases() {
        check_ordering(&n, &CostModel::default());
        check_ordering(&n, &CostModel::new(6.0, 13.0, 10.2).unwrap());
    }
}

#[test]
fn zero_and_one() {
    assert!(Dbc::optimal(&0u64).unwrap().terms().is_empty());
    assert_eq!(
        Dbc::optimal(&0u64).unwrap().cost(&CostModel::default()),
        0.0
    );
    assert!(Dbc::suboptimal(&0u64, 1).unwrap().terms().is_empty());
    let one = Dbc::optimal(&1u64).unwrap();
    assert_eq!(one.hamming_weight(), 1);
    assert_eq!(one.leading(), Some((0, 0)));
    assert_eq!(one.cost(&CostModel::default()), 0.0);
    assert!(Recoding::naf(&0u64).unwrap().digits().is_empty());
}

#[test]
fn largest_supported_input() {
    let n = (BigUint::from(1u8) << MAX_BITS) - 1u8;
    let l = limbs(&n);
    for c in [
        Dbc::suboptimal(&l, 2).unwrap(),
        Dbc::eom(&l).unwrap(),
        Dbc::optimal(&l).unwrap(),
    ] {
        assert!(c.is_valid() && c.value() == as_int(&n));
    }
    let too_big = BigUint::from(1u8) << MAX_BITS;
    let err = Dbc::optimal(&limbs(&too_big)).unwrap_err();
    assert_eq!(
        err,
        DbcError::TooLarge {
            bits: MAX_BITS + 1,
            max: MAX_BITS
        }
    );
    assert!(err.to_string().contains("1025 bits"));
}

#[test]
fn input_types_agree() {
    let r: BigUint = BN254_R.parse().unwrap();
    let n = &r - 1u8;
    let mut arr = [0u64; 4];
    arr.copy_from_slice(&limbs(&n));
    let ark = ark_ff::BigInt::<4>(arr);
    let from_limbs = Dbc::optimal(&arr).unwrap();
    assert_eq!(Dbc::optimal(&ark).unwrap(), from_limbs);
    assert_eq!(Dbc::optimal(&n).unwrap(), from_limbs);
    // High zero limbs are ignored.
    let padded = [arr[0], arr[1], arr[2], arr[3], 0, 0, 0];
    assert_eq!(Dbc::optimal(&padded).unwrap(), from_limbs);
    assert_eq!(
        Dbc::optimal(&u128::MAX).unwrap().value(),
        BigInt::from(u128::MAX)
    );
}

#[test]
fn errors_are_reported_not_panics() {
    assert_eq!(Dbc::suboptimal(&5u64, 0).unwrap_err(), DbcError::ZeroDelta);
    assert_eq!(
        Recoding::wnaf(&5u64, 1).unwrap_err(),
        DbcError::BadWindow(1)
    );
    assert_eq!(
        Recoding::wnaf(&5u64, 17).unwrap_err(),
        DbcError::BadWindow(17)
    );
    for bad in [
        (0.0, 1.0, 1.0),
        (1.0, -1.0, 1.0),
        (1.0, 1.0, f64::NAN),
        (f64::INFINITY, 1.0, 1.0),
    ] {
        assert_eq!(
            CostModel::new(bad.0, bad.1, bad.2).unwrap_err(),
            DbcError::BadCostModel
        );
        let m = CostModel {
            double: bad.0,
            triple: bad.1,
            add: bad.2,
        };
        assert_eq!(
            Dbc::optimal_with(&5u64, &m).unwrap_err(),
            DbcError::BadCostModel
        );
    }
    // Leading terms must satisfy n/2 < 2^a 3^b <= 4n.
    assert!(matches!(
        Dbc::shortest_with_leading(&100u64, 2, 1),
        Err(DbcError::LeadingTermOutOfRange { .. })
    ));
    assert!(matches!(
        Dbc::shortest_with_leading(&100u64, 400, 0),
        Err(DbcError::LeadingTermOutOfRange { .. })
    ));
    assert!(matches!(
        Dbc::optimal_with_leading(&0u64, 0, 0),
        Err(DbcError::LeadingTermOutOfRange { .. })
    ));
    assert!(Dbc::shortest_with_leading(&100u64, 2, 3).is_ok()); // 108
    assert!(Dbc::shortest_with_leading(&100u64, 8, 0).is_ok()); // 256 <= 400
                                                                // No chain of 5 has leading term 3 (5 = 3 + 2 needs 2 = 2^1 3^0, not below 3).
    assert!(matches!(
        Dbc::optimal_with_leading(&5u64, 0, 1),
        Err(DbcError::LeadingTermOutOfRange { .. })
    ));
}

#[test]
fn shipped_tables_are_permutations() {
    for bits in [128u32, 256, 384, 512, 254, 255, 381, 100, 1024, 8, 1] {
        let t = MinCost::for_bits(bits);
        let mut sorted: Vec<u16> = t.order().to_vec();
        sorted.sort_unstable();
        let expected: Vec<u16> = (0..sorted.len() as u16).collect();
        assert_eq!(
            sorted, expected,
            "MinCost for {bits} bits is not a permutation of 0..len"
        );
        assert!(!t.order().is_empty());
    }
    assert!(MinCost::shipped(256).is_some() && MinCost::shipped(255).is_none());
}

/// The paper's Appendix A, first six entries for 256 bits.
const PAPER_256_HEAD: [u16; 6] = [72, 73, 71, 74, 70, 75];

#[test]
fn generated_256_table_matches_the_paper_up_to_sampling_error() {
    let samples =
        std::env::var("ZKACCEL_TEST_MINCOST_SAMPLES").map_or(1500, |s| s.parse().unwrap());
    let (table, entries) = MinCost::generate(256, samples, 7, &CostModel::default()).unwrap();
    let by_b = |b: u16| entries.iter().find(|e| e.b == b as u32).unwrap();
    for (i, &paper_b) in PAPER_256_HEAD.iter().enumerate() {
        let ours = by_b(table.order()[i]);
        let theirs = by_b(paper_b);
        // Where the orders differ, the two averages must agree within 3 standard errors.
        let tol = 3.0 * (ours.std_error.powi(2) + theirs.std_error.powi(2)).sqrt();
        assert!(
            (ours.avg_cost - theirs.avg_cost).abs() <= tol,
            "rank {i}: ours b = {} ({:.1}M), paper b = {paper_b} ({:.1}M), tolerance {tol:.1}M",
            ours.b,
            ours.avg_cost,
            theirs.avg_cost
        );
    }
    // The shipped table (20,000 samples) has the paper's first six as a set.
    let mut head: Vec<u16> = MinCost::shipped(256).unwrap().order()[..6].to_vec();
    head.sort_unstable();
    assert_eq!(head, vec![70, 71, 72, 73, 74, 75]);
}

#[test]
fn shortest_with_leading_has_that_leading_term_and_is_no_shorter_than_exact() {
    let r: BigUint = BN254_R.parse().unwrap();
    let n = limbs(&(&r - 1u8));
    let log2n = (&r - 1u8).bits() as f64 - 0.3;
    for b in 60..90u32 {
        let a = (log2n - b as f64 * 1.584_962_500_721_156).round() as u32;
        let greedy = Dbc::shortest_with_leading(&n, a, b).unwrap();
        let exact = Dbc::optimal_with_leading(&n, a, b).unwrap();
        assert_eq!(greedy.leading(), Some((a, b)));
        assert_eq!(exact.leading(), Some((a, b)));
        assert!(greedy.is_valid() && exact.is_valid());
        assert_eq!(greedy.value(), exact.value());
        assert!(exact.hamming_weight() <= greedy.hamming_weight());
    }
}

fn check_recodings(n: &BigUint) {
    let l = limbs(n);
    let want = as_int(n);
    let bin = Recoding::binary(&l).unwrap();
    assert_eq!(bin.value(), want);
    assert_eq!(bin.hamming_weight() as u64, n.count_ones());
    let naf = Recoding::naf(&l).unwrap();
    assert_eq!(naf.value(), want);
    assert_eq!(naf.kind(), RecodingKind::Naf);
    for w in naf.digits().windows(2) {
        assert!(w[0].1 > w[1].1 + 1, "NAF digits adjacent in {n}");
    }
    for w in 2..=8 {
        let r = Recoding::wnaf(&l, w).unwrap();
        assert_eq!(r.value(), want, "wNAF({w}) of {n}");
        for &(d, _) in r.digits() {
            assert!(
                d % 2 != 0 && d.abs() < (1 << (w - 1)),
                "bad wNAF({w}) digit {d}"
            );
        }
        for p in r.digits().windows(2) {
            assert!(
                p[0].1 >= p[1].1 + w,
                "wNAF({w}) digits closer than {w} in {n}"
            );
        }
    }
    assert_eq!(Recoding::wnaf(&l, 2).unwrap().digits(), naf.digits());
    assert_eq!(naf.to_dbc().unwrap(), Dbc::naf(&l).unwrap());
}

#[test]
fn recodings_on_edge_cases() {
    for n in edge_cases() {
        check_recodings(&n);
    }
}

fn arb_scalar(max_bits: u32) -> impl Strategy<Value = BigUint> {
    (1..=max_bits, proptest::collection::vec(any::<u64>(), 8)).prop_map(|(bits, words)| {
        let mut n = BigUint::from_slice(
            &words
                .iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect::<Vec<_>>(),
        );
        n %= BigUint::from(1u8) << bits;
        n
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("ZKACCEL_TEST_CASES").map_or(96, |s| s.parse().unwrap())
    ))]

    #[test]
    fn random_inputs_all_methods(n in arb_scalar(512)) {
        check_ordering(&n, &CostModel::default());
    }

    #[test]
    fn random_inputs_a0_model(n in arb_scalar(300)) {
        check_ordering(&n, &CostModel::new(6.0, 13.0, 10.2).unwrap());
    }

    #[test]
    fn random_recodings(n in arb_scalar(512)) {
        check_recodings(&n);
    }

    #[test]
    fn random_shortest_with_leading(n in arb_scalar(300), db in 0u32..40) {
        prop_assume!(n.bits() > 8);
        let l = limbs(&n);
        let log2n = n.bits() as f64 - 0.5;
        let b = ((log2n * 0.28) as u32 + db).saturating_sub(20);
        let x = log2n - b as f64 * 1.584_962_500_721_156;
        prop_assume!(x >= 0.0);
        let a = x.round() as u32;
        match (Dbc::shortest_with_leading(&l, a, b), Dbc::optimal_with_leading(&l, a, b)) {
            (Ok(g), Ok(e)) => {
                prop_assert_eq!(g.value(), as_int(&n));
                prop_assert_eq!(e.value(), as_int(&n));
                prop_assert!(g.is_valid() && e.is_valid());
                prop_assert_eq!(g.leading(), Some((a, b)));
                prop_assert!(e.hamming_weight() <= g.hamming_weight());
            }
            (Err(x), Err(y)) => prop_assert_eq!(x, y),
            (g, e) => prop_assert!(false, "greedy {:?} vs exact {:?}", g.is_ok(), e.is_ok()),
        }
    }
}
