#!/usr/bin/env python3
"""CuTe's corners from the C++ headers: slicing and dicing, upcast /
downcast / recast_layout, filter with a profile, make_layout_like,
compositions with swizzles on either side, inverses of swizzled layouts, and
coordinate layouts (ScaledBasis strides: make_identity_layout, evaluated,
composed and divided).

Writes ``corners.tsv`` next to this script, in the format of ``atoms.tsv``
(``id  lay  expected``): the ``.lay`` expression, and what ``cute::print``
prints for the same C++ expression, or ``static_assert: ...`` where C++
refuses it. Setup as in ``gen_cute_atoms.py``; the command, from the
repository root::

    python3 tests/vectors/cute/gen_cute_corners.py     # about 2 min on 2 cores

Deterministic: every case comes from ``random.Random(SEED)``.
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_cute_atoms import write_vectors  # noqa: E402
from gen_cute_cpp_vectors import layout_expr, tiler_expr  # noqa: E402

SEED = 3307


def fmt(t):
    return str(t) if isinstance(t, int) else "(" + ",".join(fmt(x) for x in t) + ")"


def rand_mode(rng, depth):
    if depth > 0 and rng.random() < 0.3:
        return [rand_mode(rng, depth - 1) for _ in range(rng.choice([2, 2, 3]))]
    return rng.choice([1, 2, 2, 3, 4, 4, 8])


def strides_for(rng, shape, allow_zero=True):
    """Strides: compact in a random order, sometimes with a zero or a gap."""
    leaves = []

    def walk(s):
        if isinstance(s, int):
            leaves.append(s)
        else:
            for x in s:
                walk(x)
    walk(shape)
    order = list(range(len(leaves)))
    rng.shuffle(order)
    stride = [0] * len(leaves)
    cur = 1
    for i in order:
        if allow_zero and rng.random() < 0.12:
            stride[i] = 0
            continue
        stride[i] = cur
        cur *= leaves[i] * (2 if rng.random() < 0.1 else 1)
    it = iter(stride)

    def build(s):
        if isinstance(s, int):
            return next(it)
        return [build(x) for x in s]
    return build(shape)


def rand_layout(rng, rank=None, allow_zero=True):
    rank = rank or rng.choice([1, 2, 2, 3])
    shape = [rand_mode(rng, 1) for _ in range(rank)]
    if rank == 1 and rng.random() < 0.5:
        shape = shape[0]
    return shape, strides_for(rng, shape, allow_zero)


def rand_coord(rng, shape, want_underscore=True):
    """A coordinate congruent (at the top) with the shape, with `_` in it."""
    if isinstance(shape, int):
        # An integer alone would evaluate the layout, not slice it.
        return "_" if want_underscore else rng.randrange(shape)
    out = []
    for s in shape:
        r = rng.random()
        if r < 0.4:
            out.append("_")
        elif r < 0.6 and not isinstance(s, int):
            out.append(rand_coord(rng, s))
        else:
            size = s if isinstance(s, int) else prod(s)
            out.append(rng.randrange(size))
    if want_underscore and "_" not in str(out):
        out[rng.randrange(len(out))] = "_"
    return out


def prod(t):
    if isinstance(t, int):
        return t
    p = 1
    for x in t:
        p *= prod(x)
    return p


def coord_lay(c):
    if isinstance(c, list):
        return "(" + ", ".join(coord_lay(x) for x in c) + ")"
    return str(c)


def coord_cpp(c):
    if isinstance(c, list):
        return "make_coord(" + ", ".join(coord_cpp(x) for x in c) + ")"
    if c == "_":
        return "_"
    return f"Int<{c}>{{}}"


def profile_of(rng, shape):
    if isinstance(shape, int) or rng.random() < 0.3:
        return 1
    return [profile_of(rng, s) if rng.random() < 0.3 else 1 for s in shape]


def cases(rng):
    out = []
    for _ in range(70):
        shape, stride = rand_layout(rng, allow_zero=False)
        text = f"{fmt(shape)}:{fmt(stride)}"
        c = rand_coord(rng, shape)
        out.append((f"(cute {text})({coord_lay(c)[1:-1] if isinstance(c, list) else c})",
                    f"slice({coord_cpp(c)}, {layout_expr(text)})"))
    for _ in range(50):
        shape, stride = rand_layout(rng, allow_zero=False)
        text = f"{fmt(shape)}:{fmt(stride)}"
        c = rand_coord(rng, shape)
        if not isinstance(c, list):
            continue
        out.append((f"dice({coord_lay(c)}, cute {text})", f"dice({coord_cpp(c)}, {layout_expr(text)})"))
    for _ in range(50):
        shape, stride = rand_layout(rng)
        text = f"{fmt(shape)}:{fmt(stride)}"
        n = rng.choice([2, 4, 8])
        out.append((f"upcast(cute {text}, {n})", f"upcast<{n}>({layout_expr(text)})"))
    for _ in range(40):
        shape, stride = rand_layout(rng)
        text = f"{fmt(shape)}:{fmt(stride)}"
        n = rng.choice([2, 4, 8])
        out.append((f"downcast(cute {text}, {n})", f"downcast<{n}>({layout_expr(text)})"))
    types = [("uint1_t", 1), ("uint8_t", 8), ("half_t", 16), ("float", 32), ("double", 64), ("uint128_t", 128)]
    for _ in range(50):
        shape, stride = rand_layout(rng)
        text = f"{fmt(shape)}:{fmt(stride)}"
        (a, _), (b, _) = rng.sample(types, 2)
        out.append((f'recast_layout(cute {text}, "{a}", "{b}")', f"recast_layout<{a}, {b}>({layout_expr(text)})"))
    for _ in range(40):
        shape, stride = rand_layout(rng)
        text = f"{fmt(shape)}:{fmt(stride)}"
        p = profile_of(rng, shape)
        out.append((f"filter(cute {text}, {fmt(p)})",
                    f"filter({layout_expr(text)}, {cpp_tuple(p)})"))
    for _ in range(30):
        shape, stride = rand_layout(rng)
        text = f"{fmt(shape)}:{fmt(stride)}"
        out.append((f"make_layout_like(cute {text})", f"make_layout_like({layout_expr(text)})"))
    for _ in range(20):
        shape, stride = rand_layout(rng, allow_zero=False)
        text = f"{fmt(shape)}:{fmt(stride)}"
        m, s = rng.choice([0, 1, 2, 3, 4]), rng.choice([3, 4, 5])
        out.append((f"composition(cute Sw<0,{m},{s}>, cute {text})",
                    f"composition(Swizzle<0,{m},{s}>{{}}, {layout_expr(text)})"))
    # Swizzles on the right of a composition, and inverses of swizzled
    # layouts, over compact power-of-two layouts (bijections).
    for _ in range(70):
        shape = [rng.choice([2, 4, 8, 16]) for _ in range(rng.choice([1, 2, 2, 3]))]
        stride = strides_for(rng, shape, allow_zero=False)
        size = prod(shape)
        if any(isinstance(x, int) and x != 0 and (x & (x - 1)) for x in stride) or size > 4096:
            continue
        text = f"{fmt(shape)}:{fmt(stride)}"
        bits = size.bit_length() - 1
        b = rng.randint(1, 3)
        s_ = rng.choice([-1, 1]) * rng.randint(b, max(b, bits - b))
        m = rng.randint(0, max(0, bits - b - abs(s_)))
        sw_lay, sw_cpp = f"Sw<{b},{m},{s_}>", f"Swizzle<{b},{m},{s_}>{{}}"
        kind = rng.choice(["right", "left", "compose", "compose_swizzled"])
        if kind == "right":
            out.append((f"right_inverse(cute {sw_lay} o {text})",
                        f"right_inverse(composition({sw_cpp}, {layout_expr(text)}))"))
        elif kind == "left":
            out.append((f"left_inverse(cute {sw_lay} o {text})",
                        f"left_inverse(composition({sw_cpp}, {layout_expr(text)}))"))
        elif kind == "compose":
            out.append((f"composition(cute {text}, cute {sw_lay})", f"composition({layout_expr(text)}, {sw_cpp})"))
        else:
            inner = f"{size}:1"
            out.append((f"composition(cute {text}, cute {sw_lay} o {inner})",
                        f"composition({layout_expr(text)}, composition({sw_cpp}, {layout_expr(inner)}))"))
    # Coordinate layouts (ScaledBasis strides), as make_identity_layout makes them.
    for _ in range(80):
        shape = [rng.choice([2, 4, 8, 16]) for _ in range(rng.choice([1, 2, 2, 3]))]
        if rng.random() < 0.25:
            shape[0] = [rng.choice([2, 4]), rng.choice([2, 4])]
        size = prod(shape)
        ident_lay = f"make_identity_layout({fmt(shape)})"
        ident_cpp = f"make_identity_layout({cpp_tuple(shape)})"
        kind = rng.choice(["print", "eval", "compose", "compose", "divide", "divide"])
        if kind == "print":
            out.append((ident_lay, ident_cpp))
        elif kind == "eval":
            i = rng.randrange(size)
            out.append((f"{ident_lay}({i})", f"{ident_cpp}(Int<{i}>{{}})"))
        elif kind == "compose":
            sub = [rng.choice([2, 4, 8]) for _ in range(rng.choice([1, 2]))]
            while prod(sub) > size:
                sub = sub[1:] or [2]
            stride = strides_for(rng, sub, allow_zero=False)
            text = f"{fmt(sub)}:{fmt(stride)}"
            out.append((f"composition({ident_lay}, cute {text})", f"composition({ident_cpp}, {layout_expr(text)})"))
        else:
            op = rng.choice(["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"])
            modes = shape if isinstance(shape, list) else [shape]
            tile = []
            for m in modes:
                n = prod(m)
                tile.append(str(rng.choice([d for d in (1, 2, 4) if n % d == 0])) if rng.random() < 0.8 else "_")
            tiler = "<" + ",".join(tile) + ">"
            out.append((f"{op}({ident_lay}, {tiler})", f"{op}({ident_cpp}, {tiler_expr(tiler)})"))
    out += empty_cases(rng) + offset_inverse_cases(rng) + coord_product_cases(rng)
    return out


def coord_product_cases(rng):
    """Products with a coordinate layout on either side: a product needs a
    complement, which ScaledBasis strides do not have, so C++ compiles none
    of them; layoutc refuses them too."""
    out = []
    products = ["logical_product", "zipped_product", "tiled_product", "flat_product",
                "blocked_product", "raked_product"]
    for _ in range(24):
        shape = [rng.choice([2, 4, 8]) for _ in range(2)]
        ident_lay = f"make_identity_layout({fmt(shape)})"
        ident_cpp = f"make_identity_layout({cpp_tuple(shape)})"
        other_shape, other_stride = rand_layout(rng, rank=2, allow_zero=False)
        other = f"{fmt(other_shape)}:{fmt(other_stride)}"
        op = rng.choice(products)
        if rng.random() < 0.5:
            out.append((f"{op}({ident_lay}, cute {other})", f"{op}({ident_cpp}, {layout_expr(other)})"))
        else:
            out.append((f"{op}(cute {other}, {ident_lay})", f"{op}({layout_expr(other)}, {ident_cpp})"))
    # By a coordinate layout C++ does multiply (its basis strides select
    # modes of the complement), when the complement has those modes.
    for _ in range(60):
        shape = [rng.choice([2, 4, 8]) for _ in range(rng.choice([1, 2, 2, 3]))]
        ident_lay = f"make_identity_layout({fmt(shape)})"
        ident_cpp = f"make_identity_layout({cpp_tuple(shape)})"
        other_shape, other_stride = rand_layout(rng, allow_zero=False)
        other = f"{fmt(other_shape)}:{fmt(other_stride)}"
        op = rng.choice(products[:4])
        out.append((f"{op}(cute {other}, {ident_lay})", f"{op}({layout_expr(other)}, {ident_cpp})"))
    return out


def with_empty_mode(rng, shape):
    """The shape with one leaf made 0."""
    leaves = []

    def walk(s, path):
        if isinstance(s, int):
            leaves.append(path)
        else:
            for i, x in enumerate(s):
                walk(x, path + [i])
    walk(shape, [])
    target = rng.choice(leaves)

    def build(s, path):
        if isinstance(s, int):
            return 0 if path == target else s
        return [build(x, path + [i]) for i, x in enumerate(s)]
    return build(shape, [])


def empty_cases(rng):
    """Layouts of size 0 (a mode of shape 0): what C++ gives, or where it
    divides by zero (at run time, or in a constant expression)."""
    out = []
    unary = ["size", "cosize", "coalesce", "filter", "make_layout_like", "right_inverse",
             "left_inverse", "complement"]
    by_tiler = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"]
    products = ["logical_product", "zipped_product", "tiled_product", "flat_product",
                "blocked_product", "raked_product"]
    for _ in range(120):
        shape, stride = rand_layout(rng, allow_zero=False)
        shape = with_empty_mode(rng, shape)
        z = f"{fmt(shape)}:{fmt(stride)}"
        a_shape, a_stride = rand_layout(rng, allow_zero=False)
        a = f"{fmt(a_shape)}:{fmt(a_stride)}"
        kind = rng.choice(["unary"] * 3 + ["compose_a_z", "compose_z_a", "cast", "tiler", "product",
                                           "product_z_a"])
        if kind == "unary":
            op = rng.choice(unary)
            out.append((f"{op}(cute {z})", f"{op}({layout_expr(z)})"))
        elif kind == "compose_a_z":
            out.append((f"composition(cute {a}, cute {z})", f"composition({layout_expr(a)}, {layout_expr(z)})"))
        elif kind == "compose_z_a":
            out.append((f"composition(cute {z}, cute {a})", f"composition({layout_expr(z)}, {layout_expr(a)})"))
        elif kind == "cast":
            op, n = rng.choice(["upcast", "downcast"]), rng.choice([2, 4])
            out.append((f"{op}(cute {z}, {n})", f"{op}<{n}>({layout_expr(z)})"))
        elif kind == "tiler":
            op, n = rng.choice(by_tiler), rng.choice([1, 2, 4])
            out.append((f"{op}(cute {z}, {n})", f"{op}({layout_expr(z)}, {tiler_expr(str(n))})"))
        elif kind == "product":
            op = rng.choice(products)
            out.append((f"{op}(cute {a}, cute {z})", f"{op}({layout_expr(a)}, {layout_expr(z)})"))
        else:
            op = rng.choice(products)
            out.append((f"{op}(cute {z}, cute {a})", f"{op}({layout_expr(z)}, {layout_expr(a)})"))
    return out


def offset_inverse_cases(rng):
    """Inverses of swizzled layouts with an offset, which C++ answers in the
    form `L o -k o Sw`; that form printed, evaluated and inverted back."""
    out = []
    for _ in range(60):
        shape = [rng.choice([2, 4, 8, 16]) for _ in range(rng.choice([1, 2, 2, 3]))]
        stride = strides_for(rng, shape, allow_zero=False)
        size = prod(shape)
        if size > 4096 or size < 4:
            continue
        text = f"{fmt(shape)}:{fmt(stride)}"
        bits = size.bit_length() - 1
        b = rng.randint(1, max(1, min(3, bits // 2)))
        s_ = rng.choice([-1, 1]) * rng.randint(b, max(b, bits - b))
        m = rng.randint(0, max(0, bits - b - abs(s_)))
        k = rng.randrange(1, size)
        sw_lay, sw_cpp = f"Sw<{b},{m},{s_}>", f"Swizzle<{b},{m},{s_}>{{}}"
        composed_lay = f"cute {sw_lay} o {k} o {text}"
        composed_cpp = f"composition({sw_cpp}, Int<{k}>{{}}, {layout_expr(text)})"
        kind = rng.choice(["right", "left", "eval", "round_trip", "print"])
        if kind == "right":
            out.append((f"right_inverse({composed_lay})", f"right_inverse({composed_cpp})"))
        elif kind == "left":
            out.append((f"left_inverse({composed_lay})", f"left_inverse({composed_cpp})"))
        elif kind == "eval":
            i = rng.randrange(size)
            out.append((f"(right_inverse({composed_lay}))({i})", f"right_inverse({composed_cpp})(Int<{i}>{{}})"))
        elif kind == "round_trip":
            out.append((f"right_inverse(right_inverse({composed_lay}))",
                        f"right_inverse(right_inverse({composed_cpp}))"))
        else:
            out.append((f"cute {text} o {-k} o {sw_lay}",
                        f"composition({layout_expr(text)}, Int<{-k}>{{}}, {sw_cpp})"))
    return out


def cpp_tuple(t):
    if isinstance(t, int):
        return f"Int<{t}>{{}}"
    return "make_shape(" + ", ".join(cpp_tuple(x) for x in t) + ")"


def main():
    write_vectors(cases(random.Random(SEED)), "corners.tsv")


if __name__ == "__main__":
    main()
