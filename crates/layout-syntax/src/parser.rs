//! The `.lay` parser (chumsky over tokens).
//!
//! Resilience comes in two layers. The token stream is first cut into items
//! at every line that starts with an item keyword (`layout`, `let`,
//! `check`, `solve`, `target`, `module`), with `convert name =` or with an
//! alias `#name =`; each item
//! is parsed on its own, so a typo costs one diagnostic and the rest of the
//! file still parses. Inside an item, chumsky recovers from unbalanced or
//! malformed bracketed groups.

use chumsky::error::{EmptyErr, LabelError};
use chumsky::extra::SimpleState;
use chumsky::input::Input;
use chumsky::input::ValueInput;
use chumsky::prelude::*;

use crate::ast::*;
use crate::lexer::{Spanned, Token};

/// Errors, and the text being parsed as the state: one parser (costly to
/// build) serves every item of a file, each parsed with its own text.
type Err<'t, 's, Er> = extra::Full<Er, SimpleState<&'s str>, ()>;

/// The errors the grammar is run with: [`Rich`] for messages, and
/// [`EmptyErr`] for the first pass over an item, which only asks whether it
/// parses (most items do, and tracking what each failed alternative
/// expected is most of a parse's cost).
pub trait GrammarError<'t, 's: 't, I: Input<'t, Token = Token<'s>, Span = SimpleSpan>>:
    chumsky::error::Error<'t, I> + LabelError<'t, I, &'static str> + 't
{
    fn custom(span: SimpleSpan, message: String) -> Self;
}

impl<'t, 's: 't, I: Input<'t, Token = Token<'s>, Span = SimpleSpan>> GrammarError<'t, 's, I>
    for Rich<'t, Token<'s>>
{
    fn custom(span: SimpleSpan, message: String) -> Self {
        Rich::custom(span, message)
    }
}

impl<'t, 's: 't, I: Input<'t, Token = Token<'s>, Span = SimpleSpan>> GrammarError<'t, 's, I>
    for EmptyErr
{
    fn custom(_: SimpleSpan, _: String) -> Self {
        EmptyErr::default()
    }
}

/// The source text under span `s`.
fn text_at(state: &SimpleState<&str>, s: SimpleSpan) -> String {
    state.0[s.start..s.end].to_string()
}

fn span(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// The words that start an item at the beginning of a line.
pub const ITEM_KEYWORDS: [&str; 6] = ["layout", "let", "check", "solve", "target", "module"];

/// Whether a line whose first tokens are `first`, `second`, `third` starts
/// an item: an item keyword, or `#name =`, or `convert name =` (`convert`
/// alone is also a function, which may begin a continuation line), or a
/// pasted MLIR operation: `%result = ...`, `dialect.op ...`,
/// `"dialect.op"(...)` or a block label `^bb0(...)`. A line that starts with
/// `}` continues the item before it (it closes a block or an MLIR region).
pub fn starts_item(first: &Token, second: Option<&Token>, third: Option<&Token>) -> bool {
    let named = matches!(
        (second, third),
        (Some(Token::Ident(_)), Some(Token::Ctrl('=')))
    );
    match first {
        Token::Ident("convert") => named,
        Token::Ident(k) if ITEM_KEYWORDS.contains(k) => true,
        Token::Ident(_) => matches!(
            (second, third),
            (Some(Token::Ctrl('.')), Some(Token::Ident(_)))
        ),
        Token::Hash => named,
        Token::Ssa(_) | Token::Ctrl('^') => true,
        Token::Str(s) => s.contains('.') && second == Some(&Token::Ctrl('(')),
        _ => false,
    }
}

/// [`starts_item`] for a first token that may be indented: an indented
/// `target = ...` is a key of the block around it (`solve { target = tpu }`),
/// not the file's target.
pub fn starts_item_at(
    first: &Token,
    second: Option<&Token>,
    third: Option<&Token>,
    indented: bool,
) -> bool {
    if indented && *first == Token::Ident("target") && second == Some(&Token::Ctrl('=')) {
        return false;
    }
    starts_item(first, second, third)
}

/// Whether [`starts_item_at`] needs the second and third tokens of a line
/// that starts with `first`.
pub fn needs_lookahead_at(first: &Token, indented: bool) -> bool {
    (indented && *first == Token::Ident("target")) || needs_lookahead(first)
}

/// Whether [`starts_item`] needs the second and third tokens of a line
/// that starts with `first`.
pub fn needs_lookahead(first: &Token) -> bool {
    match first {
        Token::Ident(k) => !ITEM_KEYWORDS.contains(k),
        Token::Hash | Token::Str(_) => true,
        _ => false,
    }
}

/// The name a pasted operation line declares, from its first five tokens:
/// `%41` in `%41 = ttg.convert_layout ...` (also `local_alloc` and
/// `local_load`). Other operations declare nothing: their results are not
/// values of the file.
pub fn analysed_result_name(first_tokens: &[Token]) -> Option<String> {
    match first_tokens {
        [
            Token::Ssa(result),
            Token::Ctrl('='),
            Token::Ident("ttg" | "triton_gpu"),
            Token::Ctrl('.'),
            Token::Ident("convert_layout" | "local_alloc" | "local_load"),
            ..,
        ] if !result.contains('#') => Some(result.to_string()),
        _ => None,
    }
}

/// Cuts the tokens into items: each starts on a new line with an item
/// keyword, `convert name =` or `#name =`.
pub fn split_items<'s>(src: &str, tokens: &[Spanned<Token<'s>>]) -> Vec<std::ops::Range<usize>> {
    let mut starts = Vec::new();
    for (i, (tok, sp)) in tokens.iter().enumerate() {
        let first_on_line = i == 0 || src[tokens[i - 1].1.end..sp.start].contains('\n');
        if !first_on_line {
            continue;
        }
        let line_start = src[..sp.start].rfind('\n').map_or(0, |n| n + 1);
        let is_start = starts_item_at(
            tok,
            tokens.get(i + 1).map(|t| &t.0),
            tokens.get(i + 2).map(|t| &t.0),
            sp.start > line_start,
        );
        if is_start || i == 0 {
            starts.push(i);
        }
    }
    let mut ranges = Vec::with_capacity(starts.len());
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(tokens.len());
        ranges.push(s..e);
    }
    ranges
}

