#!/usr/bin/env python3
"""Kernels for measuring shared-memory wavefronts on a real sm90 GPU (host side, CPU only).

Triton version: 3.9.0 (``pip install triton==3.9.0``). Needs a built ``layoutc``
(``cargo build -p layoutc``; the binary is taken from ``$LAYOUTC`` or ``target/debug/layoutc``).

Command (from the repository root)::

    python3 tests/vectors/triton/gen_hw_kernels.py [OUT_DIR [SHARD COUNT]]   # default: .hw 0 1

With SHARD and COUNT it does only the pairs whose index is SHARD modulo COUNT and writes
``manifest-SHARD.json`` (run one per core, then ``--merge OUT_DIR COUNT``).
``--rebuild MEASURED.json OUT_DIR NAMES`` compiles again the kernels of a measured file that
``NAMES`` lists (``PAIR.KIND``), from the shared layouts the file recorded, and checks that their
PTX has the measured opcodes (for ``measure_hw_sass.sh``).

For every pair of ``swizzle_corpus.json`` that Triton lowers through shared memory, four Gluon
kernels are compiled for ``GPUTarget("cuda", 90, 32)``:

- ``own``: load in the source layout, ``gl.convert_layout``, store in the destination layout;
  the shared layout is Triton's own choice.
- ``linear``, ``triton``, ``padded``: the same loads and stores around an explicit shared buffer
  whose layout is layoutc's answer in that family (``layoutc solve`` on a generated ``.lay`` file
  with ``target = sm90`` and ``instructions = best``), written with ``smem.store`` and read with
  ``smem.load``.

``OUT_DIR`` receives one ``.cubin`` per kernel and ``manifest.json``: for each kernel its pair,
kind, entry name, number of warps, shared bytes, number of entry parameters, the exact PTX
shared-memory opcodes and their static counts, and for answers layoutc's claims
(the JSON of ``layoutc solve``). ``measure_hw_sm90.sh`` runs them on the GPU under Nsight
Compute; ``hw_sm90_wavefronts.json`` is what it measured.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_swizzle_corpus import PTR_BY_BITS, cvt3d, triton, GPUTarget, gluon, gl, GluonASTSource  # noqa: E402
from gen_convert_vectors import cvt1d, cvt2d  # noqa: E402
from gen_triton_vectors import isolated, make_layout  # noqa: E402

# The families whose answers are compiled, each beside Triton's own convert_layout (`own`).
FAMILIES = ("linear", "triton", "padded")
ELEMENT_BY_BITS = {8: "i8", 16: "f16", 32: "f32", 64: "f64"}
# Every shared-memory opcode of the PTX, with its qualifiers (st.shared.v4.b32, ldmatrix...).
SHARED_OPCODE = re.compile(r"\b((?:ld|st)\.shared(?:\.[a-z0-9:]+)*|(?:ldmatrix|stmatrix)(?:\.[a-z0-9]+)*)\b")


@gluon.jit
def rt1d(ptr, out, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr, M: gl.constexpr):
    x = gl.load(ptr + gl.arange(0, M, layout=SRC))
    smem = gl.allocate_shared_memory(ptr.dtype.element_ty, [M], SMEM)
    smem.store(x)
    y = smem.load(DST)
    gl.store(out + gl.arange(0, M, layout=DST), y)


@gluon.jit
def rt2d(ptr, out, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr, M: gl.constexpr,
         N: gl.constexpr):
    om = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    on = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(ptr + om[:, None] * N + on[None, :])
    smem = gl.allocate_shared_memory(ptr.dtype.element_ty, [M, N], SMEM)
    smem.store(x)
    y = smem.load(DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(out + dm[:, None] * N + dn[None, :], y)


@gluon.jit
def rt3d(ptr, out, SRC: gl.constexpr, DST: gl.constexpr, SMEM: gl.constexpr, A: gl.constexpr,
         M: gl.constexpr, N: gl.constexpr):
    sa = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, SRC)))
    sm = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, SRC)))
    sn = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, SRC)))
    x = gl.load(ptr + sa[:, None, None] * (M * N) + sm[None, :, None] * N + sn[None, None, :])
    smem = gl.allocate_shared_memory(ptr.dtype.element_ty, [A, M, N], SMEM)
    smem.store(x)
    y = smem.load(DST)
    da = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, DST)))
    dm = gl.arange(0, M, layout=gl.SliceLayout(0, gl.SliceLayout(2, DST)))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, gl.SliceLayout(1, DST)))
    gl.store(out + da[:, None, None] * (M * N) + dm[None, :, None] * N + dn[None, None, :], y)


def shape_consts(shape):
    names = {1: ["M"], 2: ["M", "N"], 3: ["A", "M", "N"]}[len(shape)]
    return dict(zip(names, shape))


def kernel_source(pair, kind, answer):
    """The Gluon kernel of one pair: Triton's own convert (`own`) or the round trip through a
    buffer in the answer's shared layout."""
    shape = pair["shape"]
    consts = shape_consts(shape)
    consts["SRC"] = make_layout(pair["src_params"])
    consts["DST"] = make_layout(pair["dst_params"])
    if kind == "own":
        fn = {1: cvt1d, 2: cvt2d, 3: cvt3d}[len(shape)]
    else:
        fn = {1: rt1d, 2: rt2d, 3: rt3d}[len(shape)]
        consts["SMEM"] = shared_layout(answer, shape)
    ptr = PTR_BY_BITS[pair["bits"]]
    sig = {"ptr": ptr, "out": ptr}
    sig.update({k: "constexpr" for k in consts})
    return GluonASTSource(fn, signature=sig, constexprs=consts)


