//! The `layoutc` binary: the command line of the library (lib.rs).

use std::process::ExitCode;

// The checker allocates many small trees (syntax, values); mimalloc serves
// them about a third faster than the system allocator (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(layoutc::run(std::env::args_os()))
}
