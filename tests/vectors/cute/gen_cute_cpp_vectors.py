#!/usr/bin/env python3
"""CuTe layout-algebra vectors from the CuTe C++ headers themselves.

Writes ``cpp_vectors.tsv`` next to this script. Every case becomes one line
of C++ (``case_N``) in a translation unit that includes
``gen_cute_cpp_vectors.hpp`` (the checks below, in C++); the units are
compiled host-only with g++ against the CUTLASS headers shipped in PyPI
``nvidia-cutlass`` (``cutlass_library/source/include``) and run; what C++
prints (``cute::print``) is the expected value. Where C++ refuses a case at
compile time (a ``static_assert``), the row says so with the assertion's
text: the generator compiles, maps each error to its case's line, drops those
cases and compiles again until the rest compiles, then checks that every
dropped case also fails to compile alone (without the checks).
``KEEP_CPP=path`` keeps the generated C++ for inspection.

Setup (once) and command, from the repository root::

    pip install nvidia-cutlass==4.2.0.0
    pip install --no-deps --target /tmp/cccl nvidia-cuda-cccl-cu12==12.9.27
    python3 tests/vectors/cute/gen_cute_cpp_vectors.py

The include directories are found as ``tests/corpus/cute/gen_cute_print.sh``
finds them (override with ``CUTE_INCLUDE``, ``CCCL_INCLUDE``,
``CUDART_INCLUDE``). Deterministic: the random cases come from
``random.Random(SEED)``.

Every integer is static (``Int<N>{}``): layoutc's CuTe values are all static,
so C++ prints them as ``_N``; the TSV's inputs are written without the
underscores (layoutc's notation).

Columns of ``cpp_vectors.tsv``::

    id  op  a  b  c  expected  true_fn  injective

* ``op`` and its arguments ``a``, ``b``, ``c`` (empty when absent):
  composition(a, b) (b a layout or a by-mode tiler ``<..>``, a bare ``n`` is
  ``n``), left_inverse(a), right_inverse(a), complement(a[, b]), coalesce(a[, b
  profile]), filter(a), logical/zipped/tiled/flat _divide/_product(a, b),
  blocked/raked_product(a, b), tile_to_shape(a, b shape[, c order]),
  crd2idx(a coord, b layout) and idx2crd(a idx, b shape). ``a`` may be a
  swizzled layout ``Sw<B,M,S> o L`` (C++ ``composition(Swizzle<B,M,S>{}, L)``,
  a ComposedLayout).
* ``expected``: C++'s ``cute::print`` of the result, or ``static_assert: MSG``
  when C++ does not compile the case (MSG is the assertion's text).
* ``true_fn``: for ops that compose (composition, the divides, the products,
  tile_to_shape): ``1`` when every composition inside is the true function,
  R(i) == A(B(i)) for i < size(B), with A evaluated by C++ past its size
  (along its last mode); ``0`` where C++ returns a layout that is not that
  function (layoutc refuses those); empty for other ops or refused cases.
* ``injective``: for complement and left_inverse, whether the input layout is
  injective on its domain (``1``/``0``), computed by C++ from its values.

No CUTLASS code is copied: the program only includes the headers and calls
the public API.
"""

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 4207
CHUNK = 60  # cases per translation unit

# ----------------------------------------------------------------------------
# CuTe text (layoutc's notation) -> C++ expressions


class Parser:
    def __init__(self, text):
        self.t = text.replace(" ", "")
        self.i = 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else ""

    def eat(self, c):
        if self.t.startswith(c, self.i):
            self.i += len(c)
            return True
        return False

    def expect(self, c):
        if not self.eat(c):
            raise ValueError(f"expected {c!r} at {self.i} in {self.t!r}")

    def end(self):
        if self.i != len(self.t):
            raise ValueError(f"trailing text in {self.t!r}")

    def integer(self):
        m = re.match(r"-?\d+", self.t[self.i:])
        if not m:
            raise ValueError(f"expected an integer at {self.i} in {self.t!r}")
        self.i += m.end()
        return int(m.group())

    def int_tuple(self):
        if self.eat("("):
            items = [self.int_tuple()]
            while self.eat(","):
                items.append(self.int_tuple())
            self.expect(")")
            return items
        return self.integer()

    def layout(self):
        shape = self.int_tuple()
        if self.eat(":"):
            return ("layout", shape, self.int_tuple())
        return ("shape_layout", shape)

    def tiler(self):
        if self.eat("<"):
            items = [self.tiler()]
            while self.eat(","):
                items.append(self.tiler())
            self.expect(">")
            return ("tile", items)
        if self.peek() == "_":
            self.i += 1
            return ("underscore",)
        save = self.i
        shape = self.int_tuple()
        if isinstance(shape, int) and not self.t.startswith(":", self.i):
            return ("int", shape)
        self.i = save
        return self.layout()

    def swizzled_or_layout(self):
        if self.eat("Sw<"):
            b = self.integer()
            self.expect(",")
            m = self.integer()
            self.expect(",")
            s = self.integer()
            self.expect(">")
            self.expect("o")
            return ("swizzled", (b, m, s), self.layout())
        return self.layout()


