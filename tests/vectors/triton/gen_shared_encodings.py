#!/usr/bin/env python3
"""Reference vectors for the shared-memory encodings layoutc does not support yet, produced
with the Triton 3.9.0 wheel as oracle (CPU only; no GPU needed).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_shared_encodings.py

It rewrites ``tests/vectors/triton/shared_encodings.json`` next to this script (30 s with a
warm Triton cache, a few minutes cold: the padded-offset cross-check compiles about 50 small
kernels). Deterministic: every random choice comes from ``random.Random(SEED)`` and cases run
in a fixed order. The schema and the semantics are described in ``shared_encodings.md``.

Kinds covered:

* ``amd_rotating_shared`` -- Gluon has no Python class and no builder for it, so the
  attribute is parsed from TTGIR text (``ir.parse_mlir_module``) as the type of a function
  argument, and its linear layout is read back through an identity ``memdesc_reshape``
  (``GluonOpBuilder.create_memdesc_reshape``): the reshape infers a ``#ttg.shared_linear``
  result encoding holding ``toLinearLayout(shape, encoding)``. The probe is validated on the
  swizzled_shared analogue of every case against ``to_linear_layout``.
* ``padded_shared`` -- ``to_linear_layout`` aborts for it (recorded), so ``bases`` is the
  linear component as the wheel stores it (``get_gluon_layout_from_memdesc``), and the padded
  offsets are computed here from the rule found in Triton's source and cross-checked against
  (a) the wheel's shared-memory allocation pass (allocation size) and (b) the LLVM IR of a
  small kernel compiled for sm_90 that stores a tensor whose value is each element's
  row-major index, in a register layout where one thread holds everything (every store then
  has a constant address and constant data).
* ``shared_linear`` -- ``to_linear_layout`` directly.
* ``partitioned_shared`` (Gluon ``amd.cdna5.PartitionedSharedLayout``) -- ``to_linear_layout``
  (which drops the ``partition`` input dimension) plus a probe that prints it, and the
  allocation pass for the per-partition buffers.
* ``memdesc`` -- verifier rules for memdescs with a leading pipelining dim / alloc shape,
  the linear layout Triton uses for such views, and the element addresses of
  ``memdesc_index`` / ``memdesc_subslice`` views (compiled kernels).

Only the installed wheel is called; no Triton source is copied here. Every oracle call runs
in a forked child so that C++ assertion failures are recorded instead of killing the
generator.
"""

import itertools
import json
import os
import random
import re
import signal
import sys
import tempfile

TRITON_VERSION = "3.9.0"
COMMAND = "python3 tests/vectors/triton/gen_shared_encodings.py"
SEED = 0x5A4ED
OUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shared_encodings.json")

import triton  # noqa: E402

if triton.__version__ != TRITON_VERSION:
    sys.exit(f"need triton=={TRITON_VERSION}, found {triton.__version__}")

from triton._C.libtriton import gluon_ir, ir, passes  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402
from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout  # noqa: E402

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

# --------------------------------------------------------------------------------------
# Forked oracle calls
# --------------------------------------------------------------------------------------


def _clean(text):
    keep = [ln for ln in text.splitlines()
            if ln.strip() and not ln.startswith("nanobind") and not ln.startswith(" - ")
            and "UserWarning" not in ln and "warn_once" not in ln]
    return " ".join(" ".join(keep).split())


def isolated(fn, *args, timeout=300):
    """Run fn(*args) in a forked child: ("ok", value) | ("exc", message) | ("abort", message).
    For exceptions the child's stderr (MLIR diagnostics) is appended to the message."""
    rfd, wfd = os.pipe()
    err = tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            os.dup2(err.fileno(), 2)
            signal.alarm(timeout)
            try:
                res = ["ok", fn(*args)]
            except BaseException as e:  # noqa: BLE001
                sys.stderr.flush()
                res = ["exc", f"{type(e).__name__}: {e}"]
            data = json.dumps(res).encode()
            while data:
                n = os.write(wfd, data)
                data = data[n:]
        finally:
            os._exit(0)
    os.close(wfd)
    chunks = []
    while True:
        c = os.read(rfd, 1 << 16)
        if not c:
            break
        chunks.append(c)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    err.seek(0)
    stderr = _clean(err.read().decode(errors="replace"))
    err.close()
    if chunks:
        kind, val = json.loads(b"".join(chunks))
        if kind == "exc":
            diag = re.sub(r'loc\("[^"]*":\d+:\d+\): ', "", stderr)
            val = " ".join(val.split())
            if diag and diag not in val:
                val = f"{val} | {diag}"
            val = val[:500]
        return kind, val
    m = re.search(r"([\w./-]+\.(?:cpp|h)):(\d+): .*?(Assertion `.*' failed\.)", stderr)
    if m:
        msg = f"{os.path.basename(m.group(1))}:{m.group(2)}: {m.group(3)}"
    elif "LLVM ERROR:" in stderr:
        msg = stderr[stderr.index("LLVM ERROR:"):]
    else:
        msg = stderr[-400:] or "aborted"
    if os.WIFSIGNALED(status):
        msg += f" [signal {os.WTERMSIG(status)}]"
    return "abort", msg[:500]


def _ctx():
    ctx = ir.context()
    ir.load_dialects(ctx)
    return ctx, gluon_ir.GluonOpBuilder(ctx, "")


MODULE_HDR = ('#smem = #ttg.shared_memory\n'
              'module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = %d : i32, '
              '"ttg.threads-per-warp" = 64 : i32} {\n')


def _parse_module(ctx, src):
    fd, path = tempfile.mkstemp(suffix=".mlir")
    os.write(fd, src.encode())
    os.close(fd)
    try:
        return ir.parse_mlir_module(path, ctx)
    finally:
        os.unlink(path)


def _func_args(types, num_ctas):
    """Parse a module whose function takes arguments of the given TTGIR types. Returns
    (ctx, module, builder positioned in the function body, block)."""
    ctx, b = _ctx()
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    m = _parse_module(ctx, MODULE_HDR % num_ctas + f"  tt.func public @f({args}) {{\n    tt.return\n  }}\n}}\n")
    ops = []
    m.walk(lambda op: ops.append(op))
    blk = [o for o in ops if o.get_name() == "tt.return"][0].get_block()
    b.set_insertion_point_to_start(blk)
    return ctx, m, b, blk


def memdesc_type(shape, encoding, elt="f16", alloc=None, mutable=True):
    s = f"!ttg.memdesc<{'x'.join(map(str, shape))}x{elt}, {encoding}, #smem"
    if mutable:
        s += ", mutable"
    if alloc is not None and list(alloc) != list(shape):
        s += ", " + "x".join(map(str, alloc))
    return s + ">"


def encoding_of_type(type_str):
    """'!ttg.memdesc<16x16xf16, #ttg.X<...>, #ttg.shared_memory, ...>' -> '#ttg.X<...>'."""
    start = type_str.index("#")
    end = type_str.rindex(", #ttg.shared_memory")
    return type_str[start:end]


def parse_ll_dict(attr_str):
    """'#ttg.shared_linear<{offset = [[..]], block = [..]}, alignment = 16>' -> dict."""
    m = re.search(r"#ttg\.shared_linear<\{(.*)\}, alignment = (\d+)>", attr_str)
    body = re.sub(r"(\w+) = ", r'"\1": ', m.group(1))
    d = json.loads("{" + body + "}")
    d.setdefault("block", [])
    return d, int(m.group(2))


_ELT = {8: "i8", 16: "f16", 32: "f32"}


def _ttgir_of_attr(b, attr, shape):
    s = str(b.get_shared_mem_desc_ty(b.get_half_ty(), list(shape), attr, list(shape)))
    return encoding_of_type(s)


# --------------------------------------------------------------------------------------
# Own model of the bit-level rules (used for padding and cross-checks)
# --------------------------------------------------------------------------------------


def log2(x):
    assert x > 0 and x & (x - 1) == 0, x
    return x.bit_length() - 1


def pad_offset(off, intervals, paddings):
    """Padded element offset: off + sum_k (off >> log2(interval_k)) << log2(padding_k)."""
    return off + sum((off >> log2(i)) << log2(p) for i, p in zip(intervals, paddings))


def padded_size(n, intervals, paddings):
    """PaddedSharedEncodingAttr::getPaddedSize({n}): no padding after the last element."""
    extra = 0
    for i, p in zip(intervals, paddings):
        extra += (n >> log2(i)) << log2(p)
        if n % i == 0:
            extra -= p
    return n + extra


