//! What evaluation lends the functions of the language ([`crate::builtins`])
//! and the access model ([`crate::access`]): the database (for memoized
//! questions such as an encoding's layout over a shape), the file's target
//! facts, and the list the diagnostics go to; with the coercions of values
//! to the algebra's types, each failing with a diagnostic in the user's
//! terms. Builtins see only this, never the evaluator's internals
//! (`Ctx`, below, holds a `Cx` and lends it).

use layout_algebra::DimName;
use layout_algebra::LayoutError;
use layout_algebra::cute::{IntTuple, Layout, Tiler};
use layout_algebra::linear::LinearLayout;
use layout_algebra::triton::Encoding;
use layout_algebra::xla::XlaShape;
use layout_syntax::Span;

use crate::diagnostic::{Code, Diagnostic, Domain, code_for, mixed_radix_note};
use crate::target::TargetFacts;
use crate::value::{TensorLayout, Value};
use crate::{SourceFile, SourceItem};

/// Marks a failure whose diagnostic has already been recorded.
#[derive(Debug)]
pub(crate) struct Reported;

pub(crate) type R<T> = Result<T, Reported>;

/// The evaluation context a builtin works in.
pub(crate) struct Cx<'db> {
    pub db: &'db dyn salsa::Database,
    pub file: SourceFile,
    pub diags: Vec<Diagnostic>,
}

impl<'db> Cx<'db> {
    pub fn error(&mut self, code: Code, span: Span, message: impl Into<String>) -> Reported {
        self.diags.push(Diagnostic::error(code, span, message));
        Reported
    }

    pub fn report(&mut self, d: Diagnostic) -> Reported {
        self.diags.push(d);
        Reported
    }

    /// An algebra result as a value or a diagnostic at `span`.
    pub fn alg<T>(&mut self, r: layout_algebra::Result<T>, domain: Domain, span: Span) -> R<T> {
        r.map_err(|e| self.algebra_error(&e, domain, span))
    }

    pub fn algebra_error(&mut self, e: &LayoutError, domain: Domain, span: Span) -> Reported {
        let mut d = Diagnostic::of_layout_error(e, domain, span);
        if let Some(n) = mixed_radix_note(e) {
            d = d.with_note(n);
        }
        self.report(d)
    }

