//! The SSA values of a pasted dump (`%41`, `%arg0`, `%acc_62#2`): where
//! each is defined and where it is used, for navigation, highlight, rename
//! and hover on every line of a dump, evaluated or not.
//!
//! MLIR numbers values per region: a name defined in a region is seen in
//! it and in the regions it holds, and once the region closes a sibling
//! may take the same name (the two branches of an `scf.if`, two loops one
//! after the other both have a `%arg5`). A region isolated from above (a
//! function, a `ttg.warp_specialize` partition) sees nothing outside it.
//! Values are printed defined before used (Triton's control flow is
//! structured), so a name no open region defines is a definition. The
//! names a region's header line gives after its results (a function's or
//! partition's arguments, an `scf.for` induction variable and iter_args)
//! are the region's own.

use std::collections::HashSet;

use layout_syntax::Span;
use layout_syntax::lexer::{Token, lex};

use crate::SourceFile;

/// One occurrence of a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SsaOccurrence {
    /// `%acc_62` for `%acc_62#2` too: the result number is not the name.
    pub name: String,
    /// The name's span in the file (without a `#2` result number).
    pub span: Span,
    /// The region that defines it, numbered in the order regions open.
    pub scope: u32,
    /// The innermost region isolated from above around that one (a
    /// function, a partition): where another value may not take its name.
    pub function: u32,
    pub is_definition: bool,
}

/// Every value occurrence of the analysed text, in file order.
#[salsa::tracked(returns(ref))]
pub fn ssa_values(db: &dyn salsa::Database, file: SourceFile) -> Vec<SsaOccurrence> {
    occurrences(&file.analysed_text(db))
}

/// An open region: its number, whether it sees the regions around it, and
/// the names it defines.
struct Region {
    id: u32,
    isolated: bool,
    /// The innermost isolated region around it, itself if isolated.
    function: u32,
    names: HashSet<String>,
}

impl Region {
    /// A region numbered `id`, opened inside `outer`.
    fn new(id: u32, isolated: bool, outer: &Region) -> Region {
        Region {
            id,
            isolated,
            function: if isolated { id } else { outer.function },
            names: HashSet::new(),
        }
    }
}

fn occurrences(text: &str) -> Vec<SsaOccurrence> {
    let (tokens, _) = lex(text);
    let mut open = vec![Region {
        id: 0,
        isolated: false,
        function: 0,
        names: HashSet::new(),
    }];
    let mut regions = 0u32;
    // The region the current line opens, with the names its header gave.
    let mut header: Option<Region> = None;
    let mut out = Vec::new();
    for (token, at) in tokens.iter() {
        match token {
            Token::Ctrl('{') => {
                // An attribute dictionary's braces open no region of names.
                let opens_body = ends_line(text, at.end);
                let region = header.take_if(|_| opens_body).unwrap_or_else(|| {
                    regions += 1;
                    let outer = open.last().expect("the file's own scope stays open");
                    Region::new(regions, opens_isolated(text, at.start), outer)
                });
                open.push(region);
            }
            Token::Ctrl('}') if open.len() > 1 => {
                open.pop();
            }
            Token::Ssa(written) => {
                let name = written.split_once('#').map_or(*written, |(base, _)| base);
                let mut visible = header
                    .iter()
                    .chain(open.iter().rev().scan(false, |past, r| {
                        // Nothing outside an isolated region is visible.
                        let seen = (!*past).then_some(r);
                        *past |= r.isolated;
                        seen
                    }));
                let found = visible
                    .find(|r| r.names.contains(name))
                    .map(|r| (r.id, r.function));
                let is_definition = found.is_none();
                let (scope, function) = found.unwrap_or_else(|| {
                    let line_opens = ends_with_open_brace(text, at.start);
                    let region = if line_opens && !is_result(text, at.start) {
                        header.get_or_insert_with(|| {
                            regions += 1;
                            let outer = open.last().expect("the file's own scope stays open");
                            Region::new(regions, opens_isolated(text, at.start), outer)
                        })
                    } else {
                        open.last_mut().expect("the file's own scope stays open")
                    };
                    region.names.insert(name.to_string());
                    (region.id, region.function)
                });
                out.push(SsaOccurrence {
                    name: name.to_string(),
                    span: Span::new(at.start, at.start + name.len()),
                    scope,
                    function,
                    is_definition,
                });
            }
            _ => {}
        }
    }
    out
}

/// The text of the line around `offset`.
fn line_at(text: &str, offset: usize) -> (usize, &str) {
    let start = text[..offset].rfind('\n').map_or(0, |n| n + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |n| offset + n);
    (start, &text[start..end])
}

/// Whether the line around `offset` ends by opening a region (`{`, before
/// any `loc(...)` or comment).
fn ends_with_open_brace(text: &str, offset: usize) -> bool {
    let (_, line) = line_at(text, offset);
    let code = line.split("//").next().unwrap_or(line);
    code.trim_end().ends_with('{')
}

/// Whether nothing but blanks or a comment follows `offset` on its line.
fn ends_line(text: &str, offset: usize) -> bool {
    let rest = &text[offset..];
    let line = rest.split('\n').next().unwrap_or(rest);
    let code = line.split("//").next().unwrap_or(line);
    code.trim().is_empty()
}