def apply_bases(bases, idx):
    out = None
    for bit, b in enumerate(bases):
        if idx >> bit & 1:
            out = list(b) if out is None else [x ^ y for x, y in zip(out, b)]
    return out


def ll_inverse_table(offset_bases, block_bases, shape):
    """coords (row-major flat index) -> (offset, block) for an injective layout."""
    rank = len(shape)
    strides = [1] * rank
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    table = {}
    for blk in range(1 << len(block_bases)):
        cb = apply_bases(block_bases, blk) or [0] * rank
        for off in range(1 << len(offset_bases)):
            co = apply_bases(offset_bases, off) or [0] * rank
            c = [x ^ y for x, y in zip(co, cb)]
            flat = sum(x * s for x, s in zip(c, strides))
            if flat in table:
                # only a broadcast block basis (same offset in several CTAs) may repeat
                assert table[flat][0] == off, "layout is not injective"
                continue
            table[flat] = (off, blk)
    assert len(table) == prod(shape), "layout is not surjective"
    return table


def prod(xs):
    r = 1
    for x in xs:
        r *= x
    return r


class LL:
    """Tiny linear layout: {in_dim: [basis]} with out sizes in standard order dim0..dimN-1."""

    def __init__(self, bases, sizes):
        self.bases = {k: [list(b) for b in v] for k, v in bases.items()}
        self.sizes = list(sizes)

    def __mul__(self, other):
        bases = {k: [list(b) for b in v] for k, v in self.bases.items()}
        for k, v in other.bases.items():
            bases.setdefault(k, [])
            bases[k] += [[c * s for c, s in zip(b, self.sizes)] for b in v]
        return LL(bases, [a * b for a, b in zip(self.sizes, other.sizes)])


def identity_1d(size, in_dim, d, rank):
    sizes = [1] * rank
    sizes[d] = size
    bases = []
    for i in range(log2(size)):
        b = [0] * rank
        b[d] = 1 << i
        bases.append(b)
    return LL({in_dim: bases}, sizes)


def not_larger(layout, shape):
    """ensureLayoutNotLargerThan as the 3.9 wheel behaves: every basis component >= the
    desired size of its out dim becomes 0 (components are powers of two)."""
    bases = {k: [list(b) for b in v] for k, v in layout.bases.items()}
    sizes = list(layout.sizes)
    for d, s in enumerate(shape):
        if sizes[d] <= s:
            continue
        for v in bases.values():
            for b in v:
                if b[d] >= s:
                    assert b[d] & (b[d] - 1) == 0
                    b[d] = 0
        sizes[d] = s
    return LL(bases, sizes)


def cga_sizes(block_bases, rank):
    sizes = [1] * rank
    for b in block_bases:
        for i, c in enumerate(b):
            if c:
                sizes[i] = max(sizes[i], 2 * c)
    return sizes


