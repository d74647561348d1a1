//! circom's native witness generator (`circom --c`, built with `make`) run
//! as a subprocess, as rapidsnark's proverServer runs it: `circuit
//! input.json witness.wtns`, the `.wtns` read back and checked.

use crate::error::CircomError;
use crate::wtns::read_wtns;
use ark_ff::{BigInt, PrimeField};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs circom's C++ witness generator `bin` on `input` (an `input.json`)
/// and reads the witness it writes (in a temporary file, removed after).
/// A generator that cannot start, exits non-zero (a failed assertion, a bad
/// input: what it printed is in the error; it takes no negative values) or writes no valid `.wtns` for
/// `F` is an error.
pub fn native_witness<F: PrimeField<BigInt = BigInt<4>>>(
    bin: &Path,
    input: &Path,
) -> Result<Vec<F>, CircomError> {
    let out = TempFile::new("wtns")?;
    let run = Command::new(bin)
        .arg(input)
        .arg(&out.0)
        .output()
        .map_err(|e| CircomError::Generator(format!("{}: {e}", bin.display())))?;
    if !run.status.success() {
        // circom's generator prints a failed assertion on stdout, then
        // aborts with C++'s message on stderr: both are kept.
        let said: Vec<String> = [&run.stdout, &run.stderr]
            .iter()
            .flat_map(|b| {
                String::from_utf8_lossy(b)
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .collect();
        return Err(CircomError::Generator(format!(
            "{} exited with {}: {}",
            bin.display(),
            run.status,
            said.join(" | ")
        )));
    }
    let bytes = std::fs::read(&out.0)
        .map_err(|e| CircomError::Generator(format!("{} wrote no witness: {e}", bin.display())))?;
    read_wtns::<F>(&bytes)
}

/// [`native_witness`] on an `input.json` given as bytes (written to a
/// temporary file for the generator, removed after).
pub fn native_witness_of<F: PrimeField<BigInt = BigInt<4>>>(
    bin: &Path,
    input: &[u8],
) -> Result<Vec<F>, CircomError> {
    let file = TempFile::new("json")?;
    std::fs::write(&file.0, input).map_err(|e| CircomError::io(file.0.display().to_string(), e))?;
    native_witness(bin, &file.0)
}

/// A file in the temporary folder, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(ext: &str) -> Result<Self, CircomError> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for _ in 0..16 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = std::env::temp_dir()
                .join(format!("zkaccel-{}-{nanos}-{n}.{ext}", std::process::id()));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(TempFile(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(CircomError::io(path.display().to_string(), e)),
            }
        }
        Err(CircomError::Generator("no free temporary file name".into()))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
