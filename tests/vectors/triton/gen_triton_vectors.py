#!/usr/bin/env python3
"""Reference test vectors for layoutc, produced with the Triton 3.9.0 wheel as oracle.

Triton version: 3.9.0 (``pip install triton==3.9.0``; CPU-only machine, no GPU needed).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_triton_vectors.py

It rewrites ``tests/vectors/triton/generated.json`` next to this script. The output is
deterministic: every random choice comes from ``random.Random(SEED)`` and the cases are
evaluated in a fixed order.

Coverage:

* ``layouts``        -- distributed layouts (blocked ranks 1..4, warp size 32/64, 1..8 warps,
  1/2/4 CTAs incl. broadcast CTAs; nvidia_mma v2/v3; amd_mfma; amd_wmma v1..v3; slice;
  dot_op; linear) and shared layouts (swizzled_shared ranks 1..4, nvmma_shared), each
  lowered with ``GluonOpBuilder.to_linear_layout(attr, shape)``.
* ``invalid``        -- parameter sets that Triton rejects (Python assert, C++ verifier
  exception, or a C++ assert / LLVM fatal error that aborts the process).
* ``bank_conflicts`` -- ``GluonOpBuilder.get_shared_bank_conflicts(reg, shared, shape,
  bitwidth)`` (C++ ``triton::gpu::bankConflictsMemDesc``).
* ``ll_ops``         -- operations of ``triton._C.libtriton.linear_layout.LinearLayout``
  (only the ones the bindings expose).

Every oracle call runs in a forked child process, so C++ assertion failures (which abort)
are caught and recorded as errors instead of killing the generator. Only the installed
wheel is called; no Triton source is copied here.
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
COMMAND = "python3 tests/vectors/triton/gen_triton_vectors.py"
SEED = 0x1A7C0
OUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated.json")

import triton  # noqa: E402

if triton.__version__ != TRITON_VERSION:
    sys.exit(f"need triton=={TRITON_VERSION}, found {triton.__version__}")

from triton._C.libtriton import gluon_ir, ir  # noqa: E402
from triton._C.libtriton.linear_layout import LinearLayout  # noqa: E402
import triton.experimental.gluon.language as gl  # noqa: E402
from triton.experimental.gluon.language import amd  # noqa: E402

BANK_CONFLICTS_MEASURE = (
    "GluonOpBuilder.get_shared_bank_conflicts(regAttr, sharedAttr, shape, bitwidth) = "
    "triton::gpu::bankConflictsMemDesc(toLinearLayout(shape, reg), toLinearLayout(shape, shared), "
    "bitwidth): the number of excess shared-memory wavefronts (bank conflicts) per access "
    "instruction when the distributed tensor is stored to / loaded from the shared memory "
    "descriptor with vectorised ld.shared/st.shared (32 banks x 4 bytes). Broadcast register "
    "bases are removed first; the vector width is the largest register vectorisation into "
    "contiguous shared offsets (at most 128 bits); for accesses wider than 32 bits the top "
    "log2(vec*bitwidth/32) lane bases are dropped (the access is split into phases); the result "
    "is 2^dim(span(segment bases) & span(remaining lane bases)) - 1 (0 = conflict free)."
)

# --------------------------------------------------------------------------------------
# Oracle plumbing
# --------------------------------------------------------------------------------------

CTX = ir.context()
ir.load_dialects(CTX)
B = gluon_ir.GluonOpBuilder(CTX, "")
# get_shared_bank_conflicts needs an insertion point inside a module.
_MODULE = B.create_module()
_FN = B.get_or_insert_function(_MODULE, "layoutc_oracle", B.get_function_ty([], []), "public", False)
_MODULE.push_back(_FN)
B.set_insertion_point_to_start(_FN.add_entry_block())

_ASSERT_RE = re.compile(r"([^\s:]+\.(?:cpp|h|hpp|inc)):(\d+): .*?(Assertion `.*' failed\.)", re.S)


def _clean_stderr(text):
    lines = [ln for ln in text.splitlines()
             if ln.strip() and not ln.startswith("nanobind:") and not ln.startswith(" - leaked")]
    text = "\n".join(lines)
    diags = " ".join(ln.strip() for ln in lines if ln.lstrip().startswith("error:"))
    m = _ASSERT_RE.search(text)
    if m:
        msg = f"{os.path.basename(m.group(1))}:{m.group(2)}: {m.group(3)}"
        return f"{diags} | {msg}"[:600] if diags else msg
    idx = text.find("LLVM ERROR:")
    if idx >= 0:
        return " ".join(text[idx:].split())[:400]
    return " ".join(text.split())[-400:] or "process aborted without a message"


def isolated(fn, *args, timeout=120):
    """Run fn(*args) in a forked child. Returns ("ok", value) | ("exc", msg) | ("abort", msg)."""
    rfd, wfd = os.pipe()
    err = tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(rfd)
            os.dup2(err.fileno(), 2)
            signal.alarm(timeout)
            try:
                res = ["ok", fn(*args)]
            except AssertionError as e:
                res = ["exc", f"AssertionError (gluon python): {e}".strip()]
            except BaseException as e:  # noqa: BLE001
                res = ["exc", f"{type(e).__name__}: {str(e).strip()}"]
            data = json.dumps(res).encode()
            view = memoryview(data)
            while view:
                n = os.write(wfd, view)
                view = view[n:]
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
    data = b"".join(chunks)
    if data:
        err.close()
        kind, val = json.loads(data)
        if kind == "exc":
            val = " ".join(val.split())[:400]
        return kind, val
    err.seek(0)
    msg = _clean_stderr(err.read().decode(errors="replace"))
    err.close()
    if os.WIFSIGNALED(status):
        msg = f"{msg} [signal {os.WTERMSIG(status)}]"
    return "abort", msg


# --------------------------------------------------------------------------------------
# params <-> gluon layout objects
# --------------------------------------------------------------------------------------

DISTRIBUTED_KINDS = {"blocked", "slice", "dot_op", "nvidia_mma", "amd_mfma", "amd_wmma", "linear"}
SHARED_KINDS = {"swizzled_shared", "nvmma_shared", "shared_linear"}


def make_layout(p):
    """Build the Gluon Python layout object described by a params dict."""
    k = p["kind"]
    if k == "blocked":
        return gl.BlockedLayout(p["sizePerThread"], p["threadsPerWarp"], p["warpsPerCTA"], p["order"],
                                p["CGALayout"])
    if k == "slice":
        return gl.SliceLayout(p["dim"], make_layout(p["parent"]))
    if k == "dot_op":
        return gl.DotOperandLayout(p["opIdx"], make_layout(p["parent"]), p["kWidth"])
    if k == "nvidia_mma":
        return gl.NVMMADistributedLayout([p["versionMajor"], p["versionMinor"]], p["warpsPerCTA"],
                                         p["instrShape"], p["CGALayout"])
    if k == "amd_mfma":
        return amd.AMDMFMALayout(p["version"], p["instrShape"], p["isTransposed"], p["warpsPerCTA"],
                                 p["elementBitWidth"], p["tilesPerWarp"], p["CGALayout"])
    if k == "amd_wmma":
        return amd.AMDWMMALayout(p["version"], p["isTranspose"], p["ctaLayout"]["warp"],
                                 p["ctaLayout"]["register"], p["instrShape"], p["CGALayout"], p["rank"])
    if k == "linear":
        return gl.DistributedLinearLayout(p["register"], p["lane"], p["warp"], p["block"], p["shape"])
    if k == "swizzled_shared":
        return gl.SwizzledSharedLayout(p["vec"], p["perPhase"], p["maxPhase"], p["order"], p["CGALayout"])
    if k == "nvmma_shared":
        return gl.NVMMASharedLayout(p["swizzlingByteWidth"], p["elementBitWidth"], p["rank"], p["transposed"],
                                    p["fp4Padded"], p["CGALayout"])
    if k == "shared_linear":
        return gl.SharedLinearLayout(p["offset"], p["block"], p["alignment"])
    raise ValueError(k)


def direct_attr(p):
    """Same as make_layout(p)._to_ir(B) but calls the builder directly, skipping the Python
    dataclass asserts, so that the C++ verifier / asserts are what rejects bad input."""
    k = p["kind"]
    if k == "blocked":
        return B.get_blocked_layout(p["sizePerThread"], p["threadsPerWarp"], p["warpsPerCTA"], p["order"],
                                    p["CGALayout"])
    if k == "slice":
        return B.get_slice_layout(p["dim"], direct_attr(p["parent"]))
    if k == "dot_op":
        return B.get_dot_operand_layout(p["opIdx"], direct_attr(p["parent"]), p["kWidth"])
    if k == "nvidia_mma":
        return B.get_mma_layout([p["versionMajor"], p["versionMinor"]], p["warpsPerCTA"], p["CGALayout"],
                                p["instrShape"])
    if k == "amd_mfma":
        return B.get_amd_mfma_layout(p["version"], p["warpsPerCTA"], p["instrShape"], p["isTransposed"],
                                     p["CGALayout"], p["tilesPerWarp"], p["elementBitWidth"])
    if k == "amd_wmma":
        return B.get_amd_wmma_layout(p["version"], p["isTranspose"], p["ctaLayout"]["warp"],
                                     p["ctaLayout"]["register"], p["CGALayout"], p["instrShape"], p["rank"])
    if k == "linear":
        return B.get_distributed_linear_layout(p["register"], p["lane"], p["warp"], p["block"], p["shape"])
    if k == "swizzled_shared":
        return B.get_swizzled_shared_layout(p["vec"], p["perPhase"], p["maxPhase"], p["order"], p["CGALayout"])
    if k == "nvmma_shared":
        return B.get_nvmma_shared_layout(p["swizzlingByteWidth"], p["elementBitWidth"], p["transposed"],
                                         p["fp4Padded"], p["CGALayout"], p["rank"])
    if k == "shared_linear":
        return B.get_shared_linear_layout(p["offset"], p["block"], p["alignment"])
    raise ValueError(k)


_ELT_BY_BITS = {8: "get_int8_ty", 16: "get_half_ty", 32: "get_float_ty", 64: "get_double_ty"}


def ttgir_of(attr, shape, shared, bits=32):
    """The attribute as TTGIR text, e.g. '#ttg.blocked<{...}>'."""
    elt = getattr(B, _ELT_BY_BITS.get(bits, "get_float_ty"))()
    if shared:
        s = str(B.get_shared_mem_desc_ty(elt, list(shape), attr, list(shape)))
        return s[s.index("#"):s.rindex(", #ttg.shared_memory")]
    s = str(B.get_distributed_ty(elt, list(shape), attr))
    return s[s.index("#"):-1]


def ll_of_result(res, shape, shared):
    """Convert what to_linear_layout returned into (bases dict, outDims)."""
    if shared:
        bases = {"offset": [list(b) for b in res.offset_bases], "block": [list(b) for b in res.block_bases]}
        # SharedLinearLayout carries no out-dim sizes: the C++ LinearLayout has the standard
        # out dims dim0..dimN-1 with the requested shape (checked in check_shared_outdims).
        out = [[f"dim{i}", int(s)] for i, s in enumerate(shape)]
        return bases, out, {"alignment": res.alignment}
    bases = {"register": [list(b) for b in res.reg_bases], "lane": [list(b) for b in res.lane_bases],
             "warp": [list(b) for b in res.warp_bases], "block": [list(b) for b in res.block_bases]}
    out = [[f"dim{i}", int(s)] for i, s in enumerate(res.shape)]
    return bases, out, {}


def check_shared_outdims(bases, out):
    """The bases must fit in the out dims and (with block) reach all of them."""
    names = [n for n, _ in out]
    sizes = [s for _, s in out]
    for b in itertools.chain(bases["offset"], bases["block"]):
        if len(b) != len(sizes) or any(not (0 <= c < s) for c, s in zip(b, sizes)):
            return False
    ll = LinearLayout.from_bases([("offset", bases["offset"]), ("block", bases["block"])], names, sizes, False)
    return ll.is_surjective()


def _layout_child(params, shape, bits):
    L = make_layout(params)
    attr = L._to_ir(B)
    res = B.to_linear_layout(attr, list(shape))
    shared = params["kind"] in SHARED_KINDS
    bases, out, extra = ll_of_result(res, shape, shared)
    return {"bases": bases, "outDims": out, "extra": extra}


def _ttgir_child(params, shape, bits):
    attr = make_layout(params)._to_ir(B)
    return ttgir_of(attr, shape, params["kind"] in SHARED_KINDS, bits)


# --------------------------------------------------------------------------------------
# CGA (CTA placement) helpers
# --------------------------------------------------------------------------------------

def log2(x):
    assert x > 0 and x & (x - 1) == 0, x
    return x.bit_length() - 1


def cga_from_old(ctas, split, order):
    """Old form (CTAsPerCGA, CTASplitNum, CTAOrder) -> block bases in CTA-tile units."""
    rank = len(ctas)
    bases = []
    for d in order:
        for i in range(log2(ctas[d])):
            b = [0] * rank
            if i < log2(split[d]):
                b[d] = 1 << i
            bases.append(b)
    return bases


def _pow2_splits(total_log2, rank):
    if rank == 1:
        yield [1 << total_log2]
        return
    for first in range(total_log2 + 1):
        for rest in _pow2_splits(total_log2 - first, rank - 1):
            yield [1 << first] + rest


def find_old_form(bases, rank, prefer_order=None):
    """Search an old-form triple reproducing `bases` exactly (cross-checked with
    gluon_ir.make_cga_layout). Returns None when the placement is not expressible."""
    n = len(bases)
    orders = list(itertools.permutations(range(rank)))
    if prefer_order is not None:
        orders.remove(tuple(prefer_order))
        orders.insert(0, tuple(prefer_order))
    for order in orders:
        for ctas in _pow2_splits(n, rank):
            for split in itertools.product(*[[1 << i for i in range(log2(c) + 1)] for c in ctas]):
                if cga_from_old(ctas, list(split), list(order)) == bases:
                    triple = (list(ctas), list(split), list(order))
                    ref = [list(b) for b in gluon_ir.make_cga_layout(*triple)]
                    if ref == bases:
                        return triple
    return None


def add_old_form(p, rank, prefer_order=None):
    old = find_old_form(p["CGALayout"], rank, prefer_order)
    if old is not None:
        p["CTAsPerCGA"], p["CTASplitNum"], p["CTAOrder"] = old
    return p


def cga_shape(bases, rank):
    shp = [1] * rank
    for b in bases:
        for i, v in enumerate(b):
            if v:
                shp[i] = max(shp[i], 2 * v)
    return shp


def gen_cga(rng, rank, num_ctas, order):
    """Random CTA placement: old-form generated, broadcast, or a permuted/non-old-form basis list."""
    if num_ctas == 1:
        return []
    nbits = log2(num_ctas)
    mode = rng.choice(["old", "old", "old", "broadcast", "perm"])
    ctas = [1] * rank
    for _ in range(nbits):
        ctas[rng.randrange(rank)] *= 2
    if mode == "broadcast":
        split = [1] * rank
    else:
        split = [1 << rng.randint(0, log2(c)) for c in ctas]
        if mode == "old" and all(s == 1 for s in split):
            d = rng.choice([i for i in range(rank) if ctas[i] > 1])
            split[d] = ctas[d]
    cta_order = list(order) if rng.random() < 0.6 else rng.sample(range(rank), rank)
    bases = cga_from_old(ctas, split, cta_order)
    assert [list(b) for b in gluon_ir.make_cga_layout(ctas, split, cta_order)] == bases
    if mode == "perm":
        rng.shuffle(bases)
    return bases


# --------------------------------------------------------------------------------------
# Random distributed layouts
# --------------------------------------------------------------------------------------

def pow2_split(total_log2, rank, rng):
    bits = [0] * rank
    for _ in range(total_log2):
        bits[rng.randrange(rank)] += 1
    return [1 << b for b in bits]


def pick_shape(rng, tile, cga=None, max_elems=1 << 14, max_dim=256, mode=None):
    """Shapes around the layout tile: smaller (broadcast), equal, larger (wrapping)."""
    rank = len(tile)
    mode = mode or rng.choice(["small", "equal", "large", "mixed", "mixed"])
    shape = []
    for d in range(rank):
        t = tile[d]
        if mode == "small":
            e = -rng.randint(1, 3)
        elif mode == "equal":
            e = 0
        elif mode == "large":
            e = rng.randint(1, 2)
        else:
            e = rng.randint(-3, 2)
        s = t * 2 ** e if e >= 0 else t >> (-e)
        if rng.random() < 0.08:
            s = 1
        shape.append(max(1, min(max_dim, s)))
    cmin = cga or [1] * rank
    while True:
        tot = 1
        for s in shape:
            tot *= s
        if tot <= max_elems:
            break
        d = max(range(rank), key=lambda i: shape[i])
        shape[d] //= 2
    return [max(s, 1) for s in shape]


def gen_blocked_params(rng, rank, warp_size, num_warps, num_ctas, spt_max_log2=2):
    p = {"kind": "blocked"}
    p["sizePerThread"] = [1 << rng.randint(0, spt_max_log2) if rng.random() < 0.6 else 1 for _ in range(rank)]
    p["threadsPerWarp"] = pow2_split(log2(warp_size), rank, rng)
    p["warpsPerCTA"] = pow2_split(log2(num_warps), rank, rng)
    p["order"] = rng.sample(range(rank), rank)
    p["CGALayout"] = gen_cga(rng, rank, num_ctas, p["order"])
    add_old_form(p, rank, prefer_order=p["order"])
    p["warpSize"] = warp_size
    p["numCTAs"] = num_ctas
    return p


def blocked_tile(p):
    rank = len(p["order"])
    c = cga_shape(p["CGALayout"], rank)
    return [p["sizePerThread"][i] * p["threadsPerWarp"][i] * p["warpsPerCTA"][i] * c[i] for i in range(rank)]


def gen_mma_params(rng, version, rank, num_warps, num_ctas=1, n=None, k=None):
    p = {"kind": "nvidia_mma", "versionMajor": version, "versionMinor": 0}
    if version == 2:
        wpc = pow2_split(log2(num_warps), rank, rng)
        p["warpsPerCTA"] = wpc
        p["instrShape"] = [16, 8] if rank == 2 else [1, 16, 8]
    else:
        # Hopper: warps along M come in groups of 4
        extra = log2(num_warps) - 2
        wpc = [4, 1]
        for _ in range(extra):
            wpc[rng.randrange(2)] *= 2
        p["warpsPerCTA"] = wpc
        p["instrShape"] = [16, n, k]
    order = list(range(rank - 1, -1, -1))
    p["CGALayout"] = gen_cga(rng, rank, num_ctas, order)
    add_old_form(p, rank, prefer_order=order)
    p["warpSize"] = 32
    p["numCTAs"] = num_ctas
    return p


def mma_tile(p):
    w = p["warpsPerCTA"]
    c = cga_shape(p["CGALayout"], len(w))
    if p["versionMajor"] == 2:
        if len(w) == 2:
            t = [16 * w[0], 8 * w[1]]
        else:
            t = [w[0], 16 * w[1], 8 * w[2]]
    else:
        t = [16 * w[0], p["instrShape"][1] * w[1]]
    return [a * b for a, b in zip(t, c)]


def gen_mfma_params(rng, version, instr, transposed, rank, num_warps, ebw=32, tiles=None, num_ctas=1):
    p = {"kind": "amd_mfma", "version": version, "warpsPerCTA": pow2_split(log2(num_warps), rank, rng),
         "instrShape": instr, "isTransposed": transposed,
         "tilesPerWarp": tiles or [1] * rank, "elementBitWidth": ebw}
    order = list(range(rank - 1, -1, -1))
    p["CGALayout"] = gen_cga(rng, rank, num_ctas, order)
    add_old_form(p, rank, prefer_order=order)
    p["warpSize"] = 64
    p["numCTAs"] = num_ctas
    return p


def mfma_tile(p):
    w, t, ins = p["warpsPerCTA"], p["tilesPerWarp"], p["instrShape"]
    rank = len(w)
    base = [1] * (rank - 2) + [ins[0], ins[1]]
    c = cga_shape(p["CGALayout"], rank)
    return [base[i] * w[i] * t[i] * c[i] for i in range(rank)]


def warp_bases_grid(rng, rank, num_warps, tile):
    """Warp bases of a warpsPerCTA-style grid expressed in units of one instruction tile."""
    wpc = pow2_split(log2(num_warps), rank, rng)
    bases = []
    dims = list(range(rank - 1, -1, -1))
    for d in dims:
        for i in range(log2(wpc[d])):
            b = [0] * rank
            b[d] = 1 << i
            bases.append(b)
    if rng.random() < 0.3:
        rng.shuffle(bases)
    return bases, wpc


def gen_wmma_params(rng, version, transposed, rank, num_warps, instr=None, reg_reps=0, num_ctas=1):
    warp, wpc = warp_bases_grid(rng, rank, num_warps, None)
    reg = []
    used = [0] * rank
    for b in warp:
        for i, v in enumerate(b):
            if v:
                used[i] = max(used[i], 2 * v)
    for _ in range(reg_reps):
        d = rng.randrange(rank - 2, rank) if rank >= 2 else 0
        b = [0] * rank
        b[d] = max(used[d], 1)
        used[d] = b[d] * 2
        reg.append(b)
    p = {"kind": "amd_wmma", "version": version, "isTranspose": transposed,
         "ctaLayout": {"register": reg, "warp": warp},
         "instrShape": instr or [16, 16, 16], "rank": rank}
    order = list(range(rank - 1, -1, -1))
    p["CGALayout"] = gen_cga(rng, rank, num_ctas, order)
    add_old_form(p, rank, prefer_order=order)
    p["warpSize"] = 32
    p["numCTAs"] = num_ctas
    return p


def wmma_tile(p):
    rank = p["rank"]
    used = [1] * rank
    for b in p["ctaLayout"]["warp"] + p["ctaLayout"]["register"]:
        for i, v in enumerate(b):
            if v:
                used[i] = max(used[i], 2 * v)
    base = [1] * (rank - 2) + [16, 16]
    c = cga_shape(p["CGALayout"], rank)
    return [base[i] * used[i] * c[i] for i in range(rank)]


def gen_linear_params(rng, rank, warp_size, num_warps, num_ctas):
    lane_bits, warp_bits, block_bits = log2(warp_size), log2(num_warps), log2(num_ctas)
    need = lane_bits + warp_bits + block_bits
    total = need + rng.randint(0, 5)
    dims_bits = [0] * rank
    for _ in range(total):
        dims_bits[rng.randrange(rank)] += 1
    # cap dims at 256
    for i in range(rank):
        while dims_bits[i] > 8:
            dims_bits[i] -= 1
            j = rng.randrange(rank)
            if dims_bits[j] < 8:
                dims_bits[j] += 1
    shape = [1 << b for b in dims_bits]
    total = sum(dims_bits)
    units = []
    for d in range(rank):
        for i in range(dims_bits[d]):
            v = [0] * rank
            v[d] = 1 << i
            units.append(v)
    rng.shuffle(units)
    zero = [0] * rank
    groups = {"register": [], "lane": [], "warp": [], "block": []}
    pool = list(units)
    slots = [("lane", lane_bits), ("warp", warp_bits), ("block", block_bits)]
    for name, cnt in slots:
        for _ in range(cnt):
            if pool and rng.random() < 0.85:
                groups[name].append(pool.pop())
            else:
                groups[name].append(list(zero))
    groups["register"] = pool
    # No XOR-mixed ("swizzled") bases: Triton 3.9's LinearEncodingAttr verifier requires a
    # permutation matrix after removing broadcast (zero) bases (see the invalid cases).
    for _ in range(rng.randint(0, 1)):
        groups["register"].insert(rng.randint(0, len(groups["register"])), list(zero))
    p = {"kind": "linear", "register": groups["register"], "lane": groups["lane"],
         "warp": groups["warp"], "block": groups["block"], "shape": shape,
         "warpSize": warp_size, "numCTAs": num_ctas}
    return p


# --------------------------------------------------------------------------------------
# Case collection
# --------------------------------------------------------------------------------------

class Collector:
    def __init__(self):
        self.layouts = []
        self.invalid = []
        self.bank = []
        self.ll_ops = []
        self.names = set()
        self.counters = {}
        self.notes = []

    def name(self, prefix):
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        name = f"{prefix}_{n:04d}"
        assert name not in self.names
        self.names.add(name)
        return name

    def add_layout(self, prefix, params, shape, bits=32):
        shape = [int(s) for s in shape]
        kind, val = isolated(_layout_child, params, shape, bits)
        name = self.name(prefix)
        if kind != "ok":
            self.invalid.append({"name": name, "params": params, "shape": shape,
                                 "reason": f"{'abort' if kind == 'abort' else 'exception'}: {val}",
                                 "origin": "generated"})
            return None
        case = {"name": name, "params": params, "shape": shape, "bases": val["bases"],
                "outDims": val["outDims"]}
        if params["kind"] in SHARED_KINDS:
            case.update(val["extra"])
            if not check_shared_outdims(val["bases"], val["outDims"]):
                self.notes.append(f"{name}: shared bases do not fit/cover the shape")
                case["outDimsInferred"] = False
        else:
            nl = len(val["bases"]["lane"])
            nb = len(val["bases"]["block"])
            if params.get("warpSize") != 1 << nl or params.get("numCTAs") != 1 << nb:
                self.notes.append(f"{name}: warpSize/numCTAs mismatch {params.get('warpSize')} vs {1 << nl}, "
                                  f"{params.get('numCTAs')} vs {1 << nb}")
        tk, tv = isolated(_ttgir_child, params, shape, bits)
        if tk == "ok":
            case["ttgir"] = tv
        self.layouts.append(case)
        return case


def fix_nested(p):
    """Give nested distributed params warpSize/numCTAs of their parent (set at construction)."""
    return p


def add_distributed_cases(C, rng):
    # ---- blocked -------------------------------------------------------------------------
    for rank in (1, 2, 3, 4):
        for warp_size in (32, 64):
            for num_warps in (1, 2, 4, 8):
                for rep in range(2 if rank in (2, 3) else 1):
                    num_ctas = rng.choice([1, 1, 2, 4])
                    p = gen_blocked_params(rng, rank, warp_size, num_warps, num_ctas)
                    tile = blocked_tile(p)
                    for mode in ("small", "equal", "large", "mixed"):
                        if rank == 1 and mode == "mixed":
                            continue
                        shape = pick_shape(rng, tile, cga_shape(p["CGALayout"], rank), mode=mode)
                        C.add_layout(f"blocked_r{rank}_w{warp_size}", p, shape)
    # explicit broadcast-CTA and size-1 cases
    for rank in (2, 3):
        for num_ctas in (2, 4):
            p = gen_blocked_params(rng, rank, 32, 4, 1)
            order = p["order"]
            ctas = [1] * rank
            ctas[order[-1]] = num_ctas
            p["CGALayout"] = cga_from_old(ctas, [1] * rank, order)  # all-zero block bases
            for k in ("CTAsPerCGA", "CTASplitNum", "CTAOrder"):
                p.pop(k, None)
            add_old_form(p, rank, prefer_order=order)
            p["numCTAs"] = num_ctas
            C.add_layout(f"blocked_r{rank}_w32_bcastcta", p, blocked_tile(p))
            shape = [1] * rank
            shape[rng.randrange(rank)] = 64
            C.add_layout(f"blocked_r{rank}_w32_bcastcta", p, shape)

    # ---- nvidia_mma v2 / v3 --------------------------------------------------------------
    mma_params = []
    for num_warps in (1, 2, 4, 8):
        for rank in (2, 3):
            num_ctas = rng.choice([1, 1, 2]) if rank == 2 else 1
            p = gen_mma_params(rng, 2, rank, num_warps, num_ctas)
            mma_params.append(p)
            for mode in ("small", "equal", "large"):
                C.add_layout(f"mma_v2_r{rank}", p, pick_shape(rng, mma_tile(p), mode=mode))
    for n in (8, 16, 32, 64, 128, 256):
        for num_warps in (4, 8):
            k = rng.choice([8, 16, 32])
            p = gen_mma_params(rng, 3, 2, num_warps, rng.choice([1, 1, 2]), n=n, k=k)
            mma_params.append(p)
            for mode in ("equal", "large", "small"):
                C.add_layout("mma_v3", p, pick_shape(rng, mma_tile(p), mode=mode, max_elems=1 << 15))

    # ---- amd_mfma --------------------------------------------------------------------------
    mfma_params = []
    instrs = [([32, 32, 8], 32), ([32, 32, 16], 32), ([16, 16, 16], 32), ([16, 16, 32], 32),
              ([16, 16, 4], 64), ([4, 64, 4], 32), ([64, 4, 4], 32)]
    for instr, ebw in instrs:
        for transposed in (False, True):
            for rank in (2, 3):
                if rank == 3 and instr[0] in (4, 64):
                    continue
                if instr[0] == 64 and not transposed:
                    continue  # Triton asserts "64x4 mfma must be transposed" (see invalid cases)
                version = rng.choice([2, 3, 4]) if ebw == 32 else rng.choice([2, 3])
                num_warps = rng.choice([1, 2, 4, 8])
                tiles = None
                if rng.random() < 0.4:
                    tiles = [1] * (rank - 2) + [1 << rng.randint(0, 1), 1 << rng.randint(0, 1)]
                p = gen_mfma_params(rng, version, instr, transposed, rank, num_warps, ebw, tiles,
                                    num_ctas=rng.choice([1, 1, 2]) if rank == 2 else 1)
                mfma_params.append(p)
                for mode in ("small", "equal", "large"):
                    C.add_layout(f"mfma_{instr[0]}x{instr[1]}", p, pick_shape(rng, mfma_tile(p), mode=mode))

    # ---- amd_wmma --------------------------------------------------------------------------
    wmma_params = []
    for version in (1, 2, 3):
        instr_opts = [[16, 16, 16]] if version < 3 else [[16, 16, 32], [16, 16, 64], [16, 16, 4]]
        for transposed in (False, True):
            for rank in (2, 3):
                instr = rng.choice(instr_opts)
                p = gen_wmma_params(rng, version, transposed, rank, rng.choice([1, 2, 4, 8]), instr,
                                    reg_reps=rng.randint(0, 2), num_ctas=rng.choice([1, 2]) if rank == 2 else 1)
                wmma_params.append(p)
                for mode in ("small", "equal", "large"):
                    C.add_layout(f"wmma_v{version}", p, pick_shape(rng, wmma_tile(p), mode=mode))

    # ---- dot_op ----------------------------------------------------------------------------
    dot_params = []

    def dot(parent, op_idx, k_width):
        return {"kind": "dot_op", "opIdx": op_idx, "kWidth": k_width, "parent": parent,
                "warpSize": parent["warpSize"], "numCTAs": parent["numCTAs"]}

    def dot_tile(d):
        par = d["parent"]
        kind = par["kind"]
        if kind == "blocked":
            t = blocked_tile(par)
        elif kind == "nvidia_mma":
            t = mma_tile(par)
        elif kind == "amd_mfma":
            t = mfma_tile(par)
        else:
            t = wmma_tile(par)
        t = list(t)
        kdim = len(t) - 1 if d["opIdx"] == 0 else len(t) - 2
        t[kdim] = 64
        return t

    v2s = [p for p in mma_params if p["versionMajor"] == 2]
    v3s = [p for p in mma_params if p["versionMajor"] == 3]
    for kw in (1, 2, 4, 8):
        for op_idx in (0, 1):
            par = rng.choice(v2s)
            d = dot(par, op_idx, kw)
            dot_params.append(d)
            for mode in ("equal", "large", "small"):
                C.add_layout("dot_mma_v2", d, pick_shape(rng, dot_tile(d), mode=mode))
    for kw in (1, 2, 4):
        d = dot(rng.choice(v3s), 0, kw)
        dot_params.append(d)
        for mode in ("equal", "large"):
            C.add_layout("dot_mma_v3", d, pick_shape(rng, dot_tile(d), mode=mode, max_elems=1 << 15))
    for kw in (4, 8, 16):
        for op_idx in (0, 1):
            par = rng.choice([p for p in mfma_params if p["elementBitWidth"] == 32])
            d = dot(par, op_idx, kw)
            dot_params.append(d)
            for mode in ("equal", "large"):
                C.add_layout("dot_mfma", d, pick_shape(rng, dot_tile(d), mode=mode))
    for kw in (8, 16):
        for op_idx in (0, 1):
            par = rng.choice(wmma_params)
            d = dot(par, op_idx, kw)
            dot_params.append(d)
            for mode in ("equal", "large"):
                C.add_layout("dot_wmma", d, pick_shape(rng, dot_tile(d), mode=mode))
    for op_idx in (0, 1):
        for rep in range(2):
            par = gen_blocked_params(rng, 2 if rep == 0 else 3, 32, 4, 1)
            d = dot(par, op_idx, 0)
            dot_params.append(d)
            for mode in ("equal", "large"):
                C.add_layout("dot_blocked", d, pick_shape(rng, dot_tile(d), mode=mode))

    # ---- slice -----------------------------------------------------------------------------
    def tile_of(p):
        k = p["kind"]
        if k == "blocked":
            return blocked_tile(p)
        if k == "nvidia_mma":
            return mma_tile(p)
        if k == "amd_mfma":
            return mfma_tile(p)
        if k == "amd_wmma":
            return wmma_tile(p)
        if k == "dot_op":
            return dot_tile(p)
        raise ValueError(k)

    parents = []
    for rank in (2, 3, 4):
        for ws in (32, 64):
            parents.append(gen_blocked_params(rng, rank, ws, rng.choice([1, 4, 8]), rng.choice([1, 2])))
    parents += rng.sample(mma_params, 4) + rng.sample(mfma_params, 4) + rng.sample(wmma_params, 2)
    parents += rng.sample(dot_params, 4)
    for par in parents:
        rank = len(tile_of(par))
        for dim in range(rank):
            s = {"kind": "slice", "dim": dim, "parent": par, "warpSize": par["warpSize"],
                 "numCTAs": par["numCTAs"]}
            t = tile_of(par)
            t = t[:dim] + t[dim + 1:]
            C.add_layout(f"slice_{par['kind']}", s, pick_shape(rng, t))
    # slice of a slice
    for rep in range(4):
        par = gen_blocked_params(rng, 3, 32, 4, 1)
        s1 = {"kind": "slice", "dim": rng.randrange(3), "parent": par, "warpSize": 32, "numCTAs": 1}
        s2 = {"kind": "slice", "dim": rng.randrange(2), "parent": s1, "warpSize": 32, "numCTAs": 1}
        C.add_layout("slice_slice", s2, [1 << rng.randint(0, 7)])

    # ---- linear ----------------------------------------------------------------------------
    for rep in range(40):
        rank = rng.choice([1, 2, 2, 3, 4])
        ws = rng.choice([32, 64])
        p = gen_linear_params(rng, rank, ws, rng.choice([1, 2, 4, 8]), rng.choice([1, 1, 2, 4]))
        C.add_layout(f"linear_r{rank}", p, p["shape"])
        if rep % 4 == 0:
            # a different (power-of-two) shape: Triton reshapes the layout to it
            other = [max(1, s * 2 ** rng.randint(-1, 1)) for s in p["shape"]]
            other = [min(o, 256) for o in other]
            C.add_layout(f"linear_r{rank}_reshaped", p, other)


def add_shared_cases(C, rng):
    # ---- swizzled_shared -------------------------------------------------------------------
    pw = [1, 2, 4, 8]
    for rank in (1, 2, 3, 4):
        perms = list(itertools.permutations(range(rank)))
        reps = {1: 6, 2: 20, 3: 24, 4: 24}[rank]
        for i in range(reps):
            order = list(perms[i % len(perms)])
            vec = rng.choice(pw + [16])
            per_phase = rng.choice(pw)
            max_phase = rng.choice(pw + [16])
            num_ctas = rng.choice([1, 1, 1, 2, 4])
            p = {"kind": "swizzled_shared", "vec": vec, "perPhase": per_phase, "maxPhase": max_phase,
                 "order": order, "CGALayout": gen_cga(rng, rank, num_ctas, order)}
            add_old_form(p, rank, prefer_order=order)
            p["numCTAs"] = num_ctas
            cs = cga_shape(p["CGALayout"], rank)
            tile = [1] * rank
            tile[order[0]] = max(vec * max_phase, 8)
            if rank > 1:
                tile[order[1]] = per_phase * max_phase
            tile = [t * c for t, c in zip(tile, cs)]
            shape = pick_shape(rng, tile, mode=rng.choice(["small", "equal", "large", "mixed"]),
                               max_elems=1 << 15)
            C.add_layout(f"swizzled_shared_r{rank}", p, shape)

    # ---- nvmma_shared ----------------------------------------------------------------------
    for swz in (0, 32, 64, 128):
        for ebw in (8, 16, 32):
            for transposed in (False, True):
                for rank in (2, 3):
                    num_ctas = rng.choice([1, 1, 2]) if rank == 2 else 1
                    order = list(range(rank - 1, -1, -1))
                    p = {"kind": "nvmma_shared", "swizzlingByteWidth": swz, "transposed": transposed,
                         "elementBitWidth": ebw, "fp4Padded": False, "rank": rank,
                         "CGALayout": gen_cga(rng, rank, num_ctas, order)}
                    add_old_form(p, rank, prefer_order=order)
                    p["numCTAs"] = num_ctas
                    cs = cga_shape(p["CGALayout"], rank)
                    contig = max(swz, 16) * 8 // ebw
                    for rep in range(2):
                        shape = [1 << rng.randint(0, 1)] * (rank - 2) + [0, 0]
                        rows = 8 << rng.randint(0, 5)
                        cols = contig << rng.randint(0, 2)
                        shape[-2], shape[-1] = (cols, rows) if transposed else (rows, cols)
                        shape = [min(256, s * c) for s, c in zip(shape, cs)]
                        C.add_layout(f"nvmma_shared_{swz}b_e{ebw}", p, shape, bits=ebw)
    # 64-bit elements, fp4Padded, big and small shapes
    for swz in (32, 64, 128):
        p = {"kind": "nvmma_shared", "swizzlingByteWidth": swz, "transposed": False, "elementBitWidth": 64,
             "fp4Padded": False, "rank": 2, "CGALayout": [], "numCTAs": 1}
        add_old_form(p, 2)
        C.add_layout("nvmma_shared_e64", p, [64, 64], bits=64)
    for transposed in (False, True):
        for shape in ([64, 64], [128, 128], [32, 256], [256, 256]):
            p = {"kind": "nvmma_shared", "swizzlingByteWidth": 128, "transposed": transposed,
                 "elementBitWidth": 8, "fp4Padded": True, "rank": 2, "CGALayout": [], "numCTAs": 1}
            add_old_form(p, 2)
            C.add_layout("nvmma_shared_fp4", p, shape, bits=8)
    for swz, ebw in ((128, 16), (64, 16), (32, 8), (128, 32)):
        p = {"kind": "nvmma_shared", "swizzlingByteWidth": swz, "transposed": False, "elementBitWidth": ebw,
             "fp4Padded": False, "rank": 2, "CGALayout": [], "numCTAs": 1}
        add_old_form(p, 2)
        for shape in ([256, 256], [8, swz * 8 // ebw], [1, 64], [16, 16]):
            C.add_layout("nvmma_shared_edge", p, shape, bits=ebw)


# --------------------------------------------------------------------------------------
# Bank conflicts
# --------------------------------------------------------------------------------------

def _bank_child(reg, shared, shape, bits):
    ra = make_layout(reg)._to_ir(B)
    sa = make_layout(shared)._to_ir(B)
    n = B.get_shared_bank_conflicts(ra, sa, list(shape), bits)
    rl = B.to_linear_layout(ra, list(shape))
    sl = B.to_linear_layout(sa, list(shape))
    rb, _, _ = ll_of_result(rl, shape, False)
    sb, _, extra = ll_of_result(sl, shape, True)
    return {"conflicts": n, "reg_ll": rb, "shared_ll": sb}


def add_bank_cases(C, rng):
    def rand_swizzled(order):
        return {"kind": "swizzled_shared", "vec": rng.choice([1, 2, 4, 8, 16]),
                "perPhase": rng.choice([1, 2, 4]), "maxPhase": rng.choice([1, 2, 4, 8, 16]),
                "order": order, "CGALayout": [], "numCTAs": 1}

    def nvmma(bits, swz, transposed=False):
        return {"kind": "nvmma_shared", "swizzlingByteWidth": swz, "transposed": transposed,
                "elementBitWidth": bits, "fp4Padded": False, "rank": 2, "CGALayout": [], "numCTAs": 1}

    shapes = [[64, 64], [128, 64], [32, 128], [64, 32], [16, 256], [128, 128]]
    cases = []
    # blocked vs swizzled / unswizzled / nvmma
    for i in range(56):
        bits = [8, 16, 32, 64][i % 4]
        reg = gen_blocked_params(rng, 2, 32, rng.choice([1, 4, 8]), 1, spt_max_log2=3)
        shape = rng.choice(shapes)
        r = rng.random()
        if r < 0.55:
            sh = rand_swizzled(rng.choice([[1, 0], [0, 1]]))
        elif r < 0.7:
            sh = {"kind": "swizzled_shared", "vec": 1, "perPhase": 1, "maxPhase": 1,
                  "order": rng.choice([[1, 0], [0, 1]]), "CGALayout": [], "numCTAs": 1}
        else:
            swz = rng.choice([0, 32, 64, 128])
            sh = nvmma(bits, swz, rng.random() < 0.3)
        cases.append(("bank_blocked", reg, sh, shape, bits))
    # mma v2 accumulators and dot operands
    for i in range(24):
        bits = [16, 32, 8, 16][i % 4]
        mma = gen_mma_params(rng, 2, 2, rng.choice([4, 8]), 1)
        if i % 3 == 0:
            reg = mma
            tag = "bank_mma_v2"
        else:
            kw = max(1, 32 // bits) * rng.choice([1, 2]) if bits < 32 else rng.choice([1, 2])
            kw = min(kw, 8)
            reg = {"kind": "dot_op", "opIdx": i % 2, "kWidth": kw, "parent": mma, "warpSize": 32, "numCTAs": 1}
            tag = "bank_dot_mma_v2"
        shape = rng.choice([[64, 64], [128, 64], [64, 128], [128, 32]])
        if rng.random() < 0.5:
            sh = rand_swizzled([1, 0] if rng.random() < 0.8 else [0, 1])
        else:
            sh = nvmma(bits, rng.choice([32, 64, 128]), rng.random() < 0.3)
        cases.append((tag, reg, sh, shape, bits))
    # mma v3 accumulators
    for i in range(8):
        bits = [16, 32][i % 2]
        n = rng.choice([32, 64, 128])
        reg = gen_mma_params(rng, 3, 2, 4, 1, n=n, k=16)
        shape = [64, n]
        swz = rng.choice([s for s in (32, 64, 128) if s <= n * bits // 8])
        sh = nvmma(bits, swz) if i % 2 == 0 else rand_swizzled([1, 0])
        cases.append(("bank_mma_v3", reg, sh, shape, bits))
    # amd mfma (64 lanes) for completeness
    for i in range(6):
        bits = [16, 32][i % 2]
        reg = gen_mfma_params(rng, 3, [32, 32, 8] if i < 3 else [16, 16, 16], bool(i % 2), 2, 4)
        shape = [64, 64]
        sh = rand_swizzled(rng.choice([[1, 0], [0, 1]]))
        cases.append(("bank_mfma", reg, sh, shape, bits))
    # hand-checkable: 16x32 fp32 transpose in one warp, row-major vs column-major access
    for order in ([1, 0], [0, 1]):
        reg = {"kind": "blocked", "sizePerThread": [1, 1], "threadsPerWarp": [1, 32] if order == [1, 0] else [32, 1],
               "warpsPerCTA": [1, 1], "order": order, "CGALayout": [], "CTAsPerCGA": [1, 1],
               "CTASplitNum": [1, 1], "CTAOrder": order, "warpSize": 32, "numCTAs": 1}
        for vec, pp, mp in ((1, 1, 1), (1, 1, 16), (1, 1, 32), (4, 1, 8)):
            sh = {"kind": "swizzled_shared", "vec": vec, "perPhase": pp, "maxPhase": mp, "order": [1, 0],
                  "CGALayout": [], "numCTAs": 1}
            cases.append(("bank_transpose", reg, sh, [16, 32], 32))
    for tag, reg, sh, shape, bits in cases:
        if sh["kind"] in ("swizzled_shared", "nvmma_shared"):
            add_old_form(sh, 2, prefer_order=sh.get("order"))
        kind, val = isolated(_bank_child, reg, sh, shape, bits)
        name = C.name(tag)
        if kind != "ok":
            C.notes.append(f"{name}: bank-conflict case skipped ({kind}: {val[:120]})")
            continue
        C.bank.append({"name": name, "reg": reg, "shared": sh, "shape": shape, "bitwidth": bits,
                       "reg_ll": val["reg_ll"], "shared_ll": val["shared_ll"], "conflicts": val["conflicts"]})


# --------------------------------------------------------------------------------------
# LinearLayout operations
# --------------------------------------------------------------------------------------

def ll_to_json(ll):
    return {"bases": [[n, [list(b) for b in bs]] for n, bs in ll.bases],
            "outDims": [[n, int(s)] for n, s in ll.out_dims],
            "surjective": bool(ll.is_surjective())}


def ll_from_json(j):
    return LinearLayout.from_bases([(n, bs) for n, bs in j["bases"]], [n for n, _ in j["outDims"]],
                                   [s for _, s in j["outDims"]], False)


def _ll_op_child(op, args):
    lls = [ll_from_json(a) if isinstance(a, dict) and "bases" in a else a for a in args]
    if op == "mul":
        return ll_to_json(lls[0] * lls[1])
    if op == "compose":
        return ll_to_json(lls[0].compose(lls[1]))
    if op == "invertAndCompose":
        return ll_to_json(lls[0].invert_and_compose(lls[1]))
    if op == "invert":
        return ll_to_json(lls[0].invert())
    if op == "pseudoinvert":
        return ll_to_json(lls[0].pseudoinvert())
    if op == "isInjective":
        return bool(lls[0].is_injective())
    if op == "isInvertible":
        return bool(lls[0].is_invertible())
    if op == "isSurjective":
        return bool(lls[0].is_surjective())
    if op == "getMatrixView":
        return [list(r) for r in lls[0].get_matrix_view()]
    if op == "apply":
        out = lls[0].apply(dict(args[1]))
        return [[n, int(out[n])] for n in lls[0].get_out_dim_names()]
    if op == "equal":
        return bool(lls[0] == lls[1])
    if op == "identity1D":
        return ll_to_json(LinearLayout.identity_1d(*args))
    if op == "strided1D":
        return ll_to_json(LinearLayout.strided_1d(*args))
    if op == "zeros1D":
        return ll_to_json(LinearLayout.zeros_1d(*args))
    raise ValueError(op)


def _mk_child(bases, outs):
    return ll_to_json(LinearLayout.from_bases(bases, [n for n, _ in outs], [s for _, s in outs], False))


def mk_ll(bases, outs):
    """Canonical JSON of a LinearLayout built by the wheel (so 'surjective' is Triton's)."""
    k, v = isolated(_mk_child, bases, outs)
    assert k == "ok", (bases, outs, v)
    return v


def rand_ll(rng, ins, outs, surjective=None, max_bases=3):
    """ins: list of (name, nbases) or names; outs: list of (name, size)."""
    bases = []
    for item in ins:
        name, nb = item if isinstance(item, tuple) else (item, rng.randint(0, max_bases))
        vecs = []
        for _ in range(nb):
            vecs.append([rng.randrange(s) for _, s in outs])
        bases.append((name, vecs))
    return mk_ll(bases, outs)


def rand_surjective_ll(rng, ins, outs, extra_zero=0, mix=3):
    """Random surjective layout: unit vectors of all out bits (XOR-mixed), spread over ins."""
    units = []
    for d, (_, s) in enumerate(outs):
        for i in range(log2(s)):
            v = [0] * len(outs)
            v[d] = 1 << i
            units.append(v)
    for _ in range(mix):
        if len(units) >= 2:
            i, j = rng.sample(range(len(units)), 2)
            units[i] = [a ^ b for a, b in zip(units[i], units[j])]
    rng.shuffle(units)
    for _ in range(extra_zero):
        units.insert(rng.randint(0, len(units)), [0] * len(outs))
    groups = {n: [] for n in ins}
    for idx, u in enumerate(units):
        groups[ins[idx % len(ins)] if idx < len(ins) else rng.choice(ins)].append(u)
    return mk_ll([(n, groups[n]) for n in ins], outs)


def add_ll_ops(C, rng):
    ops = []

    def add(tag, op, args):
        ops.append((tag, op, args))

    sz = lambda: 1 << rng.randint(0, 3)  # noqa: E731
    # mul: four in/out name-overlap cases (plus partial overlaps)
    for case in ("disjointIn_disjointOut", "sameIn_disjointOut", "disjointIn_sameOut", "sameIn_sameOut",
                 "partialIn_partialOut"):
        for rep in range(4):
            if case == "disjointIn_disjointOut":
                a = rand_ll(rng, ["in1"], [("out1", sz())]); b = rand_ll(rng, ["in2"], [("out2", sz())])
            elif case == "sameIn_disjointOut":
                a = rand_ll(rng, ["in"], [("out1", sz())]); b = rand_ll(rng, ["in"], [("out2", sz())])
            elif case == "disjointIn_sameOut":
                a = rand_ll(rng, ["in1"], [("out", sz())]); b = rand_ll(rng, ["in2"], [("out", sz())])
            elif case == "sameIn_sameOut":
                a = rand_ll(rng, ["in"], [("out", sz())]); b = rand_ll(rng, ["in"], [("out", sz())])
            else:
                a = rand_ll(rng, ["in1", "in2"], [("out1", sz()), ("out2", sz())])
                b = rand_ll(rng, ["in2", "in3"], [("out2", sz()), ("out3", sz())])
            add(f"mul_{case}", "mul", [a, b])
    # mul with real register/lane/warp layouts
    add("mul_regs", "mul", [mk_ll([("register", [[1], [2]])], [("dim1", 4)]),
                            mk_ll([("lane", [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]])], [("dim1", 4), ("dim0", 8)])])
    # compose
    for rep in range(8):
        outs = [("out1", sz()), ("out2", sz())][: rng.randint(1, 2)]
        a = rand_ll(rng, ["in1", "in2"], outs)
        bins = [(n, log2(s)) for n, s in a["outDims"]]
        b = rand_ll(rng, bins, [("y1", 1 << rng.randint(0, 3)), ("y2", 1 << rng.randint(0, 2))])
        add("compose", "compose", [a, b])
    # compose with mismatched inner dims (error)
    a = rand_ll(rng, [("in", 2)], [("out", 4)])
    add("compose_mismatch", "compose", [a, rand_ll(rng, [("other", 2)], [("y", 4)])])
    # invertAndCompose
    for rep in range(8):
        outs = [("o1", 1 << rng.randint(1, 3)), ("o2", 1 << rng.randint(0, 3))]
        a = rand_ll(rng, ["i1", "i2"], outs, max_bases=3)
        b = rand_surjective_ll(rng, ["j1", "j2"], outs, extra_zero=0)
        add("invertAndCompose", "invertAndCompose", [a, b])
    for rep in range(6):  # non-injective / broadcast second argument
        outs = [("out", 1 << rng.randint(2, 4))]
        a = rand_surjective_ll(rng, ["in1", "in2"], outs, extra_zero=rng.randint(0, 1))
        b = rand_surjective_ll(rng, ["in"], outs, extra_zero=rng.randint(1, 2))
        add("invertAndCompose_nonInjective", "invertAndCompose", [a, b])
    for rep in range(3):  # same in-dim names on both sides (identity fast path)
        outs = [("dim0", 16), ("dim1", 8)]
        a = rand_surjective_ll(rng, ["register", "lane"], outs, mix=1)
        b = rand_surjective_ll(rng, ["register", "lane"], outs, mix=1)
        add("invertAndCompose_sameIns", "invertAndCompose", [a, b])
    # a non-surjective second argument (error expected)
    add("invertAndCompose_nonSurjective", "invertAndCompose",
        [mk_ll([("in", [[1], [2], [4]])], [("out", 8)]), mk_ll([("in", [[1], [2]])], [("out", 8)])])
    # invert
    for rep in range(6):
        outs = [("o1", 1 << rng.randint(1, 3)), ("o2", 1 << rng.randint(0, 2))]
        a = rand_surjective_ll(rng, ["in"], outs, mix=rng.randint(0, 4))
        add("invert", "invert", [a])
    add("invert_nonInjective", "invert", [mk_ll([("in", [[1], [0], [2]])], [("out", 4)])])
    add("invert_nonSurjective", "invert", [mk_ll([("in", [[1], [2]])], [("out", 8)])])
    # pseudoinvert
    for rep in range(6):
        outs = [("o1", 1 << rng.randint(1, 3)), ("o2", 1 << rng.randint(0, 2))]
        a = rand_surjective_ll(rng, ["i1", "i2"], outs, extra_zero=rng.randint(0, 2), mix=rng.randint(0, 3))
        add("pseudoinvert", "pseudoinvert", [a])
    add("pseudoinvert_injective", "pseudoinvert", [mk_ll([("in", [[2], [4]])], [("out", 8)])])
    # predicates
    for rep in range(8):
        outs = [("o1", 1 << rng.randint(0, 3)), ("o2", 1 << rng.randint(0, 2))]
        a = rand_ll(rng, ["i1", "i2"], outs) if rep % 2 else rand_surjective_ll(rng, ["i1"], outs, extra_zero=rep % 3)
        for op in ("isInjective", "isSurjective", "isInvertible"):
            add(op, op, [a])
    # apply
    for rep in range(6):
        outs = [("o1", 1 << rng.randint(1, 3)), ("o2", 1 << rng.randint(0, 3))]
        a = rand_ll(rng, [("i1", rng.randint(1, 3)), ("i2", rng.randint(0, 2))], outs)
        inp = [[n, rng.randrange(1 << len(bs))] for n, bs in a["bases"]]
        add("apply", "apply", [a, inp])
    # getMatrixView
    for rep in range(4):
        outs = [("o1", 1 << rng.randint(1, 3)), ("o2", 1 << rng.randint(0, 2))]
        add("getMatrixView", "getMatrixView", [rand_ll(rng, ["i1", "i2"], outs)])
    # equality
    a = rand_ll(rng, [("i1", 2), ("i2", 1)], [("o", 8)])
    add("equal_same", "equal", [a, a])
    add("equal_reorderedIns", "equal", [a, {"bases": list(reversed(a["bases"])), "outDims": a["outDims"],
                                            "surjective": a["surjective"]}])
    add("equal_diff", "equal", [a, rand_ll(rng, [("i1", 2), ("i2", 1)], [("o", 8)])])
    # constructors
    for size, i, o in ((1, "in", "out"), (8, "in", "out"), (32, "lane", "dim0")):
        add("identity1D", "identity1D", [size, i, o])
    for size, stride in ((4, 1), (4, 2), (8, 3), (2, 0)):
        add("strided1D", "strided1D", [size, stride, "in", "out"])
    for size, osz in ((4, 1), (2, 4), (1, 1)):
        add("zeros1D", "zeros1D", [size, "in", "out", osz])

    for tag, op, args in ops:
        kind, val = isolated(_ll_op_child, op, args)
        name = C.name(f"ll_{tag}")
        entry = {"name": name, "op": op, "args": args, "expected": val if kind == "ok" else None}
        if kind != "ok":
            entry["error"] = f"{kind}: {val}"
        C.ll_ops.append(entry)


