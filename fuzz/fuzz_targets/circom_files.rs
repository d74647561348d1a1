//! The snarkjs file readers on arbitrary bytes: `.zkey` (both curves,
//! with and without point checks), `.wtns`, `.r1cs` and the JSON files
//! must return an error or a value, never panic. The first byte picks the
//! reader; the seeds are the committed fixtures' files.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zkaccel_circom::*;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 6 {
        0 => {
            let _ = zkey_curve(rest);
            let _ = read_zkey::<ark_bn254::Bn254>(rest, ZkeyOptions::default());
        }
        1 => {
            let _ = read_zkey::<ark_bls12_381::Bls12_381>(rest, ZkeyOptions { check_points: true, ..Default::default() });
        }
        2 => {
            let _ = read_wtns::<ark_bn254::Fr>(rest);
        }
        3 => {
            // A valid header may declare billions of wires: check a witness
            // only where one fits in memory (the reader itself allocates by
            // the file's length, not by its counts).
            if let Ok(r) = read_r1cs::<ark_bn254::Fr>(rest) {
                if r.n_wires <= 1 << 16 {
                    let w = vec![ark_bn254::Fr::from(1u64); r.n_wires];
                    let _ = r.check_witness(&w);
                }
            }
        }
        4 => {
            if let Ok(s) = std::str::from_utf8(rest) {
                let _ = read_vkey_json::<ark_bn254::Bn254>(s);
                let _ = read_proof_json::<ark_bn254::Bn254>(s);
                let _ = read_public_json::<ark_bn254::Bn254>(s);
            }
        }
        _ => {
            let _ = read_wtns::<ark_bls12_381::Fr>(rest);
            let _ = read_r1cs::<ark_bls12_381::Fr>(rest);
        }
    }
});
