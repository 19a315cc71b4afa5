//! Every integration test of this crate, as one test binary: one module
//! per file beside this one (one binary links the dependencies once).

mod amd_lds;
mod broadcast_hardware;
mod common;
mod convert_layout;
mod cute_copy_wavefronts;
mod cute_reference;
mod families;
mod laws;
mod no_panic;
mod seed_examples;
mod triton_encodings;
mod triton_ll_ops;
mod xla_reference;
