//! Compiled modules kept on disk between runs: a one-shot command
//! (`zkaccel-prover fullprove`) then pays Cranelift's compile once per
//! circuit, as circom's C++ generator pays `make` once.
//!
//! An entry is `<dir>/<sha256 of the wasm and the engine's settings>.cwasm`:
//! the bytes `Module::serialize` wrote, then the SHA-256 of those bytes.
//! Loading checks the digest before handing the bytes to wasmtime, and
//! wasmtime checks its own header (its version and settings); an entry that
//! fails either is compiled again and rewritten. Entries are written to a
//! temporary name and renamed, so a reader never sees half of one.

use sha2::{Digest, Sha256};
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

/// The entry's path for `wasm` under `engine`'s settings, in `dir`.
pub(crate) fn entry(dir: &Path, engine: &Engine, wasm: &[u8]) -> PathBuf {
    let mut settings = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut settings);
    let mut h = Sha256::new();
    h.update(wasm);
    h.update(settings.finish().to_le_bytes());
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    let name: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{name}.cwasm"))
}

/// The module from the cache entry `path` ([`entry`]), if it is there and
/// whole.
pub(crate) fn load(path: &Path, engine: &Engine) -> Option<Module> {
    let bytes = std::fs::read(path).ok()?;
    let (body, digest) = bytes.split_at(bytes.len().checked_sub(32)?);
    if Sha256::digest(body).as_slice() != digest {
        log::warn!(
            "a damaged compiled-module cache entry {}: compiling again",
            path.display()
        );
        return None;
    }
    // SAFETY: `body` is exactly what `Module::serialize` wrote for this
    // wasm under these engine settings (the entry's name is the hash of
    // both, and the SHA-256 of its bytes, written with them, was checked
    // just above, so it is neither truncated nor damaged); wasmtime rejects
    // the output of another version or other settings with an error. The
    // folder is the user's own: whoever can write it can replace this
    // program too (SECURITY.md).
    #[allow(unsafe_code)]
    let module = unsafe { Module::deserialize(engine, body) };
    module
        .map_err(|e| log::warn!("a compiled-module cache entry not loaded ({e}): compiling again"))
        .ok()
}

/// Keeps `module` in the cache entry `path` ([`entry`]); failures are
/// logged, never fatal.
pub(crate) fn store(path: &Path, module: &Module) {
    let write = || -> Result<(), String> {
        let mut bytes = module.serialize().map_err(|e| e.to_string())?;
        let digest = Sha256::digest(&bytes);
        bytes.extend_from_slice(&digest);
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