def cpp_int(n):
    return f"Int<{n}>{{}}"


def cpp_tuple(t, maker="make_shape"):
    if isinstance(t, int):
        return cpp_int(t)
    return f"{maker}(" + ", ".join(cpp_tuple(x, maker) for x in t) + ")"


def cpp_node(node):
    kind = node[0]
    if kind == "layout":
        return f"make_layout({cpp_tuple(node[1])}, {cpp_tuple(node[2], 'make_stride')})"
    if kind == "shape_layout":
        return f"make_layout({cpp_tuple(node[1])})"
    if kind == "swizzled":
        b, m, s = node[1]
        return f"composition(Swizzle<{b},{m},{s}>{{}}, {cpp_node(node[2])})"
    if kind == "tile":
        return "make_tile(" + ", ".join(cpp_node(x) for x in node[1]) + ")"
    if kind == "underscore":
        return "_"
    if kind == "int":
        return cpp_int(node[1])
    raise ValueError(kind)


def layout_expr(text):
    p = Parser(text)
    n = p.swizzled_or_layout()
    p.end()
    return cpp_node(n)


def tiler_expr(text):
    p = Parser(text)
    n = p.tiler()
    p.end()
    return cpp_node(n)


def tuple_expr(text, maker="make_shape"):
    p = Parser(text)
    n = p.int_tuple()
    p.end()
    return cpp_tuple(n, maker)


# ----------------------------------------------------------------------------
# The cases

DIVIDES = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"]
PRODUCTS = ["logical_product", "zipped_product", "tiled_product", "flat_product"]


