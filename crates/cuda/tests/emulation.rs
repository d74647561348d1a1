//! The kernels of `kernels/`, compiled for the host, against arkworks and
//! zkaccel-dbc: field arithmetic, point formulas, the per-thread chain, and
//! the per-thread DBC MSM over a simulated grid.
#![cfg(feature = "emulation")] // the host build of the kernels is the reference

use ark_bn254::{Fq, Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::{AdditiveGroup, BigInt, Field, One, PrimeField, UniformRand, Zero};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use zkaccel_cuda::emulation::{self, ChainKind, FieldOp, PointOp, XyzzOp};
use zkaccel_cuda::layout::{fq_from_limbs, fr_from_limbs, limbs32, DeviceJacobian};
use zkaccel_cuda::tables::DbcTables;
use zkaccel_dbc::{CostModel, Dbc};

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

#[test]
fn tables_layout_matches_the_cpp_header() {
    let cpp = emulation::tables_layout();
    let rust = [
        std::mem::size_of::<DbcTables>() as u64,
        std::mem::offset_of!(DbcTables, window) as u64,
        std::mem::offset_of!(DbcTables, pow3) as u64,
        std::mem::offset_of!(DbcTables, pow3_bits) as u64,
        std::mem::offset_of!(DbcTables, pow3_mant) as u64,
        std::mem::offset_of!(DbcTables, order) as u64,
    ];
    assert_eq!(cpp, rust);
}

fn fq_edges() -> Vec<Fq> {
    let mut v = vec![
        Fq::zero(),
        Fq::one(),
        -Fq::one(),
        -Fq::from(2u64),
        Fq::from(2u64),
    ];
    v.push(Fq::from(2u64).inverse().unwrap());
    v.push(Fq::from(u64::MAX));
    v
}

fn fr_edges() -> Vec<Fr> {
    let mut v = vec![
        Fr::zero(),
        Fr::one(),
        -Fr::one(),
        -Fr::from(2u64),
        Fr::from(2u64),
    ];
    v.push(Fr::from(2u64).inverse().unwrap());
    v.push(Fr::from(u64::MAX));
    v
}

fn check_fq(a: Fq, b: Fq) {
    let f = |op| fq_from_limbs(&emulation::fq_op(op, &a, &b)).expect("reduced");
    assert_eq!(f(FieldOp::Add), a + b, "{a} + {b}");
    assert_eq!(f(FieldOp::Sub), a - b, "{a} - {b}");
    assert_eq!(f(FieldOp::Neg), -a, "-{a}");
    assert_eq!(f(FieldOp::Double), a.double(), "2 {a}");
    assert_eq!(f(FieldOp::Mul), a * b, "{a} * {b}");
    assert_eq!(f(FieldOp::Square), a.square(), "{a}^2");
    let raw = emulation::fq_op(FieldOp::FromMontgomery, &a, &b);
    assert_eq!(raw, limbs32(&a.into_bigint().0), "integer of {a}");
}

fn check_fr(a: Fr, b: Fr) {
    let f = |op| fr_from_limbs(&emulation::fr_op(op, &a, &b)).expect("reduced");
    assert_eq!(f(FieldOp::Add), a + b);
    assert_eq!(f(FieldOp::Sub), a - b);
    assert_eq!(f(FieldOp::Neg), -a);
    assert_eq!(f(FieldOp::Double), a.double());
    assert_eq!(f(FieldOp::Mul), a * b);
    assert_eq!(f(FieldOp::Square), a.square());
    let raw = emulation::fr_op(FieldOp::FromMontgomery, &a, &b);
    assert_eq!(raw, limbs32(&a.into_bigint().0));
}

#[test]
fn field_edge_cases_match_arkworks() {
    for &a in &fq_edges() {
        for &b in &fq_edges() {
            check_fq(a, b);
        }
    }
    for &a in &fr_edges() {
        for &b in &fr_edges() {
            check_fr(a, b);
        }
    }
}

#[test]
fn field_random_values_match_arkworks() {
    let mut r = rng(1);
    for _ in 0..2000 {
        check_fq(Fq::rand(&mut r), Fq::rand(&mut r));
        check_fr(Fr::rand(&mut r), Fr::rand(&mut r));
    }
}

proptest! {
    #[test]
    fn field_ops_match_arkworks(a in any::<[u8; 32]>(), b in any::<[u8; 32]>()) {
        check_fq(Fq::from_le_bytes_mod_order(&a), Fq::from_le_bytes_mod_order(&b));
        check_fr(Fr::from_le_bytes_mod_order(&a), Fr::from_le_bytes_mod_order(&b));
    }
}

fn jac(p: DeviceJacobian) -> G1Projective {
    let q = p.to_ark().expect("reduced coordinates");
    assert!(q.into_affine().is_on_curve(), "result on the curve");
    q
}

/// A projective point with a random Z (not normalised).
fn random_point(r: &mut ChaCha20Rng) -> G1Projective {
    G1Projective::rand(r) * Fr::from(r.gen::<u64>() | 1)
}

fn check_points(p: G1Projective, q: G1Projective) {
    let qa = q.into_affine();
    let z = G1Projective::zero();
    assert_eq!(
        jac(emulation::g1_op(PointOp::Double, &p, &z, &qa)),
        p.double()
    );
    assert_eq!(
        jac(emulation::g1_op(PointOp::Triple, &p, &z, &qa)),
        p * Fr::from(3u64)
    );
    assert_eq!(jac(emulation::g1_op(PointOp::Add, &p, &q, &qa)), p + q);
    assert_eq!(
        jac(emulation::g1_op(PointOp::AddAffine, &p, &z, &qa)),
        p + q
    );
    assert_eq!(jac(emulation::g1_op(PointOp::Neg, &p, &z, &qa)), -p);
    assert_eq!(jac(emulation::g1_op(PointOp::FromAffine, &p, &z, &qa)), q);
}

#[test]
fn point_formulas_match_arkworks() {
    let mut r = rng(2);
    let inf = G1Projective::zero();
    for _ in 0..200 {
        let (p, q) = (random_point(&mut r), random_point(&mut r));
        check_points(p, q);
        // P + P, P + (-P), infinity on either side
        check_points(p, p);
        check_points(p, -p);
        check_points(inf, q);
        check_points(p, inf);
    }
    check_points(inf, inf);
    let g = G1Projective::generator();
    check_points(g, g);
    check_points(g, -g);
}

#[test]
fn tripling_is_not_the_a_minus_3_formula() {
    // The paper authors' GPU code tripled bn128 points with a = -3's
    // constant; a = 0 and a = -3 tripling differ on every point of BN254.
    let g = G1Projective::generator();
    let t = jac(emulation::g1_op(PointOp::Triple, &g, &g, &g.into_affine()));
    assert_eq!(t, g + g + g);
}

#[test]
fn xyzz_formulas_match_arkworks() {
    let mut r = rng(3);
    let zero = zkaccel_cuda::layout::DeviceXyzz::default();
    let to = |p: &zkaccel_cuda::layout::DeviceXyzz| jac(emulation::xyzz_to_jacobian(p));
    for _ in 0..100 {
        let (a, b) = (G1Affine::rand(&mut r), G1Affine::rand(&mut r));
        let pa = emulation::xyzz_op(XyzzOp::FromAffine, &zero, &zero, &a);
        assert_eq!(to(&pa), a.into_group());
        let sum = emulation::xyzz_op(XyzzOp::AddAffine, &pa, &zero, &b);
        assert_eq!(to(&sum), a + b);
        let twice = emulation::xyzz_op(XyzzOp::AddAffine, &pa, &zero, &a);
        assert_eq!(to(&twice), a.into_group().double(), "P + P");
        let none = emulation::xyzz_op(XyzzOp::AddAffine, &pa, &zero, &(-a));
        assert!(to(&none).is_zero(), "P + (-P)");
        let d = emulation::xyzz_op(XyzzOp::Double, &sum, &zero, &a);
        assert_eq!(to(&d), (a + b).double());
        let da = emulation::xyzz_op(XyzzOp::DoubleAffine, &zero, &zero, &b);
        assert_eq!(to(&da), b.into_group().double());
        let full = emulation::xyzz_op(XyzzOp::Add, &sum, &d, &a);
        assert_eq!(to(&full), (a + b) * Fr::from(3u64));
        let same = emulation::xyzz_op(XyzzOp::Add, &sum, &sum, &a);
        assert_eq!(to(&same), (a + b).double(), "full add P + P");
        // infinity on either side
        let inf = emulation::xyzz_op(XyzzOp::FromAffine, &zero, &zero, &G1Affine::zero());
        assert!(to(&inf).is_zero());
        assert_eq!(
            to(&emulation::xyzz_op(XyzzOp::AddAffine, &inf, &zero, &b)),
            b.into_group()
        );
        assert_eq!(to(&emulation::xyzz_op(XyzzOp::Add, &inf, &sum, &b)), a + b);
        assert_eq!(to(&emulation::xyzz_op(XyzzOp::Add, &sum, &inf, &b)), a + b);
        assert_eq!(
            to(&emulation::xyzz_op(
                XyzzOp::AddAffine,
                &sum,
                &zero,
                &G1Affine::zero()
            )),
            a + b
        );
    }
}

fn random_bigint(r: &mut ChaCha20Rng, bits: u32) -> BigInt<4> {
    let mut l = [r.gen::<u64>(), r.gen(), r.gen(), r.gen()];
    for (i, w) in l.iter_mut().enumerate() {
        let lo = 64 * i as u32;
        if bits <= lo {
            *w = 0;
        } else if bits < lo + 64 {
            *w &= (1u64 << (bits - lo)) - 1;
            if bits - lo > 0 {
                *w |= 1u64 << (bits - lo - 1);
            }
        }
    }
    BigInt::new(l)
}

fn chain_value_is(chain: &Dbc, k: &BigInt<4>) -> bool {
    chain.represents(&k.0[..])
}

#[test]
fn thread_chains_are_zkaccel_dbc_chains() {
    let tables = DbcTables::new();
    let mut r = rng(4);
    let model = CostModel::default();
    let (mut greedy, mut naf, mut stuck) = (0, 0, 0);
    let mut inputs: Vec<BigInt<4>> = (0..1500).map(|_| random_bigint(&mut r, 254)).collect();
    inputs.extend((0..300).map(|i| random_bigint(&mut r, 1 + i % 256)));
    inputs.extend((1..=300u64).map(BigInt::from));
    inputs.push(BigInt::new([u64::MAX; 4]));
    inputs.push((-Fr::one()).into_bigint());
    for k in &inputs {
        for delta in [1u32, 4] {
            let (kind, chain) = emulation::thread_chain(k, delta, &tables);
            assert!(
                chain_value_is(&chain, k),
                "the chain of {k} evaluates to it"
            );
            assert!(chain.is_valid(), "exponents non-increasing");
            let naf_chain = Dbc::naf(&k.0[..]).unwrap();
            assert!(
                chain.cost(&model) <= naf_chain.cost(&model),
                "never worse than NAF"
            );
            let cpu = Dbc::suboptimal(&k.0[..], delta).unwrap();
            match kind {
                ChainKind::Greedy => {
                    greedy += 1;
                    assert_eq!(
                        chain, cpu,
                        "same chain as zkaccel-dbc for {k}, delta {delta}"
                    );
                }
                ChainKind::Naf => {
                    naf += 1;
                    assert_eq!(chain, naf_chain);
                    if cpu != naf_chain {
                        // zkaccel-dbc finished a stuck greedy with the exact DP.
                        stuck += 1;
                        assert!(cpu.cost(&model) < naf_chain.cost(&model));
                    }
                }
                ChainKind::None => panic!("only zero has no chain"),
            }
        }
    }
    let (kind, chain) = emulation::thread_chain(&BigInt::zero(), 1, &tables);
    assert_eq!((kind, chain.terms().len()), (ChainKind::None, 0));
    println!(
        "thread chains: {greedy} greedy, {naf} NAF, {stuck} where the CPU's DP finish beat the NAF"
    );
    assert!(
        greedy > naf,
        "the DBC search must usually win on random 254-bit scalars"
    );
    assert!(stuck * 50 <= inputs.len(), "stuck greedy chains are rare");
}

fn arkworks_msm(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    G1Projective::msm(bases, scalars).unwrap()
}

fn check_msm(bases: &[G1Affine], scalars: &[Fr]) {
    let expect = arkworks_msm(bases, scalars);
    let got = jac(emulation::dbc_msm(bases, scalars, 1));
    assert_eq!(got, expect, "field-scalar DBC MSM of {} terms", bases.len());
    let ints: Vec<BigInt<4>> = scalars.iter().map(|s| s.into_bigint()).collect();
    let got = jac(emulation::dbc_msm_bigint(bases, &ints, 1));
    assert_eq!(
        got,
        expect,
        "integer-scalar DBC MSM of {} terms",
        bases.len()
    );
}

fn random_bases(r: &mut ChaCha20Rng, n: usize) -> Vec<G1Affine> {
    let g: Vec<G1Projective> = (0..n.min(64)).map(|_| G1Projective::rand(r)).collect();
    // Distinct bases quickly: g_i plus small multiples.
    let mut out: Vec<G1Projective> = Vec::with_capacity(n);
    for i in 0..n {
        out.push(g[i % g.len()] * Fr::from((i / g.len()) as u64 + 1));
    }
    G1Projective::normalize_batch(&out)
}

#[test]
fn dbc_msm_small_sizes_and_edge_cases() {
    let mut r = rng(5);
    check_msm(&[], &[]);
    for n in 1..=40 {
        let bases = random_bases(&mut r, n);
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut r)).collect();
        check_msm(&bases, &scalars);
    }
    for c in zkaccel_testkit::msm::edge_cases::<ark_bn254::g1::Config>(12, &mut r) {
        check_msm(&c.bases, &c.scalars);
    }
}

