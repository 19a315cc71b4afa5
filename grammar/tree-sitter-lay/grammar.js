/**
 * Tree-sitter grammar for .lay files (layoutc). It follows grammar/lay.ebnf;
 * a test parses every file of examples/ with it and expects no errors.
 */

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)), optional(','));
const commaSep = (rule) => optional(commaSep1(rule));

const PREC = { compare: 1, sum: 2, product: 3, unary: 4, apply: 5 };

module.exports = grammar({
  name: 'lay',

  extras: ($) => [/\s/, $.comment],

  word: ($) => $.identifier,

  rules: {
    source_file: ($) => repeat(seq($._item, optional(';'))),

    _item: ($) =>
      choice($.alias, $.module, $.layout, $.let, $.convert, $.check, $.target, $.solve),

    alias: ($) => seq('#', field('name', $.identifier), '=', field('value', $._expression)),
    module: ($) => seq('module', 'attributes', '{', commaSep($.module_attribute), '}'),
    module_attribute: ($) => seq($.string, '=', $.signed_integer, ':', $.identifier),
    layout: ($) => seq('layout', field('name', $.identifier), '=', field('value', $._expression)),
    let: ($) => seq('let', field('name', $.identifier), '=', field('value', $._expression)),
    convert: ($) =>
      seq(
        'convert',
        field('name', $.identifier),
        '=',
        optional($.ttgir_operation),
        field('source', $._expression),
        '->',
        field('destination', $._expression),
      ),
    ttgir_operation: ($) =>
      seq(choice('ttg', 'triton_gpu'), '.', 'convert_layout', '%', choice($.identifier, $.integer), ':'),
    check: ($) => seq('check', $._expression),
    target: ($) =>
      seq('target', optional(field('name', $.identifier)), choice(seq('=', field('preset', $.identifier)), $.block)),
    solve: ($) => seq('solve', field('name', $.identifier), $.block),
    block: ($) => seq('{', repeat(seq($.field, optional(','))), '}'),
    field: ($) => seq(field('key', $.identifier), '=', field('value', $._expression)),

    _expression: ($) =>
      choice($.binary_expression, $.unary_expression, $.call, $._atom),

    binary_expression: ($) =>
      choice(
        ...[
          [PREC.compare, choice('==', '!=', '<=', '>=', '<', '>')],
          [PREC.sum, choice('+', '-')],
          [PREC.product, choice('*', '/', '%')],
        ].map(([p, op]) =>
          prec.left(p, seq(field('left', $._expression), field('operator', op), field('right', $._expression))),
        ),
      ),
    unary_expression: ($) => prec(PREC.unary, seq('-', $._expression)),
    call: ($) => prec(PREC.apply, seq(field('function', $._expression), $.arguments)),
    arguments: ($) => seq('(', commaSep($.argument), ')'),
    argument: ($) => seq(optional(seq(field('name', $.identifier), '=')), $._expression),

    _atom: ($) =>
      choice(
        $.integer,
        $.string,
        $.boolean,
        $.cute,
        $.xla,
        $.tensor,
        $.linear,
        $.tiler,
        $.attribute,
        $.alias_reference,
        $.underscore,
        $.identifier,
        $.tuple,
        $.list,
      ),
    tuple: ($) => seq('(', commaSep($.argument), ')'),
    list: ($) => seq('[', commaSep($._expression), ']'),
    alias_reference: ($) => seq('#', $.identifier),
    underscore: (_) => '_',
    boolean: (_) => choice('true', 'false'),

    attribute: ($) =>
      seq('#', choice('ttg', 'triton_gpu'), '.', field('kind', $.identifier), '<', '{', commaSep($.attribute_entry), '}', '>'),
    attribute_entry: ($) => seq(field('key', $.identifier), '=', field('value', $._attribute_value)),
    _attribute_value: ($) =>
      choice(
        $.signed_integer,
        $.boolean,
        $.string,
        $.alias_reference,
        $.attribute,
        $.attribute_list,
        $.attribute_dictionary,
      ),
    attribute_list: ($) => seq('[', commaSep($._attribute_value), ']'),
    attribute_dictionary: ($) => seq('{', commaSep($.attribute_entry), '}'),

    tensor: ($) => seq('tensor', '<', $.tensor_shape, optional(seq(',', field('encoding', $._expression))), '>'),
    tensor_shape: (_) => token(prec(1, /([0-9]+x)*[A-Za-z_][A-Za-z0-9_]*/)),

    linear: ($) => seq('linear', '{', commaSep($.in_dim), '}', '->', '[', commaSep($.out_dim), ']'),
    in_dim: ($) => seq(field('name', $.identifier), ':', '[', commaSep($.basis), ']'),
    basis: ($) => seq('[', commaSep($.signed_integer), ']'),
    out_dim: ($) => seq(field('name', $.identifier), ':', $.signed_integer),

    cute: ($) =>
      seq('cute', choice(seq(optional(seq($.swizzle, 'o', optional(seq($.signed_integer, 'o')))), $.cute_layout), $.swizzle)),
    swizzle: ($) => seq('Sw', '<', $.signed_integer, ',', $.signed_integer, ',', $.signed_integer, '>'),
    cute_layout: ($) => prec.right(seq($._int_tuple, optional(seq(':', $._int_tuple)))),
    _int_tuple: ($) => choice($.signed_integer, $.int_tuple),
    int_tuple: ($) => seq('(', $._int_tuple, repeat(seq(',', $._int_tuple)), ')'),

    tiler: ($) => seq('<', $._tiler_mode, repeat(seq(',', $._tiler_mode)), '>'),
    _tiler_mode: ($) => choice($.underscore, $.tiler, $.cute_layout),

    xla: ($) => seq('xla', $.xla_shape),
    xla_shape: (_) => token(prec(1, /[a-z][a-z0-9]*\[[^\]\n]*\](\{[^}\n]*\})?/)),

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,
    integer: (_) => /[0-9]+/,
    signed_integer: (_) => /-?[0-9]+/,
    string: (_) => /"[^"\n]*"/,
    comment: (_) => token(seq('//', /[^\n]*/)),
  },
});