def fixed_cases():
    c = []
    add = lambda op, *args: c.append((op,) + args)
    # 1. Compositions C++ 4.x gets right (ceil_div rule), and ones it gets wrong.
    for a, b in [
        ("(4,6):(1,5)", "2:3"), ("(6,2):(1,8)", "2:4"), ("(8,2):(6,1)", "3:3"),
        ("(12,2):(1,16)", "3:5"), ("(6,2):(1,10)", "4:4"), ("(4,6):(1,5)", "3:3"),
        ("(4,6):(1,5)", "2:6"), ("(4,6):(1,5)", "1:6"), ("(4,1):(1,0)", "8:1"),
        ("(6,2):(8,2)", "(4,3):(3,1)"), ("(4,3):(3,1)", "5:2"), ("(8,4):(1,8)", "(2,3):(3,8)"),
        ("((4,2),4):((2,1),8)", "(4,1,3):(32,32,32)"), ("(4,2):(1,4)", "(1,2):(5,4)"),
        ("(3,4):(1,3)", "(2,2):(2,6)"), ("(3,4):(1,3)", "2:5"), ("(10,4):(1,10)", "(3,2):(4,10)"),
        ("(6,6):(1,6)", "(2,3):(3,12)"), ("(5,3):(1,5)", "(2,2):(2,5)"), ("(4,6):(2,8)", "(2,4):(3,4)"),
        ("(2,3,4):(1,2,6)", "(3,2):(2,6)"), ("(2,3,4):(1,2,6)", "(2,3):(7,1)"),
        ("(8,8):(3,4)", "(1,5,(4,2)):(3,8,(2,1))"), ("8:2", "(1,4):(3,2)"), ("(4,4):(4,1)", "(2,1,2):(1,7,4)"),
        ("(6,4):(4,1)", "(3,2,2):(2,6,12)"), ("(3,3):(3,1)", "(1,1):(2,3)"),
        ("(4,8):(-1,4)", "(2,4):(2,4)"), ("(4,8):(1,-4)", "(2,4):(2,4)"),
    ]:
        add("composition", a, b)
    for a, b in [
        ("(12,(4,8)):(59,(13,1))", "<3:4,8:2>"), ("(4,6):(1,5)", "<2:3,3:2>"), ("(6,8):(1,6)", "<4:4,_>"),
        ("(8,4):(4,1)", "<3,2>"), ("(8,4):(4,1)", "<1,1>"), ("(2,6):(6,1)", "<1:1>"), ("(2,6):(6,1)", "<1>"),
        ("(4,(2,3)):(1,(12,4))", "<2,<2,3>>"), ("(6,2):(1,10)", "4"), ("(6,2):(1,8)", "1"),
        ("(8,(2,2)):(1,(16,8))", "<_,(2,2):(2,1)>"),
    ]:
        add("composition", a, b)
    # 2. left_inverse (quasi-inverse of non-injective layouts) and right_inverse.
    for a in [
        "(2,2):(1,1)", "(2,2):(2,2)", "4:0", "(4,2):(1,0)", "(4,2):(2,3)", "4:2", "(4,2):(2,8)",
        "(2,4):(0,1)", "(4,4):(1,2)", "(2,3):(1,1)", "(2,2,2):(1,0,2)", "(3,2):(2,3)", "(4,(2,2)):(2,(1,8))",
        "1:0", "1:7", "(1,1):(3,5)", "(8,2):(1,4)", "(2,2):(4,1)", "(2,4,2):(8,0,1)", "(4,2):(4,1)",
        "(3,4):(4,1)", "(2,2):(3,6)", "(3,3):(1,1)", "(2,(3,2)):(3,(1,0))", "8:-1", "(4,2):(-1,4)",
        "(2,2):(-2,1)", "(6,2):(1,4)", "(2,2):(1,3)",
    ]:
        add("left_inverse", a)
        add("right_inverse", a)
    # 3/4. complement, with failures that are and are not injective.
    for a, b in [
        ("(3,2):(2,3)", "12"), ("(3,2):(2,3)", ""), ("(2,2):(1,1)", "8"), ("(2,2):(1,3)", "12"),
        ("(2,2):(1,3)", ""), ("4:2", "19"), ("4:2", "(3,4)"), ("(2,2):(1,4)", "(4,8)"), ("4:0", "8"),
        ("1:0", "(2,3)"), ("(4,1):(1,0)", "16"), ("(2,3):(3,1)", "12"), ("(2,4):(4,1)", "16"),
        ("(4,2):(2,1)", "8"), ("(2,2):(2,3)", "16"), ("(3,4):(1,3)", "24"), ("2:3", "(6,4)"),
        ("(2,2):(3,12)", "(6,8)"), ("(4,(2,2)):(2,(1,16))", "64"), ("(3,4):(2,3)", "24"),
        ("(2,2):(4,1)", "(2,2)"), ("(2,2):(1,6)", "(4,6)"), ("3:2", "(2,2,3)"), ("(1,4):(5,3)", "(4,6)"),
    ]:
        add("complement", a, b)
    # 3. Results with size-1 modes.
    for a, b in [
        ("(1,4):(7,1)", ""), ("(4,1,8):(1,5,4)", ""), ("1:3", ""), ("(2,1):(1,9)", ""), ("(1,1):(3,5)", ""),
        ("((2,1),(1,3)):((1,7),(9,2))", "(1,1)"), ("(4,1,(1,2)):(1,5,(3,4))", "(1,1,1)"),
    ]:
        add("coalesce", a, b)
    for a in ["(1,4):(7,1)", "(4,1,8):(1,5,4)", "1:3", "(2,1):(0,9)", "(1,1):(3,5)", "(3,2,1):(0,3,4)"]:
        add("filter", a)
    for op in DIVIDES:
        for a, b in [
            ("(8,8):(1,8)", "<1,4>"), ("(8,8):(8,1)", "<4:2,1>"), ("((4,2),4):((2,1),8)", "(4,1,3):(32,32,32)"),
            ("(4,6):(1,4)", "<2,1:1>"), ("(6,4):(1,6)", "<3:2,2>"), ("(12,4):(4,1)", "<(2,2):(1,6),_>"),
            ("16:1", "1"), ("(4,6):(6,1)", "2:3"), ("(8,6):(1,8)", "(2,3):(1,8)"), ("24:1", "(2,2):(3,12)"),
            ("(4,8):(1,5)", "<_,4:2>"),
        ]:
            add(op, a, b)
    for op in PRODUCTS:
        for a, b in [
            ("(2,2):(1,2)", "(1,3):(0,1)"), ("(2,2):(2,1)", "<1,3>"), ("(2,5):(5,1)", "<3:1,4:1>"),
            ("4:1", "1"), ("(1,4):(0,1)", "(2,1):(1,0)"), ("3:2", "(2,2):(1,2)"), ("(2,3):(3,1)", "<2,_>"),
            ("(2,2):(1,4)", "3:1"), ("(4,2):(1,8)", "2:1"),
        ]:
            add(op, a, b)
    for op in ["blocked_product", "raked_product"]:
        for a, b in [
            ("(2,2):(1,2)", "(3,4):(1,3)"), ("(2,5):(5,1)", "(3,4):(1,3)"), ("4:1", "(2,3):(3,1)"),
            ("(2,2):(2,1)", "3:1"), ("(1,4):(0,1)", "(2,1):(1,0)"), ("(2,(2,2)):(2,(1,4))", "(2,2):(2,1)"),
            ("(4,2):(1,8)", "2:1"), ("(8,8):(8,1)", "(1,2):(0,1)"),
        ]:
            add(op, a, b)
    # Corners of the rank-1 products and of unzipping a mode left alone by `_`.
    for op in ["blocked_product", "raked_product"]:
        for a, b in [("4:1", "3:1"), ("(4):(1)", "3:1"), ("4:1", "(3):(1)"), ("(4):(2)", "(2,2):(1,8)")]:
            add(op, a, b)
    for op in DIVIDES:
        add(op, "(4,(2,3)):(1,(4,8))", "<2,_>")
        add(op, "(4,(2,3,2)):(1,(4,8,24))", "<2,_>")
    for op in PRODUCTS:
        add(op, "(2,(2,3)):(1,(4,8))", "<2,_>")
    add("complement", "(4,2):(-1,4)", "16")
    add("complement", "4:-2", "")
    # 5. tile_to_shape, plain and swizzled, with and without an order.
    for a, b, o in [
        ("(8,8):(8,1)", "(32,16)", ""), ("(8,8):(8,1)", "(32,16)", "(1,0)"), ("(8,8):(8,1)", "(32,16)", "(0,1)"),
        ("(8,64):(64,1)", "(128,64)", ""), ("(8,64):(64,1)", "(128,128)", "(1,0)"), ("(4,4):(1,4)", "(8,8,2)", ""),
        ("(4,4):(1,4)", "(8,8,2)", "(2,0,1)"), ("(4,4):(1,4)", "(8,8,2)", "(1,1,0)"), ("4:1", "(8,4)", ""),
        ("(2,3):(3,1)", "(6,6)", ""), ("(2,3):(3,1)", "(4,6)", "(1,0)"), ("(8,8):(8,1)", "(12,16)", ""),
        ("(8,8):(8,1)", "((16,2),16)", ""), ("((2,4),8):((1,16),2)", "((4,4),(8,2))", "(1,0)"),
        ("(8,8):(8,1)", "(8,8)", ""), ("(4,1):(1,0)", "(8,3)", ""), ("4:1", "8", ""), ("(8,8):(8,1)", "(8,16,2)", "(1,0,2)"),
        ("Sw<3,3,3> o (8,64):(64,1)", "(64,128)", ""), ("Sw<3,3,3> o (8,64):(64,1)", "(64,128)", "(1,0)"),
        ("Sw<2,3,3> o (8,32):(32,1)", "(32,64)", ""), ("Sw<1,4,3> o (8,16):(16,1)", "(16,16,2)", ""),
        ("Sw<3,4,3> o (8,64):(64,1)", "(16,64)", ""), ("Sw<2,4,3> o (8,32):(32,1)", "(24,32)", ""),
        ("Sw<3,3,3> o (64,8):(1,64)", "(128,64)", "(0,1)"), ("Sw<3,3,3> o (8,64):(64,1)", "(12,64)", ""),
    ]:
        add("tile_to_shape", a, b, o)
    # 5. Operations on swizzled (composed) layouts.
    sw = ["Sw<3,3,3> o (8,64):(64,1)", "Sw<2,4,3> o (8,32):(32,1)", "Sw<1,4,1> o (8,8):(8,1)",
          "Sw<3,4,3> o (8,(8,8)):(64,(1,8))", "Sw<2,3,-3> o (16,16):(1,16)"]
    for a, b in [(sw[0], "<4,16>"), (sw[0], "<2:4,_>"), (sw[1], "<4,8>"), (sw[2], "<2,4>"), (sw[3], "<4,<2,4>>"),
                 (sw[4], "<8,4>"), (sw[0], "(4,8):(8,1)"), (sw[2], "2:2")]:
        for op in DIVIDES + ["composition"]:
            add(op, a, b)
    for a, b in [(sw[2], "<2,3>"), (sw[1], "2:1"), (sw[0], "<1,2>"), (sw[4], "(2,2):(1,2)")]:
        for op in PRODUCTS:
            add(op, a, b)
    for a, b in [(sw[2], "(2,3):(1,2)"), (sw[1], "(2,2):(2,1)"), (sw[4], "4:1"), (sw[3], "(1,2):(0,1)")]:
        add("blocked_product", a, b)
        add("raked_product", a, b)
    for a in sw + ["Sw<2,4,3> o (4,2,8):(8,32,1)", "Sw<3,4,3> o ((2,4),8):((4,8),1)"]:
        add("coalesce", a, "")
    add("coalesce", sw[3], "(1,1)")
    add("coalesce", "Sw<2,4,3> o ((2,4),(2,4)):((1,2),(8,16))", "(1,_)" if False else "(1,1)")
    for a, crd in [(sw[0], "(3,5)"), (sw[0], "13"), (sw[0], "(7,63)"), (sw[1], "(5,9)"), (sw[2], "(6,7)"),
                   (sw[3], "(3,(2,5))"), (sw[3], "(3,21)"), (sw[3], "200"), (sw[4], "(9,3)"), (sw[4], "77")]:
        add("crd2idx", crd, a)
    for a, b in [(sw[0], ""), (sw[2], "128"), (sw[4], "")]:
        add("complement", a, b)
    return c


