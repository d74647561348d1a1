//! Native field multiplication for circom's calculator: the module's
//! Montgomery product `Fr_F1m_mul(x, y, r)` (eight 32-bit words per value,
//! `R = 2^256`) replaced by a host function on 64-bit limbs.
//!
//! circom's WebAssembly does its field arithmetic in 32-bit words (wasm has
//! no 64x64 -> 128 product); on a SHA-256 witness `perf` put 37% of the time
//! in `Fr_F1m_mul` and 19% more in `Fr_toMontgomery`, which multiplies by
//! `R^2` through it. [`patch`] rewrites the module before it is compiled:
//! one more import, `zkaccel.fr_mul` (same type), and the body of
//! `Fr_F1m_mul` (found by its name in the module's name section, type
//! checked) becomes a call to it; every other function index moves up by
//! one. The host side ([`fr_mul`]) reads both operands from the instance's
//! memory, reduces each below `p` (a value and its reduction are the same
//! field element), and writes the canonical Montgomery product. circom's own
//! product (one conditional subtraction at the end) is canonical whenever
//! `x y < p 2^256`, which holds wherever one operand is below `p`: stored
//! values are kept below `p`, and the two places a full 256-bit word can
//! enter (`toMontgomery`'s product by `R^2`, a scalar chunk of `F1m_load`)
//! multiply it by a reduced one. So the words are the module's own, for the
//! fields whose Montgomery form is arkworks' with
//! `R = 2^256` (BN254 and BLS12-381 scalars, [`NativeField::of_prime`]).
//! Any other prime keeps the module as compiled by circom.

use ark_ff::{BigInt, Fp, MontBackend, MontConfig};
use wasm_encoder::reencode::{Error, Reencode};
use wasmparser::{Name, Parser, Payload, TypeRef};

/// The import the patched module calls.
pub(crate) const IMPORT: (&str, &str) = ("zkaccel", "fr_mul");

/// Names the rewritten module in the compiled-module cache (a new rewrite
/// takes a new name).
pub(crate) const CACHE_VARIANT: &[u8] = b"native Fr_F1m_mul 1";

/// The function the patch replaces.
const TARGET: &str = "Fr_F1m_mul";

/// The fields [`fr_mul`] multiplies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum NativeField {
    /// Not a field the host function knows: never called (the unpatched
    /// module runs).
    #[default]
    None,
    /// BN254's scalar field (circom's default `bn128`).
    Bn254,
    /// BLS12-381's scalar field.
    Bls12_381,
}

impl NativeField {
    /// The fields [`fr_mul`] multiplies in, with their moduli as
    /// little-endian bytes (how the module's data and `getRawPrime` hold them).
    fn known() -> [(NativeField, [u8; 32]); 2] {
        [
            (
                NativeField::Bn254,
                le_bytes(&<ark_bn254::FrConfig as MontConfig<4>>::MODULUS.0),
            ),
            (
                NativeField::Bls12_381,
                le_bytes(&<ark_bls12_381::FrConfig as MontConfig<4>>::MODULUS.0),
            ),
        ]
    }

    /// The field of `prime` (little-endian 32-bit words, as the module
    /// reports it).
    pub(crate) fn of_prime(prime: &[u32]) -> NativeField {
        let bytes: Vec<u8> = prime.iter().flat_map(|w| w.to_le_bytes()).collect();
        Self::known()
            .into_iter()
            .find(|(_, m)| bytes == m)
            .map_or(NativeField::None, |(field, _)| field)
    }
}

/// What the module holds that the patch needs.
struct Found {
    imported_funcs: u32,
    target: u32,
    /// The target's type index, the new import's.
    target_type: u32,
}

/// The module with `Fr_F1m_mul` calling [`IMPORT`], or `None` where it
/// cannot be patched (no name section naming it, or naming two, another
/// type, no function imports to put the new one after, no BN254 or
/// BLS12-381 scalar modulus among its data, or bytes wasmparser refuses:
/// those the compiler then reports).
pub(crate) fn patch(wasm: &[u8]) -> Option<Vec<u8>> {
    let found = find(wasm)?;
    let mut module = wasm_encoder::Module::new();
    let mut re = Patch {
        found,
        bodies: 0,
        added: false,
    };
    re.parse_core_module(&mut module, Parser::new(0), wasm)
        .ok()?;
    re.added.then(|| module.finish())
}

