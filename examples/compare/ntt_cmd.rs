//! `compare ntt`: zkaccel's `NttDomain` against ark-poly's
//! `Radix2EvaluationDomain` (with its `parallel` feature) on the same vectors.

use ark_bn254::Fr;
use ark_ff::{FftField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::ntt::{Direction, Kernel, NttDomain, NttProvider};

struct Args {
    log_n: u32,
    coset: bool,
    inverse: bool,
    batch: usize,
    groth16: bool,
    kernel: String,
    rounds: usize,
    backend: String,
    json: bool,
}

fn parse(rest: &[String]) -> Result<Args, String> {
    let f = crate::flags::Flags::parse(
        rest,
        &["--log-n", "--batch", "--kernel", "--rounds", "--backend"],
        &["--coset", "--inverse", "--groth16", "--json"],
    )?;
    let a = Args {
        log_n: f.num("--log-n", 16)?,
        coset: f.has("--coset"),
        inverse: f.has("--inverse"),
        batch: f.num("--batch", 1)?,
        groth16: f.has("--groth16"),
        kernel: f.str("--kernel", "auto"),
        rounds: f.num("--rounds", 7)?,
        backend: f.str("--backend", "cpu"),
        json: f.has("--json"),
    };
    if a.log_n > Fr::TWO_ADICITY || a.rounds == 0 || a.batch == 0 {
        return Err(format!(
            "--log-n must be at most {} (BN254 Fr's two-adicity), --rounds and --batch at least 1",
            Fr::TWO_ADICITY
        ));
    }
    Ok(a)
}

fn kernel(name: &str) -> Result<Kernel, String> {
    Ok(match name {
        "auto" => Kernel::Auto,
        "ifma" => Kernel::Ifma,
        "avx2" => Kernel::Avx2,
        "adx" => Kernel::Adx,
        "portable" => Kernel::Portable,
        "generic" => Kernel::Generic,
        _ => {
            return Err(format!(
                "unknown kernel {name:?} (auto, ifma, avx2, adx, portable, generic)"
            ))
        }
    })
}

/// Entry point for `compare ntt ...`.
pub fn main(rest: &[String]) -> Result<String, String> {
    let a = parse(rest)?;
    let kernel = kernel(&a.kernel)?;
    // --backend cuda: zkaccel's side runs on the GPU provider.
    let gpu = match a.backend.as_str() {
        "cpu" => None,
        "cuda" => Some(zkaccel::cuda::CudaNtt::with_context(std::sync::Arc::new(
            zkaccel::cuda::CudaContext::new(0).map_err(|e| format!("--backend cuda: {e}"))?,
        ))),
        b => return Err(format!("unknown backend {b:?} (cpu, cuda)")),
    };
    let batch = |d: &NttDomain<Fr>, v: &mut [Vec<Fr>], dir: Direction| match &gpu {
        Some(g) => g.transform_batch(d, v, dir),
        None => d.transform_batch(v, dir, kernel),
    };
    let n = 1usize << a.log_n;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let count = if a.groth16 { 3 } else { a.batch };
    let inputs: Vec<Vec<Fr>> = (0..count)
        .map(|_| (0..n).map(|_| Fr::rand(&mut rng)).collect())
        .collect();
    let ark = Radix2EvaluationDomain::<Fr>::new(n).ok_or("size beyond two-adicity")?;
    let ours = NttDomain::<Fr>::new(n).ok_or("size beyond two-adicity")?;
    let (ark_c, ours_c) = (
        ark.get_coset(Fr::GENERATOR).ok_or("coset")?,
        ours.get_coset(Fr::GENERATOR).ok_or("coset")?,
    );
    let (ark_d, ours_d) = if a.coset {
        (ark_c, ours_c)
    } else {
        (ark, ours)
    };
    let dir = if a.inverse {
        Direction::Inverse
    } else {
        Direction::Forward
    };

    // zkaccel's and ark-poly's versions of the workload, in place.
    let run_ours = |v: &mut Vec<Vec<Fr>>| -> Result<(), String> {
        if a.groth16 {
            batch(&ours, v, Direction::Inverse)
                .and_then(|_| batch(&ours_c, v, Direction::Forward))
                .and_then(|_| batch(&ours_c, &mut v[..1], Direction::Inverse))
                .map_err(|e| e.to_string())
        } else {
            batch(&ours_d, v, dir).map_err(|e| e.to_string())
        }
    };
    let run_ark = |v: &mut Vec<Vec<Fr>>| {
        if a.groth16 {
            v.iter_mut().for_each(|x| ark.ifft_in_place(x));
            v.iter_mut().for_each(|x| ark_c.fft_in_place(x));
            ark_c.ifft_in_place(&mut v[0]);
        } else if a.inverse {
            v.iter_mut().for_each(|x| ark_d.ifft_in_place(x));
        } else {
            v.iter_mut().for_each(|x| ark_d.fft_in_place(x));
        }
    };
    let (mut x, mut y) = (inputs.clone(), inputs);
    run_ours(&mut x)?;
    run_ark(&mut y);
    let equal = x == y;
    let (ma, mb) = crate::timing::interleaved(
        a.rounds,
        || {
            black_box(run_ours(black_box(&mut x)).ok());
        },
        || run_ark(black_box(&mut y)),
    );
    let what = if a.groth16 {
        "groth16 witness-map sequence (3 ifft, 3 coset fft, 1 coset ifft)".to_string()
    } else {
        format!(
            "{}{} x{}",
            if a.coset { "coset " } else { "" },
            if a.inverse { "ifft" } else { "fft" },
            a.batch
        )
    };
    Ok(if a.json {
        format!(
            "{{\"workload\": \"ntt\", \"params\": {{\"field\": \"bn254-fr\", \"log_n\": {}, \"coset\": {}, \"inverse\": {}, \"batch\": {}, \"groth16\": {}, \"kernel\": \"{}\", \"rounds\": {}}}, \"zkaccel_ms\": {ma:.4}, \"arkworks_ms\": {mb:.4}, \"speedup\": {:.4}, \"results_equal\": {equal}}}\n",
            a.log_n, a.coset, a.inverse, a.batch, a.groth16, a.kernel, a.rounds, mb / ma
        )
    } else {
        format!(
            "ntt on BN254 Fr: 2^{}, {what} ({} interleaved rounds)\n  zkaccel ({:<8}) {:>10.2} ms (median)\n  ark-poly           {:>10.2} ms (median)\n  speedup {:.3}x, results equal to ark-poly: {equal}\n",
            a.log_n, a.rounds, a.kernel, ma, mb, mb / ma
        )
    })
}
