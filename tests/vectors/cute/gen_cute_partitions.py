#!/usr/bin/env python3
"""One thread's partition of a tensor, from the C++ headers.

Writes ``partitions.tsv`` next to this script, in the format of
``atoms.tsv`` (``id  lay  expected``): the ``.lay`` expression
``partition_s(copy, L, t)`` (``partition_d``, ``partition_a|b|c``) and what
``cute::print`` prints for ``copy.get_slice(t).partition_S(tensor)`` where
``tensor`` is ``make_tensor(counting_iterator<int>(0), L)``: the tensor of
element indices over the layout ``L`` (plain or swizzled). The thread index is
a run-time value in C++, as in a kernel (``threadIdx.x``), so the strides C++
derives from it when a swizzled layout decays are dynamic, as in a kernel.

Setup as in ``gen_cute_atoms.py``; the command, from the repository root::

    python3 tests/vectors/cute/gen_cute_partitions.py     # about 2 min on 2 cores

Deterministic: every case comes from ``random.Random(SEED)``.
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_cute_atoms import atom_cpp, tiled_mma_expr, write_vectors  # noqa: E402
from gen_cute_cpp_vectors import layout_expr  # noqa: E402

SEED = 4409

# make_tiled_copy(atom, thr, val): (operation, value type, elements per
# instruction).
COPY_ATOMS = [
    ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "half_t", 8),
    ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", "float", 2),
    ("UniversalCopy<uint128_t>", "half_t", 8),
    ("UniversalCopy<uint64_t>", "half_t", 4),
    ("UniversalCopy<uint32_t>", "float", 1),
    ("UniversalCopy<uint128_t>", "int8_t", 16),
]

# Tiled MMAs with their thread counts and (M, N, K) tiles.
MMAS = [
    ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", "<32,(8,2,2):(1,16,8),16>", 128, (32, 32, 16)),
    ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", None, 128, (32, 16, 16)),
    ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(4,1,1)", "<64,16,16>", 128, (64, 16, 16)),
    ('mma_atom("SM80_16x8x8_F16F16F16F16_TN")', "(2,2,1)", "<32,32,8>", 128, (32, 32, 8)),
    ('mma_atom("SM80_16x8x16_F32BF16BF16F32_TN")', "(2,4,1)", "<32,64,16>", 256, (32, 64, 16)),
    ('mma_atom("SM80_16x8x8_F32TF32TF32F32_TN")', "(2,2,1)", "<32,32,8>", 128, (32, 32, 8)),
    ('mma_atom("SM90_64x64x16_F32F16F16_SS<K,K>")', "(1,1,1)", None, 128, (64, 64, 16)),
]

COPIES_FOR_MMA = {
    "a": ["SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U16x8_LDSM_T", "UniversalCopy<uint32_t>"],
    "b": ["SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N", "SM75_U16x4_LDSM_T", "UniversalCopy<uint32_t>"],
    "c": ["SM90_U32x4_STSM_N", "SM90_U32x2_STSM_N", "UniversalCopy<uint32_t>"],
}

SWIZZLES = [None, None, (3, 3, 3), (2, 3, 3), (3, 2, 3), (2, 2, 3), (3, 4, 3), (1, 3, 3), (3, 3, 4)]


def tensor(rng, rows, cols):
    """A (rows, cols) tensor layout, row- or column-major, maybe swizzled."""
    if rng.random() < 0.6:
        text = f"({rows},{cols}):({cols},1)"
    else:
        text = f"({rows},{cols}):(1,{rows})"
    sw = rng.choice(SWIZZLES)
    if sw is None:
        return f"cute {text}", layout_expr(text)
    b, m, s = sw
    return (f"cute Sw<{b},{m},{s}> o {text}",
            f"composition(Swizzle<{b},{m},{s}>{{}}, {layout_expr(text)})")


def tiled_copy_exprs(op, vt, thr, val):
    """`tiled_copy(...)` in `.lay` and `make_tiled_copy(...)` in C++."""
    atom = f'copy_atom("{op}", "{vt}")'
    return (f"tiled_copy({atom}, cute {thr}, cute {val})",
            f"make_tiled_copy({atom_cpp(atom)}, {layout_expr(thr)}, {layout_expr(val)})")


def tensor_of_tiles(rng, tile_rows, tile_cols):
    """A tensor of 1, 2 or 4 tiles down and 1 or 2 across."""
    return tensor(rng, tile_rows * rng.choice([1, 2, 4]), tile_cols * rng.choice([1, 2]))


def counting(cpp_layout):
    return f"make_tensor(counting_iterator<int>(0), {cpp_layout})"


def copy_cases(rng, n):
    out = []
    for _ in range(n):
        op, vt, vals = rng.choice(COPY_ATOMS)
        t0, t1 = rng.choice([(16, 8), (32, 4), (8, 16), (8, 4), (4, 8), (32, 8)])
        if rng.random() < 0.5:
            thr = f"({t0},{t1}):({t1},1)"
        else:
            thr = f"({t0},{t1})"
        v0, v1 = (1, vals) if rng.random() < 0.6 else (vals, 1)
        val = f"({v0},{v1})"
        copy_lay, copy_cpp = tiled_copy_exprs(op, vt, thr, val)
        lay_t, cpp_t = tensor_of_tiles(rng, t0 * v0, t1 * v1)
        side = rng.choice(["s", "d"])
        thread = rng.randrange(t0 * t1)
        out.append((f"partition_{side}({copy_lay}, {lay_t}, {thread})",
                    f"{copy_cpp}.get_slice(dyn({thread})).partition_{side.upper()}({counting(cpp_t)})"))
    return out


def mma_cases(rng, n):
    out = []
    for _ in range(n):
        atom, lay, perm, threads, (m, nn, k) = rng.choice(MMAS)
        mma_lay, mma_cpp = tiled_mma_expr(atom, lay, perm)
        operand = rng.choice(["a", "b", "c"])
        rows, cols = {"a": (m, k), "b": (nn, k), "c": (m, nn)}[operand]
        rows *= rng.choice([1, 2, 4])
        cols *= rng.choice([1, 2, 4])
        lay_t, cpp_t = tensor(rng, rows, cols)
        thread = rng.randrange(threads)
        if rng.random() < 0.5:
            out.append((f"partition_{operand}({mma_lay}, {lay_t}, {thread})",
                        f"{mma_cpp}.get_slice(dyn({thread})).partition_{operand.upper()}({counting(cpp_t)})"))
            continue
        # A copy made for the MMA's operand (ldmatrix, stmatrix, universal).
        op = rng.choice(COPIES_FOR_MMA[operand])
        vt = "bfloat16_t" if "BF16" in atom else "tfloat32_t" if "TF32" in atom else "half_t"
        if op.startswith("Universal") and operand == "c" and "F32" in atom:
            vt = "float"
        if "TF32" in atom and "LDSM" in op or "STSM" in op and vt != "half_t":
            op = "UniversalCopy<uint32_t>"
        atom_lay = f'copy_atom("{op}", "{vt}")'
        copy_lay = f"tiled_copy_{operand}({atom_lay}, {mma_lay})"
        copy_cpp = f"make_tiled_copy_{operand.upper()}({atom_cpp(atom_lay)}, {mma_cpp})"
        side = "s" if operand != "c" else "d"
        out.append((f"partition_{side}({copy_lay}, {lay_t}, {thread})",
                    f"{copy_cpp}.get_slice(dyn({thread})).partition_{side.upper()}({counting(cpp_t)})"))
    return out


AUTO_VECTORISING = [("DefaultCopy", 8), ("AutoVectorizingCopy", 128),
                    ("AutoVectorizingCopyWithAssumedAlignment<64>", 64),
                    ("AutoVectorizingCopyWithAssumedAlignment<32>", 32)]


def vectorisation_cases(rng, n):
    """Elements per instruction of auto-vectorising copies
    (`vectorisation(copy, smem, side)`), as C++'s `copy` decides."""
    out = []
    for _ in range(n):
        op, max_bits = rng.choice(AUTO_VECTORISING)
        vt, bits = rng.choice([("half_t", 16), ("float", 32), ("uint8_t", 8), ("double", 64)])
        t0, t1 = rng.choice([(16, 8), (32, 4), (8, 16), (8, 4), (32, 1), (1, 32)])
        thr = f"({t0},{t1}):({t1},1)" if rng.random() < 0.5 else f"({t0},{t1})"
        v0, v1 = rng.choice([(1, 1), (1, 2), (1, 4), (1, 8), (2, 1), (4, 1), (2, 2), (1, 16)])
        val = f"({v0},{v1})"
        copy_lay, copy_cpp = tiled_copy_exprs(op, vt, thr, val)
        lay_t, cpp_t = tensor_of_tiles(rng, t0 * v0, t1 * v1)
        side = rng.choice(["S", "D"])
        smem = f"make_tensor(make_smem_ptr(({vt}*)nullptr), {cpp_t})"
        out.append((f'vectorisation({copy_lay}, {lay_t}, "{side}")',
                    f"vectorisation<{max_bits}, {'true' if side == 'S' else 'false'}>({copy_cpp}, {smem})"))
    return out


def main():
    rng = random.Random(SEED)
    write_vectors(copy_cases(rng, 160) + mma_cases(rng, 160) + vectorisation_cases(rng, 160),
                  "partitions.tsv")


if __name__ == "__main__":
    main()
