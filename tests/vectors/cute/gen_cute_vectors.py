#!/usr/bin/env python3
"""CuTe layout-algebra reference vectors, generated from the real systems.

Oracles (both installed from PyPI, both run on a CPU, no GPU needed)::

    pip install nvidia-cutlass==4.2.0.0 nvidia-cutlass-dsl==4.8.1

* ``pycute``      -- the pure-Python CuTe reference shipped in ``nvidia-cutlass``.
* CuTe DSL        -- ``cutlass.cute`` from ``nvidia-cutlass-dsl``; layouts built from static
  Python ints inside a ``@cute.jit`` function are folded by the CuTe MLIR dialect at trace
  time, so the algebra runs on a CPU. The DSL mirrors the C++ headers more closely than pycute.

Command (from the repository root)::

    python3 tests/vectors/cute/gen_cute_vectors.py

It rewrites ``tests/vectors/cute/generated.json`` next to this script. Deterministic: every
random choice comes from ``random.Random`` seeded with ``SEED`` and the op name, and the cases
are evaluated and kept in a fixed order. Runtime: well under a minute.

Keep rule (a case is written only where its output is known to equal the CuTe C++ behaviour):

* DSL and pycute agree exactly -> kept, output = that result;
* they differ -> kept only when the difference is one of the documented C++-vs-pycute
  differences (``shared/reference/NOTES.md``, "CuTe facts") and the DSL result is reproduced by a
  model of that documented C++ rule; output = the DSL result. Documented rules used here:
  right_inverse skips modes whose stride does not match (pycute stops at the first);
  left_inverse of an injective layout may differ off the image (C++ ``left_inverse(4:2) =
  (2,4):(0,1)``) -- both must be left inverses; two-argument idx2crd does not wrap the
  outermost mode;
* both fail -> a few kept with ``output: null`` (compositions / divides only);
* composition: R(i) == A(B(i)) for every i < size(B) is checked by direct evaluation (by mode for
  tilers), and so is the composition inside logical_divide (A o (B, complement(B, size A))) and
  inside logical_product ((A, complement(A, size A * cosize B) o B)) and everything built on them;
  a case failing it is dropped (C++'s weak divisibility check lets such wrong results through);
* complement (also the one inside divides/products): an input whose filtered layout is not
  injective is a C++ static_assert, so such cases are dropped even where DSL and pycute agree.

Extra oracle notes:

* pycute has no flat_divide, flat_product, blocked_product, raked_product: the ``pycute`` field
  for those is built from pycute's own primitives following the C++ definitions
  (flat_* = zipped_* with both modes unpacked one level; blocked/raked = ``logical_product`` of
  the operands padded with 1:0 modes to a common rank, then zipped -- no coalesce, CUTLASS >= 3.8).
* pycute's ``logical_product`` sends a bare-int tiler element to ``logical_divide``; the
  generator passes ``n`` as the layout ``n:1`` (the C++ meaning of a bare int).
* The DSL's ``complement`` needs a cotarget: without one, cosize(filter(L)) is passed (the C++
  default). Three-argument ``idx2crd(idx, shape, stride)`` is evaluated in the DSL as
  ``make_layout(shape, stride).get_hier_coord(idx)`` (C++ ``Layout::get_hier_coord`` is exactly
  that call). The DSL rejects by-mode tilers in zipped/tiled/flat_product, so those ops use
  layout operands only.

Only the installed packages are called; no CUTLASS source is copied here.
"""

import json
import math
import os
import random
import sys
import time
from collections import Counter, OrderedDict

SEED = 0xC0DE
COMMAND = "python3 tests/vectors/cute/gen_cute_vectors.py"
OUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated.json")
PYCUTE_PKG, PYCUTE_VERSION = "nvidia-cutlass", "4.2.0.0"
DSL_PKG, DSL_VERSION = "nvidia-cutlass-dsl", "4.8.1"
TABLE_MAX = 4096

from importlib import metadata  # noqa: E402

for _pkg, _ver in ((PYCUTE_PKG, PYCUTE_VERSION), (DSL_PKG, DSL_VERSION)):
    try:
        _have = metadata.version(_pkg)
    except metadata.PackageNotFoundError:
        sys.exit(f"need `pip install {_pkg}=={_ver}`")
    if _have != _ver:
        print(f"warning: {_pkg} {_have} installed, vectors were made with {_ver}", file=sys.stderr)

import pycute  # noqa: E402
import cutlass.cute as cute  # noqa: E402

# ----------------------------------------------------------------------------------------------
# Nested int tuples: parsing and CuTe-style printing
# ----------------------------------------------------------------------------------------------


def fmt(t):
    if isinstance(t, tuple):
        return "(" + ",".join(fmt(x) for x in t) + ")"
    return str(int(t))


def fmt_layout(shape, stride):
    return f"{fmt(shape)}:{fmt(stride)}"


def parse_tuple(s):
    s = s.replace(" ", "")
    pos = 0

    def item():
        nonlocal pos
        if s[pos] == "(":
            pos += 1
            out = []
            while True:
                out.append(item())
                if s[pos] == ",":
                    pos += 1
                    continue
                assert s[pos] == ")", s
                pos += 1
                return tuple(out)
        j = pos
        while j < len(s) and (s[j].isdigit() or s[j] == "-"):
            j += 1
        v = int(s[pos:j])
        pos = j
        return v

    v = item()
    assert pos == len(s), s
    return v


def parse_layout(s):
    sh, st = s.split(":")
    return parse_tuple(sh), parse_tuple(st)


