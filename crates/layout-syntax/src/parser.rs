//! The `.lay` parser (chumsky over tokens).
//!
//! Resilience comes in two layers. The token stream is first cut into items
//! at every line that starts with an item keyword (`layout`, `let`,
//! `check`, `solve`, `target`, `module`), with `convert name =` or with an
//! alias `#name =`; each item
//! is parsed on its own, so a typo costs one diagnostic and the rest of the
//! file still parses. Inside an item, chumsky recovers from unbalanced or
//! malformed bracketed groups.

use chumsky::input::ValueInput;
use chumsky::prelude::*;

use crate::ast::*;
use crate::lexer::{Spanned, Token};

type Err<'t, 's> = extra::Err<Rich<'t, Token<'s>>>;

fn span(s: SimpleSpan) -> Span {
    Span::new(s.start, s.end)
}

/// The words that start an item at the beginning of a line.
pub const ITEM_KEYWORDS: [&str; 6] = ["layout", "let", "check", "solve", "target", "module"];

/// Whether a line whose first tokens are `first`, `second`, `third` starts
/// an item: an item keyword, or `#name =`, or `convert name =` (`convert`
/// alone is also a function, which may begin a continuation line).
pub fn starts_item(first: &Token, second: Option<&Token>, third: Option<&Token>) -> bool {
    let named = matches!(
        (second, third),
        (Some(Token::Ident(_)), Some(Token::Ctrl('=')))
    );
    match first {
        Token::Ident("convert") => named,
        Token::Ident(k) => ITEM_KEYWORDS.contains(k),
        Token::Hash => named,
        _ => false,
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
        let is_start = starts_item(
            tok,
            tokens.get(i + 1).map(|t| &t.0),
            tokens.get(i + 2).map(|t| &t.0),
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

fn ident<'t, 's: 't, I>() -> impl Parser<'t, I, Ident, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    select! { Token::Ident(s) => s }
        .map_with(|s: &str, e| Ident {
            name: s.to_string(),
            span: span(e.span()),
        })
        .labelled("a name")
}

fn kw<'t, 's: 't, I>(k: &'static str) -> impl Parser<'t, I, Token<'s>, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    just(Token::Ident(k))
}

fn ctrl<'t, 's: 't, I>(c: char) -> impl Parser<'t, I, Token<'s>, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    just(Token::Ctrl(c))
}

fn signed<'t, 's: 't, I>() -> impl Parser<'t, I, i64, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    just(Token::Op("-"))
        .or_not()
        .then(select! { Token::Int(n) => n })
        .map(|(neg, n): (Option<Token<'s>>, i64)| if neg.is_some() { -n } else { n })
        .labelled("an integer")
}

/// CuTe's printed notation: `[Sw<B,M,S> o [offset o]] shape[:stride]`.
fn cute_text<'t, 's: 't, I>() -> impl Parser<'t, I, (), Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    let tuple = recursive(|t| {
        choice((
            signed().ignored(),
            t.separated_by(ctrl(','))
                .at_least(1)
                .delimited_by(ctrl('('), ctrl(')'))
                .ignored(),
        ))
    });
    let layout = tuple.clone().then(ctrl(':').then(tuple).or_not()).ignored();
    let swizzle = kw("Sw")
        .then(ctrl('<'))
        .then(signed())
        .then(ctrl(','))
        .then(signed())
        .then(ctrl(','))
        .then(signed())
        .then(ctrl('>'))
        .then(kw("o"))
        .then(signed().then(kw("o")).or_not())
        .ignored();
    swizzle.or_not().then(layout).ignored()
}

/// A CuTe by-mode tiler `<t0, t1, ...>`; each mode `_`, a layout, or a tiler.
fn tiler_text<'t, 's: 't, I>() -> impl Parser<'t, I, (), Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    recursive(|tiler| {
        let item = choice((kw("_").ignored(), tiler, cute_text()));
        item.separated_by(ctrl(','))
            .at_least(1)
            .delimited_by(ctrl('<'), ctrl('>'))
    })
}