/// The target's index, checked to take `(i32, i32, i32)` and return
/// nothing, and the number of imported functions.
fn find(wasm: &[u8]) -> Option<Found> {
    let mut imported_funcs = 0u32;
    let mut func_types: Vec<u32> = Vec::new();
    let mut types: Vec<Option<(Vec<wasmparser::ValType>, Vec<wasmparser::ValType>)>> = Vec::new();
    let mut target = None;
    let mut named = 0;
    let mut known_prime = false;
    let moduli = NativeField::known().map(|(_, m)| m);
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.ok()? {
            Payload::TypeSection(reader) => {
                for ty in reader.into_iter_err_on_gc_types() {
                    let f = ty.ok()?;
                    types.push(Some((f.params().to_vec(), f.results().to_vec())));
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    if let TypeRef::Func(_) = import.ok()?.ty {
                        imported_funcs += 1;
                    }
                }
            }
            Payload::FunctionSection(reader) => {
                for ty in reader {
                    func_types.push(ty.ok()?);
                }
            }
            Payload::CustomSection(c) => {
                if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                    for name in names {
                        if let Name::Function(map) = name.ok()? {
                            for naming in map {
                                let naming = naming.ok()?;
                                if naming.name == TARGET {
                                    target = Some(naming.index);
                                    named += 1;
                                }
                            }
                        }
                    }
                }
            }
            Payload::DataSection(reader) => {
                for data in reader {
                    let bytes = data.ok()?.data;
                    known_prime |= moduli.iter().any(|m| contains(bytes, m));
                }
            }
            _ => {}
        }
    }
    if named != 1 || !known_prime {
        return None;
    }
    let target = target?;
    let defined = target.checked_sub(imported_funcs)?;
    let ty = *func_types.get(defined as usize)?;
    let (params, results) = types.get(ty as usize)?.as_ref()?;
    let i32s = [wasmparser::ValType::I32; 3];
    (imported_funcs > 0 && params[..] == i32s && results.is_empty()).then_some(Found {
        imported_funcs,
        target,
        target_type: ty,
    })
}

/// The little-endian bytes of a four-limb integer.
fn le_bytes(limbs: &[u64; 4]) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, limb) in out.chunks_exact_mut(8).zip(limbs) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
    out
}

/// Whether `needle` occurs in `hay` (the first eight bytes compared first:
/// a circuit's data can be megabytes).
fn contains(hay: &[u8], needle: &[u8; 32]) -> bool {
    hay.windows(32)
        .any(|w| w[..8] == needle[..8] && w == needle)
}

/// The rewrite: the import added after the module's own, every function
/// index above the imports moved up by one, the target's body replaced.
struct Patch {
    found: Found,
    /// Function bodies seen so far.
    bodies: u32,
    /// Whether the import was added (the module has an import section).
    added: bool,
}

impl Reencode for Patch {
    type Error = std::convert::Infallible;