def combine_cta_cga(cta, block_bases, shape):
    rank = len(shape)
    cga = not_larger(LL({"block": block_bases}, cga_sizes(block_bases, rank)), shape)
    cta_shape = [max(1, s // c) for s, c in zip(shape, cga.sizes)]
    for d, s in enumerate(cta_shape):
        if cta.sizes[d] < s:
            cta = cta * identity_1d(s // cta.sizes[d], "offset", d, rank)
    cta = not_larger(cta, cta_shape)
    out = cta * cga
    out.bases.setdefault("block", [])
    return out


def model_swizzle(shape, vec, per_phase, max_phase, order, block, rotating):
    """swizzledSharedToLinearLayout / sharedToLinearLayoutAMDRotating, own re-statement."""
    rank = len(shape)
    per_cta = [max(1, s // c) for s, c in zip(shape, cga_sizes(block, rank))]
    src = list(shape) if rotating else per_cta      # the rotating builder uses the full shape
    if rank == 1:
        return combine_cta_cga(identity_1d(per_cta[0], "offset", 0, 1), block, shape)
    col, row = order[0], order[1]
    ncol, nrow = src[col], src[row]
    bases = []
    c = 1
    while c < ncol:
        b = [0] * rank
        b[col] = c
        bases.append(b)
        c *= 2
    r = 1
    while r < nrow:
        phase = (r // per_phase) % max_phase
        if rotating:
            phase ^= (r // max_phase // per_phase) % max_phase
        b = [0] * rank
        b[row] = r
        b[col] = (vec * phase) % ncol
        bases.append(b)
        r *= 2
    sizes = [1] * rank
    sizes[col], sizes[row] = ncol, nrow
    layout = LL({"offset": bases}, sizes)
    for d in order[2:]:
        layout = layout * identity_1d(src[d], "offset", d, rank)
    return combine_cta_cga(layout, block, shape)


# --------------------------------------------------------------------------------------
# Compiled-kernel cross-check (sm_90 LLVM IR, no GPU needed)
# --------------------------------------------------------------------------------------


@gluon.jit
def _store1(REG: gl.constexpr, SH: gl.constexpr, ALLOC: gl.constexpr, D0: gl.constexpr,
            IDX: gl.constexpr, DT: gl.constexpr):
    o0 = gl.arange(0, D0, layout=REG)
    x = o0.to(DT)
    smem = gl.allocate_shared_memory(DT, ALLOC, SH)
    if IDX >= 0:
        smem.index(IDX).store(x)
    else:
        smem.store(x)


@gluon.jit
def _store2(REG: gl.constexpr, SH: gl.constexpr, ALLOC: gl.constexpr, D0: gl.constexpr, D1: gl.constexpr,
            IDX: gl.constexpr, SLD: gl.constexpr, SLO: gl.constexpr, DT: gl.constexpr):
    o0 = gl.arange(0, D0, layout=gl.SliceLayout(1, REG))
    o1 = gl.arange(0, D1, layout=gl.SliceLayout(0, REG))
    x = (o0[:, None] * D1 + o1[None, :]).to(DT)
    smem = gl.allocate_shared_memory(DT, ALLOC, SH)
    if IDX >= 0:
        v = smem.index(IDX)
    else:
        v = smem
    if SLD >= 0:
        w = v.slice(SLO, D0 if SLD == 0 else D1, SLD)
    else:
        w = v
    w.store(x)


@gluon.jit
def _store3(REG: gl.constexpr, SH: gl.constexpr, ALLOC: gl.constexpr, D0: gl.constexpr, D1: gl.constexpr,
            D2: gl.constexpr, IDX: gl.constexpr, DT: gl.constexpr):
    o0 = gl.arange(0, D0, layout=gl.SliceLayout(1, gl.SliceLayout(2, REG)))
    o1 = gl.arange(0, D1, layout=gl.SliceLayout(0, gl.SliceLayout(2, REG)))
    o2 = gl.arange(0, D2, layout=gl.SliceLayout(0, gl.SliceLayout(1, REG)))
    x = (o0[:, None, None] * (D1 * D2) + o1[None, :, None] * D2 + o2[None, None, :]).to(DT)
    smem = gl.allocate_shared_memory(DT, ALLOC, SH)
    if IDX >= 0:
        smem.index(IDX).store(x)
    else:
        smem.store(x)


_STORE_RE = re.compile(
    r"store (?P<ty><(?P<n>\d+) x i(?P<vb>\d+)>|i(?P<sb>\d+)) "
    r"(?P<val><[^>]*>|zeroinitializer|splat \(i\d+ -?\d+\)|-?\d+), ptr addrspace\(3\) "
    r"(?:@global_smem|getelementptr(?: inbounds)?(?: nuw)? \(i8, ptr addrspace\(3\) @global_smem, i(?:32|64) (?P<off>\d+)\))")
_GL_DT = {8: gl.int8, 16: gl.int16, 32: gl.int32}


def _smem_stores(llir, bits):
    """value -> sorted byte addresses, from constant stores to shared memory (values are
    unpacked from wider integer words, little-endian)."""
    res = {}
    nstores = 0
    for m in _STORE_RE.finditer(llir):
        nstores += 1
        base = int(m.group("off")) if m.group("off") else 0
        val = m.group("val")
        if m.group("n"):
            n, wbits = int(m.group("n")), int(m.group("vb"))
            if val == "zeroinitializer":
                words = [0] * n
            elif val.startswith("splat"):
                words = [int(val.split()[-1].rstrip(")"))] * n
            else:
                words = [int(v.split()[1]) for v in val.strip("<>").split(",")]
        else:
            wbits = int(m.group("sb"))
            words = [int(val)]
        for j, w in enumerate(words):
            w &= (1 << wbits) - 1
            for e in range(wbits // bits):
                v = (w >> (e * bits)) & ((1 << bits) - 1)
                res.setdefault(v, set()).add(base + j * wbits // 8 + e * bits // 8)
    # every store to shared memory must have been understood
    assert nstores == len(re.findall(r"\bstore [^\n]*ptr addrspace\(3\)", llir)), "unparsed shared store"
    return {k: sorted(v) for k, v in res.items()}


def compiled_store_addresses(layout, view_shape, alloc_shape, bits=32, index=-1, slice_dim=-1, slice_off=0):
    """Compile a kernel that stores x[i] = row-major index of i (truncated to `bits`) into
    the view; returns (metadata.shared, {row-major index: [byte addresses]})."""
    rank = len(view_shape)
    reg = gl.BlockedLayout(list(view_shape), [1] * (rank - 1) + [32], [1] * rank, list(range(rank - 1, -1, -1)))
    consts = {"REG": reg, "SH": layout, "ALLOC": list(alloc_shape), "IDX": index, "DT": _GL_DT[bits]}
    for i, s in enumerate(view_shape):
        consts[f"D{i}"] = s
    fn = {1: _store1, 2: _store2, 3: _store3}[rank]
    if rank == 2:
        consts["SLD"], consts["SLO"] = slice_dim, slice_off
    else:
        assert slice_dim < 0
    src = GluonASTSource(fn, signature={k: "constexpr" for k in consts}, constexprs=consts)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 1})
    return int(k.metadata.shared), _smem_stores(k.asm["llir"], bits)


def _allocation(types, num_ctas=1):
    """Run the wheel's allocate-shared-memory pass on local_allocs of the given types.
    Returns (ttg.shared, [allocation.offset attribute text per alloc])."""
    ctx, _ = _ctx()
    body = "".join(f"    %m{i} = ttg.local_alloc : () -> {t}\n" for i, t in enumerate(types))
    body += "".join(f"    ttg.local_dealloc %m{i} : {t}\n" for i, t in enumerate(types))
    m = _parse_module(ctx, MODULE_HDR % num_ctas + f"  tt.func public @f() {{\n{body}    tt.return\n  }}\n}}\n")
    pm = ir.pass_manager(ctx)
    passes.ttgpuir.add_allocate_shared_memory(pm)
    pm.run(m, "")
    text = m.str()
    offs = re.findall(r"allocation\.offset = (\[[^\]]*\]|\d+ : i32)", text)
    parsed = []
    for o in offs:
        parsed.append([int(x) for x in re.findall(r"(\d+) : i32", o)])
    return m.get_int_attr("ttg.shared"), parsed


# --------------------------------------------------------------------------------------
# amd_rotating_shared
# --------------------------------------------------------------------------------------

def _cga_text(block):
    return f", CGALayout = {json.dumps(block)}" if block else ""


def rotating_text(vec, pp, mp, order, block):
    return (f"#ttg.amd_rotating_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, "
            f"order = [{', '.join(map(str, order))}]{_cga_text(block)}}}>")


def swizzled_text(vec, pp, mp, order, block):
    return rotating_text(vec, pp, mp, order, block).replace("amd_rotating_shared", "swizzled_shared")


def _reshape_probe(type_str, shape, num_ctas):
    def child():
        ctx, m, b, blk = _func_args([type_str], num_ctas)
        v = blk.arg(0)
        r = b.create_memdesc_reshape(v, list(shape))
        return [str(v.get_type()), str(r.get_type())]
    return isolated(child)


def _swizzled_to_ll(p, shape):
    def child():
        ctx, b = _ctx()
        attr = b.get_swizzled_shared_layout(p["vec"], p["perPhase"], p["maxPhase"], p["order"], p["CGALayout"])
        r = b.to_linear_layout(attr, list(shape))
        return {"offset": [list(x) for x in r.offset_bases], "block": [list(x) for x in r.block_bases],
                "alignment": r.alignment}
    return isolated(child)


def rotating_params():
    cases = []
    # (shape, vec, perPhase, maxPhase, order, CGALayout)
    curated = [
        ([16, 16], 1, 1, 2, [1, 0], []),        # the three examples of the .td description
        ([8, 4], 1, 1, 2, [1, 0], []),
        ([8, 4], 1, 2, 2, [1, 0], []),
        ([8, 4], 1, 1, 4, [1, 0], []),
        ([16, 16], 2, 1, 4, [1, 0], []),
        ([32, 64], 4, 1, 8, [1, 0], []),
        ([64, 32], 8, 2, 4, [1, 0], []),
        ([128, 64], 8, 1, 8, [1, 0], []),
        ([64, 64], 4, 4, 4, [1, 0], []),
        ([64, 128], 16, 1, 16, [1, 0], []),
        ([32, 32], 2, 2, 8, [0, 1], []),
        ([64, 16], 4, 1, 4, [0, 1], []),
        ([16, 128], 8, 8, 2, [0, 1], []),
        ([256, 32], 4, 1, 8, [1, 0], []),
        ([4, 4], 2, 1, 4, [1, 0], []),          # vec*phase wraps modulo the column count
        ([8, 8], 8, 1, 2, [1, 0], []),
        ([64, 8], 1, 16, 2, [1, 0], []),        # perPhase*maxPhase > rows touched only by blockNo
        ([32, 32], 1, 1, 1, [1, 0], []),        # maxPhase 1: no swizzle at all
        ([2, 64], 4, 1, 8, [1, 0], []),
        ([1, 32], 4, 1, 8, [1, 0], []),
        ([64], 4, 1, 8, [0], []),              # rank 1: identity
        ([2, 16, 32], 2, 1, 4, [2, 1, 0], []),
        ([4, 32, 16], 4, 2, 4, [1, 2, 0], []),
        ([8, 8, 8], 1, 1, 8, [0, 1, 2], []),
        ([16, 4, 8], 2, 1, 2, [2, 0, 1], []),
        ([4, 2, 64, 32], 8, 1, 8, [3, 2, 1, 0], []),
        ([32, 64], 4, 1, 8, [1, 0], [[0, 0]]),          # broadcast CTA: same as 1 CTA
        ([64, 32], 8, 1, 4, [1, 0], [[0, 1]]),          # split along the column dim
        ([64, 32], 2, 1, 4, [1, 0], [[1, 0]]),          # split along the row dim
        ([64, 32], 1, 1, 4, [1, 0], [[1, 0]]),
        ([16, 16], 1, 4, 4, [1, 0], [[1, 0]]),
        ([2, 32, 64], 4, 1, 8, [2, 1, 0], [[1, 0, 0]]),  # split along a non-swizzled dim
    ]
    cases += curated
    rng = random.Random(SEED)
    while len(cases) < 42:
        rank = rng.choice([2, 2, 2, 3])
        shape = [rng.choice([2, 4, 8, 16, 32, 64, 128]) for _ in range(rank)]
        if prod(shape) > 1 << 14:
            continue
        order = list(range(rank))
        rng.shuffle(order)
        cases.append((shape, rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]), order, []))
    return cases


def rotating_cases(errors):
    out = []
    for i, (shape, vec, pp, mp, order, block) in enumerate(rotating_params()):
        nctas = 1 << len(block)
        block_units = block       # CGALayout bases are in CTA-tile units
        params = {"vec": vec, "perPhase": pp, "maxPhase": mp, "order": order, "CGALayout": block_units,
                  "numCTAs": nctas}
        text = rotating_text(vec, pp, mp, order, block_units)
        t = memdesc_type(shape, text)
        res = _reshape_probe(t, shape, nctas)
        name = f"rot_{i:02d}_{'x'.join(map(str, shape))}_v{vec}p{pp}m{mp}_o{''.join(map(str, order))}" + \
            (f"_cga{len(block)}" if block else "")
        model = None
        try:
            ml = model_swizzle(shape, vec, pp, mp, order, block_units, True)
            model = {"offset": ml.bases["offset"], "block": ml.bases.get("block", [])}
        except AssertionError as e:  # noqa: F841
            model = None
        if res[0] != "ok":
            errors.append({"name": name, "kind": "amd_rotating_shared", "params": params, "shape": shape,
                           "ttgir": text, "reason": f"{res[0]}: {res[1]}",
                           "model_bases": model,
                           "note": "probe failed; see shared_encodings.md (rotating + CGA split)"})
            continue
        ttgir = encoding_of_type(res[1][0])
        ll, alignment = parse_ll_dict(encoding_of_type(res[1][1]))
        bases = {"offset": ll["offset"], "block": ll["block"]}
        sw = _swizzled_to_ll(params, shape)
        sw_bases = None
        probe_ok = None
        if sw[0] == "ok":
            sw_bases = {"offset": sw[1]["offset"], "block": sw[1]["block"]}
            # validate the probe on the swizzled analogue (alloc shape with a leading dim makes
            # the reshape produce a shared_linear result)
            st = memdesc_type(shape, swizzled_text(vec, pp, mp, order, block_units), alloc=[2] + list(shape))
            pr = _reshape_probe(st, shape, nctas)
            if pr[0] == "ok":
                pl, _ = parse_ll_dict(encoding_of_type(pr[1][1]))
                probe_ok = {"offset": pl["offset"], "block": pl["block"]} == sw_bases
        if model != bases:
            raise SystemExit(f"{name}: own model {model} != oracle {bases}")
        out.append({
            "name": name, "kind": "amd_rotating_shared", "params": params, "ttgir": ttgir, "shape": shape,
            "bases": bases, "outDims": [[f"dim{d}", s] for d, s in enumerate(shape)],
            "alignment": alignment,
            "swizzled_shared_bases": sw_bases,
            "probe_validated_on_swizzled": probe_ok,
        })
    return out


# --------------------------------------------------------------------------------------
# padded_shared
# --------------------------------------------------------------------------------------

def identity_bases(shape, order):
    rank = len(shape)
    bases = []
    for d in order:
        for k in range(log2(shape[d])):
            b = [0] * rank
            b[d] = 1 << k
            bases.append(b)
    return bases


def padded_params():
    """(form, pairs, shape, order | offset_bases, cga_layout, bits)."""
    P = []
    idn = "identity"
    lin = "linear"
    P += [
        (idn, [[32, 4]], [64, 64], [1, 0], [], 32),
        (idn, [[32, 4]], [64, 32], [1, 0], [], 16),
        (idn, [[32, 4]], [64, 32], [0, 1], [], 16),
        (idn, [[32, 4], [64, 8]], [32, 64], [1, 0], [], 32),
        (idn, [[64, 8], [32, 4]], [32, 64], [1, 0], [], 32),     # pairs are not sorted
        (idn, [[8, 1], [16, 2]], [8, 16], [1, 0], [], 32),
        (idn, [[2, 1], [4, 2]], [4, 4], [1, 0], [], 32),         # the Gluon docstring example
        (idn, [[2, 2]], [16, 32], [1, 0], [], 32),               # the .td short-form example
        (idn, [[1, 1]], [8, 8], [1, 0], [], 32),                 # a pad after every element
        (idn, [[512, 16]], [16, 32], [1, 0], [], 32),            # interval == size: no pad at all
        (idn, [[512, 16]], [32, 32], [1, 0], [], 16),
        (idn, [[1024, 16]], [16, 32], [1, 0], [], 32),           # interval > size
        (idn, [[128, 8]], [16, 16], [1, 0], [], 8),
        (idn, [[16, 4], [64, 8]], [8, 32], [0, 1], [], 8),
        (idn, [[16, 1]], [256], [0], [], 32),                    # rank 1
        (idn, [[64, 4]], [1024], [0], [], 16),
        (idn, [[32, 2]], [4, 8, 16], [2, 1, 0], [], 32),         # rank 3
        (idn, [[16, 4], [128, 8]], [4, 16, 8], [1, 2, 0], [], 32),
        (idn, [[8, 1], [64, 2], [256, 4]], [16, 32], [1, 0], [], 32),  # three pairs
        (idn, [[32, 4]], [64, 64], [1, 0], [[1, 0]], 16),         # 2 CTAs split along dim0
        (idn, [[32, 4]], [64, 64], [1, 0], [[0, 1], [1, 0]], 16),  # 4 CTAs
        (idn, [[16, 2]], [32, 32], [0, 1], [[0, 0]], 16),         # broadcast CTA
        (lin, [[2, 2]], [4], [[2], [1]], [], 32),                 # .td example 1D
        (lin, [[16, 1]], [8, 4], [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], [], 32),   # .td example 2D
        (lin, [[8, 1]], [8, 4], [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], [], 32),    # Gluon docstring example
        (lin, [[512, 16]], [16, 64], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [2, 0], [4, 0], [8, 0], [1, 0]], [], 16),
        (lin, [[512, 16]], [32, 64], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [4, 0], [2, 0], [8, 0], [16, 0]], [], 16),
        (lin, [[64, 4], [256, 8]], [32, 32], [[1, 0], [2, 0], [0, 1], [4, 0], [0, 2], [8, 0], [0, 4], [16, 0], [0, 8], [0, 16]], [], 32),
        (lin, [[32, 4]], [64, 32], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[1, 0]], 16),
        (lin, [[32, 8]], [4, 8, 32], [[0, 0, 1], [0, 0, 2], [0, 0, 4], [0, 0, 8], [0, 0, 16], [0, 2, 0], [0, 4, 0], [0, 1, 0], [1, 0, 0], [2, 0, 0]], [], 32),
    ]
    rng = random.Random(SEED + 1)
    while len(P) < 40:
        rank = rng.choice([1, 2, 2, 2, 3])
        shape = [rng.choice([2, 4, 8, 16, 32, 64]) for _ in range(rank)]
        if not 16 <= prod(shape) <= 2048:
            continue
        npairs = rng.choice([1, 1, 2])
        ints = rng.sample([4, 8, 16, 32, 64, 128, 256], npairs)
        pairs = [[i, rng.choice([1, 2, 4, 8])] for i in ints]
        order = list(range(rank))
        rng.shuffle(order)
        bases = identity_bases(shape, order)
        if rng.random() < 0.5:
            rng.shuffle(bases)
            P.append((lin, pairs, shape, bases, [], rng.choice([8, 16, 32]) if prod(shape) <= 256 else 32))
        else:
            P.append((idn, pairs, shape, order, [], rng.choice([16, 32])))
    return P


def _padded_info(layout, shape):
    """ttgir, the linear component as stored (offset, block in element units), and the
    to_linear_layout outcome."""
    def child():
        ctx, b = _ctx()
        attr = layout._to_ir(b)
        text = _ttgir_of_attr(b, attr, shape)
        return text
    res = isolated(child)
    if res[0] != "ok":
        return res
    text = res[1]
    nctas = 1 << len(layout.cga_layout)

    def child2():
        ctx, m, b, blk = _func_args([memdesc_type(shape, text)], nctas)
        g = b.get_gluon_layout_from_memdesc(blk.arg(0))
        return {"pairs": [list(p) for p in g.interval_padding_pairs], "offset": [list(x) for x in g.offset_bases],
                "cga": [list(x) for x in g.cga_layout], "shape": list(g.shape)}
    res2 = isolated(child2)
    if res2[0] != "ok":
        return res2

    def child3():
        ctx, b = _ctx()
        b.to_linear_layout(layout._to_ir(b), list(shape))
        return "returned"
    res3 = isolated(child3)
    return "ok", (text, res2[1], f"{res3[0]}: {res3[1]}")


def padded_cases(errors):
    out = []
    for i, (form, pairs, shape, spec, cga, bits) in enumerate(padded_params()):
        rank = len(shape)
        if form == "identity":
            layout = gl.PaddedSharedLayout.with_identity_for(pairs, shape, spec, cga)
        else:
            layout = gl.PaddedSharedLayout(pairs, spec, cga, shape)
        intervals = [p[0] for p in pairs]
        paddings = [p[1] for p in pairs]
        name = f"pad_{i:02d}_{form}_{'x'.join(map(str, shape))}_" + "_".join(f"{a}p{b}" for a, b in pairs) + \
            (f"_cga{len(cga)}" if cga else "")
        res = _padded_info(layout, shape)
        params = {"intervals": intervals, "paddings": paddings, "form": form, "shape": shape,
                  "gluon": ({"with_identity_for": {"interval_padding_pairs": pairs, "shape": shape, "order": spec,
                                                   "cga_layout": cga}} if form == "identity" else
                            {"PaddedSharedLayout": {"interval_padding_pairs": pairs, "offset_bases": spec,
                                                    "cga_layout": cga, "shape": shape}})}
        if form == "identity":
            params["order"] = spec
        if res[0] != "ok":
            errors.append({"name": name, "kind": "padded_shared", "params": params, "shape": shape,
                           "reason": f"{res[0]}: {res[1]}"})
            continue
        text, stored, tll = res[1]
        # block bases as stored: LL(offset) * LL(block) scales the CTA-unit bases by the
        # offset layout's out-dim sizes
        osz = [1] * rank
        for b in stored["offset"]:
            for d, c in enumerate(b):
                if c:
                    osz[d] = max(osz[d], 2 * c)
        block = [[c * s for c, s in zip(b, osz)] for b in stored["cga"]]
        bases = {"offset": stored["offset"], "block": block}
        m = re.search(r"\{offset = (.*), block = (.*)\}>$", text)
        if m:
            assert json.loads(m.group(1)) == bases["offset"] and json.loads(m.group(2)) == bases["block"], name
        else:
            mo = re.search(r"\{order = \[(.*)\], shape = \[(.*)\]\}>$", text)
            assert bases["block"] == [] and bases["offset"] == identity_bases(
                [int(x) for x in mo.group(2).split(", ")], [int(x) for x in mo.group(1).split(", ")]), name
        params["linearComponent"] = bases
        table = ll_inverse_table(bases["offset"], bases["block"], shape)
        linear = [table[f][0] for f in range(prod(shape))]
        padded = [pad_offset(o, intervals, paddings) for o in linear]
        nctas = 1 << len(block)
        per_cta = prod(shape) // (1 << sum(1 for b in block if any(b)))
        alloc_elems = padded_size(per_cta, intervals, paddings)
        case = {"name": name, "kind": "padded_shared", "params": params, "ttgir": text, "shape": shape,
                "bases": bases, "outDims": [[f"dim{d}", s] for d, s in enumerate(shape)],
                "to_linear_layout": tll,
                "linear_offsets": linear, "padded_offsets": padded}
        if block:
            case["block_ids"] = [table[f][1] for f in range(prod(shape))]
        case["alloc_elements"] = alloc_elems
        # wheel check 1: the allocation pass
        al = isolated(_allocation, [memdesc_type(shape, text, elt=_ELT[bits])], nctas)
        check = {"allocation_pass_bytes": al[1][0] if al[0] == "ok" else f"{al[0]}: {al[1]}",
                 "bitwidth": bits}
        if al[0] != "ok" or al[1][0] != alloc_elems * bits // 8:
            raise SystemExit(f"{name}: allocation pass {al} != {alloc_elems} elements")
        # wheel check 2: compiled constant stores (single CTA only)
        if nctas == 1 and prod(shape) <= 4096 and (bits != 8 or prod(shape) <= 256):
            cr = isolated(compiled_store_addresses, layout, shape, shape, bits)
            if cr[0] != "ok":
                raise SystemExit(f"{name}: compile failed {cr}")
            shared, addrs = cr[1]
            addrs = {int(k): v for k, v in addrs.items()}
            mask = (1 << bits) - 1
            got = [addrs.get(f & mask) for f in range(prod(shape))]
            want = [[p * bits // 8] for p in padded]
            if got != want or shared != alloc_elems * bits // 8:
                bad = [(f, got[f], want[f]) for f in range(len(want)) if got[f] != want[f]][:5]
                raise SystemExit(f"{name}: compiled addresses differ: {bad} shared={shared}")
            check["compiled_sm90"] = {"elements_checked": prod(shape), "matched": True, "shared_bytes": shared}
        case["wheel_checks"] = check
        out.append(case)
    return out


# --------------------------------------------------------------------------------------
# shared_linear
# --------------------------------------------------------------------------------------

def shared_linear_params():
    P = [
        ([[0, 1], [0, 2], [1, 0]], [], 16, [2, 4]),
        ([[0, 1], [0, 2], [1, 0]], [[2, 0]], 8, [4, 4]),
        ([[1], [2], [4], [8]], [], 4, [16]),
        ([[0, 1], [0, 2], [0, 4], [1, 2], [2, 4], [4, 0]], [], 16, [8, 8]),      # a swizzle
        ([[0, 1], [0, 0], [1, 0]], [], 16, [2, 2]),                             # a zero (broadcast) offset basis
        ([[0, 1], [0, 2], [1, 0]], [[0, 0]], 16, [2, 4]),                       # a broadcast CTA
        ([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 2]], [], 128, [2, 2, 4]),
        ([[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], [[4, 0], [0, 16]], 1024, [8, 32]),
        ([[2], [1]], [], 1, [4]),
    ]
    rng = random.Random(SEED + 2)
    while len(P) < 30:
        rank = rng.choice([1, 2, 2, 3])
        shape = [rng.choice([1, 2, 4, 8, 16, 32]) for _ in range(rank)]
        if not 2 <= prod(shape) <= 1024:
            continue
        bases = identity_bases(shape, list(range(rank)))
        rng.shuffle(bases)
        nblock = rng.choice([0, 0, 1, 2]) if len(bases) > 2 else 0
        block = [bases.pop() for _ in range(nblock)]
        # mix: xor lower-index bases into later ones (keeps it invertible)
        for j in range(len(bases)):
            for k in range(j):
                if rng.random() < 0.15:
                    bases[j] = [x ^ y for x, y in zip(bases[j], bases[k])]
        if rng.random() < 0.2:
            bases.insert(rng.randrange(len(bases) + 1), [0] * rank)
        if not bases:
            continue
        P.append((bases, block, rng.choice([1, 2, 4, 8, 16, 32, 128, 1024]), shape))
    return P


def shared_linear_cases(errors):
    out = []
    for i, (offset, block, align, shape) in enumerate(shared_linear_params()):
        params = {"offset": offset, "block": block, "alignment": align}
        name = f"sl_{i:02d}_{'x'.join(map(str, shape))}_a{align}" + (f"_cga{len(block)}" if block else "")

        def child():
            ctx, b = _ctx()
            attr = gl.SharedLinearLayout(offset, block, align)._to_ir(b)
            text = _ttgir_of_attr(b, attr, shape)
            r = b.to_linear_layout(attr, list(shape))
            return [text, {"offset": [list(x) for x in r.offset_bases], "block": [list(x) for x in r.block_bases]},
                    r.alignment]
        res = isolated(child)
        if res[0] != "ok":
            errors.append({"name": name, "kind": "shared_linear", "params": params, "shape": shape,
                           "reason": f"{res[0]}: {res[1]}"})
            continue
        text, bases, alignment = res[1]
        out.append({"name": name, "kind": "shared_linear", "params": params, "ttgir": text, "shape": shape,
                    "bases": bases, "outDims": [[f"dim{d}", s] for d, s in enumerate(shape)],
                    "alignment": alignment})
    return out


# --------------------------------------------------------------------------------------
# partitioned_shared
# --------------------------------------------------------------------------------------

def partitioned_params():
    sw = lambda v, p, m, o, c=None: ("swizzled_shared", {"vec": v, "perPhase": p, "maxPhase": m, "order": o,
                                                         "CGALayout": c or []})
    return [
        (2, 4, 0, sw(2, 1, 4, [1, 0]), [128, 32]),       # the .td example shape
        (2, 1, 0, sw(1, 1, 1, [1, 0]), [64, 32]),
        (2, 2, 1, sw(4, 2, 4, [1, 0]), [32, 128]),
        (4, 2, 1, sw(2, 1, 4, [1, 0]), [32, 128]),
        (2, 8, 0, sw(8, 1, 8, [1, 0]), [256, 64]),
        (8, 1, 0, sw(1, 1, 1, [0, 1]), [64, 16]),
        (2, 2, 2, sw(2, 1, 2, [2, 1, 0]), [2, 16, 64]),
        (2, 2, 1, sw(4, 1, 8, [0, 1]), [64, 64]),
        (2, 1, 0, ("nvmma_shared", {"swizzlingByteWidth": 128, "elementBitWidth": 16, "transposed": False,
                                    "fp4Padded": False, "rank": 2}), [32, 64]),
        (2, 2, 1, ("shared_linear", {"offset": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 1]], "block": [],
                                     "alignment": 16}), [8, 16]),
        (2, 2, 0, sw(2, 1, 4, [1, 0], [[0, 1]]), [64, 32]),   # 2 CTAs inside each piece
        (2, 4, 0, ("padded_shared", {"interval_padding_pairs": [[32, 4]], "shape": [16, 32], "order": [1, 0]}), [128, 32]),
        (2, 1, 1, ("padded_shared", {"interval_padding_pairs": [[64, 8]], "shape": [64, 32], "order": [1, 0]}), [64, 64]),
        (2, 2, 0, ("padded_shared", {"interval_padding_pairs": [[16, 2], [64, 4]], "shape": [8, 64], "order": [1, 0]}), [32, 64]),
    ]


def _inner_layout(kind, p):
    if kind == "swizzled_shared":
        return gl.SwizzledSharedLayout(p["vec"], p["perPhase"], p["maxPhase"], p["order"], p["CGALayout"])
    if kind == "nvmma_shared":
        return gl.NVMMASharedLayout(p["swizzlingByteWidth"], p["elementBitWidth"], p["rank"], p["transposed"],
                                    p["fp4Padded"])
    if kind == "shared_linear":
        return gl.SharedLinearLayout(p["offset"], p["block"], p["alignment"])
    if kind == "padded_shared":
        return gl.PaddedSharedLayout.with_identity_for(p["interval_padding_pairs"], p["shape"], p["order"])
    raise ValueError(kind)


def partitioned_cases(errors):
    out = []
    for i, (nparts, ngroups, pdim, (ikind, ip), shape) in enumerate(partitioned_params()):
        params = {"numPartitions": nparts, "numGroups": ngroups, "partitionDim": pdim,
                  "partitionLayout": dict(kind=ikind, **ip)}
        nctas = 1 << len(ip.get("CGALayout", []))
        name = f"part_{i:02d}_{'x'.join(map(str, shape))}_p{nparts}g{ngroups}d{pdim}_{ikind}"

        def child():
            ctx, b = _ctx()
            lay = PartitionedSharedLayout(nparts, ngroups, pdim, _inner_layout(ikind, ip))
            return _ttgir_of_attr(b, lay._to_ir(b), shape)
        res = isolated(child)
        if res[0] != "ok":
            errors.append({"name": name, "kind": "partitioned_shared", "params": params, "shape": shape,
                           "reason": f"{res[0]}: {res[1]}"})
            continue
        text = res[1]

        def child2():
            ctx, b = _ctx()
            lay = PartitionedSharedLayout(nparts, ngroups, pdim, _inner_layout(ikind, ip))
            r = b.to_linear_layout(lay._to_ir(b), list(shape))
            return {"offset": [list(x) for x in r.offset_bases], "block": [list(x) for x in r.block_bases],
                    "alignment": r.alignment}
        tl = isolated(child2)
        case = {"name": name, "kind": "partitioned_shared", "params": params, "ttgir": text, "shape": shape,
                "outDims": [[f"dim{d}", s] for d, s in enumerate(shape)]}
        if tl[0] == "ok":
            case["bases"] = {"offset": tl[1]["offset"], "block": tl[1]["block"]}
            case["alignment"] = tl[1]["alignment"]
            # probe that prints the 'partition' input dim: give the inner layout one zero
            # (broadcast) CTA basis so the shared_linear printer prints every input dim.
            probe_text = None
            if ikind == "swizzled_shared":
                probe_text = text.replace("order = [" + ", ".join(map(str, ip["order"])) + "]" +
                                          _cga_text(ip["CGALayout"]) + "}",
                                          "order = [" + ", ".join(map(str, ip["order"])) + "]" +
                                          _cga_text(ip["CGALayout"] + [[0] * len(shape)]) + "}")
            elif ikind == "shared_linear":
                probe_text = text.replace("]]}, alignment", f"]], block = [[{', '.join(['0'] * len(shape))}]]}}, alignment")
            elif ikind == "nvmma_shared":
                probe_text = text.replace("elementBitWidth = 16}", "elementBitWidth = 16, CGALayout = [[0, 0]]}")
            if probe_text is not None and probe_text != text:
                pr = _reshape_probe(memdesc_type(shape, probe_text), shape, 2 * nctas)
                if pr[0] == "ok":
                    pl, _ = parse_ll_dict(encoding_of_type(pr[1][1]))
                    assert pl["offset"] == case["bases"]["offset"], (name, pl, case["bases"])
                    case["bases"]["partition"] = pl.get("partition", [])
                    case["partition_probe"] = probe_text
                else:
                    case["partition_probe_error"] = f"{pr[0]}: {pr[1]}"
        else:
            case["bases"] = None
            case["to_linear_layout"] = f"{tl[0]}: {tl[1]}"
            if ikind == "padded_shared":
                # Not observable through the wheel: the rule of partitionedSharedToLinearLayout
                # applied to the padded layout's linear component (see shared_encodings.md).
                inner = identity_bases(ip["shape"], ip["order"])
                rank = len(shape)
                piece = shape[pdim] // (nparts * ngroups)
                part_b = [[(piece << k) if d == pdim else 0 for d in range(rank)] for k in range(log2(nparts))]
                grp_b = [[(piece * nparts << k) if d == pdim else 0 for d in range(rank)] for k in range(log2(ngroups))]
                rule = {"offset": inner + grp_b, "block": [], "partition": part_b}
                ivs = [q[0] for q in ip["interval_padding_pairs"]]
                pds = [q[1] for q in ip["interval_padding_pairs"]]
                table = ll_inverse_table(rule["offset"], rule["partition"], shape)
                case["bases_from_source_rule"] = rule
                case["partition_ids_from_source_rule"] = [table[f][1] for f in range(prod(shape))]
                case["padded_offsets_from_source_rule"] = [pad_offset(table[f][0], ivs, pds) for f in range(prod(shape))]
        al = isolated(_allocation, [memdesc_type(shape, text)], nctas)
        if al[0] == "ok":
            case["allocation_f16"] = {"total_bytes": al[1][0], "partition_offsets": al[1][1][0]}
        else:
            case["allocation_f16"] = f"{al[0]}: {al[1]}"
        out.append(case)
    return out


# --------------------------------------------------------------------------------------
# memdesc: leading (pipelining) dims, alloc shapes, views
# --------------------------------------------------------------------------------------

SW2 = "#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [1, 0]}>"
SW3 = "#ttg.swizzled_shared<{vec = 2, perPhase = 2, maxPhase = 4, order = [2, 1, 0]}>"
NV2 = "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>"
PD2 = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 32]}>"
PD3 = "#ttg.padded_shared<[32:+4] {order = [2, 1, 0], shape = [4, 64, 32]}>"
SL2 = "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0]]}, alignment = 16>"
RT2 = "#ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0]}>"


