#!/usr/bin/env python3
"""CuTe's MMA and copy atoms, tiled MMAs and tiled copies, from the C++ headers.

Writes ``atoms.tsv`` next to this script: for every case, the ``.lay``
expression that names a part of an atom, tiled MMA or tiled copy (CONTRACT
section 2, "CuTe atoms, tiled MMAs and tiled copies") and what ``cute::print``
prints for the same part in C++. The program is my own: it only calls CuTe's
public API (``MMA_Atom``, ``Copy_Atom``, ``make_tiled_mma``,
``make_tiled_copy``, ``make_tiled_copy_A/B/C`` and their members).

Setup (once) and command, from the repository root (see
``gen_cute_cpp_vectors.py`` for the include directories)::

    pip install nvidia-cutlass==4.2.0.0
    pip install --no-deps --target /tmp/cccl nvidia-cuda-cccl-cu12==12.9.27
    python3 tests/vectors/cute/gen_cute_atoms.py      # about 10 min on 2 cores

Deterministic: random tiled MMAs and copies come from ``random.Random(SEED)``.
A case C++ refuses (a ``static_assert``) is recorded with ``static_assert:``
and the assertion's text, so layoutc's refusal can be checked too.

Columns of ``atoms.tsv``::

    id  lay  expected

``lay`` is the expression as a ``.lay`` file writes it (for example
``layout_a_tv(tiled_mma(mma_atom("SM80_16x8x16_F32F16F16F32_TN"), cute (2,2,1)))``);
``expected`` is C++'s print without the static ``_`` marks.
"""

import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_cute_cpp_vectors import compile_cpp, find_includes, layout_expr, tiler_expr  # noqa: E402

SEED = 2207
CHUNK = 400  # cases per translation unit
# The `_` of a static integer (`_8`, `_-1`), not the one inside a name
# (`counting_iter`, the `M_0` of a MixedBits).
STATIC_MARK = re.compile(r"(?<![A-Za-z])_(?=-?[0-9])")

# ----------------------------------------------------------------------------
# Atoms

SM70 = [f"SM70_8x8x4_{t}_{m}" for t in ("F16F16F16F16", "F32F16F16F32") for m in ("TN", "NT", "NN", "TT")]
SM75 = ["SM75_16x8x8_F32F16F16F32_TN", "SM75_8x8x16_S32S8S8S32_TN"]
SM80 = [
    "SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x8_F32F16F16F32_TN",
    "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x8_F32BF16BF16F32_TN", "SM80_16x8x16_F32BF16BF16F32_TN",
    "SM80_16x8x4_F32TF32TF32F32_TN", "SM80_16x8x8_F32TF32TF32F32_TN", "SM80_8x8x4_F64F64F64F64_TN",
    "SM80_8x8x4_C64C64C64C64_TN",
]
for ab in ("S8S8", "S8U8", "U8S8", "U8U8"):
    for mnk in ("8x8x16", "16x8x16", "16x8x32"):
        SM80 += [f"SM80_{mnk}_S32{ab}S32_TN", f"SM80_{mnk}_S32{ab}S32_TN_SATURATE"]
for ab in ("S4S4", "S4U4", "U4S4", "U4U4"):
    for mnk in ("8x8x32", "16x8x32", "16x8x64"):
        SM80 += [f"SM80_{mnk}_S32{ab}S32_TN"]
for mnk in ("8x8x128", "16x8x128", "16x8x256"):
    SM80 += [f"SM80_{mnk}_S32U1U1S32_TN_XORPOPC", f"SM80_{mnk}_S32U1U1S32_TN_ANDPOPC"]
SM89 = [f"SM89_16x8x32_{c}{a}{b}{c}_TN" for c in ("F32", "F16") for a in ("E4M3", "E5M2") for b in ("E4M3", "E5M2")]

