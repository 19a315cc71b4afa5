//! The three grammars agree on every example and on every real TTGIR dump
//! of tests/corpus/ttgir: the parser of layoutc (crates/layout-syntax), the
//! tree-sitter grammar and the TextMate grammar find the same items, with the
//! same kinds and names, and all three know the keywords of grammar/lay.ebnf.

use std::collections::BTreeSet;
use std::path::Path;

use tree_sitter::{Node, Parser};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// `(path, text)` of the files in `dir` (relative to the repository) whose
/// names end with `.extension`.
fn files_in(dir: &str, extension: &str) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .{extension} files in {dir}");
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

/// The example files, then the real TTGIR dumps pasted as they are.
fn examples() -> Vec<(String, String)> {
    let mut files = files_in("examples", "lay");
    let dumps = files_in("tests/corpus/ttgir", "ttgir");
    assert!(
        dumps.len() >= 27,
        "the TTGIR corpus has {} dumps",
        dumps.len()
    );
    files.extend(dumps);
    files
}

fn parser() -> Parser {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_lay::LANGUAGE.into()).unwrap();
    p
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    node.children(&mut cursor).find_map(first_error)
}

/// `(start byte, kind, name)` of every item, as layoutc's parser sees them,
/// with tree-sitter's names for the kinds: `alias` for `#name =`,
/// `block_label` for `^bb0(...)`, `operation` for a pasted MLIR operation
/// (the outline's keyword is `%` when the line starts with its results,
/// otherwise the operation's dialect, `tt` in `tt.func`, or its quoted name,
/// `"tt.reduce"`). Only the operations layoutc analyses name their result.
fn layoutc_items(text: &str) -> Vec<(usize, String, Option<String>)> {
    let is_item_word =
        |k: &str| k == "convert" || layout_syntax::parser::ITEM_KEYWORDS.contains(&k);
    let dialect = regex::Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*\s*\.\s*[A-Za-z_]").unwrap();
    layout_syntax::outline(text)
        .into_iter()
        .map(|i| {
            let at = &text[i.range.start..];
            let kind = match i.keyword.as_str() {
                "#" => "alias".to_string(),
                "^" => "block_label".to_string(),
                "%" => "operation".to_string(),
                k if k.starts_with('"') && k.contains('.') => "operation".to_string(),
                k if !is_item_word(k) && at.starts_with(k) && dialect.is_match(at) => {
                    "operation".to_string()
                }
                _ => i.keyword,
            };
            (i.range.start, kind, i.name)
        })
        .collect()
}

fn tree_sitter_items(text: &str) -> Vec<(usize, String, Option<String>)> {
    let tree = parser().parse(text, None).unwrap();
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .map(|n| {
            let name = n.child_by_field_name("name").map(|x| {
                let s = &text[x.byte_range()];
                if n.kind() == "alias" {
                    format!("#{s}")
                } else {
                    s.to_string()
                }
            });
            (n.start_byte(), n.kind().to_string(), name)
        })
        .collect()
}

/// Lines (0-based) on which the TextMate grammar's item-start rules match.
fn textmate_item_lines(text: &str) -> BTreeSet<usize> {
    let g: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("grammar/lay.tmLanguage.json")).unwrap(),
    )
    .unwrap();
    let patterns: Vec<regex::Regex> = g["repository"]["item-start"]["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| regex::Regex::new(p["match"].as_str().unwrap()).unwrap())
        .collect();
    text.lines()
        .enumerate()
        .filter(|(_, l)| patterns.iter().any(|r| r.is_match(l)))
        .map(|(i, _)| i)
        .collect()
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count()
}

