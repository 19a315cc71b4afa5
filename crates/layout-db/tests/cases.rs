//! The CuTe C++ vectors checked through the language, one test per case
//! (libtest-mimic), named `cute/FILE/ID`, so a failure names its case and
//! `cargo test -p layout-db --test cases -- cute/partitions/` runs one file.

mod cute_atoms;

use libtest_mimic::Arguments;

fn main() {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, cute_atoms::trials()).exit();
}