def split_top(s):
    """Split 'a,b,c' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def parse_tiler(s):
    """'<t0,t1>' -> list of ('L', shape, stride) | ('I', n) | None."""
    assert s[0] == "<" and s[-1] == ">"
    out = []
    for e in split_top(s[1:-1]):
        if e == "_":
            out.append(None)
        elif ":" in e:
            out.append(("L",) + parse_layout(e))
        else:
            out.append(("I", int(e)))
    return out


def fmt_tiler(elems):
    parts = []
    for e in elems:
        if e is None:
            parts.append("_")
        elif e[0] == "I":
            parts.append(str(e[1]))
        else:
            parts.append(fmt_layout(e[1], e[2]))
    return "<" + ",".join(parts) + ">"


def flatten(t):
    if isinstance(t, tuple):
        return [y for x in t for y in flatten(x)]
    return [t]


def size_of(shape):
    return math.prod(flatten(shape))


def ev(shape, stride, i):
    """Layout function at 1-D index i (colexicographic; the last mode is not reduced)."""
    return pycute.crd2idx(i, shape, stride)


def table(shape, stride):
    return [ev(shape, stride, i) for i in range(size_of(shape))]


def cosize(shape, stride):
    return ev(shape, stride, size_of(shape) - 1) + 1


def playout(shape, stride):
    return pycute.Layout(shape, stride)


def pfmt(L):
    return fmt_layout(L.shape, L.stride)


def norm_dsl(x):
    if isinstance(x, tuple):  # coordinates come back as Python tuples
        return fmt(x)
    return str(x).replace(" ", "")


# ----------------------------------------------------------------------------------------------
# C++ facts that pycute lacks or gets differently (NOTES.md) -- models used to confirm a
# documented difference, never to produce an output on their own.
# ----------------------------------------------------------------------------------------------


class CheckFailed(Exception):
    pass


class CppError(Exception):
    pass


def complement_is_cpp_error(shape, stride):
    """C++ complement filters first, then static_asserts 'Non-injective Layout' when the next
    smallest stride is below the running cosize (new_shape == 0)."""
    f = pycute.filter(playout(shape, stride))
    modes = sorted(
        (d, s) for s, d in zip(flatten(f.shape), flatten(f.stride)) if s != 1 and d != 0
    )
    cur = 1
    for d, s in modes:
        if d // cur == 0:
            return True
        cur = d * s
    return False


def idx2crd_cpp(idx, shape):
    """Two-argument idx2crd: modes are peeled off with % and /, the last one is not wrapped."""
    if isinstance(shape, tuple):
        out = []
        for s in shape[:-1]:
            n = size_of(s)
            out.append(idx2crd_cpp(idx % n, s))
            idx //= n
        out.append(idx2crd_cpp(idx, shape[-1]))
        return tuple(out)
    return idx


def right_inverse_cpp(shape, stride):
    """pycute's right_inverse, but skipping (not stopping at) a mode whose stride does not match."""
    fs, fd = flatten(shape), flatten(stride)
    rows = sorted(zip(fd, fs, flatten(pycute.prefix_product(shape))))
    rs, rd, cur = [], [], 1
    for d, s, r in rows:
        if s == 1 or d != cur:
            continue
        rs.append(s)
        rd.append(r)
        cur = s * d
    return pfmt(pycute.coalesce(pycute.Layout(tuple(rs), tuple(rd))))


def check_composition(A, B, R):
    """R(i) == A(B(i)) for all i < size(B) and size(R) == size(B) (pycute Layouts)."""
    n = B.size()
    if R.size() != n:
        raise CheckFailed(f"size(R)={R.size()} != size(B)={n}")
    for i in range(n):
        if R(i) != A(B(i)):
            raise CheckFailed(f"R({i})={R(i)} != A(B({i}))={A(B(i))}")


def checked_composition(A, B):
    R = pycute.composition(A, B)
    check_composition(A, B, R)
    return R


def checked_complement(L, cotarget):
    if complement_is_cpp_error(L.shape, L.stride):
        raise CppError("static_assert: Non-injective Layout detected in complement.")
    return pycute.complement(L, cotarget)


def to_pycute_tiler(B, int_as_layout=False):
    if isinstance(B, list):
        out = []
        for e in B:
            if e is None:
                out.append(None)
            elif e[0] == "I":
                out.append(pycute.Layout(e[1], 1) if int_as_layout else e[1])
            else:
                out.append(playout(e[1], e[2]))
        return tuple(out)
    return playout(*B)


def modes_of(L):
    """Top-level modes of a pycute Layout as a list of Layouts."""
    if isinstance(L.shape, tuple):
        return [L[i] for i in range(len(L.shape))]
    return [L]


def ld_checked(A, B):
    """logical_divide with the C++ error model and the composition check, by mode for tilers."""
    if B is None:
        return A
    if isinstance(B, int):
        B = pycute.Layout(B, 1)
    if isinstance(B, tuple):
        mA = modes_of(A)
        assert len(mA) >= len(B)
        parts = [ld_checked(mA[i], B[i]) for i in range(len(B))] + mA[len(B):]
        return pycute.make_layout(*parts) if len(parts) > 1 else pycute.make_layout(parts[0])
    C = checked_complement(B, A.size())
    return checked_composition(A, pycute.make_layout(B, C))


def lp_checked(A, B):
    if B is None:
        return A
    if isinstance(B, int):
        B = pycute.Layout(B, 1)
    if isinstance(B, tuple):
        mA = modes_of(A)
        assert len(mA) >= len(B)
        parts = [lp_checked(mA[i], B[i]) for i in range(len(B))] + mA[len(B):]
        return pycute.make_layout(*parts) if len(parts) > 1 else pycute.make_layout(parts[0])
    C = checked_complement(A, A.size() * B.cosize())
    return pycute.make_layout(A, checked_composition(C, B))


