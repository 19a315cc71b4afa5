//! Parser fixtures: a `.lay` text in, the items or errors out (expect-test;
//! `UPDATE_EXPECT=1` refreshes).

use expect_test::{Expect, expect};
use layout_syntax::{ExprKind, ItemKind, parse};

/// A compact rendering of the items: kind, name and a sketch of the value.
fn summary(src: &str) -> String {
    let p = parse(src);
    let mut out = String::new();
    for item in &p.items {
        let line = match &item.kind {
            ItemKind::Alias { name, value } => {
                format!("alias #{} = {}", name.name, sketch(&value.kind))
            }
            ItemKind::Module { attributes, .. } => format!(
                "module {}",
                attributes
                    .iter()
                    .map(|a| format!("{}={:?}", a.key, a.value))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            ItemKind::Layout { name, value } => {
                format!("layout {} = {}", name.name, sketch(&value.kind))
            }
            ItemKind::Let { name, value } => format!("let {} = {}", name.name, sketch(&value.kind)),
            ItemKind::Check { expr } => format!("check {}", sketch(&expr.kind)),
            ItemKind::Convert {
                name,
                operation,
                src,
                dst,
            } => format!(
                "convert {} = {}{} -> {}",
                name.name,
                operation.map_or(String::new(), |o| format!("[{}..{}] ", o.start, o.end)),
                sketch(&src.kind),
                sketch(&dst.kind)
            ),
            ItemKind::Solve { name, fields } => format!(
                "solve {} {{{}}}",
                name.name,
                fields
                    .iter()
                    .map(|f| f.key.name.clone())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            ItemKind::Target {
                name,
                preset,
                fields,
            } => format!(
                "target {:?} {:?} {}",
                name.as_ref().map(|n| &n.name),
                preset.as_ref().map(|n| &n.name),
                fields.len()
            ),
            ItemKind::MemoryOp {
                name, op, from, to, ..
            } => format!(
                "{} {} : {} -> {}",
                name.as_ref().map_or("_", |n| n.name.as_str()),
                op.mlir_name(),
                from.as_ref().map_or("()".to_string(), |f| sketch(&f.kind)),
                sketch(&to.kind)
            ),
            ItemKind::Operation { results, op } => format!(
                "op {} = {}",
                results
                    .iter()
                    .map(|r| r.name.clone())
                    .collect::<Vec<_>>()
                    .join(","),
                op.name
            ),
            ItemKind::Error => "<error>".to_string(),
        };
        let loc = item
            .location
            .as_ref()
            .map_or(String::new(), |l| format!(" @ {l:?}"));
        out += &format!("{}..{} {line}{loc}\n", item.span.start, item.span.end);
    }
    for e in &p.errors {
        out += &format!("error {}..{}: {}\n", e.span.start, e.span.end, e.message);
    }
    out
}

fn sketch(e: &ExprKind) -> String {
    match e {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Name(n) => n.clone(),
        ExprKind::Underscore => "_".into(),
        ExprKind::AliasRef(n) => format!("#{n}"),
        ExprKind::Tuple(a) => format!(
            "({})",
            a.iter()
                .map(|a| match &a.name {
                    Some(n) => format!("{}={}", n.name, sketch(&a.value.kind)),
                    None => sketch(&a.value.kind),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::List(v) => format!(
            "[{}]",
            v.iter()
                .map(|x| sketch(&x.kind))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Call { callee, args } => format!(
            "{}({})",
            sketch(&callee.kind),
            args.iter()
                .map(|a| match &a.name {
                    Some(n) => format!("{}={}", n.name, sketch(&a.value.kind)),
                    None => sketch(&a.value.kind),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Binary { op, lhs, rhs } => format!(
            "({} {} {})",
            sketch(&lhs.kind),
            op.symbol(),
            sketch(&rhs.kind)
        ),
        ExprKind::Neg(x) => format!("-{}", sketch(&x.kind)),
        ExprKind::Not(x) => format!("not {}", sketch(&x.kind)),
        ExprKind::Attribute(a) => format!(
            "#{}.{}<{}>",
            a.dialect,
            a.kind.name,
            a.entries
                .iter()
                .map(|e| e.key.name.clone())
                .collect::<Vec<_>>()
                .join(",")
        ),
        ExprKind::Cute(t) => format!("cute[{t}]"),
        ExprKind::Xla(t) => format!("xla[{t}]"),
        ExprKind::Tiler(t) => format!("tiler[{t}]"),
        ExprKind::Tensor(t) => format!(
            "tensor<{:?} {}{}>",
            t.dims,
            t.element_type,
            t.encoding
                .as_ref()
                .map(|e| format!(", {}", sketch(&e.kind)))
                .unwrap_or_default()
        ),
        ExprKind::Linear { ins, outs } => format!(
            "linear{{{}}} -> [{}]",
            ins.iter()
                .map(|(n, b)| format!("{}:{:?}", n.name, b))
                .collect::<Vec<_>>()
                .join(", "),
            outs.iter()
                .map(|(n, s)| format!("{}:{s}", n.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::MemDesc(m) => format!(
            "memdesc<{:?} {}, {}{}{}{}>",
            m.dims,
            m.element_type,
            sketch(&m.encoding.kind),
            m.memory_space
                .as_ref()
                .map(|e| format!(", {}", sketch(&e.kind)))
                .unwrap_or_default(),
            if m.mutable { ", mutable" } else { "" },
            m.alloc_shape
                .as_ref()
                .map(|a| format!(", alloc {a:?}"))
                .unwrap_or_default()
        ),
        ExprKind::Location(l) => format!("loc[{l:?}]"),
        ExprKind::Error => "<error>".into(),
    }
}

fn check(src: &str, expected: Expect) {
    expected.assert_eq(&summary(src));
}

#[test]
fn triton_aliases_module_attributes_and_tensors() {
    check(
        r#"// a Triton matmul's layouts
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32}
layout a = tensor<64x64xf16, #blocked>
layout b = tensor<128x32xbf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
"#,
        expect![[r#"
            29..142 alias #blocked = #ttg.blocked<sizePerThread,threadsPerWarp,warpsPerCTA,order>
            143..254 alias #mma = #triton_gpu.nvidia_mma<versionMajor,versionMinor,warpsPerCTA,instrShape>
            255..313 alias #dot = #ttg.dot_op<opIdx,parent,kWidth>
            314..394 module ttg.num-warps=Int(4, Some("i32")) ttg.threads-per-warp=Int(32, Some("i32"))
            395..433 layout a = tensor<[64, 64] f16, #blocked>
            434..541 layout b = tensor<[128, 32] bf16, #ttg.swizzled_shared<vec,perPhase,maxPhase,order>>
        "#]],
    );
}

#[test]
fn cute_xla_tilers_and_linear_literals() {
    check(
        r#"layout t = cute ((4,2),4):((8,4),1)
layout s = cute Sw<3,4,3> o (8,64):(64,1)
layout z = cute Sw<3,3,3> o 0 o (8,64):(64,1)
layout n = cute (4,2):(-1,-4)
layout x = xla bf16[256,128]{1,0:T(8,128)(2,1)}
layout p = xla pred[8,8,8]{0,2,1:T(8,128)E(32)}
layout r = xla f32[]{:T(128)}
layout d = logical_divide(cute (9,(4,8)):(59,(13,1)), <3:3, (2,4):(1,8)>)
layout c = composition(cute (12,(4,8)):(59,(13,1)), <3, _>)
layout l = linear { register: [[0, 1], [0, 2]], lane: [[1, 0]] } -> [dim0: 2, dim1: 4]
"#,
        expect![[r#"
            0..35 layout t = cute[((4,2),4):((8,4),1)]
            36..77 layout s = cute[Sw<3,4,3> o (8,64):(64,1)]
            78..123 layout z = cute[Sw<3,3,3> o 0 o (8,64):(64,1)]
            124..153 layout n = cute[(4,2):(-1,-4)]
            154..201 layout x = xla[bf16[256,128]{1,0:T(8,128)(2,1)}]
            202..249 layout p = xla[pred[8,8,8]{0,2,1:T(8,128)E(32)}]
            250..279 layout r = xla[f32[]{:T(128)}]
            280..353 layout d = logical_divide(cute[(9,(4,8)):(59,(13,1))], tiler[<3:3, (2,4):(1,8)>])
            354..413 layout c = composition(cute[(12,(4,8)):(59,(13,1))], tiler[<3, _>])
            414..500 layout l = linear{register:[[0, 1], [0, 2]], lane:[[1, 0]]} -> [dim0:2, dim1:4]
        "#]],
    );
}

#[test]
fn checks_applications_arithmetic_and_blocks() {
    check(
        r#"let n = 2 * (3 + 4) - -1
check blk(register = 1, lane = 3) == (dim0 = 0, dim1 = 25)
check bank_conflicts(a, s, 16) == 0
target sm90 { arch = "sm90", warp_size = 32 }
target = sm80
solve smem {
  kind = swizzle
  write = tensor<128x128xf16, #blocked>
  read = tensor<128x128xf16, #dot_a>
  family = linear
}
"#,
        expect![[r#"
            0..24 let n = ((2 * (3 + 4)) - -1)
            25..83 check (blk(register=1, lane=3) == (dim0=0, dim1=25))
            84..119 check (bank_conflicts(a, s, 16) == 0)
            120..165 target Some("sm90") None 2
            166..179 target None Some("sm80") 0
            180..306 solve smem {kind,write,read,family}
        "#]],
    );
}

#[test]
fn one_typo_gives_one_error_and_the_rest_still_parses() {
    check(
        r#"layout a = cute (4,8):(1,4)
layout b = composition(cute 4:1, cute 8:1
check 1 + 2 == 3
layout c = identity_1d(4, "i", "o")
"#,
        expect![[r#"
            0..27 layout a = cute[(4,8):(1,4)]
            28..69 <error>
            70..86 check ((1 + 2) == 3)
            87..122 layout c = identity_1d(4, "i", "o")
            error 69..69: expected '(' or ')' or ',' or '@' or 'o', found the end of the declaration
        "#]],
    );
}

#[test]
fn bad_characters_are_reported_and_skipped() {
    check(
        "layout a = 1 $ 2\nlet b = 3\n",
        expect![[r#"
            0..16 <error>
            17..26 let b = 3
            error 13..14: unexpected character '$'
        "#]],
    );
}

#[test]
fn convert_declarations_with_and_without_the_ttgir_operation() {
    // `convert(...)` at the start of a continuation line is a call, not an
    // item: only `convert NAME =` starts one.
    check(
        "convert t = tensor<64x64xf16, #rows> -> tensor<64x64xf16, #cols>\n\
         convert e = ttg.convert_layout %41 : tensor<16x16xf32, #mma> -> tensor<16x16xf32, #ttg.blocked<{order = [1, 0]}>>\n\
         layout c =\n  convert(tensor<8xf16, #a>, tensor<8xf16, #b>)\n\
         convert bad = tensor<8xf16, #a>\n",
        expect![[r#"
            0..64 convert t = tensor<[64, 64] f16, #rows> -> tensor<[64, 64] f16, #cols>
            65..178 convert e = [77..101] tensor<[16, 16] f32, #mma> -> tensor<[16, 16] f32, #ttg.blocked<order>>
            179..237 layout c = convert(tensor<[8] f16, #a>, tensor<[8] f16, #b>)
            238..269 <error>
            error 269..269: expected '(' or '->', found the end of the declaration
        "#]],
    );
}
