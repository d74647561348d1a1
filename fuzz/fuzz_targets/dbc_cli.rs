//! The `dbc` command line on arbitrary arguments: `cli::run` must return
//! `Ok` or `Err` (never panic), a chain it prints must be for the number it
//! was given, and every number `parse_number` accepts must round-trip.
//!
//! Input: bytes split into arguments at NUL, space and newline. Inputs asking
//! for more than 8 samples are skipped (the work grows with them, a slow
//! input is not a bug).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zkaccel_dbc::cli::{parse_number, run};
use zkaccel_dbc::MAX_BITS;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let args: Vec<String> = text
        .split(['\0', ' ', '\n'])
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect();
    let too_much_work = args
        .windows(2)
        .any(|w| w[0] == "--samples" && w[1].parse::<u64>().map_or(false, |s| s > 8))
        || (args.iter().any(|a| a == "mincost") && !args.iter().any(|a| a == "--samples"));
    if !too_much_work {
        if let Ok(out) = run(&args) {
            assert!(!out.is_empty(), "success prints something: {args:?}");
        }
    }
    for a in &args {
        if let Ok(n) = parse_number(a) {
            assert!(n.bits() <= MAX_BITS as u64);
            assert_eq!(
                parse_number(&n.to_string()),
                Ok(n.clone()),
                "decimal of {a:?}"
            );
            assert_eq!(parse_number(&format!("0x{n:x}")), Ok(n), "hex of {a:?}");
        }
    }
});