/// The three grammars read `text` alike: layoutc and tree-sitter parse it
/// without errors, and all three find the same items.
fn assert_agree(path: &str, text: &str) {
    if let Some(e) = layout_syntax::parse(text).errors.first() {
        panic!(
            "{path}: layoutc error at line {}: {}",
            line_of(text, e.span.start) + 1,
            e.message
        );
    }
    let tree = parser().parse(text, None).unwrap();
    if let Some(e) = first_error(tree.root_node()) {
        panic!(
            "{path}: tree-sitter error at line {}: {:?}",
            e.start_position().row + 1,
            &text[e.byte_range()]
        );
    }
    let ours = layoutc_items(text);
    if let Some(d) = first_difference(text, &ours, &tree_sitter_items(text)) {
        panic!("{path}: layoutc vs tree-sitter: {d}");
    }
    let lines: BTreeSet<usize> = ours.iter().map(|(s, _, _)| line_of(text, *s)).collect();
    let textmate = textmate_item_lines(text);
    if let Some(l) = lines.symmetric_difference(&textmate).next() {
        panic!(
            "{path}: line {} starts an item for {}",
            l + 1,
            if lines.contains(l) {
                "layoutc only"
            } else {
                "TextMate only"
            }
        );
    }
}

/// Where two lists of items first differ, by line (1-based), or `None`.
fn first_difference(
    text: &str,
    ours: &[(usize, String, Option<String>)],
    theirs: &[(usize, String, Option<String>)],
) -> Option<String> {
    let at = |i: Option<&(usize, String, Option<String>)>| match i {
        Some((s, k, n)) => format!("line {}: {k} {n:?}", line_of(text, *s) + 1),
        None => "nothing".to_string(),
    };
    (0..ours.len().max(theirs.len()))
        .find(|&i| ours.get(i) != theirs.get(i))
        .map(|i| format!("{} vs {}", at(ours.get(i)), at(theirs.get(i))))
}

#[test]
fn the_three_grammars_read_every_example_and_ttgir_dump_alike() {
    for (path, text) in examples() {
        assert_agree(&path, &text);
    }
}