#[test]
fn integer_scalars_beyond_the_group_order() {
    let mut r = rng(6);
    let bases = random_bases(&mut r, 20);
    let ints: Vec<BigInt<4>> = (0..20)
        .map(|i| {
            if i % 2 == 0 {
                BigInt::new([u64::MAX; 4])
            } else {
                random_bigint(&mut r, 256)
            }
        })
        .collect();
    let expect: G1Projective = bases.iter().zip(&ints).map(|(b, k)| b.mul_bigint(k)).sum();
    assert_eq!(jac(emulation::dbc_msm_bigint(&bases, &ints, 1)), expect);
}

#[test]
fn reduction_sums_every_term() {
    // Every size from 1 to 300, so odd tails and non-powers of two are all hit.
    let mut r = rng(7);
    let pts: Vec<G1Projective> = (0..300).map(|_| random_point(&mut r)).collect();
    for n in 1..=300 {
        let dev: Vec<DeviceJacobian> = pts[..n].iter().map(DeviceJacobian::from_ark).collect();
        let sum: G1Projective = pts[..n].iter().sum();
        assert_eq!(jac(emulation::reduce(dev)), sum, "{n} points");
    }
}

fn size_max() -> usize {
    std::env::var("ZKACCEL_TEST_CUDA_MSM_MAX")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4096)
}

#[test]
fn dbc_msm_dense_and_sparse_up_to_2_pow_12() {
    let mut r = rng(8);
    let max = size_max();
    let mut sizes = vec![127, 128, 129, 255, 256, 1000, 1023];
    sizes.push(max);
    sizes.retain(|&n| n <= max);
    for n in sizes {
        let bases = random_bases(&mut r, n);
        let dense: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut r)).collect();
        check_msm(&bases, &dense);
        // sparse: most scalars zero, the rest small or full width
        let sparse: Vec<Fr> = (0..n)
            .map(|i| match i % 10 {
                0 => Fr::rand(&mut r),
                1 => Fr::from(r.gen::<u16>() as u64),
                2 => Fr::one(),
                _ => Fr::zero(),
            })
            .collect();
        check_msm(&bases, &sparse);
    }
}