GMMA_16 = ["F16F16F16", "F32F16F16", "F32BF16BF16"]
GMMA_TN = [("8", "F32TF32TF32"), ("32", "F32E4M3E4M3"), ("32", "F16E5M2E4M3"), ("32", "S32S8S8"), ("32", "S32U8S8")]
SM90 = []
for n in (8, 16, 24, 64, 96, 128, 200, 256):
    for t in GMMA_16:
        for src in ("SS", "RS"):
            SM90.append((f"SM90_64x{n}x16_{t}_{src}<K,K>", f"SM90_64x{n}x16_{t}_{src}<GMMA::Major::K,GMMA::Major::K>"))
    SM90.append((f"SM90_64x{n}x16_F32F16F16_SS<MN,MN>", f"SM90_64x{n}x16_F32F16F16_SS<GMMA::Major::MN,GMMA::Major::MN>"))
    for k, t in GMMA_TN:
        if t.startswith("S32") and n in (200, 24 + 16):
            continue
        for src in ("SS", "RS"):
            # The integer aliases are plain types; the others take scales.
            args = "" if t.startswith("S32") else "<>"
            SM90.append((f"SM90_64x{n}x{k}_{t}_{src}_TN", f"SM90_64x{n}x{k}_{t}_{src}_TN{args}"))

def umma_cpp(op, kind, ta, tc, m, n):
    """The UMMA operation in C++: F8F6F4_SS's types are MMA_Traits arguments
    (its TS form is a template like the others)."""
    if kind != "F8F6F4" or not op.endswith("_SS"):
        return f"{op}<{ta},{ta},{tc},{m},{n},UMMA::Major::K,UMMA::Major::K>"
    major = "integral_constant<UMMA::Major,UMMA::Major::K>"
    scale = "integral_constant<UMMA::ScaleIn,UMMA::ScaleIn::One>"
    return f"MMA_Traits<{op},{ta},{ta},{tc},C<{m}>,C<{n}>,{major},{major},{scale},{scale}>"


SM100 = []
for kind, ta, tc in (("F16BF16", "half_t", "float"), ("F16BF16", "bfloat16_t", "float"),
                     ("TF32", "tfloat32_t", "float"), ("S8", "int8_t", "int32_t"),
                     ("F8F6F4", "float_e4m3_t", "float")):
    for m, n in ((64, 64), (128, 128), (128, 256), (64, 32)):
        for src in ("SS", "TS"):
            lay = f"SM100_MMA_{kind}_{src}<{ta},{ta},{tc},{m},{n},K,K>"
            SM100.append((lay, umma_cpp(f"SM100_MMA_{kind}_{src}", kind, ta, tc, m, n)))
    for m, n in ((128, 128), (256, 256)):
        lay = f"SM100_MMA_{kind}_2x1SM_SS<{ta},{ta},{tc},{m},{n},K,K>"
        SM100.append((lay, umma_cpp(f"SM100_MMA_{kind}_2x1SM_SS", kind, ta, tc, m, n)))

MMA_ATOMS = [(n, n) for n in SM70 + SM75 + SM80 + SM89] + SM90 + SM100

VALUE_TYPES = ["half_t", "bfloat16_t", "float", "tfloat32_t", "int8_t", "uint8_t", "double", "int32_t", "float_e4m3_t"]
COPY_OPS = [
    "SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N",
    "SM75_U16x2_LDSM_T", "SM75_U16x4_LDSM_T", "SM75_U16x8_LDSM_T",
    "SM90_U32x1_STSM_N", "SM90_U32x2_STSM_N", "SM90_U32x4_STSM_N",
    "SM90_U16x2_STSM_T", "SM90_U16x4_STSM_T", "SM90_U16x8_STSM_T",
    "SM100_U8x8_LDSM_T", "SM100_U8x16_LDSM_T", "SM100_U8x4_STSM_T", "SM100_U8x8_STSM_T", "SM100_U8x16_STSM_T",
]
for w in ("uint32_t", "uint64_t", "uint128_t"):
    COPY_OPS += [f"SM80_CP_ASYNC_CACHEALWAYS<{w}>", f"SM80_CP_ASYNC_CACHEALWAYS_ZFILL<{w}>"]
COPY_OPS += ["SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t,uint128_t>",
             "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>"]
for w in ("uint8_t", "uint16_t", "uint32_t", "uint64_t", "uint128_t"):
    COPY_OPS.append(f"UniversalCopy<{w}>")
COPY_OPS += ["DefaultCopy", "AutoVectorizingCopy"]

# ----------------------------------------------------------------------------
# Cases: (lay, cpp) pairs; cpp is an expression whose cute::print is wanted.


def mma_cpp(op):
    return f"MMA_Atom<{op}>{{}}"