def unpack2(L):
    """C++ result(repeat<R0>(_), repeat<R1>(_)) of a rank-2 layout: both modes unpacked one level."""
    parts = []
    for m in (L[0], L[1]):
        parts.extend(modes_of(m) if isinstance(m.shape, tuple) else [m])
    return pycute.make_layout(*parts)


def pad_to_rank(L, r):
    m = modes_of(L) if isinstance(L.shape, tuple) else [L]
    if len(m) >= r:
        return L
    return pycute.make_layout(*(m + [pycute.Layout(1, 0)] * (r - len(m))))


def block_raked_model(A, B, raked):
    """C++ >= 3.8: R = max rank; logical_product(append<R>(A), append<R>(B)); zip -- no coalesce."""
    ra = len(A.shape) if isinstance(A.shape, tuple) else 1
    rb = len(B.shape) if isinstance(B.shape, tuple) else 1
    r = max(ra, rb)
    Ap, Bp = pad_to_rank(A, r), pad_to_rank(B, r)
    P = lp_checked(Ap, Bp)
    first, second = (P[1], P[0]) if raked else (P[0], P[1])
    if not isinstance(first.shape, tuple):  # zip of non-tuples leaves the pair unchanged
        return pycute.make_layout(first, second)
    n = len(first.shape)
    return pycute.make_layout(*[pycute.make_layout(first[i], second[i]) for i in range(n)])


# ----------------------------------------------------------------------------------------------
# pycute evaluation: returns (string result, list of model check notes) or raises
# ----------------------------------------------------------------------------------------------


def pycute_eval(op, inp):
    if op == "coalesce":
        return pfmt(pycute.coalesce(playout(*parse_layout(inp["layout"]))))
    if op == "coalesce_profile":
        return pfmt(
            pycute.coalesce(playout(*parse_layout(inp["layout"])), parse_tuple(inp["profile"]))
        )
    if op == "filter":
        return pfmt(pycute.filter(playout(*parse_layout(inp["layout"]))))
    if op == "composition":
        return pfmt(pycute.composition(playout(*parse_layout(inp["A"])), pyB(inp["B"])))
    if op == "complement":
        L = playout(*parse_layout(inp["layout"]))
        if "cotarget" in inp:
            return pfmt(pycute.complement(L, int(inp["cotarget"])))
        return pfmt(pycute.complement(L))
    if op == "right_inverse":
        return pfmt(pycute.right_inverse(playout(*parse_layout(inp["layout"]))))
    if op == "left_inverse":
        return pfmt(pycute.left_inverse(playout(*parse_layout(inp["layout"]))))
    if op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide"):
        A, B = playout(*parse_layout(inp["A"])), pyB(inp["B"])
        fn = {
            "logical_divide": pycute.logical_divide,
            "zipped_divide": pycute.zipped_divide,
            "tiled_divide": pycute.tiled_divide,
            "flat_divide": lambda a, b: unpack2(pycute.zipped_divide(a, b)),
        }[op]
        return pfmt(fn(A, B))
    if op in ("logical_product", "zipped_product", "tiled_product", "flat_product"):
        A, B = playout(*parse_layout(inp["A"])), pyB(inp["B"], int_as_layout=True)
        fn = {
            "logical_product": pycute.logical_product,
            "zipped_product": pycute.zipped_product,
            "tiled_product": pycute.tiled_product,
            "flat_product": lambda a, b: unpack2(pycute.zipped_product(a, b)),
        }[op]
        return pfmt(fn(A, B))
    if op in ("blocked_product", "raked_product"):
        A, B = playout(*parse_layout(inp["A"])), playout(*parse_layout(inp["B"]))
        return pfmt(block_raked_model(A, B, op == "raked_product"))
    if op == "crd2idx":
        shape, stride = parse_layout(inp["layout"])
        return pycute.crd2idx(parse_tuple(inp["coord"]), shape, stride)
    if op == "idx2crd":
        return fmt(pycute.idx2crd(inp["idx"], parse_tuple(inp["shape"])))
    if op == "idx2crd_strided":
        return fmt(
            pycute.idx2crd(inp["idx"], parse_tuple(inp["shape"]), parse_tuple(inp["stride"]))
        )
    raise ValueError(op)


def pyB(s, int_as_layout=False):
    if s.startswith("<"):
        return to_pycute_tiler(parse_tiler(s), int_as_layout)
    return playout(*parse_layout(s))


def verify(op, inp, output):
    """Semantic checks of an agreed output, independent of both oracles.
    Raises CheckFailed / CppError."""
    checks = OrderedDict()
    if op == "composition":
        A = playout(*parse_layout(inp["A"]))
        R = playout(*parse_layout(output))
        if inp["B"].startswith("<"):
            tiler = parse_tiler(inp["B"])
            mA, mR = modes_of(A), modes_of(R)
            if len(tiler) > len(mA) or len(mR) != len(mA):
                raise CheckFailed("rank mismatch")
            for i, e in enumerate(tiler):
                if e is None:
                    if mR[i] != mA[i]:
                        raise CheckFailed("'_' mode changed")
                    continue
                Bi = pycute.Layout(e[1], 1) if e[0] == "I" else playout(e[1], e[2])
                check_composition(mA[i], Bi, mR[i])
            for i in range(len(tiler), len(mA)):
                if mR[i] != mA[i]:
                    raise CheckFailed("untiled mode changed")
            checks["R(i)==A(B(i)) for i<size(B), by mode"] = True
        else:
            B = playout(*parse_layout(inp["B"]))
            check_composition(A, B, R)
            checks["R(i)==A(B(i)) for i<size(B)"] = True
    elif op == "complement":
        if complement_is_cpp_error(*parse_layout(inp["layout"])):
            raise CppError("static_assert: Non-injective Layout detected in complement.")
    elif op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide"):
        ld_checked(playout(*parse_layout(inp["A"])), pyB(inp["B"]))
        checks["R == A o (B, complement(B, size A)) pointwise"] = True
    elif op in ("logical_product", "zipped_product", "tiled_product", "flat_product"):
        lp_checked(playout(*parse_layout(inp["A"])), pyB(inp["B"], int_as_layout=True))
        checks["mode1 == complement(A, size A * cosize B) o B pointwise"] = True
    elif op in ("blocked_product", "raked_product"):
        block_raked_model(
            playout(*parse_layout(inp["A"])),
            playout(*parse_layout(inp["B"])),
            op == "raked_product",
        )
        checks["inner logical_product composition pointwise"] = True
    elif op in ("left_inverse", "right_inverse"):
        pass
    return checks


