#!/usr/bin/env python3
"""What the compiled kernels of both corpora do with shared memory, read off their PTX.

Triton version: 3.9.0 (``pip install triton==3.9.0``); no GPU is needed.

Command (from the repository root)::

    python3 tests/vectors/triton/gen_ptx_wavefronts.py        # about a minute on 2 cores
    python3 tests/vectors/triton/gen_ptx_wavefronts.py --check KERNEL...   # CI's sample

``--check`` compiles and evaluates the named kernels again and compares them with the
recorded file (exit status 1 on any difference) instead of writing it.

Every kernel of ``gen_ttgir_corpus.py`` and ``gen_kernel_corpus.py`` is compiled for sm80 and
sm90 exactly as those scripts compile them (so each PTX is the compiled form of a corpus dump),
and its PTX is run, lane by lane for every thread of the program, by a small interpreter of
the integer arithmetic that computes addresses (``mov``/``add``/``shl``/``and``/``xor``/
``mad``/``bfe``/``selp``/``setp``/...). Forward branches are taken where the lane's predicate
holds; a backward branch is not (each loop body runs once, as each op runs once in the
kernel summary); a value read from global memory or a pointer is unknown. Every
``ld.shared``/``st.shared``/``ldmatrix``/``stmatrix`` a lane executes gives its address.

A warp issues every instruction one of its lanes reaches (a predicated one too, as the GPU
counts it); per warp and instruction, the lanes whose predicate holds are grouped into the phases the hardware
serves together (a 128-byte line per phase: 8 lanes of 128 bits, 16 of 64, a warp of 32 or
less; a 64- or 128-bit load whose lane quads ask for at most two addresses gets twice the
lanes, as measured on an H100 in ../nvidia/broadcast_wavefronts.json; ldmatrix and stmatrix
serve one 8x8 matrix, 8 row addresses of 16 bytes, per phase), and a phase takes as many
wavefronts as the most distinct 4-byte words any one bank holds among its requests.

Writes ``ptx_wavefronts.json``: per kernel and target, the number of warps, and per
instruction (as the PTX spells it) the warp-instructions executed and the wavefronts they
take, summed over the program's warps; or why it could not be evaluated (an address that
depends on data). ``crates/layout-db/tests/ptx_wavefronts.rs`` compares layoutc's kernel
summaries with it.
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_ttgir_corpus as ttgir_corpus  # noqa: E402  (sets a fresh TRITON_CACHE_DIR)
import gen_kernel_hw  # noqa: E402

from triton.backends.compiler import GPUTarget  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "ptx_wavefronts.json")
TARGETS = (80, 90)
MASK64 = (1 << 64) - 1

MEMORY = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix)")
ADDRESS = re.compile(r"\[\s*(%?[\w.$]+)\s*(?:\+\s*(-?\d+))?\s*\]")


class Unknown(Exception):
    """An address that depends on something the interpreter does not know."""


def parse(ptx):
    """The entry's instructions as (predicate, opcode, operands), and its labels."""
    body = ptx[ptx.index("{", ptx.index(".entry")) + 1:]
    program, labels = [], {}
    for raw in body.split("\n"):
        line = raw.split("//")[0].strip()
        if not line:
            continue
        m = re.match(r"^(\$?[\w.]+):$", line)
        if m:
            labels[m.group(1)] = len(program)
            continue
        if line.startswith(".") or line.startswith("}") or line.startswith("{"):
            continue
        pred = None
        m = re.match(r"^@(!?)(%p\w*)\s+(.*)$", line)
        if m:
            pred, line = (m.group(1) == "!", m.group(2)), m.group(3)
        m = re.match(r"^([\w.:]+)\s*(.*?);?$", line)
        if not m:
            continue
        op, rest = m.group(1), m.group(2).rstrip(";").strip()
        operands = split_operands(rest)
        program.append((pred, op, operands, rest))
    return program, labels