// Every sub-parser below ends in `.boxed()`, and so do the large parts of
// `expr` and `item`: chumsky's combinator types nest as deep as the grammar,
// and unboxed this crate took a minute to compile for each of its two error
// types (20 s boxed), while parsing is about a quarter slower.
fn ident<'t, 's: 't, I, Er>() -> impl Parser<'t, I, Ident, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    select! { Token::Ident(s) => s }
        .map_with(|s: &str, e| Ident {
            name: s.to_string(),
            span: span(e.span()),
        })
        .labelled("a name")
        .boxed()
}

fn kw<'t, 's: 't, I, Er>(k: &'static str) -> impl Parser<'t, I, Token<'s>, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    just(Token::Ident(k))
}

fn ctrl<'t, 's: 't, I, Er>(c: char) -> impl Parser<'t, I, Token<'s>, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    just(Token::Ctrl(c))
}

fn signed<'t, 's: 't, I, Er>() -> impl Parser<'t, I, i64, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    just(Token::Op("-"))
        .or_not()
        .then(select! { Token::Int(n) => n })
        .map(|(neg, n): (Option<Token<'s>>, i64)| if neg.is_some() { -n } else { n })
        .labelled("an integer")
        .boxed()
}

/// An integer as CuTe prints it: `4`, `-1`, or a static `_4` / `_-1`.
fn cute_int<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    choice((
        signed().ignored(),
        just(Token::Op("-"))
            .or_not()
            .then(select! { Token::Ident(s) if is_static_int(s) => () })
            .ignored(),
        // `_-1`
        kw("_")
            .then(just(Token::Op("-")))
            .then(select! { Token::Int(_) => () })
            .ignored(),
    ))
    .labelled("an integer")
    .boxed()
}

/// `_4`: CuTe's printing of a compile-time integer.
pub fn is_static_int(s: &str) -> bool {
    s.len() > 1 && s.starts_with('_') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// CuTe's printed notation: `[Sw<B,M,S> o [offset o]] shape[:stride]`,
/// `shape:stride o [offset o] Sw<B,M,S>`, or a bare swizzle `Sw<B,M,S>`.
fn cute_text<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    // A stride may be a `ScaledBasis` element, `_1@0` (`n@i@j` nested).
    let leaf = cute_int()
        .then(ctrl('@').then(select! { Token::Int(_) => () }).repeated())
        .ignored();
    let tuple = recursive(|t| {
        choice((
            leaf,
            t.separated_by(ctrl(','))
                .at_least(1)
                .delimited_by(ctrl('('), ctrl(')'))
                .ignored(),
        ))
    })
    .boxed();
    let layout = tuple
        .clone()
        .then(ctrl(':').then(tuple.clone()).or_not())
        .ignored()
        .boxed();
    // A tile printed as a tuple of layouts: `(_2:_4,_8)`.
    let tile = layout
        .clone()
        .separated_by(ctrl(','))
        .at_least(1)
        .delimited_by(ctrl('('), ctrl(')'))
        .ignored()
        .boxed();
    let swizzle = kw("Sw")
        .then(ctrl('<'))
        .then(cute_int())
        .then(ctrl(','))
        .then(cute_int())
        .then(ctrl(','))
        .then(cute_int())
        .then(ctrl('>'))
        .ignored()
        .boxed();
    // GMMA's layout atoms print their offset as the element width of the
    // swizzled pointer: `smem_ptr[16b](unset)`.
    let smem_ptr = kw("smem_ptr")
        .then(ctrl('['))
        .then(select! { Token::Int(_) => () })
        .then(select! { Token::Ident(s) if s == "b" => () })
        .then(ctrl(']'))
        .then(
            ctrl('(')
                .then(select! { Token::Ident(_) => () })
                .then(ctrl(')'))
                .or_not(),
        )
        .ignored()
        .boxed();
    let composed = swizzle
        .clone()
        .then(kw("o"))
        .then(choice((cute_int(), smem_ptr)).then(kw("o")).or_not())
        .then(layout.clone())
        .ignored()
        .boxed();
    // `L o k o Sw<B,M,S>`: C++'s inverse of a swizzled layout with an offset.
    let after_swizzle = layout
        .clone()
        .then(kw("o"))
        .then(cute_int().then(kw("o")).or_not())
        .then(swizzle.clone())
        .ignored()
        .boxed();
    choice((composed, swizzle, after_swizzle, layout, tile)).boxed()
}

/// A CuTe by-mode tiler `<t0, t1, ...>`; each mode `_`, a layout, or a tiler.
fn tiler_text<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    recursive(|tiler| {
        let item = choice((kw("_").ignored(), tiler, cute_text()));
        item.separated_by(ctrl(','))
            .at_least(1)
            .delimited_by(ctrl('<'), ctrl('>'))
    })
    .boxed()
}

