//! `compare msm`: zkaccel's MSM against arkworks' `VariableBaseMSM::msm`.

use ark_ec::short_weierstrass::{Affine, Projective};
use ark_ec::VariableBaseMSM;
use ark_ff::{PrimeField, UniformRand};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::hint::black_box;
use zkaccel::cpu::msm::pippenger_with;
use zkaccel::cpu::{
    msm_bases, msm_with, CurveMul, FieldOps, MontBytes, MsmAlgorithm, MsmProvider, PackedBases,
    Plain, PreparedBases,
};

struct Args {
    curve: String,
    log_n: u32,
    /// The number of terms: `--terms N`, or 2^`--log-n`.
    n: usize,
    density: String,
    bits: u32,
    algorithm: String,
    rounds: usize,
    prepared: bool,
    packed: bool,
    backend: String,
    field_ops: Option<String>,
    json: bool,
}

fn parse(rest: &[String]) -> Result<Args, String> {
    let f = crate::flags::Flags::parse(
        rest,
        &[
            "--curve",
            "--log-n",
            "--terms",
            "--density",
            "--bits",
            "--algorithm",
            "--rounds",
            "--backend",
            "--field-ops",
        ],
        &["--json", "--prepared", "--packed"],
    )?;
    let log_n: u32 = f.num("--log-n", 16)?;
    let rounds: usize = f.num("--rounds", 7)?;
    if log_n > 24 || rounds == 0 {
        return Err("--log-n must be at most 24 and --rounds at least 1".into());
    }
    let n: usize = f.num("--terms", 1usize << log_n)?;
    if n == 0 || n > 1 << 24 {
        return Err("--terms must be 1 to 2^24".into());
    }
    let a = Args {
        curve: f.str("--curve", "bn254-g1"),
        log_n,
        n,
        density: f.str("--density", "1"),
        bits: f.num("--bits", 0)?,
        algorithm: f.str("--algorithm", "auto"),
        rounds,
        prepared: f.has("--prepared"),
        packed: f.has("--packed"),
        backend: f.str("--backend", "cpu"),
        field_ops: Some(f.str("--field-ops", "")).filter(|v| !v.is_empty()),
        json: f.has("--json"),
    };
    if a.bits > 256 {
        return Err(format!(
            "--bits {}: at most 256 (0 or the field's size: full-width scalars)",
            a.bits
        ));
    }
    if a.packed && (a.prepared || a.backend != "cpu" || a.algorithm != "auto") {
        return Err("--packed runs the CPU's Auto only".into());
    }
    Ok(a)
}

/// A random scalar of at most `bits` bits (uniform below `2^bits`), or a
/// uniform field element for 0 and for widths of the field's size and
/// more. Up to 64 bits it is drawn as one `u64`, as before wider widths
/// were taken.
fn random_scalar<F: PrimeField>(bits: u32, rng: &mut ChaCha20Rng) -> F {
    if bits == 0 || bits >= F::MODULUS_BIT_SIZE {
        return F::rand(rng);
    }
    if bits <= 64 {
        let v: u64 = rng.gen();
        return F::from(if bits == 64 {
            v
        } else {
            v & ((1u64 << bits) - 1)
        });
    }
    let mut bytes = [0u8; 32];
    rng.fill(&mut bytes[..]);
    for (i, b) in bytes.iter_mut().enumerate() {
        let low = 8 * i as u32;
        if low >= bits {
            *b = 0;
        } else if bits - low < 8 {
            *b &= (1u8 << (bits - low)) - 1;
        }
    }
    // Below 2^bits < r: no reduction happens.
    F::from_le_bytes_mod_order(&bytes)
}

fn algorithm(name: &str) -> Result<MsmAlgorithm, String> {
    Ok(match name {
        "auto" => MsmAlgorithm::Auto,
        "pippenger" => MsmAlgorithm::Pippenger,
        "pippenger-glv" => MsmAlgorithm::PippengerGlv,
        "strauss" => MsmAlgorithm::Strauss,
        "dbc-per-term" => MsmAlgorithm::DbcPerTerm,
        "naive" => MsmAlgorithm::Naive,
        _ => return Err(format!("unknown algorithm {name:?}")),
    })
}

