//! Child processes in tests: a command line tool under test, or the test
//! binary itself run again with an environment variable set.
//!
//! When the tests are cross-built and run under an emulator (CI's aarch64
//! stage runs them under `qemu-aarch64`, which does not follow `execve` into
//! a foreign binary unless the host has binfmt handlers), a child built for
//! the target cannot start on its own. `ZKACCEL_TEST_RUNNER` names the
//! emulator command line (words separated by spaces, e.g.
//! `qemu-aarch64 -L /usr/aarch64-linux-gnu`), and [`command`] starts every
//! child through it, as cargo's `target.<triple>.runner` starts the test
//! binary itself.

use std::ffi::OsStr;
use std::process::Command;

/// The environment variable naming the runner (emulator) for children.
pub const RUNNER_ENV: &str = "ZKACCEL_TEST_RUNNER";

/// A [`Command`] that runs `program`, through the runner named by
/// [`RUNNER_ENV`] when it is set and not blank.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    with_runner(&std::env::var(RUNNER_ENV).unwrap_or_default(), program)
}

/// `program` through `runner` (words separated by white space), or alone
/// where `runner` is blank.
fn with_runner(runner: &str, program: impl AsRef<OsStr>) -> Command {
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(emulator) => {
            let mut cmd = Command::new(emulator);
            cmd.args(words).arg(program);
            cmd
        }
        None => Command::new(program),
    }
}

/// A [`command`] that runs this test binary again (for settings read once
/// per process, each case runs in a child with its variable set).
pub fn this_test_binary() -> Command {
    command(std::env::current_exe().expect("the test binary's path"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runner_comes_first_and_the_program_after_its_arguments() {
        let cmd = with_runner(" qemu-aarch64  -L /usr/aarch64-linux-gnu ", "prog");
        assert_eq!(cmd.get_program(), "qemu-aarch64");
        let args: Vec<_> = cmd.get_args().collect();
        assert_eq!(args, ["-L", "/usr/aarch64-linux-gnu", "prog"]);
    }

    #[test]
    fn a_blank_runner_runs_the_program_itself() {
        for runner in ["", "   "] {
            let cmd = with_runner(runner, "prog");
            assert_eq!(cmd.get_program(), "prog");
            assert_eq!(cmd.get_args().count(), 0);
        }
    }
}