# ----------------------------------------------------------------------------------------------
# DSL evaluation: thunks run at trace time inside one @cute.jit function per batch
# ----------------------------------------------------------------------------------------------


def dsl_layout(shape, stride):
    return cute.make_layout(shape, stride=stride)


def dsl_B(s):
    if s.startswith("<"):
        out = []
        for e in parse_tiler(s):
            if e is None:
                out.append(None)
            elif e[0] == "I":
                out.append(e[1])
            else:
                out.append(dsl_layout(e[1], e[2]))
        return tuple(out)
    return dsl_layout(*parse_layout(s))


def dsl_thunk(op, inp):
    def lay(key):
        return dsl_layout(*parse_layout(inp[key]))

    if op == "coalesce":
        return lambda: cute.coalesce(lay("layout"))
    if op == "coalesce_profile":
        return lambda: cute.coalesce(lay("layout"), target_profile=parse_tuple(inp["profile"]))
    if op == "filter":
        return lambda: cute.filter(lay("layout"))
    if op == "composition":
        return lambda: cute.composition(lay("A"), dsl_B(inp["B"]))
    if op == "complement":
        if "cotarget" in inp:
            ct = int(inp["cotarget"])
        else:  # C++ default cotarget: cosize(filter(L))
            ct = pycute.filter(playout(*parse_layout(inp["layout"]))).cosize()
        return lambda: cute.complement(lay("layout"), ct)
    if op == "right_inverse":
        return lambda: cute.right_inverse(lay("layout"))
    if op == "left_inverse":
        return lambda: cute.left_inverse(lay("layout"))
    if op in (
        "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
        "logical_product", "zipped_product", "tiled_product", "flat_product",
        "blocked_product", "raked_product",
    ):
        fn = getattr(cute, op)
        return lambda: fn(lay("A"), dsl_B(inp["B"]))
    if op == "crd2idx":
        return lambda: cute.crd2idx(parse_tuple(inp["coord"]), lay("layout"))
    if op == "idx2crd":
        return lambda: cute.idx2crd(inp["idx"], parse_tuple(inp["shape"]))
    if op == "idx2crd_strided":
        return lambda: dsl_layout(
            parse_tuple(inp["shape"]), parse_tuple(inp["stride"])
        ).get_hier_coord(inp["idx"])
    raise ValueError(op)


def _run_thunks(thunks, results):
    # A plain (undecorated) function: the DSL's AST rewriting applies only to the jit body.
    for th in thunks:
        try:
            results.append(("ok", norm_dsl(th())))
        except Exception as e:  # noqa: BLE001 -- any DSL failure is recorded as an error
            msg = " ".join(str(e).split())
            results.append(("err", f"{type(e).__name__}: {msg[:300]}"))


def dsl_batch(cases):
    results = []
    thunks = [dsl_thunk(op, inp) for op, inp in cases]

    @cute.jit
    def trace():
        _run_thunks(thunks, results)

    trace()
    assert len(results) == len(thunks)
    return results


# ----------------------------------------------------------------------------------------------
# Random inputs
# ----------------------------------------------------------------------------------------------

LEAF_SIZES = [1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8, 12, 16]
SMALL_LEAF = [1, 2, 2, 3, 4, 4, 5, 6, 8]


def rand_shape(rng, rank=None, max_size=256, leaves=LEAF_SIZES, tuple_p=0.35):
    for _ in range(1000):
        r = rank or rng.choice([1, 1, 2, 2, 2, 3])
        modes = []
        for _ in range(r):
            if rng.random() < tuple_p:
                modes.append(tuple(rng.choice(leaves) for _ in range(rng.choice([2, 2, 3]))))
            else:
                modes.append(rng.choice(leaves))
        shape = modes[0] if r == 1 and rng.random() < 0.85 else tuple(modes)
        if size_of(shape) <= max_size:
            return shape
    return rng.choice(leaves)


def unflatten(flat, like):
    it = iter(flat)

    def go(t):
        if isinstance(t, tuple):
            return tuple(go(x) for x in t)
        return next(it)

    return go(like)


def strides_for(rng, shape, kind):
    leaves = flatten(shape)
    n = len(leaves)
    if kind in ("col", "row", "perm", "gap"):
        order = list(range(n))
        if kind == "row":
            order.reverse()
        elif kind in ("perm", "gap"):
            rng.shuffle(order)
        st = [0] * n
        cur = 1
        for k in order:
            if kind == "gap" and rng.random() < 0.4:
                cur *= rng.choice([2, 3])
            st[k] = cur
            cur *= leaves[k]
    else:  # random strides
        st = [rng.choice([0, 1, 1, 2, 3, 4, 5, 6, 8, 12, 16, 32]) for _ in range(n)]
    # size-1 leaves: stride 0 by default (C++), sometimes anything
    st = [
        (0 if rng.random() < 0.7 else rng.choice([1, 3, 7])) if s == 1 else d
        for s, d in zip(leaves, st)
    ]
    return unflatten(st, shape)


