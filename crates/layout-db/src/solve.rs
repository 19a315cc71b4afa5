//! `solve` blocks: the request checked key by key, handed to layout-solve,
//! and the answer kept as a value the rest of the file can use.

mod cute_copies;

use std::time::Duration;

use layout_algebra::bank::Direction;
use layout_algebra::triton::{Encoding, PaddedLinear, PaddedShared, SharedLinear};
use layout_solve::{
    AccessRequest, Family, InstructionPolicy, Machine, Status, SwizzleRequest, TileMethod,
    TileSearch, TilingRequest,
};
use layout_syntax::{ExprKind, Field, Span};

use crate::context::Ctx;
use crate::context::{R, Reported};
use crate::diagnostic::{Code, Diagnostic, did_you_mean};
use crate::value::{
    SolveKind, SolveOutcome, SolveTime, SwizzleOutcome, TensorLayout, TilingOutcome, Value,
};

/// A key of a `solve` block: the one table that reading a block,
/// completion, hover and the docs take their keys from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SolveKey {
    Kind,
    Write,
    Read,
    Family,
    Instructions,
    Target,
    Array,
    Weights,
    MinVector,
    Budget,
    Timeout,
    MinorDim,
    MaxPadding,
    Tiles,
    TileMultiple,
    MinTileElements,
    MaxTileElements,
    Base,
    Fixed,
    Answer,
}

/// A solve key's name and its one-line meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveKeyInfo {
    pub key: SolveKey,
    pub name: &'static str,
    pub doc: &'static str,
}

/// Every key a solve block takes, in the order the docs list them.
pub const SOLVE_KEYS: &[SolveKeyInfo] = &[
    SolveKeyInfo {
        key: SolveKey::Kind,
        name: "kind",
        doc: "`swizzle` (a shared-memory layout) or `tiling` (an XLA tiled layout)",
    },
    SolveKeyInfo {
        key: SolveKey::Write,
        name: "write",
        doc: "a tensor type stored into the buffer, or a CuTe tiled copy into it (one per access)",
    },
    SolveKeyInfo {
        key: SolveKey::Read,
        name: "read",
        doc: "a tensor type loaded from the buffer, or a CuTe tiled copy out of it (one per access)",
    },
    SolveKeyInfo {
        key: SolveKey::Family,
        name: "family",
        doc: "`linear` (default), `triton`, `nvmma`, `cute` or `padded`",
    },
    SolveKeyInfo {
        key: SolveKey::Instructions,
        name: "instructions",
        doc: "`vector` (default), `matrix` (ldmatrix/stmatrix where legal) or `best`",
    },
    SolveKeyInfo {
        key: SolveKey::Target,
        name: "target",
        doc: "the machine: a GPU preset (`sm80`, `sm90`, `sm100`, `gfx942`, `gfx950`, `gfx1250`) for a swizzle, `tpu` for a tiling",
    },
    SolveKeyInfo {
        key: SolveKey::Array,
        name: "array",
        doc: "the XLA shape to tile (`xla bf16[1000,300]`)",
    },
    SolveKeyInfo {
        key: SolveKey::Weights,
        name: "weights",
        doc: "how much each access's wavefronts count, one integer per access in the order written (`[1, 4]`)",
    },
    SolveKeyInfo {
        key: SolveKey::MinVector,
        name: "min_vector",
        doc: "the narrowest access allowed, in bits per lane (8, 16, 32, 64 or 128)",
    },
    SolveKeyInfo {
        key: SolveKey::Budget,
        name: "budget",
        doc: "the most bytes of shared memory the answer may use (padding counts)",
    },
    SolveKeyInfo {
        key: SolveKey::Timeout,
        name: "timeout",
        doc: "milliseconds Z3 may search before the best answer found is reported (default 2000)",
    },
    SolveKeyInfo {
        key: SolveKey::MinorDim,
        name: "minor_dim",
        doc: "a tiling: the dim that must stay most minor",
    },
    SolveKeyInfo {
        key: SolveKey::MaxPadding,
        name: "max_padding",
        doc: "a tiling: the most padded bytes an answer may have",
    },
    SolveKeyInfo {
        key: SolveKey::Tiles,
        name: "tiles",
        doc: "a tiling: candidate tilings instead of the TPU formats, `[[[8, 128], [2, 1]], [[16, 128]]]`",
    },
    SolveKeyInfo {
        key: SolveKey::TileMultiple,
        name: "tile_multiple",
        doc: "a tiling: search one-level tile sizes, each dim a multiple of its granule (the most minor last, `[8, 128]`); listed when few, Z3 otherwise",
    },
    SolveKeyInfo {
        key: SolveKey::MinTileElements,
        name: "min_tile_elements",
        doc: "a tile-size search: the fewest elements a tile may hold",
    },
    SolveKeyInfo {
        key: SolveKey::MaxTileElements,
        name: "max_tile_elements",
        doc: "a tile-size search: the most elements a tile may hold",
    },
    SolveKeyInfo {
        key: SolveKey::Base,
        name: "base",
        doc: "the cute family's base instead of row- and column-major (`cute (64,64):(1,64)`); the answer is `Sw<B,M,S> o base`",
    },
    SolveKeyInfo {
        key: SolveKey::Fixed,
        name: "fixed",
        doc: "pins the first offset bases to these tensor coordinates (`[[0, 1], [0, 2]]`, as `#ttg.shared_linear` writes them)",
    },
    SolveKeyInfo {
        key: SolveKey::Answer,
        name: "answer",
        doc: "the answer as `layoutc solve --write` recorded it; W0501 when the solver now finds another",
    },
];

