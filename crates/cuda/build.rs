//! Builds the CUDA kernels two ways. They live in the workspace's top-level
//! `kernels/`; this crate reaches them through its `kernels` link (a
//! symbolic link to `../../kernels`), which `cargo package` follows, so the
//! packaged crate carries every kernel file (CI checks the list):
//!
//! - with the feature `emulation` (default): `host/emulation.cpp`, which
//!   includes `kernels/zkaccel.cu` itself, with the `cc` crate (g++), so the
//!   tests run the kernels and their launch sequences on the host;
//! - with the feature `cuda`: `kernels/zkaccel.cu` to PTX for `compute_80` with
//!   nvcc, its `.version` line lowered to 8.0 so drivers of CUDA 12.4 and later
//!   load it (sound only because CUDA 12.4's ptxas accepts the result, which
//!   `.ci/run` checks), written to `$OUT_DIR/zkaccel.ptx` and embedded.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// PTX ISA version the shipped PTX declares (CUDA 12.0; 12.4 drivers accept it).
const PTX_ISA: &str = "8.0";

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let kernels = manifest.join("kernels");
    rerun_if_changed_dir(&kernels);
    println!("cargo:rerun-if-changed=host/emulation.cpp");
    println!("cargo:rerun-if-env-changed=ZKACCEL_NVCC");
    println!("cargo:rerun-if-env-changed=CUDA_PATH");

    #[cfg(feature = "emulation")]
    cc::Build::new()
        .cpp(true)
        .file(manifest.join("host/emulation.cpp"))
        .include(&kernels)
        .flag("-std=c++17")
        .flag("-fno-strict-aliasing")
        .flag_if_supported("-Wno-unused-parameter")
        .opt_level(3)
        .compile("zkaccel_cuda_emulation");

    if env::var_os("CARGO_FEATURE_CUDA").is_some() {
        build_ptx(&kernels);
    }
}

fn rerun_if_changed_dir(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                rerun_if_changed_dir(&p);
            } else {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
}

fn find_nvcc() -> Option<PathBuf> {
    if let Some(p) = env::var_os("ZKACCEL_NVCC") {
        return Some(PathBuf::from(p));
    }
    if let Some(root) = env::var_os("CUDA_PATH") {
        let p = PathBuf::from(root).join("bin/nvcc");
        if p.exists() {
            return Some(p);
        }
    }
    let local = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap())
        .join("../../.cuda/pypi/nvidia/cu13/bin/nvcc");
    if local.exists() {
        return Some(local);
    }
    env::var_os("PATH").and_then(|paths| {
        env::split_paths(&paths)
            .map(|d| d.join("nvcc"))
            .find(|p| p.exists())
    })
}

fn build_ptx(kernels: &Path) {
    let Some(nvcc) = find_nvcc() else {
        panic!(
            "zkaccel-cuda: the feature `cuda` needs nvcc to build the PTX, and none was found \
             (ZKACCEL_NVCC, $CUDA_PATH/bin, .cuda/, PATH). Run scripts/setup-cuda.sh, then \
             `source .cuda/env.sh`."
        );
    };
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("zkaccel.ptx");
    let status = Command::new(&nvcc)
        .arg("-ptx")
        .arg("-arch=compute_80")
        .arg("-std=c++17")
        .arg("-O3")
        .arg("-I")
        .arg(kernels)
        .arg(kernels.join("zkaccel.cu"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap_or_else(|e| {
            panic!(
                "zkaccel-cuda: could not run {} ({e}); run scripts/setup-cuda.sh",
                nvcc.display()
            )
        });
    assert!(
        status.success(),
        "zkaccel-cuda: nvcc failed on kernels/zkaccel.cu"
    );
    let ptx = fs::read_to_string(&out).expect("nvcc wrote the PTX");
    fs::write(&out, lower_version(&ptx)).expect("write the PTX");
}

/// Replaces a `.version X.Y` newer than [`PTX_ISA`] by it.
fn lower_version(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.lines() {
        match line.trim().strip_prefix(".version ") {
            Some(v) if newer(v.trim(), PTX_ISA) => {
                out.push_str(".version ");
                out.push_str(PTX_ISA);
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

fn newer(v: &str, than: &str) -> bool {
    let parse = |s: &str| -> (u32, u32) {
        let mut it = s.split('.').map(|x| x.parse().unwrap_or(0));
        (it.next().unwrap_or(0), it.next().unwrap_or(0))
    };
    parse(v) > parse(than)
}
