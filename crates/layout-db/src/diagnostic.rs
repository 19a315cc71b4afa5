//! Diagnostics with stable codes. A code never changes meaning once
//! released; [`registry`] holds each code's title, explanation and example
//! (docs/diagnostics.md and `layoutc explain` are printed from it).

use layout_algebra::{InvalidKind, LayoutError};
use layout_syntax::Span;

pub use registry::{Code, Severity, documentation};

mod registry;

/// A problem found in a file, with the span it is about.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub span: Span,
    /// Secondary spans (the first definition of a duplicate, ...).
    pub labels: Vec<(Span, String)>,
    /// Hints: "did you mean", another notation, ...
    pub notes: Vec<String>,
    /// For a use of a declaration that has errors (E0106): that
    /// declaration's name. The file's report keeps one such diagnostic per
    /// declaration, at its first use, and lists the other uses.
    pub broken_dependency: Option<String>,
    /// A likely replacement for the text under `span` (a typo's closest
    /// name): the note says "did you mean", and editors offer it as a fix.
    pub suggestion: Option<String>,
    /// For E0301: the number under `span` that is not a power of two (an
    /// editor offers to pad it to the next one).
    pub not_power_of_two: Option<u64>,
}

impl Diagnostic {
    pub fn error(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            broken_dependency: None,
            suggestion: None,
            not_power_of_two: None,
        }
    }

    pub fn warning(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    /// Suggests `replacement` for the text under the diagnostic's span.
    /// The message with its notes, one per line, each after `note_prefix`
    /// (the editor's `""`, the one-string CLI formats' `"note: "`).
    pub fn message_with_notes(&self, note_prefix: &str) -> String {
        let mut text = self.message.clone();
        for n in &self.notes {
            text.push('\n');
            text.push_str(note_prefix);
            text.push_str(n);
        }
        text
    }

    /// The error of the algebra as a diagnostic at `span`, coded for
    /// `domain`, with the facts an editor's fix needs.
    pub fn of_layout_error(e: &LayoutError, domain: Domain, span: Span) -> Diagnostic {
        Diagnostic::error(code_for(e, domain), span, e.to_string()).with_layout_error_facts(e)
    }

    /// The typed facts of `e` an editor's fix reads (never the message).
    pub fn with_layout_error_facts(mut self, e: &LayoutError) -> Diagnostic {
        if let LayoutError::NotPowerOfTwo { value, .. } = e {
            self.not_power_of_two = u64::try_from(*value).ok().filter(|&n| n > 0);
        }
        self
    }

    pub fn with_suggestion(mut self, replacement: impl Into<String>) -> Diagnostic {
        let replacement = replacement.into();
        self.notes.push(format!("did you mean `{replacement}`?"));
        self.suggestion = Some(replacement);
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Diagnostic {
        self.labels.push((span, text.into()));
        self
    }

    /// Moves every span by `delta` bytes (items are checked relative to
    /// their own start).
    pub fn shifted(mut self, delta: usize) -> Diagnostic {
        self.span = self.span.shift(delta);
        for (s, _) in &mut self.labels {
            *s = s.shift(delta);
        }
        self
    }
}

/// A file's bytes as text. Each byte that is not part of UTF-8 becomes
/// U+001A (SUBSTITUTE, one byte), so every offset after it still points at
/// the same byte of the file and the rest is still checked; the first bad
/// byte is an E0002 at its place. A binary (a NUL byte, or more than
/// [`BINARY_BAD_BYTES`] bad bytes) is one E0002 and no text.
pub fn decode_source(bytes: Vec<u8>) -> (String, Option<Diagnostic>) {
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return (text, None),
        Err(e) => e.into_bytes(),
    };
    let mut text = String::with_capacity(bytes.len());
    let mut first_bad = None;
    let mut bad = 0usize;
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for _ in chunk.invalid() {
            first_bad.get_or_insert(text.len());
            text.push(SUBSTITUTE);
            bad += 1;
        }
    }
    let at = first_bad.expect("invalid UTF-8 has a bad byte");
    if bytes.contains(&0) || bad > BINARY_BAD_BYTES {
        // Not a text file with a stray byte but a binary: checking it
        // would only report every byte.
        let d = Diagnostic::error(
            Code::NotUtf8,
            Span::new(0, 0),
            format!(
                "this file is binary, not text: {bad} of its {} bytes are not UTF-8 (the first at byte {at}, 0x{:02X}); nothing was checked",
                bytes.len(),
                bytes[at]
            ),
        );
        return (String::new(), Some(d));
    }
    let d = Diagnostic::error(
        Code::NotUtf8,
        Span::new(at, at + 1),
        format!(
            "this file is not UTF-8: byte {at} (0x{:02X}) starts no character",
            bytes[at]
        ),
    )
    .with_note(
        "layoutc reads .lay files as UTF-8; the rest was checked with each bad byte read as U+001A",
    );
    (text, Some(d))
}