def rand_layout(rng, kinds=("col", "row", "perm", "gap", "rand"), zero_p=0.1, **kw):
    shape = rand_shape(rng, **kw)
    kind = rng.choice(kinds)
    stride = strides_for(rng, shape, kind)
    if zero_p and rng.random() < zero_p:
        flat = flatten(stride)
        flat[rng.randrange(len(flat))] = 0
        stride = unflatten(flat, shape)
    return shape, stride


def lstr(L):
    return fmt_layout(*L)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def rand_sublayout(rng, m):
    """A small layout to tile a mode of size m: shape s (divides m) with stride d, or 2-mode."""
    s = rng.choice(divisors(m))
    r = rng.random()
    if r < 0.45:
        return (s, 1)
    if r < 0.8:
        ds = [d for d in divisors(m // s)] or [1]
        return (s, rng.choice(ds))
    # two modes, a permuted split of a divisor
    s1 = rng.choice(divisors(s))
    s2 = s // s1
    if rng.random() < 0.5:
        return ((s1, s2), (1, s1))
    return ((s1, s2), (s2, 1))


def rand_tiler(rng, shape, allow_none=True, int_p=0.35, full_rank_p=0.0):
    modes = list(shape) if isinstance(shape, tuple) else [shape]
    k = len(modes) if rng.random() < full_rank_p else rng.randint(1, len(modes))
    out = []
    for i in range(k):
        m = size_of(modes[i])
        r = rng.random()
        if allow_none and r < 0.12:
            out.append(None)
        elif r < 0.12 + int_p:
            out.append(("I", rng.choice(divisors(m))))
        else:
            sh, st = rand_sublayout(rng, m)
            out.append(("L", sh, st))
    if all(e is None for e in out):
        out[0] = ("I", 1 if size_of(modes[0]) == 1 else divisors(size_of(modes[0]))[1])
    return fmt_tiler(out)


def injective_layout(rng, max_size=256, **kw):
    shape = rand_shape(rng, max_size=max_size, **kw)
    return shape, strides_for(rng, shape, rng.choice(["col", "row", "perm", "gap", "gap"]))


def gen_inputs(op, rng):
    if op == "coalesce":
        return {"layout": lstr(rand_layout(rng, kinds=("col", "row", "perm", "gap", "rand")))}
    if op == "coalesce_profile":
        for _ in range(100):
            shape, stride = rand_layout(rng, tuple_p=0.6, rank=rng.choice([2, 3]))
            if isinstance(shape, tuple):
                break
        prof = []
        for m in shape[: rng.randint(1, len(shape))]:
            if isinstance(m, tuple) and rng.random() < 0.3:
                prof.append(tuple(1 for _ in m))
            else:
                prof.append(1)
        return {"layout": fmt_layout(shape, stride), "profile": fmt(tuple(prof))}
    if op == "filter":
        shape, stride = rand_layout(rng, zero_p=0.6)
        return {"layout": fmt_layout(shape, stride)}
    if op == "composition":
        A = rand_layout(rng, kinds=("col", "row", "perm", "gap", "gap", "rand"), zero_p=0.05)
        n = size_of(A[0])
        if rng.random() < 0.45:
            # C++ composition drops the modes of A that a shorter tiler does not reach (pycute
            # keeps them), so most tilers cover every mode
            return {"A": lstr(A), "B": rand_tiler(rng, A[0], full_rank_p=0.85)}
        if rng.random() < 0.5:
            # B: a layout whose image fits in [0, size(A))
            s = rng.choice(divisors(n))
            ds = divisors(n // s)
            B = (s, rng.choice(ds))
        else:
            Bs = rand_shape(rng, max_size=n, leaves=SMALL_LEAF)
            B = (Bs, strides_for(rng, Bs, rng.choice(["col", "row", "perm", "gap"])))
        return {"A": lstr(A), "B": lstr(B)}
    if op == "complement":
        if rng.random() < 0.8:
            L = injective_layout(rng, max_size=128)
        else:
            L = rand_layout(rng, max_size=64, zero_p=0.5)
        inp = {"layout": lstr(L)}
        if rng.random() < 0.5:
            cs = cosize(*L)
            inp["cotarget"] = str(rng.choice([cs, 2 * cs, cs + rng.randint(1, 9),
                                              rng.randint(1, 2 * cs), 4 * size_of(L[0])]))
        return inp
    if op in ("left_inverse", "right_inverse"):
        if rng.random() < 0.75:
            L = injective_layout(rng, max_size=128)
            if rng.random() < 0.3:  # sprinkle a stride-0 or size-1 mode
                flat_s, flat_d = flatten(L[0]), flatten(L[1])
                k = rng.randrange(len(flat_s))
                flat_d[k] = 0
                L = (unflatten(flat_s, L[0]), unflatten(flat_d, L[0]))
        else:
            L = rand_layout(rng, max_size=64, zero_p=0.3)
        return {"layout": lstr(L)}
    if op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide"):
        A = rand_layout(rng, kinds=("col", "row", "perm", "gap"), zero_p=0.05, max_size=256)
        if (op == "logical_divide" and rng.random() < 0.5) or (
            op != "logical_divide" and rng.random() < 0.55 and isinstance(A[0], tuple)
        ):
            return {"A": lstr(A), "B": rand_tiler(rng, A[0], allow_none=(op == "logical_divide"))}
        n = size_of(A[0])
        if rng.random() < 0.6:
            s = rng.choice(divisors(n))
            B = (s, rng.choice(divisors(n // s)))
        else:
            Bs = rand_shape(rng, max_size=n, leaves=SMALL_LEAF, rank=2)
            B = (Bs, strides_for(rng, Bs, rng.choice(["col", "row", "perm", "gap"])))
        return {"A": lstr(A), "B": lstr(B)}
    if op in ("logical_product", "zipped_product", "tiled_product", "flat_product"):
        A = injective_layout(rng, max_size=32, leaves=SMALL_LEAF)
        if op == "logical_product" and rng.random() < 0.35:
            # by-mode tiler: small per-mode layouts
            modes = list(A[0]) if isinstance(A[0], tuple) else [A[0]]
            k = rng.randint(1, len(modes))
            el = []
            for _ in range(k):
                r = rng.random()
                if r < 0.15:
                    el.append(None)
                elif r < 0.5:
                    el.append(("I", rng.choice([1, 2, 3, 4])))
                else:
                    s = rng.choice([2, 3, 4])
                    el.append(("L", s, rng.choice([1, 1, 2])))
            if all(e is None for e in el):
                el[0] = ("I", 2)
            return {"A": lstr(A), "B": fmt_tiler(el)}
        Bs = rand_shape(rng, max_size=16, leaves=[1, 2, 2, 3, 4])
        B = (Bs, strides_for(rng, Bs, rng.choice(["col", "row", "perm", "gap", "rand"])))
        return {"A": lstr(A), "B": lstr(B)}
    if op in ("blocked_product", "raked_product"):
        # max rank >= 2 (C++ zip of two rank-1 layouts is a corner we do not cover).
        # raked: the DSL flattens nested / drops padded size-1 modes (C++ does not), so most
        # raked candidates are flat, equal-rank and free of size-1 leaves.
        simple = op == "raked_product" and rng.random() < 0.8
        r = rng.choice([2, 2, 3])
        for _ in range(200):
            ra, rb = (r, r) if simple else (rng.choice([1, 2, 3]), rng.choice([1, 2, 3]))
            if max(ra, rb) < 2:
                continue
            lv = [2, 3, 4, 5, 6, 8] if simple else SMALL_LEAF
            As = rand_shape(rng, rank=ra, max_size=32, leaves=lv, tuple_p=0 if simple else 0.25)
            Bs = rand_shape(rng, rank=rb, max_size=16, leaves=[2, 2, 3, 4] if simple
                            else [1, 2, 2, 3, 4], tuple_p=0 if simple else 0.2)
            if (ra > 1) == isinstance(As, tuple) and (rb > 1) == isinstance(Bs, tuple):
                break
        A = (As, strides_for(rng, As, rng.choice(["col", "row", "perm", "gap"])))
        B = (Bs, strides_for(rng, Bs, rng.choice(["col", "row", "perm", "gap"])))
        return {"A": lstr(A), "B": lstr(B)}
    if op == "crd2idx":
        shape, stride = rand_layout(rng, max_size=512)
        n = size_of(shape)
        r = rng.random()
        if r < 0.35:
            crd = rng.randrange(n)
        elif r < 0.45:
            crd = n + rng.randrange(n + 1)  # beyond the size: the last mode extends
        elif r < 0.8:  # full hierarchical coordinate
            crd = unflatten([rng.randrange(s) for s in flatten(shape)], shape)
        else:  # per-mode 1-D coordinates
            if isinstance(shape, tuple):
                crd = tuple(rng.randrange(size_of(m)) for m in shape)
            else:
                crd = rng.randrange(n)
        return {"layout": fmt_layout(shape, stride), "coord": fmt(crd)}
    if op == "idx2crd":
        shape = rand_shape(rng, max_size=512)
        n = size_of(shape)
        idx = rng.randrange(n) if rng.random() < 0.7 else n + rng.randrange(2 * n + 1)
        return {"shape": fmt(shape), "idx": idx}
    if op == "idx2crd_strided":
        shape = rand_shape(rng, max_size=512, rank=rng.choice([1, 2, 2, 3]))
        stride = strides_for(rng, shape, rng.choice(["col", "row", "perm"]))
        # size-1 leaves keep a non-zero stride here (pycute divides by the stride)
        flat_s, flat_d = flatten(shape), flatten(stride)
        flat_d = [d if d else 1 for d in flat_d]
        stride = unflatten(flat_d, shape)
        n = size_of(shape)
        return {"shape": fmt(shape), "stride": fmt(stride), "idx": rng.randrange(n)}
    raise ValueError(op)


# ----------------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------------

# op -> (number to keep, number of candidates to draw)
PLAN = OrderedDict(
    [
        ("coalesce", (30, 120)),
        ("coalesce_profile", (16, 80)),
        ("filter", (16, 80)),
        ("composition", (64, 600)),
        ("complement", (56, 300)),
        ("right_inverse", (34, 200)),
        ("left_inverse", (34, 200)),
        ("logical_divide", (36, 400)),
        ("zipped_divide", (20, 300)),
        ("tiled_divide", (20, 300)),
        ("flat_divide", (20, 300)),
        ("logical_product", (36, 300)),
        ("zipped_product", (14, 150)),
        ("tiled_product", (14, 150)),
        ("flat_product", (14, 150)),
        ("blocked_product", (22, 250)),
        ("raked_product", (22, 250)),
        ("crd2idx", (30, 90)),
        ("idx2crd", (22, 90)),
        ("idx2crd_strided", (16, 60)),
    ]
)
MAX_BOTH_ERROR = {"composition": 4, "logical_divide": 2}
LAYOUT_OPS = {
    "coalesce", "coalesce_profile", "filter", "composition", "complement", "right_inverse",
    "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product",
    "raked_product",
}


def documented_difference(op, inp, py, dsl):
    """Return a note if pycute != DSL is a documented C++-vs-pycute difference that the DSL
    result reproduces; None otherwise."""
    if op == "right_inverse":
        shape, stride = parse_layout(inp["layout"])
        if right_inverse_cpp(shape, stride) != dsl:
            return None
        R = parse_layout(dsl)
        if all(ev(shape, stride, ev(*R, i)) == i for i in range(size_of(R[0]))):
            return ("documented: C++ right_inverse skips modes whose stride does not match, "
                    "pycute stops at the first")
        return None
    if op == "left_inverse":
        shape, stride = parse_layout(inp["layout"])
        img = table(shape, stride)
        if len(set(img)) != len(img):
            return None
        Rd, Rp = parse_layout(dsl), parse_layout(py)
        if all(ev(*Rd, v) == i and ev(*Rp, v) == i for i, v in enumerate(img)):
            return ("documented: C++ left_inverse differs from pycute off the image "
                    "(left_inverse(4:2) = (2,4):(0,1)); both are left inverses")
        return None
    if op == "idx2crd":
        if fmt(idx2crd_cpp(inp["idx"], parse_tuple(inp["shape"]))) == dsl:
            return "documented: two-argument idx2crd does not wrap the outermost mode (pycute wraps)"
        return None
    return None


def has_unit_leaf(inp):
    """Both-error cases are kept only without size-1 leaves in B (size-1 corners are where the
    oracles are least trustworthy as stand-ins for C++'s error behaviour)."""
    b = inp.get("B", "")
    if b.startswith("<"):
        els = parse_tiler(b)
        return any(e is not None and 1 in flatten(e[1]) for e in els)
    return bool(b) and 1 in flatten(parse_layout(b)[0])


def inverse_checks(op, inp, out):
    """Informational property checks of the kept output (not part of the keep rule)."""
    res = OrderedDict()
    if op not in ("right_inverse", "left_inverse", "complement"):
        return res
    L = parse_layout(inp["layout"])
    R = parse_layout(out)
    if max(size_of(L[0]), size_of(R[0])) > TABLE_MAX:
        return res
    if op == "right_inverse":
        res["L(R(i))==i for i<size(R)"] = all(
            ev(*L, ev(*R, i)) == i for i in range(size_of(R[0])))
    elif op == "left_inverse":
        res["R(L(i))==i for i<size(L)"] = all(
            ev(*R, ev(*L, i)) == i for i in range(size_of(L[0])))
    else:
        tr = table(*R)
        res["ordered"] = all(a < b for a, b in zip(tr, tr[1:]))
        res["disjoint"] = not (set(tr) & set(table(*L))) - {0}
    return res


def decide(op, inp, dsl_result, allow_both_error=True):
    """Apply the keep rule to one input. Returns (case or None, stat label, diff record or None)."""
    dkind, dval = dsl_result
    try:
        py, perr = pycute_eval(op, inp), None
    except Exception as e:  # noqa: BLE001
        py, perr = None, f"{type(e).__name__}: {e}".strip()
    if isinstance(py, str) and ("?" in py):
        py, perr = None, "non-static"
    dsl_ok = dkind == "ok" and "?" not in dval
    try:
        if op == "composition" and not dsl_ok:
            raise CheckFailed("no output to check")
        checks, cerr, cpp_err = verify(op, inp, dval if dsl_ok else None), None, None
    except CheckFailed as e:
        checks, cerr, cpp_err = None, str(e), None
    except CppError as e:
        checks, cerr, cpp_err = None, None, str(e)
    except Exception as e:  # noqa: BLE001 -- pycute failed inside a check
        checks, cerr, cpp_err = None, f"check: {type(e).__name__}: {e}", None
    case = OrderedDict(id=None, op=op, source="generated", inputs=inp)
    note = None
    if perr is None and dsl_ok:
        if str(py) == dval:
            if cerr is not None:
                return None, "dropped: agree but composition check fails", None
            if cpp_err is not None:
                return None, "dropped: agree but C++ static_assert (non-injective complement)", None
            output, pvs, dvs = py, "exact", "exact"
        else:
            note = documented_difference(op, inp, py, dval)
            if note is None or cerr is not None or cpp_err is not None:
                return (None, "dropped: pycute != DSL (undocumented)",
                        (f"{op}: pycute != DSL", {"inputs": inp, "pycute": py, "dsl": dval}))
            output, pvs, dvs = dval, "differ", "exact"
        case["output"] = output
        case["pycute"] = py
        case["pycute_vs_cpp"] = pvs
        case["dsl"] = dval
        case["dsl_vs_cpp"] = dvs
    elif perr is not None and not dsl_ok:
        if not allow_both_error or dkind != "err" or has_unit_leaf(inp):
            return None, "dropped: both error (quota or size-1 operand)", None
        case["output"] = None
        case["error"] = "rejected by both pycute and the CuTe DSL"
        case["pycute"] = None
        case["pycute_error"] = perr[:200]
        case["pycute_vs_cpp"] = "both_error"
        case["dsl"] = "ERROR " + dval
        case["dsl_vs_cpp"] = "both_error"
        checks = None
    else:
        who = "pycute" if perr else "DSL"
        return (None, f"dropped: {who} error only",
                (f"{op}: {who} error only",
                 {"inputs": inp, "pycute": py if perr is None else "ERROR " + perr,
                  "dsl": dval if dsl_ok else "ERROR " + dval}))
    if note:
        case["notes"] = note
    out = case["output"]
    if op in LAYOUT_OPS and out is not None:
        shape, stride = parse_layout(out)
        case["size"] = size_of(shape)
        case["cosize"] = cosize(shape, stride)
        if case["size"] <= TABLE_MAX:
            case["table"] = table(shape, stride)
    if out is not None:
        checks = checks or OrderedDict()
        checks.update(inverse_checks(op, inp, out))
    if checks:
        case["checks"] = checks
    return case, "kept: " + case["pycute_vs_cpp"], None


# ----------------------------------------------------------------------------------------------
# Validation of the keep rule against C++ results shipped with the project
# ----------------------------------------------------------------------------------------------

REF_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference", "cute")


def reference_cases():
    """(source, op, inputs, C++ output) from the C++-compiled sample and EXAMPLES.md."""
    out = []
    p = os.path.join(REF_DIR, "vectors_sample.json")
    if os.path.exists(p):
        with open(p) as f:
            for c in json.load(f)["cases"]:
                if c["op"] in PLAN:
                    out.append(("vectors_sample.json:" + c["id"], c["op"], c["inputs"], c["output"]))
    p = os.path.join(REF_DIR, "EXAMPLES.md")
    if os.path.exists(p):
        with open(p) as f:
            for n, line in enumerate(f, 1):
                if not line.startswith("- `") or "` -> `" not in line:
                    continue
                call, tail = line[3:].split("` -> `", 1)
                op, args = call.split("(", 1)
                if op not in PLAN:
                    continue
                inp = {}
                for a in split_top_angle(args[:-1]):
                    k, v = a.split("=", 1)
                    inp[k] = v
                out.append((f"EXAMPLES.md:{n}", op, inp, tail.split("`")[0]))
    return out


def split_top_angle(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "(<":
            depth += 1
        elif ch in ")>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def validate():
    refs = reference_cases()
    res = dsl_batch([(op, inp) for _, op, inp, _ in refs])
    summary = Counter()
    mismatches = []
    for (src, op, inp, expected), r in zip(refs, res):
        case, label, _ = decide(op, inp, r)
        if case is None:
            summary["dropped by the keep rule"] += 1
            continue
        if str(case["output"]) == str(expected) or (case["output"] is None and expected is None):
            summary["kept, equals C++"] += 1
        else:
            summary["kept, DIFFERS from C++"] += 1
            mismatches.append({"source": src, "inputs": inp, "ours": case["output"], "cpp": expected})
    return {"reference_cases": len(refs), **dict(summary), "mismatches": mismatches}


def main():
    t0 = time.time()
    validation = validate()
    print(f"keep rule on the C++ reference cases: {validation}", file=sys.stderr)
    if validation["mismatches"]:
        print("warning: the keep rule kept a case that differs from C++", file=sys.stderr)
    cases = []
    stats = OrderedDict()
    diffs = OrderedDict()  # undocumented differences: category -> (count, example)
    for op, (want, draws) in PLAN.items():
        rng = random.Random(f"{SEED}:{op}")
        seen, cands = set(), []
        for _ in range(draws * 4):
            if len(cands) >= draws:
                break
            inp = gen_inputs(op, rng)
            key = json.dumps(inp, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            cands.append(inp)
        dsl_res = dsl_batch([(op, inp) for inp in cands])
        st = Counter()
        kept = []
        both_err = 0
        for inp, r in zip(cands, dsl_res):
            if len(kept) >= want:
                break
            case, label, diff = decide(op, inp, r, both_err < MAX_BOTH_ERROR.get(op, 0))
            st[label] += 1
            if diff:
                c, ex = diffs.get(diff[0], (0, None))
                diffs[diff[0]] = (c + 1, ex or diff[1])
            if case is None:
                continue
            if case["output"] is None:
                both_err += 1
            case["id"] = f"{op}-g{len(kept):03d}"
            kept.append(case)
        if len(kept) < want:
            print(f"warning: {op}: kept {len(kept)} < {want}", file=sys.stderr)
        stats[op] = dict(sorted(st.items()))
        cases.extend(kept)
        print(f"{op:18s} kept {len(kept):3d} of {len(cands)} candidates  {dict(st)}",
              file=sys.stderr)

    counts = Counter(c["op"] for c in cases)
    meta = OrderedDict(
        description=(
            "CuTe layout algebra reference vectors generated from pycute and the CuTe DSL. "
            "output = the CuTe C++ behaviour (see keep_rule); printed like cute::print without "
            "static '_' markers. table[i] = output(i) for i < size (1-D colexicographic index), "
            "given when size <= 4096. Tiler notation: <t0,t1> = by-mode tiler, bare int n = n:1, "
            "'_' = no-op."
        ),
        command=COMMAND,
        seed=SEED,
        pycute_source=f"PyPI {PYCUTE_PKG} {PYCUTE_VERSION} (pycute/)",
        dsl_source=f"PyPI {DSL_PKG} {DSL_VERSION} (CPU, trace-time static evaluation)",
        keep_rule=[
            "DSL and pycute agree exactly -> kept, output = that",
            "they differ -> kept only for a documented C++-vs-pycute difference reproduced by "
            "the DSL (right_inverse skip, left_inverse off-image, 2-arg idx2crd no wrap); "
            "output = DSL",
            "both error -> a few kept with output null",
            "composition (also inside divides/products): R(i) == A(B(i)) checked pointwise; "
            "failures dropped",
            "complement (also inside divides/products) of a non-injective filtered layout is a "
            "C++ static_assert: dropped",
        ],
        num_cases=len(cases),
        counts=dict(counts),
        per_op_stats=stats,
        undocumented_differences={k: {"count": v[0], "example": v[1]} for k, v in diffs.items()},
        validation_against_cpp=validation,
    )
    with open(OUT_PATH, "w") as f:
        f.write("{\n")
        f.write(f'"meta": {json.dumps(meta, indent=1)},\n')
        f.write('"cases": [\n')
        f.write(",\n".join(json.dumps(c, separators=(", ", ": ")) for c in cases))
        f.write("\n]\n}\n")
    print(f"wrote {len(cases)} cases to {OUT_PATH} in {time.time() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
