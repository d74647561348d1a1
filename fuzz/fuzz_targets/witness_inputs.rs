//! Arbitrary `input.json` text given to circom's witness calculator (the
//! committed `arrays` fixture's circuit.wasm: arrays of arrays, a check the
//! input can fail): parsing and calculating must return a witness or an
//! error, never panic; a witness that comes back has the module's size and
//! the constant 1 first. Seeds: the fixture's input and variants.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use zkaccel_witness::{CalculatorOptions, Inputs, WitnessCalculator};

fn calculator() -> &'static WitnessCalculator {
    static CALC: OnceLock<WitnessCalculator> = OnceLock::new();
    CALC.get_or_init(|| {
        let wasm = include_bytes!("../../crates/circom/tests/fixtures/arrays/circuit.wasm");
        let opts = CalculatorOptions::new().time_limit(Some(std::time::Duration::from_secs(5)));
        WitnessCalculator::from_bytes_with(wasm, &opts).expect("the arrays fixture's wasm")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(inputs) = Inputs::from_json(text) else {
        return;
    };
    let calc = calculator();
    if let Ok(w) = calc.calculate::<ark_bn254::Fr>(&inputs) {
        assert_eq!(w.len(), calc.witness_size());
        assert_eq!(w[0], ark_bn254::Fr::from(1u64));
    }
    let _ = calc.calculate_wtns(&inputs);
});
