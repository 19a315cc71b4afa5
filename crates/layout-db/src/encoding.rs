//! Triton encodings from their parameters: the keys of a pasted
//! `#ttg.KIND<{...}>` attribute, or the named arguments of a call such as
//! `blocked(sizePerThread = [1, 4], ...)`. Both arrive as [`Param`]s.

use layout_algebra::triton::keys::{self, EncodingTag};
use layout_algebra::triton::*;
use layout_syntax::Span;

use crate::diagnostic::{Code, Diagnostic, did_you_mean};
use crate::value::Value;

/// One `key = value`.
pub struct Param {
    pub key: String,
    pub key_span: Span,
    pub value: Value,
    pub span: Span,
}

/// Memory spaces: attributes that name where a buffer lives, not how.
pub fn memory_space(kind: &str) -> Option<&'static str> {
    match kind {
        "shared_memory" => Some("shared_memory"),
        "tensor_memory" => Some("tensor_memory"),
        _ => None,
    }
}

/// Encodings Triton prints that layoutc does not model (yet): an honest
/// "not supported" instead of "unknown".
const UNSUPPORTED_KINDS: &[(&str, &str)] = &[
    (
        "tensor_memory_encoding",
        "Blackwell's tensor memory (TMEM) is not shared memory; its layouts are not modelled",
    ),
    (
        "tensor_memory_scales_encoding",
        "Blackwell's tensor memory (TMEM) is not shared memory; its layouts are not modelled",
    ),
];

/// Why layoutc does not model `kind`, when it is a real Triton encoding it
/// does not model.
pub fn unsupported(kind: &str) -> Option<&'static str> {
    UNSUPPORTED_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, why)| *why)
}

/// The encodings layoutc models; their keys are layout-algebra's table
/// ([`keys::ENCODING_KINDS`]), beside the encoding types.
pub fn kind_names() -> impl Iterator<Item = &'static str> {
    keys::ENCODING_KINDS.iter().map(|k| k.name)
}

/// Reads parameters, reporting each problem once.
struct Reader<'a> {
    kind: &'a str,
    params: &'a [Param],
    whole: Span,
    diags: &'a mut Vec<Diagnostic>,
    ok: bool,
}

