//! Every integration test of this crate, as one test binary: one module
//! per file beside this one (one binary links the dependencies once).

mod outline;
mod parse;
