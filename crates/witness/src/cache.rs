//! Compiled modules kept on disk between runs: a one-shot command
//! (`zkaccel-prover fullprove`) then pays Cranelift's compile once per
//! circuit, as circom's C++ generator pays `make` once.
//!
//! An entry is `<dir>/<BLAKE3 of the wasm, its rewrite if any and the engine's settings>.cwasm`:
//! the bytes `Module::serialize` wrote, then the BLAKE3 hash of those bytes.
//! Loading maps the file, checks the digest, and hands the file to wasmtime,
//! which maps it again as the module's code and checks its own header (its
//! version and settings); an entry that fails either is compiled again and
//! rewritten. Nothing is copied: a module's code and memory image are pages
//! of the file, faulted in as the circuit first runs them (an entry is
//! 2-17 MiB, most of it a memory image; reading and copying one cost 30-45 ms
//! where the mapping costs about 4).
//!
//! Entries are written to a temporary name and renamed, so a reader never
//! sees half of one, and a file in use is never written again (wasmtime's
//! mapping requires that: a rewrite replaces the name, not the file).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use wasmtime::{Engine, Module};

/// The folder compiled modules are kept in when nothing else is said:
/// `$XDG_CACHE_HOME/zkaccel/wasm`, else `$HOME/.cache/zkaccel/wasm`.
pub fn default_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    Some(base.join("zkaccel").join("wasm"))
}

/// The entry's path for `wasm` under `engine`'s settings, in `dir`; a
/// non-empty `variant` names a rewrite of `wasm` (the native products).
pub(crate) fn entry(dir: &Path, engine: &Engine, wasm: &[u8], variant: &[u8]) -> PathBuf {
    let mut settings = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut settings);
    let mut h = blake3::Hasher::new();
    // The length first: `wasm` followed by `variant` is then never another
    // module's bytes alone.
    h.update(&(wasm.len() as u64).to_le_bytes());
    h.update(wasm);
    h.update(variant);
    h.update(&settings.finish().to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    dir.join(format!("{}.cwasm", h.finalize().to_hex()))
}

/// The module from the cache entry `path` ([`entry`]), if it is there and
/// whole.
pub(crate) fn load(path: &Path, engine: &Engine) -> Option<Module> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: a read-only private mapping of a cache entry, read only
    // while this function runs; entries are replaced by renaming, never
    // written in place ([`store`]).
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let (body, digest) = map.split_at(map.len().checked_sub(32)?);
    if blake3::hash(body).as_bytes() != digest {
        log::warn!(
            "a damaged compiled-module cache entry {}: compiling again",
            path.display()
        );
        return None;
    }
    // SAFETY: `body` is exactly what `Module::serialize` wrote for this
    // wasm under these engine settings (the entry's name is the hash of
    // both, and the hash of its bytes, written with them, was checked just
    // above, so it is neither truncated nor damaged); wasmtime rejects the
    // output of another version or other settings with an error and
    // ignores the digest after its own bytes. `deserialize_file` maps the
    // file for as long as the module lives, which needs the file never to
    // change: the cache replaces an entry by renaming a new file over it,
    // never by writing into it. The folder is the user's own: whoever can
    // write it can replace this program too (SECURITY.md).
    #[allow(unsafe_code)]
    let mapped = unsafe { Module::deserialize_file(engine, path) };
    let module = mapped.or_else(|e| {
        // A folder mounted noexec refuses executable mappings: the bytes
        // checked above, copied into memory of wasmtime's own.
        log::debug!("{} not mapped ({e}): copied", path.display());
        // SAFETY: as above, the same checked bytes.
        #[allow(unsafe_code)]
        unsafe {
            Module::deserialize(engine, body)
        }
    });
    module
        .map_err(|e| log::warn!("a compiled-module cache entry not loaded ({e}): compiling again"))
        .ok()
}

/// Keeps `module` in the cache entry `path` ([`entry`]); failures are
/// logged, never fatal.
pub(crate) fn store(path: &Path, module: &Module) {
    let write = || -> Result<(), String> {
        let mut bytes = module.serialize().map_err(|e| e.to_string())?;
        let digest = blake3::hash(&bytes);
        bytes.extend_from_slice(digest.as_bytes());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &bytes).map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            e.to_string()
        })
    };
    if let Err(e) = write() {
        log::warn!("compiled module not cached as {}: {e}", path.display());
    }
}
