//! Double-base chains and recodings of arbitrary limb arrays: every method
//! must either refuse an input over `MAX_BITS` bits with an error or return a
//! valid chain (non-increasing exponents) that evaluates back to the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use num_bigint::{BigInt, BigUint};
use zkaccel_dbc::{Dbc, Recoding, MAX_BITS};

fuzz_target!(|input: (u8, u8, Vec<u64>)| {
    let (method, param, limbs) = input;
    if limbs.len() > 2 * (MAX_BITS as usize / 64) {
        return;
    }
    let n = BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|l| [*l as u32, (*l >> 32) as u32])
            .collect::<Vec<_>>(),
    );
    let fits = n.bits() <= MAX_BITS as u64;
    let want = BigInt::from(n);
    let chain = match method % 5 {
        0 => Dbc::optimal(&limbs),
        1 => Dbc::eom(&limbs),
        2 => Dbc::suboptimal(&limbs, u32::from(param % 64)),
        3 => Dbc::naf(&limbs),
        _ => {
            let recoding = match param % 3 {
                0 => Recoding::binary(&limbs),
                1 => Recoding::naf(&limbs),
                _ => Recoding::wnaf(&limbs, 2 + u32::from(param % 15)),
            };
            match recoding {
                Ok(r) => {
                    assert!(fits, "a recoding of an over-long input");
                    assert_eq!(r.value(), want, "recoding {:?}", r.kind());
                    match r.to_dbc() {
                        Some(c) => Ok(c),
                        None => return,
                    }
                }
                Err(e) => {
                    assert!(!fits, "recoding refused a valid input: {e}");
                    return;
                }
            }
        }
    };
    match chain {
        Ok(c) => {
            assert!(fits, "a chain for an over-long input");
            assert!(c.is_valid(), "exponents must not increase");
            assert_eq!(c.value(), want, "chain must evaluate to the input");
            assert!(c.represents(&limbs));
        }
        Err(e) => assert!(
            !fits || (method % 5 == 2 && param % 64 == 0),
            "refused a valid input: {e}"
        ),
    }
});
