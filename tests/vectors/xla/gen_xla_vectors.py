#!/usr/bin/env python3
"""Reference vectors for XLA tiled layouts, computed by pad-reshape-transpose.

Command (from the repository root)::

    python3 tests/vectors/xla/gen_xla_vectors.py

Needs numpy (``pip install numpy``).  It rewrites ``tests/vectors/xla/generated.json`` next
to this script.  The output is deterministic (``random.Random(SEED)``, fixed case order).

Method.  The physical offset of every logical element is obtained *without* the per-element
index formula: an integer array holding each element's row-major logical index is built with
numpy, transposed into physical (major-to-minor) order, and then, for every tile level,
literally padded (``np.pad``, padding = -1), reshaped into (ceil(d/t), t) pairs and transposed
so that the intra-tile dims become the most-minor ones -- exactly the "Tiling as
pad-reshape-transpose" section of XLA's docs/tiled_layout.md (seed 001).  The flattened
result is read back: the position where logical index i landed is its offset.

Semantics (see README.md for the decisions):

* physical shape = dims permuted by reversed(minor_to_major);
* a tile of rank k applies to the k most-minor dims of the *current* shape; a tile of higher
  rank than the current shape first prepends size-1 dims;
* ``*`` at tile position i merges that dim into the next more-minor one (bound d_i*d_{i+1})
  and is removed from shape and tile before tiling; adjacent ``*`` merge several dims;
* later levels tile the already-tiled shape's most-minor dims;
* padded_elements = final size rounded up to L(n); padded_bytes = ceil(padded * bits / 8)
  with bits = E(n) if given else the element type's width;
* ``xla_array_size_elements_top_tile_only`` ports ShapeUtil::ArraySize (first tile only, each
  original dim rounded up to its tile entry, ``*`` dims not padded, then L rounding), in
  elements;
* ``xla_LayoutUtil_LinearIndex_samples`` ports LayoutUtil::LinearIndex (first tile only;
  rank 0 -> 0, rank 1 -> the index itself).  Left out for ``*`` tiles (XLA's code would use
  INT64_MIN as a tile size).

Before generating, the implementation is checked against every case of
tests/vectors/reference/xla/vectors_sample.json (or /work/shared/reference/xla/...) and the
script stops if any value disagrees.
"""

import json
import math
import os
import random
import sys

import numpy as np

SEED = 20240611
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "generated.json")
FULL_TABLE_MAX = 4096
NUM_SAMPLES = 64
NUM_XLA_SAMPLES = 16
STAR = "*"

# Storage width in bits of each primitive type when the layout has no E(n).
TYPE_BITS = {
    "pred": 8,
    "s2": 2, "u2": 2, "s4": 4, "u4": 4,
    "s8": 8, "u8": 8, "f8e5m2": 8, "f8e4m3fn": 8, "f8e4m3b11fnuz": 8,
    "f8e5m2fnuz": 8, "f8e4m3fnuz": 8, "f8e4m3": 8, "f8e3m4": 8, "f8e8m0fnu": 8,
    "f4e2m1fn": 4,
    "s16": 16, "u16": 16, "f16": 16, "bf16": 16,
    "s32": 32, "u32": 32, "f32": 32,
    "s64": 64, "u64": 64, "f64": 64, "c64": 64,
    "c128": 128,
}


# ----------------------------------------------------------------------------------------
# Core: pad / reshape / transpose with numpy
# ----------------------------------------------------------------------------------------