/// `#ttg.KIND<{key = value, ...}>`
fn attribute<'t, 's: 't, I>() -> impl Parser<'t, I, TritonAttribute, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
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
        });
        let entries = ident()
            .then_ignore(ctrl('='))
            .then(value)
            .map(|(key, value)| AttrEntry { key, value })
            .separated_by(ctrl(','))
            .allow_trailing()
            .collect::<Vec<_>>();
        just(Token::Hash)
            .ignore_then(ident())
            .then_ignore(ctrl('.'))
            .then(ident())
            .then(
                entries
                    .delimited_by(ctrl('{'), ctrl('}'))
                    .delimited_by(ctrl('<'), ctrl('>')),
            )
            .map(|((dialect, kind), entries)| TritonAttribute {
                dialect: dialect.name,
                kind,
                entries,
            })
    })
}

/// Splits `64x64xf16` into dims and element type.
fn tensor_dims(text: &str) -> Option<(Vec<i64>, String)> {
    let mut parts: Vec<&str> = text.split('x').map(str::trim).collect();
    let elem = parts.pop()?.to_string();
    if elem.is_empty() || elem.chars().next()?.is_ascii_digit() {
        return None;
    }
    let dims = parts
        .into_iter()
        .map(|p| p.parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    Some((dims, elem))
}

fn expr<'t, 's: 't, I>(src: &'s str) -> impl Parser<'t, I, Expr, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    let slice = move |s: SimpleSpan| src[s.start..s.end].to_string();
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
            just(Token::Hash)
                .ignore_then(ident())
                .map(|i| ExprKind::AliasRef(i.name)),
        ))
        .map_with(|kind, e| Expr {
            kind,
            span: span(e.span()),
        });
        let tensor = kw("tensor")
            .ignore_then(ctrl('<'))
            .ignore_then(
                any()
                    .filter(|t: &Token| !matches!(t, Token::Ctrl(',') | Token::Ctrl('>')))
                    .repeated()
                    .at_least(1)
                    .map_with(move |_, e| slice(e.span()))
                    .try_map(|text, s| {
                        tensor_dims(&text).ok_or_else(|| {
                            Rich::custom(
                                s,
                                format!("'{text}' is not a tensor shape like 64x64xf16"),
                            )
                        })
                    }),
            )
            .then(ctrl(',').ignore_then(encoding).or_not())
            .then_ignore(ctrl('>'))
            .map(|((dims, element_type), encoding)| {
                ExprKind::Tensor(TensorType {
                    dims,
                    element_type,
                    encoding: encoding.map(Box::new),
                })
            });
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
            .map(|(ins, outs)| ExprKind::Linear { ins, outs });
        let atom = choice((
            select! { Token::Int(n) => ExprKind::Int(n) },
            select! { Token::Str(s) => ExprKind::Str(s.to_string()) },
            kw("true").to(ExprKind::Bool(true)),
            kw("false").to(ExprKind::Bool(false)),
            kw("cute")
                .ignore_then(cute_text().map_with(move |_, e| ExprKind::Cute(slice(e.span())))),
            kw("xla").ignore_then(
                ident()
                    .then(ctrl('['))
                    .then(any().filter(|t: &Token| *t != Token::Ctrl(']')).repeated())
                    .then(ctrl(']'))
                    .then(
                        ctrl('{')
                            .then(any().filter(|t: &Token| *t != Token::Ctrl('}')).repeated())
                            .then(ctrl('}'))
                            .or_not(),
                    )
                    .map_with(move |_, e| ExprKind::Xla(slice(e.span()))),
            ),
            tensor,
            linear,
            tiler_text().map_with(move |_, e| ExprKind::Tiler(slice(e.span()))),
            attribute().map(ExprKind::Attribute),
            just(Token::Hash)
                .ignore_then(ident())
                .map(|i| ExprKind::AliasRef(i.name)),
            kw("_").to(ExprKind::Underscore),
            ident().map(|i| ExprKind::Name(i.name)),
            args.clone()
                .delimited_by(ctrl('('), ctrl(')'))
                .map(|mut args| {
                    if args.len() == 1 && args[0].name.is_none() {
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
        .boxed();
        let call = atom.foldl_with(
            args.delimited_by(ctrl('('), ctrl(')')).repeated(),
            |callee, args, e| Expr {
                kind: ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                },
                span: span(e.span()),
            },
        );
        let unary = just(Token::Op("-"))
            .repeated()
            .foldr_with(call, |_, operand, e| Expr {
                kind: ExprKind::Neg(Box::new(operand)),
                span: span(e.span()),
            });
        let binary = |op: Token<'s>, bop: BinaryOp| just(op).to(bop);
        let product = unary.clone().foldl_with(
            choice((
                binary(Token::Op("*"), BinaryOp::Mul),
                binary(Token::Op("/"), BinaryOp::Div),
                binary(Token::Op("%"), BinaryOp::Rem),
            ))
            .then(unary)
            .repeated(),
            |lhs, (op, rhs), e| Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span: span(e.span()),
            },
        );
        let sum = product.clone().foldl_with(
            choice((
                binary(Token::Op("+"), BinaryOp::Add),
                binary(Token::Op("-"), BinaryOp::Sub),
            ))
            .then(product)
            .repeated(),
            |lhs, (op, rhs), e| Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span: span(e.span()),
            },
        );
        let compare_op = choice((
            binary(Token::Op("=="), BinaryOp::Eq),
            binary(Token::Op("!="), BinaryOp::Ne),
            binary(Token::Op("<="), BinaryOp::Le),
            binary(Token::Op(">="), BinaryOp::Ge),
            binary(Token::Ctrl('<'), BinaryOp::Lt),
            binary(Token::Ctrl('>'), BinaryOp::Gt),
        ));
        sum.clone()
            .foldl_with(compare_op.then(sum).repeated(), |lhs, (op, rhs), e| Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span: span(e.span()),
            })
    })
    .labelled("an expression")
}

