//! Errors of the algebra: every precondition that Triton, CuTe or XLA would
//! assert on is a value here, with the facts a user needs to fix the input.

use crate::linear::DimName;

/// Why an algebra operation or an encoding conversion could not produce a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("{what} must be a power of two, but is {value}")]
    NotPowerOfTwo { what: Subject, value: i64 },

    #[error(
        "basis {index} of in-dim '{in_dim}' has {got} coordinates, but there are {expected} out-dims"
    )]
    BasisArity {
        in_dim: DimName,
        index: usize,
        got: usize,
        expected: usize,
    },

    #[error(
        "basis {index} of in-dim '{in_dim}' has {value} in out-dim '{out_dim}', which has size {size}"
    )]
    BasisOutOfRange {
        in_dim: DimName,
        index: usize,
        out_dim: DimName,
        value: i64,
        size: u64,
    },

    #[error(
        "the layout must be surjective, but its bases reach only 2^{rank} of the {size} output coordinates"
    )]
    NotSurjective { rank: u32, size: u64 },

    #[error(
        "the layout is not injective: its {bits} input bits span only a {rank}-dimensional space"
    )]
    NotInjective { rank: u32, bits: u32 },

    #[error("a layout may have at most 64 {side} bits, this one would have {bits}")]
    TooLarge { side: &'static str, bits: u32 },

    #[error("{side}-dim '{name}' appears twice")]
    DuplicateDim { side: &'static str, name: DimName },

    #[error("{side}-dim '{name}' is not in the layout (it has {available})")]
    UnknownDim {
        side: &'static str,
        name: DimName,
        available: String,
    },

    #[error("{op}: {detail}")]
    Mismatch { op: &'static str, detail: String },

    #[error("{op}: the {side}-dims [{a}] and [{b}] list their common dims in different orders")]
    NoCommonOrder {
        op: &'static str,
        side: &'static str,
        a: String,
        b: String,
    },

    /// The caller's poll asked the enumeration to stop
    /// ([`crate::interrupt`]); no answer was computed.
    #[error("stopped before the end: the result is no longer wanted")]
    Interrupted,

    #[error("{what}: {reason}")]
    Invalid {
        what: Subject,
        reason: String,
        /// What kind of fault it is, for tools that classify errors
        /// (diagnostic codes) without reading the message.
        kind: InvalidKind,
    },
}

/// What an error is about: a parameter of an encoding, named by its key as
/// TTGIR spells it (a front end points its diagnostic at that key), or
/// anything else, in words.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Subject {
    /// `sizePerThread`, `order`, `CTAOrder`, `kWidth`, ...
    Param(&'static str),
    Text(String),
}

impl Subject {
    /// The encoding key the error is about, if it is about one.
    pub fn param(&self) -> Option<&'static str> {
        match self {
            Subject::Param(key) => Some(key),
            Subject::Text(_) => None,
        }
    }
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Subject::Param(key) => f.write_str(key),
            Subject::Text(text) => f.write_str(text),
        }
    }
}

impl From<&str> for Subject {
    fn from(text: &str) -> Self {
        Subject::Text(text.to_string())
    }
}

impl From<String> for Subject {
    fn from(text: String) -> Self {
        Subject::Text(text)
    }
}

/// What kind of parameter an [`LayoutError::Invalid`] is about: what a
/// tool classifies the error by (a diagnostic's code), so no one reads
/// `what` or the message to do it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InvalidKind {
    /// A parameter's length disagrees with the rank of the tensor or layout.
    Rank,
    /// An order (`order`, `CTAOrder`) is not a permutation of the dims, or
    /// names a dim the layout does not have.
    Order,
    /// XLA's `minor_to_major` is not a permutation of the dims.
    MinorToMajor,
    /// The placement of CTAs in a cluster (`CGALayout`, `CTAsPerCGA`,
    /// `CTASplitNum`) does not fit the layout or the kernel.
    CtaPlacement,
    /// `threadsPerWarp` does not multiply to the warp size.
    WarpSize,
    Other,
}

impl LayoutError {
    pub(crate) fn invalid(what: impl Into<Subject>, reason: impl Into<String>) -> Self {
        LayoutError::invalid_of(InvalidKind::Other, what, reason)
    }

    pub(crate) fn invalid_of(
        kind: InvalidKind,
        what: impl Into<Subject>,
        reason: impl Into<String>,
    ) -> Self {
        LayoutError::Invalid {
            what: what.into(),
            reason: reason.into(),
            kind,
        }
    }

    pub(crate) fn mismatch(op: &'static str, detail: impl Into<String>) -> Self {
        LayoutError::Mismatch {
            op,
            detail: detail.into(),
        }
    }
}

pub type Result<T, E = LayoutError> = std::result::Result<T, E>;