/// `gpu`: the provider zkaccel's side runs on (`--backend cuda`), or the CPU.
fn run<P: CurveMul>(a: &Args, gpu: Option<&dyn MsmProvider<P>>) -> Result<String, String>
where
    P::BaseField: MontBytes,
{
    let n = a.n;
    let alg = algorithm(&a.algorithm)?;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let bases: Vec<Affine<P>> = crate::inputs::progression(n, &mut rng);
    let nonzero = match a.density.as_str() {
        "1" => n,
        "sqrt" => (n as f64).sqrt().ceil() as usize,
        "1/100" => n.div_ceil(100),
        "1/1000" => n.div_ceil(1000),
        d => return Err(format!("unknown density {d:?} (1, sqrt, 1/100, 1/1000)")),
    };
    let mut scalars = vec![P::ScalarField::from(0u64); n];
    for i in 0..nonzero {
        let idx = if nonzero == n { i } else { rng.gen_range(0..n) };
        scalars[idx] = random_scalar::<P::ScalarField>(a.bits, &mut rng);
    }
    let want = <Projective<P> as VariableBaseMSM>::msm(&bases, &scalars)
        .map_err(|e| format!("arkworks: {e}"))?;
    // With --prepared, zkaccel's side runs on precomputed shifted bases
    // (built here, outside the timed region; its memory is reported).
    let prepared = a.prepared.then(|| {
        let t = std::time::Instant::now();
        let p = PreparedBases::new(&bases);
        (p, t.elapsed())
    });
    let ours = |b: &[Affine<P>], s: &[P::ScalarField]| match (&prepared, gpu) {
        (Some((p, _)), _) => p.msm(s),
        (None, Some(g)) => g.msm(b, s),
        (None, None) => msm_with(b, s, alg),
    };
    let got = ours(&bases, &scalars).map_err(|e| e.to_string())?;
    let equal = got == want;
    if a.packed {
        return packed(a, &bases, &scalars, want, equal);
    }
    if let Some((p, t)) = &prepared {
        if !a.json {
            println!(
                "prepared bases: window {}, {} copies, {:.1} MiB, built in {:.1} s",
                p.window(),
                p.copies(),
                p.memory_bytes() as f64 / (1 << 20) as f64,
                t.as_secs_f64()
            );
        }
    }
    let (ma, mb) = crate::timing::interleaved(
        a.rounds,
        || {
            black_box(ours(black_box(&bases), black_box(&scalars)).ok());
        },
        || {
            black_box(
                <Projective<P> as VariableBaseMSM>::msm(black_box(&bases), black_box(&scalars))
                    .ok(),
            );
        },
    );
    let _ = P::ScalarField::MODULUS_BIT_SIZE;
    Ok(if a.json {
        format!(
            "{{\"workload\": \"msm\", \"params\": {{\"curve\": \"{}\", \"log_n\": {}, \"terms\": {}, \"density\": \"{}\", \"bits\": {}, \"algorithm\": \"{}\", \"rounds\": {}}}, \"zkaccel_ms\": {ma:.4}, \"arkworks_ms\": {mb:.4}, \"speedup\": {:.4}, \"results_equal\": {equal}}}\n",
            a.curve, a.log_n, a.n, a.density, a.bits, a.algorithm, a.rounds, mb / ma
        )
    } else {
        format!(
            "msm on {}: {} bases, density {}, {} nonzero, scalar bits {} ({} interleaved rounds)\n  zkaccel {:<12} {:>10.2} ms (median)\n  arkworks             {:>10.2} ms (median)\n  speedup {:.3}x, results equal to arkworks: {equal}\n",
            a.curve, a.n, a.density, nonzero, if a.bits == 0 { "full".to_string() } else { a.bits.to_string() }, a.rounds, a.algorithm, ma, mb, mb / ma
        )
    })
}

