//! The three grammars agree on every example: the parser of layoutc
//! (crates/layout-syntax), the tree-sitter grammar and the TextMate grammar
//! find the same items, with the same kinds and names, and all three know
//! the keywords of grammar/lay.ebnf.

use std::collections::BTreeSet;
use std::path::Path;

use tree_sitter::{Node, Parser};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn examples() -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "lay"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
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

/// `(start byte, kind, name)` of every item, as layoutc's parser sees them.
fn layoutc_items(text: &str) -> Vec<(usize, String, Option<String>)> {
    layout_syntax::outline(text)
        .into_iter()
        .map(|i| {
            let kind = if i.keyword == "#" {
                "alias".to_string()
            } else {
                i.keyword
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

#[test]
fn tree_sitter_parses_every_example_without_errors() {
    for (path, text) in examples() {
        let tree = parser().parse(&text, None).unwrap();
        if let Some(e) = first_error(tree.root_node()) {
            panic!(
                "{path}: tree-sitter error at line {}: {:?}",
                e.start_position().row + 1,
                &text[e.byte_range()]
            );
        }
    }
}

#[test]
fn the_three_grammars_find_the_same_items() {
    for (path, text) in examples() {
        let ours = layoutc_items(&text);
        assert_eq!(
            ours,
            tree_sitter_items(&text),
            "{path}: layoutc vs tree-sitter"
        );
        let lines: BTreeSet<usize> = ours.iter().map(|(s, _, _)| line_of(&text, *s)).collect();
        assert_eq!(
            lines,
            textmate_item_lines(&text),
            "{path}: layoutc vs TextMate"
        );
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
        if !["Sw", "o", "ttg", "triton_gpu", "x"].contains(k) {
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
    let tree = parser().parse(text, None).unwrap();
    assert!(
        first_error(tree.root_node()).is_none(),
        "{}",
        tree.root_node().to_sexp()
    );
    let ours = layoutc_items(text);
    assert_eq!(
        ours.iter().map(|(_, k, _)| k.as_str()).collect::<Vec<_>>(),
        ["alias", "convert", "convert", "layout", "check"]
    );
    assert_eq!(ours, tree_sitter_items(text));
    let lines: BTreeSet<usize> = ours.iter().map(|(s, _, _)| line_of(text, *s)).collect();
    assert_eq!(lines, textmate_item_lines(text));
}
