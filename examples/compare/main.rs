//! zkaccel against arkworks 0.6 (or against another zkaccel method) on the
//! same random inputs, interleaved, results checked equal.
//!
//! ```text
//! cargo run --release --example compare -- scalar-mul --curve bn254-g1 --method auto --count 64 [--rounds 31]
//!     [--vs arkworks|naf|wnaf-W|dbc-D|glv|auto] [--formulas own|generic] [--json]
//! cargo run --release --example compare -- msm --curve bn254-g1 --log-n 16 [--density 1|sqrt|1/100|1/1000]
//!     [--bits B] [--algorithm auto|pippenger|pippenger-glv|strauss|dbc-per-term|naive] [--backend cpu|cuda] [--rounds 7] [--json]
//! cargo run --release --example compare -- msm --curve bn254-g1 --log-n 16 --field-ops arkworks,portable,adx,ifma [--rounds 7]
//! cargo run --release --example compare -- msm --curve bn254-g1 --log-n 16 --packed   (bases read from unaligned bytes)
//! cargo run --release --example compare -- ntt --log-n 20 [--coset] [--inverse] [--batch K]
//!     [--groth16] [--kernel auto|ifma|avx2|adx|portable|generic] [--backend cpu|cuda] [--rounds 7] [--json]
//! ```
//! Each round times contender A over all inputs, then B (alternating which
//! goes first), so load on this noisy machine hits both; the figures are the
//! medians over rounds of the time per operation. `speedup` is B / A, i.e.
//! how much faster zkaccel's method is than the baseline.

use ark_ec::short_weierstrass::Projective;
use ark_ec::PrimeGroup;
use ark_ff::UniformRand;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use std::process::ExitCode;
use zkaccel::cpu::{mul_scalar_with, CurveMul, FormulaSet, Plain, ScalarMulMethod};

use zkaccel_testkit::flags;
use zkaccel_testkit::inputs;
mod msm_cmd;
mod ntt_cmd;
mod pcs_cmd;
use zkaccel_testkit::pcs as pcs_support;
use zkaccel_testkit::timing;

use flags::Flags;

const USAGE: &str = "usage: compare pcs --scheme hyrax|mlkzg|kzg10|ipa --num-vars N [--rounds R] [--json] | compare ntt --log-n N [--coset] [--inverse] [--batch K] [--groth16] [--kernel auto|ifma|avx2|adx|portable|generic] [--backend cpu|cuda] [--rounds R] [--json] | compare msm --curve C --log-n N|--terms N [--density 1|sqrt|1/100|1/1000] [--bits B] [--algorithm A] [--backend cpu|cuda] [--field-ops arkworks,portable,adx,ifma] [--packed] [--rounds R] [--json] | compare scalar-mul --curve {bn254-g1,bn254-g2,bls12-381-g1,secp256k1,p256} --method M [--vs B] [--formulas own|generic] [--count K] [--rounds R] [--seed S] [--json]";

struct Args {
    curve: String,
    method: String,
    vs: String,
    formulas: String,
    count: usize,
    rounds: usize,
    seed: u64,
    json: bool,
}

fn parse(rest: &[String]) -> Result<Args, String> {
    let f = Flags::parse(
        rest,
        &[
            "--curve",
            "--method",
            "--vs",
            "--formulas",
            "--count",
            "--rounds",
            "--seed",
        ],
        &["--json"],
    )
    .map_err(|e| format!("{e}; {USAGE}"))?;
    let a = Args {
        curve: f.str("--curve", "bn254-g1"),
        method: f.str("--method", "auto"),
        vs: f.str("--vs", "arkworks"),
        formulas: f.str("--formulas", "own"),
        count: f.num("--count", 64)?,
        rounds: f.num("--rounds", 31)?,
        seed: f.num("--seed", 1)?,
        json: f.has("--json"),
    };
    if a.count == 0 || a.rounds == 0 {
        return Err("--count and --rounds must be at least 1".into());
    }
    Ok(a)
}

fn method(name: &str) -> Result<ScalarMulMethod, String> {
    let num = |s: &str| s.parse::<u32>().map_err(|_| format!("bad method {name:?}"));
    Ok(match name {
        "auto" => ScalarMulMethod::Auto,
        "naf" => ScalarMulMethod::Naf,
        "glv" => ScalarMulMethod::Glv,
        "glv-dbc" => ScalarMulMethod::GlvDbc,
        _ if name.starts_with("wnaf-") => ScalarMulMethod::Wnaf(num(&name[5..])?),
        _ if name.starts_with("dbc-") => ScalarMulMethod::Dbc {
            delta: num(&name[4..])?,
        },
        _ => {
            return Err(format!(
                "unknown method {name:?} (auto, naf, wnaf-W, dbc-D, glv, glv-dbc)"
            ))
        }
    })
}