def compile_kernel(pair, kind, answer, out_dir):
    k = triton.compile(kernel_source(pair, kind, answer),
                       target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": pair["num_warps"], "num_ctas": 1})
    ptx = k.asm["ptx"]
    entry = re.search(r"\.entry\s+(\w+)\s*\((.*?)\)", ptx, re.S)
    params = len(re.findall(r"\.param\b", entry.group(2)))
    opcodes = {}
    for m in SHARED_OPCODE.finditer(ptx):
        opcodes[m.group(1)] = opcodes.get(m.group(1), 0) + 1
    cubin = f"{pair['name']}.{kind}.cubin"
    with open(os.path.join(out_dir, cubin), "wb") as fh:
        fh.write(k.asm["cubin"])
    return {"entry": entry.group(1), "params": params, "shared_bytes": k.metadata.shared,
            "global_scratch_size": getattr(k.metadata, "global_scratch_size", 0),
            "ptx_shared_opcodes": opcodes, "cubin": cubin}


def offset_bases(answer):
    return next(i["bases"] for i in answer["linear"]["ins"] if i["name"] == "offset")


def shared_layout(answer, shape):
    """The Gluon shared layout of a `layoutc solve` answer: its linear bases, and for the padded
    family the intervals of its `padded` notation around them."""
    bases = offset_bases(answer)
    if answer["family"] != "padded":
        return gl.SharedLinearLayout(bases)
    text = answer["notations"]["padded"]
    pairs = [[int(i), int(p)] for i, p in re.findall(r"(\d+):\+(\d+)", text.split("{")[0])]
    return gl.PaddedSharedLayout(pairs, bases, [], list(shape))


def solve_lay(pair, target="sm90"):
    """One solve block per family, every one free to use any instruction."""
    dims = "x".join(str(s) for s in pair["shape"])
    elem = ELEMENT_BY_BITS[pair["bits"]]
    text = f"target = {target}\n#src = {pair['src_ttgir']}\n#dst = {pair['dst_ttgir']}\n"
    for family in FAMILIES:
        text += (f"solve {family} {{\n    kind = swizzle\n    write = tensor<{dims}x{elem}, #src>\n"
                 f"    read = tensor<{dims}x{elem}, #dst>\n    family = {family}\n"
                 f"    instructions = best\n}}\n")
    return text


def layoutc_solve(binary, pair, target="sm90"):
    return solve_answers(binary, solve_lay(pair, target))


def solve_answers(binary, text, timeout=120):
    """`layoutc solve --format json` of a `.lay` text: each solution by its name (without
    its time, which differs from run to run)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lay", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        out = subprocess.run([binary, "solve", path, "--format", "json"], capture_output=True,
                             text=True, timeout=timeout)
    finally:
        os.unlink(path)
    doc = json.loads(out.stdout)
    answers = {}
    for sol in doc["solutions"]:
        sol.pop("solve_ms", None)
        answers[sol["name"]] = sol
    return answers


def merge(out_dir, count):
    kernels = []
    for shard in range(count):
        with open(os.path.join(out_dir, f"manifest-{shard}.json")) as fh:
            kernels += json.load(fh)["kernels"]
    kernels.sort(key=lambda k: (k["pair"], ("own", *FAMILIES).index(k["kind"])))
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump({"triton_version": triton.__version__, "target": "cuda:90", "kernels": kernels}, fh,
                  indent=1)
    os._exit(0)


def rebuild(measured_name, out_dir, names_file):
    """The kernels a measured file names (``PAIR.KIND`` per line of ``names_file``), compiled
    again from the shared layouts it recorded, for measure_hw_sass.sh."""
    measured = json.load(open(os.path.join(HERE, measured_name)))
    corpus = {p["name"]: p for p in json.load(open(os.path.join(HERE, "swizzle_corpus.json")))["pairs"]}
    wanted = set(open(names_file).read().split())
    os.makedirs(out_dir, exist_ok=True)
    kernels = []
    for k in measured["kernels"]:
        name = f"{k['pair']}.{k['kind']}"
        if name not in wanted:
            continue
        answer = None
        if k["kind"] != "own":
            answer = {"family": k["kind"], "linear": {"ins": [{"name": "offset", "bases": k["offset_bases"]}]},
                      "notations": {"padded": k["shared_ttgir"]}}
        res = isolated(compile_kernel, corpus[k["pair"]], k["kind"], answer, out_dir, timeout=120)
        entry = {key: k[key] for key in ("pair", "kind", "num_warps", "bits", "shape")}
        if res[0] != "ok":
            sys.exit(f"{name}: {res[1]}")
        if res[1]["ptx_shared_opcodes"] != k["ptx_shared_opcodes"]:
            sys.exit(f"{name}: compiled {res[1]['ptx_shared_opcodes']}, measured {k['ptx_shared_opcodes']}")
        entry.update(res[1])
        kernels.append(entry)
    with open(os.path.join(out_dir, "manifest.json"), "w") as fh:
        json.dump({"triton_version": triton.__version__, "target": "cuda:90", "kernels": kernels}, fh, indent=1)
    print(f"{len(kernels)} of {len(wanted)} kernels rebuilt in {out_dir}", file=sys.stderr)
    os._exit(0)


def main():
    t0 = time.time()
    if sys.argv[1:2] == ["--merge"]:
        merge(sys.argv[2], int(sys.argv[3]))
    if sys.argv[1:2] == ["--rebuild"]:
        rebuild(sys.argv[2], sys.argv[3], sys.argv[4])
    out_dir = sys.argv[1] if len(sys.argv) > 1 else ".hw"
    shard, count = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (0, 1)
    manifest = "manifest.json" if count == 1 else f"manifest-{shard}.json"
    os.makedirs(out_dir, exist_ok=True)
    binary = os.environ.get("LAYOUTC", "target/debug/layoutc")
    corpus = json.load(open(os.path.join(HERE, "swizzle_corpus.json")))
    pairs = [p for p in corpus["pairs"] if p.get("lowering") == "shared_memory"][shard::count]
    kernels = []
    for p in pairs:
        answers = layoutc_solve(binary, p)
        for kind in ("own", *FAMILIES):
            sol = answers.get(kind)
            if kind != "own" and (sol is None or "linear" not in sol):
                kernels.append({"pair": p["name"], "kind": kind, "unanswered": sol})
                continue
            res = isolated(compile_kernel, p, kind, sol, out_dir, timeout=120)
            entry = {"pair": p["name"], "kind": kind, "num_warps": p["num_warps"], "bits": p["bits"],
                     "shape": p["shape"]}
            if res[0] == "ok":
                entry.update(res[1])
            else:
                entry["compile_error"] = f"{res[0]}: {res[1]}"
            if kind != "own":
                entry["layoutc"] = sol
            kernels.append(entry)
        print(p["name"], file=sys.stderr)
    with open(os.path.join(out_dir, manifest), "w") as fh:
        json.dump({"triton_version": triton.__version__, "target": "cuda:90", "kernels": kernels}, fh,
                  indent=1)
    bad = sum(1 for k in kernels if "compile_error" in k)
    print(f"{len(kernels)} kernels ({bad} compile errors) in {out_dir}, {time.time() - t0:.0f} s",
          file=sys.stderr)
    os._exit(0)


if __name__ == "__main__":
    main()