impl SolveKey {
    /// The key a block writes as `name` (`instruction` is an old spelling
    /// of `instructions`).
    pub fn named(name: &str) -> Option<SolveKey> {
        let name = if name == "instruction" {
            "instructions"
        } else {
            name
        };
        SOLVE_KEYS.iter().find(|k| k.name == name).map(|k| k.key)
    }

    pub fn info(self) -> &'static SolveKeyInfo {
        SOLVE_KEYS
            .iter()
            .find(|k| k.key == self)
            .expect("every key is in the table")
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Accesses repeat; every other key is given once.
    pub fn repeats(self) -> bool {
        matches!(self, SolveKey::Write | SolveKey::Read)
    }
}

/// Z3's time limit when the block names none.
const DEFAULT_TIMEOUT_MS: u64 = 2000;

/// The block's time limit: the file's override, else its `timeout` key,
/// else the default.
fn time_limit(ctx: &Ctx, keys: &Keys) -> Duration {
    let db = ctx.cx.db;
    let ms = ctx.item.file(db).solver_timeout_ms(db);
    Duration::from_millis(ms.or(keys.timeout_ms).unwrap_or(DEFAULT_TIMEOUT_MS))
}

#[derive(Default)]
struct Keys {
    kind: Option<(String, Span)>,
    accesses: Vec<(Direction, TensorLayout, Span)>,
    /// CuTe tiled copies given as `write` / `read`.
    copies: Vec<cute_copies::CopyAccess>,
    family: Option<Family>,
    instructions: Option<InstructionPolicy>,
    target: Option<(String, Span)>,
    array: Option<(layout_algebra::xla::XlaShape, Span)>,
    weights: Option<(Vec<u64>, Span)>,
    min_vector: Option<u32>,
    budget: Option<u64>,
    timeout_ms: Option<u64>,
    minor_dim: Option<usize>,
    max_padding: Option<u64>,
    tiles: Vec<Vec<Vec<i64>>>,
    /// `tile_multiple = [8, 128]`: search tile sizes, each a multiple.
    tile_multiple: Option<(Vec<i64>, Span)>,
    min_tile_elements: Option<u64>,
    max_tile_elements: Option<u64>,
    /// `answer = ...` as `layoutc solve --write` recorded it.
    answer: Option<(Value, Span)>,
    /// `fixed = [[0, 1], [0, 2]]`: the tensor coordinates of the first
    /// offset bits, as `#ttg.shared_linear` writes its `offset` bases.
    fixed: Option<(Vec<Vec<i64>>, Span)>,
    /// `base = cute (64,64):(1,64)`: the CuTe family's base.
    base: Option<(layout_algebra::cute::Layout, Span)>,
}

fn word(e: &layout_syntax::Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n) | ExprKind::Str(n) => Some(n.as_str()),
        _ => None,
    }
}

