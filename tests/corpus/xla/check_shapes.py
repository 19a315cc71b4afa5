#!/usr/bin/env python3
"""Checks the corpus against the grammar written down in README.md.

Every line of shapes.txt must parse, every line of layouts.txt must parse as
a bare layout, and every line of shapes_invalid.txt must be rejected.
This is an independent re-statement of the grammar (written from the
description in README.md), not XLA code.

Usage: python3 check_shapes.py   (exit 1 on any failure)
"""
import os
import re
import sys

TYPES = {
    "pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64",
    "u1", "u2", "u4", "u8", "u16", "u32", "u64",
    "f16", "f32", "bf16", "f64",
    "f8e5m2", "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e3m4",
    "f8e5m2fnuz", "f8e4m3fnuz", "f4e2m1fn", "f8e8m0fnu",
    "c64", "c128", "token", "opaque",
}
UNSIGNED = {"u1", "u2", "u4", "u8", "u16", "u32", "u64"}

TOKEN = re.compile(r"\s*(<=|-?\d+|[A-Za-z_][A-Za-z0-9_]*|[\[\](){}:,*#?+~])")


class Bad(Exception):
    pass


class P:
    def __init__(self, text):
        self.toks = []
        i = 0
        text = text.rstrip()
        while i < len(text):
            m = TOKEN.match(text, i)
            if not m:
                raise Bad(f"bad char at {i}: {text[i:]!r}")
            self.toks.append(m.group(1))
            i = m.end()
        self.i = 0

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def eat(self, t=None):
        tok = self.peek()
        if tok is None or (t is not None and tok != t):
            raise Bad(f"expected {t!r}, got {tok!r}")
        self.i += 1
        return tok

    def int(self):
        tok = self.eat()
        if not re.fullmatch(r"-?\d+", tok):
            raise Bad(f"expected int, got {tok!r}")
        return int(tok)

    def shape(self):
        if self.peek() == "(":  # tuple (only inside P(...))
            self.eat("(")
            elems = []
            if self.peek() != ")":
                elems.append(self.shape())
                while self.peek() == ",":
                    self.eat(",")
                    elems.append(self.shape())
            self.eat(")")
            return ("tuple", elems)
        ty = self.eat()
        if ty not in TYPES:
            raise Bad(f"unknown element type {ty!r}")
        self.eat("[")
        dims = []
        if self.peek() != "]":
            while True:
                if self.peek() == "?":
                    self.eat("?")
                    dims.append("?")
                else:
                    bounded = self.peek() == "<="
                    if bounded:
                        self.eat("<=")
                    n = self.int()
                    if n < 0:
                        raise Bad("negative dimension")
                    dims.append(f"<={n}" if bounded else n)
                if self.peek() != ",":
                    break
                self.eat(",")
        self.eat("]")
        layout = None
        # '{' starts a layout only if followed by an int or ':'
        if self.peek() == "{" and (self.peek(1) == ":" or re.fullmatch(r"-?\d+", self.peek(1) or "")):
            layout = self.layout()
            if len(layout["minor_to_major"]) != len(dims):
                raise Bad(f"Dimensions size is {len(dims)}, but minor to major size is "
                          f"{len(layout['minor_to_major'])}.")
            if "P" in layout and not layout.get("sparse"):
                raise Bad("Layout has physical shape, but is not for a sparse array")
        return (ty, dims, layout)

    def paren_int(self):
        self.eat("(")
        n = self.int()
        self.eat(")")
        return n

    def layout(self):
        out = {"minor_to_major": []}
        self.eat("{")
        if re.fullmatch(r"-?\d+", self.peek() or ""):
            out["minor_to_major"].append(self.int())
            while self.peek() == ",":
                self.eat(",")
                out["minor_to_major"].append(self.int())
        if self.peek() == ":":
            self.eat(":")
            if self.peek() == "D":  # dim level types (sparse era)
                self.eat("D")
                self.eat("(")
                levels = []
                while True:
                    lv = self.eat()
                    if lv not in ("D", "C", "S", "H"):
                        raise Bad("expected a DimLevelType abbreviation")
                    while self.peek() in ("+", "~"):
                        self.eat()
                    levels.append(lv)
                    if self.peek() != ",":
                        break
                    self.eat(",")
                self.eat(")")
                out["D"] = levels
                out["sparse"] = any(lv != "D" for lv in levels)
            if self.peek() == "T":
                self.eat("T")
                tiles = []
                while self.peek() == "(":
                    self.eat("(")
                    t = []
                    if self.peek() != ")":
                        while True:
                            if self.peek() == "*":
                                self.eat("*")
                                t.append("*")
                            else:
                                t.append(self.int())
                            if self.peek() != ",":
                                break
                            self.eat(",")
                    self.eat(")")
                    tiles.append(t)
                out["T"] = tiles
            if self.peek() == "L":
                self.eat("L")
                out["L"] = self.paren_int()
            for sigil in ("#", "*"):
                if self.peek() == sigil:
                    self.eat(sigil)
                    self.eat("(")
                    ty = self.eat()
                    if ty not in UNSIGNED:
                        raise Bad("expecting an unsigned integer type")
                    self.eat(")")
                    out[sigil] = ty
            for key in ("E", "S"):
                if self.peek() == key:
                    self.eat(key)
                    out[key] = self.paren_int()
            if self.peek() == "SC":
                self.eat("SC")
                scs = []
                while self.peek() == "(":
                    self.eat("(")
                    dim = self.int()
                    self.eat(":")
                    idx = [self.int()]
                    while self.peek() == ",":
                        self.eat(",")
                        idx.append(self.int())
                    self.eat(")")
                    scs.append((dim, idx))
                out["SC"] = scs
            if self.peek() == "P":
                self.eat("P")
                self.eat("(")
                out["P"] = self.shape()
                self.eat(")")
            if self.peek() == "M":
                self.eat("M")
                out["M"] = self.paren_int()
        self.eat("}")
        return out


def parse_shape(text):
    p = P(text)
    s = p.shape()
    if p.peek() is not None:
        raise Bad(f"trailing {p.toks[p.i:]}")
    return s


def parse_layout(text):
    p = P(text)
    lay = p.layout()
    if p.peek() is not None:
        raise Bad(f"trailing {p.toks[p.i:]}")
    return lay


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    fails = 0
    n = 0
    for line in open(os.path.join(here, "shapes.txt")):
        text = line.split("\t")[0]
        n += 1
        try:
            parse_shape(text)
        except Bad as e:
            fails += 1
            print("should parse:", text, "->", e)
    for line in open(os.path.join(here, "layouts.txt")):
        text = line.split("\t")[0]
        n += 1
        if "Invalid value" in text:  # printer output for a bad tile; never parses
            continue
        try:
            parse_layout(text)
        except Bad as e:
            fails += 1
            print("should parse:", text, "->", e)
    for line in open(os.path.join(here, "shapes_invalid.txt")):
        text = line.split("\t")[0]
        n += 1
        try:
            parse_shape(text)
            fails += 1
            print("should be rejected:", text)
        except Bad:
            pass
    print(f"{n} lines checked, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
