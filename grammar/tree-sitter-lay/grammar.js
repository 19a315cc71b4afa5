/**
 * Tree-sitter grammar for .lay files (layoutc). It follows grammar/lay.ebnf;
 * a test parses every file of examples/ and every TTGIR dump of
 * tests/corpus/ttgir/ with it and expects no errors.
 *
 * Pasted MLIR operations are line-based, as in layoutc: an operation layoutc
 * does not analyse keeps the rest of its line as one `operation_text` token
 * (it may open a region with `{` that a later line closes), and a line that
 * starts with `}` continues the operation before it.
 */

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)), optional(','));
const commaSep = (rule) => optional(commaSep1(rule));

const PREC = { or: 1, and: 2, not: 3, compare: 4, sum: 5, product: 6, unary: 7, apply: 8 };

// The dialect of TTGIR's own operations and types.
const TTG = () => choice('ttg', 'triton_gpu');

module.exports = grammar({
  name: 'lay',

  extras: ($) => [/\s/, $.comment],

  word: ($) => $.identifier,

  rules: {
    source_file: ($) => repeat(seq($._item, optional(';'))),

    _item: ($) =>
      choice(
        $.alias,
        $.module,
        $.layout,
        $.let,
        $.convert,
        $.check,
        $.target,
        $.solve,
        $.operation,
        $.block_label,
      ),

    // Any item may end with the `loc(...)` of the line it was pasted from.
    alias: ($) =>
      seq('#', field('name', $.identifier), '=', field('value', $._expression), optional(field('location', $.location))),
    module: ($) =>
      seq(
        'module',
        optional(seq('@', field('symbol', $.identifier))),
        'attributes',
        '{',
        commaSep($.module_attribute),
        '}',
        // The `{` that opens the module's body, as a dump prints it (and the
        // `}` that closes it, when the body is not pasted).
        optional(seq('{', optional('}'))),
        optional(field('location', $.location)),
      ),
    // `"ttg.num-warps" = 4 : i32`, `ttg.target = "cuda:80"`, a unit attribute.
    module_attribute: ($) =>
      seq(
        field('key', choice($.string, $.identifier, $.dotted_name)),
        optional(seq('=', field('value', $._module_value))),
      ),
    dotted_name: ($) => seq($.identifier, repeat1(seq('.', $.identifier))),
    _module_value: ($) =>
      choice($.signed_integer, $.typed_integer, $.boolean, $.string, $.alias_reference, $.attribute),
    typed_integer: ($) => seq($.signed_integer, ':', field('type', $.identifier)),
    layout: ($) =>
      seq('layout', field('name', $.identifier), '=', field('value', $._expression), optional(field('location', $.location))),
    let: ($) =>
      seq('let', field('name', $.identifier), '=', field('value', $._expression), optional(field('location', $.location))),
    convert: ($) =>
      seq(
        'convert',
        field('name', $.identifier),
        '=',
        optional($.ttgir_operation),
        field('source', $._expression),
        '->',
        field('destination', $._expression),
        optional(field('location', $.location)),
      ),
    ttgir_operation: ($) => seq(TTG(), '.', 'convert_layout', $.ssa_value, ':'),
    check: ($) => seq('check', $._expression, optional(field('location', $.location))),
    target: ($) =>
      seq(
        'target',
        optional(field('name', $.identifier)),
        choice(seq('=', field('preset', $.identifier)), $.block),
        optional(field('location', $.location)),
      ),
    solve: ($) => seq('solve', field('name', $.identifier), $.block, optional(field('location', $.location))),
    block: ($) => seq('{', repeat(seq($.field, optional(','))), '}'),
    field: ($) => seq(field('key', $.identifier), '=', field('value', $._expression)),

    // A pasted MLIR operation. Those layoutc analyses are parsed in full and
    // declare their result (`name`); any other keeps the rest of its line.
    operation: ($) =>
      choice(
        // %41 = ttg.convert_layout %40 : SRC -> DST
        seq(
          field('name', $.ssa_value),
          '=',
          field('operator', alias($._convert_layout, $.operation_name)),
          $._analysed_operation,
        ),
        // %r = ttg.local_alloc %x : (SRC) -> DST, %r = ttg.local_load %b : SRC -> DST
        seq(
          field('name', $.ssa_value),
          '=',
          field('operator', alias($._local_alloc_or_load, $.operation_name)),
          $._analysed_operation,
        ),
        seq(field('operator', alias($._local_alloc_or_load, $.operation_name)), $._analysed_operation),
        // ttg.local_store %x, %b : SRC -> DST
        seq(
          optional(seq(field('result', $.ssa_value), '=')),
          field('operator', alias($._local_store, $.operation_name)),
          $._analysed_operation,
        ),
        // %5 = tt.load ..., tt.func ..., %a:2 = scf.for ..., "tt.reduce"(...) ...
        seq(
          optional(
            seq(
              field('result', $.ssa_value),
              optional(seq(':', field('count', $.integer))),
              repeat(seq(',', field('result', $.ssa_value), optional(seq(':', field('count', $.integer))))),
              '=',
            ),
          ),
          field('operator', choice($.operation_name, $.string)),
          optional($.operation_text),
          repeat($._continuation_line),
        ),
      ),
    _convert_layout: (_) => seq(TTG(), '.', 'convert_layout'),
    _local_alloc_or_load: (_) => seq(TTG(), '.', choice('local_alloc', 'local_load')),
    _local_store: (_) => seq(TTG(), '.', 'local_store'),
    // `%40 :` or `%a_109 token %a_108 :`, then the types.
    _analysed_operation: ($) =>
      seq(
        repeat(choice(field('operand', $.ssa_value), $.identifier, ',')),
        ':',
        field('source', $._expression),
        '->',
        field('destination', $._expression),
        optional(field('location', $.location)),
      ),
    operation_name: ($) => seq(choice($.identifier, 'ttg', 'triton_gpu'), repeat1(seq('.', $.identifier))),
    // The rest of a pasted line, from the first character that is not a
    // space (a `.` would continue the operation's name).
    operation_text: (_) => token.immediate(/[ \t]*[^.\s][^\n]*/),
    // `} loc(#loc)`, `}) : (...) -> ...`, `} else {`
    _continuation_line: ($) => seq('}', optional($.operation_text)),
    // `^bb0(%a: f32, %b: f32):`
    block_label: ($) =>
      seq($.label, optional($.operation_text), repeat($._continuation_line)),
    label: (_) => /\^[A-Za-z0-9$._-]+/,

    // Expressions, loosest first: or, and, not, comparisons, + -, * / %,
    // unary minus, application.
    _expression: ($) => choice($.binary_expression, $.unary_expression, $.call, $._atom),

    binary_expression: ($) =>
      choice(
        ...[
          [PREC.or, 'or'],
          [PREC.and, 'and'],
          [PREC.compare, choice('==', '!=', '<=', '>=', '<', '>', 'in')],
          [PREC.sum, choice('+', '-')],
          // `n%2` is a remainder; `%2` after a space is an SSA value.
          [PREC.product, choice('*', '/', '%', alias($._remainder, '%'))],
        ].map(([p, op]) =>
          prec.left(p, seq(field('left', $._expression), field('operator', op), field('right', $._expression))),
        ),
      ),
    _remainder: (_) => token.immediate(prec(1, '%')),
    unary_expression: ($) =>
      choice(
        prec(PREC.unary, seq(field('operator', '-'), field('operand', $._expression))),
        // `not a == b` is `not (a == b)`.
        prec(PREC.not, seq(field('operator', 'not'), field('operand', $._expression))),
      ),
    call: ($) => prec(PREC.apply, seq(field('function', $._expression), $.arguments)),
    arguments: ($) => seq('(', commaSep($.argument), ')'),
    argument: ($) => seq(optional(seq(field('name', $.identifier), '=')), $._expression),

    _atom: ($) =>
      choice(
        $.integer,
        $.static_integer,
        $.string,
        $.boolean,
        $.cute,
        $.xla,
        $.tensor,
        $.memdesc,
        $.linear,
        $.tiler,
        $.attribute,
        $.alias_reference,
        $.ssa_value,
        $.location,
        $.underscore,
        $.identifier,
        // `family = cute`, `family = linear`: the words alone, as values.
        prec(-1, alias(choice('cute', 'linear'), $.identifier)),
        $.tuple,
        $.list,
      ),
    tuple: ($) => seq('(', commaSep($.argument), ')'),
    list: ($) => seq('[', commaSep($._expression), ']'),
    alias_reference: ($) => seq('#', $.identifier),
    underscore: (_) => '_',
    boolean: (_) => choice('true', 'false'),

    // #ttg.blocked<{...}>, #ttg.shared_memory, #ttg.padded_shared<[32:+4] {...}>,
    // #ttg.shared_linear<{...}, alignment = 16>
    attribute: ($) =>
      prec.right(
        seq(
          '#',
          field('dialect', $.identifier),
          '.',
          field('kind', $.identifier),
          optional(
            seq(
              '<',
              repeat(seq(choice($.attribute_dictionary, $.padding, $.attribute_entry), optional(','))),
              '>',
            ),
          ),
        ),
      ),
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
    // `[32:+4, 64:+8]`: padding after every interval of elements.
    padding: ($) => seq('[', commaSep($.padding_interval), ']'),
    padding_interval: ($) =>
      seq(field('interval', $.signed_integer), ':', '+', field('padding', $.signed_integer)),

    tensor: ($) =>
      seq(
        'tensor',
        '<',
        field('shape', $.tensor_shape),
        optional(seq(',', field('encoding', choice($.attribute, $.alias_reference)))),
        '>',
      ),
    // `64x64xf16`, `128x!tt.ptr<f16>`
    tensor_shape: ($) =>
      choice(
        token(prec(1, /([0-9]+x)*[A-Za-z_][A-Za-z0-9_]*/)),
        seq(optional(token(prec(1, /([0-9]+x)+/))), $.pointer_type),
      ),
    pointer_type: ($) =>
      seq('!', $.identifier, '.', $.identifier, optional(seq('<', commaSep1(choice($.tensor_shape, $.integer)), '>'))),
    // `!ttg.memdesc<3x64x32xf16, #shared, #smem, mutable, 3x64x32>`
    memdesc: ($) =>
      seq(
        '!',
        TTG(),
        '.',
        'memdesc',
        '<',
        field('shape', $.tensor_shape),
        ',',
        field('encoding', choice($.attribute, $.alias_reference)),
        repeat(seq(',', choice('mutable', field('memory_space', choice($.attribute, $.alias_reference)), $.allocation_shape))),
        '>',
      ),
    allocation_shape: (_) => token(prec(1, /[0-9]+(x[0-9]+)*/)),

    // MLIR's locations: loc("file.py":12:5), loc("name"(#loc3)),
    // loc(callsite(#loc1 at #loc2)), loc(fused[#loc1, #loc2]), loc(unknown), loc(#loc7)
    location: ($) => seq('loc', '(', $._location_body, ')'),
    _location_body: ($) =>
      choice($.file_location, $.named_location, $.alias_reference, $.callsite_location, $.fused_location, $.unknown_location),
    file_location: ($) => seq(field('file', $.string), ':', field('line', $.integer), ':', field('column', $.integer)),
    named_location: ($) => seq(field('name', $.string), optional(seq('(', field('child', $._location_body), ')'))),
    callsite_location: ($) =>
      seq('callsite', '(', field('callee', $._location_body), 'at', field('caller', $._location_body), ')'),
    fused_location: ($) => seq('fused', '[', commaSep($._location_body), ']'),
    unknown_location: (_) => 'unknown',

    linear: ($) => seq('linear', '{', commaSep($.in_dim), '}', '->', '[', commaSep($.out_dim), ']'),
    in_dim: ($) => seq(field('name', $.identifier), ':', '[', commaSep($.basis), ']'),
    basis: ($) => seq('[', commaSep($.signed_integer), ']'),
    out_dim: ($) => seq(field('name', $.identifier), ':', $.signed_integer),

    // CuTe's printed notation: [Sw<B,M,S> o [offset o]] shape[:stride],
    // shape:stride o [offset o] Sw<B,M,S>, or a bare swizzle; integers as printed (`4`, `_4`, `_-1`), a tile as a
    // tuple of layouts `(_2:_4,_8)`.
    cute: ($) => seq('cute', $._cute_text),
    _cute_text: ($) =>
      choice(
        seq(optional(seq($.swizzle, 'o', optional(seq(choice($._cute_integer, $.smem_ptr), 'o')))), $.cute_layout),
        seq($.cute_layout, 'o', optional(seq($._cute_integer, 'o')), $.swizzle),
        $.swizzle,
      ),
    // GMMA's layout atoms: `smem_ptr[16b](unset)` in place of the offset.
    smem_ptr: ($) => seq('smem_ptr', '[', /[0-9]+b/, ']', optional(seq('(', $.identifier, ')'))),
    swizzle: ($) => seq('Sw', '<', $._cute_integer, ',', $._cute_integer, ',', $._cute_integer, '>'),
    cute_layout: ($) => prec.right(seq(field('shape', $._int_tuple), optional(seq(':', field('stride', $._int_tuple))))),
    _int_tuple: ($) => choice($._cute_integer, $.scaled_basis, $.int_tuple),
    // A ScaledBasis stride, `_1@0` (`n@i@j` nested), as make_identity_layout prints it.
    scaled_basis: ($) => seq($._cute_integer, repeat1(seq('@', $.integer))),
    int_tuple: ($) => seq('(', $._tuple_mode, repeat(seq(',', $._tuple_mode)), ')'),
    _tuple_mode: ($) => choice($._int_tuple, alias($._strided_mode, $.cute_layout)),
    _strided_mode: ($) => seq(field('shape', $._int_tuple), ':', field('stride', $._int_tuple)),
    _cute_integer: ($) => choice($.signed_integer, $.static_integer),

    tiler: ($) => seq('<', $._tiler_mode, repeat(seq(',', $._tiler_mode)), '>'),
    _tiler_mode: ($) => choice($.underscore, $.tiler, $._cute_text),

    xla: ($) => seq('xla', $.xla_shape),
    // The layout suffix nests (`{1,0:P((s32[10]{0:T(100)}))}`), here up to
    // three braces deep.
    xla_shape: (_) =>
      token(prec(1, /[a-z][a-z0-9]*\[[^\]\n]*\](\{([^{}\n]|\{([^{}\n]|\{[^{}\n]*\})*\})*\})?/)),

    // CuTe's static integer `_4` (also `_-1`); before identifier, so that it
    // wins where both could be read.
    static_integer: (_) => /_-?[0-9]+/,
    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,
    integer: (_) => /[0-9]+/,
    signed_integer: (_) => /-?[0-9]+/,
    string: (_) => /"[^"\n]*"/,
    // `%41`, `%c-1_i32`, `%acc_62#2`
    ssa_value: (_) => /%[A-Za-z0-9$._-]+(#[0-9]+)?/,
    comment: (_) => token(seq('//', /[^\n]*/)),
  },
});
