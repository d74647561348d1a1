//! ark-circom 0.6 beside zkaccel-circom on the same snarkjs files, in one
//! process.
//!
//! For each `zkey wtns` pair (BN254 only: ark-circom reads nothing else):
//! 1. both loaders decode the key from the same bytes in memory, and the
//!    keys and A/B matrices must be equal;
//! 2. one pair `r, s` (ChaCha20 from `--seed`, drawn as ark-groth16 draws
//!    them) proves three ways, which must give the same bytes:
//!    ark-groth16 with ark-circom's `CircomReduction` (the peer), ark-groth16
//!    with zkaccel's `CircomReduction` (the drop-in), and zkaccel's
//!    `CircomProver` on the CPU backend; the peer's proof must verify;
//! 3. key loading (`--rounds`) and proving (`--prove-rounds`) are timed
//!    interleaved, the order rotating each round, setup and freeing outside
//!    the timed region; the medians and their ratios are printed as a
//!    Markdown table row, under a header naming the CPU and its flags.
//!    ark-circom checks every point while loading, so the load ratio is
//!    taken against zkaccel with `check_points` (its default, coordinates
//!    range-checked only, is shown beside it). The prove ratio is ark-circom
//!    over `CircomProver`.
//!
//! Exit status 0 when everything matched, 1 when a comparison failed, 2 on
//! bad arguments or files.

use ark_bn254::{Bn254, Fr};
use ark_ff::UniformRand;
use ark_serialize::CanonicalSerialize;
use ark_std::rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use zkaccel_circom::{read_wtns, read_zkey, CircomProver, ZkeyOptions};
use zkaccel_groth16::Backend;

const USAGE: &str = "usage: ark-circom-peer [--rounds N] [--prove-rounds N] [--seed S] \
                     <circuit.zkey> <witness.wtns> [<circuit.zkey> <witness.wtns> ...]";

struct Args {
    rounds: usize,
    prove_rounds: usize,
    seed: u64,
    pairs: Vec<(PathBuf, PathBuf)>,
}

enum Failure {
    /// Bad arguments or unreadable files.
    Usage(String),
    /// The contenders disagreed.
    Mismatch(String),
}

fn main() {
    let code = match run() {
        Ok(()) => 0,
        Err(Failure::Usage(m)) => {
            eprintln!("ark-circom-peer: {m}");
            2
        }
        Err(Failure::Mismatch(m)) => {
            eprintln!("ark-circom-peer: MISMATCH: {m}");
            1
        }
    };
    std::process::exit(code);
}

fn parse() -> Result<Args, Failure> {
    let mut args = Args {
        rounds: 5,
        prove_rounds: 5,
        seed: 1,
        pairs: Vec::new(),
    };
    let mut files = Vec::new();
    let mut it = std::env::args().skip(1);
    let number = |v: Option<String>, name: &str| -> Result<u64, Failure> {
        v.and_then(|s| s.parse().ok())
            .ok_or_else(|| Failure::Usage(format!("{name} needs a number\n{USAGE}")))
    };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rounds" => args.rounds = number(it.next(), "--rounds")?.max(1) as usize,
            "--prove-rounds" => {
                args.prove_rounds = number(it.next(), "--prove-rounds")?.max(1) as usize
            }
            "--seed" => args.seed = number(it.next(), "--seed")?,
            "-h" | "--help" => return Err(Failure::Usage(USAGE.into())),
            _ => files.push(PathBuf::from(a)),
        }
    }
    if files.is_empty() || files.len() % 2 != 0 {
        return Err(Failure::Usage(USAGE.into()));
    }
    args.pairs = files
        .chunks(2)
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect();
    Ok(args)
}

fn run() -> Result<(), Failure> {
    let args = parse()?;
    print_machine();
    println!(
        "| circuit | constraints | domain | load: ark-circom | load: zkaccel, points checked | \
         load: zkaccel, default | ratio (checked) | prove: ark-circom | prove: drop-in | \
         prove: CircomProver | ratio |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (zkey, wtns) in &args.pairs {
        compare(&args, zkey, wtns)?;
    }
    Ok(())
}

/// The CPU model, the flags zkaccel's kernels look at, the thread count and
/// the kernels zkaccel runs (`ZKACCEL_KERNEL` caps them).
fn print_machine() {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown".into())
    };
    let flags = field("flags");
    let wanted = ["adx", "bmi2", "avx2", "avx512f", "avx512ifma"];
    let have: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|f| flags.split_whitespace().any(|x| x == *f))
        .collect();
    println!(
        "CPU: {} | flags: {} | threads: {} | zkaccel {}",
        field("model name"),
        have.join(" "),
        rayon::current_num_threads(),
        zkaccel_ff::kernel_summary(),
    );
    println!();
}

fn read(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))
}

