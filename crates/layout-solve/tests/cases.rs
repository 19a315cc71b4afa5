//! The solver's regression corpus (made with the Triton 3.9.0 wheel), one
//! test per pair (libtest-mimic), named `solve_corpus/NAME`, so a failure
//! names its pair.

mod common;
mod corpus_cases;

use libtest_mimic::Arguments;

fn main() {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, corpus_cases::trials()).exit();
}
