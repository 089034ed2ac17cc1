//! The `answers` binary: the command line of [`answers::cli`], with no router hook.

use std::process::ExitCode;

fn main() -> ExitCode {
    answers::cli::main(None)
}