    fn function_index(&mut self, func: u32) -> Result<u32, Error<Self::Error>> {
        Ok(if func >= self.found.imported_funcs {
            func + 1
        } else {
            func
        })
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> Result<(), Error<Self::Error>> {
        wasm_encoder::reencode::utils::parse_import_section(self, imports, section)?;
        // The target's type (checked by `find`), as the new import's.
        let ty = self.found.target_type;
        imports.import(IMPORT.0, IMPORT.1, wasm_encoder::EntityType::Function(ty));
        self.added = true;
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        func: wasmparser::FunctionBody<'_>,
    ) -> Result<(), Error<Self::Error>> {
        let index = self.found.imported_funcs + self.bodies;
        self.bodies += 1;
        if index != self.found.target {
            return wasm_encoder::reencode::utils::parse_function_body(self, code, func);
        }
        use wasm_encoder::Instruction as I;
        let mut f = wasm_encoder::Function::new([]);
        f.instruction(&I::LocalGet(0));
        f.instruction(&I::LocalGet(1));
        f.instruction(&I::LocalGet(2));
        // The new import's final index (not remapped).
        f.instruction(&I::Call(self.found.imported_funcs));
        f.instruction(&I::End);
        code.function(&f);
        Ok(())
    }
}

/// `r = x * y / 2^256 mod p` on the instance's memory, the three offsets
/// as the module passes them; `None` where an operand lies outside memory
/// (the caller traps).
pub(crate) fn fr_mul(field: NativeField, memory: &mut [u8], x: u32, y: u32, r: u32) -> Option<()> {
    match field {
        NativeField::Bn254 => mul_at::<ark_bn254::FrConfig>(memory, x, y, r),
        NativeField::Bls12_381 => mul_at::<ark_bls12_381::FrConfig>(memory, x, y, r),
        NativeField::None => None,
    }
}

fn mul_at<C: MontConfig<4>>(memory: &mut [u8], x: u32, y: u32, r: u32) -> Option<()> {
    let a = read::<C>(memory, x)?;
    let b = read::<C>(memory, y)?;
    let product = (a * b).0;
    let start = r as usize;
    memory
        .get_mut(start..start.checked_add(32)?)?
        .copy_from_slice(&le_bytes(&product.0));
    Some(())
}

/// The element whose Montgomery words are at `at`, reduced below `p`.
fn read<C: MontConfig<4>>(memory: &[u8], at: u32) -> Option<Fp<MontBackend<C, 4>, 4>> {
    let start = at as usize;
    let bytes = memory.get(start..start.checked_add(32)?)?;
    let mut limbs = [0u64; 4];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
        *limb = u64::from_le_bytes(chunk.try_into().ok()?);
    }
    let mut v = BigInt(limbs);
    while v >= C::MODULUS {
        use ark_ff::BigInteger;
        v.sub_with_borrow(&C::MODULUS);
    }
    Some(Fp::new_unchecked(v))
}

#[cfg(test)]
mod tests {
    //! The host's product against arkworks' (random, edge and unreduced
    //! operands, aliasing, operands outside memory), and the patch refusing
    //! modules it cannot rewrite.
    use super::*;
    use ark_ff::{Field, PrimeField, UniformRand};
    use rand::SeedableRng;

    /// Writes the Montgomery words `w` at `at`.
    fn put(memory: &mut [u8], at: usize, w: [u64; 4]) {
        for (i, limb) in w.iter().enumerate() {
            memory[at + 8 * i..at + 8 * i + 8].copy_from_slice(&limb.to_le_bytes());
        }
    }

    fn get(memory: &[u8], at: usize) -> [u64; 4] {
        core::array::from_fn(|i| {
            u64::from_le_bytes(memory[at + 8 * i..at + 8 * i + 8].try_into().unwrap())
        })
    }