def rand_layout(rng, max_rank=3, nested=True, zero_ok=True, one_ok=True):
    rank = rng.randint(1, max_rank)
    leaves = [1, 2, 2, 3, 4, 4, 6, 8] if one_ok else [2, 2, 3, 4, 4, 6, 8]
    strides = [1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32] + ([0] if zero_ok else [])

    def mode():
        if nested and rng.random() < 0.25:
            return [rng.choice(leaves) for _ in range(2)]
        return rng.choice(leaves)

    shape = [mode() for _ in range(rank)]
    flat = [x for m in shape for x in (m if isinstance(m, list) else [m])]
    if rng.random() < 0.5:
        # a permuted compact layout
        order = list(range(len(flat)))
        rng.shuffle(order)
        st = [0] * len(flat)
        acc = 1
        for k in order:
            st[k] = acc if flat[k] != 1 or rng.random() < 0.5 else 0
            acc *= flat[k]
    else:
        st = [rng.choice(strides) for _ in flat]
    it = iter(st)
    stride = [[next(it) for _ in m] if isinstance(m, list) else next(it) for m in shape]
    if rank == 1 and rng.random() < 0.6:
        shape, stride = shape[0], stride[0]
    return f"{fmt(shape)}:{fmt(stride)}"


def fmt(t):
    if isinstance(t, int):
        return str(t)
    return "(" + ",".join(fmt(x) for x in t) + ")"


