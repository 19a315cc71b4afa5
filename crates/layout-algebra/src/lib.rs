//! The mathematics of tensor layouts, free of syntax, databases and IO.
//!
//! - [`f2`]: GF(2) vectors as machine words and Gaussian elimination.
//! - [`linear`]: Triton's linear layouts (seed 000): named in/out dims, bases,
//!   product, composition, inversion and the rest of the algebra.
//! - [`triton`]: Triton's layout encodings (blocked, shared, MMA, slice, dot
//!   operand, ...) converted to linear layouts for a tensor shape, and its
//!   passes: [`triton::coalesce`] (seed 003) and [`triton::convert_layout`]
//!   (what a `convert_layout` costs: its kind, the swizzled scratch buffer
//!   and its bank conflicts).
//! - [`bank`]: the shared-memory bank model: wavefronts by enumeration and by
//!   the GF(2) rank formula, Triton's bank-conflict measure.
//! - [`machine`]: the machines (sm80/sm90/sm100, gfx942/gfx950/gfx1250): banks,
//!   LDS phases per instruction, which shared-memory instructions exist.
//! - [`cute`]: CuTe layouts (seed 004) with the C++ headers' semantics.
//! - [`xla`]: XLA shapes with tiled layouts (seed 001), from the HLO text.
//! - [`interrupt`]: a caller's poll that stops long enumerations.
//! - [`interop`]: exact conversions between the families, and why one fails
//!   ("convert" is Triton's `convert_layout` everywhere else).

pub mod bank;
pub mod cute;
pub mod error;
pub mod f2;
pub mod interop;
pub mod interrupt;
pub mod linear;
pub mod machine;
pub mod triton;
pub mod xla;

pub use error::{InvalidKind, LayoutError, Result, Subject};
pub use linear::{DimName, LinearLayout};