/// `#ttg.KIND<{key = value, ...}>`
fn attribute<'t, 's: 't, I, Er>() -> impl Parser<'t, I, TritonAttribute, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    recursive(|attr| {
        let value = recursive(|value| {
            let entries = ident()
                .then_ignore(ctrl('='))
                .then(value.clone())
                .map(|(key, value)| AttrEntry { key, value })
                .separated_by(ctrl(','))
                .allow_trailing()
                .collect::<Vec<_>>();
            choice((
                signed().map(AttrValueKind::Int),
                kw("true").to(AttrValueKind::Bool(true)),
                kw("false").to(AttrValueKind::Bool(false)),
                select! { Token::Str(s) => AttrValueKind::Str(s.to_string()) },
                value
                    .separated_by(ctrl(','))
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(ctrl('['), ctrl(']'))
                    .map(AttrValueKind::List),
                entries
                    .delimited_by(ctrl('{'), ctrl('}'))
                    .map(AttrValueKind::Dict),
                attr.map(|a| AttrValueKind::Attribute(Box::new(a))),
                just(Token::Hash)
                    .ignore_then(ident())
                    .map(|i| AttrValueKind::Alias(i.name)),
            ))
            .map_with(|kind, e| AttrValue {
                kind,
                span: span(e.span()),
            })
            .recover_with(via_parser(nested_delimiters(
                Token::Ctrl('['),
                Token::Ctrl(']'),
                [
                    (Token::Ctrl('('), Token::Ctrl(')')),
                    (Token::Ctrl('{'), Token::Ctrl('}')),
                ],
                |s| AttrValue {
                    kind: AttrValueKind::Error,
                    span: span(s),
                },
            )))
        })
        .boxed();
        let entry = ident()
            .then_ignore(ctrl('='))
            .then(value)
            .map(|(key, value)| AttrEntry { key, value });
        let entries = entry
            .clone()
            .separated_by(ctrl(','))
            .allow_trailing()
            .collect::<Vec<_>>();
        // `[32:+4, 64:+8]`
        let padding = signed()
            .then_ignore(ctrl(':'))
            .then_ignore(just(Token::Op("+")))
            .then(signed())
            .map_with(|(interval, padding), e| PaddingInterval {
                interval,
                padding,
                span: span(e.span()),
            })
            .separated_by(ctrl(','))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(ctrl('['), ctrl(']'));
        // The parts between `<` and `>`: a dictionary, padding intervals
        // or bare entries (`alignment = 128`), in any order.
        #[derive(Clone)]
        enum Part {
            Entries(Vec<AttrEntry>),
            Padding(Vec<PaddingInterval>),
        }
        // `"amdgpu-synchronize-as":"local"` (`#llvm.mmra_tag<...>`, on the
        // fences of AMD kernels): a string or a pair of them, which no
        // layout reads.
        let string = select! { Token::Str(_) => () };
        let strings = string
            .then(ctrl(':').ignore_then(string).or_not())
            .to(Part::Entries(Vec::new()));
        let part = choice((
            entries
                .delimited_by(ctrl('{'), ctrl('}'))
                .map(Part::Entries),
            padding.map(Part::Padding),
            entry.map(|e| Part::Entries(vec![e])),
            strings,
        ));
        let body = part
            .separated_by(ctrl(',').or_not())
            .collect::<Vec<_>>()
            .delimited_by(ctrl('<'), ctrl('>'))
            .boxed();
        just(Token::Hash)
            .ignore_then(ident())
            .then_ignore(ctrl('.'))
            .then(ident())
            .then(body.or_not())
            .map(|((dialect, kind), parts)| {
                let mut attribute = TritonAttribute {
                    dialect: dialect.name,
                    kind,
                    entries: Vec::new(),
                    padding: Vec::new(),
                };
                for part in parts.into_iter().flatten() {
                    match part {
                        Part::Entries(e) => attribute.entries.extend(e),
                        Part::Padding(p) => attribute.padding.extend(p),
                    }
                }
                attribute
            })
    })
    .boxed()
}

/// Splits `64x64xf16` (or `128x!tt.ptr<f16>`) into dims and element type.
fn tensor_dims(text: &str) -> Option<(Vec<i64>, String)> {
    let mut dims = Vec::new();
    let mut rest = text.trim();
    while let Some(x) = rest.find('x') {
        let Ok(d) = rest[..x].trim().parse() else {
            break;
        };
        dims.push(d);
        rest = rest[x + 1..].trim_start();
    }
    let elem = rest.trim();
    if elem.is_empty() || elem.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some((dims, elem.to_string()))
}

/// `gluon BlockedLayout(...)`: a Gluon layout object, read as the `#ttg`
/// attribute it lowers to.
fn gluon_attribute<'t, 's: 't, I, Er>()
-> impl Parser<'t, I, TritonAttribute, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    kw("gluon")
        .ignore_then(gluon_call().try_map(|call, _| {
            crate::gluon::to_attribute(&call)
                .map_err(|(at, why)| Er::custom((at.start..at.end).into(), why))
        }))
        .boxed()
}

/// A Gluon constructor as Python prints or writes it:
/// `ttgl.SliceLayout(dim=0, parent=BlockedLayout([1, 4], ...))`, values
/// integers, `True`/`False`/`None`, lists (or tuples) and nested calls.
fn gluon_call<'t, 's: 't, I, Er>()
-> impl Parser<'t, I, crate::gluon::PyCall, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    use crate::gluon::{PyArg, PyCall, PyValue};
    recursive(|call| {
        let value = recursive(|value| {
            let int = just(Token::Op("-"))
                .or_not()
                .then(select! { Token::Int(n) => n })
                .map(|(minus, n)| PyValue::Int(if minus.is_some() { -n } else { n }));
            let items = value
                .clone()
                .map_with(|v, e| (v, span(e.span())))
                .separated_by(ctrl(','))
                .allow_trailing()
                .collect::<Vec<_>>();
            choice((
                int,
                kw("True").to(PyValue::Bool(true)),
                kw("False").to(PyValue::Bool(false)),
                kw("None").to(PyValue::None),
                items
                    .clone()
                    .delimited_by(ctrl('['), ctrl(']'))
                    .map(PyValue::List),
                items.delimited_by(ctrl('('), ctrl(')')).map(PyValue::List),
                call.map(PyValue::Call),
            ))
        })
        .boxed();
        let arg = ident()
            .then_ignore(ctrl('='))
            .or_not()
            .then(value)
            .map_with(|(name, value), e| PyArg {
                name,
                value,
                span: span(e.span()),
            });
        // `ttgl.amd.AMDMFMALayout`: the class is the last name.
        ident()
            .then_ignore(ctrl('.'))
            .repeated()
            .ignore_then(ident())
            .then(
                arg.separated_by(ctrl(','))
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(ctrl('('), ctrl(')')),
            )
            .map_with(|(class, args), e| PyCall {
                class,
                args,
                span: span(e.span()),
            })
    })
    .boxed()
}

/// Tokens up to a top-level `,` or `>`, with `<...>` nested: the shape and
/// element type of `tensor<64x!tt.ptr<f16>, #blocked>`.
fn type_text<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    let angled = recursive(|angled| {
        ctrl('<')
            .then(
                choice((
                    angled,
                    any()
                        .filter(|t: &Token| !matches!(t, Token::Ctrl('<') | Token::Ctrl('>')))
                        .ignored(),
                ))
                .repeated(),
            )
            .then(ctrl('>'))
            .ignored()
    });
    choice((
        angled,
        any()
            .filter(|t: &Token| {
                !matches!(t, Token::Ctrl(',') | Token::Ctrl('<') | Token::Ctrl('>'))
            })
            .ignored(),
    ))
    .repeated()
    .at_least(1)
    .boxed()
}

