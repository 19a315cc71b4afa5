"""A sample of the oracle run again: random Gluon objects of the installed
Triton 3.9 wheel (CPU only), their linear layouts from Triton's own
`to_linear_layout` against layoutc's, and Triton's bank-conflict count of
a distributed and a shared layout against layoutc's."""

import random

import pytest

import layoutc
from conftest import linear_bases, without_zero_registers

ttgl = pytest.importorskip("triton.experimental.gluon.language", reason="run.sh installs triton==3.9.0")
from triton._C.libtriton import gluon_ir, ir  # noqa: E402

CTX = ir.context()
ir.load_dialects(CTX)
B = gluon_ir.GluonOpBuilder(CTX, "")
# The bank-conflict query needs an insertion point inside a module.
_MODULE = B.create_module()
_FN = B.get_or_insert_function(_MODULE, "layoutc_test", B.get_function_ty([], []), "public", False)
_MODULE.push_back(_FN)
B.set_insertion_point_to_start(_FN.add_entry_block())


def triton_bases(obj, shape):
    res = B.to_linear_layout(obj._to_ir(B), list(shape))
    if hasattr(res, "offset_bases"):
        return {"offset": [list(b) for b in res.offset_bases], "block": [list(b) for b in res.block_bases]}
    return {"register": [list(b) for b in res.reg_bases], "lane": [list(b) for b in res.lane_bases],
            "warp": [list(b) for b in res.warp_bases], "block": [list(b) for b in res.block_bases]}


def split(rng, log2, rank):
    parts = [0] * rank
    for _ in range(log2):
        parts[rng.randrange(rank)] += 1
    return [1 << p for p in parts]


def random_blocked(rng, rank=2, warps=4):
    order = list(range(rank))
    rng.shuffle(order)
    return ttgl.BlockedLayout(split(rng, rng.randrange(0, 3), rank), split(rng, 5, rank), split(rng, warps.bit_length() - 1, rank), order)


def cases():
    rng = random.Random(20261126)
    out = []
    for _ in range(12):
        out.append((random_blocked(rng), [64, 64]))
    for _ in range(4):
        parent = random_blocked(rng)
        out.append((ttgl.SliceLayout(rng.randrange(2), parent), [64]))
    for version, instr in [([2, 0], [16, 8]), ([3, 0], [16, 64, 16])]:
        mma = ttgl.NVMMADistributedLayout(version=version, warps_per_cta=[4, 1], instr_shape=instr)
        out.append((mma, [64, 64]))
    mma2 = ttgl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[2, 2], instr_shape=[16, 8])
    out.append((ttgl.DotOperandLayout(0, mma2, 2), [64, 32]))
    out.append((ttgl.DotOperandLayout(1, mma2, 2), [32, 64]))
    for _ in range(6):
        vec, per, mx = (1 << rng.randrange(4) for _ in range(3))
        out.append((ttgl.SwizzledSharedLayout(vec, per, mx, rng.choice([[1, 0], [0, 1]])), [32, 64]))
    for width in (0, 32, 64, 128):
        out.append((ttgl.NVMMASharedLayout(swizzle_byte_width=width, element_bitwidth=16), [64, 64]))
    out.append((ttgl.SharedLinearLayout([[0, 1], [0, 2], [1, 0], [2, 0]]), [4, 4]))
    return out


@pytest.mark.parametrize("obj,shape", cases(), ids=lambda v: type(v).__name__ if not isinstance(v, list) else "x".join(map(str, v)))
def test_layoutc_reads_gluon_objects_as_triton_lowers_them(obj, shape):
    expected = triton_bases(obj, shape)
    got = layoutc.linear_layout(obj, shape)
    assert without_zero_registers(linear_bases(got)) == without_zero_registers(expected)
    # The object's repr, pasted, is the same layout.
    assert layoutc.linear_layout("gluon " + repr(obj), shape) == got


def test_bank_conflicts_agree_with_triton():
    rng = random.Random(7)
    for _ in range(8):
        dist = random_blocked(rng)
        vec, per, mx = (1 << rng.randrange(4) for _ in range(3))
        shared = ttgl.SwizzledSharedLayout(vec, per, mx, [1, 0])
        expected = B.get_shared_bank_conflicts(dist._to_ir(B), shared._to_ir(B), [64, 64], 16)
        assert layoutc.bank_conflicts(dist, shared, "f16", shape=[64, 64]) == expected, (dist, shared)