def random_cases():
    rng = random.Random(SEED)
    c = []
    for _ in range(160):
        a = rand_layout(rng)
        b = rand_layout(rng, max_rank=2)
        c.append(("composition", a, b))
    for _ in range(50):
        a = rand_layout(rng)
        c.append(("left_inverse", a))
        c.append(("right_inverse", a))
    for _ in range(40):
        a = rand_layout(rng)
        cot = rng.choice(["", str(rng.choice([8, 16, 24, 48, 64, 96])), fmt([rng.choice([2, 3, 4, 6]) for _ in range(2)])])
        c.append(("complement", a, cot))
    for _ in range(20):
        c.append(("coalesce", rand_layout(rng), ""))
    for _ in range(24):
        a = rand_layout(rng, max_rank=2, zero_ok=False)
        op = rng.choice(DIVIDES)
        if rng.random() < 0.5:
            t = rand_layout(rng, max_rank=2, nested=False, zero_ok=False)
        else:
            t = "<" + ",".join(rng.choice(["1", "2", "3", "4", "2:2", "_", "2:3"]) for _ in range(len(shape_modes(a)))) + ">"
        c.append((op, a, t))
    for _ in range(24):
        a = rand_layout(rng, max_rank=2, zero_ok=False)
        op = rng.choice(PRODUCTS + ["blocked_product", "raked_product"])
        t = rand_layout(rng, max_rank=2, nested=False)
        c.append((op, a, t))
    return c


