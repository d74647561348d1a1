//! [`WitnessCalculator`]: a circuit's `circuit.wasm` (circom 2's witness
//! calculator) compiled once by wasmtime, instantiated per witness.
//!
//! The interface is the one snarkjs' runtime (`circom_runtime`) and circom's
//! own `witness_calculator.js` drive:
//! - exports `getVersion` (2), `getFieldNumLen32` (n32, the field's size in
//!   32-bit words), `getRawPrime` (the prime into the shared memory),
//!   `getWitnessSize`, `getInputSize`, `init(sanity_check)`,
//!   `getInputSignalSize(hash_msb, hash_lsb)` (negative when the circuit
//!   has no such input), `setInputSignal(hash_msb, hash_lsb, index)` (the
//!   value from the shared memory), `getWitness(i)` (value i into the shared
//!   memory), `getSharedRWMemoryStart`, `getMessageChar`, `memory`;
//! - imports `runtime.exceptionHandler(code)` (the circuit stopped: the call
//!   traps), `runtime.printErrorMessage` (a line of the error to come),
//!   `runtime.writeBufferMessage` (a piece of a `log()` line),
//!   `runtime.showSharedRWMemory` (a value of a `log()` line);
//! - a signal is addressed by the 64-bit FNV-1a hash of its qualified name;
//!   values pass through the shared memory as n32 little-endian words.
//!
//! Values cross the shared memory by reading and writing the module's
//! memory directly (one slice a value) rather than one export call a word.
//!
//! The module's Montgomery product (`Fr_F1m_mul`) is rewritten into a call
//! to the host's, on 64-bit limbs, before the module is compiled, for the
//! BN254 and BLS12-381 scalar fields ([`crate::native`];
//! [`CalculatorOptions::native_products`]).
//!
//! An instance whose calculation succeeded is kept and the next calculation
//! calls its `init` again, as circom's `witness_calculator.js` and snarkjs'
//! runtime do with theirs: a fresh instance's memory is new pages that the
//! kernel zeroes and maps one by one as the circuit first touches them. An
//! instance whose calculation failed (a bad input, a failed `assert`, a
//! trap, the time limit) is dropped.

use crate::error::{wasm_error, WitnessError};
use crate::input::{Inputs, Value};
use crate::native::{self, NativeField};
use ark_ff::{BigInt, PrimeField};
use num_bigint::{BigInt as Int, BigUint, Sign};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use wasmtime::{Caller, Config, Engine, Instance, InstancePre, Linker, Module, Store, TypedFunc};

/// The longest error or log message read from the module (a guard against a
/// module whose `getMessageChar` never returns 0).
const MAX_MESSAGE: usize = 1 << 16;

/// A circuit's compiled witness calculator. Compiling is the expensive part
/// (Cranelift, in parallel); a [`WitnessCalculator::calculate`] then takes
/// an instance kept from an earlier successful calculation, or makes one
/// (microseconds, plus the page faults of its fresh memory), and keeps it
/// afterwards if it succeeded ([`CalculatorOptions::reuse_instances`]).
/// Calculators can be used from several threads at once: each calculation
/// has an instance of its own.
///
/// ```no_run
/// use zkaccel_witness::{Inputs, WitnessCalculator};
/// let calc = WitnessCalculator::from_file("circuit_js/circuit.wasm")?;
/// let inputs = Inputs::from_file("input.json")?;
/// let witness: Vec<ark_bn254::Fr> = calc.calculate(&inputs)?;
/// assert_eq!(witness.len(), calc.witness_size());
/// # Ok::<(), zkaccel_witness::WitnessError>(())
/// ```
pub struct WitnessCalculator {
    pre: InstancePre<Host>,
    version: (u32, u32, u32),
    n32: usize,
    prime: Vec<u32>,
    prime_int: BigUint,
    witness_size: usize,
    input_size: usize,
    sanity_check: bool,
    time_limit: Option<Duration>,
    from_cache: bool,
    /// The field of the host's products where the module calls them.
    native: NativeField,
    /// How many idle instances are kept for the next calculations: one per
    /// CPU thread ([`max_idle`], read once), 0 with reuse off.
    keep: usize,
    /// Instances of successful calculations, at most `keep`.
    idle: Mutex<Vec<Slot>>,
}

/// An instance with its store and exports, kept between calculations.
struct Slot {
    store: Store<Host>,
    ex: Exports,
}

