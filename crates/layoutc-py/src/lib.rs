//! `layoutc._native`: the command line, in process, for the Python package
//! (python/layoutc). The API there runs `show`, `check`, `solve` and
//! `render` through [`run`] and reads their JSON, so Python gets exactly
//! the objects the command line prints; the `layoutc` console script runs
//! [`main`].

use pyo3::prelude::*;

/// Runs `layoutc ARGS...` and returns `(exit status, standard output)`.
/// The work runs without the interpreter's lock, so other Python threads
/// go on meanwhile.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> (u8, String) {
    py.detach(|| layoutc::run_captured(std::iter::once("layoutc".to_string()).chain(args)))
}

/// Runs the command line with `argv` (the program's name first), output
/// going to the terminal; returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| layoutc::run(argv))
}

/// The version of the Rust crates in this build.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    Ok(())
}