def existing_cases():
    """The inputs of the other CuTe vector files (pycute / DSL results and
    transcribed examples), so that the C++ value of each is known too."""
    import json

    def conv(op, inp):
        g = lambda k: str(inp[k]) if k in inp else ""
        if op in ("coalesce", "filter", "left_inverse", "right_inverse"):
            return (op, g("layout"), "") if op == "coalesce" else (op, g("layout"))
        if op == "coalesce_profile":
            return ("coalesce", g("layout"), g("profile"))
        if op == "complement":
            return ("complement", g("layout"), g("cotarget"))
        if op == "crd2idx":
            return ("crd2idx", g("coord"), g("layout"))
        if op == "idx2crd":
            return ("idx2crd", g("idx"), g("shape"))
        if op == "idx2crd_strided":
            return ("idx2crd", g("idx"), g("shape"), g("stride"))
        if op in ("composition", "blocked_product", "raked_product") or op in DIVIDES + PRODUCTS:
            return (op, g("A"), g("B"))
        return None

    out = []
    root = os.path.dirname(HERE)
    for rel in ["reference/cute/vectors_sample.json", "cute/generated.json"]:
        with open(os.path.join(root, rel)) as f:
            for case in json.load(f)["cases"]:
                c = conv(case["op"], case["inputs"])
                if c:
                    out.append(c)
    with open(os.path.join(root, "reference/cute/EXAMPLES.md")) as f:
        for line in f:
            m = re.match(r"- `(\w+)\((.*)\)` -> `", line)
            if not m:
                continue
            parts, depth, start, text = [], 0, 0, m.group(2)
            for i, ch in enumerate(text):
                if ch in "(<":
                    depth += 1
                elif ch in ")>":
                    depth -= 1
                elif ch == "," and depth == 0:
                    parts.append(text[start:i])
                    start = i + 1
            parts.append(text[start:])
            inp = dict(p.strip().split("=", 1) for p in parts if "=" in p)
            c = conv(m.group(1), inp)
            if c:
                out.append(c)
    # The trailing empty arguments are dropped (as in the other cases).
    return [tuple(x for x in c if x != "") if c[0] not in ("coalesce", "complement") else c for c in out]


def shape_modes(text):
    p = Parser(text)
    n = p.layout()
    s = n[1]
    return s if isinstance(s, list) else [s]


# ----------------------------------------------------------------------------
# C++ program

PREAMBLE = '// Generated by gen_cute_cpp_vectors.py; do not edit.\n#include "gen_cute_cpp_vectors.hpp"\n'


def case_cpp(op, args):
    """(expression, check expression or None, facts expression or None)."""
    a, b, c = (list(args) + ["", "", ""])[:3]
    if op == "composition":
        A, B = layout_expr(a), tiler_expr(b)
        return f"composition({A}, {B})", f"tiler_ok(inner({A}), {B})", None
    if op in ("left_inverse", "right_inverse", "filter"):
        A = layout_expr(a)
        return f"{op}({A})", None, (f"injective({A})" if op == "left_inverse" else None)
    if op == "complement":
        A = layout_expr(a)
        e = f"complement({A}, {tuple_expr(b)})" if b else f"complement({A})"
        return e, None, f"injective({A})"
    if op == "coalesce":
        A = layout_expr(a)
        return (f"coalesce({A}, {tuple_expr(b)})" if b else f"coalesce({A})"), None, None
    if op in DIVIDES:
        A, B = layout_expr(a), tiler_expr(b)
        return f"{op}({A}, {B})", f"div_ok(inner({A}), {B})", None
    if op in PRODUCTS:
        A, B = layout_expr(a), tiler_expr(b)
        return f"{op}({A}, {B})", f"prod_ok(inner({A}), {B})", None
    if op in ("blocked_product", "raked_product"):
        A, B = layout_expr(a), layout_expr(b)
        return f"{op}({A}, {B})", f"rank_prod_ok(inner({A}), {B})", None
    if op == "tile_to_shape":
        A, S = layout_expr(a), tuple_expr(b)
        O = tuple_expr(c, "make_step") if c else "GenColMajor{}"
        e = f"tile_to_shape({A}, {S}, {O})" if c else f"tile_to_shape({A}, {S})"
        return e, f"tile_ok(inner({A}), {S}, {O})", None
    if op == "crd2idx":
        L = layout_expr(b)
        C = tuple_expr(a, "make_coord")
        if b.startswith("Sw<"):
            return f"({L})({C})", None, None
        return f"crd2idx({C}, {L})", None, None
    if op == "idx2crd":
        if c:
            return f"idx2crd({cpp_int(int(a))}, {tuple_expr(b)}, {tuple_expr(c, 'make_stride')})", None, None
        return f"idx2crd({cpp_int(int(a))}, {tuple_expr(b)})", None, None
    raise ValueError(op)