/// Idle instances a calculator keeps at most: one for each thread that may
/// calculate at once.
fn max_idle() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How often the engine's epoch advances while a time limit is in use.
const TICK: Duration = Duration::from_millis(10);

/// Advances the engine's epoch every [`TICK`] from the first time limit on
/// (one thread for the process).
fn start_ticker(engine: &'static Engine) {
    static TICKER: OnceLock<()> = OnceLock::new();
    TICKER.get_or_init(|| {
        std::thread::Builder::new()
            .name("zkaccel-witness-epoch".into())
            .spawn(move || loop {
                std::thread::sleep(TICK);
                engine.increment_epoch();
            })
            .map(|_| ())
            .unwrap_or_else(|e| log::warn!("no time limits for witnesses: {e}"));
    });
}

/// A store for one calculation; its epoch deadline matters only on the
/// interruptible engine, used only with a limit.
fn new_store(
    engine: &Engine,
    n32: usize,
    native: NativeField,
    limit: Option<Duration>,
) -> Store<Host> {
    let mut store = Store::new(
        engine,
        Host {
            n32,
            native,
            ..Host::default()
        },
    );
    set_deadline(&mut store, limit);
    store
}

/// Sets the store's epoch deadline to `limit` from now (counted from the
/// current epoch: an addition); no deadline without a limit.
fn set_deadline(store: &mut Store<Host>, limit: Option<Duration>) {
    let ticks = limit.map_or(u64::MAX / 2, |l| {
        (l.as_millis() / TICK.as_millis()).max(1) as u64 + 1
    });
    store.set_epoch_deadline(ticks);
}

/// What the host functions keep between calls into the module.
#[derive(Default)]
struct Host {
    /// The lines `printErrorMessage` gave, for the error to come.
    error_lines: Vec<String>,
    /// The `log()` line being assembled.
    log_line: String,
    /// Why the module stopped, when it stopped through `exceptionHandler`.
    failure: Option<String>,
    n32: usize,
    /// The field `zkaccel.fr_mul` multiplies in ([`native`]).
    native: NativeField,
    /// The instance's memory, for `zkaccel.fr_mul`.
    memory: Option<wasmtime::Memory>,
}

/// The process's wasmtime engines: compiled code and its settings shared by
/// every calculator; the second checks an epoch at loop headers and function
/// entries so that a time limit can stop it (about 10% slower on circom's
/// code, hence only for calculators made with a time limit).
fn engine(interruptible: bool) -> Result<&'static Engine, WitnessError> {
    static ENGINES: [OnceLock<Result<Engine, String>>; 2] = [OnceLock::new(), OnceLock::new()];
    ENGINES[interruptible as usize]
        .get_or_init(|| {
            let mut config = Config::new();
            config.cranelift_opt_level(wasmtime::OptLevel::Speed);
            // Errors name circom's template and line themselves; a wasm
            // backtrace would cost every trap a stack walk.
            config.wasm_backtrace_max_frames(None);
            config.epoch_interruption(interruptible);
            // circom's code calls its small field helpers (Fr_copy, Fr_add,
            // Fr_mul's short-value paths, ...) at nearly every step; inlined
            // they cost 11-15% less witness time (SHA-256 of 2 blocks 94 ->
            // 84 ms, Poseidon x120 30 -> 26 ms, Intel Xeon), for about twice
            // the compile, which the module cache pays once.
            config.compiler_inlining(wasmtime::Inlining::Yes);
            Engine::new(&config).map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| wasm_error(format!("the WebAssembly engine did not start: {e}")))
}

/// How a [`WitnessCalculator`] is made; every setting is optional.
///
/// ```
/// use std::time::Duration;
/// use zkaccel_witness::CalculatorOptions;
/// let opts = CalculatorOptions::new()
///     .cache(zkaccel_witness::default_cache_dir())
///     .time_limit(Some(Duration::from_secs(30)));
/// ```
#[derive(Clone, Debug, Default)]
pub struct CalculatorOptions {
    cache: Option<std::path::PathBuf>,
    time_limit: Option<Duration>,
    fresh_instances: bool,
    interpreted_products: bool,
}

impl CalculatorOptions {
    /// No cache, no time limit, instances reused.
    pub fn new() -> Self {
        Self::default()
    }

    /// With `on` (the default), an instance whose calculation succeeded is
    /// kept, and a later calculation calls its `init` again instead of
    /// instantiating the module anew, as circom's own JavaScript calculator
    /// does: its memory is then already mapped. A calculator keeps at most
    /// one idle instance per CPU thread, each holding the circuit's
    /// WebAssembly memory (as large as the module grew it). With `false`,
    /// every calculation has a fresh instance, dropped after it.
    pub fn reuse_instances(mut self, on: bool) -> Self {
        self.fresh_instances = !on;
        self
    }