impl Reader<'_> {
    fn fail(&mut self, d: Diagnostic) {
        self.diags.push(d);
        self.ok = false;
    }

    fn get(&self, key: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.key == key)
    }

    fn missing(&mut self, key: &str) {
        if !self.ok {
            // A misspelt key was reported already; its missing twin would
            // only repeat it.
            return;
        }
        let kind = self.kind;
        self.fail(Diagnostic::error(
            Code::InvalidEncoding,
            self.whole,
            format!("#ttg.{kind} needs `{key}`"),
        ));
    }

    fn int_of(&mut self, p_value: &Value, span: Span, key: &str) -> Option<u32> {
        match p_value {
            Value::Int(n) if *n >= 0 && *n <= u32::MAX as i64 => Some(*n as u32),
            Value::Int(n) => {
                self.fail(Diagnostic::error(
                    Code::InvalidEncoding,
                    span,
                    format!("`{key}` must be a non-negative integer, not {n}"),
                ));
                None
            }
            other => {
                self.fail(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!(
                        "`{key}` must be an integer, but this is {}",
                        other.type_name()
                    ),
                ));
                None
            }
        }
    }

    fn uint(&mut self, key: &str, default: Option<u32>) -> u32 {
        match self.get(key) {
            Some(p) => {
                let (v, s) = (p.value.clone(), p.span);
                self.int_of(&v, s, key).unwrap_or(0)
            }
            None => match default {
                Some(d) => d,
                None => {
                    self.missing(key);
                    0
                }
            },
        }
    }

    fn flag(&mut self, key: &str) -> bool {
        match self.get(key) {
            None => false,
            Some(Param {
                value: Value::Bool(b),
                ..
            }) => *b,
            Some(p) => {
                let d = Diagnostic::error(
                    Code::TypeMismatch,
                    p.span,
                    format!(
                        "`{key}` must be true or false, but this is {}",
                        p.value.type_name()
                    ),
                );
                self.fail(d);
                false
            }
        }
    }

    fn list_of(&mut self, v: &Value, span: Span, key: &str) -> Vec<u32> {
        match v {
            Value::List(items) | Value::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for it in items {
                    out.push(self.int_of(it, span, key).unwrap_or(0));
                }
                out
            }
            other => {
                self.fail(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!(
                        "`{key}` must be a list of integers, but this is {}",
                        other.type_name()
                    ),
                ));
                Vec::new()
            }
        }
    }

    fn list(&mut self, key: &str, required: bool) -> Vec<u32> {
        match self.get(key) {
            Some(p) => {
                let (v, s) = (p.value.clone(), p.span);
                self.list_of(&v, s, key)
            }
            None => {
                if required {
                    self.missing(key);
                }
                Vec::new()
            }
        }
    }

    fn bases_of(&mut self, v: &Value, span: Span, key: &str) -> Vec<Vec<u32>> {
        match v {
            Value::List(items) => items.iter().map(|b| self.list_of(b, span, key)).collect(),
            other => {
                self.fail(Diagnostic::error(
                    Code::TypeMismatch,
                    span,
                    format!(
                        "`{key}` must be a list of bases like [[0, 1], [1, 0]], but this is {}",
                        other.type_name()
                    ),
                ));
                Vec::new()
            }
        }
    }

    fn bases(&mut self, key: &str) -> Vec<Vec<u32>> {
        match self.get(key) {
            Some(p) => {
                let (v, s) = (p.value.clone(), p.span);
                self.bases_of(&v, s, key)
            }
            None => Vec::new(),
        }
    }

    fn order(&mut self) -> Vec<usize> {
        let order = self.list("order", true);
        let mut seen = vec![false; order.len()];
        let ok = order
            .iter()
            .all(|&d| (d as usize) < seen.len() && !std::mem::replace(&mut seen[d as usize], true));
        if !ok && self.ok {
            let span = self.get("order").map_or(self.whole, |p| p.span);
            self.fail(Diagnostic::error(
                Code::OrderNotPermutation,
                span,
                format!("order {order:?} is not a permutation of 0..{}", order.len()),
            ));
        }
        order.into_iter().map(|d| d as usize).collect()
    }

    fn parent(&mut self) -> Encoding {
        self.encoding("parent")
    }

    /// A key whose value is an encoding (`parent`, `partitionLayout`).
    fn encoding(&mut self, key: &str) -> Encoding {
        match self.get(key) {
            Some(Param {
                value: Value::Encoding(e),
                ..
            }) => (**e).clone(),
            Some(p) => {
                let d = Diagnostic::error(
                    Code::TypeMismatch,
                    p.span,
                    format!(
                        "`{key}` must be a Triton encoding, but this is {}",
                        p.value.type_name()
                    ),
                );
                self.fail(d);
                dummy()
            }
            None => {
                self.missing(key);
                dummy()
            }
        }
    }

    /// `intervals`: `(interval, padding)` pairs, pasted as `[32:+4, ...]`.
    fn intervals(&mut self) -> Vec<(u32, u32)> {
        let Some(p) = self.get("intervals") else {
            self.missing("intervals");
            return Vec::new();
        };
        let (value, span) = (p.value.clone(), p.span);
        let pair = |v: &Value| match v {
            Value::Tuple(t) | Value::List(t) => match t.as_slice() {
                [Value::Int(i), Value::Int(p)] => Some((*i, *p)),
                _ => None,
            },
            _ => None,
        };
        let pairs: Option<Vec<(i64, i64)>> = match &value {
            Value::List(items) => items.iter().map(pair).collect(),
            _ => None,
        };
        let Some(pairs) = pairs else {
            self.fail(Diagnostic::error(
                Code::TypeMismatch,
                span,
                "padding intervals are `[32:+4, ...]` (or, in a call, `[(32, 4), ...]`)",
            ));
            return Vec::new();
        };
        let mut out = Vec::with_capacity(pairs.len());
        for (i, q) in pairs {
            match (u32::try_from(i), u32::try_from(q)) {
                (Ok(i), Ok(q)) => out.push((i, q)),
                _ => self.fail(Diagnostic::error(
                    Code::NotPowerOfTwo,
                    span,
                    format!("{i}:+{q} is not an interval and padding in elements"),
                )),
            }
        }
        out
    }

    /// CTA placement in either of Triton's forms.
    fn cga(&mut self, rank: usize) -> CgaLayout {
        let span = |r: &Self, k: &str| r.get(k).map_or(r.whole, |p| p.span);
        if self.get("CGALayout").is_some() {
            let b = self.bases("CGALayout");
            return match CgaLayout::from_bases(rank, b) {
                Ok(c) => c,
                Err(e) => {
                    let s = span(self, "CGALayout");
                    self.fail(Diagnostic::error(Code::CtaDivisibility, s, e.to_string()));
                    CgaLayout::single(rank)
                }
            };
        }
        if self.get("CTAsPerCGA").is_some() {
            let per = self.list("CTAsPerCGA", true);
            let split = self.list("CTASplitNum", true);
            let order: Vec<usize> = self
                .list("CTAOrder", true)
                .into_iter()
                .map(|d| d as usize)
                .collect();
            if !self.ok {
                return CgaLayout::single(rank);
            }
            return match CgaLayout::from_split(&per, &split, &order) {
                Ok(c) => c,
                Err(e) => {
                    let code = crate::diagnostic::code_for(&e, crate::diagnostic::Domain::Triton);
                    let code = if code == Code::InvalidEncoding {
                        Code::CtaDivisibility
                    } else {
                        code
                    };
                    let s = span(self, "CTASplitNum");
                    self.fail(Diagnostic::error(code, s, e.to_string()));
                    CgaLayout::single(rank)
                }
            };
        }
        CgaLayout::single(rank)
    }
}