fn one_of<T: Copy>(ctx: &mut Ctx, f: &Field, options: &[(&str, T)]) -> R<T> {
    let w = word(&f.value);
    if let Some(&(_, t)) = options.iter().find(|(n, _)| Some(*n) == w) {
        return Ok(t);
    }
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    let mut d = Diagnostic::error(
        Code::InvalidSolve,
        f.value.span,
        format!("`{}` is one of {}", f.key.name, names.join(", ")),
    );
    if let Some(s) = w.and_then(|w| did_you_mean(w, names.iter().copied())) {
        d = d.with_suggestion(s);
    }
    Err(ctx.cx.report(d))
}

fn positive(ctx: &mut Ctx, f: &Field, what: &str) -> R<u64> {
    match ctx.expr(&f.value)? {
        Value::Int(n) if n > 0 => Ok(n as u64),
        other => {
            // Name the value when it is a number, its type otherwise.
            let got = match other {
                Value::Int(n) => n.to_string(),
                other => other.type_name().to_string(),
            };
            Err(ctx.cx.error(
                Code::InvalidSolve,
                f.value.span,
                format!("`{}` is a positive integer ({what}), not {got}", f.key.name),
            ))
        }
    }
}

fn int_list(v: &Value) -> Option<Vec<i64>> {
    match v {
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .map(|x| match x {
                Value::Int(n) => Some(*n),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

fn read_keys(ctx: &mut Ctx, fields: &[Field]) -> R<Keys> {
    let mut k = Keys::default();
    let mut failed = false;
    // Keys given once each (accesses repeat): the first span of each.
    let mut seen: Vec<(&'static str, Span)> = Vec::new();
    for f in fields {
        let key = f.key.name.as_str();
        let Some(solve_key) = SolveKey::named(key) else {
            let names: Vec<&str> = SOLVE_KEYS.iter().map(|k| k.name).collect();
            let mut d = Diagnostic::error(
                Code::UnknownKey,
                f.key.span,
                format!("a solve block has no key `{key}`"),
            );
            if let Some(s) = did_you_mean(key, names.iter().copied()) {
                d = d.with_suggestion(s);
            } else {
                d = d.with_note(format!("the keys are {}", names.join(", ")));
            }
            ctx.cx.report(d);
            failed = true;
            continue;
        };
        let canonical = solve_key.name();
        if !solve_key.repeats() {
            if let Some(&(_, first)) = seen.iter().find(|(k, _)| *k == canonical) {
                let d = Diagnostic::error(
                    Code::InvalidSolve,
                    f.key.span,
                    format!("`{key}` is given twice; a solve block takes each key once"),
                )
                .with_label(first, "first given here");
                ctx.cx.report(d);
                failed = true;
                continue;
            }
            seen.push((canonical, f.key.span));
        }
        let result: R<()> = (|| {
            match solve_key {
                SolveKey::Kind => {
                    let kind = one_of(ctx, f, &[("swizzle", "swizzle"), ("tiling", "tiling")])?;
                    k.kind = Some((kind.to_string(), f.value.span));
                }
                SolveKey::Family => {
                    let options: Vec<(&str, Family)> =
                        Family::ALL.iter().map(|f| (f.name(), *f)).collect();
                    k.family = Some(one_of(ctx, f, &options)?);
                }
                SolveKey::Instructions => {
                    k.instructions = Some(one_of(
                        ctx,
                        f,
                        &[
                            ("vector", InstructionPolicy::Vector),
                            ("matrix", InstructionPolicy::Matrix),
                            ("best", InstructionPolicy::Best),
                        ],
                    )?);
                }
                SolveKey::Target => {
                    let mut names: Vec<&str> =
                        crate::target::PRESETS.iter().map(|p| p.name).collect();
                    names.push("tpu");
                    let options: Vec<(&str, &str)> = names.iter().map(|n| (*n, *n)).collect();
                    let t = one_of(ctx, f, &options)?;
                    k.target = Some((t.to_string(), f.value.span));
                }
                SolveKey::Write | SolveKey::Read => match ctx.expr(&f.value)? {
                    Value::Tensor(t) if !t.encoding.is_shared() => {
                        let direction = if solve_key == SolveKey::Write {
                            Direction::Store
                        } else {
                            Direction::Load
                        };
                        k.accesses.push((direction, *t, f.value.span));
                    }
                    Value::CuteAtom(o) if matches!(*o, crate::value::CuteObject::TiledCopy(_)) => {
                        let crate::value::CuteObject::TiledCopy(copy) = *o else {
                            unreachable!("matched above")
                        };
                        k.copies.push(cute_copies::CopyAccess {
                            direction: if solve_key == SolveKey::Write {
                                Direction::Store
                            } else {
                                Direction::Load
                            },
                            copy,
                            span: f.value.span,
                        });
                    }
                    other => {
                        return Err(ctx.cx.error(
                            Code::InvalidSolve,
                            f.value.span,
                            format!(
                                "`{key}` takes a tensor type with a distributed encoding, e.g. tensor<128x128xf16, #blocked> (the solver finds the shared one), or a CuTe tiled copy; this is {}",
                                if let Value::Tensor(_) = other {
                                    "a tensor in shared memory"
                                } else {
                                    other.type_name()
                                }
                            ),
                        ));
                    }
                },
                SolveKey::Array => match ctx.expr(&f.value)? {
                    Value::Xla(x) => k.array = Some((*x, f.value.span)),
                    other => {
                        return Err(ctx.cx.error(
                            Code::InvalidSolve,
                            f.value.span,
                            format!(
                                "`array` takes an XLA shape, e.g. xla bf16[1000,300]; this is {}",
                                other.type_name()
                            ),
                        ));
                    }
                },
                SolveKey::Weights => {
                    let v = ctx.expr(&f.value)?;
                    match int_list(&v) {
                        Some(w) if w.iter().all(|&x| x > 0) => {
                            k.weights =
                                Some((w.into_iter().map(|x| x as u64).collect(), f.value.span))
                        }
                        _ => {
                            return Err(ctx.cx.error(
                                Code::InvalidSolve,
                                f.value.span,
                                "`weights` is a list of positive integers, one per access in the order written, e.g. [1, 4]",
                            ));
                        }
                    }
                }
                SolveKey::MinVector => {
                    let bits = positive(ctx, f, "bits per lane")?;
                    if ![8, 16, 32, 64, 128].contains(&bits) {
                        return Err(ctx.cx.error(
                            Code::InvalidSolve,
                            f.value.span,
                            "`min_vector` is the narrowest access in bits per lane: 8, 16, 32, 64 or 128",
                        ));
                    }
                    k.min_vector = Some(bits as u32);
                }
                SolveKey::Answer => k.answer = Some((ctx.expr(&f.value)?, f.value.span)),
                SolveKey::Base => match ctx.expr(&f.value)? {
                    Value::Cute(l) => k.base = Some((*l, f.value.span)),
                    other => {
                        return Err(ctx.cx.error(
                            Code::InvalidSolve,
                            f.value.span,
                            format!(
                                "`base` is the CuTe layout the cute family swizzles, e.g. cute (64,64):(1,64); this is {}",
                                other.type_name()
                            ),
                        ));
                    }
                },
                SolveKey::Fixed => {
                    let v = ctx.expr(&f.value)?;
                    let bases: Option<Vec<Vec<i64>>> = match &v {
                        Value::List(items) => items.iter().map(int_list).collect(),
                        _ => None,
                    };
                    match bases {
                        Some(b) if !b.is_empty() => k.fixed = Some((b, f.value.span)),
                        _ => {
                            return Err(ctx.cx.error(
                                Code::InvalidSolve,
                                f.value.span,
                                "`fixed` lists the tensor coordinates of the first offset bits, as #ttg.shared_linear's offset bases: [[0, 1], [0, 2]]",
                            ));
                        }
                    }
                }
                SolveKey::Budget => k.budget = Some(positive(ctx, f, "bytes of shared memory")?),
                SolveKey::Timeout => k.timeout_ms = Some(positive(ctx, f, "milliseconds")?),
                SolveKey::MaxPadding => k.max_padding = Some(positive(ctx, f, "padded bytes")?),
                SolveKey::MinTileElements => {
                    k.min_tile_elements = Some(positive(ctx, f, "elements in a tile")?)
                }
                SolveKey::MaxTileElements => {
                    k.max_tile_elements = Some(positive(ctx, f, "elements in a tile")?)
                }
                SolveKey::TileMultiple => {
                    let v = ctx.expr(&f.value)?;
                    match int_list(&v) {
                        Some(g) if !g.is_empty() && g.iter().all(|&x| x >= 1) => {
                            k.tile_multiple = Some((g, f.value.span))
                        }
                        _ => {
                            return Err(ctx.cx.error(
                                Code::InvalidSolve,
                                f.value.span,
                                "`tile_multiple` gives each tile dim's granule, the most minor last, as XLA writes a tile: [8, 128]",
                            ));
                        }
                    }
                }
                SolveKey::MinorDim => match ctx.expr(&f.value)? {
                    Value::Int(n) if n >= 0 => k.minor_dim = Some(n as usize),
                    _ => {
                        return Err(ctx.cx.error(
                            Code::InvalidSolve,
                            f.value.span,
                            "`minor_dim` is the dim (0, 1, ...) that must stay most minor",
                        ));
                    }
                },
                SolveKey::Tiles => {
                    let v = ctx.expr(&f.value)?;
                    let parsed: Option<Vec<Vec<Vec<i64>>>> = match &v {
                        Value::List(options) => options
                            .iter()
                            .map(|o| match o {
                                Value::List(levels) => levels.iter().map(int_list).collect(),
                                _ => None,
                            })
                            .collect(),
                        _ => None,
                    };
                    match parsed {
                        Some(t) if !t.is_empty() => k.tiles = t,
                        _ => {
                            return Err(ctx.cx.error(
                                Code::InvalidSolve,
                                f.value.span,
                                "`tiles` lists candidate tilings, each a list of tile levels: [[[8, 128], [2, 1]], [[16, 128], [2, 1]]]",
                            ));
                        }
                    }
                }
            }
            Ok(())
        })();
        failed |= result.is_err();
    }
    if failed { Err(Reported) } else { Ok(k) }
}

/// Evaluates a `solve` block: checks it and runs the search.
pub(crate) fn evaluate(ctx: &mut Ctx, fields: &[Field], whole: Span) -> R<Value> {
    let keys = read_keys(ctx, fields)?;
    match keys.kind.as_ref().map(|(k, _)| k.as_str()) {
        Some("swizzle") => swizzle(ctx, keys, whole),
        Some("tiling") => tiling(ctx, keys, whole),
        _ => Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            "a solve block needs `kind = swizzle` (a shared layout for some accesses) or `kind = tiling` (an XLA TPU layout)",
        )),
    }
}

fn machine(ctx: &mut Ctx, keys: &Keys, whole: Span) -> Machine {
    if let Some((name, _)) = &keys.target
        && let Some(p) = crate::target::preset(name)
    {
        return Machine::from_preset(p);
    }
    ctx.cx.warn_if_default_target(whole);
    ctx.cx.target().machine()
}

fn swizzle(ctx: &mut Ctx, keys: Keys, whole: Span) -> R<Value> {
    if !keys.copies.is_empty() {
        if let Some((_, _, span)) = keys.accesses.first() {
            return Err(ctx.cx.error(
                Code::InvalidSolve,
                *span,
                "a block's accesses are all tensor types or all CuTe tiled copies, not both",
            ));
        }
        let machine = machine(ctx, &keys, whole);
        let target = ctx.cx.target().bank_target();
        let request = cute_copies::Request {
            copies: &keys.copies,
            family: keys.family,
            base: keys.base.as_ref().map(|(l, s)| (l, *s)),
            target: &target,
            machine: &machine.name,
        };
        let value = cute_copies::solve(ctx, request, whole)?;
        if let Value::Solve(s) = &value
            && let SolveKind::Swizzle(w) = &s.kind
        {
            check_recorded(ctx, &keys, &w.notations);
        }
        return Ok(value);
    }
    if keys.accesses.is_empty() {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            "a swizzle needs at least one `write = tensor<...>` or `read = tensor<...>` access",
        ));
    }
    if keys.target.as_ref().is_some_and(|(t, _)| t == "tpu") {
        let span = keys.target.as_ref().map_or(whole, |(_, s)| *s);
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            span,
            "`target = tpu` is for `kind = tiling`; a swizzle's target is a GPU (sm80, sm90, sm100, gfx942, gfx950, gfx1250)",
        ));
    }
    for (key, present) in [
        ("array", keys.array.is_some()),
        ("minor_dim", keys.minor_dim.is_some()),
        ("max_padding", keys.max_padding.is_some()),
        ("tiles", !keys.tiles.is_empty()),
        ("tile_multiple", keys.tile_multiple.is_some()),
        ("min_tile_elements", keys.min_tile_elements.is_some()),
        ("max_tile_elements", keys.max_tile_elements.is_some()),
    ] {
        if present {
            return Err(ctx.cx.error(
                Code::InvalidSolve,
                whole,
                format!("`{key}` belongs to `kind = tiling`, not to a swizzle"),
            ));
        }
    }
    let (_, first, first_span) = &keys.accesses[0];
    let first = first.clone();
    let first_span = *first_span;
    let Some(bits) = first.element_bits else {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            first_span,
            format!("{} has no fixed width in bits", first.element_type),
        ));
    };
    for (_, t, span) in &keys.accesses {
        if t.shape != first.shape || t.element_bits != first.element_bits {
            return Err(ctx.cx.error(
                Code::InvalidSolve,
                *span,
                format!(
                    "every access must be to the same tensor: this is {}x{}, the first is {}x{}",
                    crate::value::shape_text(&t.shape),
                    t.element_type,
                    crate::value::shape_text(&first.shape),
                    first.element_type
                ),
            ));
        }
    }
    if let Some((w, span)) = &keys.weights
        && w.len() != keys.accesses.len()
    {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            *span,
            format!(
                "{} weights for {} accesses: give one per access, in the order written",
                w.len(),
                keys.accesses.len()
            ),
        ));
    }
    let tensor = first.layout.out_dims();
    let mut fixed = Vec::new();
    if let Some((bases, span)) = &keys.fixed {
        for (bit, coordinate) in bases.iter().enumerate() {
            let fits = coordinate.len() == tensor.len()
                && coordinate
                    .iter()
                    .zip(&tensor)
                    .all(|(&c, (_, size))| c >= 0 && (c as u64) < *size)
                && coordinate.iter().any(|&c| c != 0);
            if !fits {
                return Err(ctx.cx.error(
                    Code::InvalidSolve,
                    *span,
                    format!(
                        "fixed offset basis {bit} is {coordinate:?}: a non-zero coordinate of the {} tensor, one entry per dim",
                        crate::value::shape_text(&first.shape)
                    ),
                ));
            }
            let mut word = 0u64;
            let mut shift = 0;
            for (&c, (_, size)) in coordinate.iter().zip(&tensor) {
                word |= (c as u64) << shift;
                shift += size.trailing_zeros();
            }
            // An offset basis that the earlier ones already reach would make
            // two offsets hold one element: no layout has it.
            let earlier: Vec<u64> = fixed.iter().map(|&(_, w)| w).collect();
            if layout_algebra::f2::rank(earlier.iter().copied().chain([word]))
                == earlier.len() as u32
            {
                return Err(ctx.cx.error(
                    Code::InvalidSolve,
                    *span,
                    format!(
                        "fixed offset basis {bit} is {coordinate:?}, which the bases before it already reach (XOR-ing them): the bases of a layout are independent, so no layout has these"
                    ),
                ));
            }
            fixed.push((bit as u32, word));
        }
    }
    let machine = machine(ctx, &keys, whole);
    let family = keys.family.unwrap_or(Family::Linear);
    if let Some((_, span)) = &keys.base
        && family != Family::Cute
    {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            *span,
            "`base` is the base of the cute family; add `family = cute`",
        ));
    }
    let instructions = keys.instructions.unwrap_or(InstructionPolicy::Vector);
    let accesses = keys
        .accesses
        .iter()
        .enumerate()
        .map(|(i, (direction, t, _))| AccessRequest {
            label: format!(
                "{} tensor<{}x{}, {}>",
                if *direction == Direction::Store {
                    "write"
                } else {
                    "read"
                },
                crate::value::shape_text(&t.shape),
                t.element_type,
                t.encoding.kind()
            ),
            direction: *direction,
            layout: t.layout.clone(),
            weight: keys.weights.as_ref().map_or(1, |(w, _)| w[i]),
        })
        .collect();
    let request = SwizzleRequest {
        tensor,
        element_bits: bits,
        accesses,
        family,
        instructions,
        machine: machine.clone(),
        min_vector_bits: keys.min_vector,
        budget_bytes: keys.budget,
        fixed,
        timeout: time_limit(ctx, &keys),
        cute_base: keys.base.as_ref().map(|(l, _)| l.clone()),
    };
    let solution = match crate::cancel::cancellable(ctx.cx.db, |cancel| {
        layout_solve::solve_swizzle(&request, cancel)
    }) {
        Ok(s) => s,
        Err(e) => return Err(ctx.cx.error(Code::InvalidSolve, whole, e.to_string())),
    };
    let answer = match (&solution.candidate, &solution.shared) {
        (Some(c), Some(shared)) => Some(answer_tensor(&first, c, shared, &solution)),
        _ => None,
    };
    let score = solution.score.as_ref();
    let outcome = SwizzleOutcome {
        family,
        instructions,
        machine: machine.name.clone(),
        answer,
        notations: solution.notations.clone(),
        accesses: solution.accesses.clone(),
        read_wavefronts: score.map_or(0, |s| s.read_wavefronts),
        write_wavefronts: score.map_or(0, |s| s.write_wavefronts),
        read_conflicts: score.map_or(0, |s| s.read_conflicts()),
        write_conflicts: score.map_or(0, |s| s.write_conflicts()),
        scratch_bytes: score.map_or(0, |s| s.scratch_bytes),
        lower_bound: solution
            .lower_bound
            .map(|b| (b.write_wavefronts, b.read_wavefronts)),
        baseline: solution
            .baseline
            .as_ref()
            .map(|b| (b.write_wavefronts, b.read_wavefronts)),
    };
    if solution.status == Status::Infeasible {
        ctx.cx.report(Diagnostic::warning(
            Code::NoAnswer,
            whole,
            format!("no answer: {}", solution.why),
        ));
    }
    check_recorded(ctx, &keys, &outcome.notations);
    Ok(Value::Solve(Box::new(SolveOutcome {
        kind: SolveKind::Swizzle(Box::new(outcome)),
        status: solution.status,
        why: solution.why,
        solve_time: SolveTime(solution.elapsed.as_micros() as u64),
    })))
}