/// `--packed`: `Auto` on the bases read from bytes 4 past an 8-byte
/// boundary (`PackedBases`, as a snarkjs zkey's unaligned sections are
/// read in place), beside `Auto` on the slice and arkworks, interleaved.
fn packed<P: CurveMul>(
    a: &Args,
    bases: &[Affine<P>],
    scalars: &[P::ScalarField],
    want: Projective<P>,
    slice_equal: bool,
) -> Result<String, String>
where
    P::BaseField: MontBytes,
{
    let mut bytes = vec![0u8; 4];
    PackedBases::encode(bases, &mut bytes);
    let view = PackedBases::<P>::new(&bytes[4..]).ok_or("a whole number of points")?;
    let got = msm_bases(view, scalars).map_err(|e| e.to_string())?;
    let equal = slice_equal && got == want;
    let t = crate::timing::interleaved_all(
        a.rounds,
        &mut [
            &mut || {
                black_box(msm_bases(black_box(view), black_box(scalars)).ok());
            },
            &mut || {
                black_box(msm_with(black_box(bases), black_box(scalars), MsmAlgorithm::Auto).ok());
            },
            &mut || {
                black_box(
                    <Projective<P> as VariableBaseMSM>::msm(black_box(bases), black_box(scalars))
                        .ok(),
                );
            },
        ],
    );
    Ok(if a.json {
        format!(
            "{{\"workload\": \"msm-packed\", \"params\": {{\"curve\": \"{}\", \"log_n\": {}, \"terms\": {}, \"density\": \"{}\", \"bits\": {}, \"rounds\": {}}}, \"packed_ms\": {:.4}, \"slice_ms\": {:.4}, \"arkworks_ms\": {:.4}, \"packed_over_slice\": {:.4}, \"results_equal\": {equal}}}\n",
            a.curve, a.log_n, a.n, a.density, a.bits, a.rounds, t[0], t[1], t[2], t[0] / t[1]
        )
    } else {
        format!(
            "msm on {}: {} bases, density {}, scalar bits {} ({} interleaved rounds)\n  zkaccel Auto, packed bases (+4 bytes) {:>10.2} ms (median)\n  zkaccel Auto, slice                   {:>10.2} ms (median)\n  arkworks                              {:>10.2} ms (median)\n  packed / slice {:.3}, results equal to arkworks: {equal}\n",
            a.curve, a.n, a.density, if a.bits == 0 { "full".to_string() } else { a.bits.to_string() }, a.rounds, t[0], t[1], t[2], t[0] / t[1]
        )
    })
}

/// Entry point for `compare msm ...`.
pub fn main(rest: &[String]) -> Result<String, String> {
    let a = parse(rest)?;
    match a.curve.as_str() {
        "bn254-g1" if a.backend == "cuda" => {
            let gpu = zkaccel::cuda::CudaMsm::new(0).map_err(|e| format!("--backend cuda: {e}"))?;
            run::<ark_bn254::g1::Config>(&a, Some(&gpu))
        }
        _ if a.backend == "cuda" => Err("--backend cuda supports --curve bn254-g1 only".into()),
        _ if a.backend != "cpu" => Err(format!("unknown backend {:?} (cpu, cuda)", a.backend)),
        _ if a.field_ops.is_some() => field_ops_main(&a),
        "bn254-g1" => run::<ark_bn254::g1::Config>(&a, None),
        "bn254-g2" => run::<ark_bn254::g2::Config>(&a, None),
        "bls12-381-g1" => run::<ark_bls12_381::g1::Config>(&a, None),
        "bls12-381-g2" => run::<ark_bls12_381::g2::Config>(&a, None),
        "secp256k1" => run::<ark_secp256k1::Config>(&a, None),
        "p256" => run::<ark_secp256r1::Config>(&a, None),
        c => Err(format!(
            "unknown curve {c:?} (bn254-g1, bn254-g2, bls12-381-g1, bls12-381-g2, secp256k1, p256)"
        )),
    }
}

/// One field arithmetic for the MSM's `--field-ops` cells.
#[derive(Clone, Copy)]
enum Ops<Port, Asm> {
    /// arkworks' operators ([`Plain`]).
    Arkworks,
    /// zkaccel-ff's portable kernels.
    Portable(Port),
    /// The ADX kernels: without the IFMA lanes (`adx`) or with them where the
    /// CPU has them (`ifma`).
    Asm(Asm),
}

/// `compare msm --field-ops arkworks,portable,adx,ifma`: the same Pippenger
/// (no GLV split, so only the field arithmetic differs) on each listed
/// arithmetic, beside arkworks' `VariableBaseMSM::msm`, all in one
/// interleaved run; every result is checked against arkworks'.
fn field_ops_main(a: &Args) -> Result<String, String> {
    use zkaccel::cpu::{AdxFp2Ops, AdxOps, PortableFp2Ops, PortableOps};
    // The "ifma" cell only where the lanes run (else it repeats "adx").
    let lanes = zkaccel_ff::kernel_in_use() == zkaccel_ff::KernelLevel::Ifma;
    let g1 = (AdxOps::without_lanes(), AdxOps::new().filter(|_| lanes));
    let g2 = (
        AdxFp2Ops::without_lanes(),
        AdxFp2Ops::new().filter(|_| lanes),
    );
    match a.curve.as_str() {
        "bn254-g1" => run_ops::<ark_bn254::g1::Config, _, _>(a, PortableOps, g1),
        "bn254-g2" => run_ops::<ark_bn254::g2::Config, _, _>(a, PortableFp2Ops, g2),
        "bls12-381-g1" => run_ops::<ark_bls12_381::g1::Config, _, _>(a, PortableOps, g1),
        "bls12-381-g2" => run_ops::<ark_bls12_381::g2::Config, _, _>(a, PortableFp2Ops, g2),
        "secp256k1" => run_ops::<ark_secp256k1::Config, _, _>(a, PortableOps, g1),
        "p256" => run_ops::<ark_secp256r1::Config, _, _>(a, PortableOps, g1),
        c => Err(format!(
            "--field-ops: unknown curve {c:?} (bn254-g1, bn254-g2, bls12-381-g1, bls12-381-g2, secp256k1, p256)"
        )),
    }
}