/// A balanced `{...}` group, any tokens inside (XLA's layout suffix, which
/// nests: `{1,0:T(2,2)P(f32[4,6]{1,0})}`).
fn braced<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    recursive(|braced| {
        ctrl('{')
            .then(
                choice((
                    braced,
                    any()
                        .filter(|t: &Token| !matches!(t, Token::Ctrl('{') | Token::Ctrl('}')))
                        .ignored(),
                ))
                .repeated(),
            )
            .then(ctrl('}'))
            .ignored()
    })
    .boxed()
}

/// MLIR's `loc(...)`.
fn location<'t, 's: 't, I, Er>() -> impl Parser<'t, I, Location, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    let inner = recursive(|loc| {
        let int = select! { Token::Int(n) => n as u32 };
        let file = select! { Token::Str(s) => s.to_string() }
            .then_ignore(ctrl(':'))
            .then(int)
            .then_ignore(ctrl(':'))
            .then(int)
            .map(|((file, line), column)| Location::File { file, line, column });
        let alias = just(Token::Hash)
            .ignore_then(ident())
            .map(|i| Location::Alias(i.name));
        let named = select! { Token::Str(s) => s.to_string() }
            .then(loc.clone().delimited_by(ctrl('('), ctrl(')')).or_not())
            .map(|(name, child)| Location::Named {
                name,
                child: child.map(Box::new),
            });
        let callsite = kw("callsite").ignore_then(
            loc.clone()
                .then_ignore(kw("at"))
                .then(loc.clone())
                .delimited_by(ctrl('('), ctrl(')'))
                .map(|(callee, caller)| Location::CallSite {
                    callee: Box::new(callee),
                    caller: Box::new(caller),
                }),
        );
        let fused = kw("fused").ignore_then(
            loc.separated_by(ctrl(','))
                .collect::<Vec<_>>()
                .delimited_by(ctrl('['), ctrl(']'))
                .map(Location::Fused),
        );
        choice((
            file,
            alias,
            named,
            callsite,
            fused,
            kw("unknown").to(Location::Unknown),
        ))
    })
    .boxed();
    kw("loc")
        .ignore_then(inner.delimited_by(ctrl('('), ctrl(')')))
        .boxed()
}

/// An SSA value as an operand: `%41`, `%acc_62`, `%acc_62#2`.
fn ssa_value<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    select! { Token::Ssa(_) => () }.labelled("an SSA value like %41")
}

/// An SSA result being defined: `%41`, `%acc`, with its span.
fn ssa_result<'t, 's: 't, I, Er>() -> impl Parser<'t, I, Ident, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    select! { Token::Ssa(s) if !s.contains('#') => s }
        .map_with(|s: &str, e| Ident {
            name: s.to_string(),
            span: span(e.span()),
        })
        .labelled("an SSA result like %41")
        .boxed()
}

