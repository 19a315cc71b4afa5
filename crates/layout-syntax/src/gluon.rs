//! Gluon's spelling of Triton's layouts: the Python objects of
//! `triton.experimental.gluon.language` as their `repr` prints them, or as
//! a kernel constructs them (`ttgl.BlockedLayout([1, 4], [8, 4], [4, 1],
//! [1, 0])`). Each class is the `#ttg` attribute Gluon lowers it to (its
//! `_to_ir`), so `gluon BlockedLayout(...)` reads into the same
//! [`TritonAttribute`] as `#ttg.blocked<{...}>`, with spans on the Python
//! text, and everything downstream is shared.

use crate::ast::{
    AttrEntry, AttrValue, AttrValueKind, Ident, PaddingInterval, Span, TritonAttribute,
};

/// A Python value of a Gluon constructor.
#[derive(Clone, Debug, PartialEq)]
pub enum PyValue {
    Int(i64),
    Bool(bool),
    None,
    List(Vec<(PyValue, Span)>),
    Call(PyCall),
}

/// `BlockedLayout(size_per_thread=[1, 4], ...)`; the class is the last part
/// of a dotted name (`ttgl.amd.AMDMFMALayout`).
#[derive(Clone, Debug, PartialEq)]
pub struct PyCall {
    pub class: Ident,
    pub args: Vec<PyArg>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PyArg {
    pub name: Option<Ident>,
    pub value: PyValue,
    pub span: Span,
}

/// How a field of a Gluon class becomes attribute text.
#[derive(Clone, Copy)]
enum Field {
    /// `size_per_thread` -> `sizePerThread`, value as it is; an empty list
    /// or `None` is left out (the attribute's default).
    Key(&'static str),
    /// As `Key`, but an empty list is written too (the attribute needs it).
    Always(&'static str),
    /// `version=[3, 0]` -> `versionMajor = 3, versionMinor = 0`.
    MajorMinor,
    /// `interval_padding_pairs=[[32, 4]]` -> `[32:+4]`.
    Padding,
    /// AMD WMMA's `reg_bases` / `warp_bases` -> `ctaLayout = {register =
    /// ..., warp = ...}`.
    CtaLayout(&'static str),
    /// Read and checked by Gluon only (a `DistributedLinearLayout`'s or a
    /// `PaddedSharedLayout`'s shape is the tensor's).
    Ignored,
}

/// A Gluon layout class: the attribute kind it lowers to and its fields in
/// the dataclass's order (positional arguments follow it).
struct Class {
    name: &'static str,
    kind: &'static str,
    fields: &'static [(&'static str, Field)],
}

use Field::*;

const CLASSES: &[Class] = &[
    Class {
        name: "BlockedLayout",
        kind: "blocked",
        fields: &[
            ("size_per_thread", Key("sizePerThread")),
            ("threads_per_warp", Key("threadsPerWarp")),
            ("warps_per_cta", Key("warpsPerCTA")),
            ("order", Key("order")),
            ("cga_layout", Key("CGALayout")),
        ],
    },
    Class {
        name: "SliceLayout",
        kind: "slice",
        fields: &[("dim", Key("dim")), ("parent", Key("parent"))],
    },
    Class {
        name: "DistributedLinearLayout",
        kind: "linear",
        fields: &[
            ("reg_bases", Key("register")),
            ("lane_bases", Key("lane")),
            ("warp_bases", Key("warp")),
            ("block_bases", Key("block")),
            ("shape", Ignored),
        ],
    },
    Class {
        name: "DotOperandLayout",
        kind: "dot_op",
        fields: &[
            ("operand_index", Key("opIdx")),
            ("parent", Key("parent")),
            ("k_width", Key("kWidth")),
        ],
    },
    Class {
        name: "NVMMADistributedLayout",
        kind: "nvidia_mma",
        fields: &[
            ("version", MajorMinor),
            ("warps_per_cta", Key("warpsPerCTA")),
            ("instr_shape", Key("instrShape")),
            ("cga_layout", Key("CGALayout")),
        ],
    },
    Class {
        name: "AMDMFMALayout",
        kind: "amd_mfma",
        fields: &[
            ("version", Key("version")),
            ("instr_shape", Key("instrShape")),
            ("transposed", Key("isTransposed")),
            ("warps_per_cta", Key("warpsPerCTA")),
            ("element_bitwidth", Key("elementBitWidth")),
            ("tiles_per_warp", Key("tilesPerWarp")),
            ("cga_layout", Key("CGALayout")),
        ],
    },
    Class {
        name: "AMDWMMALayout",
        kind: "amd_wmma",
        fields: &[
            ("version", Key("version")),
            ("transposed", Key("isTransposed")),
            ("warp_bases", CtaLayout("warp")),
            ("reg_bases", CtaLayout("register")),
            ("instr_shape", Key("instrShape")),
            ("cga_layout", Key("CGALayout")),
            ("rank", Key("rank")),
        ],
    },
    Class {
        name: "SwizzledSharedLayout",
        kind: "swizzled_shared",
        fields: &[
            ("vec", Key("vec")),
            ("per_phase", Key("perPhase")),
            ("max_phase", Key("maxPhase")),
            ("order", Key("order")),
            ("cga_layout", Key("CGALayout")),
        ],
    },
    Class {
        name: "NVMMASharedLayout",
        kind: "nvmma_shared",
        fields: &[
            ("swizzle_byte_width", Key("swizzlingByteWidth")),
            ("element_bitwidth", Key("elementBitWidth")),
            ("rank", Key("rank")),
            ("transposed", Key("transposed")),
            ("fp4_padded", Key("fp4Padded")),
            ("cga_layout", Key("CGALayout")),
        ],
    },
    Class {
        name: "SharedLinearLayout",
        kind: "shared_linear",
        fields: &[
            ("offset_bases", Key("offset")),
            ("block_bases", Key("block")),
            ("alignment", Key("alignment")),
        ],
    },
    Class {
        name: "PaddedSharedLayout",
        kind: "padded_shared",
        fields: &[
            ("interval_padding_pairs", Padding),
            ("offset_bases", Key("offset")),
            ("cga_layout", Always("block")),
            // The printed attribute has either order and shape, or the
            // offset bases (Gluon's form) alone.
            ("shape", Ignored),
        ],
    },
];

/// Classes that are no layout until the compiler picks one.
const UNRESOLVED: &[&str] = &["AutoLayout", "CoalescedLayout"];

/// The Gluon class names layoutc reads.
pub fn class_names() -> impl Iterator<Item = &'static str> {
    CLASSES.iter().map(|c| c.name)
}

/// The attribute a Gluon constructor lowers to, or the span and message of
/// what is wrong with it.
pub fn to_attribute(call: &PyCall) -> Result<TritonAttribute, (Span, String)> {
    let name = call.class.name.as_str();
    let Some(class) = CLASSES.iter().find(|c| c.name == name) else {
        let why = if UNRESOLVED.contains(&name) {
            format!("`{name}` is no layout until the compiler picks one; write the layout it picks")
        } else {
            format!(
                "`{name}` is not a Gluon layout class layoutc reads (it reads {})",
                CLASSES
                    .iter()
                    .map(|c| c.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err((call.class.span, why));
    };
    // Each field's value, positional or named.
    let mut given: Vec<Option<&PyArg>> = vec![None; class.fields.len()];
    let mut positional = 0;
    for arg in &call.args {
        let at = match &arg.name {
            None => {
                if positional >= class.fields.len() {
                    return Err((
                        arg.span,
                        format!("{name} takes {} fields", class.fields.len()),
                    ));
                }
                positional += 1;
                positional - 1
            }
            Some(n) => class
                .fields
                .iter()
                .position(|(f, _)| *f == n.name)
                .ok_or_else(|| {
                    let fields: Vec<&str> = class.fields.iter().map(|(f, _)| *f).collect();
                    (
                        n.span,
                        format!(
                            "{name} has no field `{}` (its fields are {})",
                            n.name,
                            fields.join(", ")
                        ),
                    )
                })?,
        };
        if given[at].is_some() {
            return Err((arg.span, format!("`{}` is given twice", class.fields[at].0)));
        }
        given[at] = Some(arg);
    }
    let mut entries = Vec::new();
    let mut padding = Vec::new();
    let mut cta_layout: Vec<AttrEntry> = Vec::new();
    let mut cta_span: Option<Span> = None;
    for ((field, how), arg) in class.fields.iter().zip(given) {
        let Some(arg) = arg else { continue };
        let span = value_span(arg);
        if matches!(how, CtaLayout(_)) && matches!(arg.value, PyValue::None) {
            continue;
        }
        let absent = matches!(arg.value, PyValue::None)
            || matches!(&arg.value, PyValue::List(items) if items.is_empty());
        match how {
            Ignored => {}
            // An empty placement is still one (one warp, no repetition).
            _ if absent && !matches!(how, CtaLayout(_) | Always(_)) => {}
            Key(key) | Always(key) => entries.push(AttrEntry {
                key: Ident {
                    name: key.to_string(),
                    span: arg.name.as_ref().map_or(span, |n| n.span),
                },
                value: attr_value(&arg.value, span)?,
            }),
            MajorMinor => {
                let PyValue::List(parts) = &arg.value else {
                    return Err((span, format!("`{field}` is [major, minor]")));
                };
                for ((part, at), key) in parts.iter().zip(["versionMajor", "versionMinor"]) {
                    entries.push(AttrEntry {
                        key: Ident {
                            name: key.to_string(),
                            span: *at,
                        },
                        value: attr_value(part, *at)?,
                    });
                }
            }
            Padding => {
                let PyValue::List(pairs) = &arg.value else {
                    return Err((span, format!("`{field}` is [[interval, padding], ...]")));
                };
                for (pair, at) in pairs {
                    match pair {
                        PyValue::List(p) if p.len() == 2 => match (&p[0].0, &p[1].0) {
                            (PyValue::Int(interval), PyValue::Int(pad)) => {
                                padding.push(PaddingInterval {
                                    interval: *interval,
                                    padding: *pad,
                                    span: *at,
                                })
                            }
                            _ => {
                                return Err((*at, "an interval and a padding are integers".into()));
                            }
                        },
                        _ => return Err((*at, "each pair is [interval, padding]".into())),
                    }
                }
            }
            CtaLayout(key) => {
                cta_span = Some(cta_span.map_or(span, |s: Span| s.to(span)));
                cta_layout.push(AttrEntry {
                    key: Ident {
                        name: key.to_string(),
                        span,
                    },
                    value: attr_value(&arg.value, span)?,
                });
            }
        }
    }
    if let Some(span) = cta_span {
        entries.push(AttrEntry {
            key: Ident {
                name: "ctaLayout".into(),
                span,
            },
            value: AttrValue {
                kind: AttrValueKind::Dict(cta_layout),
                span,
            },
        });
    }
    Ok(TritonAttribute {
        dialect: "ttg".into(),
        kind: Ident {
            name: class.kind.into(),
            span: call.class.span,
        },
        entries,
        padding,
    })
}

/// The Gluon constructor that lowers to `attr`, as a kernel writes it
/// (`ttgl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8,
/// order=[1, 0])`): the inverse of [`to_attribute`]. `None` for a kind
/// Gluon has no class for, or an attribute that names an alias.
pub fn constructor_text(attr: &TritonAttribute) -> Option<String> {
    let class = CLASSES.iter().find(|c| c.kind == attr.kind.name)?;
    let value = |key: &str| attr.get(key).map(|e| &e.value);
    let mut args = Vec::new();
    for (field, how) in class.fields {
        let text = match how {
            Ignored => continue,
            Key(key) | Always(key) => match value(key) {
                Some(v) => python(v)?,
                None => continue,
            },
            MajorMinor => {
                let major = python(value("versionMajor")?)?;
                let minor = value("versionMinor").map_or(Some("0".into()), python)?;
                format!("[{major}, {minor}]")
            }
            Padding => {
                let pairs: Vec<String> = attr
                    .padding
                    .iter()
                    .map(|p| format!("[{}, {}]", p.interval, p.padding))
                    .collect();
                format!("[{}]", pairs.join(", "))
            }
            CtaLayout(part) => match value("ctaLayout").map(|v| &v.kind) {
                Some(AttrValueKind::Dict(entries)) => {
                    match entries.iter().find(|e| e.key.name == *part) {
                        Some(e) => python(&e.value)?,
                        None => "[]".into(),
                    }
                }
                _ => continue,
            },
        };
        args.push(format!("{field}={text}"));
    }
    let module = if class.kind.starts_with("amd_") {
        "ttgl.amd."
    } else {
        "ttgl."
    };
    Some(format!("{module}{}({})", class.name, args.join(", ")))
}

/// A value as Python writes it.
fn python(v: &AttrValue) -> Option<String> {
    Some(match &v.kind {
        AttrValueKind::Int(n) => n.to_string(),
        AttrValueKind::Bool(true) => "True".into(),
        AttrValueKind::Bool(false) => "False".into(),
        AttrValueKind::List(items) => format!(
            "[{}]",
            items
                .iter()
                .map(python)
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
        AttrValueKind::Attribute(a) => constructor_text(a)?,
        _ => return None,
    })
}

fn value_span(arg: &PyArg) -> Span {
    match &arg.value {
        PyValue::Call(c) => c.span,
        _ => arg.span,
    }
}

fn attr_value(v: &PyValue, span: Span) -> Result<AttrValue, (Span, String)> {
    let kind = match v {
        PyValue::Int(n) => AttrValueKind::Int(*n),
        PyValue::Bool(b) => AttrValueKind::Bool(*b),
        PyValue::None => AttrValueKind::Error,
        PyValue::List(items) => AttrValueKind::List(
            items
                .iter()
                .map(|(item, at)| attr_value(item, *at))
                .collect::<Result<_, _>>()?,
        ),
        PyValue::Call(call) => AttrValueKind::Attribute(Box::new(to_attribute(call)?)),
    };
    Ok(AttrValue { kind, span })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute_text(text: &str) -> String {
        let parsed = crate::parse(&format!("layout x = gluon {text}\n"));
        assert!(parsed.errors.is_empty(), "{text}: {:?}", parsed.errors);
        let item = parsed.items.into_iter().next().unwrap();
        let crate::ItemKind::Layout { value, .. } = item.kind else {
            panic!("not a layout")
        };
        let crate::ExprKind::Attribute(a) = value.kind else {
            panic!("not an attribute: {value:?}")
        };
        let keys: Vec<String> = a.entries.iter().map(|e| e.key.name.clone()).collect();
        format!("{} {}", a.kind.name, keys.join(","))
    }

    #[test]
    fn each_class_reads_as_its_attribute() {
        for (text, expected) in [
            (
                "BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0], cga_layout=[])",
                "blocked sizePerThread,threadsPerWarp,warpsPerCTA,order",
            ),
            (
                "ttgl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0])",
                "blocked sizePerThread,threadsPerWarp,warpsPerCTA,order",
            ),
            (
                "SliceLayout(dim=0, parent=BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[4, 1], order=[1, 0], cga_layout=[[1, 0]]))",
                "slice dim,parent",
            ),
            (
                "NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16], cga_layout=[])",
                "nvidia_mma versionMajor,versionMinor,warpsPerCTA,instrShape",
            ),
            (
                "ttgl.amd.AMDWMMALayout(version=2, transposed=True, warp_bases=[[1, 0]], reg_bases=[], instr_shape=[16, 16, 16], cga_layout=[], rank=2)",
                "amd_wmma version,isTransposed,instrShape,rank,ctaLayout",
            ),
            (
                "PaddedSharedLayout(interval_padding_pairs=[[32, 4]], offset_bases=[[0, 1], [1, 0]], cga_layout=[], shape=[2, 2])",
                "padded_shared offset,block",
            ),
        ] {
            assert_eq!(attribute_text(text), expected, "{text}");
        }
    }

    /// Written back as a constructor, an attribute reads as itself.
    #[test]
    fn constructor_text_is_the_inverse() {
        for ttgir in [
            "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
            "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
            "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
            "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>",
            "#ttg.padded_shared<[32:+4] {offset = [[0, 1], [1, 0]], block = []}>",
            "#ttg.amd_wmma<{version = 2, isTransposed = true, ctaLayout = {register = [], warp = [[1, 0]]}}>",
        ] {
            let parsed = crate::parse(&format!("layout x = {ttgir}\n"));
            let crate::ItemKind::Layout { value, .. } = &parsed.items[0].kind else {
                panic!("{ttgir}: {:?}", parsed.errors)
            };
            let crate::ExprKind::Attribute(a) = &value.kind else {
                panic!("{ttgir}")
            };
            let text = constructor_text(a).unwrap();
            let again = crate::parse(&format!("layout x = gluon {text}\n"));
            assert!(again.errors.is_empty(), "{text}: {:?}", again.errors);
            let crate::ItemKind::Layout { value: back, .. } = &again.items[0].kind else {
                panic!("{text}")
            };
            let crate::ExprKind::Attribute(b) = &back.kind else {
                panic!("{text}")
            };
            let keys = |a: &TritonAttribute| -> Vec<(String, String)> {
                let mut k: Vec<(String, String)> = a
                    .entries
                    .iter()
                    .map(|e| (e.key.name.clone(), python(&e.value).unwrap_or_default()))
                    .collect();
                k.sort();
                k
            };
            assert_eq!(a.kind.name, b.kind.name, "{text}");
            assert_eq!(keys(a), keys(b), "{ttgir} -> {text}");
        }
    }

    #[test]
    fn what_is_no_layout_says_why() {
        for (text, message) in [
            ("AutoLayout()", "no layout until the compiler picks one"),
            (
                "BlockLayout([1], [32], [4], [0])",
                "not a Gluon layout class",
            ),
            (
                "BlockedLayout([1], [32], [4], [0], [], [1])",
                "takes 5 fields",
            ),
            (
                "BlockedLayout(size_per_thred=[1])",
                "has no field `size_per_thred`",
            ),
        ] {
            let parsed = crate::parse(&format!("layout x = gluon {text}\n"));
            assert!(
                parsed.errors.iter().any(|e| e.message.contains(message)),
                "{text}: {:?}",
                parsed.errors
            );
        }
    }
}