fn item<'t, 's: 't, I>(src: &'s str) -> impl Parser<'t, I, Item, Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    // One expression parser, cloned (cheaply) into every place that needs
    // it: building chumsky parsers is costly, parsing with them is not.
    let expr = expr(src);
    let field = ident()
        .then_ignore(ctrl('='))
        .then(expr.clone())
        .then_ignore(ctrl(',').or_not())
        .map(|(key, value)| Field { key, value });
    let fields = field
        .repeated()
        .collect::<Vec<_>>()
        .delimited_by(ctrl('{'), ctrl('}'));
    let module_attr = select! { Token::Str(s) => s.to_string() }
        .then_ignore(ctrl('='))
        .then(signed())
        .then_ignore(ctrl(':'))
        .then(ident())
        .map_with(|((key, value), ty), e| ModuleAttribute {
            key,
            value,
            ty: ty.name,
            span: span(e.span()),
        });
    let kind = choice((
        just(Token::Hash)
            .ignore_then(ident())
            .then_ignore(ctrl('='))
            .then(expr.clone())
            .map(|(name, value)| ItemKind::Alias { name, value }),
        kw("module")
            .ignore_then(kw("attributes"))
            .ignore_then(
                module_attr
                    .separated_by(ctrl(','))
                    .allow_trailing()
                    .collect::<Vec<_>>()
                    .delimited_by(ctrl('{'), ctrl('}')),
            )
            .map(|attributes| ItemKind::Module { attributes }),
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
    kind.then_ignore(ctrl(';').or_not())
        .map_with(|kind, e| Item {
            kind,
            span: span(e.span()),
        })
}

/// TTGIR's operation before the types, `ttg.convert_layout %41 :`, as a
/// dump prints it (the SSA value is not kept).
fn ttgir_convert_layout<'t, 's: 't, I>() -> impl Parser<'t, I, (), Err<'t, 's>> + Clone
where
    I: ValueInput<'t, Token = Token<'s>, Span = SimpleSpan>,
{
    choice((kw("ttg"), kw("triton_gpu")))
        .then(ctrl('.'))
        .then(kw("convert_layout"))
        .then(just(Token::Op("%")))
        .then(select! { Token::Ident(_) => (), Token::Int(_) => () })
        .then(ctrl(':'))
        .ignored()
}

/// Parses one item's tokens; a failed item becomes [`ItemKind::Error`].
pub fn parse_item<'s>(
    src: &'s str,
    tokens: &[Spanned<Token<'s>>],
    errors: &mut Vec<SyntaxError>,
) -> Item {
    let Some(first) = tokens.first() else {
        return Item {
            kind: ItemKind::Error,
            span: Span::default(),
        };
    };
    let last = tokens.last().map_or(first.1.end, |t| t.1.end);
    let eoi: SimpleSpan = (last..last).into();
    let (out, errs) = item(src)
        .parse(tokens.map(eoi, |(t, s)| (t, s)))
        .into_output_errors();
    for e in errs {
        errors.push(SyntaxError {
            span: span(*e.span()),
            message: describe(&e),
        });
    }
    out.unwrap_or(Item {
        kind: ItemKind::Error,
        span: Span::new(first.1.start, last),
    })
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
                    || matches!(t, Token::Ctrl('<') | Token::Ctrl('>'))
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