def atom_cases():
    out = []
    for lay, cpp in MMA_ATOMS:
        a = f'mma_atom("{lay}")'
        t = f"MMA_Atom<{cpp}>"
        out += [
            (f"thr_id({a})", f"typename {t}::ThrID{{}}"),
            (f"shape_mnk({a})", f"typename {t}::Shape_MNK{{}}"),
            (f"layout_a_tv({a})", f"typename {t}::LayoutA_TV{{}}"),
            (f"layout_b_tv({a})", f"typename {t}::LayoutB_TV{{}}"),
            (f"layout_c_tv({a})", f"typename {t}::LayoutC_TV{{}}"),
        ]
    for op in COPY_OPS:
        for vt in VALUE_TYPES:
            a = f'copy_atom("{op}", "{vt}")'
            t = f"Copy_Atom<{op}, {vt}>"
            out += [
                (f"thr_id({a})", f"typename {t}::ThrID{{}}"),
                (f"val_layout_src({a})", f"typename {t}::ValLayoutSrc{{}}"),
                (f"val_layout_dst({a})", f"typename {t}::ValLayoutDst{{}}"),
            ]
    return out


def fmt_layout(shape, stride):
    def f(t):
        return str(t) if isinstance(t, int) else "(" + ",".join(f(x) for x in t) + ")"
    return f"{f(shape)}:{f(stride)}"


def compact(shape, order):
    """Strides of a flat shape laid out in `order` (smallest first)."""
    stride = [0] * len(shape)
    cur = 1
    for i in sorted(range(len(shape)), key=lambda i: order[i]):
        stride[i] = cur if shape[i] > 1 else 0
        cur *= shape[i]
    return stride


def rand_atom_layout(rng):
    shape = [rng.choice([1, 2, 2, 4]), rng.choice([1, 2, 2, 4]), 1]
    while shape[0] * shape[1] > 8:
        shape[rng.randrange(2)] //= 2
    if rng.random() < 0.5:
        return "(%d,%d,%d)" % tuple(shape)
    order = [0, 1, 2]
    rng.shuffle(order)
    return fmt_layout(shape, compact(shape, order))


def rand_perm(rng, natural):
    """A permutation tile of one mode: `_`, an integer, or a bijective layout."""
    r = rng.random()
    if r < 0.4:
        return "_"
    size = natural * rng.choice([1, 1, 2])
    if r < 0.65:
        return str(size)
    parts = []
    n = size
    while n > 1:
        f = rng.choice([2, 2, 4, 8])
        while n % f:
            f //= 2
        parts.append(f)
        n //= f
    if len(parts) < 2:
        return str(size)
    order = list(range(len(parts)))
    rng.shuffle(order)
    return fmt_layout(parts, compact(parts, order))


TILED_MMA_ATOMS = [
    ("SM80_16x8x16_F32F16F16F32_TN", (16, 8, 16)), ("SM80_16x8x8_F16F16F16F16_TN", (16, 8, 8)),
    ("SM80_16x8x8_F32TF32TF32F32_TN", (16, 8, 8)), ("SM80_16x8x32_S32S8S8S32_TN", (16, 8, 32)),
    ("SM80_8x8x4_F64F64F64F64_TN", (8, 8, 4)), ("SM75_16x8x8_F32F16F16F32_TN", (16, 8, 8)),
    ("SM89_16x8x32_F32E4M3E4M3F32_TN", (16, 8, 32)), ("SM70_8x8x4_F32F16F16F32_NT", (8, 8, 4)),
]


def tiled_mma_cases(rng, n):
    out = []
    fixed = [
        ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", "<32,(8,2,2):(1,16,8),16>"),
        ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1):(2,1,0)", None),
        ('mma_atom("SM80_16x8x8_F32TF32TF32F32_TN")', "(2,2,1)", "<32,32,8>"),
        ('mma_atom("SM90_64x128x16_F32F16F16_SS<K,K>")', "(2,1,1)", None),
        ('mma_atom("SM90_64x64x16_F32F16F16_RS<K,K>")', "(1,2,1)", None),
        ('mma_atom("SM100_MMA_F16BF16_SS<half_t,half_t,float,128,256,K,K>")', "(1,1,1)", None),
    ]
    for atom, lay, perm in fixed:
        out += tiled_mma_fields(atom, lay, perm)
    for _ in range(n):
        name, (m, nn, k) = rng.choice(TILED_MMA_ATOMS)
        lay = rand_atom_layout(rng)
        shape = [int(x) for x in re.findall(r"\d+", lay.split(":")[0])]
        perm = None
        if rng.random() < 0.6:
            perm = "<" + ",".join(rand_perm(rng, nat) for nat in (m * shape[0], nn * shape[1], k)) + ">"
        out += tiled_mma_fields(f'mma_atom("{name}")', lay, perm)
    return out