def split_operands(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def width_bits(op):
    """Bits one lane moves: vector count times element width."""
    parts = op.split(".")
    vec = 1
    for p in parts:
        if p in ("v2", "v4", "v8"):
            vec = int(p[1:])
    elem = None
    for p in parts:
        m = re.fullmatch(r"[bsuf](8|16|32|64)", p)
        if m:
            elem = int(m.group(1))
    return vec * (elem or 32)


def run_lane(program, labels, tid, params, warps):
    regs = {"%tid.x": tid, "%tid.y": 0, "%tid.z": 0, "%ctaid.x": 0, "%ctaid.y": 0, "%ctaid.z": 0,
            "%nctaid.x": 1, "%nctaid.y": 1, "%nctaid.z": 1, "%ntid.x": 32 * warps, "%laneid": tid % 32,
            "%warpid": tid // 32, "global_smem": 0}
    preds = {}
    accesses = []

    def value(tok):
        tok = tok.strip()
        if tok in regs:
            return regs[tok]
        tok = tok.rstrip("U")  # an unsigned immediate: 0x7701U
        if re.fullmatch(r"-?\d+", tok):
            return int(tok)
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", tok):
            return int(tok, 16)
        return None

    pc, steps = 0, 0
    while pc < len(program):
        steps += 1
        if steps > 200000:
            raise Unknown("too many steps")
        pred, op, args, text = program[pc]
        pc += 1
        if pred is not None:
            negate, p = pred
            holds = preds.get(p)
            if holds is None:
                holds = True  # a mask or bound of unknown data: the full case
            if holds == negate:
                if MEMORY.match(op):
                    # The warp issues it; this lane moves nothing.
                    accesses.append((pc - 1, op, None))
                continue
        base = op.split(".")[0]
        if base in ("bra",):
            target = labels[args[0]]
            if target > pc - 1:
                pc = target
            continue
        if base in ("ret", "exit", "trap"):
            break
        if MEMORY.match(op):
            m = ADDRESS.search(text)
            reg, off = m.group(1), int(m.group(2) or 0)
            addr = regs.get(reg) if reg.startswith("%") else (0 if reg == "global_smem" else None)
            if addr is None:
                raise Unknown(f"the address of `{op} {text}` depends on data")
            accesses.append((pc - 1, op, addr + off))
            if op.startswith("ld") and args and not args[0].startswith("{"):
                regs[args[0]] = None
            continue
        if base == "ld" and ".param" in op:
            m = re.search(r"\[(\w+)\]", text)
            regs[args[0]] = params.get(m.group(1)) if m else None
            continue
        if base == "setp":
            a, b = value(args[-2]), value(args[-1])
            cmp = op.split(".")[1]
            dests = args[0].split("|")
            if a is None or b is None:
                result = None
            else:
                result = {"lt": a < b, "gt": a > b, "le": a <= b, "ge": a >= b, "eq": a == b,
                          "ne": a != b, "lo": a < b, "hi": a > b, "ls": a <= b, "hs": a >= b}.get(cmp)
            preds[dests[0]] = result
            continue
        if not args:
            continue
        dest = args[0]
        if dest.startswith("{") or not dest.startswith("%"):
            continue
        vals = [value(a) for a in args[1:]]
        r = None
        try:
            if base == "mov":
                r = vals[0]
            elif base == "selp":
                p = preds.get(args[3])
                r = vals[0] if p is None or p else vals[1]
            elif base == "cvt":
                # cvt.DST.SRC: the source's low bits, widened as its type says.
                r = None if vals[0] is None else vals[0] & type_mask(op.split(".")[-1])
                if r is not None:
                    r &= type_mask(op.split(".")[-2])
            elif None in vals:
                r = None
            elif base == "add":
                r = vals[0] + vals[1]
            elif base == "sub":
                r = vals[0] - vals[1]
            elif base == "mul":
                r = vals[0] * vals[1]
            elif base == "mad":
                r = vals[0] * vals[1] + vals[2]
            elif base == "shl":
                r = (vals[0] << vals[1]) & (MASK64 if ".b64" in op else 0xFFFFFFFF)
            elif base == "shr":
                r = vals[0] >> vals[1]
            elif base == "and":
                r = vals[0] & vals[1]
            elif base == "or":
                r = vals[0] | vals[1]
            elif base == "xor":
                r = vals[0] ^ vals[1]
            elif base == "not":
                r = ~vals[0] & 0xFFFFFFFF
            elif base == "neg":
                r = -vals[0]
            elif base == "min":
                r = min(vals[0], vals[1])
            elif base == "max":
                r = max(vals[0], vals[1])
            elif base == "rem":
                r = vals[0] % vals[1]
            elif base == "div":
                r = vals[0] // vals[1]
            elif base == "prmt":
                # Bytes of {b, a} picked by the selector's nibbles (default mode).
                pool = (vals[1] & 0xFFFFFFFF) << 32 | (vals[0] & 0xFFFFFFFF)
                r = 0
                for i in range(4):
                    sel = (vals[2] >> (4 * i)) & 0xF
                    byte = (pool >> (8 * (sel & 7))) & 0xFF
                    if sel & 8:
                        byte = 0xFF if byte & 0x80 else 0
                    r |= byte << (8 * i)
            elif base == "bfe":
                x = (vals[0] >> vals[1]) & ((1 << vals[2]) - 1)
                if ".s" in op and vals[2] and (x >> (vals[2] - 1)) & 1:
                    x -= 1 << vals[2]
                r = x
        except (TypeError, ZeroDivisionError, IndexError):
            r = None
        if r is not None and base not in ("mov", "selp", "cvt") and op.split(".")[-1][1:] == "16":
            r &= 0xFFFF
        regs[dest] = r
    return accesses


def type_mask(ty):
    """The bits a PTX type keeps (`u16`, `b32`, ...); all of them for others."""
    m = re.fullmatch(r"[bsuf](8|16|32|64)", ty)
    return (1 << int(m.group(1))) - 1 if m else MASK64


def words(addr, bits):
    return [addr // 4 + i for i in range(max(1, bits // 32))]


def phase_wavefronts(requests):
    """Wavefronts of one phase: the most distinct words any bank holds."""
    banks = {}
    for addr, bits in requests:
        for w in words(addr, bits):
            banks.setdefault(w % 32, set()).add(w)
    return max((len(s) for s in banks.values()), default=0)


def warp_wavefronts(op, lanes):
    """``lanes``: {lane: address} of one warp's execution of ``op``."""
    if op.startswith(("ldmatrix", "stmatrix")):
        count = 4 if ".x4" in op else 2 if ".x2" in op else 1
        total = 0
        for j in range(count):
            rows = [(lanes[l], 128) for l in range(8 * j, 8 * j + 8) if l in lanes]
            total += phase_wavefronts(rows)
        return total
    bits = width_bits(op)
    per_phase = max(1, min(32, 1024 // bits))
    if op.startswith("ld") and bits > 32:
        quads = {}
        for lane, addr in lanes.items():
            quads.setdefault(lane // 4, set()).add(addr)
        if max(len(a) for a in quads.values()) <= 2:
            per_phase = min(32, per_phase * 2)
    total = 0
    for first in range(0, 32, per_phase):
        reqs = [(lanes[l], bits) for l in range(first, first + per_phase) if l in lanes]
        if reqs:
            total += phase_wavefronts(reqs)
    return total


def evaluate(ptx, num_warps, scalars):
    program, labels = parse(ptx)
    header = re.search(r"\.entry\s+(\w+)\s*\((.*?)\)", ptx, re.S)
    names = re.findall(r"\.param\s+\.\w+(?:\s+\.ptr\s+\.\w+\s+\.align\s+\d+)?\s+(\w+)", header.group(2))
    params = {n: scalars[i] if i < len(scalars) else None for i, n in enumerate(names)}
    per_warp = {}
    for tid in range(32 * num_warps):
        for index, op, addr in run_lane(program, labels, tid, params, num_warps):
            lanes = per_warp.setdefault((index, op, tid // 32), {})
            if addr is not None:
                lanes[tid % 32] = addr
    out = {}
    for (index, op, warp), lanes in sorted(per_warp.items()):
        e = out.setdefault(op, {"instructions": 0, "wavefronts": 0})
        # A warp issues an instruction that any of its lanes reaches, even
        # when its predicate is false in every lane (as the GPU counts it).
        e["instructions"] += 1
        e["wavefronts"] += warp_wavefronts(op, lanes) if lanes else 0
    return dict(sorted(out.items()))


def scalar_values(name, sig):
    """The entry's parameters in order: a scalar's value where the hardware run fixed one."""
    values = []
    known = gen_kernel_hw.SCALARS.get(name, {})
    for arg, ty in sig.items():
        if ty == "constexpr":
            continue
        v = known.get(arg) if not ty.startswith("*") else None
        values.append(v if isinstance(v, int) else None)
    return values


def main():
    check = sys.argv[1:2] == ["--check"]
    only = set(sys.argv[2:]) if check else None
    ttgir_corpus._relocate_triton_library_paths()
    kernels = []
    for corpus, name, fn, sig, constexprs, div_args, options in gen_kernel_hw.cases():
        if only is not None and name not in only:
            continue
        fn.file_name = f"tests/vectors/triton/gen_{'ttgir' if corpus == 'ttgir' else 'kernel'}_corpus.py"
        divisible = [a for a in div_args if a in fn.arg_names]
        for cc in TARGETS:
            entry = {"corpus": corpus, "kernel": name, "file": f"{name}_sm{cc}.ttgir", "target": f"cuda:{cc}",
                     "num_warps": options["num_warps"]}
            try:
                k = ttgir_corpus.compile_case(fn, sig, constexprs, divisible, GPUTarget("cuda", cc, 32), options)
            except Exception as exc:
                entry["compile_error"] = ttgir_corpus._short_error(exc)
                kernels.append(entry)
                continue
            try:
                entry["instructions"] = evaluate(k.asm["ptx"], options["num_warps"], scalar_values(name, sig))
            except Unknown as why:
                entry["unevaluated"] = str(why)
            kernels.append(entry)
            print(f"{entry['file']}: {entry.get('instructions', entry.get('unevaluated'))}", flush=True)
    if check:
        with open(OUT) as fh:
            recorded = {(k["file"], k["target"]): k for k in json.load(fh)["kernels"]}
        differ = [k["file"] for k in kernels if recorded.get((k["file"], k["target"])) != k]
        print(f"{len(kernels) - len(differ)} of {len(kernels)} kernels as recorded")
        if differ or not kernels:
            print(f"differ from ptx_wavefronts.json: {differ}", file=sys.stderr)
            sys.exit(1)
        return
    with open(OUT, "w") as fh:
        json.dump({"triton": __import__("triton").__version__, "kernels": kernels}, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