/// The `--field-ops` cells on curve `P`: `port` the portable ops, `adx` and
/// `ifma` the ADX ops without and with the IFMA lanes, where they run.
fn run_ops<P, Port, Asm>(
    a: &Args,
    port: Port,
    (adx, ifma): (Option<Asm>, Option<Asm>),
) -> Result<String, String>
where
    P: CurveMul,
    Port: FieldOps<P::BaseField> + Copy + Send + Sync,
    Asm: FieldOps<P::BaseField> + Copy + Send + Sync,
{
    let mut cells = Vec::new();
    for name in a.field_ops.as_deref().unwrap_or_default().split(',') {
        cells.push((
            name,
            match name {
                "arkworks" => Ops::Arkworks,
                "portable" => Ops::Portable(port),
                "adx" | "ifma" => match if name == "adx" { adx } else { ifma } {
                    Some(o) => Ops::Asm(o),
                    None => {
                        // Not on this CPU (or capped by ZKACCEL_KERNEL): say so.
                        println!(
                            "field ops {name}: not available here ({}), skipped",
                            zkaccel_ff::kernel_summary()
                        );
                        continue;
                    }
                },
                o => {
                    return Err(format!(
                        "--field-ops: unknown {o:?} (arkworks, portable, adx, ifma)"
                    ))
                }
            },
        ));
    }
    let n = a.n;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let bases: Vec<Affine<P>> = crate::inputs::progression(n, &mut rng);
    let scalars: Vec<P::ScalarField> = (0..n).map(|_| P::ScalarField::rand(&mut rng)).collect();
    let ints: Vec<_> = scalars.iter().map(|s| s.into_bigint()).collect();
    let run = |o: Ops<Port, Asm>| match o {
        Ops::Arkworks => pippenger_with(&bases, &ints, Plain),
        Ops::Portable(p) => pippenger_with(&bases, &ints, p),
        Ops::Asm(x) => pippenger_with(&bases, &ints, x),
    };
    let want = <Projective<P> as VariableBaseMSM>::msm(&bases, &scalars)
        .map_err(|e| format!("arkworks: {e}"))?;
    let equal: Vec<bool> = cells.iter().map(|&(_, o)| run(o) == want).collect();
    let mut fs: Vec<Box<dyn FnMut()>> = cells
        .iter()
        .map(|&(_, o)| {
            Box::new(move || {
                let _ = black_box(run(o));
            }) as Box<dyn FnMut()>
        })
        .collect();
    fs.push(Box::new(|| {
        black_box(
            <Projective<P> as VariableBaseMSM>::msm(black_box(&bases), black_box(&scalars)).ok(),
        );
    }));
    let mut refs: Vec<&mut dyn FnMut()> = fs
        .iter_mut()
        .map(|f| &mut **f as &mut dyn FnMut())
        .collect();
    let ms = crate::timing::interleaved_all(a.rounds, &mut refs);
    let ark = ms[cells.len()];
    let mut out = format!(
        "msm field ops on {}: zkaccel's Pippenger (no GLV split) on {} bases, full scalars ({} interleaved rounds; {})\n",
        a.curve,
        a.n,
        a.rounds,
        zkaccel_ff::kernel_summary()
    );
    for (((name, _), t), eq) in cells.iter().zip(&ms).zip(&equal) {
        out += &format!(
            "  pippenger on {name:<9} {t:>10.2} ms  {:.3}x arkworks' MSM, result equal: {eq}\n",
            ark / t
        );
    }
    out += &format!("  arkworks VariableBaseMSM {ark:>10.2} ms\n");
    if equal.iter().any(|e| !e) {
        return Err(out + "a result differs from arkworks'");
    }
    Ok(out)
}