    /// Keeps the compiled module in the folder `dir` (made if missing;
    /// [`crate::default_cache_dir`] is the usual one) and takes it from there
    /// on later loads of the same wasm: a run then skips Cranelift. A damaged
    /// or stale entry is compiled again; a cache that cannot be written only
    /// costs the compile (logged, level warn).
    pub fn cache(mut self, dir: Option<std::path::PathBuf>) -> Self {
        self.cache = dir;
        self
    }

    /// Stops a calculation running longer than `limit` (a circuit whose
    /// witness loops, a service's deadline) with [`WitnessError::Circuit`],
    /// to within 10 ms or so. The module is then compiled with epoch checks,
    /// about 10% slower; without a limit (the default) a calculation runs
    /// until it ends.
    pub fn time_limit(mut self, limit: Option<Duration>) -> Self {
        self.time_limit = limit;
        self
    }

    /// With `on` (the default), the module's Montgomery product
    /// (`Fr_F1m_mul`, eight 32-bit words) is replaced by the host's on
    /// 64-bit limbs for the BN254 and BLS12-381 scalar fields: the same
    /// witness, faster. With `false` the module runs as circom compiled it.
    /// Other fields, and modules without that function in their name
    /// section, always run as compiled.
    pub fn native_products(mut self, on: bool) -> Self {
        self.interpreted_products = !on;
        self
    }
}

/// The exports a calculation calls, looked up once per instance.
struct Exports {
    init: TypedFunc<i32, ()>,
    get_input_signal_size: TypedFunc<(i32, i32), i32>,
    set_input_signal: TypedFunc<(i32, i32, i32), ()>,
    get_witness: TypedFunc<i32, ()>,
    get_input_size: TypedFunc<(), i32>,
    memory: wasmtime::Memory,
    shared: usize,
}