def case_line(i, op, args, with_check=True):
    e, chk, _ = case_cpp(op, args)
    ok = f"{chk}" if (chk and with_check) else '""'
    return f"static void case_{i}() {{ auto r = {e}; emit({i}, r, {ok}); }}"


def facts_line(i, op, args):
    _, _, f = case_cpp(op, args)
    body = f'printf("%d\\t%d\\n", {i}, {f});' if f else ""
    return f"static void facts_{i}() {{ {body} }}"


def program(cases, refused, with_check=True):
    """cases: list of (id, op, args). Refused ids get no case_ function."""
    lines = PREAMBLE.rstrip("\n").split("\n")
    line_of = {}
    for i, op, args in cases:
        if i not in refused:
            lines.append(case_line(i, op, args, with_check))
            line_of[len(lines)] = i
    for i, op, args in cases:
        lines.append(facts_line(i, op, args))
    lines.append("int main(int argc, char** argv) {")
    lines.append('  bool facts = argc > 1;')
    lines.append("  if (!facts) {")
    for i, _, _ in cases:
        if i not in refused:
            lines.append(f"    case_{i}();")
    lines.append("  } else {")
    for i, _, _ in cases:
        lines.append(f"    facts_{i}();")
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n", line_of


# ----------------------------------------------------------------------------
# Compiling


