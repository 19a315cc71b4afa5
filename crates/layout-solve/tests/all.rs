//! Every integration test of this crate, as one test binary: one module
//! per file beside this one (one binary links the dependencies once).

mod amd_kernels;
mod common;
mod compiled_answers;
mod corpus;
mod exact;
mod families;
mod hardware;
mod hardware_answers;
mod swizzle_vectors;
mod tiling;