def atom_cpp(lay_atom):
    m = re.match(r'mma_atom\("(.*)"\)', lay_atom)
    if m:
        name = m.group(1)
        for lay, cpp in MMA_ATOMS:
            if lay == name:
                return f"MMA_Atom<{cpp}>{{}}"
        return f"MMA_Atom<{name}>{{}}"
    m = re.match(r'copy_atom\("(.*)", "(.*)"\)', lay_atom)
    return f"Copy_Atom<{m.group(1)}, {m.group(2)}>{{}}"


def tiled_mma_expr(atom, lay, perm):
    lay_expr = f"tiled_mma({atom}, cute {lay}" + (f", {perm})" if perm else ")")
    cpp = f"make_tiled_mma({atom_cpp(atom)}, {layout_expr(lay)}"
    cpp += f", {tiler_expr(perm)})" if perm else ")"
    return lay_expr, cpp


def tiled_mma_fields(atom, lay, perm):
    lay_expr, cpp = tiled_mma_expr(atom, lay, perm)
    return [
        (f"layout_a_tv({lay_expr})", f"{cpp}.get_layoutA_TV()"),
        (f"layout_b_tv({lay_expr})", f"{cpp}.get_layoutB_TV()"),
        (f"layout_c_tv({lay_expr})", f"{cpp}.get_layoutC_TV()"),
        (f"shape_mnk({lay_expr})", f"tile_shape({cpp})"),
        (f"thr_id({lay_expr})", f"{cpp}.get_thr_layout_vmnk()"),
    ]


def tiled_copy_fields(lay_expr, cpp):
    return [
        (f"layout_s_tv({lay_expr})", f"decltype({cpp})::get_layoutS_TV()"),
        (f"layout_d_tv({lay_expr})", f"decltype({cpp})::get_layoutD_TV()"),
        (f"tiler_mn({lay_expr})", f"typename decltype({cpp})::Tiler_MN{{}}"),
    ]


def rand_copy(rng):
    """make_tiled_copy(atom, thr, val) with an atom that fits."""
    op, vt, bits = rng.choice([
        ("UniversalCopy<uint128_t>", "half_t", 16), ("UniversalCopy<uint64_t>", "half_t", 16),
        ("UniversalCopy<uint32_t>", "float", 32), ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "half_t", 16),
        ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", "float", 32), ("UniversalCopy<uint128_t>", "int8_t", 8),
        ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "float", 32), ("UniversalCopy<uint16_t>", "half_t", 16),
    ])
    per = {128: 0, 64: 0, 32: 0, 16: 0}
    width = int(re.search(r"uint(\d+)_t", op).group(1))
    vals = width // bits
    thr_shape = rng.choice([(16, 8), (32, 4), (8, 16), (8, 4), (4, 8), (32, 8), (64, 2), (2, 64)])
    if rng.random() < 0.5:
        thr = "(%d,%d):(%d,1)" % (thr_shape[0], thr_shape[1], thr_shape[1])
    else:
        thr = "(%d,%d)" % thr_shape
    if rng.random() < 0.5:
        val = "(1,%d)" % (vals * rng.choice([1, 1, 2]))
    else:
        val = "(%d,1)" % (vals * rng.choice([1, 1, 2]))
    del per
    atom = f'copy_atom("{op}", "{vt}")'
    lay_expr = f"tiled_copy({atom}, cute {thr}, cute {val})"
    cpp = f"make_tiled_copy({atom_cpp(atom)}, {layout_expr(thr)}, {layout_expr(val)})"
    return lay_expr, cpp