/// The answer as a tensor type in shared memory: `#ttg.padded_shared` for
/// padded answers, else `#ttg.shared_linear` with its bases.
fn answer_tensor(
    first: &TensorLayout,
    candidate: &layout_solve::Candidate,
    shared: &layout_algebra::LinearLayout,
    _solution: &layout_solve::SwizzleSolution,
) -> TensorLayout {
    let offset: Vec<Vec<u32>> = shared
        .bases()
        .into_iter()
        .find(|(n, _)| n == "offset")
        .map(|(_, b)| b)
        .unwrap_or_default();
    let encoding = if candidate.padding.is_empty() {
        Encoding::SharedLinear(SharedLinear {
            offset,
            block: Vec::new(),
            alignment: 16,
        })
    } else {
        Encoding::PaddedShared(PaddedShared {
            intervals: candidate.padding.clone(),
            linear: PaddedLinear::Bases {
                offset,
                block: Vec::new(),
            },
        })
    };
    // The encoding's own layout (`offset`, `block` -> dims), so the answer
    // is the same value as its notation pasted back.
    let layout = encoding
        .to_linear_layout(&first.shape)
        .unwrap_or_else(|_| shared.clone());
    TensorLayout {
        shape: first.shape.clone(),
        element_type: first.element_type.clone(),
        element_bits: first.element_bits,
        encoding,
        layout,
    }
}

