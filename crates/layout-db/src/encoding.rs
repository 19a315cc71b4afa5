//! Triton encodings from their parameters: the keys of a pasted
//! `#ttg.KIND<{...}>` attribute, or the named arguments of a call such as
//! `blocked(sizePerThread = [1, 4], ...)`. Both arrive as [`Param`]s.

use layout_algebra::triton::keys;
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

/// Reads parameters, reporting each problem once, at the span of the key
/// or value it is about.
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

    /// The span of `key`'s value, or of the whole attribute.
    fn value_span(&self, key: &str) -> Span {
        self.get(key).map_or(self.whole, |p| p.span)
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
}

impl KeySource for Reader<'_> {
    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn uint(&mut self, key: &'static str, default: Option<u32>) -> u32 {
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

    fn list(&mut self, key: &'static str, required: bool) -> Vec<u32> {
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

    fn flag(&mut self, key: &'static str) -> bool {
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

    fn bases(&mut self, key: &'static str) -> Vec<Vec<u32>> {
        match self.get(key) {
            Some(p) => {
                let (v, s) = (p.value.clone(), p.span);
                self.bases_of(&v, s, key)
            }
            None => Vec::new(),
        }
    }

    fn encoding(&mut self, key: &'static str) -> Encoding {
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

    /// Pasted as `[32:+4, ...]`, or in a call as `[(32, 4), ...]`.
    fn intervals(&mut self, key: &'static str) -> Vec<(u32, u32)> {
        let Some(p) = self.get(key) else {
            self.missing(key);
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

    fn named_bases(
        &mut self,
        key: &'static str,
        names: &[&'static str],
    ) -> Option<Vec<Vec<Vec<u32>>>> {
        let p = self.get(key)?;
        let span = p.span;
        let Value::Named(entries) = p.value.clone() else {
            let forms: Vec<String> = names.iter().map(|n| format!("{n} = [...]")).collect();
            self.fail(Diagnostic::error(
                Code::TypeMismatch,
                span,
                format!("`{key}` must be {{{}}}", forms.join(", ")),
            ));
            return None;
        };
        let mut out = vec![Vec::new(); names.len()];
        for (k, v) in entries {
            match names.iter().position(|n| *n == k) {
                Some(i) => out[i] = self.bases_of(&v, span, k.as_str()),
                None => self.fail(Diagnostic::error(
                    Code::UnknownKey,
                    span,
                    format!("{key} has no key `{k}` (it has {})", names.join(" and ")),
                )),
            }
        }
        Some(out)
    }

    fn first_entry_len(&self, key: &str) -> Option<usize> {
        match &self.get(key)?.value {
            Value::List(b) => match b.first()? {
                Value::List(x) => Some(x.len()),
                _ => None,
            },
            _ => None,
        }
    }

    fn missing(&mut self, key: &'static str) {
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

    fn reject(&mut self, key: &'static str, fault: KeyFault) {
        let message = fault.to_string();
        let d = match &fault {
            KeyFault::NotPermutation { .. } => {
                Diagnostic::error(Code::OrderNotPermutation, self.value_span(key), message)
            }
            KeyFault::RankMismatch { .. } => {
                Diagnostic::error(Code::RankMismatch, self.value_span(key), message)
            }
            // At the key: it is the key that should not be there.
            KeyFault::ConflictingForms { .. } => {
                let span = self.get(key).map_or(self.whole, |p| p.key_span);
                Diagnostic::error(Code::UnknownKey, span, message)
            }
            KeyFault::CtaPlacement(e) => {
                let code = match crate::diagnostic::code_for(e, crate::diagnostic::Domain::Triton) {
                    Code::InvalidEncoding => Code::CtaDivisibility,
                    code => code,
                };
                Diagnostic::error(code, self.value_span(key), message).with_layout_error_facts(e)
            }
        };
        self.fail(d);
    }

    fn ok(&self) -> bool {
        self.ok
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
    let enc = (table.read)(&mut r);
    if !r.ok {
        return None;
    }
    // Parameter checks that do not need a tensor shape.
    let validated = enc.validate_params();
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
        r.fail(Diagnostic::error(code, span, e.to_string()).with_layout_error_facts(&e));
        return None;
    }
    Some(enc)
}
