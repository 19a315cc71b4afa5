#!/usr/bin/env python3
"""Cross-checks print.tsv: re-parses every printed layout / swizzle and
re-evaluates it independently of CuTe, then compares with the size, cosize
and table columns that the C++ program wrote.

Grammar handled (CuTe print format):
  int      := '_'? '-'? digits ('@' digits)*   ('_' = static, '@k' = basis)
  tuple    := '(' [ elem (',' elem)* ] ')'
  elem     := int | '_' | tuple | elem ':' elem   (the last inside tuples)
  layout   := elem ':' elem
  swizzle  := 'Sw<' int ',' int ',' int '>'
  composed := (swizzle | layout) ' o ' offset ' o ' (layout | swizzle)
Rows whose printed text has a basis stride ('@') or a pointer offset
('smem_ptr[...]') are only parsed, not evaluated.

Usage: python3 check_print.py [print.tsv]   (exit 1 on any mismatch)
"""
import os
import re
import sys


def parse_elem(s, i=0):
    if s[i] == "(":
        i += 1
        out = []
        if s[i] == ")":
            return tuple(out), i + 1
        while True:
            e, i = parse_elem(s, i)
            if s[i] == ":":  # a layout inside a tuple (tilers print so)
                d, i = parse_elem(s, i + 1)
                e = ("layout", e, d)
            out.append(e)
            if s[i] == ",":
                i += 1
                continue
            assert s[i] == ")", (s, i)
            return tuple(out), i + 1
    m = re.compile(r"_?-?\d+(@\d+)*|_").match(s, i)
    assert m, (s, i)
    tok = m.group(0)
    if "@" in tok or tok == "_":
        return tok, m.end()
    return int(tok.lstrip("_")), m.end()


def parse_full(s):
    e, i = parse_elem(s, 0)
    assert i == len(s), (s, i)
    return e


def flatten(t):
    if isinstance(t, tuple):
        for x in t:
            yield from flatten(x)
    else:
        yield t


def parse_layout(s):
    depth = 0
    for k, c in enumerate(s):
        depth += c == "("
        depth -= c == ")"
        if c == ":" and depth == 0:
            return parse_full(s[:k]), parse_full(s[k + 1:])
    raise ValueError(s)


def layout_fn(shape, stride):
    sh = list(flatten(shape))
    st = list(flatten(stride))
    assert len(sh) == len(st)

    def f(i):
        off = 0
        for n, d in zip(sh, st):  # colexicographic: first mode fastest
            off += (i % n) * d
            i //= n
        return off

    size = 1
    for n in sh:
        size *= n
    return f, size


def swizzle_fn(b, m, s):
    bits = (1 << b) - 1
    yyy = bits << (m + max(0, s))

    def f(x):
        y = x & yyy
        return x ^ (y >> s if s >= 0 else y << -s)

    return f


SW = re.compile(r"^Sw<(-?\d+),(-?\d+),(-?\d+)>$")


def parse_fn(text):
    """Returns (fn, size or None) or None when not evaluable."""
    if "@" in text or "smem_ptr" in text:
        return None
    if " o " in text:
        a, o, b = text.split(" o ")
        fa, _ = parse_fn(a)
        fb, size = parse_fn(b)
        off = int(o.lstrip("_"))
        return (lambda i: fa(off + fb(i))), size
    m = SW.match(text)
    if m:
        return swizzle_fn(*map(int, m.groups())), None
    if ":" in text:
        try:
            return layout_fn(*parse_layout(text))
        except ValueError:  # a tuple of layouts (tiler), not a function
            return None
    return None


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "print.tsv")
    rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
    bad = checked = parsed = 0
    for what, printed, size, cosize, table in rows:
        # every printed text must at least parse
        for part in printed.split(" o "):
            if SW.match(part) or part.startswith("smem_ptr"):
                continue
            try:
                parse_full(part)  # IntTuple, coordinate, tiler
            except AssertionError:
                parse_layout(part)
        parsed += 1
        r = parse_fn(printed)
        if r is None or not table:
            continue
        fn, n = r
        vals = [int(v) for v in table.split(",")]
        m = re.search(r" @ (\d+)\*i$", what)
        step = int(m.group(1)) if m else 1
        got = [fn(step * i) for i in range(len(vals))]
        ok = got == vals
        if n is not None:
            ok &= int(size) == n
            if cosize and " o " not in printed and all(
                    isinstance(d, int) and d >= 0 for d in flatten(parse_layout(printed)[1])):
                # cute::cosize == max(L(i)) + 1 over the whole domain
                ok &= int(cosize) == max(fn(i) for i in range(n)) + 1
        checked += 1
        if not ok:
            bad += 1
            print("MISMATCH", what, printed, size, cosize, table, got, sep="\n  ")
    print(f"{parsed} rows parsed, {checked} tables re-evaluated, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