fn tiling(ctx: &mut Ctx, keys: Keys, whole: Span) -> R<Value> {
    let Some((array, _)) = keys.array.clone() else {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            "a tiling needs `array = xla TYPE[DIMS]`, e.g. array = xla bf16[1000,300]",
        ));
    };
    match &keys.target {
        Some((t, _)) if t == "tpu" => {}
        Some((t, span)) => {
            return Err(ctx.cx.error(
                Code::InvalidSolve,
                *span,
                format!("a tiling is for `target = tpu`, not {t}"),
            ));
        }
        None if keys.tiles.is_empty() && keys.tile_multiple.is_none() => {
            return Err(ctx.cx.error(
                Code::InvalidSolve,
                whole,
                "a tiling needs `target = tpu` (the TPU formats of the element type), candidate `tiles`, or `tile_multiple` to search tile sizes",
            ));
        }
        None => {}
    }
    if let Some((_, _, span)) = keys.accesses.first() {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            *span,
            "`write` / `read` belong to `kind = swizzle`, not to a tiling",
        ));
    }
    if let Some((_, span)) = &keys.tile_multiple
        && !keys.tiles.is_empty()
    {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            *span,
            "`tile_multiple` searches tile sizes and `tiles` lists candidates: give one of them",
        ));
    }
    if keys.tile_multiple.is_none()
        && (keys.min_tile_elements.is_some() || keys.max_tile_elements.is_some())
    {
        return Err(ctx.cx.error(
            Code::InvalidSolve,
            whole,
            "`min_tile_elements` / `max_tile_elements` bound a tile-size search: add `tile_multiple = [8, 128]`",
        ));
    }
    let to_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let request = TilingRequest {
        element_type: array.element_type.clone(),
        dims: array.dims.clone(),
        minor_dim: keys.minor_dim,
        max_padded_bytes: keys.max_padding,
        candidate_tiles: keys.tiles.clone(),
        tile_search: keys.tile_multiple.as_ref().map(|(g, _)| TileSearch {
            multiple: g.clone(),
            min_elements: keys.min_tile_elements.map(to_i64),
            max_elements: keys.max_tile_elements.map(to_i64),
            method: TileMethod::Auto,
        }),
        timeout: time_limit(ctx, &keys),
    };
    let solution = match crate::cancel::cancellable(ctx.cx.db, |cancel| {
        layout_solve::tiling::solve_tiling(&request, cancel)
    }) {
        Ok(s) => s,
        Err(e) => return Err(ctx.cx.error(Code::InvalidSolve, whole, e.to_string())),
    };
    if solution.status == Status::Infeasible {
        ctx.cx.report(Diagnostic::warning(
            Code::NoAnswer,
            whole,
            format!("no answer: {}", solution.why),
        ));
    }
    if let Some(shape) = &solution.shape {
        check_recorded(ctx, &keys, &[("xla".to_string(), shape.to_string())]);
    }
    Ok(Value::Solve(Box::new(SolveOutcome {
        kind: SolveKind::Tiling(Box::new(TilingOutcome {
            answer: solution.shape.clone(),
            candidates: solution.candidates,
        })),
        status: solution.status,
        why: solution.why,
        solve_time: SolveTime(solution.elapsed.as_micros() as u64),
    })))
}