fn expr<'t, 's: 't, I, Er>() -> impl Parser<'t, I, Expr, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    recursive(move |expr| {
        let arg = ident()
            .then_ignore(ctrl('='))
            .or_not()
            .then(expr.clone())
            .map(|(name, value)| Arg { name, value });
        let args = arg
            .separated_by(ctrl(','))
            .allow_trailing()
            .collect::<Vec<_>>();
        let encoding = choice((
            attribute().map(ExprKind::Attribute),
            gluon_attribute().map(ExprKind::Attribute),
            just(Token::Hash)
                .ignore_then(ident())
                .map(|i| ExprKind::AliasRef(i.name)),
        ))
        .map_with(|kind, e| Expr {
            kind,
            span: span(e.span()),
        })
        .boxed();
        let shape_text = type_text()
            .map_with(|_, e| {
                let s = e.span();
                text_at(e.state(), s)
            })
            .try_map(|text, s| {
                tensor_dims(&text).ok_or_else(|| {
                    Er::custom(s, format!("'{text}' is not a tensor shape like 64x64xf16"))
                })
            });
        let tensor = kw("tensor")
            .ignore_then(ctrl('<'))
            .ignore_then(shape_text.clone())
            .then(ctrl(',').ignore_then(encoding.clone()).or_not())
            // Labelled: a bare '>' reads as an operator, and the message
            // would name only what could continue the encoding.
            .then_ignore(ctrl('>').labelled("'>' closing the tensor type"))
            .map(|((dims, element_type), encoding)| {
                ExprKind::Tensor(TensorType {
                    dims,
                    element_type,
                    encoding: encoding.map(Box::new),
                })
            })
            .boxed();
        // `!ttg.memdesc<3x64x32xf16, #shared, #smem, mutable, 3x64x32>`
        let alloc_shape = type_text()
            .map_with(|_, e| {
                let s = e.span();
                text_at(e.state(), s)
            })
            .try_map(|text, s| {
                let dims: Option<Vec<i64>> =
                    text.split('x').map(|d| d.trim().parse().ok()).collect();
                dims.ok_or_else(|| {
                    Er::custom(
                        s,
                        format!("'{text}' is not an allocation shape like 3x64x32"),
                    )
                })
            });
        #[derive(Clone)]
        enum MemDescPart {
            MemorySpace(Expr),
            Mutable,
            AllocShape(Vec<i64>),
        }
        let memdesc_part = choice((
            kw("mutable").to(MemDescPart::Mutable),
            encoding.clone().map(MemDescPart::MemorySpace),
            alloc_shape.map(MemDescPart::AllocShape),
        ));
        let memdesc = ctrl('!')
            .ignore_then(choice((kw("ttg"), kw("triton_gpu"))))
            .ignore_then(ctrl('.'))
            .ignore_then(kw("memdesc"))
            .ignore_then(ctrl('<'))
            .ignore_then(shape_text)
            .then_ignore(ctrl(','))
            .then(encoding)
            .then(
                ctrl(',')
                    .ignore_then(memdesc_part)
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .then_ignore(ctrl('>'))
            .map(|(((dims, element_type), encoding), parts)| {
                let mut m = MemDescType {
                    dims,
                    element_type,
                    encoding: Box::new(encoding),
                    memory_space: None,
                    mutable: false,
                    alloc_shape: None,
                };
                for part in parts {
                    match part {
                        MemDescPart::MemorySpace(e) => m.memory_space = Some(Box::new(e)),
                        MemDescPart::Mutable => m.mutable = true,
                        MemDescPart::AllocShape(a) => m.alloc_shape = Some(a),
                    }
                }
                ExprKind::MemDesc(m)
            })
            .boxed();
        let int_list = signed()
            .separated_by(ctrl(','))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(ctrl('['), ctrl(']'));
        let linear = kw("linear")
            .ignore_then(
                ident()
                    .then_ignore(ctrl(':'))
                    .then(
                        int_list
                            .clone()
                            .separated_by(ctrl(','))
                            .allow_trailing()
                            .collect::<Vec<_>>()
                            .delimited_by(ctrl('['), ctrl(']')),
                    )
                    .separated_by(ctrl(','))
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(ctrl('{'), ctrl('}')),
            )
            .then_ignore(just(Token::Op("->")))
            .then(
                ident()
                    .then_ignore(ctrl(':'))
                    .then(signed())
                    .separated_by(ctrl(','))
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(ctrl('['), ctrl(']')),
            )
            .map(|(ins, outs)| ExprKind::Linear { ins, outs })
            .boxed();
        let atom = choice((
            select! { Token::Int(n) => ExprKind::Int(n) },
            select! { Token::Str(s) => ExprKind::Str(s.to_string()) },
            kw("true").to(ExprKind::Bool(true)),
            kw("false").to(ExprKind::Bool(false)),
            gluon_attribute().map(ExprKind::Attribute),
            kw("cute").ignore_then(cute_text().map_with(move |_, e| {
                let s = e.span();
                ExprKind::Cute(text_at(e.state(), s))
            })),
            kw("xla").ignore_then(
                ident()
                    .then(ctrl('['))
                    .then(any().filter(|t: &Token| *t != Token::Ctrl(']')).repeated())
                    .then(ctrl(']'))
                    .then(braced().or_not())
                    .map_with(move |_, e| {
                        let s = e.span();
                        ExprKind::Xla(text_at(e.state(), s))
                    }),
            ),
            tensor,
            memdesc,
            location().map(ExprKind::Location),
            ssa_value().map_with(move |_, e| {
                let s = e.span();
                ExprKind::Name(text_at(e.state(), s))
            }),
            linear,
            tiler_text().map_with(move |_, e| {
                let s = e.span();
                ExprKind::Tiler(text_at(e.state(), s))
            }),
            attribute().map(ExprKind::Attribute),
            just(Token::Hash)
                .ignore_then(ident())
                .map(|i| ExprKind::AliasRef(i.name)),
            // CuTe's negative static integer, `_-1`.
            kw("_")
                .ignore_then(just(Token::Op("-")))
                .ignore_then(select! { Token::Int(n) => ExprKind::Int(-n) }),
            kw("_").to(ExprKind::Underscore),
            // CuTe's static integer, `_4`, as it prints shapes and coordinates.
            select! { Token::Ident(s) if is_static_int(s) => s }.try_map(|s: &str, span| {
                s[1..]
                    .parse()
                    .map(ExprKind::Int)
                    .map_err(|_| Er::custom(span, "this integer does not fit in 64 bits".into()))
            }),
            ident().map(|i| ExprKind::Name(i.name)),
            args.clone()
                .delimited_by(ctrl('('), ctrl(')'))
                .map(|mut args| {
                    // `(x)` groups, except where CuTe prints a one-element
                    // tuple: `(1)`, `((2,3))`.
                    let cute_tuple =
                        |e: &Expr| matches!(e.kind, ExprKind::Int(_) | ExprKind::Tuple(_));
                    if args.len() == 1 && args[0].name.is_none() && !cute_tuple(&args[0].value) {
                        args.pop().unwrap().value.kind
                    } else {
                        ExprKind::Tuple(args)
                    }
                }),
            expr.clone()
                .separated_by(ctrl(','))
                .allow_trailing()
                .collect::<Vec<_>>()
                .delimited_by(ctrl('['), ctrl(']'))
                .map(ExprKind::List),
        ))
        .map_with(|kind, e| Expr {
            kind,
            span: span(e.span()),
        })
        .recover_with(via_parser(nested_delimiters(
            Token::Ctrl('('),
            Token::Ctrl(')'),
            [
                (Token::Ctrl('['), Token::Ctrl(']')),
                (Token::Ctrl('{'), Token::Ctrl('}')),
            ],
            |s| Expr {
                kind: ExprKind::Error,
                span: span(s),
            },
        )))
        .recover_with(via_parser(nested_delimiters(
            Token::Ctrl('['),
            Token::Ctrl(']'),
            [
                (Token::Ctrl('('), Token::Ctrl(')')),
                (Token::Ctrl('{'), Token::Ctrl('}')),
            ],
            |s| Expr {
                kind: ExprKind::Error,
                span: span(s),
            },
        )))
        .boxed()
        .boxed();
        let call = atom
            .foldl_with(
                args.delimited_by(ctrl('('), ctrl(')')).repeated(),
                |callee, args, e| Expr {
                    kind: ExprKind::Call {
                        callee: Box::new(callee),
                        args,
                    },
                    span: span(e.span()),
                },
            )
            .boxed();
        let unary = just(Token::Op("-"))
            .repeated()
            .foldr_with(call, |_, operand, e| Expr {
                kind: ExprKind::Neg(Box::new(operand)),
                span: span(e.span()),
            })
            .boxed();
        let binary = |op: Token<'s>, bop: BinaryOp| just(op).to(bop);
        let product = unary
            .clone()
            .foldl_with(
                choice((
                    binary(Token::Op("*"), BinaryOp::Mul),
                    binary(Token::Op("/"), BinaryOp::Div),
                    binary(Token::Op("%"), BinaryOp::Rem),
                ))
                .then(unary)
                .repeated(),
                |lhs, op_rhs, e| binary_node(lhs, op_rhs, e.span()),
            )
            .boxed();
        let sum = product
            .clone()
            .foldl_with(
                choice((
                    binary(Token::Op("+"), BinaryOp::Add),
                    binary(Token::Op("-"), BinaryOp::Sub),
                ))
                .then(product)
                .repeated(),
                |lhs, op_rhs, e| binary_node(lhs, op_rhs, e.span()),
            )
            .boxed();
        let compare_op = choice((
            binary(Token::Op("=="), BinaryOp::Eq),
            binary(Token::Op("!="), BinaryOp::Ne),
            binary(Token::Op("<="), BinaryOp::Le),
            binary(Token::Op(">="), BinaryOp::Ge),
            binary(Token::Ctrl('<'), BinaryOp::Lt),
            binary(Token::Ctrl('>'), BinaryOp::Gt),
        ));
        let compare_op = compare_op.or(binary(Token::Ident("in"), BinaryOp::In));
        let comparison = sum
            .clone()
            .foldl_with(compare_op.then(sum).repeated(), |lhs, op_rhs, e| {
                binary_node(lhs, op_rhs, e.span())
            })
            .boxed();
        // `not` binds looser than a comparison (`not a == b` is
        // `not (a == b)`), `and` looser than `not`, `or` loosest.
        let negation = kw("not")
            .repeated()
            .foldr_with(comparison, |_, operand, e| Expr {
                kind: ExprKind::Not(Box::new(operand)),
                span: span(e.span()),
            })
            .boxed();
        let conjunction = negation
            .clone()
            .foldl_with(
                binary(Token::Ident("and"), BinaryOp::And)
                    .then(negation)
                    .repeated(),
                |lhs, op_rhs, e| binary_node(lhs, op_rhs, e.span()),
            )
            .boxed();
        conjunction.clone().foldl_with(
            binary(Token::Ident("or"), BinaryOp::Or)
                .then(conjunction)
                .repeated(),
            |lhs, op_rhs, e| binary_node(lhs, op_rhs, e.span()),
        )
    })
    .labelled("an expression")
    .boxed()
}