def tiled_copy_cases(rng, n):
    out = []
    fixed = [
        ('copy_atom("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "half_t")', "(16,8):(8,1)", "(1,8)"),
        ('copy_atom("UniversalCopy<uint128_t>", "half_t")', "(32,4):(4,1)", "(1,8)"),
        ('copy_atom("UniversalCopy<uint32_t>", "float")', "(8,32)", "(4,1)"),
    ]
    for atom, thr, val in fixed:
        lay_expr = f"tiled_copy({atom}, cute {thr}, cute {val})"
        cpp = f"make_tiled_copy({atom_cpp(atom)}, {layout_expr(thr)}, {layout_expr(val)})"
        out += tiled_copy_fields(lay_expr, cpp)
    for _ in range(n):
        out += tiled_copy_fields(*rand_copy(rng))
    # tiled_copy_a|b|c of an MMA: ldmatrix / stmatrix / universal copies.
    mmas = [
        ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", "<32,(8,2,2):(1,16,8),16>"),
        ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(2,2,1)", None),
        ('mma_atom("SM80_16x8x16_F32F16F16F32_TN")', "(4,1,1)", "<64,16,16>"),
        ('mma_atom("SM80_16x8x8_F16F16F16F16_TN")', "(2,2,1)", "<32,32,8>"),
        ('mma_atom("SM80_16x8x16_F32BF16BF16F32_TN")', "(2,4,1)", "<32,64,16>"),
        ('mma_atom("SM80_16x8x32_S32S8S8S32_TN")', "(2,2,1)", None),
        ('mma_atom("SM80_16x8x8_F32TF32TF32F32_TN")', "(2,2,1)", "<32,32,8>"),
        ('mma_atom("SM90_64x64x16_F32F16F16_SS<K,K>")', "(1,1,1)", None),
    ]
    copies = {
        "a": ["SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U16x8_LDSM_T", "UniversalCopy<uint32_t>"],
        "b": ["SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N", "SM75_U16x4_LDSM_T", "SM75_U16x8_LDSM_T", "UniversalCopy<uint32_t>"],
        "c": ["SM90_U32x4_STSM_N", "SM90_U32x2_STSM_N", "SM90_U16x8_STSM_T", "UniversalCopy<uint32_t>"],
    }
    for atom, lay, perm in mmas:
        mma_lay, mma_cpp_expr = tiled_mma_expr(atom, lay, perm)
        vt = "half_t"
        if "BF16" in atom:
            vt = "bfloat16_t"
        elif "S8" in atom:
            vt = "int8_t"
        elif "TF32" in atom:
            vt = "tfloat32_t"
        for side, ops in copies.items():
            for op in ops:
                cvt = "float" if side == "c" and op.startswith("Universal") and "F32" in atom else vt
                catom = f'copy_atom("{op}", "{cvt}")'
                lay_expr = f"tiled_copy_{side}({catom}, {mma_lay})"
                cpp = f"make_tiled_copy_{side.upper()}({atom_cpp(catom)}, {mma_cpp_expr})"
                out += tiled_copy_fields(lay_expr, cpp)
    return out


# ----------------------------------------------------------------------------
# Compiling

PRELUDE = r"""
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm70.hpp>
#include <cute/atom/mma_traits_sm75.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm89.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/arch/mma_sm90_gmma_ext.hpp>
#include <cute/atom/mma_traits_sm90_gmma_ext.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cute/atom/copy_traits_sm100.hpp>
#include <cstdio>
#include <csetjmp>
#include <csignal>
using namespace cute;
// A case that divides by zero at run time (C++ does for some layouts of
// size 0) is reported as such instead of ending the program.
static sigjmp_buf case_env;
static void on_fpe(int) { siglongjmp(case_env, 1); }
// A value known only at run time, as a kernel's thread index is.
static int dyn(int x) { volatile int v = x; return v; }
// Elements per instruction when cute::copy runs an auto-vectorising copy
// (AutoVectorizingCopyWithAssumedAlignment<MaxVecBits>; DefaultCopy is 8)
// between thread 0's part of the shared tensor and its register fragment:
// the decision algorithm/copy.hpp makes, from CuTe's own max_common_vector
// and max_alignment of the two tensors.
template <int MaxVecBits, bool Source, class TC, class T>
int vectorisation(TC const& tc, T const& smem) {
  auto thr = tc.get_slice(dyn(0));
  auto part = [&] { if constexpr (Source) return thr.partition_S(smem); else return thr.partition_D(smem); }();
  auto frag = make_fragment_like(part);
  constexpr int common_elem = CUTE_STATIC_V(max_common_vector(part, frag));
  constexpr int bits = sizeof_bits_v<typename decltype(frag)::value_type>;
  if constexpr (common_elem > 1) {
    constexpr int align_bits = CUTE_STATIC_V(gcd(max_alignment(part), max_alignment(frag), Int<MaxVecBits>{}));
    constexpr int vec_bits = gcd(common_elem * bits, align_bits);
    if constexpr (vec_bits % 8 == 0 && bits < vec_bits) return vec_bits / bits;
  }
  return 1;
}
template <class M> auto tile_shape(M const& m) {
  return make_shape(tile_size<0>(m), tile_size<1>(m), tile_size<2>(m));
}
"""