/// Whether the name at `offset` is one of its line's results (`%r:2 =`).
fn is_result(text: &str, offset: usize) -> bool {
    let (start, line) = line_at(text, offset);
    let results = line.split_once(" = ").map_or("", |(r, _)| r);
    results.trim_start().starts_with('%') && offset - start < results.len()
}

/// Whether the region opened on the line of `offset` is isolated from
/// above: a function's body (`tt.func`, `llvm.func`, `func.func`) or a
/// `ttg.warp_specialize` partition (`partition0(%arg7: ...) num_warps(4) {`).
fn opens_isolated(text: &str, offset: usize) -> bool {
    let (_, line) = line_at(text, offset);
    let line = line.trim_start();
    let partition = line
        .strip_prefix("partition")
        .and_then(|rest| rest.split_once('('))
        .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let function = ["tt.func", "llvm.func", "func.func"]
        .iter()
        .any(|f| line.starts_with(f) || line.contains(&format!(" {f} ")));
    partition || function
}

/// The occurrence under `offset` (on the name or just after it).
pub fn ssa_at(db: &dyn salsa::Database, file: SourceFile, offset: usize) -> Option<&SsaOccurrence> {
    let values = ssa_values(db, file);
    let i = values.partition_point(|o| o.span.end < offset);
    values
        .get(i)
        .filter(|o| o.span.start <= offset && offset <= o.span.end)
}

/// Every occurrence of the value `at` names, its definition first.
pub fn same_value<'a>(
    db: &'a dyn salsa::Database,
    file: SourceFile,
    at: &SsaOccurrence,
) -> Vec<&'a SsaOccurrence> {
    ssa_values(db, file)
        .iter()
        .filter(|o| o.scope == at.scope && o.name == at.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_scoped_by_function_and_defined_first() {
        let text = "tt.func @a(%arg0: i32) {\n  %0 = arith.addi %arg0, %arg0 : i32\n  %r:2 = scf.for %i = %0 to %0 step %0 iter_args(%x = %0) -> (i32) {\n  }\n  tt.return %r#1 : i32\n}\ntt.func @b() {\n  %0 = arith.constant 1 : i32\n}\n";
        let found: Vec<String> = occurrences(text)
            .iter()
            .map(|o| {
                format!(
                    "{}{}@{}",
                    if o.is_definition { "def " } else { "" },
                    &text[o.span.start..o.span.end],
                    o.scope
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                "def %arg0@1",
                "def %0@1",
                "%arg0@1",
                "%arg0@1",
                "def %r@1",
                "def %i@2",
                "%0@1",
                "%0@1",
                "%0@1",
                "def %x@2",
                "%0@1",
                "%r@1",
                "def %0@3"
            ]
        );
    }

    /// Each occurrence as `[def ]name@scope`.
    fn scoped(text: &str) -> Vec<String> {
        occurrences(text)
            .iter()
            .map(|o| {
                let def = if o.is_definition { "def " } else { "" };
                format!("{def}{}@{}", &text[o.span.start..o.span.end], o.scope)
            })
            .collect()
    }

    #[test]
    fn sibling_regions_reuse_names_and_partitions_see_nothing_outside() {
        let text =
            "tt.func @k(%arg0: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
  %c = arith.constant true
  %0 = scf.if %c -> (i32) {
    %5 = arith.addi %arg0, %arg0 : i32
    scf.yield %5 : i32
  } else {
    %5 = arith.subi %arg0, %arg0 : i32
    scf.yield %5 : i32
  }
  %1 = scf.for %i = %0 to %0 step %0 iter_args(%arg5 = %0) -> (i32) {
    scf.yield %arg5 : i32
  }
  %2 = scf.for %i = %0 to %0 step %0 iter_args(%arg5 = %1) -> (i32) {
    scf.yield %arg5 : i32
  }
  ttg.warp_specialize(%0) attributes {requestedRegisters = array<i32: 24>}
  default {
    ttg.warp_yield
  }
  partition0(%arg7: i32) num_warps(4) {
    %0 = arith.addi %arg7, %arg7 : i32
    ttg.warp_return
  } : (i32) -> ()
  tt.return %2 : i32
}
";
        assert_eq!(
            scoped(text),
            [
                "def %arg0@1",
                "def %c@1",
                "def %0@1",
                "%c@1",
                "def %5@4",
                "%arg0@1",
                "%arg0@1",
                "%5@4",
                "def %5@5",
                "%arg0@1",
                "%arg0@1",
                "%5@5",
                "def %1@1",
                "def %i@6",
                "%0@1",
                "%0@1",
                "%0@1",
                "def %arg5@6",
                "%0@1",
                "%arg5@6",
                "def %2@1",
                "def %i@7",
                "%0@1",
                "%0@1",
                "%0@1",
                "def %arg5@7",
                "%1@1",
                "%arg5@7",
                "%0@1",
                "def %arg7@10",
                "def %0@10",
                "%arg7@10",
                "%arg7@10",
                "%2@1",
            ]
        );
    }
}
