//! One Pippenger MSM of `2^k` random terms on the chosen field arithmetic,
//! for instruction counting where no cycle counter or callgrind runs (under
//! qemu for aarch64: `scripts/qemu-count.sh`). `ops_loop CURVE OPS k`:
//! CURVE is `bn254` or `bls12-381` (G1), OPS is `plain` (arkworks'
//! operators), `portable` (zkaccel-ff's branch-free kernels), `asm` (the
//! target's assembly kernels: aarch64's, or BMI2/ADX on x86-64, without
//! the IFMA lanes) or `none` (the inputs only, to subtract). The same algorithm runs for both OPS,
//! so the difference is the field arithmetic alone.
use ark_ec::short_weierstrass::{Projective, SWCurveConfig};
use ark_ec::CurveGroup;
use ark_ff::PrimeField;
use rand::SeedableRng;
use zkaccel_cpu::msm::pippenger_with;
use zkaccel_cpu::{AdxOps, Plain, PortableOps};

fn run<P: SWCurveConfig>(ops: &str, k: u32) -> Result<String, String>
where
    P::BaseField: zkaccel_ff::MontField,
{
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let bases = zkaccel_testkit::inputs::progression::<P>(1 << k, &mut rng);
    let scalars: Vec<_> =
        zkaccel_testkit::inputs::random_scalars::<P::ScalarField>(1 << k, &mut rng)
            .iter()
            .map(|s| s.into_bigint())
            .collect();
    let r = match ops {
        "plain" => pippenger_with(&bases, &scalars, Plain),
        "portable" => pippenger_with(&bases, &scalars, PortableOps),
        "asm" => match AdxOps::without_lanes() {
            Some(ops) => pippenger_with(&bases, &scalars, ops),
            None => return Err("no assembly kernel runs here (ZKACCEL_KERNEL?)".into()),
        },
        "none" => Projective::<P>::default(),
        o => return Err(format!("unknown OPS {o:?} (plain, portable, asm, none)")),
    };
    Ok(r.into_affine().to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(12);
    let ops = args.get(2).map_or("portable", String::as_str);
    let out = match args.get(1).map_or("bn254", String::as_str) {
        "bn254" => run::<ark_bn254::g1::Config>(ops, k),
        "bls12-381" => run::<ark_bls12_381::g1::Config>(ops, k),
        c => Err(format!("unknown CURVE {c:?} (bn254, bls12-381)")),
    };
    match out {
        Ok(s) => println!("{s}"),
        Err(e) => {
            eprintln!("ops_loop: {e}");
            std::process::exit(2);
        }
    }
}