def program(cases):
    lines = PRELUDE.splitlines()
    line_of = {}
    for i, cpp in cases:
        line_of[len(lines) + 1] = i
        lines.append(f'void case_{i}() {{ printf("{i}\\t"); print({cpp}); printf("\\n"); }}')
    lines.append("int main() {")
    lines.append("  signal(SIGFPE, on_fpe);")
    for i, _ in cases:
        lines.append(f"  if (sigsetjmp(case_env, 1) == 0) case_{i}();"
                     f" else {{ signal(SIGFPE, on_fpe); printf(\"runtime error: division by zero\\n\"); }}")
    lines.append("  return 0;\n}")
    return "\n".join(lines) + "\n", line_of


def refusals(stderr, src_name, line_of):
    fails = {}
    current = None
    for ln in stderr.splitlines():
        m = re.search(re.escape(src_name) + r":(\d+):", ln)
        if m and int(m.group(1)) in line_of:
            current = line_of[int(m.group(1))]
            fails.setdefault(current, "compile error")
        if "error:" in ln and current is not None:
            sa = re.search(r"static assertion failed(?:: (.*))?$", ln)
            if sa and fails[current] == "compile error":
                fails[current] = "static_assert: " + (sa.group(1) or "").strip().strip('"')
    return fails


def run_chunk(cases, flags, build):
    """Compiles and runs one chunk; drops refused cases and retries."""
    results = {}
    pending = list(cases)
    while pending:
        src_name = os.path.join(build, "atoms.cpp")
        exe = os.path.join(build, "atoms")
        src, line_of = program(pending)
        with open(src_name, "w") as f:
            f.write(src)
        ok, err = compile_cpp(src_name, exe, flags)
        if ok:
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
            for ln in out.splitlines():
                i, text = ln.split("\t", 1)
                results[int(i)] = STATIC_MARK.sub("", text)
            return results
        fails = refusals(err, src_name, line_of)
        if not fails:
            sys.exit("error: a chunk failed to compile outside its cases:\n" + err[:4000])
        for i, msg in fails.items():
            results[i] = msg
        pending = [(i, c) for i, c in pending if i not in fails]
    return results


def write_vectors(cases, name):
    """Compiles every `(lay, cpp)` case in chunks and writes `name` (TSV)."""
    flags = find_includes()
    extra = os.environ.get("CUDA_EXTRA_INCLUDE")
    if extra:
        flags += ["-isystem", extra]
    indexed = list(enumerate(cases))
    results = {}
    with tempfile.TemporaryDirectory() as build:
        for start in range(0, len(indexed), CHUNK):
            chunk = indexed[start:start + CHUNK]
            results.update(run_chunk([(i, c[1]) for i, c in chunk], flags, build))
            print(f"{min(start + CHUNK, len(indexed))}/{len(indexed)}", file=sys.stderr)
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        f.write("id\tlay\texpected\n")
        for i, (lay, _) in indexed:
            f.write(f"{i}\t{lay}\t{results[i]}\n")
    refused = sum(1 for v in results.values() if v.startswith(("static_assert", "compile error")))
    print(f"wrote {len(indexed)} cases ({refused} refused by C++) to {path}")


def main():
    rng = random.Random(SEED)
    write_vectors(atom_cases() + tiled_mma_cases(rng, 60) + tiled_copy_cases(rng, 50), "atoms.tsv")


if __name__ == "__main__":
    main()