/// More bytes that are not UTF-8 than this (or any NUL byte) make a file
/// binary: [`decode_source`] then reports it once and returns no text.
pub const BINARY_BAD_BYTES: usize = 16;

/// What [`decode_source`] puts in place of a byte that is not UTF-8.
pub const SUBSTITUTE: char = '\u{1A}';

/// The domain of the operation that failed (Triton encodings, CuTe, XLA,
/// ...): it decides the code of a generic precondition failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    Linear,
    Triton,
    Cute,
    Xla,
    Conversion,
    Bank,
}

/// The stable code for an algebra error raised by an operation of `domain`.
pub fn code_for(err: &LayoutError, domain: Domain) -> Code {
    match err {
        LayoutError::NotPowerOfTwo { .. } => Code::NotPowerOfTwo,
        LayoutError::BasisArity { .. } | LayoutError::BasisOutOfRange { .. } => {
            Code::BasisOutOfRange
        }
        LayoutError::NotSurjective { .. } => Code::NotSurjective,
        LayoutError::NotInjective { .. } => Code::NotInjective,
        LayoutError::TooLarge { .. } => Code::TooLarge,
        // Never shown: an interrupted evaluation unwinds as a cancelled
        // query (`cancel::interruptible`) before its diagnostics are kept.
        LayoutError::Interrupted => Code::Internal,
        LayoutError::DuplicateDim { .. }
        | LayoutError::UnknownDim { .. }
        | LayoutError::Mismatch { .. }
        | LayoutError::NoCommonOrder { .. } => match domain {
            Domain::Cute => Code::CutePrecondition,
            _ => Code::DimMismatch,
        },
        // The kind says what the fault is about; neither `what` nor the
        // message is read.
        LayoutError::Invalid { kind, .. } => match kind {
            InvalidKind::MinorToMajor => Code::InvalidMinorToMajor,
            InvalidKind::Order => Code::OrderNotPermutation,
            InvalidKind::CtaPlacement => Code::CtaDivisibility,
            InvalidKind::WarpSize => Code::TargetMismatch,
            InvalidKind::Rank | InvalidKind::Other => match domain {
                Domain::Triton => Code::InvalidEncoding,
                Domain::Cute => Code::CutePrecondition,
                Domain::Xla => Code::InvalidXla,
                Domain::Conversion => Code::NotConvertible,
                Domain::Linear | Domain::Bank => Code::InvalidEncoding,
            },
        },
    }
}

/// A pointer for the errors that only the GF(2) path has.
pub fn mixed_radix_note(err: &LayoutError) -> Option<&'static str> {
    matches!(err, LayoutError::NotPowerOfTwo { .. }).then_some(
        "linear layouts need power-of-two sizes; for other sizes write the layout in CuTe \
         notation (`cute (6,4):(4,1)`), whose mixed-radix algebra has no such limit",
    )
}

/// The closest of `candidates` to `name`, if one is close enough to be a
/// likely typo.
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(name, c);
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    let (d, c) = best?;
    let limit = (name.chars().count().max(c.chars().count()) / 3).max(1);
    (d <= limit && d > 0).then(|| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names_only() {
        assert_eq!(
            did_you_mean("blocekd", ["blocked", "mma"]),
            Some("blocked".into())
        );
        assert_eq!(did_you_mean("acc", ["blocked", "mma"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn codes_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.as_str()), "{} twice", c.as_str());
        }
    }
}