    /// `x * y * 2^-256 mod p` for any 256-bit words, by big integers.
    fn reference<F: PrimeField>(x: [u64; 4], y: [u64; 4]) -> [u64; 4] {
        use num_bigint::BigUint;
        let big = |w: [u64; 4]| {
            BigUint::from_bytes_le(&w.iter().flat_map(|l| l.to_le_bytes()).collect::<Vec<_>>())
        };
        let p: BigUint = F::MODULUS.into();
        let r_inv = BigUint::from(1u8) << 256u32;
        let r_inv = r_inv.modpow(&(&p - 2u8), &p);
        let v = big(x) * big(y) % &p * r_inv % &p;
        let mut bytes = v.to_bytes_le();
        bytes.resize(32, 0);
        core::array::from_fn(|i| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()))
    }

    fn check<C: MontConfig<4>>(field: NativeField) {
        type F<C> = Fp<MontBackend<C, 4>, 4>;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let p = C::MODULUS.0;
        let p_minus_1 = {
            let mut v = C::MODULUS;
            ark_ff::BigInteger::sub_with_borrow(&mut v, &BigInt::from(1u64));
            v.0
        };
        let edges = [
            [0u64; 4],
            [1, 0, 0, 0],
            p_minus_1,
            p,
            [u64::MAX; 4],
            F::<C>::ONE.0 .0,
        ];
        let mut values: Vec<[u64; 4]> = edges.to_vec();
        values.extend((0..40).map(|_| F::<C>::rand(&mut rng).0 .0));
        values.extend((0..10).map(|_| core::array::from_fn(|_| rand::Rng::gen::<u64>(&mut rng))));
        let mut memory = vec![0u8; 256];
        for &x in &values {
            for &y in &values {
                put(&mut memory, 0, x);
                put(&mut memory, 64, y);
                fr_mul(field, &mut memory, 0, 64, 128).unwrap();
                assert_eq!(
                    get(&memory, 128),
                    reference::<F<C>>(x, y),
                    "{x:x?} * {y:x?}"
                );
                // In place, over either operand.
                fr_mul(field, &mut memory, 0, 64, 0).unwrap();
                assert_eq!(get(&memory, 0), reference::<F<C>>(x, y));
            }
        }
        // Operands or result outside memory: refused, memory untouched.
        let before = memory.clone();
        for (x, y, r) in [(240, 0, 0), (0, 225, 0), (0, 0, 250), (u32::MAX, 0, 0)] {
            assert!(fr_mul(field, &mut memory, x, y, r).is_none(), "{x} {y} {r}");
        }
        assert!(memory == before);
    }

    #[test]
    fn host_product_equals_big_integers() {
        check::<ark_bn254::FrConfig>(NativeField::Bn254);
        check::<ark_bls12_381::FrConfig>(NativeField::Bls12_381);
        assert!(fr_mul(NativeField::None, &mut [0u8; 128], 0, 32, 64).is_none());
    }

    #[test]
    fn fields_recognised_by_their_prime() {
        let words = |p: BigInt<4>| -> Vec<u32> {
            p.0.iter()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect()
        };
        assert_eq!(
            NativeField::of_prime(&words(ark_bn254::Fr::MODULUS)),
            NativeField::Bn254
        );
        assert_eq!(
            NativeField::of_prime(&words(ark_bls12_381::Fr::MODULUS)),
            NativeField::Bls12_381
        );
        let mut other = words(ark_bn254::Fr::MODULUS);
        other[0] ^= 2;
        assert_eq!(NativeField::of_prime(&other), NativeField::None);
        assert_eq!(NativeField::of_prime(&[1, 2]), NativeField::None);
        let _ = ark_bn254::Fr::ONE.square();
    }

    #[test]
    fn modules_it_cannot_rewrite_are_left_alone() {
        // Not wasm; an empty module; a module without a name section.
        assert!(patch(b"not wasm").is_none());
        assert!(patch(b"\0asm\x01\0\0\0").is_none());
        let circom = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../circom/tests/fixtures/poseidon/circuit.wasm"
        ))
        .unwrap();
        let patched = patch(&circom).expect("circom's module is rewritten");
        assert!(wasmparser::Validator::new().validate_all(&patched).is_ok());
        // The rewritten module imports the host's product once.
        let imports: Vec<(String, String)> = Parser::new(0)
            .parse_all(&patched)
            .filter_map(|p| match p.unwrap() {
                Payload::ImportSection(r) => Some(
                    r.into_imports()
                        .map(|i| {
                            let i = i.unwrap();
                            (i.module.to_string(), i.name.to_string())
                        })
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            })
            .flatten()
            .collect();
        assert_eq!(
            imports
                .iter()
                .filter(|i| (i.0.as_str(), i.1.as_str()) == IMPORT)
                .count(),
            1
        );
        // A module whose data holds neither scalar modulus (another
        // prime): left alone, not rewritten and thrown away later.
        let bn254 = le_bytes(&<ark_bn254::FrConfig as MontConfig<4>>::MODULUS.0);
        let mut other = circom.clone();
        let mut replaced = 0;
        let mut i = 0;
        while i + 32 <= other.len() {
            if other[i..i + 32] == bn254 {
                other[i] ^= 0x55;
                replaced += 1;
            }
            i += 1;
        }
        assert!(replaced > 0, "the fixture holds BN254's modulus");
        assert!(patch(&other).is_none());
        // Without its name section the target cannot be found.
        let mut stripped = wasm_encoder::Module::new();
        struct NoNames;
        impl Reencode for NoNames {
            type Error = std::convert::Infallible;
            fn parse_custom_section(
                &mut self,
                _: &mut wasm_encoder::Module,
                _: wasmparser::CustomSectionReader<'_>,
            ) -> Result<(), Error<Self::Error>> {
                Ok(())
            }
        }
        NoNames
            .parse_core_module(&mut stripped, Parser::new(0), &circom)
            .unwrap();
        assert!(patch(&stripped.finish()).is_none());
    }
}
