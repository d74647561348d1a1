//! The snarkjs file readers on arbitrary bytes: `.zkey` (both curves,
//! with and without point checks), `.wtns`, `.r1cs` and the JSON files
//! must return an error or a value, never panic. The first byte picks the
//! reader; the seeds are the committed fixtures' files. A zkey is also
//! pushed through `ZkeyStream` in chunks whose size the first byte picks:
//! it must accept exactly what `read_zkey` accepts, as the same key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zkaccel_circom::*;

/// `bytes` read whole and streamed in chunks of `chunk`: both errors, or
/// the same key.
fn stream_agrees<E: CircomCurve>(bytes: &[u8], opts: ZkeyOptions, chunk: usize) {
    let whole = read_zkey::<E>(bytes, opts);
    let mut s = ZkeyStream::<E>::new(opts);
    let pushed = bytes.chunks(chunk).try_for_each(|c| s.push(c));
    let streamed = pushed.and_then(|()| s.finish());
    match (whole, streamed) {
        (Ok(a), Ok(b)) => {
            let b = b.into_zkey();
            assert!(a.pk == b.pk && a.matrices == b.matrices, "the streamed key differs");
        }
        (Err(_), Err(_)) => {}
        (a, b) => panic!("read whole: {:?}; streamed: {:?}", a.err(), b.err()),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 6 {
        0 => {
            let _ = zkey_curve(rest);
            let _ = zkey_curve_prefix(rest);
            stream_agrees::<ark_bn254::Bn254>(rest, ZkeyOptions::default(), 1 + which as usize * 61);
        }
        1 => {
            let opts = ZkeyOptions { check_points: true, ..Default::default() };
            stream_agrees::<ark_bls12_381::Bls12_381>(rest, opts, 1 + which as usize * 61);
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
