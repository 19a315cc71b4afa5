#!/usr/bin/env python3
"""Gluon layout objects as users paste them, with Triton 3.9's own linear layouts.

For every layout case of generated.json (blocked, slice, dot_op, nvidia_mma, amd_mfma,
amd_wmma, linear, swizzled_shared, nvmma_shared: random parameters) and every
shared_linear and padded_shared case of shared_encodings.json, this builds the object of
triton.experimental.gluon.language (the same constructor gen_triton_vectors.py used), and
records:

- `repr`: `repr(obj)`, what Python prints and users paste (`BlockedLayout(size_per_thread=...)`);
- `call`: the constructor as a kernel writes it, positional, with its module prefix
  (`ttgl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0], [])`, `ttgl.amd.AMDMFMALayout(...)`);
- `repr_roundtrip`: whether `eval(repr)` gives an equal object (it always should);
- `shape`, `shared` and `bases`: the linear layout `GluonOpBuilder.to_linear_layout` gives for
  the object over the shape, computed again here in a forked child and required to equal
  the recorded one. A padded_shared layout has no linear layout in the wheel (it aborts),
  so its `bases` is its linear component, the `offset_bases` the object was built from.

Run from the repository root with the Triton 3.9.0 wheel installed (CPU only, about 20 s):
    python3 tests/vectors/triton/gen_gluon_layouts.py
It writes tests/vectors/triton/gluon_layouts.json.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen_triton_vectors as gtv  # noqa: E402  (builds the oracle's context)
import triton.experimental.gluon.language as ttgl  # noqa: E402
from triton.experimental.gluon.language import amd  # noqa: E402, F401

OUT = os.path.join(HERE, "gluon_layouts.json")


def positional(obj):
    """The constructor call with positional arguments, as a kernel writes it."""
    import dataclasses
    module = "ttgl.amd." if type(obj).__module__.endswith(".amd._layouts") else "ttgl."

    def value(v):
        if dataclasses.is_dataclass(v):
            return positional(v)
        return repr(v)

    args = ", ".join(value(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    return f"{module}{type(obj).__name__}({args})"


def _ll_child(params, shape):
    attr = gtv.make_layout(params)._to_ir(gtv.B)
    res = gtv.B.to_linear_layout(attr, list(shape))
    shared = params["kind"] in gtv.SHARED_KINDS
    bases, _, _ = gtv.ll_of_result(res, shape, shared)
    return bases


def main():
    generated = json.load(open(os.path.join(HERE, "generated.json")))
    encodings = json.load(open(os.path.join(HERE, "shared_encodings.json")))
    env = {"ttgl": ttgl, "amd": ttgl.amd}
    cases = []
    for case in generated["layouts"]:
        params = case["params"]
        obj = gtv.make_layout(params)
        kind, bases = gtv.isolated(_ll_child, params, case["shape"])
        assert kind == "ok" and bases == case["bases"], (case["name"], kind, bases)
        text = repr(obj)
        cases.append({
            "name": case["name"],
            "repr": text,
            "call": positional(obj),
            "repr_roundtrip": eval(text, {**env, **vars(ttgl), **vars(ttgl.amd)}) == obj,
            "shape": case["shape"],
            "shared": params["kind"] in gtv.SHARED_KINDS,
            "bases": bases,
        })
    for case in encodings["cases"]:
        p = case["params"]
        if case["kind"] == "shared_linear":
            obj = ttgl.SharedLinearLayout(p["offset"], p["block"], p["alignment"])
            bases = case["bases"]
        elif case["kind"] == "padded_shared":
            linear = p["linearComponent"]
            pairs = [[i, q] for i, q in zip(p["intervals"], p["paddings"])]
            obj = ttgl.PaddedSharedLayout(pairs, linear["offset"], linear["block"], p["shape"])
            bases = linear
        else:
            continue
        text = repr(obj)
        cases.append({
            "name": case["name"],
            "repr": text,
            "call": positional(obj),
            "repr_roundtrip": eval(text, {**env, **vars(ttgl)}) == obj,
            "shape": case["shape"],
            "shared": True,
            "bases": bases,
        })
    assert all(c["repr_roundtrip"] for c in cases)
    doc = {
        "triton_version": gtv.TRITON_VERSION,
        "command": "python3 tests/vectors/triton/gen_gluon_layouts.py",
        "cases": cases,
    }
    with open(OUT, "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    kinds = {}
    for c in cases:
        k = c["repr"].split("(")[0]
        kinds[k] = kinds.get(k, 0) + 1
    print(f"wrote {OUT}: {len(cases)} cases: {kinds}")


if __name__ == "__main__":
    main()