def apply_tile(arr, tile):
    """One tiling level on the current array (its axes are physical, major to minor)."""
    k = len(tile)
    if k > arr.ndim:
        arr = arr.reshape((1,) * (k - arr.ndim) + arr.shape)
    p = arr.ndim - k
    prefix = arr.shape[:p]
    dims = arr.shape[p:]
    if tile[-1] == STAR:
        raise ValueError("'*' as the most-minor tile entry")
    # '*' merges a dim into the next more-minor one: a plain row-major reshape.
    mdims, mtile, acc = [], [], 1
    for d, t in zip(dims, tile):
        if t == STAR:
            acc *= d
            continue
        if not isinstance(t, int) or t <= 0:
            raise ValueError("bad tile entry %r" % (t,))
        mdims.append(acc * d)
        mtile.append(t)
        acc = 1
    arr = arr.reshape(prefix + tuple(mdims))
    # 1. pad each tiled dim up to a multiple of its tile size
    pad = [(0, 0)] * p + [(0, (-d) % t) for d, t in zip(mdims, mtile)]
    arr = np.pad(arr, pad, mode="constant", constant_values=-1)
    # 2. split each tiled dim d into (ceil(d/t), t)
    counts = [-(-d // t) for d, t in zip(mdims, mtile)]
    split = []
    for c, t in zip(counts, mtile):
        split += [c, t]
    arr = arr.reshape(prefix + tuple(split))
    # 3. move the t's to the most-minor positions keeping their order
    j = len(mtile)
    axes = list(range(p)) + [p + 2 * i for i in range(j)] + [p + 2 * i + 1 for i in range(j)]
    return arr.transpose(axes)


def physical_array(shape, minor_to_major, tiles):
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    arr = np.arange(n, dtype=np.int64).reshape(tuple(shape))
    arr = arr.transpose(list(reversed(minor_to_major)))
    for tile in tiles:
        arr = apply_tile(arr, tile)
    return arr


def offsets_of(shape, minor_to_major, tiles):
    """-> (offset of every logical row-major index, final tiled shape)."""
    arr = physical_array(shape, minor_to_major, tiles)
    flat = np.ascontiguousarray(arr).reshape(-1)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    pos = np.nonzero(flat >= 0)[0]
    vals = flat[pos]
    if len(vals) != n or len(np.unique(vals)) != n:
        raise AssertionError("tiling lost or duplicated elements")
    off = np.empty(n, dtype=np.int64)
    off[vals] = pos
    return off, [int(x) for x in arr.shape]


# ----------------------------------------------------------------------------------------
# Ports of XLA's first-tile-only helpers (for comparison, not used for the offsets)
# ----------------------------------------------------------------------------------------

def xla_array_size_elements(shape, m2m, tiles, tail_align):
    """ShapeUtil::ArraySize, in elements (before the E(n)/type-width byte conversion)."""
    rank = len(shape)
    if not tiles:
        n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    else:
        tile = tiles[0]
        k = len(tile)
        n = 1
        dim = 0
        while dim < k:
            size = shape[m2m[dim]] if dim < rank else 1
            t = tile[k - dim - 1]
            n *= size if t == STAR else -(-size // t) * t
            dim += 1
        while dim < rank:
            n *= shape[m2m[dim]]
            dim += 1
    if tail_align != 1:
        n = -(-n // tail_align) * tail_align
    return n


def xla_linear_index(shape, m2m, tiles, index):
    """LayoutUtil::LinearIndex: only the top-level tile, rank 0 -> 0, rank 1 -> index."""
    rank = len(shape)
    if rank == 0:
        return 0
    if rank == 1:
        return index[0]
    tile = tiles[0] if tiles else []
    tile_mult = 1
    for t in tile:
        tile_mult *= t
    within = 1
    li = 0
    for minor in range(rank):
        ld = m2m[minor]
        d = shape[ld]
        e = index[ld]
        if minor < len(tile):
            t = tile[len(tile) - 1 - minor]
            li += tile_mult * (e // t) + within * (e % t)
            tile_mult *= -(-d // t)
            within *= t
        else:
            li += e * tile_mult
            tile_mult *= d
    return li


# ----------------------------------------------------------------------------------------
# Text
# ----------------------------------------------------------------------------------------

def tile_text(t):
    return "(" + ",".join(STAR if x == STAR else str(x) for x in t) + ")"


def hlo_text(et, shape, m2m, tiles, L=1, E=None, S=0):
    attrs = ""
    if tiles:
        attrs += "T" + "".join(tile_text(t) for t in tiles)
    if L != 1:
        attrs += "L(%d)" % L
    if E is not None:
        attrs += "E(%d)" % E
    if S:
        attrs += "S(%d)" % S
    lay = ",".join(map(str, m2m)) + (":" + attrs if attrs else "")
    return "%s[%s]{%s}" % (et, ",".join(map(str, shape)), lay)


def unravel(i, shape):
    return [int(x) for x in np.unravel_index(i, shape)] if shape else []


# ----------------------------------------------------------------------------------------
# Case construction
# ----------------------------------------------------------------------------------------

def build_case(spec, rng):
    et = spec["et"]
    shape = list(spec["shape"])
    rank = len(shape)
    m2m = list(spec["m2m"]) if spec.get("m2m") is not None else list(range(rank - 1, -1, -1))
    tiles = [list(t) for t in spec["tiles"]]
    L = spec.get("L", 1)
    E = spec.get("E")
    S = spec.get("S", 0)
    bits = E if E is not None else TYPE_BITS[et]
    off, tshape = offsets_of(shape, m2m, tiles)
    n = len(off)
    final = int(np.prod(tshape, dtype=np.int64))
    padded = -(-final // L) * L
    has_star = any(x == STAR for t in tiles for x in t)
    full = n <= FULL_TABLE_MAX
    if full:
        idxs = list(range(n))
    else:
        even = {round(i * (n - 1) / (NUM_SAMPLES - 17)) for i in range(NUM_SAMPLES - 16)}
        while len(even) < NUM_SAMPLES:
            even.add(rng.randrange(n))
        idxs = sorted(even)
    samples = [[unravel(i, shape), int(off[i])] for i in idxs]
    case = {
        "hlo": hlo_text(et, shape, m2m, tiles, L, E, S),
        "source": spec.get("source", "generated"),
        "element_type": et,
        "shape": shape,
        "minor_to_major": m2m,
        "tiles": tiles,
        "element_size_in_bits": bits,
        "tail_padding_alignment_in_elements": L,
        "memory_space": S,
        "tiled_shape_major_to_minor": tshape,
        "logical_elements": n,
        "padded_elements": padded,
        "padded_bytes": -(-padded * bits // 8),
        "xla_array_size_elements_top_tile_only": xla_array_size_elements(shape, m2m, tiles, L),
        "full_table": full,
        "samples": samples,
    }
    if spec.get("notes"):
        case["notes"] = spec["notes"]
    if not has_star:
        all_agree = all(
            xla_linear_index(shape, m2m, tiles, unravel(i, shape)) == int(off[i])
            for i in (range(n) if n <= 65536 else idxs))
        case["xla_LayoutUtil_LinearIndex_agrees"] = all_agree
        pick = sorted(rng.sample(range(len(idxs)), min(NUM_XLA_SAMPLES, len(idxs))))
        case["xla_LayoutUtil_LinearIndex_samples"] = [
            [samples[j][0], xla_linear_index(shape, m2m, tiles, samples[j][0])] for j in pick]
    return case


# ----------------------------------------------------------------------------------------
# Validation against the shipped sample
# ----------------------------------------------------------------------------------------

def find_sample():
    for p in (os.path.join(HERE, "..", "reference", "xla", "vectors_sample.json"),
              "/work/shared/reference/xla/vectors_sample.json"):
        if os.path.exists(p):
            return p
    return None


def validate_sample(path):
    data = json.load(open(path))
    bad = []
    for c in data["cases"]:
        shape, m2m, tiles = c["shape"], c["minor_to_major"], c["tiles"]
        L = c["tail_padding_alignment_in_elements"]
        off, tshape = offsets_of(shape, m2m, tiles)
        final = int(np.prod(tshape, dtype=np.int64))
        padded = -(-final // L) * L
        bits = c["element_size_in_bits"]
        got = {
            "tiled_shape_major_to_minor": tshape,
            "logical_elements": len(off),
            "padded_elements": padded,
            "padded_bytes": -(-padded * bits // 8),
            "xla_array_size_elements_top_tile_only": xla_array_size_elements(shape, m2m, tiles, L),
        }
        for k, v in got.items():
            if c[k] != v:
                bad.append((c["hlo"], k, c[k], v))
        # the text must print back identically
        E = bits if "E(" in c["hlo"] else None
        txt = hlo_text(c["element_type"], shape, m2m, tiles, L, E, c["memory_space"])
        if txt != c["hlo"]:
            bad.append((c["hlo"], "hlo", c["hlo"], txt))
        if E is None and bits != TYPE_BITS[c["element_type"]]:
            bad.append((c["hlo"], "element_size_in_bits", bits, TYPE_BITS[c["element_type"]]))
        flat_shape = shape if shape else []
        for key in ("samples", "expected_from_source"):
            for idx, o in c.get(key, []):
                li = int(np.ravel_multi_index(idx, flat_shape)) if flat_shape else 0
                if int(off[li]) != o:
                    bad.append((c["hlo"], key, (idx, o), int(off[li])))
        for idx, o in c.get("xla_LayoutUtil_LinearIndex_samples", []):
            v = xla_linear_index(shape, m2m, tiles, idx)
            if v != o:
                bad.append((c["hlo"], "xla_LayoutUtil_LinearIndex", (idx, o), v))
        if "xla_LayoutUtil_LinearIndex_agrees" in c:
            n = len(off)
            rng_idx = range(n) if n <= 65536 else range(0, n, 997)
            agree = all(xla_linear_index(shape, m2m, tiles, unravel(i, shape)) == int(off[i])
                        for i in rng_idx)
            if agree != c["xla_LayoutUtil_LinearIndex_agrees"]:
                bad.append((c["hlo"], "xla_LayoutUtil_LinearIndex_agrees",
                            c["xla_LayoutUtil_LinearIndex_agrees"], agree))
    return len(data["cases"]), bad


# ----------------------------------------------------------------------------------------
# The cases
# ----------------------------------------------------------------------------------------

def curated():
    C = []

    def add(et, shape, tiles, m2m=None, L=1, E=None, S=0, notes=None, source="curated"):
        C.append(dict(et=et, shape=shape, tiles=tiles, m2m=m2m, L=L, E=E, S=S,
                      notes=notes, source=source))

    # rank 0 and tiles of higher rank than the shape
    add("f32", [], [[128]], notes="rank 0, 1-D tile: pads to 128")
    add("f32", [], [[8, 128]], notes="rank 0, 2-D tile: pads to 1024")
    add("s32", [], [[8, 128]], S=1, notes="rank 0 scalar in VMEM")
    add("bf16", [], [[8, 128], [2, 1]], notes="rank 0, bf16 TPU format")
    add("f32", [5], [[8, 128]], notes="tile rank > shape rank: f32[5] pads to 1024")
    add("f32", [7], [[2, 4, 8]], notes="rank-3 tile on a rank-1 shape")
    add("f32", [3, 4], [[2, 2, 2]], notes="rank-3 tile on a rank-2 shape")
    add("f32", [6], [[2, 1]], notes="rank-2 tile (2,1) on rank 1: XLA LinearIndex returns the index")
    add("s8", [100], [[8, 128], [4, 1]], notes="8-bit TPU format on rank 1")
    add("pred", [40], [[32, 128], [32, 1]], E=1, notes="1-bit pred format on rank 1")
    # TPU f32 (8,128)
    add("f32", [16, 256], [[8, 128]], notes="TPU f32 format, exact fit")
    add("f32", [9, 130], [[8, 128]], notes="TPU f32 format with padding in both dims")
    add("f32", [2, 3, 200], [[8, 128]], notes="rank 3 TPU f32")
    add("f32", [3, 2, 5, 20], [[8, 128]], notes="rank 4 TPU f32")
    add("f32", [130, 9], [[8, 128]], m2m=[0, 1], notes="column-major TPU f32")
    add("f32", [4, 5, 6], [[8, 128]], m2m=[1, 2, 0], notes="permuted TPU f32")
    add("s32", [24, 128], [[8, 128]], S=1, notes="s32 TPU format in VMEM")
    add("u32", [10, 33], [[8, 128]], notes="u32 TPU format")
    # small formats
    add("f32", [2, 200], [[2, 128]], m2m=[1, 0], S=2, notes="small (2,128)")
    add("f32", [1, 300], [[2, 128]], notes="small (2,128), second-minor 1")
    add("f32", [3, 129], [[4, 128]], notes="small (4,128), second-minor 3")
    add("f32", [5, 4, 64], [[4, 128]], notes="small (4,128) on rank 3")
    add("f32", [64, 2], [[2, 128]], m2m=[0, 1], notes="small (2,128), transposed")
    # bf16 / f16 formats
    add("bf16", [16, 128], [[8, 128], [2, 1]], notes="TPU bf16 format")
    add("bf16", [9, 130], [[8, 128], [2, 1]], notes="TPU bf16 with padding")
    add("bf16", [3, 16, 128], [[8, 128], [2, 1]], notes="TPU bf16, rank 3 (sampled)")
    add("bf16", [32, 128], [[16, 128], [2, 1]], notes="alternative bf16 (16,128)(2,1)")
    add("f16", [20, 100], [[16, 128], [2, 1]], notes="f16 (16,128)(2,1) with padding")
    add("f16", [8, 8], [[2, 4], [2, 1, 1, 1]], notes="second tile acts on tile-count dims")
    add("bf16", [1000], [[1024], [128], [2, 1]], notes="3-level 1-D bf16 format with padding")
    add("bf16", [2, 3, 100], [[2, STAR, 128]], notes="layout_util_test T(2,*,128) (smaller)")
    add("bf16", [8, 2, 3, 20], [[2, STAR, STAR, 128]], notes="layout_util_test T(2,*,*,128) (smaller)")
    add("bf16", [2, 3, 4], [[16, 256], [2, 1]], m2m=[1, 2, 0], notes="layout_util_test HumanString")
    add("bf16", [4, 8], [[2, 4], [2, 1]], E=16, notes="explicit E(16)")
    # 8-bit and 4-bit
    add("s8", [32, 128], [[8, 128], [4, 1]], notes="TPU 8-bit format")
    add("u8", [10, 150], [[8, 128], [4, 1]], notes="TPU 8-bit with padding")
    add("s8", [2, 6, 2, 40], [[32, 128], [4, 1]], m2m=[3, 1, 0, 2], S=1,
        notes="fusion-cost-analysis style s8 (smaller)")
    add("u8", [40, 64], [[32, 128], [4, 1]], notes="u8 (32,128)(4,1)")
    add("s4", [16, 128], [[64, 128], [8, 1]], E=4, notes="s4 (64,128)(8,1) E(4)")
    add("s4", [8, 300], [[8, 128], [8, 1]], notes="s4 without E: 4-bit default width")
    add("s4", [33], [[128]], E=4, notes="s4 1-D tile")
    # pred
    add("pred", [64, 128], [[32, 128], [32, 1]], notes="pred (32,128)(32,1), 1 byte each")
    add("pred", [40, 130], [[32, 128], [32, 1]], E=1, notes="pred 1-bit format with padding")
    add("pred", [8, 8, 8], [[8, 128]], m2m=[0, 2, 1], notes="layout_util_test pred, no E")
    add("pred", [4, 8, 8], [[8, 128]], m2m=[0, 2, 1], E=32, notes="pred stored as 32 bits")
    add("pred", [3, 5], [[2, 2]], E=1, L=8, notes="1-bit elements, L(8)")
    # 1-D tiles on higher-rank shapes
    add("f32", [12, 7], [[4]], notes="transpose_test input tiling {4}")
    add("f32", [3, 100], [[32]], m2m=[0, 1], notes="1-D tile on the major logical dim")
    add("f32", [2, 3, 4], [[512]], m2m=[0, 1, 2], notes="layout_util_test T(512)")
    add("f32", [6, 5, 4], [[4], [2]], notes="two 1-D levels")
    add("f32", [300], [[128], [8]], notes="1-D then 1-D on the inner dim")
    # non-dividing tiles
    add("f32", [5, 7], [[3, 4]], notes="(3,4) divides neither dim")
    add("f32", [6, 10], [[4, 4], [3, 1]], notes="2nd level pads: ArraySize ignores it")
    add("f32", [10, 10], [[4, 4], [3, 3]], notes="2nd level (3,3) pads the 4x4 tile to 6x6")
    add("f32", [7, 9], [[2, 3], [5]], notes="1-D 2nd level of size 5 over a tile dim of 3")
    add("f32", [9, 11], [[3, 5], [2, 1], [1, 2]], notes="three levels, each padding")
    add("s32", [13, 17], [[8, 8], [2, 2], [2, 1]], notes="three 2-D levels")
    add("f32", [4, 8], [[2, 4], [2, 1]], m2m=[0, 1], notes="doc figure 2 tiling, column-major")
    add("f32", [3, 5], [[2, 2]], m2m=[0, 1], L=7, notes="L(7) rounds 24 up to 28")
    # '*' combined dims
    add("f32", [2, 3, 5], [[STAR, 4]], notes="(*,4): merge 3x5 into 15, tile by 4")
    add("f32", [2, 3, 5], [[STAR, STAR, 8]], notes="merge all dims then 1-D tile")
    add("f32", [6], [[STAR, 4]], notes="'*' on a prepended size-1 dim")
    add("f32", [4, 3, 10], [[STAR, 8], [2, 1]], notes="'*' then a 2nd level")
    add("f32", [4, 6], [[2, 2], [STAR, 2]], notes="'*' in a later level merges tile dims")
    add("f32", [2, 7, 4, 5, 6], [[STAR, STAR, 2, STAR, 3]], notes="doc combining example (smaller)")
    add("f32", [3, 4, 5], [[STAR, 2, 3]], m2m=[0, 2, 1], notes="'*' with permuted minor_to_major")
    add("bf16", [2, 5, 6, 7], [[4, STAR, 8], [2, 1]], notes="'*' inside bf16 format")
    add("f32", [2, 7, 8, 11, 10], [[STAR, STAR, 2, STAR, 3]],
        notes="doc combining example (sampled)", source="doc:tiled_layout.md combining dims")
    add("s8", [3, 5, 7], [[STAR, 2, 4]], L=16, notes="'*' with L(16)")
    # L(n), E(n), S(n) combinations
    add("f32", [10], [[8]], L=16, notes="L(16) beyond the tiled size")
    add("f32", [2, 3], [[2, 2]], L=1000, S=3, notes="large L")
    add("bf16", [5, 5], [[8, 128], [2, 1]], L=2048, E=16, S=1, notes="L, E, S together")
    add("f16", [3, 17], [[4, 8]], E=32, notes="16-bit type stored as 32 bits")
    add("s32", [2, 1], [[2, 128]], S=5, notes="host memory space S(5)")
    add("u8", [7, 9], [[8, 128], [4, 1]], E=4, L=4, notes="u8 stored in 4 bits")
    # larger cases, sampled
    add("f32", [64, 200], [[8, 128]], notes="sampled")
    add("bf16", [48, 300], [[16, 128], [2, 1]], m2m=[0, 1], notes="sampled, transposed bf16")
    add("s8", [4, 40, 130], [[32, 128], [4, 1]], notes="sampled 8-bit rank 3")
    add("pred", [100, 200], [[32, 128], [32, 1]], E=1, notes="sampled 1-bit")
    add("f32", [6, 7, 8, 20], [[4, 8], [2, 2]], m2m=[1, 3, 2, 0], notes="sampled rank 4 permuted")
    add("bf16", [6144], [[1024], [128], [2, 1]], notes="real HLO bf16[6144]")
    return C


TYPE_TILES = {
    "f32": [[[8, 128]], [[2, 128]], [[4, 128]], [[128]], [[8]], [[2, 2]], [[4, 4], [2, 2]],
            [[2, 4], [2, 1]], [[3, 5]], [[8, 8], [1, 4]], [[16]], [[4, 8]]],
    "s32": [[[8, 128]], [[2, 128]], [[128]], [[8, 8]], [[4, 4], [2, 1]]],
    "bf16": [[[8, 128], [2, 1]], [[16, 128], [2, 1]], [[2, 4], [2, 1]], [[4, 8], [2, 1]],
             [[1024], [128], [2, 1]], [[8, 16], [2, 1]]],
    "f16": [[[8, 128], [2, 1]], [[16, 128], [2, 1]], [[4, 8], [2, 1]], [[256], [2, 1]]],
    "s8": [[[8, 128], [4, 1]], [[32, 128], [4, 1]], [[4, 8], [4, 1]], [[512], [4, 1]]],
    "u8": [[[8, 128], [4, 1]], [[32, 128], [4, 1]], [[8, 16], [4, 1]]],
    "pred": [[[32, 128], [32, 1]], [[8, 128]], [[32, 8], [32, 1]]],
    "s4": [[[64, 128], [8, 1]], [[8, 128], [8, 1]], [[16, 16], [8, 1]], [[128]]],
}
DIM_CHOICES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 24, 31, 32, 33, 40, 64, 100, 128, 130]


def random_tile(rng, rank):
    k = rng.choice([1, 1, 2, 2, 2, 3]) if rank >= 2 else rng.choice([1, 1, 2])
    return [rng.choice([1, 2, 3, 4, 5, 8, 16, 32, 128]) for _ in range(k)]


def random_specs(rng, count):
    specs = []
    ets = ["f32", "bf16", "f16", "s8", "u8", "pred", "s4", "s32"]
    while len(specs) < count:
        i = len(specs)
        et = ets[i % len(ets)]
        rank = [1, 2, 2, 3, 3, 4][rng.randrange(6)]
        big = rng.random() < 0.06
        limit = 40000 if big else (4096 if rng.random() < 0.1 else 600)
        shape = [rng.choice(DIM_CHOICES) for _ in range(rank)]
        while int(np.prod(shape)) > limit:
            j = rng.randrange(rank)
            shape[j] = max(1, shape[j] // 2)
        m2m = list(range(rank - 1, -1, -1))
        if rng.random() < 0.5 and rank > 1:
            rng.shuffle(m2m)
        r = rng.random()
        if r < 0.55:
            tiles = [list(t) for t in rng.choice(TYPE_TILES[et])]
            kind = "TPU-style"
        elif r < 0.85:
            tiles = [random_tile(rng, rank)]
            if rng.random() < 0.5:
                tiles.append(random_tile(rng, rank))
                if rng.random() < 0.3:
                    tiles.append([rng.choice([1, 2, 4])] * rng.choice([1, 2]))
            kind = "random tiles"
        else:
            if rank < 2:
                continue
            k = rng.randrange(2, min(rank, 3) + 1)
            tile = [rng.choice([1, 2, 3, 4, 8]) for _ in range(k)]
            for j in range(k - 1):
                if rng.random() < 0.5:
                    tile[j] = STAR
            if STAR not in tile:
                tile[rng.randrange(k - 1)] = STAR
            tiles = [tile]
            if rng.random() < 0.3:
                tiles.append([2, 1])
            kind = "'*' combined dims"
        L = rng.choice([1] * 6 + [2, 8, 128])
        E = None
        if rng.random() < 0.15:
            E = {"pred": 1, "s4": 4, "bf16": 16, "f16": 16}.get(et, rng.choice([8, 32]))
        S = rng.choice([0] * 6 + [1, 2, 5])
        # keep the padded array moderate
        try:
            final = int(np.prod(physical_array(shape, m2m, tiles).shape))
        except ValueError:
            continue
        if final > (1 << 20):
            continue
        specs.append(dict(et=et, shape=shape, m2m=m2m, tiles=tiles, L=L, E=E, S=S,
                          notes="random: " + kind, source="generated"))
    return specs


MALFORMED = [
    ("f32[3,5]{1,0:T(2,)}", "syntax", "empty tile dimension after ','"),
    ("f32[3,5]{1,0:T()}", "syntax", "tile with no dimensions"),
    ("f32[3,5]{1,1}", "semantic", "minor_to_major is not a permutation (1 repeated)"),
    ("f32[3,5]{2,0}", "semantic", "minor_to_major names dimension 2 of a rank-2 shape"),
    ("f32[3,5]{-1,0}", "semantic", "negative dimension number in minor_to_major"),
    ("f32[3,5]{0}", "semantic", "minor_to_major has 1 entry for a rank-2 shape"),
    ("f32[3,5]{1,0,2}", "semantic", "minor_to_major longer than the rank"),
    ("f32[]{0}", "semantic", "rank-0 shape with a non-empty minor_to_major"),
    ("f32[3,5]{1,0:T(0,2)}", "semantic", "tile dimension 0"),
    ("f32[3,5]{1,0:T(2,2)(0,1)}", "semantic", "tile dimension 0 in a later tile level"),
    ("f32[3,5]{1,0:T(-2,2)}", "semantic", "negative tile dimension (only '*' may be negative internally)"),
    ("f32[3,5]{1,0:T(2,*)}", "semantic", "'*' as the most-minor tile entry: no more-minor dim to merge into"),
    ("f32[2,3,5]{2,1,0:T(*,*)}", "semantic", "tile made only of '*' (most-minor entry is '*')"),
    ("f32[3,5]{1,0:T(2.5,2)}", "syntax", "non-integer tile dimension"),
    ("f32[3,5{1,0}", "syntax", "missing ']' after the dimensions"),
    ("f32[3,5]{1,0:T(2,2)", "syntax", "missing '}' at the end of the layout"),
    ("f32[3,5]{1 0}", "syntax", "missing ',' between minor_to_major entries"),
    ("f32[3,5]{1,0:T(2,2)L(0)}", "semantic", "tail padding alignment L(0) must be >= 1"),
    ("f32[3,5]{1,0:L(-4)}", "semantic", "negative tail padding alignment"),
    ("f32[3,5]{1,0:E(-1)}", "semantic", "negative element size in bits"),
    ("q32[3,5]{1,0}", "syntax", "unknown element type q32"),
    ("f32[3,-5]{1,0}", "semantic", "negative dimension size"),
    ("f32[3,5]{1,0:X(2)}", "syntax", "unknown layout attribute X"),
    ("f32[3,5]{1,0:E(32)T(2,2)}", "syntax", "attributes out of order (T must precede L, E, S)"),
    ("f32[3,5]{1,0:T(2,2)}x", "syntax", "trailing characters after the shape"),
    ("f32[3,5]{1,0:T(2,2}", "syntax", "tile not closed with ')'"),
]


def main():
    sample = find_sample()
    checked = 0
    if sample:
        checked, bad = validate_sample(sample)
        for b in bad:
            print("DISAGREE", b, file=sys.stderr)
        if bad:
            sys.exit("%d disagreements with %s" % (len(bad), sample))
        print("reproduced all %d cases of %s" % (checked, os.path.relpath(sample)))
    else:
        print("warning: vectors_sample.json not found; skipping validation", file=sys.stderr)

    rng = random.Random(SEED)
    specs = curated()
    specs += random_specs(rng, 200 - len(specs))
    cases, seen = [], set()
    for s in specs:
        c = build_case(s, rng)
        if c["hlo"] in seen:
            continue
        seen.add(c["hlo"])
        cases.append(c)
    malformed = [{"text": t, "stage": st, "why": w} for t, st, w in MALFORMED]
    meta = {
        "description": "XLA tiled-layout reference cases computed by the pad-reshape-transpose "
                       "formulation (numpy np.pad/reshape/transpose per tile level), independent "
                       "of the per-element index formula. samples = [[logical index in shape "
                       "order], physical element offset]; every element when logical_elements "
                       "<= %d (full_table), else %d samples. tiled_shape_major_to_minor = shape "
                       "after all tile levels. padded_elements includes L(n) rounding; "
                       "padded_bytes = ceil(padded_elements * element_size_in_bits / 8)."
                       % (FULL_TABLE_MAX, NUM_SAMPLES),
        "command": "python3 tests/vectors/xla/gen_xla_vectors.py",
        "seed": SEED,
        "validated_against": "every case of the project's xla/vectors_sample.json (samples, "
                             "tiled shapes, padded sizes, ArraySize, LinearIndex samples) is "
                             "recomputed on each run when the file is present; the run stops "
                             "on any disagreement",
        "xla_array_size_elements_top_tile_only": "port of ShapeUtil::ArraySize in elements: "
            "first tile only, each original physical dim rounded up to its tile entry, '*' dims "
            "not padded, tile rank > shape rank pads implicit size-1 dims, then L(n) rounding",
        "xla_LayoutUtil_LinearIndex_samples": "port of LayoutUtil::LinearIndex: first tile "
            "only; rank 0 -> 0 and rank 1 -> the index itself whatever the tiles; absent for "
            "tiles containing '*'. xla_LayoutUtil_LinearIndex_agrees tells whether it equals "
            "the physical offset for every element",
        "element_size_in_bits": "E(n) if given, else the type width (pred 8, s4/u4 4, 8-bit 8, "
                                "16-bit 16, 32-bit 32)",
        "num_cases": len(cases),
        "num_malformed": len(malformed),
    }
    with open(OUT, "w") as f:
        f.write("{\n")
        f.write('  "meta": %s,\n' % json.dumps(meta, indent=2).replace("\n", "\n  "))
        f.write('  "cases": [\n')
        f.write(",\n".join("    " + json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n  ],\n")
        f.write('  "malformed": [\n')
        f.write(",\n".join("    " + json.dumps(m) for m in malformed))
        f.write("\n  ]\n}\n")
    print("wrote %d cases and %d malformed layouts to %s"
          % (len(cases), len(malformed), os.path.relpath(OUT)))


if __name__ == "__main__":
    main()