fn bytes<T: CanonicalSerialize>(x: &T) -> Vec<u8> {
    let mut v = Vec::new();
    x.serialize_uncompressed(&mut v)
        .expect("serializing into a Vec");
    v
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Times `f` with what it returns dropped outside the timed region.
fn time<T>(f: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    let out = f();
    let t = start.elapsed();
    drop(out);
    t
}

fn compare(args: &Args, zkey_path: &Path, wtns_path: &Path) -> Result<(), Failure> {
    // The fixture's folder names the circuit.
    let name = zkey_path.parent().and_then(|d| d.file_name()).map_or_else(
        || zkey_path.display().to_string(),
        |d| d.to_string_lossy().into_owned(),
    );
    let zkey = read(zkey_path)?;
    let witness: Vec<Fr> = read_wtns(&read(wtns_path)?)
        .map_err(|e| Failure::Usage(format!("{}: {e}", wtns_path.display())))?;

    // 1. The same key from both loaders.
    let (pk_a, m_a) = ark_circom::read_zkey(&mut Cursor::new(&zkey[..]))
        .map_err(|e| Failure::Usage(format!("{name}: ark-circom: {e}")))?;
    let ours = read_zkey::<Bn254>(&zkey, ZkeyOptions::default())
        .map_err(|e| Failure::Usage(format!("{name}: zkaccel: {e}")))?;
    if bytes(&pk_a) != bytes(&ours.pk) {
        return Err(Failure::Mismatch(format!(
            "{name}: the proving keys differ"
        )));
    }
    if m_a.num_constraints != ours.num_constraints
        || m_a.a != ours.matrices[0].to_rows()
        || m_a.b != ours.matrices[1].to_rows()
    {
        return Err(Failure::Mismatch(format!(
            "{name}: the A/B matrices differ"
        )));
    }

    // 2. The same proof three ways.
    let mut rng = ChaCha20Rng::seed_from_u64(args.seed);
    let r = Fr::rand(&mut rng);
    let s = Fr::rand(&mut rng);
    let num_inputs = m_a.num_instance_variables;
    let nc = m_a.num_constraints;
    let mats = [m_a.a.clone(), m_a.b.clone(), m_a.c.clone()];
    let peer = || {
        ark_groth16::Groth16::<Bn254, ark_circom::CircomReduction>::create_proof_with_reduction_and_matrices(
            &pk_a, r, s, &mats, num_inputs, nc, &witness,
        )
        .expect("ark-circom proves")
    };
    let dropin = || {
        ark_groth16::Groth16::<Bn254, zkaccel_circom::CircomReduction>::create_proof_with_reduction_and_matrices(
            &pk_a, r, s, &mats, num_inputs, nc, &witness,
        )
        .expect("ark-groth16 with zkaccel's CircomReduction proves")
    };
    let header = ours.header;
    let prover = CircomProver::from_parts(ours, Backend::Cpu, Duration::ZERO);
    let zk = || prover.prove_with(&witness, r, s).map(|p| p.proof);

    let p_peer = peer();
    let pvk = ark_groth16::prepare_verifying_key(&pk_a.vk);
    let ok = ark_groth16::Groth16::<Bn254>::verify_proof(&pvk, &p_peer, &witness[1..num_inputs])
        .map_err(|e| Failure::Mismatch(format!("{name}: verifying ark-circom's proof: {e}")))?;
    if !ok {
        return Err(Failure::Mismatch(format!(
            "{name}: ark-circom's own proof does not verify (a bad witness?)"
        )));
    }
    if bytes(&dropin()) != bytes(&p_peer) {
        return Err(Failure::Mismatch(format!(
            "{name}: ark-groth16 with zkaccel's CircomReduction differs from ark-circom's"
        )));
    }
    let p_zk = zk().map_err(|e| Failure::Mismatch(format!("{name}: CircomProver: {e}")))?;
    if bytes(&p_zk) != bytes(&p_peer) {
        return Err(Failure::Mismatch(format!(
            "{name}: CircomProver's proof differs from ark-circom's"
        )));
    }

    // 3. Timed, interleaved, the order rotating. ark-circom checks every
    // point (`G1Affine::new` asserts it is on the curve and in the
    // subgroup), so the like-for-like ratio is against zkaccel with
    // `check_points`; zkaccel's default (coordinates range-checked only)
    // is shown beside it.
    let (mut la, mut lz, mut lc) = (Vec::new(), Vec::new(), Vec::new());
    let checked = ZkeyOptions { check_points: true, ..Default::default() };
    for i in 0..args.rounds {
        let mut runs: [(&mut Vec<Duration>, &dyn Fn() -> Duration); 3] = [
            (&mut la, &|| {
                time(|| ark_circom::read_zkey(&mut Cursor::new(&zkey[..])).expect("loaded once"))
            }),
            (&mut lz, &|| {
                time(|| read_zkey::<Bn254>(&zkey, ZkeyOptions::default()).expect("loaded once"))
            }),
            (&mut lc, &|| {
                time(|| read_zkey::<Bn254>(&zkey, checked).expect("loaded once"))
            }),
        ];
        runs.rotate_left(i % 3);
        for (out, f) in runs.iter_mut() {
            out.push(f());
        }
    }
    let (mut pa, mut pd, mut pz) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..args.prove_rounds {
        let mut runs: [(&mut Vec<Duration>, &dyn Fn() -> Duration); 3] = [
            (&mut pa, &|| time(peer)),
            (&mut pd, &|| time(dropin)),
            (&mut pz, &|| time(|| zk().expect("proved once"))),
        ];
        runs.rotate_left(i % 3);
        for (out, f) in runs.iter_mut() {
            out.push(f());
        }
    }
    let (la, lz, lc) = (median(la), median(lz), median(lc));
    let (pa, pd, pz) = (median(pa), median(pd), median(pz));
    println!(
        "| {name} | {nc} | 2^{} | {} | {} | {} | {:.1}x | {} | {} | {} | {:.2}x |",
        header.domain_size.trailing_zeros(),
        ms(la),
        ms(lc),
        ms(lz),
        la.as_secs_f64() / lc.as_secs_f64(),
        ms(pa),
        ms(pd),
        ms(pz),
        pa.as_secs_f64() / pz.as_secs_f64(),
    );
    Ok(())
}