/// What a name bound to a solve block means where it is used: the answer
/// (a shared tensor type, or an XLA shape).
pub(crate) fn as_operand(outcome: &SolveOutcome) -> Option<Value> {
    match &outcome.kind {
        SolveKind::Swizzle(s) => s.answer.clone().map(|t| Value::Tensor(Box::new(t))),
        SolveKind::Tiling(t) => t.answer.clone().map(|x| Value::Xla(Box::new(x))),
    }
}

/// Notation text with spaces and CuTe's static markers (`_8`, `o _0 o`)
/// taken out, so a recorded answer compares with a fresh one.
fn normalised(text: &str) -> String {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    t.replace("o_0o", "o").replace("o0o", "o").replace('_', "")
}

/// A recorded `answer` that is not (any notation of) the answer found now
/// is stale: the accesses or the machine changed since it was written.
fn check_recorded(ctx: &mut Ctx, keys: &Keys, notations: &[(String, String)]) {
    let Some((recorded, span)) = &keys.answer else {
        return;
    };
    let written = normalised(&recorded.to_string());
    if notations.iter().any(|(_, n)| normalised(n) == written) {
        return;
    }
    let now = notations
        .first()
        .map_or("no answer".to_string(), |(_, n)| n.clone());
    ctx.cx.report(
        Diagnostic::warning(
            Code::StaleAnswer,
            *span,
            format!("the recorded answer is not the solver's answer now, which is {now}"),
        )
        .with_note("run `layoutc solve --write` to record the new answer"),
    );
}