fn item<'t, 's: 't, I, Er>() -> impl Parser<'t, I, Item, Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    // One expression parser, cloned (cheaply) into every place that needs
    // it: building chumsky parsers is costly, parsing with them is not.
    let expr = expr();
    let field = ident()
        .then_ignore(ctrl('='))
        .then(expr.clone())
        .then_ignore(ctrl(',').or_not())
        .map(|(key, value)| Field { key, value });
    let fields = field
        .repeated()
        .collect::<Vec<_>>()
        .delimited_by(ctrl('{'), ctrl('}'))
        .boxed();
    // `"ttg.num-warps" = 4 : i32`, `ttg.target = "cuda:90"`,
    // `"ttng.two-ctas" = false`, or a unit attribute (a key alone).
    let dotted_key = ident()
        .separated_by(ctrl('.'))
        .at_least(1)
        .map_with(|_, e| {
            let s = e.span();
            text_at(e.state(), s)
        });
    let module_value = choice((
        signed()
            .then(ctrl(':').ignore_then(ident()).or_not())
            .map(|(n, ty)| ModuleValue::Int(n, ty.map(|t| t.name))),
        kw("true").to(ModuleValue::Bool(true)),
        kw("false").to(ModuleValue::Bool(false)),
        select! { Token::Str(s) => ModuleValue::Str(s.to_string()) },
        any()
            .filter(|t: &Token| !matches!(t, Token::Ctrl(',') | Token::Ctrl('}')))
            .repeated()
            .at_least(1)
            .to(ModuleValue::Other),
    ))
    .boxed();
    let module_attr = choice((select! { Token::Str(s) => s.to_string() }, dotted_key))
        .then(ctrl('=').ignore_then(module_value).or_not())
        .map_with(|(key, value), e| ModuleAttribute {
            key,
            value: value.unwrap_or(ModuleValue::Other),
            span: span(e.span()),
        })
        .boxed();
    let ttg = || choice((kw("ttg"), kw("triton_gpu")));
    // An operation's operands up to its `:`, skipping the attribute
    // dictionary a dump prints before it once passes have annotated the op
    // (`{allocation.offset = 0 : i32}`).
    let attribute_dictionary = ctrl('{')
        .then(any().filter(|t: &Token| *t != Token::Ctrl('}')).repeated())
        .then(ctrl('}'))
        .ignored()
        .boxed();
    let operands = choice((
        attribute_dictionary,
        any()
            .filter(|t: &Token| !matches!(t, Token::Ctrl(':') | Token::Ctrl('{')))
            .ignored(),
    ))
    .repeated()
    .then(ctrl(':'))
    .boxed();
    // `%41 = ttg.convert_layout %40 : SRC -> DST`
    let mlir_convert = ssa_result()
        .then_ignore(ctrl('='))
        .then(
            ttg()
                .then(ctrl('.'))
                .then(kw("convert_layout"))
                .then(operands.clone())
                .map_with(|_, e| span(e.span())),
        )
        .then(expr.clone())
        .then_ignore(just(Token::Op("->")))
        .then(expr.clone())
        .map(|(((name, operation), src), dst)| ItemKind::Convert {
            name,
            operation: Some(operation),
            src,
            dst,
        })
        .boxed();
    // `ttg.local_alloc`, `ttg.local_store`, `ttg.local_load`
    let memory_op_name = ttg()
        .ignore_then(ctrl('.'))
        .ignore_then(choice((
            kw("local_alloc").to(MemoryOpKind::Alloc),
            kw("local_store").to(MemoryOpKind::Store),
            kw("local_load").to(MemoryOpKind::Load),
        )))
        .boxed();
    let memory_op = ssa_result()
        .then_ignore(ctrl('='))
        .or_not()
        .then(
            memory_op_name
                .then_ignore(operands.clone())
                .map_with(|op, e| (op, span(e.span()))),
        )
        .then(choice((
            expr.clone()
                .or_not()
                .delimited_by(ctrl('('), ctrl(')'))
                .then_ignore(just(Token::Op("->")))
                .then(expr.clone()),
            expr.clone()
                .then_ignore(just(Token::Op("->")))
                .then(expr.clone())
                .map(|(from, to)| (Some(from), to)),
        )))
        .map(|((name, (op, operation)), (from, to))| ItemKind::MemoryOp {
            name,
            op,
            operation,
            from,
            to,
        })
        .boxed();
    // Any other operation: `%5 = tt.load ...`, `tt.func ...`,
    // `"tt.reduce"(...)`, `^bb0(...)`. Its text is not evaluated.
    let result_list = ssa_result()
        .then_ignore(ctrl(':').then(select! { Token::Int(_) => () }).or_not())
        .separated_by(ctrl(','))
        .at_least(1)
        .collect::<Vec<_>>()
        .then_ignore(ctrl('='))
        .boxed();
    let op_name = choice((
        ident().separated_by(ctrl('.')).at_least(2).ignored(),
        select! { Token::Str(s) if s.contains('.') => () },
        ctrl('^').then(ident()).ignored(),
    ))
    .map_with(|_, e| {
        let s = e.span();
        Ident {
            name: text_at(e.state(), s),
            span: span(s),
        }
    })
    .filter(|op: &Ident| !ANALYSED_OPERATIONS.contains(&op.name.as_str()))
    .boxed();
    let operation = result_list
        .or_not()
        .then(op_name)
        .then_ignore(any().repeated())
        .map(|(results, op)| ItemKind::Operation {
            results: results.unwrap_or_default(),
            op,
        })
        .boxed();
    let kind = choice((
        just(Token::Hash)
            .ignore_then(ident())
            .then_ignore(ctrl('='))
            .then(expr.clone())
            .map(|(name, value)| ItemKind::Alias { name, value }),
        kw("module")
            .ignore_then(ctrl('@').then(ident()).or_not())
            // TTIR's `module {` has no attributes.
            .ignore_then(
                kw("attributes")
                    .ignore_then(
                        module_attr
                            .separated_by(ctrl(','))
                            .allow_trailing()
                            .collect::<Vec<_>>()
                            .delimited_by(ctrl('{'), ctrl('}')),
                    )
                    .or_not()
                    .map(Option::unwrap_or_default),
            )
            // The `{` that opens the module's body, as a dump prints it (and
            // the `}` that closes it, when the body is not pasted).
            .then(
                ctrl('{')
                    .then(ctrl('}').then(location().or_not()).or_not())
                    .map_with(|_, e| span(e.span()))
                    .or_not(),
            )
            .map(|(attributes, body)| ItemKind::Module { attributes, body }),
        mlir_convert,
        memory_op,
        operation,
        kw("layout")
            .ignore_then(ident())
            .then_ignore(ctrl('='))
            .then(expr.clone())
            .map(|(name, value)| ItemKind::Layout { name, value }),
        kw("let")
            .ignore_then(ident())
            .then_ignore(ctrl('='))
            .then(expr.clone())
            .map(|(name, value)| ItemKind::Let { name, value }),
        kw("convert")
            .ignore_then(ident())
            .then_ignore(ctrl('='))
            .then(
                ttgir_convert_layout()
                    .map_with(|_, e| span(e.span()))
                    .or_not(),
            )
            .then(expr.clone())
            .then_ignore(just(Token::Op("->")))
            .then(expr.clone())
            .map(|(((name, operation), src), dst)| ItemKind::Convert {
                name,
                operation,
                src,
                dst,
            }),
        kw("check")
            .ignore_then(expr.clone())
            .map(|expr| ItemKind::Check { expr }),
        kw("solve")
            .ignore_then(ident())
            .then(fields.clone())
            .map(|(name, fields)| ItemKind::Solve { name, fields }),
        kw("target")
            .ignore_then(ident().or_not())
            .then(choice((
                ctrl('=')
                    .ignore_then(ident())
                    .map(|p| (Some(p), Vec::new())),
                fields.map(|f| (None, f)),
            )))
            .map(|(name, (preset, fields))| ItemKind::Target {
                name,
                preset,
                fields,
            }),
    ));
    // A pasted line may end with its `loc(...)`; a pasted operation may be
    // followed by the `}` lines that close the regions around it (a
    // `scf.for` whose body ends with a store has no `scf.yield`).
    let closers = ctrl('}')
        .then(location().or_not())
        .map_with(|_, e| e.span())
        .repeated()
        .collect::<Vec<SimpleSpan>>()
        .boxed()
        .boxed();
    kind.then(location().or_not())
        .then(closers)
        .then_ignore(ctrl(';').or_not())
        .validate(|((kind, location), closers), e, emitter| {
            let pasted = match &kind {
                ItemKind::Convert { name, .. } => name.name.starts_with('%'),
                ItemKind::MemoryOp { .. } => true,
                _ => false,
            };
            if let (false, Some(first)) = (pasted, closers.first()) {
                emitter.emit(Er::custom(*first, UNOPENED_CLOSER.to_string()));
            }
            Item {
                kind,
                span: span(e.span()),
                location,
            }
        })
        .boxed()
}

