//! One MSM of 2^k random BN254 G1 terms with zkaccel (or arkworks), for
//! instruction counting: `msm_loop {zk|packed|ark} k` (`packed`: zkaccel on
//! the bases read from bytes 4 past an 8-byte boundary).
use ark_ec::{CurveGroup, PrimeGroup, VariableBaseMSM};
use ark_ff::UniformRand;
use rand::SeedableRng;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(14);
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
    let g = ark_bn254::G1Projective::generator();
    let step = g * ark_bn254::Fr::rand(&mut rng);
    let mut cur = g;
    let pts: Vec<_> = (0..1usize << k)
        .map(|_| {
            cur += step;
            cur
        })
        .collect();
    let bases = ark_bn254::G1Projective::normalize_batch(&pts);
    let scalars: Vec<ark_bn254::Fr> = (0..1usize << k)
        .map(|_| ark_bn254::Fr::rand(&mut rng))
        .collect();
    let r = match args[1].as_str() {
        "ark" => ark_bn254::G1Projective::msm(&bases, &scalars).unwrap(),
        "none" => ark_bn254::G1Projective::default(),
        "packed" => {
            let mut bytes = vec![0u8; 4];
            zkaccel_cpu::PackedBases::encode(&bases, &mut bytes);
            let view = zkaccel_cpu::PackedBases::new(&bytes[4..]).expect("whole points");
            zkaccel_cpu::msm_bases(view, &scalars).unwrap()
        }
        _ => zkaccel_cpu::msm(&bases, &scalars).unwrap(),
    };
    println!("{r}");
}
