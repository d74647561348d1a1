//! `dbc`: compute double-base chains and the paper's statistics from the shell.
//!
//! ```text
//! dbc chain --method {optimal,eom,suboptimal,naf,wnaf,binary} [--delta K] [--window W] [--json] N...
//! dbc stats --bits B --samples S --seed X [--window W] [--model D,T,A] [--json]
//! dbc mincost --bits B [--samples S] [--seed X] [--json | --rust]
//! ```
//! Numbers are decimal or `0x` hexadecimal. Bad input prints one line on
//! stderr and exits with status 2. The parsing lives in `zkaccel_dbc::cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match zkaccel_dbc::cli::run(&args) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("dbc: {msg}");
            ExitCode::from(2)
        }
    }
}