fn dummy() -> Encoding {
    Encoding::Linear(LinearEncoding {
        register: Vec::new(),
        lane: Vec::new(),
        warp: Vec::new(),
        block: Vec::new(),
        shape: None,
    })
}

/// Builds the encoding of `kind` from `params`; problems go to `diags`.
pub fn build(
    kind: &str,
    kind_span: Span,
    whole: Span,
    params: &[Param],
    diags: &mut Vec<Diagnostic>,
) -> Option<Encoding> {
    if let Some((_, why)) = UNSUPPORTED_KINDS.iter().find(|(k, _)| *k == kind) {
        diags.push(Diagnostic::error(
            Code::UnsupportedEncoding,
            kind_span,
            format!("`{kind}` is a Triton encoding layoutc does not model: {why}"),
        ));
        return None;
    }
    let Some(table) = keys::encoding_kind(kind) else {
        let mut d = Diagnostic::error(
            Code::UnknownKey,
            kind_span,
            format!("`{kind}` is not a Triton encoding"),
        );
        if let Some(s) = did_you_mean(kind, kind_names()) {
            d = d.with_suggestion(s);
        }
        d = d.with_note(format!(
            "the encodings are {}",
            kind_names().collect::<Vec<_>>().join(", ")
        ));
        diags.push(d);
        return None;
    };
    let mut r = Reader {
        kind,
        params,
        whole,
        diags,
        ok: true,
    };
    for p in params {
        if table.key(&p.key).is_none() {
            let mut d = Diagnostic::error(
                Code::UnknownKey,
                p.key_span,
                format!("#ttg.{kind} has no key `{}`", p.key),
            );
            if let Some(s) = did_you_mean(&p.key, table.keys.iter().map(|k| k.name)) {
                d = d.with_suggestion(s);
            }
            r.fail(d);
        }
        if params.iter().filter(|q| q.key == p.key).count() > 1
            && params.iter().position(|q| q.key == p.key)
                != params.iter().position(|q| std::ptr::eq(q, p))
        {
            r.fail(Diagnostic::error(
                Code::UnknownKey,
                p.key_span,
                format!("`{}` is given twice", p.key),
            ));
        }
    }
    let enc = match table.tag {
        EncodingTag::Blocked => {
            let order = r.order();
            let blocked = Blocked {
                size_per_thread: r.list("sizePerThread", true),
                threads_per_warp: r.list("threadsPerWarp", true),
                warps_per_cta: r.list("warpsPerCTA", true),
                cga: r.cga(order.len()),
                order,
            };
            for (key, len) in [
                ("sizePerThread", blocked.size_per_thread.len()),
                ("threadsPerWarp", blocked.threads_per_warp.len()),
                ("warpsPerCTA", blocked.warps_per_cta.len()),
            ] {
                if r.ok && len != blocked.order.len() {
                    let span = r.get(key).map_or(whole, |p| p.span);
                    r.fail(Diagnostic::error(
                        Code::RankMismatch,
                        span,
                        format!(
                            "`{key}` has {len} entries but `order` has {}",
                            blocked.order.len()
                        ),
                    ));
                }
            }
            Encoding::Blocked(blocked)
        }
        EncodingTag::SwizzledShared => {
            let order = r.order();
            Encoding::SwizzledShared(SwizzledShared {
                vec: r.uint("vec", None),
                per_phase: r.uint("perPhase", None),
                max_phase: r.uint("maxPhase", None),
                cga: r.cga(order.len()),
                order,
            })
        }
        EncodingTag::NvmmaShared => {
            let rank = r.uint("rank", Some(0)) as usize;
            let rank = if rank > 0 {
                rank
            } else if r.get("CTAOrder").is_some() {
                r.list("CTAOrder", false).len()
            } else if let Some(p) = r.get("CGALayout") {
                match &p.value {
                    Value::List(b) => b.first().map_or(2, |b| match b {
                        Value::List(x) => x.len(),
                        _ => 2,
                    }),
                    _ => 2,
                }
            } else {
                2
            };
            Encoding::NvmmaShared(NvmmaShared {
                swizzling_byte_width: r.uint("swizzlingByteWidth", None),
                transposed: r.flag("transposed"),
                element_bit_width: r.uint("elementBitWidth", None),
                fp4_padded: r.flag("fp4Padded"),
                cga: r.cga(rank),
            })
        }
        EncodingTag::NvidiaMma => {
            let warps = r.list("warpsPerCTA", true);
            Encoding::NvidiaMma(NvidiaMma {
                version_major: r.uint("versionMajor", None),
                version_minor: r.uint("versionMinor", Some(0)),
                instr_shape: r.list("instrShape", true),
                cga: r.cga(warps.len()),
                warps_per_cta: warps,
            })
        }
        EncodingTag::AmdMfma => {
            let warps = r.list("warpsPerCTA", true);
            let version = if r.get("version").is_some() {
                r.uint("version", None)
            } else {
                r.uint("versionMajor", Some(3))
            };
            Encoding::AmdMfma(AmdMfma {
                version,
                instr_shape: r.list("instrShape", true),
                is_transposed: r.flag("isTransposed"),
                tiles_per_warp: r.list("tilesPerWarp", false),
                element_bit_width: r.uint("elementBitWidth", Some(0)),
                cga: r.cga(warps.len()),
                warps_per_cta: warps,
            })
        }
        EncodingTag::AmdWmma => {
            let warps = r.list("warpsPerCTA", false);
            let tiles = match r.get("ctaLayout") {
                Some(Param {
                    value: Value::Named(entries),
                    span,
                    ..
                }) => {
                    let (entries, span) = (entries.clone(), *span);
                    let mut t = WmmaCtaTiles {
                        register: Vec::new(),
                        warp: Vec::new(),
                    };
                    for (k, v) in entries {
                        match k.as_str() {
                            "register" => t.register = r.bases_of(&v, span, "register"),
                            "warp" => t.warp = r.bases_of(&v, span, "warp"),
                            _ => r.fail(Diagnostic::error(
                                Code::UnknownKey,
                                span,
                                format!("ctaLayout has no key `{k}` (it has register and warp)"),
                            )),
                        }
                    }
                    Some(t)
                }
                Some(p) => {
                    let d = Diagnostic::error(
                        Code::TypeMismatch,
                        p.span,
                        "`ctaLayout` must be {register = [...], warp = [...]}",
                    );
                    r.fail(d);
                    None
                }
                None => None,
            };
            if warps.is_empty() && tiles.is_none() {
                r.missing("warpsPerCTA");
            }
            let rank = match r.uint("rank", Some(0)) as usize {
                0 => tiles
                    .as_ref()
                    .and_then(|t| t.warp.first().or(t.register.first()).map(Vec::len))
                    .unwrap_or(warps.len().max(2)),
                n => n,
            };
            let rank = if warps.is_empty() { rank } else { warps.len() };
            Encoding::AmdWmma(AmdWmma {
                version: r.uint("version", Some(1)),
                is_transposed: r.flag("isTransposed") || r.flag("isTranspose"),
                instr_shape: r.list("instrShape", false),
                cga: r.cga(rank),
                warps_per_cta: warps,
                cta_tiles: tiles,
            })
        }
        EncodingTag::AmdRotatingShared => {
            let order = r.order();
            Encoding::AmdRotatingShared(AmdRotatingShared {
                vec: r.uint("vec", None),
                per_phase: r.uint("perPhase", None),
                max_phase: r.uint("maxPhase", None),
                cga: r.cga(order.len()),
                order,
            })
        }
        EncodingTag::SharedLinear => Encoding::SharedLinear(SharedLinear {
            offset: r.bases("offset"),
            block: r.bases("block"),
            alignment: r.uint("alignment", None),
        }),
        EncodingTag::PaddedShared => {
            let intervals = r.intervals();
            let by_order = r.get("order").is_some() || r.get("shape").is_some();
            let linear = if by_order {
                if r.get("offset").is_some() || r.get("block").is_some() {
                    let span = r
                        .get("offset")
                        .or(r.get("block"))
                        .map_or(whole, |p| p.key_span);
                    r.fail(Diagnostic::error(
                        Code::UnknownKey,
                        span,
                        "#ttg.padded_shared takes either `order` and `shape` or `offset` and `block`, not both",
                    ));
                }
                PaddedLinear::Identity {
                    order: r.order(),
                    shape: r.list("shape", true),
                }
            } else {
                // Triton prints both, `block = []` included, and asks for both.
                for key in ["offset", "block"] {
                    if r.get(key).is_none() {
                        r.missing(key);
                    }
                }
                PaddedLinear::Bases {
                    offset: r.bases("offset"),
                    block: r.bases("block"),
                }
            };
            Encoding::PaddedShared(PaddedShared { intervals, linear })
        }
        EncodingTag::PartitionedShared => {
            Encoding::PartitionedShared(Box::new(PartitionedShared {
                num_partitions: r.uint("numPartitions", None),
                num_groups: r.uint("numGroups", None),
                partition_dim: r.uint("partitionDim", None) as usize,
                inner: Box::new(r.encoding("partitionLayout")),
            }))
        }
        EncodingTag::Slice => Encoding::Slice(Box::new(Slice {
            dim: r.uint("dim", None) as usize,
            parent: r.parent(),
        })),
        EncodingTag::DotOp => Encoding::DotOperand(Box::new(DotOperand {
            op_idx: r.uint("opIdx", None),
            k_width: r.uint("kWidth", Some(0)),
            parent: r.parent(),
        })),
        EncodingTag::Linear => {
            let shape = r.get("shape").is_some().then(|| r.list("shape", false));
            Encoding::Linear(LinearEncoding {
                register: r.bases("register"),
                lane: r.bases("lane"),
                warp: r.bases("warp"),
                block: r.bases("block"),
                shape,
            })
        }
    };
    if !r.ok {
        return None;
    }
    // Parameter checks that do not need a tensor shape.
    let validated = match &enc {
        Encoding::SwizzledShared(s) => s.validate(),
        Encoding::NvmmaShared(s) => s.validate(),
        Encoding::NvidiaMma(m) => m.validate(),
        Encoding::AmdMfma(m) => m.validate(),
        Encoding::AmdWmma(m) => m.validate(),
        Encoding::Blocked(b) => b.validate(),
        Encoding::DotOperand(d) => d.validate(),
        Encoding::AmdRotatingShared(s) => s.validate(),
        Encoding::SharedLinear(s) => s.layout().map(|_| ()),
        Encoding::PaddedShared(s) => s.layout().map(|_| ()),
        Encoding::PartitionedShared(s) => s.validate(),
        Encoding::Slice(_) | Encoding::Linear(_) => Ok(()),
    };
    if let Err(e) = validated {
        let code = crate::diagnostic::code_for(&e, crate::diagnostic::Domain::Triton);
        // At the parameter the error names, when it names one.
        let span = match &e {
            layout_algebra::LayoutError::Invalid { what, .. }
            | layout_algebra::LayoutError::NotPowerOfTwo { what, .. } => what
                .param()
                .and_then(|key| params.iter().find(|p| p.key == key))
                .map_or(whole, |p| p.span),
            _ => whole,
        };
        // Triton itself requires these parameters to be powers of two; the
        // mixed-radix pointer of layout sizes does not apply here.
        r.fail(Diagnostic::error(code, span, e.to_string()));
        return None;
    }
    Some(enc)
}