def find_includes():
    py = sys.executable

    def site_dir(mod):
        r = subprocess.run([py, "-c", f"import {mod},os;print(os.path.dirname({mod}.__file__))"],
                           capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""

    cute = os.environ.get("CUTE_INCLUDE") or os.path.join(site_dir("cutlass_library"), "source", "include")
    cccl = os.environ.get("CCCL_INCLUDE")
    if not cccl:
        cands = ["/tmp/cccl/nvidia/cuda_cccl/include",
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include")]
        cccl = next((c for c in cands if os.path.isfile(os.path.join(c, "cuda", "std", "utility"))), "")
    cudart = os.environ.get("CUDART_INCLUDE")
    if not cudart:
        cands = [os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include"),
                 os.path.join(site_dir("triton"), "backends", "nvidia", "include")]
        cudart = next((c for c in cands if os.path.isfile(os.path.join(c, "cuda_runtime_api.h"))), "")
    for name, v in [("CUTE_INCLUDE", cute), ("CCCL_INCLUDE", cccl), ("CUDART_INCLUDE", cudart)]:
        if not v or not os.path.isdir(v):
            sys.exit(f"error: {name} not found; see the docstring of {__file__}")
    if not os.path.isfile(os.path.join(cute, "cute", "layout.hpp")):
        sys.exit(f"error: no cute/ under {cute}")
    return ["-I" + HERE, "-I" + cute, "-isystem", cccl, "-isystem", cudart]


def compile_cpp(src, exe, flags, syntax_only=False):
    cmd = ["g++", "-std=c++17", "-O0", "-w", "-fmax-errors=100000"] + flags + [src]
    cmd += ["-fsyntax-only"] if syntax_only else ["-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def failing_cases(stderr, src_name, line_of):
    """Maps the errors of one compile to the cases (by line) and their messages."""
    fails = {}
    current = None
    for ln in stderr.splitlines():
        m = re.search(re.escape(src_name) + r":(\d+):", ln)
        if m and int(m.group(1)) in line_of:
            current = line_of[int(m.group(1))]
            fails.setdefault(current, None)
        if "error:" in ln and current is not None:
            msg = None
            sa = re.search(r"static assertion failed(?:: (.*))?$", ln)
            if sa:
                msg = "static_assert: " + (sa.group(1) or "").strip().strip('"')
            elif "static_assert" not in ln:
                msg = "compile error"
            if msg and (fails[current] is None or fails[current] == "compile error"):
                fails[current] = msg
    return {k: (v or "compile error") for k, v in fails.items()}


def find_refused(cases, flags, build, with_check=True, syntax_only=False):
    """Compiles the cases, dropping the ones g++ refuses, until the rest compiles.
    Returns ({id: message}, program text of the last round)."""
    src = os.path.join(build, "gen.cpp" if with_check else "alone.cpp")
    exe = os.path.join(build, "gen")
    refused = {}
    for _ in range(8):
        text, line_of = program(cases, refused, with_check)
        with open(src, "w") as f:
            f.write(text)
        ok, err = compile_cpp(src, exe, flags, syntax_only)
        if ok:
            return refused, text
        fails = failing_cases(err, os.path.basename(src), line_of)
        if not fails:
            sys.stderr.write(err[-4000:])
            sys.exit("error: the program does not compile, and no case is to blame")
        refused.update(fails)
    sys.exit("error: still failing after 8 rounds")


def run_chunk(cases, flags, build):
    refused, text = find_refused(cases, flags, build)
    # The refused ops alone (without the checks) must fail too: otherwise the
    # check helpers were to blame.
    if refused:
        alone = [(i, op, args) for i, op, args in cases if i in refused]
        again, _ = find_refused(alone, flags, build, with_check=False, syntax_only=True)
        wrong = set(refused) - set(again)
        if wrong:
            sys.exit(f"error: cases {sorted(wrong)} compile alone but not with their checks")
        for i in refused:
            if refused[i] == "compile error" and again[i] != "compile error":
                refused[i] = again[i]
    exe = os.path.join(build, "gen")
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    facts = subprocess.run([exe, "facts"], capture_output=True, text=True, check=True).stdout
    results = {}
    for ln in out.splitlines():
        i, printed, ok = ln.split("\t")
        results[int(i)] = (printed, ok)
    inj = {}
    for ln in facts.splitlines():
        i, v = ln.split("\t")
        inj[int(i)] = v
    return results, refused, inj, text


def main():
    flags = find_includes()
    cases = fixed_cases() + random_cases() + existing_cases()
    # Drop exact duplicates, keep order.
    seen, uniq = set(), []
    for c in cases:
        if c not in seen:
            seen.add(c)
            uniq.append(c)
    numbered = [(i, c[0], c[1:]) for i, c in enumerate(uniq)]
    build = tempfile.mkdtemp(prefix="gen_cute_cpp.")
    rows = []
    full_program = []
    try:
        for start in range(0, len(numbered), CHUNK):
            chunk = numbered[start:start + CHUNK]
            sys.stderr.write(f"cases {start}..{start + len(chunk) - 1}\n")
            results, refused, inj, text = run_chunk(chunk, flags, build)
            full_program.append(text)
            for i, op, args in chunk:
                a, b, c = (list(args) + ["", "", ""])[:3]
                if i in refused:
                    expected, ok = refused[i], ""
                else:
                    expected, ok = results[i]
                rows.append([str(i), op, a, b, c, expected, ok, inj.get(i, "")])
    finally:
        shutil.rmtree(build, ignore_errors=True)
    with open(os.path.join(HERE, "cpp_vectors.tsv"), "w") as f:
        f.write("id\top\ta\tb\tc\texpected\ttrue_fn\tinjective\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    if os.environ.get("KEEP_CPP"):
        # The generated translation units, for inspection (not checked in).
        with open(os.environ["KEEP_CPP"], "w") as f:
            f.write("\n// ---- next translation unit ----\n".join(full_program))
    refused_n = sum(1 for r in rows if r[5].startswith("static_assert") or r[5] == "compile error")
    print(f"wrote {len(rows)} cases ({refused_n} refused by C++) to {HERE}/cpp_vectors.tsv")


if __name__ == "__main__":
    main()