impl WitnessCalculator {
    /// Compiles the calculator at `path` (`circuit_js/circuit.wasm`); errors
    /// name the path.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Self, WitnessError> {
        Self::from_file_with(path, &CalculatorOptions::new())
    }

    /// [`WitnessCalculator::from_file`] with `opts` (a compiled-module
    /// cache, a time limit).
    pub fn from_file_with(
        path: impl AsRef<std::path::Path>,
        opts: &CalculatorOptions,
    ) -> Result<Self, WitnessError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| WitnessError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_bytes_with(&bytes, opts).map_err(|e| match e {
            WitnessError::Wasm { msg, .. } => WitnessError::Wasm {
                path: Some(path.display().to_string()),
                msg,
            },
            other => other,
        })
    }

    /// Compiles a calculator from the module's bytes, and reads its version,
    /// prime and sizes from a first instance.
    pub fn from_bytes(wasm: &[u8]) -> Result<Self, WitnessError> {
        Self::from_bytes_with(wasm, &CalculatorOptions::new())
    }

    /// [`WitnessCalculator::from_bytes`] with `opts`.
    pub fn from_bytes_with(wasm: &[u8], opts: &CalculatorOptions) -> Result<Self, WitnessError> {
        if !wasm.starts_with(b"\0asm") {
            return Err(wasm_error(
                "not a WebAssembly module (it does not start with \\0asm)",
            ));
        }
        if !opts.interpreted_products {
            // A prime the host does not multiply in, or any error of the
            // rewritten module: the module as compiled (whose errors name
            // its own bytes).
            if let Ok(Some(calc)) = Self::compile(wasm, opts, true) {
                if calc.native != NativeField::None {
                    return Ok(calc);
                }
            }
        }
        Self::compile(wasm, opts, false)?.ok_or_else(|| wasm_error("the module was not compiled"))
    }

    /// Compiles `wasm` (or takes it from the cache), with `native` rewritten
    /// by [`native::patch`] first: `None` when it cannot be. The cache keys
    /// the rewritten module by the original bytes, so a cached one is not
    /// rewritten again.
    fn compile(
        wasm: &[u8],
        opts: &CalculatorOptions,
        native: bool,
    ) -> Result<Option<Self>, WitnessError> {
        let engine = engine(opts.time_limit.is_some())?;
        if opts.time_limit.is_some() {
            start_ticker(engine);
        }
        let variant: &[u8] = if native { native::CACHE_VARIANT } else { b"" };
        let entry = opts
            .cache
            .as_deref()
            .map(|dir| crate::cache::entry(dir, engine, wasm, variant));
        let cached = entry.as_deref().and_then(|e| crate::cache::load(e, engine));
        let from_cache = cached.is_some();
        let module = match cached {
            Some(m) => m,
            None => {
                let patched;
                let bytes = if native {
                    match native::patch(wasm) {
                        Some(p) => {
                            patched = p;
                            &patched[..]
                        }
                        None => return Ok(None),
                    }
                } else {
                    wasm
                };
                let m = Module::new(engine, bytes).map_err(|e| wasm_error(chain(&e)))?;
                if let Some(e) = &entry {
                    crate::cache::store(e, &m);
                }
                m
            }
        };
        let mut calc = Self::from_module(engine, &module, native)?;
        calc.from_cache = from_cache;
        calc.time_limit = opts.time_limit;
        if opts.fresh_instances {
            calc.keep = 0;
        }
        Ok(Some(calc))
    }

    /// A calculator of a compiled module: its version, prime and sizes read
    /// from a first instance, every export a calculation needs checked.
    fn from_module(
        engine: &'static Engine,
        module: &Module,
        patched: bool,
    ) -> Result<Self, WitnessError> {
        let mut linker = Linker::new(engine);
        link_runtime(&mut linker)?;
        let pre = linker
            .instantiate_pre(module)
            .map_err(|e| wasm_error(chain(&e)))?;
        let mut store = new_store(engine, 0, NativeField::None, None);
        let instance = instantiate(&pre, &mut store)?;
        let call0 = |store: &mut Store<Host>, name: &str| -> Result<i32, WitnessError> {
            let f = typed::<(), i32>(&instance, &mut *store, name)?;
            f.call(&mut *store, ())
                .map_err(|e| wasm_error(format!("{name}: {}", chain(&e))))
        };
        let major = call0(&mut store, "getVersion")?;
        if major != 2 {
            return Err(wasm_error(format!(
                "circom version {major}: only circom 2's calculator is supported"
            )));
        }
        let optional = |store: &mut Store<Host>, name: &str| {
            if instance.get_func(&mut *store, name).is_some() {
                call0(store, name)
            } else {
                Ok(0)
            }
        };
        let minor = optional(&mut store, "getMinorVersion")?;
        let patch = optional(&mut store, "getPatchVersion")?;
        let n32 = call0(&mut store, "getFieldNumLen32")?;
        if !(1..=64).contains(&n32) {
            return Err(wasm_error(format!("a field of {n32} 32-bit words")));
        }
        let n32 = n32 as usize;
        store.data_mut().n32 = n32;
        let raw_prime = typed::<(), ()>(&instance, &mut store, "getRawPrime")?;
        raw_prime
            .call(&mut store, ())
            .map_err(|e| wasm_error(format!("getRawPrime: {}", chain(&e))))?;
        let shared = shared_start(&instance, &mut store)?;
        let prime = read_words(&instance, &mut store, shared, n32)?;
        let native = if patched {
            NativeField::of_prime(&prime)
        } else {
            NativeField::None
        };
        store.data_mut().native = native;
        let witness_size = call0(&mut store, "getWitnessSize")?;
        let input_size = call0(&mut store, "getInputSize")?;
        let (Ok(witness_size), Ok(input_size)) =
            (usize::try_from(witness_size), usize::try_from(input_size))
        else {
            return Err(wasm_error(format!(
                "a witness of {witness_size} values with {input_size} inputs"
            )));
        };
        if witness_size == 0 {
            return Err(wasm_error(
                "a witness of 0 values (circom's has at least the constant 1)",
            ));
        }
        let calc = WitnessCalculator {
            pre,
            version: (major as u32, minor as u32, patch as u32),
            n32,
            prime_int: BigUint::from_slice(&prime),
            prime,
            witness_size,
            input_size,
            sanity_check: false,
            time_limit: None,
            from_cache: false,
            native,
            keep: max_idle(),
            idle: Mutex::new(Vec::new()),
        };
        // Every export a calculation needs, checked now rather than at the
        // first witness.
        calc.exports(&mut store, instance)?;
        Ok(calc)
    }

    /// With `on`, `init(1)`: the module checks every signal is set once
    /// (snarkjs' `sanityCheck`; slower, the same witness).
    pub fn with_sanity_check(mut self, on: bool) -> Self {
        self.sanity_check = on;
        self
    }

    /// Whether the compiled module came from the cache
    /// ([`CalculatorOptions::cache`]) rather than Cranelift.
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    /// Whether the module's Montgomery product runs as the host's
    /// ([`CalculatorOptions::native_products`]): on for BN254 and BLS12-381
    /// modules that name `Fr_F1m_mul`, unless switched off.
    pub fn native_products(&self) -> bool {
        self.native != NativeField::None
    }

    /// circom's version that compiled the module (major, minor, patch; minor
    /// and patch 0 before circom 2.0.7).
    pub fn version(&self) -> (u32, u32, u32) {
        self.version
    }

    /// How many values a witness has (circom's `nVars`, the zkey's).
    pub fn witness_size(&self) -> usize {
        self.witness_size
    }

    /// How many input values the circuit takes, all signals together.
    pub fn input_size(&self) -> usize {
        self.input_size
    }

    /// The field's size in bytes (`n8` of a `.wtns`).
    pub fn field_bytes(&self) -> usize {
        4 * self.n32
    }

    /// The prime of the module's field, little-endian, [`Self::field_bytes`]
    /// long.
    pub fn prime_le_bytes(&self) -> Vec<u8> {
        self.prime.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Whether the module computes in `F`.
    pub fn is_field<F: PrimeField>(&self) -> bool {
        BigUint::from_bytes_le(&ark_ff::BigInteger::to_bytes_le(&F::MODULUS)) == self.prime_int
    }

    /// The witness as field elements of `F`, which must be the module's
    /// field (BN254's or BLS12-381's scalar field for circom's `bn128` and
    /// `bls12381` primes).
    pub fn calculate<F: PrimeField<BigInt = BigInt<4>>>(
        &self,
        inputs: &Inputs,
    ) -> Result<Vec<F>, WitnessError> {
        if !self.is_field::<F>() || self.n32 != 8 {
            return Err(WitnessError::Mismatch(format!(
                "the circuit's prime is {}, not the field asked for ({})",
                self.prime_int,
                F::MODULUS
            )));
        }
        let mut out = Vec::with_capacity(self.witness_size);
        self.run(inputs, |i, words| {
            let mut limbs = [0u64; 4];
            for (k, limb) in limbs.iter_mut().enumerate() {
                *limb = u64::from(words[2 * k]) | (u64::from(words[2 * k + 1]) << 32);
            }
            let v = F::from_bigint(BigInt::new(limbs)).ok_or_else(|| WitnessError::Circuit {
                message: format!("witness value {i} is not below the prime"),
            })?;
            out.push(v);
            Ok(())
        })?;
        Ok(out)
    }

    /// The witness as a `.wtns` file, byte for byte what `snarkjs wtns
    /// calculate` writes for the same module and input.
    pub fn calculate_wtns(&self, inputs: &Inputs) -> Result<Vec<u8>, WitnessError> {
        let n8 = self.field_bytes();
        let mut body = Vec::with_capacity(self.witness_size * n8);
        self.run(inputs, |_, words| {
            body.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            Ok(())
        })?;
        Ok(crate::wtns::wtns_bytes(&self.prime_le_bytes(), &body))
    }

    /// An instance for one calculation: an idle one (its host state cleared,
    /// its deadline set anew) or a new one.
    fn take_slot(&self) -> Result<Slot, WitnessError> {
        let kept = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        if let Some(mut slot) = kept {
            let host = slot.store.data_mut();
            host.error_lines.clear();
            host.log_line.clear();
            host.failure = None;
            set_deadline(&mut slot.store, self.time_limit);
            return Ok(slot);
        }
        let mut store = new_store(
            self.pre.module().engine(),
            self.n32,
            self.native,
            self.time_limit,
        );
        let instance = instantiate(&self.pre, &mut store)?;
        let ex = self.exports(&mut store, instance)?;
        Ok(Slot { store, ex })
    }

    /// Keeps the instance of a successful calculation, up to `keep`.
    fn keep_slot(&self, slot: Slot) {
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < self.keep {
                idle.push(slot);
            }
        }
    }

    /// How many instances this calculator keeps for its next calculations
    /// (at most one per CPU thread; none with
    /// [`CalculatorOptions::reuse_instances`] off).
    pub fn idle_instances(&self) -> usize {
        self.idle.lock().map_or(0, |idle| idle.len())
    }

    /// One calculation: an instance ([`WitnessCalculator::take_slot`]), the
    /// inputs set, then `each(i, words)` for every witness value in order;
    /// the instance is kept only if all of it succeeded.
    fn run(
        &self,
        inputs: &Inputs,
        each: impl FnMut(usize, &[u32]) -> Result<(), WitnessError>,
    ) -> Result<(), WitnessError> {
        let mut slot = self.take_slot()?;
        self.run_in(&mut slot, inputs, each)?;
        self.keep_slot(slot);
        Ok(())
    }

    /// The calculation of [`WitnessCalculator::run`] on `slot`'s instance.
    fn run_in(
        &self,
        slot: &mut Slot,
        inputs: &Inputs,
        mut each: impl FnMut(usize, &[u32]) -> Result<(), WitnessError>,
    ) -> Result<(), WitnessError> {
        let store: &mut Store<Host> = &mut slot.store;
        let ex = &slot.ex;
        ex.init
            .call(&mut *store, self.sanity_check as i32)
            .map_err(|e| failed(store, &e))?;
        let mut set = 0usize;
        for (name, values) in &inputs.signals {
            let (msb, lsb) = fnv1a_halves(name);
            let size = ex
                .get_input_signal_size
                .call(&mut *store, (msb, lsb))
                .map_err(|e| failed(store, &e))?;
            // A name the circuit lacks: negative in older circom, 0 in
            // circom 2.2 (no input signal has size 0).
            let size = match usize::try_from(size) {
                Ok(n) if n > 0 => n,
                _ => {
                    return Err(WitnessError::UnknownSignal {
                        signal: name.clone(),
                    })
                }
            };
            if values.len() != size {
                return Err(WitnessError::WrongCount {
                    signal: name.clone(),
                    expected: size,
                    given: values.len(),
                });
            }
            for (i, value) in values.iter().enumerate() {
                let words = self.words_of(value).map_err(|v| WitnessError::NotANumber {
                    signal: name.clone(),
                    index: i,
                    value: v,
                })?;
                write_words(ex.memory, &mut *store, ex.shared, &words)?;
                ex.set_input_signal
                    .call(&mut *store, (msb, lsb, i as i32))
                    .map_err(|e| failed(store, &e))?;
                set += 1;
            }
        }
        let expected = ex
            .get_input_size
            .call(&mut *store, ())
            .map_err(|e| failed(store, &e))?;
        if (set as i64) < i64::from(expected) {
            return Err(WitnessError::MissingInputs {
                set,
                expected: expected as usize,
            });
        }
        let mut words = vec![0u32; self.n32];
        for i in 0..self.witness_size {
            ex.get_witness
                .call(&mut *store, i as i32)
                .map_err(|e| failed(store, &e))?;
            if !decode_words(ex.memory.data(&*store), ex.shared, &mut words) {
                return Err(wasm_error(OUTSIDE));
            }
            each(i, &words)?;
        }
        Ok(())
    }

    /// A value reduced into the field, as n32 little-endian words (`p - x`
    /// for a negative `x`).
    fn words_of(&self, value: &Value) -> Result<Vec<u32>, String> {
        let v = value.as_ref().map_err(Clone::clone)?;
        let p = Int::from_biguint(Sign::Plus, self.prime_int.clone());
        let reduced = ((v % &p) + &p) % &p;
        let mut words = reduced.magnitude().to_u32_digits();
        words.resize(self.n32, 0);
        Ok(words)
    }

    fn exports(
        &self,
        store: &mut Store<Host>,
        instance: Instance,
    ) -> Result<Exports, WitnessError> {
        Ok(Exports {
            init: typed(&instance, &mut *store, "init")?,
            get_input_signal_size: typed(&instance, &mut *store, "getInputSignalSize")?,
            set_input_signal: typed(&instance, &mut *store, "setInputSignal")?,
            get_witness: typed(&instance, &mut *store, "getWitness")?,
            get_input_size: typed(&instance, &mut *store, "getInputSize")?,
            memory: memory(&instance, store)?,
            shared: shared_start(&instance, store)?,
        })
    }
}