def memdesc_verify_cases():
    types = [
        memdesc_type([3, 64, 32], SW2), memdesc_type([3, 64, 32], SW3), memdesc_type([4, 64, 32], SW3),
        memdesc_type([64, 48], SW2), memdesc_type([3, 64, 48], SW2), memdesc_type([2, 3, 64, 32], SW2),
        memdesc_type([64, 32], SW2, alloc=[3, 64, 32]), memdesc_type([64, 32], SW2, alloc=[2, 3, 64, 32]),
        memdesc_type([32, 32], SW2, alloc=[64, 32]), memdesc_type([64, 32], SW2, alloc=[32, 32]),
        memdesc_type([64, 32], SW2, alloc=[3, 64, 32], mutable=False), memdesc_type([64, 32], SW2, mutable=False),
        memdesc_type([3, 16, 32], NV2), memdesc_type([16, 32], NV2, alloc=[3, 16, 32]),
        memdesc_type([3, 16, 16], RT2), memdesc_type([16, 16], RT2, alloc=[5, 16, 16]),
        memdesc_type([3, 64, 32], PD2), memdesc_type([64, 32], PD2), memdesc_type([64, 64], PD2),
        memdesc_type([32, 32], PD2), memdesc_type([32, 32], PD2, alloc=[64, 32]),
        memdesc_type([64, 32], PD2, alloc=[3, 64, 32]), memdesc_type([3, 64, 32], PD3), memdesc_type([4, 64, 32], PD3),
        memdesc_type([2, 4], SL2), memdesc_type([3, 2, 4], SL2), memdesc_type([4, 4], SL2), memdesc_type([2, 2], SL2),
        memdesc_type([1, 4], SL2, alloc=[2, 4]),
    ]
    out = []
    for t in types:
        def child():
            ctx, m, b, blk = _func_args([t], 1)
            return str(blk.arg(0).get_type())
        r = isolated(child)
        out.append({"type": t, "ok": r[0] == "ok", "printed": r[1] if r[0] == "ok" else None,
                    "error": None if r[0] == "ok" else re.sub(r"^RuntimeError: Parse MLIR file failed\. \| ", "", r[1])})
    return out


