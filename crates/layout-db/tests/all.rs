//! Every integration test of this crate, as one test binary: one module
//! per file beside this one (one binary links the dependencies once).

mod amd_phases;
mod builtin_calls;
mod cancellation;
mod coalesce_corpus;
mod compiled_agreement;
mod corpus_kernel;
mod cute_copy_hardware;
mod cute_copy_solve;
mod cute_cpp_calls;
mod diagnostics;
mod docs;
mod dump_forms;
mod examples;
mod gluon_layouts;
mod hardware_wavefronts;
mod incremental;
mod kernel_hardware;
mod kernel_summary;
mod pasted_corpus;
mod pasted_edge_cases;
mod ptx_wavefronts;
mod robustness;
mod shared_encodings;
mod sm100_reductions;
mod solve_goldens;