# --------------------------------------------------------------------------------------
# Invalid inputs
# --------------------------------------------------------------------------------------

def _invalid_child(params, shape):
    attr = direct_attr(params)  # C++ verifier (RuntimeError/ValueError) or assert
    res = B.to_linear_layout(attr, list(shape))  # C++ asserts / LLVM fatal errors
    make_layout(params)  # finally the Gluon Python dataclass checks
    return str(res)


def blk(spt, tpw, wpc, order, cga=()):
    return {"kind": "blocked", "sizePerThread": spt, "threadsPerWarp": tpw, "warpsPerCTA": wpc,
            "order": order, "CGALayout": [list(b) for b in cga]}


def mfma(version, instr, wpc, ebw=32, tiles=None, transposed=False):
    return {"kind": "amd_mfma", "version": version, "warpsPerCTA": wpc, "instrShape": instr,
            "isTransposed": transposed, "tilesPerWarp": tiles or [1] * len(wpc), "elementBitWidth": ebw,
            "CGALayout": []}


def mma(major, wpc, instr, cga=()):
    return {"kind": "nvidia_mma", "versionMajor": major, "versionMinor": 0, "warpsPerCTA": wpc,
            "instrShape": instr, "CGALayout": [list(b) for b in cga]}


def add_invalid_cases(C):
    good = blk([1, 4], [4, 8], [2, 2], [1, 0])
    cases = [
        ("sizePerThread_not_pow2", blk([3, 1], [4, 8], [4, 1], [1, 0]), [64, 64]),
        ("threadsPerWarp_not_pow2", blk([1, 1], [3, 8], [4, 1], [1, 0]), [64, 64]),
        ("warpsPerCTA_not_pow2", blk([1, 1], [4, 8], [3, 1], [1, 0]), [64, 64]),
        ("order_not_permutation", blk([1, 1], [4, 8], [4, 1], [0, 0]), [64, 64]),
        ("order_out_of_range", blk([1, 1], [4, 8], [4, 1], [2, 0]), [64, 64]),
        ("blocked_param_rank_mismatch", blk([1, 1], [4, 8, 1], [4, 1], [1, 0]), [64, 64]),
        ("shape_rank_mismatch_lower", good, [64]),
        ("shape_rank_mismatch_higher", good, [4, 64, 64]),
        ("shape_not_pow2", good, [48, 64]),
        ("shape_zero_dim", good, [0, 64]),
        ("cga_basis_rank_mismatch", blk([1, 1], [4, 8], [4, 1], [1, 0], [[1, 0, 0]]), [64, 64]),
        ("cga_duplicate_basis", blk([1, 1], [4, 8], [4, 1], [1, 0], [[1, 0], [1, 0]]), [64, 64]),
        ("cga_not_pow2_basis", blk([1, 1], [4, 8], [4, 1], [1, 0], [[3, 0]]), [64, 64]),
        ("cga_diagonal_basis", blk([1, 1], [4, 8], [4, 1], [1, 0], [[1, 1]]), [64, 64]),
        ("mma_v2_instrShape_rank", mma(2, [2, 2], [16, 8, 16]), [64, 64]),
        ("mma_warps_not_pow2", mma(2, [3, 1], [16, 8]), [64, 64]),
        ("mma_bad_version", mma(7, [4, 1], [16, 8]), [64, 64]),
        ("mfma_bad_instrShape_8x8", mfma(3, [8, 8, 4], [2, 2]), [64, 64]),
        ("mfma_bad_instrShape_32x16", mfma(3, [32, 16, 8], [2, 2]), [64, 64]),
        ("mfma_bad_version", mfma(5, [32, 32, 8], [2, 2]), [64, 64]),
        ("mfma_version_0", mfma(0, [32, 32, 8], [2, 2]), [64, 64]),
        ("mfma_64x4_not_transposed", mfma(3, [64, 4, 4], [2, 2]), [64, 64]),
        ("mfma_rank1", mfma(3, [32, 32, 8], [4]), [64]),
        ("mma_v2_rank3_with_rank2_instrShape", mma(2, [2, 2, 1], [16, 8]), [4, 64, 64]),
        ("dot_op_mfma_kWidth_0", {"kind": "dot_op", "opIdx": 0, "kWidth": 0,
                                  "parent": mfma(3, [32, 32, 8], [2, 2])}, [64, 64]),
        ("dot_op_mfma_kWidth_3", {"kind": "dot_op", "opIdx": 0, "kWidth": 3,
                                  "parent": mfma(3, [32, 32, 8], [2, 2])}, [64, 64]),
        ("wmma_instrShape_32x32", {"kind": "amd_wmma", "version": 2, "isTranspose": False,
                                   "ctaLayout": {"register": [], "warp": [[0, 1]]},
                                   "instrShape": [32, 32, 16], "rank": 2, "CGALayout": []}, [64, 64]),
        ("blocked_warpsPerCTA_0", blk([1, 1], [4, 8], [0, 1], [1, 0]), [64, 64]),
        ("slice_of_rank1_parent", {"kind": "slice", "dim": 0, "parent": blk([1], [32], [4], [0])}, []),
        ("nvmma_elementBitWidth_4", {"kind": "nvmma_shared", "swizzlingByteWidth": 128, "transposed": False,
                                     "elementBitWidth": 4, "fp4Padded": False, "rank": 2, "CGALayout": []},
         [64, 64]),
        ("linear_swizzled_register_basis", {"kind": "linear", "register": [[1, 1]],
                                            "lane": [[1, 0], [0, 2], [2, 0], [4, 0], [8, 0]], "warp": [],
                                            "block": [], "shape": [16, 4]}, [16, 4]),
        ("linear_swizzled_warp_basis", {"kind": "linear", "register": [[0, 1]],
                                        "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "warp": [[1, 2]],
                                        "block": [], "shape": [32, 4]}, [32, 4]),
        ("linear_duplicate_basis", {"kind": "linear", "register": [[1, 0]],
                                    "lane": [[1, 0], [0, 2], [2, 0], [4, 0], [0, 1]], "warp": [], "block": [],
                                    "shape": [8, 4]}, [8, 4]),
        ("mfma_bad_elementBitWidth", mfma(3, [32, 32, 8], [2, 2], ebw=16), [64, 64]),
        ("wmma_bad_version", {"kind": "amd_wmma", "version": 4, "isTranspose": False,
                              "ctaLayout": {"register": [], "warp": [[0, 1], [1, 0]]},
                              "instrShape": [16, 16, 16], "rank": 2, "CGALayout": []}, [64, 64]),
        ("wmma_warp_basis_not_pow2", {"kind": "amd_wmma", "version": 2, "isTranspose": False,
                                      "ctaLayout": {"register": [], "warp": [[0, 3]]},
                                      "instrShape": [16, 16, 16], "rank": 2, "CGALayout": []}, [64, 64]),
        ("dot_op_blocked_nonzero_kWidth", {"kind": "dot_op", "opIdx": 0, "kWidth": 2, "parent": good}, [64, 64]),
        ("dot_op_mma_v2_kWidth_0", {"kind": "dot_op", "opIdx": 0, "kWidth": 0,
                                    "parent": mma(2, [2, 2], [16, 8])}, [64, 64]),
        ("dot_op_mma_v3_opIdx_1", {"kind": "dot_op", "opIdx": 1, "kWidth": 2,
                                   "parent": mma(3, [4, 1], [16, 64, 16])}, [64, 64]),
        ("dot_op_bad_opIdx", {"kind": "dot_op", "opIdx": 2, "kWidth": 2,
                              "parent": mma(2, [2, 2], [16, 8])}, [64, 64]),
        ("slice_dim_out_of_range", {"kind": "slice", "dim": 2, "parent": good}, [64]),
        ("swizzled_perPhase_0", {"kind": "swizzled_shared", "vec": 4, "perPhase": 0, "maxPhase": 8,
                                 "order": [1, 0], "CGALayout": []}, [64, 64]),
        ("swizzled_single_element_shape", {"kind": "swizzled_shared", "vec": 4, "perPhase": 1, "maxPhase": 4,
                                           "order": [1, 0], "CGALayout": []}, [1, 1]),
        ("swizzled_order_not_permutation", {"kind": "swizzled_shared", "vec": 4, "perPhase": 1, "maxPhase": 8,
                                            "order": [1, 1], "CGALayout": []}, [64, 64]),
        ("swizzled_shape_rank_mismatch", {"kind": "swizzled_shared", "vec": 4, "perPhase": 1, "maxPhase": 8,
                                          "order": [1, 0], "CGALayout": []}, [64, 64, 2]),
        ("nvmma_bad_swizzle", {"kind": "nvmma_shared", "swizzlingByteWidth": 96, "transposed": False,
                               "elementBitWidth": 16, "fp4Padded": False, "rank": 2, "CGALayout": []}, [64, 64]),
        ("nvmma_fp4Padded_16bit", {"kind": "nvmma_shared", "swizzlingByteWidth": 128, "transposed": False,
                                   "elementBitWidth": 16, "fp4Padded": True, "rank": 2, "CGALayout": []}, [64, 64]),
        ("nvmma_shape_too_small", {"kind": "nvmma_shared", "swizzlingByteWidth": 128, "transposed": False,
                                   "elementBitWidth": 16, "fp4Padded": False, "rank": 2, "CGALayout": []}, [4, 8]),
        ("nvmma_shape_rank_mismatch", {"kind": "nvmma_shared", "swizzlingByteWidth": 128, "transposed": False,
                                       "elementBitWidth": 16, "fp4Padded": False, "rank": 2, "CGALayout": []},
         [2, 64, 64]),
        ("linear_not_surjective", {"kind": "linear", "register": [[0, 1]], "lane": [[1, 0], [2, 0], [0, 0], [0, 0],
                                                                                    [0, 0]],
                                   "warp": [], "block": [], "shape": [8, 4]}, [8, 4]),
        ("linear_basis_out_of_range", {"kind": "linear", "register": [[0, 4]], "lane": [[1, 0], [2, 0], [4, 0],
                                                                                        [0, 1], [0, 2]],
                                       "warp": [], "block": [], "shape": [8, 4]}, [8, 4]),
        ("linear_basis_rank_mismatch", {"kind": "linear", "register": [[1]], "lane": [[0, 1]], "warp": [],
                                        "block": [], "shape": [2, 2]}, [2, 2]),
        ("linear_basis_not_pow2_extent", {"kind": "linear", "register": [[3, 0]], "lane": [], "warp": [],
                                          "block": [], "shape": [4, 1]}, [4, 1]),
    ]
    accepted = []
    for tag, params, shape in cases:
        kind, val = isolated(_invalid_child, params, shape)
        name = C.name(f"invalid_{tag}")
        if kind == "ok":
            accepted.append(name)
            C.notes.append(f"{name}: NOT rejected by Triton: {val[:200]}")
            continue
        if kind == "abort":
            reason = f"abort: {val}"
        elif val.startswith("AssertionError (gluon python)"):
            reason = f"python assert: {val}"
        else:
            reason = f"exception: {val}"
        C.invalid.append({"name": name, "params": params, "shape": shape, "reason": reason,
                          "origin": "curated"})
    return accepted


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------

