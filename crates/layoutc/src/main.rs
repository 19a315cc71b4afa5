//! The `layoutc` command line.

use clap::Parser;

/// layoutc: check, show and solve GPU/TPU tensor layouts.
#[derive(Parser, Debug)]
#[command(name = "layoutc", version, about, long_about = None)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
    println!(
        "layoutc {}: the .lay language arrives with `check`, `show` and `solve`; run `layoutc --help`.",
        env!("CARGO_PKG_VERSION")
    );
}
