"""Time pycute (CUTLASS's Python CuTe, `pip install nvidia-cutlass`) on the
cases of crates/layout-algebra/benches/families.rs, in-process.

    python3 benches/cute/time_pycute.py

Prints ns/op per case (median of 5 repeats of ~0.3 s) and writes
benches/cute/pycute_timings.json.
"""

import json
import platform
import statistics
import sys
import time
import timeit

import pycute
from pycute import Layout, complement, composition, logical_divide, zipped_divide

COMPOSITIONS = [
    ("composition_doc_12x32", "(12,(4,8)):(59,(13,1))", "<3:4,8:2>"),
    ("composition_64x64_by_8x8", "(64,64):(64,1)", "(8,8):(1,64)"),
    ("composition_nested_8x8", "((2,2,2),(2,2,2)):((1,16,4),(8,2,32))", "8:4"),
]
COMPLEMENTS = [
    ("complement_2x4x8", "(2,4,8):(8,1,64)", 1024),
    ("complement_4x8_in_64", "(4,8):(8,1)", 64),
    ("complement_nested", "((2,2),4):((1,8),32)", 256),
]
DIVIDES = [
    ("logical_divide_doc", "(9,(4,8)):(59,(13,1))", "<3:3,(2,4):(1,8)>"),
    ("zipped_divide_128x128_by_16x32", "(128,128):(128,1)", "<16:1,32:1>"),
]


def parse_tuple(text, pos=0):
    if text[pos] == "(":
        items, pos = [], pos + 1
        while True:
            item, pos = parse_tuple(text, pos)
            items.append(item)
            if text[pos] == ",":
                pos += 1
            else:
                return tuple(items), pos + 1
    end = pos
    while end < len(text) and (text[end].isdigit() or text[end] == "-"):
        end += 1
    return int(text[pos:end]), end


def parse_layout(text):
    shape, pos = parse_tuple(text)
    stride, _ = parse_tuple(text, pos + 1)
    return Layout(shape, stride)


def parse_tiler(text):
    if text.startswith("<"):
        parts, depth, start = [], 0, 1
        for i, c in enumerate(text[1:-1], 1):
            if c in "(<":
                depth += 1
            elif c in ")>":
                depth -= 1
            elif c == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:-1])
        return tuple(parse_tiler(p) for p in parts)
    if ":" not in text:
        return Layout(int(text), 1)
    return parse_layout(text)


def measure(fn):
    timer = timeit.Timer(fn, timer=time.perf_counter_ns)
    number, _ = timer.autorange()
    number = max(1, number * 3)
    reps = [t / number for t in timer.repeat(repeat=5, number=number)]
    return statistics.median(reps), number


def main():
    cases = []
    for name, a, b in COMPOSITIONS:
        A, B = parse_layout(a), parse_tiler(b)
        cases.append((name, lambda A=A, B=B: composition(A, B)))
    for name, a, cotarget in COMPLEMENTS:
        A = parse_layout(a)
        cases.append((name, lambda A=A, c=cotarget: complement(A, c)))
    for name, a, b in DIVIDES:
        A, B = parse_layout(a), parse_tiler(b)
        op = zipped_divide if name.startswith("zipped") else logical_divide
        cases.append((name, lambda A=A, B=B, op=op: op(A, B)))
    results = []
    for name, fn in cases:
        fn()  # must not raise
        ns, number = measure(fn)
        results.append({"name": name, "ns_per_op": round(ns, 1), "iterations": number, "result": str(fn())})
        print(f"{name:36s} {ns:12.1f} ns   {fn()}")
    out = {
        "pycute": getattr(pycute, "__version__", "from nvidia-cutlass"),
        "python": platform.python_version(),
        "command": "python3 benches/cute/time_pycute.py",
        "cases": results,
    }
    with open("benches/cute/pycute_timings.json", "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