#[test]
fn every_keyword_of_the_ebnf_is_known_to_the_other_grammars() {
    let ebnf = std::fs::read_to_string(repo().join("grammar/lay.ebnf")).unwrap();
    let grammar_js =
        std::fs::read_to_string(repo().join("grammar/tree-sitter-lay/grammar.js")).unwrap();
    let textmate = std::fs::read_to_string(repo().join("grammar/lay.tmLanguage.json")).unwrap();
    let words = regex::Regex::new(r#""([A-Za-z_][A-Za-z0-9_]*)""#).unwrap();
    let keywords: BTreeSet<&str> = words
        .captures_iter(&ebnf)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert!(keywords.len() >= 15, "{keywords:?}");
    for k in &keywords {
        // `x` joins tensor dims inside the tensor_shape token.
        if *k != "x" {
            assert!(
                grammar_js.contains(&format!("'{k}'")),
                "grammar.js lacks {k}"
            );
        }
        // Words that only occur inside pasted notations are not highlighted.
        if !["Sw", "o", "smem_ptr", "ttg", "triton_gpu", "x"].contains(k) {
            assert!(textmate.contains(k), "the TextMate grammar lacks {k}");
        }
    }
}

#[test]
fn the_grammars_agree_on_conversions_and_convert_calls() {
    // `convert NAME =` starts an item; `convert(` on a continuation line is a
    // call inside the item above.
    let text = "#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n\
                convert t = tensor<128xf16, #a> -> tensor<128xf16, #a>\n\
                convert e = ttg.convert_layout %41 : tensor<128xf16, #a> -> tensor<128xf16, #a>\n\
                layout c =\n  convert(tensor<128xf16, #a>, tensor<128xf16, #a>)\n\
                check kind(c) == \"noop\"\n";
    assert_agree("conversions", text);
    assert_eq!(
        layoutc_items(text)
            .iter()
            .map(|(_, k, _)| k.as_str())
            .collect::<Vec<_>>(),
        ["alias", "convert", "convert", "layout", "check"]
    );
}

#[test]
fn the_grammars_agree_on_pasted_operations() {
    // Analysed operations declare their result; the others declare nothing,
    // whether they start with results, a dialect, a quoted name or a block
    // label; `}` lines continue the operation above.
    let text = r#"#smem = #ttg.shared_memory
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#pad = #ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0], shape = [32, 32]}>
#lin = #ttg.shared_linear<{offset = [[0, 1], [1, 0]], block = []}, alignment = 16>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#loc = loc("kernel.py":12:5)
#loc1 = loc(unknown)
#loc2 = loc(callsite(#loc1 at "x"(#loc)))
#loc3 = loc(fused[#loc1, #loc2])
module @kernel attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttng.two-ctas" = false} {
  tt.func public @f(%arg0: !tt.ptr<f16> {tt.divisibility = 16 : i32} loc("arg0"(#loc))) attributes {noinline = false} {
    %c-1_i32 = arith.constant -1 : i32 loc(#loc1)
    %cst = arith.constant dense<0xFF800000> : tensor<64xf32, #blocked> loc(#loc1)
    %x = tt.splat %arg0 : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked> loc(#loc2)
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> loc(#loc3)
    %acc:2, %t = scf.for %i = %c0 to %n step %c1 iter_args(%m = %cst) -> (i32, i32) : i32 {
      %v = tt.load %x : tensor<64x64x!tt.ptr<f16>, #blocked> loc(#loc)
      ttg.local_store %v, %a : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
      %w = ttg.local_load %a token %t : !ttg.memdesc<64x64xf16, #shared, #smem, mutable, 2x64x64> -> tensor<64x64xf16, #blocked>
      %r = "tt.reduce"(%w) <{axis = 1 : i32}> ({
      ^bb0(%p: f32 loc(unknown), %q: f32 loc(unknown)):
        %s = arith.addf %p, %q : f32 loc(#loc)
        tt.reduce.return %s : f32 loc(#loc)
      }) : (tensor<64x64xf32, #blocked>) -> tensor<64xf32, #ttg.slice<{dim = 1, parent = #blocked}>> loc(#loc)
      %y = ttg.convert_layout %acc_62#1 : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #ttg.slice<{dim = 0, parent = #blocked}>> loc(#loc)
      scf.yield %m : i32
    } loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
check kind(%y) in ["noop", "register"]
check wavefronts(%w) == 8
"#;
    assert_agree("pasted operations", text);
    let named: Vec<String> = layoutc_items(text)
        .into_iter()
        .filter_map(|(_, _, n)| n.filter(|n| n.starts_with('%')))
        .collect();
    assert_eq!(named, ["%a", "%w", "%y"]);
}

#[test]
fn the_grammars_agree_on_logic_and_cute_integers() {
    let text = "let n = 6\n\
                check not n == 5 and n % 2 == 0 or n%4 == 1\n\
                check n in [1, 6] and not (n < 0)\n\
                let t = cute (_2:_4,_8)\n\
                layout s = cute Sw<3,4,3> o _0 o (_8,_64):(_64,_1)\n\
                layout o = cute (_8):(_1)\n\
                let c = (_4, _-1)\n\
                check composition(cute (4,8):(1,4), <_, 2>) == composition(cute (4,8):(1,4), <_, _2>)\n";
    assert_agree("logic and CuTe integers", text);
}

/// `what \t printed \t ...` rows of `cute::print` (tests/corpus/cute).
#[test]
fn every_cute_print_of_the_corpus_parses_in_tree_sitter() {
    let tsv = std::fs::read_to_string(repo().join("tests/corpus/cute/print.tsv")).unwrap();
    let mut text = String::new();
    for (i, row) in tsv.lines().skip(1).enumerate() {
        let printed = row.split('\t').nth(1).unwrap();
        // A bare basis element (`_1@0`) is no layout.
        if printed.contains('@') && !printed.contains(':') {
            continue;
        }
        let is_tuple = !printed.contains(':') && !printed.starts_with("Sw<") || printed == "_";
        if is_tuple {
            text += &format!("let r{i} = {printed}\n");
        } else {
            text += &format!("layout r{i} = cute {printed}\n");
        }
    }
    assert!(text.lines().count() > 200);
    assert_agree("tests/corpus/cute/print.tsv", &text);
}

/// Every HLO shape of XLA's own tests (tests/corpus/xla), with every suffix
/// (the physical shape `P(...)` nests braces).
#[test]
fn every_hlo_shape_of_the_corpus_parses_in_tree_sitter() {
    let shapes = std::fs::read_to_string(repo().join("tests/corpus/xla/shapes.txt")).unwrap();
    let text: String = shapes
        .lines()
        .enumerate()
        .map(|(i, l)| format!("layout x{i} = xla {}\n", l.split('\t').next().unwrap()))
        .collect();
    assert!(text.lines().count() > 60);
    assert_agree("tests/corpus/xla/shapes.txt", &text);
}