/// The `runtime` imports of circom 2's calculator, and the host's product
/// for modules [`native::patch`] rewrote.
fn link_runtime(linker: &mut Linker<Host>) -> Result<(), WitnessError> {
    let link_err = |e: wasmtime::Error| wasm_error(chain(&e));
    link_native(linker)?;
    linker
        .func_wrap(
            "runtime",
            "exceptionHandler",
            |mut caller: Caller<'_, Host>, code: i32| -> wasmtime::Result<()> {
                let what = match code {
                    1 => "Signal not found.",
                    2 => "Too many signals set.",
                    3 => "Signal already set.",
                    4 => "Assert Failed.",
                    5 => "Not enough memory.",
                    6 => "Input signal array access exceeds the size.",
                    7 => "Out of bounds array access.",
                    _ => "Unknown error.",
                };
                let host = caller.data_mut();
                let mut message = what.to_string();
                for line in host.error_lines.drain(..) {
                    message.push(' ');
                    message.push_str(line.trim_end());
                }
                host.failure = Some(message.clone());
                Err(wasmtime::Error::msg(message))
            },
        )
        .map_err(link_err)?;
    linker
        .func_wrap(
            "runtime",
            "printErrorMessage",
            |mut caller: Caller<'_, Host>| -> wasmtime::Result<()> {
                let msg = message(&mut caller)?;
                caller.data_mut().error_lines.push(msg);
                Ok(())
            },
        )
        .map_err(link_err)?;
    linker
        .func_wrap(
            "runtime",
            "writeBufferMessage",
            |mut caller: Caller<'_, Host>| -> wasmtime::Result<()> {
                let msg = message(&mut caller)?;
                let host = caller.data_mut();
                if msg == "\n" {
                    log::info!(target: "circom", "{}", host.log_line);
                    host.log_line.clear();
                } else {
                    if !host.log_line.is_empty() {
                        host.log_line.push(' ');
                    }
                    host.log_line.push_str(&msg);
                }
                Ok(())
            },
        )
        .map_err(link_err)?;
    linker
        .func_wrap(
            "runtime",
            "showSharedRWMemory",
            |mut caller: Caller<'_, Host>| -> wasmtime::Result<()> {
                let n32 = caller.data().n32;
                let words = caller_shared_words(&mut caller, n32)?;
                let host = caller.data_mut();
                if !host.log_line.is_empty() {
                    host.log_line.push(' ');
                }
                host.log_line
                    .push_str(&BigUint::from_slice(&words).to_string());
                Ok(())
            },
        )
        .map_err(link_err)?;
    Ok(())
}

