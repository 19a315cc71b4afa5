"""Gluon layout objects, read by their fields without triton, have the
linear layouts Triton 3.9's `to_linear_layout` gives the same objects
(tests/vectors/triton/gluon_layouts.json, made with the wheel by
gen_gluon_layouts.py): every class, random parameters, both spellings."""

import pytest

import layoutc
from conftest import linear_bases, vectors, without_zero_registers

CASES = vectors("triton/gluon_layouts.json")["cases"]
# nvmma_shared without swizzling on 3-D tensors smaller than its tile: the
# wheel's layout is not injective there (the Rust tests list the same).
DIVERGENT = {f"nvmma_shared_0b_e{b}_000{i}" for b in (8, 16, 32) for i in (7, 8)}


def machine(case):
    """The warps and CTAs the case was made for, from its bases."""
    count = lambda dim: 1 << len(case["bases"].get(dim, []))  # noqa: E731
    if case["shared"]:
        return f"t {{ num_ctas = {count('block')} }}"
    return f"t {{ warp_size = {count('lane')}, num_warps = {count('warp')}, num_ctas = {count('block')} }}"


def test_every_class_is_covered():
    classes = {c["repr"].split("(")[0] for c in CASES}
    assert len(classes) == 11 and len(CASES) >= 700


@pytest.mark.parametrize("case", [c for c in CASES if c["name"] not in DIVERGENT], ids=lambda c: c["name"])
def test_object_by_fields_equals_triton(case, gluon_ns):
    obj = eval(case["call"], dict(gluon_ns))
    got = layoutc.linear_layout(obj, case["shape"], target=machine(case))
    assert without_zero_registers(linear_bases(got)) == without_zero_registers(case["bases"])


def test_a_notation_string_reads_too():
    case = next(c for c in CASES if c["repr"].startswith("BlockedLayout"))
    got = layoutc.linear_layout("gluon " + case["repr"], case["shape"], target=machine(case))
    assert without_zero_registers(linear_bases(got)) == without_zero_registers(case["bases"])