def dump(obj, fh):
    """JSON with one case per line (diff friendly, compact)."""
    fh.write("{\n")
    keys = list(obj.keys())
    for ki, k in enumerate(keys):
        v = obj[k]
        fh.write(f"  {json.dumps(k)}: ")
        if isinstance(v, list) and v and isinstance(v[0], dict):
            fh.write("[\n")
            for i, item in enumerate(v):
                fh.write("    " + json.dumps(item, separators=(",", ":")))
                fh.write(",\n" if i + 1 < len(v) else "\n")
            fh.write("  ]")
        else:
            fh.write(json.dumps(v))
        fh.write(",\n" if ki + 1 < len(keys) else "\n")
    fh.write("}\n")


def main():
    rng = random.Random(SEED)
    C = Collector()
    add_distributed_cases(C, rng)
    add_shared_cases(C, rng)
    add_bank_cases(C, rng)
    add_ll_ops(C, rng)
    add_invalid_cases(C)
    out = {
        "triton_version": TRITON_VERSION,
        "command": COMMAND,
        "bank_conflicts_measure": BANK_CONFLICTS_MEASURE,
        "layouts": C.layouts,
        "invalid": C.invalid,
        "bank_conflicts": C.bank,
        "ll_ops": C.ll_ops,
    }
    with open(OUT_PATH, "w") as fh:
        dump(out, fh)
    kinds = {}
    for c in C.layouts:
        kinds[c["params"]["kind"]] = kinds.get(c["params"]["kind"], 0) + 1
    print(f"wrote {OUT_PATH}", file=sys.stderr)
    print(f"layouts: {len(C.layouts)} {kinds}", file=sys.stderr)
    print(f"invalid: {len(C.invalid)} (curated {sum(1 for c in C.invalid if c['origin'] == 'curated')})",
          file=sys.stderr)
    print(f"bank_conflicts: {len(C.bank)} (nonzero {sum(1 for c in C.bank if c['conflicts'])})", file=sys.stderr)
    print(f"ll_ops: {len(C.ll_ops)}", file=sys.stderr)
    for n in C.notes:
        print("note:", n, file=sys.stderr)
    os._exit(0)  # skip nanobind leak reports at interpreter shutdown


if __name__ == "__main__":
    main()