def memdesc_ll_cases():
    """Linear layout Triton assigns to views: toLinearLayout(memdesc) =
    toLinearLayout(allocShape.take_back(rank), encoding)."""
    out = []
    for t, ll_shape, enc_kind in [
        (memdesc_type([64, 32], SW2, alloc=[3, 64, 32]), [64, 32], "swizzled"),
        (memdesc_type([32, 32], SW2, alloc=[64, 32]), [64, 32], "swizzled"),
        (memdesc_type([16, 32], SW2, alloc=[4, 64, 32]), [64, 32], "swizzled"),
        (memdesc_type([3, 64, 32], SW2), [3, 64, 32], "swizzled"),
        (memdesc_type([4, 64, 32], SW2), [4, 64, 32], "swizzled"),
        (memdesc_type([16, 16], RT2, alloc=[3, 16, 16]), [16, 16], "rotating"),
    ]:
        def child():
            ctx, m, b, blk = _func_args([t], 1)
            v = blk.arg(0)
            shape = [int(x) for x in re.match(r"!ttg.memdesc<([0-9x]+)x[a-z]", t).group(1).split("x")]
            r = b.create_memdesc_reshape(v, shape)
            return str(r.get_type())
        r = isolated(child)
        case = {"type": t, "view_ll_shape": ll_shape}
        if r[0] == "ok":
            case["probe_result_type"] = r[1]
            if "shared_linear" in r[1]:
                ll, _ = parse_ll_dict(encoding_of_type(r[1]))
                case["bases"] = {"offset": ll["offset"], "block": ll["block"]}
        else:
            case["error"] = f"{r[0]}: {r[1]}"
        out.append(case)
    return out