/// `zkaccel.fr_mul`, the host's product that modules [`native::patch`]
/// rewrote call in place of their own `Fr_F1m_mul`.
fn link_native(linker: &mut Linker<Host>) -> Result<(), WitnessError> {
    let link_err = |e: wasmtime::Error| wasm_error(chain(&e));
    linker
        .func_wrap(
            native::IMPORT.0,
            native::IMPORT.1,
            |mut caller: Caller<'_, Host>, x: i32, y: i32, r: i32| -> wasmtime::Result<()> {
                let (field, memory) = (caller.data().native, caller.data().memory);
                let memory = memory.ok_or_else(|| {
                    wasmtime::Error::msg("Fr_F1m_mul before the memory was known")
                })?;
                native::fr_mul(
                    field,
                    memory.data_mut(&mut caller),
                    x as u32,
                    y as u32,
                    r as u32,
                )
                .ok_or_else(|| {
                    wasmtime::Error::msg(format!(
                        "Fr_F1m_mul({x}, {y}, {r}): an operand outside memory, or a field \
                             the host does not multiply in ({field:?})"
                    ))
                })
            },
        )
        .map_err(link_err)?;
    Ok(())
}

/// A message the module hands out one character at a time.
fn message(caller: &mut Caller<'_, Host>) -> wasmtime::Result<String> {
    let f = caller
        .get_export("getMessageChar")
        .and_then(|e| e.into_func())
        .ok_or_else(|| wasmtime::Error::msg("the module has no getMessageChar"))?
        .typed::<(), i32>(&*caller)?;
    let mut s = String::new();
    for _ in 0..MAX_MESSAGE {
        match f.call(&mut *caller, ())? {
            0 => return Ok(s),
            c => s.push(char::from_u32(c as u32).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
    }
    Ok(s)
}

/// The shared memory's value, from inside a host function.
fn caller_shared_words(caller: &mut Caller<'_, Host>, n32: usize) -> wasmtime::Result<Vec<u32>> {
    let start = caller
        .get_export("getSharedRWMemoryStart")
        .and_then(|e| e.into_func())
        .ok_or_else(|| wasmtime::Error::msg("the module has no getSharedRWMemoryStart"))?
        .typed::<(), i32>(&*caller)?
        .call(&mut *caller, ())? as u32 as usize;
    let memory = caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::Error::msg("the module exports no memory"))?;
    let mut words = vec![0; n32];
    match decode_words(memory.data(&*caller), start, &mut words) {
        true => Ok(words),
        false => Err(wasmtime::Error::msg(OUTSIDE)),
    }
}

const OUTSIDE: &str = "the shared memory lies outside the memory";

/// `out.len()` little-endian words of `memory` from byte `at`; false if they
/// lie outside it.
fn decode_words(memory: &[u8], at: usize, out: &mut [u32]) -> bool {
    let Some(bytes) = at
        .checked_add(4 * out.len())
        .and_then(|end| memory.get(at..end))
    else {
        return false;
    };
    for (w, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    true
}

fn typed<P: wasmtime::WasmParams, R: wasmtime::WasmResults>(
    instance: &Instance,
    store: &mut Store<Host>,
    name: &str,
) -> Result<TypedFunc<P, R>, WitnessError> {
    let f = instance
        .get_func(&mut *store, name)
        .ok_or_else(|| wasm_error(format!("no export {name}")))?;
    f.typed::<P, R>(&*store)
        .map_err(|e| wasm_error(format!("export {name}: {}", chain(&e))))
}

/// A new instance in `store`, its memory kept in the host state for
/// `zkaccel.fr_mul`.
fn instantiate(pre: &InstancePre<Host>, store: &mut Store<Host>) -> Result<Instance, WitnessError> {
    let instance = pre
        .instantiate(&mut *store)
        .map_err(|e| wasm_error(chain(&e)))?;
    store.data_mut().memory = Some(memory(&instance, store)?);
    Ok(instance)
}

fn memory(instance: &Instance, store: &mut Store<Host>) -> Result<wasmtime::Memory, WitnessError> {
    instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| wasm_error("the module exports no memory"))
}

fn shared_start(instance: &Instance, store: &mut Store<Host>) -> Result<usize, WitnessError> {
    let f = typed::<(), i32>(instance, store, "getSharedRWMemoryStart")?;
    let start = f
        .call(&mut *store, ())
        .map_err(|e| wasm_error(format!("getSharedRWMemoryStart: {}", chain(&e))))?;
    Ok(start as u32 as usize)
}

fn read_words(
    instance: &Instance,
    store: &mut Store<Host>,
    at: usize,
    n32: usize,
) -> Result<Vec<u32>, WitnessError> {
    let memory = memory(instance, store)?;
    let mut words = vec![0; n32];
    match decode_words(memory.data(&*store), at, &mut words) {
        true => Ok(words),
        false => Err(wasm_error(OUTSIDE)),
    }
}

fn write_words(
    memory: wasmtime::Memory,
    store: &mut Store<Host>,
    at: usize,
    words: &[u32],
) -> Result<(), WitnessError> {
    let bytes = memory
        .data_mut(&mut *store)
        .get_mut(at..at.saturating_add(4 * words.len()))
        .ok_or_else(|| wasm_error(OUTSIDE))?;
    for (b, w) in bytes.chunks_exact_mut(4).zip(words) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    Ok(())
}

/// Why a call into the module failed: circom's own message when it stopped
/// through `exceptionHandler`, the time limit, else the trap.
fn failed(store: &Store<Host>, e: &wasmtime::Error) -> WitnessError {
    let message = match &store.data().failure {
        Some(m) => m.clone(),
        None if e.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::Interrupt) => {
            return WitnessError::TimeLimit
        }
        None => format!("the module trapped: {}", chain(e)),
    };
    WitnessError::Circuit { message }
}

/// An error and its causes on one line.
fn chain(e: &wasmtime::Error) -> String {
    let text = e
        .chain()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(": ");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The 64-bit FNV-1a hash of a signal's name as circom's calculator computes
/// it (over UTF-16 code units, as JavaScript's `charCodeAt`), split into its
/// high and low 32-bit halves.
pub(crate) fn fnv1a_halves(name: &str) -> (i32, i32) {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for unit in name.encode_utf16() {
        h ^= u64::from(unit);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ((h >> 32) as u32 as i32, h as u32 as i32)
}

#[cfg(test)]
mod tests {
    use super::fnv1a_halves;

    #[test]
    fn fnv1a_of_known_strings() {
        // The published FNV-1a 64 test vectors (draft-eastlake-fnv).
        let h = |s: &str| {
            let (m, l) = fnv1a_halves(s);
            (u64::from(m as u32) << 32) | u64::from(l as u32)
        };
        assert_eq!(h(""), 0xcbf29ce484222325);
        assert_eq!(h("a"), 0xaf63dc4c8601ec8c);
        assert_eq!(h("foobar"), 0x85944171f73967e8);
    }
}