/// The error of a `}` that closes nothing the item opened: the checker
/// drops it when the file's `module ... {` line is still open.
pub const UNOPENED_CLOSER: &str = "unexpected '}': nothing here is open";

/// The operations a pasted line is analysed for; any other is accepted as
/// it is.
const ANALYSED_OPERATIONS: [&str; 8] = [
    "ttg.convert_layout",
    "ttg.local_alloc",
    "ttg.local_store",
    "ttg.local_load",
    "triton_gpu.convert_layout",
    "triton_gpu.local_alloc",
    "triton_gpu.local_store",
    "triton_gpu.local_load",
];

/// TTGIR's operation before the types, `ttg.convert_layout %41 :`, as a
/// dump prints it (the SSA value is not kept).
fn ttgir_convert_layout<'t, 's: 't, I, Er>() -> impl Parser<'t, I, (), Err<'t, 's, Er>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
    Er: GrammarError<'t, 's, I>,
{
    choice((kw("ttg"), kw("triton_gpu")))
        .then(ctrl('.'))
        .then(kw("convert_layout"))
        .then(ssa_value())
        .then(ctrl(':'))
        .ignored()
        .boxed()
}

/// Parses items, each a run of tokens of its own text, with one parser
/// (building the parser costs more than parsing an item). A failed item
/// becomes [`ItemKind::Error`]; its errors go with it.
pub fn parse_items<'t, 's: 't>(
    items: impl IntoIterator<Item = (&'s str, &'t [Spanned<Token<'s>>])>,
) -> Vec<(Item, Vec<SyntaxError>)> {
    // Most items parse: a first pass that only asks whether, and a second
    // one with messages for those that do not.
    let quick = item::<_, EmptyErr>();
    let mut explained = None;
    items
        .into_iter()
        .map(|(src, tokens)| {
            let mut errors = Vec::new();
            let Some(first) = tokens.first() else {
                let empty = Item {
                    kind: ItemKind::Error,
                    span: Span::default(),
                    location: None,
                };
                return (empty, errors);
            };
            let last = tokens.last().map_or(first.1.end, |t| t.1.end);
            let whole = Item {
                kind: ItemKind::Error,
                span: Span::new(first.1.start, last),
                location: None,
            };
            if let Some(at) = too_deep(tokens) {
                errors.push(SyntaxError {
                    span: span(at),
                    message: format!(
                        "nested more than {MAX_NESTING} levels deep: layoutc does not read this item"
                    ),
                    kind: SyntaxErrorKind::TooDeep,
                });
                return (whole, errors);
            }
            let eoi: SimpleSpan = (last..last).into();
            let input = || tokens.map(eoi, |(t, s)| (t, s));
            let (out, failed) = quick
                .parse_with_state(input(), &mut SimpleState(src))
                .into_output_errors();
            let out = if failed.is_empty() {
                out
            } else {
                let rich = explained.get_or_insert_with(item::<_, Rich<'t, Token<'s>>>);
                let (out, errs) = rich
                    .parse_with_state(input(), &mut SimpleState(src))
                    .into_output_errors();
                for e in errs {
                    let message = describe(&e);
                    let kind = if message == UNOPENED_CLOSER {
                        SyntaxErrorKind::UnopenedCloser
                    } else {
                        SyntaxErrorKind::Unexpected
                    };
                    errors.push(SyntaxError {
                        span: span(*e.span()),
                        message,
                        kind,
                    });
                }
                out
            };
            (out.unwrap_or(whole), errors)
        })
        .collect()
}

/// How deeply one item may nest: brackets, operator chains and postfix
/// chains together. Real items nest a few levels; a generated or hostile one
/// could nest 100,000, and every pass over the tree (parse, evaluate,
/// format, hash) recurses once per level.
pub const MAX_NESTING: usize = 128;

/// Where `tokens` first nest deeper than [`MAX_NESTING`], counted on the
/// tokens before parsing, as a bound on the depth of the tree any parse
/// could build: each open bracket is a level, and so is each operator,
/// `.` and closed bracket since the last separator at its bracket level
/// (a chain `1+1+...` folds into a tree as deep as it is long).
fn too_deep(tokens: &[Spanned<Token<'_>>]) -> Option<SimpleSpan> {
    // Per open bracket: its opener and the levels its chain adds.
    let mut frames: Vec<(char, usize)> = vec![(' ', 0)];
    let mut depth = 0usize;
    let chain = |frames: &mut Vec<(char, usize)>, depth: &mut usize| {
        if let Some(top) = frames.last_mut() {
            top.1 += 1;
            *depth += 1;
        }
    };
    for (token, at) in tokens {
        match token {
            Token::Ctrl(open @ ('(' | '[' | '{' | '<')) => {
                frames.push((*open, 0));
                depth += 1;
            }
            Token::Ctrl(close @ (')' | ']' | '}' | '>')) => {
                let opener = match close {
                    ')' => '(',
                    ']' => '[',
                    '}' => '{',
                    _ => '<',
                };
                // A closer with no opener (or a `>` that compares) closes
                // nothing; one with an opener below unclosed `<`s (which
                // compared) closes them all.
                if let Some(at) = frames.iter().rposition(|f| f.0 == opener)
                    && at > 0
                {
                    for (_, levels) in frames.drain(at..) {
                        depth -= 1 + levels;
                    }
                    chain(&mut frames, &mut depth);
                }
            }
            Token::Ctrl(',' | ';' | ':' | '=') => {
                if let Some(top) = frames.last_mut() {
                    depth -= top.1;
                    top.1 = 0;
                }
            }
            Token::Op(_) | Token::Ctrl('.') | Token::Ident("not" | "and" | "or" | "in") => {
                chain(&mut frames, &mut depth)
            }
            _ => {}
        }
        if depth > MAX_NESTING {
            return Some(*at);
        }
    }
    None
}

/// `lhs op rhs` over `s`, for the left folds of the operator levels.
fn binary_node(lhs: Expr, (op, rhs): (BinaryOp, Expr), s: SimpleSpan) -> Expr {
    Expr {
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span: span(s),
    }
}

/// A one-line message for a parse error.
fn describe(e: &Rich<'_, Token<'_>>) -> String {
    match e.reason() {
        chumsky::error::RichReason::Custom(msg) => msg.to_string(),
        _ => {
            // After an expression every operator could follow; naming them all
            // buries the token that is really missing.
            // `->` is structure (a conversion's arrow), not an operator.
            let is_operator = |t: &Token| {
                matches!(t, Token::Op(o) if *o != "->")
                    || matches!(
                        t,
                        Token::Ctrl('<')
                            | Token::Ctrl('>')
                            | Token::Ctrl('}')
                            | Token::Ident("and" | "or" | "in" | "loc")
                    )
            };
            let structural = e.expected().any(|p| match p {
                chumsky::error::RichPattern::Token(t) => !is_operator(t),
                _ => true,
            });
            let mut expected: Vec<String> = e
                .expected()
                .filter_map(|p| match p {
                    chumsky::error::RichPattern::Token(t) if structural && is_operator(t) => None,
                    chumsky::error::RichPattern::Token(t) if **t == Token::Ctrl(';') => None,
                    chumsky::error::RichPattern::Token(t) => Some(format!("'{}'", &**t)),
                    chumsky::error::RichPattern::Label(l) => Some(l.to_string()),
                    chumsky::error::RichPattern::EndOfInput => {
                        Some("the end of the declaration".into())
                    }
                    _ => None,
                })
                .collect();
            expected.sort();
            expected.dedup();
            let found = match e.found() {
                Some(t) => format!("'{t}'"),
                None => "the end of the declaration".to_string(),
            };
            if expected.is_empty() {
                format!("unexpected {found}")
            } else {
                format!("expected {}, found {found}", expected.join(" or "))
            }
        }
    }
}