def memdesc_address_cases():
    """Byte addresses of memdesc_index / memdesc_subslice views (sm_90 LLVM IR), checked
    against the rule: address = pad(index * prod(allocShape[-rank:]) + L^-1(coords + subslice
    offsets)) * bytes, with L = toLinearLayout(allocShape[-rank:], encoding)."""
    SW = gl.SwizzledSharedLayout
    PD = gl.PaddedSharedLayout.with_identity_for
    cases = [
        # name, layout, rule spec, view, alloc, kwargs, bits
        ("index_swizzled", SW(2, 2, 4, [1, 0]), ("swz", 2, 2, 4, [1, 0]), [16, 32], [3, 16, 32], dict(index=2), 32),
        ("index_nvmma", gl.NVMMASharedLayout(64, 16, 2), None, [16, 32], [3, 16, 32], dict(index=1), 16),
        ("index_padded", PD([[32, 4]], [16, 32], [1, 0]), ("pad", [[32, 4]], [1, 0]), [16, 32], [3, 16, 32],
         dict(index=1), 32),
        ("index_padded_2", PD([[32, 4]], [16, 32], [1, 0]), ("pad", [[32, 4]], [1, 0]), [16, 32], [3, 16, 32],
         dict(index=2), 32),
        ("index_padded_interval_gt_buffer", PD([[64, 4], [512, 8]], [4, 32], [1, 0]),
         ("pad", [[64, 4], [512, 8]], [1, 0]), [4, 32], [7, 4, 32], dict(index=6), 32),
        ("index_shared_linear", gl.SharedLinearLayout([[0, 1], [0, 2], [0, 4], [1, 2], [2, 4], [4, 0]], [], 16),
         ("sl", [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4], [4, 0]]), [8, 8], [4, 8, 8], dict(index=3), 32),
        ("subslice_swizzled_dim0", SW(2, 2, 4, [1, 0]), ("swz", 2, 2, 4, [1, 0]), [16, 32], [64, 32],
         dict(slice_dim=0, slice_off=16), 32),
        ("subslice_swizzled_dim1", SW(4, 1, 8, [1, 0]), ("swz", 4, 1, 8, [1, 0]), [32, 16], [32, 64],
         dict(slice_dim=1, slice_off=32), 32),
        ("subslice_swizzled_wrap", SW(8, 1, 4, [1, 0]), ("swz", 8, 1, 4, [1, 0]), [8, 16], [8, 32],
         dict(slice_dim=1, slice_off=16), 32),
        ("subslice_nvmma_dim0", gl.NVMMASharedLayout(128, 16, 2), None, [8, 64], [32, 64],
         dict(slice_dim=0, slice_off=8), 16),
        ("subslice_padded_dim0", PD([[16, 2]], [64, 32], [1, 0]), ("pad", [[16, 2]], [1, 0]), [16, 32], [64, 32],
         dict(slice_dim=0, slice_off=16), 32),
        ("subslice_padded_dim1", PD([[16, 2]], [64, 32], [1, 0]), ("pad", [[16, 2]], [1, 0]), [64, 16], [64, 32],
         dict(slice_dim=1, slice_off=16), 32),
    ]
    out = []
    for name, lay, rule, view, alloc, kw, bits in cases:
        rank = len(view)
        ll_shape = list(alloc[-rank:])

        def child():
            ctx, b = _ctx()
            return _ttgir_of_attr(b, lay._to_ir(b), ll_shape)
        tt = isolated(child)
        cr = isolated(compiled_store_addresses, lay, view, alloc, bits, kw.get("index", -1), kw.get("slice_dim", -1),
                      kw.get("slice_off", 0))
        case = {"name": name, "encoding": tt[1], "view_shape": view, "alloc_shape": alloc, "bitwidth": bits}
        case.update(kw)
        if cr[0] != "ok":
            case["error"] = f"{cr[0]}: {cr[1]}"
            out.append(case)
            continue
        shared, addrs = cr[1]
        mask = (1 << bits) - 1
        got = [addrs.get(str(f & mask)) for f in range(prod(view))]
        got = [g[0] if g and len(g) == 1 else g for g in got]
        case["kernel_shared_bytes"] = shared
        case["byte_addresses"] = got
        if rule is not None:
            if rule[0] == "swz":
                L = model_swizzle(ll_shape, rule[1], rule[2], rule[3], rule[4], [], False).bases["offset"]
            elif rule[0] == "pad":
                L = identity_bases(ll_shape, rule[2])
            else:
                L = rule[1]
            table = ll_inverse_table(L, [], ll_shape)
            ivs = [q[0] for q in rule[1]] if rule[0] == "pad" else []
            pds = [q[1] for q in rule[1]] if rule[0] == "pad" else []
            base = max(kw.get("index", 0), 0) * prod(ll_shape)
            strides = [prod(ll_shape[d + 1:]) for d in range(rank)]
            want = []
            for c in itertools.product(*[range(s) for s in view]):
                cc = list(c)
                if kw.get("slice_dim", -1) >= 0:
                    cc[kw["slice_dim"]] += kw["slice_off"]
                off = base + table[sum(x * st for x, st in zip(cc, strides))][0]
                want.append(pad_offset(off, ivs, pds) * bits // 8)
            if want != got:
                raise SystemExit(f"{name}: rule {want[:8]} != compiled {got[:8]}")
            case["rule_matches"] = True
        out.append(case)
    return out


# --------------------------------------------------------------------------------------
# Invalid inputs
# --------------------------------------------------------------------------------------

def invalid_cases():
    out = []

    def builder_case(name, kind, fn):
        def child():
            ctx, b = _ctx()
            r = fn(b)
            if isinstance(r, ir.attribute):
                return _ttgir_of_attr(b, r, [64, 32])
            return str(r)
        r = isolated(child)
        out.append({"name": name, "kind": kind, "outcome": r[0], "message": r[1] if r[0] != "ok" else None,
                    "result": r[1] if r[0] == "ok" else None})

    # padded_shared: the C++ builder uses get() (no verifier; a bad attribute hits an MLIR
    # assertion), so the verifier messages are taken from the parser (getChecked).
    builder_case("padded_builder_duplicate_interval", "padded_shared",
                 lambda b: b.get_padded_shared_layout([32, 32], [4, 8], [[0, 1], [1, 0]], [], [2, 2]))
    builder_case("padded_to_linear_layout", "padded_shared",
                 lambda b: b.to_linear_layout(b.get_padded_shared_layout([32], [4], [[0, 1], [1, 0]], [], [2, 2]), [2, 2]))
    # shared_linear
    sb = lambda off, blk, al: (lambda b: b.get_shared_linear_layout(off, blk, al))
    builder_case("shared_linear_alignment_not_pow2", "shared_linear", sb([[0, 1], [1, 0]], [], 3))
    builder_case("shared_linear_alignment_zero", "shared_linear", sb([[0, 1], [1, 0]], [], 0))
    builder_case("shared_linear_not_surjective", "shared_linear", sb([[0, 1], [0, 4]], [], 16))
    builder_case("shared_linear_not_injective", "shared_linear", sb([[0, 1], [0, 2], [0, 3]], [], 16))
    builder_case("shared_linear_to_ll_wrong_shape", "shared_linear",
                 lambda b: b.to_linear_layout(b.get_shared_linear_layout([[0, 1], [1, 0]], [], 16), [4, 4]))
    # partitioned_shared
    sw = lambda b: b.get_swizzled_shared_layout(1, 1, 1, [1, 0], [])
    pt = lambda n, g, d: (lambda b: b.get_partitioned_shared_layout(n, g, d, sw(b)))
    builder_case("partitioned_partitions_not_pow2", "partitioned_shared", pt(3, 1, 0))
    builder_case("partitioned_one_partition", "partitioned_shared", pt(1, 2, 0))
    builder_case("partitioned_groups_not_pow2", "partitioned_shared", pt(2, 3, 0))
    builder_case("partitioned_dim_out_of_range", "partitioned_shared", pt(2, 1, 2))
    builder_case("partitioned_nested", "partitioned_shared",
                 lambda b: b.get_partitioned_shared_layout(2, 1, 0, b.get_partitioned_shared_layout(2, 1, 0, sw(b))))
    builder_case("partitioned_shape_not_divisible", "partitioned_shared",
                 lambda b: b.to_linear_layout(b.get_partitioned_shared_layout(4, 4, 0, sw(b)), [8, 8]))

    # amd_rotating_shared through the parser (it has no verifier)
    def parse_case(name, kind, t, nctas=1, probe_shape=None):
        def child():
            ctx, m, b, blk = _func_args([t], nctas)
            return str(blk.arg(0).get_type())
        r = isolated(child)
        case = {"name": name, "kind": kind, "ttgir": t, "outcome": r[0],
                "message": None if r[0] == "ok" else re.sub(r"^RuntimeError: Parse MLIR file failed\. \| ", "", r[1]),
                "result": r[1] if r[0] == "ok" else None}
        if r[0] == "ok" and probe_shape:
            p = _reshape_probe(t, probe_shape, nctas)
            case["linear_layout_probe"] = p[1][1] if p[0] == "ok" else f"{p[0]}: {p[1]}"
        out.append(case)

    pd = lambda spec, shape=(2, 2): memdesc_type(list(shape), f"#ttg.padded_shared<{spec}>")
    parse_case("padded_duplicate_interval", "padded_shared", pd("[32:+4, 32:+8] {order = [1, 0], shape = [2, 2]}"))
    parse_case("padded_interval_not_pow2", "padded_shared", pd("[24:+4] {order = [1, 0], shape = [2, 2]}"))
    parse_case("padded_padding_not_pow2", "padded_shared", pd("[32:+3] {order = [1, 0], shape = [2, 2]}"))
    parse_case("padded_no_pairs", "padded_shared", pd("[] {order = [1, 0], shape = [2, 2]}"))
    parse_case("padded_zero_padding", "padded_shared", pd("[32:+0] {order = [1, 0], shape = [2, 2]}"))
    parse_case("padded_basis_two_dims", "padded_shared", pd("[32:+4] {offset = [[0, 1], [1, 1]], block = []}"))
    parse_case("padded_basis_not_pow2", "padded_shared", pd("[32:+4] {offset = [[0, 1], [0, 2], [0, 3]], block = []}", (1, 4)))
    parse_case("padded_zero_offset_basis", "padded_shared", pd("[32:+4] {offset = [[0, 1], [0, 0], [1, 0]], block = []}"))
    parse_case("padded_zero_block_basis", "padded_shared", pd("[32:+4] {offset = [[0, 1], [1, 0]], block = [[0, 0]]}"), nctas=2)
    parse_case("padded_repeated_basis", "padded_shared", pd("[32:+4] {offset = [[0, 1], [0, 1]], block = []}", (1, 2)))

    parse_case("rotating_unknown_key", "amd_rotating_shared",
               memdesc_type([16, 16], "#ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], foo = 1}>"))
    parse_case("rotating_defaults", "amd_rotating_shared",
               memdesc_type([16, 16], "#ttg.amd_rotating_shared<{order = [1, 0]}>"), probe_shape=[16, 16])
    parse_case("rotating_order_not_permutation", "amd_rotating_shared",
               memdesc_type([16, 16], "#ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [0, 0]}>"),
               probe_shape=[16, 16])
    parse_case("rotating_maxPhase_3", "amd_rotating_shared",
               memdesc_type([16, 16], "#ttg.amd_rotating_shared<{vec = 1, perPhase = 1, maxPhase = 3, order = [1, 0]}>"),
               probe_shape=[16, 16])
    parse_case("rotating_old_cta_keys", "amd_rotating_shared",
               memdesc_type([16, 16], "#ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, order = [1, 0], "
                                      "CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [1, 0]}>"), nctas=2)
    parse_case("padded_short_form_missing_shape", "padded_shared",
               memdesc_type([16, 16], "#ttg.padded_shared<[32:+4] {order = [1, 0]}>"))
    parse_case("padded_long_form_without_block", "padded_shared",
               memdesc_type([2, 2], "#ttg.padded_shared<[32:+4] {offset = [[0, 1], [1, 0]]}>"))
    parse_case("padded_long_form_without_offset", "padded_shared",
               memdesc_type([1, 1], "#ttg.padded_shared<[32:+4] {block = []}>"))
    parse_case("padded_mixed_forms", "padded_shared",
               memdesc_type([2, 2], "#ttg.padded_shared<[32:+4] {offset = [[0, 1], [1, 0]], block = [], order = [1, 0]}>"))
    parse_case("padded_empty_dict", "padded_shared", memdesc_type([1], "#ttg.padded_shared<[32:+4] {}>"))
    parse_case("shared_linear_without_block", "shared_linear",
               memdesc_type([2, 2], "#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}, alignment = 16>"))
    parse_case("shared_linear_without_alignment", "shared_linear",
               memdesc_type([2, 2], "#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}>"))
    parse_case("shared_linear_alignment_inside", "shared_linear",
               memdesc_type([2, 2], "#ttg.shared_linear<{offset = [[0, 1], [1, 0]], alignment = 16}>"))
    parse_case("partitioned_text_form", "partitioned_shared",
               memdesc_type([64, 16], "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, "
                                      "partitionLayout = #ttg.amd_rotating_shared<{vec = 2, perPhase = 1, maxPhase = 4, "
                                      "order = [1, 0]}>}>"), probe_shape=[64, 16])
    parse_case("partitioned_missing_groups", "partitioned_shared",
               memdesc_type([64, 16], "#ttg.partitioned_shared<{numPartitions = 2, partitionDim = 0, "
                                      "partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, "
                                      "order = [1, 0]}>}>"))
    return out


# --------------------------------------------------------------------------------------

def main():
    errors = []
    print("amd_rotating_shared ...", flush=True)
    rot = rotating_cases(errors)
    print("padded_shared ...", flush=True)
    pad = padded_cases(errors)
    print("shared_linear ...", flush=True)
    sl = shared_linear_cases(errors)
    print("partitioned_shared ...", flush=True)
    part = partitioned_cases(errors)
    print("memdesc ...", flush=True)
    md = {"verify": memdesc_verify_cases(), "view_linear_layouts": memdesc_ll_cases(),
          "view_addresses": memdesc_address_cases()}
    print("invalid ...", flush=True)
    inv = invalid_cases()
    doc = {
        "triton_version": TRITON_VERSION,
        "command": COMMAND,
        "cases": rot + pad + sl + part,
        "oracle_failures": errors,
        "memdesc": md,
        "invalid": inv,
    }
    with open(OUT_PATH, "w") as f:
        f.write(dump(doc))
    counts = {}
    for c in doc["cases"]:
        counts[c["kind"]] = counts.get(c["kind"], 0) + 1
    print(f"wrote {OUT_PATH}: {counts}, {len(errors)} oracle failures, {len(inv)} invalid")


def dump(doc):
    """JSON with one case per line inside the lists (diff-friendly, still valid JSON)."""
    parts = ["{"]
    keys = list(doc)
    for ki, k in enumerate(keys):
        v = doc[k]
        sep = "," if ki + 1 < len(keys) else ""
        if isinstance(v, list):
            parts.append(f"  {json.dumps(k)}: [")
            for i, c in enumerate(v):
                parts.append("    " + json.dumps(c, separators=(", ", ": ")) + ("," if i + 1 < len(v) else ""))
            parts.append("  ]" + sep)
        elif isinstance(v, dict):
            parts.append(f"  {json.dumps(k)}: {{")
            sub = list(v)
            for si, sk in enumerate(sub):
                parts.append(f"    {json.dumps(sk)}: [")
                for i, c in enumerate(v[sk]):
                    parts.append("      " + json.dumps(c, separators=(", ", ": ")) + ("," if i + 1 < len(v[sk]) else ""))
                parts.append("    ]" + ("," if si + 1 < len(sub) else ""))
            parts.append("  }" + sep)
        else:
            parts.append(f"  {json.dumps(k)}: {json.dumps(v)}{sep}")
    parts.append("}")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    main()