fn run<P: CurveMul>(a: &Args) -> Result<String, String> {
    let set = match a.formulas.as_str() {
        "own" => FormulaSet::for_curve::<P>(),
        "generic" => FormulaSet::Generic,
        f => return Err(format!("unknown formulas {f:?} (own, generic)")),
    };
    let ours = method(&a.method)?;
    let baseline = if a.vs == "arkworks" {
        None
    } else {
        Some(method(&a.vs)?)
    };
    let mut rng = ChaCha20Rng::seed_from_u64(a.seed);
    let inputs: Vec<(Projective<P>, P::ScalarField)> = (0..a.count)
        .map(|_| {
            (
                Projective::<P>::generator() * P::ScalarField::rand(&mut rng),
                P::ScalarField::rand(&mut rng),
            )
        })
        .collect();
    let run_a =
        |p: &Projective<P>, k: &P::ScalarField| mul_scalar_with(p, k, ours, set, &mut Plain);
    let run_b =
        |p: &Projective<P>, k: &P::ScalarField| -> Result<Projective<P>, zkaccel::cpu::MulError> {
            match baseline {
                None => Ok(*p * k),
                Some(m) => mul_scalar_with(p, k, m, set, &mut Plain),
            }
        };
    // Correctness first: every result equal to arkworks'.
    let mut equal = true;
    for (p, k) in &inputs {
        let want = *p * k;
        equal &= run_a(p, k).map_err(|e| e.to_string())? == want;
        equal &= run_b(p, k).map_err(|e| e.to_string())? == want;
    }
    // Per-operation medians: each round runs a contender over all inputs.
    let per_op = inputs.len() as f64;
    let (ma, mb) = timing::interleaved(
        a.rounds,
        || {
            for (p, k) in &inputs {
                black_box(run_a(black_box(p), black_box(k)).ok());
            }
        },
        || {
            for (p, k) in &inputs {
                black_box(run_b(black_box(p), black_box(k)).ok());
            }
        },
    );
    let (ma, mb) = (ma / per_op, mb / per_op);
    let speedup = mb / ma;
    Ok(if a.json {
        format!(
            "{{\"workload\": \"scalar-mul\", \"params\": {{\"curve\": \"{}\", \"method\": \"{}\", \"vs\": \"{}\", \"formulas\": \"{:?}\", \"count\": {}, \"rounds\": {}}}, \"zkaccel_ms\": {ma:.6}, \"{}_ms\": {mb:.6}, \"speedup\": {speedup:.4}, \"results_equal\": {equal}}}\n",
            a.curve, a.method, a.vs, set, a.count, a.rounds, if baseline.is_none() { "arkworks" } else { "baseline" }
        )
    } else {
        format!(
            "scalar-mul on {} ({} inputs, {} interleaved rounds, {:?} formulas)\n  zkaccel {:<10} {:>10.2} us (median)\n  {:<18} {:>10.2} us (median)\n  speedup {speedup:.3}x, results equal to arkworks: {equal}\n",
            a.curve, a.count, a.rounds, set, a.method, ma * 1e3, a.vs, mb * 1e3
        )
    })
}

fn main() -> ExitCode {
    // The library's log lines (backend choice, GPU fallbacks, GPU profiles);
    // RUST_LOG overrides the level.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let out = match raw.split_first() {
        Some((w, rest)) if w == "scalar-mul" => scalar_mul_main(rest),
        Some((w, rest)) if w == "msm" => msm_cmd::main(rest),
        Some((w, rest)) if w == "ntt" => ntt_cmd::main(rest),
        Some((w, rest)) if w == "pcs" => pcs_cmd::main(rest),
        Some((w, _)) => Err(format!(
            "unknown workload {w:?} (scalar-mul, msm, ntt, pcs); {USAGE}"
        )),
        None => Err(USAGE.to_string()),
    };
    report(out)
}

fn scalar_mul_main(rest: &[String]) -> Result<String, String> {
    parse(rest).and_then(|a| match a.curve.as_str() {
        "bn254-g1" => run::<ark_bn254::g1::Config>(&a),
        "bn254-g2" => run::<ark_bn254::g2::Config>(&a),
        "bls12-381-g1" => run::<ark_bls12_381::g1::Config>(&a),
        "secp256k1" => run::<ark_secp256k1::Config>(&a),
        "p256" => run::<ark_secp256r1::Config>(&a),
        c => Err(format!("unknown curve {c:?}; {USAGE}")),
    })
}

/// Prints the outcome; exit 1 if results differed, 2 on bad arguments.
fn report(out: Result<String, String>) -> ExitCode {
    match out {
        Ok(s) => {
            print!("{s}");
            if s.contains("\"results_equal\": false") || s.contains("equal to arkworks: false") {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compare: {e}");
            ExitCode::from(2)
        }
    }
}