    pub fn target(&self) -> &'db TargetFacts {
        crate::file_target(self.db, self.file)
    }

    /// A warning on a value that depends on the machine when the file names
    /// none: which default was used, and how to name one.
    pub fn warn_if_default_target(&mut self, span: Span) {
        let facts = self.target();
        if facts.preset.is_none() && facts.banks.is_none() && facts.unknown_machine.is_none() {
            self.report(
                Diagnostic::warning(
                    Code::DefaultTarget,
                    span,
                    "no target is given, so this assumes sm90: 32 banks of 4 bytes, ldmatrix and stmatrix",
                )
                .with_note(
                    "name the machine: `target = sm80` (or sm90, sm100, gfx942, gfx950, gfx1250), or paste the module line with its `ttg.target`",
                ),
            );
        }
    }

    /// An encoding applied to a tensor shape, checked against the target.
    pub fn bind_tensor(
        &mut self,
        enc: Encoding,
        shape: Vec<u32>,
        element_type: &str,
        span: Span,
        enc_span: Span,
    ) -> R<Value> {
        if shape.is_empty() {
            return Err(self.error(
                Code::RankMismatch,
                span,
                "a tensor here has at least one dim (`tensor<64xf16, ...>`)",
            ));
        }
        // An empty element type is a layout bound to a shape alone
        // (`to_linear(enc, [64, 64])`).
        if !element_type.is_empty() && element_bits(element_type).is_none() {
            let common = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"];
            let mut d = Diagnostic::error(
                Code::UnknownElementType,
                span,
                format!("`{element_type}` is not an MLIR element type"),
            );
            if let Some(s) = crate::diagnostic::did_you_mean(element_type, common) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            return Err(self.report(d.with_note(
                "the element types are i1, i8 ... i64, f16, bf16, tf32, f32, f64, f8E4M3FN, f8E5M2 (and the other 8-, 6- and 4-bit floats), index and !tt.ptr<...>",
            )));
        }
        // A CTA's tile: Triton's tensors are far smaller; beyond this the
        // tables and bank enumerations would not finish in interactive time.
        const MAX_TENSOR_ELEMENTS: u64 = 1 << 24;
        let elements = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64));
        if elements.is_none_or(|n| n > MAX_TENSOR_ELEMENTS) {
            return Err(self.error(
                Code::TooLarge,
                span,
                format!(
                    "a tensor of {shape:?} has more than 2^24 elements, the most layoutc handles"
                ),
            ));
        }
        let enc = fit_nvmma_rank(enc, shape.len());
        if !enc.is_shared() {
            let facts = self.target();
            let ctas = match &enc {
                Encoding::Linear(l) => 1u64 << l.block.len(),
                other => other.cga().map_or(1, |c| c.num_ctas()),
            };
            let target = facts.encoding_target(enc.num_warps(), ctas);
            if let Err(e) = enc.validate_for(&target) {
                let mut d = Diagnostic::error(Code::TargetMismatch, enc_span, e.to_string());
                d = d.with_note(if facts.threads_per_warp.is_some() || facts.num_warps.is_some() {
                    "the target comes from the module attributes or the `target` declaration"
                } else {
                    "with no module attributes or `target`, a warp has 32 threads; declare the machine, e.g. `target = gfx942` (64 lanes) or `target toy { warp_size = 16 }`"
                });
                return Err(self.report(d));
            }
        }
        let key = crate::EncodingOnShape::new(self.db, enc.clone(), shape.clone());
        let layout = match crate::encoding_layout(self.db, key) {
            Ok(l) => l.clone(),
            Err(e) => {
                let code = match &e {
                    LayoutError::Invalid {
                        kind: layout_algebra::InvalidKind::Rank,
                        ..
                    } => Code::RankMismatch,
                    other => code_for(other, Domain::Triton),
                };
                let mut d = Diagnostic::error(code, span, e.to_string()).with_layout_error_facts(e);
                if matches!(e, LayoutError::NotPowerOfTwo { .. }) {
                    // Triton's own rule, in Triton's terms.
                    d = d.with_note(
                        "Triton tensors have power-of-two dims (tl.arange needs them): round the block up and mask the extra elements",
                    );
                }
                return Err(self.report(d));
            }
        };
        if !enc.is_shared() && !layout.is_surjective() {
            return Err(self.error(
                Code::NotSurjective,
                span,
                format!(
                    "the layout does not cover the tensor {shape:?}: its bases reach 2^{} of {} elements",
                    layout.rank(),
                    layout.total_out_size()
                ),
            ));
        }
        Ok(Value::Tensor(Box::new(TensorLayout {
            element_bits: element_bits(element_type),
            element_type: element_type.to_string(),
            shape,
            encoding: enc,
            layout,
        })))
    }

    pub fn int(&mut self, v: &Value, span: Span) -> R<i64> {
        match v {
            Value::Int(n) => Ok(*n),
            // `(4)`: CuTe's one-element tuple, where a number is wanted.
            Value::Tuple(items) if items.len() == 1 => self.int(&items[0], span),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!("expected an integer, but this is {}", other.type_name()),
            )),
        }
    }

    pub fn linear(&mut self, v: &Value, span: Span) -> R<LinearLayout> {
        match v {
            Value::Linear(l) => Ok((**l).clone()),
            Value::Tensor(t) => Ok(t.layout.clone()),
            Value::Encoding(e) => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "a #ttg.{} encoding has no linear layout until it is bound to a tensor shape; write tensor<64x64xf16, ...> or to_linear(x, [64, 64])",
                    e.kind()
                ),
            )),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a linear layout, but this is {}{}",
                    other.type_name(),
                    match other {
                        Value::Cute(_) | Value::Swizzled(_) | Value::Xla(_) => "; convert it with to_linear(...)",
                        _ => "",
                    }
                ),
            )),
        }
    }

    pub(crate) fn string(&mut self, v: &Value, span: Span) -> R<String> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a string (a dim name such as \"register\"), but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn size(&mut self, v: &Value, span: Span) -> R<u64> {
        let n = self.int(v, span)?;
        u64::try_from(n).map_err(|_| {
            self.error(
                Code::TypeMismatch,
                span,
                format!("a size must not be negative, but is {n}"),
            )
        })
    }

    pub(crate) fn size32(&mut self, v: &Value, span: Span) -> R<u32> {
        let n = self.size(v, span)?;
        u32::try_from(n).map_err(|_| {
            self.error(
                Code::TooLarge,
                span,
                format!("{n} is too large for a layout dim"),
            )
        })
    }

    pub(crate) fn names(&mut self, v: &Value, span: Span) -> R<Vec<DimName>> {
        match v {
            Value::List(items) | Value::Tuple(items) => items
                .iter()
                .map(|i| self.string(i, span).map(DimName::from))
                .collect(),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a list of dim names, but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn dim_sizes(&mut self, v: &Value, span: Span) -> R<Vec<(DimName, u64)>> {
        let bad = |ctx: &mut Self| {
            ctx.error(
                Code::TypeMismatch,
                span,
                "expected a list of (name, size) pairs, e.g. [(\"dim0\", 32), (\"dim1\", 8)]",
            )
        };
        let Value::List(items) = v else {
            return Err(bad(self));
        };
        let mut out = Vec::new();
        for i in items {
            match i {
                Value::Tuple(p) if p.len() == 2 => {
                    let n = self.string(&p[0], span)?;
                    let s = self.size(&p[1], span)?;
                    out.push((DimName::from(n), s));
                }
                _ => return Err(bad(self)),
            }
        }
        Ok(out)
    }

    pub(crate) fn int_tuple(&mut self, v: &Value, span: Span) -> R<IntTuple> {
        match v {
            Value::List(items) => Value::Tuple(items.clone()).as_int_tuple(),
            other => other.as_int_tuple(),
        }
        .ok_or_else(|| {
            self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected an integer or a tuple of integers like (1,(2,3)), but this is {}",
                    v.type_name()
                ),
            )
        })
    }

    pub(crate) fn int_list(&mut self, v: &Value, span: Span) -> R<Vec<i64>> {
        match v {
            Value::List(items) | Value::Tuple(items) => {
                items.iter().map(|i| self.int(i, span)).collect()
            }
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a list of integers, but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn u32_list(&mut self, v: &Value, span: Span) -> R<Vec<u32>> {
        let l = self.int_list(v, span)?;
        l.into_iter()
            .map(|x| {
                u32::try_from(x).map_err(|_| {
                    self.error(Code::TypeMismatch, span, format!("{x} is not a valid size"))
                })
            })
            .collect()
    }

    pub(crate) fn cute_layout(&mut self, v: &Value, span: Span) -> R<Layout> {
        match v {
            Value::Cute(l) => Ok((**l).clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected a CuTe layout (`cute (4,8):(8,1)`), but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn tiler(&mut self, v: &Value, span: Span) -> R<Tiler> {
        Ok(match v {
            Value::Tiler(t) => (**t).clone(),
            Value::Cute(l) => Tiler::Layout((**l).clone()),
            Value::Underscore => Tiler::Underscore,
            Value::Int(n) => {
                let l = Layout::new(IntTuple::Int(*n), IntTuple::Int(1));
                self.alg(l, Domain::Cute, span)?;
                Tiler::Int(*n)
            }
            // A shape as a tiler: each mode n is n:1 (CuTe's Shape tilers).
            Value::Tuple(items) => {
                let mut modes = Vec::with_capacity(items.len());
                for i in items {
                    modes.push(self.tiler(i, span)?);
                }
                Tiler::Modes(modes)
            }
            other => {
                return Err(self.error(
                    Code::TypeMismatch,
                    span,
                    format!("expected a CuTe tiler (a layout, `<3:3, (2,4):(1,8)>`, a shape or `_`), but this is {}", other.type_name()),
                ));
            }
        })
    }

    pub(crate) fn xla(&mut self, v: &Value, span: Span) -> R<XlaShape> {
        match v {
            Value::Xla(x) => Ok((**x).clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!(
                    "expected an XLA shape (`xla f32[3,5]{{1,0:T(2,2)}}`), but this is {}",
                    other.type_name()
                ),
            )),
        }
    }

    pub(crate) fn tensor(&mut self, v: &Value, span: Span, role: &str) -> R<TensorLayout> {
        match v {
            Value::Tensor(t) => Ok((**t).clone()),
            other => Err(self.error(
                Code::TypeMismatch,
                span,
                format!("expected the {role} layout as a tensor type (tensor<64x64xf16, #enc>), but this is {}", other.type_name()),
            )),
        }
    }
}

/// MLIR element types to bits (the one table: the kernel summary's).
pub(crate) fn element_bits(ty: &str) -> Option<u32> {
    crate::kernel::scratch::element_bits(ty)
}

/// An `nvmma_shared` written without CTA facts defaults to rank 2; a
/// tensor of another rank gets the single-CTA placement of its rank.
fn fit_nvmma_rank(enc: Encoding, rank: usize) -> Encoding {
    match enc {
        Encoding::NvmmaShared(mut s) if s.cga.rank() != rank && s.cga.num_ctas() == 1 => {
            s.cga = layout_algebra::triton::CgaLayout::single(rank);
            Encoding::NvmmaShared(s)
        }
        other => other,
    }
}

/// The evaluator of one item: the context it lends builtins, and what
/// only the evaluator needs.
pub(crate) struct Ctx<'db> {
    pub cx: Cx<'db>,
    /// The name being declared (`#x` for aliases) and its span.
    pub declaring: Option<(String, Span)>,
    /// The item being evaluated. Its text is read only to quote a failed
    /// check, so that a comment edit does not re-evaluate the item.
    pub item: SourceItem,
}

impl<'db> Ctx<'db> {
    pub fn new(db: &'db dyn salsa::Database, item: SourceItem) -> Ctx<'db> {
        Ctx {
            cx: Cx {
                db,
                file: *item.file(db),
                diags: Vec::new(),
            },
            declaring: None,
            item,
        }
    }
}
