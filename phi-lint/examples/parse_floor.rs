//! The benchmark's floor as a process: `parse_floor DIR` reads every `.rs` file under `DIR`
//! (skipping `target/` and hidden directories), parses it with `syn` and visits the whole tree,
//! on all cores, and prints how many files and macro calls it saw. It exists so that an
//! instruction count of phi-lint can be set beside the floor's on the same files:
//!
//! ```sh
//! cargo build --release -p phi-lint --example parse_floor
//! valgrind --tool=callgrind target/release/examples/parse_floor ../shared/corpora/lldap
//! valgrind --tool=callgrind target/release/phi-lint check ../shared/corpora/lldap --format json
//! ```
//!
//! Exit codes: 0 when every file parsed, 1 when one did not, 2 on a usage error or an unreadable
//! directory.

#[path = "../benches/lint/floor.rs"]
mod floor;

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir] = args.as_slice() else {
        eprintln!("usage: parse_floor DIR");
        return ExitCode::from(2);
    };
    let files = match floor::rust_files(Path::new(dir)) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("parse_floor: cannot read the directory: {e}");
            return ExitCode::from(2);
        }
    };
    match floor::parse_only(&files) {
        Ok(macros) => {
            println!("{} files, {macros} macro calls", files.len());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("parse_floor: {e}");
            ExitCode::from(1)
        }
    }
}
