//! Every integration test of the command line and the server, as one test
//! binary: one module per file beside this one (one binary links the
//! dependencies once).

mod architecture;
mod cli;
mod coalesce;
mod lsp;
mod progress;
mod render;
mod solve;
